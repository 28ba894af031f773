# Generated from chapters/A26_special_functions.md by `make export`: edit the chapter, not this file.


"""`jax.scipy.stats.chi2`: the chi-squared distribution, a gamma of shape df/2 and scale 2."""
import numpy as np

from autodidax import lax_core as lax
from autodidax import numpy as jnp
from autodidax.core import wrap_public_functions
from autodidax.scipy.special import const_like, lgamma, promote_args_inexact
from autodidax.special_functions import gammainc, gammaincc


def logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote_args_inexact("chi2.logpdf", x, df, loc, scale)
    one, two = const_like(x, 1), const_like(x, 2)
    y = lax.div(lax.sub(x, loc), scale)
    df_on_two = lax.div(df, two)
    kernel = lax.sub(lax.mul(lax.sub(df_on_two, one), lax.log(y)), lax.div(y, two))
    normalizer = lax.neg(lax.add(lgamma(df_on_two), lax.div(lax.mul(lax.log(two), df), two)))
    log_probs = lax.add(lax.sub(normalizer, lax.log(scale)), kernel)
    return jnp.where(lax.lt(x, loc), -np.inf, log_probs)


def pdf(x, df, loc=0, scale=1):
    return lax.exp(logpdf(x, df, loc, scale))


def _halves(name, x, df, loc, scale):
    x, df, loc, scale = promote_args_inexact(name, x, df, loc, scale)
    two = const_like(scale, 2)
    y = lax.clamp(const_like(x, 0), lax.div(lax.sub(x, loc), lax.mul(scale, two)),
                  const_like(x, np.inf))
    return lax.div(df, two), y


def cdf(x, df, loc=0, scale=1):
    return gammainc(*_halves("chi2.cdf", x, df, loc, scale))


def logcdf(x, df, loc=0, scale=1):
    return lax.log(cdf(x, df, loc, scale))


def sf(x, df, loc=0, scale=1):
    return gammaincc(*_halves("chi2.sf", x, df, loc, scale))


def logsf(x, df, loc=0, scale=1):
    return lax.log(sf(x, df, loc, scale))


wrap_public_functions(globals(), __name__)
