# Generated from chapters/A27_convolutions_and_windows.md by `make export`: edit the chapter, not this file.


"""Convolutions, windows and the rest of lax (appendix A27): `conv_general_dilated` and its
wrappers, `reduce_window` and the cumulative reductions, and the small names of `jax.lax`,
each written as JAX 0.10.2 writes it."""
from __future__ import annotations

import enum
import functools
import itertools
import math
import operator
import warnings
from typing import NamedTuple, Sequence, Union

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax import numpy as jnp
from autodidax.autodiff import is_linear, transpose_rules, vjp
from autodidax.batching import batching_rules, bdim_at_front, reducer
from autodidax.control_flow import trace_to_jaxpr_with_consts
from autodidax.core import (Primitive, ShapedArray, Tracer, UnexpectedTracerError,
                            abstract_eval_rules, canonicalize_dtype, dtype_kind, get_aval,
                            impl_rules)
from autodidax.bit_primitives import elementwise_batching, reduce_precision_p
from autodidax.collectives_on_devices import all_to_all, ppermute
from autodidax.indexing import GatherDimensionNumbers, gather, lower_fun, sort, xla_impl
from autodidax.indexing_rest import top_k
from autodidax.jaxpr import eval_jaxpr, trace_to_jaxpr
from autodidax.jvp import (Zero, deflinear, defjvp2, defjvp_zero, instantiate_zeros, jvp,
                           jvp_rules, stop_gradient)
from autodidax.numpy import jitted
from autodidax.runtime import config, default_device
from autodidax.tree_util import (register_pytree_node, tree_flatten, tree_map,
                                tree_structure, tree_unflatten)
from autodidax.lowering import (aval_to_ir_type, dense_int_array, dtype_to_ir_type,
                                ir_constant, jaxpr_subcomp, lower_jaxpr_to_fun, lowering_rules,
                                nary_lowering, reduce_lowering, reducer_region)


class ConvDimensionNumbers(NamedTuple):
    """Where the batch, feature and spatial dimensions of a convolution's operands sit:
    `lhs_spec` and `out_spec` are (batch, feature, spatial...), `rhs_spec` is (out feature,
    in feature, spatial...), each a tuple of dimension numbers."""
    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


ConvGeneralDilatedDimensionNumbers = Union[tuple[str, str, str], ConvDimensionNumbers, None]


class Precision(enum.Enum):
    """How precisely an accelerator multiplies float32s (no effect on the CPU)."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value):
        return _PRECISION_NAMES.get(value)

    def __repr__(self):
        return f"Precision.{self.name}"

    def __str__(self):
        return self.name


_PRECISION_NAMES = {"highest": Precision.HIGHEST, "float32": Precision.HIGHEST,
                    "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH,
                    "tensorfloat32": Precision.HIGH, "default": Precision.DEFAULT,
                    "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
                    None: Precision.DEFAULT}


def canonicalize_precision(precision):
    """None, or a pair of `Precision`s (one per operand), from what a user may pass; for None,
    `jax_default_matmul_precision`'s when that option is set, as in JAX."""
    if precision is None:
        precision = config.jax_default_matmul_precision
    if precision is None or isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        return precision                      # an algorithm (defined below) is kept as it is
    if isinstance(precision, (Precision, str)):
        return (Precision(precision),) * 2
    if (isinstance(precision, (list, tuple)) and len(precision) == 2
            and all(isinstance(p, (Precision, str)) for p in precision)):
        return tuple(map(Precision, precision))
    raise ValueError(f"Precision argument must be one of:\n- None,\n- a string, \n- a "
                     f"lax.Precision value,\n- a tuple of two lax.Precision values or "
                     f"strings; got {precision}.")


lax.canonical_params["precision"] = canonicalize_precision     # dot_general's (appendix A6)


def conv_general_permutations(dimension_numbers):
    """The permutations that bring each operand of a convolution into (batch or out feature,
    feature, spatial...) order, from the three strings (`'NCHW', 'OIHW', 'NCHW'`)."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    pairs = ("N", "C"), ("O", "I"), ("N", "C")
    for i, (a, b) in enumerate(pairs):
        if not dimension_numbers[i].count(a) == dimension_numbers[i].count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters "
                            f"'{a}' and '{b}' exactly once, got {dimension_numbers[i]}.")
        if len(dimension_numbers[i]) != len(set(dimension_numbers[i])):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate "
                            f"characters, got {dimension_numbers[i]}.")
    if not (set(lhs_spec) - set(pairs[0]) == set(rhs_spec) - set(pairs[1])
            == set(out_spec) - set(pairs[2])):
        raise TypeError("convolution dimension_numbers elements must each have the same set "
                        f"of spatial characters, got {dimension_numbers}.")

    def perm(spec, pair):      # spatial dimensions in the order the kernel's string names them
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_spec:
            spatial.sort(key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)
    return tuple(map(perm, dimension_numbers, pairs))


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """`dimension_numbers` (None, three strings, or already `ConvDimensionNumbers`) made a
    `ConvDimensionNumbers`; None means (batch, feature, spatial...) for all three."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError("convolution requires lhs and rhs ndim to be equal, got "
                        f"{len(lhs_shape)} and {len(rhs_shape)}.")
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError("convolution dimension_numbers must be tuple/list or None, got "
                        f"{type(dimension_numbers)}.")
    if len(dimension_numbers) != 3:
        raise TypeError("convolution dimension_numbers list/tuple must be length 3, got "
                        f"{len(dimension_numbers)}.")
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError("convolution dimension_numbers elements must be strings, got "
                        f"{tuple(map(type, dimension_numbers))}.")
    for i, s in enumerate(dimension_numbers):
        if len(s) != len(lhs_shape):
            raise TypeError(f"convolution dimension_numbers[{i}] must have len equal to the "
                            f"ndim of lhs and rhs, got {len(s)} for lhs and rhs shapes "
                            f"{lhs_shape} and {rhs_shape}.")
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def padtype_to_pads(in_shape, window_shape, window_strides, padding):
    """(low, high) pads per spatial dimension for `'VALID'`, `'SAME'` (the odd one at the
    end) or `'SAME_LOWER'` (at the start): `'SAME'` keeps ceil(size / stride) outputs."""
    if not isinstance(padding, str):
        raise TypeError(f"Unknown padding type: {padding}.")
    kind = padding.upper()
    if kind not in ("VALID", "SAME", "SAME_LOWER"):
        raise RuntimeError("Unrecognized padding type: expected 'VALID', 'SAME', or "
                           f"'SAME_LOWER', got {padding}.")
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides):
        total = max((-(-int(n) // int(s)) - 1) * int(s) + int(k) - int(n), 0)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if kind == "SAME" else (big, small))
    return pads


def _dilate(sizes, dilation):
    if not all(r > 0 for r in dilation):
        raise TypeError(f"All dilations must be positive, got {dilation}.")
    return tuple(0 if d == 0 else 1 + r * (d - 1) for d, r in zip(sizes, dilation))


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1):
    """The output shape of a convolution of operands in canonical order (N, C, spatial...) and
    (O, I, spatial...)."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError("Wrong number of explicit pads for convolution: expected "
                        f"{len(lhs_shape) - 2}, got {len(pads)}.")
    padded = np.add(lhs_shape[2:], np.sum(np.array(pads).reshape(-1, 2), axis=1))
    if np.any(padded < 0):
        raise ValueError("Negative padding is larger than the size of the corresponding "
                         f"dimension: got padding={pads} for lhs_shape[2:]={lhs_shape[2:]}")
    space = tuple(0 if p < k else (p - k) // s + 1
                  for p, k, s in zip(padded, rhs_shape[2:], strides))
    batch = lhs_shape[0] // batch_group_count if batch_group_count > 1 else lhs_shape[0]
    return (batch, rhs_shape[0]) + space


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                             dimension_numbers):
    """The output shape of a convolution whose operands' layouts the three strings give."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm),
                           window_strides, padding)
    return tuple(np.take(out, np.argsort(out_perm)))


def _conv_transpose_padding(k, s, padding):
    """(before, after) padding of the dilated input of a transposed convolution."""
    if padding == "SAME":
        total = k + s - 2
        before = k - 1 if s > k - 1 else int(np.ceil(total / 2))
    elif padding == "VALID":
        total = k + s - 2 + max(k - s, 0)
        before = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        before, total = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return before, total - before


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding,
                               dimension_numbers):
    """The output shape of `conv_transpose`."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_t, rhs_t = np.take(lhs_shape, lhs_perm), np.take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(k, s, padding)
                   for k, s in zip(rhs_t[2:], window_strides)]
    space = [(i - 1) * s - k + 2 + int(np.sum(p))
             for i, k, s, p in zip(lhs_t[2:], rhs_t[2:], window_strides, padding)]
    out = (lhs_t[0], rhs_t[0]) + tuple(space)
    return tuple(np.take(out, np.argsort(out_perm)))


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
                         rhs_dilation=None, dimension_numbers=None, feature_group_count=1,
                         batch_group_count=1, precision=None, preferred_element_type=None,
                         out_sharding=None):
    """The general convolution: `padding` a string or (low, high) pairs, the dilations None or
    one factor per spatial dimension, `dimension_numbers` None, three strings or
    `ConvDimensionNumbers`. One `conv_general_dilated` equation."""
    lhs_shape, rhs_shape = np.shape(lhs), np.shape(rhs)
    dnums = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    if lhs_dilation is None:
        lhs_dilation = (1,) * (len(lhs_shape) - 2)
    elif isinstance(padding, str) and tuple(lhs_dilation) != (1,) * len(lhs_dilation):
        raise ValueError("String padding is not implemented for transposed convolution using "
                         "this op. Please either exactly specify the required padding or use "
                         "conv_transpose.")
    if rhs_dilation is None:
        rhs_dilation = (1,) * (len(rhs_shape) - 2)
    if isinstance(padding, str):
        window = _dilate(np.take(rhs_shape, dnums.rhs_spec)[2:], rhs_dilation)
        padding = padtype_to_pads(np.take(lhs_shape, dnums.lhs_spec)[2:], window,
                                  window_strides, padding)
    else:
        try:
            padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (ValueError, TypeError) as e:
            raise ValueError("padding argument to conv_general_dilated should be a string or "
                             f"a sequence of (low, high) pairs, got {padding}") from e
    if preferred_element_type is not None:
        preferred_element_type = canonicalize_dtype(preferred_element_type)
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=tuple(window_strides), padding=tuple(map(tuple, padding)),
        lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(rhs_dilation),
        dimension_numbers=dnums, feature_group_count=feature_group_count,
        batch_group_count=batch_group_count, precision=canonicalize_precision(precision),
        preferred_element_type=preferred_element_type, out_sharding=out_sharding)


conv_general_dilated_p = Primitive("conv_general_dilated")


def _conv_shape(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                dimension_numbers, feature_group_count, batch_group_count):
    """The output shape, after JAX's checks of the operands and group counts."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    name = "conv_general_dilated"
    if lhs.ndim != rhs.ndim:
        raise ValueError(f"{name} lhs and rhs must have the same number of dimensions, but "
                         f"got {lhs.shape} and {rhs.shape}.")
    if not feature_group_count > 0:
        raise ValueError(f"{name} feature_group_count must be a positive integer, got "
                         f"{feature_group_count}.")
    features, in_features = lhs.shape[lhs_spec[1]], rhs.shape[rhs_spec[1]]
    out_features = rhs.shape[rhs_spec[0]]
    if features % feature_group_count:
        raise ValueError(f"{name} feature_group_count must divide lhs feature dimension "
                         f"size, but {feature_group_count} does not divide {features}.")
    if features // feature_group_count != in_features:
        raise ValueError(f"{name} lhs feature dimension size divided by feature_group_count "
                         "must equal the rhs input feature dimension size, but "
                         f"{features} // {feature_group_count} != {in_features}.")
    if out_features % feature_group_count:
        raise ValueError(f"{name} rhs output feature dimension size must be a multiple of "
                         f"feature_group_count, but {out_features} is not a multiple of "
                         f"{feature_group_count}.")
    if not batch_group_count > 0:
        raise ValueError(f"{name} batch_group_count must be a positive integer, got "
                         f"{batch_group_count}.")
    batch = lhs.shape[lhs_spec[0]]
    if batch_group_count > 1 and batch % batch_group_count:
        raise ValueError(f"{name} batch_group_count must divide lhs batch dimension size, "
                         f"but {batch_group_count} does not divide {batch}.")
    if out_features % batch_group_count:
        raise ValueError(f"{name} rhs output feature dimension size must be a multiple of "
                         f"batch_group_count, but {out_features} is not a multiple of "
                         f"{batch_group_count}.")
    if batch_group_count > 1 and feature_group_count > 1:
        raise ValueError("At most one of batch_group_count and feature_group_count may be > "
                         f"1, got batch_group_count={batch_group_count} and "
                         f"feature_group_count={feature_group_count}")
    if len(rhs_spec) - 2 != len(window_strides):
        raise ValueError(f"{name} window and window_strides must have the same number of "
                         f"dimensions, but got {len(rhs_spec) - 2} and {len(window_strides)}")
    lhs_t = _dilate(np.take(lhs.shape, lhs_spec), (1, 1) + tuple(lhs_dilation))
    rhs_t = _dilate(np.take(rhs.shape, rhs_spec), (1, 1) + tuple(rhs_dilation))
    out_t = conv_shape_tuple(lhs_t, rhs_t, window_strides, padding, batch_group_count)
    return tuple(np.take(out_t, np.argsort(out_spec)).tolist())


def _conv_abstract(lhs, rhs, *, preferred_element_type, precision, out_sharding, **params):
    if lhs.dtype != rhs.dtype:
        raise TypeError("lax.conv_general_dilated requires arguments to have the same dtypes, "
                        f"got {lhs.dtype.name}, {rhs.dtype.name}.")
    return ShapedArray(_conv_shape(lhs, rhs, **params), preferred_element_type or lhs.dtype,
                       lhs.weak_type and rhs.weak_type)


impl_rules[conv_general_dilated_p] = xla_impl(conv_general_dilated_p)
abstract_eval_rules[conv_general_dilated_p] = _conv_abstract


defjvp2(conv_general_dilated_p,
        lambda t, ans, lhs, rhs, **params: conv_general_dilated_p.bind(t, rhs, **params),
        lambda t, ans, lhs, rhs, **params: conv_general_dilated_p.bind(lhs, t, **params))


def _reshape_axis_into(src, dst, x):
    """Merge axis `src` of `x` into axis `dst` (of the array without `src`), as its major part."""
    shape = get_aval(x).shape
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new = [d for i, d in enumerate(shape) if i != src]
    new[dst] *= shape[src]
    if perm != sorted(perm):
        x = lax.transpose(x, perm)
    return lax.reshape(x, new)


def _reshape_axis_out_of(src, size, x):
    """Split axis `src` of `x` into two, the first of `size`."""
    shape = list(get_aval(x).shape)
    shape[src:src + 1] = [size, shape[src] // size]
    return lax.reshape(x, shape)


def _swap(spec):
    return (spec[1], spec[0]) + tuple(spec[2:])


def _conv_transpose_lhs(ct, lhs, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision, preferred_element_type, out_sharding):
    """The cotangent of `lhs`: a convolution of `ct` with the spatially reversed kernel, its
    in and out features swapped, strides and input dilation exchanged."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape, rhs_shape = lhs.aval.shape, get_aval(rhs).shape
    if feature_group_count > 1 or batch_group_count > 1:
        groups = max(feature_group_count, batch_group_count)
        rhs = _reshape_axis_out_of(rhs_spec[0], groups, rhs)
        rhs = _reshape_axis_into(rhs_spec[0], rhs_spec[1], rhs)
        feature_group_count = groups
    ct_shape = get_aval(ct).shape
    lhs_d = _dilate(np.take(lhs_shape, lhs_spec[2:]), lhs_dilation)
    rhs_d = _dilate(np.take(rhs_shape, rhs_spec[2:]), rhs_dilation)
    out_d = _dilate(np.take(ct_shape, out_spec[2:]), window_strides)
    before = [k - lo - 1 for k, (lo, _) in zip(rhs_d, padding)]
    pads = [(int(b), int(n + k - 1 - o - b)) for b, n, k, o in zip(before, lhs_d, rhs_d, out_d)]
    kernel = lax.rev(rhs, tuple(rhs_spec[2:]))
    if get_aval(kernel).dtype != get_aval(ct).dtype:
        kernel = lax.convert_element_type(kernel, get_aval(ct).dtype)
    out = conv_general_dilated(
        ct, kernel, window_strides=lhs_dilation, padding=pads, lhs_dilation=window_strides,
        rhs_dilation=rhs_dilation,
        dimension_numbers=ConvDimensionNumbers(out_spec, _swap(rhs_spec), lhs_spec),
        feature_group_count=feature_group_count, batch_group_count=1, precision=precision,
        preferred_element_type=preferred_element_type)
    if get_aval(out).dtype != lhs.aval.dtype:
        out = lax.convert_element_type(out, lhs.aval.dtype)
    if batch_group_count > 1:
        out = _reshape_axis_out_of(lhs_spec[1], batch_group_count, out)
        out = _reshape_axis_into(lhs_spec[1], lhs_spec[0], out)
    return out


def _conv_transpose_rhs(ct, lhs, rhs, *, window_strides, padding, lhs_dilation,
                        rhs_dilation, dimension_numbers, feature_group_count,
                        batch_group_count, precision, preferred_element_type, out_sharding):
    """The cotangent of `rhs`: a convolution of `lhs` with `ct` as its kernel, batch and
    feature dimensions swapped, strides and kernel dilation exchanged."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape, rhs_shape, ct_shape = get_aval(lhs).shape, rhs.aval.shape, get_aval(ct).shape
    if batch_group_count > 1:
        feature_group_count, batch_group_count = batch_group_count, 1
    elif feature_group_count > 1:
        feature_group_count, batch_group_count = 1, feature_group_count
    lhs_d = _dilate(np.take(lhs_shape, lhs_spec[2:]), lhs_dilation)
    rhs_d = _dilate(np.take(rhs_shape, rhs_spec[2:]), rhs_dilation)
    out_d = _dilate(np.take(ct_shape, out_spec[2:]), window_strides)
    pads = [(int(lo), int(o - n + k - lo - 1))
            for (lo, _), n, k, o in zip(padding, lhs_d, rhs_d, out_d)]
    if get_aval(lhs).dtype != get_aval(ct).dtype:
        lhs = lax.convert_element_type(lhs, get_aval(ct).dtype)
    out = conv_general_dilated(
        lhs, ct, window_strides=rhs_dilation, padding=pads, lhs_dilation=lhs_dilation,
        rhs_dilation=window_strides,
        dimension_numbers=ConvDimensionNumbers(_swap(lhs_spec), _swap(out_spec),
                                               _swap(rhs_spec)),
        feature_group_count=feature_group_count, batch_group_count=batch_group_count,
        precision=precision, preferred_element_type=preferred_element_type)
    if get_aval(out).dtype != rhs.aval.dtype:
        out = lax.convert_element_type(out, rhs.aval.dtype)
    return out


def _conv_transpose(ct, lhs, rhs, **params):
    if is_linear(lhs) and is_linear(rhs):
        raise ValueError("conv_general_dilated of two linear values is not linear")
    if is_linear(lhs):
        return [_conv_transpose_lhs(ct, lhs, rhs, **params), None]
    return [None, _conv_transpose_rhs(ct, lhs, rhs, **params)]


transpose_rules[conv_general_dilated_p] = _conv_transpose


def _conv_batch(vals, dims, **params):
    """vmap of a convolution: the batch axis folded into the batch dimension (of `lhs`), the
    out features (of `rhs`), or, both batched, into groups of features."""
    (lhs, rhs), (lb, rb) = vals, dims
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    conv = lambda x, y, **kw: conv_general_dilated_p.bind(x, y, **{**params, **kw})  # noqa: E731
    if lb is not None and rb is not None:
        n = get_aval(lhs).shape[lb]
        if bgc > 1:
            new_lhs, kw = _reshape_axis_into(lb, lhs_spec[0], lhs), {"batch_group_count": bgc * n}
        else:
            new_lhs = _reshape_axis_into(lb, lhs_spec[1], lhs)
            kw = {"feature_group_count": fgc * n}
        out = conv(new_lhs, _reshape_axis_into(rb, rhs_spec[0], rhs), **kw)
        return _reshape_axis_out_of(out_spec[1], n, out), out_spec[1]
    if lb is not None:
        n = get_aval(lhs).shape[lb]
        if bgc == 1:
            out = conv(_reshape_axis_into(lb, lhs_spec[0], lhs), rhs)
        else:
            new = _reshape_axis_out_of(lhs_spec[0] + int(lb <= lhs_spec[0]), bgc, lhs)
            new = _reshape_axis_into(lb + int(lhs_spec[0] < lb), lhs_spec[0] + 1, new)
            out = conv(_reshape_axis_into(lhs_spec[0], lhs_spec[0], new), rhs)
        return _reshape_axis_out_of(out_spec[0], n, out), out_spec[0]
    n = get_aval(rhs).shape[rb]
    if fgc == 1 and bgc == 1:
        out = conv(lhs, _reshape_axis_into(rb, rhs_spec[0], rhs))
        return _reshape_axis_out_of(out_spec[1], n, out), out_spec[1]
    groups = max(fgc, bgc)
    new = _reshape_axis_out_of(rhs_spec[0] + int(rb <= rhs_spec[0]), groups, rhs)
    new = _reshape_axis_into(rb + int(rhs_spec[0] < rb), rhs_spec[0] + 1, new)
    out = conv(lhs, _reshape_axis_into(rhs_spec[0], rhs_spec[0], new))
    out = _reshape_axis_out_of(out_spec[1], groups, out)
    out = _reshape_axis_out_of(out_spec[1] + 1, n, out)
    return _reshape_axis_into(out_spec[1], out_spec[1] + 1, out), out_spec[1]


batching_rules[conv_general_dilated_p] = _conv_batch


def _complex_conv(lhs, rhs, **params):
    """A complex convolution as three real ones (Gauss's trick), as JAX lowers it on the CPU."""
    conv = lambda x, y: conv_general_dilated_p.bind(x, y, **params)    # noqa: E731
    xr, xi, yr, yi = lax.real(lhs), lax.imag(lhs), lax.real(rhs), lax.imag(rhs)
    k1 = conv(lax.add(xr, xi), yr)
    k2 = conv(xr, lax.sub(yi, yr))
    k3 = conv(xi, lax.add(yr, yi))
    return lax.complex(lax.sub(k1, k3), lax.add(k1, k2))


def _conv_lowering(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation,
                   dimension_numbers, feature_group_count, batch_group_count, precision,
                   preferred_element_type, out_sharding):
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    dnums = hlo.ConvDimensionNumbers.get(
        input_batch_dimension=lhs_spec[0], input_feature_dimension=lhs_spec[1],
        input_spatial_dimensions=list(lhs_spec[2:]),
        kernel_output_feature_dimension=rhs_spec[0],
        kernel_input_feature_dimension=rhs_spec[1],
        kernel_spatial_dimensions=list(rhs_spec[2:]), output_batch_dimension=out_spec[0],
        output_feature_dimension=out_spec[1], output_spatial_dimensions=list(out_spec[2:]))
    if np.issubdtype(ctx.avals_in[0].dtype, np.complexfloating):
        real = preferred_element_type and np.finfo(preferred_element_type).dtype
        return lower_fun(_complex_conv, ctx, lhs, rhs, window_strides=window_strides,
                         padding=padding, lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                         dimension_numbers=dimension_numbers,
                         feature_group_count=feature_group_count,
                         batch_group_count=batch_group_count, precision=precision,
                         preferred_element_type=real, out_sharding=out_sharding)
    i64 = ir.IntegerType.get_signless(64)
    pads = np.asarray(padding, np.int64).reshape(len(padding), 2)
    return [hlo.convolution(
        aval_to_ir_type(ctx.avals_out[0]), lhs, rhs, dimension_numbers=dnums,
        feature_group_count=ir.IntegerAttr.get(i64, feature_group_count),
        batch_group_count=ir.IntegerAttr.get(i64, batch_group_count),
        window_strides=dense_int_array(window_strides),
        padding=ir.DenseIntElementsAttr.get(pads, type=ir.RankedTensorType.get(pads.shape, i64)),
        lhs_dilation=dense_int_array(lhs_dilation), rhs_dilation=dense_int_array(rhs_dilation),
        window_reversal=ir.DenseBoolArrayAttr.get([False] * len(padding)))]


lowering_rules[conv_general_dilated_p] = _conv_lowering


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """A convolution in the (N, C, spatial...) and (O, I, spatial...) layouts."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """`conv`, with explicit padding and dilations."""
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


_TRANSPOSE_LAYOUTS = {2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"),
                      4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC")}


def _moveaxis(x, src, dst):
    ndim = get_aval(x).ndim
    src, dst = [s % ndim for s in src], [d % ndim for d in dst]
    rest = [i for i in range(ndim) if i not in src]
    perm = [None] * ndim
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    perm = [p if p is not None else next(it) for p in perm]
    return x if perm == sorted(perm) else lax.transpose(x, perm)


def conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
                   transpose_kernel=False, precision=None, preferred_element_type=None,
                   use_consistent_padding=False):
    """The transposed ("deconvolution") convolution of TensorFlow's `conv2d_transpose`: the
    input dilated by the strides, so that the output grows (channels last by default)."""
    ndim = len(np.shape(lhs))
    if dimension_numbers is None:
        if ndim not in _TRANSPOSE_LAYOUTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _TRANSPOSE_LAYOUTS[ndim]
    dn = conv_dimension_numbers(np.shape(lhs), np.shape(rhs), dimension_numbers)
    kernel = np.take(np.shape(rhs), dn.rhs_spec)[2:]
    if rhs_dilation is None:
        rhs_dilation = (1,) * (ndim - 2)
    if use_consistent_padding or padding in ("SAME", "VALID"):
        per_dim = [padding] * len(strides) if isinstance(padding, str) else padding
        pads = tuple(_conv_transpose_padding(k, s, p) for k, s, p in
                     zip(_dilate(kernel, rhs_dilation), strides, per_dim))
    else:
        pads = padding
    if transpose_kernel:
        rhs = lax.rev(rhs, tuple(dn.rhs_spec[2:]))
        perm = list(range(ndim))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = perm[dn.rhs_spec[1]], perm[dn.rhs_spec[0]]
        rhs = lax.transpose(rhs, perm)
    return conv_general_dilated(lhs, rhs, (1,) * (ndim - 2), pads, strides, rhs_dilation, dn,
                                precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                 lhs_dilation=None, rhs_dilation=None,
                                 dimension_numbers=None, precision=None,
                                 preferred_element_type=None):
    """The patches a convolution of window `filter_shape` would see, as features: one
    grouped convolution with a kernel of 0s and 1s that copies each window's elements."""
    filter_shape = tuple(filter_shape)
    shape = np.shape(lhs)
    dtype = get_aval(lhs).dtype
    lhs_spec, rhs_spec, _ = dn = conv_dimension_numbers(shape, (1, 1) + filter_shape,
                                                        dimension_numbers)
    size, channels = int(np.prod(filter_shape)), shape[lhs_spec[1]]
    eye = lax.convert_element_type(lax.eq(lax.broadcasted_iota(np.int32, (size, size), 0),
                                          lax.broadcasted_iota(np.int32, (size, size), 1)),
                                   dtype)
    rhs = lax.broadcast_in_dim(eye, (channels, size, size), (1, 2))
    rhs = lax.reshape(rhs, (channels * size, 1) + filter_shape)
    rhs = _moveaxis(rhs, (0, 1), (rhs_spec[0], rhs_spec[1]))
    return conv_general_dilated(
        lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dn,
        feature_group_count=channels,
        precision=None if precision is None else (precision, Precision.DEFAULT),
        preferred_element_type=preferred_element_type)


def conv_general_dilated_local(lhs, rhs, window_strides, padding, filter_shape,
                               lhs_dilation=None, rhs_dilation=None, dimension_numbers=None,
                               precision=None):
    """A locally connected layer: a convolution whose kernel differs at each output position
    (`rhs` has the output's spatial dimensions), as patches times weights, position by
    position."""
    patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding,
                                           lhs_dilation, rhs_dilation, dimension_numbers)
    _, rhs_spec, out_spec = conv_dimension_numbers(np.shape(lhs), (1, 1) + tuple(filter_shape),
                                                   dimension_numbers)
    lhs_b = list(out_spec[2:])
    rhs_b = [rhs_spec[2:][i] for i in sorted(range(len(lhs_b)), key=lambda k: lhs_b[k])]
    out = lax.dot_general(patches, rhs, (([out_spec[1]], [rhs_spec[1]]), (sorted(lhs_b), rhs_b)))
    return _moveaxis(out, (-2, -1), (out_spec[0], out_spec[1]))


@jitted(name="_conv", staged=True, static_argnums=(2, 3, 4, 5))
def _conv1d(x, y, mode, op, precision, preferred_element_type=None):
    """`jnp.convolve` and `jnp.correlate`: one 1-D `conv_general_dilated` of the longer
    array with the shorter, flipped for a convolution, conjugated for a correlation."""
    if np.ndim(x) != 1 or np.ndim(y) != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        x, y = jnp.promote_dtypes(x, y, inexact=True)
    else:
        x, y = jnp.promote_dtypes(x, y)
    if len(x) == 0 or len(y) == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {x.shape} and {y.shape}.")
    reverse = False
    if op == "correlate":
        y = jnp.conj(y)
        if len(x) < len(y):
            x, y, reverse = y, x, True
    else:
        if len(x) < len(y):
            x, y = y, x
        y = jnp.flip(y)
    k = y.shape[0]
    pads = {"valid": [(0, 0)], "same": [(k // 2, k - k // 2 - 1)], "full": [(k - 1, k - 1)]}
    if mode not in pads:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    out = conv_general_dilated(x[None, None, :], y[None, None, :], (1,), pads[mode],
                               precision=precision,
                               preferred_element_type=preferred_element_type)
    return out[0, 0, ::-1] if reverse else out[0, 0, :]


@jitted("mode", "precision", "preferred_element_type", staged=True, static_argnums=(2,))
def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """The discrete convolution of two 1-D arrays (`'full'`, `'same'` or `'valid'`)."""
    jnp.check_arraylike("convolve", a, v)
    return _conv1d(a, v, mode, "convolve", precision, preferred_element_type)


@jitted("mode", "precision", "preferred_element_type", staged=True, static_argnums=(2,))
def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """The cross-correlation of two 1-D arrays (`'valid'` by default, as NumPy's)."""
    jnp.check_arraylike("correlate", a, v)
    return _conv1d(a, v, mode, "correlate", precision, preferred_element_type)


jnp.more_functions.update(convolve=convolve, correlate=correlate)


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None):
    """The output shape of a windowed reduction: the operand dilated and padded, the window
    dilated, one output per stride."""
    if base_dilation is not None:
        operand_shape = _dilate(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = _dilate(window_dimensions, window_dilation)
    padded = [d + lo + hi for d, (lo, hi) in zip(operand_shape, padding)]
    return tuple(0 if p < k else (p - k) // s + 1
                 for p, k, s in zip(padded, window_dimensions, window_strides))


def _window_shape(operand, window_dimensions, window_strides, padding, base_dilation,
                  window_dilation):
    """The output shape, after JAX's checks that every parameter has one entry per axis."""
    for name, value in (("window_dimensions", window_dimensions),
                        ("window_strides", window_strides)):
        if any(d <= 0 for d in value):
            raise TypeError(f"reduce_window {name} must have positive entries, got {value}.")
    if operand.ndim != len(window_dimensions):
        raise TypeError("reduce_window got the wrong number of window_dimensions for operand: "
                        f"got operand shape {operand.shape} with window_dimensions "
                        f"{window_dimensions}.")
    for name, value in (("window_strides", window_strides), ("base_dilation", base_dilation),
                        ("window_dilation", window_dilation)):
        if len(value) != len(window_dimensions):
            raise TypeError(f"reduce_window got inconsistent {name} and window_dimensions: got "
                            f"{name} {value} and window_dimensions {window_dimensions}.")
    return reduce_window_shape_tuple(operand.shape, window_dimensions, window_strides, padding,
                                     base_dilation, window_dilation)


def _window_primitive(name, dtypes):
    prim = Primitive(name)

    def abstract(x, **params):
        if dtype_kind(x.dtype) not in dtypes:
            raise TypeError(f"operand to {name} must have a number dtype, got {x.dtype.name}")
        return ShapedArray(_window_shape(x, **params), x.dtype, x.weak_type)
    impl_rules[prim] = xla_impl(prim)
    abstract_eval_rules[prim] = abstract
    return prim


reduce_window_sum_p = _window_primitive("reduce_window_sum", "iufc")
reduce_window_max_p = _window_primitive("reduce_window_max", "biuf")
reduce_window_min_p = _window_primitive("reduce_window_min", "biuf")


def _window_binder(prim):
    def bind(operand, window_dimensions, window_strides, padding, base_dilation=None,
             window_dilation=None):
        ones = (1,) * len(window_dimensions)
        return prim.bind(operand, window_dimensions=tuple(window_dimensions),
                         window_strides=tuple(window_strides),
                         padding=tuple(map(tuple, padding)),
                         base_dilation=tuple(base_dilation or ones),
                         window_dilation=tuple(window_dilation or ones))
    return bind


reduce_window_sum = _window_binder(reduce_window_sum_p)
reduce_window_max = _window_binder(reduce_window_max_p)
reduce_window_min = _window_binder(reduce_window_min_p)


deflinear(reduce_window_sum_p)


def _reduce_window_sum_transpose(ct, operand, *, window_dimensions, window_strides, padding,
                                 base_dilation, window_dilation):
    """The cotangent spread back over each window: `ct` dilated by the strides and padded, then
    summed over windows again, with the base dilation as the strides."""
    shape = operand.aval.shape
    in_d = _dilate(shape, base_dilation)
    win_d = _dilate(window_dimensions, window_dilation)
    out_d = _dilate(get_aval(ct).shape, window_strides)
    before = [k - lo - 1 for k, (lo, _) in zip(win_d, padding)]
    config = [(b, n + k - 1 - o - b, s - 1)
              for b, n, k, o, s in zip(before, in_d, win_d, out_d, window_strides)]
    padded = lax.pad(ct, lax.full((), 0, get_aval(ct).dtype), config)
    return [reduce_window_sum(padded, window_dimensions, base_dilation, [(0, 0)] * len(shape),
                              (1,) * len(shape), window_dilation)]


transpose_rules[reduce_window_sum_p] = _reduce_window_sum_transpose


def _window_batch(bind):
    def rule(vals, dims, *, window_dimensions, window_strides, padding, base_dilation,
             window_dilation):
        (x,), (d,) = vals, dims
        put = lambda t, v: t[:d] + (v,) + t[d:]       # noqa: E731
        return bind(x, put(window_dimensions, 1), put(window_strides, 1),
                    put(padding, (0, 0)), put(base_dilation, 1), put(window_dilation, 1)), d
    return rule


batching_rules[reduce_window_sum_p] = _window_batch(reduce_window_sum)
batching_rules[reduce_window_max_p] = _window_batch(reduce_window_max)
batching_rules[reduce_window_min_p] = _window_batch(reduce_window_min)


def _windows(x, fill, window_dimensions, window_strides, padding, base_dilation,
             window_dilation):
    """Every window's elements, one strided slice per position in the window: a list of arrays
    of the output's shape (pads, slices: linear, so their transposes exist)."""
    config = [(lo, hi, b - 1) for (lo, hi), b in zip(padding, base_dilation)]
    padded = lax.pad(x, lax.full((), fill, get_aval(x).dtype), config)
    out_shape = reduce_window_shape_tuple(get_aval(x).shape, window_dimensions, window_strides,
                                          padding, base_dilation, window_dilation)
    slices = []
    for offset in itertools.product(*map(range, window_dimensions)):
        start = [o * r for o, r in zip(offset, window_dilation)]
        limit = [s + (n - 1) * st + 1 for s, n, st in zip(start, out_shape, window_strides)]
        slices.append(lax.slice(padded, start, limit, window_strides))
    return slices


def _chooser_jvp(prim, identity):
    """The tangent of a windowed max (or min): in each window, the tangent at the first element
    equal to the result."""
    def rule(primals, tangents, **params):
        (x,), (t,) = primals, tangents
        ans = prim.bind(x, **params)
        if type(t) is Zero:
            return ans, Zero.from_primal_value(ans)
        xs = _windows(x, identity(get_aval(x).dtype), **params)
        ts = _windows(t, 0, **params)
        out = lax.full_like(ts[0], 0)
        for xk, tk in reversed(list(zip(xs, ts))):        # the first match written last
            out = lax.select(lax.eq(xk, ans), tk, out)
        return ans, out
    jvp_rules[prim] = rule


_chooser_jvp(reduce_window_max_p, lax.lowest)
_chooser_jvp(reduce_window_min_p, lax.highest)


def _window_attrs(window_dimensions, window_strides, padding, base_dilation, window_dilation):
    i64 = ir.IntegerType.get_signless(64)
    pads = np.asarray(padding, np.int64).reshape(len(padding), 2)
    return dict(window_dimensions=dense_int_array(window_dimensions),
                window_strides=dense_int_array(window_strides),
                base_dilations=dense_int_array(base_dilation),
                window_dilations=dense_int_array(window_dilation),
                padding=ir.DenseIntElementsAttr.get(
                    pads, type=ir.RankedTensorType.get(pads.shape, i64)))


def _monoid_window_lowering(combine, identity):
    def rule(ctx, x, **params):
        dtype = ctx.avals_in[0].dtype
        op = hlo.ReduceWindowOp([aval_to_ir_type(ctx.avals_out[0])], [x],
                                [ir_constant(identity(dtype), dtype)], **_window_attrs(**params))
        reducer_region(op, dtype, combine)
        return [op.result]
    return rule


lowering_rules[reduce_window_sum_p] = _monoid_window_lowering(hlo.add, lambda d: 0)
lowering_rules[reduce_window_max_p] = _monoid_window_lowering(hlo.maximum, lax.lowest)
lowering_rules[reduce_window_min_p] = _monoid_window_lowering(hlo.minimum, lax.highest)


reduce_window_p = Primitive("reduce_window")
reduce_window_p.multiple_results = True


def _reduce_window_abstract(*avals, jaxpr, consts, **params):
    operands, inits = avals[:len(avals) // 2], avals[len(avals) // 2:]
    if any(o.dtype != i.dtype for o, i in zip(operands, inits)):
        raise TypeError("reduce_window got inconsistent dtypes for operands and init_values: "
                        f"got operand dtypes {[o.dtype for o in operands]} and init_value "
                        f"dtypes {[i.dtype for i in inits]}.")
    if any(i.shape for i in inits):
        raise TypeError("reduce_window expected init_values to be scalars but init_values have "
                        f"shapes {[i.shape for i in inits]}.")
    shape = _window_shape(operands[0], **params)
    return [ShapedArray(shape, o.dtype, o.weak_type) for o in operands]


impl_rules[reduce_window_p] = xla_impl(reduce_window_p)
abstract_eval_rules[reduce_window_p] = _reduce_window_abstract


def _reduction_jaxpr(computation, init_avals, init_tree):
    """`computation` of two pytrees of scalars, traced to a jaxpr on flat scalars."""
    n = len(init_avals)

    def flat(*xs):
        out = computation(tree_unflatten(init_tree, xs[:n]), tree_unflatten(init_tree, xs[n:]))
        leaves, tree = tree_flatten(out)
        if tree != init_tree:
            raise ValueError("reduce_window output must have the same tree structure as the "
                             f"operands {init_tree} vs. {tree}")
        return leaves
    closed = trace_to_jaxpr(flat, list(init_avals) * 2)
    return closed.jaxpr, tuple(closed.consts)


def reduce_window(operand, init_value, computation, window_dimensions, window_strides=None,
                  padding="VALID", base_dilation=None, window_dilation=None):
    """Reduce each window of `operand` (a pytree of arrays) with `computation`, from
    `init_value`. `lax.add`, `lax.max` and `lax.min` with their identities as initial values
    give the primitives `reduce_window_sum`, `_max` and `_min`; any other computation is
    traced into the generic `reduce_window`."""
    operands, tree = tree_flatten(operand)
    inits, init_tree = tree_flatten(init_value)
    if tree != init_tree:
        raise ValueError("Operands must have the same tree structure as init_values: "
                         f"{tree} vs. {init_tree}")
    if not operands:
        raise ValueError("reduce_window must have at least one operand.")
    ndim = len(window_dimensions)
    if isinstance(padding, str):
        window = (window_dimensions if window_dilation is None
                  else _dilate(window_dimensions, window_dilation))
        padding = padtype_to_pads(np.shape(operands[0]), window, window_strides or [], padding)
    padding = tuple((lo, hi) for lo, hi in padding)
    window_strides = tuple(window_strides or (1,) * ndim)
    base_dilation = tuple(base_dilation or (1,) * ndim)
    window_dilation = tuple(window_dilation or (1,) * ndim)
    args = (tuple(window_dimensions), window_strides, padding, base_dilation, window_dilation)
    monoid = _monoid_reducer(computation, inits)
    if monoid is not None:
        return monoid(operands[0], *args)
    avals = [get_aval(v).update(weak_type=False) for v in inits]
    jaxpr, consts = _reduction_jaxpr(computation, avals, init_tree)
    outs = reduce_window_p.bind(*operands, *inits, jaxpr=jaxpr, consts=consts,
                                window_dimensions=args[0], window_strides=args[1],
                                padding=args[2], base_dilation=args[3], window_dilation=args[4])
    return tree_unflatten(tree, outs)


def _monoid_reducer(computation, inits):
    """The windowed primitive that `computation` from `inits` is, if it is one: a sum from 0, a
    max from the lowest value, a min from the highest (JAX's `_get_monoid_window_reducer`)."""
    if len(inits) != 1 or isinstance(inits[0], Tracer) or np.shape(inits[0]):
        return None
    value, dtype = np.asarray(inits[0]), get_aval(inits[0]).dtype
    if computation is lax.add and value == 0:
        return reduce_window_sum
    if computation is lax.max and value == lax.lowest(dtype):
        return reduce_window_max
    if computation is lax.min and value == lax.highest(dtype):
        return reduce_window_min
    return None


def _reduce_window_batch(vals, dims, *, jaxpr, consts, window_dimensions, window_strides,
                         padding, base_dilation, window_dilation):
    n = len(vals) // 2
    if any(d is not None for d in dims[n:]):
        raise NotImplementedError("reduce_window batching is not implemented for initial "
                                  "values")
    size = next(get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not None)
    operands = [bdim_at_front(v, d, size) for v, d in zip(vals[:n], dims[:n])]
    outs = reduce_window_p.bind(
        *operands, *vals[n:], jaxpr=jaxpr, consts=consts,
        window_dimensions=(1,) + window_dimensions, window_strides=(1,) + window_strides,
        padding=((0, 0),) + padding, base_dilation=(1,) + base_dilation,
        window_dilation=(1,) + window_dilation)
    return outs, [0] * n


batching_rules[reduce_window_p] = _reduce_window_batch


def _reduce_window_jvp(primals, tangents, *, jaxpr, consts, **params):
    """A reduce_window of the pairs (primal, tangent), whose computation is the JVP of the
    original computation."""
    n = len(primals) // 2
    if any(type(t) is not Zero for t in tangents[n:]):
        raise TypeError("reduce_window jvp does not support non-zero init_value_tangent.")
    operand_tangents = [instantiate_zeros(t) for t in tangents[:n]]
    init_tangents = [lax.full_like(v, 0) for v in primals[n:]]

    def computation(left, right):
        run = lambda *xs: eval_jaxpr(jaxpr, list(consts), *xs)    # noqa: E731
        outs, out_tangents = jvp(run, (*left[:n], *right[:n]), (*left[n:], *right[n:]))
        return [*outs, *out_tangents]
    args = [params[k] for k in ("window_dimensions", "window_strides", "padding",
                                "base_dilation", "window_dilation")]
    outs = reduce_window([*primals[:n], *operand_tangents], [*primals[n:], *init_tangents],
                         computation, *args)
    return outs[:n], outs[n:]


jvp_rules[reduce_window_p] = _reduce_window_jvp


def _reduce_window_lowering(ctx, *args, jaxpr, consts, **params):
    n = len(args) // 2
    op = hlo.ReduceWindowOp([aval_to_ir_type(a) for a in ctx.avals_out], list(args[:n]),
                            list(args[n:]), **_window_attrs(**params))
    scalars = [aval_to_ir_type(ShapedArray((), a.dtype)) for a in ctx.avals_in[n:]]
    block = op.regions[0].blocks.append(*scalars, *scalars)
    with ir.InsertionPoint(block):
        consts_ir = [ir_constant(np.asarray(c)) for c in consts]
        hlo.return_(jaxpr_subcomp(ctx.module_context, jaxpr, consts_ir,
                                  list(block.arguments)))
    return list(op.results)


lowering_rules[reduce_window_p] = _reduce_window_lowering


def associative_scan(fn, elems, reverse=False, axis=0):
    """The prefix "sums" of `elems` (a pytree of arrays) along `axis` under an associative `fn`,
    in O(log n) depth: combine neighbours pairwise, scan the half-length result, and fill in the
    elements between (the Blelloch-style recursion of JAX's `associative_scan`)."""
    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    flat, tree = tree_flatten(elems)
    if reverse:
        flat = [lax.rev(e, [axis]) for e in flat]
    axis = axis % get_aval(flat[0]).ndim
    n = get_aval(flat[0]).shape[axis]
    if any(get_aval(e).shape[axis] != n for e in flat[1:]):
        raise ValueError("Array inputs to associative_scan must have the same first dimension. "
                         f"(saw: {[get_aval(e).shape for e in flat]})")

    def combine(a, b):
        return tree_flatten(fn(tree_unflatten(tree, a), tree_unflatten(tree, b)))[0]

    def part(e, start, stop=None, stride=1):
        return lax.slice_in_dim(e, start, stop, stride, axis)

    def scan(elems):
        n = get_aval(elems[0]).shape[axis]
        if n < 2:
            return elems
        odd = scan(combine([part(e, 0, -1, 2) for e in elems], [part(e, 1, None, 2)
                                                                 for e in elems]))
        if n % 2 == 0:
            even = combine([part(e, 0, -1) for e in odd], [part(e, 2, None, 2) for e in elems])
        else:
            even = combine(odd, [part(e, 2, None, 2) for e in elems])
        even = [lax.concatenate([part(e, 0, 1), r], axis) for e, r in zip(elems, even)]
        return [_interleave(a, b, axis) for a, b in zip(even, odd)]

    out = scan(flat)
    if reverse:
        out = [lax.rev(e, [axis]) for e in out]
    return tree_unflatten(tree, out)


def _interleave(a, b, axis):
    """`a[0], b[0], a[1], b[1], ...` along `axis`: each padded with holes where the other goes,
    then added (or-ed, for booleans)."""
    na, nb = get_aval(a).shape[axis], get_aval(b).shape[axis]
    a_pad = [(0, 0, 0)] * get_aval(a).ndim
    b_pad = [(0, 0, 0)] * get_aval(b).ndim
    a_pad[axis] = (0, 1 if na == nb else 0, 1)
    b_pad[axis] = (1, 0 if na == nb else 1, 1)
    op = lax.bitwise_or if get_aval(a).dtype == np.bool_ else lax.add
    return op(lax.pad(a, lax.full((), 0, get_aval(a).dtype), a_pad),
              lax.pad(b, lax.full((), 0, get_aval(b).dtype), b_pad))


def _logaddexp(x, y):
    return jnp.logaddexp(x, y)


def _reduce_window_logaddexp(x, window_dimensions, window_strides, padding):
    dtype = get_aval(x).dtype
    init = np.array(-np.inf, dtype)
    jaxpr, consts = _reduction_jaxpr(_logaddexp, [ShapedArray((), dtype)], tree_structure(0))
    ones = (1,) * len(window_dimensions)
    out, = reduce_window_p.bind(x, init, jaxpr=jaxpr, consts=consts,
                                window_dimensions=tuple(window_dimensions),
                                window_strides=tuple(window_strides), padding=tuple(padding),
                                base_dilation=ones, window_dilation=ones)
    return out


def _cumulative_primitive(name, combine, window_reduce):
    """A cumulative reduction along one axis: a reduce_window whose window covers the axis
    (its lowering), with the JVP of `associative_scan` over `combine`."""
    prim = Primitive(name)

    def abstract(x, *, axis, reverse):
        if axis < 0:
            raise ValueError("XLA operations do not allow negative axes")
        if axis >= x.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
        if dtype_kind(x.dtype) not in "iufc":
            raise TypeError(f"{name} does not accept dtype {x.dtype.name}. Accepted dtypes "
                            "are subtypes of number.")
        return x

    def windowed(x, *, axis, reverse):
        shape = get_aval(x).shape
        n = shape[axis]
        if n == 0:
            return x
        padding, window = [(0, 0)] * len(shape), [1] * len(shape)
        padding[axis], window[axis] = (0, n - 1) if reverse else (n - 1, 0), n
        return window_reduce(x, window, [1] * len(shape), padding)

    impl_rules[prim] = xla_impl(prim)
    abstract_eval_rules[prim] = abstract
    lowering_rules[prim] = lambda ctx, x, **params: lower_fun(windowed, ctx, x, **params)
    batching_rules[prim] = lambda vals, dims, *, axis, reverse: (
        prim.bind(vals[0], axis=axis + (dims[0] <= axis), reverse=reverse), dims[0])
    jvp_rules[prim] = lambda primals, tangents, *, axis, reverse: jvp(
        lambda x: associative_scan(combine, x, reverse=reverse, axis=axis), primals,
        [instantiate_zeros(t) for t in tangents])
    return prim


cummax_p = _cumulative_primitive("cummax", lax.max, reduce_window_max)
cummin_p = _cumulative_primitive("cummin", lax.min, reduce_window_min)
cumlogsumexp_p = _cumulative_primitive("cumlogsumexp", _logaddexp, _reduce_window_logaddexp)


def cummax(operand, axis=0, reverse=False):
    """The running maximum along `axis` (from the end, if `reverse`)."""
    return cummax_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cummin(operand, axis=0, reverse=False):
    """The running minimum along `axis` (from the end, if `reverse`)."""
    return cummin_p.bind(operand, axis=int(axis), reverse=bool(reverse))


def cumlogsumexp(operand, axis=0, reverse=False):
    """The running `log(sum(exp(x)))` along `axis`, computed stably."""
    return cumlogsumexp_p.bind(operand, axis=int(axis), reverse=bool(reverse))


PrecisionLike = Union[None, str, Precision, tuple[str, str], tuple[Precision, Precision],
                      "DotAlgorithm", "DotAlgorithmPreset"]
DotDimensionNumbers = tuple[tuple[Sequence[int], Sequence[int]],
                            tuple[Sequence[int], Sequence[int]]]


class FftType(enum.IntEnum):
    """The kind of an FFT: complex forward, complex inverse, real forward, real inverse."""
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


class RandomAlgorithm(enum.IntEnum):
    """The bit generator of `rng_bit_generator`."""
    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self):
        return self.name


def dtype(x):
    """The dtype JAX gives `x`: a Python scalar's default type, canonicalized (`float32`)."""
    return canonicalize_dtype(get_aval(x).dtype)


def broadcast_shapes(*shapes):
    """The shape NumPy's broadcasting gives arrays of `shapes`."""
    return jnp.broadcast_shapes(*shapes)


def broadcast_like(arr, like_arr):
    """`arr` broadcast to the shape of `like_arr`."""
    return jnp.broadcast_to(arr, get_aval(like_arr).shape)


def batch_matmul(lhs, rhs, precision=None):
    """Matrix products over leading batch dimensions: one `dot_general`."""
    lhs, rhs = jnp.asarray(lhs), jnp.asarray(rhs)
    if min(lhs.ndim, rhs.ndim) < 2:
        raise ValueError("Arguments to batch_matmul must be at least 2D, got "
                         f"{lhs.ndim}, {rhs.ndim}")
    if lhs.ndim != rhs.ndim:
        raise ValueError("Arguments to batch_matmul must have same ndim, got "
                         f"{lhs.ndim}, {rhs.ndim}")
    batch = tuple(range(lhs.ndim - 2))
    return lax.dot_general(lhs, rhs, (((lhs.ndim - 1,), (rhs.ndim - 2,)), (batch, batch)))


def index_take(src, idxs, axes):
    """`src` at the points whose coordinates along `axes` are the arrays `idxs` (negative
    indices wrap): one `gather`."""
    indices = lax.concatenate([lax.expand_dims(i, (1,)) for i in idxs], 1)
    bounds = lax.expand_dims(np.array([src.shape[ax] for ax in axes]),
                             tuple(range(indices.ndim - 1)))
    indices = jnp.remainder(indices, bounds)
    sizes = list(src.shape)
    for ax in axes:
        sizes[ax] = 1
    dnums = GatherDimensionNumbers(offset_dims=tuple(range(1, src.ndim - indices.shape[1] + 1)),
                                   collapsed_slice_dims=tuple(axes),
                                   start_index_map=tuple(axes))
    return gather(src, indices, dimension_numbers=dnums, slice_sizes=tuple(sizes))


def reduce_precision(operand, exponent_bits, mantissa_bits):
    """`operand` rounded to a float format of `exponent_bits` and `mantissa_bits`, kept in its
    dtype: appendix A20's primitive, under its public name."""
    exponent_bits, mantissa_bits = operator.index(exponent_bits), operator.index(mantissa_bits)
    return reduce_precision_p.bind(operand, exponent_bits=exponent_bits,
                                   mantissa_bits=mantissa_bits)


class DotAlgorithm(NamedTuple):
    """A product's algorithm, spelled out: the types its operands are rounded to, how many
    parts each is split into, the type it accumulates in."""
    lhs_precision_type: object
    rhs_precision_type: object
    accumulation_type: object
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


DotAlgorithmPreset = enum.Enum("DotAlgorithmPreset", [
    "DEFAULT", "ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM", "ANY_F8_ANY_F8_ANY",
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM", "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16",
    "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9",
    "TF32_TF32_F32", "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64"])
DotAlgorithmPreset.__doc__ = "The named algorithms of a product: operand, operand, accumulator."
DotAlgorithmPreset.__repr__ = lambda self: f"DotAlgorithmPreset.{self.name}"
DotAlgorithmPreset.__str__ = lambda self: self.name


class AccuracyMode(enum.Enum):
    """How accurately a transcendental function (`lax.exp`...) is to be computed."""
    HIGHEST = 1
    DEFAULT = 2


class Tolerance:
    """An accuracy asked of a transcendental function: absolute, relative, or in ulps."""

    def __init__(self, atol=0.0, rtol=0.0, ulps=0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0.0:
            raise ValueError("Tolerances must be non-negative.")
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError("At least one of atol, rtol, or ulps must be set.")
        self.atol, self.rtol, self.ulps = atol, rtol, ulps


_FFT_NAMES = {"fft": FftType.FFT, "ifft": FftType.IFFT, "rfft": FftType.RFFT,
              "irfft": FftType.IRFFT}


@jitted(name="fft", staged=True, static_argnums=(1, 2))
def fft(x, fft_type, fft_lengths):
    """The discrete Fourier transform over the last `len(fft_lengths)` axes: complex forward
    or inverse (`FFT`, `IFFT`), real to half-spectrum (`RFFT`) or back (`IRFFT`)."""
    if isinstance(fft_type, str):
        if fft_type.lower() not in _FFT_NAMES or fft_type not in (fft_type.lower(),
                                                                  fft_type.upper()):
            raise ValueError(f"Unknown FFT type '{fft_type}'")
        fft_type = _FFT_NAMES[fft_type.lower()]
    elif not isinstance(fft_type, FftType):
        raise TypeError(f"Unknown FFT type value '{fft_type}'")
    dtype = get_aval(x).dtype
    if fft_type == FftType.RFFT:
        if dtype_kind(dtype) == "c":
            raise ValueError("only real valued inputs supported for rfft")
        x = lax.convert_element_type(x, jnp.promote_types(dtype, np.float32)
                                     if dtype_kind(dtype) != "f" else dtype)
    else:
        x = lax.convert_element_type(x, jnp.promote_types(dtype, np.complex64))
    if len(fft_lengths) == 0:
        return x
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=tuple(fft_lengths))


fft_p = Primitive("fft")


def _fft_abstract(x, *, fft_type, fft_lengths):
    n = len(fft_lengths)
    if n > x.ndim:
        raise ValueError(f"FFT input shape {x.shape} must have at least as many input "
                         f"dimensions as fft_lengths {fft_lengths}.")
    if fft_type == FftType.RFFT:
        if x.dtype not in (np.float32, np.float64):
            raise ValueError(f"RFFT input must be float32 or float64, got {x.dtype}")
        if x.shape[-n:] != fft_lengths:
            raise ValueError(f"RFFT input shape {x.shape} minor dimensions must be equal to "
                             f"fft_lengths {fft_lengths}")
        shape = x.shape[:-n] + fft_lengths[:-1] + (fft_lengths[-1] // 2 + 1,)
        dtype = np.result_type(x.dtype, np.complex64)
    elif fft_type == FftType.IRFFT:
        if dtype_kind(x.dtype) != "c":
            raise ValueError(f"IRFFT input must be complex64 or complex128, got {x.dtype}")
        if x.shape[-n:-1] != fft_lengths[:-1]:
            raise ValueError(f"IRFFT input shape {x.shape} minor dimensions must be equal to "
                             f"all except the last fft_length, got fft_lengths={fft_lengths}")
        shape, dtype = x.shape[:-n] + fft_lengths, np.finfo(x.dtype).dtype
    else:
        if dtype_kind(x.dtype) != "c":
            raise ValueError(f"FFT input must be complex64 or complex128, got {x.dtype}")
        if x.shape[-n:] != fft_lengths:
            raise ValueError(f"FFT input shape {x.shape} minor dimensions must be equal to "
                             f"fft_lengths {fft_lengths}")
        shape, dtype = x.shape, x.dtype
    return ShapedArray(shape, dtype, x.weak_type)


def _half_spectrum_weights(n, shape, dtype, scale=1.0):
    """2 for the bins of a real FFT's half spectrum that stand for two bins of the full one;
    1 for the zero bin, and for the last when `n` is even: along the last axis of `shape`."""
    weights = np.full(shape[-1], 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    return np.broadcast_to((weights * scale).astype(dtype), shape)


def _fft_transpose(ct, x, *, fft_type, fft_lengths):
    """A complex FFT is its own transpose (its matrix is symmetric); a real FFT's transpose is
    an inverse real FFT of the conjugate, with the half spectrum's bins weighted, and back."""
    total = math.prod(fft_lengths)
    if fft_type == FftType.RFFT:
        weights = _half_spectrum_weights(fft_lengths[-1], get_aval(ct).shape,
                                         get_aval(ct).dtype)
        out = fft(lax.div(lax.conj(ct), weights), FftType.IRFFT, fft_lengths)
        return [lax.mul(out, np.array(total, get_aval(out).dtype))]
    if fft_type == FftType.IRFFT:
        out = fft(ct, FftType.RFFT, fft_lengths)
        weights = _half_spectrum_weights(fft_lengths[-1], get_aval(out).shape,
                                         get_aval(out).dtype, 1 / total)
        return [lax.conj(lax.mul(weights, out))]
    return [fft(ct, fft_type, fft_lengths)]


def _fft_lowering(ctx, x, *, fft_type, fft_lengths):
    return [hlo.fft(x, hlo.FftTypeAttr.get(fft_type.name), dense_int_array(fft_lengths))]


impl_rules[fft_p] = xla_impl(fft_p)
abstract_eval_rules[fft_p] = _fft_abstract
deflinear(fft_p)
transpose_rules[fft_p] = _fft_transpose
batching_rules[fft_p] = lambda vals, dims, **params: (
    fft_p.bind(bdim_at_front(vals[0], dims[0], None), **params), 0)
lowering_rules[fft_p] = _fft_lowering


rng_bit_generator_p = Primitive("rng_bit_generator")
rng_bit_generator_p.multiple_results = True
_RBG_DTYPES = tuple(map(np.dtype, ("uint8", "uint16", "uint32", "uint64")))


def rng_bit_generator(key, shape, dtype=np.uint32, algorithm=RandomAlgorithm.RNG_DEFAULT, *,
                      out_sharding=None):
    """`(new_key, bits)`: random bits of `shape` from XLA's own generator (the platform's
    default, Threefry or Philox), and the key to use next. `key` is `uint32[4]` or
    `uint64[2]`."""
    shape = tuple(map(operator.index, shape))
    dtype = canonicalize_dtype(dtype)              # uint64 is uint32, unless 64-bit mode is on
    if dtype not in _RBG_DTYPES:
        raise TypeError(f"rng_bit_generator: unsupported dtype {dtype}")
    return tuple(rng_bit_generator_p.bind(key, shape=shape, dtype=dtype, algorithm=algorithm,
                                          out_sharding=out_sharding))


def _rbg_abstract(key, *, shape, dtype, algorithm, out_sharding):
    if (key.shape, key.dtype) not in (((4,), np.dtype(np.uint32)), ((2,), np.dtype(np.uint64))):
        raise TypeError(f"rng_bit_generator: the key must be uint32[4] or uint64[2], got {key}")
    return [ShapedArray(key.shape, key.dtype, key.weak_type), ShapedArray(shape, dtype)]


def _rbg_lowering(ctx, key, *, shape, dtype, algorithm, out_sharding):
    """As JAX's: a uint32[4] key goes to XLA as uint64[2], and comes back."""
    key_aval = ctx.avals_in[0]
    u64 = aval_to_ir_type(ShapedArray((2,), np.uint64))
    if key_aval.dtype == np.uint32:
        key = hlo.bitcast_convert(u64, hlo.reshape(
            aval_to_ir_type(ShapedArray((2, 2), np.uint32)), key))
    name = {0: "DEFAULT", 1: "THREE_FRY", 2: "PHILOX"}[int(algorithm)]
    new_key, bits = hlo.RngBitGeneratorOp(u64, aval_to_ir_type(ctx.avals_out[1]),
                                          hlo.RngAlgorithmAttr.get(name), key).results
    if key_aval.dtype == np.uint32:
        new_key = hlo.reshape(aval_to_ir_type(key_aval), hlo.bitcast_convert(
            aval_to_ir_type(ShapedArray((2, 2), np.uint32)), new_key))
    return [new_key, bits]


impl_rules[rng_bit_generator_p] = xla_impl(rng_bit_generator_p)
abstract_eval_rules[rng_bit_generator_p] = _rbg_abstract
jvp_rules[rng_bit_generator_p] = lambda primals, tangents, **params: (
    outs := rng_bit_generator_p.bind(*primals, **params),
    [Zero.from_primal_value(o) for o in outs])
lowering_rules[rng_bit_generator_p] = _rbg_lowering


rng_uniform_p = Primitive("rng_uniform")


def _rng_uniform_abstract(a, b, *, shape):
    if a.dtype != b.dtype:
        raise TypeError("lax.rng_uniform requires arguments to have the same dtypes, got "
                        f"{a.dtype.name}, {b.dtype.name}.")
    if a.shape or b.shape:
        raise ValueError(f"rng_uniform expects scalar bounds, got shapes {a.shape}, {b.shape}")
    return ShapedArray(shape, a.dtype)


def _rng_uniform_lowering(ctx, a, b, *, shape):
    dims = ir_constant(np.array(ctx.avals_out[0].shape, np.int64))
    return [hlo.rng(a, b, dims, hlo.RngDistributionAttr.get("UNIFORM"))]


impl_rules[rng_uniform_p] = xla_impl(rng_uniform_p)
abstract_eval_rules[rng_uniform_p] = _rng_uniform_abstract
lowering_rules[rng_uniform_p] = _rng_uniform_lowering


def rng_uniform(a, b, shape):
    """Numbers drawn uniformly from `[a, b)` by XLA's stateful generator: unlike everything
    else in JAX, not a function of its inputs (each run draws anew)."""
    a, b = jnp.promote_dtypes(a, b)
    return rng_uniform_p.bind(a, b, shape=tuple(shape))


dce_sink_p = Primitive("dce_sink")
dce_sink_p.multiple_results = True
impl_rules[dce_sink_p] = lambda x, **params: []
abstract_eval_rules[dce_sink_p] = lambda x, **params: []
jvp_rules[dce_sink_p] = lambda primals, tangents, **params: (dce_sink_p.bind(*primals, **params),
                                                             [])
batching_rules[dce_sink_p] = lambda vals, dims, **params: (dce_sink_p.bind(*vals, **params), [])
lowering_rules[dce_sink_p] = lambda ctx, x, *, prevent_mlir_dce: []


def dce_sink(val, *, prevent_mlir_dce=False):
    """Use each leaf of `val`, returning nothing: an equation that keeps the values it reads
    alive in a jaxpr, so that dead-code elimination does not remove what computes them."""
    if prevent_mlir_dce:
        raise NotImplementedError("dce_sink(prevent_mlir_dce=True), a custom call of JAX's own "
                                  "runtime, is not supported by autodidax")
    for leaf in tree_flatten(val)[0]:
        dce_sink_p.bind(leaf, prevent_mlir_dce=False)


def shape_as_value(shape):
    """A shape as an int32 array (JAX's also takes symbolic dimensions, which the book lacks)."""
    if len(shape) == 0:
        return lax.full((0,), 0, np.int32)
    return np.asarray(shape, np.int32)


def stage(x, /):
    """`x` lifted into the current trace: a tracer stays itself, and a Python or NumPy value
    becomes a JAX array of its canonical dtype, weak if it was a Python scalar."""
    if isinstance(x, Tracer):
        return x
    aval = get_aval(x)
    return lax.convert_element_type(x, aval.dtype, aval.weak_type)


empty_p = Primitive("empty")
impl_rules[empty_p] = lambda *, shape, dtype, out_sharding: np.zeros(shape, dtype)
abstract_eval_rules[empty_p] = lambda *, shape, dtype, out_sharding: ShapedArray(
    shape, canonicalize_dtype(dtype))
lowering_rules[empty_p] = lambda ctx, *, shape, dtype, out_sharding: [
    hlo.broadcast_in_dim(aval_to_ir_type(ctx.avals_out[0]),
                         ir_constant(0, ctx.avals_out[0].dtype), dense_int_array([]))]


def empty(shape, dtype, *, out_sharding=None):
    """An array whose values are not to be read: XLA may leave them uninitialized (the CPU
    gives zeros)."""
    return empty_p.bind(shape=tuple(shape), dtype=dtype, out_sharding=out_sharding)


def pshuffle(x, axis_name, perm):
    """`ppermute` with the permutation as a list: position `i` receives from `perm[i]`."""
    if set(perm) != set(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """The named axis swapped with the array axis `axis`: an `all_to_all` that splits and
    concatenates along `axis`."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


def _approx_k(name, operand, k, reduction_dimension, largest):
    operand = jnp.asarray(operand)
    if dtype_kind(operand.dtype) != "f":
        raise ValueError("operand must be a floating type")
    dim = reduction_dimension % operand.ndim
    if not 0 <= k <= operand.shape[dim]:
        raise ValueError(f"k must be in [0, {operand.shape[dim]}], got {k} in {name}")
    x = jnp.moveaxis(operand, dim, -1)
    if largest:
        values, indices = top_k(x, k)
    else:
        iota = lax.broadcasted_iota(np.int32, x.shape, x.ndim - 1)
        values, indices = (lax.slice_in_dim(a, 0, k, axis=x.ndim - 1)
                           for a in sort((x, iota), dimension=x.ndim - 1, num_keys=1))
    return [jnp.moveaxis(values, -1, dim), jnp.moveaxis(indices, -1, dim)]   # a list, as JAX's


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """`[values, indices]` of the `k` largest along `reduction_dimension`. On a TPU, XLA
    finds them approximately; on the CPU, exactly, as here."""
    return _approx_k("approx_max_k", operand, k, reduction_dimension, True)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95,
                 reduction_input_size_override=-1, aggregate_to_topk=True):
    """The `k` smallest values along `reduction_dimension` and their indices (NaNs last)."""
    return _approx_k("approx_min_k", operand, k, reduction_dimension, False)


def platform_dependent(*args, default=None, **per_platform):
    """`per_platform[p](*args)` for the platform `p` the program runs on (`cpu`, `cuda`,
    `rocm`, `tpu`), else `default(*args)`. The choice is made when the function is traced: the
    book runs on one platform at a time (JAX stages all the branches in a `cond`, chosen when
    the program is compiled)."""
    for name, branch in per_platform.items():
        if not callable(branch):
            raise TypeError(f"lax.platform_dependent: the '{name}' branch must be a callable.")
        if name == "gpu":
            raise ValueError("Use 'cuda' or 'rocm' for lax.platform_dependent.")
    if default is not None and not callable(default):
        raise TypeError("lax.platform_dependent: the 'default' branch must be a callable.")
    platform = default_device().platform
    branch = per_platform.get(platform, default)
    if branch is None:
        raise NotImplementedError(f"lax.platform_dependent has no branch for the platform "
                                  f"'{platform}', and no default")
    return branch(*args)


class RaggedDotDimensionNumbers(NamedTuple):
    """The dimensions of a `ragged_dot_general`: its `dot_general` dimension numbers, the
    ragged dimensions of `lhs`, and the dimension of `rhs` that indexes the groups."""
    dot_dimension_numbers: DotDimensionNumbers
    lhs_ragged_dimensions: Sequence[int]
    rhs_group_dimensions: Sequence[int]


def ragged_dot_general(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, precision=None,
                       preferred_element_type=None, group_offset=None, out_sharding=None):
    """A matrix product in which consecutive groups of the rows of `lhs` (sizes
    `group_sizes`) each meet their own matrix of `rhs`. Only the mode `ragged_dot` uses, a
    ragged row dimension of `lhs` and a group dimension of `rhs`, is built here."""
    dn = ragged_dot_dimension_numbers
    (lhs_contract, rhs_contract), (lhs_batch, rhs_batch) = dn.dot_dimension_numbers
    lhs, rhs = jnp.asarray(lhs), jnp.asarray(rhs)
    ragged, group = tuple(dn.lhs_ragged_dimensions), tuple(dn.rhs_group_dimensions)
    if (group_offset is not None or lhs_batch or rhs_batch or len(ragged) != 1
            or len(group) != 1 or ragged[0] in lhs_contract):
        raise NotImplementedError("ragged_dot_general is supported by autodidax only in the "
                                  "mode of ragged_dot: lhs ragged in a row dimension, rhs "
                                  "with a group dimension, no batch dimensions or offset")
    rows = lax.broadcasted_iota(np.int32, lhs.shape, ragged[0])
    ends = lax.cumsum(jnp.asarray(group_sizes, np.int32), 0)
    out = None
    for i in range(rhs.shape[group[0]]):
        member = (rows >= (ends[i - 1] if i else 0)) & (rows < ends[i])
        masked = jnp.where(member, lhs, jnp.zeros((), lhs.dtype))
        matrix = lax.index_in_dim(rhs, i, group[0], keepdims=False)
        shift = [d - (d > group[0]) for d in rhs_contract]
        term = lax.dot_general(masked, matrix, ((lhs_contract, shift), ((), ())),
                               precision, preferred_element_type)
        out = term if out is None else lax.add(out, term)
    return out


def ragged_dot(lhs, rhs, group_sizes, precision=None, preferred_element_type=None,
               group_offset=None, out_sharding=None):
    """`lhs[m, k]` times `rhs[g, k, n]`: the rows of group `i` (consecutive, `group_sizes[i]`
    of them) times `rhs[i]`."""
    dn = RaggedDotDimensionNumbers((((1,), (1,)), ((), ())), (0,), (0,))
    return ragged_dot_general(lhs, rhs, group_sizes, dn, precision, preferred_element_type,
                              group_offset, out_sharding)


composite_p = Primitive("composite")
composite_p.multiple_results = True
impl_rules[composite_p] = lambda *args, jaxpr, **params: eval_jaxpr(jaxpr.jaxpr, jaxpr.consts,
                                                                    *args)
abstract_eval_rules[composite_p] = lambda *avals, jaxpr, **params: list(jaxpr.out_avals)


def _composite_jvp(primals, tangents, **params):
    raise ValueError("JVP rule for composite not implemented. You can use `jax.custom_jvp` to "
                     "add support. See https://docs.jax.dev/en/latest/_autosummary/"
                     "jax.custom_jvp.html")


def _attribute(value):
    """A composite's attribute as an MLIR attribute: a bool, int, float, string, dtype, or a
    tuple or list of them."""
    if isinstance(value, (tuple, list)):
        return ir.ArrayAttr.get([_attribute(v) for v in value])
    if isinstance(value, np.dtype):
        return ir.TypeAttr.get(dtype_to_ir_type(value))
    if isinstance(value, bool):
        return ir.BoolAttr.get(value)
    if isinstance(value, int):
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
    if isinstance(value, float):
        return ir.FloatAttr.get(ir.F64Type.get(), value)       # a Python float: f64, as JAX
    if isinstance(value, str):
        return ir.StringAttr.get(value)
    raise NotImplementedError(f"a composite attribute of type {type(value).__name__} is not "
                              "supported by autodidax")


def _composite_lowering(ctx, *args, name, attributes, version, jaxpr):
    """A `stablehlo.composite` named `name`, whose decomposition is a private function of the
    module: a compiler that knows `name` may replace it; XLA on the CPU inlines it."""
    symbol = lower_jaxpr_to_fun(ctx.module_context, name, jaxpr)
    attrs = {k: _attribute(tree_unflatten(tree, leaves)) for k, leaves, tree in attributes
             if tree_unflatten(tree, leaves) is not None}
    op = hlo.CompositeOp([aval_to_ir_type(a) for a in ctx.avals_out], list(args),
                         name=ir.StringAttr.get(name),
                         decomposition=ir.FlatSymbolRefAttr.get(symbol),
                         composite_attributes=ir.DictAttr.get(attrs),
                         version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), version))
    return list(op.results)


jvp_rules[composite_p] = _composite_jvp
lowering_rules[composite_p] = _composite_lowering


def composite(decomposition, name, version=0):
    """`decomposition`, staged as one `composite` equation named `name`: a unit that a
    compiler may implement its own way (a fused kernel), and otherwise computes the
    decomposition. Keyword arguments are static attributes of the composite."""
    @functools.wraps(decomposition)
    def composed(*args, **kwargs):
        if any(isinstance(v, Tracer) for v in kwargs.values()):
            raise UnexpectedTracerError(
                "Found a JAX Tracer as an attribute in the decomposition for the composite op "
                f"'{name}'. This means that the decomposition function closes over a value "
                "that is involved in a JAX transformation. Any values that aren't explicitly "
                "known at compile time must be explicitly passed as arguments to the "
                "composite.\n\nNote: If you are passing jax arrays as attributes, use numpy "
                "arrays instead.")
        flat, in_tree = tree_flatten(args)
        avals = [get_aval(x) for x in flat]
        jaxpr, consts, out_tree = trace_to_jaxpr_with_consts(
            functools.partial(decomposition, **kwargs), in_tree, avals)
        attributes = tuple((k, tuple(leaves), tree) for k, (leaves, tree) in
                           ((k, tree_flatten(v)) for k, v in kwargs.items()))
        outs = composite_p.bind(*consts, *flat, name=name, attributes=attributes,
                                version=version, jaxpr=jaxpr)
        return tree_unflatten(out_tree, outs)
    return composed


class _LinearSolveTuple(NamedTuple):
    """One value per function of a linear solve: the map, its transpose, and their solvers."""
    matvec: object
    vecmat: object
    solve: object
    transpose_solve: object

    def transpose(self):
        return _LinearSolveTuple(self.vecmat, self.matvec, self.transpose_solve, self.solve)


linear_solve_p = Primitive("custom_linear_solve")     # (JAX's name)
linear_solve_p.multiple_results = True


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False,
                        has_aux=False):
    """`solve(matvec, b)`, differentiated implicitly: from `matvec(x) = b`, the tangent of `x`
    solves `matvec(dx) = db - dmatvec(x)`, and the cotangent of `b` solves the transposed
    system with `transpose_solve` (`solve` again, if `symmetric`)."""
    if has_aux:
        raise NotImplementedError("custom_linear_solve(has_aux=True) is not supported by "
                                  "autodidax")
    leaves, tree = tree_flatten(b)
    avals = [get_aval(x) for x in leaves]
    args_tree = tree_structure((b,))

    def traced(fun):
        jaxpr, consts, out_tree = trace_to_jaxpr_with_consts(fun, args_tree, avals)
        if out_tree != tree:
            raise TypeError(f"the function must return a value of b's structure {tree}, got "
                            f"{out_tree}")
        return jaxpr, consts

    def vecmat(y):                 # the transpose of the linear `matvec`
        return vjp(matvec, tree_unflatten(tree, [lax.full_like(x, 0) for x in leaves]))[1](y)[0]
    if symmetric:
        vecmat = matvec
        transpose_solve = solve if transpose_solve is None else transpose_solve
    no_transpose = transpose_solve is None           # then neither transpose is traced, as in JAX
    funs = _LinearSolveTuple(matvec, None if no_transpose else vecmat, lambda x: solve(matvec, x),
                             None if no_transpose else lambda y: transpose_solve(vecmat, y))
    pairs = [traced(f) if f is not None else (None, []) for f in funs]
    consts = [c for _, cs in pairs for c in cs]
    out = linear_solve_p.bind(*consts, *leaves, jaxprs=_LinearSolveTuple(*(j for j, _ in pairs)),
                              const_lengths=_LinearSolveTuple(*(len(cs) for _, cs in pairs)))
    return tree_unflatten(tree, out)


def _split(args, const_lengths):
    """(the constants of each function, as a `_LinearSolveTuple` of lists; the right-hand side)."""
    out, start = [], 0
    for n in const_lengths:
        out.append(list(args[start:start + n]))
        start += n
    return _LinearSolveTuple(*out), list(args[start:])


def _run(jaxpr, consts, args):
    return eval_jaxpr(jaxpr.jaxpr, [], *consts, *args)


def _linear_solve_impl(*args, jaxprs, const_lengths):
    consts, b = _split(args, const_lengths)
    return _run(jaxprs.solve, consts.solve, b)


def _linear_solve_jvp(primals, tangents, *, jaxprs, const_lengths):
    """dx solves matvec(dx) = db - (the tangent of matvec's constants, applied to x)."""
    consts, b = _split(primals, const_lengths)
    dconsts, db = _split(tangents, const_lengths)
    x = linear_solve_p.bind(*primals, jaxprs=jaxprs, const_lengths=const_lengths)
    rhs = [instantiate_zeros(t) for t in db]
    if any(type(t) is not Zero for t in dconsts.matvec):
        _, dax = jvp(lambda *c: _run(jaxprs.matvec, c, x), consts.matvec,
                     [instantiate_zeros(t) for t in dconsts.matvec])
        rhs = [lax.sub(r, d) for r, d in zip(rhs, dax)]
    if all(type(t) is Zero for t in db) and all(type(t) is Zero for t in dconsts.matvec):
        return x, [Zero.from_primal_value(v) for v in x]
    return x, linear_solve_p.bind(*[c for cs in consts for c in cs], *rhs, jaxprs=jaxprs,
                                  const_lengths=const_lengths)


def _linear_solve_transpose(cts, *args, jaxprs, const_lengths):
    """The cotangent of b: the transposed system, solved by `transpose_solve`."""
    if jaxprs.transpose_solve is None:
        raise TypeError("transpose_solve required for backwards mode automatic "
                        "differentiation of custom_linear_solve")
    consts, b = _split(args, const_lengths)
    if any(is_linear(c) for cs in consts for c in cs):
        raise ValueError("custom_linear_solve is linear in b only, not in its constants")
    cts = [lax.full(ct.aval.shape, 0, ct.aval.dtype) if type(ct) is Zero else ct for ct in cts]
    swapped = consts.transpose()
    out = linear_solve_p.bind(*[c for cs in swapped for c in cs], *cts,
                              jaxprs=jaxprs.transpose(), const_lengths=const_lengths.transpose())
    return [None] * sum(const_lengths) + list(out)


def _linear_solve_lowering(ctx, *args, jaxprs, const_lengths):
    consts, b = _split(args, const_lengths)
    return jaxpr_subcomp(ctx.module_context, jaxprs.solve.jaxpr, [], consts.solve + b)


impl_rules[linear_solve_p] = _linear_solve_impl
abstract_eval_rules[linear_solve_p] = lambda *avals, jaxprs, const_lengths: list(
    jaxprs.solve.out_avals)
jvp_rules[linear_solve_p] = _linear_solve_jvp
transpose_rules[linear_solve_p] = _linear_solve_transpose
lowering_rules[linear_solve_p] = _linear_solve_lowering


def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """`solve(f, initial_guess)`, a root of `f`, differentiated implicitly with respect to what
    `f` closes over: from `f(x*) = 0`, `dx* = -tangent_solve(J, df)`, with `J` the linear map
    of `f` at the root. Written as a correction whose value is zero and whose derivative is
    exactly that tangent."""
    if has_aux:
        raise NotImplementedError("custom_root(has_aux=True) is not supported by autodidax")
    guess = stop_gradient(initial_guess)
    leaves, tree = tree_flatten(guess)
    jaxpr, consts, out_tree = trace_to_jaxpr_with_consts(f, tree_structure((guess,)),
                                                          [get_aval(x) for x in leaves])
    frozen = [stop_gradient(c) for c in consts]     # what f closes over, without derivatives

    def frozen_f(x):                     # f, through which no derivative reaches the solver
        return tree_unflatten(out_tree, eval_jaxpr(jaxpr.jaxpr, [], *frozen,
                                                   *tree_flatten(x)[0]))
    root = stop_gradient(solve(frozen_f, guess))

    def linear(v):                       # f's linear map in x at the root, x alone varying
        return jvp(f, (root,), (v,))[1]
    correction = tree_map(lax.neg, tangent_solve(linear, f(root)))
    return tree_map(lambda x, c: lax.add(x, lax.sub(c, stop_gradient(c))), root, correction)


tile_p = Primitive("tile")


def _tile_abstract(x, *, reps):
    if x.ndim != len(reps):
        raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} "
                        f"and x.ndim={x.ndim}.")
    return x.update(shape=tuple(d * r for d, r in zip(x.shape, reps)))


def _tile_transpose(ct, operand, *, reps):
    """Each copy's cotangent summed back: (r0, d0, r1, d1, ...) reduced over the r's."""
    if type(ct) is Zero:
        return [Zero(operand.aval)]
    shape = operand.aval.shape
    split = lax.reshape(ct, tuple(k for pair in zip(reps, shape) for k in pair))
    return [lax.reduce_sum(split, tuple(2 * i for i in range(len(shape))))]


def _tile_lowering(ctx, x, *, reps):
    (aval,), (out,) = ctx.avals_in, ctx.avals_out
    pairs = ShapedArray(tuple(j for d in aval.shape for j in (1, d)), aval.dtype)
    spread = ShapedArray(tuple(k for pair in zip(reps, aval.shape) for k in pair), aval.dtype)
    x = hlo.reshape(aval_to_ir_type(pairs), x)
    x = hlo.broadcast_in_dim(aval_to_ir_type(spread), x, dense_int_array(range(2 * aval.ndim)))
    return [hlo.reshape(aval_to_ir_type(out), x)]


impl_rules[tile_p] = xla_impl(tile_p)
abstract_eval_rules[tile_p] = _tile_abstract
deflinear(tile_p)
transpose_rules[tile_p] = _tile_transpose
batching_rules[tile_p] = lambda vals, dims, *, reps: (
    tile_p.bind(vals[0], reps=reps[:dims[0]] + (1,) + reps[dims[0]:]), dims[0])
lowering_rules[tile_p] = _tile_lowering


def tile(operand, reps):
    """`operand` repeated `reps[i]` times along each axis `i`."""
    return tile_p.bind(operand, reps=tuple(reps))


mulhi_p = Primitive("mulhi")


def _mulhi_abstract(x, y):
    if x.dtype != y.dtype:
        raise TypeError("lax.mulhi requires arguments to have the same dtypes, got "
                        f"{x.dtype.name}, {y.dtype.name}.")
    if dtype_kind(x.dtype) not in "iu":
        raise TypeError(f"lax.mulhi does not accept dtype {x.dtype.name}. Accepted dtypes are "
                        "subtypes of integer.")
    return ShapedArray(jnp.broadcast_shapes(x.shape, y.shape), x.dtype,
                       x.weak_type and y.weak_type)


impl_rules[mulhi_p] = xla_impl(mulhi_p)
abstract_eval_rules[mulhi_p] = _mulhi_abstract
defjvp_zero(mulhi_p)
batching_rules[mulhi_p] = elementwise_batching(mulhi_p)
lowering_rules[mulhi_p] = nary_lowering(chlo.mulhi)


def mulhi(x, y, /):
    """The high half of the double-width product of two integers: `(x * y) >> bits`."""
    return mulhi_p.bind(x, y)         # no promotion: two dtypes are JAX's TypeError


reduce_xor_p = Primitive("reduce_xor")


def _reduce_xor_abstract(x, *, axes):
    if dtype_kind(x.dtype) not in "biu":
        raise TypeError(f"reduce_xor does not accept dtype {x.dtype.name}. Accepted dtypes are "
                        "subtypes of integer, bool.")
    if any(not 0 <= a < x.ndim for a in axes):
        raise ValueError(f"reduce_xor axes {axes} are out of bounds for shape {x.shape}")
    return ShapedArray(tuple(d for i, d in enumerate(x.shape) if i not in axes), x.dtype)


impl_rules[reduce_xor_p] = xla_impl(reduce_xor_p)
abstract_eval_rules[reduce_xor_p] = _reduce_xor_abstract
defjvp_zero(reduce_xor_p)
batching_rules[reduce_xor_p] = reducer(reduce_xor_p)
lowering_rules[reduce_xor_p] = reduce_lowering(hlo.xor, lambda dtype: 0)


def reduce_xor(operand, axes):
    """The bitwise XOR of the elements over `axes`."""
    return reduce_xor_p.bind(operand, axes=tuple(axes))


optimization_barrier_p = Primitive("optimization_barrier")
optimization_barrier_p.multiple_results = True
impl_rules[optimization_barrier_p] = lambda *xs: list(xs)
abstract_eval_rules[optimization_barrier_p] = lambda *avals: list(avals)
jvp_rules[optimization_barrier_p] = lambda primals, tangents: (
    optimization_barrier_p.bind(*primals),
    optimization_barrier_p.bind(*map(instantiate_zeros, tangents)))
transpose_rules[optimization_barrier_p] = lambda cts, *xs: optimization_barrier_p.bind(
    *map(instantiate_zeros, cts))
batching_rules[optimization_barrier_p] = lambda vals, dims: (
    optimization_barrier_p.bind(*vals), list(dims))
lowering_rules[optimization_barrier_p] = lambda ctx, *xs: list(
    hlo.OptimizationBarrierOp(list(xs)).results)


def optimization_barrier(operand, /):
    """`operand` (a pytree) unchanged, with a fence that XLA does not move computations across:
    nothing is computed earlier, merged or recomputed through it."""
    leaves, tree = tree_flatten(operand)
    return tree_unflatten(tree, optimization_barrier_p.bind(*leaves))


def reduce(operands, init_values, computation, dimensions):
    """Reduce `operands` (a pytree) over `dimensions` with `computation`, from `init_values`:
    a sum, product, max, min, and, or or xor from its identity is that reduction primitive;
    any other computation is the generic `reduce` (not built here)."""
    flat, tree = tree_flatten(operands)
    inits, init_tree = tree_flatten(init_values)
    if tree != init_tree:
        raise ValueError("Operands must have the same tree structure as init_values: "
                         f"{tree} vs. {init_tree}")
    monoid = _reduce_monoid(computation, inits, flat)
    if monoid is None:
        raise NotImplementedError("lax.reduce with a computation other than add, mul, max, "
                                  "min, bitwise_and, bitwise_or or bitwise_xor from its "
                                  "identity is not supported by autodidax")
    weak = get_aval(flat[0]).weak_type and get_aval(inits[0]).weak_type
    out = monoid(flat[0], tuple(dimensions))
    if get_aval(out).weak_type != weak:
        out = lax.convert_element_type(out, get_aval(out).dtype, weak)
    return tree_unflatten(tree, [out])


def _reduce_monoid(computation, inits, operands):
    if len(inits) != 1 or isinstance(inits[0], Tracer) or np.shape(inits[0]):
        return None
    value, dtype = np.asarray(inits[0]), get_aval(operands[0]).dtype
    intlike = dtype_kind(dtype) in "biu"
    table = [(lax.add, 0, lax.reduce_sum), (lax.mul, 1, lax.reduce_prod),
             (lax.max, lax.lowest(dtype), lax.reduce_max),
             (lax.min, lax.highest(dtype), lax.reduce_min)]
    if intlike:
        table += [(lax.bitwise_or, 0, lax.reduce_or), (lax.bitwise_xor, 0, reduce_xor),
                  (lax.bitwise_and, np.array(-1).astype(dtype), lax.reduce_and)]
    for op, identity, reduction in table:
        if computation is op:
            return reduction if np.equal(value, identity) else None
    return None


scaled_dot_p = Primitive("scaled_dot")


def _validate_operand_scale(side, operand, scale, contracting):
    for i, size in enumerate(operand.shape):
        if i not in contracting:
            if scale.shape[i] != size:
                raise TypeError(f"{side} dim {i} of size {size} does not match scale dim size "
                                f"{scale.shape[i]}.")
        elif size % scale.shape[i]:
            raise TypeError(f"{side} contracting dim {i} of size {size} must be divisible by "
                            f"its scale's dim size {scale.shape[i]}.")
        elif size // scale.shape[i] < 2:
            raise TypeError(f"The ratio of {side} contracting dim {i} to its scale's dim size "
                            f"({size // scale.shape[i]}) must be at least 2.")


def _scaled_dot_abstract(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                         preferred_element_type):
    """JAX's checks (`_scaled_dot_validate_inputs`), then the shape of `dot_general`'s result."""
    (lc, rc), (lb, rb) = dimension_numbers
    if len({lhs.ndim, rhs.ndim, lhs_scale.ndim, rhs_scale.ndim}) > 1:
        raise TypeError(f"All input tensors must have the same rank. Got lhs rank: {lhs.ndim} "
                        f"rhs rank: {rhs.ndim} lhs_scale rank: {lhs_scale.ndim} rhs_scale "
                        f"rank: {rhs_scale.ndim}.")
    if len(lb) != len(rb):
        raise TypeError("LHS and RHS must have the same number of batch dimensions, got "
                        f"{len(lb)} and {len(rb)}.")
    if len(lc) != len(rc):
        raise TypeError("LHS and RHS must have the same number of contracting dimensions, got "
                        f"{len(lc)} and {len(rc)}.")
    for i, j in zip(lb, rb):
        if len({lhs.shape[i], rhs.shape[j], lhs_scale.shape[i], rhs_scale.shape[j]}) > 1:
            raise TypeError("All input tensors must have the same batch dimension size for "
                            f"batch dims ({i}, {j}).")
    for i, j in zip(lc, rc):
        if lhs.shape[i] != rhs.shape[j]:
            raise TypeError(f"LHS contracting dim {i} of size {lhs.shape[i]} does not match "
                            f"RHS contracting dim {j} of size {rhs.shape[j]}.")
    _validate_operand_scale("LHS", lhs, lhs_scale, lc)
    _validate_operand_scale("RHS", rhs, rhs_scale, rc)
    kept = lambda aval, c, b: [d for i, d in enumerate(aval.shape) if i not in c and i not in b]
    shape = [lhs.shape[i] for i in lb] + kept(lhs, lc, lb) + kept(rhs, rc, rb)
    return ShapedArray(shape, preferred_element_type)


def _repeat_scale(scale, shape, contracting):
    """Each scale repeated over its block of the contracting axes: the operand's shape."""
    for i in contracting:
        if scale.shape[i] != shape[i]:        # (.., k // b, ..) to (.., k // b, 1, ..) to
            ones = scale.shape[:i + 1] + (1,) + scale.shape[i + 1:]    # (.., k // b, b, ..)
            spread = ones[:i + 1] + (shape[i] // scale.shape[i],) + ones[i + 2:]
            dims = tuple(d for d in range(len(ones)) if d != i + 1)
            scale = lax.broadcast_in_dim(lax.broadcast_in_dim(scale, ones, dims), spread,
                                         tuple(range(len(ones))))
            scale = lax.reshape(scale, spread[:i] + (shape[i],) + spread[i + 2:])
    return scale


def _scaled_dot_decomposition(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers,
                              preferred_element_type):
    """What XLA computes when it knows no kernel for the composite (JAX's `_scaled_dot_impl`)."""
    (lc, rc), _ = dimension_numbers
    bf16 = np.dtype(jnp.bfloat16)

    def scaled(x, scale, contracting):
        scale = _repeat_scale(scale, x.shape, contracting)
        return lax.mul(lax.convert_element_type(x, bf16), lax.convert_element_type(scale, bf16))
    return lax.dot_general(scaled(lhs, lhs_scale, lc), scaled(rhs, rhs_scale, rc),
                           dimension_numbers, preferred_element_type=preferred_element_type)


def _scaled_dot_batch_rule(vals, dims, *, dimension_numbers, preferred_element_type):
    """Every batch axis to the front, and one more batch dimension (JAX's rule)."""
    size = next(x.shape[d] for x, d in zip(vals, dims) if d is not None)
    vals = [bdim_at_front(x, d, size) for x, d in zip(vals, dims)]
    bump = lambda axes: tuple(a + 1 for a in axes)
    (lc, rc), (lb, rb) = dimension_numbers
    dnums = ((bump(lc), bump(rc)), ((0,) + bump(lb), (0,) + bump(rb)))
    return scaled_dot_p.bind(*vals, dimension_numbers=dnums,
                             preferred_element_type=preferred_element_type), 0


impl_rules[scaled_dot_p] = xla_impl(scaled_dot_p)
abstract_eval_rules[scaled_dot_p] = _scaled_dot_abstract
batching_rules[scaled_dot_p] = _scaled_dot_batch_rule
lowering_rules[scaled_dot_p] = lambda ctx, *args, **params: lower_fun(
    composite(_scaled_dot_decomposition, name="xla.scaled_dot"), ctx, *args, **params)


def scaled_dot(lhs, rhs, *, lhs_scale=None, rhs_scale=None, dimension_numbers=None,
               preferred_element_type=None):
    """`(lhs * lhs_scale) @ (rhs * rhs_scale)`, in `preferred_element_type` (default
    `bfloat16`), each scale repeated over its block of the contracting axes."""
    lhs, rhs = map(jnp.asarray, (lhs, rhs))
    if dimension_numbers is None:
        if lhs.ndim < 2:
            raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        batch = tuple(range(lhs.ndim - 2))
        dimension_numbers = (((lhs.ndim - 1,), (lhs.ndim - 2,)), (batch, batch))
    dimension_numbers = tuple(tuple(map(tuple, pair)) for pair in dimension_numbers)
    (lc, rc), _ = dimension_numbers
    ones = lambda x, c: jnp.ones([1 if i in c else d for i, d in enumerate(x.shape)],
                                 jnp.bfloat16).astype(jnp.float8_e8m0fnu)
    lhs_scale = ones(lhs, lc) if lhs_scale is None else lhs_scale
    rhs_scale = ones(rhs, rc) if rhs_scale is None else rhs_scale
    requested = np.dtype(jnp.bfloat16 if preferred_element_type is None
                         else preferred_element_type)
    dtype = canonicalize_dtype(requested)
    if dtype != requested:                                       # JAX's warning
        warnings.warn(f"Explicitly requested dtype {requested} requested in scaled_dot is not "
                      f"available, and will be truncated to dtype {dtype}. To enable more "
                      "dtypes, set the jax_enable_x64 configuration option or the "
                      "JAX_ENABLE_X64 shell environment variable. See "
                      "https://github.com/jax-ml/jax#current-gotchas for more.", stacklevel=2)
    return scaled_dot_p.bind(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers=dimension_numbers,
                             preferred_element_type=dtype)


class AbstractToken(ShapedArray):
    """The type of a token, printed `Tok`: a `ShapedArray` of its data, an empty bool array."""
    __slots__ = ()

    def __init__(self):
        super().__init__((0,), np.bool_)

    def str_short(self, short_dtypes=True):
        return "Tok"


    def update(self, shape=None, dtype=None, weak_type=None):
        if shape in (None, self.shape) and dtype in (None, self.dtype) and not weak_type:
            return self
        raise TypeError("a token (Tok) is not an array: it has no shape or dtype to change")

    def __eq__(self, other):
        return type(other) is AbstractToken

    def __hash__(self):
        return hash("Tok")

    def __repr__(self):
        return "AbstractToken()"

    __str__ = __repr__        # as JAX's (jaxprs print `Tok`, through `str_short`)


abstract_token = AbstractToken()


class Token:
    """A token: a pytree node around its data, an empty array of type `Tok` (or a tracer)."""
    __slots__ = ("_buf",)

    def __init__(self, buf):
        self._buf = buf

    def block_until_ready(self):
        self._buf.block_until_ready()


register_pytree_node(Token, lambda t: ((t._buf,), None), lambda _, data: Token(data[0]))
create_token_p = Primitive("create_token")
after_all_p = Primitive("after_all")


def _after_all_abstract(*avals):
    if any(type(a) is not AbstractToken for a in avals):
        raise TypeError("Arguments to after_all must be tokens")
    return abstract_token


for _p in (create_token_p, after_all_p):
    impl_rules[_p] = lambda *tokens: np.zeros(0, np.bool_)
    lowering_rules[_p] = lambda ctx, *tokens: [ir_constant(np.zeros(0, np.bool_))]
abstract_eval_rules[create_token_p] = lambda: abstract_token
abstract_eval_rules[after_all_p] = _after_all_abstract


def create_token(_=None):
    """A new token, after nothing (the argument is ignored, as in JAX)."""
    return Token(create_token_p.bind())


def after_all(*operands):
    """A token that comes after every token in `operands`."""
    return Token(after_all_p.bind(*[t._buf if type(t) is Token else t for t in operands]))
