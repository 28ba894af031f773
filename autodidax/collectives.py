# Generated from chapters/A9_collectives.md by `make export`: edit the chapter, not this file.


"""The collectives of `jax.lax` beyond chapter 4's `psum`, with their batching rules: `pmax`,
`pmin`, `pmean`, `axis_size`, `axis_index`, `all_gather` and `psum_scatter`."""
from __future__ import annotations

import numpy as np

from autodidax import lax_core as lax
from autodidax.batching import (allreduce_abstract, allreduce_impl, axis_name_tuple,
                                check_axis_names, collective_reduction_rule, check_no_groups,
                                shape_of, broadcast, fancy_batching_rules, moveaxis, not_mapped,
                                psum)
from autodidax.core import Primitive, ShapedArray, abstract_eval_rules, get_aval, impl_rules
from autodidax.jvp import deflinear
from autodidax.tree_util import tree_map


pmax_p, pmin_p = Primitive("pmax"), Primitive("pmin")
for _p, _reduce in [(pmax_p, np.max), (pmin_p, np.min)]:
    impl_rules[_p] = allreduce_impl(_p, _reduce)
    abstract_eval_rules[_p] = allreduce_abstract(_p.name)
    fancy_batching_rules[_p] = collective_reduction_rule(_p)


def pmax(x, axis_name, *, axis_index_groups=None):
    """The maximum of `x` (a pytree) over the named axes `axis_name`."""
    check_no_groups(axis_index_groups)
    axes = axis_name_tuple(axis_name)
    return tree_map(lambda leaf: pmax_p.bind(leaf, axes=axes, axis_index_groups=None), x)


def pmin(x, axis_name, *, axis_index_groups=None):
    """The minimum of `x` (a pytree) over the named axes `axis_name`."""
    check_no_groups(axis_index_groups)
    axes = axis_name_tuple(axis_name)
    return tree_map(lambda leaf: pmin_p.bind(leaf, axes=axes, axis_index_groups=None), x)


def axis_size(axis_name) -> int:
    """The number of examples along the named axis `axis_name` (or a tuple of names)."""
    return psum(1, axis_name)


def pmean(x, axis_name, *, axis_index_groups=None):
    """The mean of `x` (a pytree) over the named axes `axis_name`."""
    x = psum(x, axis_name, axis_index_groups=axis_index_groups)
    n = psum(1, axis_name)
    return tree_map(lambda v: v / n, x)


axis_index_p = Primitive("axis_index")


def _axis_index_impl(*, axis_name):
    check_axis_names((axis_name,), "axis_index")
    raise NotImplementedError(f"axis_index of the axis {axis_name!r} outside of its vmap")


def _axis_index_abstract(*, axis_name):
    check_axis_names(axis_name_tuple(axis_name), "axis_index")
    return ShapedArray((), np.int32)


def _axis_index_rule(axis_data, vals, dims, *, axis_name):
    if axis_data.name is None or axis_data.name not in axis_name_tuple(axis_name):
        return axis_index_p.bind(axis_name=axis_name), not_mapped
    return lax.iota(np.int32, axis_data.size), 0


impl_rules[axis_index_p] = _axis_index_impl
abstract_eval_rules[axis_index_p] = _axis_index_abstract
fancy_batching_rules[axis_index_p] = _axis_index_rule


def axis_index(axis_name):
    """The position of this example along the named axis `axis_name`; for a tuple of names,
    the position in the grid they make, the last name varying fastest."""
    if not isinstance(axis_name, (tuple, list)):
        return axis_index_p.bind(axis_name=axis_name)
    index, inner = 0, 1
    for name in reversed(axis_name):
        index = index + axis_index(name) * inner
        inner *= psum(1, name)
    return index


all_gather_p = Primitive("all_gather")


def _all_gather_abstract(x, *, all_gather_dimension, axis_name, axis_index_groups, axis_size,
                         tiled):
    check_axis_names(axis_name, "all_gather")
    shape = list(x.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return x.update(shape=tuple(shape))


def _all_gather_impl(x, *, axis_name, **params):
    check_axis_names(axis_name, "all_gather")
    raise NotImplementedError(f"all_gather over the axes {axis_name} outside of their vmap")


def _all_gather_rule(axis_data, vals, dims, *, all_gather_dimension, axis_name,
                     axis_index_groups, axis_size, tiled):
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups,
                  axis_size=axis_size, tiled=tiled)
    if axis_data.name is None or axis_data.name not in axis_name:
        if d is not_mapped:
            return all_gather_p.bind(x, all_gather_dimension=all_gather_dimension, **params), d
        if d <= all_gather_dimension:
            all_gather_dimension += 1
        elif not tiled:
            d += 1
        return all_gather_p.bind(x, all_gather_dimension=all_gather_dimension, **params), d
    if len(axis_name) > 1:
        raise NotImplementedError("all_gather over several axis names under vmap")
    if d is not_mapped:
        y = broadcast(x, axis_size, all_gather_dimension)
    else:
        y = moveaxis(x, d, all_gather_dimension)
    if tiled:       # fold the gathered axis into the one after it
        shape = list(shape_of(y))
        shape[all_gather_dimension:all_gather_dimension + 2] = [
            shape[all_gather_dimension] * shape[all_gather_dimension + 1]]
        y = lax.reshape(y, shape)
    return y, not_mapped


impl_rules[all_gather_p] = _all_gather_impl
abstract_eval_rules[all_gather_p] = _all_gather_abstract
fancy_batching_rules[all_gather_p] = _all_gather_rule
deflinear(all_gather_p)


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False):
    """The values of `x` (a pytree) from every example of the named axis `axis_name`, stacked
    along a new axis `axis`, or concatenated along the axis `axis` if `tiled`."""
    check_no_groups(axis_index_groups)
    names = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not names:
        return x
    size = psum(1, names)

    def bind(leaf):
        ndim = np.ndim(leaf) + (not tiled)
        if not -ndim <= axis < ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
        return all_gather_p.bind(leaf, all_gather_dimension=axis % ndim, axis_name=names,
                                 axis_index_groups=None, axis_size=size, tiled=tiled)
    return tree_map(bind, x)


reduce_scatter_p = Primitive("reduce_scatter")


def _reduce_scatter_abstract(x, *, axis_name, scatter_dimension, axis_index_groups, axis_size,
                             tiled):
    check_axis_names(axis_name, "reduce_scatter")
    shape, n = list(x.shape), x.shape[scatter_dimension]
    if tiled:
        if n % axis_size:
            raise ValueError(f"tiled reduce_scatter operand scatter dimension size {n} must be "
                             f"divisible by shard_count {axis_size}")
        shape[scatter_dimension] = n // axis_size
    else:
        if n != axis_size:
            raise ValueError(f"reduce_scatter operand scatter dimension size {n} must match "
                             f"shard count {axis_size}")
        del shape[scatter_dimension]
    return x.update(shape=tuple(shape))


def _reduce_scatter_impl(x, *, axis_name, **params):
    check_axis_names(axis_name, "reduce_scatter")
    raise NotImplementedError(f"psum_scatter over the axes {axis_name} outside of their vmap")


def _reduce_scatter_rule(axis_data, vals, dims, *, scatter_dimension, axis_name,
                         axis_index_groups, axis_size, tiled):
    (x,), (d,) = vals, dims
    params = dict(axis_name=axis_name, axis_index_groups=axis_index_groups,
                  axis_size=axis_size, tiled=tiled)
    if axis_data.name is None or axis_data.name not in axis_name:
        if d is not not_mapped:
            if d <= scatter_dimension:
                scatter_dimension += 1
            elif not tiled:
                d += 1
        return reduce_scatter_p.bind(x, scatter_dimension=scatter_dimension, **params), d
    if len(axis_name) > 1:
        raise NotImplementedError("psum_scatter over several axis names under vmap")
    if d is not_mapped:
        y = lax.mul(np.array(axis_size, get_aval(x).dtype), x)
    else:
        y = lax.reduce_sum(x, [d])
    if tiled:       # cut the scattered axis into one block per example
        shape = list(shape_of(y))
        shape[scatter_dimension:scatter_dimension + 1] = [
            axis_size, shape[scatter_dimension] // axis_size]
        y = lax.reshape(y, shape)
    return y, scatter_dimension


impl_rules[reduce_scatter_p] = _reduce_scatter_impl
abstract_eval_rules[reduce_scatter_p] = _reduce_scatter_abstract
fancy_batching_rules[reduce_scatter_p] = _reduce_scatter_rule
deflinear(reduce_scatter_p)


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """`psum(x, axis_name)` (for a pytree `x`), of which each example keeps its own slice (or
    block, if `tiled`) along `scatter_dimension`."""
    check_no_groups(axis_index_groups)
    names = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not names:
        return x
    size = psum(1, names)
    return tree_map(lambda leaf: reduce_scatter_p.bind(
        leaf, axis_name=names, scatter_dimension=scatter_dimension, axis_index_groups=None,
        axis_size=size, tiled=tiled), x)


# They are `jax.lax` functions: registered where `lax` (appendix A6) looks up later names.
