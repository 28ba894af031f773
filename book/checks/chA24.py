"""Checks of appendix A24's exercises (chapters/A24_numpy_rest.md): each takes the notebook's
namespace."""
import numpy as np

import autodidax as jax
import autodidax.numpy as jnp

def _no_logaddexp2(*args, **kwargs):
    raise AssertionError("the ufunc calls jnp.logaddexp2: write the function of two scalars "
                         "yourself")


def check_logaddexp2_ufunc(nb):
    """1. A `jnp.ufunc` for logaddexp2: stable, with -inf as its identity."""
    saved = jnp.more_functions["logaddexp2"]
    jnp.more_functions["logaddexp2"] = _no_logaddexp2
    try:
        _check_logaddexp2_ufunc(nb)
    finally:
        jnp.more_functions["logaddexp2"] = saved


def _close(got, want):
    got = np.asarray(got)
    return got.dtype == np.float32 and got.shape == np.shape(want) and np.allclose(
        got, want, rtol=1e-6, atol=1e-6)


def _check_logaddexp2_ufunc(nb):
    u = nb["logaddexp2_ufunc"]()
    assert isinstance(u, jnp.ufunc), f"return a jnp.ufunc (from jnp.frompyfunc), not a " \
        f"{type(u).__name__}"
    assert (u.nin, u.nout) == (2, 1), f"a binary ufunc has nin=2, nout=1, got {u.nin}, {u.nout}"
    x = jnp.array([1.0, 0.0, -3.0], jnp.float32)
    y = jnp.array([1.0, 2.0, 5.0], jnp.float32)
    want = np.logaddexp2(np.asarray(x), np.asarray(y))
    got = u(x, y)
    assert _close(got, want), f"u({x.tolist()}, {y.tolist()}) should be {want.tolist()}, got " \
        f"{np.asarray(got).tolist()}"
    got = np.asarray(u(jnp.float32(200.0), jnp.float32(200.0)))
    assert np.isfinite(got) and np.isclose(got, 201.0), \
        f"u(200, 200) should be 201, got {got}: 2**200 overflows float32; take the larger " \
        "input out first"
    got = np.asarray(u(jnp.float32(-np.inf), jnp.float32(-np.inf)))
    assert got == -np.inf, f"u(-inf, -inf) should be -inf, got {got}: -inf - (-inf) is NaN"
    got = u.reduce(jnp.array([-5.0], jnp.float32))
    assert _close(got, -5.0), \
        f"u.reduce([-5]) should be -5, got {np.asarray(got)}: a reduction starts from the " \
        "identity, which must change nothing: log2(2**e + 2**x) = x only for 2**e = 0"
    v = jnp.array([1.0, 2.0, 3.0], jnp.float32)
    got = u.reduce(v)
    assert _close(got, np.log2(14.0)), \
        f"u.reduce([1, 2, 3]) should be log2(2 + 4 + 8) = {np.log2(14.0):.7g}, got {got}"
    try:
        got = u.reduce(jnp.zeros((0,), jnp.float32))
    except ValueError as e:
        raise AssertionError(f"u.reduce of an empty array raised {e}: give the ufunc its "
                             "identity") from None
    assert np.asarray(got) == -np.inf, f"u.reduce of an empty array should be -inf, got {got}"
    got = u.accumulate(jnp.zeros(4, jnp.float32))
    want = np.log2(np.arange(1.0, 5.0))
    assert _close(got, want), f"u.accumulate([0, 0, 0, 0]) should be {want.tolist()}, got " \
        f"{np.asarray(got).tolist()}"


def _refused(*args, **kwargs):
    raise AssertionError("weighted_average calls jnp.average, which is this exercise's answer "
                         "and more: write it with jnp.sum and the other functions")


def check_weighted_average(nb):
    """2. `weighted_average`: weights along `axis`, divided by their sum, in float32."""
    saved = jnp.more_functions["average"]
    jnp.more_functions["average"] = _refused         # found by name, as `jnp.average` is
    try:
        _check_weighted_average(nb)
    finally:
        jnp.more_functions["average"] = saved


def _check_weighted_average(nb):
    weighted_average = nb["weighted_average"]
    rng = np.random.default_rng(0)
    cases = [(rng.standard_normal((3, 4)).astype(np.float32), 0),
             (rng.standard_normal((3, 4)).astype(np.float32), 1),
             (rng.standard_normal((3, 4)).astype(np.float32), -1),
             (rng.standard_normal((2, 5, 3)).astype(np.float32), 1),
             (np.arange(12, dtype=np.int32).reshape(4, 3), 0)]
    for a, axis in cases:
        weights = np.arange(1, a.shape[axis] + 1).astype(a.dtype)
        want = np.average(a.astype(np.float64), axis=axis, weights=weights.astype(np.float64))
        try:
            got = weighted_average(jnp.asarray(a), jnp.asarray(weights), axis)
        except (NotImplementedError, AssertionError):
            raise
        except Exception as e:  # noqa: BLE001
            raise AssertionError(f"for a of shape {a.shape} and axis {axis}, the weights line up "
                                 f"with that axis, but your function raised {e!r}") from None
        assert isinstance(got, jax.Array), f"return a jnp array, not a {type(got).__name__}"
        assert got.dtype == np.float32, f"the result is float32, as JAX's, not {got.dtype}"
        assert np.allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6), (
            f"for a of shape {a.shape} and axis {axis}: expected {want}, got {np.asarray(got)}: "
            "divide by the sum of the weights, and line them up with the axis")
    traced = jax.jit(weighted_average, static_argnums=2)(cases[0][0], np.ones(3, np.float32), 0)
    assert np.allclose(np.asarray(traced), cases[0][0].mean(0), rtol=1e-5), "under jit, too"


def check_unique_sized(nb):
    """3. `unique_sized`: sorted unique values, exactly `size`, padded with `fill_value`."""
    unique_sized = nb["unique_sized"]
    cases = [(np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], np.int32), 9, -1),
             (np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], np.int32), 4, -1),
             (np.array([7, 7, 7], np.int32), 3, 0),
             (np.array([-2, 5, -2, 0], np.int32), 3, 99)]
    for x, size, fill in cases:
        want = np.asarray(jnp.unique(x, size=size, fill_value=fill))
        got = jax.jit(unique_sized, static_argnums=1)(x, size, fill)
        assert isinstance(got, jax.Array), f"return a jnp array, not a {type(got).__name__}"
        assert got.shape == (size,), f"return exactly size={size} values, got shape {got.shape}"
        assert np.array_equal(np.asarray(got), want), (
            f"for x={x.tolist()}, size={size}, fill_value={fill}: expected {want.tolist()}, got "
            f"{np.asarray(got).tolist()}: sort first, and fill the slots past the last unique "
            "value with fill_value")
    text = str(jax.make_jaxpr(unique_sized, static_argnums=1)(cases[0][0], 9, -1))
    assert "_unique_sorted_mask" not in text, "write it without jnp.unique"
