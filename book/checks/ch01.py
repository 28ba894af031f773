"""Checks of chapter 1's exercises (chapters/01_primitives.md): each takes the notebook's namespace."""
import numpy as np

import autodidax.jaxpr
import autodidax.jvp
from book.exercises import watch


def check_nan_check_trace(nb):
    """1. A trace that stops at the first NaN: `NanCheckTrace` computes, and names the primitive
    whose output first holds a NaN (not an operand's NaN, not an infinity)."""
    NanCheckTrace, set_current_trace = nb["NanCheckTrace"], nb["set_current_trace"]
    jnp, lax = nb["jnp"], nb["lax"]

    def nan_checked(f, *args):
        with set_current_trace(NanCheckTrace()):
            return f(*args)

    def stops_at(f, *args):
        """The error NanCheckTrace raised while running f, or None."""
        try:
            nan_checked(f, *args)
        except FloatingPointError as e:
            return str(e)

    x = jnp.asarray([0.5, 2.0, 4.0])
    f = lambda x: jnp.sin(x) * 2.0 + jnp.log(x)
    got = nan_checked(f, x)
    assert got is not None and np.allclose(got, f(x), rtol=1e-6), \
        f"with no NaN, the trace should compute what f computes, {f(x)}; got {got}"
    ints = nan_checked(lambda i: (i * 3) // 2 > 1, jnp.arange(4))
    assert np.array_equal(ints, [False, False, True, True]), \
        f"integers and booleans hold no NaN: expected [False False True True], got {ints}"
    cases = [("jnp.log(x - 1.0) + 1.0", lambda x: jnp.log(x - 1.0) + 1.0, x, "log"),
             ("jnp.sqrt(x - 3.0) * 2.0", lambda x: jnp.sqrt(x - 3.0) * 2.0, x, "sqrt"),
             ("z / z, z a float16 zero", lambda z: z / z, jnp.zeros(2, jnp.float16), "div")]
    for text, g, arg, name in cases:
        said = stops_at(g, arg)
        assert said is not None, \
            f"{text} makes a NaN in {name}, but NanCheckTrace did not raise FloatingPointError"
        assert said == f"invalid value (nan) encountered in {name}", \
            f"{text}: the first NaN comes out of {name}, but the error says {said!r}"
    said = stops_at(lambda w: (lambda a, b: a * b)(*lax.unstack(w)), jnp.asarray([[1.0, 2.0],
                                                                                [np.nan, 3.0]]))
    assert said == "invalid value (nan) encountered in unstack", \
        f"lax.unstack of [[1, 2], [nan, 3]] has two results, the second with a NaN: the first " \
        f"NaN comes out of unstack, but the error says {said!r}: check every result"
    said = stops_at(lambda x: jnp.log(x * 0.0), x)
    assert said is None, f"log(0.0) is -inf, an infinity, not a NaN; but the trace raised {said!r}"
    said = stops_at(lambda x: x / 0.0, jnp.asarray([1.0, -1.0]))
    assert said is None, \
        f"[1.0, -1.0] / 0.0 is [inf, -inf], infinities, no NaN; but the trace raised {said!r}"
    said = stops_at(lambda x: jnp.where(jnp.isnan(x), 0.0, x), jnp.asarray([np.nan, 1.0]))
    assert said is None, \
        f"jnp.where(jnp.isnan(x), 0.0, x) of x = [nan, 1.0]: no primitive's output holds a NaN " \
        f"(x, an operand, does), but the trace raised {said!r}: check the outputs alone"


def check_depends_on(nb):
    """2. A trace with tracers of its own: `depends_on` gives each output's values and the
    positions of the arguments it depends on, as a trace that it invalidates when done."""
    depends_on, Tracer, jnp, lax = nb["depends_on"], nb["Tracer"], nb["jnp"], nb["lax"]
    x, y = jnp.asarray([1.0, -2.0, 3.0]), jnp.asarray([0.5, 0.5, 2.0])
    z = jnp.asarray([4.0, 5.0, -6.0])
    k = jnp.asarray([7.0, 8.0, 9.0])
    texts = ["2.0 * x + y", "jnp.sin(z)", "x * 0.0", "jnp.where(x > 0, y, 1.0)", "jnp.ones(3)",
             "x", "jnp.floor(y) - z", "k, an array made outside f"]
    f = lambda x, y, z: (2.0 * x + y, jnp.sin(z), x * 0.0, jnp.where(x > 0, y, 1.0), jnp.ones(3),
                         x, jnp.floor(y) - z, k)
    want = [{0, 1}, {2}, {0}, {0, 1}, set(), {0}, {1, 2}, set()]
    with watch(autodidax.jaxpr, autodidax.jvp) as seen:
        outs, deps = depends_on(f, x, y, z)
    assert not seen, f"depends_on called {seen[0]}, of a later chapter: build it as a trace"
    assert len(outs) == len(deps) == len(want), \
        f"f has {len(want)} outputs: expected {len(want)} values and sets, got {len(outs)} and " \
        f"{len(deps)}"
    for text, value, got, w, eager in zip(texts, outs, deps, want, f(x, y, z)):
        assert not isinstance(value, Tracer), \
            f"the output {text} is a {type(value).__name__}: return the values, not the tracers"
        assert np.allclose(value, eager), f"the value of {text} should be {eager}, got {value}"
        assert set(got) == w, f"{text} depends on the arguments at {w or '{}'}, got " \
            f"{set(got) or '{}'} (x, y, z are at 0, 1, 2; the primitives decide, not the values)"
    try:
        outs, deps = depends_on(lambda x, y: (lambda a, b: (a + y, b))(*lax.unstack(x)),
                                jnp.ones((2, 3)), jnp.ones(3))
    except Exception as e:
        raise AssertionError(f"lax.unstack, a primitive with two results, failed: "
                             f"{type(e).__name__}: {e}. Give each result a tracer of its own")
    assert [set(d) for d in deps] == [{0, 1}, {0}], \
        f"the rows a, b of lax.unstack(x), then a + y and b: expected [{{0, 1}}, {{0}}], got {deps}"
    kept = []
    depends_on(lambda x: (kept.append(x) or x,), x)
    assert not kept[0]._trace.is_valid(), \
        "f kept a tracer, and after depends_on its trace is still valid: invalidate the trace " \
        "when f has returned, so that an escaped tracer is known as one"
