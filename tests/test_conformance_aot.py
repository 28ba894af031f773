"""Conformance cases for calling a `Compiled` (chapter 8's ahead-of-time stages), as JAX's guide
`docs/aot.md` calls it: the dynamic arguments only, Python scalars for their types, JAX's texts for
arguments of other types, and no transformation of a compiled function. Same harness as
tests/test_conformance.py; a case that catches a message returns its text."""
import numpy as np
import pytest

from test_conformance import C, E, _params, check

Z = np.arange(6.0, dtype=np.float32).reshape(3, 2)
ZS = np.arange(24.0, dtype=np.float32).reshape(4, 3, 2)


def _f(x, y):
    return 2 * x + y


def _i32(jax, jnp):
    return jax.ShapeDtypeStruct((), jnp.dtype("int32"))


def _said(fn):
    try:
        return fn()
    except TypeError as e:
        return str(e)


def _compiled(jax, jnp):
    return jax.jit(_f).trace(_i32(jax, jnp), _i32(jax, jnp)).lower().compile()


def _g_aot(jax, jnp):
    return jax.jit(lambda x: x @ jnp.ones(2)).trace(Z).lower().compile()


AOT = {
    "scalars of the compiled types": C(lambda jax, jnp: (
        _compiled(jax, jnp)(jnp.int32(2), jnp.int32(3)), _compiled(jax, jnp)(2, 3),
        _compiled(jax, jnp)(np.int32(1), 2))),
    "other types: JAX's text": C(lambda jax, jnp: [
        _said(lambda: _compiled(jax, jnp)(*args)) for args in [
            (jnp.arange(3), jnp.arange(3)), (jnp.float32(72.0), jnp.float32(72.0)), (1, 2.0)]]),
    "five mismatches or more": C(lambda jax, jnp: _said(lambda: jax.jit(
        lambda *xs: sum(xs)).trace(*[1.0] * 6).lower().compile()(*[np.ones(2, np.float32)] * 6))),
    "static arguments are not passed again": C(lambda jax, jnp: (
        jax.jit(_f, static_argnums=0).trace(7, 8).lower().compile()(5),
        jax.jit(_f, static_argnums=0).trace(10, _i32(jax, jnp)).lower().compile()(5),
        jax.jit(_f, static_argnames="y").trace(1.0, y=3).lower().compile()(2.0))),
    "keywords and pytrees": C(lambda jax, jnp: (
        jax.jit(lambda a, b=1.0, *, k: a * b + k).trace(1.0, 2.0, k=3.0).lower().compile()(
            1.0, 2.0, k=4.0),
        jax.jit(lambda d: d["a"] + d["b"]).trace({"a": 1.0, "b": 2.0}).lower().compile()(
            {"a": 1.0, "b": 5.0}),
        _said(lambda: jax.jit(lambda d: d["a"] + d["b"]).trace(
            {"a": 1.0, "b": 2.0}).lower().compile()({"a": 1.0, "b": jnp.ones(3)})))),
    "another pytree": E(lambda jax, jnp: _compiled(jax, jnp)((1,), 2)),
    "too few arguments": E(lambda jax, jnp: _compiled(jax, jnp)(1)),
    "an unexpected keyword": E(lambda jax, jnp: _compiled(jax, jnp)(1, y=2)),
    "vmap of a compiled function": C(lambda jax, jnp: _said(
        lambda: jax.vmap(_g_aot(jax, jnp))(ZS)).split(" <class")[0]),
    "grad and jit of a compiled function": C(lambda jax, jnp: [
        _said(lambda: t(Z)).split(" <class")[0] for t in [
            jax.grad(lambda x: _g_aot(jax, jnp)(x).sum()), jax.jit(_g_aot(jax, jnp))]]),
    "unused inputs and dead code, pruned": C(lambda jax, jnp: _pruned(jax, jnp)),
}


def _unused(x, y):
    jnp = __import__(type(x).__module__.split(".")[0]).numpy   # (x: either library's array)
    jnp.sin(y)                 # dead code
    return {"a": x * 2, "b": jnp.cos(x)}


def _pruned(jax, jnp):
    """`jit` drops the equations no output needs and the inputs then unread (`keep_unused=False`),
    in the text it lowers, the program it runs and the artifact it exports; `keep_unused=True`
    keeps them; `inline=True` inlines the call when traced."""
    x, y = jnp.float32(1.0), jnp.float32(2.0)
    export = __import__(f"{jax.__name__}.export", fromlist=["export"])
    texts = [jax.jit(_unused, keep_unused=k).lower(x, y).as_text() for k in (False, True)]
    exported = export.export(jax.jit(_unused))(x, y)
    inlined = jax.make_jaxpr(lambda a: jax.jit(jnp.sin, inline=True)(a) + 1)(x)
    return (texts, exported.module_kept_var_idx, exported.call(x, y),
            jax.jit(_unused)(x, y), jax.jit(_unused, keep_unused=True)(x, y),
            jax.jit(_unused).lower(x, y).compile()(x, y), str(inlined))


@pytest.mark.parametrize("name", _params(AOT))
def test_aot(name):
    check(AOT[name])
