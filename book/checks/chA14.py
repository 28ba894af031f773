"""Checks of appendix A14's exercises (chapters/A14_distributions.md): each takes the notebook's
namespace."""
import numpy as np

import autodidax as jax
from autodidax import lax


def _expected_laplace(key, shape, dtype):
    """JAX's `_laplace`: sign(u) log1p(-|u|) for u uniform in (-1 + epsneg, 1)."""
    u = jax.random.uniform(key, shape, dtype, minval=-1.0 + np.finfo(dtype).epsneg, maxval=1.0)
    return np.asarray(lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u)))))


def check_laplace(nb):
    """1. Laplace, by inversion: `laplace` gives JAX's floats bit for bit, for float32 and
    float16, raw and typed keys, eagerly and under `jit`."""
    laplace = nb["laplace"]
    for key in [jax.random.PRNGKey(0), jax.random.key(7)]:
        for shape, dtype in [((1000,), np.float32), ((4, 5), np.float16)]:
            got, want = np.asarray(laplace(key, shape, dtype)), _expected_laplace(key, shape, dtype)
            assert got.shape == want.shape and got.dtype == want.dtype, \
                f"laplace(key, {shape}, {np.dtype(dtype).name}) should be " \
                f"{want.dtype.name}{list(want.shape)}, got {got.dtype.name}{list(got.shape)}"
            if np.array_equal(got, -want):
                raise AssertionError("laplace has the opposite sign of JAX's: "
                                     "sign(u) log(1 - |u|), a log that is at most 0")
            assert np.array_equal(got, want), \
                f"laplace(key, {shape}, {np.dtype(dtype).name}) differs from JAX's at " \
                f"{int(np.sum(got != want))} of {got.size} places: the uniform draw must lie in " \
                "(-1 + epsneg, 1), and the value is sign(u) log1p(-|u|)"
    key = jax.random.PRNGKey(3)
    jitted = np.asarray(jax.jit(lambda k: laplace(k, (8,)))(key))
    assert np.array_equal(jitted, _expected_laplace(key, (8,), np.float32)), \
        "under jit, laplace should give the same floats"


def check_rademacher(nb):
    """2. Rademacher signs: `rademacher` gives JAX's signs, in the dtype asked for."""
    rademacher = nb["rademacher"]
    for key in [jax.random.PRNGKey(0), jax.random.key(11)]:
        for shape, dtype in [((1000,), np.int32), ((3, 4), np.float32), ((5,), np.int8)]:
            got = np.asarray(rademacher(key, shape, dtype))
            b = np.asarray(jax.random.bernoulli(key, 0.5, shape)).astype(dtype)
            want = (2 * b - 1).astype(dtype)
            assert got.shape == want.shape and got.dtype == want.dtype, \
                f"rademacher(key, {shape}, {np.dtype(dtype).name}) should be " \
                f"{want.dtype.name}{list(want.shape)}, got {got.dtype.name}{list(got.shape)}"
            if np.array_equal(got, -want):
                raise AssertionError("rademacher has the opposite signs of JAX's: True is +1")
            assert set(np.unique(got).tolist()) <= {-1, 1}, \
                f"rademacher should give only -1 and +1, got {sorted(set(got.ravel().tolist()))}"
            assert np.array_equal(got, want), \
                f"rademacher(key, {shape}) differs from JAX's at {int(np.sum(got != want))} of " \
                f"{got.size} places: JAX draws bernoulli(key, 0.5, shape)"
