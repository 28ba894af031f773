# Generated from chapters/A3_linalg.md by `make export`: edit the chapter, not this file.


"""Linear algebra: the `cholesky`, `triangular_solve`, `lu`, `eigh`, `geqrf`,
`householder_product`, `qr`, `svd` and `eig` primitives with all their rules, `jnp.linalg`
built on them, and the two samplers of `jax.random` that need them."""
from __future__ import annotations

import builtins
import enum
import math
import operator
from functools import partial
from typing import NamedTuple

import numpy as np
from jaxlib import xla_client as xc
from jaxlib.cpu import _lapack
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import control_flow, indexing, prng
from autodidax import lax_core as lax
from autodidax import lowering as mlir
from autodidax import numpy as jnp
from autodidax.autodiff import is_linear, transpose_rules
from autodidax.batching import batching_rules, bdim_at_front, not_mapped
from autodidax.core import (Primitive, ShapedArray, abstract_eval_rules, canonicalize_dtype,
                            dtype_kind, impl_rules, wrap_public_functions)
from autodidax.custom import custom_jvp
from autodidax.jit import jit
from autodidax.jaxpr import trace_to_jaxpr
from autodidax.jvp import Zero, defjvp2, instantiate_zeros, jvp_rules


def _check_float(name, *avals):
    for aval in avals:
        if dtype_kind(aval.dtype) not in "fc":
            raise TypeError(f"{name} takes floating-point or complex arrays, got "
                            f"{aval.str_short()}")


def _check_rank(name, aval):
    """JAX's error for the input of a primitive added later in this appendix, with rank < 2."""
    if aval.ndim < 2:
        raise TypeError(f"Input 0 to {name} must have rank at least 2, but got "
                        f"shape={aval.shape}")


def _check_matrix(name, aval, square=True):
    if aval.ndim < 2 or (square and aval.shape[-1] != aval.shape[-2]):
        what = "a (batched) square matrix" if square else "a (batched) matrix"
        raise ValueError(f"The input to {name} must be {what}, of shape [..., m, "
                         f"{'m' if square else 'n'}]; got shape {aval.shape}.")


def batch_at_front(primitive):
    """The batching rule of a primitive that works on the last two axes and accepts any leading
    (batch) axes: move the batch axis to the front, and the primitive does the rest."""
    def rule(vals, dims, **params):
        size = next(x.shape[d] for x, d in zip(vals, dims) if d is not not_mapped)
        out = primitive.bind(*[bdim_at_front(x, d, size) for x, d in zip(vals, dims)], **params)
        return (out, [0] * len(out)) if primitive.multiple_results else (out, 0)
    return rule


cholesky_p = Primitive("cholesky")


def _cholesky_impl(x):
    flat = x.reshape((int(np.prod(x.shape[:-2])),) + x.shape[-2:])
    out = np.empty_like(flat)
    for i, matrix in enumerate(flat):
        try:
            out[i] = np.linalg.cholesky(matrix)
        except np.linalg.LinAlgError:      # not positive definite: NaNs, as JAX gives
            out[i] = np.nan
    return out.reshape(x.shape)


def _cholesky_abstract(x):
    _check_float("cholesky", x)
    _check_matrix("cholesky", x)
    return ShapedArray(x.shape, x.dtype)


impl_rules[cholesky_p] = _cholesky_impl
abstract_eval_rules[cholesky_p] = _cholesky_abstract
batching_rules[cholesky_p] = batch_at_front(cholesky_p)


def _H(x):
    """The conjugate transpose of a (batch of) matrices; the transpose, for real ones."""
    x = jnp.swapaxes(x, -1, -2)
    return lax.conj(x) if dtype_kind(x.dtype) == "c" else x


def _tril(x):
    """The lower triangle of (a stack of) matrices, as JAX's `lax.linalg._tril` takes it: a
    mask from two iotas (row + 0 >= column), then `select`."""
    n, m = x.shape[-2:]
    mask = lax.ge(lax.add(lax.broadcasted_iota(np.int32, (n, m), 0), np.int32(0)),
                  lax.broadcasted_iota(np.int32, (n, m), 1))
    if x.ndim > 2:
        mask = lax.broadcast(mask, x.shape[:-2])
    return lax.select(mask, x, lax.full_like(x, 0))


def lax_cholesky(x, *, symmetrize_input=True):
    """The lower Cholesky factor of `x` (JAX's `lax.linalg.cholesky`)."""
    if symmetrize_input:
        x = (x + _H(x)) / 2
    return _tril(cholesky_p.bind(x))


triangular_solve_p = Primitive("triangular_solve")


def _substitute(a, b, lower, unit_diagonal):
    """x with a @ x = b, for `a` triangular: one row of x at a time, from the top when `a` is
    lower triangular, from the bottom otherwise (every row of every matrix of the batch)."""
    x = np.zeros_like(b)
    for i in (range(a.shape[-1]) if lower else reversed(range(a.shape[-1]))):
        row = b[..., i, :] - np.einsum("...j,...jk->...k", a[..., i, :], x)
        x[..., i, :] = row if unit_diagonal else row / a[..., i, i, None]
    return x


def _triangular_solve_impl(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    k = 1 if unit_diagonal else 0
    a = np.tril(a, -k) if lower else np.triu(a, k)     # the other triangle is never read
    a = np.conj(a) if conjugate_a else a
    if transpose_a:
        a, lower = np.swapaxes(a, -1, -2), not lower
    if not left_side:                                  # x a = b is a^T x^T = b^T
        a, b, lower = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not lower
    x = _substitute(a, b, lower, unit_diagonal)
    return x if left_side else np.swapaxes(x, -1, -2)


def _triangular_solve_abstract(a, b, *, left_side, **params):
    _check_float("triangular_solve", a, b)
    if a.dtype != b.dtype:
        raise TypeError(f"triangular_solve requires a and b of one dtype, got "
                        f"{a.str_short()} and {b.str_short()}")
    _check_matrix("triangular_solve", a)
    if b.ndim != a.ndim or b.shape[:-2] != a.shape[:-2]:
        raise ValueError(f"triangular_solve requires a and b with the same batch dimensions, "
                         f"got {a.str_short()} and {b.str_short()}")
    common = b.shape[-2] if left_side else b.shape[-1]
    if common != a.shape[-1]:
        side = "rows" if left_side else "columns"
        raise ValueError(f"triangular_solve with left_side={left_side} requires b to have as "
                         f"many {side} as a, got {a.str_short()} and {b.str_short()}")
    return ShapedArray(b.shape, b.dtype)


def triangular_solve(a, b, *, left_side=False, lower=False, transpose_a=False,
                     conjugate_a=False, unit_diagonal=False):
    """x with op(a) @ x = b (left_side) or x @ op(a) = b, for a triangular matrix `a`
    (JAX's `lax.linalg.triangular_solve`); a vector `b` is a single column (or row)."""
    vector = np.ndim(b) == np.ndim(a) - 1
    if vector:
        b = lax.expand_dims(b, [np.ndim(b) if left_side else np.ndim(b) - 1])
    out = triangular_solve_p.bind(a, b, left_side=left_side, lower=lower,
                                  transpose_a=transpose_a, conjugate_a=conjugate_a,
                                  unit_diagonal=unit_diagonal)
    return (out[..., 0] if left_side else out[..., 0, :]) if vector else out


def _triangular_solve_lowering(ctx, a, b, *, left_side, lower, transpose_a, conjugate_a,
                               unit_diagonal):
    how = ("ADJOINT" if conjugate_a else "TRANSPOSE") if transpose_a else "NO_TRANSPOSE"
    if conjugate_a and not transpose_a:             # XLA has no "conjugate only": JAX's way
        a = chlo.conj(a)
    return [hlo.triangular_solve(a, b, left_side, lower, unit_diagonal,
                                 hlo.TransposeAttr.get(how))]


impl_rules[triangular_solve_p] = _triangular_solve_impl
abstract_eval_rules[triangular_solve_p] = _triangular_solve_abstract
batching_rules[triangular_solve_p] = batch_at_front(triangular_solve_p)
mlir.lowering_rules[triangular_solve_p] = _triangular_solve_lowering


lu_p = Primitive("lu")
lu_p.multiple_results = True


def _lu_impl(a):
    *batch, m, n = a.shape
    lu = a.reshape((int(np.prod(batch)), m, n)).copy()
    count = lu.shape[0]
    pivots = np.zeros((count, builtins.min(m, n)), np.int32)
    perm = np.tile(np.arange(m, dtype=np.int32), (count, 1))
    every = np.arange(count)
    for j in range(builtins.min(m, n)):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)    # the largest candidate pivot
        pivots[:, j] = p
        lu[every, j], lu[every, p] = lu[every, p], lu[every, j].copy()         # swap rows
        perm[every, j], perm[every, p] = perm[every, p], perm[every, j].copy()
        pivot = lu[:, j, j, None]
        lu[:, j + 1:, j] = np.where(pivot != 0, lu[:, j + 1:, j] / pivot, lu[:, j + 1:, j])
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    k = builtins.min(m, n)
    return [lu.reshape(a.shape), pivots.reshape((*batch, k)), perm.reshape((*batch, m))]


def _lu_abstract(a):
    _check_float("lu", a)
    _check_matrix("lu", a, square=False)
    *batch, m, n = a.shape
    return [ShapedArray(a.shape, a.dtype), ShapedArray((*batch, builtins.min(m, n)), np.int32),
            ShapedArray((*batch, m), np.int32)]


impl_rules[lu_p] = _lu_impl
abstract_eval_rules[lu_p] = _lu_abstract
batching_rules[lu_p] = batch_at_front(lu_p)


def lu(x):
    """The LU decomposition with partial pivoting of `x`, of shape [..., m, n] (JAX's
    `lax.linalg.lu`): `(lu, pivots, permutation)`, with `x[..., permutation, :] == L @ U`, L
    the unit lower triangle of `lu` and U its upper triangle."""
    return lu_p.bind(x)


def permutation_matrix(permutation, dtype):
    """P with P @ x == x[..., permutation, :]: a one-hot row per entry of `permutation`."""
    m = permutation.shape[-1]
    return jnp.astype(jnp.equal(permutation[..., None], np.arange(m, dtype=np.int32)), dtype)


_lapack.initialize()
for _name, _handler in _lapack.registrations().items():   # jaxlib's LAPACK kernels, for XLA:CPU
    xc.register_custom_call_target(_name, _handler, platform="cpu",
                                   api_version=int(_name.endswith("_ffi")))


def _layouts(layouts) -> ir.ArrayAttr:
    return ir.ArrayAttr.get([ir.DenseIntElementsAttr.get(np.asarray(layout, np.int64),
                                                         type=ir.IndexType.get())
                             for layout in layouts])


def _column_major(ndim):    # LAPACK reads a matrix column by column: the row index varies fastest
    return [ndim - 2, ndim - 1, *range(ndim - 3, -1, -1)]


def _row_major(ndim):
    return list(range(ndim - 1, -1, -1))


def lapack_call(name, operands, avals_in, avals_out, matrix_out, **attributes):
    """A `stablehlo.custom_call` of the LAPACK kernel `name` that jaxlib registers with XLA:CPU,
    through XLA's typed FFI (api_version 4). The operands are (batched) matrices, and so are
    the results where `matrix_out` says True; `attributes` are the kernel's parameters."""
    i32 = ir.IntegerType.get_signless(32)
    rank = builtins.max(a.ndim for a in avals_in)     # a vector operand (QR's taus): row-major
    op = hlo.CustomCallOp(
        [mlir.aval_to_ir_type(a) for a in avals_out], list(operands), name,
        has_side_effect=False, backend_config=ir.DictAttr.get(attributes),
        api_version=ir.IntegerAttr.get(i32, 4),
        operand_layouts=_layouts([_column_major(a.ndim) if a.ndim == rank else
                                  _row_major(a.ndim) for a in avals_in]),
        result_layouts=_layouts([_column_major(a.ndim) if matrix else _row_major(a.ndim)
                                 for a, matrix in zip(avals_out, matrix_out)]))
    op.attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(
        {"num_batch_dims": ir.StringAttr.get(str(rank - 2))})
    return list(op.results)


_LAPACK_PREFIX = {np.dtype("float32"): "s", np.dtype("float64"): "d",
                  np.dtype("complex64"): "c", np.dtype("complex128"): "z"}


def _lapack_name(base, dtype):
    """The name of jaxlib's LAPACK kernel `base` for `dtype`, as `lapack_sgeqrf_ffi`."""
    if dtype not in _LAPACK_PREFIX:
        raise NotImplementedError(f"{base} is lowered to LAPACK, which has no {dtype} kernel")
    return f"lapack_{_LAPACK_PREFIX[dtype]}{base}_ffi"


def pivots_to_permutation(pivots, m):
    """The permutation made by swapping rows j and pivots[..., j], for j = 0, 1, ..., in turn."""
    rows = np.arange(m, dtype=np.int32)
    perm = jnp.broadcast_to(rows, (*pivots.shape[:-1], m))
    for j in range(pivots.shape[-1]):
        at_p = jnp.equal(rows, pivots[..., j:j + 1])
        perm_p = jnp.sum(jnp.where(at_p, perm, 0), axis=-1, keepdims=True, dtype=perm.dtype)
        perm = jnp.where(rows == j, perm_p, jnp.where(at_p, perm[..., j:j + 1], perm))
    return perm


def lu_pivots_to_permutation(pivots, permutation_size):
    """The permutation of `permutation_size` rows that LU's `pivots` make (JAX's
    `lax.linalg.lu_pivots_to_permutation`, a primitive there)."""
    return pivots_to_permutation(jnp.asarray(pivots), permutation_size)


def _lu_lowering(ctx, a):
    aval, = ctx.avals_in
    lu_aval, pivots_aval, perm_aval = ctx.avals_out
    if aval.dtype not in _LAPACK_PREFIX:
        raise NotImplementedError(f"lu is lowered to LAPACK, which has no {aval.dtype} kernel")
    info_aval = ShapedArray(aval.shape[:-2], np.int32)
    lu_, pivots, info = lapack_call(f"lapack_{_LAPACK_PREFIX[aval.dtype]}getrf_ffi", [a],
                                    [aval], [lu_aval, pivots_aval, info_aval],
                                    (True, False, False))
    pivots = hlo.subtract(pivots, mlir.full_like_aval(1, pivots_aval))   # LAPACK counts from 1
    to_perm = trace_to_jaxpr(lambda p: [pivots_to_permutation(p, aval.shape[-2])],
                             [pivots_aval])
    perm, = mlir.call_lowering(ctx, "lu_pivots_to_permutation", to_perm, pivots)
    return [lu_, pivots, perm]


mlir.lowering_rules[lu_p] = _lu_lowering


def _byte(c):
    """A LAPACK character argument, as the FFI kernels take it: an unsigned 8-bit integer."""
    return ir.IntegerAttr.get(ir.IntegerType.get_unsigned(8), ord(c))


def _nan_where_failed(info, info_aval, x, aval):
    """`x` with NaNs in each matrix of the batch whose LAPACK `info` is not 0 (JAX's
    `_replace_not_ok_with_nan`)."""
    ok = mlir.compare(info, mlir.full_like_aval(0, info_aval), "EQ", info_aval)
    ok = hlo.broadcast_in_dim(mlir.aval_to_ir_type(ShapedArray(aval.shape, np.bool_)), ok,
                              mlir.dense_int_array(range(info_aval.ndim)))
    return hlo.select(ok, x, mlir.full_like_aval(np.nan, aval))


def _cholesky_lowering(ctx, a):
    aval, = ctx.avals_in
    info_aval = ShapedArray(aval.shape[:-2], np.int32)
    factor, info = lapack_call(_lapack_name("potrf", aval.dtype), [a], [aval],
                               [aval, info_aval], (True, False), uplo=_byte("L"))
    return [_nan_where_failed(info, info_aval, factor, aval)]


mlir.lowering_rules[cholesky_p] = _cholesky_lowering


def _phi(x):
    """The lower triangle of `x` with its diagonal halved."""
    n = x.shape[-1]
    return jnp.tril(x) / (1 + np.eye(n, dtype=x.dtype))


def _cholesky_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    L = jnp.tril(cholesky_p.bind(x))
    tmp = triangular_solve(L, instantiate_zeros(x_dot), left_side=False, transpose_a=True,
                           conjugate_a=True, lower=True)                # x_dot L^-H
    inner = triangular_solve(L, tmp, left_side=True, lower=True)        # L^-1 x_dot L^-T
    return L, jnp.matmul(L, _phi(inner))


jvp_rules[cholesky_p] = _cholesky_jvp


def _triangular_solve_jvp_a(a_dot, ans, a, b, *, left_side, lower, transpose_a, conjugate_a,
                            unit_diagonal):
    k = 1 if unit_diagonal else 0
    a_dot = -(jnp.tril(a_dot, -k) if lower else jnp.triu(a_dot, k))
    a_dot = jnp.swapaxes(a_dot, -1, -2) if transpose_a else a_dot

    def solve(rhs):
        return triangular_solve_p.bind(a, rhs, left_side=left_side, lower=lower,
                                       transpose_a=transpose_a, conjugate_a=conjugate_a,
                                       unit_diagonal=unit_diagonal)
    m, n = ans.shape[-2:]          # solve first or multiply first: whichever is cheaper
    if left_side:
        return solve(jnp.matmul(a_dot, ans)) if m > n else jnp.matmul(solve(a_dot), ans)
    return solve(jnp.matmul(ans, a_dot)) if m < n else jnp.matmul(ans, solve(a_dot))


def _triangular_solve_transpose(ct, a, b, *, transpose_a, **params):
    assert not is_linear(a) and is_linear(b), "triangular_solve is linear in b only"
    if type(ct) is Zero:
        return [None, Zero(b.aval)]
    return [None, triangular_solve_p.bind(a, ct, transpose_a=not transpose_a, **params)]


defjvp2(triangular_solve_p, _triangular_solve_jvp_a,
        lambda b_dot, ans, a, b, **params: triangular_solve_p.bind(a, b_dot, **params))
transpose_rules[triangular_solve_p] = _triangular_solve_transpose


def _lu_jvp(primals, tangents):
    (a,), (a_dot,) = primals, tangents
    lu_, pivots, permutation = lu_p.bind(a)
    *batch, m, n = a.shape
    k = builtins.min(m, n)
    l = jnp.tril(lu_[..., :, :k], -1)             # L, m x m: unit diagonal, zero columns added
    if m > k:
        l = jnp.concatenate([l, jnp.zeros((*batch, m, m - k), a.dtype)], axis=-1)
    l = l + np.eye(m, dtype=a.dtype)
    u = jnp.triu(lu_[..., :k, :])                 # U, n x n: an identity block added below
    if n > k:
        u = jnp.concatenate([u, jnp.zeros((*batch, n - k, n), a.dtype)], axis=-2)
        u = u + np.diag(np.arange(n) >= k).astype(a.dtype)
    pa_dot = jnp.matmul(permutation_matrix(permutation, a.dtype), instantiate_zeros(a_dot))
    la = triangular_solve(l, pa_dot, left_side=True, lower=True, unit_diagonal=True)
    lau = triangular_solve(u, la, left_side=False, lower=False)       # L^-1 P a_dot U^-1
    lu_dot = jnp.matmul(l, jnp.tril(lau, -1)) + jnp.matmul(jnp.triu(lau), u)
    return ([lu_, pivots, permutation],
            [lu_dot, Zero.from_primal_value(pivots), Zero.from_primal_value(permutation)])


jvp_rules[lu_p] = _lu_jvp


def _inexact(name, *arrays):
    jnp.check_arraylike(name, *arrays)
    return jnp.promote_dtypes(*arrays, inexact=True)


def _check_square(message, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(message.format(a.shape))


def cholesky(a, *, upper=False, symmetrize_input=True):
    """The Cholesky factor of a (batched) positive-definite matrix: L with a = L @ L.T (or U
    with a = U.T @ U when `upper`); NaNs where `a` is not positive definite."""
    return _cholesky(a, upper, symmetrize_input)


@jnp.jit_in_jaxprs("cholesky", static_argnums=(1, 2))
def _cholesky(a, upper, symmetrize_input):
    a, = _inexact("jnp.linalg.cholesky", a)
    L = lax_cholesky(a, symmetrize_input=symmetrize_input)
    return jnp.swapaxes(L, -1, -2) if upper else L


def _lu_solve(a, b):
    """x with a @ x = b, for b of shape [..., m, k]: factor a = P^T L U, then two
    triangular solves."""
    lu_, _, permutation = lu_p.bind(a)
    x = jnp.matmul(permutation_matrix(permutation, a.dtype), b)
    x = triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True)
    return triangular_solve(lu_, x, left_side=True, lower=False)


@jnp.jit_in_jaxprs("solve")
def solve(a, b):
    """x with a @ x = b: b is a vector of shape [m] or a (batched) matrix [..., m, k]."""
    a, b = _inexact("jnp.linalg.solve", a, b)
    if a.ndim < 2:
        raise ValueError(f"left hand array must be at least two dimensional; got {a.shape=}")
    if (b.ndim > 1 and a.ndim == b.ndim + 1 and a.shape[-1] == b.shape[-1]
            and a.shape[-1] != b.shape[-2]):
        raise ValueError(f"Invalid shapes for solve: {a.shape}, {b.shape}. Prior to JAX v0.5.0,"
                         " this would have been treated as a batched 1-dimensional solve. To "
                         "recover this behavior, use solve(a, b[..., None]).squeeze(-1).")
    _check_square("solve requires a (batched) square matrix a, got shape {}", a)
    vector = b.ndim == 1
    if vector:
        b = b[:, None]
    if b.shape[-2] != a.shape[-1]:
        raise ValueError(f"solve: a of shape {a.shape} and b of shape "
                         f"{b.shape[:-1] if vector else b.shape} do not fit: b needs "
                         f"{a.shape[-1]} rows")
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    x = _lu_solve(a, b)
    return x[..., 0] if vector else x


@jnp.jit_in_jaxprs("inv")
def inv(a):
    """The inverse of a (batched) square matrix, as solve(a, I)."""
    jnp.check_arraylike("jnp.linalg.inv", a)
    a = jnp.asarray(a)
    _check_square("Argument to inv must have shape [..., n, n], got {}.", a)
    eye = jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    return solve(a, eye)


class SlogdetResult(NamedTuple):
    sign: object
    logabsdet: object


def slogdet(a, *, method=None):
    """The sign and the log of the absolute value of the determinant of a (batched) square
    matrix: `det(a) == sign * exp(logabsdet)`, without overflow."""
    if method == "qr":                     # geqrf: a later section of this appendix
        return SlogdetResult(*_slogdet_qr(a))
    if method not in (None, "lu"):
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' "
                         "(`None`), and 'qr'.")
    return SlogdetResult(*_slogdet(a))


@jnp.jit_in_jaxprs("slogdet")
def _slogdet_qr(a):
    """slogdet from QR: |det| from R's diagonal; each reflection made (tau != 0) flips the
    sign, as a Householder reflector has determinant -1."""
    a, = _inexact("jnp.linalg.slogdet", a)
    _check_square("Argument to slogdet() must have shape [..., n, n], got {}", a)
    if dtype_kind(a.dtype) == "c":
        raise NotImplementedError("slogdet method='qr' not implemented for complex inputs")
    r, taus = geqrf(a)
    diag = jnp.diagonal(r, axis1=-2, axis2=-1)
    flips = jnp.prod(jnp.where(taus[..., :a.shape[-1] - 1] != 0, -1, 1), axis=-1)
    return (jnp.prod(jnp.sign(diag), axis=-1) * flips.astype(diag.dtype),
            jnp.sum(jnp.log(jnp.abs(diag)), axis=-1))


def _det_2x2(a):
    return a[..., 0, 0] * a[..., 1, 1] - a[..., 0, 1] * a[..., 1, 0]


def _det_3x3(a):
    return (a[..., 0, 0] * a[..., 1, 1] * a[..., 2, 2]
            + a[..., 0, 1] * a[..., 1, 2] * a[..., 2, 0]
            + a[..., 0, 2] * a[..., 1, 0] * a[..., 2, 1]
            - a[..., 0, 2] * a[..., 1, 1] * a[..., 2, 0]
            - a[..., 0, 0] * a[..., 1, 2] * a[..., 2, 1]
            - a[..., 0, 1] * a[..., 1, 0] * a[..., 2, 2])


@jnp.jit_in_jaxprs("slogdet")
def _slogdet(a):
    a, = _inexact("jnp.linalg.slogdet", a)
    _check_square("Argument to slogdet() must have shape [..., n, n], got {}", a)
    n = a.shape[-1]
    if n == 0:                  # the empty product: a 0x0 matrix has determinant 1, as in JAX
        return jnp.ones(a.shape[:-2], a.dtype), jnp.zeros(a.shape[:-2], a.dtype)
    if n <= 2:                  # small matrices: the formula, no factorization
        det = a[..., 0, 0] if n == 1 else _det_2x2(a)
        return jnp.sign(det), jnp.log(jnp.abs(det))
    lu_, pivots, _ = lu_p.bind(a)
    diag = jnp.diagonal(lu_, axis1=-2, axis2=-1)
    is_zero = jnp.any(diag == 0, axis=-1)
    swaps = jnp.sum(pivots != np.arange(n, dtype=np.int32), axis=-1)
    parity = swaps + jnp.sum(diag < 0, axis=-1)
    sign = jnp.where(is_zero, 0.0, jnp.astype(1 - 2 * (parity % 2), a.dtype))
    logdet = jnp.where(is_zero, -np.inf, jnp.sum(jnp.log(jnp.abs(diag)), axis=-1))
    return sign, logdet


@jnp.jit_in_jaxprs("det")
def det(a):
    """The determinant of a (batched) square matrix."""
    a, = _inexact("jnp.linalg.det", a)
    _check_square("Argument to _det() must have shape [..., n, n], got {}", a)
    if a.shape[-1] == 2:
        return _det_2x2(a)
    if a.shape[-1] == 3:
        return _det_3x3(a)
    sign, logdet = _slogdet(a)
    return sign * jnp.exp(logdet)


def norm(x, ord=None, axis=None, keepdims=False):
    """A vector norm (one axis) or a matrix norm (two axes) of `x`."""
    if isinstance(axis, list):
        axis = tuple(axis)
    return _norm(x, ord, axis, keepdims)


def _abs2(x):
    """|x|^2 elementwise: x * x, or the real part of x * conj(x) for complex x."""
    return jnp.real(x * jnp.conj(x)) if dtype_kind(x.dtype) == "c" else x * x


def _vector_norm(x, ord, axis, keepdims):
    if ord is None or ord == 2:
        return jnp.sqrt(jnp.sum(_abs2(x), axis=axis, keepdims=keepdims))
    if ord == np.inf:
        return jnp.max(jnp.abs(x), axis=axis, keepdims=keepdims, initial=0)
    if ord == -np.inf:
        return jnp.min(jnp.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return jnp.sum(x != 0, dtype=x.dtype, axis=axis, keepdims=keepdims)
    if ord == 1:
        return jnp.sum(jnp.abs(x), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid order '{ord}' for vector norm.")
    order = np.asarray(ord, x.dtype)
    total = jnp.sum(jnp.abs(x) ** order, axis=axis, keepdims=keepdims)
    return jnp.power(total, np.asarray(1 / order, x.dtype))


@jnp.jit_in_jaxprs("norm", static_argnums=(1, 2, 3))
def _norm(x, ord, axis, keepdims):
    x, = _inexact("jnp.linalg.norm", x)
    if axis is None:
        if ord is None:           # any rank: the 2-norm of all the elements
            return jnp.sqrt(jnp.sum(_abs2(x), keepdims=keepdims))
        axis = tuple(range(x.ndim))
    axis = tuple(jnp.canonical_axis(a, x.ndim) for a in (axis if isinstance(axis, tuple)
                                                           else (axis,)))
    if len(axis) == 1:
        return _vector_norm(x, ord, axis, keepdims)
    if len(axis) != 2:
        raise ValueError(f"Improper number of axes for norm: {axis=}. Pass one axis to compute a "
                         "vector-norm, or two axes to compute a matrix-norm.")
    row, col = axis
    if ord is None or ord in ("f", "fro"):
        return jnp.sqrt(jnp.sum(_abs2(x), axis=axis, keepdims=keepdims))
    if ord in (1, -1):           # the largest (smallest) column sum
        if not keepdims and col > row:
            col -= 1
        sums = jnp.sum(jnp.abs(x), axis=row, keepdims=keepdims)
        return (jnp.max(sums, axis=col, keepdims=keepdims, initial=0) if ord == 1
                else jnp.min(sums, axis=col, keepdims=keepdims))
    if ord in (np.inf, -np.inf):  # the largest (smallest) row sum
        if not keepdims and row > col:
            row -= 1
        sums = jnp.sum(jnp.abs(x), axis=col, keepdims=keepdims)
        return (jnp.max(sums, axis=row, keepdims=keepdims, initial=0) if ord == np.inf
                else jnp.min(sums, axis=row, keepdims=keepdims))
    if ord in ("nuc", 2, -2):     # the singular values: defined below, found when called
        rest = [i for i in range(x.ndim) if i not in axis]
        s = svd(lax.transpose(x, (*rest, *axis)), compute_uv=False)
        y = (jnp.max(s, axis=-1, initial=0) if ord == 2 else
             jnp.min(s, axis=-1) if ord == -2 else jnp.sum(s, axis=-1))
        return jnp.expand_dims(y, axis) if keepdims else y
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


class EighImplementation(enum.Enum):
    """Which algorithm computes `eigh` (JAX's `lax.linalg.EighImplementation`); on the CPU only
    `None` or `QR`, both LAPACK's `syevd`."""
    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


eigh_p = Primitive("eigh")
eigh_p.multiple_results = True


def _eigh_impl(a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    w, v = np.linalg.eigh(a, UPLO="L" if lower else "U")
    return [v.astype(a.dtype), w.astype(lax.real_dtype(a.dtype))]


def _eigh_abstract(a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    _check_float("eigh", a)
    _check_matrix("eigh", a)
    if not (subset_by_index is None or tuple(subset_by_index) == (0, a.shape[-1])):
        raise NotImplementedError("subset_by_index not supported on CPU and GPU")   # JAX's
    if algorithm is EighImplementation.QDWH:
        raise NotImplementedError("QDWH implementation is only supported on TPU")
    if algorithm is EighImplementation.JACOBI:
        raise NotImplementedError("Jacobi implementation is not supported on CPU")
    return [ShapedArray(a.shape, a.dtype), ShapedArray(a.shape[:-1], lax.real_dtype(a.dtype))]


def _eigh_lowering(ctx, a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    aval, = ctx.avals_in
    v_aval, w_aval = ctx.avals_out
    byte = ir.IntegerType.get_unsigned(8)
    info_aval = ShapedArray(aval.shape[:-2], np.int32)
    base = "heevd" if dtype_kind(aval.dtype) == "c" else "syevd"    # Hermitian or symmetric
    v, w, info = lapack_call(_lapack_name(base, aval.dtype), [a], [aval],
                             [v_aval, w_aval, info_aval], (True, False, False),
                             mode=ir.IntegerAttr.get(byte, ord("V")),
                             uplo=ir.IntegerAttr.get(byte, ord("L" if lower else "U")))
    return [_nan_where_failed(info, info_aval, v, v_aval),      # as JAX's, where syevd fails
            _nan_where_failed(info, info_aval, w, w_aval)]


def _symmetrize(x):
    return (x + _H(x)) / 2


def _eigh_jvp(primals, tangents, **params):
    (a,), (a_dot,) = primals, tangents
    v, w = eigh_p.bind(_symmetrize(a), **params)
    eye = np.eye(a.shape[-1], dtype=a.dtype)
    wa = w.astype(a.dtype)
    F = 1 / (eye + wa[..., None, :] - wa[..., :, None]) - eye  # 1 / (w_j - w_i), 0 on the diagonal
    omega = jnp.matmul(jnp.matmul(_H(v), instantiate_zeros(a_dot)), v)
    w_dot = jnp.real(jnp.diagonal(omega, axis1=-2, axis2=-1))
    return [v, w], [jnp.matmul(v, F * omega), w_dot]


impl_rules[eigh_p] = _eigh_impl
abstract_eval_rules[eigh_p] = _eigh_abstract
jvp_rules[eigh_p] = _eigh_jvp
batching_rules[eigh_p] = batch_at_front(eigh_p)
mlir.lowering_rules[eigh_p] = _eigh_lowering


def lax_eigh(x, *, lower=True, symmetrize_input=True, sort_eigenvalues=True,
             subset_by_index=None, implementation=None):
    """`(v, w)`: the eigenvectors (as columns) and ascending eigenvalues of a symmetric `x`
    (JAX's `lax.linalg.eigh`)."""
    return tuple(eigh_p.bind(_symmetrize(x) if symmetrize_input else x, lower=lower,
                             sort_eigenvalues=sort_eigenvalues, subset_by_index=subset_by_index,
                             algorithm=implementation))


class EighResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


def eigh(a, UPLO=None, symmetrize_input=True):
    """The eigenvalues (ascending) and eigenvectors of a (batched) symmetric matrix."""
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"UPLO must be one of None, 'L', or 'U', got {UPLO}")
    return EighResult(*_eigh(a, UPLO != "U", symmetrize_input))


@jnp.jit_in_jaxprs("eigh", static_argnums=(1, 2))
def _eigh(a, lower, symmetrize_input):
    a, = _inexact("jnp.linalg.eigh", a)
    v, w = lax_eigh(a, lower=lower, symmetrize_input=symmetrize_input)
    return w, v


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):
    """The eigenvalues (ascending) of a (batched) symmetric matrix."""
    jnp.check_arraylike("jnp.linalg.eigvalsh", a)
    return _eigvalsh(a, UPLO, symmetrize_input)


@jnp.jit_in_jaxprs("eigvalsh", static_argnums=(1, 2))
def _eigvalsh(a, UPLO, symmetrize_input):
    return eigh(a, UPLO, symmetrize_input).eigenvalues


def _lower_fun(ctx, fun, *args):
    """Lower `fun` (a function of our primitives) inline: trace it on the rule's input types,
    then emit its operations (JAX's `mlir.lower_fun`)."""
    closed = trace_to_jaxpr(lambda *xs: list(fun(*xs)), list(ctx.avals_in))
    consts = [mlir.ir_constant(np.asarray(c)) for c in closed.consts]
    return mlir.jaxpr_subcomp(ctx.module_context, closed.jaxpr, consts, list(args))


def _matrices(x):
    """`x` of shape [..., m, n] as a list of its matrices, and a function to stack them back."""
    flat = x.reshape((-1,) + x.shape[-2:])
    return list(flat), lambda ms, shape, dtype: np.asarray(ms, dtype).reshape(shape)


geqrf_p = Primitive("geqrf")
geqrf_p.multiple_results = True
householder_product_p = Primitive("householder_product")


def _geqrf_impl(a):
    *batch, m, n = a.shape
    raws = [np.linalg.qr(x, mode="raw") for x in a.reshape((-1, m, n))]
    return [np.asarray([h.T for h, _ in raws], a.dtype).reshape(a.shape),
            np.asarray([t for _, t in raws], a.dtype).reshape((*batch, builtins.min(m, n)))]


def _geqrf_abstract(a):
    _check_float("geqrf", a)
    _check_rank("geqrf", a)
    _check_matrix("geqrf", a, square=False)
    *batch, m, n = a.shape
    return [ShapedArray(a.shape, a.dtype), ShapedArray((*batch, builtins.min(m, n)), a.dtype)]


def _geqrf_lowering(ctx, a):
    aval, = ctx.avals_in
    return lapack_call(_lapack_name("geqrf", aval.dtype), [a], [aval], list(ctx.avals_out),
                       (True, False))


def _householder_product_impl(a, taus):
    m, n = a.shape[-2:]
    q = np.broadcast_to(np.eye(m, n, dtype=a.dtype), a.shape).copy()
    for i in reversed(range(taus.shape[-1])):      # Q = H_1 H_2 ... H_k I: H_k first
        v = a[..., :, i].copy()
        v[..., :i], v[..., i] = 0, 1
        vq = np.einsum("...i,...ij->...j", v.conj(), q)
        q -= taus[..., i, None, None] * v[..., :, None] * vq[..., None, :]
    return q


def _householder_product_abstract(a, taus):
    _check_float("householder_product", a, taus)
    _check_rank("householder_product", a)
    _check_matrix("householder_product", a, square=False)
    m, n = a.shape[-2:]
    if m < n:
        raise ValueError("The first argument to householder_product must have at least as many "
                         f"rows as columns, got shape {a.shape}")
    if taus.ndim != a.ndim - 1 or taus.shape[:-1] != a.shape[:-2] or taus.shape[-1] > n:
        raise ValueError(f"householder_product takes taus of shape [..., k], k <= {n}, with the "
                         f"batch dimensions of a; got {a.str_short()} and {taus.str_short()}")
    return ShapedArray(a.shape, a.dtype)


def _householder_product_lowering(ctx, a, taus):
    a_aval, taus_aval = ctx.avals_in
    base = "ungqr" if dtype_kind(a_aval.dtype) == "c" else "orgqr"
    return lapack_call(_lapack_name(base, a_aval.dtype), [a, taus], [a_aval, taus_aval],
                       list(ctx.avals_out), (True,))


impl_rules[geqrf_p] = _geqrf_impl
abstract_eval_rules[geqrf_p] = _geqrf_abstract
batching_rules[geqrf_p] = batch_at_front(geqrf_p)
mlir.lowering_rules[geqrf_p] = _geqrf_lowering
impl_rules[householder_product_p] = _householder_product_impl
abstract_eval_rules[householder_product_p] = _householder_product_abstract
batching_rules[householder_product_p] = batch_at_front(householder_product_p)
mlir.lowering_rules[householder_product_p] = _householder_product_lowering


def geqrf(a):
    """`(a, taus)`: R on and above the diagonal of `a`, Householder reflectors below it and in
    `taus` (JAX's `lax.linalg.geqrf`)."""
    return tuple(geqrf_p.bind(a))


def householder_product(a, taus):
    """The product of the Householder reflectors stored in `a` and `taus`: the first columns of
    Q (JAX's `lax.linalg.householder_product`)."""
    return householder_product_p.bind(a, taus)


qr_p = Primitive("qr")
qr_p.multiple_results = True


def _qr_shapes(shape, full_matrices):
    *batch, m, n = shape
    k = m if full_matrices else builtins.min(m, n)
    return (*batch, m, k), (*batch, k, n)


def _qr_impl(a, *, pivoting, full_matrices, use_magma):
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return [q.astype(a.dtype), r.astype(a.dtype)]


def _qr_abstract(a, *, pivoting, full_matrices, use_magma):
    if pivoting:
        raise NotImplementedError("qr(pivoting=True) needs LAPACK's geqp3, which autodidax does "
                                  "not build")
    _check_float("qr", a)
    _check_rank("qr", a)
    _check_matrix("qr", a, square=False)
    return [ShapedArray(shape, a.dtype) for shape in _qr_shapes(a.shape, full_matrices)]


def _qr_from_reflectors(a, *, full_matrices):
    """QR as two LAPACK steps, geqrf then householder_product (JAX's `_qr_lowering`)."""
    *batch, m, n = a.shape
    if m == 0 or n == 0:
        q_shape, r_shape = _qr_shapes(a.shape, full_matrices)
        return [jnp.broadcast_to(jnp.eye(*q_shape[-2:], dtype=a.dtype), q_shape),
                jnp.zeros(r_shape, a.dtype)]
    r, taus = geqrf_p.bind(a)
    if m < n:
        q = householder_product_p.bind(r[..., :m, :m], taus)
    elif full_matrices:
        pads = [(0, 0, 0)] * (len(batch) + 1) + [(0, m - n, 0)]
        q = householder_product_p.bind(lax.pad(r, np.zeros((), a.dtype), pads), taus)
    else:
        q = householder_product_p.bind(r, taus)
        r = r[..., :n, :n]
    return [q, jnp.triu(r)]


impl_rules[qr_p] = _qr_impl
abstract_eval_rules[qr_p] = _qr_abstract
batching_rules[qr_p] = batch_at_front(qr_p)
mlir.lowering_rules[qr_p] = lambda ctx, a, *, full_matrices, **_: _lower_fun(
    ctx, lambda x: _qr_from_reflectors(x, full_matrices=full_matrices), a)


def lax_qr(x, *, pivoting=False, full_matrices=True, use_magma=None):
    """`(q, r)` with x = q @ r (JAX's `lax.linalg.qr`)."""
    return tuple(qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices,
                           use_magma=use_magma))


def _thin_qr_jvp(q, r, a_dot):
    a_dot_rinv = triangular_solve(r, a_dot, left_side=False, lower=False)    # a_dot R^-1
    x = jnp.matmul(_H(q), a_dot_rinv)
    below = jnp.tril(x, -1)
    omega = below - _H(below)                      # antisymmetric (anti-Hermitian)
    if dtype_kind(x.dtype) == "c":                 # its imaginary diagonal, for complex
        omega = omega + np.eye(r.shape[-1], dtype=x.dtype) * (x - jnp.real(x).astype(x.dtype))
    return jnp.matmul(q, omega - x) + a_dot_rinv, jnp.matmul(x - omega, r)


def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
    (a,), (a_dot,) = primals, tangents
    q, r = qr_p.bind(a, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)
    a_dot = instantiate_zeros(a_dot)
    *batch, m, n = a.shape
    if m < n:                                      # wide: [A1 A2], A1 square
        q_dot, r1_dot = _thin_qr_jvp(q, r[..., :, :m], a_dot[..., :, :m])
        r2_dot = jnp.matmul(_H(q_dot), a[..., :, m:]) + jnp.matmul(_H(q), a_dot[..., :, m:])
        return [q, r], [q_dot, jnp.concatenate([r1_dot, r2_dot], axis=-1)]
    q_mn = q[..., :, :n] if full_matrices else q
    q_dot, r_dot = _thin_qr_jvp(q_mn, r[..., :n, :n] if full_matrices else r, a_dot)
    if full_matrices and m > n:                    # the m - n columns outside A's span
        q_nn, q_pn, q_mp = q_mn[..., :n, :], q_mn[..., n:, :], q[..., :, n:]
        z_pn_h = _lu_solve(_H(q_nn - np.eye(n, dtype=a.dtype)), _H(q_pn))
        z_pn = _H(z_pn_h)
        q_dot_mp = (jnp.matmul(q_dot, z_pn_h) - jnp.matmul(
            q_mn + jnp.matmul(q_mp, z_pn),
            _H(q_dot[..., n:, :] - jnp.matmul(z_pn, q_dot[..., :n, :]))))
        q_dot = jnp.concatenate([q_dot, q_dot_mp], axis=-1)
        r_dot = jnp.concatenate([r_dot, jnp.zeros((*batch, m - n, n), a.dtype)], axis=-2)
    return [q, r], [q_dot, r_dot]


jvp_rules[qr_p] = _qr_jvp


class SvdAlgorithm(enum.Enum):
    """Which SVD algorithm to use (JAX's `lax.linalg.SvdAlgorithm`)."""
    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


svd_p = Primitive("svd")
svd_p.multiple_results = True


def _svd_shapes(shape, full_matrices, compute_uv):
    *batch, m, n = shape
    k = builtins.min(m, n)
    if not compute_uv:
        return [(*batch, k)]
    return [(*batch, k), (*batch, m, m if full_matrices else k),
            (*batch, n if full_matrices else k, n)]


def _svd_impl(a, *, full_matrices, compute_uv, subset_by_index, algorithm):
    real = lax.real_dtype(a.dtype)
    if not compute_uv:
        return [np.linalg.svd(a, compute_uv=False).astype(real)]
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return [s.astype(real), u.astype(a.dtype), vh.astype(a.dtype)]


def _svd_abstract(a, *, full_matrices, compute_uv, subset_by_index, algorithm):
    _check_float("svd", a)
    _check_rank("svd", a)
    _check_matrix("svd", a, square=False)
    if subset_by_index not in (None, (0, builtins.min(a.shape[-2:]))):
        raise NotImplementedError("subset_by_index not implemented for CPU and GPU")
    if algorithm in (SvdAlgorithm.JACOBI, SvdAlgorithm.POLAR):
        raise NotImplementedError("The SVD Jacobi and Polar algorithms are not implemented on "
                                  "CPU.")
    real = lax.real_dtype(a.dtype)
    shapes = _svd_shapes(a.shape, full_matrices, compute_uv)
    return [ShapedArray(shapes[0], real)] + [ShapedArray(s, a.dtype) for s in shapes[1:]]


def _empty_svd(a, *, full_matrices, compute_uv):
    """The SVD of a matrix with no rows or no columns (JAX's `_empty_svd`)."""
    *batch, m, n = a.shape
    s = jnp.zeros((*batch, 0), lax.real_dtype(a.dtype))
    if not compute_uv:
        return [s]
    if full_matrices:
        size = builtins.max(m, n)
        u = jnp.broadcast_to(jnp.eye(size, dtype=a.dtype), (*batch, size, size))
    else:
        u = jnp.zeros((*batch, m, n), a.dtype)
    v = jnp.zeros((*batch, 0, 0), a.dtype)
    return [s, v, u] if m < n else [s, u, v]


def _svd_lowering(ctx, a, *, full_matrices, compute_uv, subset_by_index, algorithm):
    aval, = ctx.avals_in
    *batch, m, n = aval.shape
    if m == 0 or n == 0:
        return _lower_fun(ctx, lambda x: _empty_svd(x, full_matrices=full_matrices,
                                                    compute_uv=compute_uv), a)
    base = "gesvd" if algorithm == SvdAlgorithm.QR else "gesdd"
    _, u_shape, vt_shape = _svd_shapes(aval.shape, full_matrices, True)
    s_aval = ctx.avals_out[0]
    u_aval, vt_aval = ShapedArray(u_shape, aval.dtype), ShapedArray(vt_shape, aval.dtype)
    info_aval = ShapedArray(tuple(batch), np.int32)
    mode = "N" if not compute_uv else "A" if full_matrices else "S"
    _, s, u, vt, info = lapack_call(
        _lapack_name(base, aval.dtype), [a], [aval], [aval, s_aval, u_aval, vt_aval, info_aval],
        (True, False, True, True, False), mode=_byte(mode))
    outs = [(s, s_aval)] + ([(u, u_aval), (vt, vt_aval)] if compute_uv else [])
    return [_nan_where_failed(info, info_aval, x, x_aval) for x, x_aval in outs]


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
    (a,), (a_dot,) = primals, tangents
    s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True,
                          subset_by_index=subset_by_index, algorithm=algorithm)
    m, n = a.shape[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError(
            "Singular value decomposition JVP not implemented for full matrices")
    a_dot = instantiate_zeros(a_dot)
    ut, v = _H(u), _H(vt)
    s_row = s[..., None, :]
    ds_mat = jnp.matmul(jnp.matmul(ut, a_dot), v)
    s_dot = jnp.diagonal(jnp.real(ds_mat), axis1=-2, axis2=-1)
    if not compute_uv:
        return [s], [s_dot]
    s_col = jnp.swapaxes(s_row, -1, -2)
    eye = np.eye(s.shape[-1], dtype=s.dtype)
    F = 1 / ((s_row + s_col) * (s_row - s_col) + eye) - eye   # 1 / (s_j^2 - s_i^2)
    s_row_c = s_row.astype(a.dtype)
    dss, sds = s_row_c * ds_mat, jnp.swapaxes(s_row_c, -1, -2) * ds_mat
    s_zeros = (s == 0).astype(s.dtype)
    s_inv = 1 / (s + s_zeros) - s_zeros
    diag_part = 0.5 * (ds_mat - _H(ds_mat)) * (s_inv[..., None] * eye).astype(a.dtype)
    u_dot = jnp.matmul(u, F.astype(a.dtype) * (dss + _H(dss)) + diag_part)
    v_dot = jnp.matmul(v, F.astype(a.dtype) * (sds + _H(sds)))
    if m > n:
        dav = jnp.matmul(a_dot, v)
        u_dot = u_dot + (dav - jnp.matmul(u, jnp.matmul(ut, dav))) / s_row_c
    if n > m:
        dahu = jnp.matmul(_H(a_dot), u)
        v_dot = v_dot + (dahu - jnp.matmul(v, jnp.matmul(vt, dahu))) / s_row_c
    return [s, u, vt], [s_dot, u_dot, _H(v_dot)]


impl_rules[svd_p] = _svd_impl
abstract_eval_rules[svd_p] = _svd_abstract
jvp_rules[svd_p] = _svd_jvp
batching_rules[svd_p] = batch_at_front(svd_p)
mlir.lowering_rules[svd_p] = _svd_lowering


def lax_svd(x, *, full_matrices=True, compute_uv=True, subset_by_index=None, algorithm=None):
    """`(u, s, vh)` with x = u @ diag(s) @ vh, or `s` alone (JAX's `lax.linalg.svd`)."""
    outs = svd_p.bind(x, full_matrices=full_matrices, compute_uv=compute_uv,
                      subset_by_index=subset_by_index, algorithm=algorithm)
    return (outs[1], outs[0], outs[2]) if compute_uv else outs[0]


class EigImplementation(enum.Enum):
    """Which library computes `eig` (JAX's `lax.linalg.EigImplementation`)."""
    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


eig_p = Primitive("eig")
eig_p.multiple_results = True


def _normalize_like_geev(v):
    """Columns of unit length whose largest component is real, as LAPACK's geev returns them."""
    v = v / np.linalg.norm(v, axis=-2, keepdims=True)
    big = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], axis=-2)
    return v * (np.conj(big) / np.abs(big))


def _eig_impl(a, *, compute_left_eigenvectors, compute_right_eigenvectors,
              enable_eigvec_derivs, implementation):
    dtype = lax.complex_dtype(a.dtype)
    w, vr = np.linalg.eig(a)
    outs = [w.astype(dtype)]
    if compute_left_eigenvectors:        # the rows of V^-1, conjugated: u_j^H A = w_j u_j^H
        vl = np.conj(np.swapaxes(np.linalg.inv(vr), -1, -2))
        outs.append(_normalize_like_geev(vl).astype(dtype))
    if compute_right_eigenvectors:
        outs.append(vr.astype(dtype))
    return outs


def _eig_abstract(a, *, compute_left_eigenvectors, compute_right_eigenvectors,
                  enable_eigvec_derivs, implementation):
    _check_float("eig", a)
    _check_rank("eig", a)
    _check_matrix("eig", a)
    dtype = lax.complex_dtype(a.dtype)
    count = compute_left_eigenvectors + compute_right_eigenvectors
    return [ShapedArray(a.shape[:-1], dtype)] + [ShapedArray(a.shape, dtype)] * count


def _eig_lowering(ctx, a, *, compute_left_eigenvectors, compute_right_eigenvectors,
                  enable_eigvec_derivs, implementation):
    if implementation not in (None, EigImplementation.LAPACK):
        raise ValueError("Only the lapack implementation is supported on CPU.")
    aval, = ctx.avals_in
    real = dtype_kind(aval.dtype) != "c"
    w_aval = ShapedArray(aval.shape[:-1], aval.dtype)
    v_aval = ShapedArray(aval.shape, lax.complex_dtype(aval.dtype))
    info_aval = ShapedArray(aval.shape[:-2], np.int32)
    avals_out = [w_aval] * (2 if real else 1) + [v_aval, v_aval, info_aval]
    *w, vl, vr, info = lapack_call(
        _lapack_name("geev", aval.dtype), [a], [aval], avals_out,
        [False] * (len(avals_out) - 3) + [True, True, False],
        compute_left=_byte("V" if compute_left_eigenvectors else "N"),
        compute_right=_byte("V" if compute_right_eigenvectors else "N"))
    w = hlo.complex(*w) if real else w[0]
    outs = [w] + [vl] * compute_left_eigenvectors + [vr] * compute_right_eigenvectors
    return [_nan_where_failed(info, info_aval, x, x_aval)
            for x, x_aval in zip(outs, ctx.avals_out)]


def _eig_vectors_jvp(w, v, a_dot):
    """The tangents of the eigenvalues and of the (geev-normalized) eigenvectors `v`."""
    n = w.shape[-1]
    eye = np.eye(n, dtype=w.dtype)
    F = 1 / (eye + w[..., None, :] - w[..., :, None]) - eye    # 1 / (w_j - w_i), 0 on the diagonal
    P = jnp.matmul(_lu_solve(v, a_dot), v)                      # V^-1 a_dot V
    w_dot = jnp.diagonal(P, axis1=-2, axis2=-1)
    U = jnp.matmul(v, F * P)
    k = jnp.argmax(jnp.abs(v), axis=-2)                        # each column's largest entry
    mask = (np.arange(n, dtype=np.int32)[:, None] == k[..., None, :]).astype(v.dtype)
    c = lax.complex(-jnp.real(jnp.sum(jnp.conj(v) * U, axis=-2)),
                    -jnp.imag(jnp.sum(mask * U, axis=-2)) / jnp.real(jnp.sum(mask * v, axis=-2)))
    return w_dot, U + v * c[..., None, :]


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors,
             enable_eigvec_derivs, implementation):
    (a,), (a_dot,) = primals, tangents
    vectors = compute_left_eigenvectors or compute_right_eigenvectors
    if vectors and not enable_eigvec_derivs:
        raise NotImplementedError(
            'Derivatives of non-symmetric eigenvectors are only valid under assumptions on the '
            'input that JAX cannot check (see the enable_eigvec_derivs argument to '
            'jax.lax.linalg.eig). Pass enable_eigvec_derivs=True to jax.lax.linalg.eig to opt '
            'in. See https://github.com/jax-ml/jax/issues/2748 for discussion.')
    outs = eig_p.bind(a, compute_left_eigenvectors=compute_left_eigenvectors,
                      compute_right_eigenvectors=True, enable_eigvec_derivs=enable_eigvec_derivs,
                      implementation=implementation)
    w, vr = outs[0], outs[-1]
    a_dot = instantiate_zeros(a_dot).astype(vr.dtype)
    if not vectors:
        return [w], [jnp.sum(_lu_solve(vr, a_dot) * jnp.swapaxes(vr, -1, -2), axis=-1)]
    w_dot, vr_dot = _eig_vectors_jvp(w, vr, a_dot)
    primals_out, tangents_out = [w], [w_dot]
    if compute_left_eigenvectors:
        primals_out.append(outs[1])
        tangents_out.append(_eig_vectors_jvp(jnp.conj(w), outs[1], _H(a_dot))[1])
    if compute_right_eigenvectors:
        primals_out.append(vr)
        tangents_out.append(vr_dot)
    return primals_out, tangents_out


impl_rules[eig_p] = _eig_impl
abstract_eval_rules[eig_p] = _eig_abstract
jvp_rules[eig_p] = _eig_jvp
batching_rules[eig_p] = batch_at_front(eig_p)
mlir.lowering_rules[eig_p] = _eig_lowering


def lax_eig(x, *, compute_left_eigenvectors=True, compute_right_eigenvectors=True,
             enable_eigvec_derivs=False, implementation=None, use_magma=None):
    """`[w, vl, vr]`, the eigenvalues and the requested eigenvectors of a general square
    matrix (JAX's `lax.linalg.eig`); `use_magma` only chooses a GPU library."""
    return eig_p.bind(x, compute_left_eigenvectors=compute_left_eigenvectors,
                      compute_right_eigenvectors=compute_right_eigenvectors,
                      enable_eigvec_derivs=enable_eigvec_derivs, implementation=implementation)


class QRResult(NamedTuple):
    Q: object
    R: object


class SVDResult(NamedTuple):
    U: object
    S: object
    Vh: object


class EigResult(NamedTuple):
    eigenvalues: object
    eigenvectors: object


def qr(a, mode="reduced"):
    """The QR decomposition of a (batched) matrix: `QRResult(Q, R)`, or R alone for
    `mode='r'`, or `geqrf`'s (transposed) results for `mode='raw'`."""
    return _qr(a, mode)


@jnp.jit_in_jaxprs("qr", static_argnums=(1,))
def _qr(a, mode):
    a, = _inexact("jnp.linalg.qr", a)
    if mode == "raw":
        a, taus = geqrf(a)
        return QRResult(jnp.swapaxes(a, -1, -2), taus)
    if mode not in ("reduced", "r", "full", "complete"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_qr(a, pivoting=False, full_matrices=mode == "complete")
    return r if mode == "r" else QRResult(q, r)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False, subset_by_index=None):
    """The singular value decomposition: `SVDResult(U, S, Vh)` with a = U @ diag(S) @ Vh,
    S descending; S alone when `compute_uv` is False."""
    out = _svd(a, full_matrices, compute_uv, hermitian, subset_by_index)
    return SVDResult(*out) if compute_uv else out


@jnp.jit_in_jaxprs("svd", static_argnums=(1, 2, 3, 4))
def _svd(a, full_matrices, compute_uv, hermitian, subset_by_index):
    a, = _inexact("jnp.linalg.svd", a)
    if hermitian:
        vectors, values = lax_eigh(a, subset_by_index=subset_by_index)
        s = jnp.abs(values)
        if not compute_uv:
            return lax.rev(indexing.sort(s, dimension=-1), [s.ndim - 1])
        sign = jnp.sign(values)
        idxs = lax.broadcasted_iota(_index_dtype(s.shape[-1]), s.shape, s.ndim - 1)
        s, idxs, sign = indexing.sort((s, idxs, sign), dimension=-1, num_keys=1)
        s, idxs, sign = (lax.rev(x, [s.ndim - 1]) for x in (s, idxs, sign))
        u = jnp.take_along_axis(vectors, idxs[..., None, :], axis=-1)
        return u, s, _H(u * sign[..., None, :].astype(u.dtype))
    return lax_svd(a, full_matrices=full_matrices, compute_uv=compute_uv,
                    subset_by_index=subset_by_index)


def _index_dtype(size):
    """The unsigned dtype of indices along an axis of `size`: uint32, or uint64 past its range
    (JAX's `int_dtype_for_dim`)."""
    return np.dtype(np.uint64 if size > np.iinfo(np.uint32).max else np.uint32)


def svdvals(x, /):
    """The singular values of a (batched) matrix, in descending order."""
    jnp.check_arraylike("jnp.linalg.svdvals", x)
    return svd(x, compute_uv=False, hermitian=False)


def eig(a):
    """The eigenvalues and right eigenvectors (as columns) of a (batched) general square
    matrix, complex: `EigResult(eigenvalues, eigenvectors)`."""
    a, = _inexact("jnp.linalg.eig", a)
    w, v = lax_eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


@jnp.jit_in_jaxprs("eigvals")
def eigvals(a):
    """The eigenvalues (complex) of a (batched) general square matrix."""
    a, = _inexact("jnp.linalg.eigvals", a)
    return lax_eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]


def pinv(a, rtol=None, hermitian=False, *, rcond=None):
    """The Moore-Penrose pseudo-inverse of a (batched) matrix, through its SVD; singular values
    at most `rtol` times the largest count as zero."""
    if rcond is not None:
        if rtol is not None:
            raise ValueError("pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    return _pinv(a, rtol, hermitian)


@jnp.jit_in_jaxprs("_pinv", static_argnums=(2,))
def _pinv_jitted(a, rtol, hermitian):
    a, = _inexact("jnp.linalg.pinv", a)
    m, n = a.shape[-2:]
    if m == 0 or n == 0:
        return jnp.empty(a.shape[:-2] + (n, m), a.dtype)
    a = jnp.conj(a)
    if rtol is None:
        rtol = 10.0 * builtins.max(m, n) * jnp.array(jnp.finfo(a.dtype).eps)
    rtol = jnp.asarray(rtol)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian)
    rtol = lax.expand_dims(rtol[..., None], range(s.ndim - rtol.ndim - 1))
    s = jnp.where(s > rtol * s[..., 0:1], s, np.inf).astype(u.dtype)
    res = jnp.matmul(jnp.swapaxes(vh, -1, -2), jnp.swapaxes(u, -1, -2) / s[..., None])
    return lax.convert_element_type(res, a.dtype)


def _pinv(a, rtol, hermitian):
    return _pinv_jitted(a, rtol, hermitian)


_pinv = custom_jvp(_pinv, nondiff_argnums=(1, 2))     # named _pinv in jaxprs, as JAX's


@_pinv.defjvp
def _pinv_jvp(rtol, hermitian, primals, tangents):
    (a,), (a_dot,) = primals, tangents
    p = pinv(a, rtol=rtol, hermitian=hermitian)
    if hermitian:
        a, a_dot = (x + _H(x)) / 2, (a_dot + _H(a_dot)) / 2
    m, n = a.shape[-2:]
    mm = jnp.matmul
    if m >= n:
        s = mm(mm(p, _H(p)), _H(a_dot))
        t = mm(mm(_H(a_dot), _H(p)), p)
        p_dot = -mm(mm(p, a_dot), p) + s - mm(mm(s, a), p) + t - mm(mm(p, a), t)
    else:
        s = mm(p, mm(_H(p), _H(a_dot)))
        t = mm(_H(a_dot), mm(_H(p), p))
        p_dot = -mm(p, mm(a_dot, p)) + s - mm(s, mm(a, p)) + t - mm(p, mm(a, t))
    return p, p_dot


def lstsq(a, b, rcond=None, *, numpy_resid=False):
    """`(x, residuals, rank, s)`: the x minimizing ||a @ x - b||, the squared residual norms,
    a's rank and singular values."""
    jnp.check_arraylike("jnp.linalg.lstsq", a, b)
    if numpy_resid:
        return _lstsq(a, b, rcond, numpy_resid=True)
    return _lstsq_jitted(a, b, rcond)


def _lstsq(a, b, rcond, *, numpy_resid=False):
    a, b = jnp.promote_dtypes(a, b, inexact=True)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    b_orig_ndim = b.ndim
    if b_orig_ndim == 1:
        b = b[:, None]
    if a.ndim != 2:
        raise TypeError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim != 2:
        raise TypeError(f"{b.ndim}-dimensional array given. Array must be one or "
                        "two-dimensional")
    m, n = a.shape
    if a.size == 0:
        s = jnp.empty(0, dtype=a.dtype)
        rank = jnp.array(0, dtype=int)
        x = jnp.zeros((n, *b.shape[1:]), dtype=a.dtype)
    else:
        eps = jnp.finfo(a.dtype).eps
        rcond = float(eps) * builtins.max(n, m) if rcond is None else \
            jnp.where(rcond < 0, eps, rcond)
        u, s, vt = svd(a, full_matrices=False)
        mask = (s > 0) & (s >= jnp.array(rcond, dtype=s.dtype) * s[0])
        rank = mask.sum()
        safe_s = jnp.where(mask, s, 1).astype(a.dtype)
        s_inv = jnp.where(mask, 1 / safe_s, 0)[:, None]
        utb = jnp.matmul(jnp.conj(u).T, b)
        x = jnp.matmul(jnp.conj(vt).T, s_inv * utb)
    if numpy_resid and (rank < n or m <= n):
        resid = jnp.asarray([])
    else:
        resid = norm(b - jnp.matmul(a, x), axis=0) ** 2
    if b_orig_ndim == 1:
        x = x.ravel()
    return x, resid, rank, s


_lstsq_jitted = jnp.jit_in_jaxprs("_lstsq")(_lstsq)


@jnp.jit_in_jaxprs("matrix_rank", static_argnums=(2,))
def _matrix_rank(M, rtol, hermitian):
    M, = _inexact("jnp.linalg.matrix_rank", M)
    if M.ndim < 2:
        return (M != 0).any().astype(np.int32)
    S = svd(M, full_matrices=False, compute_uv=False, hermitian=hermitian)
    if rtol is None:
        rtol = S.max(-1) * np.max(M.shape[-2:]).astype(S.dtype) * jnp.finfo(S.dtype).eps
    rtol = jnp.expand_dims(rtol, np.ndim(rtol))
    return jnp.sum(S > rtol, axis=-1)


def matrix_rank(M, rtol=None, *, hermitian=False, tol=None):
    """The number of singular values of M above `rtol` (by default, the largest times
    max(m, n) times the dtype's epsilon)."""
    jnp.check_arraylike("jnp.linalg.matrix_rank", M)
    if tol is not None:
        if rtol is not None:
            raise ValueError("matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    return _matrix_rank(M, rtol, hermitian)


def cond(x, p=None):
    """The condition number of a (batched) matrix in the norm `p` (default: 2)."""
    return _cond(x, p)


@jnp.jit_in_jaxprs("cond", static_argnums=(1,))
def _cond(x, p):
    jnp.check_arraylike("cond", x)
    arr = jnp.asarray(x)
    if arr.ndim < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got {arr.shape=}")
    if arr.shape[-1] == 0 or arr.shape[-2] == 0:
        raise ValueError(f"jnp.linalg.cond: input array must not be empty; got {arr.shape=}")
    if p is None or p == 2:
        s = svdvals(x)
        return s[..., 0] / s[..., -1]
    if p == -2:
        s = svdvals(x)
        r = s[..., -1] / s[..., 0]
    else:
        if arr.shape[-2] != arr.shape[-1]:
            raise ValueError(f"jnp.linalg.cond: for {p=}, array must be square; got "
                             f"{arr.shape=}")
        r = norm(x, ord=p, axis=(-2, -1)) * norm(inv(x), ord=p, axis=(-2, -1))
    return jnp.where(jnp.isnan(r) & ~jnp.isnan(x).any(axis=(-2, -1)), np.inf, r)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The norm `ord` of the matrices in the last two axes of `x`."""
    jnp.check_arraylike("jnp.linalg.matrix_norm", x)
    return norm(x, ord=ord, keepdims=keepdims, axis=(-2, -1))


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The vector norm `ord` of `x` along `axis` (all of `x`, flattened, by default)."""
    jnp.check_arraylike("jnp.linalg.vector_norm", x)
    x = jnp.asarray(x)
    if isinstance(axis, list):
        axis = tuple(axis)
    return _vector_norm(x, ord, axis, keepdims)


def matrix_power(a, n):
    """`a` (a batch of square matrices) to the integer power `n`."""
    return _matrix_power(a, n)


@jnp.jit_in_jaxprs("matrix_power", static_argnums=(1,))
def _matrix_power(a, n):
    jnp.check_arraylike("jnp.linalg.matrix_power", a)
    arr = jnp.asarray(a)
    if arr.ndim < 2:
        raise TypeError(f"{arr.ndim}-dimensional array given. Array must be at least "
                        "two-dimensional")
    if arr.shape[-2] != arr.shape[-1]:
        raise TypeError("Last 2 dimensions of the array must be square")
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"exponent must be an integer, got {n}") from err
    if n == 0:
        return jnp.broadcast_to(jnp.eye(arr.shape[-2], dtype=arr.dtype), arr.shape)
    if n < 0:
        arr, n = inv(arr), -n
    if n <= 3:
        result = arr
        for _ in range(n - 1):
            result = jnp.matmul(result, arr)
        return result
    z = result = None
    while n > 0:                        # square z; multiply it in where n has a 1 bit
        z = arr if z is None else jnp.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else jnp.matmul(result, z)
    return result


def multi_dot(arrays, *, precision=None):
    """The product of a chain of matrices (the first and last may be vectors), in the order
    that costs the fewest multiplications."""
    jnp.check_arraylike("jnp.linalg.multi_dot", *arrays)
    arrs = [jnp.asarray(a) for a in arrays]
    if len(arrs) < 2:
        raise ValueError(f"multi_dot requires at least two arrays; got len(arrays)={len(arrs)}")
    if not (arrs[0].ndim in (1, 2) and arrs[-1].ndim in (1, 2)
            and all(a.ndim == 2 for a in arrs[1:-1])):
        raise ValueError("multi_dot: input arrays must all be two-dimensional, except for the "
                         "first and last array which may be 1 or 2 dimensional. Got array "
                         f"shapes {[a.shape for a in arrs]}")
    if any(a.shape[-1] != b.shape[0] for a, b in zip(arrs[:-1], arrs[1:])):
        raise ValueError("multi_dot: last dimension of each array must match first dimension "
                         f"of following array. Got array shapes {[a.shape for a in arrs]}")
    letters = [chr(ord("a") + i) for i in range(len(arrs) + 1)]
    names = [letters[i] + letters[i + 1] for i in range(len(arrs))]
    if arrs[0].ndim == 1:
        names[0] = names[0][1:]
    if arrs[-1].ndim == 1:
        names[-1] = names[-1][:1]
    out = "".join(c for c in letters if sum(c in n for n in names) == 1)
    return jnp.einsum(",".join(names) + "->" + out, *arrs)


def tensorinv(a, ind=2):
    """The inverse of `a` seen as a matrix with its first `ind` axes as rows."""
    jnp.check_arraylike("tensorinv", a)
    arr = jnp.asarray(a)
    ind = operator.index(ind)
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer; got {ind=}")
    contracting_shape, batch_shape = arr.shape[:ind], arr.shape[ind:]
    flatshape = (math.prod(contracting_shape), math.prod(batch_shape))
    if flatshape[0] != flatshape[1]:
        raise ValueError("tensorinv is only possible when the product of the first `ind` "
                         "dimensions equals that of the remaining dimensions. got "
                         f"{arr.shape=} with {ind=}.")
    return inv(arr.reshape(flatshape)).reshape(*batch_shape, *contracting_shape)


def tensorsolve(a, b, axes=None):
    """x with tensordot(a, x, x.ndim) == b."""
    jnp.check_arraylike("tensorsolve", a, b)
    a_arr, b_arr = jnp.asarray(a), jnp.asarray(b)
    if axes is not None:
        a_arr = jnp.moveaxis(a_arr, axes, len(axes) * (a_arr.ndim - 1,))
    out_shape = a_arr.shape[b_arr.ndim:]
    if a_arr.shape[:b_arr.ndim] != b_arr.shape:
        raise ValueError("After moving axes to end, leading shape of a must match shape of b. "
                         f"got a.shape={a_arr.shape}, b.shape={b_arr.shape}")
    if b_arr.size != math.prod(out_shape):
        raise ValueError("Input arrays must have prod(a.shape[:b.ndim]) == "
                         f"prod(a.shape[b.ndim:]); got a.shape={a_arr.shape}, "
                         f"b.ndim={b_arr.ndim}.")
    a_arr = a_arr.reshape(b_arr.size, math.prod(out_shape))
    return solve(a_arr, b_arr.ravel()).reshape(out_shape)


def cross(x1, x2, /, *, axis=-1):
    """The cross product of (batches of) 3-vectors along `axis`."""
    jnp.check_arraylike("jnp.linalg.outer", x1, x2)
    x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but they "
                         f"have {x1.shape[axis]=} and {x2.shape[axis]=}")
    return jnp.cross(x1, x2, axis=axis)


def diagonal(x, /, *, offset=0):
    """The diagonals of the matrices in the last two axes of `x`."""
    jnp.check_arraylike("jnp.linalg.diagonal", x)
    return jnp.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """The matrix product, as `jnp.matmul`."""
    jnp.check_arraylike("jnp.linalg.matmul", x1, x2)
    if preferred_element_type is not None:
        raise NotImplementedError("jnp.linalg.matmul: preferred_element_type is not supported")
    return jnp.matmul(x1, x2)


def matrix_transpose(x, /):
    """`x` with its last two axes swapped."""
    jnp.check_arraylike("jnp.linalg.matrix_transpose", x)
    x = jnp.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose requires at least 2 dimensions; got ndim={x.ndim}")
    return lax.transpose(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


def outer(x1, x2, /):
    """The outer product of two vectors."""
    jnp.check_arraylike("jnp.linalg.outer", x1, x2)
    x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are x1.ndim={x1.ndim}"
                         f" x2.ndim={x2.ndim}")
    return x1[:, None] * x2[None, :]


def tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None,
              out_sharding=None):
    """The tensor dot product over `axes`, as `jnp.tensordot`."""
    jnp.check_arraylike("jnp.linalg.tensordot", x1, x2)
    if preferred_element_type is not None or out_sharding is not None:
        raise NotImplementedError("jnp.linalg.tensordot: preferred_element_type and "
                                  "out_sharding are not supported")
    return jnp.tensordot(x1, x2, axes)


def trace(x, /, *, offset=0, dtype=None):
    """The traces of the matrices in the last two axes of `x`."""
    jnp.check_arraylike("jnp.linalg.trace", x)
    d = jnp.diagonal(x, offset=offset, axis1=-2, axis2=-1)
    return jnp.sum(d, axis=-1, dtype=dtype)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """The dot product along `axis`, the first vector conjugated, broadcast over the rest."""
    jnp.check_arraylike("jnp.linalg.vecdot", x1, x2)
    x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"axes must match; got shapes {x1.shape} and {x2.shape} with "
                         f"{axis=}")
    x1, x2 = jnp.moveaxis(x1, axis, -1), jnp.moveaxis(x2, axis, -1)
    x1, x2 = jnp.promote_dtypes(x1, x2)
    batch = tuple(np.broadcast_shapes(x1.shape[:-1], x2.shape[:-1]))
    x1 = jnp.broadcast_to(jnp.conj(x1), batch + x1.shape[-1:])
    x2 = jnp.broadcast_to(x2, batch + x2.shape[-1:])
    dims = tuple(range(len(batch)))
    return lax.dot_general(x1, x2, (((len(batch),), (len(batch),)), (dims, dims)),
                           preferred_element_type=preferred_element_type or x1.dtype)


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky", *,
                        out_sharding=None):
    """Normal vectors with mean `mean` ([..., n]) and covariance `cov` ([..., n, n])."""
    key, _ = prng.check_prng_key("multivariate_normal", key)
    mean, cov = jnp.promote_dtypes(mean, cov, inexact=True)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dtype = mean.dtype if dtype is None else canonicalize_dtype(dtype)
    if dtype_kind(dtype) != "f":
        raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, got "
                         f"{dtype}")
    if shape is not None:
        shape = prng.canonical_shape(shape)
    return _multivariate_normal(key, mean, cov, shape, dtype, method)


@partial(jit, static_argnums=(3, 4, 5))
def _multivariate_normal(key, mean, cov, shape, dtype, method):
    if not np.ndim(mean) >= 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == "
                         f"{np.ndim(mean)}")
    if not np.ndim(cov) >= 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == "
                         f"{np.ndim(cov)}")
    n = mean.shape[-1]
    if np.shape(cov)[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {np.shape(cov)}.")
    if shape is None:
        shape = tuple(np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2]))
    else:
        prng.check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    if method == "svd":
        u, s, _ = svd(cov)
        factor = u * jnp.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = eigh(cov)
        factor = v * jnp.sqrt(w[..., None, :])
    else:
        factor = cholesky(cov)
    samples = prng.normal(key, shape + mean.shape[-1:], dtype)
    return mean + jnp.einsum("...ij,...j->...i", factor, samples)


def orthogonal(key, n, shape=(), dtype=None, m=None, *, out_sharding=None):
    """A matrix of shape (*shape, n, m) (m = n by default) drawn uniformly from the orthogonal
    matrices: orthonormal columns (n >= m) or rows (n <= m)."""
    _m = n if m is None else m
    shape = prng.canonical_shape(shape)
    key, _ = prng.check_prng_key("orthogonal", key)
    dtype = prng.float_dtype("orthogonal", dtype)
    prng.check_shape("orthogonal", shape)
    return _orthogonal(key, operator.index(n), operator.index(_m), shape, dtype)


@partial(jit, static_argnums=(1, 2, 3, 4))
def _orthogonal(key, n, _m, shape, dtype):
    z = prng.normal(key, (*shape, builtins.max(n, _m), builtins.min(n, _m)), dtype)
    q, r = qr(z)
    x = q * jnp.expand_dims(jnp.sign(diagonal(r)), -2)
    return matrix_transpose(x) if n < _m else x


ormqr_p = Primitive("ormqr")
symmetric_product_p = Primitive("symmetric_product")


def _ormqr_impl(a, taus, c, *, left, transpose):
    k = taus.shape[-1]
    c = c.copy()
    order = range(k) if left == transpose else reversed(range(k))  # Q = H_1 H_2 ... H_k
    for i in order:
        v = a[..., :, i].copy()
        v[..., :i], v[..., i] = 0, 1
        tau = np.conj(taus[..., i]) if transpose else taus[..., i]
        if left:                                   # c - tau v (v^H c)
            c -= tau[..., None, None] * v[..., :, None] * np.einsum(
                "...i,...ij->...j", v.conj(), c)[..., None, :]
        else:                                      # c - tau (c v) v^H
            c -= tau[..., None, None] * np.einsum("...ij,...j->...i", c, v)[..., :, None] * \
                v.conj()[..., None, :]
    return c


def _ormqr_abstract(a, taus, c, *, left, transpose):
    _check_float("ormqr", a, taus, c)
    _check_rank("ormqr", a)
    m = a.shape[-2]
    if left and c.shape[-2] != m:
        raise ValueError("ormqr with left=True expects c to have the same number of rows as the "
                         f"Householder matrix a. Got a shape {a.shape} and c shape {c.shape}.")
    if not left and c.shape[-1] != m:
        raise ValueError("ormqr with left=False expects c to have the same number of columns as "
                         f"the Householder matrix a has rows. Got a shape {a.shape} and c shape "
                         f"{c.shape}.")
    return ShapedArray(c.shape, c.dtype)


def _ormqr_lowering(ctx, a, taus, c, *, left, transpose):
    a_aval = ctx.avals_in[0]
    base = "unmqr" if dtype_kind(a_aval.dtype) == "c" else "ormqr"
    return lapack_call(_lapack_name(base, a_aval.dtype), [a, taus, c], list(ctx.avals_in),
                       list(ctx.avals_out), (True,), left=ir.BoolAttr.get(left),
                       transpose=ir.BoolAttr.get(transpose))


def _symmetric_product_abstract(a, c, *, alpha, beta):
    _check_float("symmetric_product", a, c)
    _check_rank("symmetric_product", a)
    if a.shape[-2] != c.shape[-1] or c.shape[-2] != c.shape[-1]:
        raise ValueError("symmetric_update expects a rectangular matrix of shape (m, n) and a "
                         f"square matrix of shape (n, n). Got shapes {a.shape[-2:]} and "
                         f"{c.shape[-2:]}.")
    return ShapedArray(c.shape, c.dtype)


def _symmetric_product_composed(a, c, *, alpha, beta):
    return [alpha * jnp.matmul(a, jnp.swapaxes(a, -1, -2)) + beta * c]


impl_rules[ormqr_p] = _ormqr_impl
abstract_eval_rules[ormqr_p] = _ormqr_abstract
batching_rules[ormqr_p] = batch_at_front(ormqr_p)
mlir.lowering_rules[ormqr_p] = _ormqr_lowering
impl_rules[symmetric_product_p] = lambda a, c, *, alpha, beta: (
    alpha * np.matmul(a, np.swapaxes(a, -1, -2)) + beta * c).astype(c.dtype)
abstract_eval_rules[symmetric_product_p] = _symmetric_product_abstract
batching_rules[symmetric_product_p] = batch_at_front(symmetric_product_p)
mlir.lowering_rules[symmetric_product_p] = lambda ctx, a, c, **params: _lower_fun(
    ctx, lambda x, y: _symmetric_product_composed(x, y, **params), a, c)


def ormqr(a, taus, c, *, left=True, transpose=False):
    """Q @ c (or Q^H @ c, c @ Q, c @ Q^H) for the Q of `geqrf`'s reflectors `a` and `taus`,
    without building Q (JAX's `lax.linalg.ormqr`)."""
    return ormqr_p.bind(a, taus, c, left=left, transpose=transpose)


def symmetric_product(a_matrix, c_matrix, *, alpha=1.0, beta=0.0, symmetrize_output=False):
    """alpha a a^T + beta c; only its lower triangle is promised unless `symmetrize_output`
    (JAX's `lax.linalg.symmetric_product`)."""
    out = symmetric_product_p.bind(a_matrix, c_matrix, alpha=alpha, beta=beta)
    if symmetrize_output:
        out = jnp.tril(out) + jnp.swapaxes(jnp.tril(out, -1), -1, -2)
    return out


hessenberg_p = Primitive("hessenberg")
tridiagonal_p = Primitive("tridiagonal")
schur_p = Primitive("schur")
for _p in (hessenberg_p, tridiagonal_p, schur_p):
    _p.multiple_results = True


def _compiled_only(name):
    def impl(*args, **params):
        raise NotImplementedError(f"{name} runs through XLA's CPU compiler (LAPACK) only; it "
                                  "has no NumPy evaluation rule")
    return impl


def _square_abstract(name, a):
    _check_float(name, a)
    _check_rank(name, a)
    _check_matrix(name, a)


def _hessenberg_abstract(a):
    _square_abstract("hessenberg", a)
    return [ShapedArray(a.shape, a.dtype), ShapedArray(a.shape[:-1][:-1] + (a.shape[-1] - 1,),
                                                       a.dtype)]


def _tridiagonal_abstract(a, *, lower):
    _square_abstract("tridiagonal", a)
    real, n = lax.real_dtype(a.dtype), a.shape[-1]
    batch = a.shape[:-2]
    return [ShapedArray(a.shape, a.dtype), ShapedArray(batch + (n,), real),
            ShapedArray(batch + (n - 1,), real), ShapedArray(batch + (n - 1,), a.dtype)]


def _schur_abstract(a, *, compute_schur_vectors, sort_eig_vals, select_callable):
    _square_abstract("schur", a)
    return [ShapedArray(a.shape, a.dtype)] * (2 if compute_schur_vectors else 1)


def _lapack_reduction(ctx, name, a, avals_out, matrix_out, **attributes):
    """A LAPACK call whose last result is `info`; its other results, with NaNs where it
    failed, for the primitive's results (the first len(ctx.avals_out))."""
    aval, = ctx.avals_in
    info_aval = ShapedArray(aval.shape[:-2], np.int32)
    *outs, info = lapack_call(_lapack_name(name, aval.dtype), [a], [aval],
                              [*avals_out, info_aval], (*matrix_out, False), **attributes)
    return [_nan_where_failed(info, info_aval, x, x_aval)
            for x, x_aval in zip(outs, ctx.avals_out)]


def _hessenberg_lowering(ctx, a):
    i32 = ir.IntegerType.get_signless(32)
    return _lapack_reduction(ctx, "gehrd", a, ctx.avals_out, (True, False),
                             low=ir.IntegerAttr.get(i32, 1),
                             high=ir.IntegerAttr.get(i32, ctx.avals_in[0].shape[-1]))


def _tridiagonal_lowering(ctx, a, *, lower):
    name = "hetrd" if dtype_kind(ctx.avals_in[0].dtype) == "c" else "sytrd"
    return _lapack_reduction(ctx, name, a, ctx.avals_out, (True, False, False, False),
                             uplo=_byte("L" if lower else "U"))


def _schur_lowering(ctx, a, *, compute_schur_vectors, sort_eig_vals, select_callable):
    if sort_eig_vals:
        raise NotImplementedError("The sort feature of LAPACK's gees routine is not "
                                  "implemented.")
    aval, = ctx.avals_in
    w = ShapedArray(aval.shape[:-1], aval.dtype)
    sdim = ShapedArray(aval.shape[:-2], np.int32)
    real = dtype_kind(aval.dtype) != "c"
    avals = [aval, aval, *([w, w] if real else [w]), sdim]
    return _lapack_reduction(ctx, "gees", a, avals, (True, True) + (False,) * (len(avals) - 2),
                             mode=_byte("V" if compute_schur_vectors else "N"),
                             sort=_byte("N"))


for _p, _abstract, _lowering in [(hessenberg_p, _hessenberg_abstract, _hessenberg_lowering),
                                 (tridiagonal_p, _tridiagonal_abstract, _tridiagonal_lowering),
                                 (schur_p, _schur_abstract, _schur_lowering)]:
    impl_rules[_p] = _compiled_only(_p.name)
    abstract_eval_rules[_p] = _abstract
    batching_rules[_p] = batch_at_front(_p)
    mlir.lowering_rules[_p] = _lowering


def hessenberg(a):
    """`[a, taus]`: the upper Hessenberg form of `a` on and above its first subdiagonal, the
    Householder reflectors below it and in `taus` (JAX's `lax.linalg.hessenberg`)."""
    return hessenberg_p.bind(a)


def tridiagonal(a, *, lower=True):
    """`[a, d, e, taus]`: the tridiagonal form of a symmetric `a`, with its diagonal `d` and
    off-diagonal `e`, and the reflectors (JAX's `lax.linalg.tridiagonal`)."""
    return tridiagonal_p.bind(jnp.asarray(a), lower=lower)


def schur(x, *, compute_schur_vectors=True, sort_eig_vals=False, select_callable=None):
    """`[u, q]` (or `[u]`): the Schur form u of `x` and its Schur vectors, x = q u q^H (JAX's
    `lax.linalg.schur`)."""
    return schur_p.bind(x, compute_schur_vectors=compute_schur_vectors,
                        sort_eig_vals=sort_eig_vals, select_callable=select_callable)


tridiagonal_solve_p = Primitive("tridiagonal_solve")


def _tridiagonal_matrix(dl, d, du):
    """The dense matrices of (batches of) three diagonals."""
    n = d.shape[-1]
    return (d[..., :, None] * np.eye(n, dtype=d.dtype) + dl[..., :, None] * np.eye(n, k=-1)
            + du[..., :, None] * np.eye(n, k=1))


def _tridiagonal_solve_impl(dl, d, du, b, *, perturb_singular):
    return np.linalg.solve(_tridiagonal_matrix(dl, d, du), b).astype(b.dtype)


def _tridiagonal_solve_abstract(dl, d, du, b, *, perturb_singular):
    _check_float("tridiagonal_solve", dl, d, du, b)
    if not dl.shape == d.shape == du.shape:
        raise TypeError("tridiagonal_solve requires that all diagonal arguments have the same "
                        "shape.")
    if dl.shape != b.shape[:-1]:
        raise TypeError("tridiagonal_solve requires that the leading ndim-1 dimensions of b "
                        "equal the dimensions of the diagonal arguments.")
    return ShapedArray(b.shape, b.dtype)


def _tridiagonal_solve_lowering(ctx, dl, d, du, b, *, perturb_singular):
    b_aval = ctx.avals_in[-1]
    if perturb_singular:
        return lapack_call("tridiagonal_solve_perturbed_ffi", [dl, d, du, b],
                           list(ctx.avals_in), [b_aval], (True,))
    info_aval = ShapedArray(b_aval.shape[:-2], np.int32)
    *_, x, info = lapack_call(_lapack_name("gtsv", b_aval.dtype), [dl, d, du, b],
                              list(ctx.avals_in), [*ctx.avals_in, info_aval],
                              (False, False, False, True, False))
    return [_nan_where_failed(info, info_aval, x, b_aval)]


def _tridiagonal_product(dl, d, du, x):
    """A @ x for the tridiagonal A of (dl, d, du)."""
    zero = jnp.zeros_like(x[..., :1, :])
    y = d[..., :, None] * x
    y = y + jnp.concatenate([zero, dl[..., 1:, None] * x[..., :-1, :]], axis=-2)
    return y + jnp.concatenate([du[..., :-1, None] * x[..., 1:, :], zero], axis=-2)


def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
    *diags, _ = primals
    *diags_dot, b_dot = tangents
    x = tridiagonal_solve_p.bind(*primals, perturb_singular=perturb_singular)
    if all(type(t) is Zero for t in diags_dot):
        rhs = b_dot
    else:
        a_dot_x = _tridiagonal_product(*map(instantiate_zeros, diags_dot), x)
        rhs = -a_dot_x if type(b_dot) is Zero else b_dot - a_dot_x
    if type(rhs) is Zero:
        return x, rhs
    return x, tridiagonal_solve_p.bind(*diags, rhs, perturb_singular=perturb_singular)


def _tridiagonal_solve_transpose(ct, dl, d, du, b, *, perturb_singular):
    assert is_linear(b) and not any(map(is_linear, (dl, d, du))), \
        "tridiagonal_solve is linear in b only"
    if type(ct) is Zero:
        return [None, None, None, Zero(b.aval)]
    dl_t = jnp.concatenate([jnp.zeros_like(du[..., -1:]), du[..., :-1]], axis=-1)
    du_t = jnp.concatenate([dl[..., 1:], jnp.zeros_like(dl[..., :1])], axis=-1)
    return [None, None, None, tridiagonal_solve_p.bind(dl_t, d, du_t, ct,
                                                       perturb_singular=perturb_singular)]


impl_rules[tridiagonal_solve_p] = _tridiagonal_solve_impl
abstract_eval_rules[tridiagonal_solve_p] = _tridiagonal_solve_abstract
jvp_rules[tridiagonal_solve_p] = _tridiagonal_solve_jvp
transpose_rules[tridiagonal_solve_p] = _tridiagonal_solve_transpose
batching_rules[tridiagonal_solve_p] = batch_at_front(tridiagonal_solve_p)
mlir.lowering_rules[tridiagonal_solve_p] = _tridiagonal_solve_lowering


def tridiagonal_solve(dl, d, du, b, *, perturb_singular=False):
    """x with A @ x = b, A tridiagonal with sub-, main and super-diagonals dl, d, du (JAX's
    `lax.linalg.tridiagonal_solve`)."""
    return tridiagonal_solve_p.bind(dl, d, du, b, perturb_singular=perturb_singular)


cholesky_update_p = Primitive("cholesky_update")


def _givens(x, y, xp, cond):
    """(c, s) with c x - s y = r, c y + s x = 0: LINPACK's drotg, scaled against overflow;
    `xp` is NumPy (and `cond` Python's `if`) to evaluate, `jnp` and `lax.cond` to lower."""
    def nonzero(x, y):
        scale = xp.where(xp.abs(x) > xp.abs(y), xp.abs(x), xp.abs(y))
        x, y = x / scale, y / scale
        rh = 1 / xp.sqrt(x ** 2 + y ** 2)
        return x * rh, -y * rh
    return cond(y == 0, lambda x, y: (np.ones((), x.dtype), np.zeros((), x.dtype)), nonzero,
                x, y)


def _cholesky_update_rows(r, w, xp=np, cond=lambda p, t, f, *xs: t(*xs) if p else f(*xs)):
    """The rows of R rotated with w, one Givens rotation each (JAX's
    `_cholesky_update_jax_fn`)."""
    for k in range(w.shape[0]):
        c, s = _givens(r[k, k], w[k], xp, cond)
        row, w = c * r[k, :] - s * w, c * w + s * r[k, :]
        r = r.at[k, :].set(row) if xp is jnp else np.concatenate([r[:k], row[None], r[k + 1:]])
    return r


def _cholesky_update_abstract(r, w):
    _check_float("cholesky_update", r, w)
    if r.ndim != 2 or w.ndim != 1 or r.shape[0] != r.shape[1] or w.shape[0] != r.shape[1]:
        raise ValueError("Rank-1 update to Cholesky decomposition takes a square matrix and a "
                         f"vector of the same size as input. Got shapes {r.shape} and "
                         f"{w.shape} instead")
    return ShapedArray(r.shape, r.dtype)


impl_rules[cholesky_update_p] = lambda r, w: _cholesky_update_rows(r, w).astype(r.dtype)
abstract_eval_rules[cholesky_update_p] = _cholesky_update_abstract
mlir.lowering_rules[cholesky_update_p] = lambda ctx, r, w: _lower_fun(
    ctx, lambda r, w: [_cholesky_update_rows(r, w, jnp, control_flow.cond)], r, w)


def cholesky_update(r_matrix, w_vector):
    """The upper Cholesky factor of A + w w^T, given that of A (JAX's
    `lax.linalg.cholesky_update`)."""
    return cholesky_update_p.bind(r_matrix, w_vector)


wrap_public_functions(globals(), __name__)
