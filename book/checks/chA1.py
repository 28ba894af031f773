"""Checks of appendix A1's exercises (chapters/A1_numpy.md): each takes the notebook's namespace."""
import itertools

import numpy as np

import autodidax.numpy
from autodidax.core import dtype_kind
from book.exercises import watch

def strict_promotion(a, b):
    """JAX's strict promotion (`jax_numpy_dtype_promotion="strict"`), written out by rule rather
    than read from a graph; None where there is no common type. `a` and `b` are dtypes or the weak
    types "i*", "f*" and "c*". (tests/test_exercises.py checks this against JAX.)"""
    order = ["i*", "f*", "c*"]
    kinds = {"i*": "iufc", "f*": "fc", "c*": "c"}    # the dtypes each weak type is below
    if a == b:
        return a
    if isinstance(a, str) and isinstance(b, str):
        return max(a, b, key=order.index)
    if isinstance(b, str):
        a, b = b, a
    if isinstance(a, str):
        return b if dtype_kind(b) in kinds[a] else None
    return None


def check_strict_lattice(nb):
    """1. A join, and the strict lattice: `join` on a small graph with a shortcut and on one with
    no common bound, then `join` reading `strict_lattice()` against JAX's strict promotion, for
    every pair of types."""
    join, strict_lattice, error = nb["join"], nb["strict_lattice"], nb["TypePromotionError"]
    # a small graph with a shortcut: t is one edge above a, and m2, below t, is two
    small = {"a": ["m1", "t"], "b": ["m2"], "m1": ["m2"], "m2": ["t"], "t": [], "z": []}
    cases = [("a", "m1", "m1", "m1 is above a, so it is their join: a type is one of its own "
                               "upper bounds, and the join is the least common one"),
             ("m1", "t", "t", "t is reachable from m1, through m2, so it is their join: the "
                              "upper bounds are every type reachable, not only the next ones"),
             ("a", "b", "m2", "m2 is reachable from a through m1, and it is below t: the upper "
                              "bounds are every type reachable, and the join is the least of "
                              "the common ones, not the nearest"),
             ("b", "a", "m2", "join should not depend on the order of its arguments"),
             ("a", "z", error, "a and z have no common upper bound: raise TypePromotionError")]
    with watch(nb["_upper_bounds"], nb["_join"]) as seen:
        for x, y, want, why in cases:
            try:
                got = join(x, y, small)
            except NotImplementedError:
                raise
            except Exception as err:
                got = type(err) if isinstance(err, error) else f"{type(err).__name__}: {err}"
            assert got == want, f"on the graph {small}, join({x!r}, {y!r}) should be " \
                                f"{getattr(want, '__name__', want)!r}, got {got!r}: {why}"
    assert not seen, f"join called {seen[0]}: compute the upper bounds yourself"
    graph = strict_lattice()
    types = list(nb["_lattice"](x64=False))
    assert set(graph) == set(types) and all(set(up) <= set(types) for up in graph.values()), \
        "strict_lattice() should map each type of _lattice(x64=False) to types among them"
    for a, b in itertools.product(types, repeat=2):
        want = strict_promotion(a, b)
        try:
            got = join(a, b, graph)
        except error:
            got = None
        name = lambda t: getattr(t, "name", t)
        assert got == want, f"under strict promotion, {name(a)} with {name(b)} should " + (
            "have no common type" if want is None else f"give {name(want)}") + \
            f", got {'an error' if got is None else name(got)}"


def check_hypot(nb):
    """2. Inexact promotion, and hypot: `promote_inexact` against `_promote_dtypes(...,
    inexact=True)` without calling it, then `hypot` on ordinary, huge, tiny and infinite legs,
    eagerly and under jit."""
    promote_inexact, hypot, jnp, jax = nb["promote_inexact"], nb["hypot"], nb["jnp"], nb["jax"]
    get_aval, _promote_dtypes = nb["get_aval"], nb["promote_dtypes"]
    samples = {"2": 2, "2.0": 2.0, "True": True, "u8[2]": jnp.ones(2, jnp.uint8),
               "i16[2]": jnp.ones(2, jnp.int16), "i32[2]": jnp.arange(2),
               "bool[2]": jnp.ones(2, jnp.bool_), "f16[2]": jnp.ones(2, jnp.float16),
               "f32[2]": jnp.ones(2), "weak f32[]": jnp.asarray(2.0), "1j": 1j,
               "c64[2]": jnp.ones(2, jnp.complex64), "bf16[2]": jnp.ones(2, jnp.bfloat16),
               "weak bool[]": jnp.greater(1.0, 0.5)}
    promotions = (autodidax.numpy.promote_avals, autodidax.numpy.promote_dtypes,
                  autodidax.numpy.result_type, autodidax.numpy.promote_types,
                  autodidax.numpy._join, nb["promote_avals"], _promote_dtypes, nb["result_type"],
                  nb["promote_types"], nb["_join"])
    for (na, a), (nb_, b) in itertools.product(samples.items(), repeat=2):
        with watch(*promotions) as seen:
            got = promote_inexact(a, b)
        assert not seen, f"promote_inexact called {seen[0]}: use your join"
        for g_x, w_x in zip(got, _promote_dtypes(a, b, inexact=True)):
            g, w = get_aval(g_x), get_aval(w_x)
            assert g.dtype == w.dtype, \
                f"promote_inexact({na}, {nb_}) should give {w.dtype.name}, got {g.dtype.name}"
            assert g.weak_type == w.weak_type, \
                f"promote_inexact({na}, {nb_}) should be " \
                f"{'weakly' if w.weak_type else 'strongly'}" \
                " typed: weak exactly when the join is a weak type"
            assert np.array_equal(np.asarray(g_x), np.asarray(w_x)), \
                f"promote_inexact({na}, {nb_}) should hold the values {np.asarray(w_x)}, got " \
                f"{np.asarray(g_x)}"
    i8, u8, f16 = (jnp.ones(2, t) for t in (jnp.int8, jnp.uint8, jnp.float16))
    for args, names in [((2,), "2"), ((u8,), "u8[2]"), ((2, 2.0, f16), "2, 2.0, f16[2]"),
                        ((i8, True, u8), "i8[2], True, u8[2]")]:
        shown = lambda xs: [("weak " if get_aval(v).weak_type else "") + get_aval(v).str_short()
                            for v in xs]
        got, want = shown(promote_inexact(*args)), shown(_promote_dtypes(*args, inexact=True))
        assert got == want, f"promote_inexact({names}) should give {want}, got {got}: the join " \
                            "of all the arguments' types, however many"
    out = hypot(jnp.asarray([3, 5, 0]), jnp.asarray([4, 12, 0]))
    assert out.dtype == np.float32, f"hypot of int32 arrays should be float32, got {out.dtype}"
    assert np.allclose(np.asarray(out)[:2], [5.0, 13.0], rtol=1e-6, atol=0), \
        f"hypot([3, 5], [4, 12]) should be [5, 13], got {np.asarray(out)[:2]}"
    assert np.asarray(out)[2] == 0, f"hypot(0, 0) should be 0, got {np.asarray(out)[2]}"
    half = hypot(jnp.ones(2, jnp.float16), 2.0)
    assert half.dtype == np.float16, f"hypot of float16 and a Python float gave {half.dtype}"
    assert hypot(3.0, 4.0).weak_type, "hypot of two Python floats should be weakly typed"
    for scale in (1e30, 1e-30):
        got = float(hypot(jnp.float32(3 * scale), jnp.float32(4 * scale)))
        assert np.isclose(got, 5 * scale, rtol=1e-6), \
            f"hypot({3 * scale:g}, {4 * scale:g}) should be {5 * scale:g}, got {got:g}: x*x " \
            f"{'overflows' if scale > 1 else 'underflows'}; divide by the larger leg first"
    far = np.asarray(hypot(jnp.asarray([1e-20, 1e20, 0.0]), jnp.asarray([1e20, 1e-20, 5.0])))
    assert np.allclose(far, [1e20, 1e20, 5.0], rtol=1e-6, atol=0), \
        f"hypot([1e-20, 1e20, 0], [1e20, 1e-20, 5]) should be [1e20, 1e20, 5], got " \
        f"{far.tolist()}: divide the smaller leg by the larger, whichever of x and y it is"
    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal(6).astype(np.float32) * 10 for _ in range(2))
    got, want = np.asarray(hypot(x, y)), np.hypot(x, y)
    assert np.allclose(got, want, rtol=1e-6, atol=0), \
        f"hypot({np.round(x, 3).tolist()}, {np.round(y, 3).tolist()}) should be " \
        f"{np.round(want, 3).tolist()}, got {np.round(got, 3).tolist()}: " \
        "the legs' signs do not matter, only their magnitudes"
    try:
        jitted = np.asarray(jax.jit(hypot)(x, y))
    except NotImplementedError:
        raise
    except Exception as err:
        raise AssertionError(f"jit(hypot) raised {type(err).__name__}: {err}: under jit the "
                             "arguments are tracers, and promote_inexact must take them too")
    assert np.allclose(jitted, want, rtol=1e-6, atol=0), \
        f"jit(hypot) should be {want.tolist()}, got {jitted.tolist()}"
    edges = np.asarray(hypot(jnp.asarray([np.inf, -np.inf, np.nan]),
                             jnp.asarray([np.nan, 1.0, np.inf])))
    assert np.all(edges == np.inf), \
        f"hypot(inf, nan), hypot(-inf, 1) and hypot(nan, inf) should be inf, got {edges}"
