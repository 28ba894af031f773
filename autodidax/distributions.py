# Generated from chapters/A14_distributions.md by `make export`: edit the chapter, not this file.


"""The distributions of `jax.random` beyond uniform and normal (appendix A14), bit for bit."""
from __future__ import annotations

import math
from functools import partial

import numpy as np

from autodidax import indexing, lax_core as lax
from autodidax.jvp import stop_gradient
from autodidax.indexing_rest import top_k
from autodidax import numpy as jnp
from autodidax.core import (Tracer, canonicalize_dtype, dtype_kind, get_aval,
                            wrap_public_functions)
from autodidax.jit import jit
from autodidax.prng import (KEY_SHAPE, broadcast_to_rank, canonical_shape, check_prng_key,
                              check_shape, float_dtype, random_bits, random_split_p,
                              random_unwrap_p, random_wrap_p, threefry_prng_impl, uniform)
from autodidax.scipy.special import erf_inv, erf_p     # appendix A2's primitives


@partial(jit, static_argnums=(3, 4))
def _truncated_normal(key, lower, upper, shape, dtype):
    if shape is None:
        shape = tuple(np.broadcast_shapes(np.shape(lower), np.shape(upper)))
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


@partial(jit, static_argnums=(1, 2))
def _exponential(key, shape, dtype):
    u = uniform(key, shape, dtype)
    return lax.neg(lax.log1p(lax.neg(u)))        # log of 1 - u, which lies in (0, 1]


def exponential(key, shape=(), dtype=None):
    """Floats with the standard exponential distribution: -log(1 - u)."""
    key, _ = check_prng_key("exponential", key)
    return _exponential(key, canonical_shape(shape), float_dtype("exponential", dtype))


@partial(jit, static_argnums=(1, 2, 3))
def _gumbel(key, shape, dtype, mode):
    if mode == "high":
        return _gumbel_high(key, shape, dtype)
    tiny = np.asarray(np.finfo(dtype).tiny, dtype)
    u = uniform(key, shape, dtype, tiny, np.asarray(1.0, dtype))
    return jnp.negative(jnp.log(jnp.negative(jnp.log(u))))


def gumbel(key, shape=(), dtype=None, mode=None):
    """Floats with the standard Gumbel distribution: -log(-log(u)). Modes "low" (the default)
    and "high"; not JAX's "highest"."""
    key, _ = check_prng_key("gumbel", key)
    dtype = float_dtype("gumbel", dtype)
    mode = "low" if mode is None else mode
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    if mode == "highest":
        raise NotImplementedError("gumbel mode='highest' needs lax.clz, which autodidax lacks")
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
    dtype = get_aval(jnp.asarray(p)).dtype if not isinstance(p, float) else np.dtype(np.float32)
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
        minval = minval.astype(np.int32)
    if dtype_kind(maxval.dtype) not in "iu":
        maxval = maxval.astype(np.int32)
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
    dtype = np.dtype(np.int32) if dtype is None else canonicalize_dtype(dtype)
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
    u2 = jnp.multiply(u2, 2.0 ** -np.finfo(dtype).nmant)
    return jnp.less(u2, jnp.subtract(p, u1))


def _gumbel_high(key, shape, dtype):
    """Gumbel's mode "high": more bits near 0, where -log(-log u) has its long tail."""
    info = np.finfo(dtype)
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


wrap_public_functions(globals(), __name__)   # every public function above: an API boundary
