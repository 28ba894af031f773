"""Eager operations on small arrays against JAX's op-by-op dispatch, per call: ours compute with
NumPy on the host (chapter 1's evaluation trace, below `autodidax.numpy`), JAX's run a cached
one-primitive program through XLA. The libraries are measured in turns, each keeping its best
round. Small arrays, so that what is measured is the overhead around the arithmetic.
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp_ref  # noqa: E402
import numpy as np  # noqa: E402

import autodidax  # noqa: E402,F401
import autodidax.numpy as jnp  # noqa: E402
from turns import in_turns  # noqa: E402

OPERATIONS = {                       # name -> function of (numpy module, x, y)
    "jnp.sin(x)": lambda m, x, y: m.sin(x),
    "x * y": lambda m, x, y: x * y,
    "x + 1.0": lambda m, x, y: x + 1.0,
    "jnp.sum(x)": lambda m, x, y: m.sum(x),
    "jnp.dot(x, y)": lambda m, x, y: m.dot(x, y),
    "x[0]": lambda m, x, y: x[0],
    "x.reshape(3, 1)": lambda m, x, y: x.reshape(3, 1),
}


def main():
    a = np.array([1.0, 2.0, 3.0], np.float32)
    ours = jnp.asarray(a), jnp.asarray(a * 2)
    theirs = jax.device_put(a), jax.device_put(a * 2)
    runs = {}
    for name, op in OPERATIONS.items():
        runs[name, "ours"] = lambda op=op: op(jnp, *ours)
        runs[name, "jax"] = lambda op=op: op(jnp_ref, *theirs)
    best = {key: min(times) for key, times in in_turns(runs, rounds=9, calls=2000).items()}
    print(f"{'eager, f32[3]':20} {'autodidax':>10} {'JAX':>10} {'ratio':>6}")
    for name in OPERATIONS:
        o, j = best[name, "ours"], best[name, "jax"]
        print(f"{name:20} {o * 1e6:>8.2f}us {j * 1e6:>8.2f}us {o / j:>6.2f}")


if __name__ == "__main__":
    sys.exit(main())
