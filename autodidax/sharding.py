# Generated from chapters/16_sharding.md by `make export`: edit the chapter, not this file.


"""Many devices: meshes, partition specs and named shardings, arrays laid out over devices, `jit`
partitioned by XLA's Shardy partitioner, and `with_sharding_constraint`."""
from __future__ import annotations

import collections
import enum
import itertools
import math
import weakref

import numpy as np
from jaxlib import xla_client as xc
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy

from autodidax import debug, lax
from autodidax.autodiff import transpose_rules
from autodidax.batching import batching_rules
from autodidax.core import Primitive, Tracer, abstract_eval_rules, impl_rules
from autodidax.jvp import Zero, jvp_rules
from autodidax.lowering import lowering_rules
from autodidax.runtime import SingleDeviceSharding, device_put, devices  # noqa: F401
from autodidax.tree_util import tree_map


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
        if devices.ndim != len(axis_names):
            raise ValueError(f"Mesh requires the ndim of its first argument (`devices`) to equal "
                             f"the length of its second argument (`axis_names`), but got "
                             f"devices.ndim == {devices.ndim} and len(axis_names) == "
                             f"{len(axis_names)}.")
        if len(set(axis_names)) != len(axis_names):
            raise ValueError(f"Mesh axis names must be unique, got {axis_names}")
        if axis_types is None:
            axis_types = (AxisType.Auto,) * len(axis_names)
        axis_types = axis_types if isinstance(axis_types, tuple) else (axis_types,)
        if len(axis_types) != len(axis_names):
            raise ValueError(f"Number of axis names should match the number of axis_types. Got "
                             f"axis_names={axis_names} and axis_types={axis_types}")
        self.devices, self.axis_names, self.axis_types = devices, axis_names, axis_types
        self.axis_sizes = devices.shape
        self.shape = collections.OrderedDict(zip(axis_names, devices.shape))
        self.size = devices.size
        self._device_assignment = tuple(devices.flat) if devices.ndim else ()
        self._key = (axis_names, axis_types, devices.shape,
                     tuple(d.id for d in self._device_assignment))

    device_set = property(lambda self: set(self._device_assignment))
    empty = property(lambda self: self.devices.ndim == 0)

    def __eq__(self, other):
        return isinstance(other, Mesh) and other._key == self._key

    def __hash__(self):
        return hash(self._key)

    def __str__(self):                                  # as JAX prints it
        if self.empty:
            return "Mesh()"
        axes = ", ".join(f"'{name}': {size}" for name, size in self.shape.items())
        return f"Mesh({axes}, axis_types={self.axis_types})"

    def __repr__(self):
        if self.empty:
            return "Mesh(axis_sizes=(), axis_names=())"
        return (f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names!r}, "
                f"axis_types={self.axis_types})")

    def _sharding_from_hlo(self, hlo: xc.HloSharding):
        return sharding_from_hlo(self, hlo)


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None) -> Mesh:
    """A mesh of the first `prod(axis_shapes)` devices, with Explicit axes unless told, as
    `jax.make_mesh` in JAX 0.10.2."""
    axis_shapes = tuple(axis_shapes)
    devs = jax_devices() if devices is None else list(devices)
    if math.prod(axis_shapes) > len(devs):
        raise ValueError(f"Number of devices {len(devs)} must be >= the product of mesh_shape "
                         f"{axis_shapes}")
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
            if not (p is None or isinstance(p, str) or
                    (isinstance(p, tuple) and all(isinstance(a, str) for a in p))):
                raise TypeError(f"A PartitionSpec entry must be None, a mesh axis name or a "
                                f"tuple of names, got {p!r}")
        self._partitions = tuple(partitions)

    def __iter__(self):
        return iter(self._partitions)

    def __len__(self):
        return len(self._partitions)

    def __getitem__(self, i):
        return self._partitions[i]

    def __eq__(self, other):
        if isinstance(other, PartitionSpec):
            return other._partitions == self._partitions
        return isinstance(other, tuple) and other == self._partitions

    def __hash__(self):
        return hash(self._partitions)

    def __repr__(self):                                 # JAX 0.10.2's: P('x', None)
        return f"P({repr(self._partitions)[1:-1]})"


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
        seen = set()
        for entry in spec:
            for axis in (entry,) if isinstance(entry, str) else entry or ():
                if axis not in mesh.shape:                  # JAX's words
                    raise ValueError(f"Resource axis: {axis} of {spec} is not found in mesh: "
                                     f"{tuple(mesh.shape)}.")
                if axis in seen:
                    raise ValueError(f"A single NamedSharding spec specification can map every "
                                     f"mesh axis to at most one positional dimension, but {spec}"
                                     f" has duplicate entries for `{axis}`")
                seen.add(axis)
        self.mesh, self.spec, self.memory_kind = mesh, spec, memory_kind
        self._used = seen

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
            if size % count:                                # JAX's words, nearly
                raise ValueError(f"One of device_put args was given the sharding of {self}, "
                                 f"which implies that the global size of its dimension {d} "
                                 f"should be divisible by {count}, but it is equal to {size} "
                                 f"(full shape: {tuple(shape)})")
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
        """Its attributes on an argument or result of `main`: chapter 8's `Placement` asks."""
        return {"sdy.sharding": sdy_sharding(module_context, self, ndim)}

    def _normalized(self) -> tuple:
        spec = list(self.spec)
        while spec and spec[-1] in (None, ()):
            spec.pop()
        return tuple(spec)

    def __eq__(self, other):
        return (isinstance(other, NamedSharding) and other.mesh == self.mesh
                and other._normalized() == self._normalized()
                and other.memory_kind == self.memory_kind)

    def __hash__(self):
        return hash((self.mesh, self._normalized(), self.memory_kind))

    def __repr__(self):
        return (f"NamedSharding(mesh={self.mesh}, spec={self.spec}, "
                f"memory_kind={self.memory_kind or 'device'})")


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


debug.later_names["visualize_array_sharding"] = visualize_array_sharding


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


def sdy_sharding(module_context, sharding: NamedSharding, ndim: int) -> ir.Attribute:
    """Shardy's attribute for `sharding` on a value of `ndim` dimensions."""
    name = declare_mesh(module_context, sharding.mesh)
    dims = ", ".join("{" + ", ".join(f'"{a}"' for a in axes) + "}"
                     for axes in sharding._axes(ndim))
    return ir.Attribute.parse(f"#sdy.sharding<@{name}, [{dims}]>")


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
            spec = PartitionSpec(*entries)
            candidate = NamedSharding(mesh, spec)
            if candidate._hlo_sharding(ndim) == hlo:
                return candidate
    return GSPMDSharding(mesh._device_assignment, hlo)


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


sharding_constraint_p = Primitive("sharding_constraint")


_NO_MESH = Mesh(np.empty((), dtype=object), ())


def _constrain(x, sharding):
    if not isinstance(sharding, NamedSharding):
        raise TypeError(f"with_sharding_constraint needs NamedShardings, got {sharding!r}")
    if not isinstance(x, Tracer):                  # outside a transformation: just lay it out
        return device_put(x, sharding)
    return sharding_constraint_p.bind(x, context_mesh=_NO_MESH, layout=None, sharding=sharding,
                                      unconstrained_dims=frozenset())


def with_sharding_constraint(x, shardings):
    """`x` (a pytree), laid out as `shardings` (one sharding, or a pytree prefix of `x`'s)."""
    if isinstance(shardings, NamedSharding):
        return tree_map(lambda leaf: _constrain(leaf, shardings), x)
    return tree_map(_constrain, x, shardings)


impl_rules[sharding_constraint_p] = lambda x, *, sharding, **_: device_put(x, sharding)
abstract_eval_rules[sharding_constraint_p] = lambda aval, **_: aval


def _constraint_jvp(primals, tangents, *, sharding, **_):
    (x,), (t,) = primals, tangents
    return _constrain(x, sharding), t if type(t) is Zero else _constrain(t, sharding)


def _constraint_batching(vals, dims, *, sharding, **_):
    (x,), (d,) = vals, dims
    spec = list(sharding.spec) + [None] * (x.ndim - 1 - len(sharding.spec))
    spec.insert(d, None)
    return _constrain(x, NamedSharding(sharding.mesh, PartitionSpec(*spec))), d


def _constraint_lowering(ctx, x, *, sharding, **_):
    attr = sdy_sharding(ctx.module_context, sharding, ctx.avals_in[0].ndim)
    return [sdy.ShardingConstraintOp(x, attr).result]


jvp_rules[sharding_constraint_p] = _constraint_jvp
transpose_rules[sharding_constraint_p] = lambda ct, x, *, sharding, **_: [
    ct if type(ct) is Zero else _constrain(ct, sharding)]
batching_rules[sharding_constraint_p] = _constraint_batching
lowering_rules[sharding_constraint_p] = _constraint_lowering
lax.later_names["with_sharding_constraint"] = with_sharding_constraint
