"""Claims of chapters 16 (sharding) and 17 (export), and of appendices A8 (the export format), A9
(collectives under vmap) and A11 (collectives on devices), checked against the real JAX (see
tests/claims.py). The 8 CPU devices come from tests/conftest.py."""
import inspect

import numpy as np
import pytest

import autodidax
import autodidax.numpy as anp
import jax
import jax.numpy as jnp

from claims import claim, claims_test

CH16, CH17, A8 = "16_sharding", "17_export", "A8_export_format"
A9, A11 = "A9_collectives", "A11_collectives_on_devices"
LIBS = [(autodidax, anp), (jax, jnp)]
XS = np.arange(32.0, dtype=np.float32).reshape(8, 4)


def mesh8(lib):
    return lib.sharding.Mesh(np.array(lib.devices()), ("x",))


def rows8(lib):
    return lib.sharding.NamedSharding(mesh8(lib), lib.sharding.PartitionSpec("x"))


# ---- chapter 16: sharding -------------------------------------------------------------------

@claim(CH16, "As in JAX, `jax_num_cpu_devices` must be set before any computation")
def num_cpu_devices_is_fixed_once_a_client_exists():
    for lib in (autodidax, jax):
        lib.devices()
        with pytest.raises(RuntimeError, match="should be updated before backends are"):
            lib.config.update("jax_num_cpu_devices", 4)


@claim(CH16, "# XLA_FLAGS decides, as in JAX")
def a_negative_count_leaves_it_to_xla_flags():
    from jax._src import xla_bridge
    source = inspect.getsource(xla_bridge)
    assert "num_cpu_devices.value if num_cpu_devices.value >= 0 else None" in source


@claim(CH16, "`Mesh(devices, names)` makes `Auto` axes, `jax.make_mesh` `Explicit` ones.")
def axis_types_of_meshes():
    for lib, _ in LIBS:
        types = lib.sharding.AxisType
        assert mesh8(lib).axis_types == (types.Auto,)
        assert lib.make_mesh((4, 2), ("x", "y")).axis_types == (types.Explicit,) * 2


@claim(CH16, "# JAX 0.10.2's: P('x', None)")
def partition_spec_repr():
    for lib, _ in LIBS:
        P = lib.sharding.PartitionSpec
        assert repr(P("x", None)) == "P('x', None)" and repr(P(("x", "y"))) == "P(('x', 'y'),)"


@claim(CH16, "`HloSharding.iota_tile`, as JAX's `named_sharding_to_xla_hlo_sharding` does.")
def named_shardings_use_iota_tile():
    from jax._src import named_sharding
    assert "HloSharding.iota_tile(" in inspect.getsource(
        named_sharding._named_sharding_to_xla_hlo_sharding
        if hasattr(named_sharding, "_named_sharding_to_xla_hlo_sharding")
        else named_sharding.named_sharding_to_xla_hlo_sharding)
    m = autodidax.sharding.Mesh(np.array(autodidax.devices()).reshape(4, 2), ("x", "y"))
    jm = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
    for spec in [("x",), (None, "y"), (("y", "x"),)]:
        ours = autodidax.sharding.NamedSharding(m, autodidax.sharding.PartitionSpec(*spec))
        theirs = jax.sharding.NamedSharding(jm, jax.sharding.PartitionSpec(*spec))
        assert str(ours._hlo_sharding(2)) == str(theirs._to_xla_hlo_sharding(2))


@claim(CH16, "# JAX's words")
def set_mesh_errors():
    for lib, _ in LIBS:
        with pytest.raises(ValueError, match="Expected mesh of type `jax.sharding.Mesh`. Got "
                                             "<class 'int'>"):
            lib.set_mesh(3)
        m = lib.make_mesh((8,), ("x",))
        with pytest.raises(ValueError, match="`set_mesh` can only be used outside of `jax.jit`"):
            lib.jit(lambda x: (lib.set_mesh(m), x)[1])(1.0)


@claim(CH16, "The mesh in context (an empty mesh if none was set), as JAX's "
             "`jax.sharding.get_mesh`.")
def get_mesh_without_one_is_empty():
    for lib, _ in LIBS:
        mesh = lib.sharding.get_mesh()
        assert mesh.empty and repr(mesh) == "Mesh(axis_sizes=(), axis_names=())"


@claim(CH16, "as in JAX, from `jit`'s `in_shardings` and `out_shardings` (pytree prefixes of the "
             "positional arguments and of the outputs)")
def shardings_are_pytree_prefixes():
    for lib, _ in LIBS:
        s = rows8(lib)
        f = lib.jit(lambda t: (t[0] + t[1], t[0]), in_shardings=(s,), out_shardings=s)
        outs = f((XS, XS))
        assert all(o.sharding == s for o in outs)


@claim(CH16, "with the mesh in StableHLO's terms as its attribute `stablehlo.mesh`, as JAX "
             "writes it")
def the_mesh_declaration():
    lines = []
    for lib, _ in LIBS:
        P, NS = lib.sharding.PartitionSpec, lib.sharding.NamedSharding
        m = lib.sharding.Mesh(np.array(lib.devices()).reshape(4, 2), ("x", "y"))
        text = lib.jit(lambda x: x * 2, in_shardings=NS(m, P("x"))).lower(XS).as_text()
        lines.append([line for line in text.splitlines() if "sdy.mesh" in line])
    assert lines[0] == lines[1] and len(lines[0]) == 1 and "stablehlo.mesh" in lines[0][0]


@claim(CH16, "# P('x'), not P('x', None), as JAX")
def a_chosen_layout_has_no_trailing_none():
    for lib, _ in LIBS:
        out = lib.jit(lambda v: v * 2)(lib.device_put(XS, rows8(lib)))
        assert repr(out.sharding.spec) == "P('x',)"


@claim(CH16, "# JAX's channel id and kind, \"device to device\": the same for every op")
def collectives_share_one_channel_and_replica_groups():
    texts = []
    for lib, _ in LIBS:
        P = lib.sharding.PartitionSpec
        m = lib.sharding.Mesh(np.array(lib.devices()).reshape(4, 2), ("x", "y"))
        f = lib.shard_map(lambda b: (lib.lax.psum(b, "y"), lib.lax.psum(b, "x")), mesh=m,
                          in_specs=P("x"), out_specs=P(), check_vma=False)
        text = lib.jit(f).lower(XS).as_text()
        texts.append([line.split("<{")[1].split("use_global")[0]
                      for line in text.splitlines() if "all_reduce" in line])
    assert texts[0] == texts[1] and len(texts[0]) == 2
    assert all("handle = 1, type = 1" in t for t in texts[0])
    assert "[[0, 1], [2, 3], [4, 5], [6, 7]]" in texts[0][0]      # psum over y: pairs
    assert "[[0, 2, 4, 6], [1, 3, 5, 7]]" in texts[0][1]          # over x: fours


@claim(CH16, "# The results are laid out as `out_specs` say, and named so, as JAX names them.")
def eager_shard_map_results_are_named():
    for lib, _ in LIBS:
        P = lib.sharding.PartitionSpec
        out = lib.shard_map(lambda b: b * 2, mesh=mesh8(lib), in_specs=P("x"),
                            out_specs=P("x"))(XS)
        assert out.sharding == rows8(lib)


@claim(CH16, "# sorted, as JAX prints them")
def shard_map_params_print_sorted():
    texts = []
    for lib, _ in LIBS:
        P = lib.sharding.PartitionSpec
        f = lib.shard_map(lambda b: b, mesh=mesh8(lib), in_specs=P("x"), out_specs=P("x"))
        text = str(lib.make_jaxpr(f)(XS))
        texts.append([line.strip().split("=")[0] for line in text.splitlines()
                      if line.strip().split("=")[0] in
                      ("check_vma", "in_specs", "jaxpr", "mesh", "newly_manual_axes",
                       "out_specs")])
    assert texts[0] == texts[1] == sorted(texts[0])


@claim(CH16, "which runs the primitive alone under `jit`, so that the partitioner lays the results "
             "out, as JAX's `apply_primitive` does")
def eager_operations_on_sharded_arrays():
    specs = []
    for lib, np_ in LIBS:
        x = lib.device_put(XS, rows8(lib))
        assert lib.jit(lambda v: v + 1)(x).sharding == rows8(lib) == (x + 1).sharding
        y = np_.sin(x).sum(axis=1)
        specs.append((str(y.sharding.spec), np.asarray(y)))
    assert specs[0][0] == specs[1][0] and np.array_equal(specs[0][1], specs[1][1])


@claim(CH16, "`jax.make_mesh` gives Explicit axes, as in JAX 0.10.2, but we treat them as Auto: "
             "values have no sharding in their types")
def explicit_axes_are_treated_as_auto():
    for lib, _ in LIBS:
        P = lib.sharding.PartitionSpec
        with lib.set_mesh(lib.make_mesh((8,), ("x",))):
            x = lib.device_put(XS, P("x"))
            text = str(lib.make_jaxpr(lambda v: v * 2)(x))
        expected = "f32[8@x,4]" if lib is jax else "f32[8,4]"
        assert f"a:{expected}." in text, text


@claim(CH16, "A `jit` under another transformation (`grad(jit(f, in_shardings=...))`) drops its "
             "shardings, which our `jit_p`, unlike JAX's, does not carry")
def jit_p_carries_no_shardings():
    for lib, np_ in LIBS:
        f = lib.jit(np_.sin, in_shardings=rows8(lib))
        jaxpr = lib.make_jaxpr(lib.grad(lambda v: f(v).sum()))(XS)
        params = next(e.params for e in jaxpr.eqns if e.primitive.name == "jit")
        assert ("in_shardings" in params) == (lib is jax)


@claim(CH16, "An array that must change layout goes through the host")
def relayout_goes_through_the_host():
    from autodidax import runtime
    P, NS = autodidax.sharding.PartitionSpec, autodidax.sharding.NamedSharding
    x = autodidax.device_put(XS, rows8(autodidax))
    gather, seen = runtime.multi_device_rules["value"], []
    runtime.multi_device_rules["value"] = lambda a: seen.append(a) or gather(a)
    try:
        y = autodidax.device_put(x, NS(mesh8(autodidax), P()))
    finally:
        runtime.multi_device_rules["value"] = gather
    assert seen and np.array_equal(np.asarray(y), XS)


@claim(CH16, "`shard_map` does not check *varying manual axes* (`check_vma`, on by default in JAX,")
def check_vma():
    for lib, _ in LIBS:
        P = lib.sharding.PartitionSpec
        seen = []

        def body(b):
            seen.append(str(b.aval))
            return b
        sm = lambda **kw: lib.shard_map(body, mesh=mesh8(lib), in_specs=P("x"), out_specs=P(),
                                        **kw)
        assert sm(check_vma=False)(XS).shape == (1, 4)
        if lib is jax:
            with pytest.raises(ValueError, match="out_specs which require replication"):
                sm()(XS)
            assert "float32[1,4]{V:x}" in seen[-1]
        else:
            assert sm()(XS).shape == (1, 4) and seen[-1] == "float32[1,4]"
    assert autodidax.lax.pcast(1.0, (), to="varying") == 1.0


@claim(CH16, "`set_mesh` sets a concrete mesh only: there is no abstract mesh "
             "(`get_abstract_mesh`, `use_abstract_mesh`), and the deprecated `with mesh:` form is "
             "not supported.")
def no_abstract_mesh():
    for name in ("get_abstract_mesh", "use_abstract_mesh"):
        assert hasattr(jax.sharding, name) and not hasattr(autodidax.sharding, name)
    with pytest.warns(DeprecationWarning):
        with mesh8(jax):
            pass
    with pytest.raises(TypeError):
        with mesh8(autodidax):
            pass


@claim(CH16, "`shard_map` makes every mesh axis manual (`axis_names` must name them all), and "
             "needs its `in_specs` (JAX 0.10.2 infers them over Explicit axes")
def shard_map_axes_and_in_specs():
    for lib, _ in LIBS:
        P = lib.sharding.PartitionSpec
        m = lib.make_mesh((4, 2), ("x", "y"))
        partial = lambda: lib.shard_map(lambda b: b, mesh=m, in_specs=P("x"), out_specs=P("x"),
                                        axis_names={"x"})(XS)
        with lib.set_mesh(m):
            x = lib.device_put(XS, P("x"))
            inferred = lambda: lib.shard_map(lambda b: b * 2, out_specs=P("x"))(x)
            if lib is jax:
                assert partial().shape == (8, 4) and inferred().shape == (8, 4)
            else:
                with pytest.raises(NotImplementedError, match="every mesh axis manual"):
                    partial()
                with pytest.raises(TypeError, match="in_specs"):
                    inferred()


@claim(CH16, "JAX runs the body once, each operation on every device's block (a printed value "
             "shows each block); we compile it.")
def eager_shard_map_body():
    P = jax.sharding.PartitionSpec
    seen = []

    def body(b):
        seen.append(str(b))
        return b
    jax.shard_map(body, mesh=mesh8(jax), in_specs=P("x"), out_specs=P("x"))(XS[:, :1])
    assert len(seen) == 1 and seen[0].count("at mesh coordinates") == 8
    assert "[[28.]]" in seen[0]
    seen.clear()
    P = autodidax.sharding.PartitionSpec
    body_of = autodidax.shard_map(body, mesh=mesh8(autodidax), in_specs=P("x"),
                                  out_specs=P("x"))
    body_of(XS[:, :1])
    assert len(seen) == 1 and "Tracer(float32[1,1])" in seen[0]
    assert "mesh coordinates" not in seen[0]


# ---- chapter 17: export ---------------------------------------------------------------------

def exported_f(lib, np_):
    return lib.export.export(lib.jit(lambda x, y: (np_.sin(x) * y, x.sum())))(
        lib.ShapeDtypeStruct((3,), np.float32), np.float32(2.0))


@claim(CH17, "The input tree is that of `(args, kwargs)`, as JAX records it")
def the_input_tree():
    for lib, np_ in LIBS:
        assert str(exported_f(lib, np_).in_tree) == "PyTreeDef(((*, *), {}))"


@claim(CH17, "# The calling conventions JAX 0.10.2 can export "
             "(`jax_export_calling_convention_version`); we # write the newest, 10, which JAX "
             "writes by default.")
def calling_conventions():
    for lib, np_ in LIBS:
        e = lib.export
        assert (e.minimum_supported_calling_convention_version,
                e.maximum_supported_calling_convention_version) == (9, 10)
        assert exported_f(lib, np_).calling_convention_version == 10
    assert jax.config.jax_export_calling_convention_version == 10


@claim(CH17, "As in JAX 0.10.2, the shardings come twice: `in_shardings_hlo` (XLA's "
             "`HloSharding`s, which JAX no longer fills for new exports: all None),")
def shardings_come_twice():
    texts = []
    for lib, np_ in LIBS:
        NS, P = lib.sharding.NamedSharding, lib.sharding.PartitionSpec
        mesh = lib.make_mesh((4, 2), ("x", "y"))
        step = lib.jit(lambda w: np_.tanh(w).sum(1), in_shardings=NS(mesh, P("x", "y")))
        e = lib.export.export(step)(lib.ShapeDtypeStruct((8, 4), np.float32))
        assert e.in_shardings_hlo == (None,)
        texts.append((str(e._in_named_shardings[0]), str(e.in_shardings_jax(mesh))))
    assert texts[0] == texts[1] and "AbstractMesh('x': 4, 'y': 2" in texts[0][0]


@claim(CH17, "As in JAX, it refuses a function that is not the result of `jit`, and a program "
           "that calls back into Python")
def export_refuses():
    for lib, np_ in LIBS:
        spec = lib.ShapeDtypeStruct((3,), np.float32)
        with pytest.raises(ValueError, match="must be the result of `jit`"):
            lib.export.export(lambda x: np_.sin(x))(spec)
        cb = lambda x: lib.pure_callback(np.asarray, lib.ShapeDtypeStruct(x.shape, x.dtype), x)
        with pytest.raises(NotImplementedError, match="serialization of host_callbacks"):
            lib.export.export(lib.jit(cb))(spec)


@claim(CH17, "JAX 0.10.2 writes for the version of four weeks before its jaxlib (`WEEK_4`)")
def target_version_is_week_4():
    from jax._src.export import _export
    assert "StablehloCompatibilityRequirement.WEEK_4" in inspect.getsource(
        _export._module_to_bytecode)
    from jax._src.lib.mlir.dialects import hlo
    assert autodidax.export.target_version() == hlo.get_version_from_compatibility_requirement(
        hlo.StablehloCompatibilityRequirement.WEEK_4)


@claim(CH17, "As in JAX, `call` binds the primitive inside a `custom_vjp` function")
def call_binds_call_exported_in_a_custom_vjp():
    texts = []
    for lib, np_ in LIBS:
        e = exported_f(lib, np_)
        texts.append(str(lib.make_jaxpr(e.call)(np.ones(3, np.float32), np.float32(2))))
    assert texts[0] == texts[1]
    assert "custom_vjp_call[" in texts[0] and "call_exported[" in texts[0]


@claim(CH17, "JAX's format has no weak types: an exported `1.0` comes back as a plain `float32`.")
def no_weak_types_in_the_format():
    for lib, _ in LIBS:
        e = lib.export.export(lib.jit(lambda x: x * 2))(1.0)
        back = lib.export.deserialize(e.serialize())
        assert e.in_avals[0].weak_type and not back.in_avals[0].weak_type
        assert back.in_avals[0].dtype == np.float32


@claim(CH17, "Exporting for `(\"cuda\",)` on a CPU works; calling it there raises JAX's error.")
def calling_on_another_platform():
    for lib, np_ in LIBS:
        e = lib.export.export(lib.jit(np_.sin), platforms=("cuda",))(
            lib.ShapeDtypeStruct((3,), np.float32))
        with pytest.raises(ValueError, match=r"Function 'sin' was exported for platforms "
                                             r"'\('cuda',\)' but it is used on '\('cpu',\)'"):
            e.call(np.ones(3, np.float32))


@claim(CH17, "A program that calls back into Python cannot be exported (as in JAX); JAX exports "
             "ordered effects by threading tokens through `main`, which we do not.")
def ordered_effects_are_tokens():
    from jax._src.export import _export
    assert "ordered_effects" in inspect.signature(_export.Exported).parameters
    assert "is_token" in inspect.getsource(_export._wrap_main_func)


@claim(CH17, "forward mode (`jvp`) of a `custom_vjp` is an error in both. We do not export the "
             "VJP of a function with integer inputs (JAX gives those `float0` cotangents).")
def reverse_mode_only():
    x = np.ones(3, np.float32)
    for lib, np_ in LIBS:
        e = exported_f(lib, np_)
        g = lib.grad(lambda v: e.call(v, np.float32(2))[0].sum())(x)
        np.testing.assert_allclose(g, 2 * np.cos(x), rtol=1e-6)
        with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
            lib.jvp(lambda v: e.call(v, np.float32(2))[0], (x,), (x,))
        ints = lib.export.export(lib.jit(lambda v, n: v * n))(x, np.int32(2))
        if lib is jax:
            assert ints.vjp().in_avals[1].dtype == jax.dtypes.float0 or ints.serialize(
                vjp_order=1)
        else:
            with pytest.raises(NotImplementedError, match="float0"):
                ints.serialize(vjp_order=1)


@claim(CH17, "There, chapter 8's `jit` keeps every input (as with "
             "`keep_unused=True`); on one device it drops the unread ones and lists the kept ones "
             "in `module_kept_var_idx`, as JAX's does.")
def unused_inputs():
    x = np.arange(3, dtype=np.float32)
    kept = {}
    for lib, _ in LIBS:
        spec = lib.ShapeDtypeStruct((3,), np.float32)
        kept[lib] = lib.export.export(lib.jit(lambda a, b: a * 2))(spec, spec)
    assert kept[jax].module_kept_var_idx == kept[autodidax].module_kept_var_idx == (0,)
    theirs = autodidax.export.deserialize(kept[jax].serialize())
    np.testing.assert_array_equal(theirs.call(x, x + 1), 2 * x)
    np.testing.assert_array_equal(kept[autodidax].call(x, x + 1), 2 * x)


@claim(CH17, "JAX needs the devices named: a mesh in context (`jax.set_mesh`), or an outer `jit` "
             "with shardings. Inside `jit`, we call single-device artifacts only.")
def many_device_calls():
    w = np.arange(32, dtype=np.float32).reshape(8, 4)
    for lib, np_ in LIBS:
        NS, P = lib.sharding.NamedSharding, lib.sharding.PartitionSpec
        mesh = lib.make_mesh((4, 2), ("x", "y"), axis_types=(lib.sharding.AxisType.Auto,) * 2)
        e = lib.export.export(lib.jit(lambda v: np_.tanh(v), in_shardings=NS(mesh, P("x"))))(
            lib.ShapeDtypeStruct((8, 4), np.float32))
        with lib.set_mesh(mesh):
            np.testing.assert_allclose(e.call(w), np.tanh(w), rtol=1e-6)
        if lib is jax:
            with pytest.raises(ValueError, match="exported for 8 devices and is called in a "
                                                 "context with 1 devices"):
                e.call(w)
            shardings = e.in_shardings_jax(mesh)
            assert lib.jit(e.call, in_shardings=shardings)(w).shape == (8, 4)
        else:
            np.testing.assert_allclose(e.call(w), np.tanh(w), rtol=1e-6)
            with pytest.raises(NotImplementedError, match="eagerly only, not inside jit"):
                lib.jit(e.call)(w)


@claim(CH17, "**No source locations** in our modules (JAX keeps file names and lines)")
def source_locations():
    texts = {}
    for lib, np_ in LIBS:
        e = lib.export.export(lib.jit(lambda v: np_.sin(v)))(lib.ShapeDtypeStruct((3,),
                                                                                 np.float32))
        texts[lib] = e.mlir_module()
    assert "loc(" not in texts[autodidax]
    assert "test_claims_16_17.py" in texts[jax]


@claim(CH17, "JAX refuses custom calls it does not know to be stable unless told otherwise; ours "
             "has none to refuse, the LAPACK kernels of appendix A3 being on JAX's list.")
def custom_call_targets():
    import re
    from jax._src.export import _export
    spec = jax.ShapeDtypeStruct((3,), np.float32)
    f = jax.jit(lambda x: jax.ffi.ffi_call("not_a_stable_target", spec)(x))
    with pytest.raises(ValueError, match="custom calls whose targets have no compatibility"):
        jax.export.export(f)(spec)
    jax.export.export(f, disabled_checks=[
        jax.export.DisabledSafetyCheck.custom_call("not_a_stable_target")])(spec)
    from autodidax.numpy import linalg
    a = np.eye(3, dtype=np.float32) * 2
    jitted = autodidax.jit(lambda m: anp.linalg.eigh(m)[0] + anp.linalg.det(m))
    text = autodidax.export.export(jitted)(a).mlir_module()
    stable = _export._CUSTOM_CALL_TARGETS_GUARANTEED_STABLE
    assert set(re.findall(r"custom_call @(\w+)", text)) <= stable
    source = inspect.getsource(linalg)
    ours = set(re.findall(r"lapack_\{_LAPACK_PREFIX\[aval.dtype\]\}(\w+)", source))
    ours |= {name + "_ffi" for name in re.findall(r'_lapack_name\("(\w+)"', source)}
    assert ours and {"lapack_s" + name for name in ours} <= stable


@claim(CH17, "**Symbolic shapes are run, not exported.** `jax.export.symbolic_shape` raises")
def symbolic_shapes_are_run_not_exported():
    assert str(jax.export.symbolic_shape("b, 4")) == "(b, 4)"
    with pytest.raises(NotImplementedError, match="no shape polymorphism"):
        autodidax.export.symbolic_shape("b, 4")
    sines = autodidax.export.deserialize(sines_blob())
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(sines.call(x), np.sin(x).sum(1) * 2, rtol=1e-6)
    np.testing.assert_allclose(sines.call(x), jax.export.deserialize(
        bytearray(sines_blob())).call(x), rtol=1e-6)


# ---- appendix A8: the export format ---------------------------------------------------------

def sines_blob():
    from pathlib import Path
    folder = Path(__file__).resolve().parents[1] / "chapters" / "artifacts"
    return (folder / "sines_by_jax.jaxexport").read_bytes()


@claim(A8, "serialization_version: uint16; // slot 0")
def schema_slots():
    from jax._src.export import serialization_generated as g
    for fun, slot in [("ExportedAddSerializationVersion", 0), ("ExportedAddFunctionName", 1),
                      ("ExportedAddInTree", 2), ("ExportedAddInAvals", 3),
                      ("ExportedAddMlirModuleSerialized", 13)]:
        assert f"Slot({slot}," in inspect.getsource(getattr(g, fun)), fun


@claim(A8, "artifact `sines_by_jax` (below), 2,204 bytes")
def sines_by_jax_layout():
    blob = sines_blob()
    table = int.from_bytes(blob[:4], "little")
    vtable = table - int.from_bytes(blob[table:table + 4], "little", signed=True)
    slots = (int.from_bytes(blob[vtable:vtable + 2], "little") - 4) // 2
    assert len(blob) == 2204 and table == 60 and slots == 26


@claim(A8, "so an artifact read and written again is the same bytes.")
def read_and_written_again():
    from autodidax import serialization
    blob = sines_blob()
    assert serialization.write_artifact(serialization.read_artifact(blob)) == blob


@claim(A8, "`flatbuffers.table.Table` checks nothing (a bad offset reads whatever lies there, or "
           "raises a bare `struct.error`)")
def flatbuffers_table_checks_nothing():
    import struct
    import flatbuffers
    assert flatbuffers.table.Table(bytearray(8), 4).Offset(4) == 0    # zeros, read as a vtable
    with pytest.raises(struct.error):
        flatbuffers.table.Table(bytearray(8), 100).Offset(4)


@claim(A8, "so JAX 0.10.2 writes 3 whatever the schema, and reads without checking. We write 3 "
           "as JAX does, read 1 to 11, and refuse a larger number")
def serialization_versions():
    from autodidax import serialization
    from jax._src.export import serialization as theirs
    blob = jax.export.export(jax.jit(jnp.sin))(np.ones(3, np.float32)).serialize()
    table = int.from_bytes(blob[:4], "little")
    vtable = table - int.from_bytes(blob[table:table + 4], "little", signed=True)
    at = table + int.from_bytes(blob[vtable + 4:vtable + 6], "little")   # slot 0's place
    assert int.from_bytes(blob[at:at + 2], "little") == 3 == serialization.WRITTEN_VERSION
    assert theirs._SERIALIZATION_VERSION == 11 == serialization.NEWEST_VERSION
    later = blob[:at] + (12).to_bytes(2, "little") + blob[at + 2:]
    jax.export.deserialize(bytearray(later))               # JAX does not check
    with pytest.raises(ValueError, match="serialization version 12"):
        autodidax.export.deserialize(later)


@claim(A8, "`platform()` lets a program exported for one platform be called on another")
def disabled_platform_check():
    for lib, np_ in LIBS:
        e = lib.export.export(lib.jit(np_.sin), platforms=("cuda",),
                              disabled_checks=[lib.export.DisabledSafetyCheck.platform()])(
            lib.ShapeDtypeStruct((3,), np.float32))
        np.testing.assert_allclose(e.call(np.ones(3, np.float32)), np.sin(np.ones(3)),
                                   rtol=1e-6)


@claim(A8, "JAX's generated reader trusts the file; ours checks every offset before it follows "
           "it, so a bad file is a `ValueError`")
def checked_reads():
    import struct
    bad = sines_blob()[:100]
    with pytest.raises(ValueError, match="truncated or corrupt JAX export artifact"):
        autodidax.export.deserialize(bad)
    with pytest.raises(struct.error):
        jax.export.deserialize(bytearray(bad))


@claim(A8, "JAX 0.10.2 writes both, and its source plans to stop writing slot 3")
def jax_writes_both_aval_slots():
    from jax._src.export import serialization as theirs
    source = inspect.getsource(theirs._serialize_exported)
    assert "ExportedAddInAvals(" in source and "ExportedAddInAvalsIdxs(" in source
    assert "TODO(necula): stop serializing in_avals" in source


@claim(A8, "an `i32` marked `jax.global_constant = \"_platform_index\"`")
def platform_index_and_case():
    for lib, np_ in LIBS:
        spec = lib.ShapeDtypeStruct((3,), np.float32)
        text = lib.export.export(lib.jit(np_.sin), platforms=("cpu", "cuda"))(spec).mlir_module()
        assert 'tensor<i32> {jax.global_constant = "_platform_index"' in text
    f = jax.jit(lambda x: jax.lax.platform_dependent(x, cpu=jnp.sin, default=jnp.cos))
    assert "stablehlo.case" in jax.export.export(f, platforms=("cpu", "cuda"))(spec) \
        .mlir_module()


@claim(A8, "A failed assertion carries JAX's message")
def failed_shape_assertion():
    blob, empty = sines_blob(), np.ones((0, 4), np.float32)
    messages = []
    for lib, _ in LIBS:
        with pytest.raises(ValueError) as e:
            lib.export.deserialize(bytearray(blob) if lib is jax else blob).call(empty)
        messages.append(str(e.value).split("\n")[0])
    assert "Input shapes do not match the polymorphic shapes specification" in messages[1]
    assert messages[1][:60] in messages[0]


# ---- appendix A9: collectives under vmap ----------------------------------------------------

X23 = np.arange(6.0, dtype=np.float32).reshape(2, 3)


@claim(A9, "JAX gives them no derivative, and neither do we.")
def pmax_pmin_have_no_derivative():
    for lib, _ in LIBS:
        for name in ("pmax", "pmin"):
            op = getattr(lib.lax, name)
            with pytest.raises(NotImplementedError, match=f"Differentiation rule for '{name}'"):
                lib.grad(lambda v: lib.vmap(lambda r: op(r, "i"), axis_name="i")(v).sum())(X23)


@claim(A9, "`psum(1, name)` is the size of the axis (`psum`'s shortcut computes it with no "
           "primitive at all)")
def psum_of_one_is_no_primitive():
    for lib, _ in LIBS:
        text = str(lib.make_jaxpr(lib.vmap(lambda r: r * lib.lax.psum(1, "i"),
                                           axis_name="i"))(X23))
        assert "psum" not in text and "2.0" in text


@claim(A9, "JAX has more (`ppermute`, `all_to_all`, `pbroadcast`, `pshuffle`, `pswapaxes`...)")
def seven_collectives():
    from autodidax import collectives
    more = ["ppermute", "all_to_all", "pbroadcast", "pshuffle", "pswapaxes"]
    assert all(hasattr(jax.lax, n) for n in more)
    seven = ["pmax", "pmin", "pmean", "axis_size", "axis_index", "all_gather", "psum_scatter"]
    assert all(hasattr(collectives, n) for n in seven)
    assert not any(hasattr(collectives, n) for n in more)
    assert [n for n in more if hasattr(autodidax.lax, n)] == ["ppermute", "all_to_all", "pshuffle",
                                                               "pswapaxes"]


@claim(A9, "only `pmap` supports it; JAX's `vmap` refuses it, and so do we, everywhere.")
def axis_index_groups_refused_under_vmap():
    for lib, _ in LIBS:
        with pytest.raises(NotImplementedError, match="axis_index_groups"):
            lib.vmap(lambda r: lib.lax.psum(r, "i", axis_index_groups=[[0], [1]]),
                     axis_name="i")(X23)


@claim(A9, "over a tuple of names fail in JAX 0.10.2 too (its rule asserts that the sizes "
           "match, then asks for a feature request); ours raise a `NotImplementedError`")
def gathering_over_a_tuple_of_names():
    from jax._src.lax import parallel
    source = inspect.getsource(parallel._all_gather_batched_collective)
    assert 'assert axis_size == frame_size, "axis size doesn\'t match"' in source
    assert 'raise NotImplementedError("Please open a feature request!")' in source
    for name in ("all_gather", "psum_scatter"):
        with pytest.raises((AssertionError, NotImplementedError)):
            jax.vmap(jax.vmap(lambda r: getattr(jax.lax, name)(jnp.ones(6), ("i", "j")),
                              axis_name="j"), axis_name="i")(X23)
        op = getattr(autodidax.lax, name)
        with pytest.raises(NotImplementedError, match="several axis names"):
            autodidax.vmap(autodidax.vmap(lambda r: op(anp.ones(6), ("i", "j")), axis_name="j"),
                           axis_name="i")(X23)


@claim(A9, "A collective over a named axis that reaches evaluation outside its `vmap` (a jaxpr "
           "evaluated on its own, say) raises `NotImplementedError`")
def a_collective_evaluated_alone():
    from autodidax.batching import extend_axis_env
    from autodidax.jaxpr import eval_jaxpr
    with extend_axis_env("i", 2):
        closed = autodidax.make_jaxpr(lambda r: autodidax.lax.pmax(r, "i"))(
            np.ones(3, np.float32))
        with pytest.raises(NotImplementedError):
            eval_jaxpr(closed.jaxpr, closed.consts, np.ones(3, np.float32))


# ---- appendix A11: collectives on devices ---------------------------------------------------

def in_shard_map(lib, body, x):
    P = lib.sharding.PartitionSpec
    return lib.shard_map(body, mesh=mesh8(lib), in_specs=P("x"), out_specs=P("x"),
                         check_vma=False)(x)


@claim(A11, "raise ValueError(f\"ppermute sources and destinations must be unique, got {perm}.\")")
def ppermute_uniqueness_message():
    for lib, _ in LIBS:
        with pytest.raises(ValueError, match=r"ppermute sources and destinations must be unique, "
                                             r"got \(\(0, 1\), \(0, 2\)\)\."):
            in_shard_map(lib, lambda b: lib.lax.ppermute(b, "x", [(0, 1), (0, 2)]), XS)


@claim(A11, "As in JAX, the untiled form is the same primitive (its `tiled=False` only "
            "recorded) applied to the block with a dimension of size 1 inserted at `concat_axis`")
def untiled_all_to_all():
    x = np.arange(64.0, dtype=np.float32).reshape(8, 8)
    outs = []
    for lib, np_ in LIBS:
        body = lambda b: lib.lax.all_to_all(b, "x", 1, 0)
        text = str(lib.make_jaxpr(lambda v: in_shard_map(lib, body, v))(x))
        assert "tiled=False" in text and "squeeze" in text, text
        assert "f32[1,1,8] = broadcast_in_dim" in text or "f32[1,1,8] = expand" in text, text
        outs.append(np.asarray(in_shard_map(lib, body, x)))
    np.testing.assert_array_equal(outs[0], outs[1])


@claim(A11, "the batch dimension and the pieces of `split_axis` trade places, as in JAX's "
            "batching rule.")
def all_to_all_under_vmap():
    x = np.arange(16.0, dtype=np.float32).reshape(4, 4)
    outs = [np.asarray(lib.vmap(lambda r: lib.lax.all_to_all(r, "i", 0, 0, tiled=True),
                                axis_name="i")(x)) for lib, _ in LIBS]
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], x.T)


@claim(A11, "# JAX's words")
def all_to_all_errors():
    for lib, _ in LIBS:
        with pytest.raises(ValueError, match=r"The size of all_to_all split_axis \(3\) has to be "
                                             r"divisible by the size of the named axis x \(8\)"):
            in_shard_map(lib, lambda b: lib.lax.all_to_all(b[:, :3], "x", 1, 1, tiled=True), XS)
        with pytest.raises(ValueError, match="all_to_all requires the size of the mapped axis "
                                             "axis_name to equal x.shape"):
            in_shard_map(lib, lambda b: lib.lax.all_to_all(b, "x", 1, 1), XS)
    from jax._src.lax import parallel
    message = "all_to_all must be used within a mapped context like vmap or shard_map."
    assert 'raise RuntimeError("all_to_all must be used within a mapped context"' in \
        inspect.getsource(parallel)
    from autodidax.batching import extend_axis_env
    with extend_axis_env("x", 8), pytest.raises(RuntimeError, match=message):
        autodidax.lax.all_to_all_p.bind(np.ones(8, np.float32), axis_name="x", split_axis=0,
                                        concat_axis=0, axis_index_groups=None, tiled=True)


@claim(A11, "it returns its argument, after checking it as JAX does.")
def pcast_checks():
    for lib, _ in LIBS:
        with pytest.raises(TypeError, match="must be a tuple or a str"):
            in_shard_map(lib, lambda b: lib.lax.pcast(b, {"x"}, to="varying"), XS)
        with pytest.raises(ValueError, match="Got unexpected `to` value"):
            in_shard_map(lib, lambda b: lib.lax.pcast(b, "x", to="sideways"), XS)
        with pytest.raises((NameError, AssertionError)):        # an unbound name fails
            in_shard_map(lib, lambda b: lib.lax.pcast(b, "zz", to="varying"), XS)
        out = in_shard_map(lib, lambda b: lib.lax.pcast(b, "x", to="varying"), XS)
        np.testing.assert_array_equal(out, XS)


@claim(A11, "JAX's rule, which we follow, divides such an output's cotangent by the number of "
            "devices along the axes its spec leaves out")
def shard_map_transpose():
    grads = []
    for lib, np_ in LIBS:
        P = lib.sharding.PartitionSpec
        f = lib.shard_map(lambda b: lib.lax.psum((b * b).sum(), "x"), mesh=mesh8(lib),
                          in_specs=P("x"), out_specs=P())
        grads.append(np.asarray(lib.grad(f)(XS)))
    np.testing.assert_allclose(grads[0], grads[1])
    np.testing.assert_allclose(grads[0], 2 * XS)


@claim(A11, "as JAX's old `GSPMDSharding` did.")
def gspmd_sharding_exists():
    from jax._src import sharding_impls
    assert hasattr(sharding_impls, "GSPMDSharding")
    assert hasattr(sharding_impls.GSPMDSharding, "devices_indices_map")


@claim(A11, "`to=\"reduced\"` and `to=\"unreduced\"` are not supported.")
def pcast_reduced_is_not_built():
    with pytest.raises(NotImplementedError, match="no reduced or unreduced"):
        in_shard_map(autodidax, lambda b: autodidax.lax.pcast(b, "x", to="reduced"), XS)


@claim(A11, "JAX with `check_vma` knows from the types which values are the same on every "
            "device, binds `psum` as `psum_invariant`, and transposes it to `pvary`")
def psum_invariant_transposes_to_pvary():
    P = jax.sharding.PartitionSpec
    f = jax.shard_map(lambda b: jax.lax.psum((b * b).sum(), "x"), mesh=mesh8(jax),
                      in_specs=P("x"), out_specs=P())
    assert "psum_invariant" in str(jax.make_jaxpr(f)(XS))
    assert "pvary" in str(jax.make_jaxpr(jax.grad(f))(XS))


@claim(A11, "`visualize_array_sharding` prints text and ignores colours; JAX's needs `rich`.")
def visualize_needs_rich():
    from jax._src import debugging
    assert "import rich" in inspect.getsource(debugging.visualize_sharding) or \
        "rich" in inspect.getsource(debugging)


test_claims = claims_test(__name__)
