# Generated from chapters/A26_special_functions.md by `make export`: edit the chapter, not this file.


"""`jax.scipy.stats.laplace`: the Laplace (double exponential) distribution."""
from autodidax import lax_core as lax
from autodidax.core import wrap_public_functions
from autodidax.scipy.special import const_like, promote_args_inexact


def logpdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("laplace.logpdf", x, loc, scale)
    linear_term = lax.div(lax.abs(lax.sub(x, loc)), scale)
    return lax.neg(lax.add(linear_term, lax.log(lax.mul(const_like(x, 2), scale))))


def pdf(x, loc=0, scale=1):
    return lax.exp(logpdf(x, loc, scale))


def cdf(x, loc=0, scale=1):
    x, loc, scale = promote_args_inexact("laplace.cdf", x, loc, scale)
    half, one, zero = const_like(x, 0.5), const_like(x, 1), const_like(x, 0)
    diff = lax.div(lax.sub(x, loc), scale)
    return lax.select(lax.le(diff, zero), lax.mul(half, lax.exp(diff)),
                      lax.sub(one, lax.mul(half, lax.exp(lax.neg(diff)))))


wrap_public_functions(globals(), __name__)
