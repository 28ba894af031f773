"""Checks of appendix A19's exercises (chapters/A19_donation_and_autodiff_rest.md): each takes the
notebook's namespace."""
import numpy as np

from autodidax.core import ShapedArray

F32, I32 = np.dtype(np.float32), np.dtype(np.int32)


def _a(shape, dtype=F32):
    return ShapedArray(shape, dtype)


def check_alias_outputs(nb):
    """1. Which output takes each donated buffer: JAX's first rule of `_set_up_aliases`."""
    alias_outputs = nb["alias_outputs"]
    cases = [   # (what it shows, inputs, donated, outputs, the aliases)
        ("one donated input, one output of its type", [_a((4,)), _a((4,))], [True, False],
         [_a((4,))], [0, None]),
        ("an input serves one output at most", [_a((3,))], [True], [_a((3,)), _a((3,))], [0]),
        ("each output takes the first donated input not yet taken",
         [_a((2,)), _a((2,)), _a((2,))], [True, True, True], [_a((2,)), _a((2,))], [0, 1, None]),
        ("an input that is not donated is never aliased", [_a((2,)), _a((2,))], [False, True],
         [_a((2,))], [None, 0]),
        ("the dtype must match as well as the shape", [_a((5,), I32), _a((5,))], [True, True],
         [_a((5,))], [None, 0]),
        ("the outputs choose in order", [_a((2,)), _a((3,))], [True, True],
         [_a((3,)), _a((2,)), _a((3,))], [1, 0]),
    ]
    for what, ins, donated, outs, want in cases:
        got = list(alias_outputs(ins, donated, outs))
        assert got == want, (
            f"{what}: for inputs {[a.str_short() for a in ins]} (donated {donated}) and outputs "
            f"{[a.str_short() for a in outs]}, the aliases should be {want}, got {got}")


def check_concatenate_transpose(nb):
    """2. concatenate's transpose, with slices: the pieces of the cotangent, None for constants."""
    rule, UndefinedPrimal = nb["concatenate_transpose_by_slices"], nb["UndefinedPrimal"]
    from autodidax.jit import jit
    ct = np.arange(24.0, dtype=np.float32).reshape(4, 6)
    cases = [   # (what it shows, operands: a shape if linear, an array if not, dimension)
        ("two linear operands along axis 1", [(4, 2), (4, 4)], 1),
        ("three linear operands along axis 0", [(1, 6), (2, 6), (1, 6)], 0),
        ("a constant operand between linear ones", [(4, 1), np.ones((4, 3), np.float32), (4, 2)], 1),
    ]
    for what, operands, dim in cases:
        xs = [UndefinedPrimal(_a(x)) if isinstance(x, tuple) else x for x in operands]
        sizes = [(x if isinstance(x, tuple) else x.shape)[dim] for x in operands]
        want = np.split(ct, np.cumsum(sizes)[:-1], dim)
        got = rule(ct, *xs, dimension=dim)
        assert len(got) == len(xs), f"{what}: one cotangent per operand, got {len(got)}"
        for i, (x, g, w) in enumerate(zip(operands, got, want)):
            if not isinstance(x, tuple):
                assert g is None, f"{what}: operand {i} is not linear, its cotangent should be None"
                continue
            assert g is not None and np.shape(g) == w.shape, (
                f"{what}: operand {i}'s cotangent should have shape {w.shape}, got "
                f"{None if g is None else np.shape(g)}")
            assert np.array_equal(np.asarray(g), w), (
                f"{what}: operand {i}'s cotangent should be the piece of ct where it was, "
                f"{w.tolist()}, got {np.asarray(g).tolist()}")
    # Under jit the cotangent is a tracer: the rule must bind primitives.
    xs = [UndefinedPrimal(_a((4, 2))), UndefinedPrimal(_a((4, 4)))]
    outs = jit(lambda c: rule(c, *xs, dimension=1))(ct)
    assert np.array_equal(np.asarray(outs[1]), ct[:, 2:]), \
        "under jit, the rule should give the same pieces"
