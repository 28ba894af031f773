"""Checks of appendix A25's exercises (chapters/A25_jax_rest.md): each takes the notebook's
namespace."""
import numpy as np

import autodidax as jax
import autodidax.numpy as jnp


def check_output_bytes(nb):
    """1. `output_bytes`: the bytes of every output, from types only: structs in, and a function
    that must not run."""
    output_bytes = nb["output_bytes"]
    S = jax.ShapeDtypeStruct
    got = output_bytes(lambda x: x * 2, S((3, 4), jnp.float32))
    assert got == 48, f"a float32[3,4] output holds 48 bytes, got {got}"
    got = output_bytes(lambda x: (x.astype(jnp.float16), {"n": jnp.argmax(x)}, x > 0),
                       S((10,), jnp.float32))
    assert got == 20 + 4 + 10, \
        f"float16[10], int32[] and bool[10] outputs hold 34 bytes, got {got}: every leaf of the " \
        "output's pytree counts, each with its own dtype's itemsize"
    runs = []

    def watched(x):
        jax.debug.callback(lambda: runs.append(1))
        return jnp.outer(x, x)
    got = output_bytes(watched, S((20000,), jnp.float32))
    assert not runs, "output_bytes ran the function: find the types from a trace (eval_shape)"
    assert got == 20000 * 20000 * 4, f"a float32[20000,20000] output holds 1.6e9 bytes, got {got}"
    got = output_bytes(lambda x, y: x + y, jnp.ones(3, jnp.int8), 1)
    assert got == 3, f"int8[3] + 1 is an int8[3] (a Python int is weak): 3 bytes, got {got}"


def check_clip_gradient(nb):
    """2. `clip_gradient`: identity forward, cotangents clipped backward, under grad, jit, vmap."""
    clip_gradient = nb["clip_gradient"]
    x = np.array([0.5, -2.0, 3.0], np.float32)
    c = clip_gradient(-1.0, 1.0)
    y = np.asarray(c(x))
    assert y.dtype == np.float32 and np.array_equal(y, x), \
        f"clip_gradient(-1, 1)(x) should be x itself, got {y}"
    g = np.asarray(jax.grad(lambda v: (c(v) * 10).sum())(x))
    assert np.array_equal(g, [1.0, 1.0, 1.0]), \
        f"the cotangent 10 should be clipped to 1 at each element, got {g}"
    g = np.asarray(jax.grad(lambda v: (c(v) * np.array([0.5, -3.0, 2.0], np.float32)).sum())(x))
    assert np.array_equal(g, [0.5, -1.0, 1.0]), \
        f"cotangents [0.5, -3, 2] clipped to [-1, 1] elementwise give [0.5, -1, 1], got {g}: " \
        "clip the cotangent, not the value"
    g = np.asarray(jax.grad(lambda v: (clip_gradient(0.0, 2.0)(v) ** 2).sum())(x))
    assert np.allclose(g, [1.0, 0.0, 2.0]), \
        f"the cotangent 2x = [1, -4, 6] clipped to [0, 2] gives [1, 0, 2], got {g}: the bounds " \
        "are the arguments lo and hi"
    g = np.asarray(jax.jit(jax.grad(lambda v: (c(v) * 10).sum()))(x))
    assert np.array_equal(g, [1.0, 1.0, 1.0]), f"under jit the gradient should be ones, got {g}"
