"""The checks of appendix A18's exercises (chapters/A18_lowering_rest.md): each reads the
notebook."""
import numpy as np

from autodidax.core import get_aval
from book.checks.ch06 import _lower_and_run


def check_roll(nb):
    """1. A rule that reads its params: roll as two slices and a concatenate, or nothing."""
    roll_p, jnp = nb["roll_p"], nb["jnp"]
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    y = np.arange(30, dtype=np.int32).reshape(2, 3, 5)
    for a, shift, axis in [(x, 1, 0), (x, -1, 1), (x, 6, 1), (x, 2, 0), (x, 0, 1), (x, 4, 1),
                           (x, -5, 0), (y, 2, 2), (y, -7, 2), (y, 1, 1)]:
        what = f"roll of {get_aval(a).str_short()} by {shift} along axis {axis}"
        text, (out,) = _lower_and_run(nb, what, lambda a: roll_p.bind(a, shift=shift, axis=axis),
                                      a, package=[jnp])
        assert "gather" not in text and "dynamic" not in text, \
            f"the shift is static: no gather or dynamic slice is needed:\n{text}"
        if shift % a.shape[axis]:
            assert text.count("stablehlo.slice") == 2 and \
                text.count("stablehlo.concatenate") == 1, \
                f"{what}: expected two slices and a concatenate:\n{text}"
        else:
            assert "stablehlo.slice" not in text and "stablehlo.concatenate" not in text, \
                f"{what} is the operand itself: emit no operation for it\n{text}"
        want = np.roll(a, shift, axis)
        assert np.array_equal(out, want), f"{what} is wrong: expected\n{want}\ngot\n{out}"



def check_argmax_last(nb):
    """2. The last maximum: one stablehlo.reduce of pairs; equal values go to the larger index."""
    argmax_last_p, jnp = nb["argmax_last_p"], nb["jnp"]
    rng = np.random.default_rng(18)
    cases = [
        ("ties", np.int32([[3, 1, 3], [2, 2, 0]]), 1),
        ("ties", np.int32([[3, 1, 3], [2, 2, 0]]), 0),
        ("ties", np.float32([[0.5, 2.0, 2.0, -1.0], [0.0, 0.0, 0.0, 0.0]]), 1),
        ("all negative", np.float32([[-3.0, -1.0, -2.0], [-5.0, -7.0, -5.0]]), 1),
        ("all negative", np.int8([[-3, -1, -2], [-128, -128, -128]]), 1),
        ("ties", np.uint8([[0, 250, 250], [7, 0, 7]]), 1),
        ("all -inf", np.float32([[-np.inf, -np.inf, -np.inf]]), 1),
        ("ties", rng.integers(-2, 3, (3, 4, 5)).astype(np.int32), 1),
        ("ties", rng.integers(-2, 3, (3, 4, 5)).astype(np.int32), 2),
    ]
    for name, x, axis in cases:
        what = f"argmax_last of {get_aval(x).str_short()} along axis {axis}"
        text, (out,) = _lower_and_run(nb, what, lambda a: argmax_last_p.bind(a, axis=axis), x,
                                      package=[jnp])
        assert text.count("stablehlo.reduce") == 1 and "stablehlo.reverse" not in text, \
            f"{what}: write it as one stablehlo.reduce of (value, index) pairs:\n{text}"
        want = (x.shape[axis] - 1 - np.argmax(np.flip(x, axis), axis)).astype(np.int32)
        assert out.dtype == np.int32, f"{what} should be of dtype int32, got {out.dtype}"
        assert np.array_equal(out, want), \
            f"{name}: {what} of {x.tolist()} should be {want.tolist()}, got {out.tolist()}"
