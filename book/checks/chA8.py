"""Checks of appendix A8's exercises (chapters/A8_export_format.md): each takes the notebook's
namespace."""
import dataclasses
from pathlib import Path

import flatbuffers
import flatbuffers.encode
import flatbuffers.table
import numpy as np

import autodidax.export
from autodidax import serialization
from book.exercises import watch

SINES = Path(__file__).resolve().parents[2] / "chapters" / "artifacts" / "sines_by_jax.jaxexport"


def _artifacts(nb):
    """What the checks read: (a description, the bytes)."""
    exported, exported8, old = nb["exported"], nb["exported8"], nb["old"]
    edited = dataclasses.replace(serialization.read_artifact(exported.serialize()),
                                 function_name="f_édité", platforms=("cuda", "cpu"),
                                 calling_convention_version=0, nr_devices=70000)
    return [("chapter 17's `exported`", bytes(exported.serialize())),
            ("`exported8`", bytes(exported8.serialize())),
            ("JAX's sines_by_jax", SINES.read_bytes()),
            ("the edited `exported`", serialization.write_artifact(edited)), ("`old`", old)]


def _reading(nb, function, what, blob):
    """`function(blob)`, with what it calls of the package or of flatbuffers refused."""
    try:
        with watch(serialization, autodidax.export, flatbuffers.table, flatbuffers.encode,
                   nb["read_artifact"]) as seen:
            got = function(blob)
    except NotImplementedError:
        raise
    except Exception as e:
        hint = ("a symbolic dimension such as 'b' stays a string" if "for int()" in str(e) else
                "is each offset followed from the right place, in the right direction?")
        raise AssertionError(f"reading {what} raised {type(e).__name__}: {e}: {hint}")
    assert not seen, f"{function.__name__} called {seen[0]}: read the bytes yourself"
    return got


HINTS = {"calling_convention_version": "a vtable entry of 0 means the field is absent, and "
                                       "takes its default, 0",
         "nr_devices": "a uint32 in slot 18, or an int16 in slot 6 where slot 18 is absent; "
                       "a slot past the end of the vtable is absent"}


def check_read_fields(nb):
    """1. An artifact's fields, by hand: `field`, `deref` and `read_fields` against the reader."""
    read_fields, field, u32 = nb["read_fields"], nb["field"], nb["u32"]
    for what, blob in _artifacts(nb):
        got = _reading(nb, read_fields, what, blob)
        a = serialization.read_artifact(blob)
        want = {"serialization_version": a.serialization_version,
                "function_name": a.function_name, "platforms": tuple(a.platforms),
                "module": a.mlir_module_serialized,
                "calling_convention_version": a.calling_convention_version,
                "nr_devices": a.nr_devices}
        assert isinstance(got, dict) and set(got) == set(want), \
            f"read_fields should return a dict with the keys {sorted(want)}, got {got!r}"
        for key in want:
            if key == "module":
                assert got[key] == want[key], \
                    f"the module of {what} should be its {len(want[key])} bytes, got " \
                    f"{len(got[key])} bytes starting {bytes(got[key][:8])!r}"
            else:
                assert got[key] == want[key], \
                    f"{key} of {what} should be {want[key]!r}, got {got[key]!r}" + (
                        f": {HINTS[key]}" if key in HINTS else "")
    b = flatbuffers.Builder(64)         # tables of 3 slots, with fields in slots 0 and 2 only:
    for v in (5, 6, 7):                 # the last shares the vtable of one written before it,
        b.StartObject(3)                # which lies after it in the bytes
        b.PrependUint16Slot(0, v, 0)
        b.PrependUint32Slot(2, 9, 0)
        last = b.EndObject()
    b.Finish(last)
    tiny = bytes(b.Output())
    table = flatbuffers.table.Table(tiny, u32(tiny, 0))
    want = [table.Pos + table.Offset(4 + 2 * s) if table.Offset(4 + 2 * s) else None
            for s in range(4)]
    try:
        got = [field(tiny, table.Pos, s) for s in range(4)]
    except Exception as e:
        raise AssertionError(f"field raised {type(e).__name__}: {e}, on a table whose vtable "
                             "comes after it (one vtable shared by tables of the same layout): "
                             "the offset to the vtable is signed") from None
    assert got == want, f"in a table with fields in slots 0 and 2, field(data, table, slot) " \
        f"for slots 0 to 3 should be {want}, got {got}: slot 2 is the vtable's last entry"


def check_input_types(nb):
    """2. The inputs, by name and type: `input_types` against the reader's names and avals."""
    input_types, newer, jax, jnp = nb["input_types"], nb["newer"], nb["jax"], nb["jnp"]

    def nested(params, nothing, xs, *, scale):
        return (params["w"] @ xs[0] * scale + params["b"].astype(jnp.float32)
                + xs[1][1].astype(jnp.float32).sum())
    spec = jax.ShapeDtypeStruct
    exported_nested = jax.export.export(jax.jit(nested))(
        {"w": spec((2, 3), np.float32), "b": spec((2,), np.int16)},
        None, [spec((3,), np.float32), (None, spec((4, 1), np.float16))], scale=np.float32(2))
    for what, blob in _artifacts(nb) + [("`newer`", newer),
                                        ("the export of `nested`", exported_nested.serialize())]:
        got = _reading(nb, input_types, what, blob)
        a = serialization.read_artifact(blob)
        want = [(name, str(v.dtype), tuple(v.shape))
                for name, v in zip(serialization.input_names(a.in_tree), a.in_avals)]
        assert isinstance(got, list) and len(got) == len(want), \
            f"{what} has {len(want)} flat inputs, {want}; you gave {got!r}: read slot 22's " \
            "indices into slot 19 where slot 22 is there, else slot 3"
        for g, w in zip(got, want):
            assert tuple(g)[:1] == w[:1], \
                f"the inputs of {what} are named {[n for n, _, _ in want]}; you named one " \
                f"{tuple(g)[0]!r}: the root is (args, kwargs), a dict's keys are in slot 2, " \
                "and None is no input"
            assert tuple(g) == w, f"{w[0]} of {what} should be {w}, you gave {tuple(g)}"
