"""Conformance cases for `jnp.linalg` (appendix A2), in the form of tests/test_conformance.py:
each program runs under JAX and under autodidax, and the results must agree. Factorizations
round differently from JAX's LAPACK calls, so float cases allow float32 rounding (1e-5)."""
import numpy as np
import pytest

from test_conformance import C, E, J, check, _params  # noqa: F401

rng = np.random.default_rng(7)
SQ3 = rng.standard_normal((3, 3)).astype(np.float32)
SQ4 = rng.standard_normal((4, 4)).astype(np.float32)
SQ5 = rng.standard_normal((5, 5)).astype(np.float32)
BATCH = rng.standard_normal((2, 4, 4)).astype(np.float32)
RHS = rng.standard_normal((4, 2)).astype(np.float32)
VEC = rng.standard_normal(4).astype(np.float32)
RECT = rng.standard_normal((4, 3)).astype(np.float32)
WIDE = rng.standard_normal((3, 5)).astype(np.float32)
_M = rng.standard_normal((2, 4, 4)).astype(np.float32)
SPD = (_M @ np.swapaxes(_M, -1, -2) + 4 * np.eye(4)).astype(np.float32)   # positive definite
SPD4 = SPD[0]
I4 = np.array([[2, 1, 0, 0], [1, 3, 1, 0], [0, 1, 4, 1], [0, 0, 1, 5]], np.int32)
NOT_PD = np.array([[1.0, 2.0], [2.0, 1.0]], np.float32)
LOWER = np.tril(SQ4) + 4 * np.eye(4, dtype=np.float32)
T3 = rng.standard_normal((2, 3, 4)).astype(np.float32)


def _tsolve(jax, a, b, **kw):
    return jax.lax.linalg.triangular_solve(a, b, **kw) if hasattr(jax.lax, "linalg") else \
        __import__("autodidax.numpy.linalg").numpy.linalg.triangular_solve(a, b, **kw)


def _lu(jax, a):
    return jax.lax.linalg.lu(a) if hasattr(jax.lax, "linalg") else \
        __import__("autodidax.numpy.linalg").numpy.linalg.lu(a)


TOL = dict(rtol=1e-5, atol=1e-5)

LINALG = {
    # values and dtypes
    "cholesky": C(lambda jax, jnp: jnp.linalg.cholesky(SPD4), **TOL),
    "cholesky batched upper": C(lambda jax, jnp: jnp.linalg.cholesky(SPD, upper=True), **TOL),
    "cholesky of int": C(lambda jax, jnp: jnp.linalg.cholesky(jnp.asarray(I4)), **TOL),
    "cholesky not positive definite is nan": C(lambda jax, jnp: jnp.linalg.cholesky(NOT_PD)),
    "cholesky jit not positive definite": C(
        lambda jax, jnp: jax.jit(jnp.linalg.cholesky)(NOT_PD)),
    "det 2x2": C(lambda jax, jnp: jnp.linalg.det(SQ3[:2, :2])),
    "det 3x3": C(lambda jax, jnp: jnp.linalg.det(SQ3), **TOL),
    "det 5x5": C(lambda jax, jnp: jnp.linalg.det(SQ5), **TOL),
    "det batched": C(lambda jax, jnp: jnp.linalg.det(BATCH), **TOL),
    "det of int": C(lambda jax, jnp: jnp.linalg.det(jnp.asarray(I4)), rtol=1e-5, atol=1e-4),
    "det singular": C(lambda jax, jnp: jnp.linalg.det(jnp.ones((4, 4))), **TOL),
    "slogdet": C(lambda jax, jnp: tuple(jnp.linalg.slogdet(SQ5)), **TOL),
    "slogdet 2x2": C(lambda jax, jnp: tuple(jnp.linalg.slogdet(SQ3[:2, :2])), **TOL),
    "slogdet batched": C(lambda jax, jnp: tuple(jnp.linalg.slogdet(BATCH)), **TOL),
    "slogdet singular": C(lambda jax, jnp: tuple(jnp.linalg.slogdet(jnp.zeros((3, 3))))),
    "inv": C(lambda jax, jnp: jnp.linalg.inv(SQ4), rtol=1e-4, atol=1e-4),
    "inv batched": C(lambda jax, jnp: jnp.linalg.inv(BATCH), rtol=1e-4, atol=1e-4),
    "solve vector": C(lambda jax, jnp: jnp.linalg.solve(SQ4, VEC), rtol=1e-4, atol=1e-4),
    "solve matrix": C(lambda jax, jnp: jnp.linalg.solve(SQ4, RHS), rtol=1e-4, atol=1e-4),
    "solve batched a, vector b": C(lambda jax, jnp: jnp.linalg.solve(BATCH, VEC),
                                   rtol=1e-4, atol=1e-4),
    "solve batched a, matrix b": C(lambda jax, jnp: jnp.linalg.solve(BATCH, RHS),
                                   rtol=1e-4, atol=1e-4),
    "norm": C(lambda jax, jnp: jnp.linalg.norm(T3), **TOL),
    "norm vector ords": C(lambda jax, jnp: [jnp.linalg.norm(VEC, o) for o in
                                            (None, 1, 2, 3, 0, np.inf, -np.inf, 0.5)], **TOL),
    "norm axis keepdims": C(lambda jax, jnp: jnp.linalg.norm(T3, axis=1, keepdims=True), **TOL),
    "norm matrix ords": C(lambda jax, jnp: [jnp.linalg.norm(SQ4, o) for o in
                                            ("fro", 1, -1, np.inf, -np.inf)], **TOL),
    "norm matrix axes keepdims": C(lambda jax, jnp: [
        jnp.linalg.norm(T3, o, axis=(2, 0), keepdims=k) for o in (None, 1, -np.inf)
        for k in (False, True)], **TOL),
    "norm of int": C(lambda jax, jnp: jnp.linalg.norm(jnp.asarray(I4)), **TOL),
    "lu": C(lambda jax, jnp: _lu(jax, SQ5), **TOL),
    "lu tall and wide": C(lambda jax, jnp: [_lu(jax, RECT), _lu(jax, WIDE)], **TOL),
    "lu batched jit": C(lambda jax, jnp: jax.jit(lambda a: _lu(jax, a))(BATCH), **TOL),
    "triangular_solve flags": C(lambda jax, jnp: [
        _tsolve(jax, LOWER, RHS if left else RHS.T, left_side=left, lower=True,
                transpose_a=t, unit_diagonal=u)
        for left in (True, False) for t in (False, True) for u in (False, True)], **TOL),
    "triangular_solve jit upper": C(lambda jax, jnp: jax.jit(
        lambda a, b: _tsolve(jax, a, b, left_side=True, lower=False))(LOWER.T, RHS), **TOL),
    # under jit
    "jit det slogdet inv solve": C(lambda jax, jnp: jax.jit(lambda a, b: (
        jnp.linalg.det(a), jnp.linalg.slogdet(a)[1], jnp.linalg.inv(a),
        jnp.linalg.solve(a, b)))(SQ4, VEC), rtol=1e-4, atol=1e-4),
    "jit cholesky": C(lambda jax, jnp: jax.jit(jnp.linalg.cholesky)(SPD), **TOL),
    # derivatives
    "grad det": C(lambda jax, jnp: jax.grad(jnp.linalg.det)(SQ5), rtol=1e-4, atol=1e-4),
    "grad det 3x3": C(lambda jax, jnp: jax.grad(jnp.linalg.det)(SQ3), **TOL),
    "grad slogdet": C(lambda jax, jnp: jax.grad(lambda a: jnp.linalg.slogdet(a)[1])(SQ5),
                      rtol=1e-4, atol=1e-4),
    "grad inv": C(lambda jax, jnp: jax.grad(lambda a: jnp.sum(jnp.linalg.inv(a) ** 2))(SQ4),
                  rtol=1e-3, atol=1e-3),
    "grad solve both": C(lambda jax, jnp: jax.grad(
        lambda a, b: jnp.sum(jnp.sin(jnp.linalg.solve(a, b))), argnums=(0, 1))(SQ4, RHS),
        rtol=1e-4, atol=1e-4),
    "grad cholesky": C(lambda jax, jnp: jax.grad(
        lambda a: jnp.sum(jnp.sin(jnp.linalg.cholesky(a))))(SPD4), rtol=1e-4, atol=1e-4),
    "jvp cholesky": C(lambda jax, jnp: jax.jvp(jnp.linalg.cholesky, (SPD4,), (SQ4 + SQ4.T,)),
                      rtol=1e-4, atol=1e-4),
    "grad jit solve": C(lambda jax, jnp: jax.grad(jax.jit(
        lambda a: jnp.linalg.solve(a, VEC).sum()))(SQ4), rtol=1e-4, atol=1e-4),
    "grad norm": C(lambda jax, jnp: jax.grad(lambda x: jnp.linalg.norm(x, 1, axis=(0, 1)))(SQ4)),
    "grad triangular_solve": C(lambda jax, jnp: jax.grad(
        lambda a, b: jnp.sum(jnp.cos(_tsolve(jax, a, b, left_side=True, lower=True))),
        argnums=(0, 1))(LOWER, RHS), rtol=1e-4, atol=1e-4),
    "grad lu": C(lambda jax, jnp: jax.grad(lambda a: jnp.sum(jnp.sin(_lu(jax, a)[0])))(SQ4),
                 rtol=1e-4, atol=1e-4),
    "hessian det": C(lambda jax, jnp: jax.hessian(jnp.linalg.det)(SQ4), rtol=1e-4, atol=1e-4),
    # vmap
    "vmap cholesky": C(lambda jax, jnp: jax.vmap(jnp.linalg.cholesky)(SPD), **TOL),
    "vmap det": C(lambda jax, jnp: jax.vmap(jnp.linalg.det)(BATCH), **TOL),
    "vmap solve in_axes": C(lambda jax, jnp: jax.vmap(jnp.linalg.solve, in_axes=(None, 1))(
        SQ4, RHS), rtol=1e-4, atol=1e-4),
    "vmap triangular_solve b": C(lambda jax, jnp: jax.vmap(
        lambda b: _tsolve(jax, LOWER, b, left_side=True, lower=True), in_axes=1)(RHS), **TOL),
    "vmap grad det": C(lambda jax, jnp: jax.vmap(jax.grad(jnp.linalg.det))(BATCH),
                       rtol=1e-4, atol=1e-4),
    # eigh
    "eigh": C(lambda jax, jnp: jnp.linalg.eigh(SPD4), **TOL),
    "eigh batched jit": C(lambda jax, jnp: tuple(jax.jit(jnp.linalg.eigh)(SPD)), rtol=1e-4,
                          atol=1e-4),
    "eigh upper and no symmetrize": C(lambda jax, jnp: tuple(jnp.linalg.eigh(
        np.triu(SPD4), UPLO="U", symmetrize_input=False)), rtol=1e-4, atol=1e-4),
    "eigvalsh of int": C(lambda jax, jnp: jnp.linalg.eigvalsh(jnp.asarray(I4)), **TOL),
    "grad eigvalsh": C(lambda jax, jnp: jax.grad(
        lambda a: jnp.sum(jnp.linalg.eigvalsh(a) ** 2))(SPD4), rtol=1e-4, atol=1e-4),
    "jvp eigh": C(lambda jax, jnp: jax.jvp(lambda a: tuple(jnp.linalg.eigh(a)), (SPD4,),
                                           (SQ4 + SQ4.T,)), rtol=1e-3, atol=1e-3),
    "grad eigh vectors": C(lambda jax, jnp: jax.grad(
        lambda a: jnp.sum(jnp.linalg.eigh(a)[1][:, -1] ** 3))(SPD4), rtol=1e-3, atol=1e-3),
    "vmap eigvalsh": C(lambda jax, jnp: jax.vmap(jnp.linalg.eigvalsh)(SPD), **TOL),
    # errors
    "eigh bad UPLO": E(lambda jax, jnp: jnp.linalg.eigh(SPD4, UPLO="X")),
    "eigh not square": E(lambda jax, jnp: jnp.linalg.eigh(RECT)),
    "det not square": E(lambda jax, jnp: jnp.linalg.det(RECT)),
    "det of vector": E(lambda jax, jnp: jnp.linalg.det(VEC)),
    "inv not square": E(lambda jax, jnp: jnp.linalg.inv(RECT)),
    "solve vector a": E(lambda jax, jnp: jnp.linalg.solve(VEC, VEC)),
    "solve wrong rows": E(lambda jax, jnp: jnp.linalg.solve(SQ4, SQ3)),
    "solve of list": E(lambda jax, jnp: jnp.linalg.solve([[1.0]], VEC)),
    "slogdet not square": E(lambda jax, jnp: jnp.linalg.slogdet(RECT)),
    "slogdet bad method": E(lambda jax, jnp: jnp.linalg.slogdet(SQ4, method="svd")),
    "cholesky not square": E(lambda jax, jnp: jnp.linalg.cholesky(RECT)),
    "norm bad vector ord": E(lambda jax, jnp: jnp.linalg.norm(VEC, "fro")),
    "norm bad matrix ord": E(lambda jax, jnp: jnp.linalg.norm(SQ4, 3)),
    "norm three axes": E(lambda jax, jnp: jnp.linalg.norm(T3, 1)),
    # printed jaxprs
    "jaxpr norm": J(lambda jax, jnp: jax.make_jaxpr(jnp.linalg.norm)(SQ4)),
    "jaxpr norm axis": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jnp.linalg.norm(x, axis=1))(SQ4)),
    "jaxpr lu": J(lambda jax, jnp: jax.make_jaxpr(lambda a: _lu(jax, a))(SQ4)),
    "jaxpr det 3x3": J(lambda jax, jnp: jax.make_jaxpr(jnp.linalg.det)(SQ3)),
    "jaxpr eigh": J(lambda jax, jnp: jax.make_jaxpr(jnp.linalg.eigh)(SQ3)),
    "jaxpr eigvalsh": J(lambda jax, jnp: jax.make_jaxpr(jnp.linalg.eigvalsh)(SQ3)),
    "jaxpr cholesky": J(lambda jax, jnp: jax.make_jaxpr(jnp.linalg.cholesky)(SQ3)),
    "jaxpr cholesky batched upper": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a: jnp.linalg.cholesky(a, upper=True))(np.stack([SQ3, SQ3]))),
    "jaxpr triangular_solve": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a, b: _tsolve(jax, a, b, left_side=True, lower=True))(LOWER, RHS)),
}


@pytest.mark.parametrize("name", _params(LINALG))
def test_linalg(name):
    check(LINALG[name])
