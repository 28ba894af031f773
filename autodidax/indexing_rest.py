# Generated from chapters/A12_indexing_rest.md by `make export`: edit the chapter, not this file.


"""Chapter 11's reference: the `_in_dim` variants of the dynamic slices and their batching,
`top_k`, `scatter_apply`, the JVPs of the scatters that do not add, and the checks of the
indexing primitives' operands, with JAX's messages."""
from __future__ import annotations

import builtins
import operator

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax import numpy as jnp
from autodidax.autodiff import is_linear, transpose_rules
from autodidax.batching import batching_rules, bdim_at_front
from autodidax.core import (Primitive, ShapedArray, abstract_eval_rules, dtype_kind, get_aval,
                            impl_rules)
from autodidax.indexing import (SCATTERS, GatherDimensionNumbers, GatherScatterMode,
                                ScatterDimensionNumbers, batch_size_of, canonical_axis,
                                checked_rule, gather_batching, scatter_general, scatter_batching,
                                scatter_to_gather, scatter_update_jaxpr, zeros_of, dynamic_slice,
                                dynamic_slice_p, dynamic_update_slice, dynamic_update_slice_p,
                                gather, gather_p, linear_jvp, scatter, scatter_add, scatter_add_p,
                                scatter_max_p, scatter_min_p, scatter_mul_p, scatter_p,
                                shape_checks, sort_p, xla_impl)
from autodidax.jaxpr import trace_to_jaxpr
from autodidax.jvp import Zero, instantiate_zeros, jvp_rules
from autodidax.lowering import lowering_rules


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


@jnp.jit_in_jaxprs("dynamic_index_in_dim", static_argnums=(2, 3, 4))
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


@jnp.jit_in_jaxprs("dynamic_update_index_in_dim", static_argnums=(3, 4))
def _dynamic_update_index_in_dim(operand, update, index, axis, allow_negative_indices):
    if update.ndim == operand.ndim - 1:
        update = lax.expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)


top_k_p = Primitive("top_k")
top_k_p.multiple_results = True
impl_rules[top_k_p] = xla_impl(top_k_p)


def _top_k_abstract(operand, *, k, axis):
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


abstract_eval_rules[top_k_p] = checked_rule(top_k_p, _top_k_abstract)
lowering_rules[top_k_p] = _top_k_lowering
jvp_rules[top_k_p] = _top_k_jvp
batching_rules[top_k_p] = _top_k_batching


def top_k(operand, k, *, axis=-1):
    """The `k` largest entries of `operand` along `axis`, and their indices."""
    operand = jnp.asarray(operand)
    k = operator.index(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    return list(top_k_p.bind(operand, k=k, axis=canonical_axis(axis, operand.ndim)))


def _starts_as_index_vector(starts, bdims):
    """The scalar starts of a dynamic slice as one index vector, batched if any start is."""
    if builtins.all(d is None for d in bdims):         # each a broadcast, as JAX's
        return lax.concatenate([lax.broadcast(jnp.asarray(s), (1,)) for s in starts], 0), None
    size = batch_size_of(starts, bdims)
    cols = [lax.broadcast_in_dim(jnp.asarray(s), (size, 1), (0,) if d is not None else ())
            for s, d in zip(starts, bdims)]
    return lax.concatenate(cols, 1), 0


def _dynamic_slice_batching(vals, dims, *, slice_sizes):
    operand, *starts = vals
    operand_bdim, *start_bdims = dims
    every = tuple(range(get_aval(operand).ndim - (operand_bdim is not None)))
    index, index_bdim = _starts_as_index_vector(starts, start_bdims)
    dn = GatherDimensionNumbers(offset_dims=every, collapsed_slice_dims=(), start_index_map=every)
    return gather_batching([operand, index], [operand_bdim, index_bdim], dimension_numbers=dn,
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
    return scatter_batching(scatter_p)(
        [operand, index, update], [operand_bdim, index_bdim, update_bdim], dimension_numbers=dn,
        indices_are_sorted=True, unique_indices=True, mode=GatherScatterMode.CLIP,
        update_jaxpr=None, update_consts=())


batching_rules[dynamic_slice_p] = _dynamic_slice_batching
batching_rules[dynamic_update_slice_p] = _dynamic_update_slice_batching


def scatter_apply(operand, scatter_indices, func, dimension_numbers, *, update_shape=(),
                  indices_are_sorted=False, unique_indices=False, mode=None):
    """`operand` with `func` applied to the elements at `scatter_indices`: a `scatter` whose
    combining rule ignores the update and applies `func` to the old value."""
    operand = jnp.asarray(operand)
    scalar = ShapedArray((), get_aval(operand).dtype)
    rule = trace_to_jaxpr(lambda x, _: [func(x)], [scalar, scalar]).jaxpr
    updates = (np.zeros((), scalar.dtype) if not tuple(update_shape)
               else lax.full(update_shape, 0, scalar.dtype))
    return scatter_general(scatter_p, operand, scatter_indices, updates, dimension_numbers,
                    indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                    mode=mode, update_jaxpr=rule)


jnp.indexing_ops.update(scatter_apply=scatter_apply)


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
        add_params = dict(params,
                          update_jaxpr=scatter_update_jaxpr(scatter_add_p, get_aval(out).dtype))
        term = lax.mul(operand, scatter_add_p.bind(zeros_of(get_aval(operand)), indices, t_updates,
                                                   **add_params))
        tangent = term if type(tangent) is Zero else lax.add(tangent, term)
    return out, tangent


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
        return linear_jvp(scatter_p, (0, 2))(primals, tangents, **params)
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
    gdn, sizes = scatter_to_gather(dn, x_aval, u_aval)
    gathered_ids = gather(scattered_ids, indices, gdn, sizes)
    def mask_operand(x):          # zero where an update overwrote the operand
        kept = lax.eq(scattered_ids, lax.full(x_aval.shape, 0, np.uint32))
        return lax.select_n(kept, zeros_of(x_aval), x)

    def mask_updates(u):          # zero the updates that lost
        kept = lax.eq(update_ids, gathered_ids)
        return lax.select_n(kept, zeros_of(u_aval), u)
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
        gdn, sizes = scatter_to_gather(dn, x_aval, u_aval)
        read = lambda a: gather(a, indices, gdn, sizes)
        initial, target = read(operand), read(out)
        won, kept = lax.eq(updates, target), lax.eq(initial, target)
        ones = lax.full(u_aval.shape, 1, u_aval.dtype)
        num_updates = read(scatter_add(zeros_of(x_aval), indices,
                                       lax.select_n(won, zeros_of(u_aval), ones), dn))
        num_refs = read(scatter_add(zeros_of(x_aval), indices, ones, dn))
        updates_norm = lax.select_n(kept, 1.0 / num_updates, 1.0 / (num_updates + 1))
        updates_coef = lax.select_n(won, zeros_of(u_aval), updates_norm)
        operand_norm = lax.select_n(kept, zeros_of(u_aval), 1.0 / (num_updates + 1))
        operand_coef = (-1.0 + operand_norm) / num_refs
        t_new = read(t_operand) * operand_coef + t_updates * updates_coef
        return out, scatter_add(t_operand, indices, t_new, dn,
                                indices_are_sorted=params["indices_are_sorted"],
                                unique_indices=params["unique_indices"], mode=params["mode"])
    return rule


def _scatter_transpose(ct, operand, indices, updates, *, dimension_numbers, mode,
                       indices_are_sorted, unique_indices, **params):
    if not unique_indices:
        raise NotImplementedError("scatter transpose is only implemented where "
                                  "unique_indices=True")
    updates_aval = updates.aval if is_linear(updates) else get_aval(updates)
    ct_operand = ct_updates = None
    if is_linear(operand):
        ct_operand = scatter_p.bind(ct, indices, zeros_of(updates_aval),
                                    dimension_numbers=dimension_numbers, mode=mode,
                                    indices_are_sorted=indices_are_sorted,
                                    unique_indices=unique_indices, **params)
    if is_linear(updates):
        gdn, sizes = scatter_to_gather(dimension_numbers, get_aval(ct), updates_aval)
        ct_updates = gather(ct, indices, gdn, sizes, mode=mode, fill_value=0,
                            indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    return [ct_operand, None, ct_updates]


jvp_rules[scatter_min_p] = _scatter_extremal_jvp(scatter_min_p)
jvp_rules[scatter_max_p] = _scatter_extremal_jvp(scatter_max_p)
jvp_rules[scatter_p] = _scatter_jvp
jvp_rules[scatter_mul_p] = _scatter_mul_jvp
transpose_rules[scatter_mul_p] = _scatter_mul_transpose
transpose_rules[scatter_p] = _scatter_transpose


def _check_index_dtypes(name, starts, colon):
    if builtins.any(s.dtype != starts[0].dtype or dtype_kind(s.dtype) not in "iu" for s in starts):
        raise TypeError(f"index arguments to {name} must be integers of the same type, "
                        f"got{colon} {', '.join(s.dtype.name for s in starts)}")


def _check_same_dtypes(name, *avals):
    if builtins.any(a.dtype != avals[0].dtype for a in avals[1:]):
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(a.dtype.name for a in avals)}.")


def _check_dynamic_slice(operand, *starts, slice_sizes):
    if len(starts) != operand.ndim:     # only a direct `bind` can get here (see `dynamic_slice`)
        raise TypeError(f"dynamic_slice start_indices must have length equal to the rank of "
                        f"operand, got indices {starts} for operand shape {operand.shape}.")
    if len(slice_sizes) != operand.ndim or not builtins.all(
            s <= d for s, d in zip(slice_sizes, operand.shape)):
        raise TypeError(f"slice slice_sizes must be less than or equal to operand shape, got "
                        f"slice_sizes {tuple(slice_sizes)} for operand shape {operand.shape}.")
    if not builtins.all(s >= 0 for s in slice_sizes):
        raise TypeError(f"slice slice_sizes must be greater than or equal to zero, got "
                        f"slice_sizes of {tuple(slice_sizes)}.")
    if builtins.any(s.ndim for s in starts):
        raise TypeError(f"start_indices arguments to dynamic_slice must be scalars,  got "
                        f"indices {starts}")
    _check_index_dtypes("dynamic_slice", starts, ":")


def _check_dynamic_update_slice(operand, update, *starts):
    if update.ndim != operand.ndim:
        raise TypeError(f"dynamic_update_slice update must have the same rank as operand, got "
                        f"update shape {update.shape} for operand shape {operand.shape}.")
    if len(starts) != operand.ndim:
        raise TypeError(f"dynamic_update_slice start_indices must have length equal to the "
                        f"rank of operand, got indices {starts} for operand shape "
                        f"{operand.shape}.")
    if builtins.any(u > d for u, d in zip(update.shape, operand.shape)):
        raise TypeError(f"dynamic_update_slice update shape must be smaller than operand "
                        f"shape, got update shape {update.shape} for operand shape "
                        f"{operand.shape}.")
    if builtins.any(s.ndim for s in starts):
        raise TypeError(f"start_indices arguments to dynamic_update_slice must be scalars, got "
                        f"indices {starts}")
    _check_same_dtypes("dynamic_update_slice", operand, update)
    _check_index_dtypes("dynamic_update_slice", starts, "")


def _check_sorted(dims, op_name, name):
    if list(dims) != sorted(dims):
        raise TypeError(f"{name} in {op_name} op must be sorted; got {dims}")
    if len(set(dims)) != len(dims):
        raise TypeError(f"{name} in {op_name} op must not repeat; got: {dims}.")


def _check_gather(operand, indices, *, dimension_numbers, slice_sizes, **params):
    dnums = dimension_numbers
    _check_sorted(dnums.offset_dims, "gather", "offset_dims")
    index_vector_dim = indices.ndim - 1
    if len(dnums.start_index_map) != indices.shape[index_vector_dim]:
        raise TypeError(f"Gather op has {len(dnums.start_index_map)} elements in "
                        f"start_index_map and the bound of dimension {index_vector_dim=} of "
                        f"indices is {indices.shape[index_vector_dim]}. These two numbers "
                        "must be equal.")
    if len(slice_sizes) != operand.ndim:
        raise TypeError(f"Gather op must have one slice size for every input dimension; got: "
                        f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={operand.ndim}")
    if len(slice_sizes) != len(dnums.offset_dims) + len(dnums.collapsed_slice_dims) + len(
            dnums.operand_batching_dims):
        raise TypeError(f"All components of the offset index in a gather op must either be a "
                        f"offset dimension or explicitly collapsed/batching; got "
                        f"len(slice_sizes)={len(slice_sizes)}, output_slice_sizes="
                        f"{dnums.offset_dims}, collapsed_slice_dims="
                        f"{dnums.collapsed_slice_dims}, operand_batching_dims="
                        f"{dnums.operand_batching_dims}.")
    for d, (s, n) in enumerate(zip(slice_sizes, operand.shape)):
        if indices.size and not 0 <= s <= n:
            raise TypeError(f"Slice size at index {d} in gather op is out of range, must be "
                            f"within [0, {n} + 1), got {s}.")
    for i, d in enumerate(dnums.collapsed_slice_dims):
        if slice_sizes[d] != 1:
            raise TypeError(f"Gather op can only collapse slice dims with bound 1, but bound is "
                            f"{slice_sizes[d]} for index {d} at position {i}.")
    for i, d in enumerate(dnums.operand_batching_dims):
        if slice_sizes[d] > 1:
            raise TypeError(f"Gather op can only have operand batching dims with bound 0/1, "
                            f"but bound is {slice_sizes[d]} for index {d} at position {i}.")
    if dtype_kind(indices.dtype) not in "iu":
        raise ValueError("indices must have an integer type")


def _check_scatter(operand, indices, updates, *, dimension_numbers, **params):
    dn = dimension_numbers
    index_vector_dim = indices.ndim - 1
    rank = len(dn.update_window_dims) + indices.ndim - 1
    if updates.ndim != rank:
        raise TypeError(f"Updates tensor must be of rank {rank}; got {updates.ndim}.")
    window_size = (len(dn.update_window_dims) + len(dn.inserted_window_dims)
                   + len(dn.operand_batching_dims))
    if operand.ndim != window_size:
        raise TypeError(f"Scatter op has window of size {window_size}; doesn't match operand "
                        f"of rank {operand.ndim}.")
    if len(dn.scatter_dims_to_operand_dims) != indices.shape[index_vector_dim]:
        raise TypeError(f"Scatter op has {len(dn.scatter_dims_to_operand_dims)} elements in "
                        f"scatter_dims_to_operand_dims and the bound of dimension "
                        f"{index_vector_dim=} of indices is {indices.shape[index_vector_dim]}. "
                        "These two numbers must be equal")
    windows = [n for d, n in enumerate(operand.shape)
               if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims]
    for bound, d in zip(windows, dn.update_window_dims):
        if bound < updates.shape[d]:
            raise TypeError(f"Bounds of the window dimensions of updates must not exceed the "
                            f"bounds of the corresponding dimensions of operand. For dimension "
                            f"{d}, updates bound is {updates.shape[d]}, operand bound is "
                            f"{bound}.")
    scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    for d, n in zip(scatter_dims, indices.shape[:index_vector_dim]):
        if updates.shape[d] != n:
            raise TypeError(f"Bounds of the scatter dimensions of updates must be the same as "
                            f"the bounds of the corresponding dimensions of scatter indices. "
                            f"For scatter dimension {d}, updates bound is {updates.shape[d]}, "
                            f"indices bound is {n}.")
    if dtype_kind(indices.dtype) not in "iu":
        raise ValueError("indices must have an integer type")
    _check_same_dtypes("scatter", operand, updates)


def _check_sort(*operands, dimension, is_stable, num_keys):
    if len({o.shape for o in operands}) > 1:
        raise TypeError(f"Arguments to sort must have equal shapes, got: "
                        f"{' '.join(str(o.shape) for o in operands)}")
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"num_keys={num_keys} must be between 1 and "
                         f"len(operand)={len(operands)}")


def _check_top_k(operand, *, k, axis):
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


for _p, _check in [(dynamic_slice_p, _check_dynamic_slice),
                   (dynamic_update_slice_p, _check_dynamic_update_slice),
                   (gather_p, _check_gather), (sort_p, _check_sort), (top_k_p, _check_top_k),
                   *((_p, _check_scatter) for _p in SCATTERS)]:
    shape_checks[_p] = _check
