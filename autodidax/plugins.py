# Generated from chapters/A5_plugins.md by `make export`: edit the chapter, not this file.


"""PJRT plugins: finding JAX's CUDA plugin, loading the CUDA libraries it needs, and making a
client from it. Imports only jaxlib, never jax and never autodidax.runtime."""
from __future__ import annotations

import ctypes
import sys
from pathlib import Path

from jaxlib import xla_client as xc


_PLUGINS = ["xla_cuda13", "xla_cuda12"]          # the newer CUDA first


def find_cuda_plugin() -> Path | None:
    """The CUDA PJRT plugin of an installed jax-cuda13-pjrt or jax-cuda12-pjrt wheel, or None.
    Found on sys.path, without importing its package (whose __init__ imports jax)."""
    for name in _PLUGINS:
        for entry in sys.path:
            path = Path(entry or ".", "jax_plugins", name, "xla_cuda_plugin.so")
            if path.is_file():
                return path
    return None


# The CUDA libraries each plugin links against: (folder under site-packages/nvidia, libraries).
_NVIDIA_LIBRARIES = {
    "xla_cuda13": [("cu13", ["libcudart.so.13", "libnvrtc.so.13", "libcublasLt.so.13",
                             "libcublas.so.13", "libcupti.so.13", "libcusparse.so.12",
                             "libcusolver.so.12", "libcufft.so.12"])],
    "xla_cuda12": [("cuda_runtime", ["libcudart.so.12"]), ("cuda_nvrtc", ["libnvrtc.so.12"]),
                   ("cublas", ["libcublasLt.so.12", "libcublas.so.12"]),
                   ("cuda_cupti", ["libcupti.so.12"]), ("cusparse", ["libcusparse.so.12"]),
                   ("cusolver", ["libcusolver.so.11"]), ("cufft", ["libcufft.so.11"])],
}
_NVIDIA_COMMON = [("nccl", ["libnccl.so.2"]), ("nvshmem", ["libnvshmem_host.so.3"]),
                  ("cudnn", ["libcudnn.so.9"])]


def nvidia_library_folders(plugin: str) -> list:
    """(folder, its `lib` directory on sys.path or None if not installed, libraries), in the
    order to load them, for `plugin` ("xla_cuda12" or "xla_cuda13")."""
    found = []
    for folder, libraries in _NVIDIA_LIBRARIES[plugin] + _NVIDIA_COMMON:
        dirs = (Path(entry or ".", "nvidia", folder, "lib") for entry in sys.path)
        found.append((folder, next((d for d in dirs if d.is_dir()), None), libraries))
    return found


def _preload_nvidia_libraries(plugin: str) -> None:
    """Load the CUDA libraries of the nvidia-* wheels by path, so the plugin finds them loaded."""
    for _, lib_dir, libraries in nvidia_library_folders(plugin):
        if lib_dir is None:
            continue                            # not installed: the plugin will say if it matters
        for lib in libraries:
            try:
                ctypes.CDLL(str(lib_dir / lib))
            except OSError:
                pass


def make_cuda_client():
    """A PJRT client for NVIDIA GPUs from JAX's CUDA plugin, or None if none is installed."""
    path = find_cuda_plugin()
    if path is None:
        return None
    _preload_nvidia_libraries(path.parent.name)
    if not xc.pjrt_plugin_loaded("cuda"):
        xc.load_pjrt_plugin_dynamically("cuda", str(path))
    if not xc.pjrt_plugin_initialized("cuda"):
        xc.initialize_pjrt_plugin("cuda")
    return xc.make_c_api_client("cuda", xc.generate_pjrt_gpu_plugin_options())
