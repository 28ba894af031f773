# Generated from chapters/A25_jax_rest.md by `make export`: edit the chapter, not this file.


"""The rest of jax's top level (appendix A25): `eval_shape`, `typeof`, `named_call`,
`named_scope`, `ensure_compile_time_eval`, `custom_gradient`, the process functions, `pmap`,
the rest of `jax.tree_util`, `linear_transpose`, `closure_convert`, `make_array_from_callback`,
`fwd_and_bwd`, `make_user_context`, a few small names, `enable_x64` and the other options, the
debugging and safety flags among them, each written as JAX 0.10.2 writes it."""
from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import gc
import importlib.metadata
import itertools
import logging
import os
import platform
import sys
import textwrap
import time
import warnings
from typing import Any, TypeVar

import jaxlib.version
import numpy as np
from jaxlib import xla_client as xc
from jaxlib._jax import guard_lib

from autodidax import core, lax_core as lax
from autodidax.autodiff import UndefinedPrimal, backward_pass, dce_jaxpr, vjp
from autodidax.batching import BatchTracer
from autodidax.callbacks import ShapeDtypeStruct
from autodidax.control_flow import trace_to_jaxpr_with_consts
from autodidax.core import Trace, Tracer, dtype_kind, get_aval, set_current_trace, trace_ctx
from autodidax.custom import custom_vjp
from autodidax.jaxpr import JaxprTracer, check_jaxpr, eval_jaxpr, trace_to_jaxpr
from autodidax.jit import (call_checks, flat_arg_names, flatten_prefix, jit, jit_p,
                           signature_context, trace_watchers)
from autodidax.jvp import JVPTracer, float0, instantiate_zeros, tangent_aval
from autodidax import numpy as jnp
from autodidax.numpy import set_dtype_promotion, set_rank_promotion
from autodidax.prng import raw_key_checks
from autodidax.runtime import (Array, clear_caches, config, get_backend, process_count,
                               process_index)
from autodidax.runtime import default_device as runtime_default_device
from autodidax.runtime import devices as all_devices
from autodidax.processes import make_array_from_single_device_arrays
from autodidax.runtime import XlaEvalTrace, device_put
from autodidax.sharding import (Mesh, NamedSharding, PartitionSpec, devices_indices,
                                is_local_device, shard_map)
from autodidax.tree_util import (PyTreeDef, broadcast_prefix, flatten_fun, node_types,
                                 register_pytree_node, register_pytree_with_keys, tree_flatten,
                                 tree_flatten_with_path, tree_leaves, tree_map, tree_structure,
                                 tree_unflatten)
from autodidax.tree_util_text import more_names as tree_util_names


def eval_shape(fun, *args, **kwargs):
    """The output types of `fun(*args, **kwargs)`, as `ShapeDtypeStruct`s in the output's
    structure, from a trace: no number is computed (JAX's `jit(fun).trace(...).out_info`)."""
    traced = jit(fun).trace(*args, **kwargs)
    out = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
           for a in traced.jaxpr.out_avals]
    return tree_unflatten(traced.out_tree, out)


def typeof(x):
    """The JAX type of `x`: its abstract value (a `TypeError` for what is not a JAX value)."""
    return get_aval(x)


class named_scope:
    """`with named_scope("layer"):`, or `@named_scope("layer")`: a name for the operations
    traced inside, which JAX keeps in its name stack (ours has none: see the differences)."""

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TypeError("named_scope name argument must be a string.")
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fun):
        @functools.wraps(fun)
        def named(*args, **kwargs):
            with self:
                return fun(*args, **kwargs)
        return named


def named_call(fun, *, name: str | None = None):
    """`fun`, each of its calls traced under the name `name` (default: `fun.__name__`)."""
    return named_scope(fun.__name__ if name is None else name)(fun)


class _CompileTimeEval(Trace):
    """Evaluation now for known values; the trace the block began in for the rest."""

    def __init__(self, outer: Trace):
        self.outer = outer

    def process_primitive(self, primitive, args, params):
        known = not any(isinstance(x, Tracer) for x in args)
        with set_current_trace(core.eval_trace if known else self.outer):
            return primitive.bind(*args, **params)


@contextlib.contextmanager
def ensure_compile_time_eval():
    """`with ensure_compile_time_eval():` runs the operations on known values inside now, even
    under `jit` (JAX's turns on `config.eager_constant_folding`)."""
    with set_current_trace(_CompileTimeEval(core.trace_ctx.trace)):
        yield


class _Residuals:
    """What custom_gradient's forward rule saves: the VJP function as a jaxpr, its input and
    output trees, and its constants, the pytree's leaves (JAX's `Residuals`)."""

    def __init__(self, jaxpr, in_tree, out_tree, consts):
        self.jaxpr, self.in_tree, self.out_tree, self.consts = jaxpr, in_tree, out_tree, consts


register_pytree_node(_Residuals, lambda r: (r.consts, (r.jaxpr, r.in_tree, r.out_tree)),
                     lambda aux, consts: _Residuals(*aux, list(consts)))


def custom_gradient(fun):
    """Turn `fun(*args) -> (out, vjp)` into a function that returns `out` and whose VJP is `vjp`
    (JAX's `custom_gradient`, on `custom_vjp`)."""
    @custom_vjp
    def wrapped(*args, **kwargs):
        return fun(*args, **kwargs)[0]

    def fwd(*args, **kwargs):
        ans, rule = fun(*args, **kwargs)
        in_tree = tree_structure((ans,))
        avals = [tangent_aval(get_aval(x)) for x in tree_flatten(ans)[0]]
        jaxpr, consts, out_tree = trace_to_jaxpr_with_consts(rule, in_tree, avals)
        return ans, _Residuals(jaxpr, in_tree, out_tree, consts)

    def bwd(res, ct):
        cts = eval_jaxpr(res.jaxpr.jaxpr, [], *res.consts, *tree_flatten((ct,))[0])
        cts = tree_unflatten(res.out_tree, cts)
        return (cts,) if res.out_tree == tree_structure(0) else cts     # one leaf: a tuple

    wrapped.defvjp(fwd, bwd)
    return wrapped


def process_indices(backend=None) -> list[int]:
    """The indices of every process: `[0, ..., process_count() - 1]`."""
    return list(range(process_count(backend)))


def host_count(backend=None) -> int:
    warnings.warn("jax.process_count has been renamed to jax.process_count. This alias will "
                  "eventually be removed; please update your code.")
    return process_count(backend)


def host_id(backend=None) -> int:
    warnings.warn("jax.process_index has been renamed to jax.process_index. This alias will "
                  "eventually be removed; please update your code.")
    return process_index(backend)


def host_ids(backend=None) -> list[int]:
    warnings.warn("jax.process_indexs has been renamed to jax.process_indices. This alias will "
                  "eventually be removed; please update your code.")
    return process_indices(backend)


_PMAP_AXIS = "_internal_pmap_axis_name"     # JAX's name for the axis when none is given


def _index_tuple(x) -> tuple:
    return (x,) if isinstance(x, int) else tuple(x)


def _hashable(x) -> bool:
    try:
        hash(x)
        return True
    except TypeError:
        return False


def _axis_spec(axis_name, axis) -> PartitionSpec:
    """The spec of a value mapped along `axis` (None: not mapped) over the mesh axis."""
    return PartitionSpec() if axis is None else PartitionSpec(*[None] * axis, axis_name)


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=()):
    """`fun` mapped over an axis of its arguments, one slice per device, as a `shard_map`
    inside a `jit` (JAX's `pmap`, jax/_src/pmap.py)."""
    if devices is not None:
        if not devices:
            raise ValueError("'devices' argument to pmap must be non-empty, or None.")
        devices = tuple(devices)
    axis_name = _PMAP_AXIS if axis_name is None else axis_name
    static = _index_tuple(static_broadcasted_argnums)
    donate = tuple(i - sum(s < i for s in static)         # counted among the dynamic ones
                   for i in _index_tuple(donate_argnums) if i not in static)
    for what, axes in [("in_axes", in_axes), ("out_axes", out_axes)]:
        if not all(type(leaf) is int for leaf in tree_leaves(axes)):
            raise TypeError(f"pmap {what} must be an int, None, or (nested) container "
                            f"with those types as leaves, but got {axes}.")
    programs: dict = {}

    @functools.wraps(fun)
    def pmapped(*args, **kwargs):
        if static and max(static) >= len(args):
            n = len(args)
            raise ValueError(
                f"pmapped function has static_broadcasted_argnums={static} but was called "
                f"with only {n} positional argument{'s' if n > 1 else ''}. All static "
                "broadcasted arguments must be passed positionally.")
        dyn = tuple(a for i, a in enumerate(args) if i not in static)
        fixed = tuple((i, args[i]) for i in static)
        for i, value in fixed:
            if not _hashable(value):                                    # JAX's words
                raise ValueError(
                    "Non-hashable static arguments are not supported, as this can lead to "
                    f"unexpected cache-misses. Static argument (index {i}) of type "
                    f"{type(value)} for function {getattr(fun, '__name__', fun)} is "
                    "non-hashable.")
        dyn_in_axes = (tuple(a for i, a in enumerate(in_axes) if i not in static)
                       if static and isinstance(in_axes, tuple) else in_axes)
        flat, tree = tree_flatten((dyn, kwargs))
        axes = tuple(flatten_prefix("in_axes", (dyn_in_axes, 0), tree,
                                    "positional arguments", "pmap"))
        size = next((x.shape[a] for x, a in zip(flat, axes)
                     if a is not None and hasattr(x, "shape")), None)
        if size is None:
            raise ValueError("pmap requires at least one argument with a mapped axis.")
        if axis_size is not None and axis_size != size:
            raise ValueError(f"Specified axis_size {axis_size} doesn't match received "
                             f"axis_size {size}.")
        devs = (devices if devices is not None else tuple(all_devices(backend)))[:size]
        if not devs:                        # an axis of size 0: jit's words for its empty mesh
            spec = _axis_spec(axis_name, next(a for a in axes if a is not None))
            raise ValueError("One of in_shardings leaf specifications got an empty "
                             f"NamedSharding: NamedSharding(mesh=Mesh(), spec={spec}) which is "
                             "not allowed.")
        eager = isinstance(core.trace_ctx.trace, core.EvalTrace)
        key = (tree, axes, fixed, devs, eager)
        if key not in programs:
            sizes = [len(tree_leaves(a)) for a in dyn]
            donated = [sum(sizes[:i]) + j for i in donate if i < len(dyn)
                       for j in range(sizes[i])]
            programs[key] = _pmap_program(fun, fixed, tree, axes, out_axes, axis_name, devs,
                                          donated, eager)
        program, in_shardings = programs[key]
        for x, sharding in zip(flat, in_shardings):    # jit's check of its in_shardings
            devices_indices(sharding, np.shape(x))
        return program(*flat)
    return pmapped


def _pmap_program(fun, fixed, tree, axes, out_axes, axis_name, devs, donated, eager):
    """(the `jit` of a `shard_map` of `fun` over a mesh of `devs`, its input shardings)."""
    mesh = Mesh(devs, (axis_name,))
    in_specs = tuple(_axis_spec(axis_name, a) for a in axes)
    out_specs = tree_map(lambda a: _axis_spec(axis_name, a), out_axes,
                         is_leaf=lambda x: x is None)

    def _fun(*flat):            # one device's block: the mapped axis, of size 1, taken out
        flat = [x if a is None else lax.squeeze(x, [a]) for x, a in zip(flat, axes)]
        dyn, kwargs = tree_unflatten(tree, flat)
        args = list(dyn)
        for i, value in fixed:
            args.insert(i, value)
        out = fun(*args, **kwargs)
        leaves, out_tree = tree_flatten(out)
        out_axes_flat = broadcast_prefix(out_axes, out, is_leaf=lambda x: x is None)
        return tree_unflatten(out_tree, [x if a is None else lax.expand_dims(x, [a])
                                         for x, a in zip(leaves, out_axes_flat)])

    mapped = shard_map(_fun, mesh=mesh, in_specs=in_specs, out_specs=out_specs,
                       check_vma=False, axis_names=set(mesh.axis_names))
    named = [NamedSharding(mesh, s) for s in in_specs]
    if not eager:           # inside a transformation: the layout is the caller's business
        return jit(mapped, donate_argnums=donated), ()
    outs = tree_map(lambda s: NamedSharding(mesh, s), out_specs, is_leaf=lambda x: x is None)
    return jit(mapped, in_shardings=tuple(named), out_shardings=outs,
               donate_argnums=donated), named


class _Boxed:
    """A callable that is not a `functools.partial`, so that `Partial` keeps its own args."""

    def __init__(self, fun):
        self.fun = fun

    def __call__(self, *args, **kwargs):
        return self.fun(*args, **kwargs)

    def __hash__(self):
        return hash(self.fun)

    def __eq__(self, other):
        return self.fun == (other.fun if isinstance(other, _Boxed) else other)


class Partial(functools.partial):
    """`functools.partial` as a pytree: the bound arguments are its children."""

    def __new__(cls, func, *args, **kwargs):
        if isinstance(func, functools.partial):
            boxed = _Boxed(func)
            out = super().__new__(cls, boxed, *args, **kwargs)
            boxed.func, boxed.args, boxed.keywords = func.func, func.args, func.keywords
            return out
        return super().__new__(cls, func, *args, **kwargs)


register_pytree_node(Partial, lambda p: ((p.args, p.keywords), p.func),
                     lambda func, children: Partial(func, *children[0], **children[1]))


def register_static(cls):
    """Register `cls` as a pytree node without children: its instances are static."""
    register_pytree_with_keys(cls, lambda obj: ((), obj), lambda obj, _: obj)
    return cls


def tree_broadcast(prefix_tree, full_tree, is_leaf=None):
    """`full_tree`'s structure, each leaf of `prefix_tree` repeated over its subtree."""
    return tree_structure(full_tree).unflatten(broadcast_prefix(prefix_tree, full_tree, is_leaf))


class _Unspecified:
    pass


def _reduce_pairwise(leaves, operation, identity):
    if not leaves:
        if isinstance(identity, _Unspecified):
            raise TypeError("Must specify identity for parallel reduction of empty sequence.")
        return identity
    if len(leaves) == 1:
        return leaves[0]
    half = len(leaves) // 2
    return operation(_reduce_pairwise(leaves[:half], operation, identity),
                     _reduce_pairwise(leaves[half:], operation, identity))


def tree_reduce_associative(operation, tree, *, identity=_Unspecified(), is_leaf=None):
    """The leaves of `tree` reduced by the associative `operation`, in pairs."""
    return _reduce_pairwise(tree_leaves(tree, is_leaf), operation, identity)


def all_leaves(iterable, is_leaf=None) -> bool:
    """Whether every element of `iterable` is a leaf."""
    items = list(iterable)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(a is b for a, b in zip(items, leaves))


def is_tree_node(typ) -> bool:
    """Whether `typ` is a registered node type (or a namedtuple class)."""
    return typ in node_types or (issubclass(typ, tuple) and hasattr(typ, "_fields"))


def flatten_one_level(tree):
    """The children of the node `tree`, as its node type gives them, and its aux data."""
    node_type = node_types.get(type(tree))
    if node_type is not None:
        return node_type.flatten(tree)
    if is_tree_node(type(tree)):                    # a namedtuple: its class is the aux data
        return list(tree), type(tree)
    raise ValueError(f"can't tree-flatten type: {type(tree)}")


def flatten_one_level_with_keys(tree):
    """The `(key, child)` pairs of the node `tree` (a tuple for the built-in containers, as
    JAX's C++ gives them) and its aux data."""
    _, aux = flatten_one_level(tree)
    paths, _ = tree_flatten_with_path(tree, is_leaf=lambda x: x is not tree)
    pairs = [(path[0], child) for path, child in paths]
    return (tuple(pairs) if type(tree) in (tuple, list, dict, type(None)) else pairs), aux


def treedef_tuple(treedefs) -> PyTreeDef:
    """The structure of a tuple of trees of the structures `treedefs`."""
    return PyTreeDef(node_types[tuple], None, tuple(treedefs))


def static(**kwargs):
    """A `dataclasses.field` marked static, as `register_dataclass` reads it."""
    metadata = {"static": True, **(kwargs.pop("metadata", {}) or {})}
    return dataclasses.field(metadata=metadata, **kwargs)


class PyTreeRegistry:
    """JAX's registry object; ours is chapter 2's `node_types`, asked through these methods."""
    flatten = staticmethod(tree_flatten)
    flatten_one_level = staticmethod(flatten_one_level)
    flatten_one_level_with_keys = staticmethod(flatten_one_level_with_keys)


KeyEntry = TypeVar("KeyEntry", bound=Any)
KeyPath = tuple[KeyEntry, ...]
tree_util_names.update(
    Partial=Partial, register_static=register_static, tree_broadcast=tree_broadcast,
    tree_reduce_associative=tree_reduce_associative, all_leaves=all_leaves,
    is_tree_node=is_tree_node, flatten_one_level=flatten_one_level,
    flatten_one_level_with_keys=flatten_one_level_with_keys, treedef_tuple=treedef_tuple,
    treedef_children=lambda treedef: treedef.children(),
    treedef_is_leaf=lambda treedef: treedef.num_nodes == 1,
    default_registry=PyTreeRegistry(), KeyEntry=KeyEntry, KeyPath=KeyPath)


def linear_transpose(fun, *primals, reduce_axes=()):
    """The transpose of `fun`, linear in its arguments, at the types of `primals`: a function
    from a cotangent of `fun`'s output to the tuple of cotangents of its inputs."""
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to transpose is deprecated")
    primals_flat, in_tree = tree_flatten(primals)
    flat_fun, out_tree = flatten_fun(fun, in_tree)
    in_avals = [get_aval(x) for x in primals_flat]     # a ShapeDtypeStruct's too
    closed = trace_to_jaxpr(flat_fun, in_avals)
    jaxpr, _ = dce_jaxpr(closed.jaxpr, [True] * len(closed.jaxpr.outvars), prune_inputs=False)
    out_avals = [a.update(weak_type=False) for a in closed.out_avals]
    in_dtypes, out_dtypes = [a.dtype for a in in_avals], [a.dtype for a in out_avals]
    kinds = {dtype_kind(d) for d in in_dtypes + out_dtypes}
    if not (kinds <= set("fc") or kinds <= set("iu")):
        raise TypeError("linear_transpose only supports [float or complex] -> [float or "
                        f"complex], and integer -> integer functions, but got {in_dtypes} -> "
                        f"{out_dtypes}.")
    out_tree = out_tree()

    def transposed_fun(consts, out_cotangent):
        out_cts, ct_tree = tree_flatten(out_cotangent)
        if ct_tree != out_tree:
            raise TypeError("cotangent tree does not match function output, "
                            f"expected {out_tree} but got {ct_tree}")
        if any(a != get_aval(ct).update(weak_type=False) for a, ct in zip(out_avals, out_cts)):
            raise TypeError("cotangent type does not match function output, "
                            f"expected {out_avals} but got {out_cts}")
        in_cts = backward_pass(jaxpr, consts, [UndefinedPrimal(a) for a in in_avals], out_cts)
        return tree_unflatten(in_tree, [instantiate_zeros(ct) for ct in in_cts])
    return Partial(transposed_fun, closed.consts)      # a pytree of its constants, as JAX's


def _maybe_perturbed(x) -> bool:
    """Whether `x` may carry a derivative: a tracer of jvp with a tangent, or of a staging
    trace (differentiation may come later), with what it wraps looked into."""
    if not isinstance(x, Tracer):
        return False
    if isinstance(x, JVPTracer):
        return True              # a JVPTracer's tangent is never a Zero (chapter 3)
    if isinstance(x, JaxprTracer):
        return tangent_aval(x.aval).dtype != float0
    if isinstance(x, BatchTracer):
        return _maybe_perturbed(x.val)
    return True                  # a tracer of a trace this appendix does not know


def closure_convert(fun, *example_args):
    """(`converted`, `consts`): `converted(*args, *consts)` is `fun(*args)`, with the values
    that `fun` closes over and that may carry a derivative passed in as `consts`."""
    flat_args, in_tree = tree_flatten(example_args)
    flat_fun, out_tree = flatten_fun(fun, in_tree)
    closed = trace_to_jaxpr(flat_fun, [get_aval(x) for x in flat_args])
    out_tree = out_tree()
    perturbed = [_maybe_perturbed(c) for c in closed.consts]
    const_args = [c for c, p in zip(closed.consts, perturbed) if p]

    def converted_fun(*args_hconsts):
        num_args = len(args_hconsts) - len(const_args)
        args, given = args_hconsts[:num_args], iter(args_hconsts[num_args:])
        consts = [next(given) if p else c for c, p in zip(closed.consts, perturbed)]
        all_args, in_tree2 = tree_flatten(tuple(args))
        if in_tree != in_tree2:
            raise TypeError("The inputs to the closure produced by closure_convert must have the "
                            "same Pytree structure as the example arguments passed when "
                            f"closure_convert was called. Expected {in_tree}, but got {in_tree2}")
        return tree_unflatten(out_tree, eval_jaxpr(closed.jaxpr, consts, *all_args))
    return converted_fun, const_args


def make_array_from_callback(shape, sharding, data_callback, dtype=None):
    """The array of `shape` laid out as `sharding`, each device's part `data_callback(index)`,
    where `index` (a tuple of slices) says where that part sits in the whole."""
    shape = tuple(shape)
    index = devices_indices(sharding, shape)
    devs = [d for d in sharding._device_assignment if is_local_device(d)]
    if sharding.is_fully_replicated:         # every device holds the whole: asked for once
        parts = [data_callback(index[devs[0]])] * len(devs) if devs else []
    else:
        parts = [data_callback(index[d]) for d in devs]
    if any(isinstance(part, Tracer) for part in parts):
        raise core.UnexpectedTracerError("jax.make_array_from_callback cannot be called "
                                         "within a traced context.")
    parts = [device_put(part, d) for part, d in zip(parts, devs)]
    if dtype is None and not parts:
        raise ValueError("If the Array has no addressable shards, `dtype` must be provided via "
                         "the `dtype` argument to `jax.make_array_from_callback`.")
    return make_array_from_single_device_arrays(shape, sharding, parts, dtype=dtype)


def fwd_and_bwd(fun, argnums, has_aux=False, jitted=True):
    """(`fwd`, `bwd`): `fwd(*args)` is `(fun(*args), f_vjp)` (with `aux` last if `has_aux`);
    `bwd(f_vjp, cotangent)` the cotangents of the arguments in `argnums`."""
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def fwd(*args):
        def partial_fun(*dyn):
            full = list(args)
            for i, x in zip(nums, dyn):
                full[i] = x
            return fun(*full)
        return vjp(partial_fun, *(args[i] for i in nums), has_aux=has_aux)

    def bwd(f_vjp, outgrad):
        g = f_vjp(outgrad)
        return g[0] if isinstance(argnums, int) else g
    return (jit(fwd), jit(bwd)) if jitted else (fwd, bwd)


Device = xc.Device


def copy_to_host_async(x):
    """Start copying each array of the pytree `x` to the host, where it has the method; `x`."""
    for leaf in tree_leaves(x):
        copy = getattr(leaf, "copy_to_host_async", None)
        if copy is not None:
            copy()
    return x


def print_environment_info(return_string: bool = False) -> str | None:
    """The versions, devices and platform, as a bug report wants them: printed, or returned."""
    devs = all_devices()
    try:
        version = importlib.metadata.version("autodidax")
    except importlib.metadata.PackageNotFoundError:         # run from a checkout, uninstalled
        version = "(not installed)"
    info = textwrap.dedent(f"""\
    autodidax: {version}
    jaxlib: {jaxlib.version.__version__}
    numpy:  {np.__version__}
    python: {sys.version.replace(chr(10), " ")}
    device info: {devs[0].device_kind}-{len(devs)}, {len(devs)} local devices"
    process_count: {process_count()}
    platform: {platform.uname()}""")
    for key, value in os.environ.items():
        if key.startswith(("JAX_", "XLA_")):
            info += f"\n{key}={value}"
    if return_string:
        return info
    print(info)


class _UserContext(contextlib.ContextDecorator):
    """`with ctx(value):` the user's option `ctx` set to `value`, and set back after."""

    def __init__(self, config, value):
        self.config, self.value, self.previous = config, value, []

    def __enter__(self):
        self.previous.append(self.config.value)
        self.config._set(self.value)

    def __exit__(self, *exc):
        self.config._set(self.previous.pop())


class UserConfig:
    """An option of the user's, part of `jit`'s signatures while it differs from its default."""

    def __init__(self, default_value):
        self.default, self.value = default_value, default_value

    def _set(self, value):
        self.value = value
        if value is self.default:          # the usual case costs `jit` nothing
            signature_context.pop(self, None)
        else:
            signature_context[self] = value

    get_global = lambda self: self.value
    set_global = _set

    def __call__(self, new_value):
        return _UserContext(self, new_value)


def make_user_context(default_value=None) -> UserConfig:
    """A new option of the user's, `default_value` until set: see `UserConfig`."""
    return UserConfig(default_value)


_NO_VALUE = object()


class State:
    """A config option as JAX's `State`: `.value` reads it; `state(value)` sets it for a block
    (`with`) or a function (as a decorator); a yes-or-no option's `state()` is `state(True)`."""

    def __init__(self, name: str, bare=_NO_VALUE):
        self._name, self.__name__, self._bare = name, name.removeprefix("jax_"), bare

    name = property(lambda self: self._name)
    value = property(lambda self: getattr(config, self._name))

    def __bool__(self):
        raise TypeError("bool() not supported for instances of type 'State' (did you mean to use "
                        "'State.value' instead?)")

    def __call__(self, new_val=_NO_VALUE):
        new_val = self._bare if new_val is _NO_VALUE else new_val
        if new_val is _NO_VALUE:
            raise TypeError(f"Context manager for {self.__name__} config option requires an "
                            "argument representing the new value for the config option.")
        return _Setting(self._name, new_val)


class _Setting(contextlib.ContextDecorator):
    """The option `name` set to `value` inside the block, and set back after it."""

    def __init__(self, name, value):
        self.name, self.value, self.previous = name, value, []

    def __enter__(self):
        self.previous.append(getattr(config, self.name))
        config.update(self.name, self.value)

    def __exit__(self, *exc):
        config.update(self.name, self.previous.pop())


enable_x64 = State("jax_enable_x64", bare=True)


def _option(name: str, default, check=None) -> State:
    """JAX's option `name`: defined with its default and `check` (which returns the value to
    store, or raises), and given a `State`."""
    config.define(name, default, check)
    return State(name, bare=True if type(default) is bool else _NO_VALUE)


def _enum(values, optional=False):
    """The check of an option with a set of values: JAX's error for any other."""
    def check(value):
        if value not in values and not (optional and value is None):
            raise ValueError(f"new enum value must be {'None or ' * optional}in "
                             f"{list(values)}, got {value} of type {type(value)}.")
        return value
    return check


def _built(built, why: str, check=bool):
    """The check of an option the book builds one setting of: `built`; others are refused."""
    def refuse(value):
        value = check(value)
        if value != built and value is not None:
            raise NotImplementedError(f"autodidax {why}")
        return value
    return refuse


class LegacyPrngKeyState(enum.StrEnum):
    ALLOW, WARN, ERROR = "allow", "warn", "error"


def _rank_promotion(value):
    set_rank_promotion(_enum(["allow", "warn", "raise"])(value))
    if value != config.jax_numpy_rank_promotion:
        clear_caches()          # functions traced under the other setting checked otherwise
    return value


def _default_device(value):
    if value is not None and not isinstance(value, (str, xc.Device)):
        raise ValueError("jax.default_device must be passed either a Device object (e.g. "
                         "`jax.devices('cpu')[0]`) or a platform name string like 'cpu' or "
                         f"'gpu', got: {value!r}")
    if value not in (None, "cpu", runtime_default_device()):
        raise NotImplementedError("autodidax places work on its default device, "
                                  f"{runtime_default_device()}: device_put arrays to {value} "
                                  "instead")
    return value


_PRECISIONS = ["default", "high", "highest", "bfloat16", "tensorfloat32", "float32",
               *(f"ANY_F8_ANY_F8_{t}" for t in ("F32", "F32_FAST_ACCUM", "ANY",
                                                  "ANY_FAST_ACCUM")),
               "F16_F16_F16", "F16_F16_F32", "BF16_BF16_BF16", "BF16_BF16_F32",
               "BF16_BF16_F32_X3", "BF16_BF16_F32_X6", "BF16_BF16_F32_X9", "TF32_TF32_F32",
               "TF32_TF32_F32_X3", "F32_F32_F32", "F64_F64_F64"]
_PRNGS = ["threefry2x32", "threefry4x32", "rbg", "unsafe_rbg", "philox2x32", "philox4x32"]

numpy_rank_promotion = _option("jax_numpy_rank_promotion", "allow", _rank_promotion)
no_tracing = _option("jax_no_tracing", False, bool)
explain_cache_misses = _option("jax_explain_cache_misses", False, bool)
check_tracer_leaks = _option("jax_check_tracer_leaks", False, bool)
checking_leaks = functools.partial(check_tracer_leaks, True)
enable_checks = _option("jax_enable_checks", False, bool)
log_compiles = _option("jax_log_compiles", False, bool)
legacy_prng_key = _option("jax_legacy_prng_key", LegacyPrngKeyState.ALLOW, LegacyPrngKeyState)
enable_custom_prng = _option("jax_enable_custom_prng", False, bool)
default_device = _option("jax_default_device", None, _default_device)
default_matmul_precision = _option("jax_default_matmul_precision", None,
                                   _enum(_PRECISIONS, optional=True))
default_prng_impl = _option("jax_default_prng_impl", "threefry2x32", _built(
    "threefry2x32", "has only the threefry2x32 PRNG", _enum(_PRNGS)))
threefry_partitionable = _option("jax_threefry_partitionable", True, _built(
    True, "builds only the partitionable threefry bits, JAX's default"))
softmax_custom_jvp = _option("jax_softmax_custom_jvp", False, _built(
    False, "builds jax.nn.softmax without the custom_jvp rule of jax_softmax_custom_jvp"))
allow_f16_reductions = _option("jax_allow_f16_reductions", True, _built(
    True, "has no refusal of half-precision reduce_sum"))
debug_key_reuse = _option("jax_debug_key_reuse", False, _built(
    False, "has no checker of key reuse (JAX's jax.experimental.key_reuse)"))
no_execution = _option("jax_no_execution", False, _built(
    False, "has no refusal of executions"))
thread_guard = _option("jax_thread_guard", False, _built(
    False, "has no check of the threads that run multi-process operations"))
array_garbage_collection_guard = _option("jax_array_garbage_collection_guard", None, _built(
    "allow", "has no guard on arrays freed by the garbage collector",
    _enum(["allow", "log", "fatal"], optional=True)))
jax2tf_associative_scan_reductions = _option("jax2tf_associative_scan_reductions", False, bool)
auto_pcast = _option("jax_auto_pcast", True, bool)
remove_size_one_mesh_axis_from_type = _option("jax_remove_size_one_mesh_axis_from_type", False,
                                              bool)


logger = logging.getLogger("autodidax")
_PACKAGE = os.path.dirname(os.path.abspath(core.__file__)) + os.sep      # autodidax/


def _source(fun) -> tuple[str, str]:
    """(the function's name, where it is defined: `file:line`)."""
    code = getattr(fun, "__code__", None)
    return getattr(fun, "__name__", repr(fun)), (
        f"{code.co_filename}:{code.co_firstlineno}" if code else "")


def _watch_trace(jitted, key):
    """What the options ask before `jit` traces `jitted` for a new signature `key`; returns
    what they ask after it, or None."""
    if not (config.jax_no_tracing or config.jax_explain_cache_misses
            or config.jax_check_tracer_leaks or config.jax_enable_checks
            or config.jax_log_compiles):
        return None                 # the usual case: nothing asked, nothing done
    name, where = _source(jitted.fun)
    if config.jax_no_tracing:
        raise RuntimeError(f"re-tracing function {name} at {where} for `jit`, but 'no_tracing' "
                           "is set")
    if config.jax_explain_cache_misses and not where.startswith(_PACKAGE):
        logger.warning(_explain_miss(jitted, key, name, where))
    if not (config.jax_check_tracer_leaks or config.jax_enable_checks
            or config.jax_log_compiles):
        return None
    start = time.perf_counter()

    def after(trace, entry):
        if config.jax_log_compiles:
            logger.warning(f"Finished tracing {name} for jit in "
                           f"{time.perf_counter() - start:.9f} sec")
        if config.jax_enable_checks:
            check_jaxpr(entry.jaxpr.jaxpr)
        if config.jax_check_tracer_leaks:
            gc.collect()                # what only a cycle holds cannot leak out
            leaked = [t for t in gc.get_referrers(trace) if isinstance(t, Tracer)]
            if leaked:
                said = [f"{t}\nThe error occurred while tracing the function {name} at {where} "
                        f"for jit. \n{_held_by(t, leaked)}" for t in leaked]
                raise Exception(f"Leaked trace {trace}. Leaked tracer(s):\n\n"
                                + "\n\n".join(said) + "\n")
    return after


def _held_by(tracer, leaked) -> str:
    """What holds `tracer` alive: the first of its referrers outside this check."""
    mine = (leaked, sys._getframe(), sys._getframe(1))
    for holder in gc.get_referrers(tracer):
        if not any(holder is m for m in mine):
            return (f"<{type(tracer).__name__} {id(tracer)}> is referred to by "
                    f"<{type(holder).__name__} {id(holder)}>")
    return ""


def _explain_miss(jitted, key, name, where) -> str:
    """JAX's explanation of a tracing cache miss: the function never seen, or how the new
    signature differs from the closest one seen (`pe.explain`, `diff_tracing_cache_keys`)."""
    lines = [f"TRACING CACHE MISS at {_user_callsite()}:"]
    if not jitted._cache:
        return "\n".join(lines + [f"  never seen function:\n    {name} id={id(jitted.fun)} "
                                  f"defined at {where}"])
    diffs = sorted(_key_diff(jitted, key, old) for old in jitted._cache)
    return "\n".join(lines + [f"  for {name} defined at {where}", "  all previously seen "
                              "cache keys differ. For the closest previous key:",
                              "  " + diffs[0][2]])


def _key_diff(jitted, new, old) -> tuple[int, int, str]:
    """(severity, how many differences, what differs) between two of `jit`'s signatures."""
    if new[6:] != old[6:]:
        return 0, 1, "Tracing context doesn't match, e.g. due to config or context manager."
    if new[2:4] != old[2:4]:
        return 1, 1, f"different input pytree:\n  * now {new[2]} and before {old[2]}"
    if new[:2] != old[:2]:
        return 2, 1, "different static arguments"
    changed = [(n, a, b) for n, a, b in zip(_arg_names(jitted, new), new[4], old[4]) if a != b]
    weak = any(a.weak_type != b.weak_type for _, a, b in changed)
    return 3, len(changed), "different input types:\n" + "\n".join(
        f"  * at {n}, now {_type_said(a, b)} and before {_type_said(b, a)}"
        for n, a, b in changed) + (
            "https://docs.jax.dev/en/latest/type_promotion.html#weak-types" if weak else "")


def _type_said(aval, other) -> str:
    """How JAX's explanation writes `aval` beside `other`: with the (empty) sets of mesh axes of
    its sharding when the shardings differ, as they do for two ranks; and the weak types."""
    said = aval.str_short() + ("({})" if len(aval.shape) != len(other.shape) else "")
    return said + (f"{{weak_type={aval.weak_type}}}" if aval.weak_type != other.weak_type else "")


def _arg_names(jitted, key) -> list[str]:
    """The names of the flat dynamic arguments of `jit`'s signature `key`."""
    static_pos, static_named, in_tree, has_kwargs = key[:4]
    dynamic = tree_unflatten(in_tree, [0] * in_tree.num_leaves)
    args, kwargs = dynamic if has_kwargs else (dynamic, {})
    args = list(args)
    for i, value in static_pos:
        args.insert(i, value)
    return flat_arg_names(jitted, args, {**kwargs, **dict(static_named)})


def _user_callsite() -> str:
    """`file:line:column (function)` of the innermost frame outside the book's package."""
    frame = sys._getframe(1)
    while frame.f_back and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    code = frame.f_code
    column = next(itertools.islice(code.co_positions(), frame.f_lasti // 2, None))[2]
    return f"{code.co_filename}:{frame.f_lineno}:{column} ({code.co_qualname})"


def _raw_key_used():
    """A raw `uint32` key was passed to `jax.random`: what the options say (JAX's texts)."""
    if config.jax_legacy_prng_key != "allow":
        message = ("Legacy uint32 key array passed as key to jax.random function. Please "
                   "create keys using jax.random.key(). If use of a raw key array was "
                   'intended, set jax_legacy_prng_key="allow".')
        if config.jax_legacy_prng_key == "error":
            raise ValueError(message)
        warnings.warn(message, stacklevel=4)
    elif config.jax_enable_custom_prng:
        warnings.warn("Raw arrays as random keys to jax.random functions are deprecated. "
                      "Assuming valid threefry2x32 key for now.", FutureWarning)


trace_watchers.append(_watch_trace)
raw_key_checks.append(_raw_key_used)


def live_arrays(platform=None) -> list:
    """The arrays alive in this process, on the backend of `platform` (None: the default)."""
    get_backend(platform)                   # (an unknown platform: its error)
    return [x for x in gc.get_objects() if isinstance(x, Array) and not x.is_deleted()]


def smap(f=None, /, *, in_axes=None, out_axes, axis_name):
    """`f` mapped over the mesh axis `axis_name` of the mesh in context: `shard_map` with the
    specs that put the axes `in_axes` and `out_axes` on it."""
    if f is None:
        return lambda g: smap(g, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)
    if isinstance(axis_name, (list, tuple)):
        raise TypeError(f"smap axis_name should be a `str` or a `Hashable`, but got {axis_name}")
    if in_axes is not None and not isinstance(in_axes, (int, tuple)):
        raise TypeError("smap in_axes must be an int, None, jax.sharding.Infer, or a tuple of "
                        "entries corresponding to the positional arguments passed to the "
                        f"function, but got {in_axes}.")
    for what, axes, infer in [("in_axes", in_axes, "jax.sharding.Infer, "),
                              ("out_axes", out_axes, "")]:
        if not all(isinstance(leaf, int) for leaf in tree_leaves(axes)):
            raise TypeError(f"smap {what} must be an int, None, {infer}or (nested) container "
                            f"with those types as leaves, but got {axes}.")
    spec = lambda axes: tree_map(functools.partial(_axis_spec, axis_name), axes,
                                 is_leaf=lambda x: x is None)
    return shard_map(f, in_specs=spec(in_axes), out_specs=spec(out_axes),
                     axis_names={axis_name})


_DEOPTIMIZED = ("Invalid nan value encountered in the output of a jax.jit function. Calling the "
                "de-optimized version.")
_checking: list = []     # while an option is on: the evaluation trace the checked one replaced


def _special(values) -> str | None:
    """"nan" or "inf" if an option asks and a floating-point array of `values` has one."""
    for x in values:
        if isinstance(x, core.Array) and dtype_kind(x.dtype) in "fc":
            if config.jax_debug_nans and np.isnan(np.asarray(x)).any():
                return "nan"
            if config.jax_debug_infs and np.isinf(np.asarray(x)).any():
                return "inf"
    return None


class _CheckedEvalTrace(XlaEvalTrace):
    """Chapter 7's evaluation, each primitive's outputs checked (JAX's `check_special`); a `jit`
    equation's, as a call of `jit`: with a NaN, its jaxpr is run again op by op."""

    def process_primitive(self, primitive, args, params):
        out = super().process_primitive(primitive, args, params)
        if kind := _special(out if primitive.multiple_results else [out]):
            if primitive is jit_p:
                closed = params["jaxpr"]
                _deoptimized(lambda: eval_jaxpr(closed.jaxpr, closed.consts, *args),
                             params["name"], kind)
            raise FloatingPointError(f"invalid value ({kind}) encountered in {primitive.name}")
        return out


def _check_jit_call(jitted, args, kwargs, out) -> None:
    """A `jit` call's outputs checked; with a NaN, the function run again without its `jit`."""
    if kind := _special(tree_leaves(out)):
        _deoptimized(lambda: jitted.fun(*args, **kwargs), jitted.name, kind)


def _deoptimized(run, name: str, kind: str):
    """Say so and `run` the de-optimized function, which should raise at the primitive that
    makes the NaN; if it does not, JAX's error."""
    print(_DEOPTIMIZED)
    try:
        run()
    except (FloatingPointError, ZeroDivisionError) as e:
        raise e from None
    raise FloatingPointError(
        f"{(f'jit({name})', kind)}. Because jax_config.debug_nans.value and/or "
        "config.jax_debug_infs is set, the de-optimized function (i.e., the function as if "
        "the `jit` decorator were removed) was called in an attempt to get a more precise "
        "error message. However, the de-optimized function did not produce invalid values "
        "during its execution. This behavior can result from `jit` optimizations causing the "
        "invalid value to be produced. It may also arise from having nan/inf literals as "
        "inputs or outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`. \n\nIt may be "
        "possible to avoid the invalid value by removing the `jit` decorator, at the cost of "
        "losing optimizations. \n\nIf you see this error, consider opening a bug report at "
        "https://github.com/jax-ml/jax.")


def _check_library_call(spec, args, kwargs):
    """An eager `jnp` call as one program, its outputs checked; with a NaN, NotImplemented: the
    function then runs op by op, each primitive checked (as it does under a transformation)."""
    out = NotImplemented
    if type(trace_ctx.trace) is not _CheckedEvalTrace:
        return out
    with set_current_trace(_checking[0]):
        for rule in jnp.eager_rules:
            if rule is not _check_library_call:
                if (out := rule(spec, args, kwargs)) is not NotImplemented:
                    break
    if out is NotImplemented or not _special(tree_leaves(out)):
        return out
    print(_DEOPTIMIZED)
    return NotImplemented


def _debug_special(other: str):
    """The check of `debug_nans` or `debug_infs`: the checks put in place or taken away."""
    def check(value):
        value, on = bool(value), bool(value) or getattr(config, other, False)
        if on and not _checking:
            device = getattr(core.eval_trace, "device", None)
            _checking.append(core.set_eval_trace(_CheckedEvalTrace(device)))
            jnp.eager_rules.insert(0, _check_library_call)
            call_checks.append(_check_jit_call)
        elif not on and _checking:
            core.set_eval_trace(_checking.pop())
            jnp.eager_rules.remove(_check_library_call)
            call_checks.remove(_check_jit_call)
        return value
    return check


debug_nans = _option("jax_debug_nans", False, _debug_special("jax_debug_infs"))
debug_infs = _option("jax_debug_infs", False, _debug_special("jax_debug_nans"))


class NumpyDtypePromotion(enum.StrEnum):
    STANDARD, STRICT = "standard", "strict"


def _strict_lattice() -> dict:
    """JAX's strict lattice: no edge between two dtypes; `i*` below `f*` and every integer dtype,
    `f*` below `c*` and every float dtype, `c*` below every complex dtype."""
    dtypes = sorted(core.SUPPORTED_DTYPES | {np.dtype(t) for t in ("int64", "uint64",
                                                                    "float64", "complex128")},
                    key=str)
    of = lambda kinds: [d for d in dtypes if dtype_kind(d) in kinds]
    return {"i*": ["f*", *of("iu")], "f*": ["c*", *of("f")], "c*": of("c"),
            **{d: [] for d in dtypes}}


def _dtype_promotion(value):
    value = NumpyDtypePromotion(value)
    set_dtype_promotion(_strict_lattice() if value == "strict" else None)
    if value != getattr(config, "jax_numpy_dtype_promotion", value):
        clear_caches()          # programs traced under the other lattice
    return value


numpy_dtype_promotion = _option("jax_numpy_dtype_promotion", NumpyDtypePromotion.STANDARD,
                                _dtype_promotion)
_GUARD_LEVELS = ["allow", "log", "disallow", "log_explicit", "disallow_explicit"]


def _transfer_guard(direction: str):
    """The check of a direction's option: the level handed to jaxlib's `guard_lib`."""
    def check(value):
        value = _enum(_GUARD_LEVELS, optional=True)(value)
        level = None if value is None else getattr(guard_lib.TransferGuardLevel, value.upper())
        setattr(guard_lib.global_state(), direction, level)
        if direction == "host_to_device" and value not in (None, "allow"):
            clear_caches()      # scalars kept on the device (chapter 7) are transfers again
        return value
    return check


def _all_transfer_guards(value):
    value = _enum(_GUARD_LEVELS, optional=True)(value)
    for direction in ("host_to_device", "device_to_device", "device_to_host"):
        config.update(f"jax_transfer_guard_{direction}", value)
    return value


transfer_guard_host_to_device = _option("jax_transfer_guard_host_to_device", None,
                                        _transfer_guard("host_to_device"))
transfer_guard_device_to_device = _option("jax_transfer_guard_device_to_device", None,
                                          _transfer_guard("device_to_device"))
transfer_guard_device_to_host = _option("jax_transfer_guard_device_to_host", None,
                                        _transfer_guard("device_to_host"))
config.define("jax_transfer_guard", None, _all_transfer_guards)


@contextlib.contextmanager
def transfer_guard(new_val: str):
    """`with transfer_guard(level):` the level of every direction of transfer, in the block."""
    with contextlib.ExitStack() as stack:
        for name in ("host_to_device", "device_to_device", "device_to_host", ""):
            stack.enter_context(_Setting(f"jax_transfer_guard{'_' * bool(name)}{name}", new_val))
        yield


def effects_barrier() -> None:
    """Wait until the effects of the programs run so far are done: chapter 15's programs have
    waited for their callbacks already."""
