"""A check for a machine with an NVIDIA GPU and JAX's CUDA PJRT plugin (jax-cuda12-pjrt or
jax-cuda13-pjrt, the version of jaxlib): lists the devices, runs a lowered program and eager
primitives on the GPU, and compares the results with the CPU's. Then it prints the stages below
HLO that XLA writes for the program on the GPU (chapter 19's `below`): its steps, which of them
go to cuBLAS, cuDNN or Triton, and the PTX of its kernels.

Without a plugin, or without a GPU, it says so and exits with status 0: there is nothing to check.
Run it with the project's environment: `.venv/bin/python benchmarks/gpu_check.py`.
"""
import os
import re
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

import autodidax  # noqa: E402,F401
import numpy as np  # noqa: E402
import autodidax.numpy as jnp  # noqa: E402
from autodidax import runtime  # noqa: E402
from autodidax.jaxpr import make_jaxpr  # noqa: E402
from autodidax.lowering import lower_jaxpr_to_module, module_to_text  # noqa: E402


def program(x, w):
    return jnp.tanh(x @ w).sum(axis=0) * 2.0 + jnp.exp(-x[0])


def main() -> int:
    plugin = runtime.find_cuda_plugin()
    if plugin is None:
        print("no CUDA PJRT plugin is installed (pip install jax-cuda12-pjrt or jax-cuda13-pjrt): "
              "nothing to check")
        return 0
    print(f"CUDA PJRT plugin: {plugin}")
    try:
        gpus = runtime.devices("gpu")
    except RuntimeError as e:
        print(f"the GPU backend did not start, so there is nothing to check: {e}")
        return 0
    cpu = runtime.devices("cpu")[0]
    print("GPU devices:", gpus)
    print("device kinds:", sorted({d.device_kind for d in gpus}))

    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 64), dtype=np.float32)
    w = rng.standard_normal((64, 64), dtype=np.float32)
    closed = make_jaxpr(program)(x, w)
    text = module_to_text(lower_jaxpr_to_module(closed))
    results = {}
    for device in [cpu, *gpus]:
        exe = runtime.compile_or_get_cached(text, device, closed.out_avals)
        [out] = exe(runtime.device_put(x, device), runtime.device_put(w, device))
        assert out.device == device, f"the result is on {out.device}, not {device}"
        results[device] = np.asarray(out.block_until_ready())
    ok = True
    for device in gpus:
        close = np.allclose(results[device], results[cpu], rtol=1e-4, atol=1e-4)
        ok &= close
        print(f"jit-style program on {device}: {'matches' if close else 'DIFFERS from'} the CPU "
              f"(max abs difference {np.abs(results[device] - results[cpu]).max():.2e})")

    with runtime.eager_mode("xla", gpus[0]):
        eager = program(jnp.asarray(x), jnp.asarray(w))
    close = eager.device == gpus[0] and np.allclose(eager, results[cpu], rtol=1e-4, atol=1e-4)
    ok &= close
    print(f"eager, op by op on {gpus[0]}: {'matches' if close else 'DIFFERS from'} the CPU")
    ok &= print_stages(text, gpus[0])
    print("GPU check passed" if ok else "GPU check FAILED")
    return 0 if ok else 1


def print_stages(text, gpu) -> bool:
    """Chapter 19's stages of the program on `gpu`, printed; False if XLA wrote no PTX."""
    from autodidax.machine import below
    from autodidax.xla_files import steps
    down = below(text, gpu)
    print(f"\nbelow HLO on {gpu}: {len(down.files)} files")
    print("  " + "\n  ".join(sorted(down.files)))
    for s in steps(down.hlo):
        print(f"  step {s.name:28s} {s.library or 'generated'}: {' '.join(s.ops)}")
    for name, ptx in sorted(down.ptx.items()):
        entries = re.findall(r"\.entry\s+(\w+)", ptx)
        print(f"\nPTX {name}: {len(ptx.splitlines())} lines, kernels {entries}")
        print("\n".join("    " + line for line in ptx.splitlines()[:25]))
    if not down.ptx:
        print("XLA wrote no PTX: was the program compiled for the GPU?")
    return bool(down.ptx)


if __name__ == "__main__":
    sys.exit(main())
