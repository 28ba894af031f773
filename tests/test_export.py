"""Chapter 17: `jax.export` and the runner, against JAX 0.10.2. Artifacts go both ways: what
autodidax serializes, the real `jax.export.deserialize` reads and runs with the same numbers,
and what JAX serializes, autodidax and its runner read and run; on one device and on 8."""
import os
import re
import subprocess
import sys

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import autodidax
import autodidax.numpy as ajnp
from autodidax import runner, serialization
from autodidax.sharding import NamedSharding, P

F32 = np.float32


def fun(jnp):
    def f(x, y, *, scale):
        return {"out": jnp.sin(x) * y + scale, "total": (x * scale).sum()}
    return f


def args():
    return (np.arange(6, dtype=F32).reshape(2, 3) / 5, np.float32(1.5)), {"scale": np.float32(2)}


def close(a, b):
    for x, y in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-6, atol=1e-6)


def strip_locations(text: str) -> list:
    """The lines of a module without JAX's source locations, sorted: JAX places constants at
    their first use in its own order, and we place ours in another."""
    text = re.sub(r" loc\([^()]*(\([^()]*\))*[^()]*\)", "", text)
    return sorted(line for line in text.splitlines() if not line.startswith("#loc"))


@pytest.fixture(scope="module")
def ours():
    a, kw = args()
    return autodidax.export.export(autodidax.jit(fun(ajnp)))(*a, **kw)


@pytest.fixture(scope="module")
def theirs():
    a, kw = args()
    return jax.export.export(jax.jit(fun(jjnp)))(*a, **kw)


def test_fields_match_jax(ours, theirs):
    for field in ["fun_name", "in_avals", "out_avals", "nr_devices", "platforms",
                  "calling_convention_version", "module_kept_var_idx", "uses_global_constants",
                  "in_shardings_hlo", "out_shardings_hlo", "ordered_effects",
                  "unordered_effects"]:
        assert str(getattr(ours, field)) == str(getattr(theirs, field)), field
    assert str(ours.in_tree) == str(theirs.in_tree) and str(ours.out_tree) == str(theirs.out_tree)
    assert str(ours) == str(theirs)
    assert strip_locations(ours.mlir_module()) == strip_locations(theirs.mlir_module())


def test_ours_runs_in_jax(ours):
    a, kw = args()
    got = jax.export.deserialize(ours.serialize())
    close(got.call(*a, **kw), fun(jjnp)(*a, **kw))
    assert got.in_avals == jax.export.deserialize(
        jax.export.export(jax.jit(fun(jjnp)))(*a, **kw).serialize()).in_avals


def test_jax_runs_in_ours(theirs):
    a, kw = args()
    got = autodidax.export.deserialize(theirs.serialize())
    close(got.call(*a, **kw), fun(jjnp)(*a, **kw))
    close(autodidax.jit(lambda *a, **kw: got.call(*a, **kw))(*a, **kw), fun(jjnp)(*a, **kw))
    assert str(got.in_tree) == str(theirs.in_tree) and got.in_avals == tuple(
        autodidax.core.ShapedArray(v.shape, v.dtype) for v in theirs.in_avals)


def test_round_trip_keeps_jax_bytes(theirs):
    blob = bytes(theirs.serialize())
    assert bytes(autodidax.export.deserialize(blob).serialize()) == blob


def test_call_errors_match_jax(ours, theirs):
    a, kw = args()
    for bad_args, bad_kw in [((np.ones((2, 4), F32), a[1]), kw),
                             ((np.ones(3, F32), a[1]), kw),
                             ((a[0].astype(np.int32), a[1]), kw)]:
        with pytest.raises(ValueError) as want:
            theirs.call(*bad_args, **bad_kw)
        with pytest.raises(ValueError) as got:
            ours.call(*bad_args, **bad_kw)
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="must have the same pytree structure"):
        ours.call(*a)
    with pytest.raises(ValueError, match="Function to be exported must be the result of `jit`"):
        autodidax.export.export(lambda x: x)


def test_wrong_platform_is_refused():
    exp = autodidax.export.export(autodidax.jit(ajnp.sin), platforms=["cuda"])(np.ones(3, F32))
    with pytest.raises(ValueError, match=r"was exported for platforms '\('cuda',\)' but it is "
                                         r"used on '\('cpu',\)'"):
        exp.call(np.ones(3, F32))
    theirs = jax.export.deserialize(exp.serialize())
    assert theirs.platforms == ("cuda",)


def test_unused_inputs_of_jax_artifacts_are_dropped():
    theirs = jax.export.export(jax.jit(lambda x, unused, y: x * y))(
        np.ones(3, F32), np.ones(2, np.int32), np.ones(3, F32))
    got = autodidax.export.deserialize(theirs.serialize())
    assert got.module_kept_var_idx == (0, 2)
    x = np.arange(3, dtype=F32)
    np.testing.assert_array_equal(got.call(x, np.zeros(2, np.int32), x), x * x)


def test_jax_vjp_is_read_and_runs():
    theirs = jax.export.export(jax.jit(lambda x: jjnp.sin(x) * x))(np.ones(3, F32))
    got = autodidax.export.deserialize(theirs.serialize(vjp_order=1))
    assert got.has_vjp()
    x, ct = np.arange(3, dtype=F32), np.ones(3, F32)
    close(got.vjp().call(x, ct), jax.vjp(lambda x: jjnp.sin(x) * x, x)[1](ct))
    with pytest.raises(ValueError, match="No VJP is available"):
        autodidax.export.deserialize(theirs.serialize()).vjp()


def test_symbolic_shapes_of_jax_artifacts_are_refined_per_call(tmp_path):
    with pytest.raises(NotImplementedError, match="no shape polymorphism"):
        autodidax.export.symbolic_shape("b, 4")
    b, = jax.export.symbolic_shape("b")
    f = lambda x, y: (jjnp.sin(x).sum(axis=1) * y[0], jjnp.concatenate([y, y]))   # noqa: E731
    theirs = jax.export.export(jax.jit(f))(jax.ShapeDtypeStruct((b, 4), F32),
                                           jax.ShapeDtypeStruct((b,), F32))
    got = autodidax.export.deserialize(theirs.serialize())
    assert str(got.in_avals) == str(theirs.in_avals) and got.uses_global_constants
    for n in (1, 3, 7):
        x, y = np.linspace(-1, 1, 4 * n, dtype=F32).reshape(n, 4), np.arange(n, dtype=F32) + 1
        close(got.call(x, y), theirs.call(x, y))
        close(autodidax.jit(got.call)(x, y), theirs.call(x, y))
    for bad in [(np.ones((0, 4), F32), np.ones(0, F32)), (np.ones((2, 4), F32), np.ones(3, F32))]:
        with pytest.raises(ValueError) as want:
            theirs.call(*bad)
        with pytest.raises(ValueError) as mine:
            got.call(*bad)
        assert str(mine.value) == str(want.value)
    (tmp_path / "poly.bin").write_bytes(theirs.serialize())
    np.save(tmp_path / "x.npy", np.ones((5, 4), F32))
    np.save(tmp_path / "y.npy", np.arange(5, dtype=F32))
    np.save(tmp_path / "y3.npy", np.arange(3, dtype=F32))
    done = run(tmp_path / "poly.bin", "--input", tmp_path / "x.npy", "--input",
               tmp_path / "y.npy", "--output", tmp_path / "out.npz")
    assert done.returncode == 0, done.stderr
    want = theirs.call(np.ones((5, 4), F32), np.arange(5, dtype=F32))
    with np.load(tmp_path / "out.npz") as saved:
        close([saved["result[0]"], saved["result[1]"]], want)
    done = run(tmp_path / "poly.bin", "--input", tmp_path / "x.npy", "--input",
               tmp_path / "y3.npy")
    assert done.returncode == 2 and "Found inconsistency between dimension size" in done.stderr


def test_shape_dtype_structs_lower_as_arrays():
    f = autodidax.jit(lambda x: ajnp.cos(x) + 1)
    assert (f.lower(autodidax.ShapeDtypeStruct((2, 3), F32)).as_text()
            == f.lower(np.ones((2, 3), F32)).as_text())


def test_callbacks_cannot_be_exported():
    def f(x):
        autodidax.debug.print("x={x}", x=x)
        return x
    with pytest.raises(NotImplementedError, match="host_callbacks"):
        autodidax.export.export(autodidax.jit(f))(np.ones(2, F32))


def eight_device_pair():
    mesh_a = autodidax.make_mesh((4, 2), ("x", "y"))
    mesh_j = jax.make_mesh((4, 2), ("x", "y"))

    def step(jnp):
        return lambda w, b: jnp.tanh(w @ b).sum(1)
    specs = ((P("x", "y"), P("y")), P("x"))
    ours = autodidax.jit(step(ajnp), in_shardings=tuple(NamedSharding(mesh_a, s)
                                                        for s in specs[0]),
                         out_shardings=NamedSharding(mesh_a, specs[1]))
    theirs = jax.jit(step(jjnp), in_shardings=tuple(
        jax.sharding.NamedSharding(mesh_j, jax.sharding.PartitionSpec(*s)) for s in specs[0]),
        out_shardings=jax.sharding.NamedSharding(mesh_j, jax.sharding.PartitionSpec("x")))
    w = np.arange(32, dtype=F32).reshape(8, 4) / 32
    b = np.linspace(-1, 1, 12, dtype=F32).reshape(4, 3)
    return ours, theirs, mesh_j, (w, b), step(jjnp)(w, b)


def test_eight_devices_both_ways():
    ours, theirs, mesh_j, (w, b), want = eight_device_pair()
    mine = autodidax.export.export(ours)(w, b)
    jaxs = jax.export.export(theirs)(w, b)
    assert mine.nr_devices == 8 == jaxs.nr_devices
    assert strip_locations(mine.mlir_module()) == strip_locations(jaxs.mlir_module())
    # ours, in JAX
    loaded = jax.export.deserialize(mine.serialize())
    assert str(loaded.in_shardings_jax(mesh_j)) == str(jaxs.in_shardings_jax(mesh_j))
    ins = jaxs.in_shardings_jax(mesh_j)
    close(jax.jit(loaded.call)(jax.device_put(w, ins[0]), jax.device_put(b, ins[1])), want)
    # JAX's, in ours
    got = autodidax.export.deserialize(jaxs.serialize())
    close(got.call(w, b), want)
    mesh_a = autodidax.make_mesh((4, 2), ("x", "y"))
    assert [str(s) for s in got.in_shardings_jax(mesh_a)] == [str(s) for s in ins]


# The runner, in fresh processes.

def run(*argv, env=None):
    return subprocess.run([sys.executable, "-m", "autodidax.runner", *map(str, argv)],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **(env or {})))


@pytest.fixture(scope="module")
def files(tmp_path_factory, ours, theirs):
    d = tmp_path_factory.mktemp("runner")
    (d / "ours.bin").write_bytes(ours.serialize())
    (d / "theirs.bin").write_bytes(theirs.serialize())
    a, kw = args()
    np.save(d / "x.npy", a[0])
    np.save(d / "y.npy", a[1])
    np.save(d / "scale.npy", kw["scale"])
    np.save(d / "x_int.npy", a[0].astype(np.int32))
    return d


@pytest.mark.parametrize("which", ["ours.bin", "theirs.bin"])
def test_runner_runs_artifacts(files, which):
    out = files / f"{which}.npz"
    done = run(files / which, "--input", files / "x.npy", "--input", files / "y.npy",
               "--input", files / "scale.npy", "--output", out, "--repeat", "3",
               env={"AUTODIDAX_CACHE_DIR": str(files / "cache")})
    assert done.returncode == 0, done.stderr
    assert "median of 3" in done.stderr
    a, kw = args()
    want = fun(jjnp)(*a, **kw)
    with np.load(out) as saved:
        assert sorted(saved.files) == ["result['out']", "result['total']"]
        close([saved["result['out']"], saved["result['total']"]], [want["out"], want["total"]])


def test_runner_imports_no_tracing_code(files):
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "autodidax.runner",
                           files / "ours.bin", "--input", files / "x.npy", "--input",
                           files / "y.npy", "--input", files / "scale.npy"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    ours_ = {m for m in imported if m.startswith("autodidax")}
    assert ours_ == {"autodidax", "autodidax.compilation_cache", "autodidax.plugins",
                     "autodidax.serialization"}, ours_
    assert not any(m == "jax" or m.startswith("jax.") for m in imported)


def test_runner_errors_are_clear(files, tmp_path):
    x, y, s = files / "x.npy", files / "y.npy", files / "scale.npy"
    cases = [
        ((files / "ours.bin", "--input", x, "--input", y), "takes 3 inputs"),
        ((files / "ours.bin", "--input", files / "x_int.npy", "--input", y, "--input", s),
         "input args[0] of 'f' must be float32[2,3], given int32[2,3]"),
        ((files / "ours.bin", "--input", y, "--input", x, "--input", s),
         "must be float32[2,3], given float32[]"),
        ((tmp_path / "missing.bin",), "No such file"),
    ]
    blob = (files / "ours.bin").read_bytes()
    for name, data in [("cut.bin", blob[:len(blob) // 2]), ("empty.bin", b""),
                       ("text.bin", b"hello, this is not an artifact at all" * 3)]:
        (tmp_path / name).write_bytes(data)
        cases.append(((tmp_path / name, "--input", x), "artifact"))
    for argv, message in cases:
        done = run(*argv)
        assert done.returncode == 2 and message in done.stderr, (argv, done.stderr)
        assert "Traceback" not in done.stderr


def test_runner_refuses_a_newer_version_and_another_platform(tmp_path, ours):
    art = serialization.read_artifact(bytes(ours.serialize()))
    import dataclasses
    newer = dataclasses.replace(art, serialization_version=serialization.NEWEST_VERSION + 1)
    (tmp_path / "newer.bin").write_bytes(serialization.write_artifact(newer))
    done = run(tmp_path / "newer.bin")
    assert done.returncode == 2 and "version" in done.stderr and "Traceback" not in done.stderr
    cuda = autodidax.export.export(autodidax.jit(ajnp.sin), platforms=["cuda"])(np.ones(3, F32))
    (tmp_path / "cuda.bin").write_bytes(cuda.serialize())
    np.save(tmp_path / "x.npy", np.ones(3, F32))
    done = run(tmp_path / "cuda.bin", "--input", tmp_path / "x.npy")
    assert done.returncode == 2, done.stderr
    assert "was exported for platforms '('cuda',)' but it is used on '('cpu',)'" in done.stderr


def test_runner_runs_eight_device_artifacts(tmp_path):
    ours, theirs, _, (w, b), want = eight_device_pair()
    np.save(tmp_path / "w.npy", w)
    np.save(tmp_path / "b.npy", b)
    for name, exp in [("ours", autodidax.export.export(ours)(w, b)),
                      ("theirs", jax.export.export(theirs)(w, b))]:
        (tmp_path / f"{name}.bin").write_bytes(exp.serialize())
        done = run(tmp_path / f"{name}.bin", "--input", tmp_path / "w.npy", "--input",
                   tmp_path / "b.npy", "--output", tmp_path / f"{name}.npz")
        assert done.returncode == 0, done.stderr
        assert "on 8 cpu device(s)" in done.stderr
        with np.load(tmp_path / f"{name}.npz") as saved:
            close(saved["result"], want)


def test_the_runner_loads_no_jax_over_eight_devices(tmp_path):
    """jaxlib's C++ tries `import jax` when it splits a result over devices, and would find the
    real JAX; the runner hides it (appendix A15's `compilation_cache.jax_hidden`). JAX's 8-device
    artifact, run through `runner.Program` in a fresh process, leaves no jax in sys.modules."""
    _, theirs, _, (w, b), want = eight_device_pair()
    (tmp_path / "theirs.bin").write_bytes(jax.export.export(theirs)(w, b).serialize())
    np.save(tmp_path / "w.npy", w)
    np.save(tmp_path / "b.npy", b)
    code = (f"import os, sys, numpy as np\nos.chdir({str(tmp_path)!r})\n"
            "from autodidax import runner, serialization\n"
            "artifact = serialization.read_artifact(open('theirs.bin', 'rb').read())\n"
            "program = runner.Program(artifact, runner.make_client('cpu', 8))\n"
            "np.save('out.npy', program(np.load('w.npy'), np.load('b.npy'))[0])\n"
            "print(sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", f"running the artifact loaded {done.stdout.strip()}"
    close(np.load(tmp_path / "out.npy"), want)


def test_the_example_classifier_runs_in_the_runner(tmp_path):
    """`make run-example`: chapter 18's classifier, trained, exported and run on new points."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
    try:
        import classifier
    finally:
        sys.path.pop(0)
    classifier.main(tmp_path)
    done = run(tmp_path / "classifier.jaxexport", "--input", tmp_path / "points.npy",
               "--output", tmp_path / "logits.npz")
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "logits.npz") as saved:
        predicted = saved["result"].argmax(1)
    assert (predicted == np.load(tmp_path / "labels.npy")).mean() > 0.9
    theirs = jax.export.deserialize((tmp_path / "classifier.jaxexport").read_bytes())
    np.testing.assert_allclose(np.asarray(theirs.call(np.load(tmp_path / "points.npy"))),
                               np.load(tmp_path / "logits.npz")["result"], rtol=1e-5, atol=1e-5)


def test_gradients_go_through_the_exported_vjp_both_ways():
    def g(jnp):
        return lambda x, y: (jnp.sin(x) * y, (x * y).sum())
    x, y = np.arange(3, dtype=F32) / 3, np.linspace(1, 2, 3, dtype=F32)
    want = jax.grad(lambda x, y: g(jjnp)(x, y)[1] + g(jjnp)(x, y)[0].sum(), (0, 1))(x, y)
    mine = autodidax.export.export(autodidax.jit(g(ajnp)))(x, y)
    jaxs = jax.export.export(jax.jit(g(jjnp)))(x, y)
    assert str(mine.vjp().in_avals) == str(jaxs.vjp().in_avals)
    assert str(mine.vjp().out_tree) == str(jaxs.vjp().out_tree)
    # ours, differentiated in JAX; JAX's, differentiated in ours
    theirs_of_mine = jax.export.deserialize(mine.serialize(vjp_order=1))
    close(jax.grad(lambda x, y: (lambda o: o[1] + o[0].sum())(theirs_of_mine.call(x, y)),
                   (0, 1))(x, y), want)
    mine_of_theirs = autodidax.export.deserialize(jaxs.serialize(vjp_order=1))
    close(autodidax.grad(lambda x, y: (lambda o: o[1] + o[0].sum())(mine_of_theirs.call(x, y)),
                         (0, 1))(x, y), want)
    # The same equations; the line breaks differ where JAX's printer moves a long parameter onto
    # lines of its own and ours breaks the operands (a difference of appendix A4's printer).
    def flat(jaxpr):
        return re.sub(r"\s+", " ", str(jaxpr)).replace("[ ", "[").replace(" ]", "]")
    assert flat(autodidax.make_jaxpr(mine.call)(x, y)) == flat(jax.make_jaxpr(jaxs.call)(x, y))


def test_several_platforms_and_the_disabled_platform_check(tmp_path):
    x = np.float32(1.0)
    for lib, lax in [(jax, jax.lax), (autodidax, autodidax.lax)]:
        assert lib.export.default_export_platform() == "cpu"
    mine = autodidax.export.export(autodidax.jit(autodidax.lax.cos),
                                   platforms=["tpu", "cpu", "cuda"])(x)
    jaxs = jax.export.export(jax.jit(jax.lax.cos), platforms=["tpu", "cpu", "cuda"])(x)
    assert mine.uses_global_constants and jaxs.uses_global_constants
    assert "%arg0: tensor<i32> {jax.global_constant = \"_platform_index\"}" in mine.mlir_module()
    want = np.cos(x)
    for exp in (mine, autodidax.export.deserialize(jaxs.serialize())):
        close(exp.call(x), want)
        close(autodidax.jit(exp.call)(x), want)
    close(jax.export.deserialize(mine.serialize()).call(x), want)
    close(jax.jit(jax.export.deserialize(mine.serialize()).call)(x), want)
    for name, exp in [("mine", mine), ("jaxs", jaxs)]:
        (tmp_path / f"{name}.bin").write_bytes(exp.serialize())
        np.save(tmp_path / "x.npy", x)
        done = run(tmp_path / f"{name}.bin", "--input", tmp_path / "x.npy", "--output",
                   tmp_path / "out.npz")
        assert done.returncode == 0, done.stderr
        close(np.load(tmp_path / "out.npz")["result"], want)
    # exported for a TPU only, called on the CPU: refused, unless the check is disabled
    checks = [autodidax.export.DisabledSafetyCheck.platform()]
    unsafe = autodidax.export.export(autodidax.jit(autodidax.lax.cos), platforms=["tpu"],
                                     disabled_checks=checks)(x)
    assert repr(unsafe.disabled_safety_checks) == repr(
        jax.export.export(jax.jit(jax.lax.cos), platforms=["tpu"], disabled_checks=[
            jax.export.DisabledSafetyCheck.platform()])(x).disabled_safety_checks)
    assert str(unsafe.call(x)) == str(jax.export.export(
        jax.jit(jax.lax.cos), platforms=["tpu"],
        disabled_checks=[jax.export.DisabledSafetyCheck.platform()])(x).call(x))
    again = autodidax.export.deserialize(unsafe.serialize())
    close(again.call(x), want)
    assert jax.export.deserialize(unsafe.serialize()).disabled_safety_checks == (
        jax.export.DisabledSafetyCheck.platform(),)
