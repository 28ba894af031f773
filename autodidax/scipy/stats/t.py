# Generated from chapters/A26_special_functions.md by `make export`: edit the chapter, not this file.


"""`jax.scipy.stats.t`: Student's t distribution (its density; JAX has no CDF for it)."""
import numpy as np

from autodidax import lax_core as lax
from autodidax.core import wrap_public_functions
from autodidax.scipy.special import const_like, lgamma, promote_args_inexact


def logpdf(x, df, loc=0, scale=1):
    x, df, loc, scale = promote_args_inexact("t.logpdf", x, df, loc, scale)
    two = const_like(x, 2)
    scaled_x = lax.div(lax.sub(x, loc), scale)
    df_over_two = lax.div(df, two)
    df_plus_one_over_two = lax.add(df_over_two, const_like(x, 0.5))
    normalize_const = lax.mul(lax.mul(scale, scale), const_like(x, np.pi))
    normalize_log = lax.div(lax.log(lax.mul(normalize_const, df)), two)
    normalize_term = lax.sub(lax.add(lgamma(df_over_two), normalize_log),
                             lgamma(df_plus_one_over_two))
    quadratic = lax.div(lax.mul(scaled_x, scaled_x), df)
    return lax.neg(lax.add(normalize_term, lax.mul(df_plus_one_over_two, lax.log1p(quadratic))))


def pdf(x, df, loc=0, scale=1):
    return lax.exp(logpdf(x, df, loc, scale))


wrap_public_functions(globals(), __name__)
