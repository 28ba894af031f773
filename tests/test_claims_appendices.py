"""Claims of the appendices (A1 jax.numpy, A15 the compilation cache, A18 the rest of the
lowering rules), checked against the real JAX (see tests/claims.py)."""
import os

import numpy as np

import autodidax
import autodidax.numpy as anp
from autodidax import compilation_cache
import jax
import jax.numpy as jnp

from claims import claim, claims_test

A1 = "A1_numpy"
BOTH = [(autodidax, anp), (jax, jnp)]
f32 = np.ones(3, np.float32)


def same_jaxpr(build, *args):
    """`build(np_module)` is a function; its jaxpr prints alike in autodidax and in JAX."""
    ours, theirs = (str(lib.make_jaxpr(build(np_))(*args)) for lib, np_ in BOTH)
    assert ours == theirs, f"ours:\n{ours}\nJAX's:\n{theirs}"
    return theirs


def same_values(build):
    """`build(np_module)` gives a value (or tuple of them): equal, with one dtype, in both."""
    ours, theirs = (build(np_) for _, np_ in BOTH)
    for a, b in zip(np.atleast_1d(ours), np.atleast_1d(theirs)):
        assert a.dtype == b.dtype and np.array_equal(a, b), (ours, theirs)
    return theirs


@claim(A1, "Transcendental functions of integers promote them to floats first, as in JAX: "
           "`jnp.sin(2)` is a `float32`.")
def sin_of_an_int():
    assert same_values(lambda np_: np_.sin(2)).dtype == np.float32


@claim(A1, "half-precision sums are accumulated in `float32`, then rounded back, as in JAX.")
def half_sums_in_float32():
    text = same_jaxpr(lambda np_: np_.sum, np.ones(3, np.float16))
    assert "f32[] = reduce_sum" in text and "d:f16[] = convert_element_type" in text


@claim(A1, "`jnp.sum(2.0)` is a plain `float32`")
def sums_are_strongly_typed():
    for lib, np_ in BOTH:
        assert "weak_type=False" in str(lib.make_jaxpr(np_.sum)(2.0))
        assert not lib.make_jaxpr(np_.sum)(2.0).out_avals[0].weak_type


@claim(A1, "`cumsum` and `cumprod` are one primitive each, as in JAX.")
def cumsum_is_one_primitive():
    for name in ("cumsum", "cumprod"):
        text = same_jaxpr(lambda np_: getattr(np_, name), f32)
        assert f"= {name}[axis=0" in text


@claim(A1, "`zeros`, `ones` and `full` broadcast a scalar with `broadcast_in_dim`, as JAX does")
def constants_broadcast_a_scalar():
    for name, args in [("zeros", (3,)), ("ones", (3,)), ("full", (3, 2.0))]:
        text = same_jaxpr(lambda np_: lambda: getattr(np_, name)(*args))
        assert text.count("=") == 1 and "broadcast_in_dim" in text


@claim(A1, "Integer division by zero has XLA's answers, not an error: `remainder` divides by 1 "
           "instead (giving 0), and `floor_divide` gives `div`'s -1, less 1 where the signs "
           "differ, as JAX does.")
def integer_division_by_zero():
    got = same_values(lambda np_: (np_.remainder(5, 0), np_.floor_divide(5, 0),
                                   np_.floor_divide(-5, 0)))
    assert [int(v) for v in got] == [0, -2, -2]


@claim(A1, "Like JAX's `jnp.pad`, it is jitted, with the widths and the mode static.")
def pad_is_jitted():
    assert "name=_pad" in same_jaxpr(lambda np_: lambda x: np_.pad(x, 1), f32)


@claim(A1, "`cross`, `cov` and `corrcoef` are compositions, jitted as in JAX.")
def statistics_are_jitted():
    x = np.ones((3, 3), np.float32)
    for name in ("cross", "cov", "corrcoef"):
        for lib, np_ in BOTH:
            eqns = lib.make_jaxpr(getattr(np_, name))(*([x, x] if name == "cross" else [x])).eqns
            assert len(eqns) == 1 and eqns[0].params["name"] == name, (lib, name)


@claim(A1, "`power` is the one method that is not a scatter of `x` itself: as in JAX, it "
           "scatter-multiplies `y` into an array of ones")
def at_power_scatter_multiplies_exponents():
    text = same_jaxpr(lambda np_: lambda x: x.at[0].power(2.0), f32)
    assert "scatter-mul" in text and "pow a d" in text


@claim(A1, "a function that uses one NumPy array twice, or two branches of a `cond` that close "
           "over it, record one constant, as in JAX")
def a_numpy_array_is_one_constant():
    c = np.arange(3.0, dtype=np.float32)
    text = same_jaxpr(lambda np_: lambda x: x + c + c, f32)
    assert text.startswith("{ lambda a:f32[3]; b:f32[3].")


@claim(A1, "a Python integer out of bounds, which the dynamic slice clamps, as JAX does;")
def static_index_out_of_bounds_clamps():
    assert int(same_values(lambda np_: np_.arange(3)[5])) == 2
    assert "dynamic_slice" in same_jaxpr(lambda np_: lambda x: x[5], f32)


@claim(A1, "so `jnp.float64(1)` is a `float32`.")
def float64_is_canonicalized():
    assert same_values(lambda np_: np_.float64(1)).dtype == np.float32


@claim(A1, "as JAX does, we reverse the input (and its `iota`) first: equal keys then come out "
           "of the sort backwards, and the final reversal puts them back in order.")
def descending_stable_argsort():
    keys = np.array([1, 3, 1, 2, 3, 1], np.int32)
    got = same_values(lambda np_: np_.argsort(keys, stable=True, descending=True))
    assert got.tolist() == [1, 4, 3, 0, 2, 5]
    same_jaxpr(lambda np_: lambda k: np_.argsort(k, stable=True, descending=True), keys)


@claim(A1, "Their jaxprs are JAX's but where `quantile` clamps its indices: `lax.clamp` is a "
           "primitive in JAX, a composition here (appendix A6).")
def quantiles_are_jitted_as_in_jax():
    x = np.arange(5.0, dtype=np.float32)
    ours, theirs = (lib.make_jaxpr(lambda v: np_.median(v, keepdims=True))(x)
                    for lib, np_ in BOTH)
    for j in (ours, theirs):      # median's jit holds quantile's, with `q` an input
        (eqn,) = j.eqns
        assert (eqn.primitive.name, eqn.params["name"]) == ("jit", "median")
        (inner,) = eqn.params["jaxpr"].jaxpr.eqns
        assert inner.params["name"] == "quantile" and inner.invars[1].val == 0.5
    body = [str(j.eqns[0].params["jaxpr"].jaxpr.eqns[0].params["jaxpr"]) for j in (ours, theirs)]
    assert "clamp" not in body[0] and body[1].count("clamp") == 2
    assert str(ours).replace("clamp", "") != str(theirs)
    for name in ("sort", "argsort"):
        same_jaxpr(lambda np_: getattr(np_, name), x)


# Appendix A15 ---------------------------------------------------------------------------------
A15, A18 = "A15_compilation_cache", "A18_lowering_rest"


@claim(A15, "On the CPU we also hash the host CPU's features, which JAX's key does not")
def jax_key_hashes_no_cpu_features():
    import inspect
    from jax._src import cache_key
    source = inspect.getsource(cache_key.get)
    assert '"XLA flags"' in source and "cpu" not in source.lower()
    assert "_host_cpu()" in inspect.getsource(compilation_cache.cache_key)


@claim(A15, "JAX's key (`cache_key.get`) also hashes the compression algorithm and a custom "
            "hook, which we do not have")
def our_key_omits_compression_and_hook():
    import inspect
    from jax._src import cache_key
    source = inspect.getsource(cache_key.get)
    for entry in ('"XLA flags"', '"compile_options"', '"compression"', '"custom_hook"'):
        assert entry in source, entry
    ours = inspect.getsource(compilation_cache.cache_key)
    assert "_xla_flags()" in ours and "_keyed_options(" in ours
    assert "compression" not in ours and "hook" not in ours


@claim(A15, "JAX reads and writes any folder it is given; ours refuses one that is not its "
            "user's alone")
def jax_uses_a_folder_others_may_write():
    import tempfile
    import warnings
    from pathlib import Path
    from jax._src.lru_cache import LRUCache
    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0o777)
        cache = LRUCache(folder, max_size=-1)
        cache.put("k", b"an executable")
        assert cache.get("k") == b"an executable"
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            assert not compilation_cache._safe_folder(Path(folder))
        assert "others may write to it" in str(seen[0].message)


# Appendix A18 ---------------------------------------------------------------------------------

@claim(A18, "JAX emits the same `reduce_window` inside a private function (`call @cumsum`: its "
            "rule is `mlir.lower_fun(..., inline=False)`)")
def cumsum_is_a_private_function_in_jax():
    theirs = jax.jit(lambda v: jax.lax.cumsum(v)).lower(f32).as_text()
    ours = autodidax.jit(lambda v: autodidax.lax.cumsum(v)).lower(f32).as_text()
    assert "call @cumsum" in theirs and "reduce_window" in theirs
    assert "call @" not in ours and "reduce_window" in ours


@claim(A18, "(`_cumred_gpu_lowering`) would emit a `chlo.scan` but is switched off "
            "(`_is_supported_cumred` returns `False`)")
def gpu_cumsum_scan_is_off():
    from jax._src.core import ShapedArray
    from jax._src.lax.control_flow import loops
    assert loops._is_supported_cumred(ShapedArray((4,), np.float32), 0, False) is False


@claim(A1, "(`x ** 2` is a multiplication, not exp(2 log x)); a float base with integer "
           "exponents is `pow` without promotion, which keeps the derivative at `x = 0`; anything "
           "else is promoted first, as in JAX.")
def powers():
    same_jaxpr(lambda np_: lambda x: x ** 2, f32)
    same_jaxpr(lambda np_: lambda x, n: x ** n, f32, np.int32(3))
    same_jaxpr(lambda np_: lambda n, x: n ** x, np.int32(3), f32)
    for lib, _ in BOTH:
        assert float(lib.grad(lambda x: x ** np.int32(3))(0.0)) == 0.0


@claim(A1, "The rest of NumPy's elementwise functions follow one of two patterns, as in JAX")
def elementwise_patterns():
    same_jaxpr(lambda np_: np_.arcsin, np.arange(3, dtype=np.int32))
    same_jaxpr(lambda np_: np_.arctan2, f32, np.arange(3, dtype=np.int32))


@claim(A1, "# JAX's jit gets only the arguments given, by keyword (so sorted by name); the "
           "defaults # are constants of the traced function.")
def nan_to_num_defaults():
    same_jaxpr(lambda np_: np_.nan_to_num, f32)
    same_jaxpr(lambda np_: lambda x: np_.nan_to_num(x, posinf=7.0), f32)
    same_jaxpr(lambda np_: lambda x: np_.nan_to_num(x, neginf=-7.0, nan=1.0), f32)


@claim(A1, "For floats, both come from CPython's `float_divmod`, as in JAX.")
def float_divmod():
    x, y = np.float32([-7.5, 7.5, -0.0, 5.0]), np.float32([2.0, -2.0, 3.0, -np.inf])
    same_values(lambda np_: (np_.floor_divide(x, y), np_.remainder(x, y)))


@claim(A1, "Arrays and tracers also get dtype names that work as in JAX: `jnp.float32(3)` makes "
           "an array")
def dtype_names_make_arrays():
    for lib, np_ in BOTH:
        assert isinstance(np_.float32(3), lib.Array)
        assert np_.zeros(3, np_.int32).dtype == np.int32
        assert np_.ones(2).astype(np_.float16).dtype == np.float16


@claim(A1, "JAX's `jnp.array` (`copy=True` by default) of a traced value records a `copy` "
           "equation; ours is `asarray`, which records nothing.")
def jnp_array_copies_in_jax():
    assert "copy" in str(jax.make_jaxpr(jnp.array)(f32))
    assert "copy" not in str(autodidax.make_jaxpr(anp.array)(f32))


# ---- A4, A15: printing and the persistent cache ---------------------------------------------

@claim("A4_printing", "JAX's `pretty_print` takes settings (`JaxprPpSettings`: `source_info`, "
                      "`print_shapes`, `name_stack`, `custom_pp_eqn_rules`, `print_effects`)")
def jaxpr_pp_settings():
    from jax._src import core
    assert set(core.JaxprPpSettings._fields) == {"source_info", "print_shapes", "name_stack",
                                                  "custom_pp_eqn_rules", "print_effects"}
    assert isinstance(core.pp_eqn_rules, dict)


@claim("A15_compilation_cache", "JAX's is off until `jax_compilation_cache_dir` is set, and "
                                "keeps only programs whose compilation took at least "
                                "`jax_persistent_cache_min_compile_time_secs` (one second).")
def jax_cache_is_off_by_default():
    assert jax.config.jax_compilation_cache_dir is None
    assert jax.config.jax_persistent_cache_min_compile_time_secs == 1.0


@claim("A21_error_texts", "JAX's `P(3)` is made, and the `NamedSharding` that uses it raises a "
                          "`ValueError` (\"Resource axis: 3 of P(3,) is not found in mesh\").")
def a_bad_partition_spec_entry():
    import pytest
    from autodidax.sharding import PartitionSpec
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:2]), ("x",))
    spec = jax.sharding.PartitionSpec(3)
    with pytest.raises(ValueError, match=r"Resource axis: 3 of P\(3,\) is not found in mesh"):
        jax.sharding.NamedSharding(mesh, spec)
    with pytest.raises(TypeError, match="A PartitionSpec entry must be None"):
        PartitionSpec(3)


# ---- A2: jax.nn, jax.scipy.special and stats ------------------------------------------------

@claim("A2_library", "JAX gives `relu`, `relu6`, `xlogy`, `xlog1py`, `logit` and `log_ndtr` a "
                     "`custom_jvp`; ours are plain compositions")
def nn_compositions_where_jax_has_rules():
    import jax.scipy.special
    import autodidax.nn
    import autodidax.scipy.special
    x = np.float32([0.5, 2.0])
    fns = [(jax.nn.relu, autodidax.nn.relu), (jax.nn.relu6, autodidax.nn.relu6),
           (jax.scipy.special.logit, autodidax.scipy.special.logit),
           (jax.scipy.special.log_ndtr, autodidax.scipy.special.log_ndtr)]
    for theirs, ours in fns:
        unary = theirs is not jnp.logaddexp
        args = (x,) if unary else (x, x)
        assert "custom_jvp_call" in str(jax.make_jaxpr(theirs)(*args)), theirs
        assert "custom_jvp_call" not in str(autodidax.make_jaxpr(ours)(*args)), ours
        g_theirs = jax.grad(lambda v: theirs(*([v] * len(args))).sum())(x)
        g_ours = autodidax.grad(lambda v: ours(*([v] * len(args))).sum())(x)
        np.testing.assert_allclose(np.asarray(g_ours), np.asarray(g_theirs), rtol=1e-5)


@claim("A2_library", "`jax.scipy.stats.norm` is complete.")
def stats_norm_is_complete():
    import jax.scipy.stats
    import autodidax.scipy.stats
    public = lambda m: {n for n in dir(m) if not n.startswith("_")}
    norm = jax.scipy.stats.norm
    functions = {n for n in public(norm) if callable(getattr(norm, n))}
    assert functions <= public(autodidax.scipy.stats.norm)


# ---- A3: linear algebra ---------------------------------------------------------------------

@claim("A3_linalg", "On the CPU JAX calls LAPACK's `trsm`; we emit\n  "
                   "`stablehlo.triangular_solve` everywhere")
def cpu_linalg_lowers_to_lapack():
    a = np.eye(3, dtype=np.float32) * 2
    assert "potrf" in jax.jit(jnp.linalg.cholesky).lower(a).as_text()
    solve = lambda m: jax.lax.linalg.triangular_solve(m, m, left_side=True, lower=True)
    assert "trsm" in jax.jit(solve).lower(a).as_text()
    assert "potrf" in autodidax.jit(anp.linalg.cholesky).lower(a).as_text()
    ours = lambda m: autodidax.lax.linalg.triangular_solve(m, m, left_side=True, lower=True)
    text = autodidax.jit(ours).lower(a).as_text()
    assert "triangular_solve" in text and "custom_call" not in text


@claim("A3_linalg", "JAX's traces `jnp.cbrt`, an\n  equation of its jaxpr")
def qdwh_tolerance_in_numpy():
    x = np.array([[4.0, 1.0], [2.0, 3.0], [0.0, 1.0]], np.float32)
    theirs = str(jax.make_jaxpr(jax.lax.linalg.qdwh)(x))
    ours = str(autodidax.make_jaxpr(autodidax.lax.linalg.qdwh)(x))
    assert "cbrt" in theirs and "cbrt" not in ours
    assert theirs.startswith("let qdwh = { lambda a:f32[2,3] b:f32[2,3]; c:f32[3,2].")


@claim("A3_linalg", "with JAX's NaNs where LAPACK's `info` reports a failure")
def lapack_info_and_nans():
    import inspect
    from jax._src.lax import linalg as jax_linalg
    assert '"GE"' in inspect.getsource(jax_linalg._lu_cpu_gpu_lowering)
    assert "_replace_not_ok_with_nan" in inspect.getsource(jax_linalg._eigh_cpu_gpu_lowering)
    zeros = np.zeros((2, 2), np.float32)              # singular: getrf's info is 2, not < 0
    for lib in (jax, autodidax):
        assert not np.isnan(np.asarray(lib.jit(lib.lax.linalg.lu)(zeros)[0])).any()
    text = autodidax.jit(anp.linalg.eigh).lower(np.eye(2, dtype=np.float32)).as_text()
    assert "syevd" in text and "select" in text.split("syevd", 1)[1]


@claim("A3_linalg", "JAX lowers `eig` on CPUs and GPUs only (on GPUs\nto cuSOLVER's `geev`, "
                   "or to a kernel that runs MAGMA or the host's LAPACK); TPUs have no rule.")
def eig_lowerings():
    import inspect
    from jax._src.lax import linalg as jax_linalg
    source = inspect.getsource(jax_linalg)
    assert 'mlir.register_lowering(eig_p, _eig_cpu_lowering, platform="cpu")' in source
    assert 'register_cpu_gpu_lowering(eig_p, _eig_gpu_lowering, ("cuda", "rocm"))' in source
    gpu = inspect.getsource(jax_linalg._eig_gpu_lowering)
    assert "solver_geev_ffi" in gpu and "hybrid_eig_real" in gpu and "magma" in gpu


@claim("A3_linalg", "So `solve`, `inv`, `det` and `slogdet` print other\n  jaxprs than JAX's")
def det_prints_another_jaxpr():
    a = np.eye(4, dtype=np.float32)
    assert "custom_jvp_call" in str(jax.make_jaxpr(jnp.linalg.det)(a))
    assert "custom_jvp_call" not in str(autodidax.make_jaxpr(anp.linalg.det)(a))
    for name in ("norm", "cholesky"):
        assert str(jax.make_jaxpr(getattr(jnp.linalg, name))(a)) == \
            str(autodidax.make_jaxpr(getattr(anp.linalg, name))(a)), name


# ---- A16: pytrees' messages -----------------------------------------------------------------

@claim("A16_tree_util_text", "JAX's C++ says `Too few leaves for PyTreeDef; expected 2, got 1`, "
                             "`Duplicate custom PyTreeDef type registration for <class 'tuple'>`")
def jax_pytree_messages():
    import pytest
    from jax import tree_util as jt
    with pytest.raises(ValueError, match="Too few leaves for PyTreeDef; expected 2, got 1"):
        jt.tree_unflatten(jt.tree_structure((1, 2)), [1])
    with pytest.raises(ValueError, match=r"Duplicate custom PyTreeDef type registration for "
                                         r"<class 'tuple'>"):
        jt.register_pytree_node(tuple, lambda t: (t, None), lambda a, c: tuple(c))
    from autodidax import tree_util as ours
    with pytest.raises(ValueError):                   # the same class, in our own words
        ours.tree_unflatten(ours.tree_structure((1, 2)), [1])


# ---- A17: the catalogue's rules -------------------------------------------------------------

@claim("A17_catalogue_rules", "JAX's `_select_batch_rule` is a fancy rule, in "
                              "`fancy_primitive_batchers`; ours needs no axis, so it sits in "
                              "`batching_rules`")
def select_n_batching_tables():
    from jax._src.interpreters import batching
    from autodidax import batching as ours
    from autodidax import lax as alax
    assert batching.fancy_primitive_batchers[jax.lax.select_n_p].__name__ == "_select_batch_rule"
    assert alax.select_n_p in ours.batching_rules



@claim(A1, "JAX's calls the argument's own `reshape` method, so a NumPy array comes back a NumPy "
           "array, reshaped by NumPy; ours gives a device array")
def reshape_of_a_numpy_array():
    assert type(jnp.reshape(np.ones(4), (2, 2))) is np.ndarray
    assert isinstance(anp.reshape(np.ones(4), (2, 2)), autodidax.Array)


@claim(A1, "so `jnp.dot` of an `int32` and a `float32` array converts the first before its "
           "`dot_general`, an equation JAX's jaxpr does not have")
def dot_of_two_dtypes():
    args = np.ones(3, np.int32), f32
    theirs = str(jax.make_jaxpr(jnp.dot)(*args))
    ours = str(autodidax.make_jaxpr(anp.dot)(*args))
    assert "convert_element_type" not in theirs and "dot_general" in theirs
    assert ours.index("convert_element_type") < ours.index("dot_general")


A24 = "A24_numpy_rest"


@claim(A24, "a call such as `jnp.diff(x, n=2)` inlines its jaxpr, where JAX's shows one `jit` "
            "equation")
def keyword_calls_inline():
    theirs = str(jax.make_jaxpr(lambda x: jnp.diff(x, n=2))(f32))
    ours = str(autodidax.make_jaxpr(lambda x: anp.diff(x, n=2))(f32))
    assert "name=diff" in theirs and "name=diff" not in ours
    positional = str(autodidax.make_jaxpr(lambda x: anp.diff(x, 2))(f32))
    assert positional == str(jax.make_jaxpr(lambda x: jnp.diff(x, 2))(f32))

@claim(A1, "The code is the lattice itself: `_lattice` lists each type's edges, as JAX's does")
def the_lattice_is_jaxs():
    from jax._src import dtypes as jax_dtypes
    ours_of = lambda t: t if isinstance(t, np.dtype) else {int: "i*", float: "f*", complex: "c*"}[t]
    for x64 in (False, True):
        theirs = jax_dtypes._make_lattice_upper_bounds(strict=False, x64=x64)
        assert anp._upper_bounds(anp._lattice(x64)) == {
            ours_of(t): {ours_of(u) for u in ups} for t, ups in theirs.items()}, x64


@claim("A6_lax", "Their types are JAX's: `real`, `imag` and `abs` of a `complex64` are `float32`, "
                 "and `conj` of a `float32` is a `complex64`, as JAX's `lax.conj`.")
def complex_parts_types():
    z, x = np.ones(2, np.complex64), np.ones(2, np.float32)
    for lib in (autodidax.lax, jax.lax):
        assert [lib.real(z).dtype, lib.imag(z).dtype, lib.abs(z).dtype, lib.complex(x, x).dtype,
                lib.conj(x).dtype] == [np.float32] * 3 + [np.complex64] * 2


A25 = "A25_jax_rest"


@claim(A25, "one on a tracer goes to the trace that was current when the block began, as if the "
            "block were not there")
def compile_time_eval_passes_tracers_on():
    for lib, np_ in BOTH:
        def f(x):
            with lib.ensure_compile_time_eval():
                return x * 2, np_.sin(1.0)
        out, known = lib.jit(f)(f32)
        assert np.array_equal(out, f32 * 2) and np.isclose(float(known), np.sin(1.0))

        def g(y):                               # a jit tracer and a vmap tracer in one block
            def h(x):
                with lib.ensure_compile_time_eval():
                    return y * x
            return lib.vmap(h)(np_.ones(3))
        assert np.array_equal(lib.jit(g)(2.0), [2.0, 2.0, 2.0])


@claim(A25, "They warn in JAX's exact words, slips included")
def host_aliases_warn_as_jax():
    import warnings
    said = []
    for lib, _ in BOTH:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.host_count(), lib.host_id(), lib.host_ids()
        said.append([str(w.message) for w in caught])
    assert said[0] == said[1] and "process_indexs" in said[0][2]


@claim("A19_donation_and_autodiff_rest", "**`float0` values are NumPy arrays.** A gradient of an "
       "integer input, eager or out of `jit`")
def float0_values_are_numpy_arrays():
    from jax._src.literals import TypedNdArray
    for lib in (autodidax, jax):
        grad = lib.grad(lambda x: x * 2.0, allow_int=True)
        for g in (grad(3), lib.jit(grad)(3)):
            assert isinstance(g, np.ndarray) and g.dtype == jax.dtypes.float0
            assert (type(g) is TypedNdArray) == (lib is jax)
    assert repr(jax.grad(lambda x: x * 2.0, allow_int=True)(3)) == (
        "TypedNdArray((b'',), dtype=void)")
    assert isinstance(autodidax.vmap(autodidax.grad(lambda x: x * 2.0, allow_int=True))(
        np.arange(3)), autodidax.Array)
    for lib, np_ in BOTH:
        text = str(lib.make_jaxpr(lib.grad(lambda x: np_.sum(x * 2.0), allow_int=True))(
            np.arange(3)))
        assert "e:float0[3] = broadcast_in_dim (b'',):float0[]" in text
        lowered = lib.jit(lib.grad(lambda x: x * 2.0, allow_int=True)).lower(3).as_text()
        assert "-> (tensor<i1>" in lowered and "dense<false> : tensor<i1>" in lowered
    compiled = autodidax.jit(autodidax.grad(lambda x: x * 2.0, allow_int=True)).lower(3).compile()
    assert np.asarray(compiled(3)).dtype != jax.dtypes.float0       # the stored booleans


test_claims = claims_test(__name__)
