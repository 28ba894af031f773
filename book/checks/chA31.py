"""Checks of appendix A31's exercises (chapters/A31_extend.md): each takes the notebook's
namespace."""
import numpy as np


def _r4(a):
    return np.round(np.asarray(a, np.float64), 4).tolist()


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
    _, t = jax.jvp(cube, (np.float32(2.0),), (np.float32(1.0),))
    assert _r4(t) == 12.0, f"the JVP of x ** 3 at 2 along 1 is 3 * 2 ** 2 = 12, got {_r4(t)}"
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


def check_count_and_eval(nb):
    """2. `count_and_eval`: the outputs of a closed jaxpr with literals, constants and params,
    and how many times each primitive was bound."""
    jax, jnp, count_and_eval = nb["jax"], nb["jnp"], nb["count_and_eval"]
    c = np.array([1.0, 2.0, 3.0], np.float32)

    def f(x):
        y = jnp.sin(x) * 2.0 + c
        return jnp.sum(y * y, axis=0), jnp.cos(x)

    x = np.array([0.5, -1.0, 2.0], np.float32)
    closed = jax.make_jaxpr(f)(x)
    assert len(closed.literals) == 1, "the jaxpr of the check closes over one constant"
    outs, counts = count_and_eval(closed, x)
    want = f(x)
    assert isinstance(outs, list) and len(outs) == 2, \
        f"the outputs are a list, one per output of the jaxpr (2), got {outs!r}"
    assert _r4(outs[0]) == _r4(want[0]) and _r4(outs[1]) == _r4(want[1]), \
        f"the outputs are f's: {_r4(want[0])}, {_r4(want[1])}; got {_r4(outs[0])}, " \
        f"{_r4(outs[1])}"
    expect = {}
    for eqn in closed.eqns:
        expect[eqn.primitive.name] = expect.get(eqn.primitive.name, 0) + 1
    assert counts == expect, f"the counts, by primitive name, are {expect}, got {counts}"
    inner = jax.make_jaxpr(lambda x: jax.jit(jnp.sin)(x) + jnp.sin(x))(x)
    outs, counts = count_and_eval(inner, x)
    assert _r4(outs[0]) == _r4(2 * np.sin(x)), \
        f"jit inside: the output is 2 sin(x), got {_r4(outs[0])}"
    assert counts.get("sin") == 1 and counts.get("jit") == 1, \
        f"an equation holding a jaxpr counts once and is not opened: sin once, jit once; got " \
        f"{counts}"
