"""Tracing cost: `make_jaxpr` on a chain of N elementwise operations, against JAX.

Each measurement traces a freshly made function (so no cache can help either library) and
takes the best of several repetitions. Prints the cost per equation and the ratios the
targets are stated in.
"""
import os
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


def main():
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


if __name__ == "__main__":
    main()
