# Generated from chapters/A3_linalg.md by `make export`: edit the chapter, not this file.


"""`jax.lax.linalg`: appendix A3's linear-algebra primitives and their functions, under JAX's
names."""
# ruff: noqa: F401
from autodidax.numpy.linalg import (
    EigImplementation, EighImplementation, SvdAlgorithm, cholesky_p, cholesky_update,
    cholesky_update_p, eig_p, eigh_p,
    hessenberg, hessenberg_p, householder_product, householder_product_p, lu, lu_p,
    lu_pivots_to_permutation, ormqr, ormqr_p, qr_p, schur, schur_p, svd_p, symmetric_product,
    symmetric_product_p, triangular_solve, triangular_solve_p, tridiagonal, tridiagonal_p,
    tridiagonal_solve, tridiagonal_solve_p,
)
from autodidax.numpy.linalg import lax_cholesky as cholesky
from autodidax.numpy.linalg import lax_eig as eig
from autodidax.numpy.linalg import lax_eigh as eigh
from autodidax.numpy.linalg import lax_qr as qr
from autodidax.numpy.linalg import lax_svd as svd


import functools

import numpy as np

from autodidax import lax_core as lax
from autodidax import numpy as jnp
from autodidax.control_flow import while_loop
from autodidax.control_flow_reference import fori_loop
from autodidax.indexing_rest import (dynamic_index_in_dim, dynamic_slice_in_dim,
                                     dynamic_update_slice_in_dim)
from autodidax.jit import jit
from autodidax.numpy.linalg import lax_cholesky, lax_qr, norm


def _mask(x, dims, alternative=0):
    """`x` where every index is below `dims` (None: the whole axis), `alternative` elsewhere."""
    mask = None
    for i, d in enumerate(dims):
        if d is not None:
            below = lax.broadcasted_iota(np.int32, x.shape, i) < d
            mask = below if mask is None else mask & below
    return x if mask is None else jnp.where(mask, x, alternative)


def _concat_rows(a, b, m):
    """`a`'s first `m` rows (`m` may be traced), then `b`."""
    zero = lax.convert_element_type(0, a.dtype)
    padded = lax.pad(a, zero, [(0, b.shape[0], 0), (0, 0, 0)])
    return dynamic_update_slice_in_dim(padded, b, m, 0)


def _use_qr(u, m, n, params):
    """One weighted Halley step from the QR factorization of `[sqrt(c) u; I]`."""
    a_minus_e_by_sqrt_c, sqrt_c, e = params
    M, N = u.shape
    q, _ = lax_qr(_concat_rows(sqrt_c * u, jnp.eye(N, dtype=u.dtype), m), full_matrices=False)
    q1 = _mask(lax.slice(q, (0, 0), (M, N)), (m, n))
    q2 = _mask(dynamic_slice_in_dim(q, m, N, axis=0), (n, n)).T.conj()
    return e * u + a_minus_e_by_sqrt_c * (q1 @ q2)


def _use_cholesky(u, m, n, params):
    """One weighted Halley step from the Cholesky factor of `I + c u^H u`."""
    a_minus_e, c, e = params
    N = u.shape[1]
    x = c * (u.T.conj() @ u) + jnp.eye(N, dtype=u.dtype)
    y = lax_cholesky(_mask(x, (n, n), jnp.eye(N, dtype=x.dtype)), symmetrize_input=False)
    z = triangular_solve(y, u.T, left_side=True, lower=True, conjugate_a=True).conj()
    z = triangular_solve(y, z, left_side=True, lower=True, transpose_a=True,
                         conjugate_a=True).T.conj()
    return e * u + a_minus_e * z


def _halley_weights(max_iterations, eps):
    """The weights of each step, from the lower bound `l` on the smallest singular value:
    the QR steps' `(a - e) / sqrt(c), sqrt(c), e` and the Cholesky steps' `a - e, c, e`."""
    qr_coefs, chol_coefs, l, k = [], [], eps, 0
    while l + 5 * eps < 1 and k < max_iterations:
        k += 1
        l2 = l * l
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** (1 / 2)
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        l = l * (a + b * l2) / (1 + c * l2)
        e = b / c
        if c > 100:
            qr_coefs.append(((a - e) / c ** (1 / 2), c ** (1 / 2), e))
        else:
            chol_coefs.append((a - e, c, e))
    return qr_coefs, chol_coefs


def _qdwh(x, m, n, max_iterations, eps):
    if eps is None:
        eps = float(jnp.finfo(x.dtype).eps)
    one_norm, inf_norm = norm(x, ord=1), norm(x, ord=np.inf)
    alpha_inverse = lax.rsqrt(one_norm) * lax.rsqrt(inf_norm)    # 1 / (a bound on norm(x, 2))
    alpha_inverse = jnp.where(one_norm == 0, 1, alpha_inverse)
    u = x * alpha_inverse.astype(x.dtype)
    real = np.dtype(jnp.finfo(x.dtype).dtype)
    tol_norm = float(np.cbrt(real.type(5 * eps)))       # stop when a step moves u less
    qr_coefs, chol_coefs = _halley_weights(max_iterations, eps)

    def step(k, state, update, coefs, test):
        u, _ = state
        params = (3 - 1 / 3, 3, 1 / 3) if coefs is None else dynamic_index_in_dim(
            coefs, k, keepdims=False)            # Halley's own weights (3, 1, 3) at the end
        u_new = update(u, m, n, tuple(params[i] for i in range(3)))
        return u_new, (norm(u_new - u) > tol_norm) if test else True

    def iterate(u, coefs, update, test):
        if not coefs:
            return u, True
        body = functools.partial(step, update=update, test=test,
                                 coefs=jnp.array(coefs).astype(x.dtype))
        return fori_loop(0, len(coefs), body, (u, True))

    u, _ = iterate(u, qr_coefs, _use_qr, False)
    u, moving = iterate(u, chol_coefs, _use_cholesky, True)

    def halley(state):
        k, u, moving = state
        u, moving = step(k, (u, moving), _use_cholesky, None, True)
        return k + 1, u, moving

    num_iters, u, moving = while_loop(
        lambda s: jnp.logical_and(s[2], s[0] < max_iterations), halley,
        (len(qr_coefs) + len(chol_coefs), u, moving))
    u = 1.5 * u - 0.5 * u @ (u.T.conj() @ u)              # a Newton-Schulz step
    h = u.T.conj() @ x
    return u, (h + h.T.conj()) / 2, num_iters, jnp.logical_not(moving)


@functools.partial(jit, static_argnames=("is_hermitian", "max_iterations", "eps"))
def qdwh(x, *, is_hermitian=False, max_iterations=None, eps=None, dynamic_shape=None):
    """The polar decomposition `x = u @ h` of a full-rank `x` of shape `(M, N)`, `M >= N`, by
    QDWH: `(u, h, num_iters, is_converged)`. `dynamic_shape`: the true `(m, n)` of a padded
    `x`; `is_hermitian` is unused, as in JAX."""
    max_iterations = 10 if max_iterations is None else int(max_iterations)
    M, N = x.shape
    if M < N:
        raise ValueError("The input matrix of shape M x N must have M >= N.")
    if dynamic_shape is None:
        m, n = M, N
    else:
        m, n = dynamic_shape
        x = _mask(x, (m, n))
    return _qdwh(x, m, n, max_iterations, eps)
