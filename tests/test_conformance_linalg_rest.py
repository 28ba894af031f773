"""Conformance cases for the rest of `jnp.linalg` and for `jax.lax.linalg` (appendix A3): the
`qr`, `svd`, `eig` primitives and the others lowered to the LAPACK kernels JAX calls, the
compositions on them, and `jax.random.multivariate_normal` and `orthogonal`. LAPACK on the CPU is
deterministic, so values are compared exactly (EXACT); derivatives, which compose many operations
(and solve with `triangular_solve`, which JAX lowers to LAPACK's `trsm` and we do not), within
float32 rounding."""
import numpy as np
import pytest

from test_conformance import C, E, J, check, _params  # noqa: F401

rng = np.random.default_rng(11)
SQ = rng.standard_normal((4, 4)).astype(np.float32)
TALL = rng.standard_normal((5, 3)).astype(np.float32)
WIDE = rng.standard_normal((3, 5)).astype(np.float32)
BATCH = rng.standard_normal((2, 4, 3)).astype(np.float32)
VEC = rng.standard_normal(4).astype(np.float32)
CPLX = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))).astype(np.complex64)
_M = rng.standard_normal((3, 3)).astype(np.float32)
SPD = (_M @ _M.T + 3 * np.eye(3)).astype(np.float32)
RANK2 = (TALL[:, :2] @ WIDE[:2, :3]).astype(np.float32)          # 5x3 of rank 2
T3 = rng.standard_normal((2, 3, 4)).astype(np.float32)
DIST = np.diag(np.array([1.0, 2.0, 3.5, -1.5], np.float32)) + 0.1 * SQ   # distinct eigenvalues
SPD4U = np.linalg.cholesky(SQ @ SQ.T + 4 * np.eye(4)).T.astype(np.float32)   # A = U^T U
I3 = np.array([[2, 1, 0], [1, 3, 1], [0, 1, 4]], np.int32)

_C = (rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))).astype(np.complex64)
HERM = (_C @ _C.conj().T + 3 * np.eye(3)).astype(np.complex64)    # Hermitian, positive definite
EXACT = dict(rtol=0, atol=0)
TOL = dict(rtol=1e-4, atol=1e-4)


def _lax(jax):
    return jax.lax.linalg


LINALG_REST = {
    # qr
    "qr reduced tall": C(lambda jax, jnp: tuple(jnp.linalg.qr(TALL)), **EXACT),
    "qr complete tall": C(lambda jax, jnp: tuple(jnp.linalg.qr(TALL, mode="complete")), **EXACT),
    "qr wide and r": C(lambda jax, jnp: [tuple(jnp.linalg.qr(WIDE)),
                                          jnp.linalg.qr(TALL, mode="r")], **EXACT),
    "qr raw": C(lambda jax, jnp: tuple(jnp.linalg.qr(TALL, mode="raw")), **EXACT),
    "qr batched jit": C(lambda jax, jnp: tuple(jax.jit(jnp.linalg.qr)(BATCH)), **EXACT),
    "qr complex": C(lambda jax, jnp: tuple(jnp.linalg.qr(CPLX)), **EXACT),
    "qr of int": C(lambda jax, jnp: tuple(jnp.linalg.qr(I3)), **EXACT),
    "lax qr full": C(lambda jax, jnp: _lax(jax).qr(TALL), **EXACT),
    "householder_product": C(lambda jax, jnp: (lambda r, t: _lax(jax).householder_product(
        r.T, t))(*jnp.linalg.qr(TALL, mode="raw")), **EXACT),
    "ormqr": C(lambda jax, jnp: (lambda h, t: [
        _lax(jax).ormqr(h.T, t, TALL[:, :2].copy()),
        _lax(jax).ormqr(h.T, t, TALL[:, :2].T.copy(), left=False, transpose=True)])(
        *jnp.linalg.qr(TALL, mode="raw")), **EXACT),
    "symmetric_product": C(lambda jax, jnp: [_lax(jax).symmetric_product(
        TALL, np.eye(5, dtype=np.float32), alpha=2.0, beta=0.5, symmetrize_output=True),
        jax.make_jaxpr(lambda a, c: _lax(jax).symmetric_product(a, c, beta=2.0))(
            BATCH, np.ones((2, 4, 4), np.float32)).out_avals[0].shape], **EXACT),
    "jaxpr symmetric_product ormqr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a, t, c: (_lax(jax).symmetric_product(a, c, alpha=2.0),
                         _lax(jax).ormqr(a, t, c, transpose=True)))(
        TALL, VEC[:3], np.eye(5, dtype=np.float32))),
    "hessenberg tridiagonal schur": C(lambda jax, jnp: [
        _lax(jax).hessenberg(SQ), _lax(jax).tridiagonal(SPD, lower=False),
        _lax(jax).schur(SQ), _lax(jax).schur(CPLX, compute_schur_vectors=False)], **EXACT),
    "vmap schur": C(lambda jax, jnp: jax.vmap(_lax(jax).schur)(np.stack([SQ, DIST])), **EXACT),
    "jaxpr schur tridiagonal": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a: (_lax(jax).schur(a), _lax(jax).tridiagonal(a)))(SQ)),
    "schur of vector": E(lambda jax, jnp: _lax(jax).schur(VEC)),
    "tridiagonal_solve": C(lambda jax, jnp: [
        _lax(jax).tridiagonal_solve(VEC, VEC + 4, VEC[::-1].copy(), SQ),
        _lax(jax).tridiagonal_solve(VEC, VEC, VEC, SQ, perturb_singular=True),
        jax.grad(lambda d, b: jnp.sum(_lax(jax).tridiagonal_solve(VEC, d, VEC, b) ** 2),
                 argnums=(0, 1))(VEC + 4, SQ)], **EXACT),
    "cholesky_update": C(lambda jax, jnp: [_lax(jax).cholesky_update(
        SPD4U, w) for w in (VEC, VEC * np.array([1, 0, 1, 1], np.float32))], **EXACT),
    "cholesky_update errors": E(lambda jax, jnp: _lax(jax).cholesky_update(SPD4U, VEC[:3])),
    "cholesky_update no batching": E(lambda jax, jnp: jax.vmap(_lax(jax).cholesky_update)(
        SPD4U[None], VEC[None])),
    "jvp qr tall": C(lambda jax, jnp: jax.jvp(lambda a: tuple(jnp.linalg.qr(a)), (TALL,),
                                              (TALL[::-1].copy(),)), **TOL),
    "jvp qr wide": C(lambda jax, jnp: jax.jvp(lambda a: tuple(jnp.linalg.qr(a)), (WIDE,),
                                              (WIDE[::-1].copy(),)), **TOL),
    "jvp qr complete": C(lambda jax, jnp: jax.jvp(
        lambda a: tuple(jnp.linalg.qr(a, mode="complete")), (TALL,), (TALL[::-1].copy(),)),
        **TOL),
    "grad qr": C(lambda jax, jnp: jax.grad(lambda a: jnp.sum(jnp.linalg.qr(a)[0] ** 3))(SQ),
                 **TOL),
    # svd
    "svd": C(lambda jax, jnp: tuple(jnp.linalg.svd(TALL)), **EXACT),
    "svd reduced wide": C(lambda jax, jnp: tuple(jnp.linalg.svd(WIDE, full_matrices=False)),
                          **EXACT),
    "svd values batched jit": C(lambda jax, jnp: jax.jit(
        lambda a: jnp.linalg.svd(a, compute_uv=False))(BATCH), **EXACT),
    "svd complex": C(lambda jax, jnp: tuple(jnp.linalg.svd(CPLX)), **EXACT),
    "svd hermitian": C(lambda jax, jnp: [tuple(jnp.linalg.svd(SPD - 4, hermitian=True)),
                                         jnp.linalg.svd(SPD - 4, hermitian=True,
                                                        compute_uv=False)], **EXACT),
    "eigh complex": C(lambda jax, jnp: [tuple(jnp.linalg.eigh(HERM)),
                                         tuple(jax.jit(jnp.linalg.eigh)(HERM))], **EXACT),
    "jvp eigvalsh complex": C(lambda jax, jnp: jax.jvp(jnp.linalg.eigvalsh, (HERM,), (HERM,)),
                              **TOL),
    "svd hermitian complex": C(lambda jax, jnp: jnp.linalg.svd(HERM, hermitian=True,
                                                               compute_uv=False), **EXACT),
    "eigh all by index, QR": C(lambda jax, jnp: _lax(jax).eigh(
        SPD, subset_by_index=(0, 3), implementation=_lax(jax).EighImplementation.QR,
        sort_eigenvalues=False), **EXACT),
    "eigh by index": E(lambda jax, jnp: _lax(jax).eigh(SPD, subset_by_index=(0, 2))),
    "eigh jacobi": E(lambda jax, jnp: jax.jit(lambda a: _lax(jax).eigh(
        a, implementation=_lax(jax).EighImplementation.JACOBI))(SPD)),
    "svd qr algorithm": C(lambda jax, jnp: _lax(jax).svd(
        TALL, full_matrices=False, algorithm=_lax(jax).SvdAlgorithm.QR), **EXACT),
    "svdvals": C(lambda jax, jnp: jnp.linalg.svdvals(BATCH), **EXACT),
    "vmap svd": C(lambda jax, jnp: tuple(jax.vmap(jnp.linalg.svd)(BATCH)), **EXACT),
    "jvp svd": C(lambda jax, jnp: jax.jvp(
        lambda a: tuple(jnp.linalg.svd(a, full_matrices=False)), (TALL,),
        (TALL[::-1].copy(),)), **TOL),
    "grad svdvals wide": C(lambda jax, jnp: jax.grad(
        lambda a: jnp.sum(jnp.linalg.svdvals(a) ** 3))(WIDE), **TOL),
    # eig
    "eig": C(lambda jax, jnp: tuple(jnp.linalg.eig(SQ)), **EXACT),
    "eig complex": C(lambda jax, jnp: tuple(jnp.linalg.eig(CPLX)), **EXACT),
    "eigvals": C(lambda jax, jnp: jnp.linalg.eigvals(DIST), **EXACT),
    "lax eig left": C(lambda jax, jnp: _lax(jax).eig(SQ), **EXACT),
    "vmap eigvals": C(lambda jax, jnp: jax.vmap(jnp.linalg.eigvals)(
        np.stack([SQ, DIST])), **EXACT),
    "jvp eigvals": C(lambda jax, jnp: jax.jvp(jnp.linalg.eigvals, (DIST,), (SQ,)), **TOL),
    "jvp eig vectors": C(lambda jax, jnp: jax.jvp(
        lambda a: _lax(jax).eig(a, compute_left_eigenvectors=False, enable_eigvec_derivs=True),
        (DIST,), (SQ,)), rtol=1e-3, atol=1e-3),
    # compositions
    "slogdet qr": C(lambda jax, jnp: [tuple(jnp.linalg.slogdet(SQ, method="qr")),
                                      tuple(jnp.linalg.slogdet(BATCH[:, :3], method="qr"))],
                    **EXACT),
    "pinv": C(lambda jax, jnp: [jnp.linalg.pinv(TALL), jnp.linalg.pinv(RANK2),
                                jnp.linalg.pinv(BATCH, rtol=0.1)], **EXACT),
    "pinv hermitian": C(lambda jax, jnp: jnp.linalg.pinv(SPD, hermitian=True), **EXACT),
    "jvp pinv wide": C(lambda jax, jnp: jax.jvp(jnp.linalg.pinv, (WIDE,), (WIDE[::-1].copy(),)),
                       **TOL),
    "lstsq": C(lambda jax, jnp: [jnp.linalg.lstsq(TALL, VEC[:4].repeat(2)[:5]),
                                 jnp.linalg.lstsq(RANK2, TALL, numpy_resid=True)], **EXACT),
    "matrix_rank": C(lambda jax, jnp: [jnp.linalg.matrix_rank(RANK2), jnp.linalg.matrix_rank(
        VEC), jnp.linalg.matrix_rank(SPD, 0.5, hermitian=True)], **EXACT),
    "cond": C(lambda jax, jnp: [jnp.linalg.cond(SQ, p) for p in (None, 2, -2)], **EXACT),
    "cond through inv": C(lambda jax, jnp: [jnp.linalg.cond(SQ, p) for p in (1, "fro")],
                          **TOL),
    "cond singular": C(lambda jax, jnp: jnp.linalg.cond(np.ones((3, 3), np.float32), 1),
                       **EXACT),
    "norm svd ords": C(lambda jax, jnp: [jnp.linalg.norm(TALL, -2), jnp.linalg.norm(
        T3, 2, axis=(2, 0), keepdims=True), jnp.linalg.matrix_norm(T3, ord="nuc"),
        jnp.linalg.matrix_norm(T3, keepdims=True)], **EXACT),
    "vector_norm": C(lambda jax, jnp: [jnp.linalg.vector_norm(
        T3, axis=1, ord=1), jnp.linalg.vector_norm(T3, axis=(0, 2), keepdims=True),
        jnp.linalg.vector_norm(CPLX), jnp.linalg.norm(CPLX, axis=0)], **EXACT),
    "matrix_power": C(lambda jax, jnp: [jnp.linalg.matrix_power(SQ, n) for n in
                                        (0, 1, 2, 3, 5, 11)] +
                      [jnp.linalg.matrix_power(I3, 4)], **EXACT),
    "matrix_power negative": C(lambda jax, jnp: jnp.linalg.matrix_power(SPD, -2), **TOL),
    "multi_dot": C(lambda jax, jnp: [
        jnp.linalg.multi_dot([TALL, WIDE, TALL[:, ::-1].copy()]),
        jnp.linalg.multi_dot([VEC[:3], WIDE, TALL, VEC[:3]]),
        jnp.linalg.multi_dot([np.ones((10, 100), np.float32), np.ones((100, 5), np.float32),
                              np.ones((5, 50), np.float32)])], **EXACT),
    "tensorinv": C(lambda jax, jnp: jnp.linalg.tensorinv(SQ.reshape(4, 2, 2), ind=1), **TOL),
    "tensorsolve": C(lambda jax, jnp: jnp.linalg.tensorsolve(SQ.reshape(2, 2, 4),
                                                             VEC.reshape(2, 2)), **TOL),
    "array api names": C(lambda jax, jnp: [
        jnp.linalg.cross(TALL, TALL[::-1]), jnp.linalg.diagonal(T3, offset=1),
        jnp.linalg.matmul(TALL, WIDE), jnp.linalg.matrix_transpose(T3),
        jnp.linalg.outer(VEC, VEC[:3]), jnp.linalg.tensordot(T3, T3.transpose(1, 2, 0), axes=2),
        jnp.linalg.trace(T3), jnp.linalg.trace(I3, dtype=np.float32),
        jnp.linalg.trace(T3, offset=-1), jnp.linalg.vecdot(T3, T3[0])], **EXACT),
    # (complex: the imaginary parts' last bits differ from JAX's; values to float32 precision)
    "vecdot of complex vectors": C(lambda jax, jnp: jnp.linalg.vecdot(CPLX, CPLX, axis=0)),
    "compositions under jit": C(lambda jax, jnp: jax.jit(lambda a: (
        jnp.linalg.pinv(a), jnp.linalg.cond(a), jnp.linalg.matrix_rank(a),
        jnp.linalg.norm(a, "nuc")))(TALL), **EXACT),
    # jax.random
    "multivariate_normal": C(lambda jax, jnp: [
        jax.random.multivariate_normal(jax.random.key(1), VEC[:3], SPD, (2, 4)),
        jax.random.multivariate_normal(jax.random.key(2), np.zeros((2, 3), np.float32), SPD,
                                       method="svd")], **EXACT),
    "orthogonal": C(lambda jax, jnp: [jax.random.orthogonal(jax.random.key(1), 3, (2,)),
                                      jax.random.orthogonal(jax.random.key(2), 2, m=4)],
                    **EXACT),
    # errors
    "qr bad mode": E(lambda jax, jnp: jnp.linalg.qr(SQ, mode="x")),
    "qr of vector": E(lambda jax, jnp: jnp.linalg.qr(VEC)),
    "eig not square": E(lambda jax, jnp: jnp.linalg.eig(TALL)),
    "svd of vector": E(lambda jax, jnp: jnp.linalg.svd(VEC)),
    "eig vectors grad not enabled": E(lambda jax, jnp: jax.jvp(
        lambda a: jnp.linalg.eig(a)[1], (SQ,), (SQ,))),
    "pinv rtol and rcond": E(lambda jax, jnp: jnp.linalg.pinv(SQ, rtol=0.1, rcond=0.1)),
    "matrix_rank tol and rtol": E(lambda jax, jnp: jnp.linalg.matrix_rank(SQ, 0.1, tol=0.1)),
    "matrix_power not square": E(lambda jax, jnp: jnp.linalg.matrix_power(TALL, 2)),
    "matrix_power float n": E(lambda jax, jnp: jnp.linalg.matrix_power(SQ, 2.5)),
    "multi_dot one array": E(lambda jax, jnp: jnp.linalg.multi_dot([SQ])),
    "multi_dot mismatch": E(lambda jax, jnp: jnp.linalg.multi_dot([SQ, TALL])),
    "tensorinv bad shape": E(lambda jax, jnp: jnp.linalg.tensorinv(T3, ind=1)),
    "tensorsolve bad shape": E(lambda jax, jnp: jnp.linalg.tensorsolve(T3, VEC)),
    "cross not 3": E(lambda jax, jnp: jnp.linalg.cross(SQ, SQ)),
    "outer of matrix": E(lambda jax, jnp: jnp.linalg.outer(SQ, VEC)),
    "matrix_transpose of vector": E(lambda jax, jnp: jnp.linalg.matrix_transpose(VEC)),
    "cond of vector": E(lambda jax, jnp: jnp.linalg.cond(VEC)),
    "cond p=1 not square": E(lambda jax, jnp: jnp.linalg.cond(TALL, 1)),
    "lstsq 3d": E(lambda jax, jnp: jnp.linalg.lstsq(BATCH, BATCH)),
    "multivariate_normal bad method": E(lambda jax, jnp: jax.random.multivariate_normal(
        jax.random.key(0), VEC[:3], SPD, method="lu")),
    "multivariate_normal bad cov": E(lambda jax, jnp: jax.random.multivariate_normal(
        jax.random.key(0), VEC, SPD)),
    # printed jaxprs
    "jaxpr qr": J(lambda jax, jnp: jax.make_jaxpr(jnp.linalg.qr)(TALL)),
    "jaxpr qr raw": J(lambda jax, jnp: jax.make_jaxpr(lambda a: jnp.linalg.qr(a, "raw"))(TALL)),
    "jaxpr lax qr": J(lambda jax, jnp: jax.make_jaxpr(lambda a: _lax(jax).qr(a))(TALL)),
    "jaxpr svd": J(lambda jax, jnp: jax.make_jaxpr(jnp.linalg.svd)(TALL)),
    "jaxpr svdvals": J(lambda jax, jnp: jax.make_jaxpr(jnp.linalg.svdvals)(TALL)),
    "jaxpr eig": J(lambda jax, jnp: jax.make_jaxpr(jnp.linalg.eig)(SQ)),
    "jaxpr eigvals": J(lambda jax, jnp: jax.make_jaxpr(jnp.linalg.eigvals)(SQ)),
    "jaxpr matrix_transpose outer": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a, v: (jnp.linalg.matrix_transpose(a), jnp.linalg.outer(v, v)))(T3, VEC)),
    "jaxpr vecdot": J(lambda jax, jnp: jax.make_jaxpr(jnp.linalg.vecdot)(T3, T3)),
    "jaxpr multi_dot": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a, b, c: jnp.linalg.multi_dot([a, b, c]))(
        np.ones((10, 100), np.float32), np.ones((100, 5), np.float32),
        np.ones((5, 50), np.float32))),
    "jaxpr matrix_power": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a: jnp.linalg.matrix_power(a, 5))(SQ)),
}


@pytest.mark.parametrize("name", _params(LINALG_REST))
def test_linalg_rest(name):
    check(LINALG_REST[name])
