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
from autodidax import runtime  # noqa: E402


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


def training_steps(rounds=9, calls=20):
    """`jit(grad(loss))` of the MLP in both libraries, and JAX's lowering of the same step run by
    our executable (the like-for-like floor: the same program, our call path). The three take
    turns, round after round; each round gives a time per call, and the ratios are of the
    medians over rounds. One-sided runs (ours, then JAX's) moved by 30% on this machine."""
    rng = np.random.default_rng(0)
    host = {"w1": (rng.standard_normal((256, 512)) * 0.05).astype(np.float32),
            "b1": np.zeros(512, np.float32),
            "w2": (rng.standard_normal((512, 10)) * 0.05).astype(np.float32),
            "b2": np.zeros(10, np.float32)}
    hx = rng.standard_normal((1024, 256)).astype(np.float32)
    hy = rng.standard_normal((1024, 10)).astype(np.float32)

    def loss(m):
        def loss(params, x, y):
            h = m.tanh(x @ params["w1"] + params["b1"])
            return m.mean((h @ params["w2"] + params["b2"] - y) ** 2)
        return loss

    runs = {}
    for lib, m in [(autodidax, jnp), (jax, jnp_ref)]:
        step = lib.jit(lib.grad(loss(m)))
        args = lib.device_put((host, hx, hy))
        runs[lib.__name__] = lambda step=step, args=args: step(*args)
    text = jax.jit(jax.grad(loss(jnp_ref))).lower(host, hx, hy).as_text()
    exe = runtime.compile_or_get_cached(text)
    flat = [runtime.device_put(a) for a in jax.tree.leaves((host, hx, hy))]
    runs["floor"] = lambda: exe(*flat)
    times = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            run()
            start = time.perf_counter()
            for _ in range(calls):
                g = run()
            jax.tree.leaves(g)[0].block_until_ready()
            times[name].append((time.perf_counter() - start) / calls)
    return {name: statistics.median(t) for name, t in times.items()}


def main():
    print(f"{'grad of a chain of n ops':30} {'autodidax':>11} {'JAX':>11}")
    ours_by_n = {}
    for n in (100, 1_000, 10_000):
        ours, theirs = grad_chain(autodidax, jnp, n), grad_chain(jax, jnp_ref, n)
        ours_by_n[n] = ours
        print(f"{'n = ' + format(n, ','):30} {ours * 1e3:>9.1f}ms {theirs * 1e3:>9.1f}ms")
    growth = ours_by_n[10_000] / ours_by_n[1_000]
    print(f"n = 10,000 costs {growth:.1f}x n = 1,000 (target <= 11x): "
          f"{'met' if growth <= 11 else 'NOT met'}")
    t = training_steps()
    ratio = t["autodidax"] / t["jax"]
    print(f"\njit(grad(loss)) MLP step: autodidax {t['autodidax'] * 1e3:.2f}ms, "
          f"JAX {t['jax'] * 1e3:.2f}ms, ratio {ratio:.2f} (target <= 1.05): "
          f"{'met' if ratio <= 1.05 else 'NOT met'}")
    print(f"  floor: JAX's lowering of the step, run by our executable, "
          f"{t['floor'] * 1e3:.2f}ms ({t['floor'] / t['jax']:.2f}x JAX); "
          f"ours is {t['autodidax'] / t['floor']:.2f}x that")

if __name__ == "__main__":
    main()
