# Generated from chapters/08_jit.md by `make export`: edit the chapter, not this file.


"""`jit`: a higher-order primitive, compiled by XLA and cached, with JAX's ahead-of-time stages."""
from __future__ import annotations

import contextlib
import functools
import inspect
import os
import re
import types
import warnings
import weakref

import numpy as np
from jaxlib.xla_client import XlaRuntimeError

from autodidax import numpy as jnp
from autodidax.batching import batch, fancy_batching_rules, moveaxis
from autodidax.core import (EvalTrace, Primitive, Tracer, abstract_eval_rules, api_boundary,
                            get_aval, impl_rules, set_current_trace, trace_ctx)
from autodidax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprTrace, custom_staging_rules, eval_jaxpr,
                             jaxpr_as_fun, pp_eqn_plain, pp_eqn_rules, suggest_same_names,
                             trace_to_jaxpr, weakref_lru_cache)
from autodidax.jvp import Zero, jvp_flat, jvp_rules, tangent_aval
from autodidax.lowering import call_lowering, lower_jaxpr_to_module, lowering_rules, module_to_text
from autodidax.runtime import (Array, EagerCall, Executable, cache_clearers,
                               committed_device, compile_or_get_cached, config, constant_buffer,
                               default_device, device_put, placement_of)
from autodidax.tree_util import (broadcast_prefix, keystr, tree_flatten, tree_flatten_with_path,
                                 tree_unflatten)


jit_p = Primitive("jit")
jit_p.multiple_results = True

# (id of a jaxpr, ids of its constants) -> (the jaxpr, its constants, Executable). The entry
# keeps them alive, so no other object can take their ids while it is there.
_executables: dict = {}


def lower_to_text(closed: ClosedJaxpr, name: str, result_names=None, placement=None,
                  donated=()) -> str:
    """The StableHLO text of `closed`, its constants written into the program; a program over
    several devices also says how its inputs and outputs are laid out (its placement), and
    `donated` (one bool per input) marks the inputs whose buffers outputs may reuse."""
    for check in lowering_checks:     # A21: JAX's warning for many bytes of constants
        check(closed)
    extra = {} if placement is None else placement.lowering_options(closed)
    if any(donated):
        extra["input_output_aliases"], extra["buffer_donors"] = donation_rules["aliases"](
            closed, donated, placement)
    module = lower_jaxpr_to_module(closed, name=f"jit({name})", result_names=result_names, **extra)
    return module_to_text(module)


def pruned(closed: ClosedJaxpr, donated=(), keep_unused=False):
    """`closed` as lowered: unless `keep_unused`, without what it does not need (appendix A19);
    the donated flags of the inputs kept, and their indices (None: all)."""
    rule = prune_rules.get("prune")
    return (closed, donated, None) if rule is None or keep_unused else rule(closed, donated)


def with_kept(exe, kept):        # an executable of the kept inputs, called with all (A19)
    return exe if kept is None else prune_rules["executable"](exe, kept)


def executable_for(closed: ClosedJaxpr, name: str, result_names=None, placement=None,
                   donated=(), device=None, keep_unused=False):
    """The compiled program of `closed`, its constants included, on `device` (None: the
    default device) or over the devices of a `Placement`, taking over the buffers of the
    `donated` inputs."""
    if placement is None and device is None:
        device = default_device()
    key = (id(closed.jaxpr), placement, device, donated, keep_unused, *map(id, closed.consts))
    entry = _executables.get(key)
    if entry is None:
        exe = ref_rules["program"](closed, name) if "program" in ref_rules else None  # (A30)
        if exe is None:
            program, flags, kept = pruned(closed, donated, keep_unused or placement is not None)
            text = lower_to_text(program, name, result_names, placement, flags)
            exe = with_kept(compile_or_get_cached(text, device, closed.out_avals)
                            if placement is None else placement.compile(text, closed.out_avals),
                            kept)
        entry = _executables[key] = (closed.jaxpr, closed.consts, exe)
    return entry[2]


def _jit_impl(*args, jaxpr, name, inline):
    return executable_for(jaxpr, name)(*args)


impl_rules[jit_p] = _jit_impl
abstract_eval_rules[jit_p] = lambda *avals, jaxpr, name, inline: jaxpr.out_avals


def _jit_staging(trace, args, params):
    """Stage a `jit` equation, or if `inline` its jaxpr's equations (JAX's `pjit_staging_rule`)."""
    if not params["inline"]:
        return trace.default_process_primitive(jit_p, args, params)
    closed = params["jaxpr"]
    with set_current_trace(trace):
        return eval_jaxpr(closed.jaxpr, closed.consts, *args)


custom_staging_rules[jit_p] = _jit_staging


def _jit_lowering(ctx, *args, jaxpr, name, inline):
    jaxpr = ref_rules["pure"](jaxpr) if "pure" in ref_rules else jaxpr
    return call_lowering(ctx, name, jaxpr, *args)


lowering_rules[jit_p] = _jit_lowering


def _jit_pp(eqn, names):
    jaxpr = eqn.params["jaxpr"].jaxpr
    if jaxpr not in names.shared:
        suggest_same_names(names, jaxpr.invars, eqn.invars)
        suggest_same_names(names, jaxpr.outvars, eqn.outvars)
    params = [("name", eqn.params["name"]), ("jaxpr", eqn.params["jaxpr"])]
    return pp_eqn_plain(eqn, names, params)


pp_eqn_rules[jit_p] = _jit_pp


placement_rules: dict = {}    # "placement" -> chapter 16's (jitted, signature, entry) -> placement
donation_rules: dict = {}     # "params", "vector", "aliases" -> appendix A19's rules
ref_rules: dict = {}          # "program", "types", "pure" -> appendix A30's programs with refs
prune_rules: dict = {}        # "prune", "executable" -> appendix A19's unused inputs dropped
lowering_checks: list = []    # check(closed jaxpr) before lowering: appendix A21's
compiled_checks: list = []    # check(arg names, avals, flat args) of a `Compiled` call: A21's


class JitTrace(JaxprTrace):
    """The trace that records a jitted function: a JaxprTrace that knows the function."""

    def __init__(self, fun_name: str, where: str):
        super().__init__()
        self.fun_name, self.where = fun_name, where

    def __repr__(self):
        return f"jit({self.fun_name}) at {self.where}"


def _fun_name(fun) -> str:
    while isinstance(fun, functools.partial):     # a partial goes by its function's name
        fun = fun.func
    return getattr(fun, "__name__", type(fun).__name__)


def _where(fun) -> str:
    code = getattr(fun, "__code__", None)
    return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}" if code else "?"


def hoist_tracer_consts(closed: ClosedJaxpr):
    """(closed jaxpr, leading arguments): tracer (or ref, A30) constants become inputs."""
    hoist = [isinstance(c, (Tracer, *ref_rules.get("types", ()))) for c in closed.consts]
    if not any(hoist):
        return closed, []
    jaxpr = closed.jaxpr
    kept = [(v, c) for v, c, h in zip(jaxpr.constvars, closed.consts, hoist) if not h]
    moved = [(v, c) for v, c, h in zip(jaxpr.constvars, closed.consts, hoist) if h]
    new = Jaxpr([v for v, _ in kept], [v for v, _ in moved] + jaxpr.invars, jaxpr.eqns,
                jaxpr.outvars)
    return ClosedJaxpr(new, [c for _, c in kept]), [c for _, c in moved]


_jit_disabled = False          # config.jax_disable_jit, below
_caches = weakref.WeakKeyDictionary()  # function -> {static options: (cache, fast cache)}


class _FastCache(dict):
    """The fast path's cache: array-only calls' types -> entries; `last`: the last call's, first."""
    __slots__ = ("last",)

    def __init__(self):
        super().__init__()
        self.last = (None, None)

    def clear(self):
        super().clear()
        self.last = (None, None)


def _clear_jit_caches() -> None:
    for by_options in _caches.values():
        for cache, fast in by_options.values():
            cache.clear()
            fast.clear()


cache_clearers.append(_clear_jit_caches)     # chapter 7's clear_caches() empties them too
# Settings of later chapters that change what tracing gives, by name (chapter 16's mesh in
# context): part of every call's signature while set. Empty, as it usually is, it costs nothing.
signature_context: dict = {}
trace_watchers: list = []   # A25's options: watch(jitted, key), and what it returns after
call_checks: list = []      # A25's debug_nans: check(jitted, args, kwargs, out) after a call
text_dialects: dict = {}    # A32's "hlo": text(lowered, debug_info), for Lowered.as_text


class _CacheEntry:
    __slots__ = ("jaxpr", "out_tree", "result_names", "donated", "executable", "single",
                 "in_avals", "placed")

    def __init__(self, jaxpr, out_tree, result_names, donated=()):
        self.jaxpr, self.out_tree, self.result_names = jaxpr, out_tree, result_names
        self.donated, self.executable = donated, None
        self.in_avals = tuple(jaxpr.in_avals)
        self.single = out_tree.node_type is None      # the output is one array, not a tree
        self.placed = {}     # (device, committed) -> its _Placed

    def run(self, args):
        """Call the executable with `args`, arrays all, and build the output tree."""
        outs = self.executable.run_arrays(args, self.in_avals)
        return outs[0] if self.single else tree_unflatten(self.out_tree, outs)


class _Placed:
    """A signature's program on one device, as JAX runs it: on the device of its committed
    arguments, else on the default one, its results committed iff an argument was."""
    __slots__ = ("call", "executable", "placement", "in_avals", "single", "out_tree", "zeros")

    def __init__(self, entry, jitted, device, committed):
        exe = executable_for(entry.jaxpr, jitted.name, entry.result_names, device=device,
                             keep_unused=jitted.keep_unused)
        self.executable, self.placement = exe, placement_of(device)[0]
        # a program of a later chapter's kind (callbacks) runs by its own call, committed
        self.call = EagerCall(exe, self.placement, committed) if type(exe) is Executable else None
        self.in_avals, self.single, self.out_tree = entry.in_avals, entry.single, entry.out_tree
        self.zeros = any(a.dtype.names for a in entry.jaxpr.out_avals)   # float0 outputs

    def run(self, args):
        """Run on `args`: arrays, NumPy arrays or scalars, moved to the device if need be."""
        call, exe, placement = self.call, self.executable, self.placement
        if call is None:
            outs = exe(*args)
        else:
            bufs = [x._buf if type(x) is Array and x._buf._sharding is placement
                    else exe._put_copy(x, aval) if type(x) is np.ndarray
                    else device_put(x, exe.device)._buf if type(x) is Array
                    else constant_buffer(x, placement) for x, aval in zip(args, self.in_avals)]
            try:
                outs = list(map(Array, call.execute(bufs).consume_with_handlers(call.handlers)))
            except (XlaRuntimeError, ValueError) as e:     # (a deleted buffer: ValueError)
                raise exe._call_error(args, e) from None
        if self.zeros:      # chapter 3's float0, stored as booleans: NumPy's zeros, as in JAX
            outs = [np.zeros(x.shape, x.dtype) if x.dtype.names else x for x in outs]
        return outs[0] if self.single else tree_unflatten(self.out_tree, outs)


def _run_where(entry, jitted, flat, names):
    """The `_Placed` of `entry` for the arguments `flat`: on the device of the committed
    ones (JAX's error, naming the function by its qualified name, if they are on two), else on
    the default device."""
    device = committed_device(flat, getattr(jitted.fun, "__qualname__", jitted.name), names)
    key = (device or default_device(), device is not None)
    placed = entry.placed.get(key)
    if placed is None:
        placed = entry.placed[key] = _Placed(entry, jitted, *key)
    return placed


def flat_arg_names(jitted, args, kwargs) -> list:
    """JAX's name for each flat dynamic argument of a call, by the parameter it binds to:
    `x`, `params['w']`, `xs[2]` (of `*xs`), or `args[2]` if the call does not bind."""
    n, static = len(args), object()
    at = {i % n for i in jitted.static_argnums if -n <= i < n}
    args = [static if i in at else a for i, a in enumerate(args)]
    kwargs = {k: static if k in jitted.static_argnames else v for k, v in sorted(kwargs.items())}
    try:
        named = inspect.signature(jitted.fun).bind(*args, **kwargs).arguments
    except (TypeError, ValueError):
        named = {**{f"args[{i}]": a for i, a in enumerate(args)}, **kwargs}
    return [name + keystr(path) for name, value in named.items()
            for path, leaf in tree_flatten_with_path(value)[0] if leaf is not static]


def _result_name(path) -> str:
    """JAX's name for the output at `path`: `result`, `result[0]`, `result['loss']`."""
    return "result" + re.sub(r"<flat index ([^>]+)>", r"\1", keystr(path))


class Jitted:
    """The function `jit` returns: call it, or stage it with `.trace` and `.lower`."""

    def __init__(self, fun, static_argnums=(), static_argnames=(), in_shardings=None,
                 out_shardings=None, donate_argnums=(), donate_argnames=(), keep_unused=False,
                 inline=False):
        functools.update_wrapper(self, fun)
        self.keep_unused, self.inline = keep_unused, inline
        self.donate_argnums, self.donate_argnames = donate_argnums, donate_argnames
        self.in_shardings, self.out_shardings = in_shardings, out_shardings
        self.fun, self.name = fun, _fun_name(fun)
        nums, names = jnp.check_static_args(fun, static_argnums, static_argnames)  # (A1)
        try:        # a static argument may be given by position or by name
            params = list(inspect.signature(fun).parameters)
        except (TypeError, ValueError):
            params = []
        nums += tuple(params.index(n) for n in names if n in params)
        names += tuple(params[i] for i in nums if 0 <= i < len(params))
        self.static_argnums, self.static_argnames = tuple(sorted(set(nums))), frozenset(names)
        # signature -> traced jaxpr (and its executable); and avals of array-only calls -> the
        # same entries. Shared by every `jit` of the same function with the same static options.
        self._cache, self._fast = {}, _FastCache()
        try:
            options = (self.static_argnums, self.static_argnames, _frozen(in_shardings),
                       _frozen(out_shardings), donate_argnums, donate_argnames, keep_unused)
            by_options = _caches.setdefault(fun, {})
            self._cache, self._fast = by_options.setdefault(options, ({}, _FastCache()))
        except TypeError:              # not weakly referenceable: a cache of our own
            pass
        self.trace_count = 0

    def _signature(self, args, kwargs):
        """The key of the program a call needs, and the flat list of its dynamic arguments."""
        static_pos, static_named, given = (), (), (args, kwargs)
        if self.static_argnums:
            n = len(args)
            idx = sorted({i % n for i in self.static_argnums if -n <= i < n})
            static_pos = tuple((i, args[i]) for i in idx)
            args = tuple(a for i, a in enumerate(args) if i not in idx)
        if kwargs and self.static_argnames:
            static_named = tuple(sorted((k, v) for k, v in kwargs.items()
                                        if k in self.static_argnames))
            kwargs = {k: v for k, v in kwargs.items() if k not in self.static_argnames}
        flat, in_tree = tree_flatten((args, kwargs) if kwargs else args)
        # Arrays over several devices (chapter 16) bring their layouts: part of the signature.
        shardings = tuple([x._sharding if type(x) is Array else None for x in flat])
        try:
            avals = tuple(map(get_aval, flat))
        except OverflowError as e:          # a Python int beyond int32: JAX names its argument
            raise jnp.jit_argument_overflow(self.fun, *given, self.static_argnames, e) from None
        key = (static_pos, static_named, in_tree, bool(kwargs), avals,
               shardings if any(shardings) else (), tuple(signature_context.items()))
        try:
            hash(key)
        except TypeError as e:
            bad = next((v for _, v in static_pos + static_named if not _hashable(v)), None)
            if bad is None:                     # not a static argument: some other part
                raise TypeError(f"jit could not hash the signature of this call: {e}") from None
            raise ValueError("Non-hashable static arguments are not supported. An error occurred "
                             f"while trying to hash an object of type {type(bad)}, {bad!r}. The "
                             f"error was:\nTypeError: {e}") from None
        return key, flat

    def _traced(self, key) -> _CacheEntry:
        """The jaxpr for a signature: from the cache, or traced now."""
        entry = self._cache.get(key)
        if entry is not None:
            return entry
        static_pos, static_named, in_tree, has_kwargs, avals = key[:5]
        out_trees, result_names = [], []

        def flat_fun(*flat):
            dynamic = tree_unflatten(in_tree, flat)
            args, kwargs = dynamic if has_kwargs else (dynamic, {})
            args = list(args)
            for i, value in static_pos:
                args.insert(i, value)
            out = self.fun(*args, **kwargs, **dict(static_named))
            paths_and_leaves, out_tree = tree_flatten_with_path(out)
            out_trees.append(out_tree)
            result_names.extend(_result_name(path) for path, _ in paths_and_leaves)
            return [leaf for _, leaf in paths_and_leaves]

        after = [watch(self, key) for watch in trace_watchers]
        trace = JitTrace(self.name, _where(self.fun))
        tracers = [trace.new_arg(a) for a in avals]
        try:
            with set_current_trace(trace):
                outs = flat_fun(*tracers)
            entry = _CacheEntry(trace.to_jaxpr(tracers, outs), out_trees[0], result_names,
                                donation_rules["vector"](self, key) if self.donate_argnums
                                or self.donate_argnames else ())
        finally:
            trace.invalidate()
        del tracers, outs
        for done in filter(None, after):
            done(trace, entry)
        self.trace_count += 1
        if not any(isinstance(c, Tracer) for c in entry.jaxpr.consts):
            self._cache[key] = entry    # a jaxpr closing over tracers is good for one call only
        return entry

    @api_boundary
    def __call__(self, *args, **kwargs):
        if _jit_disabled:
            return self.fun(*args, **kwargs)
        fast_key = None
        if not kwargs and isinstance(trace_ctx.trace, EvalTrace):
            # The fast path: every argument an array (or a NumPy array, by its shape and
            # dtype), found in the cache by its types (and, for an array over several devices,
            # its layout) alone, and run at once.
            fast_key = tuple([((b := x._buf).aval, b._sharding, b._committed)
                              if type(x) is Array and x._sharding is None
                              else (x.aval, x._sharding) if type(x) is Array
                              else (x.shape, x.dtype) if type(x) is np.ndarray else None
                              for x in args])
            if signature_context:
                fast_key += (tuple(signature_context.items()),)
            last_key, entry = self._fast.last
            if fast_key != last_key:     # (the last call's types are found without hashing)
                entry = self._fast.get(fast_key)
                if entry is not None:
                    self._fast.last = fast_key, entry
            if entry is not None and not call_checks:
                return entry.run(args)
        key, flat = self._signature(args, kwargs)
        entry = self._traced(key)
        if isinstance(trace_ctx.trace, EvalTrace):      # no transformation: just run it
            placement = self._placement(key, entry)
            fast = fast_key is not None and None not in fast_key
            if placement is None and not entry.donated and self.in_shardings is None and (
                    self.out_shardings is None):        # one device: where the data is
                run = _run_where(entry, self, flat, lambda: flat_arg_names(self, args, kwargs))
            else:
                if entry.executable is None:
                    entry.executable = executable_for(entry.jaxpr, self.name,
                                                      entry.result_names, placement,
                                                      entry.donated, None, self.keep_unused)
                run = entry
            if fast:
                self._fast[fast_key] = run
                self._fast.last = fast_key, run
            out = run.run(flat) if fast or run is not entry else tree_unflatten(
                entry.out_tree, entry.executable(*flat))
            for check in call_checks:
                check(self, args, kwargs, out)
            return out
        closed, hoisted = hoist_tracer_consts(entry.jaxpr)
        outs = jit_p.bind(*hoisted, *flat, jaxpr=closed, name=self.name, inline=self.inline)
        return tree_unflatten(entry.out_tree, outs)

    def __get__(self, obj, objtype=None):
        """As a method, bind the instance as the first argument, as a function does."""
        return self if obj is None else types.MethodType(self, obj)

    def _cache_size(self) -> int:
        return len(self._cache)

    def _placement(self, key, entry):
        """Where the program of a signature runs (chapter 16); None: on the default device."""
        rule = placement_rules.get("placement")
        return None if rule is None else rule(self, key, entry)

    @api_boundary
    def trace(self, *args, **kwargs) -> Traced:
        """Stage the call: its jaxpr, ready to be lowered."""
        key, _ = self._signature(args, kwargs)
        return Traced(self, key, self._traced(key), flat_arg_names(self, args, kwargs))

    @api_boundary
    def lower(self, *args, **kwargs) -> Lowered:
        """Stage the call down to StableHLO."""
        return self.trace(*args, **kwargs).lower()


def _frozen(tree):
    """A hashable form of a pytree of shardings (with None leaves): its leaves and structure."""
    leaves, treedef = tree_flatten(tree, is_leaf=lambda x: x is None)
    return tuple(leaves), treedef


def flatten_prefix(what: str, prefix, treedef, whose: str, api: str = "jit") -> list:
    """One entry per leaf of `treedef`, from `prefix`, a pytree prefix of it."""
    try:
        return broadcast_prefix(prefix, tree_unflatten(treedef, [0] * treedef.num_leaves),
                                is_leaf=lambda x: x is None)
    except ValueError:
        raise ValueError(f"{api}'s {what} must be a pytree prefix of the {whose}: got "
                         f"{prefix!r} for {whose} of structure {treedef}") from None


def _hashable(x) -> bool:
    try:
        hash(x)
        return True
    except TypeError:
        return False


def jit(fun=None, *, in_shardings=None, out_shardings=None, static_argnums=(),
        static_argnames=(), donate_argnums=None, donate_argnames=None, keep_unused=False,
        inline=False):
    """`fun`, traced once per signature, compiled with XLA and cached. Also a decorator:
    `@jit` or `@partial(jit, static_argnums=...)`. The arrays passed as the arguments in
    `donate_argnums` or `donate_argnames` give their buffers to the program's outputs;
    `keep_unused` keeps the inputs the program does not read; `inline`, as `jit_p`'s."""
    if fun is None:
        return lambda f: jit(f, in_shardings=in_shardings, out_shardings=out_shardings,
                             static_argnums=static_argnums, static_argnames=static_argnames,
                             donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                             keep_unused=keep_unused, inline=inline)
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun!r}")
    nums, names = ((), ()) if donate_argnums is None and donate_argnames is None else \
        donation_rules["params"](fun, donate_argnums, donate_argnames)
    jitted = Jitted(fun, static_argnums, static_argnames, in_shardings, out_shardings, nums,
                    names, keep_unused, inline)
    if both := set(names) & jitted.static_argnames:
        raise ValueError(f"static_argnames and donate_argnames cannot intersect. Argument names "
                         f"{both} appear in both static_argnames and donate_argnames")
    return jitted


def _apply_disable_jit(value):
    global _jit_disabled
    _jit_disabled = bool(value)
    return _jit_disabled


def jit_disabled() -> bool:
    """Whether `disable_jit` is in force (appendix A22 asks at each eager NumPy call)."""
    return _jit_disabled


config.define("jax_disable_jit", False, _apply_disable_jit)


@contextlib.contextmanager
def disable_jit(disable: bool = True):
    """`with disable_jit():` runs every jitted function as plain Python inside the block."""
    previous = config.jax_disable_jit
    config.update("jax_disable_jit", disable)
    try:
        yield
    finally:
        config.update("jax_disable_jit", previous)


class Traced:
    """A jitted call, traced: `.jaxpr`, and `.lower()`."""

    def __init__(self, jitted, key, entry, arg_names):
        self.jitted, self.key, self.jaxpr, self.out_tree = jitted, key, entry.jaxpr, entry.out_tree
        self.arg_names = arg_names
        self.result_names, self.donated = entry.result_names, entry.donated
        self.placement = jitted._placement(key, entry)

    def lower(self) -> Lowered:
        return Lowered(self)


class Lowered:
    """A jitted call, lowered to StableHLO: `.as_text()`, and `.compile()`."""

    def __init__(self, traced: Traced):
        self.traced = traced
        keep = traced.jitted.keep_unused or traced.placement is not None
        self.program, self.donated, self.kept_var_idx = pruned(traced.jaxpr, traced.donated, keep)
        self._text = lower_to_text(self.program, traced.jitted.name, traced.result_names,
                                   traced.placement, self.donated)

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
        if dialect in (None, "stablehlo"):
            return self._text
        if dialect not in text_dialects:       # "hlo": appendix A32
            raise ValueError(f"unknown dialect: {dialect}")
        return text_dialects[dialect](self, debug_info)

    def compile(self) -> Compiled:
        t = self.traced
        if t.placement is not None:
            return Compiled(t, t.placement.compile(self._text, t.jaxpr.out_avals))
        return Compiled(t, with_kept(compile_or_get_cached(self._text, default_device(),
                                                           t.jaxpr.out_avals), self.kept_var_idx))


class Compiled:
    """A jitted call, compiled: callable, with `.as_text()` and `.cost_analysis()`."""

    def __init__(self, traced: Traced, executable):
        self.traced, self.executable = traced, executable

    def as_text(self) -> str:
        return self.executable.as_text()

    def cost_analysis(self) -> dict:
        return self.executable.cost_analysis()

    def memory_analysis(self):
        """XLA's account of the program's buffers, as JAX's: `argument_size_in_bytes`,
        `output_size_in_bytes`, `alias_size_in_bytes`, `temp_size_in_bytes`..."""
        return self.executable.loaded.get_compiled_memory_stats()

    @api_boundary
    def __call__(self, *args, **kwargs):      # the dynamic arguments only
        t = self.traced
        flat, tree = tree_flatten((args, kwargs) if kwargs or t.key[3] else args)
        if tree != t.key[2]:
            raise TypeError("Function compiled with input pytree does not match the input pytree"
                            f" it was called with: {tree}, compiled for {t.key[2]}")
        for check in compiled_checks:     # A21: no tracers, and the types, in JAX's words
            check(t.arg_names, t.key[4], flat)
        return tree_unflatten(t.out_tree, self.executable(*flat))


def _jit_jvp(primals, tangents, *, jaxpr, name, inline):
    nonzero = tuple(type(t) is not Zero for t in tangents)
    nz_tangents = [t for t in tangents if type(t) is not Zero]
    avals = tuple(get_aval(x) for x in (*primals, *nz_tangents))
    jvp_jaxpr, out_nonzero = _jvp_jaxpr(jaxpr, nonzero, avals)
    outs = jit_p.bind(*primals, *nz_tangents, jaxpr=jvp_jaxpr, name=name, inline=inline)
    n = len(jaxpr.out_avals)
    rest = iter(outs[n:])
    return outs[:n], [next(rest) if nz else Zero(tangent_aval(a))
                      for nz, a in zip(out_nonzero, jaxpr.out_avals)]


@weakref_lru_cache
def _jvp_jaxpr(jaxpr, nonzero, avals):
    """`jaxpr`'s JVP at `avals` (primals, nonzero tangents); which output tangents are nonzero."""
    out_nonzero = []

    def jvp_of_jaxpr(*args):
        ps, ts = args[:len(nonzero)], iter(args[len(nonzero):])
        tans = [next(ts) if nz else Zero(tangent_aval(get_aval(p))) for p, nz in zip(ps, nonzero)]
        outs, out_tans = jvp_flat(jaxpr_as_fun(jaxpr), ps, tans, instantiate=False)
        out_nonzero[:] = [type(t) is not Zero for t in out_tans]
        return list(outs) + [t for t in out_tans if type(t) is not Zero]

    return trace_to_jaxpr(jvp_of_jaxpr, list(avals)), tuple(out_nonzero)


def _jit_batching_rule(axis_data, vals, dims, *, jaxpr, name, inline):
    batched_jaxpr, out_dims = _batched_jaxpr(jaxpr, axis_data, tuple(dims),
                                             tuple(get_aval(v) for v in vals))
    return jit_p.bind(*vals, jaxpr=batched_jaxpr, name=name, inline=inline), list(out_dims)


@weakref_lru_cache
def _batched_jaxpr(jaxpr, axis_data, dims, avals):
    """`jaxpr` batched along `axis_data` at `dims`, its outputs batched along 0 (or not)."""
    out_dims = []

    def batched(*args):
        outs, dims_out = batch(jaxpr_as_fun(jaxpr), axis_data.size, dims, args)
        out_dims[:] = [None if d is None else 0 for d in dims_out]
        return [o if d is None else moveaxis(o, d, 0) for o, d in zip(outs, dims_out)]

    return trace_to_jaxpr(batched, list(avals)), tuple(out_dims)


jvp_rules[jit_p] = _jit_jvp
fancy_batching_rules[jit_p] = _jit_batching_rule
