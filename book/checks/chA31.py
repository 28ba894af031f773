"""Checks of appendix A31's exercises (chapters/A31_extend.md): each takes the notebook's
namespace."""
import numpy as np


def _r4(a):
    return np.round(np.asarray(a, np.float64), 4).tolist()


def _close(a, b):
    return np.shape(a) == np.shape(b) and np.allclose(np.asarray(a, np.float64), b, 1e-5, 1e-5)


def check_cube(nb):
    """1. `cube_p`: x ** 3 under eager evaluation, jit, jvp, grad, vmap and their compositions."""
    jax, cube_p = nb["jax"], nb["define_cube"]()
    cube = cube_p.bind
    xs = np.array([1.0, -2.0, 0.5], np.float32)
    got = cube(np.float32(2.0))
    assert _r4(got) == 8.0, f"cube(2.0) is 8.0 (the impl rule), got {got}"
    aval = jax.make_jaxpr(cube)(xs).out_avals[0]
    assert (aval.shape, aval.dtype) == ((3,), np.float32), \
        f"make_jaxpr(cube) of f32[3] gives f32[3] (the abstract rule), got {aval}"
    got = jax.jit(cube)(xs)
    assert _r4(got) == _r4(xs ** 3), f"jit(cube)(x) is x ** 3 elementwise: {_r4(xs ** 3)}, " \
        f"got {_r4(got)} (the abstract rule and the lowering)"
    assert np.asarray(got).dtype == np.float32 and np.shape(got) == (3,), \
        f"jit(cube) of f32[3] is f32[3] (the abstract rule), got {np.asarray(got).dtype}" \
        f"{list(np.shape(got))}"
    _, t = jax.jvp(cube, (np.float32(2.0),), (np.float32(0.5),))
    assert _r4(t) == 6.0, f"the JVP of x ** 3 at 2 along 0.5 is 3 * 2 ** 2 * 0.5 = 6, " \
        f"got {_r4(t)}: the tangent out is the tangent in times the derivative"
    g = jax.jit(jax.grad(cube))(np.float32(-2.0))
    assert _r4(g) == 12.0, f"jit(grad(cube))(-2.0) is 3 * (-2) ** 2 = 12, got {_r4(g)}"
    v = jax.vmap(cube)(xs)
    assert _r4(v) == _r4(xs ** 3), f"vmap(cube)(x) is x ** 3: {_r4(xs ** 3)}, got {_r4(v)}"
    m = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    v = jax.vmap(cube, in_axes=1)(m)
    assert np.shape(v) == (3, 2) and _r4(v) == _r4((m ** 3).T), \
        f"vmap(cube, in_axes=1) of f32[2,3] is (m ** 3).T, of shape (3, 2), got {_r4(v)}: " \
        "the batching rule returns the batch dimension of its operand"
    h = jax.vmap(jax.grad(cube))(xs)
    assert _r4(h) == _r4(3 * xs ** 2), f"vmap(grad(cube))(x) is 3 x ** 2: {_r4(3 * xs ** 2)}," \
        f" got {_r4(h)}"


def check_eval_replacing(nb):
    """2. `eval_replacing`: a closed jaxpr (constants, literals, params, a `jit` inside)
    evaluated with some primitives replaced, also inside the `jit`, and under `grad`."""
    jax, jnp, eval_replacing = nb["jax"], nb["jnp"], nb["eval_replacing"]
    lax = jax.lax
    c = np.array([1.0, 2.0, 3.0], np.float32)

    def f(x):
        inner = jax.jit(lambda y: jnp.sin(y) * c + 1.0)
        return jnp.sin(x) ** 2 + inner(x), jnp.cos(x)

    x = np.array([0.5, -1.0, 2.0], np.float32)
    closed = jax.make_jaxpr(f)(x)
    outs = eval_replacing(closed, {}, x)
    want = f(x)
    assert isinstance(outs, list) and len(outs) == 2, \
        f"the outputs are a list, one per output of the jaxpr (2), got {outs!r}"
    assert _close(outs[0], want[0]) and _close(outs[1], want[1]), \
        f"with nothing replaced, the outputs are f's: {_r4(want[0])}, {_r4(want[1])}; got " \
        f"{_r4(outs[0])}, {_r4(outs[1])} (the constants, literals and params)"
    seen = []

    def to_cos(x, **params):
        seen.append(sorted(params))
        return jnp.cos(x)

    def cube(x, *, y):
        return x ** (y + 1)

    replace = {lax.sin_p: to_cos, lax.integer_pow_p: cube}
    outs = eval_replacing(closed, replace, x)
    assert len(seen) == 2, f"sin is replaced twice, once outside the jit and once inside, " \
        f"got {len(seen)} calls of its replacement"
    want = np.cos(x) ** 3 + np.cos(x) * c + 1.0
    assert _close(outs[0], want) and _close(outs[1], np.cos(x)), \
        f"sin replaced by cos and x ** 2 by x ** 3 (its param y passed), inside the jit too: " \
        f"{_r4(want)}, got {_r4(outs[0])}"
    g = jax.jit(jax.grad(lambda x: eval_replacing(closed, replace, x)[0].sum()))(x)
    s, co = np.sin(x), np.cos(x)
    want = -3 * co ** 2 * s - s * c
    assert _close(g, want), f"jit(grad) of the replaced program is {_r4(want)}, got " \
        f"{_r4(g)}"
