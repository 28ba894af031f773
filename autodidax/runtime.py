# Generated from chapters/07_runtime.md by `make export`: edit the chapter, not this file.


"""The PJRT runtime: backends and devices, device arrays, compiling StableHLO and running it,
the compilation caches, and eager evaluation op by op on a device."""
from __future__ import annotations

import functools
import re
import sys

import numpy as np
from jaxlib import xla_client as xc
from jaxlib.version import __version__ as jaxlib_version

from autodidax import core
from autodidax.compilation_cache import (  # noqa: F401 (some are re-exported)
    backend_compile, cache_stats, compile_options, get_cache_dir, hlo_shardings, load_or_compile,
    set_cache_dir, set_cache_max_size)
from autodidax.core import ShapedArray, Tracer, api_boundary, get_aval
from autodidax.jaxpr import clear_weakref_caches, trace_to_jaxpr
from autodidax.lowering import lower_jaxpr_to_module, module_to_text
from autodidax.plugins import find_cuda_plugin, make_cuda_client  # noqa: F401 (appendix A5)
from autodidax.tree_util import tree_leaves, tree_map


# Keyword arguments of `make_cpu_client`: `num_devices` from `config.jax_num_cpu_devices`, and
# what joins the CPU client to other processes (chapter 16's `jax.distributed.initialize`).
cpu_client_options: dict = {}


def make_cpu_client():
    return xc.make_cpu_client(**cpu_client_options)


backend_factories = {"cpu": make_cpu_client, "cuda": make_cuda_client}
_PLATFORM_ALIASES = {"gpu": "cuda"}
_backends: dict = {}     # platform -> client, made on first use


_default_platform = "cpu"      # changed by `config.update("jax_platforms", ...)`, below


def default_backend() -> str:
    return _default_platform


def get_backend(platform: str | None = None):
    """The PJRT client of `platform` ("cpu", "gpu" or "cuda"; default: the default backend)."""
    if platform is not None and not isinstance(platform, str):
        return platform                                 # a client already
    name = _PLATFORM_ALIASES.get(platform, platform) if platform else default_backend()
    client = _backends.get(name)
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
    _backends[name] = client
    return client


def backends() -> dict:
    """Every backend that starts on this machine, by platform name."""
    for name in backend_factories:
        try:
            get_backend(name)
        except RuntimeError:
            pass
    return dict(_backends)


@api_boundary
def devices(backend=None) -> list:
    """The devices of `backend` (a platform name or a client; default: the default backend),
    in every process of the computation (chapter 16 has several)."""
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
    """The device arrays and programs go to when none is named: the default backend's first
    device in this process."""
    if not _default_device:
        _default_device.append(local_devices()[0])
    return _default_device[0]


class Array(core.Array):
    """An array in a device's memory, holding a PJRT buffer. Its NumPy value is copied to the
    host on first use, and kept. An array over several devices (chapter 16) also holds its
    `sharding`, which says which part of it each device's buffer is."""
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
                    self._check_if_deleted()
            else:
                value = self._gathered()
            self._npy = value
        if copy:
            return np.array(value, dtype=dtype)
        return value if dtype is None else value.astype(dtype)

    def _gathered(self) -> np.ndarray:
        """The value of an array over several devices, read-only (JAX's error if deleted)."""
        self._check_if_deleted()
        value = _gather(self)
        value.flags.writeable = False
        return value

    aval = property(lambda self: self._buf.aval)
    weak_type = property(lambda self: self._buf.aval.weak_type)
    shape = property(lambda self: self._buf.aval.shape)
    dtype = property(lambda self: self._buf.aval.dtype)
    ndim = property(lambda self: len(self._buf.aval.shape))
    size = property(lambda self: self._buf.aval.size)

    @property
    def device(self):
        """The device the array is on; for an array over several devices, its sharding."""
        if self._sharding is None:
            return self._buf._sharding._internal_device_list[0]
        devs = self._sharding.device_set
        return next(iter(devs)) if len(devs) == 1 else self._sharding

    def devices(self) -> set:
        return set(self.sharding.device_set)

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

    def _check_if_deleted(self) -> None:
        if self._buf.is_deleted():               # JAX's words
            shape = ",".join(map(str, self.shape))
            raise RuntimeError(f"Array has been deleted with shape={self.dtype.name}[{shape}].")


class SingleDeviceSharding:
    """An array wholly on one device: JAX's `jax.sharding.SingleDeviceSharding`."""
    __slots__ = ("_device", "memory_kind")
    is_fully_replicated = True

    def __init__(self, device, *, memory_kind="device"):
        self._device, self.memory_kind = device, memory_kind

    device_set = property(lambda self: {self._device})
    _device_assignment = property(lambda self: (self._device,))

    def devices_indices_map(self, shape) -> dict:
        return {self._device: (slice(None),) * len(shape)}

    def _hlo_sharding(self, ndim: int):
        return xc.HloSharding.replicate()

    def __eq__(self, other):
        return (type(other) is SingleDeviceSharding and other._device == self._device
                and other.memory_kind == self.memory_kind)

    def __hash__(self):
        return hash((self._device, self.memory_kind))

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"


class Shard:
    """One device's part of an array: the device, where the part sits in the whole (`index`,
    a tuple of slices), which copy of that part it is (`replica_id`), and the part itself."""
    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

    def __repr__(self):
        return (f"Shard(device={self.device!r}, index={self.index}, "
                f"replica_id={self.replica_id}, data={self.data})")


def _single_device_buffers(buf) -> list:
    """The buffers, one per device of this process, that make up the PJRT array `buf`."""
    if "jax" in sys.modules:
        return buf._arrays
    # jaxlib's C++ tries `import jax` here, to give each piece a sharding of JAX's; with the
    # real JAX installed that import would succeed, and autodidax never loads JAX. A None entry
    # makes the import fail, and jaxlib falls back to a sharding of its own.
    sys.modules["jax"] = None
    try:
        return buf._arrays
    finally:
        del sys.modules["jax"]


def _index_key(index) -> tuple:
    return tuple((s.start, s.stop, s.step) for s in index)


@functools.lru_cache(maxsize=4096)
def devices_indices(sharding, shape: tuple) -> dict:
    """`sharding.devices_indices_map(shape)`, worked out once per layout and shape."""
    return sharding.devices_indices_map(shape)


def part_shape(index, shape) -> tuple:
    """The shape of the part `index` (a tuple of slices) of an array of shape `shape`."""
    return tuple(len(range(*s.indices(n))) for s, n in zip(index, shape))


def _addressable_shards(self) -> list[Shard]:
    self._check_if_deleted()
    if self._sharding is None:
        return [Shard(self.device, (slice(None),) * self.ndim, 0, self)]
    index = devices_indices(self._sharding, self.shape)
    # Copies of a part are numbered over all the devices, in the sharding's order, those of
    # other processes (chapter 16) included.
    copies: dict = {}
    replica = {}
    for device, where in index.items():
        key = _index_key(where)
        replica[device], copies[key] = copies.get(key, 0), copies.get(key, 0) + 1
    shards = []
    for buf in _single_device_buffers(self._buf):
        device = buf._sharding._internal_device_list[0]
        shape = part_shape(index[device], self.shape)
        # The pieces come without avals of ours: give each one.
        piece = buf._rewrap_with_aval_and_sharding(self.aval.update(shape=shape),
                                                   _placement(device)[0])
        shards.append(Shard(device, index[device], replica[device], Array(piece)))
    return shards


def _gather(self) -> np.ndarray:
    """The value of an array over several devices, assembled on the host from its shards."""
    shards = self.addressable_shards
    needed = {_index_key(i) for i in devices_indices(self._sharding, self.shape).values()}
    if needed - {_index_key(s.index) for s in shards}:       # JAX's words
        raise RuntimeError("Fetching value for `jax.Array` that spans non-addressable (non "
                           "process local) devices is not possible. You can use "
                           "`jax.experimental.multihost_utils.process_allgather` to print the "
                           "global array or use `.addressable_shards` method of jax.Array to "
                           "inspect the addressable (process local) shards.")
    out = np.empty(self.shape, self.dtype)
    done = set()
    for shard in shards:                # one copy of each part (copy 0 may be in another process)
        key = _index_key(shard.index)
        if key not in done:
            done.add(key)
            out[shard.index] = np.asarray(shard.data._buf)
    return out


Array.sharding = property(lambda self: self._sharding or SingleDeviceSharding(self.device))
Array.addressable_shards = property(_addressable_shards)
# Arrays of chapter 1, which hold NumPy values, live on the host: this process's first CPU
# device.
core.array_placement_rules.update(device=lambda array: local_devices(backend="cpu")[0],
                                  sharding=lambda array: SingleDeviceSharding(array.device))


_placements: dict = {}     # device -> (sharding, [device]), made once per device


def _placement(device):
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


def _host_value(x):
    """(aval, NumPy value, whether nobody else can write its memory) of what `device_put`
    takes: a host array, a NumPy array or a Python scalar."""
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


def _put(x, device) -> Array:
    if type(x) is Array:
        if x._sharding is None and x.device == device:
            return x
        x = core.Array(x._value, x.weak_type)   # to another device, through the host
    if isinstance(x, Tracer):
        return x                # under a transformation, placement is not part of the program
    aval, value, owned = _host_value(x)
    sharding, devs = _placement(device)
    # (committed, copy, host buffer semantics, enable_x64) by position: jaxlib's bindings take
    # about 0.3 µs longer to read a keyword argument.
    return Array(xc.batched_device_put(aval, sharding, [value], devs, True, not owned,
                                       _ZERO_COPY, True))


_ZERO_COPY = xc.HostBufferSemantics.ZERO_COPY   # share host memory where PJRT can


_xla_shardings: dict = {}      # (sharding, ndim) -> jaxlib's GSPMDSharding


def _xla_sharding(sharding, ndim: int):
    """jaxlib's form of `sharding` for arrays of `ndim` dimensions, made once."""
    xs = _xla_shardings.get((sharding, ndim))
    if xs is None:
        xs = _xla_shardings[sharding, ndim] = xc.GSPMDSharding(
            xc.DeviceList(tuple(sharding._device_assignment)), sharding._hlo_sharding(ndim))
    return xs


def _is_local(device) -> bool:
    return device.process_index == device.client.process_index()


@functools.lru_cache(maxsize=4096)
def _local_parts(sharding, shape: tuple) -> tuple:
    """(the devices of this process in `sharding`'s order, the part of an array of `shape` that
    each holds, whether some part is held by several devices): made once per layout and shape."""
    index = devices_indices(sharding, shape)
    devs = tuple(d for d in sharding._device_assignment if _is_local(d))
    replicas = len({_index_key(i) for i in index.values()}) < len(index)
    return devs, tuple(index[d] for d in devs), replicas


def _put_sharded(x, sharding) -> Array:
    """`x` laid out over devices as `sharding` says: each device of this process gets its part."""
    if type(x) is Array:
        if x.sharding == sharding:
            return x
        x = core.Array(x._value, x.weak_type)   # from other devices, through the host
    if isinstance(x, Tracer):
        return x
    aval, value, owned = _host_value(x)
    devs, parts, replicas = _local_parts(sharding, aval.shape)
    xla_sharding = _xla_sharding(sharding, aval.ndim)
    if not replicas:          # jaxlib puts every part on its device and makes the array at once
        return Array(xc.batched_device_put(aval, xla_sharding, [value[i] for i in parts], devs,
                                           True, not owned, enable_x64=True), sharding)
    # With replicas that call cannot copy (jaxlib raises `bad_function_call`), so: one buffer
    # per device, then one array of them all.
    bufs = []
    for d, i in zip(devs, parts):
        part = value[i]
        copy = not (owned and part.flags.c_contiguous)
        bufs.append(xc.batched_device_put(aval.update(shape=part.shape), _placement(d)[0],
                                          [np.ascontiguousarray(part)], [d], True, copy,
                                          enable_x64=True))
    return Array(xc.ArrayImpl(aval, xla_sharding, bufs, True, _skip_checks=True), sharding)


@api_boundary
def device_put(x, device=None):
    """`x`, an array or a pytree of arrays, NumPy arrays and scalars, on `device` (default: the
    default device), or laid out as a sharding says. The result never shares memory that
    someone can still write."""
    device = default_device() if device is None else device
    if hasattr(device, "_as_sharding"):     # a partition spec, over the mesh in context (ch. 16)
        device = device._as_sharding("device_put")
    if isinstance(device, SingleDeviceSharding):
        device = device._device
    if hasattr(device, "devices_indices_map"):          # a sharding over several devices
        sharding = device
        return tree_map(lambda leaf: _put_sharded(leaf, sharding), x)
    if isinstance(x, (np.ndarray, core.Array, int, float, bool)):
        return _put(x, device)
    return tree_map(lambda leaf: _put(leaf, device), x)


_HLO_DTYPES = {"pred": "bool", "s8": "int8", "s16": "int16", "s32": "int32", "s64": "int64",
               "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
               "f16": "float16", "f32": "float32", "f64": "float64"}


def _result_avals(loaded) -> list[ShapedArray]:
    """The types of a compiled program's results, from the first line of its optimised HLO:
    `HloModule name, ..., entry_computation_layout={(f32[3]{0})->(f32[3]{0}, s32[]{})}`."""
    header = loaded.hlo_modules()[0].to_string().split("\n", 1)[0]
    layout = header[header.index("entry_computation_layout={") + 26:]
    depth = 1
    for end, ch in enumerate(layout):
        depth += (ch == "{") - (ch == "}")
        if depth == 0:
            break
    results = layout[:end].split(")->", 1)[1]
    return [ShapedArray(tuple(int(d) for d in dims.split(",") if d), _HLO_DTYPES[dtype])
            for dtype, dims in re.findall(r"(\w+)\[([\d,]*)\]", results) if dtype != "token"]


class Executable:
    """A program compiled and loaded on one device: call it with arrays (or anything
    `device_put` takes), get back the list of its results as device arrays. A program over
    several devices (chapter 16) takes and returns arrays laid out as its shardings say;
    where a sharding is None, XLA chose it, and `sharding_from_hlo(hlo_sharding)` names XLA's
    choice. `donated`: the indices of the arguments whose buffers the program may take."""
    __slots__ = ("loaded", "device", "out_avals", "_handlers", "num_tokens", "callbacks",
                 "in_shardings", "out_shardings", "donated", "_plain")

    def __init__(self, loaded, device, out_avals=None, num_tokens=0, callbacks=False,
                 in_shardings=None, out_shardings=None, sharding_from_hlo=None, donated=()):
        self.loaded, self.device, self.donated = loaded, device, tuple(donated)
        self.out_avals = _result_avals(loaded) if out_avals is None else list(out_avals)
        self.num_tokens, self.callbacks = num_tokens, callbacks    # see chapter 15
        if in_shardings is not None and None in in_shardings:
            chosen = hlo_shardings(loaded.get_parameter_shardings(), len(in_shardings))
            in_shardings = [s or sharding_from_hlo(h) for s, h in zip(in_shardings, chosen)]
        if out_shardings is not None and None in out_shardings:
            chosen = hlo_shardings(loaded.get_output_shardings(), len(out_shardings))
            out_shardings = [s or sharding_from_hlo(h) for s, h in zip(out_shardings, chosen)]
        self.in_shardings, self.out_shardings = in_shardings, out_shardings
        if out_shardings is None:
            sharding = _placement(device)[0]
            self._handlers = [xc.array_result_handler(a, sharding, True, True)
                              for a in [_TOKEN_AVAL] * num_tokens + self.out_avals]
        else:
            self._handlers = [xc.array_result_handler(a, _xla_sharding(s, a.ndim), True, True)
                              for a, s in zip(self.out_avals, out_shardings)]
        # One device, no donation, no tokens, no callbacks: `run_arrays` may take a short cut.
        self._plain = not (in_shardings or self.donated or num_tokens or callbacks)

    def run_arrays(self, args, avals) -> list[Array]:
        """The call, for arguments of the program's input types `avals` (chapter 8's fast path
        checked): device arrays, or NumPy arrays to put on the device (copied: their owner may
        write them later). As `self(*args)`, shorter."""
        if not self._plain:
            return self(*args)
        return self._execute([x._buf if type(x) is Array else self._put_copy(x, aval)
                              for x, aval in zip(args, avals)], args)

    def _put_copy(self, x, aval):
        """A NumPy array put on the device, copied. (jaxlib copies arrays of any strides, so
        only a dtype to change costs a NumPy copy first.)"""
        sharding, devs = _placement(self.device)
        value = x if x.dtype is aval.dtype else x.astype(aval.dtype)
        return xc.batched_device_put(aval, sharding, [value], devs, True, True, _ZERO_COPY, True)

    def __call__(self, *args) -> list[Array]:
        if self.in_shardings is not None:
            return self._call_partitioned(args)
        if self.donated:
            _drop_views(args, self.donated)
        device = self.device
        bufs = [x._buf if type(x) is Array else _put(x, device)._buf for x in args]
        if self.num_tokens:                   # tokens of ordered effects go first
            bufs = [_put(np.zeros(0, np.bool_), device)._buf] * self.num_tokens + bufs
        return self._execute(bufs, args)

    def _execute(self, bufs, args) -> list[Array]:
        """Run on `bufs`, the buffers of `args` (after any tokens); the results as arrays."""
        try:        # (jaxlib's bindings parse a keyword argument slowly: 0.3 µs)
            results = (self.loaded.execute_sharded(bufs, with_tokens=True) if self.callbacks
                       else self.loaded.execute_sharded(bufs))
        except xc.XlaRuntimeError as e:
            raise self._call_error(args, e) from None
        outs = list(map(Array, results.consume_with_handlers(self._handlers)))
        if self.callbacks:                    # let its callbacks finish before we return
            results.consume_token().block_until_ready()
        return outs[self.num_tokens:] if self.num_tokens else outs

    def _call_partitioned(self, args) -> list[Array]:
        for x in args:         # jaxlib would crash on a buffer donated away
            if type(x) is Array and x._buf.is_deleted():
                x._check_if_deleted()
        if self.donated:
            _drop_views(args, self.donated)
        bufs = [(x if type(x) is Array and (x._sharding is s or x._sharding == s)
                 else _put_sharded(x, s))._buf for x, s in zip(args, self.in_shardings)]
        if self.donated:
            _check_donated_once(bufs, self.donated)
        results = self.loaded.execute_sharded(bufs)
        return [Array(b, s) for b, s in zip(results.consume_with_handlers(self._handlers),
                                            self.out_shardings)]

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


_TOKEN_AVAL = ShapedArray((0,), np.dtype(np.bool_))   # a token, as a buffer: no bytes


def _drop_views(args, donated) -> None:
    """Let go of the NumPy views of the donated arrays, so that PJRT may take their buffers."""
    for i in donated:
        if i < len(args) and type(args[i]) is Array:
            args[i]._npy = None


_DONATED_TWICE = {   # (first use donated, this use donated) -> jaxlib's words for one device
    (True, True): ("Attempt to donate the same buffer twice in Execute()",
                   "f(donate(a), donate(a))"),
    (True, False): ("Attempt to use a buffer that was previously donated in the same call to "
                    "Execute()", "f(donate(a), a)"),
    (False, True): ("Attempt to donate a buffer which is also used by the same call to Execute()",
                    "f(a, donate(a))")}


def _check_donated_once(bufs, donated) -> None:
    """The error jaxlib gives on one device for a donated buffer passed twice in one call."""
    first: dict = {}
    for j, b in enumerate(bufs):
        i = first.setdefault(id(b), j)
        if i != j and (i in donated or j in donated):
            what, toy = _DONATED_TWICE[i in donated, j in donated]
            raise xc.XlaRuntimeError(f"INVALID_ARGUMENT: {what} (flattened argument {j}, replica "
                                     f"0, partition 0, first use: {i}). Toy example for this "
                                     f"bug: `{toy}`.")


_executables: dict = {}        # (text, device, out_avals, ...) -> Executable


def compile_or_get_cached(text, device=None, out_avals=None, in_shardings=None,
                          out_shardings=None, sharding_from_hlo=None) -> Executable:
    """The executable of StableHLO `text` (or an MLIR module) on `device`: from memory, from the
    persistent cache, or compiled by XLA, in that order. `out_avals` gives the results' avals,
    weak types included; by default they are read from the compiled program. A program over a
    tuple of devices takes and returns arrays laid out by `in_shardings` and `out_shardings`."""
    if not isinstance(text, str):
        text = module_to_text(text)
    device = default_device() if device is None else device
    callbacks = getattr(text, "host_callbacks", ())
    key = (text, device, None if out_avals is None else tuple(out_avals), callbacks,
           None if in_shardings is None else tuple(in_shardings),
           None if out_shardings is None else tuple(out_shardings))
    exe = _executables.get(key)
    if exe is not None:
        cache_stats["memory_hits"] += 1
        return exe
    exe = _executables[key] = Executable(load_or_compile(text, device), device, out_avals,
                                         getattr(text, "num_tokens", 0), bool(callbacks),
                                         in_shardings, out_shardings, sharding_from_hlo,
                                         getattr(text, "donated", ()))
    return exe


def clear_caches() -> None:
    """Forget the programs compiled and the jaxprs derived in this process, and whatever the
    functions in `cache_clearers` forget (chapter 8: jit's traced functions), as
    `jax.clear_caches()`. The persistent cache is left as it is."""
    _executables.clear()
    _dispatch_cache.clear()
    clear_weakref_caches()
    for clear in cache_clearers:
        clear()


cache_clearers: list = []      # functions of later chapters that empty their caches


_dispatch_cache: dict = {}     # (primitive, params, input avals, device) -> Executable


def xla_primitive_executable(primitive, params, avals, device) -> Executable:
    """`primitive` with `params`, alone in a program for inputs of types `avals`, compiled."""
    def one_equation(*xs):
        out = primitive.bind(*xs, **params)
        return list(out) if primitive.multiple_results else [out]
    closed = trace_to_jaxpr(one_equation, avals)
    return compile_or_get_cached(module_to_text(lower_jaxpr_to_module(closed)), device,
                                 closed.out_avals)


class XlaEvalTrace(core.EvalTrace):
    """Evaluates each primitive as its own compiled program on a device (JAX's apply_primitive)."""

    def __init__(self, device=None):
        self.device = default_device() if device is None else device

    def process_primitive(self, primitive, args, params):
        if any(isinstance(x, Tracer) for x in args):
            return super().process_primitive(primitive, args, params)   # the escaped-tracer error
        avals = tuple(map(get_aval, args))
        key = (primitive, tuple(sorted(params.items())), avals, self.device)
        try:
            exe = _dispatch_cache.get(key)
        except TypeError:                        # unhashable parameters: do not cache
            key = exe = None
        if exe is None:
            exe = xla_primitive_executable(primitive, params, avals, self.device)
            if key is not None:
                _dispatch_cache[key] = exe
        else:
            cache_stats["dispatch_hits"] += 1
        outs = exe(*args)
        return outs if primitive.multiple_results else outs[0]


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
    """Evaluate primitives outside transformations with NumPy ("numpy") or op by op through
    XLA on `device` ("xla"), from now on. Returns the previous mode."""
    previous = core.set_eval_trace(_eval_trace_for(mode, device))
    return "xla" if isinstance(previous, XlaEvalTrace) else "numpy"


class eager_mode:
    """`with eager_mode("xla"):` evaluates primitives through XLA inside the block; the mode may
    also be "numpy", or an evaluation trace of your own."""

    def __init__(self, mode="xla", device=None):
        self.trace = _eval_trace_for(mode, device)

    def __enter__(self):
        self.previous = core.set_eval_trace(self.trace)
        return self.trace

    def __exit__(self, *exc):
        core.set_eval_trace(self.previous)


class Config:
    """Global settings, as `jax.config`: read `config.name`, change with `config.update`."""

    def __init__(self):
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_appliers", {})

    def define(self, name: str, default, apply=None) -> None:
        """Add an option. `apply(value)` puts a new value into effect (or raises) and returns
        the value to store."""
        self._values[name], self._appliers[name] = default, apply

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


config = Config()


def _apply_platforms(value):
    global _default_platform
    platforms = [p.strip() for p in (value or "cpu").split(",") if p.strip()] or ["cpu"]
    for platform in platforms:
        get_backend(platform)      # one that cannot start raises here, saying why
    _default_platform = _PLATFORM_ALIASES.get(platforms[0], platforms[0])
    _default_device.clear()
    return value


def _apply_x64(value):
    if value:
        raise NotImplementedError("autodidax has no 64-bit mode: its default dtypes are "
                                  "float32 and int32, as JAX's with jax_enable_x64=False.")
    return False


def _apply_cache_max_size(value):
    set_cache_max_size(value)
    return int(value)


def _apply_cache_dir(value):
    set_cache_dir(value)
    return value


def _apply_num_cpu_devices(value):
    value = int(value)
    if value == config.jax_num_cpu_devices:
        return value
    if _backends:                                   # JAX's words
        raise RuntimeError(
            "jax_num_cpu_devices config should be updated before backends are initialized i.e. "
            "before any JAX operation is executed. You should initialize this config "
            "immediately after `import jax`.")
    if value < 0:
        cpu_client_options.pop("num_devices", None)   # XLA_FLAGS decides, as in JAX
    else:
        cpu_client_options["num_devices"] = value
    return value


config.define("jax_platforms", None, _apply_platforms)
config.define("jax_platform_name", None, _apply_platforms)
config.define("jax_compilation_cache_dir", None, _apply_cache_dir)
config.define("jax_compilation_cache_max_size", 2 ** 30, _apply_cache_max_size)
config.define("jax_enable_x64", False, _apply_x64)
config.define("jax_num_cpu_devices", -1, _apply_num_cpu_devices)


def block_until_ready(tree):
    """Wait until every device array in `tree` is computed; return `tree`."""
    for leaf in tree_leaves(tree):
        if isinstance(leaf, Array):
            leaf.block_until_ready()
    return tree


def device_get(tree):
    """`tree` with every array replaced by its value on the host, a NumPy array."""
    return tree_map(lambda x: np.asarray(x) if isinstance(x, core.Array) else x, tree)
