# Generated from chapters/11_indexing.md by `make export`: edit the chapter, not this file.


"""Indexing: dynamic slices, gather, scatter and sort, and their rules."""
from __future__ import annotations

import builtins
import enum
import functools
import operator
from typing import NamedTuple

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax import numpy as jnp
from autodidax.autodiff import is_linear, transpose_rules
from autodidax.batching import batching_rules, bdim_at_front, moveaxis
from autodidax.core import (Array, Primitive, ShapedArray, Tracer, abstract_eval_rules, dtype_kind,
                            get_aval, impl_rules)
from autodidax.jaxpr import trace_to_jaxpr
from autodidax.jvp import Zero, instantiate_zeros, jvp_rules
from autodidax.lowering import (aval_to_ir_type, ir_constant, jaxpr_subcomp, lowering_rules)
from autodidax.runtime import default_device, xla_primitive_executable


_executables: dict = {}    # (primitive, input avals, params) -> that one equation, compiled


def xla_impl(primitive):
    """An evaluation rule that runs `primitive` alone in a program compiled by XLA."""
    def impl(*args, **params):
        avals = tuple(ShapedArray(np.shape(a), np.result_type(a)) for a in args)
        key = (primitive, avals, tuple((k, str(v) if k == "update_jaxpr" else v)
                                       for k, v in sorted(params.items())))
        exe = _executables.get(key)
        if exe is None:
            exe = _executables[key] = xla_primitive_executable(primitive, params, avals,
                                                                 default_device())
        outs = [np.asarray(o) for o in exe(*args)]
        return outs if primitive.multiple_results else outs[0]
    return impl


def lower_fun(fun, ctx, *args, **params):
    """Lower `fun(*args, **params)`, written with `lax`, in place: trace it to a jaxpr and emit
    its equations (JAX's `mlir.lower_fun`)."""
    closed = trace_to_jaxpr(lambda *xs: [fun(*xs, **params)], ctx.avals_in)
    consts = [ir_constant(np.asarray(c)) for c in closed.consts]
    return jaxpr_subcomp(ctx.module_context, closed.jaxpr, consts, list(args))


dynamic_slice_p = Primitive("dynamic_slice")
dynamic_update_slice_p = Primitive("dynamic_update_slice")
impl_rules[dynamic_slice_p] = xla_impl(dynamic_slice_p)
impl_rules[dynamic_update_slice_p] = xla_impl(dynamic_update_slice_p)


shape_checks = {}        # primitive -> its check of the operands, with JAX's errors (app. A12)


def checked_rule(p, rule):
    """`p`'s abstract evaluation: its check in `shape_checks`, if any, then `rule`."""
    def abstract(*avals, **params):
        if p in shape_checks:
            shape_checks[p](*avals, **params)
        return rule(*avals, **params)
    return abstract


abstract_eval_rules[dynamic_slice_p] = checked_rule(
    dynamic_slice_p, lambda operand, *starts, slice_sizes: ShapedArray(
        tuple(slice_sizes), operand.dtype, operand.weak_type))
abstract_eval_rules[dynamic_update_slice_p] = checked_rule(
    dynamic_update_slice_p, lambda operand, update, *starts: operand)
lowering_rules[dynamic_slice_p] = lambda ctx, x, *starts, slice_sizes: [
    hlo.dynamic_slice(x, list(starts), list(slice_sizes))]
lowering_rules[dynamic_update_slice_p] = lambda ctx, x, update, *starts: [
    hlo.dynamic_update_slice(x, update, list(starts))]


def _normalize_start(i, size, allow_negative=True):
    """`i`, counted from the end if negative (JAX's `_dynamic_slice_indices`)."""
    if isinstance(i, (int, np.integer)) and not isinstance(i, bool):
        if i < 0 and not allow_negative:
            raise ValueError(f"Index {i} is out of bounds for dimension {size} if "
                             f"allow_negative_indices=False")
        return np.asarray(i + size if i < 0 else i, get_aval(i).dtype)   # int64 in x64 mode
    if not allow_negative or dtype_kind(get_aval(i).dtype) == "u":
        return i
    aval = get_aval(i)
    negative = lax.lt(i, np.zeros((), aval.dtype))
    strong = lax.convert_element_type(i, aval.dtype) if aval.weak_type else i
    return lax.select_n(negative, i, lax.add(strong, np.asarray(size, aval.dtype)))


def _as_starts(start_indices):
    if isinstance(start_indices, (Array, Tracer, np.ndarray)):
        if get_aval(start_indices).ndim != 1:
            raise ValueError(f"Slice indices must be a 1D sequence, got "
                             f"{get_aval(start_indices).shape}")
        return [start_indices[k] for k in range(get_aval(start_indices).shape[0])]
    return list(start_indices)


def _normalize_starts(operand, start_indices, allow_negative_indices):
    starts = _as_starts(start_indices)
    if len(starts) != operand.ndim:
        raise ValueError(f"Length of slice indices must match number of operand dimensions "
                         f"({len(starts)} vs {operand.shape})")
    allow = allow_negative_indices
    allow = [allow] * len(starts) if isinstance(allow, (bool, np.bool_)) else list(allow)
    return [_normalize_start(i, d, a) for i, d, a in zip(starts, operand.shape, allow)]


def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True):
    """The window of `operand` of shape `slice_sizes` starting at `start_indices` (clamped so
    that the window fits)."""
    operand = jnp.asarray(operand)
    starts = _normalize_starts(operand, start_indices, allow_negative_indices)
    sizes = tuple(operator.index(s) for s in slice_sizes)
    return dynamic_slice_p.bind(operand, *starts, slice_sizes=sizes)


def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """`operand` with the window at `start_indices` (clamped) replaced by `update`."""
    operand, update = jnp.asarray(operand), jnp.asarray(update)
    starts = _normalize_starts(operand, start_indices, allow_negative_indices)
    return dynamic_update_slice_p.bind(operand, update, *starts)


def zeros_of(aval):
    return lax.full(aval.shape, 0, aval.dtype)


def linear_jvp(p, linear):
    """The JVP rule of `p`, linear in its operands at positions `linear` jointly (the others,
    integer positions, have no tangent): `p` applied to their tangents."""
    def rule(primals, tangents, **params):
        out = p.bind(*primals, **params)
        if all(type(tangents[i]) is Zero for i in linear):
            return out, Zero.from_primal_value(out)
        return out, p.bind(*[instantiate_zeros(t) if i in linear else x
                             for i, (x, t) in enumerate(zip(primals, tangents))], **params)
    return rule



def _dynamic_slice_transpose(ct, operand, *starts, slice_sizes):
    return [dynamic_update_slice_p.bind(zeros_of(operand.aval), ct, *starts)] + [None] * len(starts)


def _dynamic_update_slice_transpose(ct, operand, update, *starts):
    update_aval = update.aval if is_linear(update) else get_aval(update)
    ct_operand = (dynamic_update_slice_p.bind(ct, zeros_of(update_aval), *starts)
                  if is_linear(operand) else None)
    ct_update = (dynamic_slice_p.bind(ct, *starts, slice_sizes=update_aval.shape)
                 if is_linear(update) else None)
    return [ct_operand, ct_update] + [None] * len(starts)


jvp_rules[dynamic_slice_p] = linear_jvp(dynamic_slice_p, (0,))
jvp_rules[dynamic_update_slice_p] = linear_jvp(dynamic_update_slice_p, (0, 1))
transpose_rules[dynamic_slice_p] = _dynamic_slice_transpose
transpose_rules[dynamic_update_slice_p] = _dynamic_update_slice_transpose
jnp.indexing_ops.update(dynamic_slice=dynamic_slice)


class GatherDimensionNumbers(NamedTuple):
    """How the index vectors and windows of a `gather` map onto its operand and output."""
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How the index vectors and update windows of a `scatter` map onto its operand."""
    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


class GatherScatterMode(enum.Enum):
    """What an out-of-bounds index does."""
    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()
    ONE_HOT = enum.auto()

    @staticmethod
    def from_any(s):
        if isinstance(s, GatherScatterMode):
            return s
        names = {"clip": "CLIP", "fill": "FILL_OR_DROP", "drop": "FILL_OR_DROP",
                 "promise_in_bounds": "PROMISE_IN_BOUNDS", "one_hot": "ONE_HOT"}
        if s is None or isinstance(s, str) and s in names:
            return GatherScatterMode[names.get(s, "FILL_OR_DROP")]
        raise ValueError(f'Unknown gather mode "{s}"')


def _as_tuples(nt):
    return type(nt)(*(tuple(int(d) for d in f) for f in nt))


gather_p = Primitive("gather")
impl_rules[gather_p] = xla_impl(gather_p)


def _gather_abstract(operand, indices, *, dimension_numbers, slice_sizes, **params):
    dn = dimension_numbers
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    window = iter([s for d, s in enumerate(slice_sizes) if d not in dropped])
    batch = iter(indices.shape[:-1])
    rank = indices.ndim - 1 + len(dn.offset_dims)
    shape = tuple(next(window) if d in dn.offset_dims else next(batch) for d in range(rank))
    return ShapedArray(shape, operand.dtype, operand.weak_type)


abstract_eval_rules[gather_p] = checked_rule(gather_p, _gather_abstract)


def _gather_fill(operand, indices, *, dimension_numbers, slice_sizes, fill_value, **params):
    dnums = dimension_numbers
    indices = lax.convert_element_type(indices, np.int32)
    upper = np.array([operand.shape[d] - slice_sizes[d] for d in dnums.start_index_map],
                     np.int32)
    nbatch = indices.ndim - 1
    in_bounds = lax.bitwise_and(lax.ge(indices, np.int32(0)),
                                lax.le(indices, lax.broadcast_in_dim(upper, indices.shape,
                                                                     (nbatch,))))
    in_bounds = lax.reduce_and(in_bounds, (nbatch,))
    out = gather_p.bind(operand, indices, dimension_numbers=dnums, slice_sizes=slice_sizes,
                        mode=GatherScatterMode.PROMISE_IN_BOUNDS, fill_value=None, **params)
    out_aval = get_aval(out)
    batch_dims = [d for d in range(out_aval.ndim) if d not in dnums.offset_dims]
    mask = lax.broadcast_in_dim(in_bounds, out_aval.shape, batch_dims)
    fill = lax.full(out_aval.shape, np.asarray(fill_value, out_aval.dtype), out_aval.dtype)
    return lax.select_n(mask, fill, out)


def _gather_lowering(ctx, operand, indices, *, dimension_numbers, slice_sizes,
                     indices_are_sorted, mode, **params):
    if mode is GatherScatterMode.FILL_OR_DROP:
        return lower_fun(_gather_fill, ctx, operand, indices,
                         dimension_numbers=dimension_numbers, slice_sizes=slice_sizes,
                         indices_are_sorted=indices_are_sorted, **params)
    dn = dimension_numbers
    attr = hlo.GatherDimensionNumbers.get(
        offset_dims=list(dn.offset_dims), collapsed_slice_dims=list(dn.collapsed_slice_dims),
        operand_batching_dims=list(dn.operand_batching_dims),
        start_indices_batching_dims=list(dn.start_indices_batching_dims),
        start_index_map=list(dn.start_index_map), index_vector_dim=ctx.avals_in[1].ndim - 1)
    return [hlo.gather(operand, indices, attr, list(slice_sizes),
                       indices_are_sorted=indices_are_sorted)]


lowering_rules[gather_p] = _gather_lowering


def _fill_value_for(dtype):
    if dtype_kind(dtype) in "iu":
        return int(np.iinfo(dtype).min if dtype_kind(dtype) == "i" else np.iinfo(dtype).max)
    return np.nan if dtype_kind(dtype) == "f" else True


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """XLA's gather (see the text for the meaning of the dimension numbers)."""
    operand, start_indices = jnp.asarray(operand), jnp.asarray(start_indices)
    mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
    if mode is not GatherScatterMode.FILL_OR_DROP:
        fill_value = None
    elif fill_value is None:
        fill_value = _fill_value_for(operand.dtype)
    return gather_p.bind(operand, start_indices, dimension_numbers=_as_tuples(dimension_numbers),
                         slice_sizes=tuple(operator.index(s) for s in slice_sizes),
                         unique_indices=bool(unique_indices),
                         indices_are_sorted=bool(indices_are_sorted), mode=mode,
                         fill_value=fill_value)


jnp.indexing_ops.update(gather=gather, GatherDimensionNumbers=GatherDimensionNumbers,
                        ScatterDimensionNumbers=ScatterDimensionNumbers,
                        GatherScatterMode=GatherScatterMode)


def _scatter_primitive(name, combine):
    p = Primitive(name)
    p.combine = combine          # lax function of two scalars, or None: an update replaces
    impl_rules[p] = xla_impl(p)
    return p


scatter_p = _scatter_primitive("scatter", None)
scatter_add_p = _scatter_primitive("scatter-add", lax.add)
scatter_sub_p = _scatter_primitive("scatter-sub", lax.sub)
scatter_mul_p = _scatter_primitive("scatter-mul", lax.mul)
scatter_min_p = _scatter_primitive("scatter-min", lax.min)
scatter_max_p = _scatter_primitive("scatter-max", lax.max)
SCATTERS = (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p,
             scatter_max_p)


def scatter_update_jaxpr(primitive, dtype):
    """The combining rule as a jaxpr of two scalars, as JAX prints it (None for `scatter`)."""
    if primitive.combine is None:
        return None
    scalar = ShapedArray((), dtype)
    return trace_to_jaxpr(lambda a, b: [primitive.combine(a, b)], [scalar, scalar]).jaxpr


for _p in SCATTERS:
    abstract_eval_rules[_p] = checked_rule(_p, lambda operand, indices, updates, **params: operand)


def _clamp_scatter_indices(operand, indices, updates, *, dnums):
    """Indices clamped so that every update window fits (JAX's `_clamp_scatter_indices`)."""
    window = iter(get_aval(updates).shape[d] for d in dnums.update_window_dims)
    sizes = [1 if d in dnums.inserted_window_dims or d in dnums.operand_batching_dims
             else next(window) for d in range(get_aval(operand).ndim)]
    upper = np.array([get_aval(operand).shape[d] - sizes[d]
                      for d in dnums.scatter_dims_to_operand_dims], get_aval(indices).dtype)
    upper = lax.broadcast_in_dim(upper, get_aval(indices).shape, (get_aval(indices).ndim - 1,))
    return lax.clamp(np.zeros((), get_aval(indices).dtype), indices, upper)


def _scatter_lowering(ctx, operand, indices, updates, *, dimension_numbers,
                      indices_are_sorted, unique_indices, mode, update_jaxpr, update_consts):
    dn = dimension_numbers
    if mode is GatherScatterMode.CLIP:
        indices, = lower_fun(_clamp_scatter_indices, ctx, operand, indices, updates, dnums=dn)
    attr = hlo.ScatterDimensionNumbers.get(
        update_window_dims=list(dn.update_window_dims),
        inserted_window_dims=list(dn.inserted_window_dims),
        input_batching_dims=list(dn.operand_batching_dims),
        scatter_indices_batching_dims=list(dn.scatter_indices_batching_dims),
        scattered_dims_to_operand_dims=list(dn.scatter_dims_to_operand_dims),
        index_vector_dim=ctx.avals_in[1].ndim - 1)
    op = hlo.ScatterOp([aval_to_ir_type(ctx.avals_out[0])], [operand], indices, [updates], attr,
                       indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    scalar = aval_to_ir_type(ShapedArray((), ctx.avals_in[0].dtype))
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        old, new = block.arguments
        if update_jaxpr is None:
            hlo.return_([new])
        else:
            hlo.return_(jaxpr_subcomp(ctx.module_context, update_jaxpr, [], [old, new]))
    return list(op.results)


for _p in SCATTERS:
    lowering_rules[_p] = _scatter_lowering


def scatter_general(primitive, operand, indices, updates, dimension_numbers, *,
             indices_are_sorted=False, unique_indices=False, mode=None, update_jaxpr=None):
    operand, indices, updates = map(jnp.asarray, (operand, indices, updates))
    if update_jaxpr is None:
        update_jaxpr = scatter_update_jaxpr(primitive, get_aval(operand).dtype)
    return primitive.bind(operand, indices, updates,
                          dimension_numbers=_as_tuples(dimension_numbers),
                          indices_are_sorted=bool(indices_are_sorted),
                          unique_indices=bool(unique_indices),
                          mode=GatherScatterMode.from_any(mode),
                          update_jaxpr=update_jaxpr, update_consts=())


def _public_scatter(primitive, name, doc):
    def scatter(operand, scatter_indices, updates, dimension_numbers, **kw):
        return scatter_general(primitive, operand, scatter_indices, updates, dimension_numbers,
                               **kw)
    scatter.__name__ = scatter.__qualname__ = name
    scatter.__doc__ = f"`operand` with the windows of `updates` {doc} at `scatter_indices`."
    return scatter


scatter = _public_scatter(scatter_p, "scatter", "written")
scatter_add = _public_scatter(scatter_add_p, "scatter_add", "added")
scatter_sub = _public_scatter(scatter_sub_p, "scatter_sub", "subtracted")
scatter_mul = _public_scatter(scatter_mul_p, "scatter_mul", "multiplied in")
scatter_min = _public_scatter(scatter_min_p, "scatter_min", "combined by min")
scatter_max = _public_scatter(scatter_max_p, "scatter_max", "combined by max")
jnp.indexing_ops.update(scatter=scatter, scatter_add=scatter_add, scatter_sub=scatter_sub,
                        scatter_mul=scatter_mul, scatter_min=scatter_min, scatter_max=scatter_max)


def _gather_to_scatter_dnums(dn):
    return ScatterDimensionNumbers(*dn)     # the same five fields, in order, renamed


def scatter_to_gather(dn, operand_aval, updates_aval):
    """The gather that reads back, from an array like the operand, what a scatter wrote."""
    window = iter(updates_aval.shape[d] for d in dn.update_window_dims)
    slice_sizes = tuple(1 if d in dn.inserted_window_dims or d in dn.operand_batching_dims
                        else next(window) for d in range(operand_aval.ndim))
    return GatherDimensionNumbers(*dn), slice_sizes


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes,
                      indices_are_sorted, unique_indices, mode, fill_value):
    aval = operand.aval
    out = scatter_add_p.bind(zeros_of(aval), indices, ct,
                             dimension_numbers=_gather_to_scatter_dnums(dimension_numbers),
                             indices_are_sorted=indices_are_sorted,
                             unique_indices=unique_indices, mode=mode,
                             update_jaxpr=scatter_update_jaxpr(scatter_add_p, aval.dtype),
                             update_consts=())
    return [out, None]


jvp_rules[gather_p] = linear_jvp(gather_p, (0,))
transpose_rules[gather_p] = _gather_transpose


def _scatter_add_transpose(ct, operand, indices, updates, *, dimension_numbers, mode,
                           indices_are_sorted, unique_indices, negate=False, **params):
    ct_operand = ct if is_linear(operand) else None
    ct_updates = None
    if is_linear(updates):
        gdn, sizes = scatter_to_gather(dimension_numbers, get_aval(ct), updates.aval)
        ct_updates = gather(ct, indices, gdn, sizes, mode=mode, fill_value=0,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
        ct_updates = lax.neg(ct_updates) if negate else ct_updates
    return [ct_operand, None, ct_updates]


jvp_rules[scatter_add_p] = linear_jvp(scatter_add_p, (0, 2))
jvp_rules[scatter_sub_p] = linear_jvp(scatter_sub_p, (0, 2))
transpose_rules[scatter_add_p] = _scatter_add_transpose
transpose_rules[scatter_sub_p] = functools.partial(_scatter_add_transpose, negate=True)


def _shift(dims, k=1):
    return tuple(np.add(k, dims))       # NumPy ints, as JAX's rules make them: `np.int64(1)`


def batch_size_of(vals, dims):
    return next(get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not None)


def gather_batching(vals, dims, *, dimension_numbers, slice_sizes, **params):
    operand, indices = vals
    operand_bdim, indices_bdim = dims
    dn = dimension_numbers
    if indices_bdim is None:               # the batch axis: one more window dimension, whole
        operand = moveaxis(operand, operand_bdim, 0)
        dn = dn._replace(offset_dims=(0,) + _shift(dn.offset_dims),
                         collapsed_slice_dims=_shift(dn.collapsed_slice_dims),
                         start_index_map=_shift(dn.start_index_map),
                         operand_batching_dims=_shift(dn.operand_batching_dims))
        sizes = (get_aval(operand).shape[0],) + tuple(slice_sizes)
    elif operand_bdim is None:             # one more batch dimension of the indices
        indices = moveaxis(indices, indices_bdim, 0)
        dn = dn._replace(offset_dims=tuple(1 + d for d in dn.offset_dims),   # (ints: JAX's)
                         start_indices_batching_dims=_shift(dn.start_indices_batching_dims))
        sizes = tuple(slice_sizes)
    else:                                  # both: a pair of batching dimensions
        operand = moveaxis(operand, operand_bdim, 0)
        indices = moveaxis(indices, indices_bdim, 0)
        dn = GatherDimensionNumbers(
            _shift(dn.offset_dims), _shift(dn.collapsed_slice_dims), _shift(dn.start_index_map),
            (0,) + _shift(dn.operand_batching_dims), (0,) + _shift(dn.start_indices_batching_dims))
        sizes = (1,) + tuple(slice_sizes)
    return gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=sizes, **params), 0


def scatter_batching(primitive):
    def rule(vals, dims, *, dimension_numbers, **params):
        operand, indices, updates = vals
        operand_bdim, indices_bdim, updates_bdim = dims
        size = batch_size_of(vals, dims)
        operand = bdim_at_front(operand, operand_bdim, size)
        updates = bdim_at_front(updates, updates_bdim, size)
        dn = dimension_numbers
        if indices_bdim is None:
            dn = dn._replace(update_window_dims=(0,) + _shift(dn.update_window_dims),
                             inserted_window_dims=_shift(dn.inserted_window_dims),
                             scatter_dims_to_operand_dims=_shift(dn.scatter_dims_to_operand_dims),
                             operand_batching_dims=_shift(dn.operand_batching_dims))
        else:
            indices = moveaxis(indices, indices_bdim, 0)
            dn = ScatterDimensionNumbers(
                _shift(dn.update_window_dims), _shift(dn.inserted_window_dims),
                _shift(dn.scatter_dims_to_operand_dims), (0,) + _shift(dn.operand_batching_dims),
                (0,) + _shift(dn.scatter_indices_batching_dims))
        return primitive.bind(operand, indices, updates, dimension_numbers=dn, **params), 0
    return rule


batching_rules[gather_p] = gather_batching
for _p in SCATTERS:
    batching_rules[_p] = scatter_batching(_p)


sort_p = Primitive("sort")
sort_p.multiple_results = True
impl_rules[sort_p] = xla_impl(sort_p)


def _sort_key(x, dtype):
    """A float key with -0.0 made 0.0 and every NaN one NaN, for a total order."""
    if dtype_kind(dtype) != "f":
        return x
    t = x.type
    zero = hlo.constant(ir.DenseElementsAttr.get(np.zeros((), dtype), type=t))
    nan = hlo.constant(ir.DenseElementsAttr.get(np.full((), np.nan, dtype), type=t))
    kind = hlo.ComparisonTypeAttr.get("FLOAT")
    is_zero = hlo.compare(x, zero, hlo.ComparisonDirectionAttr.get("EQ"), compare_type=kind)
    x = hlo.select(is_zero, zero, x)
    is_nan = hlo.compare(x, x, hlo.ComparisonDirectionAttr.get("NE"), compare_type=kind)
    return hlo.select(is_nan, nan, x)


def _sort_lowering(ctx, *operands, dimension, is_stable, num_keys):
    op = hlo.SortOp([aval_to_ir_type(a) for a in ctx.avals_out], list(operands),
                    dimension=dimension, is_stable=is_stable)
    dtypes = [a.dtype for a in ctx.avals_in]
    scalars = [aval_to_ir_type(ShapedArray((), d)) for d in dtypes for _ in (0, 1)]
    block = op.regions[0].blocks.append(*scalars)
    with ir.InsertionPoint(block):
        args, keys, result = block.arguments, [], None
        for a, b, d in zip(args[:2 * num_keys:2], args[1:2 * num_keys:2], dtypes):
            part = lax.real_dtype(d)            # a complex key is two: real, then imaginary part
            keys += ([(hlo.real(a), hlo.real(b), part), (hlo.imag(a), hlo.imag(b), part)]
                     if dtype_kind(d) == "c" else [(a, b, d)])
        for a, b, d in reversed(keys):
            kind = hlo.ComparisonTypeAttr.get(
                {"f": "TOTALORDER", "i": "SIGNED"}.get(dtype_kind(d), "UNSIGNED"))
            a, b = _sort_key(a, d), _sort_key(b, d)
            lt = hlo.compare(a, b, hlo.ComparisonDirectionAttr.get("LT"), compare_type=kind)
            if result is None:
                result = lt
            else:
                eq = hlo.compare(a, b, hlo.ComparisonDirectionAttr.get("EQ"), compare_type=kind)
                result = hlo.or_(lt, hlo.and_(eq, result))
        hlo.return_([result])
    return list(op.results)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    shape = get_aval(primals[0]).shape
    iotas = [lax.broadcasted_iota(np.int32, shape, d) for d in range(len(shape))]
    outs = sort_p.bind(*primals, iotas[dimension], dimension=dimension, is_stable=is_stable,
                       num_keys=num_keys)
    idx = tuple(outs[-1] if d == dimension else iotas[d] for d in range(len(shape)))
    tangents_out = [Zero.from_primal_value(p) if type(t) is Zero else t[idx]   # a gather
                    for p, t in zip(outs[:-1], tangents)]
    return list(outs[:-1]), tangents_out


def _sort_batching(vals, dims, *, dimension, is_stable, num_keys):
    size = batch_size_of(vals, dims)
    vals = [bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    return sort_p.bind(*vals, dimension=dimension + 1, is_stable=is_stable,
                       num_keys=num_keys), [0] * len(vals)


abstract_eval_rules[sort_p] = checked_rule(sort_p, lambda *operands, **params: list(operands))
lowering_rules[sort_p] = _sort_lowering
jvp_rules[sort_p] = _sort_jvp
batching_rules[sort_p] = _sort_batching


def canonical_axis(axis, ndim):
    if not -ndim <= operator.index(axis) < builtins.max(ndim, 1):   # a float: a TypeError
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % builtins.max(ndim, 1)


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """`lax.sort`: one array, or a sequence of arrays sorted by their first `num_keys`."""
    many = isinstance(operand, (list, tuple))
    operands = [jnp.asarray(o) for o in (operand if many else [operand])]
    outs = sort_p.bind(*operands, dimension=canonical_axis(dimension, operands[0].ndim),
                       is_stable=bool(is_stable), num_keys=num_keys if many else 1)
    return tuple(outs) if many else outs[0]


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    return sort((keys, values), dimension=dimension, is_stable=is_stable, num_keys=1)


jnp.indexing_ops.update(sort=sort)
