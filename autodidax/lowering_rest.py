# Generated from chapters/A18_lowering_rest.md by `make export`: edit the chapter, not this file.


"""Chapter 6's reference: the lowering rules of the rest of lax's primitives, as JAX's."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax.core import dtype_kind
from autodidax.lowering import (aval_to_ir_type, compare, dense_int_array, full_like_aval,
                                ir_constant, lowering_rules, nary_lowering, reduce_lowering,
                                reducer_region)


def _integer_pow_lowering(ctx, x, *, y):
    aval, = ctx.avals_in
    n, acc = abs(y), None
    while n:
        if n & 1:
            acc = x if acc is None else hlo.multiply(acc, x)
        n >>= 1
        if n:
            x = hlo.multiply(x, x)
    if acc is None:                                   # x ** 0
        return [full_like_aval(1, aval)]
    return [hlo.divide(full_like_aval(1, aval), acc) if y < 0 else acc]


lowering_rules[lax.integer_pow_p] = _integer_pow_lowering


def _select_n_lowering(ctx, which, *cases):
    which_aval = ctx.avals_in[0]
    if which_aval.dtype == np.bool_:
        return [cases[0] if len(cases) == 1 else hlo.select(which, cases[1], cases[0])]

    def select(offset, cases):
        if len(cases) == 1:
            return cases[0]
        mid = len(cases) // 2
        pred = compare(which, full_like_aval(offset + mid, which_aval), "LT", which_aval)
        return hlo.select(pred, select(offset, cases[:mid]), select(offset + mid, cases[mid:]))
    return [select(0, cases)]


lowering_rules[lax.select_n_p] = _select_n_lowering


def _pow_lowering(ctx, x, y):
    x_aval, y_aval = ctx.avals_in
    if y_aval.dtype != x_aval.dtype:        # a float to integer powers: convert the exponent
        y_aval = y_aval.update(dtype=x_aval.dtype)
        y = hlo.convert(aval_to_ir_type(y_aval), y)
        ctx = ctx._replace(avals_in=(x_aval, y_aval))
    return nary_lowering(hlo.power)(ctx, x, y)


lowering_rules[lax.pow_p] = _pow_lowering


for _prim, _op in [
        (lax.floor_p, hlo.floor), (lax.ceil_p, hlo.ceil), (lax.is_finite_p, hlo.is_finite),
        (lax.expm1_p, hlo.exponential_minus_one), (lax.log1p_p, hlo.log_plus_one),
        (lax.tan_p, hlo.tan), (lax.rsqrt_p, hlo.rsqrt), (lax.asin_p, chlo.asin),
        (lax.acos_p, chlo.acos), (lax.atan_p, chlo.atan), (lax.sinh_p, chlo.sinh),
        (lax.cosh_p, chlo.cosh), (lax.asinh_p, chlo.asinh), (lax.acosh_p, chlo.acosh),
        (lax.atanh_p, chlo.atanh), (lax.atan2_p, hlo.atan2), (lax.rem_p, hlo.remainder)]:
    lowering_rules[_prim] = nary_lowering(_op)


def _round_lowering(ctx, x, *, rounding_method):
    if rounding_method == lax.RoundingMethod.TO_NEAREST_EVEN:
        return [hlo.round_nearest_even(x)]
    return [hlo.round_nearest_afz(x)]


def _exp2_lowering(ctx, x):
    aval, = ctx.avals_in
    log2 = full_like_aval(np.log(2), aval)
    return [hlo.exponential(hlo.multiply(log2, x))]


def _conj_lowering(ctx, x, *, input_dtype):
    """JAX's `_conj_impl`: a complex number from the parts, the imaginary one negated."""
    aval, = ctx.avals_in
    if dtype_kind(aval.dtype) == "c":
        return [hlo.complex(hlo.real(x), hlo.negate(hlo.imag(x)))]
    return [hlo.complex(x, full_like_aval(0, aval))]


lowering_rules[lax.round_p] = _round_lowering
lowering_rules[lax.exp2_p] = _exp2_lowering
lowering_rules[lax.conj_p] = _conj_lowering
for _prim, _op in [(lax.real_p, hlo.real), (lax.imag_p, hlo.imag), (lax.complex_p, hlo.complex)]:
    lowering_rules[_prim] = nary_lowering(_op)
lowering_rules[lax.stop_gradient_p] = lambda ctx, x: [x]


def _stack_lowering(ctx, *xs, axis):
    aval = ctx.avals_in[0]
    shape = aval.shape[:axis] + (1,) + aval.shape[axis:]
    kept = [d for d in range(len(shape)) if d != axis]
    out_type = aval_to_ir_type(aval.update(shape=shape))
    return [hlo.concatenate([hlo.broadcast_in_dim(out_type, x, dense_int_array(kept))
                             for x in xs], axis)]


def _unstack_lowering(ctx, x, *, axis):
    aval = ctx.avals_in[0]
    outs = []
    for i, aval_out in enumerate(ctx.avals_out):
        start, limit = [0] * aval.ndim, list(aval.shape)
        start[axis], limit[axis] = i, i + 1
        piece = hlo.slice(x, *map(dense_int_array, (start, limit, [1] * aval.ndim)))
        outs.append(hlo.reshape(aval_to_ir_type(aval_out), piece))
    return outs


lowering_rules[lax.stack_p] = _stack_lowering
lowering_rules[lax.unstack_p] = _unstack_lowering


def _and_identity(dtype):
    return True if dtype.kind == "b" else np.iinfo(dtype).max if dtype.kind == "u" else -1


lowering_rules[lax.reduce_prod_p] = reduce_lowering(hlo.multiply, lambda dtype: 1)
lowering_rules[lax.reduce_or_p] = reduce_lowering(hlo.or_, lambda dtype: False)
lowering_rules[lax.reduce_and_p] = reduce_lowering(hlo.and_, _and_identity)


def _cumulative_lowering(op, identity):
    """`cumsum` and `cumprod` as JAX lowers them: a `reduce_window` whose window
    covers the whole axis, padded so that position i sees the elements up to i."""
    def rule(ctx, x, *, axis, reverse):
        aval, = ctx.avals_in
        n = aval.shape[axis]
        if n == 0:
            return [x]
        window, padding = [1] * aval.ndim, [[0, 0] for _ in range(aval.ndim)]
        window[axis], padding[axis] = n, [0, n - 1] if reverse else [n - 1, 0]
        init, ones = ir_constant(identity, aval.dtype), dense_int_array([1] * aval.ndim)
        reduce = hlo.ReduceWindowOp(
            [aval_to_ir_type(aval)], [x], [init], dense_int_array(window), window_strides=ones,
            base_dilations=ones, window_dilations=ones,
            padding=ir.DenseIntElementsAttr.get(np.asarray(padding, np.int64)))
        reducer_region(reduce, aval.dtype, op)
        return [reduce.result]
    return rule


lowering_rules[lax.cumsum_p] = _cumulative_lowering(hlo.add, 0)
lowering_rules[lax.cumprod_p] = _cumulative_lowering(hlo.multiply, 1)


def _argminmax_lowering(direction, identity):
    def rule(ctx, x, *, axes, index_dtype):
        aval, = ctx.avals_in
        out_aval, = ctx.avals_out
        value_scalar, index_scalar = aval.update(shape=()), out_aval.update(shape=())
        indices = hlo.iota(aval_to_ir_type(aval.update(dtype=index_dtype)), axes[0])
        init = [ir_constant(identity(aval.dtype), aval.dtype), ir_constant(0, index_dtype)]
        out_types = [aval_to_ir_type(out_aval.update(dtype=aval.dtype)), aval_to_ir_type(out_aval)]
        reduce = hlo.ReduceOp(out_types, [x, indices], init, dense_int_array(axes))
        types = [aval_to_ir_type(value_scalar), aval_to_ir_type(index_scalar)] * 2
        body = reduce.regions[0].blocks.append(*types)
        with ir.InsertionPoint(body):
            a, i, b, j = body.arguments
            take_a = hlo.or_(compare(a, b, direction, value_scalar),
                             compare(a, a, "NE", value_scalar))      # a is NaN
            take_i = hlo.or_(take_a, hlo.and_(compare(a, b, "EQ", value_scalar),
                                              compare(i, j, "LT", index_scalar)))
            hlo.return_([hlo.select(take_a, a, b), hlo.select(take_i, i, j)])
        return [reduce.results[1]]
    return rule


lowering_rules[lax.argmax_p] = _argminmax_lowering("GT", lax.lowest)
lowering_rules[lax.argmin_p] = _argminmax_lowering("LT", lax.highest)
