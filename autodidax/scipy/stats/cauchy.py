# Generated from chapters/A26_special_functions.md by `make export`: edit the chapter, not this file.


"""`jax.scipy.stats.cauchy`: the Cauchy distribution."""
import numpy as np

from autodidax import lax_core as lax
from autodidax.core import wrap_public_functions
from autodidax.scipy.special import const_like, promote_args_inexact


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.logpdf", x, loc, scale)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    normalize_term = lax.log(lax.mul(const_like(x, np.pi), scale))
    return lax.neg(lax.add(normalize_term, lax.log1p(lax.mul(scaled_x, scaled_x))))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.cdf", x, loc, scale)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    slope = lax.div(const_like(x, 1.0), const_like(x, np.pi))
    return lax.add(const_like(x, 0.5), lax.mul(slope, lax.atan(scaled_x)))


def logcdf(x, loc=0, scale=1):
    return lax.log(cdf(x, loc, scale))


def sf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("cauchy.logsf", x, loc, scale)
    return logcdf(-x, -loc, scale)


def isf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("cauchy.isf", q, loc, scale)
    unscaled = lax.tan(lax.sub(const_like(q, np.pi / 2), lax.mul(const_like(q, np.pi), q)))
    return lax.add(lax.mul(unscaled, scale), loc)


def ppf(q, loc=0, scale=1):
    q, loc, scale = promote_args_inexact("cauchy.ppf", q, loc, scale)
    unscaled = lax.tan(lax.sub(lax.mul(const_like(q, np.pi), q), const_like(q, np.pi / 2)))
    return lax.add(lax.mul(unscaled, scale), loc)


wrap_public_functions(globals(), __name__)
