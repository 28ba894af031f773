"""Checks of appendix A26's exercises (chapters/A26_special_functions.md): each takes the
notebook's namespace."""
import numpy as np
import scipy.stats

import autodidax as jax
import autodidax.numpy as jnp


def check_chi2_cdf(nb):
    """1. `chi2_cdf`: SciPy's values, elementwise over arrays, and the density as its gradient."""
    chi2_cdf = nb["chi2_cdf"]
    x = np.array([0.0, 0.5, 1.0, 3.0, 7.5, 20.0], np.float32)
    for df in (1.0, 2.0, 5.0):
        got = np.asarray(chi2_cdf(jnp.asarray(x), df))
        want = scipy.stats.chi2.cdf(x, df)
        assert got.shape == x.shape, f"chi2_cdf(x, {df}) should have x's shape {x.shape}, got {got.shape}"
        assert np.allclose(got, want, rtol=1e-4, atol=1e-6), \
            f"chi2_cdf(x, df={df}) at x={x} should be {want}, got {got}: the shape is df/2 and " \
            "the scale 2, so the argument of the gamma CDF is x/2"
    dfs = np.array([1.0, 3.0, 4.0, 10.0], np.float32)
    got = np.asarray(chi2_cdf(jnp.full(4, 2.5), jnp.asarray(dfs)))
    assert np.allclose(got, scipy.stats.chi2.cdf(2.5, dfs), rtol=1e-4), \
        f"with an array of degrees of freedom {dfs} the CDFs at 2.5 should be " \
        f"{scipy.stats.chi2.cdf(2.5, dfs)}, got {got}"
    pts = np.array([0.5, 2.0, 6.0], np.float32)
    got = np.asarray(jax.vmap(jax.grad(lambda v: chi2_cdf(v, 3.0)))(jnp.asarray(pts)))
    assert np.allclose(got, scipy.stats.chi2.pdf(pts, 3.0), rtol=1e-3), \
        f"the gradient of chi2_cdf(x, 3) should be the density {scipy.stats.chi2.pdf(pts, 3.0)}, " \
        f"got {got}"


def check_t_cdf(nb):
    """2. `t_cdf`: SciPy's values on both sides of 0, elementwise over arrays."""
    t_cdf = nb["t_cdf"]
    t = np.array([-6.0, -1.5, -0.2, 0.0, 0.2, 1.5, 6.0], np.float32)
    for df in (1.0, 3.0, 12.0):
        got = np.asarray(t_cdf(jnp.asarray(t), df))
        want = scipy.stats.t.cdf(t, df)
        assert got.shape == t.shape, f"t_cdf(t, {df}) should have t's shape {t.shape}, got {got.shape}"
        assert np.allclose(got[:3], want[:3], rtol=1e-4, atol=1e-6), \
            f"t_cdf(t, df={df}) below 0, at {t[:3]}, should be {want[:3]}, got {got[:3]}"
        assert np.allclose(got, want, rtol=1e-4, atol=1e-6), \
            f"t_cdf(t, df={df}) at {t} should be {want}, got {got}: above 0 the CDF is one minus " \
            "the tail, by the symmetry about 0"
    dfs = np.array([1.0, 2.0, 5.0], np.float32)
    got = np.asarray(t_cdf(jnp.asarray([-1.0, 0.5, 2.0]), jnp.asarray(dfs)))
    want = scipy.stats.t.cdf([-1.0, 0.5, 2.0], dfs)
    assert np.allclose(got, want, rtol=1e-4), \
        f"with arrays of t and of df, the CDFs should be {want}, got {got}"
