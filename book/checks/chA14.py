"""Checks of appendix A14's exercises (chapters/A14_distributions.md): each takes the notebook's
namespace."""
import numpy as np

import autodidax as jax


def _inverse_cdf(u, a, b):
    """The Kumaraswamy inverse cumulative distribution, in float64."""
    return (1 - (1 - u) ** (1 / b)) ** (1 / a)


def check_kumaraswamy(nb):
    """1. A distribution JAX lacks, by inversion: F^-1(u) for u = uniform(key, shape, dtype),
    F(x) = 1 - (1 - x^a)^b, in the dtype asked for, eagerly and under `jit`."""
    kumaraswamy = nb["kumaraswamy"]
    cases = [(jax.random.PRNGKey(0), 2.0, 5.0, (1000,), np.float32),
             (jax.random.key(7), 0.5, 3.0, (4, 5), np.float32),
             (jax.random.PRNGKey(1), 3.0, 0.7, (50,), np.float16)]
    for key, a, b, shape, dtype in cases:
        got = np.asarray(kumaraswamy(key, a, b, shape, dtype))
        u = np.asarray(jax.random.uniform(key, shape, dtype)).astype(np.float64)
        want = _inverse_cdf(u, a, b)
        name = f"kumaraswamy(key, {a}, {b}, {shape}, {np.dtype(dtype).name})"
        assert got.shape == want.shape and got.dtype == np.dtype(dtype), \
            f"{name} should be {np.dtype(dtype).name}{list(want.shape)}, " \
            f"got {got.dtype.name}{list(got.shape)}"
        rtol = 1e-4 if dtype == np.float32 else 1e-2
        close = lambda x: np.allclose(got, x, rtol=rtol, atol=rtol)       # noqa: E731
        if close(want):
            continue
        if close(_inverse_cdf(1 - u, a, b)):
            raise AssertionError(f"{name} is F^-1(1 - u), another draw: use u itself, "
                                 "solving u = 1 - (1 - x^a)^b for x")
        if close(_inverse_cdf(u, b, a)):
            raise AssertionError(f"{name} has a and b swapped: x^a is inside, (...)^b outside")
        if not np.all((got >= 0) & (got <= 1)):
            raise AssertionError(f"{name} gives values outside [0, 1]: F^-1 maps (0, 1) to itself")
        wrong = int(np.sum(~np.isclose(got, want, rtol, rtol)))
        raise AssertionError(f"{name} differs from F^-1(u) at {wrong} of {got.size} places: "
                             "solve u = 1 - (1 - x^a)^b for x")
    key = jax.random.PRNGKey(3)
    jitted = np.asarray(jax.jit(lambda k: kumaraswamy(k, 2.0, 2.0, (8,)))(key))
    u = np.asarray(jax.random.uniform(key, (8,))).astype(np.float64)
    assert np.allclose(jitted, _inverse_cdf(u, 2.0, 2.0), rtol=1e-4), \
        "under jit, kumaraswamy should give the same floats"


def check_weibull_dk(nb):
    """2. An implicit gradient: dx/dk = -(dF/dk) / (dF/dx) for F(x; k) = 1 - exp(-x^k), equal
    draw by draw to the derivative of weibull_min's draws in its concentration k."""
    weibull_dk = nb["weibull_dk"]
    for seed, k in [(0, 2.0), (1, 0.7), (2, 3.5)]:
        key = jax.random.PRNGKey(seed)
        draw = lambda k: jax.random.weibull_min(key, 1.0, k, (200,))     # noqa: E731
        x, dx = jax.jvp(draw, (np.float32(k),), (np.float32(1.0),))
        x, dx = np.asarray(x), np.asarray(dx)
        got = weibull_dk(x, k)
        got = np.asarray(got)
        assert got.shape == x.shape, \
            f"weibull_dk(x, k) should have the shape of x, {list(x.shape)}, got {list(got.shape)}"
        if np.allclose(got, dx, rtol=1e-3, atol=1e-5):
            continue
        if np.allclose(got, -dx, rtol=1e-3, atol=1e-5):
            raise AssertionError("weibull_dk has the opposite sign: dx/dk = -(dF/dk) / (dF/dx)")
        if np.allclose(got / k, dx, rtol=1e-3, atol=1e-5) or \
                np.allclose(got * k, dx, rtol=1e-3, atol=1e-5):
            raise AssertionError(f"weibull_dk is off by a factor of k = {k}: dF/dx is "
                                 "e^(-x^k) k x^(k-1)")
        raise AssertionError(f"weibull_dk(x, {k}) differs from d(weibull_min draw)/dk at "
                             f"{int(np.sum(~np.isclose(got, dx, 1e-3, 1e-5)))} of {x.size} "
                             "draws: differentiate F(x; k) = 1 - exp(-x^k) in k and in x")
    ks = np.array([0.5, 1.0, 2.0, 3.0], np.float32)      # one k per draw
    x, dx = jax.jvp(lambda k: jax.random.weibull_min(jax.random.PRNGKey(5), 1.0, k, (4,)),
                    (ks,), (np.ones(4, np.float32),))
    got = np.asarray(weibull_dk(np.asarray(x), ks))
    assert np.allclose(got, np.asarray(dx), rtol=1e-3, atol=1e-5), \
        f"weibull_dk(x, k) with an array k should work entry by entry: {np.asarray(dx)}, " \
        f"got {got}"
