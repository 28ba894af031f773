"""Tracing cost: `make_jaxpr` on a chain of N elementwise operations, against JAX.

Each measurement traces a freshly made function (so no cache can help either library) and
takes the best of several repetitions. Prints the cost per equation and the ratios the
targets are stated in.
"""
import os
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.setrecursionlimit(1000)          # a recursive tracer or printer would fail at N = 10,000

import jax  # noqa: E402
import jax.numpy as jnp_ref  # noqa: E402
import numpy as np  # noqa: E402

import autodidax  # noqa: E402
import autodidax.numpy as jnp  # noqa: E402

SIZES = (10, 100, 1_000, 10_000)


def chain(m, n):
    def f(x):
        for _ in range(n):
            x = m.sin(x) * 1.5
        return x
    return f


def per_equation(make_jaxpr, m, n, repeats):
    x = np.ones(3, np.float32)
    best = float("inf")
    for _ in range(repeats):
        f = chain(m, n)
        start = time.perf_counter()
        make_jaxpr(f)(x)
        best = min(best, time.perf_counter() - start)
    return best / (2 * n) * 1e6      # two equations per step: sin and mul


_MEMORY = """
import gc, os, resource, sys, tracemalloc
import numpy as np
os.environ.setdefault("JAX_PLATFORMS", "cpu")
if sys.argv[1] == "jax":
    import jax as lib, jax.numpy as m
else:
    import autodidax as lib, autodidax.numpy as m
def f(x):
    for _ in range(5_000):
        x = m.sin(x) * 1.5
    return x
x = np.ones(3, np.float32)
lib.make_jaxpr(lambda x: m.sin(x) * 1.5)(x)          # warm: first-use caches are not tracing
gc.collect()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
jaxpr = lib.make_jaxpr(f)(x)
_, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
print(peak, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss) * 1024)
"""


def peak_memory():
    """Peak memory while `make_jaxpr` traces 10,000 equations, each library in a fresh process:
    what Python allocated at the peak (tracemalloc), and the growth of the process's resident
    high-water mark (which sees C++ allocations too, and tracemalloc's own bookkeeping)."""
    out = {}
    for lib in ("autodidax", "jax"):
        run = subprocess.run([sys.executable, "-c", _MEMORY, lib], capture_output=True,
                             text=True, check=True)
        out[lib] = [int(v) for v in run.stdout.split()]
    return out


def main():
    memory = peak_memory()
    rows = []
    for n in SIZES:
        repeats = 5 if n <= 1000 else 2
        ours = per_equation(autodidax.make_jaxpr, jnp, n, repeats)
        theirs = per_equation(jax.make_jaxpr, jnp_ref, n, repeats)
        rows.append((n, ours, theirs))
    print(f"{'N':>7} {'autodidax us/eqn':>17} {'JAX us/eqn':>11} {'ratio':>6}")
    for n, ours, theirs in rows:
        print(f"{n:>7} {ours:>17.2f} {theirs:>11.2f} {ours / theirs:>6.2f}")
    at = {n: (ours, theirs) for n, ours, theirs in rows}
    ratio = at[1000][0] / at[1000][1]
    linear = at[10000][0] / at[1000][0]
    print(f"\nper-equation cost vs JAX at N=1,000: {ratio:.2f}x (target <= 0.5x): "
          f"{'met' if ratio <= 0.5 else 'NOT met'}")
    print(f"N=10,000 vs N=1,000 per equation: {linear:.2f}x (target <= 1.5x): "
          f"{'met' if linear <= 1.5 else 'NOT met'}")
    (ours, ours_rss), (theirs, theirs_rss) = memory["autodidax"], memory["jax"]
    print(f"peak memory tracing 10,000 equations: Python allocations {ours / 2**20:.1f} MiB "
          f"against JAX's {theirs / 2**20:.1f} MiB ({ours / theirs:.2f}x, target <= 1x): "
          f"{'met' if ours <= theirs else 'NOT met'}; resident high-water mark grew by "
          f"{ours_rss / 2**20:.1f} MiB against {theirs_rss / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
