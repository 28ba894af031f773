"""Hostile artifacts and files (issue 34, part 2): the runner and `Exported.call` check what an
artifact says against itself and against its module, the runner reads the module in a child
process that may crash or hang, and its command line refuses files that are not what it takes.
Every bad file is exit code 2 and one line, never a traceback, a crash or a hang; JAX 0.10.2
is the oracle where it has an answer."""
import dataclasses
import importlib
import os
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import autodidax
import autodidax.numpy as ajnp
from autodidax import runner, serialization as S

F32 = np.float32
SINES = Path(__file__).parent.parent / "chapters" / "artifacts" / "sines_by_jax.jaxexport"


def run(*argv, timeout=120):
    return subprocess.run([sys.executable, "-m", "autodidax.runner", *map(str, argv)],
                          capture_output=True, text=True, timeout=timeout)


def refused(done, message):
    """Exit code 2, one line on stderr that says `message`, no traceback."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("python -m autodidax.runner: error:")


def f(jnp):
    return lambda x, y: (jnp.sin(x) * y, x.sum())


X, Y = np.arange(6, dtype=F32).reshape(2, 3) / 5, np.float32(1.5)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    np.save(d / "x.npy", X)
    np.save(d / "y.npy", Y)
    blob = bytes(jax.export.export(jax.jit(f(jjnp)))(X, Y).serialize())
    (d / "good.bin").write_bytes(blob)
    return d, S.read_artifact(blob)


def forged(files, name, **changes):
    d, art = files
    blob = S.write_artifact(dataclasses.replace(art, **changes))
    (d / f"{name}.bin").write_bytes(blob)
    return d / f"{name}.bin", blob


def jax_outcome(blob):
    try:
        jax.export.deserialize(bytearray(blob)).call(X, Y)
        return "ok"
    except Exception as e:   # noqa: BLE001 (the class is what is compared)
        return type(e)


# 1. Fields that lie

LIES = {   # name: (changes, what our error says)
    "kept_out_of_range": (dict(module_kept_var_idx=(0, 5)), "module_kept_var_idx (0, 5)"),
    "kept_twice": (dict(module_kept_var_idx=(0, 0)), "module_kept_var_idx (0, 0)"),
    "kept_unsorted": (dict(module_kept_var_idx=(1, 0)), "must be sorted, distinct indices"),
    "kept_too_few": (dict(module_kept_var_idx=(0,)), "the module of '<lambda>' takes"),
    "out_shape": (dict(out_avals=(S.Aval((2, 4), F32), S.Aval((), F32))),
                  "the module of '<lambda>' returns (tensor<2x3xf32>, tensor<f32>), the "
                  "artifact says (float32[2,4], float32[])"),
    "out_dtype": (dict(out_avals=(S.Aval((2, 3), np.int32), S.Aval((), F32))),
                  "the artifact says (int32[2,3], float32[])"),
    "out_count": (dict(out_avals=(S.Aval((2, 3), F32),), out_shardings=(None,),
                       out_tree=S.TreeDef("leaf")), "returns"),
    "in_shape": (dict(in_avals=(S.Aval((3, 2), F32), S.Aval((), F32))), "takes"),
    "ordered_effect": (dict(ordered_effects=("foo",)), "cannot deserialize effect type foo"),
    "unordered_effect": (dict(unordered_effects=("bar",)), "cannot deserialize effect type bar"),
    "nr_devices_0": (dict(nr_devices=0), "is for 0 devices"),
    "nr_devices_8": (dict(nr_devices=8), "exported for 8 devices (its nr_devices), but its "
                                         "module is for 1"),
    "nr_devices_1000": (dict(nr_devices=1000), "exported for 1000 devices"),
    "nr_devices_65281": (dict(nr_devices=65281), "exported for 65281 devices"),
}


@pytest.mark.parametrize("name", sorted(LIES))
def test_the_runner_refuses_fields_that_lie(files, name):
    changes, message = LIES[name]
    path, _ = forged(files, name, **changes)
    d = files[0]
    inputs = [d / "x.npy", d / "y.npy"]
    if name == "in_shape":
        np.save(d / "x32.npy", np.ones((3, 2), F32))
        inputs[0] = d / "x32.npy"
    start = time.perf_counter()
    done = run(path, "--input", inputs[0], "--input", inputs[1], timeout=60)
    refused(done, message)
    if name.startswith("nr_devices"):   # refused at once, before any client is made
        assert time.perf_counter() - start < 30


@pytest.mark.parametrize("name", sorted(LIES))
def test_call_refuses_fields_that_lie(files, name):
    changes, message = LIES[name]
    _, blob = forged(files, name, **changes)
    x = np.ones((3, 2), F32) if name == "in_shape" else X
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        autodidax.export.deserialize(blob).call(x, Y)


def test_jax_refuses_the_same_fields():
    """Where JAX 0.10.2 refuses too, it is at the call (effects: at deserialize), with a
    ValueError (effects: NotImplementedError); it runs an unsorted kept list and a wrong output
    dtype, which we refuse as corrupt."""
    art = S.read_artifact(bytes(jax.export.export(jax.jit(f(jjnp)))(X, Y).serialize()))
    for name in ("kept_out_of_range", "kept_twice", "out_shape", "nr_devices_8",
                 "nr_devices_1000"):
        blob = S.write_artifact(dataclasses.replace(art, **LIES[name][0]))
        assert jax_outcome(blob) is ValueError, name
    blob = S.write_artifact(dataclasses.replace(art, ordered_effects=("foo",)))
    with pytest.raises(NotImplementedError, match="cannot deserialize effect type foo"):
        jax.export.deserialize(bytearray(blob))


def test_a_sharding_over_another_number_of_devices_is_refused(files):
    art = files[1]
    mesh = S.AbstractMesh((4,), ("x",), ("Explicit",), "cpu", None, "cpu")
    sharded = dataclasses.replace(art, nr_devices=8,
                                  in_shardings=(S.AbstractSharding(mesh, ("x", None)), None))
    with pytest.raises(ValueError, match="is for 8 devices but has a sharding over 4"):
        S.check_artifact(sharded)


def test_cpu_clients_are_bounded():
    with pytest.raises(ValueError, match="at most 1024"):
        runner.make_client("cpu", 65281)


def test_checks_accept_every_artifact_jax_saved():
    """No false alarms: JAX's own saved exports (back-compat data, schema 4 to 11) pass both
    checks, as do an 8-device, a symbolic and a several-platform artifact of JAX's."""
    blobs = []
    for module in ("export_with_memory_space", "export_with_multiple_meshes",
                   "export_with_specified_sharding", "export_with_unspecified_sharding"):
        data = importlib.import_module(
            "jax._src.internal_test_util.export_back_compat_test_data." + module)
        blobs += [bytes(s["exported_serialized"]) for s in data.serializations]
    mesh = jax.make_mesh((4, 2), ("x", "y"))
    sharded = jax.jit(lambda w: jjnp.tanh(w) * 2,
                      in_shardings=jax.sharding.NamedSharding(mesh, jax.P("x", "y")))
    blobs.append(bytes(jax.export.export(sharded)(np.ones((8, 4), F32)).serialize()))
    blobs.append(SINES.read_bytes())
    blobs.append(bytes(jax.export.export(jax.jit(jjnp.cos), platforms=["tpu", "cpu"])(
        np.ones(3, F32)).serialize()))
    for blob in blobs:
        art = S.read_artifact(blob)
        assert S.read_module_isolated(art)      # check_artifact and check_module inside


def test_every_element_type_is_the_one_jax_lowers():
    """`check_module`'s table of MLIR element types, against JAX's lowering of each dtype."""
    from jaxlib.mlir import ir
    with S.mlir_context():
        for element in S._MLIR_ELEMENTS.values():
            assert str(ir.Type.parse(element)) == element
    for name, element in S._MLIR_ELEMENTS.items():
        dtype = S._dtype(name)
        if dtype.itemsize == 8 or name == "complex128":   # no 64 bits without x64
            continue
        text = jax.jit(lambda x: x).lower(jax.ShapeDtypeStruct((2,), dtype)).as_text()
        assert f"tensor<2x{element}>" in text, (name, element)


# 2. Modules that crash jaxlib's reader

def flipped(byte: int, bit: int) -> S.Artifact:
    """JAX's `sines_by_jax` with one bit of its module flipped."""
    art = S.read_artifact(SINES.read_bytes())
    code = bytearray(art.mlir_module_serialized)
    code[byte] ^= 1 << bit
    return dataclasses.replace(art, mlir_module_serialized=bytes(code))


def raw_outcome(art, timeout):
    """What deserializing the module does to a process that does nothing else."""
    try:
        return subprocess.run([sys.executable, "-c", S._READ_MODULE], capture_output=True,
                              input=art.mlir_module_serialized, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        return "hang"


def test_a_module_that_crashes_the_reader_is_exit_code_2(tmp_path):
    art = flipped(373, 3)
    if raw_outcome(art, 60) != -11:
        pytest.skip("this jaxlib reads the flipped module without a segfault")
    (tmp_path / "crash.bin").write_bytes(S.write_artifact(art))
    np.save(tmp_path / "b.npy", np.ones((3, 4), F32))
    refused(run(tmp_path / "crash.bin", "--input", tmp_path / "b.npy"),
            "reading the module of '<lambda>' crashed the process that read it (SIGSEGV)")
    with pytest.raises(ValueError, match="SIGSEGV"):
        S.read_module_isolated(art)


def test_a_module_that_hangs_the_reader_is_exit_code_2(tmp_path):
    art = flipped(420, 2)
    if raw_outcome(art, 5) != "hang":
        pytest.skip("this jaxlib reads the flipped module without hanging")
    (tmp_path / "hang.bin").write_bytes(S.write_artifact(art))
    np.save(tmp_path / "b.npy", np.ones((3, 4), F32))
    start = time.perf_counter()
    refused(run(tmp_path / "hang.bin", "--input", tmp_path / "b.npy", "--timeout", "3"),
            "reading the module of '<lambda>' took more than 3 s")
    assert time.perf_counter() - start < 60


def test_a_module_that_is_not_one_is_exit_code_2(files):
    path, _ = forged(files, "junk_module", mlir_module_serialized=b"ML\xefR\x03junk")
    d = files[0]
    refused(run(path, "--input", d / "x.npy", "--input", d / "y.npy"),
            "the module of '<lambda>' cannot be read: failed to deserialize module")


# 3. Files that are not what the runner takes

def test_inputs_that_are_not_npy_files(files, tmp_path):
    good = files[0] / "good.bin"
    np.savez(tmp_path / "both.npz", x=X, y=Y)
    (tmp_path / "text.npy").write_text("not an array")
    with open(tmp_path / "huge.npy", "wb") as out:       # declares 4 TB, holds 16 bytes
        np.lib.format.write_array_header_1_0(out, {"descr": "<f4", "fortran_order": False,
                                                   "shape": (10**12,)})
        out.write(bytes(16))
    np.save(tmp_path / "big_endian.npy", X.astype(">f4"))
    os.mkfifo(tmp_path / "fifo.npy")
    y = files[0] / "y.npy"
    for name, message in [("both.npz", "is an .npz archive: give each input as an .npy file"),
                          ("text.npy", "is not an .npy file"),
                          ("huge.npy", "declares float32[1000000000000], 4000000000000 bytes, "
                                       "but holds 16"),
                          ("big_endian.npy", "must be float32[2,3], given float32[2,3] in "
                                             "big-endian byte order"),
                          ("fifo.npy", "is not a regular file")]:
        refused(run(good, "--input", tmp_path / name, "--input", y, timeout=60), message)


def test_artifacts_that_are_not_regular_files(files, tmp_path):
    os.mkfifo(tmp_path / "fifo.bin")
    for path in ("/dev/zero", tmp_path / "fifo.bin", tmp_path):
        refused(run(path, timeout=60), "is not a regular file, as an artifact must be")
    with pytest.raises(ValueError, match="more than an artifact can"):
        S.read_file(files[0] / "good.bin", limit=100)


def test_outputs_that_cannot_be_written(files, tmp_path):
    d = files[0]
    argv = (d / "good.bin", "--input", d / "x.npy", "--input", d / "y.npy", "--output")
    (tmp_path / "folder").mkdir()
    refused(run(*argv, tmp_path / "folder"), "is a directory: name a file in it")
    assert not (tmp_path / "folder.npz").exists()
    refused(run(*argv, tmp_path / "missing" / "out.npz"), "is not a writable directory")
    refused(run(*argv, d / "x.npy" / "out.npz"), "is not a writable directory")
    if os.path.exists("/dev/full"):                     # writing fails: no space left
        refused(run(*argv, "/dev/full"), "No space left on device")
    done = run(*argv, tmp_path / "results")             # written where named, no .npz added
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "results") as saved:
        np.testing.assert_allclose(saved["result[1]"], X.sum(), rtol=1e-6)


# 4. Many devices, no shardings

def test_call_of_a_multi_device_artifact_without_shardings():
    """JAX's 8-device artifact with its shardings dropped: `call` raises JAX's ValueError (ours
    ran into a bare StopIteration); the runner, which takes the layout XLA compiled, runs it."""
    mesh = jax.make_mesh((8,), ("x",))
    step = jax.jit(lambda w: jjnp.tanh(w) * 2,
                   in_shardings=jax.sharding.NamedSharding(mesh, jax.P("x")))
    w = np.linspace(-1, 1, 32, dtype=F32).reshape(8, 4)
    art = S.read_artifact(bytes(jax.export.export(step)(w).serialize()))
    bare = S.write_artifact(dataclasses.replace(art, in_shardings=(None,),
                                                out_shardings=(None,)))
    with pytest.raises(ValueError) as theirs:
        jax.export.deserialize(bytearray(bare)).call(w)
    with pytest.raises(ValueError) as ours:
        autodidax.export.deserialize(bare).call(w)
    assert str(ours.value) == str(theirs.value)
    program = runner.Program(S.read_artifact(bare), runner.make_client("cpu", 8))
    np.testing.assert_allclose(program(w)[0], np.tanh(w) * 2, rtol=1e-6)


def test_good_artifacts_still_run_everywhere(files):
    """The checks let the chapter's kinds through: ours and JAX's, eagerly, under jit."""
    d, art = files
    blob = (d / "good.bin").read_bytes()
    np.testing.assert_allclose(autodidax.export.deserialize(blob).call(X, Y)[1], X.sum(),
                               rtol=1e-6)
    mine = autodidax.export.export(autodidax.jit(f(ajnp)))(X, Y)
    np.testing.assert_allclose(autodidax.jit(mine.call)(X, Y)[0], np.sin(X) * Y, rtol=1e-6)
    done = run(d / "good.bin", "--input", d / "x.npy", "--input", d / "y.npy")
    assert done.returncode == 0, done.stderr


def test_jax_refuses_big_endian_inputs_too():
    """What appendix A8 says of `check_inputs`: JAX's `call` refuses a non-native byte order."""
    exported = jax.export.export(jax.jit(jjnp.sin))(np.ones(3, F32))
    with pytest.raises(TypeError, match=">f4"):
        exported.call(np.ones(3, ">f4"))


def test_program_checks_the_fields_before_it_uses_them(files):
    bad = dataclasses.replace(files[1], module_kept_var_idx=(0, 7))
    with pytest.raises(ValueError, match="module_kept_var_idx"):       # was an IndexError
        runner.Program(bad, runner.make_client("cpu"))
