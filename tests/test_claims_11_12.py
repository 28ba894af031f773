"""Claims of chapters 11 (indexing) and 12 (random numbers) and of appendices A12 (indexing,
the rest), A14 (distributions) and A20 (bit primitives), checked against the real JAX (see
tests/claims.py)."""
import contextlib
import inspect
import re

import numpy as np
import pytest

import autodidax
import autodidax.numpy as anp
import jax
import jax.numpy as jnp
from autodidax import indexing, prng
from autodidax import lax as alax
from jax import lax
from jax._src import dispatch
from jax._src.lax import lax as jax_lax_impl
from jax._src.lax import slicing
from jax._src.random import prng as jax_prng
from jax._src.random import threefry2x32 as jax_threefry

from claims import claim, claims_test

CH11, CH12 = "11_indexing", "12_random"
A12, A14, A20 = "A12_indexing_rest", "A14_distributions", "A20_bit_primitives"
LIBS = [(autodidax, anp, alax), (jax, jnp, lax)]       # (the library, its numpy, its lax)


def jaxpr_text(lib, f, *args):
    return str(lib.make_jaxpr(f)(*args))


def error(f):
    """`(type name, message)` of what `f()` raises."""
    try:
        f()
    except Exception as e:          # noqa: BLE001 - the claims compare whatever is raised
        return type(e).__name__, str(e)
    raise AssertionError("no error")


def same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


# Chapter 11 --------------------------------------------------------------------------------

@claim(CH11, "XLA has four operations for them, and JAX makes each a primitive")
def each_indexing_operation_is_a_primitive():
    theirs = [slicing.dynamic_slice_p, slicing.dynamic_update_slice_p, slicing.gather_p,
              slicing.scatter_p, slicing.scatter_add_p, jax_lax_impl.sort_p]
    ours = [indexing.dynamic_slice_p, indexing.dynamic_update_slice_p, indexing.gather_p,
            indexing.scatter_p, indexing.scatter_add_p, indexing.sort_p]
    assert [p.name for p in ours] == [p.name for p in theirs]


@claim(CH11, "the way JAX evaluates *every* primitive eagerly (`jax/_src/dispatch.py`, "
             "`apply_primitive`): lower the one equation, compile it once per input type")
def eager_evaluation_compiles_one_primitive():
    source = inspect.getsource(dispatch.apply_primitive)
    assert "xla_primitive_callable(prim, **params)" in source
    assert hasattr(dispatch.xla_primitive_callable, "cache_clear")          # cached
    assert autodidax.core.impl_rules[indexing.gather_p].__qualname__.startswith("xla_impl")


@claim(CH11, "`checkify` (appendix A29) adds the checks back, as explicit outputs")
def checkify_adds_index_checks():
    import importlib
    said = []
    for lib in (jax, autodidax):
        checkify = importlib.import_module(f"{lib.__name__}.experimental.checkify")
        assert [e.__name__ for e in checkify.index_checks] == ["OOBError"]   # `x[i]` out of bounds
        f = checkify.checkify(lib.jit(lambda x, i: x[i]), errors=checkify.index_checks)
        said.append([f(np.arange(3.0, dtype=np.float32), i)[0].get() for i in (1, 5)])
    assert said[0] == said[1] and said[1][0] is None and "out-of-bounds" in said[1][1]


@claim(CH11, "The public functions count negative starts from the end, as JAX's do: a traced "
             "`i` becomes `select_n(i < 0, i, i + n)`; a Python integer is normalised on the "
             "spot.")
def negative_starts_count_from_the_end():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    for lib, _, lax_ in LIBS:
        traced = jaxpr_text(lib, lambda x, i: lax_.dynamic_slice(x, (i, 0), (2, 2)), x, 1)
        assert "lt b 0:i32[]" in traced and "select_n c b e" in traced
        static = jaxpr_text(lib, lambda x: lax_.dynamic_slice(x, (-1, 0), (2, 2)), x)
        assert "a 2:i32[] 0:i32[]" in static and "select_n" not in static


@claim(CH11, "a negative traced start is out of bounds, clamped to 0, and a negative Python "
             "integer a `ValueError`.")
def negative_starts_when_not_allowed():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    for lib, _, lax_ in LIBS:
        f = lib.jit(lambda x, i: lax_.dynamic_slice(x, (i, 0), (1, 4),
                                                    allow_negative_indices=False))
        assert same(f(x, -1), x[:1])
        name, message = error(lambda: lax_.dynamic_slice(x, (-1, 0), (1, 4),
                                                          allow_negative_indices=False))
        assert name == "ValueError" and message == (
            "Index -1 is out of bounds for dimension 3 if allow_negative_indices=False")


@claim(CH11, "`PROMISE_IN_BOUNDS` (what `x[idx]` uses) leaves it to XLA, whose gather clamps")
def x_idx_promises_in_bounds_and_clamps():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    for lib, np_, _ in LIBS:
        assert "mode=GatherScatterMode.PROMISE_IN_BOUNDS" in jaxpr_text(
            lib, lambda x, i: x[i], x, np.array([1, 2], np.int32))
        assert same(lib.jit(lambda x, i: x[i])(np_.asarray(x), np.array([5], np.int32)), x[2:])


@claim(CH11, "`FILL_OR_DROP` (`x.at[idx].get(mode=\"fill\")`) returns `fill_value` for a window "
             "that does not fit (NaN for floats by default).")
def fill_mode_fills_nan():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    for lib, np_, _ in LIBS:
        out = np_.asarray(x).at[np.array([1, 5])].get(mode="fill")
        assert same(out, [x[1], [np.nan] * 4])
        assert "fill_value=nan" in jaxpr_text(
            lib, lambda x: x.at[np.array([1, 5])].get(mode="fill"), x)


@claim(CH11, "XLA has no `FILL_OR_DROP`, so, as in JAX, that mode is a clamping gather then a "
           "`select` of `fill_value` where the index was out of bounds")
def fill_mode_lowers_to_gather_and_select():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    for lib, np_, _ in LIBS:
        text = lib.jit(lambda x: x.at[np.array([1, 5])].get(mode="fill")).lower(x).as_text()
        ops = re.findall(r"(?<!#)stablehlo\.(gather|select|reduce)\b", text)
        assert ops[-3:] == ["reduce", "gather", "select"], ops    # in bounds? gather; fill


@claim(CH11, "so JAX has one primitive per way to *combine* what lands there (`scatter`")
def one_scatter_primitive_per_combination():
    names = ["scatter", "scatter-add", "scatter-sub", "scatter-mul", "scatter-min", "scatter-max"]
    assert [p.name for p in (slicing.scatter_p, slicing.scatter_add_p, slicing.scatter_sub_p,
                             slicing.scatter_mul_p, slicing.scatter_min_p,
                             slicing.scatter_max_p)] == names
    assert [p.name for p in indexing.SCATTERS] == names


@claim(CH11, "carries the rule as a little jaxpr, `update_jaxpr`, which is how it prints")
def scatter_prints_its_update_jaxpr():
    dn = (), (0,), (0,)
    idx, upd = np.array([[1]], np.int32), np.array([1.0], np.float32)
    texts = [jaxpr_text(lib, lambda v: lax_.scatter_add(
        v, idx, upd, lax_.ScatterDimensionNumbers(*dn)), np.zeros(4, np.float32))
        for lib, _, lax_ in LIBS]
    assert texts[0] == texts[1]
    assert "update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = add e f in (g,) }" in texts[0]


@claim(CH11, "Out of bounds, XLA's scatter *drops* the update (`FILL_OR_DROP`, the default); "
             "`CLIP` clamps the indices first.")
def scatter_drops_or_clips():
    assert lax.GatherScatterMode.from_any(None) is lax.GatherScatterMode.FILL_OR_DROP
    assert indexing.GatherScatterMode.from_any(None) is indexing.GatherScatterMode.FILL_OR_DROP
    idx, upd = np.array([[1], [9]], np.int32), np.array([1.0, 2.0], np.float32)
    for lib, np_, lax_ in LIBS:
        dn = lax_.ScatterDimensionNumbers((), (0,), (0,))
        assert same(lax_.scatter(np_.zeros(4), idx, upd, dn), [0, 1, 0, 0])
        assert same(lax_.scatter(np_.zeros(4), idx, upd, dn, mode="clip"), [0, 1, 0, 2])


@claim(CH11, "A batch of `dynamic_slice`s at different starts is a gather whose index vectors "
             "are the starts (JAX's `_dynamic_slice_batching_rule`)")
def batched_dynamic_slices_are_a_gather():
    x, starts = np.arange(12.0, dtype=np.float32).reshape(3, 4), np.array([0, 2, 1], np.int32)
    for lib, _, lax_ in LIBS:
        text = jaxpr_text(lib, lib.vmap(lambda x, i: lax_.dynamic_slice(x, (i,), (2,))),
                          x, starts)
        assert "gather[" in text and "dynamic_slice" not in text
        assert "operand_batching_dims=(0,), start_indices_batching_dims=(0,)" in text


@claim(CH11, "Integers, scalar integer arrays, slices of step 1 or -1, `None` and `...` make one "
             "`dynamic_slice`; anything else one `gather`.")
def numpy_indexing_makes_one_dynamic_slice_or_gather():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    for lib, _, _ in LIBS:
        texts = [jaxpr_text(lib, lambda x, i: x[i, ::-1, None], x, 1),
                 jaxpr_text(lib, lambda x, i: x[..., i], x, 1)]
        for t in texts:
            assert t.count("dynamic_slice[") == 1 and "gather" not in t, t
        t = jaxpr_text(lib, lambda x, i: x[i, ::2], x, np.array([0, 2], np.int32))
        assert t.count("gather[") == 1 and "dynamic_slice" not in t
    assert jaxpr_text(autodidax, lambda x, i: x[i, ::-1, None], x, 1) == jaxpr_text(
        jax, lambda x, i: x[i, ::-1, None], x, 1)


@claim(CH11, "A boolean mask becomes integer arrays by `nonzero`, which needs its values: under "
             "`jit`, JAX's `NonConcreteBooleanIndexError`.")
def boolean_masks_need_values():
    x = np.arange(6.0, dtype=np.float32)
    for lib, np_, _ in LIBS:
        assert same(np_.asarray(x)[np_.asarray(x) > 3], [4, 5])
        with pytest.raises(IndexError) as e:
            lib.jit(lambda x: x[x > 3])(x)
        assert type(e.value).__name__ == "NonConcreteBooleanIndexError"
        assert str(e.value).startswith("Array boolean indices must be concrete; got bool[6]")


@claim(CH11, "`x.at[idx].set(v)` is a scatter with those dimension numbers.")
def at_set_is_a_scatter():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    texts = [jaxpr_text(lib, lambda x, v: x.at[1].set(v), x, 1.0) for lib, _, _ in LIBS]
    assert texts[0] == texts[1] and "scatter[" in texts[0]


@claim(CH11, "as JAX's, ours compares floats in a *total* order (NaNs last, as in NumPy) after "
             "making `-0.0` equal to `0.0`.")
def sort_order_of_floats():
    v = np.array([3.0, 0.0, np.nan, -0.0, 1.0, -np.inf], np.float32)
    for lib, _, lax_ in LIBS:
        out = np.asarray(lax_.sort(v))
        assert same(out, [-np.inf, 0.0, 0.0, 1.0, 3.0, np.nan])
        assert list(np.signbit(out[1:3])) == [False, True]        # equal: they keep their order
        assert list(lax_.sort((v, np.arange(6)), num_keys=1)[1]) == [5, 1, 3, 4, 0, 2]


@claim(CH11, "The JVP sorts an `iota` along with the keys and gathers the tangents at the "
             "permutation; `sort` is not linear, so it has no transpose.")
def sort_jvp_sorts_an_iota():
    v = np.array([2.0, 0.0, 1.0], np.float32)
    for lib, _, lax_ in LIBS:
        text = jaxpr_text(lib, lambda v, t: lib.jvp(lax_.sort, (v,), (t,)), v, v)
        assert re.search(r"iota\[.*\n.*= sort\[.*num_keys=1\] a \w+\n", text)
        assert "gather[" in text
        assert same(lib.grad(lambda v: (lax_.sort(v) * np.arange(3.0)).sum())(v), [2, 0, 1])
    assert jax_lax_impl.sort_p not in jax._src.interpreters.ad.primitive_transposes
    assert indexing.sort_p not in autodidax.autodiff.transpose_rules


@claim(CH11, "A batch of sorts is one sort along the dimension one further in")
def a_batch_of_sorts_is_one_sort():
    x = np.ones((3, 4), np.float32)
    texts = [jaxpr_text(lib, lib.vmap(lax_.sort), x) for lib, _, lax_ in LIBS]
    assert texts[0] == texts[1] and "sort[dimension=1" in texts[0]


@claim(CH11, "it returns `jnp.take(x, idx, axis=1)`, of shape `[n, len(idx)]`, as JAX defines "
             "it: an entry of `idx` that is negative counts from the end")
def take_counts_from_the_end_and_fills():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    for _, np_, _ in LIBS:
        assert same(np_.take(x, np.array([-1, 3]), axis=1), [[2, np.nan], [5, np.nan]])


@claim(CH11, "`_gather_transpose`, `gather_batching` | `jax/_src/lax/slicing.py`: "
             "`_gather_transpose_rule`, `_gather_batching_rule`")
def the_table_names_jaxs_functions():
    for name in ["_dynamic_slice_transpose_fancy", "_dynamic_update_slice_transpose_rule",
                 "_dynamic_slice_indices", "_gather_shape_rule", "_gather_lower", "_gather_fill",
                 "_gather_transpose_rule", "_gather_batching_rule", "_scatter_lower",
                 "_clamp_scatter_indices", "_scatter_addsub_transpose_rule",
                 "_scatter_batching_rule", "_dynamic_slice_batching_rule"]:
        assert hasattr(slicing, name), name
    for name in ["_sort_lower", "_sort_lt_comparator", "_sort_jvp", "_sort_batch_rule"]:
        assert hasattr(jax_lax_impl, name), name
    assert hasattr(jax._src.interpreters.mlir, "lower_fun")


# Chapter 12 --------------------------------------------------------------------------------

@claim(CH12, "JAX's default hash is Threefry-2x32")
def threefry_is_the_default():
    assert jax.config.jax_default_prng_impl == "threefry2x32"
    assert str(jax.random.key(0).dtype) == str(autodidax.random.key(0).dtype) == "key<fry>"


@claim(CH12, "`split`, `fold_in`, `bits`, `uniform` and `normal`, **bit for bit** with JAX "
             "0.10.2, eagerly, under `jit` and under `vmap`")
def bit_for_bit():
    draws = []
    for lib, _, _ in LIBS:
        r = lib.random
        key = r.PRNGKey(3)
        f = lambda k: r.normal(k, (2,))                 # normal, from uniform, from bits
        draws.append([f(key), lib.jit(lib.vmap(f))(r.split(key, 2))])   # (split etc.: below)
    for a, b in zip(*draws):
        assert same(a, b)


@claim(CH12, "the flag `jax_threefry_partitionable`, on by default, makes element $i$ of a "
             "draw hash counter $i$ alone")
def partitionable_is_on_by_default():
    assert jax.config.jax_threefry_partitionable is True
    key = jax.random.PRNGKey(0)
    with jax.threefry_partitionable(False):
        older = jax.random.bits(key, (3,))
    assert not same(older, jax.random.bits(key, (3,)))


@claim(CH12, "JAX wraps it in a primitive, `threefry2x32_p` (two key words and two counter "
             "arrays in, two arrays out)")
def threefry_is_a_primitive():
    k, c = np.uint32(5), np.arange(3, dtype=np.uint32)
    for p in (jax_threefry.threefry2x32_p, prng.threefry2x32_p):
        assert p.name == "threefry2x32" and p.multiple_results
        outs = p.bind(k, k, c, c)
        assert len(outs) == 2 and all(o.shape == (3,) for o in outs)
    assert all(same(a, b) for a, b in zip(jax_threefry.threefry2x32_p.bind(k, k, c, c),
                                          prng.threefry2x32_p.bind(k, k, c, c)))


@claim(CH12, "its lowering emits the algorithm's jaxpr once per module and input type, as a "
             "private function (`@threefry2x32`, `@threefry2x32_0`, ...) called where the "
             "primitive is used")
def one_private_function_per_input_type():
    for lib, _, _ in LIBS:
        r = lib.random
        f = lambda k: [r.bits(k, (3,)), r.bits(r.fold_in(k, 1), (3,)),
                       r.bits(r.fold_in(k, 2), (3,))]
        text = lib.jit(f).lower(r.PRNGKey(0)).as_text()
        defined = re.findall(r"func\.func private @(threefry2x32\w*)", text)
        assert defined == ["threefry2x32", "threefry2x32_0"], defined      # (3,) and (1,)
        assert len(re.findall(r"call @threefry2x32\(", text)) == (3 if lib is jax else 1)


@claim(CH12, "ours is the straight line of rounds, as JAX's is elsewhere.")
def we_emit_a_straight_line():
    text = autodidax.jit(lambda k: autodidax.random.bits(k, (3,))).lower(
        autodidax.random.PRNGKey(0)).as_text()
    assert "while" not in text and "threefry2x32" in text


@claim(CH12, "a Python int seed taken as 64 bits and cut to its low 32, as JAX does with 64-bit "
             "mode off")
def seeds_are_cut_to_32_bits():
    for lib, _, _ in LIBS:
        r = lib.random
        assert same(r.PRNGKey(2 ** 32 + 5), [0, 5]) and same(r.PRNGKey(-1), [0, 2 ** 32 - 1])
        assert same(r.PRNGKey(2 ** 63 - 1), [0, 2 ** 32 - 1])
        assert error(lambda: r.PRNGKey(2 ** 63)) == (
            "OverflowError", "Python int too large to convert to C long")


@claim(CH12, "element $i$ of a result (row-major) hashes the 64-bit counter $i$: `split` takes "
           "the two output words as key $i$, `bits` XORs them, and `fold_in(key, data)` hashes "
           "$(0, \\text{data})$.")
def the_partitionable_layout():
    key = np.array([0, 42], np.uint32)
    hi, lo = np.zeros(6, np.uint32), np.arange(6, dtype=np.uint32)
    for lib, _, _ in LIBS:
        r = lib.random
        w1, w2 = (np.asarray(w) for w in prng.threefry2x32(key[0], key[1], hi, lo))
        f1, f2 = prng.threefry2x32(key[0], key[1], np.uint32(0), np.uint32(7))
        split, bits, fold_in = lib.jit(lambda k: (r.split(k, (2, 3)), r.bits(k, (2, 3)),
                                                  r.fold_in(k, 7)))(key)
        assert same(split, np.stack([w1, w2], 1).reshape(2, 3, 2))
        assert same(bits, (w1 ^ w2).reshape(2, 3)) and same(fold_in, [f1, f2])


@claim(CH12, "JAX gives keys a type: three keys are a `key<fry>[3]` (\"fry\" for threefry), over "
             "data of type `uint32[3,2]`.")
def keys_have_a_type():
    for lib, _, _ in LIBS:
        keys = lib.random.split(lib.random.key(0), 3)
        data = lib.random.key_data(keys)
        assert (str(keys.dtype), keys.shape, data.shape, data.dtype) == (
            "key<fry>", (3,), (3, 2), np.uint32)
        assert "b:key<fry>[3] = random_split[shape=(3,)] a" in jaxpr_text(
            lib, lambda k: lib.random.split(k, 3), lib.random.key(0))


@claim(CH12, "so for a raw key (a `uint32[2]`, from `jax.random.PRNGKey`) `make_jaxpr` prints "
             "what JAX prints")
def raw_keys_print_as_jax():
    fs = [lambda r: lambda k: r.split(k), lambda r: lambda k: r.bits(k, (3,)),
          lambda r: lambda k: r.fold_in(k, 7), lambda r: lambda s: r.PRNGKey(s)]
    for f in fs:
        ours, theirs = (jaxpr_text(lib, f(lib.random), lib.random.PRNGKey(0)) if f is not fs[3]
                        else jaxpr_text(lib, f(lib.random), 1) for lib, _, _ in LIBS)
        assert ours == theirs


@claim(CH12, "so, as in JAX, a function of a typed key takes a `key<fry>[]` under `jit`")
def typed_keys_under_jit():
    texts = [jaxpr_text(lib, lib.random.bits, lib.random.key(42)) for lib, _, _ in LIBS]
    assert texts[0] == texts[1] and texts[0].startswith("{ lambda ; a:key<fry>[]. let")
    for lib, _, _ in LIBS:
        assert str(lib.jit(lambda k: lib.random.split(k, 2))(lib.random.key(1)).dtype) \
            == "key<fry>"


@claim(CH12, "JAX 0.10.2 recommends `jax.random.key(seed)`: a *typed* key, a scalar array of "
             "dtype `key<fry>`.")
def typed_keys_are_recommended():
    assert ":func:`jax.random.key` is recommended" in jax.random.PRNGKey.__doc__
    for lib, _, _ in LIBS:
        k = lib.random.key(0)
        assert k.shape == () and str(k.dtype) == "key<fry>"


@claim(CH12, "# JAX's `_normal` also draws complex normals")
def normal_draws_complex():
    source = inspect.getsource(jax._src.random.core._normal)
    assert "dtypes.issubdtype(dtype, np.complexfloating)" in source and "_normal_real" in source


@claim(CH12, "(`bernoulli` compares a uniform with `p`, `exponential` is $-\\log(1-u)$,")
def other_draws_are_formulas_on_uniform():
    for lib, np_, _ in LIBS:
        r = lib.random
        u, b, e = lib.jit(lambda k: (r.uniform(k, (5,)), r.bernoulli(k, 0.3, (5,)),
                                     r.exponential(k, (5,))))(r.PRNGKey(1))
        assert same(b, np.asarray(u) < 0.3)
        assert same(e, -np.log1p(-np.asarray(u)))


@claim(CH12, "Of JAX 0.10.2's six (`threefry2x32`, `threefry4x32`, `rbg`, `unsafe_rbg`, "
             "`philox2x32`, `philox4x32`) we build the default")
def six_implementations():
    assert sorted(jax_prng.prngs) == sorted(["threefry2x32", "threefry4x32", "rbg", "unsafe_rbg",
                                             "philox2x32", "philox4x32"])
    assert str(jax.random.key(0, impl="rbg").dtype) == "key<rbg>"
    with pytest.raises(ValueError, match="only the threefry2x32"):
        autodidax.random.wrap_key_data(np.zeros(2, np.uint32), impl="rbg")


@claim(CH12, "so under `jit` our program calls a private `@_threefry_random_bits`, whose "
             "counters are a `uint32` `iota` where JAX splits a `uint64` one in two words.")
def our_bits_are_a_private_function():
    ours, theirs = (lib.jit(lambda k: lib.random.bits(k, (3,))).lower(
        lib.random.PRNGKey(0)).as_text() for lib, _, _ in LIBS)
    assert "call @_threefry_random_bits" in ours and "_threefry_random_bits" not in theirs
    assert "iota dim = 0 : tensor<3xui32>" in ours and "ui64" not in ours
    assert "iota dim = 0 : tensor<3xui64>" in theirs


@claim(CH12, "Indexing keys is then an unwrap, a `slice`, a `reshape` and a wrap, where JAX "
             "prints a `slice` and a `squeeze`.")
def indexing_keys():
    ours, theirs = (jaxpr_text(lib, lambda k: lib.random.split(k)[0], lib.random.key(42))
                    for lib, _, _ in LIBS)
    ops = lambda t: re.findall(r"= (\w+)", t)
    assert ops(ours) == ["random_split", "random_unwrap", "slice", "reshape", "random_wrap"]
    assert ops(theirs) == ["random_split", "slice", "squeeze"]
    assert same(autodidax.random.key_data(autodidax.random.split(autodidax.random.key(4))[1]),
                jax.random.key_data(jax.random.split(jax.random.key(4))[1]))


@claim(CH12, "JAX's `PRNGKeyArray` is a `jax.Array`, a leaf; ours is a node whose one leaf is its "
             "data")
def typed_keys_are_pytree_nodes():
    theirs = jax.random.key(0)
    assert isinstance(theirs, jax.Array) and jax.tree_util.tree_leaves(theirs) == [theirs]
    ours = autodidax.random.key(0)
    (leaf,) = autodidax.tree_util.tree_leaves(ours)
    assert leaf is not ours and same(leaf, [0, 0])


@claim(CH12, "Ours take an integer index only (else `NotImplementedError`), and have `shape`, "
             "`ndim`, `size`, `dtype`, `len` and iteration; JAX's take every index and the array "
             "methods (`reshape`, `T`, ...).")
def key_arrays_do_little():
    ours, theirs = autodidax.random.split(autodidax.random.key(0), 3), \
        jax.random.split(jax.random.key(0), 3)
    for keys in (ours, theirs):
        assert (keys.shape, keys.ndim, keys.size, len(keys), len(list(keys))) == (
            (3,), 1, 3, 3, 3)
    assert theirs[1:].shape == (2,) and theirs.reshape(3, 1).shape == (3, 1)
    with pytest.raises(NotImplementedError):
        ours[1:]
    assert not hasattr(ours, "reshape")


@claim(CH12, "**No arrays of $2^{32}$ random elements or more.** For now.")
def no_64_bit_draws():
    with pytest.raises(NotImplementedError, match="2\\*\\*32 or more"):
        autodidax.jit(lambda k: autodidax.random.bits(k, (2 ** 16, 2 ** 16))).lower(
            autodidax.random.PRNGKey(0))


# Appendix A12 ------------------------------------------------------------------------------

@claim(A12, "JAX wraps `dynamic_index_in_dim` and `dynamic_update_index_in_dim` in `jit`, so "
            "their index is always traced (a negative Python integer is then clamped, not "
            "refused) and a jaxpr shows each call as one `jit` equation")
def index_in_dim_is_jitted():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    texts = []
    for lib, _, lax_ in LIBS:
        assert same(lax_.dynamic_index_in_dim(x, -1, allow_negative_indices=False), x[:1])
        texts.append(jaxpr_text(lib, lambda x: lax_.dynamic_index_in_dim(x, -1), x))
        assert "name=dynamic_update_index_in_dim" in jaxpr_text(
            lib, lambda x, u, i: lax_.dynamic_update_index_in_dim(x, u, i, 0), x, x[0], 1)
    assert texts[0] == texts[1] and "name=dynamic_index_in_dim" in texts[0]


@claim(A12, "They leave the other dimensions whole, with start 0 and "
            "`allow_negative_indices=False` (no equations).")
def other_dimensions_start_at_zero():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    texts = [jaxpr_text(lib, lambda x, i: lax_.dynamic_slice_in_dim(x, i, 2, axis=1), x, 1)
             for lib, _, lax_ in LIBS]
    assert texts[0] == texts[1] and texts[0].count("select_n") == 1
    assert "dynamic_slice[slice_sizes=(3, 2)] a 0:i32[] f" in texts[0]


@claim(A12, "`scatter-mul` is linear in the operand, and in the updates only when the indices "
            "are unique, as in JAX.")
def scatter_mul_gradients():
    idx, upd = np.array([[1], [1], [3]], np.int32), np.array([1.0, 2.0, 3.0], np.float32)
    for lib, np_, lax_ in LIBS:
        dn = lax_.ScatterDimensionNumbers((), (0,), (0,))
        grad = lambda f: lib.jit(lib.grad(f))
        assert same(grad(lambda o: lax_.scatter_mul(o, idx, upd, dn).sum())(np.ones(4)),
                    [1, 2, 1, 3])
        with pytest.raises(NotImplementedError, match="only implemented if `unique_indices"):
            grad(lambda u: lax_.scatter_mul(np_.ones(4), idx, u, dn).sum())(upd)
        assert same(grad(lambda u: lax_.scatter_mul(
            np_.full(4, 2.0), np.array([[1], [3]], np.int32), u, dn,
            unique_indices=True).sum())(upd[:2]), [2, 2])


@claim(A12, "with repeats, only the winning write received the cotangent, and JAX, like us, "
            "refuses.")
def scatter_transpose_needs_unique_indices():
    from autodidax.autodiff import transpose_rules
    with pytest.raises(NotImplementedError, match="only implemented where unique_indices=True"):
        jax.linear_transpose(lambda u: lax.scatter(
            jnp.zeros(4), jnp.array([[1], [1]]), u, lax.ScatterDimensionNumbers((), (0,), (0,))),
            jnp.ones(2))(jnp.ones(4))
    with pytest.raises(NotImplementedError, match="only implemented where unique_indices=True"):
        transpose_rules[indexing.scatter_p](None, None, None, None, dimension_numbers=None,
                                            mode=None, indices_are_sorted=False,
                                            unique_indices=False)


@claim(A12, "`scatter-min` and `scatter-max` give each position the tangent of its extremum, the "
            "mean where several tie.")
def scatter_extremal_and_plain_jvps():
    idx = np.array([[1], [1], [3]], np.int32)
    results = []
    for lib, np_, lax_ in LIBS:
        dn = lax_.ScatterDimensionNumbers((), (0,), (0,))
        results.append(lib.jit(lib.grad(lambda u, v: (
            lax_.scatter(np_.zeros(4), idx, u, dn).sum()
            + lax_.scatter_max(np_.zeros(4), idx, v, dn).sum()), argnums=(0, 1)))(
                np.array([1.0, 2.0, 3.0], np.float32), np.array([5.0, 5.0, 3.0], np.float32)))
    for a, b in zip(*results):
        assert same(a, b)
    assert same(results[0][0], [0, 1, 1]) and same(results[0][1], [0.5, 0.5, 1.0])


@claim(A12, "The checks raise JAX's errors and messages, word for word, in JAX's order")
def the_checks_raise_jaxs_messages():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    idx = np.array([[1], [1], [3]], np.int32)

    def cases(lax_, np_):
        gdn = lax_.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
                                          start_index_map=(0,))
        sdn = lax_.ScatterDimensionNumbers((), (0,), (0,))
        z = np.zeros((3, 4, 5), np.float32)
        return [
            lambda: lax_.gather(x, np.array([[0], [2]]), gdn, (1, 4, 1)),
            lambda: lax_.gather(x, np.array([[0], [2]]), gdn, (2, 4)),
            lambda: lax_.gather(x, np.array([[0], [2]]), gdn, (1, 5)),
            lambda: lax_.gather(x, np.array([[0, 1]]), gdn, (1, 4)),
            lambda: lax_.gather(x, np.array([[0.0]]), gdn, (1, 4)),
            lambda: lax_.gather(z, np.array([[0, 0]]), lax_.GatherDimensionNumbers(
                offset_dims=(2, 1), collapsed_slice_dims=(0,), start_index_map=(0, 1)),
                (1, 4, 5)),
            lambda: lax_.scatter_add(np_.zeros(4), idx, np.ones(2, np.float32), sdn),
            lambda: lax_.scatter_add(np_.zeros(4), idx, np.ones(3, np.int32), sdn),
            lambda: lax_.scatter_add(np_.zeros(4), idx.astype(np.float32), np.ones(3), sdn),
            lambda: lax_.scatter_add(np_.zeros(4), idx, np.ones((3, 2), np.float32), sdn),
            lambda: lax_.dynamic_slice(x, (0, 0), (4, 4)),
            lambda: lax_.dynamic_slice(x, (0, 0.0), (2, 2)),
            lambda: lax_.dynamic_update_slice(x, np.ones((2, 5), np.float32), (0, 0)),
            lambda: lax_.dynamic_update_slice(x, np.ones(2, np.float32), (0, 0)),
            lambda: lax_.dynamic_update_slice(x, np.ones((2, 2), np.int32), (0, 0)),
            lambda: lax_.sort((np.ones(3), np.ones(4))),
            lambda: lax_.sort((np.ones(3),), num_keys=2),
            lambda: lax_.top_k(np.ones(3), 5),
        ]
    ours, theirs = ([error(f) for f in cases(lax_, np_)] for _, np_, lax_ in LIBS)
    for a, b in zip(ours, theirs):
        assert a == b


@claim(A12, "Here such a mistake fails later, when XLA verifies the program (an `MLIRError`), or "
            "with another of the messages.")
def fewer_checks():
    z = np.zeros((3, 4, 5), np.float32)
    bad = lambda lax_: lambda: lax_.gather(z, np.array([[0, 0]]), lax_.GatherDimensionNumbers(
        offset_dims=(1, 2), collapsed_slice_dims=(1, 0), start_index_map=(0, 1)), (1, 1, 5))
    theirs, ours = error(bad(lax)), error(bad(alax))
    assert theirs == ("TypeError", "collapsed_slice_dims in gather op must be sorted; got (1, 0)")
    assert ours != theirs


@claim(A12, "`lax.index_in_dim`, with one `lax.slice` (with strides of 1, one per axis, as "
            "JAX's)")
def index_in_dim_is_one_slice():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    assert "slice[limit_indices=(2, 4) start_indices=(1, 0) strides=(1, 1)]" in jaxpr_text(
        jax, lambda x: lax.index_in_dim(x, 1), x)
    for i in (3, -4):
        assert error(lambda: lax.index_in_dim(x, i)) == (
            "IndexError", f"index {i} is out of bounds for axis 0 with size 3")
    assert same(lax.index_in_dim(x, -1, keepdims=False), x[-1])


@claim(A12, "a negative one counts from the end, as in Python (JAX adds the axis's size once, "
            "and clamps nothing).")
def slice_in_dim_counts_once():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    assert same(lax.slice_in_dim(x, -2, None), x[1:])
    assert error(lambda: lax.slice_in_dim(x, -5, 2))[1].startswith(
        "slice start_indices must have every element be nonnegative")


# Appendix A14 ------------------------------------------------------------------------------

@claim(A14, "so that users find `jax.random.bernoulli` where JAX has it.")
def the_names_are_in_random():
    names = ["truncated_normal", "exponential", "gumbel", "bernoulli", "categorical", "randint",
             "permutation", "choice"]
    for name in names:
        assert callable(getattr(autodidax.random, name)) and callable(getattr(jax.random, name))


@claim(A14, "each bit for bit with JAX 0.10.2")
def the_distributions_are_bit_for_bit():
    draws = []
    for lib, np_, _ in LIBS:
        r, key = lib.random, lib.random.PRNGKey(0)
        logits = np_.log(np_.array([0.1, 0.2, 0.7]))
        draws.append(lib.jit(lambda key: [
            r.truncated_normal(key, -1.0, 1.0, (3,)), r.categorical(key, logits, shape=(6,)),
            r.permutation(key, 10)])(key))
    for a, b in zip(*draws):
        assert same(a, b)


@claim(A14, "`exponential` is $-\\log(1-u)$;\n`gumbel` is $-\\log(-\\log u)$, with $u$ at least "
            "the smallest normal float")
def the_continuous_formulas():
    @jax.jit
    def pairs(key):
        u = jax.random.uniform(key, (4,), minval=np.finfo(np.float32).tiny, maxval=1.0)
        return [(jax.random.gumbel(key, (4,)), -jnp.log(-jnp.log(u))),
                (jax.random.exponential(key, (4,)), -jnp.log1p(-jax.random.uniform(key, (4,))))]
    for a, b in pairs(jax.random.PRNGKey(2)):
        assert same(a, b)


@claim(A14, "JAX *sorts* by random 32-bit words")
def permutation_sorts_by_random_words():
    source = inspect.getsource(jax._src.random.core._shuffle)
    assert "sort_key_val" in source and "np.ceil(exponent * np.log" in source
    assert "exponent = 3" in source


@claim(A14, "Bad keys raise JAX's exception classes with JAX's messages (from chapter 12's "
            "`check_prng_key`\nand `PRNGKey`); only the way a message names the key's "
            "implementation or a traced seed differs:")
def bad_keys():
    def cases(lib, np_):
        r = lib.random
        return [lambda: r.normal(np_.zeros(2)), lambda: r.normal(np_.zeros(3, np.uint32)),
                lambda: r.normal(r.split(r.PRNGKey(0))), lambda: r.PRNGKey(1.5)]
    ours, theirs = ([error(f) for f in cases(lib, np_)] for lib, np_, _ in LIBS)
    for (t1, m1), (t2, m2) in zip(ours, theirs):
        assert t1 == t2
        cut = lambda m: re.sub(r"for impl=.*|got JitTracer\((.*)\)|got ~.*", "", m)
        assert cut(m1) == cut(m2)
    assert ours[1][1].endswith("for impl=threefry2x32") and theirs[1][1] != ours[1][1]


@claim(A14, "`multivariate_normal` (a Cholesky, eigh or SVD\n  factor of the covariance) and "
            "`orthogonal` (a QR factorization) need `jnp.linalg`")
def two_draws_need_linalg():
    from autodidax import distributions, numpy as anp_
    mvn = inspect.getsource(jax._src.random.core._multivariate_normal)
    assert all(f in mvn for f in ("cholesky", "eigh", "svd"))
    assert "qr(" in inspect.getsource(jax._src.random.core._orthogonal)
    for name in ["multivariate_normal", "orthogonal"]:
        assert not hasattr(distributions, name), name
        assert getattr(autodidax.random, name).__module__ == anp_.linalg.__name__, name


@claim(A14, "a `float32` parameter for a\n`float16` draw is JAX's `TypePromotionError`, an "
            "integer or a Python float is not")
def safe_casts_of_parameters():
    b32 = np.array([1.5, 2.0], np.float32)
    for lib, _, _ in LIBS:
        key = lib.random.PRNGKey(0)
        assert error(lambda: lib.random.pareto(key, b32, None, np.float16))[0] == \
            "TypePromotionError"
        lib.random.pareto(key, np.array([1, 2], np.int32), None, np.float16)
        lib.random.pareto(key, 2.5, (2,), np.float16)


@claim(A14, "At\nversion 0.10.2 it is not a primitive but a composition")
def random_gamma_grad_is_a_composition():
    from jax._src.lax import special
    assert not hasattr(special, "random_gamma_grad_p") and "random_gamma_grad_p" not in dir(lax)
    a, x = np.array([0.5, 3.0], np.float32), np.array([0.2, 4.0], np.float32)
    assert "while" in str(jax.make_jaxpr(lax.random_gamma_grad)(a, x))
    assert same(alax.random_gamma_grad(a, x), lax.random_gamma_grad(a, x))


@claim(A14, "JAX's impl runs `_gamma_impl` with `lax.map` instead, one draw after another: "
            "the same numbers.")
def gamma_eager_rule():
    assert "lax_control_flow.map(" in inspect.getsource(jax._src.random.core._gamma_impl)
    from autodidax.distributions import random_gamma_p
    a = np.array([0.5, 2.0], np.float32)
    keys = prng.check_prng_key("gamma", autodidax.random.PRNGKey(1))[0]
    eager = random_gamma_p.bind(keys, a, log_space=False)
    assert same(eager, jax.random.gamma(jax.random.PRNGKey(1), a))


@claim(A14, "**No `gumbel(mode=\"highest\")` in float32.** It raises `NotImplementedError`: "
            "JAX's float32\n  draw counts leading zero bits with `lax.clz`, which appendix A24 "
            "builds after this one. In\n  other dtypes JAX's \"highest\" is \"high\", and so is "
            "ours.")
def no_highest_gumbel():
    assert 'dtype == np.float32 and mode == "highest"' in inspect.getsource(
        jax._src.random.core._gumbel)
    assert "lax.clz(" in inspect.getsource(jax._src.random.core)
    with pytest.raises(NotImplementedError):
        autodidax.random.gumbel(autodidax.random.PRNGKey(0), (2,), mode="highest")
    for lib, _, _ in LIBS:
        key = lib.random.PRNGKey(0)
        assert same(lib.random.gumbel(key, (3,), np.float16, mode="highest"),
                    lib.random.gumbel(key, (3,), np.float16, mode="high"))
    key = autodidax.random.PRNGKey(0)
    assert same(autodidax.random.gumbel(key, (3,), np.float16, mode="highest"),
                jax.random.gumbel(jax.random.PRNGKey(0), (3,), np.float16, mode="highest"))
    from autodidax import distributions
    assert not hasattr(distributions, "clz") and alax.clz.__module__ == "autodidax.numpy_rest"


@claim(A14, "The bits are JAX's everywhere, and `exponential`, `bernoulli`,\n  `cauchy`, "
            "`laplace`, `logistic`, `pareto`, `rayleigh`, `weibull_min`, `rademacher`,\n  "
            "`chisquare`, `gamma` and `clone` print JAX's jaxprs.")
def jaxprs_of_the_draws():
    a = np.array([0.3, 1.0, 2.5], np.float32)
    draws = {"exponential": lambda r, k: r.exponential(k, (3,)),
             "bernoulli": lambda r, k: r.bernoulli(k, 0.3, (5,)),
             "cauchy": lambda r, k: r.cauchy(k, (3,)), "laplace": lambda r, k: r.laplace(k, (3,)),
             "logistic": lambda r, k: r.logistic(k, (3,)), "pareto": lambda r, k: r.pareto(k, a),
             "rayleigh": lambda r, k: r.rayleigh(k, a),
             "weibull_min": lambda r, k: r.weibull_min(k, 1.0, 2.0, (3,)),
             "rademacher": lambda r, k: r.rademacher(k, (5,)),
             "chisquare": lambda r, k: r.chisquare(k, a), "gamma": lambda r, k: r.gamma(k, a),
             "clone": lambda r, k: r.clone(k),
             "wald": lambda r, k: r.wald(k, a)}           # one that differs: a split key
    for name, f in draws.items():
        texts = [str(lib.make_jaxpr(lambda k: f(lib.random, k))(lib.random.PRNGKey(0)))
                 for lib, _, _ in LIBS]
        assert (texts[0] == texts[1]) == (name != "wald"), name
    assert "random_unwrap" in texts[0] and "key<fry>[1] = slice" in texts[1]


@claim(A14, "JAX reads `d` with `concrete_or_error` and raises\n  `ConcretizationTypeError`; ours "
            "reads it with `operator.index`, which raises\n  `TracerIntegerConversionError`.")
def ball_with_a_traced_d():
    names = [error(lambda: lib.jit(lambda d: lib.random.ball(lib.random.PRNGKey(0), d))(3))[0]
             for lib, _, _ in LIBS]
    assert names == ["TracerIntegerConversionError", "ConcretizationTypeError"]


@claim(A14, "JAX accepts a complex `dtype` (a complex normal draw); chapter\n  12's `normal` draws "
            "real numbers only, so a complex dtype raises `ValueError`.")
def no_complex_lognormal():
    key = jax.random.PRNGKey(0)
    assert jax.random.lognormal(key, shape=(2,), dtype=np.complex64).dtype == np.complex64
    assert error(lambda: autodidax.random.lognormal(
        autodidax.random.PRNGKey(0), shape=(2,), dtype=np.complex64))[0] == "ValueError"


@claim(A14, "JAX defines every distribution in `jax/_src/random/core.py`, beside `uniform` and "
            "the keys")
def every_distribution_in_core():
    for name in ["uniform", "key", "truncated_normal", "bernoulli", "choice", "gamma"]:
        assert getattr(jax.random, name).__module__ == "jax._src.random.core", name
    assert autodidax.random.bernoulli.__module__ == "autodidax.distributions"


@claim(A14, "`laplace` ($\\operatorname{sign}(u)\\log(1-|u|)$ for $u$ in $(-1, 1)$)")
def laplace_by_inversion():
    @jax.jit
    def pairs(key):
        u = jax.random.uniform(key, (4,), minval=-1.0 + np.finfo(np.float32).epsneg, maxval=1.0)
        b = jax.random.bernoulli(key, 0.5, (4,)).astype(np.int32)
        return [(jax.random.laplace(key, (4,)), lax.sign(u) * lax.log1p(-lax.abs(u))),
                (jax.random.rademacher(key, (4,)), 2 * b - 1)]
    for a, b in pairs(jax.random.PRNGKey(0)):
        assert same(a, b)


# Appendix A20 ------------------------------------------------------------------------------

@claim(A20, "Each has a zero tangent (`defjvp_zero`, as in JAX)")
def bit_primitives_have_zero_tangents():
    source = inspect.getsource(jax_lax_impl)
    for name in ["shift_left_p", "shift_right_logical_p", "shift_right_arithmetic_p"]:
        assert f"ad.defjvp_zero({name})" in source, name
    assert "ad.defjvp_zero(bitcast_convert_type_p)" in source
    from autodidax.jvp import Zero, jvp_rules
    u = np.array([1, 2], np.uint32)
    for p, params in [(alax.shift_left_p, {}), (alax.shift_right_logical_p, {}),
                      (alax.shift_right_arithmetic_p, {}),
                      (alax.bitcast_convert_type_p, {"new_dtype": np.dtype(np.int32)})]:
        args = (u, u) if not params else (u,)
        _, tangent = jvp_rules[p](args, [Zero.from_primal_value(a) for a in args], **params)
        assert type(tangent) is Zero, p


@claim(A20, "with XLA's answer for a shift by the word's width or more")
def shifts_by_the_width():
    u, i = np.array([1, 0xFFFFFFFF], np.uint32), np.array([-8, 8], np.int32)
    for lib, _, lax_ in LIBS:
        for f in (lambda: [lax_.shift_left(u, np.uint32(32)),
                           lax_.shift_right_logical(u, np.uint32(40)),
                           lax_.shift_right_arithmetic(i, np.int32(33))],):
            eager, jitted = f(), lib.jit(f)()
            for a, b in zip(eager, jitted):
                assert same(a, b)
            assert same(eager[0], [0, 0]) and same(eager[1], [0, 0])
            assert same(eager[2], [-1, 0])


@claim(A20, "JAX's rounds to any widths (through `jax.lax.reduce_precision`, to emulate narrower "
            "floats); ours does too, through XLA, but raises `NotImplementedError` under "
            "`eager_mode(\"numpy\")` at fewer bits. Its public function is appendix A27's.")
def reduce_precision_at_its_own_widths():
    from autodidax.bit_primitives import reduce_precision_p
    from autodidax.runtime import eager_mode
    theirs = lax.reduce_precision(np.float32(1.1), 5, 10)
    ours = reduce_precision_p.bind(np.float32(1.1), exponent_bits=5, mantissa_bits=10)
    assert float(theirs) == float(ours) == float(np.float16(1.1))
    with eager_mode("numpy"), pytest.raises(NotImplementedError):
        reduce_precision_p.bind(np.float32(1.1), exponent_bits=5, mantissa_bits=10)
    assert alax.reduce_precision.__module__ == "autodidax.lax_rest"


@claim(A20, "JAX batches them with `batching.defbroadcasting`, which keeps the batch axis in "
            "place when every operand but the scalars is batched alike (same shape, same batch "
            "axis); ours always moves it to the front.")
def elementwise_batching_moves_the_axis():
    a = np.ones((2, 3), np.uint32)
    theirs, ours = (jaxpr_text(lib, lib.vmap(lax_.shift_left, in_axes=1, out_axes=1), a, a)
                    for lib, _, lax_ in reversed(LIBS))
    assert "transpose" not in theirs and "transpose" in ours
    assert same(autodidax.vmap(alax.shift_left, in_axes=1, out_axes=1)(a, a),
                jax.vmap(lax.shift_left, in_axes=1, out_axes=1)(a, a))


@claim(A20, "`print_saved_residuals` names each flat argument as JAX's debug info does (`x`, "
            "`params['w']`)")
def residuals_are_named_as_jax_names_them():
    import io
    from autodidax.ad_checkpoint import print_saved_residuals as ours
    from jax.ad_checkpoint import print_saved_residuals as theirs
    printed = []
    for lib, np_, show in ((autodidax, anp, ours), (jax, jnp, theirs)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            show(lambda p, x: np_.sin(p["w"] * x), {"w": np_.ones(2)}, np_.ones(2))
        printed.append(out.getvalue())
    for text in printed:
        assert "from the argument p['w']" in text and "from the argument x" in text


@claim(A20, "and a Python `if` on a traced value, a `ConcretizationTypeError`, ends by pointing "
            "at `static_argnums`, as JAX's does.")
def checkpoint_errors():
    from autodidax.ad_checkpoint import checkpoint

    def scaled(x, mode):
        return x * 2.0 if mode == "double" else x
    for ckpt in (checkpoint, jax.checkpoint):
        with pytest.raises(Exception) as e:
            ckpt(lambda x: x if x > 0 else -x)(1.0)
        assert "ConcretizationTypeError" in [c.__name__ for c in type(e.value).__mro__]
        message = str(e.value)
        assert "Consider using the `static_argnums` parameter for `jax.remat` or " \
               "`jax.checkpoint`." in message
    for bad in (lambda c: c(scaled, static_argnums=2)(np.ones(2), "double"),
                lambda c: c(scaled, static_argnums=(1.0,))(np.ones(2), "double")):
        assert error(lambda: bad(checkpoint)) == error(lambda: bad(jax.checkpoint))


@claim(A20, "`prevent_cse` is a bool (JAX's tuple of bools, one per argument, is refused)")
def prevent_cse_is_a_bool():
    from autodidax.ad_checkpoint import checkpoint
    f = lambda x, y: x * y
    assert float(jax.checkpoint(f, prevent_cse=(True, False))(2.0, 3.0)) == 6.0
    with pytest.raises(NotImplementedError, match="prevent_cse as a tuple of bools"):
        checkpoint(f, prevent_cse=(True, False))
    assert float(checkpoint(f, prevent_cse=False)(2.0, 3.0)) == 6.0


@claim(A20, "An argument that is neither an array nor static is refused when it is flattened, "
            "with JAX's error")
def a_string_argument_is_refused():
    from autodidax.ad_checkpoint import checkpoint
    scaled = lambda x, mode: x * 2.0 if mode == "double" else x
    ours = error(lambda: checkpoint(scaled)(anp.ones(2), "double"))
    theirs = error(lambda: jax.checkpoint(scaled)(jnp.ones(2), "double"))
    assert theirs == ("TypeError", "Argument 'double' of type <class 'str'> is not a valid JAX "
                                   "type")
    assert ours[0] == theirs[0] and ours[1].startswith(theirs[1])


test_claims = claims_test(__name__)
