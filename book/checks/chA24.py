"""Checks of appendix A24's exercises (chapters/A24_numpy_rest.md): each takes the notebook's
namespace."""
import numpy as np

import autodidax as jax
import autodidax.numpy as jnp

NAMES = ["fmax", "fabs", "radians", "diff", "copysign", "acos", "append", "concat"]


def _staged(name) -> bool:
    x = np.linspace(0.1, 0.9, 4).astype(np.float32)
    fn = getattr(jnp, name)
    if name == "concat":
        text = str(jax.make_jaxpr(lambda a, b: fn([a, b]))(x, x))
    elif name in ("fmax", "copysign", "append"):
        text = str(jax.make_jaxpr(fn)(x, x))
    else:
        text = str(jax.make_jaxpr(fn)(x))
    return f"name={name}" in text


def check_staged(nb):
    """1. `staged`: which calls a jaxpr shows as one `jit` equation named after the function."""
    said = nb["staged"]()
    assert set(said) == set(NAMES), f"answer for these names: {NAMES}"
    wrong = [f"{name} (you said {said[name]})" for name in NAMES if said[name] != _staged(name)]
    assert not wrong, ("mispredicted: " + ", ".join(wrong) + ". JAX stages a function decorated "
                       "with a plain `@jit`, inlines one with `@jit(inline=True)`, and a plain "
                       "function calls others")


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
