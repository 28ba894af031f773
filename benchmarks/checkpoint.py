"""`checkpoint` against JAX, in the same run: `jit(grad(loss))` of a 32-layer tanh MLP (width
256, batch 1024) with each layer checkpointed, under several policies: the time per step and
XLA's compiled temporary memory (`Compiled.memory_analysis().temp_size_in_bytes`), each as a
ratio to JAX's for the same program. The layers are a `scan` over the stacked weights (the usual
way to write a deep stack, and where checkpointing saves memory on the CPU); the last row is the
same network unrolled as a Python loop.
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp_ref  # noqa: E402
import numpy as np  # noqa: E402

import autodidax  # noqa: E402
import autodidax.numpy as jnp  # noqa: E402
from turns import per_call  # noqa: E402

LAYERS, WIDTH, BATCH = 32, 256, 1024


def make_step(lib, m, policy, unrolled=False):
    """`jit(grad(loss))`; `policy` is None for no checkpoint, else a policy's name."""
    def layer(h, w):
        return m.tanh(h @ w), None

    if policy is not None:
        layer = lib.checkpoint(layer, policy=getattr(lib.checkpoint_policies, policy))

    def loss(ws, h):
        if unrolled:
            for i in range(LAYERS):
                h, _ = layer(h, ws[i])
        else:
            h, _ = lib.lax.scan(layer, h, ws)
        return m.sum(h ** 2)
    return lib.jit(lib.grad(loss))


def setup(lib, m, put, policy, unrolled=False):
    """The compiled step, its arguments, and its compiled temporary memory."""
    rng = np.random.default_rng(0)
    ws = put((rng.standard_normal((LAYERS, WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32))
    h = put(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
    step = make_step(lib, m, policy, unrolled)
    temp = step.lower(ws, h).compile().memory_analysis().temp_size_in_bytes
    step(ws, h).block_until_ready()
    return step, (ws, h), temp


def measure(policy, unrolled):
    """(ours, JAX's) seconds per step, best of rounds taken in turn, and temporary bytes."""
    ours = setup(autodidax, jnp, autodidax.device_put, policy, unrolled)
    theirs = setup(jax, jnp_ref, jax.device_put, policy, unrolled)
    t_ours, t_jax = [], []
    for _ in range(5):                  # alternate, so that both see the same machine load
        t_ours.append(per_call(lambda: ours[0](*ours[1]), 3, warm=False))
        t_jax.append(per_call(lambda: theirs[0](*theirs[1]), 3, warm=False))
    return min(t_ours), min(t_jax), ours[2], theirs[2]


def main():
    print(f"jit(grad) of a {LAYERS}-layer tanh MLP, width {WIDTH}, batch {BATCH}, on "
          f"{jax.devices()[0].platform}")
    print(f"{'layers, policy':36} {'ours ms':>8} {'JAX ms':>8} {'ratio':>6}  "
          f"{'ours MB':>8} {'JAX MB':>8} {'ratio':>6}")
    rows = [("scan, no checkpoint", None, False),
            ("scan, nothing_saveable", "nothing_saveable", False),
            ("scan, dots_saveable", "dots_saveable", False),
            ("scan, everything_saveable", "everything_saveable", False),
            ("unrolled, nothing_saveable", "nothing_saveable", True)]
    for label, policy, unrolled in rows:
        ours_t, jax_t, ours_m, jax_m = measure(policy, unrolled)
        print(f"{label:36} {ours_t * 1e3:8.2f} {jax_t * 1e3:8.2f} {ours_t / jax_t:6.2f}  "
              f"{ours_m / 2**20:8.1f} {jax_m / 2**20:8.1f} {ours_m / jax_m:6.2f}")


if __name__ == "__main__":
    main()
