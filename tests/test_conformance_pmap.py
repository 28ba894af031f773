"""Conformance cases for appendix A25's `pmap` (autodidax/jax_rest.py): a `shard_map` inside a
`jit`, over the 8 CPU devices that tests/conftest.py sets, against JAX. Same harness as
tests/test_conformance.py."""
import numpy as np
import pytest

from test_conformance import C, E, J, _params, check

X4 = np.arange(4, dtype=np.float32)
X9 = np.arange(9, dtype=np.float32)
M = np.arange(12, dtype=np.float32).reshape(3, 4)
I4 = np.arange(4, dtype=np.int32)


def _laid_out(out):
    """The result and where it lives: the harness compares values, this the layout."""
    return out, str(out.sharding)


def _donated(jax, jnp):
    x = jnp.asarray(X4) + 1
    out = jax.pmap(lambda a, b: a * b, donate_argnums=0)(x, jnp.asarray(X4))
    return out, x.is_deleted()


PMAP = {
    "psum over the axis": C(lambda jax, jnp: _laid_out(jax.pmap(
        lambda x: x / jax.lax.psum(x, "i"), axis_name="i")(X4))),
    "no axis name": C(lambda jax, jnp: _laid_out(jax.pmap(lambda x: jnp.sin(x) * 2)(M))),
    "integers": C(lambda jax, jnp: jax.pmap(lambda x: x * 2 + 1)(I4)),
    "in_axes None and a weak result": C(lambda jax, jnp: jax.pmap(
        lambda x, y: (x + y, y * 2.0), in_axes=(0, None))(X4[:2], 4.0)),
    "in_axes 1": C(lambda jax, jnp: _laid_out(jax.pmap(lambda x: x.sum(), in_axes=1)(M))),
    "out_axes 1": C(lambda jax, jnp: _laid_out(jax.pmap(lambda x: x * 2, out_axes=1)(M))),
    "out_axes None": C(lambda jax, jnp: _laid_out(jax.pmap(
        lambda x: jax.lax.psum(x, "i"), axis_name="i", out_axes=None)(X4))),
    "pytrees and keywords": C(lambda jax, jnp: jax.pmap(
        lambda d, y: d["a"] * d["b"] + y, in_axes=({"a": 0, "b": None},))(
            {"a": X4, "b": 3.0}, y=X4)),
    "static_broadcasted_argnums": C(lambda jax, jnp: jax.pmap(
        lambda n, x: x * n, static_broadcasted_argnums=0)(3, X4)),
    "collectives": C(lambda jax, jnp: jax.pmap(
        lambda x: (jax.lax.pmean(x, "i"), jax.lax.pmax(x, "i"), jax.lax.all_gather(x, "i"),
                   x + jax.lax.axis_index("i")), axis_name="i")(X4)),
    "devices": C(lambda jax, jnp: _laid_out(jax.pmap(
        lambda x: jax.lax.psum(x ** 2, "i"), "i", devices=jax.devices()[-2:])(X4[2:]))),
    "donate_argnums": C(lambda jax, jnp: _donated(jax, jnp)),
    "under jit": C(lambda jax, jnp: jax.jit(jax.pmap(lambda x: x * 2))(M)),
    "grad under jit": C(lambda jax, jnp: jax.jit(jax.grad(lambda x: jax.pmap(
        lambda y: jnp.sin(y) * jax.lax.psum(y, "i"), "i")(x).sum()))(X4)),
    "vmap under jit": C(lambda jax, jnp: jax.jit(jax.vmap(jax.pmap(lambda y: y * 2)))(M)),
    "grad": C(lambda jax, jnp: jax.grad(lambda x: jax.pmap(jnp.sin)(x).sum())(X4),
              xfail="eager transformed jit of a shard_map runs on one device"),
    "vmap": C(lambda jax, jnp: jax.vmap(jax.pmap(lambda y: y * 2))(M),
              xfail="eager transformed jit of a shard_map runs on one device"),
    "jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jax.pmap(
        lambda x: jax.lax.pmean(x, "i"), axis_name="i"))(X4)),
    "jaxpr of in_axes and static": J(lambda jax, jnp: jax.make_jaxpr(jax.pmap(
        lambda n, x, y: x * n + y, static_broadcasted_argnums=0, in_axes=(None, 1, None)),
        static_argnums=0)(2, M, 1.0)),
    "more than the devices": E(lambda jax, jnp: jax.pmap(lambda x: x ** 2)(X9)),
    "mismatched axis sizes": E(lambda jax, jnp: jax.pmap(lambda x, y: x + y)(X4, X9[:3])),
    "devices too few": E(lambda jax, jnp: jax.pmap(lambda x: x, devices=jax.devices()[:2])(
        X9[:3])),
    "devices empty": E(lambda jax, jnp: jax.pmap(lambda x: x, devices=[])),
    "in_axes not ints": E(lambda jax, jnp: jax.pmap(lambda x: x, in_axes=1.0)),
    "out_axes not ints": E(lambda jax, jnp: jax.pmap(lambda x: x, out_axes="a")),
    "nothing mapped": E(lambda jax, jnp: jax.pmap(lambda x: x, in_axes=None)(X4)),
    "axis_size differs": E(lambda jax, jnp: jax.pmap(lambda x: x, axis_size=3)(X4)),
    "in_axes not a prefix": E(lambda jax, jnp: jax.pmap(lambda x, y: x, in_axes=(0, 0, 0))(
        X4, X4)),
    "static argument missing": E(lambda jax, jnp: jax.pmap(
        lambda x, n: x, static_broadcasted_argnums=2)(X4, 1)),
    "static argument not hashable": E(lambda jax, jnp: jax.pmap(
        lambda n, x: x * len(n), static_broadcasted_argnums=0)([1, 2], X4)),
    "axis of size 0": E(lambda jax, jnp: jax.pmap(lambda x: x)(X4[:0])),
    "unbound axis name": E(lambda jax, jnp: jax.pmap(lambda x: jax.lax.psum(x, "j"), "i")(X4)),
}


@pytest.mark.parametrize("name", _params(PMAP))
def test_pmap(name):
    check(PMAP[name])
