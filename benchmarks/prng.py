"""`jax.random` (chapter 12) against JAX, in the same run: a call of
`jit(lambda k: random.normal(k, (1000, 1000)))` (target: within 1.1x of JAX), and an eager
`random.split` (target: within 2x of JAX).

(Not named `random.py`: a script's folder comes first on `sys.path`, so a `benchmarks/random.py`
would stand in for the standard library's `random` in every benchmark of this folder.)
"""
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402

import autodidax  # noqa: E402


def best_of(f, repeats=7, inner=10):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(inner):
            f()
        times.append((time.perf_counter() - start) / inner)
    return statistics.median(times)


def jit_normal(lib):
    key = lib.random.PRNGKey(0)
    f = lib.jit(lambda k: lib.random.normal(k, (1000, 1000)))
    f(key).block_until_ready()
    return best_of(lambda: f(key).block_until_ready())


def eager_split(lib):
    key = lib.random.PRNGKey(0)
    np.asarray(lib.random.split(key))
    return best_of(lambda: np.asarray(lib.random.split(key)), inner=100)


def main():
    rows = [("jit normal (1000, 1000), per call", jit_normal, 1.1),
            ("eager split", eager_split, 2.0)]
    print(f"{'benchmark':40} {'autodidax':>12} {'JAX':>12} {'ratio':>7}  target")
    for name, bench, target in rows:
        ours, theirs = bench(autodidax), bench(jax)
        ratio = ours / theirs
        verdict = "ok" if ratio <= target else "SLOWER"
        print(f"{name:40} {ours * 1e6:10.1f}us {theirs * 1e6:10.1f}us {ratio:7.2f}  "
              f"<= {target} {verdict}")


if __name__ == "__main__":
    main()
