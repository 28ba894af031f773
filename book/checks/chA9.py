"""Checks of appendix A9's exercises (chapters/A9_collectives.md): each takes the notebook's
namespace."""
import numpy as np

from autodidax.jvp import jvp
from autodidax.batching import vmap


def shifted(xs, shift, axis=0):
    """What pshift gives, for examples stacked along `axis` of `xs`, computed in NumPy."""
    xs = np.moveaxis(np.asarray(xs), axis, 0)
    out = np.zeros_like(xs)
    for k in range(len(xs)):
        if 0 <= k - shift < len(xs):
            out[k] = xs[k - shift]
    return np.moveaxis(out, 0, axis)


def pshift_case(what, want, run):
    try:
        got = np.asarray(run())
    except NotImplementedError:
        raise
    except Exception as e:
        raise AssertionError(f"{what} failed: {type(e).__name__}: {e}") from None
    assert got.shape == want.shape and np.allclose(got, want), \
        f"{what} should give\n{want}\ngot\n{got}"


def check_pshift(nb):
    """1. A collective of your own: `pshift` under vmap, nested vmaps and jvp."""
    pshift = nb["pshift"]
    xs = np.arange(15.0, dtype=np.float32).reshape(5, 3)       # 5 examples of 3 elements
    for s in [2, -1, 7, -5]:
        pshift_case(f"over 5 examples, pshift(x, 'i', {s}), where example k gets example "
                    f"k - {s} or zeros,", shifted(xs, s),
                    lambda: vmap(lambda x: pshift(x, "i", s), axis_name="i")(xs))
    pshift_case("with the examples along axis 1 (in_axes=1, out_axes=1), pshift(x, 'i', 1)",
                shifted(xs.T, 1, axis=1),
                lambda: vmap(lambda x: pshift(x, "i", 1), in_axes=1, out_axes=1,
                             axis_name="i")(xs.T))
    c = np.float32([1.0, 2.0, 3.0])
    pshift_case("pshift(c, 'i', 1) of a c that is the same for every example (examples at the "
                "edge get zeros, so the result is batched)", shifted(np.tile(c, (5, 1)), 1),
                lambda: vmap(lambda x: pshift(c, "i", 1), axis_name="i")(xs))
    grid = np.arange(12, dtype=np.int32).reshape(3, 4)
    for name, axis in [("i", 0), ("j", 1)]:
        pshift_case(f"in vmap(vmap(..., axis_name='j'), axis_name='i') over a 3 x 4 grid, "
                    f"pshift(x, {name!r}, 1), along the axis of {name!r},",
                    shifted(grid, 1, axis),
                    lambda: vmap(vmap(lambda v: pshift(v, name, 1), axis_name="j"),
                                 axis_name="i")(grid))
    cube = np.arange(24, dtype=np.int32).reshape(3, 2, 4)
    pshift_case("in vmap(vmap(..., in_axes=1, axis_name='j'), axis_name='i') over a 3 x 2 x 4 "
                "array, where the batch of 'j' is on axis 1, pshift(x, 'i', 1)",
                shifted(cube, 1).transpose(0, 2, 1),
                lambda: vmap(vmap(lambda v: pshift(v, "i", 1), in_axes=1, axis_name="j"),
                             axis_name="i")(cube))
    ones = np.ones_like(xs)
    pshift_case("the tangent of jvp(vmap(lambda x: pshift(x, 'i', 1) * x, axis_name='i'))",
                shifted(ones, 1) * xs + shifted(xs, 1) * ones,
                lambda: jvp(vmap(lambda x: pshift(x, "i", 1) * x, axis_name="i"),
                            (xs,), (ones,))[1])


def check_standardize(nb):
    """2. Normalising over the batch: `standardize` against NumPy, over one name and two."""
    standardize, vmap_ = nb["standardize"], nb["vmap"]
    rng = np.random.default_rng(9)
    xs = rng.standard_normal((6, 3)).astype(np.float32) * 3 + 1

    def expected(xs, axis):
        mean = xs.mean(axis=axis, keepdims=True)
        return (xs - mean) / np.sqrt(xs.var(axis=axis, keepdims=True) + 1e-5)

    grid = rng.standard_normal((2, 4, 3)).astype(np.float32)
    cases = [("over 'i' of 6 examples of 3 features", expected(xs, 0),
              lambda: vmap_(lambda x: standardize(x, "i"), axis_name="i")(xs)),
             ("over 'i' of 6 examples stacked along axis 1", expected(xs, 0).T,
              lambda: vmap_(lambda x: standardize(x, "i"), in_axes=1, out_axes=1,
                            axis_name="i")(xs.T)),
             ("over ('i', 'j') of a 2 x 4 grid of examples", expected(grid, (0, 1)),
              lambda: vmap_(vmap_(lambda x: standardize(x, ("i", "j")), axis_name="j"),
                            axis_name="i")(grid)),
             ("over 'j' only, in a 2 x 4 grid", expected(grid, 1),
              lambda: vmap_(vmap_(lambda x: standardize(x, "j"), axis_name="j"),
                            axis_name="i")(grid))]
    for what, want, run in cases:
        try:
            got = np.asarray(run())
        except NotImplementedError:
            raise
        except Exception as e:
            raise AssertionError(f"standardize {what} failed: {type(e).__name__}: {e}") from None
        assert got.shape == want.shape, \
            f"standardize {what} should keep the shape {want.shape}, got {got.shape}"
        assert np.allclose(got, want, rtol=1e-4, atol=1e-4), \
            f"standardize {what} gives values off by up to {np.abs(got - want).max():.3g}: " \
            "the mean and variance are taken over the examples, feature by feature"
