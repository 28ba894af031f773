"""Conformance cases for host callbacks and `jax.debug` (chapter 15): the same programs under
JAX and autodidax, compared by the harness of `test_conformance.py` (read its docstring for the
case kinds C, E and J). What the callbacks print is compared in `test_callbacks.py`."""
import functools

import jax.experimental  # noqa: F401  (jax.experimental.io_callback)
import numpy as np
import pytest

from test_conformance import C, E, J, check, _params  # noqa: F401

X = np.arange(3, dtype=np.float32)
XS = np.arange(6, dtype=np.float32).reshape(2, 3)


def _sds(jax, x):
    return jax.ShapeDtypeStruct(np.shape(x), np.asarray(x).dtype)


def _np_sin(jax, x, **kw):
    return jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x, **kw)


def _host_add(x, y):
    return np.asarray(x) + np.asarray(y)


def _add(jax, method):
    """A pure callback adding an unbatched operand to a batched one, under vmap."""
    def f(x):
        return jax.pure_callback(_host_add, jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                                 X, vmap_method=method)
    return jax.vmap(f)(XS)


def _tree_callback(jax):
    def host(a, b, scale):
        return {"sum": np.asarray(a) + np.asarray(b), "scaled": [np.asarray(a) * scale]}
    shapes = {"sum": _sds(jax, X), "scaled": [_sds(jax, X)]}
    return jax.jit(lambda a, b: jax.pure_callback(host, shapes, a, b, scale=np.float32(2)))(X, X)


def _io(jax, fn=lambda v: np.asarray(v) * 2):
    """An io_callback of `fn`, declared with its operand's shape and dtype: x -> fn(x)."""
    return lambda x, ordered: jax.experimental.io_callback(
        fn, jax.ShapeDtypeStruct(X.shape, X.dtype), x, ordered=ordered)


def _counting(jax):
    """A counter in Python, advanced in order by a compiled program each time it runs."""
    counter = [0]

    def bump():
        counter[0] += 1
        return np.int32(counter[0])
    sds = jax.ShapeDtypeStruct((), np.int32)
    f = jax.jit(lambda x: x + 10 * jax.experimental.io_callback(bump, sds, ordered=True)
                + jax.experimental.io_callback(bump, sds, ordered=True))
    return f(0), f(0), counter[0]


def _eager_ordered(jax, jnp):
    """Control flow run eagerly (each loop one program) with ordered effects: their tokens."""
    seen = []
    record = lambda v: seen.append(float(v)) or np.float32(v)     # noqa: E731
    sds = jax.ShapeDtypeStruct((), np.float32)
    out = jax.lax.scan(lambda c, x: (c + jax.experimental.io_callback(record, sds, x, ordered=True),
                                     None), 0.0, jnp.arange(3.0))[0]
    jax.lax.cond(True, lambda x: jax.experimental.io_callback(record, sds, x, ordered=True),
                 lambda x: x, 5.0)
    return out, seen


def _quiet_print(jax, fmt, *args, **kwargs):
    return jax.debug.print(fmt, *args, **kwargs)


def _printing(jax, x):
    jax.debug.print("x = {}", x)
    return x * 2


CALLBACKS = {
    # pure_callback: values
    "pure_callback eager": C(lambda jax, jnp: _np_sin(jax, X)),
    "pure_callback jit": C(lambda jax, jnp: jax.jit(lambda x: _np_sin(jax, x) + 1)(X)),
    "pure_callback scalar result": C(lambda jax, jnp: jax.jit(lambda x: jax.pure_callback(
        lambda v: np.float32(np.sum(v)), jax.ShapeDtypeStruct((), np.float32), x))(X)),
    "pure_callback int result": C(lambda jax, jnp: jax.pure_callback(
        lambda v: np.asarray(v).astype(np.int32), jax.ShapeDtypeStruct((3,), np.int32), X)),
    "pure_callback pytree and kwargs": C(lambda jax, jnp: _tree_callback(jax)),
    "pure_callback vmap expand_dims": C(lambda jax, jnp: _add(jax, "expand_dims")),
    "pure_callback vmap broadcast_all": C(lambda jax, jnp: _add(jax, "broadcast_all")),
    "pure_callback vmap sequential": C(lambda jax, jnp: _add(jax, "sequential")),
    "pure_callback vmap sequential_unrolled": C(lambda jax, jnp: _add(jax, "sequential_unrolled")),
    "pure_callback vmap in_axes 1": C(lambda jax, jnp: jax.vmap(functools.partial(
        _np_sin, jax, vmap_method="expand_dims"), in_axes=1)(XS)),
    "pure_callback jit of vmap sequential": C(lambda jax, jnp: jax.jit(jax.vmap(
        functools.partial(_np_sin, jax, vmap_method="sequential")))(XS)),
    "debug.print returns None": C(lambda jax, jnp: _quiet_print(jax, "")),
    "debug.print of an unused argument": E(lambda jax, jnp: _quiet_print(jax, "", X)),
    "debug.print under grad": C(lambda jax, jnp: jax.grad(lambda x: _printing(jax, x).sum())(X)),
    # pure_callback: errors
    "pure_callback vmap without method": E(lambda jax, jnp: jax.vmap(
        functools.partial(_np_sin, jax))(XS)),
    "pure_callback grad": E(lambda jax, jnp: jax.grad(lambda x: _np_sin(jax, x).sum())(X)),
    "pure_callback jvp": E(lambda jax, jnp: jax.jvp(functools.partial(_np_sin, jax), (X,), (X,))),
    "pure_callback bad vmap_method": E(lambda jax, jnp: _np_sin(jax, X, vmap_method="loop")),
    "pure_callback float64 result": E(lambda jax, jnp: jax.pure_callback(
        np.sin, jax.ShapeDtypeStruct((3,), np.float64), X)),
    "pure_callback wrong shape eager": E(lambda jax, jnp: jax.pure_callback(
        lambda v: v, jax.ShapeDtypeStruct((2,), np.float32), X)),
    "pure_callback wrong dtype jit": E(lambda jax, jnp: jax.jit(lambda x: jax.pure_callback(
        lambda v: v, jax.ShapeDtypeStruct((3,), np.int32), x))(X)),
    "pure_callback too many results": E(lambda jax, jnp: jax.pure_callback(
        lambda v: (v, v), jax.ShapeDtypeStruct((3,), np.float32), X)),
    "pure_callback raises": E(lambda jax, jnp: jax.jit(lambda x: jax.pure_callback(
        lambda v: 1 / 0, jax.ShapeDtypeStruct((3,), np.float32), x))(X)),
    "io_callback inside checkpoint under grad": E(lambda jax, jnp: jax.grad(jax.checkpoint(
        lambda x: jax.experimental.io_callback(lambda: None, None) or jnp.sin(x)))(1.0)),
    "ordered io_callback inside checkpoint under grad": E(lambda jax, jnp: jax.grad(
        jax.checkpoint(lambda x: jax.experimental.io_callback(lambda: None, None, ordered=True)
                       or jnp.sin(x)))(1.0)),
    # debug: errors
    "debug.print unused positional": E(lambda jax, jnp: jax.debug.print("{}", X, X)),
    "debug.print unused keyword": E(lambda jax, jnp: jax.debug.print("x", x=X)),
    "debug.print missing argument": E(lambda jax, jnp: jax.debug.print("{} {}", X)),
    "debug.print two-call form with args": E(lambda jax, jnp: jax.debug.print(None, X)),
    "debug.callback not callable": E(lambda jax, jnp: jax.debug.callback(3, X)),
    # io_callback
    "io_callback eager": C(lambda jax, jnp: _io(jax)(X, False)),
    "io_callback jit ordered": C(lambda jax, jnp: _counting(jax)),
    "ordered io_callback in an eager scan and cond": C(lambda jax, jnp: _eager_ordered(jax, jnp)),
    "io_callback vmap unordered": C(lambda jax, jnp: jax.vmap(lambda x: _io(jax)(x, False))(XS)),
    "io_callback vmap ordered": E(lambda jax, jnp: jax.vmap(lambda x: _io(jax)(x, True))(XS)),
    "io_callback grad": E(lambda jax, jnp: jax.grad(lambda x: _io(jax)(x, False).sum())(X)),
    "io_callback wrong shape": E(lambda jax, jnp: jax.jit(lambda x: _io(jax)(x[:2], True))(X)),
    "jaxpr io_callback": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: _io(jax, np.sin)(x, True))(X)),
    # printed jaxprs
    "jaxpr pure_callback": J(lambda jax, jnp: jax.make_jaxpr(
        functools.partial(_np_sin, jax))(X)),
    "jaxpr pure_callback vmap expand_dims": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(
        functools.partial(_np_sin, jax, vmap_method="expand_dims")))(XS)),
    "jaxpr pure_callback vmap sequential": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(
        functools.partial(_np_sin, jax, vmap_method="sequential")))(XS)),
    "jaxpr debug.print": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, y: jax.debug.print("x={x} y={y:.2f} {z}", x=x, y=y, z=None))(X, 1.5)),
    "jaxpr debug.print ordered": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.debug.print(ordered=True)("{}", x))(X)),
    "jaxpr debug.print vmap": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(
        lambda x, y: jax.debug.print("{} {}", x, y), in_axes=(0, None)))(XS, X)),
    "jaxpr debug.print jit": J(lambda jax, jnp: jax.make_jaxpr(jax.jit(
        lambda x: _printing(jax, x)))(X)),
}


@pytest.mark.parametrize("name", _params(CALLBACKS))
def test_callbacks(name):
    check(CALLBACKS[name])
