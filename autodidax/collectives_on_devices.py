# Generated from chapters/A11_collectives_on_devices.md by `make export`: edit the chapter, not this file.


"""The rest of chapter 16's `shard_map`: the lowerings of `all_gather`, `psum_scatter` and
`axis_index`, the collectives' transposes, `ppermute`, `all_to_all`, `pcast`, the rules of
`shard_map_p` and `sharding_constraint_p` for `jvp`, `grad` and `vmap`, `reshard`,
`GSPMDSharding` and `visualize_array_sharding`."""
from __future__ import annotations

import math

import numpy as np
from jaxlib import xla_client as xc
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import debugging as debug, lax_core as lax
from autodidax import numpy as jnp
from autodidax.autodiff import (reduce_sum_transpose, backward_pass, is_linear,
                                partial_eval_jaxpr, partial_eval_rules, transpose_rules)
from autodidax.batching import (check_axis_names, check_no_groups, batch, batching_rules,
                                bound_axis_size,
                                fancy_batching_rules, moveaxis, not_mapped, psum_p)
from autodidax.collectives import (all_gather, all_gather_p, axis_index_p, psum_scatter,
                                   reduce_scatter_p)
from autodidax.core import (Primitive, Tracer, abstract_eval_rules, get_aval, impl_rules,
                            set_current_trace)
from autodidax.jaxpr import JaxprTrace, jaxpr_as_fun
from autodidax.jvp import (Zero, deflinear, instantiate_zeros, jvp_flat, jvp_rules, tangent_aval,
                           zeros_like_aval)
from autodidax.lowering import aval_to_ir_type, ir_constant, lowering_rules, reducer_region
from autodidax.pretty_printer import pp_param_rules
from autodidax.runtime import device_put, evaluated_by_impl
from autodidax.sharding import (COLLECTIVE_CHANNEL, AxisType, Mesh, NamedSharding, PartitionSpec,
                                block_aval, collective_lowering, constrain_leaf, spec_to_sharding,
                                replica_groups_attr, mesh_axes, trace_shard_body, replica_groups,
                                shard_map_p, sharding_constraint_p, unnamed_layouts)
from autodidax.sharding import more_names as sharding_names
from autodidax.tree_util import broadcast_prefix, tree_flatten, tree_map, tree_unflatten


def _all_gather(ctx, mesh, x, *, all_gather_dimension, axis_name, axis_size, tiled, **_):
    aval = ctx.avals_in[0]
    if not tiled:                  # a new dimension of size 1, for the blocks to stack along
        shape = list(aval.shape)
        shape.insert(all_gather_dimension, 1)
        dims = [i for i in range(len(shape)) if i != all_gather_dimension]
        x = hlo.broadcast_in_dim(aval_to_ir_type(aval.update(shape=tuple(shape))), x,
                                 ir.DenseI64ArrayAttr.get(dims))
    op = hlo.AllGatherOp([aval_to_ir_type(ctx.avals_out[0])], [x], all_gather_dimension,
                         replica_groups_attr(mesh, axis_name),
                         channel_handle=hlo.ChannelHandle.get(*COLLECTIVE_CHANNEL),
                         use_global_device_ids=True)
    return [op.results[0]]


def _reduce_scatter(ctx, mesh, x, *, scatter_dimension, axis_name, axis_size, tiled, **_):
    aval = ctx.avals_in[0]
    shape = list(aval.shape)
    shape[scatter_dimension] //= axis_size
    op = hlo.ReduceScatterOp(aval_to_ir_type(aval.update(shape=tuple(shape))), x,
                             scatter_dimension, replica_groups_attr(mesh, axis_name),
                             channel_handle=hlo.ChannelHandle.get(*COLLECTIVE_CHANNEL),
                             use_global_device_ids=True)
    reducer_region(op, aval.dtype, hlo.add)
    out = op.result
    if not tiled:                  # drop the dimension of size 1 that each device keeps
        out = hlo.reshape(aval_to_ir_type(ctx.avals_out[0]), out)
    return [out]


def _axis_index(ctx, mesh, *, axis_name):
    """This device's position along `axis_name`: its partition number, divided by the sizes of
    the axes after it, modulo the axis's size."""
    after = math.prod(mesh.axis_sizes[mesh.axis_names.index(axis_name) + 1:])
    u32 = np.dtype(np.uint32)
    pid = hlo.PartitionIdOp().result
    index = hlo.remainder(hlo.divide(pid, ir_constant(np.uint32(after), u32)),
                          ir_constant(np.uint32(mesh.shape[axis_name]), u32))
    return [hlo.convert(aval_to_ir_type(ctx.avals_out[0]), index)]


for _prim, _emit in [(all_gather_p, _all_gather), (reduce_scatter_p, _reduce_scatter),
                     (axis_index_p, _axis_index)]:
    lowering_rules[_prim] = collective_lowering(_emit)


def _psum_transpose(ct, x, *, axes, axis_index_groups):
    named = tuple(a for a in axes if not isinstance(a, int))
    positional = tuple(a for a in axes if isinstance(a, int))
    if positional:
        ct, = reduce_sum_transpose(ct, x, axes=positional)
    return [psum_p.bind(ct, axes=named, axis_index_groups=axis_index_groups)]


def _all_gather_transpose(ct, x, *, all_gather_dimension, axis_name, axis_index_groups,
                          axis_size, tiled):
    return [psum_scatter(ct, axis_name, scatter_dimension=all_gather_dimension, tiled=tiled)]


def _reduce_scatter_transpose(ct, x, *, scatter_dimension, axis_name, axis_index_groups,
                              axis_size, tiled):
    return [all_gather(ct, axis_name, axis=scatter_dimension, tiled=tiled)]


transpose_rules[psum_p] = _psum_transpose
transpose_rules[all_gather_p] = _all_gather_transpose
transpose_rules[reduce_scatter_p] = _reduce_scatter_transpose


ppermute_p = Primitive("ppermute")


def ppermute(x, axis_name, perm):
    """`x` (a pytree) sent along the named axis: from position `src` to `dst` for each pair
    `(src, dst)` of `perm`; positions nobody sends to get zeros."""
    names = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)
    perm = tuple((int(s), int(d)) for s, d in perm)
    size = math.prod(bound_axis_size(n) for n in names)
    srcs, dsts = [s for s, _ in perm], [d for _, d in perm]
    if len(set(srcs)) < len(srcs) or len(set(dsts)) < len(dsts):     # JAX's words
        raise ValueError(f"ppermute sources and destinations must be unique, got {perm}.")
    if any(not 0 <= i < size for i in srcs + dsts):
        raise ValueError(f"ppermute permutation {perm} has positions outside the axis "
                         f"{axis_name} of size {size}")
    return tree_map(lambda leaf: ppermute_p.bind(leaf, axis_name=names, perm=perm), x)


abstract_eval_rules[ppermute_p] = lambda aval, **_: aval
jvp_rules[ppermute_p] = lambda primals, tangents, **params: (
    ppermute_p.bind(primals[0], **params),
    tangents[0] if type(tangents[0]) is Zero else ppermute_p.bind(tangents[0], **params))
transpose_rules[ppermute_p] = lambda ct, x, *, axis_name, perm: [
    ct if type(ct) is Zero else ppermute_p.bind(
        ct, axis_name=axis_name, perm=tuple((d, s) for s, d in perm))]


def _ppermute_batching(axis_data, vals, dims, *, axis_name, perm):
    (x,), (d,) = vals, dims
    if axis_data.name not in axis_name:
        return ppermute_p.bind(x, axis_name=axis_name, perm=perm), d
    if len(axis_name) > 1:
        raise NotImplementedError("ppermute over several axes, one of them vmapped")
    if d is not_mapped:
        return x, not_mapped
    source = {dst: src for src, dst in perm}
    x = moveaxis(x, d, 0)
    rows = [x[source[i]] if i in source else jnp.zeros_like(x[0])
            for i in range(axis_data.size)]
    return lax.stack(rows, 0), 0


fancy_batching_rules[ppermute_p] = _ppermute_batching


def _collective_permute(ctx, mesh, x, *, axis_name, perm):
    pairs = [(group[s], group[d]) for group in replica_groups(mesh, axis_name)
             for s, d in perm]
    op = hlo.CollectivePermuteOp(x, ir.DenseIntElementsAttr.get(np.array(pairs, np.int64)),
                                 channel_handle=hlo.ChannelHandle.get(*COLLECTIVE_CHANNEL))
    return [op.result]


lowering_rules[ppermute_p] = collective_lowering(_collective_permute)


all_to_all_p = Primitive("all_to_all")


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """`x` (a pytree) cut along `split_axis` into one piece per position of the named axis,
    piece `j` sent to position `j`, and the pieces received stacked along a new axis
    `concat_axis` (concatenated along `concat_axis` if `tiled`)."""
    check_no_groups(axis_index_groups)
    if isinstance(axis_name, list):
        axis_name = tuple(axis_name)
    names = axis_name if isinstance(axis_name, tuple) else (axis_name,)

    def bind(leaf):
        size = math.prod(bound_axis_size(n) for n in names)
        shape = get_aval(leaf).shape
        for what, axis in (("split_axis", split_axis), ("concat_axis", concat_axis)):
            if not -len(shape) <= axis < len(shape):
                raise ValueError(f"all_to_all {what} {axis} is out of bounds for an array of "
                                 f"dimension {len(shape)}")
        split, concat = split_axis % len(shape), concat_axis % len(shape)
        if tiled:
            if shape[split] % size:                                     # JAX's words
                raise ValueError(f"The size of all_to_all split_axis ({shape[split]}) has to "
                                 f"be divisible by the size of the named axis {axis_name} "
                                 f"({size})")
        elif shape[split] != size:                                      # JAX's words
            raise ValueError("all_to_all requires the size of the mapped axis axis_name to "
                             "equal x.shape[split_axis], but they are "
                             f"{size} and {shape[split]} respectively.")
        elif split < concat:      # concat counts positions once split is gone: one more now
            concat += 1
            leaf = lax.expand_dims(leaf, (concat,))
        elif split > concat:
            leaf = lax.expand_dims(leaf, (concat,))
            split += 1
        out = all_to_all_p.bind(leaf, axis_index_groups=None, axis_name=axis_name,
                                concat_axis=concat, split_axis=split, tiled=tiled)
        return out if tiled or split == concat else lax.squeeze(out, (split,))
    return tree_map(bind, x)


def _all_to_all_abstract(x, *, axis_name, split_axis, concat_axis, **_):
    names = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    check_axis_names(names, "all_to_all")
    size = math.prod(bound_axis_size(n) for n in names)
    shape = list(x.shape)
    shape[split_axis] //= size
    shape[concat_axis] *= size
    return x.update(shape=tuple(shape), weak_type=False)


def _all_to_all_impl(x, **_):                                           # JAX's words
    raise RuntimeError("all_to_all must be used within a mapped context like vmap or "
                       "shard_map.")


def _all_to_all_transpose(ct, x, *, split_axis, concat_axis, **params):
    if type(ct) is Zero:
        return [Zero(x.aval)]
    return [all_to_all_p.bind(ct, split_axis=concat_axis, concat_axis=split_axis, **params)]


def _all_to_all_batching(axis_data, vals, dims, *, axis_name, split_axis, concat_axis,
                         **params):
    (x,), (d,) = vals, dims
    names = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if axis_data.name not in names:      # another axis: the batch dimension rides along
        if d is not_mapped:
            return all_to_all_p.bind(x, axis_name=axis_name, split_axis=split_axis,
                                     concat_axis=concat_axis, **params), d
        return all_to_all_p.bind(x, axis_name=axis_name,
                                 split_axis=split_axis + (d <= split_axis),
                                 concat_axis=concat_axis + (d <= concat_axis), **params), d
    if len(names) > 1:
        raise NotImplementedError("all_to_all over several axes, one of them vmapped")
    n = axis_data.size
    if d is not_mapped:
        x, d = lax.broadcast(x, (n,)), 0
    shape = list(get_aval(x).shape)
    if split_axis == concat_axis:        # cut the axis into n pieces; swap them with the batch
        axis = split_axis + (d <= split_axis)
        x = lax.reshape(x, shape[:axis] + [n, shape[axis] // n] + shape[axis + 1:])
        moved = d + (axis <= d)
        perm = list(range(len(shape) + 1))
        perm[moved], perm[axis] = axis, moved
        x = lax.transpose(x, perm)
        return lax.reshape(x, shape), d
    # The batch becomes the major part of concat_axis, the pieces of split_axis the new batch.
    x = moveaxis(x, d, concat_axis)
    shape = list(get_aval(x).shape)
    shape[concat_axis:concat_axis + 2] = [shape[concat_axis] * shape[concat_axis + 1]]
    shape[split_axis:split_axis + 1] = [n, shape[split_axis] // n]
    return lax.reshape(x, shape), split_axis


def _all_to_all_hlo(ctx, mesh, x, *, axis_name, split_axis, concat_axis, **_):
    names = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    count = replica_groups(mesh, names).shape[1]
    if count == 1:                       # a group of one device: nothing to send, as in JAX
        return [x]
    op = hlo.AllToAllOp([x], split_dimension=split_axis, concat_dimension=concat_axis,
                        split_count=count, replica_groups=replica_groups_attr(mesh, names),
                        channel_handle=hlo.ChannelHandle.get(*COLLECTIVE_CHANNEL))
    return list(op.results)


impl_rules[all_to_all_p] = _all_to_all_impl
evaluated_by_impl.add(all_to_all_p)
abstract_eval_rules[all_to_all_p] = _all_to_all_abstract
deflinear(all_to_all_p)
transpose_rules[all_to_all_p] = _all_to_all_transpose
fancy_batching_rules[all_to_all_p] = _all_to_all_batching
lowering_rules[all_to_all_p] = collective_lowering(_all_to_all_hlo)


def pcast(x, axis_name, *, to: str):
    """`x`, cast to vary along `axis_name`: the identity here, since we track no variance."""
    if isinstance(axis_name, (set, frozenset)):                        # JAX's words
        raise TypeError(f"{axis_name=} must be a tuple or a str. Got {axis_name}")
    if not axis_name:
        return x
    if to not in ("varying", "reduced", "unreduced"):                  # JAX's words
        raise ValueError("Got unexpected `to` value. Allowed `to` values are: "
                         "{'unreduced', 'reduced', 'varying'}")
    if to != "varying":
        raise NotImplementedError(f"pcast to {to!r}: autodidax has no reduced or unreduced "
                                  "values")
    for name in (axis_name,) if isinstance(axis_name, str) else axis_name:
        bound_axis_size(name)               # an unbound name fails, as in JAX
    return x


def _shard_map_jvp(primals, tangents, *, jaxpr, mesh, in_specs, out_specs, **params):
    nonzero = [type(t) is not Zero for t in tangents]
    out_nonzero = []

    def jvp_of_body(*args):
        ps, ts = args[:len(primals)], iter(args[len(primals):])
        tans = [next(ts) if nz else Zero(tangent_aval(a))
                for a, nz in zip(jaxpr.in_avals, nonzero)]
        outs, out_tans = jvp_flat(jaxpr_as_fun(jaxpr), ps, tans, instantiate=False)
        out_nonzero[:] = [type(t) is not Zero for t in out_tans]
        return list(outs) + [t for t in out_tans if type(t) is not Zero]

    t_specs = [s for s, nz in zip(in_specs, nonzero) if nz]
    t_avals = [tangent_aval(a) for a, nz in zip(jaxpr.in_avals, nonzero) if nz]
    body, hoisted, specs = trace_shard_body(mesh, jvp_of_body, [*jaxpr.in_avals, *t_avals],
                                       [*in_specs, *t_specs])
    outs = shard_map_p.bind(
        *hoisted, *primals, *[t for t in tangents if type(t) is not Zero],
        check_vma=params["check_vma"], in_specs=specs, jaxpr=body, mesh=mesh,
        newly_manual_axes=params["newly_manual_axes"],
        out_specs=tuple(out_specs) + tuple(s for s, nz in zip(out_specs, out_nonzero) if nz))
    n = len(out_specs)
    rest = iter(outs[n:])
    return outs[:n], [next(rest) if nz else Zero(tangent_aval(get_aval(o)))
                      for nz, o in zip(out_nonzero, outs[:n])]


jvp_rules[shard_map_p] = _shard_map_jvp


def _unmentioned(mesh: Mesh, spec) -> tuple:
    used = NamedSharding(mesh, spec)._used
    return tuple(a for a in mesh.axis_names if a not in used)


def _shard_map_partial_eval(trace, args, params):
    jaxpr, mesh = params["jaxpr"], params["mesh"]
    in_specs, out_specs = params["in_specs"], params["out_specs"]
    unknowns = [trace.is_unknown(x) for x in args]
    with mesh_axes(mesh):
        known, unknown, out_unknowns, forwarded = partial_eval_jaxpr(jaxpr, unknowns)
    n_known = out_unknowns.count(False)
    known_args = [x for x, u in zip(args, unknowns) if not u]
    known_specs = [s for s, u in zip(in_specs, unknowns) if not u]
    stacked = PartitionSpec(tuple(mesh.axis_names))        # one block per device, on axis 0

    def known_body(*xs):
        outs = jaxpr_as_fun(known)(*xs)
        return outs[:n_known] + [lax.expand_dims(r, (0,)) for r in outs[n_known:]]

    body, hoisted, specs = trace_shard_body(mesh, known_body, known.in_avals, known_specs)
    n_res = len(known.out_avals) - n_known
    known_out_specs = tuple(s for s, u in zip(out_specs, out_unknowns) if not u)
    with set_current_trace(trace.parent_trace):
        known_outs = shard_map_p.bind(
            *hoisted, *known_args, **{**params, "jaxpr": body, "in_specs": specs,
                                      "out_specs": known_out_specs + (stacked,) * n_res})
    computed = iter(known_outs[n_known:])
    residuals, res_specs = [], []
    for f in forwarded:
        residuals.append(known_args[f] if f is not None else next(computed))
        res_specs.append(known_specs[f] if f is not None else stacked)

    def unknown_body(*xs):
        res = [r if f is not None else r[0] for r, f in zip(xs[:len(forwarded)], forwarded)]
        return jaxpr_as_fun(unknown)(*res, *xs[len(forwarded):])

    unknown_specs = [s for s, u in zip(in_specs, unknowns) if u]
    block_avals = [block_aval(mesh, s, get_aval(x), "a residual")
                   for s, x in zip(res_specs + unknown_specs,
                                   residuals + [x for x, u in zip(args, unknowns) if u])]
    body, hoisted, specs = trace_shard_body(mesh, unknown_body, block_avals,
                                       res_specs + unknown_specs)
    unknown_outs = JaxprTrace.process_primitive(
        trace, shard_map_p, [*hoisted, *residuals, *[x for x, u in zip(args, unknowns) if u]],
        {**params, "jaxpr": body, "in_specs": specs,
         "out_specs": tuple(s for s, u in zip(out_specs, out_unknowns) if u)})
    known_iter, unknown_iter = iter(known_outs[:n_known]), iter(unknown_outs)
    return [next(unknown_iter) if u else next(known_iter) for u in out_unknowns]


def _shard_map_transpose(cts, *args, jaxpr, mesh, in_specs, out_specs, **params):
    linear = [is_linear(x) for x in args]
    known = [x for x in args if not is_linear(x)]
    known_specs = [s for s, x in zip(in_specs, args) if not is_linear(x)]
    cts = [instantiate_zeros(ct) for ct in cts]

    def transposed(*known_and_cts):
        it = iter(known_and_cts[:len(known)])
        full = [x if is_linear(x) else next(it) for x in args]
        body_cts = []
        for ct, spec in zip(known_and_cts[len(known):], out_specs):
            n = math.prod(mesh.shape[a] for a in _unmentioned(mesh, spec))
            body_cts.append(ct if n == 1 else ct / np.array(n, get_aval(ct).dtype))
        cts_in = backward_pass(jaxpr.jaxpr, jaxpr.consts, full, body_cts)
        outs = []
        for ct, x, spec, block in zip(cts_in, args, in_specs, jaxpr.in_avals):
            if is_linear(x):
                ct = instantiate_zeros(ct) if ct is not None else zeros_like_aval(block)
                axes = _unmentioned(mesh, spec)
                outs.append(psum_p.bind(ct, axes=axes, axis_index_groups=None) if axes else ct)
        return outs

    block_avals = ([block_aval(mesh, s, get_aval(x), "an argument")
                    for s, x in zip(known_specs, known)] +
                   [block_aval(mesh, s, get_aval(ct), "a cotangent")
                    for s, ct in zip(out_specs, cts)])
    body, hoisted, specs = trace_shard_body(mesh, transposed, block_avals,
                                       [*known_specs, *out_specs])
    outs = iter(shard_map_p.bind(
        *hoisted, *known, *cts, **{**params, "jaxpr": body, "mesh": mesh, "in_specs": specs,
                                   "out_specs": tuple(s for s, lin in zip(in_specs, linear)
                                                      if lin)}))
    return [next(outs) if lin else None for lin in linear]


partial_eval_rules[shard_map_p] = _shard_map_partial_eval
transpose_rules[shard_map_p] = _shard_map_transpose


def _shard_map_batching(axis_data, vals, dims, *, jaxpr, mesh, in_specs, out_specs, **params):
    vals = [v if d is not_mapped else moveaxis(v, d, 0) for v, d in zip(vals, dims)]
    in_dims = [not_mapped if d is not_mapped else 0 for d in dims]
    specs = [s if d is not_mapped else PartitionSpec(None, *s) for s, d in zip(in_specs, dims)]

    def body(*blocks):
        outs, out_dims = batch(jaxpr_as_fun(jaxpr), axis_data.size, in_dims, list(blocks),
                               axis_name=axis_data.name)
        return [jnp.broadcast_to(o, (axis_data.size, *get_aval(o).shape)) if d is not_mapped
                else moveaxis(o, d, 0) for o, d in zip(outs, out_dims)]

    avals = [block_aval(mesh, s, get_aval(v), "an argument") for s, v in zip(specs, vals)]
    closed, hoisted, all_specs = trace_shard_body(mesh, body, avals, specs)
    outs = shard_map_p.bind(*hoisted, *vals, **{
        **params, "jaxpr": closed, "mesh": mesh, "in_specs": all_specs,
        "out_specs": tuple(PartitionSpec(None, *s) for s in out_specs)})
    return outs, [0] * len(outs)


fancy_batching_rules[shard_map_p] = _shard_map_batching


def _constraint_jvp(primals, tangents, *, sharding, **_):
    (x,), (t,) = primals, tangents
    return constrain_leaf(x, sharding), t if type(t) is Zero else constrain_leaf(t, sharding)


def _constraint_batching(vals, dims, *, sharding, **_):
    (x,), (d,) = vals, dims
    spec = list(sharding.spec) + [None] * (x.ndim - 1 - len(sharding.spec))
    spec.insert(d, None)
    return constrain_leaf(x, NamedSharding(sharding.mesh, PartitionSpec(*spec))), d


jvp_rules[sharding_constraint_p] = _constraint_jvp
transpose_rules[sharding_constraint_p] = lambda ct, x, *, sharding, **_: [
    ct if type(ct) is Zero else constrain_leaf(ct, sharding)]
batching_rules[sharding_constraint_p] = _constraint_batching


reshard_p = Primitive("reshard")


def _reshard_leaf(x, sharding):
    if isinstance(sharding, PartitionSpec):
        try:
            sharding = spec_to_sharding(sharding, "reshard")        # over `set_mesh`'s mesh
        except ValueError:
            raise ValueError("Using PartitionSpec when you are not under a mesh context is not "
                             "allowed. Please pass a NamedSharding instance or enter into a mesh "
                             f"context via `jax.set_mesh`. Got {sharding}") from None
    if not isinstance(sharding, NamedSharding) or sharding.mesh.empty:
        raise ValueError("Reshard should only be used with out_shardings which are non-None and "
                         f"have a non-empty mesh. Got sharding {sharding}.")
    types = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_types))
    for name in (n for names in sharding._axes(get_aval(x).ndim) for n in names):
        if types[name] is not AxisType.Explicit:
            raise ValueError("PartitionSpec passed to reshard cannot contain axis names that are "
                             f"of type Auto or Manual. Got PartitionSpec: {sharding.spec} with "
                             f"axis name: {name} of type: {types[name]}.")
    return _reshard(x, sharding)


def _reshard(x, sharding):
    if not isinstance(x, Tracer):                  # outside a transformation: just lay it out
        return device_put(x, sharding)
    return reshard_p.bind(x, dst_sharding=sharding)


def reshard(xs, out_shardings):
    """`xs` (a pytree) laid out as `out_shardings` (one sharding or spec, or a pytree prefix)."""
    leaves, tree = tree_flatten(xs)
    shardings = broadcast_prefix(out_shardings, xs, is_leaf=lambda s: s is None)
    return tree_unflatten(tree, list(map(_reshard_leaf, leaves, shardings)))


def _reshard_jvp(primals, tangents, *, dst_sharding):
    (x,), (t,) = primals, tangents
    return _reshard(x, dst_sharding), t if type(t) is Zero else _reshard(t, dst_sharding)


def _reshard_batching(vals, dims, *, dst_sharding):
    (x,), (d,) = vals, dims
    spec = list(dst_sharding.spec) + [None] * (x.ndim - 1 - len(dst_sharding.spec))
    spec.insert(d, None)
    return _reshard(x, NamedSharding(dst_sharding.mesh, PartitionSpec(*spec))), d


impl_rules[reshard_p] = lambda x, *, dst_sharding: device_put(x, dst_sharding)
evaluated_by_impl.add(reshard_p)
abstract_eval_rules[reshard_p] = lambda aval, **_: aval
jvp_rules[reshard_p] = _reshard_jvp
transpose_rules[reshard_p] = lambda ct, x, *, dst_sharding: [ct]
batching_rules[reshard_p] = _reshard_batching
lowering_rules[reshard_p] = lambda ctx, x, *, dst_sharding: lowering_rules[
    sharding_constraint_p](ctx, x, sharding=dst_sharding)
pp_param_rules[reshard_p] = lambda params: {}
sharding_names["reshard"] = reshard


class GSPMDSharding:
    """A layout named by XLA's `HloSharding` alone, over devices in partition order."""

    def __init__(self, devices, hlo: xc.HloSharding):
        self._device_assignment, self._hlo = tuple(devices), hlo
        self.memory_kind = None

    device_set = property(lambda self: set(self._device_assignment))
    is_fully_replicated = property(lambda self: self._hlo.is_replicated())

    def _hlo_sharding(self, ndim: int) -> xc.HloSharding:
        return self._hlo

    def devices_indices_map(self, shape) -> dict:
        if self._hlo.is_replicated():
            return {d: (slice(None),) * len(shape) for d in self._device_assignment}
        tiles = self._hlo.tile_assignment_dimensions()
        order = self._hlo.tile_assignment_devices()
        index = {}
        for flat, where in enumerate(np.ndindex(*tiles)):
            steps = [n // t for n, t in zip(shape, tiles)]
            index[self._device_assignment[order[flat]]] = tuple(
                slice(None) if t == 1 else slice(w * s, (w + 1) * s)
                for w, s, t in zip(where, steps, tiles))
        return index

    def __eq__(self, other):
        return (isinstance(other, GSPMDSharding) and other._hlo == self._hlo
                and other._device_assignment == self._device_assignment)

    def __hash__(self):
        return hash((self._device_assignment, str(self._hlo)))

    def __repr__(self):
        return f"GSPMDSharding({self._hlo})"


unnamed_layouts["sharding"] = GSPMDSharding


def visualize_array_sharding(arr, *, use_color=False, scale=1.0, min_width=9, max_width=80):
    """Print which devices hold which block of a 1- or 2-dimensional array."""
    shape = arr.shape
    if len(shape) not in (1, 2):
        raise ValueError(f"visualize_array_sharding only works for 1D and 2D arrays, but got "
                         f"an array of {len(shape)} dimensions")
    shape2 = shape if len(shape) == 2 else (1, shape[0])
    blocks: dict = {}
    for device, index in arr.sharding.devices_indices_map(shape).items():
        index = index if len(shape) == 2 else (slice(None),) + index
        rows, cols = (s.indices(n)[:2] for s, n in zip(index, shape2))
        blocks.setdefault((rows, cols), []).append(device)
    row_edges = sorted({r for r, _ in blocks})
    col_edges = sorted({c for _, c in blocks})
    label = {}
    for k, devs in blocks.items():
        ids = ",".join(str(d.id) for d in sorted(devs, key=lambda d: d.id))
        label[k] = f"{devs[0].platform.upper()} {ids}"
    width = max(min_width, max(len(s) for s in label.values()) + 2)
    width = min(width, max_width // len(col_edges))
    lines = ["┌" + "┬".join("─" * width for _ in col_edges) + "┐"]
    for i, r in enumerate(row_edges):
        cells = [label.get((r, c), "").center(width) for c in col_edges]
        lines.append("│" + "│".join(cells) + "│")
        lines.append(("├" + "┼".join("─" * width for _ in col_edges) + "┤")
                     if i + 1 < len(row_edges) else
                     ("└" + "┴".join("─" * width for _ in col_edges) + "┘"))
    print("\n".join(lines))
