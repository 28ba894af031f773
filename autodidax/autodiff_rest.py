# Generated from chapters/A19_donation_and_autodiff_rest.md by `make export`: edit the chapter, not this file.


"""The rest of chapter 9: `grad`'s checks with JAX's errors, the transposes of the rarer
structural primitives, and `split`, for concatenate's."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax.autodiff import grad_checks, instantiate_zeros, is_linear, transpose_rules
from autodidax.batching import batching_rules
from autodidax.core import (LiteralArray, Primitive, ShapedArray, abstract_eval_rules, dtype_kind,
                            get_aval, impl_rules)
from autodidax.jvp import deflinear, float0, tangent_aval
from autodidax.lowering import lowering_rules


def _check_argnums(argnums, args):
    most = argnums if isinstance(argnums, int) else max(argnums)
    if most >= len(args):
        raise TypeError(f"differentiating with respect to {argnums=} requires at least "
                        f"{most + 1} positional arguments to be passed by the caller, but "
                        f"got only {len(args)} positional arguments.")


def _check_cotangents(cts_flat, out_avals):
    for ct, aval in zip(cts_flat, out_avals):
        want = tangent_aval(aval)
        got = (np.shape(ct), ct.dtype if getattr(ct, "dtype", None) == float0
               else get_aval(ct).dtype)
        if got[0] != want.shape or (got[1] != want.dtype and want.dtype != float0):
            raise ValueError(f"a cotangent of type {_type_str(*got)} was given for an "
                             f"output of type {aval.str_short()}")


def _type_str(shape, dtype):
    if dtype == float0:
        return f"float0[{','.join(map(str, shape))}]"
    return ShapedArray(shape, dtype).str_short()


def _check_inputs(name, leaves, allow_int, holomorphic):
    for leaf in leaves:
        dtype = get_aval(leaf).dtype
        if holomorphic and dtype_kind(dtype) != "c":
            raise TypeError(f"{name} with holomorphic=True requires inputs with complex dtype, "
                            f"but got {dtype.name}.")
        if dtype_kind(dtype) not in "fc" and not allow_int:
            raise TypeError(f"{name} requires real- or complex-valued inputs (input dtype that "
                            f"is a sub-dtype of np.inexact), but got {dtype.name}. If you want "
                            "to use Boolean- or integer-valued inputs, use vjp or set allow_int "
                            "to True.")


def _check_scalar(out):
    try:
        aval = get_aval(out)
    except TypeError:
        aval = None
    if aval is None or aval.shape:
        what = f"was {out}" if aval is None else f"had shape: {aval.shape}"
        raise TypeError(f"Gradient only defined for scalar-output functions. Output {what}.")


def _check_outputs(name, leaves, holomorphic):
    for leaf in leaves:
        dtype, kind = get_aval(leaf).dtype, dtype_kind(get_aval(leaf).dtype)
        if holomorphic and kind != "c":
            raise TypeError(f"{name} with holomorphic=True requires outputs with complex dtype, "
                            f"but got {dtype.name}.")
        if not holomorphic and kind != "f":
            advice = ("For holomorphic differentiation, pass holomorphic=True. For "
                      "differentiation of non-holomorphic functions involving complex outputs, "
                      "use jax.vjp directly." if kind == "c" else "For differentiation of "
                      "functions with integer outputs, use jax.vjp directly.")
            raise TypeError(f"{name} requires real-valued outputs (output dtype that is a "
                            f"sub-dtype of np.floating), but got {dtype.name}. {advice}")


grad_checks.update(argnums=_check_argnums, cotangents=_check_cotangents, inputs=_check_inputs,
                   scalar=_check_scalar, outputs=_check_outputs)


def _zero(x):
    """A strongly typed 0 of `x`'s dtype: JAX's `np.zeros((), dtype)`, which makes the result
    of a transposed `real` or `imag` strongly typed."""
    return np.zeros((), get_aval(x).dtype)


transpose_rules[lax.rev_p] = lambda ct, x, *, dimensions: [lax.rev(ct, dimensions)]
transpose_rules[lax.real_p] = lambda ct, x: [lax.complex(ct, _zero(ct))]
transpose_rules[lax.imag_p] = lambda ct, x: [lax.complex(_zero(ct), lax.neg(ct))]
transpose_rules[lax.complex_p] = lambda ct, x, y: [lax.real(ct) if is_linear(x) else None,
                                                   lax.imag(lax.neg(ct)) if is_linear(y) else None]
transpose_rules[lax.conj_p] = lambda ct, x, *, input_dtype: [
    lax.conj(ct) if dtype_kind(input_dtype) == "c" else lax.real(ct)]
transpose_rules[lax.cumsum_p] = lambda ct, x, *, axis, reverse: [
    lax.cumsum(ct, axis, not reverse)]
transpose_rules[lax.stack_p] = lambda ct, *xs, axis: [
    piece if is_linear(x) else None for x, piece in zip(xs, lax.unstack_p.bind(ct, axis=axis))]
transpose_rules[lax.unstack_p] = lambda cts, x, *, axis: [
    lax.stack_p.bind(*map(instantiate_zeros, cts), axis=axis)]


pad = lax.pad


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    shape = x.aval.shape
    strides = strides or (1,) * len(shape)
    config = []
    for d, start, stride, n in zip(shape, start_indices, strides, get_aval(ct).shape):
        end = start + (n - 1) * stride + 1 if n else start
        config.append((start, d - end, stride - 1))
    return [lax.pad(ct, LiteralArray(np.zeros((), x.aval.dtype)), config)]


def _pad_transpose(ct, x, padding_value, *, padding_config):
    lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
    everything = list(range(get_aval(ct).ndim))

    def t_operand():
        unpadded = lax.pad(ct, np.zeros((), get_aval(ct).dtype),
                           [(-a, -b, 0) for a, b in zip(lo, hi)])
        return lax.slice(unpadded, [0] * len(lo), get_aval(unpadded).shape,
                         [i + 1 for i in interior])

    t_x = t_operand() if is_linear(x) or is_linear(padding_value) else None
    t_value = (lax.sub(lax.reduce_sum(ct, everything), lax.reduce_sum(t_x, everything))
               if is_linear(padding_value) else None)
    return [t_x if is_linear(x) else None, t_value]


transpose_rules[lax.slice_p] = _slice_transpose
transpose_rules[lax.pad_p] = _pad_transpose


split_p = Primitive("split")
split_p.multiple_results = True


def _split_impl(x, *, sizes, axis):
    return np.split(x, np.cumsum(sizes)[:-1], axis)


def _split_abstract(x, *, sizes, axis):
    if not 0 <= axis < x.ndim or any(n < 0 for n in sizes) or sum(sizes) != x.shape[axis]:
        raise ValueError(f"split: sizes {sizes} must be nonnegative and add up to dimension "
                         f"{axis} of the operand's shape {x.shape}")
    return [x.update(shape=x.shape[:axis] + (n,) + x.shape[axis + 1:]) for n in sizes]


def split(x, sizes, axis=0):
    return split_p.bind(x, sizes=tuple(sizes), axis=axis)


def _concatenate_transpose(ct, *xs, dimension):
    sizes = [(x.aval if is_linear(x) else get_aval(x)).shape[dimension] for x in xs]
    return [piece if is_linear(x) else None
            for x, piece in zip(xs, split(ct, sizes, dimension))]


def _split_batching_rule(vals, dims, *, sizes, axis):
    (x,), (d,) = vals, dims
    return split(x, sizes, axis + (axis >= d)), [d] * len(sizes)


def _split_lowering(ctx, x, *, sizes, axis):
    aval, outs, start = ctx.avals_in[0], [], 0
    dense = lambda xs: ir.DenseI64ArrayAttr.get(list(xs))
    for n in sizes:
        starts, limits = [0] * aval.ndim, list(aval.shape)
        starts[axis], limits[axis] = start, start + n
        outs.append(hlo.slice(x, dense(starts), dense(limits), dense([1] * aval.ndim)))
        start += n
    return outs


impl_rules[split_p] = _split_impl
abstract_eval_rules[split_p] = _split_abstract
deflinear(split_p)
batching_rules[split_p] = _split_batching_rule
lowering_rules[split_p] = _split_lowering
transpose_rules[lax.concatenate_p] = _concatenate_transpose
transpose_rules[split_p] = lambda cts, x, *, sizes, axis: [
    lax.concatenate(list(map(instantiate_zeros, cts)), axis)]
