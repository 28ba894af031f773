"""Checks of appendix A30's exercises (chapters/A30_array_refs.md): each takes the notebook's
namespace."""
import contextlib

import numpy as np

import autodidax as jax
import autodidax.numpy as jnp
from autodidax import refs
from autodidax.jaxpr import eval_jaxpr
from autodidax.jvp import jvp_rules


@contextlib.contextmanager
def _rule(table, primitive, rule):
    """`table[primitive]` is `rule` inside the block, the book's rule again after it."""
    book = table[primitive]
    table[primitive] = rule
    try:
        yield
    finally:
        table[primitive] = book


def check_discharge_addupdate(nb):
    """1. `discharge_addupdate`: the store's value, increased at the index; no outputs."""
    rule = nb["discharge_addupdate"]

    def f(r, v, i):
        refs.ref_addupdate(r, refs.ds(i, 2), v)
        refs.ref_addupdate(r, 0, 10.0)
        return r[...]

    x_ref = jax.new_ref(jnp.arange(4.0))
    closed = jax.make_jaxpr(f)(x_ref, jnp.ones(2), 1)
    with _rule(refs.discharge_rules, refs.addupdate_p, rule):
        pure, _ = refs.discharge(closed)
    start = jnp.array([1.0, 2.0, 3.0, 4.0])
    out, final = eval_jaxpr(pure.jaxpr, pure.consts, start, jnp.array([5.0, 6.0]), 2)
    out, final = np.asarray(out), np.asarray(final)
    want = np.array([11.0, 2.0, 8.0, 10.0])
    assert np.allclose(final, want), \
        "r[2:4] += [5, 6], then r[0] += 10, on [1, 2, 3, 4] gives the final value " \
        f"{want.tolist()}: add the value at the index, got {final.tolist()}"
    assert np.allclose(out, want), \
        f"a read after the updates sees the store's new value {want.tolist()}, got {out.tolist()}"


def check_get_jvp(nb):
    """2. `get_jvp`: the read, and the tangent ref's value read at the same index."""
    rule = nb["get_jvp"]

    def f(x):
        r = jax.new_ref(jnp.zeros(4))
        r[...] = x * jnp.arange(1.0, 5.0)
        return r[1:3].sum() + r[3] * r[3]

    x = jnp.array([1.0, 2.0, 3.0, 4.0])
    with _rule(jvp_rules, refs.get_p, rule):
        value, tangent = jax.jvp(f, (x,), (jnp.ones(4),))
        g = jax.grad(lambda x: f(x))(x)
    want_value = 2.0 * 2 + 3 * 3 + 16.0 * 16
    assert np.isclose(float(value), want_value), \
        f"the read is the value at the index: f(x) is {want_value}, got {float(value)}"
    assert np.isclose(float(tangent), 2 + 3 + 2 * 16 * 4), \
        "the tangent is the tangent ref's value read at the same index: jvp gives " \
        f"{2 + 3 + 2 * 16 * 4}, got {float(tangent)}"
    assert np.allclose(np.asarray(g), [0, 2, 3, 2 * 16 * 4]), \
        f"grad reads the tangent at the index: [0, 2, 3, 128], got {np.asarray(g).tolist()}"
