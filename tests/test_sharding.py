"""Chapter 16: meshes, named shardings, arrays over 8 devices, `jit` partitioned by Shardy and
`with_sharding_constraint`, against JAX over the same 8 simulated CPU devices (conftest)."""
import subprocess
import sys
import textwrap

import jax
import numpy as np
import pytest

import autodidax
import autodidax.numpy as ajnp
from autodidax.sharding import Mesh, NamedSharding, P

JP = jax.sharding.PartitionSpec

SPECS_2D = [P(), P("x"), P(None, "x"), P("x", "y"), P("y", "x"), P(("x", "y")), P(("y", "x")),
            P(None, ("x", "y")), P("y")]


def meshes():
    ours = autodidax.devices()
    theirs = jax.devices()
    return [(Mesh(np.array(ours).reshape(4, 2), ("x", "y")),
             jax.sharding.Mesh(np.array(theirs).reshape(4, 2), ("x", "y"))),
            (Mesh(np.array(ours).reshape(2, 4), ("x", "y")),
             jax.sharding.Mesh(np.array(theirs).reshape(2, 4), ("x", "y")))]


def both(spec):
    for ours, theirs in meshes():
        yield NamedSharding(ours, spec), jax.sharding.NamedSharding(theirs, JP(*spec))


def test_eight_devices_and_processes():
    assert len(autodidax.devices()) == 8 == len(jax.devices())
    assert autodidax.process_index() == 0 and autodidax.process_count() == 1
    assert autodidax.device_count() == 8 == autodidax.local_device_count()


def test_num_cpu_devices_after_start_is_refused():
    autodidax.devices()                                          # the CPU client is made
    autodidax.config.update("jax_num_cpu_devices", 8)          # the same value: fine
    with pytest.raises(RuntimeError, match="should be updated before backends are initialized"):
        autodidax.config.update("jax_num_cpu_devices", 4)


@pytest.mark.parametrize("spec", SPECS_2D, ids=str)
def test_named_sharding_matches_jax(spec):
    for ours, theirs in both(spec):
        assert repr(ours) == repr(theirs)
        assert str(ours._hlo_sharding(2)) == str(theirs._to_xla_hlo_sharding(2))
        mine = {d.id: ix for d, ix in ours.devices_indices_map((8, 16)).items()}
        want = {d.id: ix for d, ix in theirs.devices_indices_map((8, 16)).items()}
        assert mine == want
        assert ours.is_fully_replicated == theirs.is_fully_replicated


def test_reprs_match_jax():
    (ours, theirs), _ = meshes()
    assert str(ours) == str(theirs) and repr(ours) == repr(theirs)
    assert ours.shape == theirs.shape
    for spec in [P(), P("x"), P("x", None), P(("x", "y"), None)]:
        assert repr(spec) == repr(jax.sharding.PartitionSpec(*spec))
    made = autodidax.make_mesh((4, 2), ("a", "b"))
    assert str(made) == str(jax.make_mesh((4, 2), ("a", "b")))


@pytest.mark.parametrize("spec", SPECS_2D, ids=str)
def test_device_put_shards_match_jax(spec):
    x = np.arange(128, dtype=np.float32).reshape(8, 16)
    for ours, theirs in both(spec):
        a, b = autodidax.device_put(x, ours), jax.device_put(x, theirs)
        np.testing.assert_array_equal(np.asarray(a), x)
        mine = sorted((s.device.id, str(s.index), s.replica_id) for s in a.addressable_shards)
        want = sorted((s.device.id, str(s.index), s.replica_id) for s in b.addressable_shards)
        assert mine == want
        for s in a.addressable_shards:
            np.testing.assert_array_equal(np.asarray(s.data), x[s.index])
            assert s.data.shape == x[s.index].shape
        assert a.sharding == ours and a.devices() == set(autodidax.devices())


def _aligned(shape, writeable=True):
    """A float32 array whose memory starts on a 64-byte boundary: PJRT could use it in place."""
    n = int(np.prod(shape))
    raw = np.empty(4 * n + 64, np.uint8)
    start = -raw.ctypes.data % 64
    out = raw[start:start + 4 * n].view(np.float32).reshape(shape)
    out[...] = np.arange(n, dtype=np.float32).reshape(shape)
    if not writeable:
        raw.flags.writeable = out.flags.writeable = False
    return out


@pytest.mark.parametrize("spec", SPECS_2D, ids=str)
def test_sharded_arrays_are_values(spec):
    # Split layouts go to the devices in one call, layouts with replicas one device at a time:
    # either way, what the caller can still write is copied.
    for ours, _ in both(spec):
        x = _aligned((64, 32))
        a = autodidax.device_put(x, ours)
        x[...] = -1.0
        np.testing.assert_array_equal(np.asarray(a), _aligned((64, 32)))
        frozen = _aligned((64, 32), writeable=False)   # nobody can write it: shared, or not
        np.testing.assert_array_equal(np.asarray(autodidax.device_put(frozen, ours)), frozen)


def test_sharding_equality_and_hash():
    (mesh, _), (other, _) = meshes()
    same_mesh = Mesh(np.array(autodidax.devices()).reshape(4, 2), ("x", "y"))
    a, b = NamedSharding(mesh, P("x")), NamedSharding(same_mesh, P("x", None))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert mesh == same_mesh and hash(mesh) == hash(same_mesh)
    for c in [NamedSharding(mesh, P("y")), NamedSharding(mesh, P(None, "x")),
              NamedSharding(other, P("x")), NamedSharding(mesh, P("x"), memory_kind="pinned_host")]:
        assert a != c and c != a
    assert a != P("x") and mesh != other and mesh != "mesh"


def test_device_put_errors():
    (mesh, jmesh), _ = meshes()
    for spec in [P("x"), P(None, ("x", "y"))]:        # JAX's words (JAX's class subclasses ours)
        x = np.ones((6, 6), np.float32)
        with pytest.raises(ValueError) as ours:
            autodidax.device_put(x, NamedSharding(mesh, spec))
        with pytest.raises(ValueError) as theirs:
            jax.device_put(x, jax.sharding.NamedSharding(jmesh, JP(*spec)))
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match="Resource axis: z"):
        NamedSharding(mesh, P("z"))
    with pytest.raises(ValueError, match="duplicate entries for `x`"):
        NamedSharding(mesh, P("x", "x"))


def test_array_device_is_its_sharding():
    (mesh, _), _ = meshes()
    s = NamedSharding(mesh, P("x"))
    a = autodidax.device_put(np.ones((8, 2), np.float32), s)
    assert a.device is s
    assert autodidax.device_put(np.ones(3, np.float32)).device == autodidax.devices()[0]


def test_deleted_array_error():
    a = autodidax.device_put(np.ones(3, np.float32))
    a.delete()
    assert a.is_deleted()
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]"):
        np.asarray(a)


def _specs(jit_ours, jit_theirs, *args):
    a, b = jit_ours(*args), jit_theirs(*args)
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
    return a.sharding.spec, b.sharding.spec


@pytest.mark.parametrize("spec", SPECS_2D, ids=str)
def test_jit_propagates_layouts_as_jax(spec):
    x = np.arange(128, dtype=np.float32).reshape(8, 16)
    for ours, theirs in both(spec):
        a, b = autodidax.device_put(x, ours), jax.device_put(x, theirs)
        f = lambda v: ajnp.sin(v) * 2 + 1                        # noqa: E731
        g = lambda v: jax.numpy.sin(v) * 2 + 1                   # noqa: E731
        out_a, out_b = autodidax.jit(f)(a), jax.jit(g)(b)
        np.testing.assert_allclose(np.asarray(out_a), np.asarray(out_b), rtol=1e-6)
        assert out_a.sharding == NamedSharding(ours.mesh, P(*out_b.sharding.spec))


def test_jit_in_out_shardings_text_and_values_match_jax():
    ours = Mesh(np.array(autodidax.devices()), ("x",))
    theirs = jax.sharding.Mesh(np.array(jax.devices()), ("x",))
    f = autodidax.jit(lambda x: x.sum(0), in_shardings=NamedSharding(ours, P("x")),
                      out_shardings=NamedSharding(ours, P()))
    g = jax.jit(lambda x: x.sum(0), in_shardings=jax.sharding.NamedSharding(theirs, JP("x")),
                out_shardings=jax.sharding.NamedSharding(theirs, JP()))
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    assert f.lower(x).as_text() == g.lower(x).as_text()
    np.testing.assert_array_equal(np.asarray(f(x)), np.asarray(g(x)))
    assert "all-reduce(" in f.lower(x).compile().as_text()
    assert f(x).sharding.is_fully_replicated


def test_jit_with_sharded_and_host_arguments():
    (mesh, tmesh), _ = meshes()
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    a = autodidax.device_put(x, NamedSharding(mesh, P("x")))
    b = jax.device_put(x, jax.sharding.NamedSharding(tmesh, JP("x")))
    out = autodidax.jit(lambda u, v: u @ v + 1)(a, x)
    want = jax.jit(lambda u, v: u @ v + 1)(b, x)
    np.testing.assert_allclose(np.asarray(out), np.asarray(want), rtol=1e-5)


def test_with_sharding_constraint_matches_jax():
    ours = Mesh(np.array(autodidax.devices()), ("x",))
    theirs = jax.sharding.Mesh(np.array(jax.devices()), ("x",))
    rows, cols = NamedSharding(ours, P("x")), NamedSharding(ours, P(None, "x"))
    trows = jax.sharding.NamedSharding(theirs, JP("x"))
    tcols = jax.sharding.NamedSharding(theirs, JP(None, "x"))
    f = autodidax.jit(lambda v: autodidax.lax.with_sharding_constraint(v * 2, cols) + 1,
                      in_shardings=rows)
    g = jax.jit(lambda v: jax.lax.with_sharding_constraint(v * 2, tcols) + 1, in_shardings=trows)
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    assert f.lower(x).as_text() == g.lower(x).as_text()
    np.testing.assert_array_equal(np.asarray(f(x)), np.asarray(g(x)))
    assert tuple(f(x).sharding.spec) == tuple(g(x).sharding.spec)
    # Differentiating and batching through the constraint.
    loss = lambda v: (autodidax.lax.with_sharding_constraint(ajnp.sin(v), cols) ** 2).sum()  # noqa
    tloss = lambda v: (jax.lax.with_sharding_constraint(jax.numpy.sin(v), tcols) ** 2).sum()  # noqa
    np.testing.assert_allclose(np.asarray(autodidax.jit(autodidax.grad(loss))(x)),
                               np.asarray(jax.jit(jax.grad(tloss))(x)), rtol=1e-5)
    batched = autodidax.jit(autodidax.vmap(lambda v: autodidax.lax.with_sharding_constraint(
        v * 3, NamedSharding(ours, P("x")))))(np.ones((2, 8, 4), np.float32))
    np.testing.assert_array_equal(np.asarray(batched), np.full((2, 8, 4), 3, np.float32))
    eager = autodidax.lax.with_sharding_constraint(x, cols)
    assert eager.sharding == cols


def test_visualize_array_sharding(capsys):
    (mesh, _), _ = meshes()
    a = autodidax.device_put(np.ones((8, 8), np.float32), NamedSharding(mesh, P("x")))
    autodidax.debug.visualize_array_sharding(a)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].strip("│ ") == "CPU 0,1" and lines[-2].strip("│ ") == "CPU 6,7"
    assert len(lines) == 9


def test_incompatible_devices_error():
    m8 = Mesh(np.array(autodidax.devices()), ("x",))
    m4 = Mesh(np.array(autodidax.devices()[:4]), ("x",))
    f = autodidax.jit(lambda u, v: u, in_shardings=(NamedSharding(m8, P()),
                                                   NamedSharding(m4, P())))
    with pytest.raises(ValueError, match="incompatible devices"):
        f(np.ones(8, np.float32), np.ones(8, np.float32))


def test_programs_over_many_devices_never_import_jax():
    code = textwrap.dedent("""
        import sys, numpy as np
        import autodidax as jax
        from autodidax.sharding import Mesh, NamedSharding, P
        jax.config.update("jax_num_cpu_devices", 8)
        mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
        x = jax.device_put(np.arange(64.0, dtype=np.float32).reshape(8, 8),
                           NamedSharding(mesh, P("x", "y")))
        y = jax.jit(lambda v: jax.lax.with_sharding_constraint(v.T * 2, NamedSharding(
            mesh, P(None, "x"))))(x)
        assert [s.data.shape for s in y.addressable_shards] == [(8, 2)] * 8
        print(float(np.asarray(y).sum()), y.sharding.spec)
        jax.debug.visualize_array_sharding(y)
        bad = sorted(m for m in sys.modules if m == "jax" or m.startswith("jax."))
        print("jax modules:", bad)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "4032.0 P(None, 'x')" in out.stdout
    assert out.stdout.strip().endswith("jax modules: []")


def test_set_mesh_lets_specs_stand_for_shardings():
    (ours, theirs), (ours2, theirs2) = meshes()
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    with autodidax.set_mesh(ours) as got, jax.set_mesh(theirs) as want:
        assert got is None and want is None
        assert autodidax.sharding.get_mesh() is ours and jax.sharding.get_mesh() is theirs
        a, b = autodidax.device_put(x, P("x", "y")), jax.device_put(x, JP("x", "y"))
        assert repr(a.sharding) == repr(b.sharding)
        # jit's in_shardings and out_shardings, and with_sharding_constraint
        f = autodidax.jit(lambda v: autodidax.lax.with_sharding_constraint(v * 2, P(None, "x")),
                          in_shardings=P("x"), out_shardings=P("y"))
        g = jax.jit(lambda v: jax.lax.with_sharding_constraint(v * 2, JP(None, "x")),
                    in_shardings=JP("x"), out_shardings=JP("y"))
        assert f.lower(x).as_text() == g.lower(x).as_text()
        fa, ga = f(x), g(x)
        assert repr(fa.sharding) == repr(ga.sharding)
        np.testing.assert_array_equal(np.asarray(fa), np.asarray(ga))
        eager = autodidax.lax.with_sharding_constraint(x, P("x"))
        assert repr(eager.sharding) == repr(jax.lax.with_sharding_constraint(x, JP("x")).sharding)
    # The block restores what was there before: no mesh.
    assert autodidax.sharding.get_mesh().empty and jax.sharding.get_mesh().empty
    # As a global setter; a jitted function called under another mesh is traced again for it.
    h = autodidax.jit(lambda v: v + 1, out_shardings=P("x"))
    autodidax.set_mesh(ours)
    try:
        assert h(x).sharding == NamedSharding(ours, P("x"))
        autodidax.set_mesh(ours2)
        assert h(x).sharding == NamedSharding(ours2, P("x"))
    finally:
        autodidax.set_mesh(None)
    assert autodidax.sharding.get_mesh().empty


def test_set_mesh_errors_match_jax():
    (ours, theirs), _ = meshes()
    x = np.zeros(8, np.float32)
    for lib, spec in ((autodidax, P), (jax, JP)):      # no mesh in context
        with pytest.raises(ValueError, match="Please set a mesh via `jax.set_mesh` if a "
                                             "PartitionSpec is passed to device_put"):
            lib.device_put(x, spec("x"))
        with pytest.raises(ValueError, match="Expected mesh of type `jax.sharding.Mesh`"):
            lib.set_mesh("x")
        with pytest.raises(ValueError, match="can only be used outside of `jax.jit`"):
            lib.jit(lambda v: lib.set_mesh(None) and v)(x)
        with pytest.raises(ValueError, match="can only be used outside of `jax.jit`"):
            lib.jit(lambda v: lib.sharding.get_mesh() and v)(x)


def test_reshard_matches_jax():
    """Appendix A11's `reshard`: layouts, errors, pytrees, `vmap`, `jit` and `grad` under
    `set_mesh`, as JAX's; its jaxpr is JAX's less the layout in the output's type."""
    x = np.arange(16.0, dtype=np.float32)
    runs = {}
    for lib in (jax, autodidax):
        NS, PS = lib.sharding.NamedSharding, lib.sharding.PartitionSpec
        mesh = lib.make_mesh((8,), ("batch",))
        auto = lib.make_mesh((8,), ("batch",), axis_types=(lib.sharding.AxisType.Auto,))
        out = [lib.reshard is lib.sharding.reshard,
               lib.sharding.reshard(x, NS(mesh, PS("batch"))).sharding.spec,
               lib.tree.map(lambda a: a.sharding.spec, lib.sharding.reshard(
                   {"a": x, "b": [x.reshape(2, 8)]}, {"a": NS(mesh, PS("batch")),
                                                      "b": NS(mesh, PS(None, "batch"))})),
               lib.vmap(lambda v: lib.sharding.reshard(v, NS(mesh, PS("batch"))))(
                   x.reshape(2, 8)).sharding.spec]
        for bad in (None, PS("batch"), NS(auto, PS("batch"))):
            with pytest.raises(ValueError) as e:
                lib.sharding.reshard(x, bad)
            out.append(str(e.value).split(" This error occurs")[0])
        with lib.set_mesh(mesh):
            y = lib.jit(lambda v: lib.sharding.reshard(v.reshape(2, 8) * 2, PS(None, "batch")))(x)
            g = lib.grad(lambda v: (lib.sharding.reshard(v, PS("batch")) ** 2).sum())(x)
        out += [y.sharding.spec, np.asarray(y), np.asarray(g), str(lib.make_jaxpr(
            lambda v: lib.sharding.reshard(v * 2, NS(mesh, PS("batch"))))(x))]
        runs[lib.__name__] = out
    theirs, ours = runs["jax"], runs["autodidax"]
    theirs[-1] = theirs[-1].replace("f32[16@batch]", "f32[16]")   # no layouts in our types
    for a, b in zip(theirs, ours):
        assert (np.array_equal(a, b) if isinstance(a, np.ndarray) else repr(a) == repr(b)), (a, b)
