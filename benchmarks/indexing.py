"""Chapter 11: `jit` of an embedding lookup, table[f32[50000,256]][ids i32[4096]], and of its
gradient (a scatter-add), per call, as a ratio to JAX in the same run."""
import os
import sys
import timeit

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402


def programs(jax, table, ids):
    lookup = jax.jit(lambda t, i: t[i])
    grad = jax.jit(jax.grad(lambda t, i: (t[i] * 0.5).sum()))
    return {"lookup": lambda: jax.block_until_ready(lookup(table, ids)),
            "grad (scatter-add)": lambda: jax.block_until_ready(grad(table, ids))}


def main(number=20):
    import jax
    import jax.numpy as jjnp

    import autodidax
    import autodidax.numpy as ajnp
    rng = np.random.default_rng(0)
    table = rng.standard_normal((50000, 256)).astype(np.float32)
    ids = rng.integers(0, 50000, 4096).astype(np.int32)
    ours = programs(autodidax, autodidax.device_put(table), autodidax.device_put(ids))
    theirs = programs(jax, jax.device_put(table), jax.device_put(ids))
    best = {}
    for _ in range(5):          # alternate, so that both see the same load on the machine
        for who, progs in (("ours", ours), ("theirs", theirs)):
            for name, run in progs.items():
                run()
                t = min(timeit.repeat(run, number=number, repeat=1)) / number
                best[who, name] = min(best.get((who, name), t), t)
    ours = {name: best["ours", name] for name in ours}
    theirs = {name: best["theirs", name] for name in theirs}
    for name in ours:
        print(f"{name:20s} autodidax {ours[name] * 1e6:9.1f} us   jax {theirs[name] * 1e6:9.1f} us"
              f"   ratio {ours[name] / theirs[name]:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
