# Generated from chapters/A2_library.md by `make export`: edit the chapter, not this file.


"""`jax.nn`: activation functions and friends, as compositions of primitives."""
from __future__ import annotations

import functools
import operator

import numpy as np

from autodidax import lax_core as lax
from autodidax.jvp import stop_gradient
from autodidax import numpy as jnp
from autodidax.core import Tracer, canonicalize_dtype, wrap_public_functions
from autodidax.jit import jit
from autodidax.scipy.special import erfc_p, logistic, logsumexp, promote_args_inexact

tanh = jnp.tanh


@jit
def relu(x):
    """max(x, 0), with derivative 0 at 0 (as JAX's, which uses custom_jvp)."""
    x = jnp.asarray(x)
    return jnp.where(x > 0, x, stop_gradient(jnp.maximum(x, 0)))


@jit
def relu6(x):
    """min(max(x, 0), 6), with derivative 0 at 0 and 6 (as JAX's)."""
    x = jnp.asarray(x)
    inside = jnp.logical_and(x > 0, x < 6)
    return jnp.where(inside, x, stop_gradient(jnp.minimum(jnp.maximum(x, 0), 6.0)))


def sigmoid(x):
    """1 / (1 + exp(-x)): the `logistic` primitive (JAX inlines this call)."""
    return logistic(x)


@jit
def softplus(x):
    """log(1 + exp(x)), computed without overflow, with derivative sigmoid(x) everywhere."""
    x, = promote_args_inexact("softplus", x)
    high, low = jnp.maximum(x, 0), jnp.minimum(x, 0)
    return high + jnp.log1p(jnp.exp(low - high))


@jit
def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x)."""
    return -softplus(-jnp.asarray(x))


@jit
def silu(x):
    """x * sigmoid(x)."""
    x = jnp.asarray(x)
    return x * sigmoid(x)


swish = silu


@jit
def elu(x, alpha=1.0):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    x = jnp.asarray(x)
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))


@jit
def leaky_relu(x, negative_slope=1e-2):
    """x where x >= 0, else negative_slope * x."""
    x = jnp.asarray(x)
    return jnp.where(x >= 0, x, negative_slope * x)


@jit
def celu(x, alpha=1.0):
    """max(x, 0) + alpha * expm1(min(x, 0) / alpha)."""
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


def gelu(x, approximate=True):
    """x * Phi(x), Phi the standard normal CDF; by default with JAX's tanh approximation."""
    x, = promote_args_inexact("gelu", x)
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(x.dtype)
        cdf = 0.5 * (1.0 + jnp.tanh(sqrt_2_over_pi * (x + 0.044715 * (x ** 3))))
        return x * cdf
    sqrt_half = np.sqrt(0.5).astype(x.dtype)
    return jnp.asarray(0.5 * x * erfc_p.bind(-x * sqrt_half), dtype=x.dtype)


def softmax(x, axis=-1, where=None):
    """exp(x) / sum(exp(x)) along `axis`, computed after subtracting the maximum."""
    x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    unnormalized = jnp.exp(x_safe - stop_gradient(x_max))
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    if where is not None:
        result = jnp.where(where, result, 0)
    return result


@functools.partial(jit, static_argnames=("axis",))
def log_softmax(x, axis=-1, where=None):
    """log(softmax(x)), computed as shifted - log(sum(exp(shifted)))."""
    x = jnp.asarray(x)
    x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    shifted = x_safe - stop_gradient(x_max)
    shifted_logsumexp = jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
    result = shifted - shifted_logsumexp
    if where is not None:
        return jnp.where(where, result, -np.inf)
    return result


@functools.partial(jit, static_argnames=("axis", "algorithm"))
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm="fast"):
    """(x - mean) / sqrt(variance + epsilon), the statistics along `axis` unless given."""
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = jnp.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True,
                                where=where)
        elif algorithm == "fast":
            variance = jnp.mean(jnp.square(x), axis, keepdims=True,
                                where=where) - jnp.square(mean)
            variance = jnp.clip(variance, 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


@functools.partial(jit, static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x, num_classes, *, dtype, axis):
    out_axis = axis + x.ndim + 1 if axis < 0 else axis
    if not 0 <= out_axis <= x.ndim:
        raise ValueError(f"axis {axis} is out of bounds for the result's rank {x.ndim + 1}")
    shape = [1] * x.ndim
    shape.insert(out_axis, num_classes)
    lhs = lax.expand_dims(x, [out_axis])
    classes = lax.broadcasted_iota(x.dtype, shape, out_axis)
    return (lhs == classes).astype(dtype)


def one_hot(x, num_classes, *, dtype=None, axis=-1):
    """`x`'s integers as one-hot vectors of length `num_classes` along `axis` (float32 by
    default); an index outside [0, num_classes) gives a row of zeros."""
    if isinstance(num_classes, Tracer):
        num_classes = int(num_classes)     # a ConcretizationTypeError if its value is unknown
    num_classes = operator.index(num_classes)
    x = jnp.asarray(x)
    dtype = np.dtype("float32") if dtype is None else canonicalize_dtype(dtype)
    return _one_hot(x, num_classes, dtype=dtype, axis=axis)


wrap_public_functions(globals(), __name__)
