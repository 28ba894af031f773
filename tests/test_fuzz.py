"""Property-based fuzz of `autodidax.numpy` against `jax.numpy` (issue 34), with hypothesis.

Each example draws a function and its arguments: arrays of seven dtypes and shapes up to 3x3x3
(empty ones too), Python scalars (ints beyond int32, nan and infinities), and axes (negative, out
of range, NumPy integers, floats, tuples). Both libraries run it; they must agree on the outcome:
the exception class, or the values, dtype, shape and weak type. Differences on purpose are
listed in KNOWN_DIFFERENCES, each checked to still differ, so that the list cannot go stale.

The run is derandomized (the same examples every time, no database) and bounded: 400
examples, about ten seconds. To search further, run this file with FUZZ_EXAMPLES=5000 and a random
seed (FUZZ_RANDOM=1).
"""
import os
import warnings

import jax.numpy as jnp_ref
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import autodidax.numpy as jnp

UNARY = ("abs negative sign floor ceil round sqrt exp log sin cos tanh square sum prod max min "
         "mean argmax argmin cumsum cumprod sort argsort ravel isnan isfinite logical_not "
         "bitwise_not expm1 log1p arctan exp2 trunc all any var std flip transpose").split()
BINARY = ("add subtract multiply divide floor_divide remainder power maximum minimum greater "
          "less equal not_equal arctan2 logaddexp bitwise_and bitwise_or true_divide").split()
WITH_AXIS = ("sum prod max min mean argmax argmin cumsum sort argsort flip expand_dims squeeze "
             "var").split()
DTYPES = [np.float32, np.int32, np.bool_, np.float16, np.int8, np.uint8, np.uint32]

# Subnormal floats included: XLA flushes them in both libraries' eager operations (chapter 7).
_arrays = st.sampled_from(DTYPES).flatmap(lambda d: hnp.arrays(
    d, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3)))
_scalars = st.one_of(st.integers(-2**33, 2**33), st.floats(width=32), st.booleans())
_operands = st.one_of(_arrays, _scalars)
_axes = st.one_of(st.none(), st.integers(-4, 4),
                  st.sampled_from([np.int64(1), np.int32(-1), 1.0, (0, 1), (0, 0)]))


def _outcome(call, np_):
    """("ok", [(value, weak_type)]) or (exception class, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = call(np_)
        return "ok", [(np.asarray(o), o.weak_type) for o in (out if isinstance(out, tuple)
                                                             else (out,))]
    except Exception as e:  # noqa: BLE001 (the class is what is compared)
        return type(e), str(e)


def _agree(ours, theirs) -> bool:
    if ours[0] != theirs[0]:
        return False
    if ours[0] != "ok":
        return True
    for (a, weak_a), (b, weak_b) in zip(ours[1], theirs[1]):
        if (a.dtype, a.shape, weak_a) != (b.dtype, b.shape, weak_b):
            return False
        if a.dtype.kind == "f":
            tol = 1e-2 if a.dtype == np.float16 else 1e-5
            if not np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True):
                return False
        elif not np.array_equal(a, b):
            return False
    return True


# Differences on purpose or of XLA's: name -> (does the call `what`, with these outcomes, show
# it? (None: no such call is drawn), an example call, as `what` and as a function of np_).
KNOWN_DIFFERENCES = {
    # JAX's argmax, argmin, mean and var index the shape before they check the axis: an
    # IndexError. Ours check it first, a ValueError that names it (appendix A1's Differences).
    "an axis out of range": (
        lambda what, ours, theirs: ours[0] is ValueError and "out of bounds" in ours[1]
        and theirs[0] is IndexError and "tuple index out of range" in theirs[1],
        "argmax(1.0, 3)", lambda np_: np_.argmax(np.float32(1.0), 3)),
    # A Python int beyond int32 where JAX wraps it (the base of `power`): ours refuse it always
    # (appendix A1's Differences; tests/test_bad_input.py lists the functions).
    "an int beyond int32": (
        lambda what, ours, theirs: ours[0] is OverflowError and "to int32" in ours[1]
        and theirs[0] == "ok" and what.startswith("power("),
        "power(2147483648, 0)", lambda np_: np_.power(2**31, 0)),
}


def _known(what, ours, theirs) -> bool:
    return any(shows and shows(what, ours, theirs) for shows, _, _ in KNOWN_DIFFERENCES.values())


def _call(data):
    """A function of jnp and its arguments, drawn: (a description, call(np_module))."""
    kind = data.draw(st.sampled_from(["unary", "binary", "axis"]))
    if kind == "unary":
        name, x = data.draw(st.sampled_from(UNARY)), data.draw(_operands)
        return f"{name}({x!r})", lambda np_: getattr(np_, name)(x)
    if kind == "binary":
        name, x, y = data.draw(st.sampled_from(BINARY)), data.draw(_operands), data.draw(_operands)
        return f"{name}({x!r}, {y!r})", lambda np_: getattr(np_, name)(x, y)
    name, x, axis = data.draw(st.sampled_from(WITH_AXIS)), data.draw(_arrays), data.draw(_axes)
    return f"{name}({x!r}, {axis!r})", lambda np_: getattr(np_, name)(x, axis)


@settings(derandomize=not os.environ.get("FUZZ_RANDOM"), database=None, deadline=None,
          max_examples=int(os.environ.get("FUZZ_EXAMPLES", 400)),
          suppress_health_check=list(HealthCheck))
@given(st.data())
def test_numpy_functions_agree_with_jax(data):
    what, call = _call(data)
    ours, theirs = _outcome(call, jnp), _outcome(call, jnp_ref)
    assert _agree(ours, theirs) or _known(what, ours, theirs), \
        f"{what}:\n  ours: {str(ours)[:300]}\n  JAX's: {str(theirs)[:300]}"


def test_known_differences_still_differ():
    for name, (shows, what, example) in KNOWN_DIFFERENCES.items():
        ours, theirs = _outcome(example, jnp), _outcome(example, jnp_ref)
        assert not _agree(ours, theirs) and (shows is None or shows(what, ours, theirs)), \
            f"{name}: ours {str(ours)[:200]}, JAX's {str(theirs)[:200]}"
