# Generated from chapters/A20_bit_primitives.md by `make export`: edit the chapter, not this file.


"""The rules of the bit primitives (shifts, bitcasts) under jit and vmap, and `reduce_precision`
(appendix A20, for chapters 12 and 14)."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax.autodiff import transpose_rules
from autodidax.batching import batching_rules
from autodidax.core import Primitive, abstract_eval_rules, get_aval, impl_rules
from autodidax.jvp import Zero, defjvp_zero, jvp_rules
from autodidax.lowering import aval_to_ir_type, lowering_rules, nary_lowering


def elementwise_batching(primitive):
    """The batching rule of an elementwise primitive: batch axes to the front; an unbatched
    operand broadcasts along them (a size-1 axis), a batched one of lower rank is made a column."""
    def rule(vals, dims, **params):
        size = next(get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not None)
        rank = max(get_aval(v).ndim - (d is not None) for v, d in zip(vals, dims))

        def to_front(v, d):
            ndim = get_aval(v).ndim
            if d is None:
                return lax.expand_dims(v, [0]) if ndim else v
            if d != 0:
                perm = [d] + [i for i in range(ndim) if i != d]
                v = lax.transpose(v, perm)
            if ndim - 1 < rank:
                v = lax.reshape(v, (size,) + (1,) * (rank - ndim + 1) + get_aval(v).shape[1:])
            return v
        out = primitive.bind(*map(to_front, vals, dims), **params)
        return out, ([0] * len(out) if primitive.multiple_results else 0)
    return rule


def _bit_rules(primitive, lowering):
    batching_rules[primitive] = elementwise_batching(primitive)
    lowering_rules[primitive] = lowering
    defjvp_zero(primitive)


def _bitcast_lowering(ctx, x, *, new_dtype):
    return [hlo.bitcast_convert(aval_to_ir_type(ctx.avals_out[0]), x)]


_bit_rules(lax.shift_left_p, nary_lowering(hlo.shift_left))
_bit_rules(lax.shift_right_logical_p, nary_lowering(hlo.shift_right_logical))
_bit_rules(lax.shift_right_arithmetic_p, nary_lowering(hlo.shift_right_arithmetic))
_bit_rules(lax.bitcast_convert_type_p, _bitcast_lowering)


reduce_precision_p = Primitive("reduce_precision")


def _reduce_precision_impl(x, *, exponent_bits, mantissa_bits):
    info = np.finfo(x.dtype)
    if (exponent_bits, mantissa_bits) != (info.nexp, info.nmant):
        raise NotImplementedError("reduce_precision to fewer bits than the dtype has")
    return x


impl_rules[reduce_precision_p] = _reduce_precision_impl
abstract_eval_rules[reduce_precision_p] = lambda x, **params: x
jvp_rules[reduce_precision_p] = lambda primals, tangents, **params: (
    reduce_precision_p.bind(primals[0], **params),
    tangents[0] if type(tangents[0]) is Zero else reduce_precision_p.bind(tangents[0], **params))
transpose_rules[reduce_precision_p] = lambda ct, x, **params: [
    reduce_precision_p.bind(ct, **params)]
batching_rules[reduce_precision_p] = lambda vals, dims, **params: (
    reduce_precision_p.bind(vals[0], **params), dims[0])


def _reduce_precision_lowering(ctx, x, *, exponent_bits, mantissa_bits):
    i32 = ir.IntegerType.get_signless(32)
    return [hlo.reduce_precision(x, ir.IntegerAttr.get(i32, exponent_bits),
                                 ir.IntegerAttr.get(i32, mantissa_bits))]


lowering_rules[reduce_precision_p] = _reduce_precision_lowering
