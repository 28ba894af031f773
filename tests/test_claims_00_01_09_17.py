"""Claims of chapters 0, 1, 9-17 and their appendices (A6 lax, A8 the export format, A13 custom
checks, A14 distributions), checked against the real JAX (see tests/claims.py)."""
import inspect
import subprocess
import sys

import numpy as np
import pytest

import autodidax
import autodidax.numpy as anp
from autodidax import lax as alax
import jax
import jax.numpy as jnp
from jax import lax

from claims import claim, claims_test, in_another_thread

CH00, CH01, A6 = "00_the_map", "01_primitives", "A6_lax"
CH10, CH12, CH13 = "10_control_flow", "12_random", "13_custom"
CH14, CH15, CH17 = "14_checkpoint", "15_callbacks", "17_export"


# ---- chapter 00: the map --------------------------------------------------------------------

@claim(CH00, "In JAX the first two are attributes of the primitive (`sin_p.def_impl`, "
             "`def_abstract_eval`), and each of the others lives in a table keyed by primitive "
             "that belongs to its transformation (`ad.primitive_jvps`, `mlir.register_lowering`).")
def eval_rules_are_attributes():
    from jax._src.interpreters import ad, mlir
    assert callable(lax.sin_p.impl) and callable(lax.sin_p.abstract_eval)
    assert lax.sin_p not in getattr(jax._src.core, "impl_rules", {})
    assert lax.sin_p in ad.primitive_jvps and lax.sin_p in mlir._lowerings


@claim(CH00, "kept in thread-local state (`trace_ctx`, in JAX's `core.py`)")
def the_current_trace_is_thread_local():
    from jax._src import core
    with core.set_current_trace(core.EvalTrace()):
        assert in_another_thread(lambda: core.trace_ctx.trace) is core.eval_trace
        assert core.trace_ctx.trace is not core.eval_trace


@claim(CH00, "`fancy_primitive_batchers` (the table; `primitive_batchers` is a shim for old "
             "code)")
def fancy_primitive_batchers_is_the_table():
    from jax._src.interpreters import batching
    assert isinstance(batching.fancy_primitive_batchers, dict)
    assert lax.sin_p in batching.fancy_primitive_batchers
    assert not isinstance(batching.primitive_batchers, dict)


# ---- chapter 01 and appendix A6: primitives and lax -----------------------------------------

@claim(CH01, "JAX 0.10.2 defines 285")
def jax_defines_285_primitives():
    count = subprocess.run(
        [sys.executable, "-c", "import gc, jax\nfrom jax._src import core\n"
         "print(len({p for p in gc.get_objects() if isinstance(p, core.Primitive)}))"],
        capture_output=True, text=True, check=True).stdout
    assert int(count) == 285


@claim(CH01, "# as in JAX: a 0-d x as a Python float, 0.10000000149011612")
def format_shows_float64_digits():
    for np_ in (anp, jnp):
        x = np_.float32(0.1)
        assert f"{x}" == "0.10000000149011612" and f"{x:.2f}" == "0.10"


@claim(A6, "`lax.add(x, 2.0)` works for a `float32` `x` and is a `TypeError` for a `float16` "
           "one, and `lax.add(i, 2.5)` for an `int32` `i` is one too: `lax` never converts.")
def lax_add_of_float16_and_a_python_float():
    for lx, np_ in ((lax, jnp), (alax, anp)):
        with pytest.raises(TypeError, match="same dtypes, got float16, float32"):
            lx.add(np_.ones(2, np_.float16), 2.0)
        with pytest.raises(TypeError, match="same dtypes, got int8, int32"):
            lx.add(np_.ones(2, np_.int8), 2)
        with pytest.raises(TypeError, match="same dtypes, got int32, float32"):
            lx.add(np_.array([1, -2, 3], np_.int32), 2.5)
        assert lx.add(np_.ones(2), 2.0).dtype == np.float32          # float32 meets 2.0: fine


@claim(A6, "under `eager_mode(\"numpy\")`, `f\"{jnp.sin(1.0)}\"` shows `0.8414710164070129`; "
           "XLA's, ours and JAX's, `0.8414709568023682`.")
def eager_sin_differs_in_the_last_bit():
    from autodidax.runtime import eager_mode
    with eager_mode("numpy"):
        assert f"{anp.sin(1.0)}" == "0.8414710164070129"
    assert f"{anp.sin(1.0)}" == f"{jnp.sin(1.0)}" == "0.8414709568023682"


@claim(A6, "`rsqrt`, $1/\\sqrt{x}$, is one because XLA has an operation for it (StableHLO's "
           "`rsqrt`)")
def rsqrt_lowers_to_one_operation():
    text = jax.jit(lax.rsqrt).lower(np.ones(3, np.float32)).as_text()
    assert "stablehlo.rsqrt" in text and "stablehlo.divide" not in text


@claim(A6, "# JAX lowers 2**x as exp(log(2) * x)")
def exp2_lowering():
    text = jax.jit(lax.exp2).lower(np.ones(3, np.float32)).as_text()
    assert "stablehlo.multiply" in text and "stablehlo.exponential" in text


@claim(A6, "Booleans have no arithmetic in `lax`: its `add` and `mul` reject them, as JAX's do.")
def lax_rejects_boolean_arithmetic():
    t = np.array([True, False])
    for lib in (lax, alax):
        for op in (lib.add, lib.mul):
            with pytest.raises(TypeError):
                op(t, t)


@claim(CH01, "# refused even when the value is known, as in JAX")
def float_of_a_tracer_is_refused():
    for lib in (autodidax, jax):
        def f(x, conv):
            conv(x)
            return x
        for conv in (bool, int):                     # a known value is given...
            lib.jvp(lambda x: f(x, conv), (1.0,), (1.0,))
        with pytest.raises(lib.errors.ConcretizationTypeError):    # ...but not to float()
            lib.jvp(lambda x: f(x, float), (1.0,), (1.0,))


@claim(CH01, "With 64-bit mode off (JAX's default; `set_x64` turns it on), every 64-bit dtype "
             "becomes its 32-bit counterpart")
def sixty_four_bits_off():
    from autodidax.core import SUPPORTED_DTYPES
    for dtype, short in [("float64", "float32"), ("int64", "int32"), ("complex128", "complex64")]:
        assert anp.asarray(np.ones(2, dtype)).dtype == jnp.asarray(np.ones(2, dtype)).dtype == short
    scalar_types = [getattr(jnp, n) for n in dir(jnp) if type(getattr(jnp, n)).__name__ ==
                    "_ScalarMeta"]                   # jnp.float32, jnp.bfloat16, jnp.int4...
    jax_dtypes = {np.dtype(t.dtype) for t in scalar_types} - {np.dtype(np.object_)}
    assert {d for d in jax_dtypes if d.itemsize < 8 or d.name == "complex64"} == \
        set(SUPPORTED_DTYPES)                        # every one but the 64-bit ones
    try:
        autodidax.config.update("jax_enable_x64", True)      # then every one of JAX's
        assert {d for d in jax_dtypes if d.name != "object"} == set(SUPPORTED_DTYPES)
        assert anp.asarray(np.ones(2)).dtype == np.float64
    finally:
        autodidax.config.update("jax_enable_x64", False)


@claim(CH01, "where JAX's also carry a sharding, a memory space and a `manual_axis_type`")
def what_an_aval_carries():
    from jax._src import core
    from autodidax import core as ours
    slots = lambda aval: {s for c in type(aval).__mro__ for s in getattr(c, "__slots__", ())}
    theirs = slots(core.ShapedArray((2,), np.float32))
    assert {"shape", "dtype", "weak_type", "sharding", "memory_space", "manual_axis_type"} <= theirs
    assert slots(ours.ShapedArray((2,), np.float32)) - {"_hash"} == {"shape", "dtype", "weak_type"}


@claim(CH01, "JAX's `jax_traceback_filtering` has more modes (`tracebackhide`, ...)")
def traceback_filtering_modes():
    from jax._src import config
    for mode in ["off", "auto", "tracebackhide", "remove_frames", "quiet_remove_frames"]:
        with config.traceback_filtering(mode):
            assert config.traceback_filtering.value == mode
    with pytest.raises(ValueError):
        with config.traceback_filtering("some"):
            pass


@claim(A6, "JAX's also bitcasts between widths (a `uint32` to two `uint16`, adding an axis)")
def bitcast_between_widths():
    out = lax.bitcast_convert_type(jnp.uint32(0x00020001), jnp.uint16)
    assert out.shape == (2,) and out.tolist() == [1, 2]
    with pytest.raises(Exception):
        alax.bitcast_convert_type(np.uint32(0x00020001), np.uint16)


@claim(A6, "JAX has a primitive for it (`clamp_p`); ours is built from comparisons and "
           "`select_n`")
def clamp_is_a_primitive_in_jax():
    x = np.float32([0.5, 3.0])
    assert "clamp" in str(jax.make_jaxpr(lambda v: lax.clamp(0.0, v, 1.0))(x))
    ours = str(autodidax.make_jaxpr(lambda v: alax.clamp(0.0, v, 1.0))(x))
    assert "clamp" not in ours and "select_n" in ours
    np.testing.assert_array_equal(alax.clamp(0.0, x, 1.0), lax.clamp(0.0, x, 1.0))


# ---- chapter 10 and appendix A10: control flow ----------------------------------------------

@claim(CH10, 'print as in JAX (`pe.separate_consts`)')
def control_flow_traces_with_trace_to_jaxpr():
    from jax._src.lax.control_flow import conditionals, loops
    for fun in (conditionals.cond, loops.while_loop, loops.scan):
        source = inspect.getsource(fun)
        assert "pe.trace_to_jaxpr(" in source and "pe.separate_consts(" in source, fun
        assert "_initial_style_jaxpr" not in source


# ---- chapter 12 and appendix A14: random numbers --------------------------------------------

@claim(CH12, "JAX jits `split` and `fold_in` the same way, but traces its partitionable `bits` "
             "inline.")
def split_and_fold_in_are_jitted():
    from jax._src.random import threefry2x32 as t
    assert hasattr(t._threefry_split, "lower") and hasattr(t._threefry_fold_in, "lower")
    assert not hasattr(t._threefry_random_bits_partitionable, "lower")


@claim(CH12, "On the CPU, JAX's private function rolls the rounds into a `while` loop of five "
             "steps")
def threefry_lowering_by_platform():
    text = jax.jit(lambda k: jax.random.bits(k, (3,))).lower(jax.random.key(0)).as_text()
    private = text[text.index("func.func private @threefry2x32"):]
    assert "stablehlo.while" in private and "dense<5>" in private


@claim("A14_distributions", "`randint` splits its key in two and combines two random words, "
                            "$h$ and $l$, as")
def randint_is_bit_for_bit():
    for lo, hi, dtype in [(0, 10, np.int32), (-5, 70000, np.int32), (0, 200, np.uint8)]:
        ours = autodidax.random.randint(autodidax.random.key(3), (64,), lo, hi, dtype)
        theirs = jax.random.randint(jax.random.key(3), (64,), lo, hi, dtype)
        assert np.array_equal(np.asarray(ours), np.asarray(theirs)), (lo, hi)


# ---- chapter 13 and appendix A13: custom rules ----------------------------------------------

@claim("A13_custom_checks", "JAX 0.10.2 lets the dtype of a float argument's cotangent differ, "
                            "and keeps it")
def a_cotangent_of_another_dtype_is_kept():
    for lib, np_ in [(autodidax, anp), (jax, jnp)]:
        for dtype in (np.float16, np.int32):
            f = lib.custom_vjp(lambda x: x * 2)
            f.defvjp(lambda x: (x * 2, None), lambda _, ct, d=dtype: (ct.astype(d),))
            g = lib.grad(lambda x: f(x).sum())(np_.ones(3))
            assert g.dtype == dtype, (lib.__name__, g.dtype)
        f.defvjp(lambda x: (x * 2, None), lambda _, ct: (np_.ones((3, 1)),))
        with pytest.raises(ValueError, match="so the shapes do not match"):
            lib.grad(lambda x: f(x).sum())(np_.ones(3))


@claim(CH13, "declines to pay. Under `jvp` or `grad` without `jit`, JAX runs your function on "
             "values, so it may branch with a Python `if` on them")
def custom_rules_see_values():
    for lib in (autodidax, jax):
        @lib.custom_jvp
        def f(x):
            return x * 2 if x > 0 else x * 3     # a Python `if` on the value

        @f.defjvp
        def f_jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            return f(x), (2.0 if x > 0 else 3.0) * t     # the rule calls f, and branches too

        assert float(lib.grad(f)(1.0)) == 2.0 and float(lib.grad(f)(-1.0)) == 3.0


# ---- chapters 14, 15, 17 and appendix A8 ----------------------------------------------------

@claim(CH14, "(JAX's saves convolutions too, `conv_general_dilated`, a primitive this book does "
             "not build)")
def dots_saveable_saves_convolutions():
    from jax._src.lax import convolution
    policy = jax.checkpoint_policies.dots_saveable
    assert policy(convolution.conv_general_dilated_p) and policy(lax.dot_general_p)
    assert not policy(lax.sin_p)


@claim(CH15, "before lowering, its `jit` runs dead-code elimination on the traced jaxpr, "
             "`pxla._dce_jaxpr`.")
def jit_drops_an_unused_pure_callback_before_lowering():
    def f(x):
        jax.pure_callback(np.asarray, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
        return x * 2
    x = np.ones(2, np.float32)
    assert "pure_callback" in str(jax.make_jaxpr(f)(x))
    assert "custom_call" not in jax.jit(f).lower(x).as_text()


@claim(CH17, "because its `main` first takes the index of the platform it runs on, as an export "
             "for several platforms does, in JAX as here.")
def several_platforms_use_shape_polymorphism():
    from jax import export
    for lib, np_ in [(autodidax, anp), (jax, jnp)]:
        for platforms, expected in [(("cpu",), "false"), (("cpu", "cuda"), "true")]:
            exp = lib.export.export(lib.jit(np_.sin), platforms=platforms)(
                lib.ShapeDtypeStruct((3,), np.float32))
            assert f"jax.uses_shape_polymorphism = {expected}" in exp.mlir_module(), platforms
    del export


@claim("A8_export_format", "the one change that broke them, version 7, was withdrawn, and "
                           "version 9 redid it compatibly")
def serialization_version_history():
    from jax._src.export import serialization
    source = inspect.getsource(serialization)
    assert serialization._SERIALIZATION_VERSION == 11
    assert "Version 7 was briefly live but pulled back" in source
    assert "another attempt at what Version 7 was supposed to be" in source


test_claims = claims_test(__name__)
