# Generated from chapters/11_indexing.md by `make export`: edit the chapter, not this file.


"""Indexing: dynamic slices, gather, scatter and sort, and NumPy's `x[...]` and `x.at[...]`."""
from __future__ import annotations

import builtins
import enum
import functools
import operator
from typing import NamedTuple

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax
from autodidax import numpy as jnp
from autodidax.autodiff import is_linear, transpose_rules
from autodidax.batching import batching_rules, bdim_at_front, moveaxis
from autodidax.core import (Array, NonConcreteBooleanIndexError, Primitive, ShapedArray, Tracer,
                            abstract_eval_rules, get_aval, impl_rules)
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
    its equations (JAX's `mlir.lower_fun`). Lowering rules use it for what is easier to say as a
    composition of primitives than as MLIR."""
    closed = trace_to_jaxpr(lambda *xs: [fun(*xs, **params)], ctx.avals_in)
    consts = [ir_constant(np.asarray(c)) for c in closed.consts]
    return jaxpr_subcomp(ctx.module_context, closed.jaxpr, consts, list(args))


dynamic_slice_p = Primitive("dynamic_slice")
dynamic_update_slice_p = Primitive("dynamic_update_slice")
impl_rules[dynamic_slice_p] = xla_impl(dynamic_slice_p)
impl_rules[dynamic_update_slice_p] = xla_impl(dynamic_update_slice_p)


def _check_starts(name, operand, starts):
    if len(starts) != operand.ndim:
        raise TypeError(f"{name} start_indices must have length equal to the number of "
                        f"dimensions of the operand, got indices {len(starts)} for operand "
                        f"shape {operand.shape}")
    for s in starts:
        if s.shape or s.dtype.kind not in "iu":
            raise TypeError(f"{name} start indices must be scalars of an integer type, got "
                            f"{s.str_short()}")
    if len({s.dtype for s in starts}) > 1:
        raise TypeError(f"{name} start indices must all have the same dtype, got "
                        f"{[s.dtype.name for s in starts]}")


def _dynamic_slice_abstract(operand, *starts, slice_sizes):
    _check_starts("dynamic_slice", operand, starts)
    if len(slice_sizes) != operand.ndim or builtins.any(
            not 0 <= s <= d for s, d in zip(slice_sizes, operand.shape)):
        raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, got "
                        f"slice_sizes {tuple(slice_sizes)} for operand shape {operand.shape}")
    return ShapedArray(tuple(slice_sizes), operand.dtype, operand.weak_type)


def _dynamic_update_slice_abstract(operand, update, *starts):
    _check_starts("dynamic_update_slice", operand, starts)
    if update.ndim != operand.ndim or builtins.any(
            u > d for u, d in zip(update.shape, operand.shape)):
        raise TypeError(f"dynamic_update_slice update shape must be smaller than operand "
                        f"shape, got update shape {update.shape} for operand shape "
                        f"{operand.shape}.")
    if update.dtype != operand.dtype:
        raise TypeError(f"dynamic_update_slice update dtype must match operand dtype, got "
                        f"{update.dtype.name} and {operand.dtype.name}")
    return operand


abstract_eval_rules[dynamic_slice_p] = _dynamic_slice_abstract
abstract_eval_rules[dynamic_update_slice_p] = _dynamic_update_slice_abstract
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
        return np.asarray(i + size if i < 0 else i, np.int32)
    if not allow_negative or get_aval(i).dtype.kind == "u":
        return i
    aval = get_aval(i)
    negative = lax.lt(i, 0)
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


def _in_dim(operand, start_index, axis, allow_negative_indices):
    """The starts and negative-index flags of a window along `axis` only."""
    starts, allow = [0] * operand.ndim, [False] * operand.ndim
    starts[axis], allow[axis] = start_index, allow_negative_indices
    return starts, allow


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True, *,
                         allow_negative_indices=True):
    """`operand[..., index, ...]` along `axis`, with a traced `index`."""
    return _dynamic_index_in_dim(jnp.asarray(operand), jnp.asarray(index), operator.index(axis),
                                 bool(keepdims), bool(allow_negative_indices))


@jnp._jit_in_jaxprs("dynamic_index_in_dim", static_argnums=(2, 3, 4))
def _dynamic_index_in_dim(operand, index, axis, keepdims, allow_negative_indices):
    out = dynamic_slice_in_dim(operand, index, 1, axis,
                               allow_negative_indices=allow_negative_indices)
    return out if keepdims else lax.squeeze(out, (axis,))


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0, *,
                         allow_negative_indices=True):
    """`slice_size` elements of `operand` from a traced `start_index` along `axis`."""
    operand = jnp.asarray(operand)
    starts, allow = _in_dim(operand, start_index, axis, allow_negative_indices)
    sizes = list(operand.shape)
    sizes[axis] = slice_size
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow)


def dynamic_update_slice_in_dim(operand, update, start_index, axis, *,
                                allow_negative_indices=True):
    operand = jnp.asarray(operand)
    starts, allow = _in_dim(operand, start_index, axis, allow_negative_indices)
    return dynamic_update_slice(operand, update, starts, allow_negative_indices=allow)


def dynamic_update_index_in_dim(operand, update, index, axis, *, allow_negative_indices=True):
    return _dynamic_update_index_in_dim(jnp.asarray(operand), jnp.asarray(update),
                                        jnp.asarray(index), operator.index(axis),
                                        bool(allow_negative_indices))


@jnp._jit_in_jaxprs("dynamic_update_index_in_dim", static_argnums=(3, 4))
def _dynamic_update_index_in_dim(operand, update, index, axis, allow_negative_indices):
    if update.ndim == operand.ndim - 1:
        update = lax.expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)


def _zeros(aval):
    return lax.full(aval.shape, 0, aval.dtype)


def _dynamic_slice_jvp(primals, tangents, *, slice_sizes):
    operand, *starts = primals
    out = dynamic_slice_p.bind(operand, *starts, slice_sizes=slice_sizes)
    t = tangents[0]
    if type(t) is Zero:
        return out, Zero.from_primal_value(out)
    return out, dynamic_slice_p.bind(t, *starts, slice_sizes=slice_sizes)


def _dynamic_update_slice_jvp(primals, tangents):
    operand, update, *starts = primals
    out = dynamic_update_slice_p.bind(operand, update, *starts)
    t_operand, t_update = tangents[:2]
    if type(t_operand) is Zero and type(t_update) is Zero:
        return out, Zero.from_primal_value(out)
    return out, dynamic_update_slice_p.bind(instantiate_zeros(t_operand),
                                            instantiate_zeros(t_update), *starts)


def _dynamic_slice_transpose(ct, operand, *starts, slice_sizes):
    return [dynamic_update_slice_p.bind(_zeros(operand.aval), ct, *starts)] + [None] * len(starts)


def _dynamic_update_slice_transpose(ct, operand, update, *starts):
    update_aval = update.aval if is_linear(update) else get_aval(update)
    ct_operand = (dynamic_update_slice_p.bind(ct, _zeros(update_aval), *starts)
                  if is_linear(operand) else None)
    ct_update = (dynamic_slice_p.bind(ct, *starts, slice_sizes=update_aval.shape)
                 if is_linear(update) else None)
    return [ct_operand, ct_update] + [None] * len(starts)


jvp_rules[dynamic_slice_p] = _dynamic_slice_jvp
jvp_rules[dynamic_update_slice_p] = _dynamic_update_slice_jvp
transpose_rules[dynamic_slice_p] = _dynamic_slice_transpose
transpose_rules[dynamic_update_slice_p] = _dynamic_update_slice_transpose


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
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(f'Unknown gather mode "{s}"')


def _as_tuples(nt):
    return type(nt)(*(tuple(int(d) for d in f) for f in nt))


gather_p = Primitive("gather")
impl_rules[gather_p] = xla_impl(gather_p)


def _gather_shape(operand, indices, dnums, slice_sizes):
    """The output shape of a gather; errors as JAX's `_gather_shape_rule`."""
    if indices.dtype.kind not in "iu":
        raise TypeError(f"Indices must be of integer type, got {indices.dtype.name}")
    if indices.ndim < 1 or indices.shape[-1] != len(dnums.start_index_map):
        raise TypeError(f"Gather op has {len(dnums.start_index_map)} elements in "
                        f"start_index_map and the bound of dimension index_vector_dim="
                        f"{indices.ndim - 1} of indices is "
                        f"{indices.shape[-1] if indices.ndim else 0}. These two numbers must "
                        "be equal.")
    if len(slice_sizes) != operand.ndim:
        raise TypeError(f"Gather op must have one slice size for every input dimension; got: "
                        f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={operand.ndim}")
    for d, (s, n) in enumerate(zip(slice_sizes, operand.shape)):
        if not 0 <= s <= n:
            raise TypeError(f"Slice size at index {d} in gather op is out of range, must be "
                            f"within [0, {n} + 1), got {s}.")
    for d in dnums.collapsed_slice_dims + dnums.operand_batching_dims:
        if slice_sizes[d] > 1:
            where = (dnums.collapsed_slice_dims.index(d) if d in dnums.collapsed_slice_dims
                     else 0)
            raise TypeError(f"Gather op can only collapse slice dims with bound 1, but bound is "
                            f"{slice_sizes[d]} for index {d} at position {where}.")
    dropped = set(dnums.collapsed_slice_dims) | set(dnums.operand_batching_dims)
    window = [s for d, s in enumerate(slice_sizes) if d not in dropped]
    if len(window) != len(dnums.offset_dims):
        raise TypeError(f"All components of the offset index in a gather op must either be a "
                        f"offset dimension or explicitly collapsed/batching; got "
                        f"len(slice_sizes)={len(slice_sizes)}, output_slice_sizes={window}, "
                        f"collapsed_slice_dims={dnums.collapsed_slice_dims}, "
                        f"operand_batching_dims={dnums.operand_batching_dims}.")
    batch = iter(indices.shape[:-1])
    window = iter(window)
    rank = indices.ndim - 1 + len(dnums.offset_dims)
    return tuple(next(window) if d in dnums.offset_dims else next(batch) for d in range(rank))


def _gather_abstract(operand, indices, *, dimension_numbers, slice_sizes, mode, fill_value,
                     **params):
    shape = _gather_shape(operand, indices, dimension_numbers, slice_sizes)
    return ShapedArray(shape, operand.dtype, operand.weak_type)


abstract_eval_rules[gather_p] = _gather_abstract


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
    if dtype.kind == "f":
        return np.nan
    if dtype.kind == "i":
        return int(np.iinfo(dtype).min)
    if dtype.kind == "u":
        return int(np.iinfo(dtype).max)
    return True


def gather(operand, start_indices, dimension_numbers, slice_sizes, *, unique_indices=False,
           indices_are_sorted=False, mode=None, fill_value=None):
    """XLA's gather (see the text for the meaning of the dimension numbers)."""
    operand, start_indices = jnp.asarray(operand), jnp.asarray(start_indices)
    mode = GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
    if mode is GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:
            fill_value = _fill_value_for(operand.dtype)
    else:
        fill_value = None
    return gather_p.bind(operand, start_indices, dimension_numbers=_as_tuples(dimension_numbers),
                         slice_sizes=tuple(operator.index(s) for s in slice_sizes),
                         unique_indices=bool(unique_indices),
                         indices_are_sorted=bool(indices_are_sorted), mode=mode,
                         fill_value=fill_value)


def _scatter_primitive(name, combine):
    p = Primitive(name)
    p.combine = combine          # lax function of two scalars, or None: the update wins
    impl_rules[p] = xla_impl(p)
    return p


scatter_p = _scatter_primitive("scatter", None)
scatter_add_p = _scatter_primitive("scatter-add", lax.add)
scatter_sub_p = _scatter_primitive("scatter-sub", lax.sub)
scatter_mul_p = _scatter_primitive("scatter-mul", lax.mul)
scatter_min_p = _scatter_primitive("scatter-min", lax.min)
scatter_max_p = _scatter_primitive("scatter-max", lax.max)
_SCATTERS = (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p,
             scatter_max_p)


def _update_jaxpr(primitive, dtype):
    """The combining rule as a jaxpr of two scalars, as JAX prints it (None for `scatter`)."""
    if primitive.combine is None:
        return None
    scalar = ShapedArray((), dtype)
    return trace_to_jaxpr(lambda a, b: [primitive.combine(a, b)], [scalar, scalar]).jaxpr


def _scatter_abstract(operand, indices, updates, *, dimension_numbers, **params):
    dn = dimension_numbers
    if indices.dtype.kind not in "iu":
        raise TypeError(f"Scatter indices must be of integer type, got {indices.dtype.name}")
    if updates.dtype != operand.dtype:
        raise TypeError(f"scatter requires operand and updates to have the same dtype, got "
                        f"{operand.dtype.name} and {updates.dtype.name}.")
    if updates.ndim != len(dn.update_window_dims) + indices.ndim - 1:
        rank = len(dn.update_window_dims) + indices.ndim - 1
        raise TypeError(f"Updates tensor must be of rank {rank}; got {updates.ndim}.")
    return operand


for _p in _SCATTERS:
    abstract_eval_rules[_p] = _scatter_abstract


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


for _p in _SCATTERS:
    lowering_rules[_p] = _scatter_lowering


def _scatter(primitive, operand, indices, updates, dimension_numbers, *,
             indices_are_sorted=False, unique_indices=False, mode=None, update_jaxpr=None):
    operand, indices, updates = map(jnp.asarray, (operand, indices, updates))
    if update_jaxpr is None:
        update_jaxpr = _update_jaxpr(primitive, get_aval(operand).dtype)
    return primitive.bind(operand, indices, updates,
                          dimension_numbers=_as_tuples(dimension_numbers),
                          indices_are_sorted=bool(indices_are_sorted),
                          unique_indices=bool(unique_indices),
                          mode=GatherScatterMode.from_any(mode),
                          update_jaxpr=update_jaxpr, update_consts=())


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """`operand` with `func` applied to the elements at `scatter_indices`: a `scatter` whose
    combining rule ignores the update and applies `func` to the old value."""
    operand = jnp.asarray(operand)
    scalar = ShapedArray((), get_aval(operand).dtype)
    rule = trace_to_jaxpr(lambda x, _: [func(x)], [scalar, scalar]).jaxpr
    updates = (np.zeros((), scalar.dtype) if not tuple(update_shape)
               else lax.full(update_shape, 0, scalar.dtype))
    return _scatter(scatter_p, operand, scatter_indices, updates, dimension_numbers,
                    indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                    mode=mode, update_jaxpr=rule)


def scatter(operand, scatter_indices, updates, dimension_numbers, **kw):
    """`operand` with the windows of `updates` written at `scatter_indices`."""
    return _scatter(scatter_p, operand, scatter_indices, updates, dimension_numbers, **kw)


def scatter_add(operand, scatter_indices, updates, dimension_numbers, **kw):
    """`operand` with the windows of `updates` added at `scatter_indices`."""
    return _scatter(scatter_add_p, operand, scatter_indices, updates, dimension_numbers, **kw)


def scatter_sub(operand, scatter_indices, updates, dimension_numbers, **kw):
    """`operand` with the windows of `updates` subtracted at `scatter_indices`."""
    return _scatter(scatter_sub_p, operand, scatter_indices, updates, dimension_numbers, **kw)


def scatter_mul(operand, scatter_indices, updates, dimension_numbers, **kw):
    return _scatter(scatter_mul_p, operand, scatter_indices, updates, dimension_numbers, **kw)


def scatter_min(operand, scatter_indices, updates, dimension_numbers, **kw):
    return _scatter(scatter_min_p, operand, scatter_indices, updates, dimension_numbers, **kw)


def scatter_max(operand, scatter_indices, updates, dimension_numbers, **kw):
    return _scatter(scatter_max_p, operand, scatter_indices, updates, dimension_numbers, **kw)


def _gather_to_scatter_dnums(dn):
    return ScatterDimensionNumbers(
        update_window_dims=dn.offset_dims, inserted_window_dims=dn.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        scatter_indices_batching_dims=dn.start_indices_batching_dims)


def _scatter_to_gather(dn, operand_aval, updates_aval):
    """The gather that reads back, from an array like the operand, what a scatter wrote."""
    window = iter(updates_aval.shape[d] for d in dn.update_window_dims)
    slice_sizes = tuple(1 if d in dn.inserted_window_dims or d in dn.operand_batching_dims
                        else next(window) for d in range(operand_aval.ndim))
    gdn = GatherDimensionNumbers(
        offset_dims=dn.update_window_dims, collapsed_slice_dims=dn.inserted_window_dims,
        start_index_map=dn.scatter_dims_to_operand_dims,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.scatter_indices_batching_dims)
    return gdn, slice_sizes


def _gather_jvp(primals, tangents, **params):
    operand, indices = primals
    out = gather_p.bind(operand, indices, **params)
    if type(tangents[0]) is Zero:
        return out, Zero.from_primal_value(out)
    return out, gather_p.bind(tangents[0], indices, **params)


def _gather_transpose(ct, operand, indices, *, dimension_numbers, slice_sizes,
                      indices_are_sorted, unique_indices, mode, fill_value):
    aval = operand.aval
    out = scatter_add_p.bind(_zeros(aval), indices, ct,
                             dimension_numbers=_gather_to_scatter_dnums(dimension_numbers),
                             indices_are_sorted=indices_are_sorted,
                             unique_indices=unique_indices, mode=mode,
                             update_jaxpr=_update_jaxpr(scatter_add_p, aval.dtype),
                             update_consts=())
    return [out, None]


jvp_rules[gather_p] = _gather_jvp
transpose_rules[gather_p] = _gather_transpose


def _scatter_linear_jvp(primitive):
    """The JVP of a scatter that is linear in operand and updates jointly (`scatter-add`,
    `scatter-sub`), or where the indices do not repeat (`scatter`)."""
    def rule(primals, tangents, **params):
        operand, indices, updates = primals
        out = primitive.bind(operand, indices, updates, **params)
        t_operand, _, t_updates = tangents
        if type(t_operand) is Zero and type(t_updates) is Zero:
            return out, Zero.from_primal_value(out)
        return out, primitive.bind(instantiate_zeros(t_operand), indices,
                                   instantiate_zeros(t_updates), **params)
    return rule


def _scatter_mul_jvp(primals, tangents, **params):
    operand, indices, updates = primals
    out = scatter_mul_p.bind(operand, indices, updates, **params)
    t_operand, _, t_updates = tangents
    tangent = Zero.from_primal_value(out)
    if type(t_operand) is not Zero:
        tangent = scatter_mul_p.bind(t_operand, indices, updates, **params)
    if type(t_updates) is not Zero:
        if not params["unique_indices"]:
            raise NotImplementedError("scatter_mul gradients are only implemented if "
                                      "`unique_indices=True`")
        add_params = dict(params, update_jaxpr=_update_jaxpr(scatter_add_p, get_aval(out).dtype))
        term = lax.mul(operand, scatter_add_p.bind(_zeros(get_aval(operand)), indices, t_updates,
                                                   **add_params))
        tangent = term if type(tangent) is Zero else lax.add(tangent, term)
    return out, tangent


def _scatter_add_transpose(ct, operand, indices, updates, *, dimension_numbers, mode,
                           indices_are_sorted, unique_indices, negate=False, **params):
    ct_operand = ct if is_linear(operand) else None
    ct_updates = None
    if is_linear(updates):
        gdn, sizes = _scatter_to_gather(dimension_numbers, get_aval(ct), updates.aval)
        ct_updates = gather(ct, indices, gdn, sizes, mode=mode, fill_value=0,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
        ct_updates = lax.neg(ct_updates) if negate else ct_updates
    return [ct_operand, None, ct_updates]


def _scatter_transpose(ct, operand, indices, updates, *, dimension_numbers, mode,
                       indices_are_sorted, unique_indices, **params):
    if not unique_indices:
        raise NotImplementedError("scatter transpose is only implemented where "
                                  "unique_indices=True")
    updates_aval = updates.aval if is_linear(updates) else get_aval(updates)
    ct_operand = ct_updates = None
    if is_linear(operand):
        ct_operand = scatter_p.bind(ct, indices, _zeros(updates_aval),
                                    dimension_numbers=dimension_numbers, mode=mode,
                                    indices_are_sorted=indices_are_sorted,
                                    unique_indices=unique_indices, **params)
    if is_linear(updates):
        gdn, sizes = _scatter_to_gather(dimension_numbers, get_aval(ct), updates_aval)
        ct_updates = gather(ct, indices, gdn, sizes, mode=mode, fill_value=0,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    return [ct_operand, None, ct_updates]


def _scatter_mul_transpose(ct, operand, indices, updates, **params):
    if is_linear(updates):
        raise NotImplementedError("scatter_mul gradients are only implemented if "
                                  "`unique_indices=True`")
    return [scatter_mul_p.bind(ct, indices, updates, **params), None, None]


def _scatter_jvp(primals, tangents, **params):
    """`scatter`'s JVP. With repeated indices only one write per position survives, and its
    tangent must be the one that survives: number the updates, scatter the numbers, gather them
    back to see which update won where, and mask the losers (and the overwritten operand) to 0;
    then scatter-*add* values and tangents alike (JAX's `_scatter_jvp`)."""
    if params["update_jaxpr"] is not None:
        raise NotImplementedError("scatter_apply JVP not implemented")
    if params["unique_indices"]:
        return _scatter_linear_jvp(scatter_p)(primals, tangents, **params)
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    if type(t_operand) is Zero and type(t_updates) is Zero:
        out = scatter_p.bind(operand, indices, updates, **params)
        return out, Zero.from_primal_value(out)
    t_operand, t_updates = instantiate_zeros(t_operand), instantiate_zeros(t_updates)
    dn, mode = params["dimension_numbers"], params["mode"]
    u_aval, x_aval = get_aval(updates), get_aval(operand)
    ids_shape = [1 if d in dn.update_window_dims else n for d, n in enumerate(u_aval.shape)]
    update_ids = lax.add(lax.reshape(lax.iota(np.uint32, int(np.prod(ids_shape))), ids_shape),
                         lax.full(u_aval.shape, 1, np.uint32))
    scattered_ids = scatter(lax.full(x_aval.shape, 0, np.uint32), indices, update_ids, dn,
                            indices_are_sorted=params["indices_are_sorted"], mode=mode)
    gdn, sizes = _scatter_to_gather(dn, x_aval, u_aval)
    gathered_ids = gather(scattered_ids, indices, gdn, sizes)
    def mask_operand(x):          # zero where an update overwrote the operand
        kept = lax.eq(scattered_ids, lax.full(x_aval.shape, 0, np.uint32))
        return lax.select_n(kept, _zeros(x_aval), x)

    def mask_updates(u):          # zero the updates that lost
        kept = lax.eq(update_ids, gathered_ids)
        return lax.select_n(kept, _zeros(u_aval), u)
    add = dict(indices_are_sorted=params["indices_are_sorted"], mode=mode)
    masked_operand, masked_updates = mask_operand(operand), mask_updates(updates)
    masked_t_operand, masked_t_updates = mask_operand(t_operand), mask_updates(t_updates)
    out = scatter_add(masked_operand, indices, masked_updates, dn, **add)
    tangent = scatter_add(masked_t_operand, indices, masked_t_updates, dn, **add)
    return out, tangent


def _scatter_extremal_jvp(primitive):
    """The JVP of `scatter-min`/`scatter-max`: where several values tie for the extremum,
    the tangent is their mean, as JAX's `_scatter_extremal_jvp` defines it."""
    def rule(primals, tangents, **params):
        operand, indices, updates = primals
        out = primitive.bind(operand, indices, updates, **params)
        t_operand, _, t_updates = tangents
        if type(t_operand) is Zero and type(t_updates) is Zero:
            return out, Zero.from_primal_value(out)
        t_operand, t_updates = instantiate_zeros(t_operand), instantiate_zeros(t_updates)
        dn = params["dimension_numbers"]
        x_aval, u_aval = get_aval(operand), get_aval(updates)
        gdn, sizes = _scatter_to_gather(dn, x_aval, u_aval)
        read = lambda a: gather(a, indices, gdn, sizes)
        initial, target = read(operand), read(out)
        won, kept = lax.eq(updates, target), lax.eq(initial, target)
        ones = lax.full(u_aval.shape, 1, u_aval.dtype)
        num_updates = read(scatter_add(_zeros(x_aval), indices,
                                       lax.select_n(won, _zeros(u_aval), ones), dn))
        num_refs = read(scatter_add(_zeros(x_aval), indices, ones, dn))
        updates_norm = lax.select_n(kept, 1.0 / num_updates, 1.0 / (num_updates + 1))
        updates_coef = lax.select_n(won, _zeros(u_aval), updates_norm)
        operand_norm = lax.select_n(kept, _zeros(u_aval), 1.0 / (num_updates + 1))
        operand_coef = (-1.0 + operand_norm) / num_refs
        t_new = read(t_operand) * operand_coef + t_updates * updates_coef
        return out, scatter_add(t_operand, indices, t_new, dn,
                                indices_are_sorted=params["indices_are_sorted"],
                                unique_indices=params["unique_indices"], mode=params["mode"])
    return rule


jvp_rules[scatter_add_p] = _scatter_linear_jvp(scatter_add_p)
jvp_rules[scatter_sub_p] = _scatter_linear_jvp(scatter_sub_p)
jvp_rules[scatter_min_p] = _scatter_extremal_jvp(scatter_min_p)
jvp_rules[scatter_max_p] = _scatter_extremal_jvp(scatter_max_p)
jvp_rules[scatter_p] = _scatter_jvp
jvp_rules[scatter_mul_p] = _scatter_mul_jvp
transpose_rules[scatter_add_p] = _scatter_add_transpose
transpose_rules[scatter_sub_p] = functools.partial(_scatter_add_transpose, negate=True)
transpose_rules[scatter_p] = _scatter_transpose
transpose_rules[scatter_mul_p] = _scatter_mul_transpose


def _shift(dims, k=1):
    return tuple(d + k for d in dims)


def _batch_size(vals, dims):
    return next(get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not None)


def _gather_batching(vals, dims, *, dimension_numbers, slice_sizes, **params):
    operand, indices = vals
    operand_bdim, indices_bdim = dims
    dn = dimension_numbers
    if indices_bdim is None:               # the batch axis: one more window dimension, whole
        operand = moveaxis(operand, operand_bdim, 0)
        dn = GatherDimensionNumbers(
            offset_dims=(0,) + _shift(dn.offset_dims),
            collapsed_slice_dims=_shift(dn.collapsed_slice_dims),
            start_index_map=_shift(dn.start_index_map),
            operand_batching_dims=_shift(dn.operand_batching_dims),
            start_indices_batching_dims=dn.start_indices_batching_dims)
        sizes = (get_aval(operand).shape[0],) + tuple(slice_sizes)
    elif operand_bdim is None:             # one more batch dimension of the indices
        indices = moveaxis(indices, indices_bdim, 0)
        dn = dn._replace(offset_dims=_shift(dn.offset_dims),
                         start_indices_batching_dims=_shift(dn.start_indices_batching_dims))
        sizes = tuple(slice_sizes)
    else:                                  # both: a pair of batching dimensions
        operand = moveaxis(operand, operand_bdim, 0)
        indices = moveaxis(indices, indices_bdim, 0)
        dn = GatherDimensionNumbers(
            offset_dims=_shift(dn.offset_dims),
            collapsed_slice_dims=_shift(dn.collapsed_slice_dims),
            start_index_map=_shift(dn.start_index_map),
            operand_batching_dims=(0,) + _shift(dn.operand_batching_dims),
            start_indices_batching_dims=(0,) + _shift(dn.start_indices_batching_dims))
        sizes = (1,) + tuple(slice_sizes)
    return gather_p.bind(operand, indices, dimension_numbers=dn, slice_sizes=sizes, **params), 0


def _scatter_batching(primitive):
    def rule(vals, dims, *, dimension_numbers, **params):
        operand, indices, updates = vals
        operand_bdim, indices_bdim, updates_bdim = dims
        size = _batch_size(vals, dims)
        operand = bdim_at_front(operand, operand_bdim, size)
        updates = bdim_at_front(updates, updates_bdim, size)
        dn = dimension_numbers
        if indices_bdim is None:
            dn = ScatterDimensionNumbers(
                update_window_dims=(0,) + _shift(dn.update_window_dims),
                inserted_window_dims=_shift(dn.inserted_window_dims),
                scatter_dims_to_operand_dims=_shift(dn.scatter_dims_to_operand_dims),
                operand_batching_dims=_shift(dn.operand_batching_dims),
                scatter_indices_batching_dims=dn.scatter_indices_batching_dims)
        else:
            indices = moveaxis(indices, indices_bdim, 0)
            dn = ScatterDimensionNumbers(
                update_window_dims=_shift(dn.update_window_dims),
                inserted_window_dims=_shift(dn.inserted_window_dims),
                scatter_dims_to_operand_dims=_shift(dn.scatter_dims_to_operand_dims),
                operand_batching_dims=(0,) + _shift(dn.operand_batching_dims),
                scatter_indices_batching_dims=(0,) + _shift(dn.scatter_indices_batching_dims))
        return primitive.bind(operand, indices, updates, dimension_numbers=dn, **params), 0
    return rule


def _starts_as_index_vector(starts, bdims):
    """The scalar starts of a dynamic slice as one index vector, batched if any start is."""
    if builtins.all(d is None for d in bdims):
        return lax.concatenate([lax.reshape(jnp.asarray(s), (1,)) for s in starts], 0), None
    size = _batch_size(starts, bdims)
    cols = [lax.reshape(bdim_at_front(jnp.asarray(s), d, size), (size, 1))
            for s, d in zip(starts, bdims)]
    return lax.concatenate(cols, 1), 0


def _dynamic_slice_batching(vals, dims, *, slice_sizes):
    operand, *starts = vals
    operand_bdim, *start_bdims = dims
    every = tuple(range(get_aval(operand).ndim - (operand_bdim is not None)))
    index, index_bdim = _starts_as_index_vector(starts, start_bdims)
    dn = GatherDimensionNumbers(offset_dims=every, collapsed_slice_dims=(), start_index_map=every)
    return _gather_batching([operand, index], [operand_bdim, index_bdim], dimension_numbers=dn,
                            slice_sizes=slice_sizes, unique_indices=True, indices_are_sorted=True,
                            mode=GatherScatterMode.CLIP, fill_value=None)


def _dynamic_update_slice_batching(vals, dims):
    operand, update, *starts = vals
    operand_bdim, update_bdim, *start_bdims = dims
    rank = get_aval(operand).ndim - (operand_bdim is not None)
    every = tuple(range(rank))
    index, index_bdim = _starts_as_index_vector(starts, start_bdims)
    dn = ScatterDimensionNumbers(update_window_dims=every, inserted_window_dims=(),
                                 scatter_dims_to_operand_dims=every)
    dtype = get_aval(operand).dtype
    return _scatter_batching(scatter_p)(
        [operand, index, update], [operand_bdim, index_bdim, update_bdim], dimension_numbers=dn,
        indices_are_sorted=True, unique_indices=True, mode=GatherScatterMode.CLIP,
        update_jaxpr=None, update_consts=())


batching_rules[gather_p] = _gather_batching
batching_rules[dynamic_slice_p] = _dynamic_slice_batching
batching_rules[dynamic_update_slice_p] = _dynamic_update_slice_batching
for _p in _SCATTERS:
    batching_rules[_p] = _scatter_batching(_p)


sort_p = Primitive("sort")
sort_p.multiple_results = True
impl_rules[sort_p] = xla_impl(sort_p)


def _sort_abstract(*operands, dimension, is_stable, num_keys):
    if len({o.shape for o in operands}) > 1:
        raise TypeError(f"sort requires all operands to have the same shape, got "
                        f"{[o.shape for o in operands]}")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"num_keys={num_keys} must be between 1 and the number of operands "
                         f"({len(operands)})")
    return list(operands)


def _sort_key(x, dtype):
    """A float key with -0.0 made 0.0 and every NaN one NaN, for a total order."""
    if dtype.kind != "f":
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
        args = block.arguments
        result = None
        for k in reversed(range(num_keys)):
            kind = hlo.ComparisonTypeAttr.get(
                {"f": "TOTALORDER", "i": "SIGNED"}.get(dtypes[k].kind, "UNSIGNED"))
            a, b = _sort_key(args[2 * k], dtypes[k]), _sort_key(args[2 * k + 1], dtypes[k])
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
    tangents_out = [Zero.from_primal_value(p) if type(t) is Zero else _rewriting_take(t, idx)
                    for p, t in zip(outs[:-1], tangents)]
    return list(outs[:-1]), tangents_out


def _sort_batching(vals, dims, *, dimension, is_stable, num_keys):
    size = _batch_size(vals, dims)
    vals = [bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    return sort_p.bind(*vals, dimension=dimension + 1, is_stable=is_stable,
                       num_keys=num_keys), [0] * len(vals)


abstract_eval_rules[sort_p] = _sort_abstract
lowering_rules[sort_p] = _sort_lowering
jvp_rules[sort_p] = _sort_jvp
batching_rules[sort_p] = _sort_batching


def _canonical_axis(axis, ndim):
    if not -ndim <= axis < builtins.max(ndim, 1):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % builtins.max(ndim, 1)


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """`lax.sort`: one array, or a sequence of arrays sorted by their first `num_keys`."""
    if isinstance(operand, (list, tuple)):
        operands = [jnp.asarray(o) for o in operand]
        d = _canonical_axis(dimension, operands[0].ndim)
        return tuple(sort_p.bind(*operands, dimension=d, is_stable=bool(is_stable),
                                 num_keys=num_keys))
    operand = jnp.asarray(operand)
    d = _canonical_axis(dimension, operand.ndim)
    return sort_p.bind(operand, dimension=d, is_stable=bool(is_stable), num_keys=1)[0]


def sort_key_val(keys, values, dimension=-1, is_stable=True):
    return sort((keys, values), dimension=dimension, is_stable=is_stable, num_keys=1)


def _check_sort_arguments(name, a, kind, order):
    """NumPy's `kind` and `order` are refused, with JAX's messages."""
    if kind is not None:
        raise TypeError(f"'kind' argument to {name} is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")
    jnp._check_arraylike(name, a)


@jnp._jit_in_jaxprs("sort", static_argnums=(1, 2, 3))
def _jnp_sort(a, axis, stable, descending):
    if axis is None:
        a, axis = jnp.ravel(a), 0
    axis = _canonical_axis(axis, a.ndim)
    out = sort_p.bind(a, dimension=axis, is_stable=stable, num_keys=1)[0]
    return lax.rev(out, (axis,)) if descending else out


def jnp_sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """`jnp.sort`: `a` sorted along `axis` (flattened first if `axis` is None)."""
    _check_sort_arguments("sort", a, kind, order)
    return _jnp_sort(jnp.asarray(a), axis, bool(stable), bool(descending))


@jnp._jit_in_jaxprs("argsort", static_argnums=(1, 2, 3))
def _jnp_argsort(a, axis, stable, descending):
    if axis is None:
        a, axis = jnp.ravel(a), 0
    axis = _canonical_axis(axis, a.ndim)
    iota = lax.broadcasted_iota(np.int32, a.shape, axis)
    if descending and stable:        # reversed, so that equal keys keep their order at the end
        a, iota = lax.rev(a, (axis,)), lax.rev(iota, (axis,))
    _, perm = sort_p.bind(a, iota, dimension=axis, is_stable=stable, num_keys=1)
    return lax.rev(perm, (axis,)) if descending else perm


def jnp_argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """`jnp.argsort`: the indices that sort `a` along `axis`."""
    _check_sort_arguments("argsort", a, kind, order)
    return _jnp_argsort(jnp.asarray(a), axis, bool(stable), bool(descending))


def _is_int_array(i):
    return isinstance(i, (Array, Tracer, np.ndarray)) and get_aval(i).dtype.kind in "iu"


def _is_bool_array(i):
    return isinstance(i, (Array, Tracer, np.ndarray)) and get_aval(i).dtype == np.bool_


def _check_index(i):
    if isinstance(i, list):
        return jnp.asarray(i) if i else jnp.asarray(i, np.int32)
    if i is None or i is Ellipsis or isinstance(i, builtins.slice):
        return i
    if isinstance(i, (bool, np.bool_)):
        return i
    if isinstance(i, (int, np.integer)):
        return int(i)
    if isinstance(i, (Array, Tracer, np.ndarray)):
        if _is_bool_array(i) and not get_aval(i).shape:      # a 0-d mask is a scalar boolean
            value = i.to_concrete_value() if isinstance(i, Tracer) else np.asarray(i)
            return i if value is None else bool(value)
        if get_aval(i).dtype.kind not in "iub":
            raise TypeError(f"Indexer must have integer or boolean type, got indexer with "
                             f"type {get_aval(i).dtype.name}")
        return i
    raise TypeError(f"Indexer must be an integer, a slice, None, ..., or an array of integers "
                    f"or booleans; got {type(i).__name__}")


def _is_scalar_bool(i):
    return isinstance(i, (bool, np.bool_))


def _expand_ellipsis(index, ndim):
    real = [i for i in index if i is not None and i is not Ellipsis and not _is_scalar_bool(i)]
    nreal = builtins.sum(get_aval(i).ndim if _is_bool_array(i) else 1 for i in real)
    if nreal > ndim:
        raise IndexError(f"Too many indices: {ndim}-dimensional array indexed with {nreal} "
                         "regular indices.")
    if builtins.sum(i is Ellipsis for i in index) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    fill = (builtins.slice(None),) * (ndim - nreal)
    if builtins.any(i is Ellipsis for i in index):
        at = next(k for k, i in enumerate(index) if i is Ellipsis)
        return index[:at] + fill + index[at + 1:]
    return index + fill


def _expand_bool_indices(index, shape):
    out, dim = [], 0
    for i in index:
        if _is_bool_array(i):
            aval = get_aval(i)
            if aval.shape != tuple(shape[dim:dim + aval.ndim]):
                raise IndexError(f"boolean index did not match shape of indexed array in index "
                                 f"{dim}: got {aval.shape}, expected "
                                 f"{tuple(shape[dim:dim + aval.ndim])}")
            value = i.to_concrete_value() if isinstance(i, Tracer) else np.asarray(i)
            if value is None:
                raise NonConcreteBooleanIndexError(
                    f"Array boolean indices must be concrete; got {aval.str_short()}\n\nA "
                    "boolean mask selects a number of elements that depends on its values, "
                    "and under jit the shape of every value must be known when it is traced. "
                    "Use jnp.where(mask, x, 0) instead, or nonzero(mask, size=...).")
            out.extend(jnp.asarray(np.asarray(k, np.int32)) for k in np.nonzero(value))
            dim += aval.ndim
        else:
            out.append(i)
            dim += i is not None
    return tuple(out)


def _normalize(i, size):
    """`i` counted from the end where negative: `select_n(i < 0, i, i + size)`."""
    if isinstance(i, int):
        return i + size if i < 0 else i
    if get_aval(i).dtype.kind == "u":
        return i
    return lax.select_n(lax.lt(i, 0), i, lax.add(i, size))


def _try_dynamic_slice(a, index, normalize=True):
    """`a[index]` as one dynamic_slice, or None if the index is not of that form."""
    for i in index:
        if isinstance(i, builtins.slice):
            if i.step not in (None, 1, -1):
                return None
        elif not (i is None or isinstance(i, int) or _is_int_array(i) and not get_aval(i).shape):
            return None
    starts, sizes, rev_axes, squeeze_axes, new_axes = [], [], [], [], []
    dim = 0
    for i in index:
        if i is None:
            new_axes.append(len(starts) - len(squeeze_axes) + len(new_axes))
            continue
        n = a.shape[dim]
        if isinstance(i, builtins.slice):
            start, stop, step = i.indices(n)
            if step < 0:
                new_start = stop + 1 + builtins.abs(start - stop - 1) % builtins.abs(step)
                starts.append(new_start)
                sizes.append(builtins.max(0, start + 1 - new_start))
                rev_axes.append(dim)
            else:
                starts.append(start)
                sizes.append(builtins.max(0, stop - start))
        else:
            if n == 0:
                raise IndexError(f"index is out of bounds for axis {dim} with size 0")
            starts.append(jnp.asarray(i))
            sizes.append(1)
            squeeze_axes.append(dim)
        dim += 1
    if len(starts) > 1:
        starts = [lax.convert_element_type(s, np.int32) if isinstance(s, Tracer)
                  else jnp.asarray(s, np.int32) for s in starts]
    starts = [_normalize_start(s, d, normalize) for s, d in zip(starts, a.shape)]
    out = dynamic_slice_p.bind(a, *starts, slice_sizes=tuple(sizes))
    if rev_axes:
        out = lax.rev(out, rev_axes)
    if squeeze_axes:
        out = lax.squeeze(out, squeeze_axes)
    if new_axes:
        out = lax.expand_dims(out, new_axes)
    return out


class _Indexer(NamedTuple):
    """`x[index]` as a gather: its indices, dimension numbers and slice sizes, and what to do
    to the gathered array after (reverse some dimensions, insert `None`s)."""
    slice_shape: tuple
    gather_slice_shape: tuple
    gather_indices: object
    dnums: GatherDimensionNumbers
    unique_indices: bool
    indices_are_sorted: bool
    reversed_y_dims: tuple
    newaxis_dims: tuple


def _index_to_gather(shape, index, normalize=True):
    index = _expand_ellipsis(tuple(_check_index(i) for i in index), len(shape))
    index = _expand_bool_indices(index, shape)
    advanced = [k for k, i in enumerate(index)
                if i is not None and not isinstance(i, builtins.slice)]
    # NumPy: integers (and 0-d arrays) count as advanced indices only if some array does too
    if not builtins.any(not isinstance(index[k], int) and get_aval(index[k]).ndim > 0
                        for k in advanced):
        advanced = []
    contiguous = advanced == list(range(advanced[0], advanced[-1] + 1)) if advanced else True
    x_dims = {}
    dim = 0
    for k, i in enumerate(index):
        if i is not None:
            x_dims[k] = dim
            dim += 1
    arrays = []
    for k in advanced:
        i = index[k]
        i = jnp.asarray(i) if isinstance(i, int) else i
        arrays.append(_normalize(i, shape[x_dims[k]]) if normalize else i)
    if arrays:
        bshape = np.broadcast_shapes(*(get_aval(a).shape for a in arrays))
        arrays = [a if get_aval(a).shape == bshape else jnp.broadcast_to(a, bshape)
                  for a in arrays]
    offset_dims, collapsed, start_map, gathered = [], [], [], []
    indices_shape, slice_shape, gather_slice_shape = [], [], []
    newaxis_dims, reversed_y_dims = [], []
    y_axis = collapsed_y_axis = 0
    for k, i in enumerate(index):
        if advanced and (contiguous and k == advanced[0] or not contiguous and k == 0):
            start = len(indices_shape)
            gathered.extend((lax.convert_element_type(a, np.int32), start) for a in arrays)
            indices_shape += list(bshape)
            start_map.extend(x_dims[j] for j in advanced)
            collapsed.extend(x_dims[j] for j in advanced)
            slice_shape.extend(bshape)
            y_axis += len(bshape)
            collapsed_y_axis += len(bshape)
        if k in advanced:
            gather_slice_shape.append(1)
            continue
        if i is None:
            slice_shape.append(1)
            newaxis_dims.append(y_axis)
            y_axis += 1
        elif isinstance(i, int) or not isinstance(i, builtins.slice):
            n = shape[x_dims[k]]
            if n == 0:
                raise IndexError(f"index is out of bounds for axis {x_dims[k]} with size 0")
            i = _normalize(i, n) if normalize else i
            i = lax.convert_element_type(i, np.int32) if isinstance(i, Tracer) \
                else jnp.asarray(i, np.int32)
            gathered.append((i, len(indices_shape)))
            collapsed.append(x_dims[k])
            gather_slice_shape.append(1)
            start_map.append(x_dims[k])
        else:
            n = shape[x_dims[k]]
            start, stop, step = i.indices(n)
            size = builtins.max(0, len(range(start, stop, step)))
            slice_shape.append(size)
            if step == 1:
                if size != n:
                    gathered.append((np.asarray(start, np.int32), len(indices_shape)))
                    start_map.append(x_dims[k])
                gather_slice_shape.append(size)
                offset_dims.append(collapsed_y_axis)
            else:
                positions = np.arange(start, stop, step, dtype=np.int32)
                if step < 0:
                    reversed_y_dims.append(collapsed_y_axis)
                    positions = positions[::-1].copy()
                gather_slice_shape.append(1)
                gathered.append((jnp.asarray(positions), len(indices_shape)))
                start_map.append(x_dims[k])
                indices_shape.append(size)
                collapsed.append(x_dims[k])
            collapsed_y_axis += 1
            y_axis += 1
    if not gathered:
        indices = np.zeros((0,), np.int32)
    elif len(gathered) == 1:
        g, _ = gathered[0]
        indices = lax.expand_dims(g, (get_aval(g).ndim,))
    else:
        full = tuple(indices_shape) + (1,)
        indices = lax.concatenate(
            [lax.broadcast_in_dim(g, full, tuple(range(s, s + get_aval(g).ndim)))
             for g, s in gathered], len(indices_shape))
    dnums = GatherDimensionNumbers(offset_dims=tuple(offset_dims),
                                   collapsed_slice_dims=tuple(sorted(collapsed)),
                                   start_index_map=tuple(start_map))
    return _Indexer(tuple(slice_shape), tuple(gather_slice_shape), indices, dnums,
                    not advanced, not advanced, tuple(reversed_y_dims), tuple(newaxis_dims))


def _as_index_tuple(index):
    if isinstance(index, list):
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                        "allowed; use `arr[array(seq)]` instead of `arr[seq]`. See "
                        "https://github.com/jax-ml/jax/issues/4564 for more information.")
    return index if isinstance(index, tuple) else (index,)


def _scalar_bools_to_axes(a, index):
    """A scalar boolean is an advanced index into a new axis of size 1: `[0]` if it is True,
    `[]` if it is False (NumPy's rule, JAX's `expand_scalar_bool_indices`)."""
    index = _expand_ellipsis(tuple(_check_index(i) for i in index), get_aval(a).ndim)
    axes, new_index, dim = [], [], 0
    for i in index:
        if _is_scalar_bool(i):
            axes.append(dim)
            new_index.append(np.arange(int(i), dtype=np.int32))
        else:
            new_index.append(i)
        dim += i is not None
    return lax.expand_dims(a, axes), tuple(new_index)


def _rewriting_take(a, index, *, indices_are_sorted=False, unique_indices=False, mode=None,
                    fill_value=None, normalize_indices=True):
    """`a[index]`: a dynamic slice where that is enough, a gather otherwise."""
    a = jnp.asarray(a)
    index = tuple(_check_index(i) for i in _as_index_tuple(index))
    if builtins.any(_is_scalar_bool(i) for i in index):
        a, index = _scalar_bools_to_axes(a, index)
    checked = _expand_ellipsis(tuple(_check_index(i) for i in index), a.ndim)
    if mode is None or GatherScatterMode.from_any(mode) in (
            GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP):
        out = _try_dynamic_slice(a, checked, normalize_indices)
        if out is not None:
            return out
    idx = _index_to_gather(a.shape, index, normalize_indices)
    if builtins.any(s == 0 for s in idx.slice_shape):
        return lax.full(idx.slice_shape, 0, a.dtype)
    y = a
    if get_aval(idx.gather_indices).size:
        y = gather(y, idx.gather_indices, idx.dnums, idx.gather_slice_shape,
                   unique_indices=unique_indices or idx.unique_indices,
                   indices_are_sorted=indices_are_sorted or idx.indices_are_sorted,
                   mode=mode, fill_value=fill_value)
    if idx.reversed_y_dims:
        y = lax.rev(y, idx.reversed_y_dims)
    if idx.newaxis_dims:
        y = lax.expand_dims(y, idx.newaxis_dims)
    return y


jnp.advanced_indexing["getitem"] = _rewriting_take


def _scatter_update(primitive, x, index, y, *, indices_are_sorted=False, unique_indices=False,
                    mode=None, normalize_indices=True):
    x = jnp.asarray(x)
    y = jnp.asarray(y)
    x_aval = get_aval(x)
    if builtins.any(_is_scalar_bool(_check_index(i)) for i in _as_index_tuple(index)):
        raise TypeError("autodidax does not support a scalar boolean index in x.at[...]")
    idx = _index_to_gather(x_aval.shape, _as_index_tuple(index), normalize_indices)
    if builtins.any(s == 0 for s in idx.slice_shape):
        return x
    if not isinstance(y, Tracer):                     # a constant: convert it on the spot
        y = jnp.asarray(np.asarray(y, x_aval.dtype))
    elif get_aval(y).dtype != x_aval.dtype or get_aval(y).weak_type:
        y = lax.convert_element_type(y, x_aval.dtype, weak_type=False)
    y = jnp.broadcast_to(y, idx.slice_shape)
    if idx.newaxis_dims:
        y = lax.squeeze(y, idx.newaxis_dims)
    if idx.reversed_y_dims:
        y = lax.rev(y, idx.reversed_y_dims)
    scatter_fn = (primitive if callable(primitive) and not isinstance(primitive, Primitive)
                  else lambda *args, **kw: _scatter(primitive, *args, **kw))
    out = scatter_fn(x, idx.gather_indices, y, _gather_to_scatter_dnums(idx.dnums),
                     indices_are_sorted=idx.indices_are_sorted or indices_are_sorted,
                     unique_indices=idx.unique_indices or unique_indices, mode=mode)
    if x_aval.weak_type:
        out = lax.convert_element_type(out, x_aval.dtype, weak_type=True)
    return out


class _IndexUpdateRef:
    """`x.at[index]`: the methods that read or update `x` at `index`."""

    def __init__(self, array, index):
        self.array, self.index = array, index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def _scatter(self, primitive, values, *, indices_are_sorted=False, unique_indices=False,
                 mode=None, wrap_negative_indices=True):
        return _scatter_update(primitive, self.array, self.index, values, mode=mode,
                               indices_are_sorted=indices_are_sorted,
                               unique_indices=unique_indices,
                               normalize_indices=wrap_negative_indices)

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None, wrap_negative_indices=True):
        return _rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                               unique_indices=unique_indices, mode=mode, fill_value=fill_value,
                               normalize_indices=wrap_negative_indices)

    def set(self, values, **kw):
        return self._scatter(scatter_p, values, **kw)

    def add(self, values, **kw):
        return self._scatter(scatter_add_p, values, **kw)

    def subtract(self, values, **kw):
        return self._scatter(scatter_sub_p, values, **kw)

    def multiply(self, values, **kw):
        return self._scatter(scatter_mul_p, values, **kw)

    mul = multiply

    def divide(self, values, **kw):
        return self.multiply(jnp.true_divide(1, values), **kw)

    def power(self, values, *, wrap_negative_indices=True, **kw):
        """`x ** e`, where `e` is 1 except at the index, where repeated indices multiply."""
        exponents = _scatter_update(scatter_mul_p, jnp.ones_like(self.array), self.index, values,
                                    normalize_indices=wrap_negative_indices, **kw)
        return jnp.power(self.array, exponents)

    def min(self, values, **kw):
        return self._scatter(scatter_min_p, values, **kw)

    def max(self, values, **kw):
        return self._scatter(scatter_max_p, values, **kw)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices=True):
        """`func` applied to the elements at the index, once per time the index names them."""
        def apply_scatter(x, indices, y, dnums, **kw):
            return scatter_apply(x, indices, func, dnums, update_shape=get_aval(y).shape, **kw)
        return _scatter_update(apply_scatter, self.array, self.index, 0,
                               indices_are_sorted=indices_are_sorted,
                               unique_indices=unique_indices, mode=mode,
                               normalize_indices=wrap_negative_indices)


class _IndexUpdateHelper:
    """`x.at`: indexing it gives an `_IndexUpdateRef`."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


jnp.advanced_indexing["at"] = _IndexUpdateHelper


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """`a` indexed by `indices` along `axis` (flattened if None)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a, indices = jnp.asarray(a), jnp.asarray(indices)
    if axis is None:
        a, axis = jnp.ravel(a), 0
    axis = _canonical_axis(axis, a.ndim)
    mode = "fill" if mode is None else mode
    if mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    if mode == "wrap":
        indices, mode = jnp.remainder(indices, a.shape[axis]), "promise_in_bounds"
    index = (builtins.slice(None),) * axis + (indices,)
    return _rewriting_take(a, index, mode=mode, fill_value=fill_value,
                           unique_indices=unique_indices, indices_are_sorted=indices_are_sorted)


def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    """Elements of `arr` picked by `indices` along `axis` (of the flattened `arr` if None);
    the other axes broadcast. Negative indices count from the end unless
    `wrap_negative_indices=False` (the default under `mode="promise_in_bounds"`)."""
    arr, indices = jnp.asarray(arr), jnp.asarray(indices)
    if indices.dtype.kind not in "iu":
        raise TypeError(f"take_along_axis indices must be of integer type, got {indices.dtype}")
    if axis is None:
        if indices.ndim != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape "
                             f"{indices.shape}")
        arr, axis = jnp.ravel(arr), 0
    if arr.ndim != indices.ndim:
        raise ValueError("indices and arr must have the same number of dimensions; "
                         f"{indices.ndim} vs. {arr.ndim}")
    axis = _canonical_axis(axis, arr.ndim)
    along = list(arr.shape)
    along[axis] = indices.shape[axis]
    shape = np.broadcast_shapes(tuple(along), indices.shape)
    if arr.shape[axis] == 0:
        return lax.full(shape, 0, arr.dtype)
    if mode == "one_hot":
        raise NotImplementedError("take_along_axis(mode='one_hot') is not built in autodidax")
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    index = [jnp.broadcast_to(indices, shape) if d == axis
             else lax.broadcasted_iota(np.int32, shape, d) if arr.shape[d] != 1
             else lax.full(shape, 0, np.int32) for d in range(arr.ndim)]
    return _rewriting_take(arr, tuple(index), mode="fill" if mode is None else mode,
                           fill_value=fill_value, normalize_indices=wrap_negative_indices)


def nonzero(a, *, size, fill_value=None):
    """The indices of the nonzero elements of `a`, as `size` entries per dimension."""
    a = jnp.asarray(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(a)"
                         ".nonzero() instead.")
    mask = jnp.ravel(a != 0) if a.dtype != np.bool_ else jnp.ravel(a)
    size = operator.index(size)
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * a.ndim
    flat = jnp.cumsum(mask.astype(np.int32)) - 1          # the output slot of each element
    slot = jnp.where(mask, flat, size)                    # zeros go out of bounds: dropped
    positions = lax.broadcasted_iota(np.int32, (mask.shape[0],), 0)
    found = jnp.zeros(size, np.int32).at[slot].set(positions, mode="drop")
    count = jnp.sum(mask.astype(np.int32))
    valid = lax.lt(lax.broadcasted_iota(np.int32, (size,), 0), count)
    out = []
    strides = np.cumprod((1,) + a.shape[:0:-1])[::-1]
    coords = [lax.rem(lax.div(found, np.int32(st)), np.int32(n)) if a.ndim > 1 else found
              for st, n in zip(strides, a.shape)]
    for d, coord in enumerate(coords):
        fill = 0 if fills[d] is None else fills[d]
        out.append(jnp.where(valid, coord, jnp.asarray(fill, np.int32)))
    return tuple(out)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False):
    """The `q`-th quantiles of `a` along `axis`: sort, then interpolate between the two
    neighbouring order statistics (JAX's `_quantile`, without NaN squashing)."""
    if method not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', or "
                         "'nearest'")
    jnp._check_arraylike("quantile", a, q)
    a, q = jnp._promote_dtypes(a, q, inexact=True)
    if get_aval(q).ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {get_aval(q).shape}")
    ndim = get_aval(a).ndim
    if axis is None:
        a, axis, keep_shape = jnp.ravel(a), 0, (1,) * ndim
    else:
        axis, keep_shape = _canonical_axis(axis, ndim), None
    a = jnp.where(jnp.any(jnp.isnan(a), axis=axis, keepdims=True), np.nan, a)
    a = sort(a, dimension=axis)
    shape, qdtype = get_aval(a).shape, get_aval(q).dtype
    q = lax.mul(q, np.asarray(shape[axis] - 1, qdtype))
    low, high = lax.floor(q), lax.ceil(q)
    high_weight = lax.sub(q, low)
    low_weight = lax.sub(np.asarray(1, qdtype), high_weight)
    top = np.asarray(shape[axis] - 1, qdtype)
    low = lax.convert_element_type(lax.clamp(np.asarray(0, qdtype), low, top), np.int32)
    high = lax.convert_element_type(lax.clamp(np.asarray(0, qdtype), high, top), np.int32)
    q_ndim = get_aval(q).ndim
    keep = keepdims and keep_shape is None
    sizes = list(shape)
    sizes[axis] = 1
    dn = GatherDimensionNumbers(
        offset_dims=tuple(range(q_ndim, len(shape) + q_ndim - (not keep))),
        collapsed_slice_dims=() if keep else (axis,), start_index_map=(axis,))
    low_value = gather(a, lax.expand_dims(low, (q_ndim,)), dn, sizes)
    high_value = gather(a, lax.expand_dims(high, (q_ndim,)), dn, sizes)
    if q_ndim == 1:
        low_weight = lax.broadcast_in_dim(low_weight, get_aval(low_value).shape, (0,))
        high_weight = lax.broadcast_in_dim(high_weight, get_aval(high_value).shape, (0,))
    if method == "linear":
        result = lax.add(lax.mul(low_value, low_weight), lax.mul(high_value, high_weight))
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":
        result = lax.select_n(lax.le(high_weight, np.asarray(0.5, qdtype)), high_value, low_value)
    else:
        result = lax.mul(lax.add(low_value, high_value), np.asarray(0.5, qdtype))
    if keepdims and keep_shape is not None:
        result = lax.reshape(result, tuple(get_aval(result).shape[:q_ndim]) + keep_shape)
    return result


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False):
    """The `q`-th percentiles: `quantile(a, q / 100)`."""
    a, q = jnp._promote_dtypes(a, q, inexact=True)
    return quantile(a, lax.div(q, np.asarray(100, get_aval(q).dtype)), axis=axis,
                    method=method, keepdims=keepdims)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median: the midpoint of the two middle order statistics."""
    return quantile(a, 0.5, axis=axis, method="midpoint", keepdims=keepdims)


jnp.advanced_indexing["nonzero"] = nonzero
jnp.later_names.update(sort=jnp_sort, argsort=jnp_argsort, take=take,
                       take_along_axis=take_along_axis, quantile=quantile,
                       percentile=percentile, median=median)
lax.later_names.update(
    dynamic_slice=dynamic_slice, dynamic_update_slice=dynamic_update_slice,
    dynamic_index_in_dim=dynamic_index_in_dim,
    dynamic_update_index_in_dim=dynamic_update_index_in_dim,
    dynamic_slice_in_dim=dynamic_slice_in_dim,
    dynamic_update_slice_in_dim=dynamic_update_slice_in_dim, gather=gather, scatter=scatter,
    scatter_add=scatter_add, scatter_sub=scatter_sub, scatter_mul=scatter_mul,
    scatter_min=scatter_min, scatter_max=scatter_max, scatter_apply=scatter_apply, sort=sort,
    sort_key_val=sort_key_val,
    GatherDimensionNumbers=GatherDimensionNumbers, ScatterDimensionNumbers=ScatterDimensionNumbers,
    GatherScatterMode=GatherScatterMode)


from jaxlib.mlir.dialects import chlo

top_k_p = Primitive("top_k")
top_k_p.multiple_results = True
impl_rules[top_k_p] = xla_impl(top_k_p)


def _top_k_abstract(operand, *, k, axis):
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if not operand.shape:
        raise TypeError(f"top_k operand must have >= 1 dimension, got {operand.shape}")
    if not 0 <= axis < operand.ndim:
        raise ValueError(f"axis argument out of range: axis={axis} for operand.shape="
                         f"{operand.shape}")
    if operand.shape[axis] < k:
        raise ValueError(f"k argument to top_k must be no larger than size along axis; got "
                         f"k={k} with shape={list(operand.shape)} and axis={axis}")
    shape = list(operand.shape)
    shape[axis] = k
    return [operand.update(shape=tuple(shape)),
            ShapedArray(tuple(shape), np.dtype(np.int32))]


def _top_k_lowering(ctx, operand, *, k, axis):
    ndim = ctx.avals_in[0].ndim
    perm = None
    if axis != ndim - 1:
        perm = list(range(ndim))
        perm[axis], perm[-1] = perm[-1], perm[axis]
        operand = hlo.transpose(operand, ir.DenseI64ArrayAttr.get(perm))
    results = list(chlo.top_k(operand, k))
    if perm is not None:
        results = [hlo.transpose(r, ir.DenseI64ArrayAttr.get(perm)) for r in results]
    return results


def _top_k_jvp(primals, tangents, *, k, axis):
    outs = top_k_p.bind(primals[0], k=k, axis=axis)
    t = tangents[0]
    if type(t) is Zero:
        return outs, [Zero.from_primal_value(o) for o in outs]
    idx = outs[1]
    rank = get_aval(idx).ndim
    others = tuple(d for d in range(rank) if d != axis)
    dnums = GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(axis,),
                                   start_index_map=(axis,), operand_batching_dims=others,
                                   start_indices_batching_dims=others)
    t_out = gather(t, lax.reshape(idx, get_aval(idx).shape + (1,)), dnums, (1,) * rank)
    return outs, [t_out, Zero.from_primal_value(idx)]


def _top_k_batching(vals, dims, *, k, axis):
    bdim = dims[0]
    return top_k_p.bind(vals[0], k=k, axis=axis + 1 if bdim <= axis else axis), [bdim, bdim]


abstract_eval_rules[top_k_p] = _top_k_abstract
lowering_rules[top_k_p] = _top_k_lowering
jvp_rules[top_k_p] = _top_k_jvp
batching_rules[top_k_p] = _top_k_batching


def top_k(operand, k, *, axis=-1):
    """The `k` largest entries of `operand` along `axis`, and their indices."""
    operand = jnp.asarray(operand)
    k = operator.index(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    return list(top_k_p.bind(operand, k=k, axis=_canonical_axis(axis, operand.ndim)))


def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Where each element of `v` would go in the sorted 1-D `a` to keep it sorted."""
    if side not in ("left", "right"):
        raise ValueError(f"{side!r} is an invalid value for keyword 'side'. Expected one of "
                         "['left', 'right'].")
    jnp._check_arraylike("searchsorted", a, v)
    a, v = jnp._promote_dtypes(a, v)
    if get_aval(a).ndim != 1:
        raise ValueError("a should be 1-dimensional")
    if sorter is not None:
        a = take(a, sorter)
    v_flat = jnp.ravel(v)[:, None]
    before = lax.lt(a[None, :], v_flat) if side == "left" else lax.le(a[None, :], v_flat)
    if get_aval(a).dtype.kind == "f":       # NaN sorts last, as in NumPy
        nan_v = lax.ne(v_flat, v_flat)
        if side == "left":
            before = lax.bitwise_or(before, lax.bitwise_and(nan_v, lax.eq(a[None, :], a[None, :])))
        else:
            before = lax.bitwise_or(before, nan_v)
    counts = jnp.sum(before.astype(np.int32), axis=1)
    return jnp.reshape(counts, get_aval(v).shape)


lax.later_names["top_k"] = top_k
jnp.later_names["searchsorted"] = searchsorted
