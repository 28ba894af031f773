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
