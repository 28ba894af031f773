"""Appendix A8's reader and writer of JAX's export format (`autodidax/serialization.py`), against JAX
0.10.2: byte-for-byte round trips of real artifacts, and clear errors for bad files."""

import jax


import collections
import dataclasses
import importlib

import flatbuffers
import ml_dtypes
import numpy as np
import pytest
import jax.numpy as jnp
from jax import export
from jax.sharding import NamedSharding as JNamedSharding, PartitionSpec as P

from autodidax import serialization as ef

f32 = lambda *shape: jax.ShapeDtypeStruct(shape, jnp.float32)
Point = collections.namedtuple("Point", "x y")
export.register_namedtuple_serialization(Point, serialized_name="test.Point")


def _serialize(fun, *args, jit_kwargs=None, export_kwargs=None, vjp_order=0, **kwargs):
    exp = export.export(jax.jit(fun, **(jit_kwargs or {})), **(export_kwargs or {}))(
        *args, **kwargs
    )
    return bytes(exp.serialize(vjp_order=vjp_order))


def _cases():
    mesh1 = jax.make_mesh((8,), ("x",))
    mesh2 = jax.make_mesh((2, 4), ("x", "y"))
    s1 = lambda spec: JNamedSharding(mesh1, spec)
    s2 = lambda spec: JNamedSharding(mesh2, spec)
    dtypes = [
        jnp.bool_,
        jnp.int8,
        jnp.int32,
        jnp.uint32,
        jnp.float16,
        jnp.bfloat16,
        jnp.float32,
        ml_dtypes.float8_e4m3fn,
        jnp.complex64,
    ]
    return {
        "one_f32": lambda: _serialize(jnp.sin, f32(3)),
        "dtypes": lambda: _serialize(
            lambda *xs: tuple(x[::-1] for x in xs),
            *[jax.ShapeDtypeStruct((2, 3), d) for d in dtypes]
        ),
        "pytrees": lambda: _serialize(
            lambda x, *, y: {"a": [x[0], None], "b": (y["k"], x[1][0])},
            (f32(2), [f32(3)]),
            y={"k": f32(4), "none": None, "e": {}},
        ),
        "namedtuple": lambda: _serialize(lambda p: Point(p.y, p.x), Point(f32(1), f32(2))),
        "platforms_checks": lambda: _serialize(
            jnp.cos,
            f32(2),
            export_kwargs=dict(
                platforms=("cpu", "cuda"),
                disabled_checks=[
                    export.DisabledSafetyCheck.platform(),
                    export.DisabledSafetyCheck.custom_call("tgt"),
                ],
            ),
        ),
        "no_inputs": lambda: _serialize(lambda: (jnp.arange(3), 1.0)),
        "scalar_weak": lambda: _serialize(lambda x, y: (x * 2, y, 2.0), 1.0, f32()),
        "poly": lambda: _serialize(
            lambda x: (x.sum(0), x * 2),
            jax.ShapeDtypeStruct(export.symbolic_shape("b, 4"), jnp.float32),
        ),
        "vjp": lambda: _serialize(lambda x, y: jnp.sin(x) * y, f32(3), f32(3), vjp_order=1),
        "key_float0": lambda: _serialize(  # the vjp has float0 cotangents
            lambda k, n, x: (jax.random.split(k), x * n),
            jax.random.key(0),
            jnp.int32(3),
            f32(2),
            vjp_order=1,
        ),
        "shard_1d": lambda: _serialize(
            lambda x, y: (x * 2, x + y),
            f32(16),
            f32(16),
            jit_kwargs=dict(
                in_shardings=(s1(P("x")), s1(P())), out_shardings=(s1(P("x")), s1(P()))
            ),
        ),
        "shard_2d": lambda: _serialize(
            lambda a, b, c, d: (a + b, c * d, a),
            *[f32(8, 8)] * 4,
            jit_kwargs=dict(
                in_shardings=(s2(P("x", "y")), s2(P(None, "y")), s2(P(("x", "y"))), s2(P())),
                out_shardings=(s2(P("x", "y")), s2(P()), s2(P(("x", "y")))),
            )
        ),
        "shard_2d_vjp": lambda: _serialize(
            lambda a: jnp.sin(a),
            f32(8, 8),
            vjp_order=1,
            jit_kwargs=dict(in_shardings=s2(P("x", "y"))),
        ),
    }


@pytest.fixture(scope="module")
def serialized():
    return {name: make() for name, make in _cases().items()}


def _same_exported(e1, e2):
    # Symbolic dimensions of two deserializations never compare equal.
    describe = lambda avals: [(str(a.shape), a.dtype, a.memory_space, a.sharding) for a in avals]
    assert describe(e1.in_avals) == describe(e2.in_avals)
    assert describe(e1.out_avals) == describe(e2.out_avals)
    for attr in (
        "fun_name",
        "in_tree",
        "out_tree",
        "in_shardings_hlo",
        "out_shardings_hlo",
        "nr_devices",
        "platforms",
        "ordered_effects",
        "unordered_effects",
        "disabled_safety_checks",
        "mlir_module_serialized",
        "calling_convention_version",
        "module_kept_var_idx",
        "uses_global_constants",
        "_in_named_shardings",
        "_out_named_shardings",
    ):
        assert getattr(e1, attr) == getattr(e2, attr), attr
    assert e1.has_vjp() == e2.has_vjp()


@pytest.mark.parametrize("name", list(_cases()))
def test_round_trip_is_byte_exact(serialized, name):
    data = serialized[name]
    art = ef.read_artifact(data)
    assert ef.write_artifact(art) == data
    # Merging equal avals changes the bytes, not what JAX reads.
    merged = dataclasses.replace(art, aval_groups=None)
    rewritten = ef.write_artifact(merged)
    assert ef.read_artifact(rewritten) == art
    _same_exported(export.deserialize(bytearray(data)), export.deserialize(bytearray(rewritten)))


def test_contents(serialized):
    a = ef.read_artifact(serialized["one_f32"])
    assert a.serialization_version == 3 and a.function_name == "sin"
    assert a.in_avals == (ef.Aval((3,), np.float32),) == a.out_avals
    assert a.in_shardings == (None,) and a.platforms == ("cpu",)
    assert a.nr_devices == 1 and a.calling_convention_version == 10
    assert a.in_tree == ef.TreeDef(
        "tuple", (ef.TreeDef("tuple", (ef.TreeDef("leaf"),)), ef.TreeDef("dict"))
    )

    a = ef.read_artifact(serialized["dtypes"])
    assert [v.dtype for v in a.in_avals] == [
        np.dtype(d)
        for d in (
            "bool",
            "int8",
            "int32",
            "uint32",
            "float16",
            ml_dtypes.bfloat16,
            "float32",
            ml_dtypes.float8_e4m3fn,
            "complex64",
        )
    ]

    a = ef.read_artifact(serialized["pytrees"])
    leaf, args, kwargs = ef.TreeDef("leaf"), *a.in_tree.children
    assert args == ef.TreeDef("tuple", (ef.TreeDef("tuple", (leaf, ef.TreeDef("list", (leaf,)))),))
    y = ef.TreeDef(
        "dict", (ef.TreeDef("dict"), leaf, ef.TreeDef("none")), ("e", "k", "none")
    )  # sorted keys; {} is an empty dict node
    assert kwargs == ef.TreeDef("dict", (y,), ("y",))
    assert a.out_tree == ef.TreeDef(
        "dict",
        (ef.TreeDef("list", (leaf, ef.TreeDef("none"))), ef.TreeDef("tuple", (leaf, leaf))),
        ("a", "b"),
    )

    a = ef.read_artifact(serialized["namedtuple"])
    point = a.out_tree
    assert point.kind == "custom" and point.custom_name == "test.Point"
    assert len(point.children) == 2

    a = ef.read_artifact(serialized["platforms_checks"])
    assert a.platforms == ("cpu", "cuda")
    assert a.disabled_checks == ("platform", "custom_call:tgt")

    a = ef.read_artifact(serialized["no_inputs"])
    assert a.in_avals == () and a.in_shardings == ()
    assert a.out_avals == (ef.Aval((3,), np.int32), ef.Aval((), np.float32))

    a = ef.read_artifact(serialized["scalar_weak"])
    assert a.in_avals == (ef.Aval((), np.float32),) * 2
    assert a.aval_groups == (0, 1, 0, 1, 0)  # JAX kept weak types apart

    a = ef.read_artifact(serialized["poly"])
    assert a.in_avals[0].shape == ("b", 4) and a.out_avals[0].shape == (4,)
    assert a.out_avals[1].shape == ("b", 4) and a.uses_global_constants

    a = ef.read_artifact(serialized["key_float0"])
    float0 = np.dtype([("float0", np.void, 0)])  # JAX's float0
    assert [v.dtype for v in a.in_avals] == ["key<fry>", np.int32, np.float32]
    assert [v.dtype for v in a.vjp.out_avals] == [float0, float0, np.float32]

    a = ef.read_artifact(serialized["vjp"])
    assert a.vjp is not None and a.vjp.vjp is None
    assert a.vjp.in_avals == (ef.Aval((3,), np.float32),) * 3
    assert a.vjp.out_avals == (ef.Aval((3,), np.float32),) * 2


def test_shardings(serialized):
    a = ef.read_artifact(serialized["shard_1d"])
    mesh = ef.AbstractMesh((8,), ("x",), ("Explicit",), "cpu", None, "cpu")
    assert a.nr_devices == 8
    assert a.in_shardings == (
        ef.AbstractSharding(mesh, ("x",), "device"),
        ef.AbstractSharding(mesh, (), "device"),
    )
    assert a.out_shardings == a.in_shardings

    a = ef.read_artifact(serialized["shard_2d"])
    mesh = ef.AbstractMesh((2, 4), ("x", "y"), ("Explicit",) * 2, "cpu", None, "cpu")
    specs = [("x", "y"), (None, "y"), (("x", "y"),), ()]
    assert a.in_shardings == tuple(ef.AbstractSharding(mesh, s, "device") for s in specs)
    assert [s.spec for s in a.out_shardings] == [("x", "y"), (), (("x", "y"),)]
    assert a.vjp is None

    a = ef.read_artifact(serialized["shard_2d_vjp"])
    assert a.vjp.in_shardings[0].spec == ("x", "y")


def test_hand_built_artifact(serialized):
    module = ef.read_artifact(serialized["one_f32"]).mlir_module_serialized
    leaf = ef.TreeDef("leaf")
    art = ef.Artifact(
        function_name="sin",
        in_tree=ef.TreeDef("tuple", (ef.TreeDef("tuple", (leaf,)), ef.TreeDef("dict"))),
        out_tree=leaf,
        in_avals=(ef.Aval([3], "float32"),),
        out_avals=(ef.Aval((3,), np.float32),),
        platforms=("cpu",),
        mlir_module_serialized=module,
        module_kept_var_idx=(0,),
    )
    data = ef.write_artifact(art)
    assert ef.read_artifact(data) == dataclasses.replace(
        art, in_shardings=(None,), out_shardings=(None,)
    )
    exp = export.deserialize(bytearray(data))
    np.testing.assert_allclose(exp.call(jnp.ones(3)), np.sin(np.ones(3)), rtol=1e-6)
    # Fields that no case above exercises (JAX would need the effect types).
    odd = dataclasses.replace(
        art,
        ordered_effects=("<class 'E1'>",),
        unordered_effects=("E2", "E3"),
        in_avals=(ef.Aval(("2*b + 1",), "key<urbg>", "Host"),),
        out_avals=(ef.Aval((), np.dtype([("float0", np.void, 0)])),),
        nr_devices=70000,
        out_shardings=(
            ef.AbstractSharding(
                ef.AbstractMesh((2,), ("x",), ("Manual",), "TPU v5", 0, "tpu"), (None,), None, ("x",), ()
            ),
        ),
    )
    assert ef.read_artifact(ef.write_artifact(odd)) == dataclasses.replace(
        odd, in_shardings=(None,)
    )


_BACK_COMPAT = "jax._src.internal_test_util.export_back_compat_test_data."


@pytest.mark.parametrize(
    "module",
    [
        "export_with_memory_space",
        "export_with_multiple_meshes",
        "export_with_specified_sharding",
        "export_with_unspecified_sharding",
    ],
)
def test_jax_saved_artifacts(module):
    """JAX's own saved exports, from schema version 4 to 11."""
    for saved in importlib.import_module(_BACK_COMPAT + module).serializations:
        data = bytes(saved["exported_serialized"])
        version = saved["serialization_version"]  # of the schema
        art = ef.read_artifact(data)
        assert art.serialization_version == (2 if version == 4 else 3)
        if version == 11:
            assert ef.write_artifact(art) == data
        if version <= 5:  # shardings are HloSharding protos only
            assert all(isinstance(s, ef.SavedHloSharding) for s in art.in_shardings)
            with pytest.raises(ValueError, match="HloSharding"):
                ef.write_artifact(art)
        else:  # written back in the current layout, read by JAX as before
            _same_exported(
                export.deserialize(bytearray(data)),
                export.deserialize(bytearray(ef.write_artifact(art))),
            )


# ---------------------------------------------------------------- bad input


def _read_or_value_error(data):
    try:
        return ef.read_artifact(data)
    except ValueError as e:
        return e


def test_empty_and_foreign_inputs():
    with pytest.raises(ValueError, match="empty"):
        ef.read_artifact(b"")
    for junk in (
        b"\x89PNG\r\n\x1a\n" + bytes(24),
        b"hello, world",
        b"%PDF-1.7\n" + b"x" * 100,
        bytes(16),
        b"\xff" * 64,
    ):
        with pytest.raises(ValueError, match="JAX export artifact"):
            ef.read_artifact(junk)
    b = flatbuffers.Builder(0)  # a FlatBuffer of some other schema
    b.StartObject(2)
    b.PrependInt32Slot(1, 77, 0)
    b.Finish(b.EndObject())
    with pytest.raises(ValueError, match="not a JAX export artifact"):
        ef.read_artifact(bytes(b.Output()))


@pytest.mark.parametrize("name", ["one_f32", "shard_2d_vjp"])
def test_truncated(serialized, name):
    data = serialized[name]
    step = 1 if len(data) < 1500 else 7
    for cut in [*range(0, len(data), step), *range(len(data) - 8, len(data))]:
        with pytest.raises(ValueError, match="truncated|corrupt|not a JAX"):
            ef.read_artifact(data[:cut])


def test_random_byte_flips(serialized):
    rng = np.random.default_rng(0)
    for name in ("pytrees", "shard_2d_vjp"):
        data = serialized[name]
        for _ in range(300):
            corrupt = bytearray(data)
            for pos in rng.integers(0, len(data), size=rng.integers(1, 4)):
                corrupt[pos] ^= int(rng.integers(1, 256))
            result = _read_or_value_error(bytes(corrupt))
            assert isinstance(result, (ef.Artifact, ValueError)), result


def test_versions(serialized):
    art = ef.read_artifact(serialized["one_f32"])
    for version in (1, 2, 3, ef.NEWEST_VERSION):
        data = ef.write_artifact(dataclasses.replace(art, serialization_version=version))
        assert ef.read_artifact(data).serialization_version == version
    data = ef.write_artifact(dataclasses.replace(art, serialization_version=12))
    with pytest.raises(ValueError, match=r"version 12.*up to 11"):
        ef.read_artifact(data)
    data = ef.write_artifact(dataclasses.replace(art, serialization_version=0))
    with pytest.raises(ValueError, match="serialization_version"):
        ef.read_artifact(data)


def _exported_with_in_tree(make_tree):
    """A minimal Exported table whose in_tree is built by `make_tree(builder)`."""
    b = flatbuffers.Builder(0)
    tree = make_tree(b)
    name, module = b.CreateString("f"), b.CreateByteVector(b"mlir")
    b.StartObject(26)
    b.PrependUint16Slot(0, 3, 0)
    for slot, off in ((1, name), (2, tree), (4, tree), (13, module)):
        b.PrependUOffsetTRelativeSlot(slot, off, 0)
    b.Finish(b.EndObject())
    return bytes(b.Output())


def _tuple_node(b, children):
    b.StartVector(4, len(children), 4)
    for c in children:
        b.PrependUOffsetTRelative(c)
    vec = b.EndVector()
    b.StartObject(5)
    b.PrependInt8Slot(0, 2, 0)
    b.PrependUOffsetTRelativeSlot(1, vec, 0)
    return b.EndObject()


def test_shared_subtrees_are_rejected():
    """Offsets only point forward, so there are no cycles, but one table can be
    referenced many times: 40 levels of pairs would be 2**40 nodes."""

    def bomb(b):
        node = _tuple_node(b, [])
        for _ in range(40):
            node = _tuple_node(b, [node, node])
        return node

    with pytest.raises(ValueError, match="too many objects"):
        ef.read_artifact(_exported_with_in_tree(bomb))


def test_deep_nesting_is_rejected():
    def deep(b):
        node = _tuple_node(b, [])
        for _ in range(1000):
            node = _tuple_node(b, [node])
        return node

    with pytest.raises(ValueError, match="nested too deeply"):
        ef.read_artifact(_exported_with_in_tree(deep))
    shallow = _exported_with_in_tree(lambda b: _tuple_node(b, []))
    assert ef.read_artifact(shallow).in_tree == ef.TreeDef("tuple")


def test_dtype_codes_match_jax():
    from jax._src.export import serialization  # the oracle's own table

    for dtype, code in serialization._dtype_to_dtype_kind.items():
        expected = str(dtype) if str(dtype).startswith("key<") else dtype
        assert ef._DTYPES[code] == expected, (dtype, code)
