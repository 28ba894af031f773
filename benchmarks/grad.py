"""Reverse mode against JAX, in the same run: the cost of `grad` of a chain of n elementwise
operations (it must grow linearly, and never hit the recursion limit), and a jitted training
step of a small MLP (tanh, matmuls, mean squared error; batch 1024, widths 256-512-10).
"""
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.setrecursionlimit(1000)         # a recursive transformation would fail at n = 10,000

import jax  # noqa: E402
import jax.numpy as jnp_ref  # noqa: E402
import numpy as np  # noqa: E402

import autodidax  # noqa: E402
import autodidax.numpy as jnp  # noqa: E402


def chain(m, n):
    def f(x):
        for _ in range(n):
            x = m.sin(x) * 0.999
        return x
    return f


def grad_chain(lib, m, n):
    best = float("inf")
    for _ in range(3 if n <= 1000 else 1):
        start = time.perf_counter()
        lib.grad(chain(m, n))(0.5)
        best = min(best, time.perf_counter() - start)
    return best


def training_step(lib, m, put):
    rng = np.random.default_rng(0)
    params = {"w1": put((rng.standard_normal((256, 512)) * 0.05).astype(np.float32)),
              "b1": put(np.zeros(512, np.float32)),
              "w2": put((rng.standard_normal((512, 10)) * 0.05).astype(np.float32)),
              "b2": put(np.zeros(10, np.float32))}
    x = put(rng.standard_normal((1024, 256)).astype(np.float32))
    y = put(rng.standard_normal((1024, 10)).astype(np.float32))

    def loss(params, x, y):
        h = m.tanh(x @ params["w1"] + params["b1"])
        return m.mean((h @ params["w2"] + params["b2"] - y) ** 2)

    step = lib.jit(lib.grad(loss))
    step(params, x, y)
    times = []
    for _ in range(7):
        start = time.perf_counter()
        for _ in range(20):
            g = step(params, x, y)
        lib.tree.leaves(g)[0].block_until_ready()
        times.append((time.perf_counter() - start) / 20)
    return statistics.median(times)


def main():
    print(f"{'grad of a chain of n ops':30} {'autodidax':>11} {'JAX':>11}")
    ours_by_n = {}
    for n in (100, 1_000, 10_000):
        ours, theirs = grad_chain(autodidax, jnp, n), grad_chain(jax, jnp_ref, n)
        ours_by_n[n] = ours
        print(f"{'n = ' + format(n, ','):30} {ours * 1e3:>9.1f}ms {theirs * 1e3:>9.1f}ms")
    growth = ours_by_n[10_000] / ours_by_n[1_000]
    print(f"n = 10,000 costs {growth:.1f}x n = 1,000 (target <= 12x): "
          f"{'met' if growth <= 12 else 'NOT met'}")
    ours = training_step(autodidax, jnp, autodidax.device_put)
    theirs = training_step(jax, jnp_ref, jax.device_put)
    ratio = ours / theirs
    print(f"\njit(grad(loss)) MLP step: autodidax {ours * 1e3:.2f}ms, JAX {theirs * 1e3:.2f}ms, "
          f"ratio {ratio:.2f} (target <= 1.1): {'met' if ratio <= 1.1 else 'NOT met'}")


if __name__ == "__main__":
    main()
