"""autodidax/plugins.py: finding JAX's CUDA plugin and NVIDIA's libraries, without jax."""
import ast
import sys

from autodidax import plugins, runtime


def test_plugins_imports_only_jaxlib_and_the_standard_library():
    tree = ast.parse(open(plugins.__file__).read())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for a in node.names}
    assert {m.split(".")[0] for m in imported} <= {"__future__", "ctypes", "sys", "pathlib",
                                                    "jaxlib"}, imported


def test_the_runtime_makes_its_gpu_client_here():
    assert runtime.backend_factories["cuda"] is plugins.make_cuda_client
    if plugins.find_cuda_plugin() is None:
        assert plugins.make_cuda_client() is None


def test_plugin_and_libraries_are_found_on_sys_path(tmp_path, monkeypatch):
    for name in ["xla_cuda12", "xla_cuda13"]:
        (tmp_path / "jax_plugins" / name).mkdir(parents=True)
    (tmp_path / "nvidia" / "cublas" / "lib").mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert plugins.find_cuda_plugin() is None              # folders, but no library in them
    (tmp_path / "jax_plugins" / "xla_cuda12" / "xla_cuda_plugin.so").touch()
    assert plugins.find_cuda_plugin() == tmp_path / "jax_plugins/xla_cuda12/xla_cuda_plugin.so"
    (tmp_path / "jax_plugins" / "xla_cuda13" / "xla_cuda_plugin.so").touch()
    assert plugins.find_cuda_plugin().parent.name == "xla_cuda13"    # the newer CUDA first
    found = {folder: lib_dir for folder, lib_dir, _ in plugins.nvidia_library_folders("xla_cuda12")}
    assert found["cublas"] == tmp_path / "nvidia" / "cublas" / "lib"
    assert found["cudnn"] is None and found["cuda_runtime"] is None
