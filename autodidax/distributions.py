# Generated from chapters/A14_distributions.md by `make export`: edit the chapter, not this file.


"""The distributions of `jax.random` beyond uniform and normal (appendix A14), bit for bit."""
from __future__ import annotations

import math
import operator
from functools import partial

import numpy as np

from autodidax import indexing, lax_core as lax
from autodidax.batching import batching_rules, vmap
from autodidax.control_flow import scan, while_loop
from autodidax.control_flow_reference import map as lax_map
from autodidax.jvp import defjvp2, defjvp_zero, stop_gradient
from autodidax.indexing_rest import top_k
from autodidax import numpy as jnp
from autodidax.core import (Primitive, Tracer, abstract_eval_rules, canonicalize_dtype,
                            dtype_kind, get_aval, impl_rules, wrap_public_functions)
from autodidax.jaxpr import trace_to_jaxpr
from autodidax.jit import jit
from autodidax.lowering import ir_constant, jaxpr_subcomp, lowering_rules
from autodidax.nn import softmax                       # appendix A2's
from autodidax.prng import (KEY_SHAPE, PRNGKeyArray, broadcast_to_rank,
                              canonical_shape, check_prng_key, check_shape, float_dtype, normal,
                              random_bits, random_split_p, random_unwrap_p, random_wrap_p,
                              threefry_prng_impl, uniform)
from autodidax.scipy.special import digamma_p, erf_inv, erf_p, lgamma   # appendix A2's


@partial(jit, static_argnums=(3, 4))
def _truncated_normal(key, lower, upper, shape, dtype):
    if shape is None:
        shape = tuple(jnp.broadcast_shapes(np.shape(lower), np.shape(upper)))
    else:
        check_shape("truncated_normal", shape, np.shape(lower), np.shape(upper))
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    a = erf_p.bind(jnp.divide(lower, sqrt2))
    b = erf_p.bind(jnp.divide(upper, sqrt2))
    u = uniform(key, shape, dtype, a, b)
    out = jnp.multiply(sqrt2, erf_inv(u))
    return jnp.clip(out, _next_toward(stop_gradient(lower), 1),
                    _next_toward(stop_gradient(upper), -1))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Normal floats conditioned on lying in (lower, upper)."""
    key, _ = check_prng_key("truncated_normal", key)
    shape = None if shape is None else canonical_shape(shape)
    return _truncated_normal(key, lower, upper, shape, float_dtype("truncated_normal", dtype))


def _on_uniform(minval):
    """A decorator: the formula `f(u)` becomes the jitted draw `(key, shape, dtype) -> f(u)`,
    `u` uniform in [minval(jnp.finfo(dtype)), 1). The draw keeps the formula's name."""
    def decorate(f):
        def draw(key, shape, dtype):
            return f(uniform(key, shape, dtype, minval(jnp.finfo(dtype)), 1.0))
        draw.__name__ = draw.__qualname__ = f.__name__
        return partial(jit, static_argnums=(1, 2))(draw)
    return decorate


def _standard(name, draw, key, shape, dtype):
    """A draw without parameters, after JAX's checks of the key, the shape and the dtype."""
    key, _ = check_prng_key(name, key)
    return draw(key, canonical_shape(shape), float_dtype(name, dtype))


@_on_uniform(lambda info: 0.0)
def _exponential(u):
    return lax.neg(lax.log1p(lax.neg(u)))        # log of 1 - u, which lies in (0, 1]


def exponential(key, shape=(), dtype=None):
    """Floats with the standard exponential distribution: -log(1 - u)."""
    return _standard("exponential", _exponential, key, shape, dtype)


@partial(jit, static_argnums=(1, 2, 3))
def _gumbel(key, shape, dtype, mode):
    if mode in ("high", "highest"):        # "highest" is "high" but for float32
        return _gumbel_high(key, shape, dtype)
    tiny = np.asarray(jnp.finfo(dtype).tiny, dtype)
    u = uniform(key, shape, dtype, tiny, np.asarray(1.0, dtype))
    return jnp.negative(jnp.log(jnp.negative(jnp.log(u))))


def gumbel(key, shape=(), dtype=None, mode=None):
    """Floats with the standard Gumbel distribution: -log(-log(u)). Modes "low" (the default),
    "high" and "highest", the last not for float32."""
    key, _ = check_prng_key("gumbel", key)
    dtype = float_dtype("gumbel", dtype)
    mode = "low" if mode is None else mode
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    if mode == "highest" and dtype == np.float32:
        raise NotImplementedError("gumbel mode='highest' in float32 needs lax.clz, which "
                                  "appendix A24 builds after this module")
    return _gumbel(key, canonical_shape(shape), dtype, mode)


@partial(jit, static_argnums=(2, 3))
def _bernoulli(key, p, shape, mode):
    if shape is None:
        shape = np.shape(p)
    else:
        check_shape("bernoulli", shape, np.shape(p))
    if mode == "high":
        return _bernoulli_high(key, p, shape)
    return jnp.less(uniform(key, shape, get_aval(p).dtype), p)


def bernoulli(key, p=0.5, shape=None, mode="low"):
    """Booleans that are True with probability `p`."""
    if mode not in ["high", "low"]:
        raise ValueError(f"got {mode=}, expected 'high' or 'low'")
    key, _ = check_prng_key("bernoulli", key)
    dtype = get_aval(jnp.asarray(p)).dtype if not isinstance(p, float) else canonicalize_dtype(
        np.float64)
    if dtype_kind(dtype) != "f":
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    p = lax.convert_element_type(p, dtype)
    return _bernoulli(key, p, None if shape is None else canonical_shape(shape), mode)


def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None):
    """Indices drawn with probabilities softmax(logits) along `axis` (the Gumbel-max trick)."""
    key, _ = check_prng_key("categorical", key)
    logits = jnp.asarray(logits)
    ndim = logits.ndim
    batch_shape = tuple(np.delete(logits.shape, axis))
    if shape is None:
        shape = batch_shape
    else:
        shape = canonical_shape(shape)
        check_shape("categorical", shape, batch_shape)
    if mode not in (None, "low", "high"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    prefix = shape[:len(shape) - len(batch_shape)]
    if not replace:     # the Gumbel-top-k trick: the k largest of logits + noise, in order
        noisy = jnp.add(logits, _gumbel(key, logits.shape, logits.dtype, mode or "low"))
        k = math.prod(prefix)
        if k > logits.shape[axis]:
            raise ValueError(f"Number of samples without replacement ({k}) cannot exceed "
                             f"number of categories ({logits.shape[axis]}).")
        _, indices = top_k(jnp.moveaxis(noisy, axis, -1), k)
        return lax.reshape(indices, shape, (indices.ndim - 1, *range(indices.ndim - 1)))
    if axis >= 0:
        axis -= ndim
    logits_shape = list(shape[len(shape) - len(batch_shape):])
    logits_shape.insert(axis % ndim, logits.shape[axis])
    noise = _gumbel(key, (*prefix, *logits_shape), logits.dtype, mode or "low")
    expanded = lax.expand_dims(logits, tuple(range(len(prefix))))
    return jnp.argmax(jnp.add(noise, expanded), axis=axis)


def _split2(keys):
    """Two keys from one key (of a key type): JAX's `k1, k2 = _split(key)`."""
    pair = random_unwrap_p.bind(random_split_p.bind(keys, shape=(2,)))
    return [random_wrap_p.bind(lax.reshape(lax.slice(pair, (i, 0), (i + 1, 2)), KEY_SHAPE),
                               impl=threefry_prng_impl) for i in range(2)]


@partial(jit, static_argnums=(3, 4))
def _randint(key, minval, maxval, shape, dtype):
    check_shape("randint", shape, np.shape(minval), np.shape(maxval))
    minval, maxval = jnp.asarray(minval), jnp.asarray(maxval)
    if dtype_kind(minval.dtype) not in "iu":
        minval = minval.astype(int)                # the default int: int64 in 64-bit mode
    if dtype_kind(maxval.dtype) not in "iu":
        maxval = maxval.astype(int)
    top = _convert_and_clip_integer(jnp.asarray(np.iinfo(dtype).max, dtype), maxval.dtype)
    maxval_out_of_range = lax.gt(maxval, top)
    minval = broadcast_to_rank(_convert_and_clip_integer(minval, dtype), len(shape))
    maxval = broadcast_to_rank(_convert_and_clip_integer(maxval, dtype), len(shape))
    nbits = np.iinfo(dtype).bits
    unsigned = np.dtype(f"uint{nbits}")
    k1, k2 = _split2(key)
    higher_bits = random_bits(k1, nbits, shape)
    lower_bits = random_bits(k2, nbits, shape)
    span = lax.convert_element_type(jnp.subtract(maxval, minval), unsigned)
    span = jnp.where(jnp.less_equal(maxval, minval), jnp.ones_like(span), span)
    span = jnp.where(maxval_out_of_range & jnp.greater(maxval, minval),
                     jnp.add(span, np.asarray(1, unsigned)), span)
    # 2**nbits mod span, computed without overflow as ((2**(nbits/2) mod span)**2) mod span
    multiplier = lax.rem(jnp.full_like(span, 2 ** (nbits // 2)), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier), lax.rem(lower_bits, span))
    offset = lax.rem(offset, span)
    return jnp.add(minval, lax.convert_element_type(offset, dtype))


def randint(key, shape, minval, maxval, dtype=None):
    """Integers uniformly drawn from [minval, maxval)."""
    key, _ = check_prng_key("randint", key)
    dtype = canonicalize_dtype(np.int64 if dtype is None else dtype)
    if dtype_kind(dtype) not in "iu":
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    info = np.iinfo(dtype)
    sample_dtype = dtype
    if info.bits < 32:       # sample in 32 bits, for less bias
        sample_dtype = np.dtype(np.int32)
        minval = jnp.clip(jnp.asarray(minval).astype(np.int32), int(info.min), int(info.max))
        maxval = jnp.clip(jnp.asarray(maxval).astype(np.int32), int(info.min), int(info.max) + 1)
    out = _randint(key, minval, maxval, canonical_shape(shape), sample_dtype)
    return out if sample_dtype == dtype else lax.convert_element_type(out, dtype)


@partial(jit, static_argnums=(2,))
def _shuffle(key, x, axis):
    # Sort by random 32-bit words; repeat with fresh words so that ties (equal words) become
    # unlikely enough: 3 log(n) / log(2**32 - 1) rounds, JAX's heuristic.
    size = get_aval(x).size
    rounds = int(np.ceil(3 * np.log(max(1, size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        key, subkey = _split2(key)
        sort_keys = random_bits(subkey, 32, get_aval(x).shape)
        _, x = indexing.sort_key_val(sort_keys, x, axis)
    return x


def permutation(key, x, axis=0, independent=False):
    """A random permutation of `range(x)` for an integer `x`, else of `x` along `axis`."""
    key, _ = check_prng_key("permutation", key)
    ndim = np.ndim(x) if not isinstance(x, Tracer) else get_aval(x).ndim
    axis = _canonical_axis(axis, ndim or 1)
    if not ndim:
        if dtype_kind(get_aval(x).dtype) not in "iu":
            raise TypeError("x must be an integer or at least 1-dimensional")
        return _shuffle(key, jnp.arange(int(x)), axis)
    x = jnp.asarray(x)
    if independent or ndim == 1:
        return _shuffle(key, x, axis)
    order = _shuffle(key, jnp.arange(x.shape[axis]), 0)
    return jnp.take(x, order, axis)


def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
    """Draws from `range(a)` for an integer `a`, else from the entries of `a` along `axis`:
    with or without replacement, uniformly or with probabilities `p`."""
    key_checked, _ = check_prng_key("choice", key)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    arr = jnp.asarray(a)
    if arr.ndim == 0:
        n_inputs = int(a)
    else:
        axis = _canonical_axis(axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population "
                         f"(size {n_inputs}) when 'replace=False'")
    if p is None and replace:
        ind = randint(key, shape, 0, n_inputs)
        result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis)
    elif p is None:
        whole = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)
        result = whole[(slice(None),) * axis + (slice(n_draws),)]
    else:
        p_arr = jnp.asarray(p)
        if not jnp.issubdtype(p_arr.dtype, jnp.inexact):
            p_arr = p_arr.astype(jnp.float32)
        if p_arr.shape != (n_inputs,):
            raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                             f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}.")
        if replace:     # invert the cumulative distribution at uniform points
            p_cuml = jnp.cumsum(p_arr)
            r = p_cuml[-1] * (1 - uniform(key, shape, dtype=p_cuml.dtype))
            ind = jnp.searchsorted(p_cuml, r).astype(int)
        else:           # the Gumbel-top-k trick, as in `categorical`
            g = gumbel(key, (n_inputs,), dtype=p_arr.dtype, mode=mode) + jnp.log(p_arr)
            ind = top_k(g, n_draws)[1].astype(int)
        result = ind if arr.ndim == 0 else jnp.take(arr, ind, axis)
    return result.reshape(shape if arr.ndim == 0 else
                          arr.shape[0:axis] + tuple(shape) + arr.shape[axis + 1:])


@_on_uniform(lambda info: info.eps)             # from eps up: never tan(-pi/2)
def _cauchy(u):
    return lax.tan(lax.mul(_const(u, np.pi), lax.sub(u, _const(u, 0.5))))


def cauchy(key, shape=(), dtype=None):
    """Floats with the standard Cauchy distribution: tan(pi (u - 1/2))."""
    return _standard("cauchy", _cauchy, key, shape, dtype)


@_on_uniform(lambda info: -1.0 + info.epsneg)   # in (-1, 1): never log(0)
def _laplace(u):
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def laplace(key, shape=(), dtype=None):
    """Floats with the standard Laplace distribution: sign(u) log(1 - |u|), u in (-1, 1)."""
    return _standard("laplace", _laplace, key, shape, dtype)


@_on_uniform(lambda info: info.tiny)             # from the smallest normal float: never log(0)
def _logistic(u):
    return lax.sub(lax.log(u), lax.log1p(lax.neg(u)))


def logistic(key, shape=(), dtype=None):
    """Floats with the standard logistic distribution: log(u / (1 - u))."""
    return _standard("logistic", _logistic, key, shape, dtype)


def _checked(name, key, shape, dtype, *params):
    """JAX's checks of a draw with parameters: the key, a float dtype, `shape` against the
    parameters' shapes (or theirs broadcast), and parameters that the dtype can hold."""
    key, _ = check_prng_key(name, key)
    dtype = float_dtype(name, dtype)
    shape = _check_broadcast_shapes(name, shape, *params)
    _check_all_safe_to_cast(name, dtype, *params)
    return key, shape, dtype


@partial(jit, static_argnums=(2, 3))
def _pareto(key, b, shape, dtype):
    b = lax.convert_element_type(b, dtype)
    return lax.exp(jnp.divide(_exponential(key, shape, dtype), b))


def pareto(key, b, shape=None, dtype=None):
    """Floats with the Pareto distribution of shape `b`: exp(e / b), e exponential."""
    key, shape, dtype = _checked("pareto", key, shape, dtype, b)
    return _pareto(key, b, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _rayleigh(key, scale, shape, dtype):
    u = uniform(key, shape, dtype)
    scale = jnp.broadcast_to(jnp.asarray(scale).astype(dtype), shape)
    return lax.mul(scale, lax.sqrt(lax.mul(lax.log(u), _const(scale, -2))))


def rayleigh(key, scale, shape=None, dtype=None):
    """Floats with the Rayleigh distribution: scale sqrt(-2 log u)."""
    key, shape, dtype = _checked("rayleigh", key, shape, dtype, scale)
    return _rayleigh(key, scale, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _wald(key, mean, shape, dtype):
    k1, k2 = _split2(key)
    mean = jnp.broadcast_to(jnp.asarray(mean).astype(dtype), shape)
    v = normal(k1, shape, dtype)
    z = uniform(k2, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(4 * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


def wald(key, mean, shape=None, dtype=None):
    """Floats with the Wald (inverse Gaussian) distribution, by Michael, Schucany and Haas's
    transformation of a normal draw, with a uniform to pick one of its two roots."""
    key, shape, dtype = _checked("wald", key, shape, dtype, mean)
    return _wald(key, mean, shape, dtype)


@partial(jit, static_argnums=(4, 5))
def _triangular(key, left, mode, right, shape, dtype):
    left, mode, right = [jnp.broadcast_to(lax.convert_element_type(v, dtype), shape)
                         for v in (left, mode, right)]
    fc = (mode - left) / (right - left)
    u = uniform(key, shape, dtype)
    out1 = left + lax.sqrt(u * (right - left) * (mode - left))
    out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, out1, out2)


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Floats with the triangular distribution on [left, right] peaking at `mode`, by
    inverting its two-piece cumulative distribution."""
    key, shape, dtype = _checked("triangular", key, shape, dtype, left, mode, right)
    return _triangular(key, left, mode, right, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _lognormal(key, sigma, shape, dtype):
    sigma = lax.convert_element_type(sigma, dtype)
    return lax.exp(normal(key, shape, dtype) * sigma)


def lognormal(key, sigma=np.float32(1), shape=None, dtype=None):
    """Floats whose logarithm is normal with standard deviation `sigma`."""
    key, _ = check_prng_key("lognormal", key)
    dtype = canonicalize_dtype(np.float64 if dtype is None else dtype)
    if dtype_kind(dtype) == "c":
        raise ValueError(f"autodidax's lognormal draws real floats only, got {dtype}: "
                         "chapter 12's normal has no complex draws")
    if dtype_kind(dtype) != "f":
        raise ValueError("dtype argument to `lognormal` must be a float or complex dtype, "
                         f"got {dtype}")
    shape = _check_broadcast_shapes("lognormal", shape, sigma)
    _check_all_safe_to_cast("lognormal", dtype, sigma)
    return _lognormal(key, sigma, shape, dtype)


@partial(jit, static_argnums=(1, 2))
def _maxwell(key, shape, dtype):
    x = normal(key, (*shape, 3), dtype)
    return jnp.sqrt(jnp.sum(jnp.multiply(x, x), axis=-1))   # jnp.linalg.norm, which is A3's


def maxwell(key, shape=(), dtype=None):
    """Floats with the Maxwell distribution: the length of a standard normal 3-vector."""
    return _standard("maxwell", _maxwell, key, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _double_sided_maxwell(key, loc, scale, shape, dtype):
    params_shape = tuple(jnp.broadcast_shapes(np.shape(loc), np.shape(scale)))
    shape = (shape or params_shape) + params_shape        # JAX's: the parameters' shape twice
    maxwell_key, rademacher_key = _split2(key)
    maxwell_rvs = _maxwell(maxwell_key, shape, dtype)
    random_sign = _rademacher(rademacher_key, shape, dtype)
    return random_sign * maxwell_rvs * scale + loc


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Floats with the double-sided Maxwell distribution: a Maxwell draw with a random sign,
    scaled and shifted."""
    key, _ = check_prng_key("double_sided_maxwell", key)
    dtype = float_dtype("double_sided_maxwell", dtype)
    return _double_sided_maxwell(key, loc, scale, canonical_shape(shape), dtype)


@partial(jit, static_argnums=(3, 4))
def _weibull_min(key, scale, concentration, shape, dtype):
    u = uniform(key, shape, dtype, 0, 1)
    return jnp.power(-jnp.log1p(-u), 1.0 / concentration) * scale


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Floats with the Weibull distribution, by inverting its cumulative distribution."""
    key, _ = check_prng_key("weibull_min", key)
    dtype = float_dtype("weibull_min", dtype)
    return _weibull_min(key, scale, concentration, canonical_shape(shape), dtype)


@partial(jit, static_argnums=(1, 2))
def _rademacher(key, shape, dtype):
    b = bernoulli(key, 0.5, shape).astype(dtype)
    return (2 * b - 1).astype(dtype)


def rademacher(key, shape=(), dtype=None):
    """-1 or +1, each with probability one half, in `dtype` (int32 by default)."""
    key, _ = check_prng_key("rademacher", key)
    return _rademacher(key, canonical_shape(shape), _int_dtype(dtype))


@partial(jit, static_argnums=(2, 3))
def _geometric(key, p, shape, dtype):
    jnp.check_arraylike("geometric", p)
    p, = _promote_inexact(p)
    u = uniform(key, shape, p.dtype)
    u = jnp.where(u == 0, 1, u)
    log_one_minus_p = jnp.broadcast_to(lax.log1p(-p), shape)
    return (lax.floor(lax.div(lax.log(u), log_one_minus_p)) + 1).astype(dtype)


def geometric(key, p, shape=None, dtype=None):
    """The number of Bernoulli(p) trials up to the first success: 1 + floor(log u / log(1-p))."""
    key, _ = check_prng_key("geometric", key)
    dtype = _int_dtype(dtype)
    if dtype_kind(dtype) not in "iu":
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    shape = _check_broadcast_shapes("geometric", shape, p)
    return _geometric(key, p, shape, dtype)


def _gamma_one(key, alpha, log_space):
    """One Gamma(alpha) draw, by Marsaglia and Tsang's method, from one raw key."""
    zero, one, minus_one = _const(alpha, 0), _const(alpha, 1), _const(alpha, -1)
    one_over_three = _const(alpha, 1.0 / 3.0)
    dtype = get_aval(alpha).dtype
    # For alpha < 1, draw Gamma(alpha + 1) and multiply by u ** (1 / alpha).
    boost_mask = lax.ge(alpha, one)
    alpha_orig = alpha
    alpha = lax.select(boost_mask, alpha, lax.add(alpha, one))
    d = lax.sub(alpha, one_over_three)
    c = lax.div(one_over_three, lax.sqrt(d))

    def cond_fn(kXVU):                # not yet accepted: both squeeze tests fail
        _, X, V, U = kXVU
        return lax.bitwise_and(
            lax.ge(U, lax.sub(one, lax.mul(_const(alpha, 0.0331), lax.mul(X, X)))),
            lax.ge(lax.log(U), lax.add(lax.mul(X, _const(alpha, 0.5)),
                                       lax.mul(d, lax.add(lax.sub(one, V), lax.log(V))))))

    def next_xv(kxv):                 # a normal x with v = (1 + c x)^3 > 0
        key, subkey = _split_n(kxv[0], 2)
        x = normal(subkey, (), dtype=dtype)
        return key, x, lax.add(one, lax.mul(x, c))

    def body_fn(kXVU):
        key, x_key, u_key = _split_n(kXVU[0], 3)
        _, x, v = while_loop(lambda kxv: lax.le(kxv[2], zero), next_xv, (x_key, zero, minus_one))
        return key, lax.mul(x, x), lax.mul(lax.mul(v, v), v), uniform(u_key, (), dtype=dtype)

    key, subkey = _split_n(key, 2)
    _, _, V, _ = while_loop(cond_fn, body_fn, (key, zero, one, _const(alpha, 2)))
    if log_space:
        log_samples = lax.neg(exponential(subkey, (), dtype=dtype))
        log_boost = lax.select(boost_mask | (log_samples == 0), zero,
                               lax.mul(log_samples, lax.div(one, alpha_orig)))
        return lax.add(lax.add(lax.log(d), lax.log(V)), log_boost)
    samples = 1 - uniform(subkey, (), dtype=dtype)
    boost = lax.select(boost_mask, one, lax.pow(samples, lax.div(one, alpha_orig)))
    return lax.mul(lax.mul(d, V), boost)


def _gamma_impl(key, a, *, log_space):
    """Gamma draws of the shape of `a` from keys (of a key type) that prefix that shape: each
    key split into one key per draw, then `_gamma_one` under vmap."""
    a_shape = get_aval(a).shape
    key_shape = get_aval(key).shape[:-1]         # a key array's shape ends with its data
    count = math.prod(a_shape[len(key_shape):])
    keys = jnp.reshape(random_unwrap_p.bind(key), (-1, *KEY_SHAPE))
    keys = vmap(lambda k: random_unwrap_p.bind(random_split_p.bind(
        random_wrap_p.bind(k, impl=threefry_prng_impl), shape=(count,))))(keys)
    keys = random_wrap_p.bind(jnp.reshape(keys, (-1, *KEY_SHAPE)), impl=threefry_prng_impl)
    samples = vmap(partial(_gamma_one, log_space=log_space))(keys, jnp.reshape(a, (-1,)))
    return jnp.reshape(samples, a_shape)


random_gamma_p = Primitive("random_gamma")


def _gamma_batching(vals, dims, *, log_space):
    size = next(get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not None)
    key, a = [_moveaxis_or_broadcast(v, d, size) for v, d in zip(vals, dims)]
    return random_gamma_p.bind(key, a, log_space=log_space), 0


def _moveaxis_or_broadcast(v, d, size):
    if d is None:
        return lax.broadcast_in_dim(v, (size,) + get_aval(v).shape,
                                    tuple(range(1, get_aval(v).ndim + 1)))
    if d == 0:
        return v
    return lax.transpose(v, [d] + [i for i in range(get_aval(v).ndim) if i != d])


def _gamma_lowering(ctx, key, a, *, log_space):
    closed = trace_to_jaxpr(lambda k, x: [_gamma_impl(k, x, log_space=log_space)],
                            ctx.avals_in)
    consts = [ir_constant(c, v.aval.dtype) for c, v in zip(closed.consts,
                                                            closed.jaxpr.constvars)]
    return jaxpr_subcomp(ctx.module_context, closed.jaxpr, consts, [key, a])


impl_rules[random_gamma_p] = lambda key, a, *, log_space: jit(
    partial(_gamma_impl, log_space=log_space))(key, a)
abstract_eval_rules[random_gamma_p] = lambda key, a, *, log_space: a
batching_rules[random_gamma_p] = _gamma_batching
lowering_rules[random_gamma_p] = _gamma_lowering
defjvp2(random_gamma_p, None, lambda t, ans, key, a, *, log_space:
        t * _gamma_grad(ans, a, log_space=log_space))


def _any(predicates):
    return lax.reduce_or(predicates, tuple(range(get_aval(predicates).ndim)))


def _igamma_series_sample_derivative(ax, x, a, enabled, dtype):
    """The series for the regularized incomplete gamma function P(a, x), carrying its
    derivative in `a` (JAX's `_igamma_series` in mode SAMPLE_DERIVATIVE)."""
    eps = jnp.finfo(dtype).eps

    def body_fn(vals):
        enabled, r, c, ans, x, dc_da, dans_da = vals
        r = r + _const(r, 1.0)
        dc_da = dc_da * (x / r) - (c * x) / (r * r)
        dans_da = dans_da + dc_da
        c = c * (x / r)
        ans = ans + c
        conditional = lax.bitwise_and(enabled, lax.abs(dc_da / dans_da) > eps)
        new = (r, c, ans, x, dc_da, dans_da)
        return (conditional, *[lax.select(enabled, n, o) for n, o in zip(new, vals[1:])])

    init = (enabled, a, lax.full_like(a, 1), lax.full_like(a, 1), x, lax.full_like(a, 0),
            lax.full_like(a, 0))
    vals = while_loop(lambda vals: _any(vals[0]), body_fn, init)
    ans, dans_da = vals[3], vals[6]
    dlogax_da = lax.log(x) - digamma_p.bind(a + _const(a, 1))
    return -(dans_da + ans * dlogax_da) * x / a


def _igammac_continued_fraction_sample_derivative(ax, x, a, enabled, dtype):
    """The continued fraction for Q(a, x) = 1 - P(a, x), carrying its derivative in `a`
    (JAX's `_igammac_continued_fraction` in mode SAMPLE_DERIVATIVE)."""
    eps = jnp.finfo(dtype).eps

    def cond_fn(vals):
        return lax.bitwise_and(vals[5] < _const(vals[5], 2000), _any(vals[0]))

    def body_fn(vals):
        (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
         dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
        c = c + _const(c, 1)
        y = y + _const(y, 1)
        z = z + _const(z, 2)
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        qk_is_nonzero = lax.ne(qk, _const(qk, 0))
        r = pk / qk
        t = lax.select(qk_is_nonzero, lax.abs(lax.div(lax.sub(ans, r), r)), lax.full_like(r, 1))
        ans = lax.select(qk_is_nonzero, r, ans)
        dpk_da = dpkm1_da * z - pkm1 - dpkm2_da * yc + pkm2 * c
        dqk_da = dqkm1_da * z - qkm1 - dqkm2_da * yc + qkm2 * c
        dans_da_new = lax.select(qk_is_nonzero, lax.div(dpk_da - ans * dqk_da, qk), dans_da)
        grad_conditional = lax.select(qk_is_nonzero, lax.abs(dans_da_new - dans_da),
                                      lax.full_like(dans_da, 1))
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = dpkm1_da, dqkm1_da, dpk_da, dqk_da
        rescale = lax.gt(lax.abs(pk), lax.reciprocal(_const(pk, eps)))
        pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = [
            lax.select(rescale, lax.mul(v, _const(v, eps)), v)
            for v in (pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da)]
        conditional = lax.bitwise_and(enabled, grad_conditional > _const(grad_conditional, eps))
        keep = lambda new, i: lax.select(enabled, new, vals[i])      # noqa: E731
        return (conditional, keep(ans, 1), keep(t, 2), keep(y, 3), keep(z, 4), c,
                keep(pkm1, 6), keep(qkm1, 7), keep(pkm2, 8), keep(qkm2, 9), keep(dpkm2_da, 10),
                keep(dqkm2_da, 11), keep(dpkm1_da, 12), keep(dqkm1_da, 13),
                keep(dans_da_new, 14))

    y = _const(a, 1) - a
    z = x + y + _const(x, 1)
    pkm1, qkm1 = x + _const(x, 1), z * x
    ans = pkm1 / qkm1
    dqkm1_da = -x
    dans_da = (lax.full_like(x, 0) - ans * dqkm1_da) / qkm1
    init = (enabled, ans, lax.full_like(x, 1), y, z, _const(x, 0), pkm1, qkm1,
            lax.full_like(x, 1), x, lax.full_like(x, 0), lax.full_like(x, 0),
            lax.full_like(x, 0), dqkm1_da, dans_da)
    vals = while_loop(cond_fn, body_fn, init)
    ans, dans_da = vals[1], vals[14]
    dlogax_da = lax.log(x) - digamma_p.bind(a)
    return lax.neg(lax.add(dans_da, lax.mul(ans, dlogax_da)) * x)


def _random_gamma_grad_impl(a, x, *, dtype):
    is_nan = lax.bitwise_or(lax.ne(a, a), lax.ne(x, x))
    x_is_zero = lax.eq(x, lax.full_like(x, 0))
    domain_error = lax.bitwise_or(lax.lt(x, lax.full_like(x, 0)), lax.le(a, lax.full_like(a, 0)))
    use_igammac = lax.bitwise_and(lax.gt(x, lax.full_like(x, 1)), lax.gt(x, a))
    ax = a * lax.log(x) - x - lgamma(a)
    underflow = lax.lt(ax, lax.neg(lax.log(np.asarray(jnp.finfo(dtype).max, get_aval(a).dtype))))
    ax = lax.exp(ax)
    enabled = lax.bitwise_not(lax.bitwise_or(lax.bitwise_or(lax.bitwise_or(
        x_is_zero, domain_error), underflow), is_nan))
    output = lax.select(
        use_igammac,
        -_igammac_continued_fraction_sample_derivative(
            ax, x, a, lax.bitwise_and(enabled, use_igammac), dtype),
        _igamma_series_sample_derivative(
            ax, x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_igammac)), dtype))
    output = lax.select(x_is_zero, lax.full_like(output, 0), output)
    return lax.select(lax.bitwise_or(domain_error, is_nan), lax.full_like(a, float("nan")),
                      output)


def random_gamma_grad(a, x):
    """d sample / d a for a sample `x` of Gamma(a, 1): the derivative of the inverse of the
    regularized incomplete gamma function P(a, .) at fixed probability, -(dP/da) / (dP/dx)."""
    a, x = jnp.asarray(a), jnp.asarray(x)
    shape = tuple(jnp.broadcast_shapes(a.shape, x.shape))
    a, x = [lax.broadcast_in_dim(v, shape, tuple(range(v.ndim))) for v in (a, x)]
    dtype = a.dtype
    if dtype.name in ("float16", "bfloat16"):    # computed in float32
        a, x = lax.convert_element_type(a, np.float32), lax.convert_element_type(x, np.float32)
        return lax.convert_element_type(
            _random_gamma_grad_impl(a, x, dtype=np.dtype(np.float32)), dtype)
    return _random_gamma_grad_impl(a, x, dtype=dtype)


def _gamma_grad(sample, a, *, log_space):
    samples, alphas = jnp.reshape(sample, -1), jnp.reshape(a, -1)
    if log_space:          # d log(sample) = d sample / sample, sample at least the tiny float
        samples = lax.exp(samples)
        tiny = lax.full_like(samples, jnp.finfo(get_aval(samples).dtype).tiny)
        samples = lax.select(lax.eq(samples, lax.full_like(samples, 0)), tiny, samples)
        grad = lambda alpha, s: random_gamma_grad(alpha, s) / s     # noqa: E731
    else:
        grad = random_gamma_grad
    grads = lax_map(lambda args: grad(*args), (alphas, samples))   # JAX's choice on the CPU
    return jnp.reshape(grads, get_aval(a).shape)


@partial(jit, static_argnames=("shape", "dtype", "log_space"))
def _gamma(key, a, shape, dtype, log_space=False):
    if shape is None:
        shape = np.shape(a)
    else:
        check_shape("gamma", shape, np.shape(a))
    a = lax.convert_element_type(a, dtype)
    if np.shape(a) != shape:
        a = jnp.broadcast_to(a, shape)
    return random_gamma_p.bind(key, a, log_space=log_space)


def gamma(key, a, shape=None, dtype=None):
    """Floats with the standard Gamma(a) distribution, density proportional to
    x^(a-1) e^(-x); differentiable in `a`."""
    key, _ = check_prng_key("gamma", key)
    dtype = float_dtype("gamma", dtype)
    return _gamma(key, a, shape=None if shape is None else canonical_shape(shape), dtype=dtype)


def loggamma(key, a, shape=None, dtype=None):
    """The logarithms of Gamma(a) draws, computed in log space: exact where the draw itself
    would underflow to 0 (small `a`)."""
    key, _ = check_prng_key("loggamma", key)
    dtype = float_dtype("gamma", dtype)
    return _gamma(key, a, shape=None if shape is None else canonical_shape(shape), dtype=dtype,
                  log_space=True)


@partial(jit, static_argnums=(3, 4))
def _beta(key, a, b, shape, dtype):
    if shape is None:
        shape = tuple(jnp.broadcast_shapes(np.shape(a), np.shape(b)))
    else:
        check_shape("beta", shape, np.shape(a), np.shape(b))
    a, b = lax.convert_element_type(a, dtype), lax.convert_element_type(b, dtype)
    key_a, key_b = _split2(key)
    log_gamma_a = loggamma(key_a, jnp.broadcast_to(a, shape), shape, dtype)
    log_gamma_b = loggamma(key_b, jnp.broadcast_to(b, shape), shape, dtype)
    log_max = lax.max(log_gamma_a, log_gamma_b)      # the ratio of the two gammas, in log space
    gamma_a_scaled = jnp.exp(log_gamma_a - log_max)
    gamma_b_scaled = jnp.exp(log_gamma_b - log_max)
    return gamma_a_scaled / (gamma_a_scaled + gamma_b_scaled)


def beta(key, a, b, shape=None, dtype=None):
    """Floats with the Beta(a, b) distribution: Ga / (Ga + Gb) for two Gamma draws."""
    key, _ = check_prng_key("beta", key)
    dtype = float_dtype("beta", dtype)
    _check_all_safe_to_cast("beta", dtype, a, b)
    shape = _check_broadcast_shapes("beta", shape, a, b)
    return _beta(key, a, b, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _dirichlet(key, alpha, shape, dtype):
    if not np.ndim(alpha) >= 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == "
                         f"{np.ndim(alpha)}")
    if shape is None:
        shape = np.shape(alpha)[:-1]
    else:
        check_shape("dirichlet", shape, np.shape(alpha)[:-1])
    alpha = lax.convert_element_type(alpha, dtype)
    log_gamma_samples = loggamma(key, alpha, shape + np.shape(alpha)[-1:], dtype)
    return softmax(log_gamma_samples, -1)     # Gamma draws divided by their sum


def dirichlet(key, alpha, shape=None, dtype=None):
    """Points of the probability simplex with the Dirichlet(alpha) distribution: independent
    Gamma(alpha_i) draws, normalized."""
    key, _ = check_prng_key("dirichlet", key)
    dtype = float_dtype("dirichlet", dtype)
    return _dirichlet(key, alpha, None if shape is None else canonical_shape(shape), dtype)


@partial(jit, static_argnums=(2, 3))
def _t(key, df, shape, dtype):
    if shape is None:
        shape = np.shape(df)
    else:
        check_shape("t", shape, np.shape(df))
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = _split2(key)
    n = normal(key_n, shape, dtype)
    half_df = lax.div(df, _const(n, 2))
    g = gamma(key_g, half_df, shape, dtype)
    return n * jnp.sqrt(half_df / g)


def t(key, df, shape=None, dtype=None):
    """Floats with Student's t distribution: a normal over the root of a Gamma draw."""
    key, shape, dtype = _checked("t", key, shape, dtype, df)
    return _t(key, df, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _chisquare(key, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    two = _const(df, 2)
    log_g = loggamma(key, lax.div(df, two), shape, dtype)
    return lax.mul(jnp.exp(log_g), two)


def chisquare(key, df, shape=None, dtype=None):
    """Floats with the chi-squared distribution: twice a Gamma(df / 2) draw."""
    key, shape, dtype = _checked("chisquare", key, shape, dtype, df)
    return _chisquare(key, df, shape, dtype)


@partial(jit, static_argnums=(3, 4))
def _f(key, dfnum, dfden, shape, dtype):
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = _split2(key)
    chi2_dfn = chisquare(key_dfn, dfnum, shape, dtype)
    chi2_dfd = chisquare(key_dfd, dfden, shape, dtype)
    return lax.div(lax.div(chi2_dfn, dfnum), lax.div(chi2_dfd, dfden))


def f(key, dfnum, dfden, shape=None, dtype=None):
    """Floats with the F distribution: the ratio of two chi-squared draws, each over its
    degrees of freedom."""
    key, shape, dtype = _checked("f", key, shape, dtype, dfnum, dfden)
    return _f(key, dfnum, dfden, shape, dtype)


@partial(jit, static_argnums=(2, 3))
def _generalized_normal(key, p, shape, dtype):
    k0, k1 = _split2(key)
    g = gamma(k0, 1 / p, shape, dtype)
    r = rademacher(k1, shape, dtype)
    return r * g ** (1 / p)


def generalized_normal(key, p, shape=(), dtype=None):
    """Floats with density proportional to exp(-|x|^p): a Gamma(1/p) draw to the power 1/p,
    with a random sign."""
    shape = canonical_shape(shape)
    key, _ = check_prng_key("generalized_normal", key)
    dtype = canonicalize_dtype(np.float64 if dtype is None else dtype)
    return _generalized_normal(key, p, shape, dtype)


@partial(jit, static_argnums=(2, 3, 4))
def _ball(key, p, d, shape, dtype):
    k1, k2 = _split2(key)
    g = generalized_normal(k1, p, (*shape, d), dtype)
    e = exponential(k2, shape, dtype)
    return g / (((jnp.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


def ball(key, d, p=2, shape=(), dtype=None):
    """Points uniformly distributed in the unit p-norm ball of dimension `d`."""
    shape = canonical_shape(shape)
    key, _ = check_prng_key("ball", key)
    dtype = canonicalize_dtype(np.float64 if dtype is None else dtype)
    d = operator.index(d)
    return _ball(key, p, d, shape, dtype)


@partial(jit, static_argnums=(2, 3, 4))
def _poisson_knuth(key, lam, shape, dtype, max_iters):
    """Knuth's method, for small rates: count uniforms until their product falls below
    exp(-lam), all draws of the array in one loop, until none is still counting."""
    def body_fn(carry):
        i, k, rng, log_prod = carry
        rng, subkey = _split2(rng)
        k = lax.select(log_prod > -lam, k + 1, k)
        u = uniform(subkey, shape, np.float32)
        return i + 1, k, rng, log_prod + jnp.log(u)

    def cond_fn(carry):
        i, log_prod = carry[0], carry[3]
        return jnp.any(log_prod > -lam) & (i < max_iters)

    k_init = lax.full_like(lam, 0, dtype, shape)
    log_rate_init = lax.full_like(lam, 0, np.float32, shape)
    k = while_loop(cond_fn, body_fn, (0, k_init, key, log_rate_init))[1]
    return (k - 1).astype(dtype)


@partial(jit, static_argnums=(2, 3, 4))
def _poisson_rejection(key, lam, shape, dtype, max_iters):
    """Hormann's transformed rejection, for large rates: propose from a transformed uniform,
    accept or draw again, all draws of the array in one loop."""
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body_fn(carry):
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = _split_n(key, 3)
        u = uniform(subkey_0, shape, lam.dtype) - 0.5
        v = uniform(subkey_1, shape, lam.dtype)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = accept1 | (~reject & (s <= t))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, key

    def cond_fn(carry):
        i, _, accepted, _ = carry
        return jnp.any(~accepted) & (i < max_iters)

    k_init = lax.full_like(lam, -1, lam.dtype, shape)
    accepted = lax.full_like(lam, False, np.dtype("bool"), shape)
    k = while_loop(cond_fn, body_fn, (0, k_init, accepted, key))[1]
    return k.astype(dtype)


@partial(jit, static_argnums=(2, 3))
def _poisson(key, lam, shape, dtype):
    use_knuth = lax.ne(lam, lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, lax.full_like(lam, 0.0))
    lam_rejection = lax.select(use_knuth, lax.full_like(lam, 1e5), lam)
    max_iters = dtype.type(np.iinfo(dtype).max)       # no limit, in effect
    result = lax.select(use_knuth, _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
                        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters))
    return lax.select(lam == 0, jnp.zeros_like(result), result)


def poisson(key, lam, shape=None, dtype=None):
    """Integers with the Poisson(lam) distribution: Knuth's method below rate 10, transformed
    rejection above, both as loops over the whole array."""
    key, _ = check_prng_key("poisson", key)
    dtype = _int_dtype(dtype)
    shape = np.shape(lam) if shape is None else canonical_shape(shape)
    lam = lax.convert_element_type(jnp.broadcast_to(lam, shape), np.float32)
    return _poisson(key, lam, shape, dtype)


def _stirling_approx_tail(k):
    """log k! minus Stirling's approximation of it: a table for k <= 9, a series above."""
    tail_values = jnp.array([
        0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
        0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
        0.00925546218271273, 0.00833056343336287], dtype=k.dtype)
    use_tail_values = k <= 9
    k = lax.clamp(_const(k, 0.0), k, _const(k, 9.0))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    k = jnp.floor(k)
    return lax.select(use_tail_values, tail_values[jnp.asarray(k, dtype="int32")], approx)


@partial(jit, static_argnums=(3, 4, 5))
def _binomial_inversion(key, count, prob, shape, dtype, max_iters):
    """For small count * prob: add up geometric waiting times until they pass `count`."""
    log1minusprob = jnp.log1p(-prob)

    def body_fn(carry):
        i, num_geom, geom_sum, key = carry
        subkey, key = _split2(key)
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = uniform(subkey, shape, prob.dtype)
        geom = jnp.ceil(jnp.log(u) / log1minusprob)
        return i + 1, num_geom_out, geom_sum + geom, key

    def cond_fn(carry):
        i, geom_sum = carry[0], carry[2]
        return jnp.any(geom_sum <= count) & (i < max_iters)

    num_geom_init = lax.full_like(prob, 0, prob.dtype, shape)
    geom_sum_init = lax.full_like(prob, 0, prob.dtype, shape)
    k = while_loop(cond_fn, body_fn, (0, num_geom_init, geom_sum_init, key))[1]
    return (k - 1).astype(dtype)


@partial(jit, static_argnums=(3, 4, 5))
def _btrs(key, count, prob, shape, dtype, max_iters):
    """For large count * prob: Hormann's transformed rejection with squeeze (BTRS)."""
    stddev = jnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp.floor((count + 1) * prob)

    def body_fn(carry):
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = _split_n(key, 3)
        u = uniform(subkey_0, shape, prob.dtype)
        v = uniform(subkey_1, shape, prob.dtype)
        u = u - 0.5
        us = 0.5 - jnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = jnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = jnp.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * jnp.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * jnp.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * jnp.log(r * (count - k + 1) / (k + 1))
              + _stirling_approx_tail(m) + _stirling_approx_tail(count - m)
              - _stirling_approx_tail(k) - _stirling_approx_tail(count - k))
        accept = accept1 | (~reject & (v <= ub))
        return i + 1, lax.select(accept, k, k_out), accepted | accept, key

    def cond_fn(carry):
        i, accepted = carry[0], carry[2]
        return jnp.any(~accepted) & (i < max_iters)

    k_init = lax.full_like(prob, -1, prob.dtype, shape)
    carry = (0, k_init, jnp.full(shape, False, bool), key)
    return while_loop(cond_fn, body_fn, carry)[1].astype(dtype)


@partial(jit, static_argnums=(3, 4))
def _binomial(key, count, prob, shape, dtype):
    if shape is None:
        shape = tuple(jnp.broadcast_shapes(np.shape(count), np.shape(prob)))
    else:
        check_shape("binomial", shape, np.shape(count), np.shape(prob))
    prob, = _promote_inexact(prob)
    count = jnp.broadcast_to(lax.convert_element_type(count, prob.dtype), shape)
    prob = jnp.broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)        # draw with q <= 1/2, then mirror
    count_nan_or_neg = lax.ne(count, count) | (count < 0.0)
    count_inf = jnp.isinf(count)
    q_is_nan = lax.ne(q, q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, lax.full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = jnp.floor(count)
    count_inv = lax.select(use_inversion, count, lax.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, lax.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, lax.full_like(q, 0.5), q)
    max_iters = dtype.type(jnp.finfo(dtype).max)
    samples = lax.select(use_inversion,
                         _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
                         _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters))
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, jnp.full_like(samples, np.nan, dtype), samples)
    samples = lax.select(count_inf & (~invalid), jnp.full_like(samples, np.inf, dtype), samples)
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                      count.astype(dtype) - samples)


def binomial(key, n, p, shape=None, dtype=None):
    """Floats with the Binomial(n, p) distribution: the number of successes in `n` trials."""
    key, _ = check_prng_key("binomial", key)
    jnp.check_arraylike("binomial", n, p)
    dtype = float_dtype("binomial", dtype)
    return _binomial(key, n, p, None if shape is None else canonical_shape(shape), dtype)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Counts of `n` draws among the categories of probabilities `p` (last axis): one binomial
    per category, of the draws left, at the probability left, in a scan."""
    key, _ = check_prng_key("multinomial", key)
    jnp.check_arraylike("multinomial", n, p)
    n, p = _promote_inexact(n, p)
    dtype = canonicalize_dtype(np.float64 if dtype is None else dtype)
    if shape is None:
        shape = p.shape
    n = jnp.broadcast_to(n, shape[:-1])
    p = jnp.moveaxis(jnp.broadcast_to(p, shape), -1, 0)

    def step(remainder, ratio_key):
        ratio, key = ratio_key
        count = binomial(key, remainder, ratio.clip(0, 1), dtype=remainder.dtype)
        return remainder - count, count

    remaining_probs = lax.cumsum(p, 0, reverse=True)
    ratios = p / jnp.where(remaining_probs == 0, 1, remaining_probs)
    keys = random_unwrap_p.bind(random_split_p.bind(key, shape=(ratios.shape[0],)))
    _, counts = scan(step, n, (ratios, keys), unroll=unroll)
    return jnp.moveaxis(counts, 0, -1).astype(dtype)


random_clone_p = Primitive("random_clone")
impl_rules[random_clone_p] = lambda x: x
abstract_eval_rules[random_clone_p] = lambda x: x
batching_rules[random_clone_p] = lambda vals, dims: (random_clone_p.bind(*vals), dims[0])
lowering_rules[random_clone_p] = lambda ctx, k: [k]
defjvp_zero(random_clone_p)


def clone(key):
    """The same key, as a new value: an identity, but to JAX's checker of key reuse."""
    if isinstance(key, PRNGKeyArray):
        return PRNGKeyArray(random_clone_p.bind(key._base))
    return random_clone_p.bind(key)


def _next_toward(x, direction):
    """The float next to `x` toward +inf (direction 1) or -inf (-1): one step of its bits."""
    dtype = get_aval(x).dtype
    ints = lax.bitcast_convert_type(x, f"int{dtype.itemsize * 8}")
    step = jnp.where(jnp.equal(jnp.greater(x, 0), direction > 0), 1, -1).astype(ints.dtype)
    tiny = jnp.asarray(direction, ints.dtype)             # the smallest float of that sign
    tiny = lax.bitcast_convert_type(jnp.where(direction > 0, tiny, jnp.asarray(
        np.asarray(np.nextafter(dtype.type(0), dtype.type(-1))).view(ints.dtype))), dtype)
    moved = lax.bitcast_convert_type(lax.add(ints, step), dtype)
    out = jnp.where(jnp.equal(x, 0), tiny, moved)
    return jnp.where(jnp.isinf(x) & (jnp.greater(x, 0) == (direction > 0)), x, out)


def _pair(u):
    """The two halves of an array of shape (2, ...)."""
    rest = get_aval(u).shape[1:]
    return [lax.reshape(lax.slice(u, (i,) + (0,) * len(rest), (i + 1,) + rest), rest)
            for i in range(2)]


def _bernoulli_high(key, p, shape):
    """Bernoulli's mode "high": a second uniform refines the first below its resolution."""
    dtype = get_aval(p).dtype
    u1, u2 = _pair(uniform(key, (2, *shape), dtype))
    u2 = jnp.multiply(u2, 2.0 ** -jnp.finfo(dtype).nmant)
    return jnp.less(u2, jnp.subtract(p, u1))


def _gumbel_high(key, shape, dtype):
    """Gumbel's mode "high": more bits near 0, where -log(-log u) has its long tail."""
    info = jnp.finfo(dtype)
    high, low = _pair(uniform(key, (2,) + shape, dtype))
    x = jnp.where(jnp.greater_equal(high, 0.5), high,
                  jnp.add(jnp.add(high, jnp.multiply(2.0 ** -info.nmant, low)), info.tiny))
    return jnp.negative(jnp.log(jnp.negative(jnp.log1p(jnp.negative(x)))))


def _convert_and_clip_integer(val, dtype):
    vinfo, info = np.iinfo(get_aval(val).dtype), np.iinfo(dtype)
    vdtype = get_aval(val).dtype
    lo = np.asarray(max(info.min, vinfo.min), vdtype)
    hi = np.asarray(min(info.max, vinfo.max), vdtype)
    return lax.convert_element_type(jnp.clip(val, lo, hi), dtype)


def _canonical_axis(axis, ndim):
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim



def _check_broadcast_shapes(name, shape, *args):
    """The shape of a draw: `shape`, checked against the parameters, or theirs broadcast."""
    arg_shapes = [np.shape(a) for a in args]
    if shape is None:
        return tuple(jnp.broadcast_shapes(*arg_shapes)) if arg_shapes else ()
    shape = canonical_shape(shape)
    check_shape(name, shape, *arg_shapes)
    return shape


def _check_all_safe_to_cast(name, dtype, *args):
    """JAX's error for a parameter that the draw's dtype cannot hold (float32 for float16)."""
    for arg in args:
        arg_dtype = jnp.result_type(arg)
        if arg_dtype != dtype and jnp.result_type(arg, dtype) != dtype:
            raise jnp.TypePromotionError(f"In arguments to {name}, cannot safely cast argument "
                                         f"of type {jnp.asarray(arg).dtype} to {dtype}")


def _promote_inexact(*args):
    """The arguments as arrays of their common inexact dtype (JAX's `promote_dtypes_inexact`):
    integers become floats, and Python scalars stay weakly typed."""
    arrays = [jnp.asarray(a) for a in args]
    dtype = jnp.result_type(*arrays)
    if dtype_kind(dtype) not in "fc":
        dtype = canonicalize_dtype(np.float64)
    weak = all(get_aval(a).weak_type for a in arrays)
    return [lax.convert_element_type(a, dtype, weak) for a in arrays]


def _int_dtype(dtype):
    return canonicalize_dtype(np.int64 if dtype is None else dtype)


def _split_n(keys, n):
    """`n` keys (of a key type) from one: JAX's `_split(key, n)` unpacked."""
    rows = random_unwrap_p.bind(random_split_p.bind(keys, shape=(n,)))
    return [random_wrap_p.bind(lax.reshape(lax.slice(rows, (i, 0), (i + 1, 2)), KEY_SHAPE),
                               impl=threefry_prng_impl) for i in range(n)]


def _const(x, value):
    return np.asarray(value, get_aval(x).dtype)

wrap_public_functions(globals(), __name__)   # every public function above: an API boundary
