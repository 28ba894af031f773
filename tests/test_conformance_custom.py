"""Conformance cases for `custom_jvp` and `custom_vjp` (chapter 13): the same programs under JAX
and autodidax, compared by the harness of `test_conformance.py` (read its docstring for the
case kinds C, B, E and J). The custom functions are defined once per library by `_defs`."""
import types
from functools import partial

import numpy as np
import pytest

from test_conformance import F32, V3, C, E, J, check, _params  # noqa: F401

X = np.float32(0.7)
V = np.array([0.5, -1.0, 2.0], np.float32)
M = np.array([[0.0, 0.0], [3.0, 4.0]], np.float32)

_CACHE = {}


def _defs(jax, jnp):
    """The custom functions of the cases, made with `jax` (either library), once each."""
    if jax.__name__ in _CACHE:
        return _CACHE[jax.__name__]
    d = types.SimpleNamespace()

    @jax.custom_jvp
    def f(x):
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), jnp.cos(x) * t * 2.0
    d.f = f

    @jax.custom_jvp
    def norm(x):
        return jnp.sqrt(jnp.sum(x ** 2))

    @norm.defjvp
    def norm_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        y = norm(x)
        return y, jnp.where(y == 0.0, 0.0, jnp.sum(x * t) / jnp.where(y == 0.0, 1.0, y))
    d.norm = norm

    @jax.custom_jvp
    def two(x, y):
        return jnp.sin(x) * y
    two.defjvps(lambda t, ans, x, y: jnp.cos(x) * t * y, lambda t, ans, x, y: jnp.sin(x) * t)
    d.two = two

    @jax.custom_jvp
    def only_first(x, y):
        return x * y
    only_first.defjvps(lambda t, ans, x, y: 3.0 * t * y, None)
    d.only_first = only_first

    @partial(jax.custom_jvp, nondiff_argnums=(0,))
    def app(fn, x):
        return fn(x)

    @app.defjvp
    def app_jvp(fn, primals, tangents):
        return app(fn, primals[0]), 2.0 * tangents[0]
    d.app = app

    SymbolicZero = jax.custom_derivatives.SymbolicZero

    @jax.custom_jvp
    def sz(x, y):
        return x * y

    @partial(sz.defjvp, symbolic_zeros=True)
    def sz_jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        t1 = 0.0 * y if type(tx) is SymbolicZero else tx * y
        t2 = 100.0 * x if type(ty) is SymbolicZero else ty * x
        return sz(x, y), t1 + t2
    d.sz = sz

    @jax.custom_jvp
    def tree_out(x):
        return {"a": x, "b": (x, 2.0 * x)}
    tree_out.defjvp(lambda p, t: (tree_out(p[0]), {"a": 3.0 * t[0], "b": (t[0], 2.0 * t[0])}))
    d.tree_out = tree_out

    @jax.custom_jvp
    def with_int(x, n):
        return x * n

    @with_int.defjvp
    def with_int_jvp(primals, tangents):
        (x, n), (t, _) = primals, tangents
        return with_int(x, n), 5.0 * t * n
    d.with_int = with_int

    @jax.custom_jvp
    def defaults(x, y=2.0, *, z=3.0):
        return x * y * z
    defaults.defjvp(lambda p, t: (defaults(*p), t[0] * p[1] + 10.0 * t[1]))
    d.defaults = defaults

    @jax.custom_vjp
    def kw(x, y):
        return x * y
    kw.defvjp(lambda x, y: (kw(x, y), (x, y)), lambda r, ct: (r[1] * ct, 5.0 * ct))
    d.kw = kw

    @jax.custom_vjp
    def pair(x):
        return jnp.sin(x), jnp.cos(x)
    pair.defvjp(lambda x: (pair(x), x), lambda x, cts: (2.0 * cts[0] + 3.0 * cts[1],))
    d.pair = pair

    @jax.custom_vjp
    def unused_out(p):          # the cotangent of an unused output keeps its weak type
        return p[0] * p[0], jnp.cos(p[1])
    unused_out.defvjp(lambda p: (unused_out(p), p),
                      lambda r, cts: ((2.0 * r[0] * cts[0], -jnp.sin(r[1]) * cts[1]),))
    d.unused_out = unused_out

    @jax.custom_vjp
    def szv(x, y):
        return x * y, x + y

    def szv_fwd(x, y):
        scale = 10.0 if y.perturbed else 1.0
        return szv(x.value, y.value), (x.value, y.value * scale)

    def szv_bwd(res, cts):
        (_, ys), (c1, c2) = res, cts
        c1 = 7.0 if type(c1) is SymbolicZero else c1
        c2 = 11.0 if type(c2) is SymbolicZero else c2
        return c1 * ys + c2, None
    szv.defvjp(szv_fwd, szv_bwd, symbolic_zeros=True)
    d.szv = szv

    @jax.custom_vjp
    def g(x, y):
        return jnp.sin(x) * y

    def g_fwd(x, y):
        return g(x, y), (jnp.cos(x), {"y": y})

    def g_bwd(res, ct):
        c, saved = res
        return c * saved["y"] * ct * 3.0, ct
    g.defvjp(g_fwd, g_bwd)
    d.g = g

    @partial(jax.custom_vjp, nondiff_argnums=(0,))
    def clip(c, x):
        return x
    clip.defvjp(lambda c, x: (x, None), lambda c, _, ct: (jnp.clip(ct, -c, c),))
    d.clip = clip

    @jax.custom_vjp
    def tree_in(p):
        return p["w"] * p["b"]
    tree_in.defvjp(lambda p: (tree_in(p), p["w"]), lambda w, ct: ({"w": None, "b": 7.0 * w * ct},))
    d.tree_in = tree_in

    @jax.custom_vjp
    def cube(x):
        return x ** 3
    cube.defvjp(lambda x: (cube(x), x), lambda x, ct: (3.0 * x ** 2 * ct,))
    d.cube = cube

    # Mistakes.
    @jax.custom_jvp
    def bad_shape(x):
        return jnp.sin(x)
    bad_shape.defjvp(lambda p, t: (bad_shape(p[0]), jnp.zeros(2)))
    d.bad_shape = bad_shape

    @jax.custom_jvp
    def bad_dtype(x):
        return jnp.sin(x)
    bad_dtype.defjvp(lambda p, t: (bad_dtype(p[0]), jnp.zeros(3, np.int32)))
    d.bad_dtype = bad_dtype

    @jax.custom_jvp
    def not_pair(x):
        return x
    not_pair.defjvp(lambda p, t: p[0])
    d.not_pair = not_pair

    @jax.custom_jvp
    def trees_differ(x):
        return x
    trees_differ.defjvp(lambda p, t: (p[0], (t[0], t[0])))
    d.trees_differ = trees_differ

    @jax.custom_vjp
    def bwd_short(x, y):
        return x * y
    bwd_short.defvjp(lambda x, y: (bwd_short(x, y), y), lambda y, ct: (ct * y,))
    d.bwd_short = bwd_short

    @jax.custom_vjp
    def bwd_shape(x, y):
        return x * y
    bwd_shape.defvjp(lambda x, y: (bwd_shape(x, y), y), lambda y, ct: (ct * y, jnp.ones(3)))
    d.bwd_shape = bwd_shape

    @jax.custom_vjp
    def bwd_not_tuple(x):
        return x
    bwd_not_tuple.defvjp(lambda x: (x, None), lambda _, ct: ct)
    d.bwd_not_tuple = bwd_not_tuple

    @jax.custom_vjp
    def fwd_not_pair(x):
        return x
    fwd_not_pair.defvjp(lambda x: x, lambda _, ct: (ct,))
    d.fwd_not_pair = fwd_not_pair

    d.no_jvp = jax.custom_jvp(lambda x: x)
    d.no_vjp = jax.custom_vjp(lambda x: x)
    _CACHE[jax.__name__] = d
    return d


def _closure(jax, jnp, x, y):
    """A custom_jvp function closing over `y`, a tracer when called under a transformation."""
    @jax.custom_jvp
    def h(x):
        return x * y

    @h.defjvp
    def h_jvp(primals, tangents):
        return h(primals[0]), 4.0 * tangents[0] * y
    return h(x) + jnp.sin(y)


def _vjp_closure(jax, jnp, x, y):
    """A custom_vjp function closing over `y`: under a trace, a constant of its call_jaxpr."""
    @jax.custom_vjp
    def h(x):
        return x * y
    h.defvjp(lambda x: (x * y, None), lambda _, ct: (ct * y,))
    return h(x)


D = _defs
CUSTOM = {
    "vjp weak cotangent of an unused output": C(lambda jax, jnp: jax.grad(
        lambda p: D(jax, jnp).unused_out(p)[0])((1.0, 2.0))),
    # custom_jvp, under each transformation and their compositions
    "jvp eager": C(lambda jax, jnp: D(jax, jnp).f(X)),
    "jvp jvp": C(lambda jax, jnp: jax.jvp(D(jax, jnp).f, (X,), (np.float32(2.0),))),
    "jvp grad": C(lambda jax, jnp: jax.grad(D(jax, jnp).f)(X)),
    "jvp vmap": C(lambda jax, jnp: jax.vmap(D(jax, jnp).f)(V)),
    "jvp jit": C(lambda jax, jnp: jax.jit(D(jax, jnp).f)(V)),
    "jvp vmap of grad": C(lambda jax, jnp: jax.vmap(jax.grad(D(jax, jnp).f))(V)),
    "jvp grad of vmap": C(lambda jax, jnp: jax.grad(lambda v: jax.vmap(D(jax, jnp).f)(v).sum())(V)),
    "jvp grad of jit": C(lambda jax, jnp: jax.grad(jax.jit(D(jax, jnp).f))(X)),
    "jvp jit of grad": C(lambda jax, jnp: jax.jit(jax.grad(D(jax, jnp).f))(X)),
    "jvp jit of vmap": C(lambda jax, jnp: jax.jit(jax.vmap(D(jax, jnp).norm))(M)),
    "jvp grad of grad": C(lambda jax, jnp: jax.grad(jax.grad(D(jax, jnp).f))(X)),
    "jvp linearize": C(lambda jax, jnp: (lambda out, f_jvp: (out, f_jvp(np.float32(3.0))))(
        *jax.linearize(D(jax, jnp).f, X))),
    "jvp vjp": C(lambda jax, jnp: jax.vjp(D(jax, jnp).f, X)[1](np.float32(1.5))),
    "norm at zero": C(lambda jax, jnp: jax.grad(D(jax, jnp).norm)(np.zeros(3, np.float32))),
    "defjvps": C(lambda jax, jnp: jax.grad(D(jax, jnp).two, argnums=(0, 1))(X, np.float32(2.0))),
    "defjvps with None": C(lambda jax, jnp: jax.grad(D(jax, jnp).only_first, argnums=(0, 1))(
        X, X)),
    "nondiff_argnums": C(lambda jax, jnp: (D(jax, jnp).app(jnp.sin, X),
                                           jax.grad(D(jax, jnp).app, 1)(jnp.sin, X))),
    "nondiff_argnums jit vmap": C(lambda jax, jnp: (
        jax.jit(lambda x: D(jax, jnp).app(jnp.sin, x))(X),
        jax.vmap(jax.grad(D(jax, jnp).app, 1), (None, 0))(jnp.cos, V))),
    "symbolic zeros": C(lambda jax, jnp: (jax.grad(D(jax, jnp).sz)(X, np.float32(2.0)),
                                          jax.grad(D(jax, jnp).sz, 1)(X, np.float32(2.0)))),
    "symbolic zeros vmap": C(lambda jax, jnp: jax.vmap(jax.grad(D(jax, jnp).sz), (0, None))(
        V, np.float32(2.0))),
    "pytree output": C(lambda jax, jnp: jax.grad(
        lambda x: D(jax, jnp).tree_out(x)["b"][1] + D(jax, jnp).tree_out(x)["a"])(X)),
    "integer argument": C(lambda jax, jnp: jax.grad(D(jax, jnp).with_int)(X, 3)),
    "closure over a tracer": E(lambda jax, jnp: jax.grad(
        lambda x, y: _closure(jax, jnp, x, y), argnums=(0, 1))(X, np.float32(2.0))),
    "keyword arguments and defaults": C(lambda jax, jnp: (
        D(jax, jnp).defaults(X, y=np.float32(4.0)),
        jax.grad(lambda x: D(jax, jnp).defaults(x))(X),
        jax.grad(lambda x, y: D(jax, jnp).defaults(x, y=y), argnums=(0, 1))(X, X),
        jax.grad(lambda x, y: D(jax, jnp).kw(y=y, x=x), argnums=(0, 1))(X, X))),
    "keyword-only argument": E(lambda jax, jnp: D(jax, jnp).defaults(X, z=np.float32(1.0))),
    # custom_vjp
    "vjp eager": C(lambda jax, jnp: D(jax, jnp).g(X, np.float32(2.0))),
    "vjp grad": C(lambda jax, jnp: jax.grad(D(jax, jnp).g, argnums=(0, 1))(X, np.float32(2.0))),
    "vjp vjp": C(lambda jax, jnp: jax.vjp(D(jax, jnp).g, X, np.float32(2.0))[1](np.float32(2.0))),
    "vjp value_and_grad": C(lambda jax, jnp: jax.value_and_grad(D(jax, jnp).g)(X, X)),
    "vjp vmap": C(lambda jax, jnp: jax.vmap(D(jax, jnp).g)(V, V)),
    "vjp vmap of grad": C(lambda jax, jnp: jax.vmap(jax.grad(D(jax, jnp).g))(V, V)),
    "vjp vmap of grad unbatched": C(lambda jax, jnp: jax.vmap(
        jax.grad(D(jax, jnp).g, argnums=(0, 1)), (0, None))(V, X)),
    "vjp grad of vmap unbatched": C(lambda jax, jnp: jax.grad(
        lambda v, y: jax.vmap(D(jax, jnp).g, (0, None))(v, y).sum(), argnums=(0, 1))(V, X)),
    "vjp integer argument": C(lambda jax, jnp: jax.grad(lambda x: D(jax, jnp).kw(x, 3))(X)),
    "vjp one of two outputs": C(lambda jax, jnp: (jax.grad(lambda x: D(jax, jnp).pair(x)[0])(X),
                                                  jax.vmap(jax.grad(lambda x: D(jax, jnp).pair(
                                                      x)[1]))(V))),
    "vjp symbolic zeros": C(lambda jax, jnp: (
        jax.grad(lambda x, y: D(jax, jnp).szv(x, y)[0])(X, np.float32(2.0)),
        jax.grad(lambda x, y: D(jax, jnp).szv(x, y)[1], argnums=(0, 1))(X, np.float32(2.0)),
        jax.vmap(jax.grad(lambda x, y: D(jax, jnp).szv(x, y)[0]), (0, None))(V, X))),
    "vjp jit of grad": C(lambda jax, jnp: jax.jit(jax.grad(D(jax, jnp).g))(X, X)),
    "vjp grad of jit": C(lambda jax, jnp: jax.grad(jax.jit(D(jax, jnp).g), argnums=(0, 1))(X, X)),
    "vjp jit of vmap": C(lambda jax, jnp: jax.jit(jax.vmap(D(jax, jnp).g))(V, V)),
    "vjp grad of scan": C(lambda jax, jnp: jax.grad(lambda x: jax.lax.scan(
        lambda c, _: (D(jax, jnp).g(c, c), None), x, None, length=3)[0])(X)),
    "jvp grad of cond": C(lambda jax, jnp: jax.grad(lambda x: jax.lax.cond(
        x > 0.5, D(jax, jnp).f, jnp.cos, x))(X)),
    "vjp grad of grad": C(lambda jax, jnp: jax.grad(jax.grad(D(jax, jnp).cube))(X)),
    "vjp clip nondiff": C(lambda jax, jnp: (
        jax.grad(lambda x: D(jax, jnp).clip(0.5, 3.0 * x))(X),
        jax.vmap(jax.grad(lambda x: D(jax, jnp).clip(0.5, x * x)))(V))),
    "vjp pytree input, None cotangent": C(lambda jax, jnp: jax.grad(D(jax, jnp).tree_in)(
        {"w": X, "b": np.float32(2.0)})),
    # printed jaxprs
    "jaxpr custom_jvp": J(lambda jax, jnp: jax.make_jaxpr(D(jax, jnp).f)(X)),
    "jaxpr grad of custom_jvp": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(D(jax, jnp).f))(X)),
    "jaxpr jit of custom_jvp": J(lambda jax, jnp: jax.make_jaxpr(jax.jit(D(jax, jnp).f))(X)),
    "jaxpr vmap of custom_jvp": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(D(jax, jnp).f))(V)),
    "jaxpr grad of jit of custom_jvp": J(lambda jax, jnp: jax.make_jaxpr(
        jax.grad(jax.jit(D(jax, jnp).f)))(X)),
    "jaxpr closure over a tracer": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, y: _closure(jax, jnp, x, y))(X, X)),
    "jaxpr defjvps": J(lambda jax, jnp: jax.make_jaxpr(D(jax, jnp).two)(X, X)),
    "jaxpr custom_vjp": J(lambda jax, jnp: jax.make_jaxpr(D(jax, jnp).g)(X, X)),
    "jaxpr custom_vjp closing over a tracer": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, y: _vjp_closure(jax, jnp, x, y))(X, X)),
    "jaxpr grad of custom_vjp": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(D(jax, jnp).g))(X, X)),
    "jaxpr grad of jit of custom_vjp": J(lambda jax, jnp: jax.make_jaxpr(
        jax.grad(jax.jit(D(jax, jnp).g)))(X, X)),
    "jaxpr vmap of grad of custom_vjp": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(
        jax.grad(D(jax, jnp).g), (0, None)))(V, X)),
    "jaxpr jvp of custom_vjp": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.jvp(D(jax, jnp).g, (x, x), (x, x)))(X)),
    # errors
    "tangent of the wrong shape": E(lambda jax, jnp: jax.jvp(D(jax, jnp).bad_shape, (V,), (V,))),
    "tangent of the wrong dtype": E(lambda jax, jnp: jax.jvp(D(jax, jnp).bad_dtype, (V,), (V,))),
    "jvp rule returns no pair": E(lambda jax, jnp: jax.jvp(D(jax, jnp).not_pair, (X,), (X,))),
    "jvp rule trees differ": E(lambda jax, jnp: jax.jvp(D(jax, jnp).trees_differ, (X,), (X,))),
    "no defjvp": E(lambda jax, jnp: D(jax, jnp).no_jvp(X)),
    "no defvjp": E(lambda jax, jnp: D(jax, jnp).no_vjp(X)),
    "defjvps with nondiff_argnums": E(lambda jax, jnp: jax.custom_jvp(
        lambda a, b: b, nondiff_argnums=(0,)).defjvps(None, None)),
    "bwd gives too few cotangents": E(lambda jax, jnp: jax.grad(D(jax, jnp).bwd_short)(X, X)),
    "bwd gives a wrong shape": E(lambda jax, jnp: jax.grad(D(jax, jnp).bwd_shape)(X, X)),
    "bwd gives no tuple": E(lambda jax, jnp: jax.grad(D(jax, jnp).bwd_not_tuple)(X)),
    "fwd gives no pair": E(lambda jax, jnp: jax.grad(D(jax, jnp).fwd_not_pair)(X)),
    "jvp of custom_vjp": E(lambda jax, jnp: jax.jvp(D(jax, jnp).g, (X, X), (X, X))),
    "jit of jvp of custom_vjp": E(lambda jax, jnp: jax.jit(
        lambda x: jax.jvp(D(jax, jnp).g, (x, x), (x, x)))(X)),
    "jacfwd of custom_vjp": E(lambda jax, jnp: jax.jacfwd(D(jax, jnp).cube)(V)),
    "linearized custom_vjp applied": E(lambda jax, jnp: jax.linearize(D(jax, jnp).g, X, X)[1](
        X, X)),
    # JAX stages the rule with the jit's tracers it closes over, dead once differentiated
    "closure over a jit tracer, then grad": E(lambda jax, jnp: jax.grad(jax.jit(
        lambda x, y: _closure(jax, jnp, x, y)), argnums=(0, 1))(X, np.float32(2.0))),
    "tracer as nondiff argument of custom_vjp": E(lambda jax, jnp: jax.jit(
        lambda c, x: D(jax, jnp).clip(c, x))(X, X)),
}


@pytest.mark.parametrize("name", _params(CUSTOM))
def test_custom(name):
    check(CUSTOM[name])
