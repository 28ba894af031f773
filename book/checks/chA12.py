"""Checks of appendix A12's exercises (chapters/A12_indexing_rest.md): each takes the notebook's
namespace. The expected jaxprs are JAX's (jax.lax.index_in_dim and slice_in_dim, jax 0.10.2)."""
import numpy as np

from autodidax import lax
from autodidax.jaxpr import make_jaxpr

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _one_slice(f, what, want_names):
    """The params of the one `slice` of `f`'s jaxpr on X, its equations being `want_names`."""
    jaxpr = make_jaxpr(f)(X).jaxpr
    names = [e.primitive.name for e in jaxpr.eqns]
    assert names == want_names, (
        f"{what}: the jaxpr should be {want_names}, as JAX's, got {names}: an index known when "
        f"tracing needs no dynamic_slice or gather\n{jaxpr}")
    return jaxpr.eqns[0].params


def check_index_in_dim(nb):
    """1. `index_in_dim`: JAX's values, one static `slice` (and a `squeeze`), negative indices."""
    index_in_dim = nb["index_in_dim"]
    cases = [((1, 0, True), ["slice"], (1, 0, 0), (2, 3, 4)),
             ((-1, 2, True), ["slice"], (0, 0, 3), (2, 3, 4)),
             ((-3, 1, False), ["slice", "squeeze"], (0, 0, 0), (2, 1, 4)),
             ((2, 2, False), ["slice", "squeeze"], (0, 0, 2), (2, 3, 3))]
    for (index, axis, keepdims), names, start, limit in cases:
        what = f"index_in_dim(x, {index}, axis={axis}, keepdims={keepdims}) of an f32[2,3,4]"
        got = np.asarray(index_in_dim(X, index, axis, keepdims))
        want = np.take(X, [index], axis)
        want = want if keepdims else np.squeeze(want, axis)
        assert got.shape == want.shape, \
            f"{what}: the shape should be {want.shape}, got {got.shape}" + (
                "" if keepdims else ": keepdims=False drops the axis")
        assert np.array_equal(got, want), f"{what}: should be {want.tolist()}, got {got.tolist()}"
        params = _one_slice(lambda x: index_in_dim(x, index, axis, keepdims), what, names)
        assert (tuple(params["start_indices"]), tuple(params["limit_indices"])) == (start, limit), \
            f"{what}: the slice should start at {start} and stop at {limit} (a negative index " \
            f"counts from the end), got {params['start_indices']} and {params['limit_indices']}"
        strides = params["strides"] and tuple(params["strides"])
        assert strides == (1, 1, 1), \
            f"{what}: the slice's strides should be (1, 1, 1), as JAX's, got {strides}"
    for index in (3, -4):
        try:
            index_in_dim(X, index, 1)
        except IndexError:
            pass
        else:
            raise AssertionError(f"index_in_dim(x, {index}, axis=1) of an f32[2,3,4] should "
                                 "raise IndexError: the axis has 3 elements")


def check_slice_in_dim(nb):
    """2. `slice_in_dim`: JAX's values and its one `slice`, strides, None and negative bounds."""
    slice_in_dim = nb["slice_in_dim"]
    cases = [((1, 3, 1, 2), (0, 0, 1), (2, 3, 3), (1, 1, 1)),
             ((None, None, 2, 2), (0, 0, 0), (2, 3, 4), (1, 1, 2)),
             ((-2, None, 1, 1), (0, 1, 0), (2, 3, 4), (1, 1, 1)),
             ((0, -1, 2, 2), (0, 0, 0), (2, 3, 3), (1, 1, 2)),
             ((None, 1, 1, 0), (0, 0, 0), (1, 3, 4), (1, 1, 1)),
             ((0, 0, 1, 0), (0, 0, 0), (0, 3, 4), (1, 1, 1))]
    for (start_index, limit_index, stride, axis), start, limit, strides in cases:
        what = (f"slice_in_dim(x, {start_index}, {limit_index}, stride={stride}, axis={axis}) "
                "of an f32[2,3,4]")
        got = np.asarray(slice_in_dim(X, start_index, limit_index, stride, axis))
        index = [slice(None)] * 3
        index[axis] = slice(start_index, limit_index, stride)
        want = X[tuple(index)]
        assert got.shape == want.shape and np.array_equal(got, want), \
            f"{what}: should be {want.tolist()} ({want.shape}), got {got.tolist()} ({got.shape})"
        params = _one_slice(lambda x: slice_in_dim(x, start_index, limit_index, stride, axis),
                            what, ["slice"])
        got_params = tuple(tuple(params[k]) if params[k] is not None else None
                           for k in ("start_indices", "limit_indices", "strides"))
        assert got_params == (start, limit, strides), \
            f"{what}: the slice's start, limit and strides should be {start}, {limit} and " \
            f"{strides}, as JAX's, got {got_params[0]}, {got_params[1]} and {got_params[2]}"
