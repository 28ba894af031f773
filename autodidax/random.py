"""`jax.random`: keys and the distributions drawn from them, under their public names.

Written by hand, as JAX's `jax/random.py` is: chapter 12's keys, `split`, `uniform` and `normal`
(module `prng`), and appendix A14's other distributions. The package's own modules import those
modules, never this file.
"""
# ruff: noqa: F401

# Chapter 12: keys, splitting, bits, and the two basic distributions.
from autodidax.prng import (
    PRNGKey, bits, fold_in, key, key_data, key_dtype, key_impl, normal, split, uniform,
    wrap_key_data,
)

# Appendix A14: the distributions built on them.
from autodidax.distributions import (
    ball, bernoulli, beta, binomial, categorical, cauchy, chisquare, choice, clone, dirichlet,
    double_sided_maxwell, exponential, f, gamma, generalized_normal, geometric, gumbel, laplace,
    loggamma, logistic, lognormal, maxwell, multinomial, pareto, permutation, poisson,
    rademacher, randint, random_gamma_p, rayleigh, t, triangular, truncated_normal, wald,
    weibull_min,
)

# Appendix A3: the two samplers that need a factorization (Cholesky, SVD, eigh, QR).
from autodidax.numpy.linalg import multivariate_normal, orthogonal
