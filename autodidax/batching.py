# Generated from chapters/04_vmap.md by `make export`: edit the chapter, not this file.


"""Batching: the batching trace, a batching rule for every primitive, `vmap` and `jacfwd`."""
from __future__ import annotations

import functools
import inspect
from typing import NamedTuple

import numpy as np

from autodidax import lax_core as lax
from autodidax import numpy as jnp
from autodidax.core import (Array, Primitive, ShapedArray, Trace, Tracer, abstract_eval_rules,
                            api_boundary, get_aval, impl_rules, set_current_trace,
                            take_current_trace)
from autodidax.jvp import (TraceTag, add_any, add_any_p, argnums_partial, check_callable,
                           check_float_inputs, deflinear, float0, jacobian_blocks, jvp,
                           std_basis)
from autodidax.tree_util import (broadcast_prefix, flatten_fun, keystr, tree_flatten,
                                 tree_flatten_with_path, tree_map, tree_structure,
                                 tree_unflatten)

not_mapped = None   # the batch dimension of a value that is the same for every example


class BatchTracer(Tracer):
    """A value of a vmapped function: `val` holds every example, stacked along `batch_dim`."""
    __slots__ = ("val", "batch_dim")

    def __init__(self, trace, val, batch_dim):
        self._trace, self.val, self.batch_dim = trace, val, batch_dim

    def __repr__(self):          # as JAX prints it: the example's type, then the whole batch's
        return (f"VmapTracer(aval={self.aval.str_short(short_dtypes=False)}, "
                f"batched={get_aval(self.val).str_short(short_dtypes=False)})")

    @property
    def aval(self):
        aval = get_aval(self.val)
        if self.batch_dim is not_mapped:
            return aval
        shape = list(aval.shape)
        del shape[self.batch_dim]
        return aval.update(shape=tuple(shape))


batching_rules: dict = {}   # primitive -> rule(vals, dims, **params) -> (out, out_dim)
fancy_batching_rules: dict = {}   # primitive -> rule(axis_data, vals, dims, **params)


class AxisData(NamedTuple):
    """The axis a batching trace maps over: its size, and its name (None if it has none)."""
    name: object
    size: int


class _AxisContext:
    """The named axes bound now (a stack of `AxisData`), and the axis whose rule is running."""
    __slots__ = ("bound", "rule_axis")


axis_context = _AxisContext()
axis_context.bound, axis_context.rule_axis = [], None


class running_rule_of:
    """`with running_rule_of(axis_data):` while a batching rule for that axis runs."""
    __slots__ = ("axis_data", "prev")

    def __init__(self, axis_data):
        self.axis_data = axis_data

    def __enter__(self):
        self.prev, axis_context.rule_axis = axis_context.rule_axis, self.axis_data

    def __exit__(self, *exc):
        axis_context.rule_axis = self.prev


class BatchTrace(Trace):
    """Interprets primitives on batched values, with the parent trace doing the arithmetic."""

    def __init__(self, parent_trace, tag, axis_data):
        self.parent_trace, self.tag, self.axis_data = parent_trace, tag, axis_data

    axis_size = property(lambda self: self.axis_data.size)

    def __repr__(self):
        name = "" if self.axis_data.name is None else f" named {self.axis_data.name!r}"
        return f"vmap (of a batch of {self.axis_data.size}{name})"

    def to_batch_info(self, x):
        """The value and batch dimension of `x`, which is unbatched unless it is ours."""
        if isinstance(x, BatchTracer) and x._trace.tag is self.tag:
            return x.val, x.batch_dim
        return x, not_mapped

    def process_primitive(self, primitive, tracers, params):
        vals, dims = zip(*map(self.to_batch_info, tracers)) if tracers else ((), ())
        fancy = fancy_batching_rules.get(primitive)
        if fancy is None and all(d is not_mapped for d in dims):
            with set_current_trace(self.parent_trace):
                return primitive.bind(*vals, **params)
        rule = batching_rules.get(primitive)
        if fancy is None and rule is None:
            raise NotImplementedError(f"vmap has no batching rule for the primitive {primitive}: "
                                      f"register one in autodidax.batching.batching_rules")
        with set_current_trace(self.parent_trace), running_rule_of(self.axis_data):
            if fancy is not None:
                out, out_dim = fancy(self.axis_data, vals, dims, **params)
            else:
                out, out_dim = rule(vals, dims, **params)
        if primitive.multiple_results:
            return [x if d is not_mapped else BatchTracer(self, x, d) for x, d in zip(out, out_dim)]
        return out if out_dim is not_mapped else BatchTracer(self, out, out_dim)


_inherit = object()     # `batch`'s default axis name: that of the rule calling it, if any


class extend_axis_env:
    """`with extend_axis_env(name, size):` binds the axis `name` inside the block."""
    __slots__ = ("axis_data",)

    def __init__(self, name, size):
        self.axis_data = AxisData(name, size)

    def __enter__(self):
        axis_context.bound.append(self.axis_data)

    def __exit__(self, *exc):
        axis_context.bound.pop()


def batch(f, axis_size, in_dims, args, axis_name=_inherit):
    """Run `f` on the flat list `args`, batched along `in_dims` (`not_mapped` for unbatched
    arguments), over an axis named `axis_name` (None: no name). Returns its flat outputs and
    their batch dimensions. A batching rule that calls `batch` carries on the axis it batches,
    so by default the axis takes the name of the axis whose rule is running."""
    if axis_name is _inherit:
        rule_axis = axis_context.rule_axis
        axis_name = rule_axis.name if rule_axis is not None else None
    with take_current_trace() as parent:
        trace = BatchTrace(parent, TraceTag(), AxisData(axis_name, axis_size))
        tracers = [x if d is not_mapped else BatchTracer(trace, x, d)
                   for x, d in zip(args, in_dims)]
        try:
            with set_current_trace(trace), extend_axis_env(axis_name, axis_size):
                outs = f(*tracers)
            out_vals, out_dims = zip(*map(trace.to_batch_info, outs)) if outs else ((), ())
        finally:
            trace.invalidate()          # its tracers are dead from now on (chapter 1)
    return list(out_vals), list(out_dims)


def vectorized(prim):
    def rule(vals, dims, **params):
        (x,), (d,) = vals, dims
        return prim.bind(x, **params), d
    return rule


for _p in [lax.neg_p, lax.sin_p, lax.cos_p, lax.exp_p, lax.log_p, lax.tanh_p, lax.sqrt_p,
           lax.abs_p, lax.sign_p, lax.square_p, lax.integer_pow_p, lax.convert_element_type_p,
           lax.not_p, lax.stop_gradient_p]:
    batching_rules[_p] = vectorized(_p)


def shape_of(x):
    return get_aval(x).shape


def moveaxis(x, src, dst):
    """`x` with its axis `src` moved to position `dst`."""
    if src == dst:
        return x
    perm = [i for i in range(len(shape_of(x))) if i != src]
    perm.insert(dst, src)
    return lax.transpose(x, perm)


def broadcast(x, size, axis):
    """`x` repeated `size` times along a new axis at position `axis`."""
    shape = list(shape_of(x))
    shape.insert(axis, size)
    # NumPy integers, as JAX's own `broadcast` makes them: its jaxprs print `np.int64(1)`
    return lax.broadcast_in_dim(x, shape, tuple(np.delete(np.arange(len(shape)), axis)))


def bdim_at_front(x, bdim, size):
    """`x` with its batch axis first; an unbatched `x` is repeated `size` times."""
    return broadcast(x, size, 0) if bdim is not_mapped else moveaxis(x, bdim, 0)


def broadcasting(prim):
    def rule(vals, dims, **params):
        shape, dim = next((shape_of(x), d) for x, d in zip(vals, dims) if d is not not_mapped)
        if all(shape_of(x) == shape and d == dim for x, d in zip(vals, dims) if shape_of(x)):
            return prim.bind(*vals, **params), dim          # nothing to move
        vals = [bdim_at_front(x, d, 1) if shape_of(x) else x for x, d in zip(vals, dims)]
        rank = max(len(shape_of(x)) for x in vals)
        vals = [x if d is not_mapped or len(shape_of(x)) == rank
                else lax.expand_dims(x, range(len(shape_of(x)), rank)) for x, d in zip(vals, dims)]
        return prim.bind(*vals, **params), 0
    return rule


for _p in [lax.add_p, lax.sub_p, lax.mul_p, lax.div_p, lax.max_p, lax.min_p, lax.gt_p, lax.lt_p,
           lax.ge_p, lax.le_p, lax.eq_p, lax.ne_p, lax.and_p, lax.or_p, lax.xor_p]:
    batching_rules[_p] = broadcasting(_p)


def _add_any_rule(vals, dims):
    (x, y), (dx, dy) = vals, dims
    if dx == dy:
        return add_any(x, y), dx
    if dx is not_mapped:
        return add_any(broadcast(x, shape_of(y)[dy], dy), y), dy
    if dy is not_mapped:
        return add_any(x, broadcast(y, shape_of(x)[dx], dx)), dx
    return add_any(moveaxis(x, dx, dy), y), dy


batching_rules[add_any_p] = _add_any_rule


def reducer(prim):
    def rule(vals, dims, *, axes, **params):
        (x,), (d,) = vals, dims
        out_dim = d - sum(a < d for a in axes)
        # np.where, as JAX's rule computes them: the new axes are NumPy ints, and print so.
        return prim.bind(x, axes=tuple(np.where(np.less(axes, d), axes, np.add(axes, 1))),
                         **params), out_dim
    return rule


for _p in [lax.reduce_sum_p, lax.reduce_max_p, lax.reduce_min_p]:
    batching_rules[_p] = reducer(_p)


def _transpose_rule(vals, dims, *, permutation, **params):
    (x,), (d,) = vals, dims
    perm = (d,) + tuple(p + (p >= d) for p in permutation)
    return lax.transpose_p.bind(x, permutation=perm, **params), 0


def _squeeze_rule(vals, dims, *, dimensions, **params):
    (x,), (d,) = vals, dims
    return lax.squeeze_p.bind(moveaxis(x, d, 0), dimensions=tuple(a + 1 for a in dimensions),
                              **params), 0


def _rev_rule(vals, dims, *, dimensions, **params):
    (x,), (d,) = vals, dims
    return lax.rev_p.bind(x, dimensions=tuple(a + (a >= d) for a in dimensions), **params), d


def _slice_rule(vals, dims, *, start_indices, limit_indices, strides, **params):
    (x,), (d,) = vals, dims
    insert = lambda t, v: None if t is None else t[:d] + (v,) + t[d:]
    return lax.slice_p.bind(x, start_indices=insert(start_indices, 0),
                            limit_indices=insert(limit_indices, shape_of(x)[d]),
                            strides=insert(strides, 1), **params), d


def _broadcast_in_dim_rule(vals, dims, *, shape, broadcast_dimensions, **params):
    (x,), (d,) = vals, dims
    # NumPy ints, as JAX's `np.add` makes them: they print `np.int64(1)`
    bdims = (0,) + tuple(np.add(1, broadcast_dimensions))
    return lax.broadcast_in_dim_p.bind(moveaxis(x, d, 0), shape=(shape_of(x)[d],) + shape,
                                       broadcast_dimensions=bdims, **params), 0


def _concatenate_rule(vals, dims, *, dimension, **params):
    size = next(shape_of(x)[d] for x, d in zip(vals, dims) if d is not not_mapped)
    xs = [lax.broadcast(x, (size,)) if d is not_mapped else moveaxis(x, d, 0)
          for x, d in zip(vals, dims)]
    return lax.concatenate_p.bind(*xs, dimension=dimension + 1, **params), 0


def _reshape_rule(vals, dims, *, new_sizes, dimensions, **params):
    (x,), (d,) = vals, dims
    x = moveaxis(x, d, 0)
    if dimensions is not None:
        dimensions = (0,) + tuple(p + 1 for p in dimensions)
    # `lax.reshape`, not `bind`: a no-op reshape (a scalar's to `()`) stays one, as in JAX's
    return lax.reshape(x, (shape_of(x)[0],) + new_sizes, dimensions), 0


batching_rules.update({
    lax.transpose_p: _transpose_rule, lax.squeeze_p: _squeeze_rule, lax.rev_p: _rev_rule,
    lax.slice_p: _slice_rule, lax.broadcast_in_dim_p: _broadcast_in_dim_rule,
    lax.concatenate_p: _concatenate_rule, lax.reshape_p: _reshape_rule,
})


def _bump(axes, d):
    """Per-example axis numbers, renumbered for a value batched along `d`."""
    return tuple(a + (a >= d) for a in axes)


def _dot_general_rule(vals, dims, *, dimension_numbers, **params):
    (x, y), (dx, dy) = vals, dims
    (xc, yc), (xb, yb) = dimension_numbers
    if dx is not not_mapped and dy is not not_mapped:
        new_dims = ((_bump(xc, dx), _bump(yc, dy)), ((dx,) + _bump(xb, dx), (dy,) + _bump(yb, dy)))
        out_dim = 0
    elif dx is not not_mapped:
        new_dims = ((_bump(xc, dx), yc), (_bump(xb, dx), yb))
        x_free = [a for a in range(len(shape_of(x)) - 1) if a not in xc + xb]
        out_dim = len(xb) + sum(a < dx for a in x_free)
    else:
        new_dims = ((xc, _bump(yc, dy)), (xb, _bump(yb, dy)))
        y_free = [a for a in range(len(shape_of(y)) - 1) if a not in yc + yb]
        x_free_count = len(shape_of(x)) - len(xc) - len(xb)
        out_dim = len(xb) + x_free_count + sum(a < dy for a in y_free)
    return lax.dot_general_p.bind(x, y, dimension_numbers=new_dims, **params), out_dim


batching_rules[lax.dot_general_p] = _dot_general_rule


def _flatten_axes(what, axes, tree, whose):
    """One axis per leaf of `tree`, from `axes`, a prefix of `tree` with ints and Nones as
    leaves."""
    try:
        return broadcast_prefix(axes, tree, is_leaf=lambda a: a is None)
    except ValueError as e:
        raise _prefix_error(what, axes, tree, whose, e) from None


def vmap(f, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None):
    """`f` vectorised: its positional arguments are batched along `in_axes` (an int, None, or
    a tuple with one pytree prefix per argument), its keyword arguments along axis 0, its
    outputs along `out_axes`. `axis_name` names the mapped axis, for collectives such as
    `psum`; `axis_size` gives its size, needed when no argument is mapped. `spmd_axis_name`
    (in JAX, the mesh axis that shards the batch axis) is accepted and has no effect."""
    check_callable(f)
    in_axes = tuple(in_axes) if isinstance(in_axes, list) else in_axes
    _check_axes_spec(in_axes, out_axes)
    hash(axis_name)     # a name must be hashable, as in JAX: a TypeError otherwise

    def batched_f(*args, **kwargs):
        if isinstance(in_axes, tuple) and len(in_axes) != len(args):
            raise ValueError(f"vmap in_axes has {len(in_axes)} entries, but the function was "
                             f"called with {len(args)} positional arguments; in_axes must be an "
                             "int, None, or a tuple with one entry per positional argument")
        args_flat, in_tree = tree_flatten(args)
        kwargs_flat, kwargs_tree = tree_flatten(kwargs)
        n = len(args_flat)
        in_dims = _flatten_axes("in_axes", in_axes, args, "arguments") + [0] * len(kwargs_flat)
        args_flat = args_flat + kwargs_flat
        names = lambda: _arg_names(f, args, kwargs)
        in_dims = [_canonical_in_axis(x, d, lambda i=i: names()[i])
                   for i, (x, d) in enumerate(zip(args_flat, in_dims))]
        size = _mapped_axis_size(args_flat, in_dims, names, in_axes, axis_size)
        flat_f, out_tree = flatten_fun(
            lambda *a: f(*tree_unflatten(in_tree, a[:n]), **tree_unflatten(kwargs_tree, a[n:])),
            tree_structure(tuple(range(len(args_flat)))))
        out_vals, out_dims = batch(flat_f, size, in_dims, args_flat, axis_name)
        outs = tree_unflatten(out_tree(), out_vals)
        out_dests = _flatten_axes("out_axes", out_axes, outs, "outputs")
        out_names = lambda: _leaf_names("the output", outs)
        outs = [_move_to_out_axis(x, src, dst, size, lambda i=i: out_names()[i])
                for i, (x, src, dst) in enumerate(zip(out_vals, out_dims, out_dests))]
        return tree_unflatten(out_tree(), outs)

    batched_f.__name__ = getattr(f, "__name__", "vmap_f")    # JAX keeps the function's name
    batched_f.__wrapped__ = f
    return api_boundary(batched_f)


def jacfwd(f, argnums=0, has_aux=False, holomorphic=False):
    """The Jacobian of `f` with respect to its positional arguments `argnums` (an int or a
    tuple of ints), from `jvp` pushing the whole standard basis forward under `vmap`. With
    `has_aux`, `f` returns `(output, aux)` and this `(jacobian, aux)`. Keyword arguments are
    passed to `f` and not differentiated."""
    check_callable(f)
    single = isinstance(argnums, int)

    def jacfun(*args, **kwargs):
        fun = functools.partial(f, **kwargs) if kwargs else f
        partial_f, dyn_args = argnums_partial(fun, argnums, args, "jacfwd")
        leaves, in_tree = tree_flatten(dyn_args)
        check_float_inputs(leaves, "jacfwd", holomorphic)
        avals = [get_aval(x) for x in leaves]

        def pushfwd(*tangents):
            y, t, *aux = jvp(lambda *xs: partial_f(*tree_unflatten(in_tree, xs)), leaves,
                             tangents, has_aux=has_aux)
            check_float_inputs(tree_flatten(y)[0], "jacfwd", holomorphic, outputs=True)
            # an integer output has float0 tangents; its Jacobian is zeros of its dtype, as JAX's
            t = tree_map(lambda y, t: jnp.zeros(np.shape(y), get_aval(y).dtype)
                         if get_aval(t).dtype == float0 else t, y, t)
            return (y, t, *aux)
        y, jac, *aux = vmap(pushfwd, out_axes=(None, -1, None) if has_aux else (None, -1))(
            *std_basis(avals))
        example = tree_structure(dyn_args[0]) if single else in_tree
        jac = tree_map(lambda out, j: tree_unflatten(
            example, jacobian_blocks(j, -1, avals, get_aval(out))), y, jac)
        return (jac, aux[0]) if has_aux else jac

    return api_boundary(jacfun)


def bound_axis_size(name) -> int:
    """The size of the innermost axis bound as `name`, or JAX's NameError."""
    for axis in reversed(axis_context.bound):
        if axis.name is not None and axis.name == name:
            return axis.size
    raise NameError(f"unbound axis name: {name}")


def check_axis_names(axes, api_name):
    for name in axes:
        if not isinstance(name, int) and not any(
                a.name is not None and a.name == name for a in axis_context.bound):
            raise NameError(f"Found an unbound axis name: {name}. To fix this, call {api_name} "
                            f"inside a function mapped with vmap(..., axis_name={name!r}).")


psum_p = Primitive("psum")


def _split_axes(axes):
    named = tuple(a for a in axes if not isinstance(a, int))
    return named, tuple(a for a in axes if isinstance(a, int))


def allreduce_abstract(name):
    def rule(x, *, axes, axis_index_groups):
        check_axis_names(axes, name)
        _, positional = _split_axes(axes)
        if any(not 0 <= a < x.ndim for a in positional):
            raise ValueError(f"reduction axes {positional} contains out-of-bounds indices for "
                             f"{x.str_short(short_dtypes=False)}.")
        shape = tuple(d for i, d in enumerate(x.shape) if i not in positional)
        return ShapedArray(shape, x.dtype)
    return rule


def allreduce_impl(prim, reduce):
    def impl(x, *, axes, axis_index_groups):
        named, positional = _split_axes(axes)
        check_axis_names(named, prim.name)
        if named:   # bound, but met outside its vmap's trace: no other examples to reach
            raise NotImplementedError(f"{prim} over the axes {named} outside of their vmap")
        return np.asarray(reduce(x, axis=positional), x.dtype) if positional else x
    return impl


def collective_reduction_rule(prim):
    def rule(axis_data, vals, dims, *, axes, axis_index_groups):
        (x,), (d,) = vals, dims
        if axis_index_groups is not None:
            raise NotImplementedError("axis_index_groups is not supported in vmap collectives")
        if axis_data.name is None or axis_data.name not in axes:
            if d is not_mapped or not any(isinstance(a, int) for a in axes):
                return prim.bind(x, axes=axes, axis_index_groups=None), d
            axes = tuple(a + 1 if isinstance(a, int) else a for a in axes)
            return prim.bind(moveaxis(x, d, 0), axes=axes, axis_index_groups=None), 0
        rest = tuple(a for a in axes if a != axis_data.name)
        if d is not_mapped:     # the same value in every example
            if rest:
                x = prim.bind(x, axes=rest, axis_index_groups=None)
            if prim is psum_p:
                x = lax.mul(np.array(axis_data.size, get_aval(x).dtype), x)
            return x, not_mapped
        axes = tuple(0 if a == axis_data.name else a + 1 if isinstance(a, int) else a
                     for a in axes)
        return prim.bind(moveaxis(x, d, 0), axes=axes, axis_index_groups=None), not_mapped
    return rule


impl_rules[psum_p] = allreduce_impl(psum_p, np.sum)
abstract_eval_rules[psum_p] = allreduce_abstract("psum")
fancy_batching_rules[psum_p] = collective_reduction_rule(psum_p)
deflinear(psum_p)       # a sum is linear


def axis_name_tuple(axis_name) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def check_no_groups(axis_index_groups):
    if axis_index_groups is not None:
        raise NotImplementedError("autodidax does not support axis_index_groups")


def _const(x, value):
    if type(x) in (bool, int, float, complex):
        return type(x)(value)
    return np.array(value, get_aval(x).dtype)


def psum(x, axis_name, *, axis_index_groups=None):
    """The sum of `x` (a pytree) over the named axes `axis_name` (a name or a tuple of names;
    ints are positional axes of `x`), the same for every example of those axes."""
    check_no_groups(axis_index_groups)
    axes = axis_name_tuple(axis_name)
    if not axes:
        return x
    leaves, tree = tree_flatten(x)
    leaves = [lax.convert_element_type(leaf, np.int32) if get_aval(leaf).dtype == np.bool_
              else leaf for leaf in leaves]
    if any(isinstance(leaf, Tracer) for leaf in leaves):
        outs = [psum_p.bind(leaf, axes=axes, axis_index_groups=None) for leaf in leaves]
    else:       # the same value in every example: multiply by the size of the axes
        named, positional = _split_axes(axes)
        size = int(np.prod([bound_axis_size(name) for name in named]))
        outs = []
        for leaf in leaves:
            if positional:
                leaf = lax.reduce_sum(leaf, [a % max(np.ndim(leaf), 1) for a in positional])
            outs.append(_const(leaf, size) * leaf)
    return tree_unflatten(tree, outs)


def _leaf_names(what, tree):
    return [what + keystr(path) for path, _ in tree_flatten_with_path(tree)[0]]


def _arg_names(f, args, kwargs):
    """A name for each leaf of the arguments of `f`: `argument params['w']`."""
    try:
        params = [p.name for p in inspect.signature(f).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = [f"argument {params[i]}" if i < len(params) else f"args[{i}]" for i in range(len(args))]
    return [name for i, arg in enumerate(args) for name in _leaf_names(names[i], arg)] + [
        name for key, arg in sorted(kwargs.items()) for name in _leaf_names(f"argument {key}", arg)]


def _prefix_error(what, axes, tree, whose, e):
    where = str(e).split("\n")[0].partition(" at ")[2]
    where = where.replace("the structure", what).replace("the tree has", f"the {whose} have")
    return ValueError(f"vmap {what} must be a tree prefix of the {whose}, but at {where}"
                      f"\n  {what}: {axes!r}\n  {whose}: {tree_structure(tree)}")


def _check_axes_spec(in_axes, out_axes):
    if not (in_axes is None or type(in_axes) in (int, tuple)):
        raise TypeError("vmap in_axes must be an int, None, or a tuple with one entry per "
                        f"positional argument, but got {in_axes!r}")
    for what, axes in [("in_axes", in_axes), ("out_axes", out_axes)]:
        leaves = tree_flatten(axes, is_leaf=lambda a: a is None)[0]
        if not all(a is None or type(a) is int for a in leaves):
            raise TypeError(f"vmap {what} must be an int, None, or a (nested) tuple, list or "
                            f"dict with those as leaves, but got {axes!r}")


def _canonical_in_axis(x, axis, name):
    if axis is None:
        return not_mapped
    shape = shape_of(x)
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"vmap was asked to map {name()} along axis {axis}, but it has rank "
                         f"{len(shape)} (shape {shape}): its in_axes must be None or in "
                         f"[{-len(shape)}, {len(shape)})")
    return axis % len(shape)


def _mapped_axis_size(args, in_dims, names, in_axes, axis_size=None):
    if not args and axis_size is None:
        raise ValueError("vmap wrapped function must be passed at least one argument containing "
                         "an array or axis_size must be specified, but it got no arguments")
    sizes = [None if d is not_mapped else shape_of(x)[d] for x, d in zip(args, in_dims)]
    distinct = {s for s in sizes if s is not None} | ({axis_size} - {None})
    if len(distinct) == 1:
        size = distinct.pop()
        if axis_size is not None and (type(axis_size) is not int or axis_size < 0):
            raise TypeError(f"vmap axis_size must be a nonnegative int, but got {axis_size!r}")
        return size
    if not distinct:
        raise ValueError("vmap needs at least one argument with a mapped axis, to know the size "
                         f"of the batch, but in_axes={in_axes!r} maps none of the arguments and "
                         "axis_size is not given")
    lines = [f"  axis {d} of {n} ({get_aval(x).str_short()}) has size {s}"
             for x, d, n, s in zip(args, in_dims, names(), sizes) if s is not None]
    if axis_size is not None:
        lines.insert(0, f"  the axis_size argument is {axis_size!r}")
    raise ValueError("vmap got arguments whose mapped axes have different sizes:\n"
                     + "\n".join(lines))


def _move_to_out_axis(x, src, dst, axis_size, name):
    if dst is None:
        if src is not_mapped:
            return x
        raise ValueError(f"vmap out_axes is None for {name()}, which says that it is the same "
                         f"for every example, but it is batched (along axis {src})")
    rank = len(shape_of(x)) + (src is not_mapped)
    if not -rank <= dst < rank:
        raise ValueError(f"vmap out_axes {dst} is out of range for {name()}, which has rank "
                         f"{rank} with the mapped axis: out_axes must be in [{-rank}, {rank})")
    dst %= rank
    return broadcast(x, axis_size, dst) if src is not_mapped else moveaxis(x, src, dst)
