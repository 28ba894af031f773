# Generated from chapters/A2_library.md by `make export`: edit the chapter, not this file.


"""`jax.nn`: activation functions and friends, as compositions of primitives."""
from __future__ import annotations

import dataclasses
import functools
import operator
from typing import Any

import ml_dtypes
import numpy as np

from autodidax import lax_core as lax
from autodidax.jvp import stop_gradient
from autodidax import numpy as jnp
from autodidax.batching import vmap
from autodidax.core import Tracer, canonicalize_dtype, wrap_public_functions
from autodidax.jit import jit
from autodidax.scipy.special import erfc_p, logistic, logsumexp, promote_args_inexact

tanh = jnp.tanh


def _arraylike(name, x):
    """`x` as an array; a list or tuple is refused, as JAX's `ensure_arraylike` refuses it."""
    jnp.check_arraylike(name, x)
    return jnp.asarray(x)


@jit
def relu(x):
    """max(x, 0), with derivative 0 at 0 (as JAX's, which uses custom_jvp)."""
    x = _arraylike("maximum", x)
    return jnp.where(x > 0, x, stop_gradient(jnp.maximum(x, 0)))


@jit
def relu6(x):
    """min(max(x, 0), 6), with derivative 0 at 0 and 6 (as JAX's)."""
    x = _arraylike("maximum", x)
    inside = jnp.logical_and(x > 0, x < 6)
    return jnp.where(inside, x, stop_gradient(jnp.minimum(jnp.maximum(x, 0), 6.0)))


def sigmoid(x):
    """1 / (1 + exp(-x)): the `logistic` primitive (JAX inlines this call)."""
    return logistic(x)


@jit
def softplus(x):
    """log(1 + exp(x)) as JAX computes it, `logaddexp(x, 0)` (appendix A24 builds it)."""
    x, = promote_args_inexact("softplus", x)
    return jnp.logaddexp(x, 0)


@jit
def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x)."""
    return -softplus(-_arraylike("log_sigmoid", x))


@jit
def silu(x):
    """x * sigmoid(x)."""
    x = _arraylike("silu", x)
    return x * sigmoid(x)


swish = silu


@jit
def elu(x, alpha=1.0):
    """x where x > 0, else alpha * (exp(x) - 1)."""
    x = _arraylike("elu", x)
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))


@jit
def leaky_relu(x, negative_slope=1e-2):
    """x where x >= 0, else negative_slope * x."""
    x = _arraylike("leaky_relu", x)
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
    x = _arraylike("log_softmax", x)
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


@jit
def identity(x):
    """x itself, as an array."""
    return _arraylike("identity", x)


@jit
def hard_tanh(x):
    """x clipped to [-1, 1]."""
    x = _arraylike("hard_tanh", x)
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@jit
def hard_sigmoid(x):
    """relu6(x + 3) / 6."""
    return relu6(x + 3.0) / 6.0


@jit
def hard_silu(x):
    """x * hard_sigmoid(x)."""
    x = _arraylike("hard_silu", x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@jit
def selu(x):
    """scale * elu(x, alpha), with the constants that keep activations standardised."""
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    return scale * elu(x, alpha)


@jit
def mish(x):
    """x * tanh(softplus(x))."""
    x = _arraylike("mish", x)
    return x * jnp.tanh(softplus(x))


@jit
def soft_sign(x):
    """x / (|x| + 1)."""
    x = _arraylike("soft_sign", x)
    return x / (jnp.abs(x) + 1)


@jit
def squareplus(x, b=4):
    """(x + sqrt(x**2 + b)) / 2, a smooth relu."""
    jnp.check_arraylike("squareplus", x, b)
    x, b = jnp.asarray(x), jnp.asarray(b)
    return (x + jnp.sqrt(jnp.square(x) + b)) / 2


@jit
def sparse_plus(x):
    """0 below -1, x above 1, (x + 1)**2 / 4 between."""
    x = _arraylike("sparse_plus", x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@jit
def sparse_sigmoid(x):
    """The derivative of sparse_plus: clip(x + 1, 0, 2) / 2."""
    return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


@functools.partial(jit, static_argnames=("axis",))
def glu(x, axis=-1):
    """The first half of x along `axis`, gated by the sigmoid of the second half."""
    x = _arraylike("glu", x)
    assert x.shape[axis] % 2 == 0, "axis size must be divisible by 2"
    x1, x2 = jnp.split(x, 2, axis)
    return x1 * sigmoid(x2)


@functools.partial(jit, static_argnames=("axis", "keepdims"))
def logmeanexp(x, axis=None, where=None, keepdims=False):
    """log(mean(exp(x))) along `axis`: logsumexp less the log of the number of terms."""
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    if where is None:
        shape = np.shape(x)
        axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
        count = lax.convert_element_type(int(np.prod([shape[a] for a in axes])), lse.dtype)
    else:
        count = jnp.sum(jnp.broadcast_to(where, np.shape(x)), axis, dtype=lse.dtype,
                        keepdims=keepdims)
    return lse - jnp.log(count)


def _large_negative(dtype):
    return jnp.asarray(-0.7 * min(jnp.finfo(dtype).max, jnp.finfo(np.float32).max), dtype)


def _attention_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, window):
    """The logits with every position that a mask hides set to a large negative number."""
    if (mask is None and not is_causal and q_seqlen is None and kv_seqlen is None
            and window is None):
        return logits
    keep = jnp.ones_like(logits, dtype=bool)
    if mask is not None:
        keep = jnp.logical_and(keep, mask)
    T, S = logits.shape[2], logits.shape[3]
    if is_causal:
        keep = jnp.logical_and(keep, jnp.tril(jnp.ones((T, S), dtype=bool))[None, None])
    if window is not None:
        q_pos, k_pos = jnp.array(range(T)), jnp.array(range(S))
        left = q_pos[..., None] <= k_pos[..., None, :] + window[0]
        right = q_pos[..., None] >= k_pos[..., None, :] - window[1]
        keep = jnp.logical_and(keep, jnp.logical_and(right, left)[None, None])
    if q_seqlen is not None or kv_seqlen is not None:
        q_keep = kv_keep = True
        if q_seqlen is not None:
            q_keep = jnp.arange(0, T)[None, :, None] < q_seqlen[:, None, None]
        if kv_seqlen is not None:
            kv_keep = jnp.arange(0, S)[None, None, :] < kv_seqlen[:, None, None]
        keep = jnp.logical_and(keep, jnp.logical_and(q_keep, kv_keep)[:, None])
    return jnp.where(keep, logits, _large_negative(logits.dtype))


def _attention_one_group(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                         window, return_residual):
    logits = jnp.einsum("BTNH,BSNH->BNTS", query, key,
                        preferred_element_type=jnp.promote_types(query.dtype, np.float32))
    logits *= jnp.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + bias).astype(logits.dtype)
    logits = _attention_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, window)
    logits = logits.astype(np.float32)
    probs = softmax(logits, axis=-1).astype(key.dtype)
    encoded = jnp.einsum("BNTS,BSNH->BTNH", probs, value)
    if q_seqlen is not None:
        q_keep = jnp.arange(0, encoded.shape[1])[None, :] < q_seqlen[:, None]
        encoded *= q_keep[:, :, None, None].astype(encoded.dtype)
    if return_residual:
        lse = logsumexp(logits, axis=-1).astype(key.dtype)
        return encoded, stop_gradient(jnp.transpose(lse, (0, 2, 1)))
    return encoded


def _attention_xla(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                   window, return_residual):
    B, T, N, H = query.shape
    K = key.shape[2]
    G = N // K
    query = jnp.reshape(query, (B, T, K, G, H))

    def grouped(t):                              # [B, N, T, S] -> [B, K, G, T, S]
        if t is None:
            return t
        if t.shape[1] == 1:
            return jnp.broadcast_to(t[:, :, None], (t.shape[0], 1, G) + t.shape[2:])
        return jnp.reshape(t, (t.shape[0], K, G) + t.shape[2:])
    out = vmap(_attention_one_group, in_axes=(3, None, None, 2, 2) + (None,) * 6,
               out_axes=3)(query, key, value, grouped(bias), grouped(mask), is_causal, scale,
                           q_seqlen, kv_seqlen, window, return_residual)
    if return_residual:
        return jnp.reshape(out[0], (B, T, N, H)), jnp.reshape(out[1], (B, T, N))
    return jnp.reshape(out, (B, T, N, H))


def _check_attention_operand(t, shape, dtype, name):
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    if any(want != -1 and got != want for got, want in zip(t.shape, shape)):
        raise ValueError(f"{name} shape should be {shape}: but got {t.shape}")


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal=False, query_seq_lengths=None, key_value_seq_lengths=None,
                          local_window_size=None, implementation=None, return_residual=False):
    """softmax(query @ key.T * scale + bias, masked) @ value for each head, in the layout
    [batch, length, heads, head size] (the batch may be left out); XLA's implementation."""
    output_shape = jnp.asarray(query).shape

    def as_4d(t):
        t = jnp.asarray(t)
        return jnp.expand_dims(t, tuple(range(4 - t.ndim))) if t.ndim < 4 else t
    query, key, value = as_4d(query), as_4d(key), as_4d(value)
    bias = None if bias is None else as_4d(bias)
    mask = None if mask is None else as_4d(mask)
    q_seqlen = None if query_seq_lengths is None else jnp.asarray(query_seq_lengths)
    kv_seqlen = None if key_value_seq_lengths is None else jnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    B, S, K, H = key.shape
    _check_attention_operand(value, [B, S, K, H], key.dtype, "value")
    _check_attention_operand(query, [B, -1, -1, H], key.dtype, "query")
    _check_attention_operand(mask, [-1] * 4, np.dtype(bool), "mask")
    _check_attention_operand(bias, [-1] * 4, None, "bias")
    _check_attention_operand(q_seqlen, [B], np.dtype("int32"), "query_seq_lengths")
    _check_attention_operand(kv_seqlen, [B], np.dtype("int32"), "key_value_seq_lengths")
    if query.shape[-2] % K != 0:
        raise ValueError(f"The number of query heads must be a multiple of key/value heads, "
                         f"but got {query.shape[-2]} vs {K}")
    if implementation == "cudnn":
        raise NotImplementedError("cuDNN's fused attention runs on NVIDIA GPUs only; this "
                                  "package has XLA's implementation (implementation='xla').")
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    scale = 1.0 / np.sqrt(H) if scale is None else scale
    out = _attention_xla(query, key, value, bias, mask, is_causal, scale, q_seqlen, kv_seqlen,
                         local_window_size, return_residual)
    if return_residual:
        return jnp.reshape(out[0], output_shape), jnp.reshape(out[1], output_shape[:-1])
    return jnp.reshape(out, output_shape)


@dataclasses.dataclass(slots=True)
class BlockScaleConfig:
    """How `scaled_dot_general` quantizes an operand: blocks of `block_size` elements of
    `data_type`, each block with one scale of `scale_type`."""
    mode: str
    block_size: int
    data_type: Any
    scale_type: Any
    global_scale: Any
    infer_only: bool


def get_scaled_dot_general_config(mode, global_scale=None):
    """The BlockScaleConfig of a microscaling format: 'nvfp4' or 'mxfp8'."""
    if mode == "nvfp4":
        scale = jnp.ones((1,), dtype=np.float32) if global_scale is None else global_scale
        return BlockScaleConfig("nvfp4", 16, ml_dtypes.float4_e2m1fn, ml_dtypes.float8_e4m3fn,
                                scale, False)
    if mode == "mxfp8":
        return BlockScaleConfig("mxfp8", 32, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu,
                                None, False)
    raise ValueError(f"Unsupported mode: {mode}")


wrap_public_functions(globals(), __name__)
# Hook for appendix A26, which defines `log1mexp` with chapter 13's `custom_jvp`, as JAX does.
more_functions, __getattr__, __dir__ = jnp.late_attributes(globals())
