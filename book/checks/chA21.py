"""Checks of appendix A21's exercises (chapters/A21_error_texts.md): each takes the notebook's
namespace."""
import numpy as np

from autodidax.core import ShapedArray
from autodidax.error_texts import check_callback_results, check_format


def _message(f, *args, error=RuntimeError):
    """The message of the `error` that `f(*args)` raises, or None if it returns."""
    try:
        f(*args)
    except NotImplementedError:     # the stub, not done yet
        raise
    except error as e:
        return str(e)
    return None


def check_check_results(nb):
    """1. The results of a callback: `check_results` against the module's own check."""
    check = nb["check_results"]
    a = lambda shape, dtype: ShapedArray(shape, np.dtype(dtype))
    f32, i32 = np.float32, np.int32
    cases = [([np.zeros(3, f32)], [a((3,), f32)], "a right result"),
             ([], [a((3,), f32)], "no result where one was declared"),
             ([np.zeros(3, f32), np.zeros(2, f32)], [a((3,), f32)], "one result too many"),
             ([np.zeros(2, f32)], [a((3,), f32)], "the wrong shape"),
             ([np.zeros(3, i32)], [a((3,), f32)], "the wrong dtype"),
             ([np.zeros(2, i32)], [a((3,), f32)], "both wrong: the shape is named"),
             ([np.zeros(3, f32), np.zeros((), i32)], [a((3,), f32), a((), f32)],
              "the second result's dtype wrong: #1"),
             ([np.zeros(3, i32), np.zeros(4, f32)], [a((3,), f32), a((), f32)],
              "the first result's dtype and the second's shape wrong: the first is named")]
    for outs, avals, what in cases:
        want = _message(check_callback_results, outs, avals)
        got = _message(check, outs, avals)
        assert got == want, f"{what}: the message should be {want!r}, got {got!r}"


def check_unused_error(nb):
    """2. Arguments a format never uses: `unused_error` against the module's own check."""
    unused_error = nb["unused_error"]
    cases = [("x = {}", (1,), {}, "every argument used"),
             ("x = {}", (1, 2), {}, "a positional argument unused"),
             ("{0} and {0}", (1, 2, 3), {}, "a numbered field used twice"),
             ("{1}", (1, 2), {}, "a numbered field: the first argument unused"),
             ("{x}", (), {"x": 1, "y": 2}, "a keyword unused"),
             ("{}", (1, 2), {"y": 3}, "positional and keyword unused: positional first"),
             ("no fields", (), {}, "no fields and no arguments"),
             ("{} {y}", (1,), {"y": 2}, "a positional field and a keyword, both used")]
    for fmt, args, kwargs, what in cases:
        want = _format_message(fmt, args, kwargs)
        got = unused_error(fmt, args, kwargs)
        assert got == want, f"{what}: the message should be {want!r}, got {got!r}"


def _format_message(fmt, args, kwargs):
    try:
        check_format(fmt, *args, **kwargs)
    except ValueError as e:
        return str(e)
    return None
