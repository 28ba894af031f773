"""Checks of appendix A6's exercises (chapters/A6_lax.md): each takes the notebook's namespace."""
import numpy as np

import autodidax.numpy
from autodidax.core import (ShapedArray, Trace, Tracer, abstract_eval_rules, get_aval,
                            set_current_trace)
from book.exercises import watch


class _TypeTracer(Tracer):
    __slots__ = ("_aval",)

    def __init__(self, trace, aval):
        self._trace, self._aval = trace, aval

    aval = property(lambda self: self._aval)


class _TypeTrace(Trace):
    """A trace that knows types only: each result is what the primitive's abstract rule says."""

    def process_primitive(self, primitive, args, params):
        out = abstract_eval_rules[primitive](*map(get_aval, args), **params)
        if primitive.multiple_results:
            return [_TypeTracer(self, a) for a in out]
        return _TypeTracer(self, out)


def check_repeat(nb):
    """1. A primitive with parameters: `repeat`'s two rules, run and traced."""
    repeat, jnp = nb["repeat"], autodidax.numpy

    def traced_type(shape, dtype, repeats, axis):
        """The aval of `repeat` of a tracer that knows only its type: the abstract rule's work."""
        trace = _TypeTrace()
        with set_current_trace(trace):
            out = repeat(_TypeTracer(trace, ShapedArray(shape, dtype)), repeats, axis)
        return out.aval

    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    got, want = repeat(x, 2, 1), np.repeat(x, 2, 1)
    assert got.dtype == np.int32 and np.array_equal(got, want), \
        f"repeat(x, 2, axis=1) of {x.tolist()} should be the int32 {want.tolist()}, got " \
        f"{np.asarray(got).tolist()} ({got.dtype})"
    flags = repeat(np.array([True, False]), 3, 0)
    assert flags.dtype == np.bool_ and np.array_equal(flags, [1, 1, 1, 0, 0, 0]), \
        f"repeat([True, False], 3, axis=0) should be three Trues then three Falses, got {flags}"
    weak = repeat(jnp.arange(3) * 2.5, 2, 0)
    assert weak.weak_type, \
        "repeat of a weakly typed array should be weakly typed: keep x's weak type"
    assert not got.weak_type, \
        "repeat of a strongly typed int32 array should not be weakly typed: keep x's weak type"

    try:
        aval = traced_type((4, 5), np.float32, 3, 1)
        empty = traced_type((2, 3), np.uint8, 0, 0)
    except ValueError as e:
        raise AssertionError(f"repeats=3, axis=1 of a f32[4,5] and repeats=0, axis=0 of a u8[2,3] "
                             f"are valid (0 repeats empties the axis), but the abstract rule "
                             f"raised ValueError: {e}") from None
    assert (aval.shape, aval.dtype) == ((4, 15), np.float32), \
        f"under a trace, with no values, repeat of a f32[4,5] with repeats=3, axis=1 should " \
        f"have the type f32[4,15], got {aval.str_short()}: the abstract rule gives the shape"
    assert (empty.shape, empty.dtype) == ((0, 3), np.uint8), \
        f"under a trace, repeat of a u8[2,3] with repeats=0, axis=0 should have the type " \
        f"u8[0,3], got {empty.str_short()}"
    for repeats, axis in [(2, -1), (2, 2), (-1, 0), (1.5, 0)]:
        try:
            traced_type((2, 3), np.float32, repeats, axis)
        except ValueError:
            continue
        except Exception as e:
            raise AssertionError(f"under a trace, repeat of a f32[2,3] with repeats={repeats}, "
                                 f"axis={axis} raised {type(e).__name__}: {e}; it should raise "
                                 "a ValueError that says what is wrong")
        raise AssertionError(f"under a trace, repeat of a f32[2,3] with repeats={repeats}, "
                             f"axis={axis} should raise a ValueError: the abstract rule checks "
                             "the parameters, since the evaluation rule never runs there")


def check_floor_divide(nb):
    """2. Floor division from lax.div: NumPy's `//` of integers, composed from `lax`, in the
    operands' dtype, exact for every int32 (no detour through floats)."""
    floor_divide = nb["floor_divide"]
    cases = [
        (np.int32, [7, -7, 7, -7, 6, -6, 0, -1, 1, 16777217, 2**31 - 1, -2**31, -2**31],
         [2, 2, -2, -2, 3, 3, 5, 5, -5, 1, 1, -1, 3]),
        (np.int8, [-128, -128, 127, -5], [-1, 3, -2, 7]),
        (np.uint32, [4294967295, 7, 0], [2, 3, 9]),
    ]
    for dtype, xs, ys in cases:
        x, y = np.array(xs, dtype), np.array(ys, dtype)
        with np.errstate(all="ignore"):
            want = x // y
        with watch(autodidax.numpy) as seen:
            got = floor_divide(x, y)
        assert not seen, f"floor_divide called {seen[0]} of autodidax.numpy: compose it from " \
            "lax functions"
        assert got.dtype == dtype, \
            f"floor_divide of two {np.dtype(dtype).name} arrays should be {np.dtype(dtype).name}, " \
            f"got {got.dtype}"
        for a, b, w, g in zip(xs, ys, want.tolist(), np.asarray(got).tolist()):
            assert g == w, f"{a} // {b} should be {w} ({np.dtype(dtype).name}, rounding down), " \
                f"got {g}"
