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


@claim(A1, "`asarray`, but an array is copied (JAX's `copy_p`, once appendix A24 has defined it) "
           "unless `copy=False`")
def jnp_array_copies_as_jax():
    for copy in (True, False):
        assert (str(autodidax.make_jaxpr(lambda x: anp.array(x, copy=copy))(f32))
                == str(jax.make_jaxpr(lambda x: jnp.array(x, copy=copy))(f32)))


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

A31 = "A31_extend"


def _faces(lib):
    import importlib
    return [importlib.import_module(f"{lib.__name__}.{m}") for m in
            ("extend.core", "interpreters.ad", "interpreters.batching", "interpreters.mlir")]


@claim(A31, "JAX calls a user's impl rule directly, and never asks the abstract rule for the "
            "output type")
def eager_calls_the_impl_rule_alone():
    for lib, _ in BOTH:
        p = _faces(lib)[0].Primitive("impl_only")
        p.def_impl(lambda x: x + 1)
        p.def_abstract_eval(lambda x: 1 / 0)
        assert p.bind(1.0) == 2.0


@claim(A31, "As JAX does, it first puts NumPy arguments in their canonical dtype (a `float64` "
            "array arrives as `float32`), passes Python scalars on as Python scalars, and refuses "
            "what is not a JAX value.")
def eager_arguments_are_canonical():
    for lib, _ in BOTH:
        p = _faces(lib)[0].Primitive("seen")
        p.def_impl(lambda *xs: xs)
        x, y, n = p.bind(np.arange(2.0), 1.5, 2)
        assert x.dtype == np.float32 and isinstance(y, float) and isinstance(n, int)
        try:
            p.bind("a")
        except TypeError:
            pass
        else:
            raise AssertionError(f"{lib.__name__} took a string")


@claim(A31, "JAX hands an impl rule its Python scalars as `TypedFloat`s and `TypedInt`s, "
            "subclasses of `float` and `int` that carry a dtype, and its NumPy values as "
            "`TypedNdArray`s")
def jax_eager_arguments_are_typed():
    p = _faces(jax)[0].Primitive("seen")
    p.def_impl(lambda *xs: xs)
    types = [type(x) for x in p.bind(1.5, 2, np.arange(2.0), np.float64(1))]
    assert [t.__name__ for t in types] == ["TypedFloat", "TypedInt"] + ["TypedNdArray"] * 2
    assert issubclass(types[0], float) and issubclass(types[1], int)
    assert issubclass(types[2], np.ndarray) and p.bind(1.5)[0].dtype == np.float32


@claim(A31, "JAX's `Primitive` keeps its evaluation and abstract rules on itself")
def jax_primitive_holds_its_rules():
    p = _faces(jax)[0].Primitive("own")
    impl, rule = p.def_impl(lambda x: x), p.def_abstract_eval(lambda x: x)
    assert vars(p)["impl"] is impl and "abstract_eval" in vars(p) and rule is not None


@claim(A31, "JAX's `defjvp` takes one rule per input, called as `rule(g, *primals)`")
def jax_defjvp_rules_take_g_and_the_primals():
    for lib, _ in BOTH:
        core, ad = _faces(lib)[:2]
        seen = []
        p = core.Primitive("prod2")
        p.def_impl(np.multiply)
        p.def_abstract_eval(lambda x, y: x)
        ad.defjvp(p, lambda g, x, y: seen.append(3) or g * y,
                  lambda g, x, y: seen.append(3) or g * x)
        _, t = lib.jvp(p.bind, (2.0, 5.0), (1.0, 0.0))
        assert float(t) == 5.0 and len(seen) == 2


@claim(A31, "JAX's `deflinear` takes the transpose rule as well")
def jax_deflinear_takes_a_transpose():
    import inspect
    for lib, _ in BOTH:
        assert list(inspect.signature(_faces(lib)[1].deflinear).parameters) == [
            "primitive", "transpose_rule"]


@claim(A31, "`mlir.register_lowering` keeps two kinds of rule, as JAX's does: a rule for one "
            "platform (`platform=\"cpu\"`), and a rule for every platform (`platform=None`), used "
            "where a primitive has no rule for the platform at hand.")
def platform_rules_win_over_common_ones():
    from jaxlib.mlir.dialects import stablehlo as hlo
    for lib, _ in BOTH:
        core, mlir = _faces(lib)[0], _faces(lib)[3]
        for first_cpu in (True, False):
            p = core.Primitive("twice")
            p.def_abstract_eval(lambda x: x)
            rules = [(lambda ctx, x: [hlo.add(x, x)], "cpu"),
                     (lambda ctx, x: [hlo.multiply(x, x)], None)]
            for rule, platform in rules if first_cpu else rules[::-1]:
                mlir.register_lowering(p, rule, platform=platform)
            assert float(lib.jit(p.bind)(np.float32(3.0))) == 6.0
        q = core.Primitive("common")
        q.def_abstract_eval(lambda x: x)
        mlir.register_lowering(q, lambda ctx, x: [hlo.multiply(x, x)])
        assert float(lib.jit(q.bind)(np.float32(3.0))) == 9.0


@claim(A31, "`f(2., 10.)` and the `jvp` give NumPy's `float64`s, as they do under JAX")
def eager_user_primitives_give_numpy_values():
    for lib, _ in BOTH:
        core, ad = _faces(lib)[:2]
        p = core.Primitive("fma")
        p.def_impl(lambda x, y, z: np.add(np.multiply(x, y), z))
        p.def_abstract_eval(lambda x, y, z: x)

        def jvp(primals, tangents):
            (x, y, z), (xt, yt, zt) = primals, map(ad.instantiate_zeros, tangents)
            return p.bind(x, y, z), p.bind(xt, y, p.bind(x, yt, zt))
        ad.primitive_jvps[p] = jvp
        f = lambda a, b: p.bind(a, a, b)     # noqa: E731
        out, (primal, tangent) = f(2.0, 10.0), lib.jvp(f, (2.0, 10.0), (1.0, 1.0))
        assert all(type(v) is np.float64 for v in (out, primal, tangent))
        assert (out, primal, tangent) == (14.0, 14.0, 5.0)


@claim(A31, "A rule that is missing says which, as JAX's do")
def missing_rules_say_which():
    said = []
    for lib, _ in BOTH:
        p = _faces(lib)[0].Primitive("bare")
        for attempt in (lambda: p.bind(1.0), lambda: lib.jit(p.bind)(1.0)):
            try:
                attempt()
            except NotImplementedError as e:
                said.append(str(e))
    assert said[:2] == said[2:] == ["Evaluation rule for 'bare' not implemented",
                                    "Abstract evaluation for 'bare' not implemented"]


@claim(A31, "It reads a constant's value from `closed.literals` (JAX's other name for `.consts`)")
def literals_are_the_consts():
    for lib, _ in BOTH:
        c = lib.make_jaxpr(lambda x: x + np.arange(2.0))(np.ones(2, np.float32))
        assert c.literals is c.consts or c.literals == c.consts
        assert len(c.literals) == 1 and np.array_equal(c.literals[0], [0.0, 1.0])


@claim(A31, "The book's equations carry JAX's, with JAX's defaults: `dot_general` holds "
            "`precision`, `preferred_element_type` and `out_sharding` (appendix A27 and chapter 6 "
            "honour the precision), `broadcast_in_dim` and `convert_element_type` a `sharding`.")
def dot_general_params_are_jax():
    w = np.ones((2, 3), np.float32)
    got = []
    for lib, np_ in BOTH:
        c = lib.make_jaxpr(lambda x: np_.dot(w, x.astype(np.float32)) + np_.ones(2))(
            np.ones(3, np.int32))
        got.append(([(e.primitive.name, e.params) for e in c.eqns], str(c)))
    assert got[0] == got[1]
    params = dict(got[1][0])
    assert params["dot_general"]["precision"] is None and "precision" not in got[1][1]
    assert "sharding" in params["broadcast_in_dim"] and "sharding" in params[
        "convert_element_type"] and "out_sharding" in params["dot_general"]


@claim(A31, "In JAX 0.10.2 it is a shim that only accepts assignment: it wraps each rule into "
            "`fancy_primitive_batchers`, whose rules also take the axis.")
def jax_primitive_batchers_is_a_shim():
    core, _, batching, _ = _faces(jax)
    p = core.Primitive("shimmed")
    batching.primitive_batchers[p] = lambda vals, dims: (vals[0], dims[0])
    try:
        batching.primitive_batchers[p]
    except TypeError:
        pass
    else:
        raise AssertionError("JAX's primitive_batchers can be read")
    import inspect
    assert list(inspect.signature(batching.fancy_primitive_batchers[p]).parameters)[0] == \
        "axis_data"
    ours = _faces(autodidax)[2]
    ours.primitive_batchers[p] = rule = lambda vals, dims: (vals[0], dims[0])
    assert ours.primitive_batchers[p] is rule


@claim(A31, "`sin`, `exp`, `tanh` and JAX's other transcendental primitives have an `accuracy` "
            "param (`None` unless asked); the book's equations of them have no params.")
def transcendental_accuracy_param():
    for lib, np_ in BOTH:
        c = lib.make_jaxpr(lambda x: [np_.sin(x), np_.exp(x), np_.tanh(x)])(1.0)
        want = [{"accuracy": None}] * 3 if lib is jax else [{}] * 3
        assert [e.params for e in c.eqns] == want


@claim(A31, "The primitives guide's helper prints a tracer as `Traced<...>` when its class's "
            "path contains `ad.JVPTracer` or `partial_eval.JaxprTracer`; ours live in "
            "`autodidax.jvp` and `autodidax.jaxpr`, so they print in full.")
def tracer_class_paths():
    seen = {}
    for lib, _ in BOTH:
        core, ad = _faces(lib)[:2]
        p = core.Primitive("seen")
        p.def_impl(lambda x: x)
        p.def_abstract_eval(lambda x: x)

        def jvp(primals, tangents):
            seen.setdefault(lib.__name__, []).append(str(type(tangents[0])))
            return p.bind(*primals), tangents[0]
        ad.primitive_jvps[p] = jvp
        ad.primitive_transposes[p] = lambda ct, x: [ct]
        lib.jvp(lambda x: seen.setdefault(lib.__name__, []).append(str(type(x))) or x,
                (1.0,), (1.0,))
        lib.grad(p.bind)(1.0)
    jvp_t, pe_t = seen["jax"]
    assert "ad.JVPTracer" in jvp_t and "partial_eval.JaxprTracer" in pe_t
    ours = seen["autodidax"]
    assert "autodidax.jvp." in ours[0] and "autodidax.jaxpr." in ours[1]


@claim(A31, "our `LoweringRuleContext` is a `NamedTuple` of four fields; JAX's is a dataclass")
def lowering_rule_contexts():
    import dataclasses
    ours, theirs = (_faces(lib)[3].LoweringRuleContext for lib in (autodidax, jax))
    assert issubclass(ours, tuple) and len(ours._fields) == 4
    assert dataclasses.is_dataclass(theirs) and not issubclass(theirs, tuple)


A29 = "A29_checkify"


def _checkify_libs():
    import autodidax.experimental.checkify as ack
    from jax.experimental import checkify as jck
    return [(autodidax, anp, ack), (jax, jnp, jck)]


@claim(A29, "A Python `assert` works while a function runs on concrete numbers: op by op, or "
            "under `grad`, whose tracers carry their values. Under `jit` it cannot work.")
def assert_under_grad_not_jit():
    def f(x):
        assert x > 0
        return x * x
    for lib, _ in BOTH:
        assert float(f(lib.numpy.float32(2.0))) == 4.0 and float(lib.grad(f)(2.0)) == 4.0
        try:
            lib.jit(f)(2.0)
        except lib.errors.TracerBoolConversionError:
            pass
        else:
            raise AssertionError(f"{lib.__name__}.jit of an assert did not fail")


@claim(A29, "It traces `f` with its arguments closed over, not abstracted, as JAX does: a Python "
            "number stays a number, so a Python `if` on it works, and a `check` on it is decided "
            "while tracing.")
def checkify_closes_over_its_arguments():
    import re
    texts = []
    for lib, np_, ck in _checkify_libs():
        err, out = ck.checkify(lambda i: 1 if i < 0 else 2)(-2)
        assert int(out) == 1 and err.get() is None
        checked = ck.checkify(lambda x, i: (ck.check(i >= 0, "negative"), x)[1])
        text = str(lib.make_jaxpr(lambda x: checked(x, -2))(f32))
        assert "check" not in text and "not False:bool[]" in text, text    # decided: a constant
        texts.append(re.sub(r"\] \d+:i32\[\]", "] N:i32[]", text))
        assert checked(f32, -2)[0].get() == "negative (`check` failed)"
    assert texts[0] == texts[1], texts


@claim(A29, "A check whose kind is not enabled is dropped, as JAX drops it: "
            "`checkify(f, errors=nan_checks)` reports no failed `check`.")
def disabled_checks_are_dropped():
    for lib, np_, ck in _checkify_libs():
        f = lambda x: (ck.check(x > 0, "positive"), np_.log(x))[1]     # noqa: E731
        g = lambda x: (ck.check(x > 0, "positive"), x)[1]     # noqa: E731
        assert ck.checkify(g, errors=ck.nan_checks)(-2.0)[0].get() is None
        assert lib.jit(ck.checkify(f, errors=ck.nan_checks))(-2.0)[0].get() == \
            "nan generated by primitive: log."
        assert ck.checkify(f)(-2.0)[0].get() == "positive (`check` failed)"


@claim(A29, "JAX lists 55 such primitives; we take its list, less `reduce`, which the book does "
            "not define.")
def nan_primitives_are_jaxs():
    import autodidax.checkify as ack
    from jax._src import checkify as jck
    from autodidax.core import abstract_eval_rules
    theirs = [p.name for p in jck.nan_primitives]
    assert len(theirs) == 55
    ours = set(ack.nan_primitives)
    assert set(theirs) - ours == {"reduce"} and ours <= set(theirs)
    assert "reduce" not in {p.name for p in abstract_eval_rules}
    assert all(p in ack.error_checks for p in abstract_eval_rules if p.name in ours)


@claim(A29, "It is the same jaxpr JAX prints (up to the code's number, a counter of check sites).")
def nan_check_jaxpr_is_jaxs():
    import re
    texts = [re.sub(r"False:bool\[\] \d+:i32\[\]", "False:bool[] N:i32[]",
                    str(lib.make_jaxpr(ck.checkify(np_.sin, errors=ck.nan_checks))(f32)))
             for lib, np_, ck in _checkify_libs()]
    assert texts[0] == texts[1], texts


@claim(A29, "`jit` of a function whose `check` `checkify` has not removed fails, with JAX's "
            "message, which points to `checkify`")
def unremoved_check_is_refused():
    said = []
    for lib, np_, ck in _checkify_libs():
        try:
            lib.jit(lambda x: (ck.check(x > 0, "positive"), x)[1])(1.0)
        except ValueError as e:
            said.append(str(e))
    assert len(said) == 2 and said[0] == said[1] and "`checkify.checkify`" in said[0]


@claim(A29, "XLA does not fail on one: a gather or a dynamic slice clamps it into bounds, a "
            "scatter drops its update.")
def xla_clamps_and_drops():
    x = np.arange(5.0, dtype=np.float32)
    for lib, np_ in BOTH:
        y = np_.asarray(x)
        assert float(y[np_.int32(100)]) == 4.0
        assert np.array_equal(lib.lax.dynamic_slice(y, (np_.int32(4),), (2,)), [3.0, 4.0])
        assert np.array_equal(y.at[np_.int32(100)].set(9.0), x)


@claim(A29, "JAX attaches the line of the failed check to the exception `throw()` raises, as the "
            "traceback of its cause, so a printed traceback ends at that line. Ours keeps the line "
            "(the equation's `SourceInfo`, in `traceback_info`) but attaches nothing.")
def the_users_line():
    import traceback
    causes = []
    for lib, np_, ck in _checkify_libs():
        def f(x):
            ck.check(x > 0, "positive")     # the line
            return x
        line = f.__code__.co_firstlineno + 1
        err, _ = lib.jit(ck.checkify(f))(-1.0)
        try:
            err.throw()
        except ValueError as e:
            causes.append(e.__cause__)
        assert str(causes[-1]) == "positive (`check` failed)"
    ours, theirs = causes
    assert traceback.extract_tb(theirs.__traceback__)[-1].lineno == line
    assert ours.__traceback__ is None and ours.traceback_info.lineno == line


@claim(A29, "**No rule for `shard_map`** (nor, so, for `pmap`, which the book builds on it). Its "
            "primitive is bound as it is: automatic checks inside it are not added, and a `check` "
            "inside it stays, to be refused when compiled. JAX checkifies the jaxpr inside.")
def no_shard_map_rule():
    import autodidax.checkify as ack
    from jax._src import checkify as jck, shard_map as jshmap
    assert jshmap.shard_map_p in jck.error_checks
    assert not any(p.name == "shard_map" for p in ack.error_checks)
    mesh = autodidax.make_mesh((1,), ("x",))
    spec = autodidax.sharding.PartitionSpec("x")
    f = autodidax.shard_map(anp.log, mesh=mesh, in_specs=spec, out_specs=spec)
    assert ack.checkify(f, errors=ack.nan_checks)(-anp.ones(2))[0].get() is None


@claim(A29, "A `check` inside `jit` without `checkify` is always refused at lowering, as JAX "
           "refuses it with the flag off (its default).")
def unsafe_flag_default_off():
    assert jax.config.jax_experimental_unsafe_xla_runtime_errors is False
    assert not hasattr(autodidax.config, "jax_experimental_unsafe_xla_runtime_errors")


@claim(A29, "whose test is batched works here; JAX refuses it (our `vmap` of a loop gives a loop "
            "whose test is not batched).")
def checkify_of_vmap_of_while():
    got = []
    for lib, np_, ck in _checkify_libs():
        loop = lib.vmap(lambda v: lib.lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, v))
        try:
            err, out = ck.checkify(loop, errors=ck.all_checks)(np_.array([1.0, 3.0]))
            got.append((err.get(), np.asarray(out).tolist()))
        except ValueError as e:
            got.append(str(e))
    assert got[0] == (None, [16.0, 12.0]) and "does not support batched while-loops" in got[1]


@claim(A29, "receives the error's leaves (its flag, its code) in place of its residuals: a `bwd` "
            "that returns `g * x` for a residual `x` gives 0 where no check failed. Ours passes "
            "the residuals.")
def custom_vjp_after_a_check():
    grads = []
    for lib, np_, ck in _checkify_libs():
        @lib.custom_vjp
        def cv(x):
            return x * 3.0
        cv.defvjp(lambda x: (cv(x), x), lambda r, g: (g * r,))
        f = ck.checkify(lambda x: (ck.check(x > 0, "positive"), cv(x))[1])
        grads.append(float(lib.grad(lambda x: f(x)[1])(2.0)))
    assert grads == [2.0, 0.0]


A30 = "A30_array_refs"


def _raises(thunk):
    """The class and text of what `thunk()` raises (None if nothing)."""
    try:
        thunk()
    except Exception as e:                     # noqa: BLE001  (the class and text compared)
        return type(e), str(e)
    return None


@claim(A30, "`x_ref + 1` is a `TypeError`, as in JAX")
def ref_arithmetic_is_a_type_error():
    for lib, np_ in BOTH:
        assert _raises(lambda: lib.new_ref(np_.zeros(3)) + 1)[0] is TypeError


@claim(A30, "JAX has seven primitives for refs: `new_ref`, `empty_ref`, `freeze` and `free_ref` "
            "make and end them; `get`, `swap` and `addupdate` read and write. Ours are the same "
            "seven.")
def seven_ref_primitives():
    from jax._src import core
    from jax._src.state import primitives
    from autodidax import refs
    theirs = [core.ref_p, core.empty_ref_p, core.freeze_p, core.free_ref_p, primitives.get_p,
              primitives.swap_p, primitives.addupdate_p]
    ours = [refs.new_ref_p, refs.empty_ref_p, refs.freeze_p, refs.free_ref_p, refs.get_p,
            refs.swap_p, refs.addupdate_p]
    assert [p.name for p in theirs] == [p.name for p in ours]


@claim(A30, "A write casts its value in two cases only, as JAX's `swap` does (its "
            "`_maybe_implicit_cast`): a weakly typed float into a float ref (`x_ref[0] = 1.0` "
            "into an `f16` ref), and any integer into an integer ref. It never broadcasts: "
            "`x_ref[...] = 0.0` on an `f32[3]` ref is JAX's `ValueError`.")
def writes_cast_as_jax():
    for lib, np_ in BOTH:
        h = lib.new_ref(np_.zeros(2, np_.float16))
        h[0] = 1.0
        i = lib.new_ref(np_.zeros(2, np_.int32))
        i[...] = np_.ones(2, np_.uint8)
        assert h.dtype == np.float16 and np.array_equal(np.asarray(i[...]), [1, 1])
        f = lib.new_ref(np_.zeros(3))
        assert _raises(lambda: f.__setitem__(..., 0.0))[0] is ValueError
        assert _raises(lambda: f.__setitem__(..., np_.ones(3, np_.float16)))[0] is ValueError


@claim(A30, "JAX prints a read as `b:f32[] <- a[1]`, a write whose old value nobody uses as "
            "`a[1] <- d`, a swap as `e:f32[], a[1] <- a[1], d`, and an `addupdate` as "
            "`a[...] += b`.")
def refs_print_as_jax():
    def build(lib):
        def f(r, v):
            old = lib.ref.swap(r, 1, v[0])
            r[1] = r[1] + 1.0
            lib.ref.addupdate(r, ..., v)
            return old
        return f
    ours, theirs = (str(lib.make_jaxpr(build(lib))(lib.new_ref(np_.zeros(3)), np_.ones(3)))
                    for lib, np_ in BOTH)
    assert ours == theirs and "<- a[1]" in theirs and "a[...] += b" in theirs
    assert ", a[1] <- a[1], " in theirs and "    a[1] <- " in theirs


@claim(A30, "so the program updates it in place and the ref keeps its buffer, as in JAX: "
            "`x_ref.unsafe_buffer_pointer()` is the same before and after. For that, no one else "
            "may hold a box's array: `new_ref`, a whole read and `freeze` copy it, eagerly.")
def a_ref_keeps_its_buffer():
    for lib, np_ in BOTH:
        a = np_.arange(3.0)
        r = lib.new_ref(a)
        v, w = r[...], lib.freeze(r)
        at = [x.unsafe_buffer_pointer() if lib is jax else x._buf.unsafe_buffer_pointer()
              for x in (a, v, w)]                  # (our Array has no unsafe_buffer_pointer)
        assert len({*at, r.unsafe_buffer_pointer()}) == 4
    pointers = []
    for lib, np_ in BOTH:
        @lib.jit
        def sin_inplace(r):
            r[...] = np_.sin(r[...])
        x_ref = lib.new_ref(np_.arange(3.0))
        before = x_ref.unsafe_buffer_pointer()
        sin_inplace(x_ref)
        pointers.append(before == x_ref.unsafe_buffer_pointer())
    assert pointers == [True, True]


@claim(A30, "A ref returned as a loop's carry is refused by both, with other texts.")
def a_ref_as_a_carry_is_refused():
    for lib, np_ in BOTH:
        q = lib.new_ref(np_.zeros(3))
        assert _raises(lambda: lib.lax.scan(lambda c, x: (c, None), q, np_.arange(3.0)))[0] \
            is ValueError


@claim(A30, "A `scan` may also scan over a ref, handing the body a ref to each row")
def a_ref_scanned_over():
    def body(c, row):
        row[...] += 1.0
        return c, None
    for lib, np_ in BOTH:
        q = lib.new_ref(np_.zeros((2, 3)))
        lib.lax.scan(body, 0.0, q)
        assert np.array_equal(np.asarray(q[...]), np.ones((2, 3)))


@claim(A30, "Under `jit`, a ref given to a primitive on arrays (`lax.sin(x_ref)`) is refused "
            "with JAX's `ValueError` (`Attempting to pass a Ref ... to a primitive`), but once "
            "the function is traced, where JAX refuses it at its line; `make_jaxpr` lets it "
            "through. JAX's `jnp` functions refuse a ref before that, with a `TypeError` (`sin "
            "requires ndarray or scalar arguments, ...`): ours raise the `ValueError` under "
            "`jit`, and eagerly a `TypeError` with another text.")
def a_ref_where_an_array_belongs():
    said = []
    for lib, np_ in BOTH:
        r = lib.new_ref(1.0)
        said.append(_raises(lambda: lib.jit(lambda r: lib.lax.sin(r))(r)))
        assert _raises(lambda: lib.jit(lambda r: np_.sin(r))(r))[0] is (
            ValueError if lib is autodidax else TypeError)
        kind, text = _raises(lambda: np_.sin(r))
        assert kind is TypeError and (text.startswith("sin requires ndarray or scalar arguments")
                                      == (lib is jax))
    assert said[0] == said[1] and said[0][1].startswith("Attempting to pass a Ref")
    assert "sin" in str(autodidax.make_jaxpr(lambda r: autodidax.lax.sin(r))(
        autodidax.new_ref(1.0)))


@claim(A30, "An index array that a read closes over is listed after the ref among a jaxpr's "
            "constants, where JAX lists it first.")
def index_constants_come_first_in_jax():
    texts = []
    for lib, np_ in BOTH:
        y = lib.new_ref(np_.arange(4.0))
        texts.append(str(lib.make_jaxpr(lambda: y[np_.array([0, 2])])()))
    assert texts[0].startswith("{ lambda a:Ref{f32[4]} b:i32[2];")
    assert texts[1].startswith("{ lambda a:i32[2] b:Ref{f32[4]};")


@claim(A30, "Under `jit`, JAX's `freeze` ends its ref (a later read is refused); ours lets it be "
            "read on.")
def freeze_ends_a_ref_under_jit_in_jax():
    def build(lib):
        def f():
            r = lib.new_ref(1.0)
            return lib.freeze(r), r[...]
        return lib.jit(f)
    assert _raises(build(jax))[0] is ValueError
    assert [float(v) for v in build(autodidax)()] == [1.0, 1.0]


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
