# Generated from chapters/A2_library.md by `make export`: edit the chapter, not this file.


"""`jax.scipy.stats.norm`: the normal distribution's density, CDF and quantiles."""
from __future__ import annotations

import numpy as np

from autodidax import lax_core as lax
from autodidax.core import wrap_public_functions
from autodidax.scipy.special import const_like, log_ndtr, ndtr, ndtri, promote_args_inexact


def logpdf(x, loc=0, scale=1):
    """The log of the normal density at x."""
    x, loc, scale = promote_args_inexact("norm.logpdf", x, loc, scale)
    scale_sqrd = lax.square(scale)
    log_normalizer = lax.log(lax.mul(const_like(x, 2 * np.pi), scale_sqrd))
    quadratic = lax.div(lax.square(lax.sub(x, loc)), scale_sqrd)
    return lax.div(lax.add(log_normalizer, quadratic), const_like(x, -2))


def pdf(x, loc=0, scale=1):
    """The normal density at x."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    """The probability of a value at most x."""
    x, loc, scale = promote_args_inexact("norm.cdf", x, loc, scale)
    return ndtr(lax.div(lax.sub(x, loc), scale))


def logcdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("norm.logcdf", x, loc, scale)
    return log_ndtr(lax.div(lax.sub(x, loc), scale))


def ppf(q, loc=0, scale=1):
    """The quantile function: the x at which cdf(x) is q."""
    q, loc, scale = promote_args_inexact("norm.ppf", q, loc, scale)
    return lax.add(lax.mul(ndtri(q), scale), loc)


def sf(x, loc=0, scale=1):
    """The survival function, 1 - cdf(x), computed as cdf(-x) of the standardised value."""
    x, loc, scale = promote_args_inexact("norm.sf", x, loc, scale)
    return cdf(lax.neg(x), lax.neg(loc), scale)


def logsf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("norm.logsf", x, loc, scale)
    return logcdf(lax.neg(x), lax.neg(loc), scale)


def isf(q, loc=0, scale=1):
    """The inverse of the survival function."""
    q, loc, scale = promote_args_inexact("norm.isf", q, loc, scale)
    return ppf(lax.sub(const_like(q, 1), q), loc, scale)


wrap_public_functions(globals(), __name__)
