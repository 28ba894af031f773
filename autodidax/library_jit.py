# Generated from chapters/A22_library_jit.md by `make export`: edit the chapter, not this file.


"""JAX's NumPy functions are jitted: one compiled program per eager call signature, one `jit`
equation under transformations of eager code, inlined or staged where a jaxpr is built."""
from __future__ import annotations

import numpy as np
from jaxlib.xla_client import ArrayImpl, XlaRuntimeError

from autodidax import core
from autodidax import numpy as jnp
from autodidax.core import (Tracer, dtype_kind, get_aval, trace_ctx)
from autodidax.jaxpr import JaxprTrace, trace_to_jaxpr
from autodidax.jit import Jitted, jit_disabled, jit_p, lower_to_text, signature_context
from autodidax.runtime import (Array, EagerCall, XlaEvalTrace, cache_clearers,
                               compile_or_get_cached, constant_buffer, default_device,
                               placement_of)
from autodidax.tree_util import tree_flatten, tree_unflatten

_library_jits: dict = {}     # a function of autodidax.numpy -> its Jitted
_library_specs: set = set()  # the jnp.LibraryJit whose eager programs are cached
_OP_BY_OP = object()         # a signature run op by op: its function could not be traced
_SCALARS = {float, int, bool, complex}


def _eager_library_call(spec, args, kwargs):
    if type(trace_ctx.trace) is not XlaEvalTrace or jit_disabled() or signature_context:
        return NotImplemented
    key, dynamic, static = [], args, spec.static
    if len(args) > spec.first_static:  # (by type too: an axis of 1.0 is not one of 1)
        key = [(type(x), x) for i, x in enumerate(args) if i in static]
        dynamic = [x for i, x in enumerate(args) if i not in static]
    bufs, placement, committed, hosted = [], None, False, False
    for x in dynamic:
        if type(x) is Array and x._sharding is None:
            buf = x._buf
            if buf.is_deleted():
                return NotImplemented                 # (op by op raises JAX's error)
            if placement is None:
                placement = buf._sharding
            elif buf._sharding is not placement:
                return NotImplemented
            committed = committed or buf._committed
            key.append(buf.aval)
            bufs.append(buf)
        elif type(x) in _SCALARS and (type(x) is not int or -2**31 <= x < 2**31):
            key.append(type(x))                       # a Python scalar by its type
            bufs.append(x)
            hosted = True
        elif type(x) is core.Array or isinstance(x, (np.ndarray, np.generic)) and (
                dtype_kind(x.dtype) in "biuf"):              # host arrays: by aval
            key.append(get_aval(x))
            bufs.append(x)
            hosted = True
        else:
            return NotImplemented
    if kwargs:
        if not spec.static_names.issuperset(kwargs):
            return NotImplemented
        key.append(tuple((k, type(v), v) for k, v in kwargs.items()))
    key = (placement, committed, *key)
    last_key, call = spec.last
    if key != last_key:                # (the last call's key is found without hashing)
        call = _library_lookup(spec, key, args, kwargs)
        if call is None:
            return NotImplemented
        spec.last = key, call
    if hosted:
        bufs = [b if type(b) is ArrayImpl else constant_buffer(b, call.placement) for b in bufs]
    try:
        outs = call.execute(bufs).consume_with_handlers(call.handlers)
    except (XlaRuntimeError, ValueError) as e:        # (a deleted buffer: ValueError)
        raise call.executable._call_error(args, e) from None
    if call.out_tree is None:
        return Array(outs[0])
    return tree_unflatten(call.out_tree, list(map(Array, outs)))


def _library_lookup(spec, key, args, kwargs):
    """The program for `key`, from the cache or compiled; None: run the call op by op."""
    placement, committed = key[:2]
    if not committed:                  # uncommitted: on the default device (or eager_mode's)
        default = trace_ctx.trace._placement or placement_of(default_device())[0]
        if placement not in (None, default):
            return None
        placement = default
    try:
        call = spec.programs.get(key)
    except TypeError:                  # an unhashable static argument
        return None
    if call is None:
        call = _library_program(spec, args, kwargs, placement, committed)
        if len(spec.programs) >= 1024:
            del spec.programs[next(iter(spec.programs))]          # the oldest
        spec.programs[key] = call
        _library_specs.add(spec)
    return None if call is _OP_BY_OP else call


class _LibraryCall(EagerCall):
    __slots__ = ("out_tree", "placement")      # out_tree None: one array


def _library_jaxpr(spec, args, kwargs):
    """`spec`'s function traced at these arguments' static values and types: its jaxpr and
    output tree, or _OP_BY_OP."""
    dynamic = [i for i in range(len(args)) if i not in spec.static]
    out_trees = []

    def flat_fun(*xs):
        full = list(args)
        for i, x in zip(dynamic, xs):
            full[i] = x
        leaves, tree = tree_flatten(spec.fun(*full, **kwargs))
        out_trees.append(tree)
        return leaves
    try:
        return trace_to_jaxpr(flat_fun, [get_aval(args[i]) for i in dynamic]), out_trees[0]
    except Exception:       # it needs concrete values, or the arguments are wrong: op by op,
        return _OP_BY_OP    # which gives the value or raises the error the user should see


def _library_program(spec, args, kwargs, placement, committed):
    """The compiled program of `spec`'s function at these arguments' static values and types."""
    traced = _library_jaxpr(spec, args, kwargs)
    if traced is _OP_BY_OP:
        return _OP_BY_OP
    closed, out_tree = traced
    exe = compile_or_get_cached(lower_to_text(closed, spec.name),
                                placement._internal_device_list[0], closed.out_avals)
    call = _LibraryCall(exe, placement, committed)
    call.out_tree = None if out_tree.node_type is None else out_tree
    call.placement = placement
    return call


_library_jaxprs: dict = {}   # (LibraryJit, static values, avals) -> (jaxpr, out tree)


def _transformed_library_call(spec, args, kwargs):
    """A call under `jvp`, `vmap` or `linearize` of eager code: one `jit` equation, as JAX binds
    it, so that what the transformations' rules make of it runs as one compiled program."""
    trace = trace_ctx.trace
    if type(trace) is XlaEvalTrace or jit_disabled() or signature_context or not (
            _transforms_eager(trace)):
        return NotImplemented
    if kwargs and not spec.static_names.issuperset(kwargs):
        return NotImplemented
    key, dynamic = [spec], []
    for i, x in enumerate(args):
        if i in spec.static:
            key.append((type(x), x))
        elif isinstance(x, (Tracer, Array, core.Array, np.ndarray)) or (
                type(x) in _SCALARS and (type(x) is not int or -2**31 <= x < 2**31)):
            key.append(get_aval(x))
            dynamic.append(x)
        else:
            return NotImplemented
    key.append(tuple((k, type(v), v) for k, v in kwargs.items()))
    try:
        traced = _library_jaxprs.get(key := tuple(key))
    except TypeError:                  # an unhashable static argument
        return NotImplemented
    if traced is None:
        traced = _library_jaxprs[key] = _library_jaxpr(spec, args, kwargs)
    if traced is _OP_BY_OP:
        return NotImplemented
    closed, out_tree = traced
    outs = jit_p.bind(*dynamic, jaxpr=closed, name=spec.name, inline=not spec.staged)
    return tree_unflatten(out_tree, outs)


def _transforms_eager(trace) -> bool:
    """Whether `trace` transforms eager code: its parents lead down to XLA's evaluation, and
    no jaxpr is being built (but linearize's, by partial evaluation)."""
    while type(trace) is not XlaEvalTrace:
        trace = getattr(trace, "parent_trace", None)
        if trace is None:
            return False
    return True


def _stage_library_call(fun, name, static_argnums, args):
    if not isinstance(trace_ctx.trace, JaxprTrace):
        return NotImplemented
    jitted = _library_jits.get(fun)
    if jitted is None:
        jitted = _library_jits[fun] = Jitted(fun, static_argnums)
        jitted.name = name
    return jitted(*args)


def _clear_library_caches() -> None:
    for spec in _library_specs:
        spec.programs.clear()
        spec.last = (None, None)
    _library_jaxprs.clear()


jnp.eager_rules.extend([_eager_library_call, _transformed_library_call])
jnp.staging_rules.append(_stage_library_call)
cache_clearers.append(_clear_library_caches)     # chapter 7's clear_caches() empties them too
