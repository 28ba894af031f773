# Generated from chapters/07_runtime.md by `make export`: edit the chapter, not this file.


"""PJRT: devices, device arrays, compiling and running StableHLO, caches, eager evaluation."""
from __future__ import annotations

import math
import os

import numpy as np
from jaxlib import xla_client as xc
from jaxlib._jax import guard_lib
from jaxlib.version import __version__ as jaxlib_version

from autodidax import core
from autodidax.compilation_cache import (  # noqa: F401 (some are re-exported)
    backend_compile, cache_stats, compile_options, get_cache_dir, load_or_compile, result_types,
    set_cache_dir, set_cache_max_size)
from autodidax.core import ShapedArray, Tracer, api_boundary, get_aval
from autodidax.jaxpr import clear_weakref_caches, trace_to_jaxpr
from autodidax.lowering import lower_jaxpr_to_module, lowering_rules, module_to_text
from autodidax.plugins import find_cuda_plugin, make_cuda_client  # noqa: F401 (appendix A5)
from autodidax.tree_util import tree_leaves, tree_map


cpu_client_options: dict = {}   # `make_cpu_client`'s keywords, set by chapter 16 and appendix A7


def make_cpu_client():
    return xc.make_cpu_client(**cpu_client_options)


backend_factories = {"cpu": make_cpu_client, "cuda": make_cuda_client}
_PLATFORM_ALIASES = {"gpu": "cuda"}
backend_clients: dict = {}     # platform -> client, made on first use
_default_platform = "cpu"      # changed by `config.update("jax_platforms", ...)`, below


def default_backend() -> str:
    return _default_platform


def get_backend(platform: str | None = None):
    """The PJRT client of `platform` ("cpu", "gpu" or "cuda"; default: the default backend)."""
    if platform is not None and not isinstance(platform, str):
        return platform                                 # a client already
    name = _PLATFORM_ALIASES.get(platform, platform) if platform else default_backend()
    client = backend_clients.get(name)
    if client is not None:
        return client
    factory = backend_factories.get(name)
    if factory is None:
        known = ", ".join(repr(k) for k in [*backend_factories, *_PLATFORM_ALIASES])
        raise RuntimeError(f"Unknown backend {platform!r}: autodidax knows {known}")
    try:
        client = factory()
    except Exception as e:
        raise RuntimeError(f"The {name} backend failed to start: {e}") from e
    if client is None:
        raise RuntimeError(
            f"Backend {platform!r} is not available: no CUDA PJRT plugin is installed. On a "
            f"machine with an NVIDIA GPU, `pip install jax-cuda12-pjrt=={jaxlib_version}` (or "
            "jax-cuda13-pjrt) installs one. Available here: 'cpu'.")
    backend_clients[name] = client
    return client


def backends() -> dict:
    """Every backend that starts on this machine, by platform name."""
    for name in backend_factories:
        try:
            get_backend(name)
        except RuntimeError:
            pass
    return dict(backend_clients)


@api_boundary
def devices(backend=None) -> list:
    """The devices of `backend` (a name or a client; None: the default), in every process (A7)."""
    return get_backend(backend).devices()


def local_devices(process_index=None, backend=None) -> list:
    """The devices this process (or process `process_index`) can put arrays on."""
    client = get_backend(backend)
    index = client.process_index() if process_index is None else process_index
    if not 0 <= index < process_count(client):
        raise ValueError(f"Unknown process_index {index}")     # JAX's words
    return [d for d in client.devices() if d.process_index == index]


def process_index(backend=None) -> int:
    return get_backend(backend).process_index()


def process_count(backend=None) -> int:
    return max(d.process_index for d in get_backend(backend).devices()) + 1


def device_count(backend=None) -> int:
    return len(devices(backend))


def local_device_count(backend=None) -> int:
    return len(local_devices(backend=backend))


_default_device = []


def default_device():
    """Where arrays and programs go when none is named: the default backend's first local device."""
    if not _default_device:
        _default_device.append(local_devices()[0])
    return _default_device[0]


multi_device_rules: dict = {}    # "value" | "put" | "addressable_shards" -> chapter 16's rules


class Array(core.Array):
    """An array in a device's memory (a PJRT buffer), copied to the host on first use, and kept."""
    __slots__ = ("_buf", "_npy", "_sharding")

    def __init__(self, buf, sharding=None):
        self._buf, self._npy, self._sharding = buf, None, sharding

    @property
    def _value(self) -> np.ndarray:
        return self.__array__()

    def __array__(self, dtype=None, copy=None):     # a hot path: kept short
        value = self._npy
        if value is None:
            if self._sharding is None:
                try:
                    value = np.asarray(self._buf)       # on the CPU, a read-only view, in C++
                except RuntimeError:                    # deleted: jaxlib's words, not JAX's
                    value = None
                if value is None or value.dtype.kind == "O":   # (or NumPy wraps the object)
                    self._check_if_deleted()            # deleted, or its computation failed:
                    value = self._buf._single_device_array_to_np_array_did_copy()[0]  # its error
            else:
                value = multi_device_rules["value"](self)
            self._npy = value
        if copy:
            return np.array(value, dtype=dtype)
        return value if dtype is None else value.astype(dtype)

    aval = property(lambda self: self._buf.aval)
    weak_type = property(lambda self: self._buf.aval.weak_type)
    shape = property(lambda self: self._buf.aval.shape)
    dtype = property(lambda self: self._buf.aval.dtype)
    ndim = property(lambda self: len(self._buf.aval.shape))
    size = property(lambda self: self._buf.aval.size)
    addressable_shards = property(lambda self: multi_device_rules["addressable_shards"](self))
    committed = property(lambda self: self._buf._committed)   # put on a device named: "Eager"

    @property
    def device(self):
        """The device the array is on (over several devices: its sharding, chapter 16)."""
        if self._sharding is None:
            return self._buf._sharding._internal_device_list[0]
        devs = self._sharding.device_set
        return next(iter(devs)) if len(devs) == 1 else self._sharding

    def devices(self) -> set:
        return {self.device} if self._sharding is None else set(self._sharding.device_set)

    def block_until_ready(self) -> Array:
        """Wait until the computation that makes this array has finished."""
        self._check_if_deleted()
        self._buf.block_until_ready()
        return self

    def is_ready(self) -> bool:
        return self._buf.is_ready()

    def delete(self) -> None:
        """Free the array's device memory now; using the array afterwards is an error."""
        self._buf.delete()
        self._npy = None

    def is_deleted(self) -> bool:
        return self._buf.is_deleted()

    def unsafe_buffer_pointer(self) -> int:     # the device buffer's address, as JAX's
        return self._buf.unsafe_buffer_pointer()

    def _check_if_deleted(self) -> None:
        if self._buf.is_deleted():               # JAX's words
            shape = ",".join(map(str, self.shape))
            raise RuntimeError(f"Array has been deleted with shape={self.dtype.name}[{shape}].")


# Chapter 1's arrays, which hold NumPy values, live on the host: this process's first CPU device.
core.array_placement_rules.update(device=lambda array: local_devices(backend="cpu")[0])


_placements: dict = {}     # device -> (sharding, [device]), made once per device


def placement_of(device):
    p = _placements.get(device)
    if p is None:
        p = _placements[device] = (xc.GSPMDSharding((device,), xc.OpSharding()), [device])
    return p


def _immutable(value: np.ndarray) -> bool:
    """Whether nobody can write `value`'s memory: it and every array it views are read-only."""
    while isinstance(value, np.ndarray):
        if value.flags.writeable:
            return False
        if value.base is None:
            return True
        value = value.base
    return False                # memory of some other object: not ours to trust


def _dense(x: np.ndarray, dtype) -> np.ndarray:
    """`x` as PJRT takes it: of `dtype` (float64 made float32, as JAX does), C-contiguous."""
    return x if x.dtype == dtype and x.flags.c_contiguous else np.ascontiguousarray(x, dtype)


def host_value(x):
    """(aval, value, owned: no one else can write it) of a host array, a NumPy array or a scalar."""
    if type(x) is np.ndarray:        # the common case, first
        aval = get_aval(x)
        value = _dense(x, aval.dtype)
        return aval, value, value is not x or _immutable(x)
    if isinstance(x, core.Array):
        aval, value = x.aval, x._value
        owned = _immutable(value)
        if not value.flags.c_contiguous:        # e.g. a broadcast view: PJRT wants it dense
            value, owned = np.ascontiguousarray(value), True
    else:
        aval = get_aval(x)      # says clearly what it does not accept
        value = np.asarray(x)
        owned = value is not x and not isinstance(x, np.ndarray)   # made just now, by asarray
        if value.dtype != aval.dtype:
            value, owned = value.astype(aval.dtype), True
        owned = owned or _immutable(value)
        if not value.flags.c_contiguous:
            value, owned = np.ascontiguousarray(value), True
    return aval, value, owned


def _put(x, device, committed=True) -> Array:
    if type(x) is Array and x._sharding is None:
        if x.device == device and (x._buf._committed or not committed):
            return x
        if x.device.client is device.client:       # device to device, or committed in place
            sharding = placement_of(device)[0]
            buf, = xc.batched_copy_array_to_devices_with_sharding(
                [x._buf], [sharding._internal_device_list], [sharding], [_REUSE])
            if committed and not buf._committed:     # (PJRT's copy is not committed)
                buf = xc.ArrayImpl(buf.aval, sharding, [buf], True, _skip_checks=True)
            return Array(buf)
    if type(x) is Array:
        x = core.Array(x._value, x.weak_type)   # to another client, or sharded: by the host
    if isinstance(x, Tracer):   # under a transformation, placement is not part of the program
        if not x._trace.is_valid():          # unless the tracer leaked from a finished one
            raise core.escaped_tracer_error(x, " in device_put")
        return x
    aval, value, owned = host_value(x)
    sharding, devs = placement_of(device)
    # (committed, copy, host buffer semantics, enable_x64), by position ("How fast?")
    return Array(xc.batched_device_put(aval, sharding, [value], devs, committed, not owned,
                                       _ZERO_COPY, True))


_ZERO_COPY = xc.HostBufferSemantics.ZERO_COPY   # share host memory where PJRT can
_REUSE = xc.ArrayCopySemantics.REUSE_INPUT       # on the same device: no copy


@api_boundary
def device_put(x, device=None):
    """`x`, an array or a pytree of arrays, NumPy arrays and scalars, on `device` (default: the
    default device), or laid out as a sharding of chapter 16 says. The result never shares
    memory that someone can still write. Put on a device named, it is *committed* to it."""
    committed, device = device is not None, default_device() if device is None else device
    guard = guard_lib.thread_local_state()        # explicit, for A25's `transfer_guard`
    explicit, guard.explicit_device_put = guard.explicit_device_put, True
    try:
        if not isinstance(device, xc.Device):
            return multi_device_rules["put"](x, device)      # a sharding, or a partition spec
        if isinstance(x, (np.ndarray, core.Array, int, float, bool, complex)):
            return _put(x, device, committed)
        return tree_map(lambda leaf: _put(leaf, device, committed), x)
    finally:
        guard.explicit_device_put = explicit


class Executable:
    """A program loaded on one device: call it on arrays (or what `device_put` takes) for arrays."""
    __slots__ = ("loaded", "device", "out_avals", "_handlers")

    def __init__(self, loaded, device, out_avals=None, text=None, **options):
        self.loaded, self.device = loaded, device
        self.out_avals = (list(out_avals) if out_avals is not None
                          else [ShapedArray(*t) for t in result_types(loaded)])
        self._handlers = self._result_handlers()

    def _result_handlers(self) -> list:
        sharding = placement_of(self.device)[0]
        return [xc.array_result_handler(a, sharding, True, True) for a in self.out_avals]

    def run_arrays(self, args, avals) -> list[Array]:
        """`self(*args)` for args of types `avals`, checked (chapter 8): arrays, or NumPy arrays."""
        if type(self) is not Executable:       # a kind of a later chapter: the general call
            return self(*args)
        return self._execute([x._buf if type(x) is Array else self._put_copy(x, aval)
                              for x, aval in zip(args, avals)], args)

    def _put_copy(self, x, aval):
        """A NumPy array put on the device, copied (by jaxlib, whatever its strides)."""
        sharding, devs = placement_of(self.device)
        aval = aval.update(dtype=np.dtype(bool)) if aval.dtype.names else aval   # float0: bools
        value = x if x.dtype is aval.dtype else x.astype(aval.dtype)
        return xc.batched_device_put(aval, sharding, [value], devs, True, True, _ZERO_COPY, True)

    def __call__(self, *args) -> list[Array]:
        device = self.device
        return self._execute([x._buf if type(x) is Array else _put(x, device)._buf
                              for x in args], args)

    def _execute(self, bufs, args) -> list[Array]:
        """Run on `bufs`, the buffers of `args`; the results as arrays."""
        try:
            results = self.loaded.execute_sharded(bufs)
        except xc.XlaRuntimeError as e:
            raise self._call_error(args, e) from None
        return list(map(Array, results.consume_with_handlers(self._handlers)))

    def _call_error(self, args, e) -> Exception:
        for x in args:
            if type(x) is Array and x._buf.is_deleted():
                try:
                    x._check_if_deleted()
                except RuntimeError as deleted:
                    return deleted
        for i, x in enumerate(args):
            if type(x) is Array and x.device != self.device:
                return ValueError(f"argument {i} is on {x.device}, but this program was "
                                  f"compiled for {self.device}: device_put it there first")
        return e

    def as_text(self) -> str:
        """The optimised HLO that XLA made of the program."""
        return "\n".join(m.to_string() for m in self.loaded.hlo_modules())

    def cost_analysis(self) -> dict:
        """XLA's estimates: flops, transcendentals, bytes accessed, ..."""
        return self.loaded.cost_analysis()

    def __repr__(self):
        types = ", ".join(a.str_short() for a in self.out_avals)
        return f"Executable({self.loaded.hlo_modules()[0].name} on {self.device} -> {types})"


executable_kinds: dict = {}    # name -> a later chapter's subclass, with `applies(text, options)`
_combined_kinds: dict = {}     # a tuple of kinds -> the class made of them


def executable_class(text, options: dict) -> type:
    """`Executable`, or the `executable_kinds` applying to `text` and `options`, joined in order."""
    kinds = tuple(k for k in executable_kinds.values() if k.applies(text, options))
    if len(kinds) <= 1:
        return kinds[0] if kinds else Executable
    cls = _combined_kinds.get(kinds)
    if cls is None:
        cls = _combined_kinds[kinds] = type("Executable", kinds, {})
    return cls


_executables: dict = {}        # (text, device, out_avals, ...) -> Executable


def compile_or_get_cached(text, device=None, out_avals=None, **options) -> Executable:
    """The executable of StableHLO `text` (or an MLIR module) on `device`: from memory, from the
    persistent cache, or compiled, in that order. `out_avals`: the results' avals, weak types
    included (default: read from the program). `options`: for later chapters' kinds."""
    if not isinstance(text, str):
        text = module_to_text(text)
    device = default_device() if device is None else device
    # The options that are functions (chapter 16's) follow from the others: not in the key.
    key = (text, device, None if out_avals is None else tuple(out_avals),
           getattr(text, "host_callbacks", ()),
           tuple((k, tuple(v) if isinstance(v, list) else v)
                 for k, v in sorted(options.items()) if not callable(v)))
    exe = _executables.get(key)
    if exe is not None:
        cache_stats["memory_hits"] += 1
        return exe
    cls = executable_class(text, options)
    exe = _executables[key] = cls(load_or_compile(text, device), device, out_avals, text, **options)
    return exe


def clear_caches() -> None:
    """Forget the programs compiled and the jaxprs derived in this process, and whatever the
    functions in `cache_clearers` forget (chapter 8: jit's traced functions), as
    `jax.clear_caches()`. The persistent cache is left as it is."""
    _executables.clear()
    _dispatch_cache.clear()
    _scalar_buffers.clear()
    clear_weakref_caches()
    for clear in cache_clearers:
        clear()


cache_clearers: list = []      # functions of later chapters that empty their caches


_dispatch_cache: dict = {}     # (primitive, params, placement, committed, *avals) -> EagerCall
_scalar_buffers: dict = {}     # (value's key, placement) -> the buffer of a constant scalar
evaluated_by_impl, arg_type_rules = set(), {}  # run by the impl rule: 13-17; A30's refs' rules


def one_equation_jaxpr(primitive, params, avals):
    """`primitive` with `params`, alone in a closed jaxpr for inputs of types `avals`."""
    def one_equation(*xs):
        out = primitive.bind(*xs, **params)
        return list(out) if primitive.multiple_results else [out]
    return trace_to_jaxpr(one_equation, avals)


def xla_primitive_executable(primitive, params, avals, device) -> Executable:
    """`primitive` with `params`, alone in a program for inputs of types `avals`, compiled."""
    closed = one_equation_jaxpr(primitive, params, avals)
    return compile_or_get_cached(module_to_text(lower_jaxpr_to_module(closed)), device,
                                 closed.out_avals)


class EagerCall:
    """A cached eager call: an executable, and its results' handlers for inputs on the device
    of `placement` (committed or not). Chapter 8 makes them for jitted NumPy functions too."""
    __slots__ = ("executable", "execute", "handlers")

    def __init__(self, exe, placement, committed):
        self.executable, self.execute = exe, exe.loaded.execute_sharded
        self.handlers = [xc.array_result_handler(a, placement, committed, True)
                         for a in exe.out_avals]


def mixed_devices_error(primitive, first, other, names=None) -> ValueError:
    """JAX's error for committed arguments on two devices; `first`, `other`: (position, array);
    `names`: the arguments' names (default: `args[i]`)."""
    def describe(i, x):
        shape = ",".join(map(str, x.shape))
        name = f"args[{i}]" if names is None else names[i]
        return (f"argument {name} of {primitive} with shape {x.dtype.name}[{shape}] and with "
                f"device ids [{x.device.id}] on platform {x.device.platform.upper()}")
    return ValueError("Received incompatible devices for jitted computation. Got "
                      f"{describe(*first)} and {describe(*other)}")


def committed_device(args, name, names=None):
    """The device of the committed one-device arrays among `args` (None: there are none), or
    JAX's error if they are on two; `name`: the call's, `names()`: its arguments' names."""
    first, device = None, None
    for i, x in enumerate(args):
        if type(x) is Array and x._sharding is None and x._buf._committed:
            if first is None:
                first, device = (i, x), x.device
            elif x.device != device:
                raise mixed_devices_error(name, first, (i, x), names and names())
    return device


class XlaEvalTrace(core.EvalTrace):
    """Evaluates each primitive as its own compiled program, on the device of its committed
    arguments, else on `device` (None: the default device), as JAX's `apply_primitive`."""

    def __init__(self, device=None):
        self.device = device
        self._placement = None if device is None else placement_of(device)[0]

    def process_primitive(self, primitive, args, params):
        bufs, placement, committed, scalars = [], None, False, False
        for x in args:         # the fast path: one-device arrays all on one device, and scalars
            if type(x) is Array and x._sharding is None:
                buf = x._buf
                if buf.is_deleted():          # JAX's RuntimeError, before PJRT logs its own
                    x._check_if_deleted()
                if placement is None:
                    placement = buf._sharding
                elif buf._sharding is not placement:
                    return self.place_args(primitive, args, params)
                committed = committed or buf._committed
            elif type(x) in _SCALARS:
                buf = scalars = None          # found once the placement is known
            else:
                return self.place_args(primitive, args, params)
            bufs.append(buf)
        if placement is None or not (committed or self._placement in (None, placement)):
            return self.place_args(primitive, args, params)
        if scalars is None:
            bufs = [constant_buffer(x, placement) if b is None else b for b, x in zip(bufs, args)]
        return self.run(primitive, params, bufs, placement, committed, args)

    def place_args(self, primitive, args, params):
        """Every other call: where it runs, its arguments put there, then `run`."""
        if boxes := [x for x in args if type(x) in arg_type_rules]:     # a ref (A30): its rule
            return arg_type_rules[type(boxes[0])](primitive, args, params)
        if not through_xla(primitive) or any(isinstance(x, Tracer) or get_aval(x).dtype.names
                                             for x in args):         # (float0: NumPy's zeros)
            return super().process_primitive(primitive, args, params)   # (or the tracer's error)
        if any(type(x) is Array and x._sharding is not None for x in args):
            rule = multi_device_rules.get("eager", _numpy_eval_trace.process_primitive)
            return rule(primitive, args, params)       # over several devices: chapter 16
        device = committed_device(args, primitive)
        committed, device = device is not None, device or self.device or default_device()
        placement = placement_of(device)[0]
        bufs = [constant_buffer(x, placement) if type(x) in _SCALARS
                else _put(x, device, committed=False)._buf for x in args]
        return self.run(primitive, params, bufs, placement, committed, args)

    def run(self, primitive, params, bufs, placement, committed, args):
        """Run `primitive` on `bufs`, the buffers of `args`, all on the device of `placement`."""
        key = (primitive, tuple(params.items()), placement, committed, *[b.aval for b in bufs])
        try:
            call, keep = _dispatch_cache.get(key), True
        except TypeError:                       # unhashable parameters: compiled, not kept
            call, keep = None, False
        if call is None:
            if not through_xla(primitive):
                return super().process_primitive(primitive, args, params)
            exe = xla_primitive_executable(primitive, params, key[4:],
                                           placement._internal_device_list[0])
            call = EagerCall(exe, placement, committed)
            if keep:
                if len(_dispatch_cache) >= 4096:     # bounded, as JAX's (its `util.cache`)
                    del _dispatch_cache[next(iter(_dispatch_cache))]       # the oldest
                _dispatch_cache[key] = call
        else:
            cache_stats["dispatch_hits"] += 1
        if type(call.executable) is not Executable:     # a later chapter's kind: its own call
            outs = call.executable._execute(bufs, args)  # (chapter 15's tokens, callbacks)
            return outs if primitive.multiple_results else outs[0]
        try:
            outs = call.execute(bufs).consume_with_handlers(call.handlers)
        except (xc.XlaRuntimeError, ValueError) as e:    # (a deleted buffer: ValueError)
            raise call.executable._call_error(args, e) from None
        return list(map(Array, outs)) if primitive.multiple_results else Array(outs[0])


_SCALARS = {core.LiteralArray, float, int, bool, complex}    # constants: a `2.0`, a `1`


def through_xla(primitive) -> bool:
    """Whether eager evaluation compiles `primitive`: one of the package's, with a lowering and
    an impl rule of NumPy's or the package's (a stand-in for XLA); not one in `evaluated_by_impl`,
    nor a primitive of yours, whose impl rule is yours."""
    impl = core.impl_rules.get(primitive)
    module = getattr(impl, "__module__", None) or getattr(getattr(impl, "func", None),
                                                          "__module__", None) or ""
    return (primitive in lowering_rules and primitive not in evaluated_by_impl
            and module.partition(".")[0] in ("autodidax", "numpy"))


def constant_buffer(x, placement):
    """A constant's buffer on the device of `placement`, uncommitted: a scalar's, put there
    once; any other's (a host array, ours or NumPy's, a key), put there now."""
    if type(x) is core.LiteralArray:
        key = (x.aval, x._value.tobytes(), placement)
    elif type(x) in (float, int, bool, complex):   # by type and value (and signs of 0.0)
        key = (type(x), x, math.copysign(1, x.real), math.copysign(1, x.imag), placement)
    else:
        return _put(x, placement._internal_device_list[0], committed=False)._buf
    buf = _scalar_buffers.get(key)
    if buf is None:
        if len(_scalar_buffers) >= 1024:
            _scalar_buffers.clear()
        device = placement._internal_device_list[0]
        buf = _scalar_buffers[key] = _put(x, device, committed=False)._buf
    return buf


_numpy_eval_trace = core.eval_trace


def _eval_trace_for(mode, device=None):
    if isinstance(mode, core.Trace):
        return mode
    if mode == "numpy":
        return _numpy_eval_trace
    if mode == "xla":
        return XlaEvalTrace(device)
    raise ValueError(f"eager mode must be 'numpy' or 'xla', got {mode!r}")


def set_eager_mode(mode: str, device=None) -> str:
    """Run eager primitives by XLA ("xla") or NumPy ("numpy") from now on; return the old mode."""
    previous = core.set_eval_trace(_eval_trace_for(mode, device))
    return "xla" if isinstance(previous, XlaEvalTrace) else "numpy"


class eager_mode:
    """`with eager_mode("numpy"):` evaluates primitives with NumPy inside the block; the mode
    may also be "xla" (on a `device`), or an evaluation trace of your own."""

    def __init__(self, mode="xla", device=None):
        self.trace = _eval_trace_for(mode, device)

    def __enter__(self):
        self.previous = core.set_eval_trace(self.trace)
        return self.trace

    def __exit__(self, *exc):
        core.set_eval_trace(self.previous)


set_eager_mode("xla")          # JAX's design, from this chapter on


class Config:
    """Global settings, as `jax.config`: read `config.name`, change with `config.update`."""
    x64_enabled = property(lambda self: self._values["jax_enable_x64"])     # as JAX's

    def __init__(self):
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_appliers", {})

    def define(self, name: str, default, apply=None) -> None:
        """Add an option, read from the environment variable `NAME` if it is set. `apply(value)`
        puts a new value into effect (or raises) and returns the value to store."""
        self._values[name], self._appliers[name] = default, apply
        if (text := os.environ.get(name.upper())) is not None:
            self.update(name, _from_text(text, default))

    def update(self, name: str, value) -> None:
        if name not in self._values:
            raise AttributeError(f"Unrecognized config option: {name}")
        apply = self._appliers[name]
        self._values[name] = value if apply is None else apply(value)

    def __getattr__(self, name):
        values = self.__dict__.get("_values", {})
        if name not in values:
            raise AttributeError(f"'Config' object has no attribute {name!r}")
        return values[name]

    def __setattr__(self, name, value):
        raise AttributeError(f"set options with config.update({name!r}, value), as in JAX")


def _from_text(text: str, default):
    """An option's value from its environment variable, typed like its default (JAX's)."""
    if isinstance(default, bool):
        if text.lower() not in "y yes t true on 1 n no f false off 0".split():
            raise ValueError(f"invalid truth value {text!r}")
        return text.lower() in ("y", "yes", "t", "true", "on", "1")
    return text if default is None else type(default)(text)


config = Config()


def _apply_platforms(value):
    global _default_platform
    platforms = [p.strip() for p in (value or "cpu").split(",") if p.strip()] or ["cpu"]
    for platform in set(platforms) - {"cpu"}:   # (the CPU always starts: not yet, for its options)
        get_backend(platform)      # one that cannot start raises here, saying why
    _default_platform = _PLATFORM_ALIASES.get(platforms[0], platforms[0])
    _default_device.clear()
    return value


def _apply_x64(value):
    core.set_x64(bool(value))
    clear_caches()        # programs traced in the other mode typed their Python scalars so
    return bool(value)


def _apply_cache_max_size(value):
    set_cache_max_size(value)
    return int(value)


def _apply_cache_dir(value):
    set_cache_dir(value)
    return value


config.define("jax_platforms", None, _apply_platforms)
config.define("jax_platform_name", None, _apply_platforms)
config.define("jax_compilation_cache_dir", None, _apply_cache_dir)
config.define("jax_compilation_cache_max_size", 2 ** 30, _apply_cache_max_size)
config.define("jax_enable_x64", False, _apply_x64)


def block_until_ready(tree):
    """Wait until every device array in `tree` is computed; return `tree`."""
    for leaf in tree_leaves(tree):
        if isinstance(leaf, Array):
            leaf.block_until_ready()
    return tree


def device_get(tree):
    """`tree` with every array replaced by its value on the host, a NumPy array."""
    guard = guard_lib.thread_local_state()        # explicit, for A25's `transfer_guard`
    explicit, guard.explicit_device_get = guard.explicit_device_get, True
    try:
        return tree_map(lambda x: np.asarray(x) if isinstance(x, core.Array) else x, tree)
    finally:
        guard.explicit_device_get = explicit
