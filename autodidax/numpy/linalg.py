# Generated from chapters/A3_linalg.md by `make export`: edit the chapter, not this file.


"""Linear algebra: the `cholesky`, `triangular_solve`, `lu` and `eigh` primitives with all
their rules, and `jnp.linalg` built on them."""
from __future__ import annotations

import builtins
from typing import NamedTuple

import numpy as np
from jaxlib import xla_client as xc
from jaxlib.cpu import _lapack
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax import lowering as mlir
from autodidax import numpy as jnp
from autodidax.autodiff import is_linear, transpose_rules
from autodidax.batching import batching_rules, bdim_at_front, not_mapped
from autodidax.core import (Primitive, ShapedArray, abstract_eval_rules, dtype_kind, impl_rules,
                            wrap_public_functions)
from autodidax.jaxpr import trace_to_jaxpr
from autodidax.jvp import Zero, defjvp2, instantiate_zeros, jvp_rules


def _check_float(name, *avals):
    for aval in avals:
        if dtype_kind(aval.dtype) not in "fc":
            raise TypeError(f"{name} takes floating-point or complex arrays, got "
                            f"{aval.str_short()}")


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
mlir.lowering_rules[cholesky_p] = lambda ctx, x: [hlo.cholesky(x, lower=True)]


def _H(x):
    """The conjugate transpose of a (batch of) matrices; the transpose, for real ones."""
    x = jnp.swapaxes(x, -1, -2)
    return lax.conj(x) if dtype_kind(x.dtype) == "c" else x


def _lax_cholesky(x, symmetrize_input=True):
    """The lower Cholesky factor of `x` (JAX's `lax.linalg.cholesky`)."""
    if symmetrize_input:
        x = (x + _H(x)) / 2
    return jnp.tril(cholesky_p.bind(x))


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


def lu(a):
    """The LU decomposition with partial pivoting of `a`, of shape [..., m, n] (JAX's
    `lax.linalg.lu`): `(lu, pivots, permutation)`, with `a[..., permutation, :] == L @ U`, L
    the unit lower triangle of `lu` and U its upper triangle."""
    return lu_p.bind(a)


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
    op = hlo.CustomCallOp(
        [mlir.aval_to_ir_type(a) for a in avals_out], list(operands), name,
        has_side_effect=False, backend_config=ir.DictAttr.get(attributes),
        api_version=ir.IntegerAttr.get(i32, 4),
        operand_layouts=_layouts([_column_major(a.ndim) for a in avals_in]),
        result_layouts=_layouts([_column_major(a.ndim) if matrix else _row_major(a.ndim)
                                 for a, matrix in zip(avals_out, matrix_out)]))
    op.attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(
        {"num_batch_dims": ir.StringAttr.get(str(avals_in[0].ndim - 2))})
    return list(op.results)


_LAPACK_PREFIX = {np.dtype("float32"): "s"}


def pivots_to_permutation(pivots, m):
    """The permutation made by swapping rows j and pivots[..., j], for j = 0, 1, ..., in turn."""
    rows = np.arange(m, dtype=np.int32)
    perm = jnp.broadcast_to(rows, (*pivots.shape[:-1], m))
    for j in range(pivots.shape[-1]):
        at_p = jnp.equal(rows, pivots[..., j:j + 1])
        perm_p = jnp.sum(jnp.where(at_p, perm, 0), axis=-1, keepdims=True)
        perm = jnp.where(rows == j, perm_p, jnp.where(at_p, perm[..., j:j + 1], perm))
    return perm


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
    L = _lax_cholesky(a, symmetrize_input)
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
    if method not in (None, "lu"):
        if method == "qr":
            raise NotImplementedError("slogdet(method='qr') needs a QR decomposition, which "
                                      "autodidax does not build; use method='lu'")
        raise ValueError(f"Unknown slogdet method '{method}'. Supported methods are 'lu' "
                         "(`None`), and 'qr'.")
    return SlogdetResult(*_slogdet(a))


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


def _vector_norm(x, ord, axis, keepdims):
    if ord is None or ord == 2:
        return jnp.sqrt(jnp.sum(x * x, axis=axis, keepdims=keepdims))
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
            return jnp.sqrt(jnp.sum(x * x, keepdims=keepdims))
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
        return jnp.sqrt(jnp.sum(x * x, axis=axis, keepdims=keepdims))
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
    if ord in ("nuc", 2, -2):
        raise NotImplementedError(f"the matrix norm ord={ord!r} needs the singular values "
                                  "(svd), which autodidax does not build yet")
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


eigh_p = Primitive("eigh")
eigh_p.multiple_results = True


def _eigh_impl(a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    w, v = np.linalg.eigh(a, UPLO="L" if lower else "U")
    return [v.astype(a.dtype), w.astype(a.dtype)]


def _eigh_abstract(a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    if subset_by_index is not None or algorithm is not None:
        raise NotImplementedError("eigh computes all the eigenvalues, with LAPACK: "
                                  "subset_by_index and algorithm must be None")
    _check_float("eigh", a)
    _check_matrix("eigh", a)
    return [ShapedArray(a.shape, a.dtype), ShapedArray(a.shape[:-1], a.dtype)]


def _eigh_lowering(ctx, a, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    aval, = ctx.avals_in
    v_aval, w_aval = ctx.avals_out
    if aval.dtype not in _LAPACK_PREFIX:
        raise NotImplementedError(f"eigh is lowered to LAPACK, which has no {aval.dtype} kernel")
    byte = ir.IntegerType.get_unsigned(8)
    v, w, _ = lapack_call(f"lapack_{_LAPACK_PREFIX[aval.dtype]}syevd_ffi", [a], [aval],
                          [v_aval, w_aval, ShapedArray(aval.shape[:-2], np.int32)],
                          (True, False, False), mode=ir.IntegerAttr.get(byte, ord("V")),
                          uplo=ir.IntegerAttr.get(byte, ord("L" if lower else "U")))
    return [v, w]


def _symmetrize(x):
    return (x + jnp.swapaxes(x, -1, -2)) / 2


def _eigh_jvp(primals, tangents, **params):
    (a,), (a_dot,) = primals, tangents
    v, w = eigh_p.bind(_symmetrize(a), **params)
    eye = np.eye(a.shape[-1], dtype=a.dtype)
    F = 1 / (eye + w[..., None, :] - w[..., :, None]) - eye    # 1 / (w_j - w_i), 0 on the diagonal
    omega = jnp.matmul(jnp.matmul(jnp.swapaxes(v, -1, -2), instantiate_zeros(a_dot)), v)
    return [v, w], [jnp.matmul(v, F * omega), jnp.diagonal(omega, axis1=-2, axis2=-1)]


impl_rules[eigh_p] = _eigh_impl
abstract_eval_rules[eigh_p] = _eigh_abstract
jvp_rules[eigh_p] = _eigh_jvp
batching_rules[eigh_p] = batch_at_front(eigh_p)
mlir.lowering_rules[eigh_p] = _eigh_lowering


def _lax_eigh(x, lower=True, symmetrize_input=True):
    """`(v, w)`: the eigenvectors (as columns) and ascending eigenvalues of a symmetric `x`
    (JAX's `lax.linalg.eigh`)."""
    return eigh_p.bind(_symmetrize(x) if symmetrize_input else x, lower=lower,
                       sort_eigenvalues=True, subset_by_index=None, algorithm=None)


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
    v, w = _lax_eigh(a, lower, symmetrize_input)
    return w, v


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):
    """The eigenvalues (ascending) of a (batched) symmetric matrix."""
    jnp.check_arraylike("jnp.linalg.eigvalsh", a)
    return _eigvalsh(a, UPLO, symmetrize_input)


@jnp.jit_in_jaxprs("eigvalsh", static_argnums=(1, 2))
def _eigvalsh(a, UPLO, symmetrize_input):
    return eigh(a, UPLO, symmetrize_input).eigenvalues


wrap_public_functions(globals(), __name__)
