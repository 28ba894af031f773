"""Claims of chapters 06 (lowering), 07 (runtime) and 08 (jit), checked against the real JAX
(see tests/claims.py)."""
import os
import re

import numpy as np
import pytest

import autodidax
import autodidax.numpy as anp
import jax
import jax.numpy as jnp
from autodidax import compilation_cache, lowering, runtime
from autodidax import lax as alax
from autodidax.core import Primitive
from autodidax.jaxpr import make_jaxpr as a_make_jaxpr
from autodidax.jit import jit_p as a_jit_p
from jax import lax
from jax._src import cache_key, compiler, dispatch, xla_bridge
from jax._src import pjit as jax_pjit
from jax._src.interpreters import mlir
from jax._src.lax.control_flow import loops

from claims import claim, claims_test

CH06, CH07, CH08 = "06_lowering", "07_runtime", "08_jit"
A22 = "A22_library_jit"
f32 = np.float32([0.5, 1.0, 2.0])
u8, i32 = np.uint8([0, 3, 250]), np.int32([-7, 3, 5])


def jax_text(f, *args, **kw):
    return jax.jit(f).lower(*args).as_text(**kw)


def our_text(f, *args, name="jit(f)"):
    closed = a_make_jaxpr(f)(*args)
    return lowering.module_to_text(lowering.lower_jaxpr_to_module(closed, name=name))


def ops(text):
    """The operations of a module's text, with their comparison types, in order."""
    return re.findall(r"(?:stablehlo|chlo)\.\w+|FLOAT|SIGNED|UNSIGNED|NE\b", text)


# Chapter 6 ---------------------------------------------------------------------------------

@claim(CH06, "That is JAX's text line for line.")
def the_lowered_text_is_jaxs():
    def f(x):
        return jnp.sin(x) * 2.0
    closed = a_make_jaxpr(lambda x: anp.sin(x) * 2.0)(anp.ones(3))
    ours = lowering.module_to_text(lowering.lower_jaxpr_to_module(
        closed, name="jit(f)", result_names=["result"]))
    assert ours.strip() == jax_text(f, np.ones(3, np.float32)).strip()


@claim(CH06, "As in JAX's `lower_jaxpr_to_module`, `sanitize_name` turns each character other "
             "than a letter, digit, `_`, `.` or `-` into `_`, and the caller strips the trailing "
             "ones: `jit(<lambda>)` becomes `jit__lambda__`, then `jit__lambda`.")
def names_are_sanitized_then_stripped():
    assert mlir.sanitize_name("jit(<lambda>)") == lowering.sanitize_name("jit(<lambda>)") \
        == "jit__lambda__"
    assert jax_text(lambda x: x, 1.0).startswith("module @jit__lambda attributes")
    assert our_text(lambda x: x, np.float32(1), name="jit(<lambda>)").startswith(
        "module @jit__lambda attributes")


@claim(CH06, "as in JAX, `int32` is `i32`, `uint32` is `ui32`, and `bool` and chapter 3's "
             "`float0` are `i1` (a `float0` is `false`).")
def element_types():
    names = ["int32", "uint32", "bool", jax.dtypes.float0]
    with mlir.make_ir_context():
        theirs = [str(mlir.dtype_to_ir_type(np.dtype(d))) for d in names]
    with lowering.make_ir_context():
        ours = [str(lowering.dtype_to_ir_type(d)) for d in names]
    assert ours == theirs == ["i32", "ui32", "i1", "i1"]
    zero = np.zeros((), jax.dtypes.float0)
    for lib in (autodidax, jax):
        assert "dense<false> : tensor<i1>" in lib.jit(lambda: zero).lower().as_text()


@claim(CH06, "StableHLO does not, so the rule first broadcasts every operand that does not "
             "already have the output's shape, as JAX does.")
def scalars_are_broadcast():
    for text in (jax_text(lambda x: x * 2.0, f32), our_text(lambda x: x * 2.0, f32)):
        assert ops(text) == ["stablehlo.constant", "stablehlo.broadcast_in_dim",
                             "stablehlo.multiply"]


@claim(CH06, "(StableHLO's integer `divide` rounds toward zero, as `lax.div`.)")
def integer_division_rounds_toward_zero():
    assert int(lax.div(np.int32(-7), np.int32(2))) == int(alax.div(np.int32(-7), np.int32(2))) \
        == -3
    assert "stablehlo.divide" in jax_text(lambda x: lax.div(x, np.int32(2)), i32)


@claim(CH06, "| `gt`, `lt`, `ge`, `le`, `eq`, `ne` | `stablehlo.compare`, with a direction and a "
             "comparison type, `FLOAT`, `SIGNED` or `UNSIGNED` |")
def comparisons_carry_their_type():
    for x, kind in [(f32, "FLOAT"), (i32, "SIGNED"), (u8, "UNSIGNED")]:
        for text in (jax_text(lambda a: a > a, x), our_text(lambda a: alax.gt(a, a), x)):
            assert ops(text) == ["stablehlo.compare", kind]


@claim(CH06, "| `square` | `chlo.square` for floats, `multiply` for integers |")
def square():
    assert ops(jax_text(lax.square, f32)) == ops(our_text(alax.square, f32)) == ["chlo.square"]
    assert ops(jax_text(lax.square, i32)) == ops(our_text(alax.square, i32)) \
        == ["stablehlo.multiply"]


@claim(CH06, "| `convert_element_type` | `convert`; to `bool`, a `compare` with zero |")
def conversion_to_bool():
    expected = ["stablehlo.constant", "stablehlo.broadcast_in_dim", "stablehlo.compare", "NE",
                "FLOAT", "stablehlo.convert"]
    assert ops(jax_text(lambda x: lax.convert_element_type(x, bool), f32)) == expected
    assert ops(our_text(lambda x: alax.convert_element_type(x, bool), f32)) == expected


@claim(CH06, "of an unsigned integer, the operand (JAX's `lax.abs` refuses one) and a `select` "
             "of 0 or 1")
def abs_and_sign_of_unsigned():
    with pytest.raises(TypeError, match="abs does not accept dtype uint8"):
        jax_text(lax.abs, u8)
    assert ops(our_text(alax.abs, u8)) == []
    assert ops(jax_text(lax.sign, u8)) == ops(our_text(alax.sign, u8))
    assert "stablehlo.select" in ops(jax_text(lax.sign, u8))


@claim(CH06, "| `dot_general` | `dot_general`, with the same dimension numbers, precision "
             "`DEFAULT`, and `preferred_element_type` in its result type |")
def dot_general_row():
    x = np.ones((2, 3), np.int8)
    dims = (((1,), (1,)), ((), ()))

    def line(text):
        return next(s.strip() for s in text.splitlines() if "dot_general" in s)
    theirs = line(jax_text(lambda a, b: lax.dot_general(
        a, b, dims, preferred_element_type=np.int32), x, x))
    ours = line(our_text(lambda a, b: alax.dot_general(
        a, b, dims, preferred_element_type=np.int32), x, x))
    assert ours == theirs and "precision = [DEFAULT, DEFAULT]" in theirs
    assert theirs.endswith("-> tensor<2x2xi32>")


@claim(CH06, "a value closed over twice is one constant, as in JAX")
def a_constant_closed_over_twice():
    c = np.float32([5.0, 6.0, 7.0])
    cj = jnp.asarray(c)
    theirs = jax_text(lambda x: x * cj + cj, f32)
    ca = anp.asarray(c)
    ours = our_text(lambda x: x * ca + ca, f32)
    for text in (theirs, ours):
        assert text.count("dense<[5.000000e+00, 6.000000e+00, 7.000000e+00]>") == 1, text


@claim(CH06, "Each output may carry a `jax.result_info` string, its place in the output pytree "
             "(`result`, `result[0]`, `result['a']`)")
def result_names():
    def expected(text):
        return [line for line in text.splitlines() if "result_info" in line]
    theirs = expected(jax_text(lambda x: (x, {"a": x}), f32))
    ours = expected(autodidax.jit(lambda x: (x, {"a": x})).lower(f32).as_text())
    assert ours == theirs and "result[1]['a']" in theirs[0]


@claim(CH06, "`dtype_to_ir_type` names the small floats by rule (`float8_e4m3fn` is "
             "`Float8E4M3FNType`) where JAX lists each")
def small_floats_by_rule():
    import ml_dtypes
    from autodidax.core import SUPPORTED_DTYPES
    with mlir.make_ir_context():
        theirs = [str(mlir.dtype_to_ir_type(d)) for d in sorted(SUPPORTED_DTYPES, key=str)]
    with lowering.make_ir_context():
        ours = [str(lowering.dtype_to_ir_type(d)) for d in sorted(SUPPORTED_DTYPES, key=str)]
    assert ours == theirs and "f8E4M3FN" in ours
    assert str(np.dtype(ml_dtypes.float8_e4m3fn)) == "float8_e4m3fn"


@claim(CH06, "Our operations are at `loc(\"sin\")`, their primitive's name; JAX's also hold the "
             "user's source line and the name stack, which `as_text(debug_info=True)` shows.")
def locations_are_names_only():
    assert "test_claims_06_08.py" in jax_text(lambda x: x * 2.0, f32, debug_info=True)
    closed = a_make_jaxpr(lambda x: x * 2.0)(f32)
    module = lowering.lower_jaxpr_to_module(closed)
    text = module.operation.get_asm(enable_debug_info=True)
    assert "test_claims" not in text and 'loc("mul")' in text


@claim(CH06, "JAX may register a rule per platform (`cumsum`: `reduce_window` for all, a scan on "
             "a GPU)")
def cumsum_has_a_rule_per_platform():
    assert loops.cumsum_p in mlir._lowerings                      # every platform
    for platform in ("cuda", "rocm"):
        rule = mlir._platform_specific_lowerings[platform][loops.cumsum_p].rule
        assert rule.func is loops._cumred_gpu_lowering
    assert loops.cumsum_p not in mlir._platform_specific_lowerings["cpu"]
    # ours: one table, one rule per primitive, whatever the platform
    assert callable(lowering.lowering_rules[alax.cumsum_p])
    assert all(isinstance(k, Primitive) for k in lowering.lowering_rules)


@claim(CH08, 'as a private function of the module and a `func.call` of it, as JAX does')
def nested_jit_is_a_private_function():
    def g(x):
        return jax.jit(lambda y: y * 2.0)(x) + 1.0

    def ag(x):
        return autodidax.jit(lambda y: y * 2.0)(x) + 1.0
    for text in (jax_text(g, f32), autodidax.jit(ag).lower(f32).as_text()):
        assert "func.func private @" in text and "= call @" in text


# Chapter 7 ---------------------------------------------------------------------------------

@claim(CH07, 'raise RuntimeError(f"Array has been deleted with shape={self.dtype.name}[{shape}].")')
def deleted_arrays():
    for put in (jax.device_put, autodidax.device_put):
        x = put(np.ones(3, np.float32))
        x.delete()
        with pytest.raises(RuntimeError, match=r"^Array has been deleted with shape=float32\[3\]"):
            np.asarray(x)


@claim(CH07, 'raise ValueError(f"Unknown process_index {index}")     # JAX\'s words')
def unknown_process_index():
    for lib in (jax, autodidax):
        with pytest.raises(ValueError, match="^Unknown process_index 5$"):
            lib.local_devices(process_index=5)


@claim(CH07, "an option is read as an attribute, changed with `jax.config.update(name, value)`; "
             "an unknown name raises `AttributeError`.")
def unknown_options():
    for lib in (jax, autodidax):
        with pytest.raises(AttributeError, match="^Unrecognized config option: jax_x64$"):
            lib.config.update("jax_x64", True)


@claim(CH07, "`device_get(tree)` copies every array to the host, as a NumPy array, other leaves "
             "passing through.")
def device_get():
    for lib in (jax, autodidax):
        got = lib.device_get({"w": lib.device_put(np.ones(2, np.float32)), "step": 3})
        assert type(got["w"]) is np.ndarray and got["step"] == 3 and type(got["step"]) is int


def _aligned(n):
    buf = np.zeros(n + 16, np.float32)
    start = (-buf.ctypes.data % 64) // 4
    return buf[start:start + n]


@claim(CH07, "JAX's `device_put` allows aliasing by default (`may_alias`), so whether `x[0] = 99` "
           "shows through depends on where NumPy allocated `x`. Ours aliases memory only when "
           "nobody can write it")
def device_put_aliasing():
    seen = {}
    for name, x in [("aligned", _aligned(16)), ("unaligned", _aligned(17)[1:])]:
        x[:] = 1.0
        theirs, ours = jax.device_put(x), autodidax.device_put(x)
        x[0] = 99.0
        seen[name] = float(theirs[0])
        assert float(np.asarray(ours)[0]) == 1.0
    assert seen == {"aligned": 99.0, "unaligned": 1.0}


@claim(CH07, "JAX's (`cache_key.get`) hashes the module, the jaxlib version, the platform and its "
             "version, the XLA flags, the compile options, the devices' topology (or kinds), the "
             "compression and a custom hook")
def what_the_cache_key_hashes():
    import inspect
    source = inspect.getsource(cache_key.get)
    for entry in ('"computation"', '"jax_lib version"', '"backend version"', '"XLA flags"',
                  '"compile_options"', '"accelerator_config"', '"compression"', '"custom_hook"'):
        assert entry in source


@claim(CH07, "ours, on by default in `~/.cache/autodidax`, all but the last two, and the host "
             "CPU's features besides.")
def our_key_hashes_the_xla_flags_as_jax_does():
    lowered = jax.jit(lambda x: x * 2.0).lower(f32)
    module = lowered.compiler_ir("stablehlo")
    backend = xla_bridge.get_backend("cpu")
    devices = np.array(backend.devices()[:1])
    options = compiler.get_compile_options(num_replicas=1, num_partitions=1)
    text = our_text(lambda x: x * 2.0, f32)
    device = runtime.default_device()
    old = os.environ.get("XLA_FLAGS")
    keys = []
    try:       # no flags; fast math, which changes results; a dump folder, which does not
        for flags in ("", "--xla_cpu_enable_fast_math=true", "--xla_dump_to=/nonexistent"):
            os.environ["XLA_FLAGS"] = flags
            keys.append((cache_key.get(module, devices, options, backend),
                         compilation_cache.cache_key(text, device)))
    finally:
        if old is None:
            os.environ.pop("XLA_FLAGS")
        else:
            os.environ["XLA_FLAGS"] = old
    (theirs0, ours0), (theirs1, ours1), (theirs2, ours2) = keys
    assert theirs0 != theirs1 and ours0 != ours1
    assert theirs0 == theirs2 and ours0 == ours2
    import inspect
    source = inspect.getsource(compilation_cache.cache_key)
    assert "compression" not in source and "hook" not in source and "_host_cpu()" in source


@claim(CH07, "JAX starts every backend it finds and makes the one of highest priority the default "
             "(CUDA's 500, the CPU's 0).")
def backend_priorities():
    assert xla_bridge._backend_factories["cpu"].priority == 0
    assert runtime.default_backend() == "cpu"


@claim(CH07, "compiles each primitive alone, as a program of one equation, and runs it on a "
             "device (`apply_primitive` in JAX's `dispatch.py`)")
def eager_primitives_are_jitted():
    assert type(dispatch.xla_primitive_callable(lax.sin_p)).__name__ == "PjitFunction"


@claim(CH07, "until chapter 8 jits the `jnp` functions, as JAX's are, an eager `jnp.multiply` of a "
             "boolean and a float is two programs")
def jnp_functions_are_jitted_in_jax():
    assert type(jnp.sin).__name__ == type(jnp.multiply._func).__name__ == "PjitFunction"
    x, b = np.array([np.inf], np.float32), np.array([False])
    assert "convert_element_type" in str(autodidax.make_jaxpr(anp.multiply)(x, b))
    assert anp.multiply.__wrapped__.library_jit        # jitted from chapter 8 on


@claim(CH07, "(`inf * False` is 0 in JAX, nan here, as in IEEE arithmetic)")
def inf_times_false():
    x, b = np.array([np.inf], np.float32), np.array([False])
    with autodidax.disable_jit():                      # op by op, as before chapter 8
        assert np.isnan(anp.multiply(anp.asarray(x), anp.asarray(b))[0])
    assert anp.multiply(anp.asarray(x), anp.asarray(b))[0] == 0         # jitted: one program
    with np.errstate(invalid="ignore"):
        assert jnp.multiply(x, b)[0] == 0 and np.isnan(np.float32(np.inf) * np.float32(0))


@claim(CH07, "NumPy's, which differ in the last digit in a third of float32 results")
def numpy_and_xla_differ_in_a_third():
    x = np.linspace(0.1, 10, 3000, dtype=np.float32)
    with runtime.eager_mode("numpy"):
        by_numpy = np.asarray(anp.exp(x))
    by_xla = np.asarray(anp.exp(runtime.device_put(x)))
    assert np.array_equal(by_xla, np.asarray(jnp.exp(x)))
    assert 0.2 < np.mean(by_numpy != by_xla) < 0.5


@claim(CH07, "JAX's is off until `jax_compilation_cache_dir` is set")
def jaxs_persistent_cache_is_off():
    assert jax.config.jax_compilation_cache_dir is None


# Chapter 8 ---------------------------------------------------------------------------------

@claim(CH08, "0.7.0 renamed `pjit_p` to `jit_p`")
def the_primitive_is_jit():
    assert jax_pjit.jit_p.name == a_jit_p.name == "jit"
    assert not hasattr(jax_pjit, "pjit_p")
    assert "= jit[" in str(jax.make_jaxpr(lambda x: jax.jit(lambda y: y)(x))(1.0))


@claim(CH08, "so that `make_jaxpr` shows a `jit` equation as JAX does")
def jit_equations_print_alike():
    theirs = jax.make_jaxpr(lambda x: jax.jit(lambda y: y * 2.0)(x))(f32)
    ours = a_make_jaxpr(lambda x: autodidax.jit(lambda y: y * 2.0)(x))(f32)
    assert str(ours) == str(theirs)


@claim(CH08, "`jit(f)` called twice gives two objects that share one cache, as in JAX")
def jit_caches_belong_to_the_function():
    for lib in (jax, autodidax):
        traces = []

        def f(x):
            traces.append(1)
            return x * 2.0
        lib.jit(f)(f32)
        lib.jit(f)(f32)
        assert len(traces) == 1


@claim(CH08, "show as a `jit` equation named `_where` or `clip`.")
def library_functions_are_jitted():
    for lib, np_ in ((jax, jnp), (autodidax, anp)):
        assert "name=_where" in str(lib.make_jaxpr(lambda x: np_.where(x > 0, x, 0.0))(f32))
        assert "name=clip" in str(lib.make_jaxpr(lambda x: np_.clip(x, 0, 1))(f32))
        assert "jit" not in str(lib.make_jaxpr(np_.sin)(f32))          # the rest: inlined


@claim(CH08, "Eagerly, `jnp.var(x)` is then one compiled program with the bits of "
             "`jit(jnp.var)(x)`")
def eager_var_is_one_program():
    rows = np.random.default_rng(3).normal(size=(8, 33)).astype(np.float32)
    theirs = np.asarray(jax.jit(jnp.var, static_argnames="axis")(jax.device_put(rows), axis=1))
    runtime.clear_caches()
    before = runtime.cache_stats["compiles"] + runtime.cache_stats["disk_hits"]
    ours = np.asarray(anp.var(runtime.device_put(rows), axis=1))
    assert runtime.cache_stats["compiles"] + runtime.cache_stats["disk_hits"] == before + 1
    assert ours.tobytes() == theirs.tobytes() == np.asarray(jnp.var(rows, axis=1)).tobytes()
    with autodidax.disable_jit():
        assert len(str(autodidax.make_jaxpr(lambda r: anp.var(r, axis=1))(rows)).split(
            "\n")) > 7       # (traced: about seven primitives)


def jax_compile_log(fn) -> list:
    """What JAX logs of its compilations while `fn()` runs."""
    import logging
    seen, handler = [], logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())
    log = logging.getLogger("jax._src.interpreters.pxla")
    log.addHandler(handler)
    try:
        with jax.log_compiles():
            fn()
    finally:
        log.removeHandler(handler)
    return seen


@claim(CH08, 'run (`_run_where`) on the device of the committed arguments, else on '
             'the default one, its results committed iff an argument was.')
def jit_follows_committed_data():
    for lib in (jax, autodidax):
        f, d = lib.jit(lambda a, b: a * b), lib.devices()
        x, y = lib.device_put(f32), lib.device_put(f32, d[3])
        for args, where, committed in [((x, x), 0, False), ((x, y), 3, True), ((y, y), 3, True),
                                       ((f32, f32), 0, False)]:
            r = f(*args)
            assert (r.device.id, r.committed) == (where, committed), (lib, where, committed)


@claim(A22, "under `jvp`, `vmap` or `linearize` of eager code**, a call binds `jit_p`")
def library_jits_bind_jit_under_eager_jvp():
    x = jnp.ones((7, 13))                               # a shape no other test compiles for
    seen = jax_compile_log(lambda: jax.jvp(jnp.cos, (x,), (x,)))
    assert any(m.startswith("Compiling jit(cos)") and m.count("float32[7,13]") == 2 for m in seen)
    x = anp.ones((7, 13))
    before = runtime.cache_stats["compiles"] + runtime.cache_stats["disk_hits"]
    autodidax.jvp(anp.cos, (x,), (x,))                  # one program: cos and its tangent
    assert runtime.cache_stats["compiles"] + runtime.cache_stats["disk_hits"] == before + 1
    seen = []
    jvp = lambda lib: lambda x: lib.jvp(lib.numpy.cos, (x,), (x,))      # noqa: E731
    assert "jit" not in str(jax.make_jaxpr(jvp(jax))(f32))          # inline where staged
    assert "jit" not in str(autodidax.make_jaxpr(jvp(autodidax))(f32))


@claim(A22, "and an eager derivative has JAX's bits")
def eager_derivatives_have_jax_bits():
    # JAX's autodiff cookbook's Hessian: op by op, 6 of its 36 entries differ in the last bit
    def hessian(lib, np_):
        predict = lambda W, b, x: 0.5 * (np_.tanh((np_.dot(x, W) + b) / 2) + 1)  # noqa: E731
        inputs = np_.array([[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30],
                            [0.74, -2.49, 1.39]])
        _, kw, kb = jax.random.split(jax.random.key(0), 3)       # the cookbook's W and b
        W, b = np.asarray(jax.random.normal(kw, (3,))), np.asarray(jax.random.normal(kb, ()))
        return np.asarray(lib.jacfwd(lib.jacrev(lambda W: predict(W, b, inputs)))(W))
    assert hessian(autodidax, anp).tobytes() == hessian(jax, jnp).tobytes()
    with jax.disable_jit():                          # JAX op by op: other bits
        assert hessian(jax, jnp).tobytes() != hessian(autodidax, anp).tobytes()


@claim(A22, "a call is inlined (`jit_p`'s `inline`, chapter 8's `_jit_staging`), so `make_jaxpr` "
            "shows primitives")
def linear_jaxprs_show_primitives():
    f = lambda np_: lambda x: np_.sin(x) * 2.0     # noqa: E731
    ours = autodidax.linearize(f(anp), anp.ones(3))[1].jaxpr
    theirs = jax.make_jaxpr(jax.linearize(f(jnp), jnp.ones(3))[1])(jnp.ones(3))
    assert str(ours) == str(theirs) and "jit" not in str(ours)
    assert len(ours.consts) == len(theirs.consts) == 2        # cos(x) and the 2.0, as arrays
    ours = autodidax.linearize(f(anp), 1.0)[1].jaxpr
    theirs = jax.make_jaxpr(jax.linearize(f(jnp), 1.0)[1])(1.0)       # a Python float x
    assert str(ours) == str(theirs) and "2.0:f32[]" in str(ours)


@claim(A22, "An eager NumPy call on arrays laid out over several devices runs primitive by "
            "primitive; JAX compiles each call as one program there too.")
def library_jits_on_several_devices():
    from jax.sharding import NamedSharding, PartitionSpec
    mesh = jax.make_mesh((8,), ("x",))
    x = jax.device_put(jnp.ones(16), NamedSharding(mesh, PartitionSpec("x")))
    seen = jax_compile_log(lambda: jnp.sum(x))
    assert sum(m.startswith("Compiling jit(") for m in seen) == 1, seen     # JAX: one program
    mesh = autodidax.make_mesh((8,), ("x",))
    y = autodidax.device_put(anp.ones(16), autodidax.sharding.NamedSharding(
        mesh, autodidax.sharding.PartitionSpec("x")))
    spec = anp.sum.__wrapped__.library_jit
    before = len(spec.programs)
    anp.sum(y)
    assert len(spec.programs) == before                      # ours: not its program


@claim(A22, "JAX jits more, `cumsum`, `sort`, `argsort` and `round` among them")
def jax_jits_more_numpy_functions():
    for name in ("cumsum", "sort", "argsort", "round"):
        assert type(getattr(jnp, name)).__name__ == "PjitFunction", name
        ours = getattr(anp, name)
        assert not hasattr(ours, "library_jit") and not hasattr(
            getattr(ours, "__wrapped__", None), "library_jit"), name


@claim(CH08, "`lower_to_text` warns, as JAX does, when a program's constants reach "
             '`jax_captured_constants_warn_bytes` (2 GB by default):')
def constants_warning_threshold():
    assert jax.config.jax_captured_constants_warn_bytes == 2 * 10 ** 9
    assert autodidax.config.jax_captured_constants_warn_bytes == 2 * 10 ** 9


@claim(CH08, "(JAX's `jax_use_simplified_jaxpr_constants`, off in 0.10.2, passes "
             'them as hidden arguments')
def simplified_constants_are_off():
    assert jax.config.jax_use_simplified_jaxpr_constants is False


@claim(CH08, "JAX's `jit_p` carries them as parameters")
def shardings_are_params_in_jax():
    theirs = jax.make_jaxpr(lambda x: jax.jit(lambda y: y)(x))(1.0).eqns[0].params
    ours = a_make_jaxpr(lambda x: autodidax.jit(lambda y: y)(x))(np.float32(1)).eqns[0].params
    assert {"in_shardings", "out_shardings"} <= set(theirs)
    assert set(ours) == {"jaxpr", "name", "inline"}


@claim(CH08, "JAX's path for them is C++, jaxlib's `PjitFunction`")
def jaxs_jit_is_cpp():
    assert type(jax.jit(lambda x: x)).__name__ == "PjitFunction"
    assert type(autodidax.jit(lambda x: x)).__module__ == "autodidax.jit"


@claim(CH08, 'a function jitted in a named `vmap` may use the name (`lax.psum(y, '
             '"i")`) on no batched value, and must still be batched.')
def named_vmap_reaches_into_jit():
    theirs = jax.vmap(lambda x: jax.jit(lambda y: lax.psum(y, "i"))(2.0), axis_name="i")(f32)
    ours = autodidax.vmap(lambda x: autodidax.jit(lambda y: alax.psum(y, "i"))(2.0),
                          axis_name="i")(f32)
    assert np.array_equal(np.asarray(ours), np.asarray(theirs)) and float(theirs[0]) == 6.0


@claim(CH08, "and `with disable_jit():` sets it for a block, as JAX's does.")
def disable_jit_for_a_block():
    for lib in (jax, autodidax):
        with lib.disable_jit():
            assert lib.config.jax_disable_jit is True
        assert lib.config.jax_disable_jit is False


test_claims = claims_test(__name__)


@claim(CH07, "Two kinds of primitive keep their impl rule, as in JAX: those you define (JAX runs "
             "their `def_impl`")
def a_primitive_of_yours_runs_its_impl():
    from jax.extend.core import Primitive as JaxPrimitive
    from autodidax.core import abstract_eval_rules, impl_rules
    seen = []
    theirs = JaxPrimitive("twice_claim")
    theirs.def_impl(lambda x: seen.append("jax") or np.asarray(x) * 2)
    theirs.def_abstract_eval(lambda aval: aval)
    ours = Primitive("twice_claim")
    impl_rules[ours] = lambda x: seen.append("ours") or np.asarray(x) * 2
    abstract_eval_rules[ours] = lambda aval: aval
    x = np.ones(3, np.float32)
    assert np.array_equal(theirs.bind(jax.device_put(x)), ours.bind(runtime.device_put(x)))
    assert seen == ["jax", "ours"]
