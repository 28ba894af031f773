# Generated from chapters/A8_export_format.md by `make export`: edit the chapter, not this file.


"""JAX's export format, read and written: the flatbuffer of `serialization.fbs`, as plain records
that know nothing of tracing, and the checks of a caller's inputs against them (appendix A8, for
chapter 17's `export` and `runner`)."""
from __future__ import annotations

import io
import os
import signal
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Any

import flatbuffers
import ml_dtypes
import numpy as np
from flatbuffers import number_types as N
from flatbuffers.table import Table
from jaxlib import _jax
from jaxlib import xla_client as xc
from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir.dialects import func, sdy
from jaxlib.mlir.dialects import stablehlo as hlo


NEWEST_VERSION = 11  # _SERIALIZATION_VERSION of JAX 0.10.2
WRITTEN_VERSION = 3  # what JAX 0.10.2 puts into the field
MAX_DEPTH = 200  # deepest pytree (or vjp chain) we read

# The enums of serialization.fbs: the position of a name is its code.
_TREE_KINDS = ("leaf", "none", "tuple", "list", "dict", "custom")
_MEMORY_SPACES = ("Missing", "Device", "Host", "Any")
_AXIS_TYPES = ("Missing", "Auto", "Explicit", "Manual")
_CHECKS = ("platform", "custom_call", "shape_assertions")
_DTYPE_NAMES = (
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 "
    "float64 complex64 complex128 bfloat16 int4 uint4 float8_e4m3b11fnuz "
    "float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float0 "
    "float8_e4m3 float8_e3m4 float8_e8m0fnu float4_e2m1fn "
    "key<fry> key<rbg> key<urbg>"
).split()  # the keys as JAX prints them


def _dtype(name: str) -> Any:
    """JAX's float0 is a zero-sized void struct; the PRNG key types have no
    numpy dtype and stay name strings; ml_dtypes supplies the small floats."""
    if name == "float0":
        return np.dtype([("float0", np.void, 0)])
    if name.startswith("key<"):
        return name
    return np.dtype(getattr(ml_dtypes, name, name))


_DTYPES = tuple(_dtype(n) for n in _DTYPE_NAMES)
_DTYPE_CODES = {d: code for code, d in enumerate(_DTYPES)}


@dataclass(frozen=True)
class TreeDef:
    """A pytree node.  `names` are a dict's keys, in the dict's (sorted) order."""

    kind: str  # "leaf", "none", "tuple", "list", "dict" or "custom"
    children: tuple[TreeDef, ...] = ()
    names: tuple[str, ...] = ()
    custom_name: str | None = None  # the name registered for a custom node
    custom_auxdata: bytes = b""

    def num_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(c.num_leaves() for c in self.children)


@dataclass(frozen=True)
class Aval:
    """A flat argument or result.  Dimensions are ints, or strings such as
    "b" or "2*b" when symbolic.  `memory_space` is "Device", "Host" or "Any"."""

    shape: tuple[int | str, ...]
    dtype: Any  # a numpy dtype, or "key<fry>", "key<rbg>" or "key<urbg>"
    memory_space: str = "Device"
    weak_type = False  # not a field: what jaxlib also asks of an aval (the runner's arrays)

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(self.shape))
        if not str(self.dtype).startswith("key<"):
            object.__setattr__(self, "dtype", np.dtype(self.dtype))


@dataclass(frozen=True)
class AbstractMesh:
    """An abstract mesh.  Axis types are "Auto", "Explicit" or "Manual" (or
    "Missing", the schema's default).  Devices are described if `device_kind`
    is set."""

    axis_sizes: tuple[int, ...]
    axis_names: tuple[str, ...]
    axis_types: tuple[str, ...]
    device_kind: str | None = None
    num_cores: int | None = None
    platform: str | None = None  # absent in files before schema version 11

    def __repr__(self):  # as JAX prints an AbstractMesh
        axes = ", ".join(f"'{n}': {s}" for n, s in zip(self.axis_names, self.axis_sizes))
        types = "(" + "".join(f"{t}, " for t in self.axis_types).rstrip(" ")
        types = types.rstrip(",") + ",)" if len(self.axis_types) == 1 else types.rstrip(",") + ")"
        return (f"AbstractMesh({axes}, axis_types={types}, device_kind={self.device_kind}, "
                f"num_cores={self.num_cores}, platform={self.platform})")


@dataclass(frozen=True)
class AbstractSharding:
    """`spec` has one entry per array dimension: None, an axis name, or a
    tuple of axis names."""

    mesh: AbstractMesh
    spec: tuple[None | str | tuple[str, ...], ...]
    memory_kind: str | None = None
    reduced: tuple[str, ...] = ()  # in file order (a set in JAX)
    unreduced: tuple[str, ...] = ()

    def __repr__(self):  # as JAX prints a NamedSharding
        spec = ", ".join(repr(p) for p in self.spec) + ("," if len(self.spec) == 1 else "")
        return f"NamedSharding(mesh={self.mesh!r}, spec=P({spec}), memory_kind={self.memory_kind})"


@dataclass(frozen=True)
class SavedHloSharding:
    """An xla OpSharding proto, in exports made before 2026 only.  We keep
    its bytes but cannot write it back."""

    proto: bytes


@dataclass(frozen=True, kw_only=True)
class Artifact:
    """All that a serialized `jax.export.Exported` holds."""

    serialization_version: int = WRITTEN_VERSION
    function_name: str
    in_tree: TreeDef
    out_tree: TreeDef
    in_avals: tuple[Aval, ...]
    out_avals: tuple[Aval, ...]
    # One per flat input (output); None is "unspecified", () is all None.
    in_shardings: tuple[AbstractSharding | SavedHloSharding | None, ...] = ()
    out_shardings: tuple[AbstractSharding | SavedHloSharding | None, ...] = ()
    nr_devices: int = 1
    platforms: tuple[str, ...] = ()
    ordered_effects: tuple[str, ...] = ()  # names of effect types
    unordered_effects: tuple[str, ...] = ()
    disabled_checks: tuple[str, ...] = ()  # "platform" or "custom_call:<target>"
    mlir_module_serialized: bytes
    calling_convention_version: int = 10
    module_kept_var_idx: tuple[int, ...] = ()
    uses_global_constants: bool = False
    vjp: Artifact | None = None
    # The file stores each distinct aval once and refers to it by index, for
    # the inputs then the outputs.  JAX also tells avals apart by what the
    # file omits (weak types, shardings), so two stored avals can look equal.
    # The indices are kept only to write the same bytes again; with None (or
    # indices that no longer fit the avals) equal avals are merged.
    aval_groups: tuple[int, ...] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class DisabledSafetyCheck:
    """A safety check to skip, as JAX's: `platform()`, or `custom_call(target_name)`."""
    _impl: str

    platform = classmethod(lambda cls: cls("platform"))
    custom_call = classmethod(lambda cls, target_name: cls(f"custom_call:{target_name}"))

    def is_custom_call(self) -> str | None:
        return self._impl[len("custom_call:"):] if self._impl.startswith("custom_call:") else None

    def __str__(self):
        return self._impl

    __repr__ = __str__


class _Input:
    """The bytes being read, with a bound check and a work budget.  Each object
    of a real file has bytes of its own, so more objects than bytes means a
    subtree referenced over and over (offsets only point forward: no cycles)."""

    def __init__(self, data: bytes):
        self.data, self.budget = data, len(data)

    def need(self, pos: int, size: int, what: str):
        if pos < 0 or pos + size > len(self.data):
            raise ValueError(
                f"truncated or corrupt JAX export artifact: {what} at "
                f"byte {pos} ends past the end ({len(self.data)} bytes)"
            )

    def spend(self, n: int):
        self.budget -= n
        if self.budget < 0:
            raise ValueError("corrupt JAX export artifact: too many objects")


class _Table:
    """Reads the fields of one table by vtable slot.

    FlatBuffer layout, little-endian: the file starts with a uint32 offset to
    the root table.  A table starts with an int32 that, subtracted from its
    position, locates its vtable: uint16 vtable size, uint16 table size, then
    one uint16 per field slot giving the field's offset in the table (0 when
    the field is absent).  A field holding a table, vector or string stores a
    uint32 offset, relative to the field itself and always forward.  Vectors
    are a uint32 length and the items; strings also end with a 0 byte.
    `flatbuffers.table.Table` does the reads but checks nothing, so we check
    each position first.
    """

    def __init__(self, inp: _Input, pos: int, what: str):
        inp.spend(1)
        inp.need(pos, 4, what)
        self.inp, self.what, self.t = inp, what, Table(inp.data, pos)
        vtable = pos - self.t.Get(N.SOffsetTFlags, pos)
        inp.need(vtable, 4, f"{what} vtable")
        size = self.t.Get(N.VOffsetTFlags, vtable)  # 4 bytes, then 2 per slot
        if size < 4 or size % 2:
            raise ValueError(f"corrupt JAX export artifact: bad {what} vtable")
        inp.need(vtable, size, f"{what} vtable")

    def _field(self, slot: int, size: int) -> int:
        """The position of a field, or 0 if it is absent."""
        off = self.t.Offset(4 + 2 * slot)
        if not off:
            return 0
        self.inp.need(self.t.Pos + off, size, f"{self.what} field {slot}")
        return self.t.Pos + off

    def _vector(self, slot: int, item_size: int):
        """(start, length) of a vector field, or None if it is absent."""
        if not (pos := self._field(slot, 4)):
            return None
        vec = self.t.Indirect(pos)
        self.inp.need(vec, 4, f"{self.what} field {slot}")
        n = self.t.Get(N.UOffsetTFlags, vec)
        self.inp.need(vec + 4, n * item_size, f"{self.what} field {slot}")
        return vec + 4, n

    def _string_at(self, pos: int) -> str:
        self.inp.need(pos, 4, f"{self.what} string")
        n = self.t.Get(N.UOffsetTFlags, pos)
        self.inp.need(pos + 4, n + 1, f"{self.what} string")  # + the final 0
        raw = self.inp.data[pos + 4:pos + 5 + n]
        try:
            if raw[-1] == 0:
                return raw[:-1].decode("utf-8")
        except UnicodeDecodeError:
            pass
        raise ValueError(f"corrupt JAX export artifact: bad string in {self.what}")

    def scalar(self, slot: int, flags, default=0):
        pos = self._field(slot, flags.bytewidth)
        return self.t.Get(flags, pos) if pos else default

    def table(self, slot: int, what: str) -> _Table | None:
        pos = self._field(slot, 4)
        return _Table(self.inp, self.t.Indirect(pos), what) if pos else None

    def string(self, slot: int) -> str | None:
        pos = self._field(slot, 4)
        return self._string_at(self.t.Indirect(pos)) if pos else None

    def _offsets(self, slot: int) -> list[int]:
        start, n = self._vector(slot, 4) or (0, 0)
        self.inp.spend(n)
        return [self.t.Indirect(start + 4 * i) for i in range(n)]

    def tables(self, slot: int, what: str) -> list[_Table]:
        return [_Table(self.inp, p, what) for p in self._offsets(slot)]

    def strings(self, slot: int) -> tuple[str, ...]:
        return tuple(self._string_at(p) for p in self._offsets(slot))

    def bytes(self, slot: int) -> bytes | None:
        start, n = self._vector(slot, 1) or (0, -1)
        return None if n < 0 else self.inp.data[start:start + n]

    def numbers(self, slot: int, dtype: str) -> list[int]:
        start, n = self._vector(slot, np.dtype(dtype).itemsize) or (0, 0)
        self.inp.spend(n)
        return np.frombuffer(self.inp.data, dtype, n, start).tolist()


def _pick(options, code: int, what: str):
    if not 0 <= code < len(options):
        raise ValueError(f"corrupt JAX export artifact: bad {what} {code}")
    return options[code]


def _needed(value, what: str):
    if value is None:
        raise ValueError(f"not a JAX export artifact: it has no {what}")
    return value


def read_artifact(data: bytes) -> Artifact:
    """Decode the bytes of `Exported.serialize()`; raise ValueError if invalid."""
    data = bytes(data)
    if not data:
        raise ValueError("not a JAX export artifact: the input is empty")
    # The Builder pads a finished buffer to its largest alignment, 4 here.
    # With the 0 that ends every string, this catches any cut-off file.
    if len(data) % 4:
        raise ValueError(
            f"truncated JAX export artifact: {len(data)} bytes is not a multiple of 4"
        )
    inp = _Input(data)
    inp.need(0, 4, "root offset")
    return _read_exported(_Table(inp, Table(data, 0).Get(N.UOffsetTFlags, 0), "Exported"), depth=0)


def _read_tree(t: _Table, depth: int = 0) -> TreeDef:
    # As in serialization.py: dict nodes have one key per child, custom nodes
    # a registered name and auxiliary bytes.
    if depth > MAX_DEPTH:
        raise ValueError("corrupt JAX export artifact: pytree nested too deeply")
    kind = _pick(_TREE_KINDS, t.scalar(0, N.Int8Flags), "pytree kind")
    children = tuple(_read_tree(c, depth + 1) for c in t.tables(1, "pytree"))
    names = t.strings(2) if kind == "dict" else ()
    if (kind in ("leaf", "none") and children) or (kind == "dict" and len(names) != len(children)):
        raise ValueError(f"corrupt JAX export artifact: bad {kind} node")
    if kind != "custom":
        return TreeDef(kind, children, names)
    return TreeDef(kind, children, (), _needed(t.string(3), "custom node name"), t.bytes(4) or b"")


def _read_aval(t: _Table) -> Aval:
    if t.scalar(0, N.Int8Flags) != 0:  # 0 is shapedArray, the only kind used
        raise ValueError("corrupt JAX export artifact: bad abstract value kind")
    # Dimensions are strings; those that spell an integer become ints.
    shape = [int(d) if d.isdecimal() and str(int(d)) == d else d for d in t.strings(1)]
    space = _pick(_MEMORY_SPACES, t.scalar(3, N.Int8Flags), "memory space")
    return Aval(shape, _pick(_DTYPES, t.scalar(2, N.Int8Flags), "dtype"),
                "Device" if space == "Missing" else space)  # as JAX reads it


def _read_mesh(t: _Table) -> AbstractMesh:
    sizes, names = tuple(t.numbers(0, "<u4")), t.strings(1)
    types = tuple(_pick(_AXIS_TYPES, c, "axis type") for c in t.numbers(2, "u1"))
    if not len(sizes) == len(names) == len(types):
        raise ValueError("corrupt JAX export artifact: bad mesh")
    if (dev := t.table(3, "abstract device")) is None:
        return AbstractMesh(sizes, names, types)
    return AbstractMesh(sizes, names, types, _needed(dev.string(0), "device kind"),
                        dev.scalar(1, N.Uint32Flags, None), dev.string(2))


def _read_sharding(t: _Table, meshes: list[AbstractMesh]) -> AbstractSharding:
    # Since schema v10, a sharding's mesh comes from the table of unique meshes.
    if meshes:
        mesh = _pick(meshes, t.scalar(3, N.Uint32Flags), "mesh index")
    else:
        mesh = _read_mesh(_needed(t.table(0, "mesh"), "sharding mesh"))
    spec = _needed(t.table(1, "partition spec"), "partition spec")
    axes = [p.strings(0) for p in spec.tables(0, "partition")]
    return AbstractSharding(  # no axes is None, one axis is its name
        mesh,
        tuple(None if not a else a[0] if len(a) == 1 else a for a in axes),
        t.string(2),
        spec.strings(1),
        spec.strings(2),
    )


def _read_old_sharding(t: _Table, meshes: list[AbstractMesh]):
    """A `Sharding` table (before schema v10) holds a AbstractSharding or, before
    2026, only an SavedHloSharding proto; neither means unspecified."""
    if (named := t.table(2, "named sharding")) is not None:
        return _read_sharding(named, meshes)
    proto = t.bytes(1)
    return None if proto is None else SavedHloSharding(proto)


def _read_exported(t: _Table, depth: int) -> Artifact:
    if depth > MAX_DEPTH:
        raise ValueError("corrupt JAX export artifact: vjp nested too deeply")
    version = t.scalar(0, N.Uint16Flags)
    if version == 0:
        raise ValueError("not a JAX export artifact: no serialization_version")
    if version > NEWEST_VERSION:
        raise ValueError(
            f"JAX export artifact has serialization version {version}"
            f"; this reader supports versions up to {NEWEST_VERSION}"
        )
    # Since schema v10 each distinct aval, mesh and sharding is stored once.
    avals = [_read_aval(a) for a in t.tables(19, "aval")]
    meshes = [_read_mesh(m) for m in t.tables(20, "mesh")]
    shardings = [None] + [_read_sharding(s, meshes) for s in t.tables(21, "sharding")]

    def side(aval_slot, aval_idx_slot, sharding_slot, sharding_idx_slot):
        # Like serialization.py: use the indices if there are any (the sharding
        # index k > 0 is the (k-1)-th sharding, 0 is unspecified), else the
        # older per-argument fields.
        idxs = t.numbers(aval_idx_slot, "<u4")
        vals = (
            tuple(_pick(avals, i, "aval index") for i in idxs)
            if idxs
            else tuple(_read_aval(a) for a in t.tables(aval_slot, "aval"))
        )
        sh = t.numbers(sharding_idx_slot, "<u4")
        sh = (
            tuple(_pick(shardings, i, "sharding index") for i in sh)
            if sh
            else tuple(_read_old_sharding(s, meshes) for s in t.tables(sharding_slot, "sharding"))
        )
        if len(sh) != len(vals) and sh:
            raise ValueError("corrupt JAX export artifact: wrong number of shardings")
        return vals, sh or (None,) * len(vals), idxs

    in_avals, in_shardings, in_idxs = side(3, 22, 7, 24)
    out_avals, out_shardings, out_idxs = side(5, 23, 8, 25)
    in_tree = _read_tree(_needed(t.table(2, "in_tree"), "in_tree"))
    out_tree = _read_tree(_needed(t.table(4, "out_tree"), "out_tree"))
    if in_tree.num_leaves() != len(in_avals) or out_tree.num_leaves() != len(out_avals):
        raise ValueError("corrupt JAX export artifact: pytrees do not match avals")

    def check(c: _Table) -> str:
        kind = _pick(_CHECKS, c.scalar(0, N.Int8Flags), "disabled check")
        if kind == "custom_call":
            kind += ":" + _needed(c.string(1), "custom call target")
        return kind

    effects = lambda slot: tuple(
        _needed(e.string(0), "effect name") for e in t.tables(slot, "effect")
    )
    vjp = t.table(17, "vjp")
    return Artifact(
        serialization_version=version,
        function_name=_needed(t.string(1), "function name"),
        in_tree=in_tree,
        out_tree=out_tree,
        in_avals=in_avals,
        out_avals=out_avals,
        in_shardings=in_shardings,
        out_shardings=out_shardings,
        # The 32-bit field 18 replaced the 16-bit field 6 in Nov 2025.
        nr_devices=t.scalar(18, N.Uint32Flags) or t.scalar(6, N.Int16Flags),
        platforms=t.strings(9),
        ordered_effects=effects(10),
        unordered_effects=effects(11),
        disabled_checks=tuple(check(c) for c in t.tables(12, "check")),
        mlir_module_serialized=_needed(t.bytes(13), "MLIR module"),
        calling_convention_version=t.scalar(14, N.Uint16Flags),
        module_kept_var_idx=tuple(t.numbers(15, "<u2")),
        uses_global_constants=bool(t.scalar(16, N.BoolFlags)),
        vjp=None if vjp is None else _read_exported(vjp, depth + 1),
        aval_groups=tuple(in_idxs + out_idxs) if avals else None,
    )


# Each writer follows a _serialize_* function of serialization.py: it makes
# the same objects in the same order and adds the same fields in the same
# order, since all of that shows in the bytes.  Fields equal to 0 (offsets
# and scalars alike) are left out, as the generated code does.


def _vector(b: flatbuffers.Builder, offsets: list[int]) -> int:
    b.StartVector(4, len(offsets), 4)
    for off in reversed(offsets):
        b.PrependUOffsetTRelative(off)
    return b.EndVector()


def _strings(b: flatbuffers.Builder, strings) -> int:
    return _vector(b, [b.CreateString(s) for s in strings])


def _numbers(b: flatbuffers.Builder, values, dtype: str) -> int:
    # The same bytes as JAX's loops of PrependUint32 (or PrependByte).
    return b.CreateNumpyVector(np.array(values, dtype=dtype))


def _table(b: flatbuffers.Builder, num_slots: int, *fields) -> int:
    """Fields are (slot, offset) or (slot, value, "Int8" or another type)."""
    b.StartObject(num_slots)
    for slot, value, *kind in fields:
        prepend = f"Prepend{kind[0] if kind else 'UOffsetTRelative'}Slot"
        getattr(b, prepend)(slot, value, 0)
    return b.EndObject()


def _write_tree(b, tree: TreeDef) -> int:
    # Children only if there are some; keys for every dict, even empty ones.
    children = 0
    if tree.children:
        children = _vector(b, [_write_tree(b, c) for c in tree.children])
    names = _strings(b, tree.names) if tree.kind == "dict" else 0
    custom = tree.kind == "custom"
    custom_name = b.CreateString(tree.custom_name) if custom else 0
    auxdata = b.CreateByteVector(bytes(tree.custom_auxdata)) if custom else 0
    return _table(b, 5, (0, _TREE_KINDS.index(tree.kind), "Int8"), (1, children), (2, names),
                  (3, custom_name), (4, auxdata))


def _write_aval(b, aval: Aval) -> int:
    shape = _strings(b, [str(d) for d in aval.shape])
    return _table(b, 4, (1, shape), (2, _DTYPE_CODES[aval.dtype], "Int8"),
                  (3, _MEMORY_SPACES.index(aval.memory_space), "Int8"))


def _write_mesh(b, mesh: AbstractMesh) -> int:
    sizes = _numbers(b, mesh.axis_sizes, "<u4")
    names = _strings(b, mesh.axis_names)
    types = _numbers(b, [_AXIS_TYPES.index(a) for a in mesh.axis_types], "u1")
    device = 0
    if mesh.device_kind is not None:
        kind = b.CreateString(mesh.device_kind)
        platform = 0 if mesh.platform is None else b.CreateString(mesh.platform)
        b.StartObject(3)
        b.PrependUOffsetTRelativeSlot(0, kind, 0)
        if mesh.num_cores is not None:  # no default value: written even if 0
            b.PrependUint32Slot(1, mesh.num_cores, None)
        b.PrependUOffsetTRelativeSlot(2, platform, 0)
        device = b.EndObject()
    return _table(b, 4, (0, sizes), (1, names), (2, types), (3, device))


def _write_sharding(b, s: AbstractSharding, mesh_index: int) -> int:
    # A full copy of the mesh, and its index among the unique meshes too.
    mesh = _write_mesh(b, s.mesh)
    axes = [() if a is None else (a,) if isinstance(a, str) else a for a in s.spec]
    partitions = _vector(b, [_table(b, 1, (0, _strings(b, a))) for a in axes])
    reduced, unreduced = _strings(b, s.reduced), _strings(b, s.unreduced)
    spec = _table(b, 3, (0, partitions), (1, reduced), (2, unreduced))
    memory_kind = 0 if s.memory_kind is None else b.CreateString(s.memory_kind)
    return _table(b, 4, (0, mesh), (1, spec), (2, memory_kind), (3, mesh_index, "Uint32"))


def _aval_groups(a: Artifact) -> list[int]:
    """The index of each aval (inputs, then outputs) among the unique avals.
    `a.aval_groups` is used if new indices come in order 0, 1, 2, ... and
    equal indices go with equal avals; otherwise equal avals are merged."""
    avals, groups = a.in_avals + a.out_avals, a.aval_groups
    if groups is not None and len(groups) == len(avals):
        first: list[Aval] = []
        for i, aval in zip(groups, avals):
            if i == len(first):
                first.append(aval)
            elif i > len(first) or first[i] != aval:
                break
        else:
            return list(groups)
    seen: dict[Aval, int] = {}
    return [seen.setdefault(aval, len(seen)) for aval in avals]


def _write_exported(b, a: Artifact) -> int:
    n_in = len(a.in_avals)
    in_sh = a.in_shardings or (None,) * n_in
    out_sh = a.out_shardings or (None,) * len(a.out_avals)
    if (len(in_sh), len(out_sh)) != (n_in, len(a.out_avals)):
        raise ValueError("need one sharding (or None) per input and output aval")
    if any(isinstance(s, SavedHloSharding) for s in in_sh + out_sh):
        raise ValueError("cannot write SavedHloSharding; JAX writes only AbstractSharding")
    # The unique meshes and shardings in order of first use (_SerializedUniques).
    meshes: dict[AbstractMesh, int] = {}
    shardings: dict[AbstractSharding, int] = {}
    for s in [s for s in in_sh + out_sh if s is not None]:
        meshes.setdefault(s.mesh, len(meshes))
        shardings.setdefault(s, len(shardings))
    groups = _aval_groups(a)
    avals = dict(zip(groups, a.in_avals + a.out_avals))

    def old_sharding(s):  # the per-argument table of schema versions before 10
        return _table(b, 3, (2, 0 if s is None else _write_sharding(b, s, meshes[s.mesh])))

    def effects(names):
        return _vector(b, [_table(b, 1, (0, b.CreateString(n))) for n in names])

    def check(c: str):
        kind, _, target = c.partition(":")
        return _table(b, 2, (0, _CHECKS.index(kind), "Int8"),
                      (1, b.CreateString(target) if kind == "custom_call" else 0))

    name = b.CreateString(a.function_name)
    in_tree = _write_tree(b, a.in_tree)
    in_avals = _vector(b, [_write_aval(b, x) for x in a.in_avals])
    out_tree = _write_tree(b, a.out_tree)
    out_avals = _vector(b, [_write_aval(b, x) for x in a.out_avals])
    in_shardings = _vector(b, [old_sharding(s) for s in in_sh])
    out_shardings = _vector(b, [old_sharding(s) for s in out_sh])
    ordered, unordered = effects(a.ordered_effects), effects(a.unordered_effects)
    checks = _vector(b, [check(c) for c in a.disabled_checks])
    platforms = _strings(b, a.platforms)
    module = b.CreateByteVector(bytes(a.mlir_module_serialized))
    kept = _numbers(b, a.module_kept_var_idx, "<u2")
    vjp = 0 if a.vjp is None else _write_exported(b, a.vjp)
    unique_avals = _vector(b, [_write_aval(b, avals[i]) for i in range(len(avals))])
    unique_meshes = _vector(b, [_write_mesh(b, m) for m in meshes])
    unique_shardings = _vector(b, [_write_sharding(b, s, meshes[s.mesh]) for s in shardings])
    in_idxs = _numbers(b, groups[:n_in], "<u4")
    out_idxs = _numbers(b, groups[n_in:], "<u4")
    sh_idxs = lambda shs: _numbers(b, [0 if s is None else 1 + shardings[s] for s in shs], "<u4")
    in_sh_idxs, out_sh_idxs = sh_idxs(in_sh), sh_idxs(out_sh)
    return _table(  # in the order of _serialize_exported
        b,
        26,
        (0, a.serialization_version, "Uint16"),
        (1, name),
        (2, in_tree),
        (3, in_avals),
        (4, out_tree),
        (5, out_avals),
        (18, a.nr_devices, "Uint32"),
        (7, in_shardings),
        (8, out_shardings),
        (9, platforms),
        (10, ordered),
        (11, unordered),
        (12, checks),
        (13, module),
        (14, a.calling_convention_version, "Uint16"),
        (15, kept),
        (16, a.uses_global_constants, "Bool"),
        (17, vjp),
        (19, unique_avals),
        (20, unique_meshes),
        (21, unique_shardings),
        (22, in_idxs),
        (23, out_idxs),
        (24, in_sh_idxs),
        (25, out_sh_idxs),
    )


def write_artifact(a: Artifact) -> bytes:
    """Encode `a` as `Exported.serialize()` of JAX 0.10.2 does."""
    b = flatbuffers.Builder(65536)
    b.Finish(_write_exported(b, a))
    return bytes(b.Output())


class InputError(ValueError):
    """An input that does not fit the artifact: the wrong count, dtype or shape."""


def has_constant_shapes(avals) -> bool:
    """Whether every dimension of `avals` is a number (not a symbolic dimension)."""
    return all(isinstance(d, (int, np.integer)) for a in avals for d in a.shape)


def input_names(tree: TreeDef) -> list:
    """JAX's names of the flat inputs of the tree of `(args, kwargs)`: `args[0]`, `kwargs['y']`."""
    names = []

    def walk(node, path):
        if node.kind == "leaf":
            names.append(path)
        elif node.kind == "dict":
            for k, child in zip(node.names, node.children):
                walk(child, f"{path}[{k!r}]")
        else:
            for i, child in enumerate(node.children):
                walk(child, f"{path}[{i}]")
    if tree.kind == "tuple" and len(tree.children) == 2:
        walk(tree.children[0], "args")
        walk(tree.children[1], "kwargs")
    else:
        walk(tree, "args")
    return names


def check_inputs(artifact: Artifact, arrays: list) -> None:
    """Raise InputError, naming the input, where `arrays` do not match the artifact's inputs."""
    avals, names = artifact.in_avals, input_names(artifact.in_tree)
    if len(arrays) != len(avals):
        want = ", ".join(f"{n}: {_type(a.shape, a.dtype)}" for n, a in zip(names, avals))
        raise InputError(f"'{artifact.function_name}' takes {len(avals)} inputs ({want}), "
                         f"given {len(arrays)}")
    for name, a, x in zip(names, avals, arrays):
        fits = len(x.shape) == len(a.shape) and all(
            isinstance(d, str) or d == n for d, n in zip(a.shape, x.shape))  # "b": any size
        if x.dtype != a.dtype or not fits:
            order = {">": " in big-endian byte order", "<": " in little-endian byte order"}
            raise InputError(f"input {name} of '{artifact.function_name}' must be "
                             f"{_type(a.shape, a.dtype)}, given {_type(x.shape, x.dtype)}"
                             f"{order.get(x.dtype.byteorder, '')}")


def _type(shape, dtype) -> str:
    return f"{np.dtype(dtype).name}[{','.join(map(str, shape))}]"


def check_call_avals(fun_name: str, names, want: tuple, got: tuple) -> None:
    """JAX's checks of the types `got` (each with a shape and a dtype) of a call's flat inputs
    against the exported types `want`, in JAX's words; `names()` gives the inputs' names."""
    if len(got) != len(want):
        raise ValueError(f"'{fun_name}' takes {len(want)} flat inputs, called with {len(got)}")
    for i, (g, w) in enumerate(zip(got, want)):
        if len(g.shape) != len(w.shape):
            raise ValueError(f"Rank mismatch for {names()[i]}: expected {w.shape} and called "
                             f"with {g.shape}")
        if g.dtype != w.dtype:
            raise ValueError(f"Dtype mismatch for {names()[i]}: expected {w.dtype} and called "
                             f"with {g.dtype}")
        for d, (gd, wd) in enumerate(zip(g.shape, w.shape)):
            if gd != wd and not isinstance(wd, str):      # a symbolic dimension takes any size
                raise ValueError(f"Shape mismatch for {names()[i]}.shape[{d}] (expected same "
                                 f"constant): expected {w.shape} and called with {g.shape}")


def check_dimension_variables(artifact: Artifact, shapes) -> None:
    """JAX's checks of the dimension variables that stand alone in the input shapes (`b`, not
    `2*b`, which the module's shape assertions check): one size per variable, at least 1."""
    names, found, problem = input_names(artifact.in_tree), {}, None
    for name, aval, shape in zip(names, artifact.in_avals, shapes):
        for d, (dim, size) in enumerate(zip(aval.shape, shape)):
            if not (isinstance(dim, str) and dim.isidentifier()):
                continue
            if dim not in found:
                found[dim] = (size, f"{name}.shape[{d}]")
            elif found[dim][0] != size and problem is None:
                problem = (f"Found inconsistency between dimension size {name}.shape[{d}] "
                           f"(= {size}) and the specification '{dim}' (= {found[dim][0]})")
    if problem is None:
        problem = next((f"Expected value >= 1 for dimension variable '{dim}'"
                        for dim, (size, _) in found.items() if size < 1), None)
    if problem is not None:                                # JAX's words
        def spec(shape):
            return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
        specs = ",".join(f"{n}.shape = {spec(a.shape)}" for n, a in zip(names, artifact.in_avals))
        obtained = "".join(f"'{dim}' = {size} from specification '{dim}' for dimension {where} "
                           f"(= {size}), " for dim, (size, where) in found.items())
        raise ValueError(
            f"Input shapes do not match the polymorphic shapes specification. {problem}. Using "
            f"the following polymorphic shapes specifications: {specs}. Obtained dimension "
            f"variables: {obtained}. Please see https://docs.jax.dev/en/latest/export/"
            "shape_poly.html#shape-assertion-errors for more details.")


def result_names(tree: TreeDef) -> list:
    """JAX's names of the flat outputs: `result`, `result[0]`, `result['loss']`."""
    return [name.replace("args", "result", 1) for name in input_names(
        TreeDef("tuple", (tree, TreeDef("dict"))))]


def module_bytecode(module) -> bytes:
    """An MLIR module as bytecode, which XLA compiles as it compiles text."""
    out = io.BytesIO()
    module.operation.write_bytecode(out)
    return out.getvalue()


def main_function(module):
    """The `main` function of a module."""
    for op in module.body.operations:
        if "sym_name" in op.attributes and ir.StringAttr(op.attributes["sym_name"]).value == "main":
            return op
    raise ValueError("corrupt JAX export artifact: its module has no main function")


def function_type(op) -> ir.FunctionType:
    return ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)


def wrap_main(module, old_name: str, inputs, arguments):
    """Rename `main` to a private `old_name`, and add a public `main` that takes inputs of
    types `inputs` and returns what the old one returns for `arguments(its inputs)`. JAX wraps
    an exported `main` so to give it other types (below) or more inputs (the platform's index,
    in `export`). Returns the new `main`."""
    old = main_function(module)
    old_type = function_type(old)
    ir.SymbolTable.set_symbol_name(old, old_name)
    old.attributes["sym_visibility"] = ir.StringAttr.get("private")
    with ir.InsertionPoint.at_block_begin(module.body):
        new = func.FuncOp("main", ir.FunctionType.get(list(inputs), old_type.results))
    new.attributes["sym_visibility"] = ir.StringAttr.get("public")
    block = new.add_entry_block()
    with ir.InsertionPoint(block):
        call = func.CallOp(list(old_type.results), ir.FlatSymbolRefAttr.get(old_name),
                           arguments(list(block.arguments)))
        func.return_(list(call.results))
    return new


def _call_with_shapes(module, arg_shapes) -> None:
    """A `main` for inputs of `arg_shapes` that casts them to the old one's symbolic types
    (`tensor<?x4xf32>`) and calls it: what JAX's `call` emits, and what shape refinement then
    propagates through the module."""
    old = function_type(main_function(module))
    types = [ir.RankedTensorType.get(shape, ir.RankedTensorType(t).element_type)
             for shape, t in zip(arg_shapes, old.inputs)]
    wrap_main(module, "_exported_main", types,
              lambda args: [hlo.convert(t, a) for a, t in zip(args, old.inputs)])


def take_platform_index(module) -> None:
    """Rename `main` and add a `main` that takes an i32 `_platform_index` first, then calls the
    old one, as JAX's modules for several platforms do."""
    old = main_function(module)
    old_inputs = function_type(old).inputs
    index = ir.RankedTensorType.get((), ir.IntegerType.get_signless(32))
    new = wrap_main(module, "_wrapped_jax_export_main", [index, *old_inputs],
                    lambda args: args[1:])
    attrs = [ir.DictAttr.get({"jax.global_constant": ir.StringAttr.get("_platform_index")})]
    old_args = list(old.attributes["arg_attrs"]) if "arg_attrs" in old.attributes else [
        ir.DictAttr.get({}) for _ in old_inputs]
    new.attributes["arg_attrs"] = ir.ArrayAttr.get(attrs + old_args)
    if "res_attrs" in old.attributes:
        new.attributes["res_attrs"] = old.attributes["res_attrs"]


def refine_shapes(module, arg_shapes) -> tuple[bytes, list]:
    """`module`, with symbolic dimensions, refined for inputs of `arg_shapes` (one shape per
    input it takes), as MLIR bytecode, and the shapes of its results. Call it inside the MLIR
    context `module` lives in."""
    _call_with_shapes(module, arg_shapes)
    try:
        refined = _jax.mlir.refine_polymorphic_shapes(
            module_bytecode(module), enable_shape_assertions=True, validate_static_shapes=True)
    except xc.XlaRuntimeError as e:   # a failed shape assertion carries JAX's message
        message = str(e).split('loc("shape_assertion"): ', 1)[-1].split("\n", 1)[0]
        raise ValueError(message) from None
    results = function_type(main_function(ir.Module.parse(refined))).results
    return refined, [tuple(ir.RankedTensorType(t).shape) for t in results]


def part_indices(hlo_sharding, shape: tuple, n: int) -> list:
    """The index (a tuple of slices) of the part of an array of `shape` that each of `n`
    devices holds under `hlo_sharding`: XLA's tile assignment, read as JAX reads it."""
    if hlo_sharding.is_replicated() or n == 1:
        return [tuple(slice(None) for _ in shape)] * n
    dims = list(hlo_sharding.tile_assignment_dimensions())
    tiles = np.array(hlo_sharding.tile_assignment_devices()).reshape(dims)
    index = [None] * n
    for position in np.ndindex(*dims):
        slices = tuple(slice(p * (size // t), (p + 1) * (size // t))
                       for p, size, t in zip(position, shape, dims))
        index[tiles[position]] = slices        # trailing dims (replicas) are not array dims
    return index


MAX_ARTIFACT_BYTES = 2**31  # FlatBuffers address 2 GiB at most

# The MLIR element type of each dtype of the schema (the PRNG keys and float0 have none of their
# own, and are not compared).
_MLIR_ELEMENTS = dict(zip(_DTYPE_NAMES[:22] + _DTYPE_NAMES[23:27], (
    "i1 i8 i16 i32 i64 ui8 ui16 ui32 ui64 f16 f32 f64 complex<f32> complex<f64> bf16 i4 ui4 "
    "f8E4M3B11FNUZ f8E4M3FN f8E4M3FNUZ f8E5M2 f8E5M2FNUZ f8E4M3 f8E3M4 f8E8M0FNU f4E2M1FN"
).split()))


def check_artifact(artifact: Artifact) -> None:
    """Raise ValueError where the fields of `artifact` contradict each other."""
    name, n, kept = artifact.function_name, artifact.nr_devices, list(artifact.module_kept_var_idx)
    if kept != sorted(set(kept)) or not all(0 <= i < len(artifact.in_avals) for i in kept):
        raise ValueError(f"corrupt JAX export artifact: module_kept_var_idx {tuple(kept)} of "
                         f"'{name}' must be sorted, distinct indices of its "
                         f"{len(artifact.in_avals)} inputs")
    for effect in artifact.ordered_effects + artifact.unordered_effects:
        raise ValueError(f"cannot deserialize effect type {effect} of '{name}': autodidax runs "
                         "programs without effects")
    if n < 1:
        raise ValueError(f"corrupt JAX export artifact: '{name}' is for {n} devices")
    for s in artifact.in_shardings + artifact.out_shardings:
        if isinstance(s, AbstractSharding) and int(np.prod(s.mesh.axis_sizes)) != n:
            raise ValueError(f"corrupt JAX export artifact: '{name}' is for {n} devices but "
                             f"has a sharding over {int(np.prod(s.mesh.axis_sizes))}: {s}")


def _fits(aval: Aval, t) -> bool:
    element = _MLIR_ELEMENTS.get(str(aval.dtype))
    if element is None:                       # a PRNG key or float0
        return True
    try:
        t = ir.RankedTensorType(t)
    except ValueError:                        # not a ranked tensor
        return False
    return str(t.element_type) == element and t.rank == len(aval.shape) and all(
        isinstance(d, str) or d == size for d, size in zip(aval.shape, t.shape))


def check_module(artifact: Artifact, module) -> None:
    """Raise ValueError where the StableHLO `module` does not take and return what `artifact`
    says, or is for another number of devices. `artifact` has passed `check_artifact`."""
    name, attributes = artifact.function_name, module.operation.attributes

    def count(key):
        return ir.IntegerAttr(attributes[key]).value if key in attributes else 1
    n = count("mhlo.num_partitions") * count("mhlo.num_replicas")
    if n != artifact.nr_devices:
        raise ValueError(f"'{name}' was exported for {artifact.nr_devices} devices (its "
                         f"nr_devices), but its module is for {n} (mhlo.num_partitions)")
    main = function_type(main_function(module))
    ins = [Aval((), np.int32)] * (len(artifact.platforms) > 1) + [
        artifact.in_avals[i] for i in artifact.module_kept_var_idx]
    for what, avals, types in [("takes", ins, main.inputs),
                               ("returns", artifact.out_avals, main.results)]:
        if len(avals) != len(types) or not all(map(_fits, avals, types)):
            said = ", ".join(_type(a.shape, a.dtype) for a in avals)
            raise ValueError(f"corrupt JAX export artifact: the module of '{name}' {what} "
                             f"({', '.join(map(str, types))}), the artifact says ({said})")


_READ_MODULE = """
import sys
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import sdy, stablehlo as hlo
with ir.Context() as context:
    hlo.register_dialect(context)
    sdy.register_dialect(context)
    try:
        module = hlo.deserialize_portable_artifact(context, sys.stdin.buffer.read())
    except ValueError as e:
        sys.exit(str(e))
    module.operation.write_bytecode(sys.stdout.buffer)
"""


def read_module_isolated(artifact: Artifact, timeout: float = 60) -> bytes:
    """The module of `artifact` as StableHLO bytecode, deserialized in a child process that may
    crash or hang without harm, then checked against the artifact (`check_module`)."""
    check_artifact(artifact)
    name = artifact.function_name
    try:
        done = subprocess.run([sys.executable, "-c", _READ_MODULE], capture_output=True,
                              input=artifact.mlir_module_serialized, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ValueError(f"reading the module of '{name}' took more than {timeout:g} s: it is "
                         "corrupt, or larger than the time limit allows") from None
    if done.returncode < 0:
        raise ValueError(f"reading the module of '{name}' crashed the process that read it "
                         f"({signal.Signals(-done.returncode).name}): the module is corrupt")
    if done.returncode:
        said = done.stderr.decode(errors="replace").strip().splitlines() or ["no message"]
        raise ValueError(f"the module of '{name}' cannot be read: {said[-1]}")
    with mlir_context():
        check_module(artifact, ir.Module.parse(done.stdout))
    return done.stdout


def mlir_context() -> ir.Context:
    """An MLIR context that knows the dialects of an artifact's module: MLIR's own (`func`),
    StableHLO and Shardy's `sdy`."""
    context, registry = ir.Context(), ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)
    context.append_dialect_registry(registry)
    hlo.register_dialect(context)
    sdy.register_dialect(context)
    return context


def _open_regular(path, what: str):
    """`path` opened for reading, if it is a regular file (a FIFO does not block the open)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(f"{path} is not a regular file, as {what} must be")
    return os.fdopen(fd, "rb")


def read_file(path, limit: int = MAX_ARTIFACT_BYTES) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them."""
    with _open_regular(path, "an artifact") as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise ValueError(f"{path} has {size} bytes, more than an artifact can ({limit})")
        return f.read(size)


def load_array(path) -> np.ndarray:
    """The array of the `.npy` file `path`, its header checked against the file's size first."""
    with _open_regular(path, "an input") as f:
        if f.read(4) == b"PK\x03\x04":
            raise ValueError(f"{path} is an .npz archive: give each input as an .npy file")
        f.seek(0)
        try:
            version = np.lib.format.read_magic(f)
            shape, _, dtype = (np.lib.format.read_array_header_1_0 if version == (1, 0) else
                               np.lib.format.read_array_header_2_0)(f)
        except ValueError as e:
            raise ValueError(f"{path} is not an .npy file: {e}") from None
        declared = int(np.prod(shape, dtype=object)) * dtype.itemsize
        held = os.fstat(f.fileno()).st_size - f.tell()
        if declared > held:
            raise ValueError(f"{path} declares {_type(shape, dtype)}, {declared} bytes, but "
                             f"holds {held}")
        f.seek(0)
        return np.lib.format.read_array(f, allow_pickle=False)


def check_output(path) -> None:
    """Refuse, before anything runs, an `--output` that names a directory or cannot be made
    (None: no output)."""
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise ValueError(f"--output {path} is a directory: name a file in it, such as "
                         f"{os.path.join(path, 'results.npz')}")
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        raise ValueError(f"--output {path} cannot be written: {folder} is not a writable "
                         "directory")


def save_results(path, results: dict) -> None:
    """`results` as an .npz archive at exactly `path` (`np.savez` would add `.npz` to a name)."""
    with open(path, "wb") as f:
        np.savez(f, **results)
