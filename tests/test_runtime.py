"""The runtime (chapter 7): devices, device arrays, compiling and running, the caches, eager XLA."""
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import autodidax
import autodidax.numpy as jnp
from autodidax import core, lax, runtime
from autodidax.jaxpr import make_jaxpr
from autodidax.lowering import lower_jaxpr_to_module, module_to_text
from autodidax.runtime import Array, compile_or_get_cached, device_put

THREE_OPS = """
module @three_ops {
  func.func public @main(%x: tensor<3xf32>) -> tensor<3xf32> {
    %s = stablehlo.sine %x : tensor<3xf32>
    %m = stablehlo.multiply %s, %s : tensor<3xf32>
    %r = stablehlo.add %m, %x : tensor<3xf32>
    return %r : tensor<3xf32>
  }
}
"""
TWO_OUTPUTS = """
module @two {
  func.func public @main(%x: tensor<2x3xf32>, %n: tensor<i32>) -> (tensor<3x2xf32>, tensor<i32>) {
    %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %m = stablehlo.add %n, %n : tensor<i32>
    return %t, %m : tensor<3x2xf32>, tensor<i32>
  }
}
"""


@pytest.fixture(autouse=True)
def cache_dir(tmp_path):
    """Every test gets its own, empty persistent cache, never the user's."""
    previous = runtime.set_cache_dir(tmp_path / "cache")
    runtime.clear_caches()
    yield tmp_path / "cache"
    runtime.set_cache_dir(previous)
    runtime.clear_caches()


def _env(cache):
    env = dict(os.environ, AUTODIDAX_CACHE_DIR=str(cache), TF_CPP_MIN_LOG_LEVEL="1")
    return env


# Devices and arrays

def test_devices():
    dev, *others = runtime.devices()         # 8 in the tests: conftest asks for them
    assert dev.platform == "cpu" and runtime.devices("cpu") == [dev, *others]
    assert runtime.default_device() == dev and runtime.default_backend() == "cpu"
    assert "cpu" in runtime.backends()


def test_gpu_is_skipped_cleanly_without_a_plugin():
    if runtime.find_cuda_plugin() is not None:
        pytest.skip("a CUDA plugin is installed here")
    with pytest.raises(RuntimeError, match="no CUDA PJRT plugin is installed"):
        runtime.devices("gpu")
    with pytest.raises(RuntimeError, match="Unknown backend 'tpu'"):
        runtime.devices("tpu")


@pytest.mark.parametrize("value", [
    np.array([1.5, -2.0, 3.25], np.float32), np.array([[1, 2], [3, 4]], np.int32),
    np.array([True, False]), np.array([1.5, 2.5], np.float16), np.arange(6, dtype=np.uint8),
    np.array(7, np.int8), np.zeros((2, 0), np.float32)])
def test_round_trip(value):
    x = device_put(value)
    assert type(x) is Array and isinstance(x, core.Array)
    assert x.shape == value.shape and x.dtype == value.dtype and not x.weak_type
    out = np.asarray(x)
    assert out.dtype == value.dtype
    np.testing.assert_array_equal(out, value)
    assert x.block_until_ready() is x and x.device == runtime.default_device()


def test_canonical_dtypes_and_weak_types():
    assert device_put(np.arange(3.0)).dtype == np.float32
    assert device_put(np.arange(3)).dtype == np.int32
    s = device_put(2.0)
    assert s.dtype == np.float32 and s.weak_type and s.shape == ()
    assert not device_put(True).weak_type
    tree = device_put({"a": 1, "b": [np.ones(2)]})
    assert type(tree["a"]) is Array and tree["b"][0].dtype == np.float32
    with pytest.raises(TypeError, match="not a valid JAX type"):
        device_put("text")


def test_arrays_are_values():
    x = np.arange(1_000_000, dtype=np.float32)       # large and aligned: PJRT could alias it
    y = device_put(x)
    x[0] = 99.0
    assert np.asarray(y)[0] == 0.0
    value = np.asarray(y)
    with pytest.raises(ValueError):
        value[0] = 1.0                                  # what we read back is read-only
    h = jnp.ones((4, 5))                                # a broadcast view: made dense on the way
    np.testing.assert_array_equal(np.asarray(device_put(h)), np.ones((4, 5), np.float32))
    assert device_put(y) is y


def test_device_arrays_work_everywhere():
    y = device_put(np.array([1.0, 2.0, 3.0], np.float32))
    np.testing.assert_allclose(np.asarray(jnp.sin(y) * 2.0 + y), np.sin([1, 2, 3]) * 2 + [1, 2, 3],
                               rtol=1e-6)
    assert float(y[1]) == 2.0 and y[1:].shape == (2,) and y.sum().item() == 6.0
    assert len(y) == 3 and [float(v) for v in y] == [1.0, 2.0, 3.0]
    assert str(make_jaxpr(lambda a: a * 2.0)(y)).count("mul") == 1
    with pytest.raises(TypeError, match="unhashable"):
        hash(y)


def test_repr_matches_jax():
    jax = pytest.importorskip("jax")
    for value in [np.array([1.0, 2.0], np.float32), np.arange(6, dtype=np.int32).reshape(2, 3),
                  np.array([True, False]), np.float32(3.5), np.linspace(0, 1, 30, dtype=np.float32)]:
        assert repr(device_put(value)) == repr(jax.device_put(value))
        assert str(device_put(value)) == str(jax.device_put(value))
    assert repr(device_put(2.0)) == repr(jax.device_put(2.0)) == \
        "Array(2., dtype=float32, weak_type=True)"


# Compiling and running

def test_compile_and_run_text():
    exe = compile_or_get_cached(THREE_OPS)
    x = np.array([0.0, 1.0, 2.0], np.float32)
    [out] = exe(x)
    assert type(out) is Array and out.shape == (3,) and out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), np.sin(x) ** 2 + x, rtol=1e-6)
    [again] = exe(out)                                  # a device array goes straight in
    np.testing.assert_allclose(np.asarray(again), np.sin(out) ** 2 + np.asarray(out), rtol=1e-6)
    assert "fusion" in exe.as_text() and exe.cost_analysis()["transcendentals"] == 3


def test_result_avals_are_read_from_the_program():
    exe = compile_or_get_cached(TWO_OUTPUTS)
    assert [a.str_short() for a in exe.out_avals] == ["f32[3,2]", "i32[]"]
    t, m = exe(np.arange(6, dtype=np.float32).reshape(2, 3), np.int32(4))
    np.testing.assert_array_equal(np.asarray(t), np.arange(6).reshape(2, 3).T)
    assert m.shape == () and int(m) == 8


def test_lowered_jaxpr_with_weak_result():
    closed = make_jaxpr(lambda x: x * 2.0)(2.0)
    exe = compile_or_get_cached(module_to_text(lower_jaxpr_to_module(closed)),
                                out_avals=closed.out_avals)
    [out] = exe(3.0)
    assert out.weak_type and float(out) == 6.0


def test_memory_cache_is_hit():
    before = dict(runtime.cache_stats)
    a = compile_or_get_cached(THREE_OPS)
    b = compile_or_get_cached(THREE_OPS)
    assert a is b
    assert runtime.cache_stats["compiles"] - before["compiles"] == 1
    assert runtime.cache_stats["memory_hits"] - before["memory_hits"] == 1
    c = compile_or_get_cached(THREE_OPS.replace("3xf32", "4xf32"))   # new input types: new program
    assert c is not a and runtime.cache_stats["compiles"] - before["compiles"] == 2


def test_persistent_cache_hit_in_a_second_process(cache_dir):
    script = textwrap.dedent(f"""
        import autodidax
        from autodidax import runtime
        runtime.compile_or_get_cached({THREE_OPS!r})
        print(runtime.cache_stats["compiles"], runtime.cache_stats["disk_hits"])
    """)
    run = lambda: subprocess.run([sys.executable, "-c", script], env=_env(cache_dir),
                                 capture_output=True, text=True, check=True).stdout.split()
    assert run() == ["1", "0"]
    assert len(list(cache_dir.glob("*.xla"))) == 1
    assert run() == ["0", "1"]


def test_corrupt_entry_is_recompiled(cache_dir):
    compile_or_get_cached(THREE_OPS)
    [entry] = cache_dir.glob("*.xla")
    good = entry.read_bytes()
    for damage in [b"garbage", good[:len(good) // 2], good[:-1] + bytes([good[-1] ^ 1]), b""]:
        entry.write_bytes(damage)
        runtime.clear_caches()
        before = dict(runtime.cache_stats)
        [out] = compile_or_get_cached(THREE_OPS)(np.zeros(3, np.float32))
        assert np.asarray(out).tolist() == [0.0, 0.0, 0.0]
        assert runtime.cache_stats["compiles"] - before["compiles"] == 1
        assert entry.read_bytes()[:20] == good[:20]        # rewritten
    runtime.clear_caches()
    before = dict(runtime.cache_stats)
    compile_or_get_cached(THREE_OPS)
    assert runtime.cache_stats["disk_hits"] - before["disk_hits"] == 1


def test_a_failed_computation_raises_its_error():
    """The buffer of a computation that failed (an all-reduce whose peer process died) reads
    through NumPy as an object array that wraps it; the array raises the computation's error
    instead, as JAX's does (`Gloo all-reduce failed`), never returns the object array."""
    class FailedBuffer:                  # jaxlib's buffer, as a failed collective leaves it
        aval = core.ShapedArray((3,), np.dtype("float32"))

        def is_deleted(self):
            return False

        def _single_device_array_to_np_array_did_copy(self):
            raise RuntimeError("Gloo all-reduce failed")

    with pytest.raises(RuntimeError, match="Gloo all-reduce failed"):
        np.asarray(Array(FailedBuffer()))


def test_cache_key_holds_the_xla_flags(cache_dir):
    """A run with fast-math flags, then one without: each gets its own entry and its own
    results (the second loading the first's executable would give max(nan, 1) = 1)."""
    script = textwrap.dedent("""
        import numpy as np
        import autodidax, autodidax.numpy as jnp
        f = autodidax.jit(lambda x: (jnp.maximum(x, 1.0), jnp.exp(x)))
        print(*[float(np.asarray(v)[0]) for v in f(np.float32([np.nan]))])
    """)
    seen = []
    for flags in ("--xla_cpu_enable_fast_math=true", ""):
        env = dict(_env(cache_dir), XLA_FLAGS=f"{flags} --xla_force_host_platform_device_count=1")
        seen.append(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                                   text=True, check=True).stdout.split())
    assert seen[1] == ["nan", "nan"], seen
    assert len(list(cache_dir.glob("*.xla"))) == 2


def test_entry_under_another_name_is_not_trusted(cache_dir):
    """An entry holds its key: a valid entry copied under another program's name is refused."""
    other = THREE_OPS.replace("stablehlo.sine", "stablehlo.cosine")
    compile_or_get_cached(THREE_OPS)
    compile_or_get_cached(other)
    [a, b] = cache_dir.glob("*.xla")
    b.write_bytes(a.read_bytes())                      # a's executable under b's name
    runtime.clear_caches()
    before = dict(runtime.cache_stats)
    for text, fn in ((THREE_OPS, np.sin), (other, np.cos)):
        [out] = compile_or_get_cached(text)(np.ones(3, np.float32))
        np.testing.assert_allclose(np.asarray(out), fn(1.0) ** 2 + 1, rtol=1e-6)
    assert runtime.cache_stats["compiles"] - before["compiles"] == 1
    assert runtime.cache_stats["disk_hits"] - before["disk_hits"] == 1


def test_cache_reads_only_regular_files(cache_dir):
    """A link to /dev/zero, or a FIFO, where an entry should be is never read: no hang."""
    compile_or_get_cached(THREE_OPS)
    [entry] = cache_dir.glob("*.xla")
    for make in (lambda: entry.symlink_to("/dev/zero"), lambda: os.mkfifo(entry)):
        entry.unlink()
        make()
        runtime.clear_caches()
        before = dict(runtime.cache_stats)
        [out] = compile_or_get_cached(THREE_OPS)(np.zeros(3, np.float32))
        assert np.asarray(out).tolist() == [0.0, 0.0, 0.0]
        assert runtime.cache_stats["compiles"] - before["compiles"] == 1
        assert entry.is_file() and not entry.is_symlink()     # rewritten as a file of ours


def test_cache_folder_others_may_write_is_not_used(cache_dir):
    cache_dir.mkdir()
    cache_dir.chmod(0o777)
    with pytest.warns(UserWarning, match="others may write to it"):
        [out] = compile_or_get_cached(THREE_OPS)(np.zeros(3, np.float32))
    assert np.asarray(out).tolist() == [0.0, 0.0, 0.0] and not list(cache_dir.iterdir())


def test_stale_temporary_files_are_evicted(cache_dir):
    """A writer killed between writing and renaming leaves a `.tmp-` file: gone after an hour."""
    cache_dir.mkdir(mode=0o700)
    stale, fresh = cache_dir / ".tmp-killed", cache_dir / ".tmp-writing"
    for p in (stale, fresh):
        p.write_bytes(b"half an entry")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))
    compile_or_get_cached(THREE_OPS)
    assert not stale.exists() and fresh.exists()


def test_cache_can_be_turned_off_and_moved(cache_dir, tmp_path):
    runtime.set_cache_dir(None)
    compile_or_get_cached(THREE_OPS)
    assert not cache_dir.exists()
    runtime.set_cache_dir(tmp_path / "elsewhere")
    runtime.clear_caches()
    compile_or_get_cached(THREE_OPS)
    assert len(list((tmp_path / "elsewhere").glob("*.xla"))) == 1
    script = "from autodidax import runtime; print(runtime.get_cache_dir())"
    for value, expected in [("off", "None"), ("", "None"), (str(tmp_path / "x"), str(tmp_path / "x"))]:
        env = dict(os.environ, AUTODIDAX_CACHE_DIR=value)
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                             text=True, check=True).stdout.strip()
        assert out == expected
    env = {k: v for k, v in os.environ.items() if k != "AUTODIDAX_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == str(tmp_path / "xdg" / "autodidax")


def test_unwritable_cache_is_not_an_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    runtime.set_cache_dir(blocker / "cache")
    [out] = compile_or_get_cached(THREE_OPS)(np.ones(3, np.float32))
    assert out.shape == (3,)


# Eager evaluation through XLA

PROGRAMS = [
    (lambda x: jnp.sin(x) * 2.0 + x, [np.linspace(-1, 1, 5)]),
    (lambda x, y: jnp.tanh(x @ y).sum(axis=0), [np.ones((2, 3)) / 3, np.arange(12.0).reshape(3, 4)]),
    (lambda x: jnp.where(x > 0, x, -x).max() + x.mean(), [np.array([-2.0, 1.0, 3.0])]),
    (lambda x: (x.T[::-1] ** 2).reshape(-1)[1:4], [np.arange(6.0).reshape(2, 3)]),
    (lambda x: jnp.concatenate([x, x.astype(jnp.float32) / 2]), [np.arange(4)]),
]


@pytest.mark.parametrize("fn, args", PROGRAMS)
def test_eager_xla_agrees_with_numpy(fn, args):
    got = fn(*[jnp.asarray(a) for a in args])              # XLA, the default since chapter 7
    with runtime.eager_mode("numpy"):
        expected = fn(*[jnp.asarray(a) for a in args])
    assert type(got) is Array and type(expected) is core.Array
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.weak_type == expected.weak_type
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-6, atol=1e-6)


def test_eager_xla_caches_per_primitive_and_types():
    x, x4 = runtime.device_put(np.ones(3, np.float32)), runtime.device_put(np.ones(4, np.float32))
    runtime.clear_caches()
    before = dict(runtime.cache_stats)
    lax.sin(x)
    lax.sin(lax.add(x, 1.0))
    lax.sin(x4)
    made = (runtime.cache_stats["compiles"] + runtime.cache_stats["disk_hits"]
            - before["compiles"] - before["disk_hits"])
    hits = runtime.cache_stats["dispatch_hits"] - before["dispatch_hits"]
    assert (made, hits) == (3, 1)      # sin f32[3], add f32[3]+weak, sin f32[4]; sin f32[3] again


def test_jitted_numpy_functions_run_one_program_per_signature():
    """Eagerly, a jitted jnp function is one program per (static values, types): a Python
    scalar by its type, so `x * 2.0` and `x * 3.0` share one; an unhashable static argument,
    or `eager_mode("numpy")`, runs op by op; `clear_caches` forgets the programs."""
    spec = jnp.sum.__wrapped__.library_jit
    x = runtime.device_put(np.arange(6, dtype=np.float32).reshape(2, 3))
    runtime.clear_caches()
    assert not spec.programs
    jnp.sum(x), jnp.sum(x, axis=0), jnp.sum(x, 0), jnp.sum(x * 2.0), jnp.sum(x * 3.0)
    assert len(spec.programs) == 3                 # axis None, axis=0 by name, and by position
    np.testing.assert_array_equal(jnp.sum(x, axis=[0, 1]), 15.0)     # a list: op by op
    with runtime.eager_mode("numpy"):
        assert type(jnp.sum(x)) is core.Array
    assert len(spec.programs) == 3
    mul = jnp.multiply.__wrapped__.library_jit
    assert [k[2:] for k in mul.programs] == [(x.aval, float)]
    runtime.clear_caches()
    assert not spec.programs and not mul.programs


def test_eager_mode_is_restored():
    assert isinstance(core.eval_trace, runtime.XlaEvalTrace)         # the default
    with runtime.eager_mode("numpy"):
        assert core.eval_trace is runtime._numpy_eval_trace
        assert core.trace_ctx.trace is core.eval_trace
        with pytest.raises(TypeError):
            jnp.sin(jnp.ones(3)) + "x"
        assert type(jnp.cos(jnp.ones(2))) is core.Array
    assert isinstance(core.eval_trace, runtime.XlaEvalTrace)
    assert core.trace_ctx.trace is core.eval_trace
    assert runtime.set_eager_mode("numpy") == "xla"
    try:
        assert type(jnp.cos(jnp.ones(2))) is core.Array
    finally:
        assert runtime.set_eager_mode("xla") == "numpy"
    assert type(jnp.cos(jnp.ones(2))) is Array
    with pytest.raises(ValueError, match="'numpy' or 'xla'"):
        runtime.eager_mode("gpu")


def test_computation_follows_committed_data_as_in_jax():
    """Committed inputs decide the device, and commit the result; uncommitted ones move; two
    committed devices are JAX's ValueError (conftest gives both libraries 8 CPU devices)."""
    import jax
    a = np.arange(3.0, dtype=np.float32)
    for lib, m in ((jax, jax.numpy), (autodidax, jnp)):
        d = lib.devices()
        x3, x1, u = lib.device_put(a, d[3]), lib.device_put(a, d[1]), lib.device_put(a)
        assert (x3.committed, u.committed, m.ones(2).committed) == (True, False, False)
        for y in (m.sin(x3), x3 + u, u + x3, x3 * 2.0, m.dot(x3, u), x3[1:]):
            assert (y.device.id, y.committed) == (3, True)
        assert ((u + 1.0).device.id, (u + 1.0).committed) == (0, False)
        with pytest.raises(ValueError, match="Received incompatible devices for jitted "
                                             "computation. Got argument"):
            lib.lax.add(x3, x1)


def test_a_primitive_without_a_lowering_runs_by_its_impl_rule():
    """As JAX runs the `def_impl` of a primitive of the user's: XLA eager cannot compile it."""
    from autodidax.core import Primitive, abstract_eval_rules, impl_rules
    twice_p = Primitive("twice_for_test")
    impl_rules[twice_p] = lambda x: x * 2
    abstract_eval_rules[twice_p] = lambda aval: aval
    y = twice_p.bind(runtime.device_put(np.ones(3, np.float32)))
    assert np.array_equal(y, np.full(3, 2.0)) and type(y) is core.Array


def test_constant_scalars_are_put_on_the_device_once():
    x = runtime.device_put(np.ones(3, np.float32))
    x + 1.0
    before = len(runtime._scalar_buffers)
    x + 1.0, x + 1.0
    assert len(runtime._scalar_buffers) == before
    assert np.array_equal(x + -0.0, x) and np.signbit(np.asarray(jnp.zeros(()) * -0.0))


def test_eager_xla_under_transformations():
    from autodidax.jvp import jvp
    primal, tangent = jvp(jnp.sin, (jnp.ones(3),), (jnp.ones(3),))
    jaxpr = make_jaxpr(lambda x: jnp.sin(x) * 2.0)(jnp.ones(3))
    np.testing.assert_allclose(np.asarray(tangent), np.cos(np.ones(3)), rtol=1e-6)
    assert type(primal) is Array and "sin" in str(jaxpr)


# The package itself

def test_importing_autodidax_imports_no_jax():
    script = ("import sys, numpy as np, autodidax, autodidax.runtime as rt, autodidax.numpy as jnp\n"
              "y = jnp.sin(rt.device_put(np.ones(3))) + 1.0\n"
              "print(np.asarray(y)[0], sorted(m for m in sys.modules if m.split('.')[0] == 'jax'))")
    out = subprocess.run([sys.executable, "-c", script], env=_env("off"), capture_output=True,
                         text=True, check=True)
    assert out.stdout.split(" ", 1)[1].strip() == "[]", out.stdout
    assert out.stderr == "", out.stderr


def test_every_array_has_a_device():
    import autodidax.numpy as jnp
    from autodidax import runtime
    eager = jnp.ones(3) * 2.0                        # evaluated through XLA, on the device
    on_device = runtime.device_put(np.ones(3, np.float32))
    assert eager.device == on_device.device == runtime.devices("cpu")[0]
    assert eager.devices() == {eager.device}


def test_config_options_of_the_runtime(tmp_path):
    from autodidax.runtime import config
    from autodidax.core import get_aval
    assert config.jax_enable_x64 is False
    try:
        config.update("jax_enable_x64", 1)               # stored as a bool, and in effect
        assert config.jax_enable_x64 is True and get_aval(1.0).dtype == np.float64
    finally:
        config.update("jax_enable_x64", 0)
    assert config.jax_enable_x64 is False and get_aval(1.0).dtype == np.float32
    previous = runtime.get_cache_dir()
    try:
        config.update("jax_compilation_cache_dir", str(tmp_path))
        assert runtime.get_cache_dir() == tmp_path and config.jax_compilation_cache_dir == str(tmp_path)
        config.update("jax_compilation_cache_dir", None)
        assert runtime.get_cache_dir() is None
    finally:
        runtime.set_cache_dir(previous)
    with pytest.raises(AttributeError, match="Unrecognized config option"):
        config.update("jax_enable_x32", True)
    with pytest.raises(AttributeError):
        config.jax_enable_x64 = True


def test_config_platforms():
    from autodidax.runtime import config
    config.update("jax_platform_name", "cpu")
    config.update("jax_platforms", "cpu")
    assert runtime.default_backend() == "cpu" and runtime.default_device().platform == "cpu"
    if runtime.find_cuda_plugin() is None:
        with pytest.raises(RuntimeError, match="not available"):
            config.update("jax_platforms", "gpu")
        assert runtime.default_backend() == "cpu" and config.jax_platforms == "cpu"


def test_device_get_and_block_until_ready():
    x = runtime.device_put(np.arange(3, dtype=np.float32))
    tree = {"x": x, "n": 3, "e": autodidax.numpy.ones(2)}
    assert runtime.block_until_ready(tree) is tree
    got = autodidax.device_get(tree)
    assert type(got["x"]) is np.ndarray and type(got["e"]) is np.ndarray and got["n"] == 3
    np.testing.assert_array_equal(got["x"], [0, 1, 2])


def test_public_namespaces_match_jax():
    import jax
    import autodidax.errors
    for name in vars(autodidax.errors):
        if not name.startswith("_"):
            assert hasattr(jax.errors, name), name
            assert issubclass(getattr(autodidax.errors, name), Exception)
    assert autodidax.errors.TracerBoolConversionError is core.TracerBoolConversionError
    assert autodidax.jacobian is autodidax.jacrev
    for name in ["block_until_ready", "device_get", "config", "disable_jit", "jacobian"]:
        assert hasattr(jax, name) and hasattr(autodidax, name), name


def test_persistent_cache_evicts_the_least_recently_used(tmp_path):
    """A size limit, with the entries used least recently deleted first (JAX's LRUCache)."""
    from autodidax import compilation_cache
    previous = runtime.set_cache_dir(tmp_path)
    texts = [f"""module @m{i} {{
  func.func public @main(%x: tensor<{i + 2}xf32>) -> tensor<{i + 2}xf32> {{
    %s = stablehlo.sine %x : tensor<{i + 2}xf32>
    return %s : tensor<{i + 2}xf32>
  }}
}}""" for i in range(3)]
    device = autodidax.devices()[0]
    try:
        first = compilation_cache.load_or_compile(texts[0], device)
        one = sum(p.stat().st_size for p in tmp_path.iterdir())
        autodidax.config.update("jax_compilation_cache_max_size", int(2.5 * one))
        compilation_cache.load_or_compile(texts[1], device)
        time.sleep(0.02)
        compilation_cache.load_or_compile(texts[0], device)     # a hit: now the newest
        time.sleep(0.02)
        compilation_cache.load_or_compile(texts[2], device)     # one must go: texts[1]
        names = {p.name for p in tmp_path.iterdir()}
        keys = [compilation_cache.cache_key(t, device) + ".xla" for t in texts]
        assert names == {keys[0], keys[2]}, (names, keys)
        autodidax.config.update("jax_compilation_cache_max_size", one // 2)
        compilation_cache.load_or_compile(texts[1], device)      # too large to keep at all
        assert keys[1] not in {p.name for p in tmp_path.iterdir()}
        assert first is not None
    finally:
        autodidax.config.update("jax_compilation_cache_max_size", 2 ** 30)
        runtime.set_cache_dir(previous)
