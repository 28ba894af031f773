# Generated from chapters/A26_special_functions.md by `make export`: edit the chapter, not this file.


"""`jax.scipy.stats.poisson`: the Poisson distribution of mean `mu`."""
import numpy as np

from autodidax import lax_core as lax
from autodidax import numpy as jnp
from autodidax.core import wrap_public_functions
from autodidax.scipy.special import const_like, gammaln, promote_args_inexact, xlogy
from autodidax.special_functions import gammaincc


def logpmf(k, mu, loc=0):
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    x = lax.sub(k, loc)
    log_probs = xlogy(x, mu) - gammaln(x + 1) - mu
    off = jnp.logical_or(lax.lt(x, const_like(k, 0)), lax.ne(jnp.round(k), k))
    return jnp.where(off, -np.inf, log_probs)


def pmf(k, mu, loc=0):
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k, mu, loc=0):
    k, mu, loc = promote_args_inexact("poisson.logpmf", k, mu, loc)
    zero = const_like(k, 0)
    x = lax.sub(k, loc)
    return jnp.where(lax.lt(x, zero), zero, gammaincc(jnp.floor(1 + x), mu))


wrap_public_functions(globals(), __name__)
