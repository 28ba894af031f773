"""The derived programs of a jitted function, against JAX: `grad(jit(f))(x)`, `vmap(jit(f))(x)`
and `jvp(jit(f), (x,), (t,))`, called again and again on small inputs, with no outer `jit`.

Each call traces the transformation around one `jit` equation, then runs the derived programs
of the jitted function: its JVP, its batched form, the known and unknown halves of its
linearization and their transpose. JAX caches those derived jaxprs and their executables, keyed
(weakly) on the jitted function's jaxpr; so must we, or every call re-traces, re-lowers and looks
up a compile. Each figure is the median of several runs, the libraries taking turns.
"""
import os
import statistics
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jjnp  # noqa: E402
import numpy as np  # noqa: E402

import autodidax  # noqa: E402
import autodidax.numpy as ajnp  # noqa: E402
from turns import per_call  # noqa: E402


def workloads(lib, jnp):
    f = lib.jit(lambda x: jnp.sum(jnp.sin(x) * jnp.cos(x) + x * x))
    g = lib.jit(lambda x: jnp.sin(x) * 2.0 + x)
    x = np.linspace(0, 1, 8, dtype=np.float32)
    xs = np.ones((4, 8), np.float32)
    return {
        "grad(jit(f))(x)": lambda: lib.grad(f)(x),
        "vmap(jit(f))(x)": lambda: lib.vmap(g)(xs),
        "jvp(jit(f), (x,), (t,))": lambda: lib.jvp(g, (x,), (x,)),
    }


def main(repeats=7):
    ours, theirs = workloads(autodidax, ajnp), workloads(jax, jjnp)
    print(f"{'per call':28s} {'autodidax':>10s} {'JAX':>10s} {'ratio':>7s}   (target <= 1.5x)")
    for name in ours:
        for run in (ours[name], theirs[name]):
            per_call(run, 5, warm=False)                 # trace, lower, compile: not timed
        times = {"ours": [], "jax": []}
        for _ in range(repeats):
            times["ours"].append(per_call(ours[name], 200, warm=False))
            times["jax"].append(per_call(theirs[name], 200, warm=False))
        a, j = statistics.median(times["ours"]), statistics.median(times["jax"])
        print(f"{name:28s} {a * 1e6:8.1f}us {j * 1e6:8.1f}us {a / j:6.2f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
