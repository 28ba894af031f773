# Generated from chapters/16_sharding.md by `make export`: edit the chapter, not this file.


"""Many devices: meshes, partition specs and named shardings, arrays laid out over devices, `jit`
partitioned by XLA's Shardy partitioner, `with_sharding_constraint` and `shard_map`."""
from __future__ import annotations

import collections
import contextlib
import enum
import functools
import itertools
import math
import weakref
from typing import NamedTuple

import numpy as np
from jaxlib import xla_client as xc
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import core, lax_core as lax
from autodidax.autodiff import shard_map_lowerings
from autodidax.batching import extend_axis_env, psum_p
from autodidax.collectives import pmax_p, pmin_p
from autodidax.compilation_cache import hlo_shardings, jax_hidden
from autodidax.core import (EvalTrace, Primitive, Tracer, abstract_eval_rules, get_aval,
                            impl_rules, trace_ctx)
from autodidax.error_texts import (
    EMPTY_CONTEXT_MESH, GET_MESH_UNDER_JIT, NON_ADDRESSABLE, NUM_CPU_DEVICES_TOO_LATE,
    check_donated_once, check_mesh_args, check_partition_entry, incompatible_devices_error,
    indivisible_error, mesh_mismatch_error, mesh_repr, mesh_str, named_sharding_repr,
    no_mesh_error, shard_repr, spec_axes, too_few_devices_error)
from autodidax.jaxpr import ClosedJaxpr, Jaxpr, trace_to_jaxpr
from autodidax.jit import (flatten_prefix, executable_for, hoist_tracer_consts, jit,
                           placement_rules, signature_context)
from autodidax.lowering import (aval_to_ir_type, ir_constant, jaxpr_subcomp, lowering_rules,
                                reducer_region)
from autodidax.numpy import late_attributes
from autodidax.runtime import (Array, Executable, backend_clients, host_value, placement_of,
                               compile_or_get_cached, config, cpu_client_options, default_device,
                               device_put, devices, evaluated_by_impl, executable_kinds,
                               multi_device_rules)
from autodidax.tree_util import tree_flatten, tree_map, tree_unflatten


def _apply_num_cpu_devices(value):
    value = int(value)
    if value == config.jax_num_cpu_devices:
        return value
    if backend_clients:
        raise RuntimeError(NUM_CPU_DEVICES_TOO_LATE)
    if value < 0:
        cpu_client_options.pop("num_devices", None)   # XLA_FLAGS decides, as in JAX
    else:
        cpu_client_options["num_devices"] = value
    return value


config.define("jax_num_cpu_devices", -1, _apply_num_cpu_devices)


class AxisType(enum.Enum):
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self):
        return self.name


class Mesh:
    """Devices in an n-dimensional grid with named axes: JAX's `jax.sharding.Mesh`."""

    def __init__(self, devices, axis_names, axis_types=None):
        devices = np.asarray(devices, dtype=object)
        axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        if axis_types is None:
            axis_types = (AxisType.Auto,) * len(axis_names)
        axis_types = axis_types if isinstance(axis_types, tuple) else (axis_types,)
        check_mesh_args(devices.ndim, axis_names, axis_types)   # JAX's errors (appendix A21)
        self.devices, self.axis_names, self.axis_types = devices, axis_names, axis_types
        self.axis_sizes = devices.shape
        self.shape = collections.OrderedDict(zip(axis_names, devices.shape))
        self.size = devices.size
        self._device_assignment = tuple(devices.flat) if devices.ndim else ()
        self._key = (axis_names, axis_types, devices.shape,
                     tuple(d.id for d in self._device_assignment))
        self._hash = hash(self._key)

    device_set = property(lambda self: set(self._device_assignment))
    empty = property(lambda self: self.devices.ndim == 0)

    __hash__ = lambda self: self._hash

    def __eq__(self, other):
        return self is other or isinstance(other, Mesh) and other._key == self._key

    __str__, __repr__ = mesh_str, mesh_repr             # as JAX prints it (appendix A21)

    def _sharding_from_hlo(self, hlo: xc.HloSharding):
        return sharding_from_hlo(self, hlo)


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None) -> Mesh:
    """JAX 0.10.2's `jax.make_mesh`: the first `prod(axis_shapes)` devices, Explicit axes."""
    axis_shapes = tuple(axis_shapes)
    devs = jax_devices() if devices is None else list(devices)
    if math.prod(axis_shapes) > len(devs):
        raise too_few_devices_error(len(devs), axis_shapes)
    axis_names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
    if axis_types is None:
        axis_types = (AxisType.Explicit,) * len(axis_names)
    grid = np.empty(len(devs[:math.prod(axis_shapes)]), dtype=object)
    grid[:] = devs[:math.prod(axis_shapes)]
    return Mesh(grid.reshape(axis_shapes), axis_names, axis_types)


jax_devices = devices          # `devices` is also a parameter name, above


class PartitionSpec:
    """For each dimension of an array, the mesh axes that split it: JAX's `P`."""
    __slots__ = ("_partitions",)

    def __init__(self, *partitions):
        for p in partitions:
            check_partition_entry(p)
        self._partitions = tuple(partitions)

    __iter__ = lambda self: iter(self._partitions)
    __len__ = lambda self: len(self._partitions)
    __getitem__ = lambda self, i: self._partitions[i]
    __hash__ = lambda self: hash(self._partitions)

    def __eq__(self, other):
        if isinstance(other, PartitionSpec):
            return other._partitions == self._partitions
        return isinstance(other, tuple) and other == self._partitions

    def __repr__(self):                                 # JAX 0.10.2's: P('x', None)
        return f"P({repr(self._partitions)[1:-1]})"

    def _as_sharding(self, api_name: str):
        """This spec over the mesh in context: what a spec given for a sharding means."""
        return spec_to_sharding(self, api_name)


P = PartitionSpec


class NamedSharding:
    """An array laid out over a mesh as a partition spec says: JAX's `NamedSharding`."""

    def __init__(self, mesh: Mesh, spec: PartitionSpec = PartitionSpec(), *, memory_kind=None):
        if not isinstance(mesh, Mesh):
            raise TypeError(f"NamedSharding's mesh must be a jax.sharding.Mesh, got {mesh!r}")
        if isinstance(spec, tuple):
            spec = PartitionSpec(*spec)
        if not isinstance(spec, PartitionSpec):
            raise TypeError(f"NamedSharding's spec must be a PartitionSpec, got {spec!r}")
        self.mesh, self.spec, self.memory_kind = mesh, spec, memory_kind
        self._used = spec_axes(mesh.shape, spec)       # the axes it uses; JAX's errors (A21)
        # Made once: every call of a `jit` hashes its arguments' shardings and compares them.
        self._key = (mesh, self._normalized(), memory_kind)
        self._hash = hash(self._key)

    device_set = property(lambda self: self.mesh.device_set)
    _device_assignment = property(lambda self: self.mesh._device_assignment)
    num_devices = property(lambda self: self.mesh.size)
    is_fully_replicated = property(
        lambda self: all(self.mesh.shape[a] == 1 for a in self._used))

    def _axes(self, ndim: int) -> list[tuple]:
        """The mesh axes that split each of `ndim` dimensions."""
        if len(self.spec) > ndim:
            raise ValueError(f"{self} is for arrays of at least {len(self.spec)} dimensions, "
                             f"but was used for one of {ndim}")
        return [(e,) if isinstance(e, str) else tuple(e or ()) for e in self.spec] + \
            [()] * (ndim - len(self.spec))

    def devices_indices_map(self, shape) -> dict:
        axes = self._axes(len(shape))
        pos = {name: i for i, name in enumerate(self.mesh.axis_names)}
        counts = [math.prod(self.mesh.shape[a] for a in dim) for dim in axes]
        for d, (size, count) in enumerate(zip(shape, counts)):
            if size % count:
                raise indivisible_error(self, d, counts, shape)
        index = {}
        for where in np.ndindex(*self.mesh.axis_sizes):
            slices = []
            for dim, size, count in zip(axes, shape, counts):
                block = 0
                for a in dim:                               # the first axis is the major one
                    block = block * self.mesh.shape[a] + where[pos[a]]
                step = size // count
                slices.append(slice(None) if count == 1 else
                              slice(block * step, (block + 1) * step))
            index[self.mesh.devices[where]] = tuple(slices)
        return index

    def _hlo_sharding(self, ndim: int) -> xc.HloSharding:
        axes = self._axes(ndim)
        if not any(self.mesh.shape[a] > 1 for dim in axes for a in dim):
            return xc.HloSharding.replicate()
        pos = {name: i for i, name in enumerate(self.mesh.axis_names)}
        dims = [math.prod(self.mesh.shape[a] for a in dim) for dim in axes]
        perm = [pos[a] for dim in axes for a in dim]
        replicated = [i for i, a in enumerate(self.mesh.axis_names) if a not in self._used]
        kinds = []
        if replicated:
            dims.append(math.prod(self.mesh.axis_sizes[i] for i in replicated))
            perm += replicated
            kinds = [xc.OpSharding.Type.REPLICATED]
        return xc.HloSharding.iota_tile(dims=dims, reshape_dims=list(self.mesh.axis_sizes),
                                        transpose_perm=perm, subgroup_types=kinds)

    def _sharding_from_hlo(self, hlo: xc.HloSharding):
        return sharding_from_hlo(self.mesh, hlo)

    def _lowering_attrs(self, module_context, ndim: int) -> dict:
        """Its attributes on an argument or result of `main`: a `Placement` asks (below)."""
        return {"sdy.sharding": sdy_sharding(module_context, self, ndim)}

    def _normalized(self) -> tuple:
        spec = list(self.spec)
        while spec and spec[-1] in (None, ()):
            spec.pop()
        return tuple(spec)

    __hash__ = lambda self: self._hash

    def __eq__(self, other):
        return self is other or isinstance(other, NamedSharding) and other._key == self._key

    __repr__ = named_sharding_repr                      # as JAX prints it (appendix A21)


class SingleDeviceSharding:
    """An array wholly on one device: JAX's `jax.sharding.SingleDeviceSharding`."""
    __slots__ = ("_device", "memory_kind")
    is_fully_replicated = True

    def __init__(self, device, *, memory_kind="device"):
        self._device, self.memory_kind = device, memory_kind

    device_set = property(lambda self: {self._device})
    _device_assignment = property(lambda self: (self._device,))

    devices_indices_map = lambda self, shape: {self._device: (slice(None),) * len(shape)}
    _hlo_sharding = lambda self, ndim: xc.HloSharding.replicate()

    __hash__ = lambda self: hash((self._device, self.memory_kind))

    def __eq__(self, other):
        return (type(other) is SingleDeviceSharding and other._device == self._device
                and other.memory_kind == self.memory_kind)

    def __repr__(self):
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"


class Shard:
    """One device's part of an array: the device, where the part sits in the whole (`index`,
    a tuple of slices), which copy of that part it is (`replica_id`), and the part itself."""
    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index, replica_id, data):
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

    __repr__ = shard_repr                               # as JAX prints it (appendix A21)


def _single_device_buffers(buf) -> list:
    """The buffers, one per device of this process, that make up the PJRT array `buf`."""
    with jax_hidden():
        return buf._arrays


def _index_key(index) -> tuple:
    return tuple((s.start, s.stop, s.step) for s in index)


@functools.lru_cache(maxsize=4096)
def devices_indices(sharding, shape: tuple) -> dict:
    """`sharding.devices_indices_map(shape)`, worked out once per layout and shape."""
    return sharding.devices_indices_map(shape)


def part_shape(index, shape) -> tuple:
    """The shape of the part `index` (a tuple of slices) of an array of shape `shape`."""
    return tuple(len(range(*s.indices(n))) for s, n in zip(index, shape))


def addressable_shards(self) -> list[Shard]:
    self._check_if_deleted()
    if self._sharding is None:
        return [Shard(self.device, (slice(None),) * self.ndim, 0, self)]
    index = devices_indices(self._sharding, self.shape)
    # Copies of a part are numbered over all devices, other processes' (appendix A7) included.
    copies, replica = {}, {}
    for device, where in index.items():
        key = _index_key(where)
        replica[device], copies[key] = copies.get(key, 0), copies.get(key, 0) + 1
    shards = []
    for buf in _single_device_buffers(self._buf):
        device = buf._sharding._internal_device_list[0]
        shape = part_shape(index[device], self.shape)
        # The pieces come without avals of ours: give each one.
        piece = buf._rewrap_with_aval_and_sharding(self.aval.update(shape=shape),
                                                   placement_of(device)[0])
        shards.append(Shard(device, index[device], replica[device], Array(piece)))
    return shards


def gather(self) -> np.ndarray:
    """The value, read-only, of an array over several devices, assembled from its shards."""
    self._check_if_deleted()
    shards = self.addressable_shards
    needed = {_index_key(i) for i in devices_indices(self._sharding, self.shape).values()}
    if needed - {_index_key(s.index) for s in shards}:
        raise RuntimeError(NON_ADDRESSABLE)
    out = np.empty(self.shape, self.dtype)
    done = set()
    for shard in shards:                # one copy of each part (copy 0 may be in another process)
        key = _index_key(shard.index)
        if key not in done:
            done.add(key)
            out[shard.index] = np.asarray(shard.data._buf)
    out.flags.writeable = False
    return out


def _sharding(array):
    return getattr(array, "_sharding", None) or SingleDeviceSharding(array.device)


_xla_shardings: dict = {}      # (sharding, ndim) -> jaxlib's GSPMDSharding


def to_xla_sharding(sharding, ndim: int):
    """jaxlib's form of `sharding` for arrays of `ndim` dimensions, made once."""
    xs = _xla_shardings.get((sharding, ndim))
    if xs is None:
        xs = _xla_shardings[sharding, ndim] = xc.GSPMDSharding(
            xc.DeviceList(tuple(sharding._device_assignment)), sharding._hlo_sharding(ndim))
    return xs


def is_local_device(device) -> bool:
    return device.process_index == device.client.process_index()


@functools.lru_cache(maxsize=4096)
def _local_parts(sharding, shape: tuple) -> tuple:
    """(the devices of this process in `sharding`'s order, the part of an array of `shape` that
    each holds, whether some part is held by several devices): made once per layout and shape."""
    index = devices_indices(sharding, shape)
    devs = tuple(d for d in sharding._device_assignment if is_local_device(d))
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
    aval, value, owned = host_value(x)
    devs, parts, replicas = _local_parts(sharding, aval.shape)
    xla_sharding = to_xla_sharding(sharding, aval.ndim)
    if not replicas:          # jaxlib puts every part on its device and makes the array at once
        return Array(xc.batched_device_put(aval, xla_sharding, [value[i] for i in parts], devs,
                                           True, not owned, enable_x64=True), sharding)
    # With replicas that call cannot copy (jaxlib raises `bad_function_call`), so: one buffer
    # per device, then one array of them all.
    bufs = []
    for d, i in zip(devs, parts):
        part = value[i]
        copy = not (owned and part.flags.c_contiguous)
        bufs.append(xc.batched_device_put(aval.update(shape=part.shape), placement_of(d)[0],
                                          [np.ascontiguousarray(part)], [d], True, copy,
                                          enable_x64=True))
    return Array(xc.ArrayImpl(aval, xla_sharding, bufs, True, _skip_checks=True), sharding)


def device_put_sharded(x, sharding):
    """`x` (a pytree) laid out as `sharding`, or as a spec says over the mesh in context."""
    if hasattr(sharding, "_as_sharding"):
        sharding = sharding._as_sharding("device_put")
    if isinstance(sharding, SingleDeviceSharding):
        return device_put(x, sharding._device)
    if not hasattr(sharding, "devices_indices_map"):
        raise TypeError(f"device_put takes a device or a sharding, got {sharding!r}")
    return tree_map(lambda leaf: _put_sharded(leaf, sharding), x)


multi_device_rules.update(value=gather, put=device_put_sharded,
                          addressable_shards=addressable_shards)
core.array_placement_rules["sharding"] = _sharding


_NO_MESH = Mesh(np.empty((), dtype=object), ())
_context_mesh = [_NO_MESH]       # the mesh that `set_mesh` set last, or _NO_MESH


class set_mesh:
    """`mesh` in context from now on, or to the end of a `with` block; `None` unsets it."""

    def __init__(self, mesh):
        if mesh is not None and not isinstance(mesh, Mesh):            # JAX's words
            raise ValueError(f"Expected mesh of type `jax.sharding.Mesh`. Got {type(mesh)}")
        if not isinstance(trace_ctx.trace, EvalTrace):
            raise ValueError("`set_mesh` can only be used outside of `jax.jit`.")
        self._previous = _context_mesh[0]
        _set_context_mesh(_NO_MESH if mesh is None else mesh)

    __enter__ = lambda self: None

    def __exit__(self, *exc):
        _set_context_mesh(self._previous)


def _set_context_mesh(mesh: Mesh) -> None:
    _context_mesh[0] = mesh
    if mesh.empty:
        signature_context.pop("mesh", None)
    else:                   # jit's caches tell programs traced under different meshes apart
        signature_context["mesh"] = mesh


def get_mesh() -> Mesh:
    """The mesh in context (an empty mesh if none was set), as JAX's `jax.sharding.get_mesh`."""
    if not isinstance(trace_ctx.trace, EvalTrace):
        raise ValueError(GET_MESH_UNDER_JIT)
    return _context_mesh[0]


def spec_to_sharding(spec: PartitionSpec, api_name: str) -> NamedSharding:
    mesh = _context_mesh[0]
    if mesh.empty:
        raise no_mesh_error(api_name)
    return NamedSharding(mesh, spec)


class Placement(NamedTuple):
    """Devices, in partition order; per flat input and output a sharding, or None: XLA's choice."""
    devices: tuple
    in_shardings: tuple
    out_shardings: tuple
    sharding_from_hlo: object = None   # names XLA's choices: see PartitionedExecutable

    def lowering_options(self, closed: ClosedJaxpr) -> dict:
        def attrs(sharding, aval):
            rule = getattr(sharding, "_lowering_attrs", None)
            return None if rule is None else functools.partial(rule, ndim=aval.ndim)
        return dict(num_partitions=len(self.devices),
                    arg_attrs=[attrs(s, v.aval)
                               for s, v in zip(self.in_shardings, closed.jaxpr.invars)],
                    result_attrs=[attrs(s, a)
                                  for s, a in zip(self.out_shardings, closed.out_avals)])

    def compile(self, text: str, out_avals):
        return compile_or_get_cached(text, self.devices, out_avals,
                                     in_shardings=self.in_shardings,
                                     out_shardings=self.out_shardings,
                                     sharding_from_hlo=self.sharding_from_hlo)


def shardings_in(jaxpr: Jaxpr) -> list:
    """The shardings and meshes in the parameters of `jaxpr`'s equations, nested ones too."""
    found = []
    for eqn in jaxpr.eqns:
        for param in eqn.params.values():
            for v in (param if type(param) is tuple else (param,)):
                if getattr(v, "_device_assignment", None):       # not an empty mesh
                    found.append(v)
                elif isinstance(v, (Jaxpr, ClosedJaxpr)):
                    found += shardings_in(v.jaxpr if isinstance(v, ClosedJaxpr) else v)
    return found


def make_placement(in_shardings, out_shardings, jaxpr: Jaxpr) -> Placement | None:
    found = [s for s in [*in_shardings, *out_shardings] if s is not None] + shardings_in(jaxpr)
    if not found:
        return None
    devices = tuple(found[0]._device_assignment)
    for s in found[1:]:
        if set(s._device_assignment) != set(devices):
            raise incompatible_devices_error(devices, s)
    if devices == (default_device(),) and all(not hasattr(s, "_lowering_attrs")
                                              for s in found):
        return None                          # one-device shardings of the default device
    from_hlo = next((s._sharding_from_hlo for s in found if hasattr(s, "_sharding_from_hlo")),
                    None)
    return Placement(devices, tuple(in_shardings), tuple(out_shardings), from_hlo)


def jit_placement(jitted, key, entry) -> Placement | None:
    """The `Placement` of a signature of `jitted`: as its shardings say, else as its arguments."""
    in_tree, has_kwargs, avals, arg_shardings = key[2:6]
    ins = list(arg_shardings) or [None] * len(avals)
    if jitted.in_shardings is not None:
        if has_kwargs:
            raise ValueError("jit does not support keyword arguments when in_shardings is "
                             "specified: pass the arguments by position")
        given = flatten_prefix("in_shardings", jitted.in_shardings, in_tree,
                                "positional arguments")
        ins = [g if g is not None else a for g, a in zip(given, ins)]
    outs = [None] * len(entry.jaxpr.out_avals)
    if jitted.out_shardings is not None:
        outs = flatten_prefix("out_shardings", jitted.out_shardings, entry.out_tree, "outputs")
    # A partition spec is a sharding over the mesh in context at the call (`set_mesh`).
    ins, outs = ([s._as_sharding("jit") if hasattr(s, "_as_sharding") else s for s in ss]
                 for ss in (ins, outs))
    return make_placement(ins, outs, entry.jaxpr.jaxpr)


placement_rules["placement"] = jit_placement


def declare_mesh(module_context, mesh: Mesh) -> str:
    """The symbol of `mesh` in the module being lowered, declared on first use."""
    declared = _declared_meshes.get(module_context)
    if declared is not None:
        if declared != mesh:
            raise NotImplementedError("autodidax lowers programs over one mesh only; this one "
                                      f"uses {declared} and {mesh}")
        return "mesh"
    _declared_meshes[module_context] = mesh
    axes = ", ".join(f'"{name}"={size}' for name, size in mesh.shape.items())
    with ir.InsertionPoint.at_block_begin(module_context.module.body):
        op = sdy.MeshOp("mesh", ir.Attribute.parse(f"#sdy.mesh<[{axes}]>"))
    described = ", ".join(f'{{name = "{n}", size = {s} : i64}}' for n, s in mesh.shape.items())
    op.operation.attributes["stablehlo.mesh"] = ir.Attribute.parse(f"{{axes = [{described}]}}")
    module_context.symbol_table.insert(op.operation)
    return "mesh"


_declared_meshes = weakref.WeakKeyDictionary()    # ModuleContext -> its mesh


def _sdy_text(module_context, sharding: NamedSharding, ndim: int) -> str:
    """`<@mesh, [{"x"}, {}]>`: per dimension, the mesh axes that split it."""
    name = declare_mesh(module_context, sharding.mesh)
    dims = ", ".join("{" + ", ".join(f'"{a}"' for a in axes) + "}"
                     for axes in sharding._axes(ndim))
    return f"<@{name}, [{dims}]>"


def sdy_sharding(module_context, sharding: NamedSharding, ndim: int) -> ir.Attribute:
    """Shardy's attribute for `sharding` on a value of `ndim` dimensions."""
    return ir.Attribute.parse("#sdy.sharding" + _sdy_text(module_context, sharding, ndim))


def sharding_from_hlo(mesh: Mesh, hlo: xc.HloSharding):
    """The NamedSharding over `mesh` whose layout is `hlo`, or a GSPMDSharding if none is."""
    if hlo.is_replicated():
        return NamedSharding(mesh, PartitionSpec())
    tiles = hlo.tile_assignment_dimensions()
    ndim = len(tiles) - (1 if hlo.replicate_on_last_tile_dim() else len(hlo.subgroup_types()))
    names = mesh.axis_names
    for choice in itertools.product(range(ndim + 1), repeat=len(names)):   # ndim: unused
        by_dim = [[n for n, c in zip(names, choice) if c == d] for d in range(ndim)]
        for orders in itertools.product(*(itertools.permutations(g) for g in by_dim)):
            entries = [None if not o else o[0] if len(o) == 1 else tuple(o) for o in orders]
            while entries and entries[-1] is None:     # P('x'), not P('x', None), as JAX
                entries.pop()
            candidate = NamedSharding(mesh, PartitionSpec(*entries))
            if candidate._hlo_sharding(ndim) == hlo:
                return candidate
    if "sharding" not in unnamed_layouts:
        raise NotImplementedError(f"a layout that no partition spec over {mesh} describes: {hlo}")
    return unnamed_layouts["sharding"](mesh._device_assignment, hlo)


unnamed_layouts: dict = {}   # "sharding": appendix A11's GSPMDSharding, XLA's own name for one
more_names, __getattr__, __dir__ = late_attributes(globals())   # A11's `reshard`


class PartitionedExecutable(Executable):
    """A program over several devices, with a sharding per flat input and output."""

    def __init__(self, loaded, device, out_avals=None, text=None, *, in_shardings,
                 out_shardings, sharding_from_hlo=None, **options):
        if None in in_shardings:
            chosen = hlo_shardings(loaded.get_parameter_shardings(), len(in_shardings))
            in_shardings = [s or sharding_from_hlo(h) for s, h in zip(in_shardings, chosen)]
        if None in out_shardings:
            chosen = hlo_shardings(loaded.get_output_shardings(), len(out_shardings))
            out_shardings = [s or sharding_from_hlo(h) for s, h in zip(out_shardings, chosen)]
        self.in_shardings, self.out_shardings = in_shardings, out_shardings
        super().__init__(loaded, device, out_avals, text, **options)

    @staticmethod
    def applies(text, options) -> bool:
        return options.get("in_shardings") is not None

    def _result_handlers(self) -> list:
        return [xc.array_result_handler(a, to_xla_sharding(s, a.ndim), True, True)
                for a, s in zip(self.out_avals, self.out_shardings)]

    def __call__(self, *args) -> list:
        for x in args:         # jaxlib would crash on a buffer donated away
            if type(x) is Array and x._buf.is_deleted():
                x._check_if_deleted()
        bufs = [(x if type(x) is Array and (x._sharding is s or x._sharding == s)
                 else _put_sharded(x, s))._buf for x, s in zip(args, self.in_shardings)]
        donated = getattr(self, "donated", ())      # chapter 8's donation
        if donated:
            check_donated_once(bufs, donated)
        results = self.loaded.execute_sharded(bufs)
        return [Array(b, s) for b, s in zip(results.consume_with_handlers(self._handlers),
                                            self.out_shardings)]


executable_kinds["partitioned"] = PartitionedExecutable


_eager_jits: dict = {}     # (primitive, params) -> the primitive alone, jitted


def eager_over_devices(primitive, args, params):
    """An eager primitive on arrays over several devices, run as a program over them."""
    def alone(*xs):
        return primitive.bind(*xs, **params)
    try:
        f = _eager_jits.get(key := (primitive, tuple(params.items())))
    except TypeError:                          # unhashable parameters: jitted, not kept
        return jit(alone)(*args)
    if f is None:
        f = _eager_jits[key] = jit(alone)
    return f(*args)


multi_device_rules["eager"] = eager_over_devices


sharding_constraint_p = Primitive("sharding_constraint")


def constrain_leaf(x, sharding):
    if isinstance(sharding, PartitionSpec):
        sharding = spec_to_sharding(sharding, "with_sharding_constraint")
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f"with_sharding_constraint needs NamedShardings, got {sharding!r}")
    if not isinstance(x, Tracer):                  # outside a transformation: just lay it out
        return device_put(x, sharding)
    return sharding_constraint_p.bind(x, context_mesh=_NO_MESH, layout=None, sharding=sharding,
                                      unconstrained_dims=frozenset())


def with_sharding_constraint(x, shardings):
    """`x` (a pytree), laid out as `shardings` (one sharding, or a pytree prefix of `x`'s)."""
    if isinstance(shardings, (NamedSharding, PartitionSpec)):
        return tree_map(lambda leaf: constrain_leaf(leaf, shardings), x)
    return tree_map(constrain_leaf, x, shardings)


impl_rules[sharding_constraint_p] = lambda x, *, sharding, **_: device_put(x, sharding)
evaluated_by_impl.add(sharding_constraint_p)
abstract_eval_rules[sharding_constraint_p] = lambda aval, **_: aval


def _constraint_lowering(ctx, x, *, sharding, **_):
    attr = sdy_sharding(ctx.module_context, sharding, ctx.avals_in[0].ndim)
    return [sdy.ShardingConstraintOp(x, attr).result]


lowering_rules[sharding_constraint_p] = _constraint_lowering


shard_map_p = Primitive("shard_map")
shard_map_p.multiple_results = True


def block_aval(mesh: Mesh, spec, aval, what: str):
    """The aval of one device's block of an array of type `aval` cut as `spec` says."""
    axes = NamedSharding(mesh, spec)._axes(aval.ndim)
    shape = list(aval.shape)
    for d, names in enumerate(axes):
        count = math.prod(mesh.shape[a] for a in names)
        if shape[d] % count:
            raise ValueError(f"shard_map applied to {what} of shape {aval.shape} with spec "
                             f"{spec}: dimension {d} of size {shape[d]} is not evenly divisible "
                             f"by the {count} devices of mesh axes {names}")
        shape[d] //= count
    return aval.update(shape=tuple(shape))


def _whole_aval(mesh: Mesh, spec, aval):
    """The aval of the array that blocks of type `aval`, put together as `spec` says, make."""
    axes = NamedSharding(mesh, spec)._axes(aval.ndim)
    return aval.update(shape=tuple(n * math.prod(mesh.shape[a] for a in names)
                                   for n, names in zip(aval.shape, axes)))


def shard_map(f=None, /, *, out_specs, in_specs, mesh=None, axis_names=frozenset(),
              check_vma=True):
    """`jax.shard_map`: `f` once per device of `mesh` (else the one in context), on its blocks."""
    if f is None:
        return lambda g: shard_map(g, out_specs=out_specs, in_specs=in_specs, mesh=mesh,
                                   axis_names=axis_names, check_vma=check_vma)
    given_mesh = mesh
    programs: dict = {}   # (arguments' structure and types, mesh) -> (program, output structure)

    @functools.wraps(f)
    def mapped(*args):
        mesh = _shard_map_mesh(given_mesh, axis_names)
        flat, in_tree = tree_flatten(args)
        eager = not any(isinstance(x, Tracer) for x in flat)
        key = (in_tree, tuple(map(get_aval, flat)), mesh) if eager else None
        if key in programs:            # called again outside transformations: just run it
            program, out_tree = programs[key]
            return tree_unflatten(out_tree, program(*flat))
        specs = flatten_prefix("in_specs", in_specs, in_tree, "positional arguments",
                                "shard_map")
        avals = [block_aval(mesh, s, get_aval(x), f"argument {i}")
                 for i, (x, s) in enumerate(zip(flat, specs))]
        out_trees = []

        def body(*blocks):
            out = f(*tree_unflatten(in_tree, blocks))
            leaves, tree = tree_flatten(out)
            out_trees.append(tree)
            return leaves

        closed, hoisted, all_specs = trace_shard_body(mesh, body, avals, specs)
        out_flat_specs = flatten_prefix("out_specs", out_specs, out_trees[0], "outputs",
                                         "shard_map")
        params = dict(check_vma=check_vma,    # sorted, as JAX prints them
                      in_specs=all_specs, jaxpr=closed, mesh=mesh,
                      newly_manual_axes=frozenset(mesh.axis_names),
                      out_specs=tuple(out_flat_specs))
        if not eager or hoisted:
            outs = shard_map_p.bind(*hoisted, *flat, **params)
        else:      # outside transformations: compile it once, keeping the results on devices
            program = _shard_map_executable(params, [get_aval(x) for x in flat])
            programs[key] = program, out_trees[0]
            outs = program(*flat)
        return tree_unflatten(out_trees[0], outs)
    return mapped


def _shard_map_mesh(mesh, axis_names) -> Mesh:
    """The mesh a shard_map runs over: the one given, else the one in context."""
    if mesh is None:
        mesh = _context_mesh[0]
        if mesh.empty:
            raise ValueError(EMPTY_CONTEXT_MESH)
    elif not _context_mesh[0].empty and mesh._key[:3] != _context_mesh[0]._key[:3]:
        raise mesh_mismatch_error(_context_mesh[0], mesh)
    if not isinstance(mesh, Mesh):
        raise TypeError(f"shard_map requires a jax.sharding.Mesh, got {mesh!r}")
    if axis_names and set(axis_names) != set(mesh.axis_names):
        raise NotImplementedError("autodidax's shard_map makes every mesh axis manual")
    return mesh


@contextlib.contextmanager
def mesh_axes(mesh: Mesh):
    """Inside the block, the mesh's axes are bound as named axes (chapter 4)."""
    with contextlib.ExitStack() as stack:
        for name, size in mesh.shape.items():
            stack.enter_context(extend_axis_env(name, size))
        yield


def trace_shard_body(mesh: Mesh, body, avals, in_specs) -> tuple:
    """(the jaxpr of `body` on blocks of types `avals`, traced with the mesh's axes bound; the
    tracers it closes over, which become its first inputs; the specs of all its inputs, those
    replicated)."""
    with mesh_axes(mesh):
        closed = trace_to_jaxpr(body, avals)
    closed, hoisted = hoist_tracer_consts(closed)
    return closed, hoisted, (PartitionSpec(),) * len(hoisted) + tuple(in_specs)


def _shard_map_abstract(*avals, jaxpr, mesh, in_specs, out_specs, **_):
    return [_whole_aval(mesh, s, a) for s, a in zip(out_specs, jaxpr.out_avals)]


def _shard_map_executable(params: dict, avals):
    """A shard_map alone in a program, for inputs of types `avals`, compiled."""
    closed = trace_to_jaxpr(lambda *xs: shard_map_p.bind(*xs, **params), avals)
    # The results are laid out as `out_specs` say, and named so, as JAX names them.
    outs = [NamedSharding(params["mesh"], s) for s in params["out_specs"]]
    placement = make_placement([None] * len(avals), outs, closed.jaxpr)
    return executable_for(closed, "shard_map", placement=placement)


def _shard_map_impl(*args, **params):
    """Outside `jit`, a shard_map is compiled and run as a program of its own."""
    return _shard_map_executable(params, [get_aval(x) for x in args])(*args)


abstract_eval_rules[shard_map_p] = _shard_map_abstract
impl_rules[shard_map_p] = _shard_map_impl
evaluated_by_impl.add(shard_map_p)


def _per_value(module_context, mesh: Mesh, specs, avals) -> ir.Attribute:
    shardings = [_sdy_text(module_context, NamedSharding(mesh, spec), aval.ndim)
                 for spec, aval in zip(specs, avals)]
    return ir.Attribute.parse(f"#sdy.sharding_per_value<[{', '.join(shardings)}]>")


def _shard_map_lowering(ctx, *args, jaxpr, mesh, in_specs, out_specs, **_):
    mc = ctx.module_context
    manual = sdy.ManualAxesAttr.get([ir.StringAttr.get(a) for a in mesh.axis_names])
    op = sdy.ManualComputationOp(
        [aval_to_ir_type(a) for a in ctx.avals_out], list(args),
        _per_value(mc, mesh, in_specs, ctx.avals_in),
        _per_value(mc, mesh, out_specs, ctx.avals_out), manual)
    block = ir.Block.create_at_start(op.body, [aval_to_ir_type(v.aval)
                                               for v in jaxpr.jaxpr.invars])
    mc.manual_meshes.append(mesh)      # innermost last; the collectives' rules read it
    try:
        with ir.InsertionPoint(block):
            consts = [ir_constant(c, v.aval.dtype)
                      for c, v in zip(jaxpr.consts, jaxpr.jaxpr.constvars)]
            sdy.return_(jaxpr_subcomp(mc, jaxpr.jaxpr, consts, list(block.arguments)))
    finally:
        mc.manual_meshes.pop()
    return list(op.results)


lowering_rules[shard_map_p] = _shard_map_lowering


def replica_groups(mesh: Mesh, names) -> np.ndarray:
    """The groups of devices (partition numbers) that a collective over the mesh axes `names`
    joins: one row per group, in the order of the axes' positions (JAX's `axis_groups`)."""
    ids = np.arange(mesh.size).reshape(mesh.axis_sizes)
    pos = [mesh.axis_names.index(n) for n in names]
    rest = [i for i in range(ids.ndim) if i not in pos]
    size = math.prod(mesh.axis_sizes[i] for i in pos)
    return ids.transpose(pos + rest).reshape(size, -1).T


def replica_groups_attr(mesh: Mesh, names) -> ir.Attribute:
    return ir.DenseIntElementsAttr.get(np.ascontiguousarray(replica_groups(mesh, names),
                                                            dtype=np.int64))


COLLECTIVE_CHANNEL = (1, 1)   # JAX's channel id and kind, "device to device": the same for every op


def collective_lowering(emit):
    """A lowering rule: `emit(ctx, mesh, ...)` inside a shard_map body, an error elsewhere."""
    def rule(ctx, *args, **params):
        meshes = ctx.module_context.manual_meshes
        if not meshes:
            raise NotImplementedError(f"{ctx.primitive} outside of shard_map or vmap")
        return emit(ctx, meshes[-1], *args, **params)
    return rule


def _in_body(emit):
    """For `shard_map_lowerings`: `emit(ctx, mesh, ...)` in a body, else NotImplemented."""
    def rule(ctx, *args, **params):
        meshes = ctx.module_context.manual_meshes
        return emit(ctx, meshes[-1], *args, **params) if meshes else NotImplemented
    return rule


def _all_reduce(combine):
    def emit(ctx, mesh, x, *, axes, axis_index_groups):
        if any(isinstance(a, int) for a in axes):
            raise NotImplementedError("a collective over named and positional axes at once "
                                      "inside shard_map")
        op = hlo.AllReduceOp([x.type], [x], replica_groups_attr(mesh, axes),
                             channel_handle=hlo.ChannelHandle.get(*COLLECTIVE_CHANNEL),
                             use_global_device_ids=True)
        reducer_region(op, ctx.avals_in[0].dtype, combine)
        return [op.result]
    return emit


for _prim, _combine in [(psum_p, hlo.add), (pmax_p, hlo.maximum), (pmin_p, hlo.minimum)]:
    shard_map_lowerings[_prim] = _in_body(_all_reduce(_combine))     # chapter 9's rule asks
