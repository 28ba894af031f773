# Generated from chapters/A25_jax_rest.md by `make export`: edit the chapter, not this file.


"""`jax.dtypes` (appendix A25): JAX's dtype helpers, gathered from where the book defines them."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from autodidax import numpy as jnp
from autodidax.core import canonicalize_dtype as _canonicalize_dtype
from autodidax.core import ShapedArray, dtype_kind, get_aval
from autodidax.jvp import float0  # noqa: F401  (the dtype of integers' tangents)
from autodidax.numpy import TypePromotionError, finfo, iinfo, issubdtype  # noqa: F401

bfloat16 = ml_dtypes.bfloat16
_PYTHON_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def canonicalize_dtype(dtype, allow_extended_dtype=False):
    """The dtype JAX computes in for `dtype`: 64-bit types are 32-bit ones unless 64-bit mode is
    on. Like JAX's, it passes a dtype it cannot compute in (`S3`) through unchanged."""
    try:
        return _canonicalize_dtype(dtype)
    except TypeError:
        return np.dtype(dtype)


def result_type(*args, return_weak_type_flag=False):
    """`jnp.result_type`; with `return_weak_type_flag`, also whether the result is weak."""
    if not return_weak_type_flag:
        return jnp.result_type(*args)
    avals = [get_aval(a) if not isinstance(a, (type, np.dtype, str))     # a value, or a dtype
             else ShapedArray((), jnp.result_type(a),
                              weak_type=any(a is t for t in (int, float, complex)))
             for a in args]
    return jnp.promote_avals(*avals)


def scalar_type_of(x) -> type:
    """The Python scalar type matching `x`'s dtype: `float` for `bfloat16` too."""
    return _PYTHON_TYPES[dtype_kind(np.dtype(get_aval(x).dtype))]


def itemsize_bits(dtype) -> int:
    """The width of `dtype` in bits: 4 for `int4`, though it occupies a byte."""
    dtype = np.dtype(dtype)
    if dtype_kind(dtype) == "b":
        return 8
    info = ml_dtypes.iinfo if dtype_kind(dtype) in "iu" else ml_dtypes.finfo
    return info(dtype).bits * (2 if dtype_kind(dtype) == "c" else 1)
