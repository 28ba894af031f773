"""`jax.random` (chapter 12) against JAX, in the same run: a call of
`jit(lambda k: random.normal(k, (1000, 1000)))` (target: within 1.1x of JAX), and an eager
`random.split` (target: within 2x of JAX).

(Not named `random.py`: a script's folder comes first on `sys.path`, so a `benchmarks/random.py`
would stand in for the standard library's `random` in every benchmark of this folder.)
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402

import autodidax  # noqa: E402
from turns import median, per_call  # noqa: E402


def jit_normal(lib):
    key = lib.random.PRNGKey(0)
    f = lib.jit(lambda k: lib.random.normal(k, (1000, 1000)))
    f(key).block_until_ready()
    return per_call(lambda: f(key), 10, repeats=7, warm=False, stat=median)


def eager_split(lib):
    key = lib.random.PRNGKey(0)
    np.asarray(lib.random.split(key))
    return per_call(lambda: np.asarray(lib.random.split(key)), 100, repeats=7, warm=False,
                    stat=median)


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
