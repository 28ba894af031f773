"""Checks of chapter 0's exercises (chapters/00_the_map.md): each takes the notebook's
namespace."""
import numpy as np

import autodidax as jax
import autodidax.core
import autodidax.numpy as jnp
from book.exercises import watch


def check_cache_key(nb):
    """1. When jit traces again: `cache_key` changes exactly when a jitted function retraces, and
    is worked out with NumPy, not asked of the package."""
    cache_key = nb["cache_key"]
    calls = [np.ones(3, np.float32), jnp.ones(3), np.ones(3), np.ones(4, np.float32),
             np.ones(3, np.int32), np.ones(3, np.int64), np.ones(3, np.float16), np.int8(1),
             jnp.arange(3) * 2.5, jnp.ones(3) * 2.0, jnp.sin(2.0), 2.0, np.float64(3.0),
             np.float32(2.0), np.ones(1, np.float32), np.int32(5), 5, jnp.asarray(7), np.int64(7),
             True, np.bool_(False), np.uint64(3), np.uint32(4), np.ones((2, 3), np.float32),
             np.ones((3, 2), np.float32)]
    traced = []

    @jax.jit
    def double(x):
        traced.append(True)       # Python code: it runs when jit traces, not when it replays
        return x * 2

    seen = set()
    for x in calls:
        before = len(traced)
        double(x)
        with watch(autodidax.core.get_aval, autodidax.core.canonicalize_dtype, jnp.asarray,
                   jnp.array) as asked:
            key = cache_key(x)
        assert not asked, f"cache_key called {asked[0]}: work the key out with NumPy"
        hash(key)
        did, new = len(traced) > before, key not in seen
        if did != new:
            shown = " ".join(repr(x).split())   # on one line, a 2-D array too
            raise AssertionError(
                f"double({shown}) {'traced' if did else 'did not trace'}, but cache_key gives "
                f"{key!r}, a key {'not yet' if new else 'already'} seen")
        seen.add(key)


def check_toy_jvp(nb):
    """2. A second interpreter: `toy_jvp` and its rules give the toy programs' values and
    tangents, look each rule up in `toy_jvp_rules`, and keep float32 tangents float32."""
    toy_jvp, make_jaxpr, run = nb["toy_jvp"], nb["make_jaxpr"], nb["run"]
    sin, apply, impl_rules, toy_jvp_rules = (nb["sin"], nb["apply"], nb["impl_rules"],
                                             nb["toy_jvp_rules"])
    x0 = np.array([0.5, -1.0, 2.0], np.float32)
    t0 = np.array([1.0, 0.5, -2.0], np.float32)
    cases = [("sin(x) * 2.0 + x", lambda x: sin(x) * 2.0 + x, (np.cos(x0) * 2 + 1) * t0),
             ("x * x", lambda x: x * x, 2 * x0 * t0),
             ("sin(sin(x))", lambda x: sin(sin(x)), np.cos(np.sin(x0)) * np.cos(x0) * t0),
             ("3.0 * x + 1.0", lambda x: 3.0 * x + 1.0, 3 * t0),
             ("x * x, with sin(x) computed after it and unused", lambda x: (x * x, sin(x))[0],
              2 * x0 * t0)]
    for text, fn, want in cases:
        program = make_jaxpr(fn, (3,), np.float32)
        y, y_dot = toy_jvp(program, x0, t0)
        assert np.allclose(y, run(program, x0), rtol=1e-6), \
            f"the value of {text} should be {run(program, x0)}, got {y}"
        assert np.shape(y_dot) == (3,) and np.allclose(y_dot, want, rtol=1e-5, atol=1e-6), \
            f"the tangent of {text} at x={x0}, t={t0} should be {want}, got {y_dot}"
        assert np.asarray(y_dot).dtype == np.float32, \
            f"the tangent of {text} should be float32, as x and t are; got " \
            f"{np.asarray(y_dot).dtype}: a constant's zero tangent should not promote it"

    # an operation the check adds: stop_gradient is the identity, and its rule says its tangent is 0
    impl_rules["stop_gradient"] = lambda x: x
    toy_jvp_rules["stop_gradient"] = lambda primals, tangents: (primals[0], 0 * tangents[0])
    try:
        program = make_jaxpr(lambda x: apply("stop_gradient", x) * x, (3,), np.float32)
        try:
            y, y_dot = toy_jvp(program, x0, t0)
        except Exception as e:
            raise AssertionError(f"toy_jvp failed on an operation added to toy_jvp_rules "
                                 f"({type(e).__name__}: {e}): look each rule up in the table")
        assert np.allclose(y_dot, x0 * t0, rtol=1e-5, atol=1e-6), \
            f"stop_gradient's rule gives it the tangent 0, so stop_gradient(x) * x has the " \
            f"tangent x * t = {x0 * t0}; got {y_dot}: the rules, not the values, give the tangents"
    finally:
        del impl_rules["stop_gradient"], toy_jvp_rules["stop_gradient"]
