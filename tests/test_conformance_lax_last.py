"""Conformance cases for the last names of `jax.lax` and `jax.lax.linalg` that autodidax built:
`scaled_dot` and the tokens `create_token` and `after_all` (appendix A27,
autodidax/lax_rest.py), and `qdwh`, the polar decomposition (appendix A3,
autodidax/lax_linalg.py), against JAX. Same harness as tests/test_conformance.py. A token is a
leaf in JAX's pytrees and a node in ours (around its data), so the cases return a token's class
name, not the token."""
import ml_dtypes
import numpy as np
import pytest

from test_conformance import B, C, E, J, _params, check

rng = np.random.default_rng(37)
LHS = (np.arange(24, dtype=np.float32).reshape(2, 12) / 7).astype(np.float32)
RHS = (np.arange(36, dtype=np.float32).reshape(12, 3) / 5).astype(np.float32)
LS = np.array([[2.0, 0.5, 1.0], [4.0, 1.0, 0.25]], np.float32)      # blocks of 4
RS = np.full((3, 3), 0.5, np.float32)
L3 = rng.standard_normal((2, 3, 8)).astype(np.float32)              # a batch of two
R3 = rng.standard_normal((2, 8, 5)).astype(np.float32)
S3 = np.exp2(rng.integers(-2, 3, (2, 3, 2))).astype(np.float32)     # blocks of 4
TALL = rng.standard_normal((5, 3)).astype(np.float32)
CPLX = (rng.standard_normal((4, 3)) + 1j * rng.standard_normal((4, 3))).astype(np.complex64)
SMALL = np.array([[4.0, 1.0], [2.0, 3.0], [0.0, 1.0]], np.float32)
CPLX_PADDED = np.pad(CPLX, ((0, 2), (0, 1)))


def _sd(jax, *args, **kw):
    return jax.lax.scaled_dot(*args, **kw)


def _name(x):
    """`x`, or its class name if it is a token (a leaf of JAX's pytrees, a node of ours)."""
    return type(x).__name__ if type(x).__name__ == "Token" else x


SCALED_DOT = {
    "default scales, bfloat16": B(lambda jax, jnp: _sd(jax, LHS, RHS)),
    "scales, float32": B(lambda jax, jnp: _sd(jax, LHS, RHS, lhs_scale=LS, rhs_scale=RS,
                                              preferred_element_type=jnp.float32)),
    "float8 operands and e8m0 scales": B(lambda jax, jnp: _sd(
        jax, LHS.astype(ml_dtypes.float8_e4m3fn), RHS.astype(ml_dtypes.float8_e4m3fn),
        lhs_scale=LS.astype(ml_dtypes.float8_e8m0fnu),
        rhs_scale=RS.astype(ml_dtypes.float8_e8m0fnu))),
    "batched, default dimension numbers": B(lambda jax, jnp: _sd(
        jax, L3, R3, lhs_scale=S3, rhs_scale=S3.transpose(0, 2, 1)[:, :, :1] * np.ones(
            (1, 1, 5), np.float32), preferred_element_type=jnp.float32)),
    "int32 operands": B(lambda jax, jnp: _sd(jax, np.arange(24, dtype=np.int32).reshape(
        2, 3, 4), np.ones((2, 4, 5), np.int32))),
    "dimension numbers given": B(lambda jax, jnp: _sd(
        jax, LHS.T, RHS, dimension_numbers=(((0,), (0,)), ((), ())))),
    "jit": B(lambda jax, jnp: jax.jit(lambda a, b, c: _sd(jax, a, b, lhs_scale=c))(
        LHS, RHS, LS)),
    "vmap": B(lambda jax, jnp: jax.vmap(lambda a, b: _sd(jax, a, b))(L3, R3)),
    "vmap of lhs only": B(lambda jax, jnp: jax.vmap(lambda a: _sd(
        jax, a, RHS[:8], preferred_element_type=jnp.float32))(L3)),
    "jaxpr, default scales": J(lambda jax, jnp: jax.make_jaxpr(lambda a, b: _sd(jax, a, b))(
        LHS, RHS)),
    "jaxpr, float32": J(lambda jax, jnp: jax.make_jaxpr(lambda a, b, c, d: _sd(
        jax, a, b, lhs_scale=c, rhs_scale=d, preferred_element_type=jnp.float32))(
            LHS, RHS, LS, RS)),
    "jaxpr of vmap": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(lambda a, b: _sd(jax, a, b)))(
        L3, R3)),
    "lowered": J(lambda jax, jnp: jax.jit(lambda a, b, c, d: _sd(
        jax, a, b, lhs_scale=c, rhs_scale=d)).lower(LHS, RHS, LS, RS).as_text()),
    "lowered, batched, float32": J(lambda jax, jnp: jax.jit(lambda a, b: _sd(
        jax, a, b, preferred_element_type=jnp.float32)).lower(L3, R3).as_text()),
    "error: vectors": E(lambda jax, jnp: _sd(jax, LHS[0], RHS[:, 0])),
    "error: contracting sizes": E(lambda jax, jnp: _sd(jax, LHS, RHS[:6])),
    "error: scale does not divide": E(lambda jax, jnp: _sd(jax, LHS, RHS,
                                                           lhs_scale=np.ones((2, 5)))),
    "error: blocks of one": E(lambda jax, jnp: _sd(jax, LHS, RHS, lhs_scale=np.ones((2, 12)))),
    "error: scale's other axis": E(lambda jax, jnp: _sd(jax, LHS, RHS,
                                                        lhs_scale=np.ones((3, 3)))),
    "error: ranks": E(lambda jax, jnp: _sd(jax, LHS, RHS, lhs_scale=np.ones(3))),
    "error: batch sizes": E(lambda jax, jnp: _sd(jax, np.ones((2, 2, 4)), np.ones((3, 4, 2)))),
    "error: no derivative": E(lambda jax, jnp: jax.grad(lambda a: _sd(
        jax, a, RHS, preferred_element_type=jnp.float32).sum())(LHS)),
}

TOKENS = {
    "create_token": C(lambda jax, jnp: _name(jax.lax.create_token())),
    "after_all eagerly": C(lambda jax, jnp: _name(jax.lax.after_all(
        jax.lax.create_token(), jax.lax.create_token()))),
    "after_all of nothing": C(lambda jax, jnp: _name(jax.lax.after_all())),
    "a token through jit": C(lambda jax, jnp: _name(jax.jit(lambda t: t)(
        jax.lax.create_token()))),
    "a token made in jit": C(lambda jax, jnp: _name(jax.jit(jax.lax.create_token)())),
    "a token beside an array in jit": C(lambda jax, jnp: (lambda out: (out[0], _name(out[1])))(
        jax.jit(lambda x, t: (x * 2, jax.lax.after_all(t)))(LHS, jax.lax.create_token()))),
    "grad beside a token": C(lambda jax, jnp: jax.grad(lambda x, t: jnp.sin(x))(
        1.0, jax.lax.create_token())),
    "jaxpr of create_token": J(lambda jax, jnp: jax.make_jaxpr(jax.lax.create_token)()),
    "jaxpr of after_all": J(lambda jax, jnp: jax.make_jaxpr(lambda t: jax.lax.after_all(
        t, jax.lax.create_token()))(jax.lax.create_token())),
    "jaxpr of after_all of nothing": J(lambda jax, jnp: jax.make_jaxpr(jax.lax.after_all)()),
    "jaxpr of a while_loop": J(lambda jax, jnp: jax.make_jaxpr(lambda t: jax.lax.while_loop(
        lambda c: c[0] < 3, lambda c: (c[0] + 1, jax.lax.after_all(c[1])), (0, t)))(
            jax.lax.create_token())),
    "error: an array": E(lambda jax, jnp: jax.lax.after_all(jax.lax.create_token(), LHS)),
    "error: a float": E(lambda jax, jnp: jax.lax.after_all(1.0)),
    "error: an array in jit": E(lambda jax, jnp: jax.jit(jax.lax.after_all)(LHS)),
    "error: a token as an array": E(lambda jax, jnp: jnp.asarray(jax.lax.create_token())),
}


def _qdwh(jax, x, **kw):
    return jax.lax.linalg.qdwh(x, **kw)


QDWH = {      # each case compiles the whole iteration (about 2 s in JAX): two only
    "tall": C(lambda jax, jnp: _qdwh(jax, TALL), rtol=1e-5, atol=1e-6),
    "complex, padded, not converged in 2 steps": C(lambda jax, jnp: _qdwh(
        jax, CPLX_PADDED, dynamic_shape=(4, 3), max_iterations=2), rtol=1e-5, atol=1e-6),
    "error: wide": E(lambda jax, jnp: _qdwh(jax, SMALL.T)),
}


@pytest.mark.parametrize("name", _params(SCALED_DOT))
def test_scaled_dot(name):
    check(SCALED_DOT[name])


@pytest.mark.parametrize("name", _params(TOKENS))
def test_tokens(name):
    check(TOKENS[name])


@pytest.mark.parametrize("name", _params(QDWH))
def test_qdwh(name):
    check(QDWH[name])


ATTRIBUTES = {      # appendix A27's composite, whose attributes scaled_dot needed to grow
    "composite attributes, lowered": J(lambda jax, jnp: jax.jit(lambda x: jax.lax.composite(
        lambda x, *, a, b, c, d: x, name="my.f")(x, a=True, b=3, c=(1, (2.5,)),
                                                 d=np.dtype(np.float32))).lower(LHS).as_text()),
}


@pytest.mark.parametrize("name", _params(ATTRIBUTES))
def test_composite_attributes(name):
    check(ATTRIBUTES[name])
