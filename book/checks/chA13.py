"""Checks of appendix A13's exercises (chapters/A13_custom_checks.md): each takes the notebook's
namespace."""
import numpy as np

from autodidax.core import ShapedArray
from autodidax.custom_checks import _aval_str, checked_cotangents
from autodidax.jvp import float0
from autodidax.tree_util import tree_flatten


def _raised(f, *args):
    """The TypeError's message that `f(*args)` raises, or None; any other outcome is an error."""
    try:
        out = f(*args)
    except TypeError as e:
        return str(e)
    assert out is None, f"the check should return None or raise TypeError, got {out!r}"
    return None


def check_check_tangent(nb):
    """1. `check_tangent`: JAX's message for a tangent that is not its primal's tangent type,
    float0 for integers, in the long form of the types; None for the right tangent."""
    check = nb["check_tangent"]
    a = lambda shape, dtype, weak=False: ShapedArray(shape, np.dtype(dtype), weak)
    msg = ("Custom JVP rule must produce primal and tangent outputs with corresponding shapes "
           "and dtypes. Expected {} (tangent type of {}) but got {}.")
    cases = [(a((3,), np.float32), a((3,), np.float32), None, "the right tangent"),
             (a((3,), np.int32), a((3,), float0), None, "float0, an integer's tangent type"),
             (a((), np.float32, True), a((), np.float32), None,
              "a weak-typed primal: weak types are not compared"),
             (a((3,), np.float32), a((2,), np.float32),
              msg.format("float32[3]", "float32[3]", "float32[2]"), "the wrong shape"),
             (a((2, 3), np.float32), a((2, 3), np.float16),
              msg.format("float32[2,3]", "float32[2,3]", "float16[2,3]"), "the wrong dtype"),
             (a((3,), np.int32), a((3,), np.int32),
              msg.format("float0[3]", "int32[3]", "int32[3]"),
              "an integer primal, whose tangent type is float0"),
             (a((), np.float32, True), a((), np.int32),
              msg.format("float32[]", "float32[]", "int32[]"),
              "a weak-typed primal: the long form has no ~")]
    for primal, tangent, want, what in cases:
        got = _raised(check, primal, tangent)
        assert got == want, (f"primal {_aval_str(primal)}, tangent {_aval_str(tangent)} "
                             f"({what}): expected {'no error' if want is None else repr(want)}, "
                             f"got {'no error' if got is None else repr(got)}")


def check_cotangent_error(nb):
    """2. `cotangent_error`: the message of JAX's ValueError for a cotangent of the wrong type,
    against the one the module's `checked_cotangents` raises."""
    error = nb["cotangent_error"]
    a = lambda shape, dtype: ShapedArray(shape, np.dtype(dtype))
    cases = [(a((3,), np.float32), a((2, 2), np.float32), "the shapes differ"),
             (a((3,), np.float32), a((), np.float16), "both differ"),
             (a((2,), np.float16), a((3,), np.int32), "both differ")]
    for aval, ct_aval, what in cases:
        try:
            checked_cotangents((np.zeros(ct_aval.shape, ct_aval.dtype),),
                                tree_flatten((0.0,))[1], [aval])
        except ValueError as e:
            want = str(e)
        else:
            raise AssertionError(f"the package accepted a cotangent {ct_aval.str_short()} for "
                                 f"an argument {aval.str_short()}: the book is wrong, not you")
        got = error("[0]", aval, ct_aval)
        assert got == want, (f"argument {aval.str_short()}, cotangent {ct_aval.str_short()} "
                             f"({what}): expected {want!r}, got {got!r}")
