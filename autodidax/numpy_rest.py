# Generated from chapters/A24_numpy_rest.md by `make export`: edit the chapter, not this file.


"""More of jax.numpy (appendix A24): functions registered into appendix A1's `more_functions`,
each written and jitted as JAX 0.10.2 writes it."""
from __future__ import annotations

import builtins
import collections
import functools
import math
import operator
import re
import string

import ml_dtypes
import numpy as np
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax.autodiff import transpose_rules
from autodidax.batching import batching_rules, broadcasting, vectorized, vmap
from autodidax.control_flow import scan, while_loop
from autodidax.control_flow_reference import fori_loop, switch
from autodidax.core import (Array, ConcretizationTypeError, LiteralArray, Primitive, ShapedArray,
                            Tracer, abstract_eval_rules, api_boundary, dtype_kind, get_aval,
                            impl_rules, set_array_methods)
from autodidax.custom import custom_jvp
from autodidax.custom_checks import SymbolicZero
from autodidax.indexing import dynamic_update_slice, sort, sort_key_val
from autodidax.indexing_rest import top_k
from autodidax.jaxpr import make_jaxpr
from autodidax.jvp import defjvp2, defjvp_zero, deflinear, float0
from autodidax.lowering import lowering_rules, nary_lowering
from autodidax.numpy import (arange, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh,
                             argmax, argmin, argsort, array, array_ops, asarray, atleast_1d,
                             atleast_2d, broadcast_shapes, broadcast_to, canonical_axis,
                             canonicalize_dtype, ceil, check_arraylike, clip, concatenate, cos,
                             exp2, expand_dims, finfo, flip, floor, floor_divide, full, full_like,
                             greater, iinfo, invert, isinf, isnan, isposinf, jit_in_jaxprs, jitted,
                             less, matmul, maximum, mod, more_functions, moveaxis, nanmean, nonzero,
                             ones, pad, power, prod, promote_args, promote_dtypes, ravel,
                             result_type, searchsorted, squeeze, stack, swapaxes, take, tensordot,
                             tile, transpose, tril, triu, true_divide, vdot, where, zeros)
from autodidax.numpy import all as _all, any as _any, divmod as _divmod, sum as _sum
from autodidax.numpy import abs as _abs, sort as jnp_sort, where as where_
from autodidax.numpy import contraction_order, diag, dot, outer, sqrt
from autodidax.numpy.linalg import eigvals, inv, lstsq


def _inexact(name, *args):
    """`args` promoted to a common inexact dtype, with ranks that agree (JAX's
    `promote_args_inexact`), lists refused first."""
    check_arraylike(name, *args)
    return promote_args(name, *promote_dtypes(*args, inexact=True))


def _lax_const(x, value):
    """A constant of `x`'s dtype, as JAX's `lax._const`: a Python number when `x` is a weakly
    typed scalar of its default dtype (so the result stays weak, and a jaxpr prints the number as
    Python does), else a strongly typed scalar."""
    aval = get_aval(x)
    if aval.weak_type and aval.ndim == 0:
        value = {"f": float, "c": complex, "i": int, "u": int, "b": bool}[
            dtype_kind(aval.dtype)](value)
        if aval.dtype == {float: np.float32, complex: np.complex64, int: np.int32,
                          bool: np.bool_}[type(value)]:
            return value
    return LiteralArray(np.asarray(value, aval.dtype))


def _concrete_value(x, what):
    """`x`, or a tracer's known value; JAX's error if it is not known (`concrete_or_error`)."""
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(
                "Abstract tracer value encountered where concrete value is expected: traced "
                f"array with shape {x.aval}\n{what}")
        return value
    return x


def _concrete_int(x, what):
    """`x` as a Python int, or JAX's error if it is a tracer whose value is not known."""
    return operator.index(_concrete_value(x, what))


def _alias(name, of):
    @jitted(name=name)
    def alias(*args):
        return of(*promote_args(name, *args))
    alias.__name__ = alias.__qualname__ = name
    alias.__doc__ = f"Alias of `jax.numpy.{of.__name__}`."
    return alias


for _name, _of in [("acos", arccos), ("acosh", arccosh), ("asin", arcsin), ("asinh", arcsinh),
                   ("atan", arctan), ("atanh", arctanh), ("atan2", arctan2),
                   ("bitwise_invert", invert)]:
    more_functions[_name] = _alias(_name, _of)


@jitted()
def fabs(x):
    check_arraylike("fabs", x)
    return lax.abs(*_inexact("fabs", x))


@jitted()
def reciprocal(x):
    check_arraylike("reciprocal", x)
    return lax.integer_pow(*_inexact("reciprocal", x), y=-1)


@jitted()
def deg2rad(x):
    x, = _inexact("deg2rad", x)
    return lax.mul(x, _lax_const(x, np.pi / 180))


@jitted()
def rad2deg(x):
    x, = _inexact("rad2deg", x)
    return lax.mul(x, _lax_const(x, 180 / np.pi))


def radians(x): return deg2rad(x)
def degrees(x): return rad2deg(x)
def pow(x1, x2): return power(x1, x2)          # noqa: A001  (JAX's name)


@jit_in_jaxprs("signbit")
def signbit(x):
    """Whether the sign bit of each element is set: true for -0.0 and negative NaNs too."""
    x, = promote_args("signbit", x)
    if dtype_kind(x.dtype) in "iu":
        return lax.lt(x, _lax_const(x, 0))
    if x.dtype == np.bool_:
        return full_like(x, False, dtype=np.bool_)
    if dtype_kind(x.dtype) != "f":
        raise ValueError(f"jax.numpy.signbit is not well defined for {x.dtype}")
    info = np.finfo(x.dtype)
    bits = lax.bitcast_convert_type(x, np.dtype(f"int{info.bits}"))
    sign = lax.shift_right_arithmetic(bits, _lax_const(bits, info.nexp + info.nmant))
    return lax.convert_element_type(sign, np.bool_)


@jit_in_jaxprs("copysign")
def copysign(x1, x2):
    x1, x2 = _inexact("copysign", x1, x2)
    return where(signbit(x2).astype(bool), -lax.abs(x1), lax.abs(x1))


@jit_in_jaxprs("fmax")
def fmax(x1, x2):
    """The larger of each pair, or the number where one is NaN."""
    return where(greater(x1, x2) | isnan(x2), x1, x2)


@jit_in_jaxprs("fmin")
def fmin(x1, x2):
    return where(less(x1, x2) | isnan(x2), x1, x2)


@jit_in_jaxprs("fmod")
def fmod(x1, x2):
    """The remainder of `x1 / x2`, with the sign of `x1` (C's `fmod`; `remainder` takes the
    divisor's sign). An integer divisor of 0 is replaced by 1, as in JAX."""
    check_arraylike("fmod", x1, x2)
    x1, x2 = asarray(x1), asarray(x2)
    if result_type(x1, x2).kind in "iu":
        x2 = where(x2 == 0, full_like(x2, 1), x2)
    return lax.rem(*promote_args("fmod", x1, x2))


@jitted()
def float_power(x, y):
    return lax.pow(*_inexact("float_power", x, y))


@jitted()
def real(val):
    check_arraylike("real", val)
    val = asarray(val)
    return lax.real(val) if dtype_kind(val.dtype) == "c" else val


@jitted()
def imag(val):
    check_arraylike("imag", val)
    val = asarray(val)
    return lax.imag(val) if dtype_kind(val.dtype) == "c" else full_like(val, 0)


@jitted()
def conjugate(x):
    check_arraylike("conjugate", x)
    x = asarray(x)
    return lax.conj(x) if dtype_kind(x.dtype) == "c" else x


def conj(x): return conjugate(x)


@jit_in_jaxprs("angle", static_argnums=(1,))
def angle(z, deg=False):
    """The argument of a complex number, `atan2(imag, real)`; of a real one, 0 or pi."""
    check_arraylike("angle", z)
    z = asarray(z)
    re, im = real(z), imag(z)
    if dtype_kind(re.dtype) != "f" or (dtype_kind(z.dtype) == "f" and z.ndim == 0):
        re, im = (lax.convert_element_type(v, np.float32) for v in (re, im))
    result = lax.atan2(im, re)
    return degrees(result) if deg else result


def isscalar(element) -> bool:
    """Whether `element` is a scalar: a Python or NumPy scalar, or an array of rank 0."""
    if np.isscalar(element):
        return True
    if isinstance(element, (np.ndarray, Array, Tracer)):
        return element.ndim == 0
    return False


def iscomplexobj(x) -> bool:
    if isinstance(x, (complex, np.complexfloating)):
        return True
    if x is None or isinstance(x, (bool, int, float, str, np.generic)):
        return False
    dtype = getattr(x, "dtype", None)
    return np.issubdtype(dtype if dtype is not None else asarray(x).dtype, np.complexfloating)


def isrealobj(x) -> bool: return not iscomplexobj(x)


def fliplr(m):
    check_arraylike("fliplr", m)
    return flip(m, 1)


def flipud(m):
    check_arraylike("flipud", m)
    return flip(m, 0)


@jit_in_jaxprs("rot90", static_argnums=(1, 2))
def rot90(m, k=1, axes=(0, 1)):
    check_arraylike("rot90", m)
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("rot90 requires its first argument to have ndim at least two, but got "
                         f"first argument of shape {m.shape}, which has ndim {m.ndim}")
    ax1, ax2 = (canonical_axis(a, m.ndim) for a in axes)
    if ax1 == ax2:
        raise ValueError("Axes must be different")
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, ax1), ax2)
    perm = list(range(m.ndim))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    return transpose(flip(m, ax2), perm) if k == 1 else flip(transpose(m, perm), ax2)


@jit_in_jaxprs("diff", static_argnums=(1, 2))
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The `n`-th differences of `a` along `axis`, after joining `prepend` and `append`."""
    check_arraylike("diff", a)
    arr, n, axis = asarray(a), operator.index(n), operator.index(axis)
    if n == 0:
        return arr
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if arr.ndim == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = canonical_axis(axis, arr.ndim)
    edge = arr.shape[:axis] + (1,) + arr.shape[axis + 1:]
    joined = [asarray(e) if np.ndim(e) else broadcast_to(e, edge)
              for e in (prepend, arr, append) if e is not None]
    arr = concatenate(joined, axis) if len(joined) > 1 else arr
    later = tuple(slice(1, None) if i == axis else slice(None) for i in range(arr.ndim))
    earlier = tuple(slice(None, -1) if i == axis else slice(None) for i in range(arr.ndim))
    op = operator.ne if arr.dtype == np.bool_ else operator.sub
    for _ in range(n):
        arr = op(arr[later], arr[earlier])
    return arr


@jit_in_jaxprs("ediff1d")
def ediff1d(ary, to_end=None, to_begin=None):
    check_arraylike("ediff1d", ary, *(e for e in (to_end, to_begin) if e is not None))
    arr = ravel(asarray(ary))
    result = lax.sub(arr[1:], arr[:-1])
    if to_begin is not None:
        result = concatenate((ravel(asarray(to_begin).astype(arr.dtype)), result))
    if to_end is not None:
        result = concatenate((result, ravel(asarray(to_end).astype(arr.dtype))))
    return result


@jit_in_jaxprs("append", static_argnums=(2,))
def append(arr, values, axis=None):
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis=axis)


@jit_in_jaxprs("atleast_3d")
def atleast_3d(*arys):
    check_arraylike("atleast_3d", *arys)
    if len(arys) != 1:
        return [atleast_3d(a) for a in arys]
    arr = asarray(arys[0])
    new = {0: (0, 1, 2), 1: (0, 2), 2: (2,)}.get(arr.ndim)
    return lax.expand_dims(arr, new) if new else arr


def concat(arrays, /, *, axis=0):
    check_arraylike("concat", *arrays)
    return concatenate(arrays, axis=axis)


def array_equal(a1, a2, equal_nan=False):
    a1, a2 = asarray(a1), asarray(a2)
    if a1.shape != a2.shape:
        return array(False, dtype=bool)
    eq = asarray(a1 == a2)
    if equal_nan:
        eq = eq | (isnan(a1) & isnan(a2))
    return _all(eq)


def array_equiv(a1, a2):
    a1, a2 = asarray(a1), asarray(a2)
    try:
        eq = a1 == a2
    except ValueError:                  # shapes that do not broadcast
        return array(False)
    return _all(eq)


def diag_indices(n, ndim=2):
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (lax.iota(np.dtype(np.int32), n),) * ndim


def indices(dimensions, dtype=None, sparse=False):
    dtype = np.dtype(np.int32 if dtype is None else dtype)
    dimensions = tuple(operator.index(d) for d in dimensions)
    out = []
    for i, dim in enumerate(dimensions):
        shape = (1,) * i + (dim,) + (1,) * (len(dimensions) - i - 1) if sparse else dimensions
        iota = lax.iota(dtype, dim)     # (of one dimension, JAX's jaxpr drops the broadcast)
        out.append(iota if shape == (dim,) else lax.broadcast_in_dim(iota, shape, (i,)))
    if sparse:
        return tuple(out)
    return stack(out, 0) if out else array([], dtype=dtype)


def _triu_size(n, m, k):
    """How many elements of an `n` by `m` matrix lie on or above its `k`-th diagonal."""
    if k < 0:
        return n * m - _triu_size(m, n, 1 - k)
    if k >= m:
        return 0
    mk = builtins.min(n, m - k)
    return mk * (mk + 1) // 2 + mk * (m - k - mk)


def _triangle_args(n, k, m):
    n, k = (_concrete_int(v, f"{w} argument of jnp.triu_indices") for v, w in [(n, "n"), (k, "k")])
    return n, k, n if m is None else _concrete_int(m, "m argument of jnp.triu_indices")


def tril_indices(n, k=0, m=None):
    n, k, m = _triangle_args(n, k, m)
    return nonzero(tril(ones((n, m)), k=k), size=_triu_size(m, n, -k))


def triu_indices(n, k=0, m=None):
    n, k, m = _triangle_args(n, k, m)
    return nonzero(triu(ones((n, m)), k=k), size=_triu_size(n, m, k))


def _promote_integer_dtype(dtype):
    """A bool or a narrow integer dtype widened to the default int (`int32`, or `uint32`)."""
    if dtype == np.bool_:
        return np.dtype(np.int32)
    if dtype_kind(dtype) in "iu" and dtype.itemsize < 4:
        return np.dtype(np.int32 if dtype_kind(dtype) == "i" else np.uint32)
    return dtype


def _cumulative_reduction(name, reduction, a, axis, dtype, out=None, fill_nan=False,
                          fill_value=0, promote_integers=False):
    """JAX's cumulative reductions: `a` flattened if `axis` is None, NaNs replaced by
    `fill_value` if `fill_nan`, the result's dtype (bool and, if `promote_integers`, narrow
    integers widened), then one `cumsum` or `cumprod` primitive along `axis`."""
    check_arraylike(name, a)
    a = asarray(a)
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported")
    if axis is None or a.ndim == 0:
        a = lax.reshape(a, (a.size,))
    axis = canonical_axis(0 if axis is None else axis, a.ndim)
    if fill_nan:
        a = where(lax.ne(a, a), _lax_const(a, fill_value), a)
    if dtype is not None:
        dtype = canonicalize_dtype(dtype)
    result = _promote_integer_dtype(a.dtype) if dtype is None and (
        promote_integers or a.dtype == np.bool_) else a.dtype if dtype is None else dtype
    computation = result
    if dtype == np.bool_:
        a = a if a.dtype == np.bool_ else a != 0
        computation = _promote_integer_dtype(result)
    out = reduction(lax.convert_element_type(a, computation), axis)
    return lax.convert_element_type(out, result)


@jit_in_jaxprs("_cumsum_with_promotion", static_argnums=(1, 2))
def _cumsum_with_promotion(a, axis, dtype):
    return _cumulative_reduction("_cumsum_with_promotion", lax.cumsum, a, axis, dtype,
                                 promote_integers=True)


def _cumulative(name, x, axis, dtype, include_initial, reduce, initial):
    check_arraylike(name, x)
    x = asarray(x)
    if x.ndim == 0:
        what = "sum" if initial == 0 else "product"
        raise ValueError(f"The input must be non-scalar to take a cumulative {what}, however a "
                         "scalar value or scalar array was given.")
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"The input array has rank {x.ndim}, however axis was not set to an "
                             "explicit value. The axis argument is only optional for "
                             "one-dimensional arrays.")
        axis = 0
    axis = canonical_axis(axis, x.ndim)
    out = reduce(x, axis, dtype)
    if include_initial:
        shape = list(x.shape)
        shape[axis] = 1
        out = lax.concatenate([lax.full(shape, initial, out.dtype), out], axis)
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """The running sum along `axis` (optional for a vector), narrow integers widened to int32,
    with a leading 0 if `include_initial`."""
    return _cumulative("cumulative_sum", x, axis, dtype, include_initial,
                       _cumsum_with_promotion, 0)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    return _cumulative("cumulative_prod", x, axis, dtype, include_initial,
                       lambda a, ax, dt: _cumulative_reduction("cumulative_prod", lax.cumprod,
                                                               a, ax, dt), 1)


def argwhere(a, *, size=None, fill_value=None):
    """The indices of `a`'s nonzero elements, one row each (`nonzero`'s arrays, stacked)."""
    check_arraylike("argwhere", a)
    a = asarray(a)
    found = nonzero(a if a.ndim else a.reshape(1), size=size, fill_value=fill_value)
    result = transpose(stack(found))
    if a.ndim == 0:
        return result[:0].reshape(result.shape[0], 0)
    return result.reshape(result.shape[0], a.ndim)


def flatnonzero(a, *, size=None, fill_value=None):
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def matrix_transpose(x, /):
    check_arraylike("matrix_transpose", x)
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError("x must be at least two-dimensional for matrix_transpose; got "
                         f"ndim={x.ndim}")
    return lax.transpose(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


@jit_in_jaxprs("isreal")
def isreal(x):
    i = imag(x)
    return lax.eq(i, _lax_const(i, 0))


@jit_in_jaxprs("iscomplex")
def iscomplex(x):
    i = imag(x)
    return lax.ne(i, _lax_const(i, 0))


@jitted("preferred_element_type")
def inner(a, b, *, preferred_element_type=None):
    """The sum of products over the last axes of `a` and `b` (a product, for a scalar)."""
    check_arraylike("inner", a, b)
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        if preferred_element_type is not None:
            a, b = a.astype(preferred_element_type), b.astype(preferred_element_type)
        return a * b
    return tensordot(a, b, (-1, -1))


def column_stack(tup):
    """Vectors as columns, and matrices, side by side."""
    check_arraylike("column_stack", *tup)
    arrays = [asarray(a) for a in tup]
    return concatenate([transpose(atleast_2d(a)) if a.ndim < 2 else a for a in arrays], axis=1)


def dstack(tup):
    """The arrays, each made at least 3-d, joined along their third axis."""
    check_arraylike("dstack", *tup)
    return concatenate([atleast_3d(a) for a in tup], axis=2)


_PUBLIC: list = []                     # every name this module registers


def _register(names: str) -> None:
    """Register each of `names` into A1's `more_functions`, and list it in `_PUBLIC`: a function
    of this module made an API boundary first, so that its errors show the user's line, as A1's
    `wrap_public_functions` makes its own (NumPy's `iterable` is registered as it is, and a
    class, `ufunc`, stays a class, for `isinstance`)."""
    for name in names.split():
        fun = globals()[name]
        if getattr(fun, "__module__", None) == __name__ and not isinstance(fun, type):
            fun = globals()[name] = api_boundary(fun)
        more_functions[name] = fun
        _PUBLIC.append(name)


_register("inner column_stack dstack argwhere flatnonzero matrix_transpose isreal iscomplex "
          "cumulative_sum cumulative_prod fabs deg2rad rad2deg radians degrees pow signbit "
          "copysign fmax fmin fmod float_power real imag conjugate conj angle reciprocal isscalar "
          "iscomplexobj isrealobj fliplr flipud rot90 diff ediff1d append atleast_3d concat "
          "array_equal array_equiv diag_indices indices tril_indices triu_indices")
set_array_methods({"real": property(real), "imag": property(imag), "conj": conj,
                   "conjugate": conjugate})                     # `x.real`, `x.conj()`


def _promote_numeric(name, *args):
    """JAX's `promote_args_numeric`: the arguments' common dtype, booleans made int32."""
    args = promote_args(name, *args)
    if args[0].dtype != np.bool_:
        return args
    return [lax.convert_element_type(a, np.int32, weak_type=get_aval(a).weak_type) for a in args]


@jitted()
def positive(x, /):
    return asarray(*promote_args("positive", x))


@jit_in_jaxprs("rint")
def rint(x, /):
    """Each element rounded to the nearest integer, halves to even."""
    check_arraylike("rint", x)
    x = asarray(x)
    if dtype_kind(x.dtype) in "biu":
        return lax.convert_element_type(x, np.float32)
    if dtype_kind(x.dtype) == "c":
        return lax.complex(rint(lax.real(x)), rint(lax.imag(x)))
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


@jitted()
def left_shift(x, y, /):
    return lax.shift_left(*_promote_numeric("left_shift", x, y))


@jitted()
def right_shift(x1, x2, /):
    """`x1` shifted right by `x2` bits: logically for unsigned integers, else arithmetically."""
    x1, x2 = _promote_numeric("right_shift", x1, x2)
    unsigned = dtype_kind(x1.dtype) == "u"
    return (lax.shift_right_logical if unsigned else lax.shift_right_arithmetic)(x1, x2)


@jitted()
def bitwise_left_shift(x, y, /):
    return lax.shift_left(*_promote_numeric("bitwise_left_shift", x, y))


@jitted()
def bitwise_right_shift(x1, x2, /):
    return right_shift(x1, x2)


@jit_in_jaxprs("modf")
def modf(x, /, out=None):
    """The fractional and the whole part of each element, both with its sign."""
    check_arraylike("modf", x)
    x, = promote_dtypes(x, inexact=True)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.modf is not supported.")
    whole = where(lax.ge(x, _lax_const(x, 0)), floor(x), ceil(x))
    return x - whole, whole


def _wrap_between(x, a):
    """`x` wrapped into `[-a, a]`."""
    a, two_a, zero = _lax_const(x, a), _lax_const(x, 2 * a), _lax_const(x, 0)
    rem = lax.rem(lax.add(x, a), two_a)
    rem = lax.select(lax.lt(rem, zero), lax.add(rem, two_a), rem)
    return lax.sub(rem, a)


def _logaddexp2(x1, x2):
    """`log2(2**x1 + 2**x2)` without overflow: the larger, plus `log2(1 + 2**-|x1 - x2|)`."""
    amax = lax.max(x1, x2)
    invln2 = _lax_const(amax, 1 / np.log(2))
    if dtype_kind(x1.dtype) == "f":
        delta = lax.sub(x1, x2)
        return lax.select(lax.ne(delta, delta),        # NaNs, or infinities of one sign: x1 + x2
                          lax.add(x1, x2),
                          lax.add(amax, lax.mul(invln2,
                                                lax.log1p(lax.exp2(lax.neg(lax.abs(delta)))))))
    delta = lax.sub(lax.add(x1, x2), lax.mul(amax, _lax_const(amax, 2)))
    out = lax.add(amax, lax.mul(invln2, lax.log1p(lax.exp2(delta))))
    return lax.complex(lax.real(out), _wrap_between(lax.imag(out), np.pi / np.log(2)))


_logaddexp2.__name__ = "logaddexp2"         # (a jaxpr names the custom_jvp_call after it)
_logaddexp2 = custom_jvp(_logaddexp2)


def _replace_inf(x):
    return lax.select(isposinf(real(x)), lax.full_like(x, 0), x)


def _logaddexp(x1, x2):
    """`log(exp(x1) + exp(x2))` without overflow (JAX's `lax_other.logaddexp`)."""
    amax = lax.max(x1, x2)
    if dtype_kind(x1.dtype) == "f":
        delta = lax.sub(x1, x2)
        return lax.select(lax.ne(delta, delta),        # NaNs, or infinities of one sign: x1 + x2
                          lax.add(x1, x2), lax.add(amax, lax.log1p(lax.exp(lax.neg(
                              lax.abs(delta))))))
    delta = lax.sub(lax.add(x1, x2), lax.mul(amax, _lax_const(amax, 2)))
    out = lax.add(amax, lax.log1p(lax.exp(delta)))
    return lax.complex(lax.real(out), _wrap_between(lax.imag(out), np.pi))


_logaddexp.__name__ = "logaddexp"
_logaddexp = custom_jvp(_logaddexp)


def _inf_as_zero(x):
    """JAX's `lax_other._replace_inf`: +inf read as 0, compared as `x == inf`."""
    re = lax.real(x) if dtype_kind(x.dtype) == "c" else x
    return lax.select(lax.eq(re, _lax_const(re, np.inf)), lax.full_like(x, 0), x)


@_logaddexp.defjvp
def _logaddexp_jvp(primals, tangents):
    out = _logaddexp(*primals)
    return out, _tangent_of_sum(lax.exp, _inf_as_zero, primals, tangents, out)


@jitted()
def logaddexp(x1, x2, /):
    return _logaddexp(*_inexact("logaddexp", x1, x2))


def _tangent_of_sum(exp, inf_as_zero, primals, tangents, out):
    """The tangent of `log(exp(x1) + exp(x2))` (of any base): each tangent times
    `exp(x - out)`, with +inf read as 0, so that it stays finite."""
    (x1, x2), (t1, t2) = primals, tangents
    weight = lambda x: exp(lax.sub(inf_as_zero(x), inf_as_zero(out)))
    return lax.add(lax.mul(t1, weight(x1)), lax.mul(t2, weight(x2)))


@_logaddexp2.defjvp
def _logaddexp2_jvp(primals, tangents):
    out = _logaddexp2(*primals)
    return out, _tangent_of_sum(lax.exp2, _replace_inf, primals, tangents, out)


@jitted()
def logaddexp2(x1, x2, /):
    return _logaddexp2(*_inexact("logaddexp2", x1, x2))


def _normalize_float(x):
    """`x`'s bits as an integer, subnormal numbers first scaled up to normal ones, and the power
    of two that undoes the scaling."""
    info = finfo(x.dtype)
    int_type = np.dtype(f"int{info.bits}")
    cond = lax.abs(x) < info.tiny
    x1 = where(cond, x * _lax_const(x, 1 << info.nmant), x)
    x2 = where(cond, int_type.type(-info.nmant), int_type.type(0))
    return lax.bitcast_convert_type(x1, int_type), x2


@custom_jvp
def _frexp(x):
    """The exponent's bits read off, and replaced by those of 2**-1."""
    info = finfo(x.dtype)
    mask, bias = (1 << info.nexp) - 1, 1 - info.minexp
    x1, x2 = _normalize_float(x)
    x2 += ((x1 >> info.nmant) & mask) - bias + 1
    x1 &= ~(mask << info.nmant)
    x1 |= (bias - 1) << info.nmant
    x1 = lax.bitcast_convert_type(x1, x.dtype)
    cond = isinf(x) | isnan(x) | (x == 0)
    x2 = where(cond, lax.full_like(x2, 0), x2)
    return where(cond, x, x1), lax.convert_element_type(x2, np.int32)


@_frexp.defjvp
def _frexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    m, e = frexp(x)
    return (m, e), (t * exp2(-e.astype(t.dtype)), SymbolicZero(ShapedArray(e.shape, float0)))


@jit_in_jaxprs("frexp")
def frexp(x, /):
    """Each element as `mantissa * 2**exponent`, the mantissa in `[0.5, 1)` (or 0, inf, NaN)."""
    check_arraylike("frexp", x)
    x, = promote_dtypes(x, inexact=True)
    if dtype_kind(x.dtype) == "c":
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp(x)


@jit_in_jaxprs("ldexp")
def ldexp(x1, x2, /):
    """`x1 * 2**x2`, computed from `frexp(x1)` so that a tiny `x1` and a large `x2` do not
    overflow on the way."""
    check_arraylike("ldexp", x1, x2)
    x1, x2 = asarray(x1), asarray(x2)
    if dtype_kind(x1.dtype) == "c" or dtype_kind(x2.dtype) in "fc":
        raise ValueError(f"ldexp not supported for input types {(x1.dtype, x2.dtype)}")
    x1, = _inexact("ldexp", x1)
    x2 = lax.convert_element_type(x2, x1.dtype)
    m, e = frexp(x1)
    e = (e.astype(x2.dtype) + x2).astype(x1.dtype)
    m = where(e > 0, m * 2, m)              # the exponent may overflow by one, the result not
    e = where(e > 0, e - 1, e)
    x = m * (2 ** e.astype(m.dtype))
    return where(isinf(x1) | (x1 == 0), x1, x)


_register("positive rint left_shift right_shift bitwise_left_shift bitwise_right_shift modf "
          "logaddexp logaddexp2 frexp ldexp")
set_array_methods({"__lshift__": left_shift, "__rlshift__": api_boundary(
    lambda x, y: left_shift(y, x)), "__rshift__": right_shift, "__rrshift__": api_boundary(
    lambda x, y: right_shift(y, x))})                           # `x << 2`, `x >> 1`


def permute_dims(a, /, axes):
    check_arraylike("permute_dims", a)
    return lax.transpose(asarray(a), axes)


@jit_in_jaxprs("rollaxis", static_argnums=(1, 2))
def rollaxis(a, axis, start=0):
    """Axis `axis` moved to before position `start`."""
    check_arraylike("rollaxis", a)
    a = asarray(a)
    start = _concrete_int(start, "'start' argument of jnp.rollaxis()")
    axis = canonical_axis(axis, a.ndim)
    if not -a.ndim <= start <= a.ndim:
        raise ValueError(f"{start=} must satisfy {-a.ndim}<=start<={a.ndim}")
    start = start + a.ndim if start < 0 else start
    return moveaxis(a, axis, start - 1 if start > axis else start)


@jitted("axis")
def unstack(x, /, *, axis=0):
    check_arraylike("unstack", x)
    x = asarray(x)
    return lax.unstack(x, axis=canonical_axis(axis, x.ndim))


def broadcast_arrays(*args):
    """The arguments broadcast to their common shape (a list)."""
    check_arraylike("broadcast_arrays", *args)
    arrays = [asarray(a) for a in args]
    shapes = [a.shape for a in arrays]
    if not shapes or all(s == shapes[0] for s in shapes):
        return arrays
    shape = broadcast_shapes(*shapes)
    return [broadcast_to(a, shape) for a in arrays]


def ix_(*args):
    """Vectors reshaped to broadcast against each other, the i-th along axis i."""
    check_arraylike("ix", *args)
    output = []
    for i, a in enumerate(map(asarray, args)):
        if a.ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                             f"{a.shape}")
        if a.dtype == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * len(args)
        shape[i] = a.shape[0]
        output.append(lax.full(shape, np.zeros((), np.intp)) if a.size == 0
                      else lax.broadcast_in_dim(a, shape, (i,)))
    return tuple(output)


iterable = np.iterable                  # (JAX's is NumPy's)


def tri(N, M=None, k=0, dtype=None):
    """An `N` by `M` matrix of ones on and below the `k`-th diagonal, zeros above."""
    dtype = np.dtype(np.float32) if dtype is None else canonicalize_dtype(dtype)
    M = N if M is None else M
    offset = asarray(k)
    if dtype_kind(offset.dtype) not in "iu":
        raise TypeError(f"offset must be an integer, got {k!r}")
    offset = (LiteralArray(np.asarray(k, np.int32)) if isinstance(k, (int, np.integer))
              else lax.convert_element_type(offset, np.int32))
    rows = lax.add(lax.broadcasted_iota(np.int32, (N, M), 0), offset)
    below = lax.ge(rows, lax.broadcasted_iota(np.int32, (N, M), 1))
    return lax.convert_element_type(below, dtype)


def diagflat(v, k=0):
    """A square matrix with the flattened `v` on its `k`-th diagonal."""
    check_arraylike("diagflat", v)
    v_ravel = ravel(v)
    size = len(v_ravel) + abs(k)
    res = zeros(size * size, dtype=v_ravel.dtype)
    i = arange(0, size - abs(k))
    flat = i + k + i * size if k >= 0 else i + (i - k) * size
    return res.at[flat].set(v_ravel).reshape(size, size)


def _shape_2d(name, arr):
    if not hasattr(arr, "shape"):
        check_arraylike(name, arr)
        arr = asarray(arr)
    if len(arr.shape) != 2:
        raise ValueError("Only 2-D inputs are accepted")
    return arr.shape


def tril_indices_from(arr, k=0):
    n, m = _shape_2d("tril_indices_from", arr)
    return tril_indices(n, k=k, m=m)


def triu_indices_from(arr, k=0):
    n, m = _shape_2d("triu_indices_from", arr)
    return triu_indices(n, k=k, m=m)


def diag_indices_from(arr):
    check_arraylike("diag_indices_from", arr)
    arr = asarray(arr)
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], ndim=arr.ndim)


def ravel_multi_index(multi_index, dims, mode="raise", order="C", *, dtype=None):
    """The flat index of each tuple of indices into an array of shape `dims`; indices out of
    range raise, wrap around, are clipped, or are left as they are (`mode`)."""
    assert len(multi_index) == len(dims), (
        f"len(multi_index)={len(multi_index)} != len(dims)={len(dims)}")
    dims = tuple(_concrete_int(d, "in `dims` argument of ravel_multi_index().") for d in dims)
    check_arraylike("ravel_multi_index", *multi_index)
    indices_ = [asarray(i) for i in multi_index]
    dtype = result_type(int, *indices_) if dtype is None else canonicalize_dtype(dtype)
    if dtype_kind(dtype) not in "iu":
        raise ValueError(f"{dtype=} is not an integer type.")
    if math.prod(dims) - 1 > iinfo(dtype).max:
        raise ValueError(f"jnp.ravel_multi_index: {dtype=} not large enough to hold flattened "
                         f"index for {dims=}. Use the dtype argument to pass a suitable dtype "
                         "(e.g. dtype=np.min_scalar_type(prod(dims))).")
    for index in indices_:
        if mode == "raise":
            _concrete_value(index, "The error occurred because ravel_multi_index was "
                            "jit-compiled with mode='raise'. Use mode='wrap' or mode='clip' "
                            "instead.")
        if dtype_kind(index.dtype) not in "iu":
            raise TypeError("only int indices permitted")
    if mode == "raise":
        if builtins.any(_any((i < 0) | (i >= d)) for i, d in zip(indices_, dims)):
            raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        indices_ = [clip(i, 0, d - 1) for i, d in zip(indices_, dims)]
    elif mode == "wrap":
        indices_ = [i % d for i, d in zip(indices_, dims)]
    elif mode != "ignore":
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', 'clip', or "
                         "'ignore'.")
    if order == "F":
        strides = np.cumprod((1,) + dims[:-1])
    elif order == "C":
        strides = np.cumprod((1,) + dims[1:][::-1])[::-1]
    else:
        raise ValueError(f"invalid order={order!r}. Expected 'C' or 'F'")
    result = array(0, dtype=dtype)
    for i, s in zip(indices_, strides):
        result = result + i.astype(dtype) * int(s)
    return result


def unravel_index(indices, shape):
    """One index per axis of `shape` for each flat index: indices out of range are clamped to
    the first or the last element."""
    check_arraylike("unravel_index", indices)
    flat = asarray(indices)
    try:
        shape = list(shape)
    except TypeError:
        shape = [shape]
    if builtins.any(np.ndim(s) != 0 for s in shape):
        raise ValueError("unravel_index: shape should be a scalar or 1D sequence.")
    out = [0] * len(shape)
    for i, s in reversed(list(enumerate(shape))):
        flat, out[i] = _divmod(flat, s)
    oob_pos = flat > 0
    oob_neg = asarray(False) if dtype_kind(flat.dtype) == "u" else flat < -1
    return tuple(where(oob_pos, s - 1, where(oob_neg, 0, i)) for s, i in zip(shape, out))


def select(condlist, choicelist, default=0):
    """Per element, the choice of the first condition that holds, else `default`."""
    if len(condlist) != len(choicelist):
        raise ValueError("condlist must have length equal to choicelist "
                         f"({len(condlist)} vs {len(choicelist)})")
    if len(condlist) == 0:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    condlist = [asarray(c) for c in condlist]
    choicelist = promote_dtypes(asarray(default), *map(asarray, choicelist))
    # The default goes first, with a condition False: argmax gives 0 where none holds.
    conditions = stack(broadcast_arrays(False, *condlist))
    idx = argmax(conditions.astype(bool), axis=0)
    return lax.select_n(*broadcast_arrays(idx, *choicelist))


def choose(a, choices, out=None, mode="raise"):
    """Per element, the element of `choices[a]`; an index out of range raises, wraps around or
    is clipped (`mode`)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    check_arraylike("choose", a, *choices)
    a, *choices = [asarray(x) for x in (a, *choices)]
    if dtype_kind(a.dtype) not in "iu":
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        arr = asarray(_concrete_value(a, "The error occurred because jnp.choose was "
                                         "jit-compiled with mode='raise'. Use mode='wrap' or "
                                         "mode='clip' instead."))
        if _any((arr < 0) | (arr >= n)):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        arr = a % n
    elif mode == "clip":
        arr = clip(a, 0, n - 1)
    else:
        raise ValueError(f"mode={mode!r} not understood. Must be 'raise', 'wrap', or 'clip'")
    arr, *choices = broadcast_arrays(arr, *choices)
    return array(choices)[(arr,) + indices(arr.shape, sparse=True)]


_register("permute_dims rollaxis unstack broadcast_arrays ix_ iterable tri diagflat "
          "tril_indices_from triu_indices_from diag_indices_from ravel_multi_index "
          "unravel_index select choose")


def _vectorize(fun, signature):
    """`fun`, whose arguments have the core dimensions of a gufunc `signature` such as
    `"(n,m),(m)->(n)"`, mapped over its arguments' leading dimensions, which broadcast: JAX's
    `jnp.vectorize` for one output and no excluded arguments. Each leading axis that some
    argument has is one `vmap`; one that none has (a size 1 everywhere) is added at the end."""
    core = [tuple(re.findall(r"\w+", arg)) for arg in
            re.findall(r"\([^)]*\)", signature.split("->")[0])]
    context = f"on vectorized function with excluded=frozenset() and {signature=}"

    def wrapped(*args):
        args, sizes, shapes = [asarray(a) for a in args], {}, []
        for arg, dims in zip(args, core):
            if arg.ndim < len(dims):
                raise ValueError(f"input with shape {arg.shape!r} does not have enough "
                                 f"dimensions for all core dimensions {dims!r} {context}")
            for dim, size in zip(dims, arg.shape[arg.ndim - len(dims):]):
                if sizes.setdefault(dim, size) != size:
                    raise ValueError(f"inconsistent size for core dimension {dim!r}: {size!r} "
                                     f"vs {sizes[dim]!r} {context}")
            shapes.append(arg.shape[:arg.ndim - len(dims)])
        shape = broadcast_shapes(*shapes)
        squeezed = [squeeze(a, tuple(i for i, d in enumerate(s) if d == 1))
                    for a, s in zip(args, shapes)]
        reversed_shapes = [((1,) * (len(shape) - len(s)) + s)[::-1] for s in shapes]
        f, expand = fun, []
        for negdim, axis_sizes in enumerate(zip(*reversed_shapes)):
            in_axes = tuple(None if d == 1 else 0 for d in axis_sizes)
            if all(a is None for a in in_axes):
                expand.append(len(shape) - 1 - negdim)
            else:
                f = vmap(f, in_axes)
        result = f(*squeezed)
        return expand_dims(result, expand) if expand else result
    return wrapped


@jit_in_jaxprs("matvec")
def matvec(x1, x2, /):
    check_arraylike("matvec", x1, x2)
    return _vectorize(matmul, "(n,m),(m)->(n)")(x1, x2)


@jit_in_jaxprs("vecmat")
def vecmat(x1, x2, /):
    check_arraylike("matvec", x1, x2)                   # (JAX's name, in JAX's message)
    return _vectorize(matmul, "(n),(n,m)->(m)")(conj(x1), x2)


def _vdot(a, b, preferred_element_type=None):
    """`vdot`, whose result has `preferred_element_type` if given."""
    if preferred_element_type is None:
        return vdot(a, b)
    a, b = promote_dtypes(a, b)
    a = lax.conj(a) if dtype_kind(a.dtype) == "c" else a
    return lax.dot_general(ravel(a), ravel(b), (((0,), (0,)), ((), ())),
                           preferred_element_type=preferred_element_type)


def vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None):
    """The dot product along `axis` (the first vector conjugated), broadcast over the rest."""
    check_arraylike("jnp.vecdot", x1, x2)
    x1, x2 = asarray(x1), asarray(x2)
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"axes must match; got shapes {x1.shape} and {x2.shape} with {axis=}")
    x1, x2 = moveaxis(x1, axis, -1), moveaxis(x2, axis, -1)
    dot = functools.partial(_vdot, preferred_element_type=preferred_element_type)
    return _vectorize(dot, "(n),(n)->()")(x1, x2)


def _optional_axes(axis):
    """`axis` as JAX's `_ensure_optional_axes` makes it: None, an int, or a tuple of ints."""
    if axis is None:
        return None
    try:
        return operator.index(axis)
    except TypeError:
        return tuple(operator.index(i) for i in axis)


def ptp(a, axis=None, out=None, keepdims=False):
    check_arraylike("ptp", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.ptp is not supported.")
    return _ptp(asarray(a), _optional_axes(axis), keepdims)


@jit_in_jaxprs("_ptp", static_argnums=(1, 2))
def _ptp(a, axis, keepdims):
    """The range of `a`'s values along `axis`: the maximum less the minimum."""
    return lax.sub(a.max(axis=axis, keepdims=keepdims), a.min(axis=axis, keepdims=keepdims))


def _axis_tuple(axis, ndim):
    """JAX's `canonicalize_axis_tuple`: every axis for None, else the axes made positive."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        return (canonical_axis(axis, ndim),)
    axes = tuple(canonical_axis(i, ndim) for i in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis: {axes}")
    return axes


def average(a, axis=None, weights=None, returned=False, keepdims=False):
    return _average(a, _optional_axes(axis), weights, returned, keepdims)


@jitted("axis", "returned", "keepdims")
def _average(a, axis=None, weights=None, returned=False, keepdims=False):
    """The mean of `a` along `axis`, each element weighted by `weights` (of `a`'s shape, or of
    its shape along `axis`), and with `returned` the sum of the weights too."""
    axes = _axis_tuple(axis, np.ndim(a))
    if weights is None:
        check_arraylike("average", a)
        a, = promote_dtypes(a, inexact=True)
        avg = a.mean(axis=axis, keepdims=keepdims)
        count = a.size if axis is None else math.prod(a.shape[d] for d in axes)
        weights_sum = array(np.asarray(count, avg.dtype))     # (a constant, as JAX's)
    else:
        check_arraylike("average", a, weights)
        a, weights = promote_dtypes(a, weights, inexact=True)
        if a.shape != weights.shape:
            if axis is None:
                raise ValueError("Axis must be specified when shapes of a and weights differ.")
            if weights.shape != tuple(a.shape[ax] for ax in axes):
                raise ValueError("Shape of weights must be consistent with shape of a along "
                                 "specified axis.")
            shape = tuple(d if i in axes else 1 for i, d in enumerate(a.shape))
            order = tuple(int(i) for i in np.argsort(axes))
            weights = lax.reshape(weights, shape, None if order == tuple(range(len(order)))
                                  else order)
        weights_sum = weights.sum(axis=axis, keepdims=keepdims)
        avg = (a * weights).sum(axis=axis, keepdims=keepdims) / weights_sum
    if returned:
        if avg.shape != weights_sum.shape:
            weights_sum = broadcast_to(weights_sum, avg.shape)
        return avg, weights_sum
    return avg


@jit_in_jaxprs("trapezoid", static_argnums=(3,))
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of the samples `y` along `axis` by the trapezoidal rule, at the points `x`
    or `dx` apart."""
    if x is None:
        check_arraylike("trapezoid", y)
        y_arr, = promote_dtypes(y, inexact=True)
        dx_array = asarray(dx)
        if dx_array.ndim > 0:
            dx_array = lax.expand_dims(dx_array, range(y_arr.ndim - dx_array.ndim))
            dx_array = moveaxis(dx_array, axis, -1)
    else:
        check_arraylike("trapezoid", y, x)
        y_arr, x_arr = promote_dtypes(y, x, inexact=True)
        dx_array = diff(x_arr) if x_arr.ndim == 1 else moveaxis(diff(x_arr, 1, axis), axis, -1)
    y_arr = moveaxis(y_arr, axis, -1)
    if dx_array.ndim == 0 or dx_array.shape[-1] == 1:   # dx constant along the axis
        dx_reduced = dx_array if dx_array.ndim == 0 else dx_array[..., 0]
        return dx_reduced * (y_arr.sum(-1) - 0.5 * (y_arr[..., 0] + y_arr[..., -1]))
    return 0.5 * (dx_array * (y_arr[..., 1:] + y_arr[..., :-1])).sum(-1)


def _nan_reduction(a, name, reduction, init_val, nan_if_all_nan, axis=None, keepdims=False,
                   mask=None, **kwargs):
    """JAX's `_nan_reduction`: `reduction` of `a` with its NaNs replaced by `init_val`."""
    check_arraylike(name, a)
    a = asarray(a)
    if dtype_kind(a.dtype) not in "fc":
        return reduction(a, axis=axis, keepdims=keepdims, where=mask, **kwargs)
    out = reduction(where(lax.ne(a, a), LiteralArray(np.asarray(init_val, a.dtype)), a),
                    axis=axis, keepdims=keepdims, where=mask, **kwargs)
    if nan_if_all_nan:
        return where(_all(lax.ne(a, a), axis=axis, keepdims=keepdims), _lax_const(a, np.nan), out)
    return out


@jit_in_jaxprs("nanprod", static_argnums=(1, 2, 4))
def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """`prod`, counting NaNs as 1."""
    dtype = None if dtype is None else canonicalize_dtype(dtype)
    return _nan_reduction(a, "nanprod", prod, 1, False, axis=axis, dtype=dtype, out=out,
                          keepdims=keepdims, initial=initial, mask=where)


@jit_in_jaxprs("nancumsum", static_argnums=(1, 2))
def nancumsum(a, axis=None, dtype=None, out=None):
    """`cumsum`, counting NaNs as 0."""
    return _cumulative_reduction("nancumsum", lax.cumsum, a, axis, dtype, out, fill_nan=True,
                                 fill_value=0)


@jit_in_jaxprs("nancumprod", static_argnums=(1, 2))
def nancumprod(a, axis=None, dtype=None, out=None):
    return _cumulative_reduction("nancumprod", lax.cumprod, a, axis, dtype, out, fill_nan=True,
                                 fill_value=1)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """`argmax`, ignoring NaNs: -1 where all are NaN."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanargmax is not supported.")
    check_arraylike("nanargmax", a)
    return _nanargmax(asarray(a), None if axis is None else operator.index(axis), bool(keepdims))


def nanargmin(a, axis=None, out=None, keepdims=None):
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanargmin is not supported.")
    check_arraylike("nanargmin", a)
    return _nanargmin(asarray(a), None if axis is None else operator.index(axis), bool(keepdims))


def _nan_arg_extremum(arg_extremum, fill, a, axis, keepdims):
    if dtype_kind(a.dtype) not in "fc":
        return arg_extremum(a, axis=axis, keepdims=keepdims)
    nan_mask = isnan(a)
    res = arg_extremum(where(nan_mask, fill, a), axis=axis, keepdims=keepdims)
    return where(_all(nan_mask, axis=axis, keepdims=keepdims), -1, res)


@jit_in_jaxprs("_nanargmax", static_argnums=(1, 2))
def _nanargmax(a, axis=None, keepdims=False):
    return _nan_arg_extremum(argmax, -np.inf, a, axis, keepdims)


@jit_in_jaxprs("_nanargmin", static_argnums=(1, 2))
def _nanargmin(a, axis=None, keepdims=False):
    return _nan_arg_extremum(argmin, np.inf, a, axis, keepdims)


def _check_where(name, where):
    if where is None:
        return where
    check_arraylike(name, where)
    where = asarray(where)
    if where.dtype != np.bool_:
        raise ValueError(f"jnp.{name}: where must be None or a boolean array; got "
                         f"dtype={where.dtype}.")
    return where


def _var_promote_types(a_dtype, dtype):
    """The dtypes in which to compute a variance and to return it (a real one, for complex
    values), half precision computed in float32."""
    if dtype:
        if dtype_kind(dtype) != "c" and dtype_kind(a_dtype) == "c":
            raise ValueError("jax.numpy.var does not yet support real dtype parameters when "
                             "computing the variance of an array of complex values. The "
                             "semantics of numpy.var seem unclear in this case. Please comment "
                             "on https://github.com/jax-ml/jax/issues/2283 if this behavior is "
                             "important to you.")
        computation = dtype
    elif dtype_kind(a_dtype) not in "fc":
        dtype = computation = np.dtype(np.float32)
    else:
        dtype, computation = lax.real_dtype(a_dtype), a_dtype
    half = np.dtype(computation) in (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))
    return np.dtype(np.float32 if half else computation), np.dtype(dtype)


def _nan_var_checks(name, a, dtype, out, where):
    check_arraylike(name, a)
    where = _check_where(name, where)
    dtype = None if dtype is None else canonicalize_dtype(dtype)
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported.")
    return asarray(a), dtype, where


@jit_in_jaxprs("nanvar", static_argnums=(1, 2, 5))
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    """The variance of the elements that are not NaN, divided by their count less `ddof`."""
    a, dtype, where = _nan_var_checks("nanvar", a, dtype, out, where)
    return _nanvar(a, axis, dtype, ddof, keepdims, where, mean)


def _nanvar(a, axis, dtype, ddof, keepdims, mask, a_mean):
    computation, dtype = _var_promote_types(a.dtype, dtype)
    a = a.astype(computation)
    if a_mean is None:
        a_mean = nanmean(a, axis, dtype=computation, keepdims=True, where=mask)
    else:
        check_arraylike("nanvar", a_mean)
        a_mean = asarray(a_mean).astype(computation)
    centered = where(lax.ne(a, a), 0, lax.sub(a, a_mean))       # (a NaN's gradient: 0)
    if dtype_kind(centered.dtype) == "c":
        centered = lax.real(lax.mul(centered, lax.conj(centered)))
    else:
        centered = lax.square(centered)
    normalizer = _sum(lax.bitwise_not(lax.ne(a, a)), axis=axis, keepdims=keepdims, where=mask)
    normalizer = normalizer - ddof
    normalizer_mask = lax.le(normalizer, _lax_const(normalizer, 0))
    result = _sum(centered, axis, keepdims=keepdims, where=mask)
    result = where(normalizer_mask, np.nan, result)
    divisor = where(normalizer_mask, 1, normalizer)
    result = lax.div(result, lax.convert_element_type(divisor, result.dtype))
    return lax.convert_element_type(result, dtype)


@jit_in_jaxprs("nanstd", static_argnums=(1, 2, 5))
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, mean=None):
    a, dtype, where = _nan_var_checks("nanstd", a, dtype, out, where)
    return lax.sqrt(nanvar(a, axis, dtype, None, ddof, keepdims, where, mean))


@jit_in_jaxprs("sort_complex")
def sort_complex(a):
    """`a` sorted along its last axis, as complex numbers (real parts first, then imaginary)."""
    check_arraylike("sort_complex", a)
    a = sort(asarray(a))
    return lax.convert_element_type(a, np.complex64)


def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """Whether each element of `element` is one of `test_elements` (or is not, with `invert`)."""
    check_arraylike("isin", element, test_elements)
    element, test_elements = asarray(element), asarray(test_elements)
    result = _in1d(element, test_elements, invert, method, assume_unique)
    return result.reshape(np.shape(element))


@jit_in_jaxprs("_in1d", static_argnums=(2, 3, 4))
def _in1d(ar1, ar2, invert, method="auto", assume_unique=False):
    check_arraylike("in1d", ar1, ar2)
    arr1, arr2 = (ravel(a) for a in promote_dtypes(ar1, ar2))
    if arr1.size == 0 or arr2.size == 0:
        return (ones if invert else zeros)(arr1.shape, dtype=bool)
    if method in ("auto", "compare_all"):                 # every pair compared
        if invert:
            return (arr1[:, None] != arr2[None, :]).all(-1)
        return (arr1[:, None] == arr2[None, :]).any(-1)
    if method == "binary_search":
        arr2 = sort(arr2)
        found = arr2[searchsorted(arr2, arr1)]
        return arr1 != found if invert else arr1 == found
    if method == "sort":                # (`unique` is defined below, under "Sets")
        ind_out = slice(None)
        if not assume_unique:
            arr1, ind_out = unique(arr1, size=len(arr1), return_inverse=True,
                                   fill_value=arr2.max())
        aux, ind = sort_key_val(concatenate([arr1, arr2]), arange(arr1.size + arr2.size))
        same = aux[1:] != aux[:-1] if invert else aux[1:] == aux[:-1]
        start = (ones if invert else zeros)(arr1.shape, bool)
        return start.at[ind[:-1]].set(same, mode="drop")[ind_out]
    raise ValueError(f"{method=} is not implemented; options are 'compare_all', "
                     "'binary_search', 'sort', and 'auto'")


@jit_in_jaxprs("vander", static_argnums=(1, 2))
def vander(x, N=None, increasing=False):
    """The powers of the vector `x`, one per column: `N` of them, highest first."""
    check_arraylike("vander", x)
    x = asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = x.shape[0] if N is None else _concrete_int(N, "'N' argument of jnp.vander()")
    if N < 0:
        raise ValueError("N must be nonnegative")
    iota = lax.iota(x.dtype, N)
    if not increasing:
        iota = lax.sub(_lax_const(iota, N - 1), iota)
    return power(x[..., None], expand_dims(iota, tuple(range(x.ndim))))


@jitted("unroll", name="polyval", staged=True)
def polyval(p, x, *, unroll=16):
    """The polynomial with coefficients `p` (highest power first) at `x`, by Horner's rule."""
    check_arraylike("polyval", p, x)
    p_arr, x_arr = promote_dtypes(p, x)
    shape = broadcast_shapes(p_arr.shape[1:], x_arr.shape)
    y = lax.full_like(x_arr, 0, shape=shape, dtype=x_arr.dtype)
    y, _ = scan(lambda y, p: (y * x_arr + p, None), y, p_arr, unroll=unroll)
    return y


@jit_in_jaxprs("polyadd")
def polyadd(a1, a2):
    """The sum of two polynomials: the shorter's coefficients added to the longer's last."""
    check_arraylike("polyadd", a1, a2)
    a1, a2 = promote_dtypes(a1, a2)
    if a2.shape[0] <= a1.shape[0]:
        return a1.at[-a2.shape[0]:].add(a2)
    return a2.at[-a1.shape[0]:].add(a1)


@jit_in_jaxprs("polysub")
def polysub(a1, a2):
    check_arraylike("polysub", a1, a2)
    a1, a2 = promote_dtypes(a1, a2)
    return polyadd(a1, -a2)


@jit_in_jaxprs("polyint", static_argnums=(1,))
def polyint(p, m=1, k=None):
    """The `m`-th antiderivative, with the integration constants `k` (one, or one per step)."""
    m = _concrete_int(m, "'m' argument of jnp.polyint")
    k = 0 if k is None else k
    check_arraylike("polyint", p, k)
    p_arr, k_arr = promote_dtypes(p, k, inexact=True)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    k_arr = atleast_1d(k_arr)
    if len(k_arr) == 1:
        k_arr = full((m,), k_arr[0])
    if k_arr.shape != (m,):
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or m.")
    if m == 0:
        return p_arr
    grid = (arange(len(p_arr) + m, dtype=p_arr.dtype)[np.newaxis]
            - arange(m, dtype=p_arr.dtype)[:, np.newaxis])
    coeff = maximum(1, grid).prod(0)[::-1]
    return true_divide(concatenate((p_arr, k_arr)), coeff)


@jit_in_jaxprs("polyder", static_argnums=(1,))
def polyder(p, m=1):
    """The `m`-th derivative: each coefficient times the falling product of its power."""
    check_arraylike("polyder", p)
    m = _concrete_int(m, "'m' argument of jnp.polyder")
    p_arr, = promote_dtypes(p, inexact=True)
    if m < 0:
        raise ValueError("Order of derivative must be positive")
    if m == 0:
        return p_arr
    coeff = (arange(m, len(p_arr), dtype=p_arr.dtype)[np.newaxis]
             - arange(m, dtype=p_arr.dtype)[:, np.newaxis]).prod(0)
    return p_arr[:-m] * coeff[::-1]


_register("matvec vecmat vecdot ptp average trapezoid nanprod nancumsum nancumprod nanargmax "
          "nanargmin nanvar nanstd sort_complex isin vander polyval polyadd polysub polyint "
          "polyder")


@jit_in_jaxprs("lexsort", static_argnums=(1,))
def lexsort(keys, axis=-1):
    """The permutation that sorts by the last key, ties broken by the one before, and so on."""
    keys = tuple(keys)
    check_arraylike("lexsort", *keys)
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    keys = [asarray(k) for k in keys]
    if len({k.shape for k in keys}) > 1:
        raise ValueError("all keys need to be the same shape")
    index = canonicalize_dtype(np.int64)
    if keys[0].ndim == 0:
        return lax.full((), 0, index)
    axis = canonical_axis(axis, keys[0].ndim)
    iota = lax.broadcasted_iota(index, keys[0].shape, axis)
    return sort((*keys[::-1], iota), dimension=axis, num_keys=len(keys))[-1]


_UNIQUE_SIZE_HINT = ("To make jnp.unique() compatible with JIT and other transforms, you can "
                     "specify a concrete value for the size argument, which will determine the "
                     "output size.")


@jit_in_jaxprs("_unique_sorted_mask", static_argnums=(1, 2))
def _unique_sorted_mask(ar, axis, equal_nan):
    """The slices of `ar` along `axis` sorted (moved to the front), a mask that is true at the
    first of each run of equal slices, and the sorting permutation."""
    aux = moveaxis(ar, axis, 0)
    if dtype_kind(aux.dtype) == "c":                    # a NaN anywhere: the same NaN
        aux = where(isnan(aux), _lax_const(aux, np.nan), aux)
    size, *rest = aux.shape
    if math.prod(rest) == 0:
        size, perm = 1, zeros(1, dtype=int)
    else:
        perm = lexsort(aux.reshape(size, math.prod(rest)).T[::-1])
    aux = aux[perm]
    if not aux.size:
        return aux, zeros(size, dtype=bool), perm
    if dtype_kind(aux.dtype) in "fc" and equal_nan:
        def neq(x, y): return lax.ne(x, y) & ~(isnan(x) & isnan(y))
    else:
        neq = lax.ne
    changed = _any(neq(aux[1:], aux[:-1]), tuple(range(1, aux.ndim)))
    return aux, ones(size, dtype=bool).at[1:].set(changed), perm


def _unique(ar, axis, return_index=False, return_inverse=False, return_counts=False,
            equal_nan=True, size=None, fill_value=None, return_true_size=False):
    """The unique slices of `ar` along `axis`, and what `unique` asks for besides."""
    axis = canonical_axis(axis, ar.ndim)
    if ar.shape[axis] == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    aux, mask, perm = _unique_sorted_mask(ar, axis, equal_nan)
    if size is None:
        ind = asarray(_concrete_value(mask, "The error arose in jnp.unique(). "
                                      + _UNIQUE_SIZE_HINT))
    else:
        ind = nonzero(mask, size=size)[0]
    result = aux[ind] if aux.size else aux
    if size is not None and fill_value is not None:
        fill_value = asarray(fill_value).astype(result.dtype)
        if result.shape[0]:
            valid = lax.expand_dims(arange(size) < mask.sum(), tuple(range(1, result.ndim)))
            result = where(valid, result, fill_value)
        else:
            result = full((size, *result.shape[1:]), fill_value, result.dtype)
    out = [moveaxis(result, 0, axis)]
    if return_index:
        out.append(perm[ind] if aux.size else perm)
    if return_inverse:
        if aux.size:
            out.append(zeros(mask.shape, dtype=int).at[perm].set(mask.cumsum() - 1))
        else:
            out.append(zeros(ar.shape[axis], dtype=int))
    if return_counts:
        if aux.size and size is None:
            out.append(diff(concatenate([nonzero(mask)[0], array([mask.size])])))
        elif aux.size:
            idx = nonzero(mask, size=size + 1)[0]
            out.append(diff(idx.at[1:].set(where(idx[1:], idx[1:], mask.size))))
        else:
            out.append(full((1,) if ar.shape[axis] else (0,), ar.shape[axis], dtype=int))
    if return_true_size:
        out.append(mask.sum())
    return out[0] if len(out) == 1 else tuple(out)


def _static_size(size, what):
    return None if size is None else _concrete_int(size, f"The error arose {what}. "
                                                   + _UNIQUE_SIZE_HINT)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, size=None, fill_value=None, sorted=True):
    """The sorted unique elements of `ar` (or slices along `axis`); with `size`, exactly that
    many, padded with `fill_value` (by default the smallest)."""
    check_arraylike("unique", ar)
    arr = asarray(ar)
    size = _static_size(size, "for the size argument of jnp.unique()")
    if size is None:
        _concrete_value(arr, "The error arose for the first argument of jnp.unique(). "
                        + _UNIQUE_SIZE_HINT)
    shape = arr.shape
    if axis is None:
        arr, axis_int = ravel(arr), 0
    else:
        axis_int = canonical_axis(axis, arr.ndim)
    result = _unique(arr, axis_int, return_index, return_inverse, return_counts,
                     equal_nan=equal_nan, size=size, fill_value=fill_value)
    if return_inverse and axis is None:
        i = 2 if return_index else 1
        result = (*result[:i], result[i].reshape(shape), *result[i + 1:])
    return result


class _UniqueAllResult(collections.namedtuple(
        "_UniqueAllResult", "values indices inverse_indices counts")):
    """`unique_all`'s four arrays, by name."""


class _UniqueCountsResult(collections.namedtuple("_UniqueCountsResult", "values counts")):
    """`unique_counts`'s arrays, by name."""


class _UniqueInverseResult(collections.namedtuple(
        "_UniqueInverseResult", "values inverse_indices")):
    """`unique_inverse`'s arrays, by name."""


def unique_all(x, /, *, size=None, fill_value=None):
    check_arraylike("unique_all", x)
    return _UniqueAllResult(*unique(x, True, True, True, equal_nan=False, size=size,
                                    fill_value=fill_value))


def unique_counts(x, /, *, size=None, fill_value=None):
    check_arraylike("unique_counts", x)
    return _UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size,
                                       fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    check_arraylike("unique_inverse", x)
    return _UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size,
                                        fill_value=fill_value))


def unique_values(x, /, *, size=None, fill_value=None):
    check_arraylike("unique_values", x)
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted unique values found in either array."""
    check_arraylike("union1d", ar1, ar2)
    ar1, ar2 = asarray(ar1), asarray(ar2)
    size = _static_size(size, "in union1d()")
    if size is None:
        for a in (ar1, ar2):
            _concrete_value(a, "The error arose in union1d()")
    return unique(concatenate((ravel(ar1), ravel(ar2))), size=size, fill_value=fill_value)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique values of `ar1` that are not in `ar2`."""
    check_arraylike("setdiff1d", ar1, ar2)
    arr1, arr2 = ravel(asarray(ar1)), ravel(asarray(ar2))
    size = _static_size(size, "in setdiff1d()")
    if size is None:
        _concrete_value(arr1, "The error arose in setdiff1d()")
    fill = full((), 0 if fill_value is None else fill_value, arr1.dtype)
    if arr1.size == 0:
        return full(size or 0, fill, arr1.dtype)
    if not assume_unique:
        arr1 = unique(arr1, size=size and arr1.size)
    mask = _in1d(arr1, arr2, True, "auto", assume_unique)
    if size is None:
        return arr1[mask]
    if not assume_unique:                   # the padding of `unique` is not in the set
        n_unique = arr1.size + 1 - (arr1 == arr1[0]).sum()
        mask = where(arange(arr1.size) < n_unique, mask, False)
    return where(arange(size) < mask.sum(), arr1[nonzero(mask, size=size)], fill)


def _concat_unique(arr1, arr2):
    """The unique values of each array, one set after the other, and how many there are."""
    arr1, n1 = _unique(ravel(arr1), 0, size=arr1.size, return_true_size=True)
    arr2, n2 = _unique(ravel(arr2), 0, size=arr2.size, return_true_size=True)
    arr = zeros(arr1.size + arr2.size, dtype=result_type(arr1, arr2))
    arr = dynamic_update_slice(arr, arr1, (0,))
    return dynamic_update_slice(arr, arr2, (n1,)), n1 + n2


def _fill_past(vals, num_results, fill_value):
    """`vals` with the slots past `num_results` holding `fill_value`, by default the largest
    and then the smallest value there is."""
    valid = arange(len(vals)) < num_results
    if fill_value is not None:
        return where(valid, vals, fill_value)
    vals = where(valid, vals, vals.max())
    return where(valid, vals, vals.min())


@jit_in_jaxprs("_setxor1d_size", static_argnums=(3, 4))
def _setxor1d_size(arr1, arr2, fill_value, assume_unique, size):
    if assume_unique:
        aux = jnp_sort(concatenate([arr1, arr2]))
        flag = concatenate([array([bool(aux.size)]), aux[1:] != aux[:-1], array([True])])
    else:
        arr, num_unique = _concat_unique(arr1, arr2)
        mask = arange(arr.size + 1) < num_unique + 1
        _, aux = sort([~mask[1:], arr], is_stable=True, num_keys=2)
        flag = mask & concatenate([array([bool(aux.size)]), aux[1:] != aux[:-1],
                                   array([False])]).at[num_unique].set(True)
    aux_mask = flag[1:] & flag[:-1]
    if aux.size:
        indices = nonzero(aux_mask, size=size, fill_value=len(aux))[0]
        vals = aux.at[indices].get(mode="fill", fill_value=0)
    else:
        vals = zeros(size, aux.dtype)
    return _fill_past(vals, aux_mask.sum(), fill_value)


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted unique values found in exactly one of the arrays."""
    check_arraylike("setxor1d", ar1, ar2)
    arr1, arr2 = promote_dtypes(ravel(asarray(ar1)), ravel(asarray(ar2)))
    if size is not None:
        return _setxor1d_size(arr1, arr2, fill_value, assume_unique, operator.index(size))
    if not assume_unique:
        arr1, arr2 = unique(arr1), unique(arr2)
    aux = concatenate((arr1, arr2))
    if aux.size == 0:
        return aux
    aux = jnp_sort(aux)
    flag = concatenate([array([True]), aux[1:] != aux[:-1], array([True])])
    return aux[flag[1:] & flag[:-1]]


@jit_in_jaxprs("_intersect1d_sorted_mask", static_argnums=(2,))
def _intersect1d_sorted_mask(arr1, arr2, return_indices):
    arr = concatenate((arr1, arr2))
    if not return_indices:
        aux = jnp_sort(arr)
        return aux, aux[1:] == aux[:-1], None
    aux, indices = sort_key_val(arr, lax.iota(np.dtype(np.int32), arr.shape[0]))
    return aux, aux[1:] == aux[:-1], indices


@jit_in_jaxprs("_intersect1d_size", static_argnums=(2, 3, 4, 5))
def _intersect1d_size(arr1, arr2, fill_value, assume_unique, size, return_indices):
    """`intersect1d` with `size`: the unique values of both (and where they came from), sorted
    together, kept where a value equals the next."""
    if assume_unique:
        ind1, num1 = arange(arr1.size), full((), arr1.size)
        ind2 = arange(arr2.size)
        arr = concatenate([arr1, arr2])
        aux, aux_sort_indices = sort([arr, arange(arr.size)], is_stable=True, num_keys=1)
        mask = ones(arr.size, dtype=bool)
    else:
        arr1, ind1, num1 = _unique(arr1, 0, size=arr1.size, return_index=True,
                                   return_true_size=True, fill_value=0)
        arr2, ind2, num2 = _unique(arr2, 0, size=arr2.size, return_index=True,
                                   return_true_size=True, fill_value=0)
        arr = zeros(arr1.size + arr2.size, dtype=result_type(arr1, arr2))
        arr = dynamic_update_slice(arr, arr1, (0,))
        arr = dynamic_update_slice(arr, arr2, (num1,))
        mask = arange(arr.size) < num1 + num2
        _, aux, aux_sort_indices = sort([~mask, arr, arange(arr.size)], is_stable=True,
                                        num_keys=2)
    aux_mask = (aux[1:] == aux[:-1]) & mask[1:]
    num_results = aux_mask.sum()
    if aux.size:
        val_indices = nonzero(aux_mask, size=size, fill_value=aux.size)[0]
        vals = aux.at[val_indices].get(mode="fill", fill_value=0)
    else:
        val_indices, vals = arange(0), zeros(size, aux.dtype)
    vals = _fill_past(vals, num_results, fill_value)
    if not return_indices:
        return vals
    valid = arange(len(val_indices)) < num_results
    idx1 = aux_sort_indices.at[val_indices].get(mode="fill", fill_value=arr1.size)
    idx1 = where(valid, idx1, arr1.size)
    idx2 = aux_sort_indices.at[val_indices + 1].get(mode="fill", fill_value=arr2.size) - num1
    idx2 = where(valid, idx2, arr2.size)
    if not assume_unique:
        idx1 = ind1.at[idx1].get(mode="fill", fill_value=ind1.size)
        idx2 = ind2.at[idx2].get(mode="fill", fill_value=ind2.size)
    return vals, idx1, idx2


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted unique values found in both arrays, and with `return_indices` where each is
    first found in each."""
    check_arraylike("intersect1d", ar1, ar2)
    arr1, arr2 = (ravel(a) for a in promote_dtypes(ar1, ar2))
    if size is not None:
        return _intersect1d_size(arr1, arr2, fill_value, assume_unique, operator.index(size),
                                 return_indices)
    ind1 = ind2 = arange(0)
    if not assume_unique and return_indices:
        (arr1, ind1), (arr2, ind2) = unique(arr1, True), unique(arr2, True)
    elif not assume_unique:
        arr1, arr2 = unique(arr1), unique(arr2)
    aux, mask, aux_sort_indices = _intersect1d_sorted_mask(arr1, arr2, return_indices)
    int1d = aux[:-1][mask]
    if not return_indices:
        return int1d
    idx1 = aux_sort_indices[:-1][mask]
    idx2 = aux_sort_indices[1:][mask] - np.size(arr1)
    if not assume_unique:
        idx1, idx2 = ind1[idx1], ind2[idx2]
    return int1d, idx1, idx2


_register("lexsort unique unique_all unique_counts unique_inverse unique_values union1d "
          "setdiff1d setxor1d intersect1d")


def delete(arr, obj, axis=None, *, assume_unique_indices=False):
    """`arr` without the elements (or slices along `axis`) that `obj` names."""
    check_arraylike("delete", arr)
    a = asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonical_axis(axis, a.ndim)
    before = (slice(None),) * axis
    try:
        obj = canonical_axis(operator.index(obj), a.shape[axis])
    except TypeError:
        pass
    else:
        return concatenate([a[before + (slice(0, obj),)], a[before + (slice(obj + 1, None),)]],
                           axis=axis)
    if isinstance(obj, slice):
        obj, assume_unique_indices = arange(a.shape[axis])[obj], True
    check_arraylike("delete", a, obj)
    if dtype_kind(np.result_type(getattr(obj, "dtype", type(obj)))) in "iu" and (
            assume_unique_indices):
        gone = ravel(asarray(obj))
        gone = clip(where(gone < 0, gone + a.shape[axis], gone), 0, a.shape[axis])
        gone = jnp_sort(gone) - arange(len(gone), dtype=gone.dtype)
        kept = arange(a.shape[axis] - gone.size, dtype=gone.dtype)
        kept = kept + (kept[None, :] >= gone[:, None]).sum(0, dtype=kept.dtype)
        return a[before + (kept,)]
    obj = np.asarray(_concrete_value(obj, "'obj' array argument of jnp.delete()"))
    if dtype_kind(obj.dtype) in "iu":
        mask = np.ones(a.shape[axis], dtype=bool)
        mask[obj] = False
    elif obj.dtype == np.bool_:
        if obj.shape != (a.shape[axis],):
            raise ValueError("np.delete(arr, obj): for boolean indices, obj must be "
                             "one-dimensional with length matching specified axis.")
        mask = ~obj
    else:
        raise ValueError(f"np.delete(arr, obj): got obj.dtype={obj.dtype}; must be integer "
                         "or bool.")
    return a[before + (mask,)]


def insert(arr, obj, values, axis=None):
    """`arr` with `values` inserted before the positions `obj` (along `axis`)."""
    check_arraylike("insert", arr, 0 if isinstance(obj, slice) else obj, values)
    a, values = asarray(arr), asarray(values)
    if axis is None:
        a, axis = ravel(a), 0
    axis = canonical_axis(_concrete_int(axis, "axis argument of jnp.insert()"), a.ndim)
    if isinstance(obj, slice):
        positions = arange(*obj.indices(a.shape[axis]))
    else:
        positions = asarray(obj)
    if positions.ndim > 1:
        raise ValueError("jnp.insert(): obj must be a slice, a one-dimensional array, or a "
                         f"scalar; got {obj}")
    if dtype_kind(positions.dtype) not in "iu":
        if positions.size == 0 and not isinstance(obj, (Array, Tracer)):
            positions = positions.astype(int)
        else:
            raise ValueError(f"jnp.insert(): index array must be integer typed; got {obj}")
    values = values.astype(a.dtype)
    if values.ndim < a.ndim:
        values = lax.expand_dims(values, tuple(range(a.ndim - values.ndim)))
    if positions.size == 1:
        index = ravel(positions)[0]
        if positions.ndim == 0:
            values = moveaxis(values, 0, axis)
        positions = full(values.shape[axis], index)
    n_input = a.shape[axis]
    n_insert = broadcast_shapes(positions.shape, (values.shape[axis],))[0]
    shape = list(a.shape)
    shape[axis] += n_insert
    positions = clip(where(positions < 0, positions + n_input, positions), 0, n_input)
    values_at = positions.at[argsort(positions)].add(arange(n_insert, dtype=positions.dtype))
    kept = ones(n_input + n_insert, dtype=bool).at[values_at].set(False)
    kept_at = nonzero(kept, size=n_input)[0]
    before = (slice(None),) * axis
    out = zeros(shape, a.dtype).at[before + (values_at,)].set(values)
    return out.at[before + (kept_at,)].set(a)


def bincount(x, weights=None, minlength=0, *, length=None, out_sharding=None):
    """How many times each value `0, 1, ...` occurs in `x` (the sum of `weights` there)."""
    check_arraylike("bincount", x)
    x = asarray(x)
    if x.dtype == np.bool_:
        x = lax.convert_element_type(x, np.int32)
    if dtype_kind(x.dtype) not in "iu":
        raise TypeError(f"x argument to bincount must have an integer type; got {x.dtype}")
    if x.ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = _concrete_int(minlength, "The error occurred because of argument 'minlength' "
                              "of jnp.bincount.")
    if length is None:
        x_arr = np.asarray(_concrete_value(x, "The error occurred because of argument 'x' of "
                                           "jnp.bincount. To avoid this error, pass a static "
                                           "`length` argument."))
        length = builtins.max(minlength, x_arr.size and int(builtins.max(0, x_arr.max())) + 1)
    else:
        length = _concrete_int(length, "The error occurred because of argument 'length' of "
                               "jnp.bincount.")
    if weights is None:
        weights = np.array(1, dtype=canonicalize_dtype(np.int64))
    elif np.shape(x) != np.shape(weights):
        raise ValueError(f"type of weights must match type of x. Got typeof(x)={get_aval(x)} "
                         f"and typeof(weights)={get_aval(asarray(weights))}")
    return zeros(length, result_type(weights)).at[clip(x, 0)].add(weights, mode="drop")


@jit_in_jaxprs("digitize", static_argnums=(2,))
def digitize(x, bins, right=False, *, method=None):
    """The index of the bin of each element of `x`, for increasing or decreasing `bins`."""
    check_arraylike("digitize", x, bins)
    x, bins_arr = asarray(x), asarray(bins)
    if bins_arr.ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got {bins=}")
    if bins_arr.shape[0] == 0:
        return zeros(x.shape, np.int32)
    side = "left" if right else "right"
    return where(bins_arr[-1] >= bins_arr[0], searchsorted(bins_arr, x, side=side),
                 bins_arr.shape[0] - searchsorted(bins_arr[::-1], x, side=side))


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The edges of `bins` equal bins over `range` (by default, the values' range)."""
    if isinstance(bins, str):
        raise NotImplementedError("string values for `bins` not implemented.")
    check_arraylike("histogram_bin_edges", a, bins)
    arr = asarray(a)
    dtype = promote_dtypes(arr, inexact=True)[0].dtype
    if np.ndim(bins) == 1:
        return asarray(bins).astype(dtype)
    n = _concrete_int(bins, "bins argument of histogram_bin_edges")
    limits = stack([arr.min(), arr.max()]) if range is None else asarray(range).astype(dtype)
    limits = limits.astype(dtype)
    if limits.shape != (2,):
        raise ValueError(f"`range` must be either None or a sequence of scalars, got {range}")
    empty_range = _ptp(limits, None, False) == 0
    lo = where(empty_range, limits[0] - 0.5, limits[0])
    hi = where(empty_range, limits[1] + 0.5, limits[1])
    return _linspace(lo, hi, n + 1, dtype)


def _linspace(start, stop, num, dtype):
    """JAX's `linspace` of scalar bounds that may be traced (A1's takes concrete ones):
    `start * (1 - t) + stop * t` for `t = i / (num - 1)`, then `stop`."""
    start, stop = start.astype(dtype), stop.astype(dtype)
    if num == 1:
        return lax.expand_dims(start, (0,))
    div = num - 1
    step = lax.iota(dtype, div) / asarray(div, dtype)
    out = lax.expand_dims(start, (0,)) * (1 - step) + lax.expand_dims(stop, (0,)) * step
    return lax.concatenate([out, lax.expand_dims(stop, (0,))], 0)


def histogram(a, bins=10, range=None, weights=None, density=None):
    """The count (or weight) of the samples in each bin, and the bins' edges."""
    if weights is None:
        check_arraylike("histogram", a, bins)
        a, = promote_dtypes(a, inexact=True)
        weights = ones(a.shape, a.dtype)
    else:
        check_arraylike("histogram", a, bins, weights)
        if np.shape(a) != np.shape(weights):
            raise ValueError("weights should have the same shape as a.")
        a, weights = promote_dtypes(a, weights, inexact=True)
    edges = histogram_bin_edges(a, bins, range, weights)
    bin_idx = searchsorted(edges, a, side="right")
    bin_idx = where(a == edges[-1], len(edges) - 1, bin_idx)
    counts = zeros(len(edges), weights.dtype).at[bin_idx].add(weights)[1:]
    if density:
        counts = counts / diff(edges) / counts.sum()
    return counts, edges


def histogramdd(sample, bins=10, range=None, weights=None, density=None):
    """The counts of `sample`'s rows (points of `D` coordinates) in a grid of bins."""
    if weights is None:
        check_arraylike("histogramdd", sample)
        sample, = promote_dtypes(sample, inexact=True)
    else:
        check_arraylike("histogramdd", sample, weights)
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = promote_dtypes(sample, weights, inexact=True)
    n, d = sample.shape
    if range is not None and (len(range) != d or builtins.any(
            r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence of {d} pairs or "
                         f"Nones; got {range=}")
    try:
        bins_per_axis = list(bins)
    except TypeError:
        bins_per_axis = d * [bins]
    else:
        if len(bins_per_axis) != d:
            raise ValueError("should be a bin for each dimension.")
    bin_idx, edges = [], []
    for i in builtins.range(d):
        e = histogram_bin_edges(sample[:, i], bins_per_axis[i],
                                None if range is None else range[i], weights)
        idx = searchsorted(e, sample[:, i], side="right")
        bin_idx.append(where(sample[:, i] == e[-1], idx - 1, idx))
        edges.append(e)
    nbins = tuple(len(e) + 1 for e in edges)
    flat = ravel_multi_index(tuple(bin_idx), nbins, mode="clip")
    hist = bincount(flat, weights, length=math.prod(nbins)).reshape(nbins)
    hist = hist[(slice(1, -1),) * d]
    if density:
        hist = hist.astype(sample.dtype)
        hist = hist / hist.sum()
        for width in ix_(*(diff(e) for e in edges)):
            hist = hist / width
    return hist, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
    """`histogramdd` of the points `(x, y)`, and the edges along each."""
    check_arraylike("histogram2d", x, y)
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):
        bins = [asarray(bins), asarray(bins)]
    hist, edges = histogramdd(transpose(stack([asarray(x), asarray(y)])), bins, range,
                              weights, density)
    return hist, edges[0], edges[1]


def _tile_to_size(arr, size):
    """The vector `arr` repeated, or cut, to `size` elements."""
    if arr.size < size:
        arr = tile(arr, int(np.ceil(size / arr.size)))
    return arr[:size] if arr.size > size else arr


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """`a` with `val` (repeated as needed) on its main diagonal."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    check_arraylike("fill_diagonal", a, val)
    a, val = asarray(a), asarray(val)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and not builtins.all(n == a.shape[0] for n in a.shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = builtins.min(a.shape)
    return a.at[diag_indices(n, a.ndim)].set(val if val.ndim == 0
                                             else _tile_to_size(ravel(val), n))


def compress(condition, a, axis=None, *, size=None, fill_value=0, out=None):
    """The slices of `a` along `axis` where `condition` is true."""
    check_arraylike("compress", condition, a, fill_value)
    condition, arr = asarray(condition).astype(bool), asarray(a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    if condition.ndim != 1:
        raise ValueError("condition must be a 1D array")
    if axis is None:
        axis, arr = 0, ravel(arr)
    else:
        arr = moveaxis(arr, axis, 0)
    condition, extra = condition[:arr.shape[0]], condition[arr.shape[0]:]
    arr = arr[:condition.shape[0]]
    if size is None:
        if _any(extra):
            raise ValueError("condition contains entries that are out of bounds")
        result = arr[condition]
    elif not 0 <= size <= arr.shape[0]:
        raise ValueError("size must be positive and not greater than the size of the array "
                         f"axis; got {size=} for a.shape[axis]={arr.shape[0]}")
    else:
        mask = expand_dims(condition, tuple(builtins.range(1, arr.ndim)))
        fill = lax.convert_element_type(copy_p.bind(asarray(fill_value)), arr.dtype)
        arr = where(mask, arr, fill)            # (`array(fill_value)`: `copy_p`, below)
        result = arr[argsort(condition, stable=True, descending=True)][:size]
    return moveaxis(result, 0, axis)


def extract(condition, arr, *, size=None, fill_value=0):
    check_arraylike("extreact", condition, arr, fill_value)        # (JAX's spelling)
    return compress(ravel(condition), ravel(arr), size=size, fill_value=fill_value)


def place(arr, mask, vals, *, inplace=True):
    """`arr` with `vals`, in order and repeated as needed, where `mask` is true."""
    check_arraylike("place", arr, mask, vals)
    data, mask, vals = asarray(arr), asarray(mask), ravel(asarray(vals))
    if inplace:
        raise ValueError("jax.numpy.place cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")
    if data.size != mask.size:
        raise ValueError("place: arr and mask must be the same size")
    if not vals.size:
        raise ValueError("Cannot place values from an empty array")
    if not data.size:
        return data
    at = nonzero(ravel(mask), size=mask.size, fill_value=mask.size)[0]
    return ravel(data).at[at].set(_tile_to_size(vals, len(at)), mode="drop").reshape(
        data.shape)


def put(a, ind, v, mode=None, *, inplace=True):
    """`a` with the values `v` at the flat indices `ind`."""
    if inplace:
        raise ValueError("jax.numpy.put cannot modify arrays in-place, because JAX arrays are "
                         "immutable. Pass inplace=False to instead return an updated array.")
    check_arraylike("put", a, ind, v)
    arr, ind, v = asarray(a), ravel(asarray(ind)), ravel(asarray(v))
    if not arr.size or not ind.size or not v.size:
        return arr
    v = _tile_to_size(v, len(ind))
    if mode is None:
        scatter_mode = "drop"
    elif mode in ("clip", "wrap"):
        ind = clip(ind, 0, arr.size - 1) if mode == "clip" else ind % arr.size
        scatter_mode = "promise_in_bounds"
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"mode should be one of 'wrap' or 'clip'; got {mode=}")
    return arr.at[unravel_index(ind, arr.shape)].set(v, mode=scatter_mode)


@jit_in_jaxprs("put_along_axis", static_argnums=(3, 4))
def put_along_axis(arr, indices, values, axis, inplace=True, *, mode=None):
    """`arr` with `values` written where `take_along_axis(arr, indices, axis)` reads."""
    if inplace:
        raise ValueError("jax.numpy.put_along_axis cannot modify arrays in-place, because JAX "
                         "arraysare immutable. Pass inplace=False to instead return an updated "
                         "array.")                                  # (JAX's words)
    check_arraylike("put_along_axis", arr, indices, values)
    arr, indices, values = asarray(arr), asarray(indices), asarray(values)
    shape = arr.shape
    if axis is None:
        arr, axis_ = ravel(arr), 0
    else:
        axis_ = canonical_axis(axis, arr.ndim)
    if arr.ndim != indices.ndim:
        raise ValueError("put_along_axis arguments 'arr' and 'indices' must have same ndim. "
                         f"Got arr.ndim={arr.ndim} and indices.ndim={indices.ndim}.")
    try:
        values = broadcast_to(values, indices.shape)
    except ValueError:
        raise ValueError("put_along_axis argument 'values' must be broadcastable to 'indices'. "
                         f"Got values.shape={values.shape} and indices.shape={indices.shape}.")
    idx = list(globals()["indices"](arr.shape, sparse=True))
    idx[axis_] = indices
    result = arr.at[tuple(idx)].set(values, mode=mode)
    return result.reshape(shape) if axis is None else result


@jit_in_jaxprs("resize", static_argnums=(1,))
def resize(a, new_shape):
    """The flattened `a`, repeated as needed, in the shape `new_shape`."""
    check_arraylike("resize", a)
    new_shape = (operator.index(new_shape),) if np.ndim(new_shape) == 0 else tuple(
        operator.index(d) for d in new_shape)
    if builtins.any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    arr = ravel(asarray(a))
    size = math.prod(new_shape)
    if arr.size == 0 or size == 0:
        return zeros(new_shape, arr.dtype)
    return tile(arr, -(-size // arr.size))[:size].reshape(new_shape)


def trim_zeros(filt, trim="fb", axis=None):
    """`filt` without its leading (`"f"`) and trailing (`"b"`) zeros along `axis`."""
    check_arraylike("trim_zeros", filt)
    filt = asarray(filt)
    _concrete_value(filt, "Error arose in the `filt` argument of trim_zeros()")
    axes = set(_axis_tuple(axis, filt.ndim))
    trim = trim.lower()
    if not axes or ("f" not in trim and "b" not in trim):
        return filt

    def cut(ax):
        if ax not in axes:
            return slice(None)
        mask = filt.any(axis=tuple(i for i in builtins.range(filt.ndim) if i != ax))
        if not mask.any():
            return slice(0, 0)
        start = int(mask.argmax()) if "f" in trim else None
        stop = filt.shape[ax] - int(mask[::-1].argmax()) if "b" in trim else None
        return slice(start, stop)
    return filt[tuple(cut(ax) for ax in builtins.range(filt.ndim))]


def _block(xs):
    """`xs` joined, and the depth of its nesting of lists."""
    if isinstance(xs, tuple):
        raise ValueError(f"jax.numpy.block does not allow tuples, got {xs}")
    if not isinstance(xs, list):
        return asarray(xs), 1
    if not xs:
        raise ValueError("jax.numpy.block does not allow empty list arguments")
    arrays, depths = zip(*(_block(x) for x in xs))
    if builtins.any(d != depths[0] for d in depths[1:]):
        raise ValueError("Mismatched list depths in jax.numpy.block")
    rank = builtins.max(depths[0], builtins.max(a.ndim for a in arrays))
    arrays = [lax.expand_dims(a, tuple(builtins.range(rank - a.ndim))) if a.ndim < rank else a
              for a in arrays]
    joined = arrays[0] if len(arrays) == 1 else concatenate(arrays, axis=-depths[0])
    return joined, depths[0] + 1                # (JAX's `concatenate` of one: the array)


@jit_in_jaxprs("block")
def block(arrays):
    """The arrays of nested lists joined: the innermost along the last axis, and so outwards."""
    return _block(arrays)[0]


_register("delete insert bincount digitize histogram_bin_edges histogram histogramdd "
          "histogram2d fill_diagonal compress extract place put put_along_axis resize "
          "trim_zeros block")


def _elementwise_primitive(name, impl, kinds, batching_rule=vectorized):
    """A primitive `name` of elementwise operands of one dtype, its result of their aval,
    evaluated by `impl` and batched by `batching_rule`."""
    prim = Primitive(name)
    impl_rules[prim] = impl

    def abstract_eval(*avals, **params):
        if avals[0].dtype.kind not in kinds:
            raise TypeError(f"{name} does not accept dtype {avals[0].dtype.name}. Accepted "
                            f"dtypes are subtypes of {_KIND_WORDS[kinds]}.")
        if builtins.any(a.dtype != avals[0].dtype for a in avals[1:]):
            raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                            f"{', '.join(a.dtype.name for a in avals)}. (Tip: jnp.{name} is a "
                            "similar function that does automatic type promotion on inputs).")
        shape = broadcast_shapes(*(a.shape for a in avals))
        return ShapedArray(shape, avals[0].dtype, builtins.all(a.weak_type for a in avals))
    abstract_eval_rules[prim] = abstract_eval
    batching_rules[prim] = batching_rule(prim)
    return prim


_KIND_WORDS = {"f": "floating", "iu": "integer"}
cbrt_p = _elementwise_primitive("cbrt", np.cbrt, "f")
lowering_rules[cbrt_p] = nary_lowering(hlo.cbrt)
defjvp2(cbrt_p, lambda t, ans, x: lax.mul(t, lax.mul(_lax_const(x, 1 / 3),
                                                      lax.integer_pow(ans, -2))))

nextafter_p = _elementwise_primitive("nextafter", np.nextafter, "f", broadcasting)
lowering_rules[nextafter_p] = nary_lowering(chlo.next_after)


def _popcount(x):
    bits = np.unpackbits(np.ascontiguousarray(x).view(np.uint8)[..., None], axis=-1)
    return bits.reshape(*x.shape, -1).sum(-1).astype(x.dtype)


def _clz(x):
    width = x.dtype.itemsize * 8
    as_unsigned = x.view(np.dtype(f"uint{width}")).astype(np.uint64)
    lengths = np.array([int(v).bit_length() for v in as_unsigned.ravel()], np.int64)
    return (width - lengths).reshape(x.shape).astype(x.dtype)


population_count_p = _elementwise_primitive("population_count", _popcount, "iu")
lowering_rules[population_count_p] = nary_lowering(hlo.popcnt)
defjvp_zero(population_count_p)
clz_p = _elementwise_primitive("clz", _clz, "iu")
lowering_rules[clz_p] = nary_lowering(hlo.count_leading_zeros)
defjvp_zero(clz_p)

copy_p = Primitive("copy")
impl_rules[copy_p] = np.copy
abstract_eval_rules[copy_p] = lambda x: x
lowering_rules[copy_p] = lambda ctx, x: [x]
deflinear(copy_p)
transpose_rules[copy_p] = lambda ct, x: [copy_p.bind(ct)]
batching_rules[copy_p] = vectorized(copy_p)
array_ops["copy"] = copy_p.bind          # `jnp.array(x)` copies `x` (appendix A1)


def cbrt_lax(x, accuracy=None):
    """`lax.cbrt`: the real cube root of each element."""
    if accuracy is not None:
        raise NotImplementedError("lax.cbrt's accuracy parameter: autodidax has no accuracy "
                                  "modes")
    return cbrt_p.bind(x)


def nextafter_lax(x1, x2):
    """`lax.nextafter`: the float next to `x1` in the direction of `x2`."""
    return nextafter_p.bind(x1, x2)


def population_count(x):
    """`lax.population_count`: how many bits of each element are set."""
    return population_count_p.bind(x)


def clz(x):
    """`lax.clz`: how many leading bits of each element are zero."""
    return clz_p.bind(x)


@jitted()
def cbrt(x, /):
    return cbrt_p.bind(*_inexact("cbrt", x))


@jitted()
def nextafter(x, y, /):
    return nextafter_p.bind(*_inexact("nextafter", x, y))


@jitted()
def spacing(x, /):
    """The distance from each element to the next float away from 0."""
    arr, = _inexact("spacing", x)
    if dtype_kind(arr.dtype) == "c":
        raise ValueError("jnp.spacing is not defined for complex inputs.")
    inf = _lax_const(arr, np.inf)
    if arr.dtype == np.float16:
        return nextafter_p.bind(arr, lax.full_like(arr, np.inf)) - arr
    result = nextafter_p.bind(arr, copysign(inf, arr)) - arr
    return where(result == 0, copysign(finfo(arr.dtype).smallest_subnormal, arr), result)


@jit_in_jaxprs("bitwise_count")
def bitwise_count(x, /):
    """How many bits of `abs(x)` are set, as `uint8`."""
    x, = _promote_numeric("bitwise_count", x)
    return lax.convert_element_type(population_count_p.bind(_abs(x)), np.uint8)


def copy(a, order=None):
    """A new array with `a`'s values (one `copy` equation)."""
    check_arraylike("copy", a)
    if order not in (None, "K", "C"):
        raise NotImplementedError(f"Only implemented for order='K', got {order=}")
    return copy_p.bind(asarray(a))


@jit_in_jaxprs("gcd")
def gcd(x1, x2):
    """The greatest common divisor of each pair, by Euclid's algorithm in a `while_loop`."""
    check_arraylike("gcd", x1, x2)
    x1, x2 = promote_dtypes(x1, x2)
    if dtype_kind(x1.dtype) not in "iu":
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    x1, x2 = broadcast_arrays(x1, x2)

    def more(xs):
        return _any(xs[1] != 0)

    def step(xs):
        a, b = xs
        a, b = where(b != 0, b, a), where(b != 0, lax.rem(a, b), _lax_const(b, 0))
        return where(a < b, b, a), where(a < b, a, b)
    return while_loop(more, step, (_abs(x1), _abs(x2)))[0]


@jit_in_jaxprs("lcm")
def lcm(x1, x2):
    """The least common multiple of each pair: 0 if either is 0."""
    check_arraylike("lcm", x1, x2)
    x1, x2 = promote_dtypes(x1, x2)
    x1, x2 = _abs(x1), _abs(x2)
    if dtype_kind(x1.dtype) not in "iu":
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    d = gcd(x1, x2)
    return where(d == 0, _lax_const(d, 0), x1 * floor_divide(x2, d))


@jit_in_jaxprs("hypot")
def hypot(x1, x2, /):
    """`sqrt(x1**2 + x2**2)`, computed as `big * sqrt(1 + (small / big)**2)`."""
    x1, x2 = _inexact("hypot", x1, x2)
    if dtype_kind(x1.dtype) == "c":
        raise ValueError("jnp.hypot is not well defined for complex-valued inputs. Please "
                         "convert to real values first, such as by using abs(x)")
    x1, x2 = lax.abs(x1), lax.abs(x2)
    inf = lax.bitwise_or(lax.eq(x1, _lax_const(x1, np.inf)), lax.eq(x2, _lax_const(x2, np.inf)))
    x1, x2 = lax.max(x1, x2), lax.min(x1, x2)
    zero = x1 == 0
    ratio = lax.div(x2, where(x1 == 0, lax.full_like(x1, 1), x1))
    x = where(zero, x1, x1 * lax.sqrt(1 + lax.square(ratio)))
    return where(inf, _lax_const(x, np.inf), x)


def _window(name, M, f):
    """`f` of `M` points `0, 1, ..., M - 1` as `float32` (ones for `M <= 1`)."""
    M = _concrete_int(M, f"M argument of jnp.{name}")
    dtype = canonicalize_dtype(np.float64)
    if M <= 1:
        return lax.full((M,), 1, dtype)
    return f(lax.iota(dtype, M), M)


def bartlett(M):
    return _window("bartlett", M, lambda n, M: 1 - _abs(2 * n + 1 - M) / (M - 1))


def blackman(M):
    return _window("blackman", M, lambda n, M: 0.42 - 0.5 * cos(2 * np.pi * n / (M - 1))
                   + 0.08 * cos(4 * np.pi * n / (M - 1)))


def hamming(M):
    return _window("hamming", M, lambda n, M: 0.54 - 0.46 * cos(2 * np.pi * n / (M - 1)))


def hanning(M):
    return _window("hanning", M, lambda n, M: 0.5 * (1 - cos(2 * np.pi * n / (M - 1))))


_register("cbrt nextafter spacing bitwise_count copy gcd lcm hypot bartlett blackman hamming "
          "hanning")
set_array_methods({"copy": copy})                               # `x.copy()`


@jit_in_jaxprs("partition", static_argnums=(1, 2))
def partition(a, kth, axis=-1):
    """`a` with the `kth` smallest element of each slice along `axis` in place, the smaller
    ones before it and the others after."""
    check_arraylike("partition", a)
    arr = asarray(a)
    if dtype_kind(arr.dtype) == "c":
        raise NotImplementedError("jnp.partition for complex dtype is not implemented.")
    axis = canonical_axis(axis, arr.ndim)
    kth = canonical_axis(kth, arr.shape[axis])
    arr = swapaxes(arr, axis, -1)
    if dtype_kind(arr.dtype) == "u":
        bottom = -top_k(-(arr + 1), kth + 1)[0] - 1
    else:
        bottom = -top_k(-arr, kth + 1)[0]
    top = top_k(arr, arr.shape[-1] - kth - 1)[0]
    return swapaxes(lax.concatenate([bottom, top], arr.ndim - 1), -1, axis)


@jit_in_jaxprs("argpartition", static_argnums=(1, 2))
def argpartition(a, kth, axis=-1):
    """The indices that would `partition` `a`."""
    check_arraylike("partition", a)                     # (JAX's name, in JAX's message)
    arr = asarray(a)
    if dtype_kind(arr.dtype) == "c":
        raise NotImplementedError("jnp.argpartition for complex dtype is not implemented.")
    axis = canonical_axis(axis, arr.ndim)
    kth = canonical_axis(kth, arr.shape[axis])
    arr = swapaxes(arr, axis, -1)
    bottom = top_k(-(arr + 1) if dtype_kind(arr.dtype) == "u" else -arr, kth + 1)[1]

    def set_to_zero(a, i):
        return a.at[i].set(0)
    for _ in range(arr.ndim - 1):
        set_to_zero = vmap(set_to_zero)
    proxy = set_to_zero(lax.full(arr.shape, 1.0, np.float32), bottom)
    top = top_k(proxy, arr.shape[-1] - kth - 1)[1]
    return swapaxes(lax.concatenate([bottom, top], arr.ndim - 1), -1, axis)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """`func1d` applied to every vector of `arr` along `axis`: one `vmap` per other axis."""
    check_arraylike("apply_along_axis", arr)
    ndim = np.ndim(arr)
    axis = canonical_axis(axis, ndim)

    def func(a):
        return func1d(a, *args, **kwargs)
    for i in range(1, ndim - axis):
        func = vmap(func, in_axes=i, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(arr)


def apply_over_axes(func, a, axes):
    """`func(a, axis)` for each axis in turn, a dropped axis put back as a size 1."""
    check_arraylike("apply_over_axes", a)
    a = asarray(a)
    for axis in axes:
        b = func(a, axis)
        if b.ndim == a.ndim:
            a = b
        elif b.ndim == a.ndim - 1:
            a = expand_dims(b, axis)
        else:
            raise ValueError("function is not returning an array of the correct shape")
    return a


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """`function` of the index arrays of `shape`: one `vmap` per axis over `arange`s."""
    shape = tuple(operator.index(d) for d in (shape if np.ndim(shape) else (shape,)))
    for i in range(len(shape)):
        in_axes = [0 if i == j else None for j in range(len(shape))]
        function = vmap(function, in_axes=tuple(in_axes[::-1]))
    return function(*(arange(s, dtype=dtype) for s in shape), **kwargs)


def piecewise(x, condlist, funclist, *args, **kw):
    """Per element of `x`, the function (or constant) of the last condition that holds; the
    extra function, if given, where none holds (else 0)."""
    check_arraylike("piecewise", x)
    x = asarray(x)
    nc, nf = len(condlist), len(funclist)
    if nf == nc + 1:
        funclist = funclist[-1:] + funclist[:-1]
    elif nf == nc:
        funclist = [0] + list(funclist)
    else:
        raise ValueError(f"with {nc} condition(s), either {nc} or {nc + 1} functions are "
                         f"expected; got {nf}")
    conditions = asarray(condlist).astype(bool)
    index = argmax(concatenate([zeros(conditions[:1].shape, conditions.dtype), conditions],
                               0).cumsum(0), 0)
    dtype = x.dtype

    def branch(f):
        if callable(f):
            return lambda v: asarray(f(v, *args, **kw)).astype(dtype)
        return lambda v: array(f, dtype=dtype)
    branches = [branch(f) for f in funclist]
    flat_index, flat_x = ravel(index), ravel(x)
    out = vmap(lambda i, v: switch(i, branches, v))(flat_index, flat_x)
    return out.reshape(x.shape)


def interp(x, xp, fp, left=None, right=None, period=None):
    """The piecewise linear function through the points `(xp, fp)`, at `x`; `left` and `right`
    outside (by default the end values, or `"extrapolate"`), or periodic with `period`."""
    check_arraylike("interp", x, xp, fp)
    if np.shape(xp) != np.shape(fp) or np.ndim(xp) != 1:
        raise ValueError("xp and fp must be one-dimensional arrays of equal size")
    x, xp = (asarray(v) for v in promote_dtypes(x, xp, inexact=True))
    fp = asarray(promote_dtypes(fp, inexact=True)[0])
    extrapolate = []
    for name, side in (("left", left), ("right", right)):
        if isinstance(side, str) and side != "extrapolate":
            raise ValueError(f"the only valid string value of `{name}` is 'extrapolate', but "
                             f"got: {side!r}")
        extrapolate.append(isinstance(side, str))
    if dtype_kind(x.dtype) == "c":
        raise ValueError("jnp.interp: complex x values not supported.")
    if period is not None:
        if np.ndim(period) != 0:
            raise ValueError(f"period must be a scalar; got {period}")
        period = _abs(period)
        x, xp = x % period, xp % period
        xp, fp = sort_key_val(xp, fp)
        xp = concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    i = clip(searchsorted(xp, x, side="right"), 1, len(xp) - 1)
    df, dx, delta = fp[i] - fp[i - 1], xp[i] - xp[i - 1], x - xp[i - 1]
    tiny = np.spacing(np.finfo(xp.dtype).eps)
    flat = lax.abs(dx) <= tiny                          # (no NaN gradient where dx is 0)
    f = where(flat, fp[i - 1], fp[i - 1] + (delta / where(flat, 1, dx)) * df)
    if not extrapolate[0] and period is None:
        f = where(x < xp[0], fp[0] if left is None else left, f)
    if not extrapolate[1] and period is None:
        f = where(x > xp[-1], fp[-1] if right is None else right, f)
    return f


@jit_in_jaxprs("unwrap", static_argnums=(2,))
def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """`p` with multiples of `period` added where neighbours jump by more than `discont`."""
    check_arraylike("unwrap", p)
    p, period = promote_dtypes(p, period)
    if dtype_kind(p.dtype) == "c":
        raise ValueError("jnp.unwrap does not support complex inputs.")
    if p.shape[axis] == 0:
        return p
    if discont is None:
        discont = period / 2
    interval = period // 2 if dtype_kind(p.dtype) in "iu" else period / 2
    dd = diff(p, 1, axis)
    ddmod = mod(dd + interval, period) - interval
    ddmod = where((ddmod == -interval) & (dd > 0), interval, ddmod)
    correction = where(_abs(dd) < discont, 0, ddmod - dd)
    first = lax.slice_in_dim(p, 0, 1, axis=axis)
    rest = lax.slice_in_dim(p, 1, None, axis=axis) + correction.cumsum(axis=axis)
    return concatenate((first, rest), axis=axis)


def mask_indices(n, mask_func, k=0, *, size=None):
    """The row and column indices where `mask_func(ones((n, n)), k)` is nonzero."""
    i, j = nonzero(mask_func(ones((n, n)), k), size=size)
    return i, j


def _nanquantile(a, q, axis, method, keepdims):
    """JAX's `_quantile` with `squash_nans`, for one axis or all: NaNs sorted last, and the
    order statistics interpolated among the numbers of each slice."""
    if method not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' "
                         "or 'inverted_cdf'")
    a, = promote_dtypes(a, inexact=True)
    if dtype_kind(a.dtype) == "c":
        raise ValueError("quantile does not support complex input, as the operation is poorly "
                         "defined.")
    keep_shape = None
    if axis is None:
        keep_shape = [1] * a.ndim if keepdims else None
        a, axis = ravel(a), 0
    elif not isinstance(axis, int):
        raise NotImplementedError("jnp.nanquantile over a tuple of axes is not built in "
                                  "autodidax: use an int axis or None")
    axis = canonical_axis(axis, a.ndim)
    if q.ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {q.shape}")
    q_shape, q_ndim = q.shape, q.ndim
    a = sort(where(lax.ne(a, a), np.nan, a), dimension=axis)
    counts = _sum(lax.bitwise_not(lax.ne(a, a)), axis=axis, dtype=q.dtype, keepdims=keepdims)
    reduced = counts.shape
    q = lax.expand_dims(q, tuple(range(q_ndim, len(reduced) + q_ndim)))
    counts = lax.expand_dims(counts, tuple(range(q_ndim)))
    q = lax.mul(q, lax.sub(counts, _lax_const(q, 1)))
    low, high = lax.floor(q), lax.ceil(q)
    high_weight = lax.sub(q, low)
    low_weight = lax.sub(_lax_const(high_weight, 1), high_weight)
    low = lax.max(_lax_const(low, 0), lax.min(low, counts - 1))
    high = lax.max(_lax_const(high, 0), lax.min(high, counts - 1))
    int_ = canonicalize_dtype(np.int64)
    low, high = (lax.convert_element_type(v, int_) for v in (low, high))
    index = [lax.broadcasted_iota(int_, q_shape + reduced, d + q_ndim)
             for d in range(len(reduced))]
    if keepdims:
        index[axis] = low
    else:
        index.insert(axis, low)
    low_value = a[tuple(index)]
    index[axis] = high
    high_value = a[tuple(index)]
    if method == "linear":
        result = lax.add(lax.mul(low_value.astype(q.dtype), low_weight),
                         lax.mul(high_value.astype(q.dtype), high_weight))
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":
        result = where(lax.le(high_weight, _lax_const(high_weight, 0.5)), low_value, high_value)
    else:
        result = lax.mul(lax.add(low_value, high_value), _lax_const(low_value, 0.5))
    if keep_shape is not None:
        result = result.reshape(([q_shape[0]] if q_ndim else []) + keep_shape)
    return lax.convert_element_type(result, a.dtype)


def _nan_quantile_checks(name, a, q, out, overwrite_input, weights):
    check_arraylike(name, a, q)
    if weights is not None:
        raise NotImplementedError(f"jnp.{name} with weights (method='inverted_cdf') is not "
                                  "built in autodidax")
    if overwrite_input or out is not None:
        raise ValueError(f"jax.numpy.{name} does not support overwrite_input=True or "
                         "out != None")
    return asarray(a), asarray(q)


@jitted("axis", "overwrite_input", "keepdims", "method")
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
    """The `q`-th quantiles of the numbers of `a` along `axis`, NaNs left out."""
    a, q = _nan_quantile_checks("nanquantile", a, q, out, overwrite_input, weights)
    return _nanquantile(a, q, axis, method, keepdims)


@jitted("axis", "overwrite_input", "keepdims", "method")
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
    a, q = _nan_quantile_checks("nanpercentile", a, q, out, overwrite_input, weights)
    q, = promote_dtypes(q, inexact=True)
    return _nanquantile(a, q / 100, axis, method, keepdims)


@jitted("axis", "overwrite_input", "keepdims")
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    a, q = _nan_quantile_checks("nanmedian", a, 0.5, out, overwrite_input, None)
    return _nanquantile(a, q, axis, "midpoint", keepdims)


def get_printoptions():
    """NumPy's print options, which JAX arrays print with."""
    return np.get_printoptions()


def printoptions(*args, **kwargs):
    return np.printoptions(*args, **kwargs)


def set_printoptions(*args, **kwargs):
    return np.set_printoptions(*args, **kwargs)


array_repr, array_str, save, savez = np.array_repr, np.array_str, np.save, np.savez
character, flexible, object_ = np.character, np.flexible, np.object_
ComplexWarning = np.exceptions.ComplexWarning


def frombuffer(buffer, dtype=float, count=-1, offset=0):
    return asarray(np.frombuffer(buffer=buffer, dtype=dtype, count=count, offset=offset))


def fromstring(string, dtype=float, count=-1, *, sep):
    return asarray(np.fromstring(string=string, dtype=dtype, count=count, sep=sep))


def _impure(name, what):
    def refuse(*args, **kwargs):
        raise NotImplementedError(
            f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for "
            f"use with JIT and other JAX transformations. Consider using "
            f"jnp.asarray(np.{name}(...)) instead, although care should be taken if "
            f"np.{name} is used within a jax transformations because of its potential "
            f"side-effect of consuming the {what} object; for more information see "
            "https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html#pure-functions")
    refuse.__name__ = refuse.__qualname__ = name
    return refuse


fromfile, fromiter = _impure("fromfile", "file"), _impure("fromiter", "iterable")


def load(file, *args, **kwargs):
    """`np.load`, an array of it made a JAX array (a `V2` one read as `bfloat16`)."""
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == "V2":
            out = out.view(ml_dtypes.bfloat16)
        try:
            out = asarray(out)
        except (TypeError, AssertionError):
            pass
    return out


def from_dlpack(x, /, *, device=None, copy=None):
    """An array of the values of `x`, an array of another library that speaks DLPack: read
    through NumPy's `from_dlpack` (a host array), then put on the device."""
    if not hasattr(x, "__dlpack__") or not hasattr(x, "__dlpack_device__"):
        raise TypeError("The array passed to from_dlpack must have __dlpack__ and "
                        "__dlpack_device__ methods.")
    device_type, _ = x.__dlpack_device__()
    if device_type != 1:                                # kDLCPU
        raise TypeError("Array passed to from_dlpack is on unsupported device type "
                        f"(DLDeviceType: {device_type}, array: {x}")
    return asarray(np.from_dlpack(x))


_register("partition argpartition apply_along_axis apply_over_axes fromfunction piecewise "
          "interp unwrap mask_indices nanquantile nanpercentile nanmedian get_printoptions "
          "printoptions set_printoptions array_repr array_str save savez character flexible "
          "object_ ComplexWarning frombuffer fromstring fromfile fromiter load from_dlpack")


def _gradient_along_axis(a, h, axis):
    """Central differences of `a` along `axis` inside, one-sided ones at the ends, for the
    spacing `h` (a scalar, or the coordinates of the samples)."""
    def sliced(start, stop, x=a):
        return lax.slice_in_dim(x, start, stop, axis=axis)
    upper_edge = sliced(1, 2) - sliced(0, 1)
    lower_edge = sliced(-1, None) - sliced(-2, -1)
    if np.ndim(h) == 0:
        inner = (sliced(2, None) - sliced(None, -2)) * 0.5 / h
        lower_edge, upper_edge = lower_edge / h, upper_edge / h
    elif np.ndim(h) == 1:
        if len(h) != a.shape[axis]:
            raise ValueError("Spacing arrays must have the same length as the dimension along "
                             "which the gradient is calculated.")
        shape = [1] * a.ndim
        shape[axis] = len(h)
        h = h.reshape(shape)
        upper_edge = upper_edge / (sliced(1, 2, h) - sliced(0, 1, h))
        lower_edge = lower_edge / (sliced(-1, None, h) - sliced(-2, -1, h))
        dx1 = sliced(1, -1, h) - sliced(0, -2, h)
        dx2 = sliced(2, None, h) - sliced(1, -1, h)
        wa = -dx2 / (dx1 * (dx1 + dx2))
        wb = (dx2 - dx1) / (dx1 * dx2)
        wc = dx1 / (dx2 * (dx1 + dx2))
        inner = wa * sliced(0, -2) + wb * sliced(1, -1) + wc * sliced(2, None)
    else:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    return concatenate((upper_edge, inner, lower_edge), axis=axis)


def gradient(f, *varargs, axis=None, edge_order=None):
    """The derivative of the samples `f` along each axis (one array per axis), with the
    spacing of `varargs`: one for all axes, or one per axis."""
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    axis = None if axis is None else (operator.index(axis) if np.ndim(axis) == 0
                                      else tuple(operator.index(i) for i in axis))
    return _gradient(f, axis, *varargs)


@jit_in_jaxprs("gradient", static_argnums=(1,))
def _gradient(f, axis, *varargs):
    check_arraylike("gradient", f, *varargs)
    a, *spacing = promote_dtypes(f, *varargs, inexact=True)
    axes = (tuple(range(a.ndim)) if axis is None else
            (canonical_axis(axis, a.ndim),) if isinstance(axis, int) else
            tuple(canonical_axis(i, a.ndim) for i in axis))
    if not axes:
        return []
    if builtins.min(s for i, s in enumerate(a.shape) if i in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                         "2 elements are required.")
    if len(spacing) == 0:
        dx = [1.0] * len(axes)
    elif len(spacing) == 1:
        dx = spacing * len(axes)
    elif len(spacing) == len(axes):
        dx = spacing
    else:
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for axis={axis}")
    grads = [_gradient_along_axis(a, h, ax) for ax, h in zip(axes, dx)]
    return grads[0] if len(axes) == 1 else grads


@jit_in_jaxprs("packbits", static_argnums=(1, 2))
def packbits(a, axis=None, bitorder="big"):
    """The elements of `a`, read as bits (nonzero or not), packed eight to a `uint8`."""
    check_arraylike("packbits", a)
    arr = asarray(a)
    if dtype_kind(arr.dtype) not in "iub":
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    arr = lax.convert_element_type(lax.ne(arr, _lax_const(arr, 0)), np.uint8)
    bits = arange(8, dtype=np.uint8)
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    if arr.shape[-1] % 8:
        arr = lax.pad(arr, np.uint8(0),
                      [(0, 0, 0)] * (arr.ndim - 1) + [(0, 8 - arr.shape[-1] % 8, 0)])
    arr = arr.reshape(arr.shape[:-1] + (arr.shape[-1] // 8, 8))
    packed = (arr << expand_dims(bits, tuple(range(arr.ndim - 1)))).sum(-1).astype(np.uint8)
    return swapaxes(packed, axis, -1)


@jit_in_jaxprs("unpackbits", static_argnums=(1, 2, 3))
def unpackbits(a, axis=None, count=None, bitorder="big"):
    """Each `uint8` of `a` as its eight bits, `count` of them kept (or zeros added)."""
    check_arraylike("unpackbits", a)
    arr = asarray(a)
    if arr.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("little", "big"):
        raise ValueError("'order' must be either 'little' or 'big'")
    bits = asarray(1) << arange(8, dtype=np.uint8)
    if bitorder == "big":
        bits = bits[::-1]
    if axis is None:
        arr, axis = ravel(arr), 0
    arr = swapaxes(arr, axis, -1)
    unpacked = ((arr[..., None] & expand_dims(bits, tuple(range(arr.ndim)))) > 0).astype(
        np.uint8)
    unpacked = unpacked.reshape(unpacked.shape[:-2] + (-1,))
    if count is not None:
        if count > unpacked.shape[-1]:
            unpacked = pad(unpacked, [(0, 0)] * (unpacked.ndim - 1)
                           + [(0, count - unpacked.shape[-1])])
        else:
            unpacked = unpacked[..., :count]
    return swapaxes(unpacked, axis, -1)


def _trim_zeros_tol(filt, tol, trim="fb"):
    """`filt` without the leading (and trailing) elements smaller than `tol`."""
    filt = asarray(_concrete_value(filt, "Error arose in the `filt` argument of "
                                   "trim_zeros_tol()"))
    nz = _abs(filt) < tol
    if _all(nz):
        return zeros(0, filt.dtype)
    start = argmin(nz) if "f" in trim.lower() else 0
    end = argmin(nz[::-1]) if "b" in trim.lower() else 0
    return filt[int(start):len(filt) - int(end)]


def polydiv(u, v, *, trim_leading_zeros=False):
    """The quotient and the remainder of dividing the polynomial `u` by `v`."""
    check_arraylike("polydiv", u, v)
    u_arr, v_arr = promote_dtypes(u, v, inexact=True)
    m, n = len(u_arr) - 1, len(v_arr) - 1
    scale = 1. / v_arr[0]
    q = zeros(builtins.max(m - n + 1, 1), dtype=u_arr.dtype)
    for k in range(0, m - n + 1):
        d = scale * u_arr[k]
        q = q.at[k].set(d)
        u_arr = u_arr.at[k:k + n + 1].add(-d * v_arr)
    if trim_leading_zeros:
        u_arr = _trim_zeros_tol(u_arr, tol=np.sqrt(finfo(u_arr.dtype).eps), trim="f")
    return q, u_arr


_register("gradient packbits unpackbits polydiv")


_GUFUNC_ARGUMENT = r"\((?:\w+(?:,\w+)*)?\)"
_GUFUNC_SIGNATURE = "^{0}(?:,{0})*->{0}(?:,{0})*$".format(_GUFUNC_ARGUMENT)


def _parse_gufunc_signature(signature):
    """The core dimensions of each input and each output of a signature `"(m,n),(n)->(m)"`."""
    if not re.match(_GUFUNC_SIGNATURE, signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    return ([tuple(re.findall(r"\w+", arg)) for arg in re.findall(_GUFUNC_ARGUMENT, side)]
            for side in signature.split("->"))


def _update_dim_sizes(sizes, shape, core_dims, context, *, is_input):
    """Record the size of each core dimension in `sizes`, checking that it agrees."""
    if is_input and len(shape) < len(core_dims):
        raise ValueError(f"input with shape {shape!r} does not have enough dimensions for all "
                         f"core dimensions {core_dims!r} {context}")
    if not is_input and len(shape) != len(core_dims):
        raise ValueError(f"output shape {shape!r} does not match core dimensions "
                         f"{core_dims!r} {context}")
    for dim, size in zip(core_dims, shape[len(shape) - len(core_dims):]):
        if sizes.setdefault(dim, size) != size:
            raise ValueError(f"inconsistent size for core dimension {dim!r}: {size!r} vs "
                             f"{sizes[dim]!r} {context}")


def _apply_excluded(func, excluded, args, kwargs):
    """`func` of the arguments not in `excluded`, the excluded ones bound, and those left."""
    if not excluded:
        return func, args, kwargs
    dynamic_args = [a for i, a in enumerate(args) if i not in excluded]
    dynamic_kwargs = {k: v for k, v in kwargs.items() if k not in excluded}
    static_args = [(i, args[i]) for i in sorted(e for e in excluded if isinstance(e, int))
                   if i < len(args)]
    static_kwargs = {k: v for k, v in kwargs.items() if k in excluded}

    def new_func(*args, **kwargs):
        args = list(args)
        for i, arg in static_args:
            args.insert(i, arg)
        return func(*args, **kwargs, **static_kwargs)
    return new_func, dynamic_args, dynamic_kwargs


def vectorize(pyfunc, *, excluded=frozenset(), signature=None):
    """`pyfunc`, of scalars or of arrays with the core dimensions of `signature`, mapped with
    `vmap` over its arguments' broadcast leading dimensions."""
    if builtins.any(not isinstance(e, (str, int)) for e in excluded):
        raise TypeError("jax.numpy.vectorize can only exclude integer or string arguments, but "
                        f"excluded={excluded!r}")
    if builtins.any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"excluded={excluded!r} contains negative numbers")

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        context = f"on vectorized function with excluded={excluded!r} and {signature=}"
        func, args, kwargs = _apply_excluded(pyfunc, excluded, args, kwargs)
        if signature is not None:
            in_dims, out_dims = _parse_gufunc_signature(signature)
        else:
            in_dims, out_dims = [()] * len(args), None
        nones = {i for i, a in enumerate(args) if a is None}
        if nones:
            if builtins.any(in_dims[i] != () for i in nones):
                raise ValueError(f"Cannot pass None at locations {nones} with {signature=}")
            func, args, _ = _apply_excluded(func, nones, args, {})
            in_dims = [d for i, d in enumerate(in_dims) if i not in nones]
        args = tuple(asarray(a) for a in args)
        if len(args) != len(in_dims):
            raise TypeError(f"wrong number of positional arguments: expected {len(in_dims)!r}, "
                            f"got {len(args)!r} {context}")
        sizes, shapes = {}, []
        for arg, dims in zip(args, in_dims):
            _update_dim_sizes(sizes, arg.shape, dims, context, is_input=True)
            shapes.append(arg.shape[:arg.ndim - len(dims)])
        shape = broadcast_shapes(*shapes)
        checked = func if out_dims is None else _checking_outputs(func, sizes, out_dims, context)
        squeezed = [squeeze(a, tuple(i for i, d in enumerate(s) if d == 1))
                    for a, s in zip(args, shapes)]
        reversed_shapes = [((1,) * (len(shape) - len(s)) + s)[::-1] for s in shapes]
        mapped, expand = checked, []
        for negdim, axis_sizes in enumerate(zip(*reversed_shapes)):
            in_axes = tuple(None if d == 1 else 0 for d in axis_sizes)
            if builtins.all(a is None for a in in_axes):
                expand.append(len(shape) - 1 - negdim)
            else:
                mapped = vmap(mapped, in_axes)
        result = mapped(*squeezed)
        if not expand:
            return result
        if isinstance(result, tuple):
            return tuple(expand_dims(r, expand) for r in result)
        return expand_dims(result, expand)
    return wrapped


def _checking_outputs(func, dim_sizes, out_dims, context):
    """`func`, its outputs checked against the core dimensions of the signature."""
    def checked(*args):
        out = func(*args)
        shapes = [np.shape(o) for o in (out if isinstance(out, tuple) else [out])]
        if len(out_dims) > 1 and not isinstance(out, tuple):
            raise TypeError("output must be a tuple when multiple outputs are expected, got: "
                            f"{out!r}\n{context}")
        if len(shapes) != len(out_dims):
            raise TypeError(f"wrong number of output arguments: expected {len(out_dims)!r}, "
                            f"got {len(shapes)!r} {context}")
        sizes = dict(dim_sizes)
        for s, dims in zip(shapes, out_dims):
            _update_dim_sizes(sizes, s, dims, context, is_input=False)
        return out
    return checked


_register("vectorize")


def _result_dtype(func, *args):
    """The dtype of `func` of scalars like `args` (ones of their dtypes), from its jaxpr."""
    ones_ = [np.ones((), asarray(a).dtype) for a in args]
    return make_jaxpr(func)(*ones_).jaxpr.outvars[0].aval.dtype


class ufunc:
    """A function of scalars applied elementwise, with NumPy's ufunc methods (JAX's
    `jnp.ufunc`)."""

    def __init__(self, func, /, nin, nout, *, name=None, nargs=None, identity=None):
        self.__doc__ = func.__doc__
        self.__name__ = name or func.__name__
        self._func, self.identity = func, identity
        self.nin, self.nout = operator.index(nin), operator.index(nout)
        self.nargs = operator.index(nargs or nin)

    def _key(self):
        return (self._func, self.__name__, self.identity, self.nin, self.nout, self.nargs)

    def __hash__(self):
        return hash(self._key())

    def __eq__(self, other):
        return isinstance(other, ufunc) and self._key() == other._key()

    def __repr__(self):
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args, out=None, where=None):
        check_arraylike(self.__name__, *args)
        if out is not None:
            raise NotImplementedError(f"out argument of {self}")
        if where is not None:
            raise NotImplementedError(f"where argument of {self}")
        return vectorize(self._func)(*args)

    def _binary(self, method):
        if self.nin != 2:
            raise ValueError(f"{method} only supported for binary ufuncs")
        if self.nout != 1:
            raise ValueError(f"{method} only supported for functions returning a single value")

    def reduce(self, a, axis=0, dtype=None, out=None, keepdims=False, initial=None,
               where=None):
        """`a` folded along `axis` with this function, from `initial` or the identity."""
        check_arraylike(f"{self.__name__}.reduce", a)
        self._binary("reduce")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduce()")
        if where is not None:
            check_arraylike(f"{self.__name__}.reduce", where)
            if self.identity is None and initial is None:
                raise ValueError(f"reduction operation {self.__name__!r} does not have an "
                                 "identity, so to use a where mask one has to specify "
                                 "'initial'.")
            if asarray(where).dtype != np.bool_:
                raise ValueError("where argument must have dtype=bool; got "
                                 f"dtype={asarray(where).dtype}")
        arr = asarray(a)
        initial = self.identity if initial is None else initial
        dtype = _result_dtype(self._func, arr, arr) if dtype is None else dtype
        if where is not None:
            where = broadcast_to(where, arr.shape)
        if isinstance(axis, tuple):
            raise NotImplementedError("tuple of axes")
        if axis is None:
            final_shape = (1,) * arr.ndim if keepdims else ()
            arr, axis = ravel(arr), 0
            where = None if where is None else ravel(where)
        else:
            axis = canonical_axis(axis, arr.ndim)
            final_shape = arr.shape[:axis] + ((1,) if keepdims else ()) + arr.shape[axis + 1:]
        arr = moveaxis(arr, axis, 0)
        where = None if where is None else moveaxis(where, axis, 0)
        if arr.shape[0] == 0:
            if initial is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} "
                                 "which has no identity")
            return lax.full(final_shape, initial, dtype)

        def body(i, val):
            new = self(val, arr[i].astype(dtype))
            return new if where is None else where_(where[i], new, val)
        start, init = (1, arr[0]) if initial is None else (0, initial)
        result = fori_loop(start, arr.shape[0], body,
                           broadcast_to(asarray(init).astype(dtype), arr.shape[1:]))
        return result.reshape(final_shape) if keepdims else result

    def accumulate(self, a, axis=0, dtype=None, out=None):
        """Every partial result of folding `a` along `axis`."""
        self._binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.accumulate()")
        check_arraylike(f"{self.__name__}.accumulate", a)
        arr = asarray(a)
        dtype = _result_dtype(self._func, arr, arr) if dtype is None else dtype
        if axis is None or isinstance(axis, tuple):
            raise ValueError("accumulate does not allow multiple axes")
        axis = canonical_axis(axis, arr.ndim)
        if arr.size == 0:
            return lax.full(arr.shape, 0, dtype)
        arr = moveaxis(arr, axis, 0)

        def step(carry, _):
            i, x = carry
            y = where_(i == 0, arr[0].astype(dtype), self(x.astype(dtype), arr[i].astype(dtype)))
            return (i + 1, y), y
        _, result = scan(step, (0, arr[0].astype(dtype)), None, length=arr.shape[0])
        return moveaxis(result, 0, axis)

    def outer(self, A, B, /):
        """This function of every element of `A` with every element of `B`."""
        self._binary("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        result = vmap(vmap(self, (None, 0)), (0, None))(ravel(asarray(A)), ravel(asarray(B)))
        return result.reshape(*np.shape(A), *np.shape(B))

    def at(self, a, indices, b=None, /, *, inplace=True):
        """`a` with its elements at `indices` replaced by this function of them (and of `b`),
        one index at a time, so that a repeated index is applied repeatedly."""
        if inplace:
            raise NotImplementedError(
                "Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like\n"
                "np.ufunc.at(). Instead, you can pass inplace=False and capture the result; "
                "e.g.\n>>> arr = jnp.add.at(arr, ind, val, inplace=False)\n")
        args = () if b is None else (b,)
        check_arraylike(f"{self.__name__}.at", a, *args)
        dtype = _result_dtype(self._func, a, *args)
        a = asarray(a).astype(dtype)
        args = tuple(asarray(x).astype(dtype) for x in args)
        indices = indices if isinstance(indices, tuple) else (indices,)
        if not indices:
            return a
        shapes = [np.shape(i) for i in indices if not isinstance(i, slice)]
        shape = shapes and broadcast_shapes(*shapes)
        if not shape:
            return a.at[indices].set(self(a.at[indices].get(), *args))
        if args:
            arg = broadcast_to(args[0], (*shape, *args[0].shape[len(shape):]))
            args = (arg.reshape(math.prod(shape), *args[0].shape[len(shape):]),)
        indices = [i if isinstance(i, slice) else ravel(broadcast_to(i, shape))
                   for i in indices]

        def step(carry, _):
            i, a = carry
            idx = tuple(ind if isinstance(ind, slice) else ind[i] for ind in indices)
            return (i + 1, a.at[idx].set(self(a.at[idx].get(), *(x[i] for x in args)))), None
        (_, a), _ = scan(step, (0, a), None, len(indices[0]))
        return a

    def reduceat(self, a, indices, axis=0, dtype=None, out=None):
        """This function folded over each slice `a[indices[i]:indices[i + 1]]` along `axis`."""
        self._binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"out argument of {self.__name__}.reduceat()")
        check_arraylike(f"{self.__name__}.reduceat", a, indices)
        a, indices = asarray(a), asarray(indices)
        if a.ndim == 0:
            raise ValueError(f"reduceat: a must have 1 or more dimension, got a.shape={a.shape}")
        if indices.ndim != 1:
            raise ValueError("reduceat: indices must be one-dimensional, got "
                             f"indices.shape={indices.shape}")
        if axis is None or isinstance(axis, (tuple, list)):
            raise ValueError("reduceat requires a single integer axis.")
        axis = canonical_axis(axis, a.ndim)
        out = take(a, indices, axis=axis)
        ends = concatenate([indices, asarray([a.shape[axis]], indices.dtype)])
        ind = lax.expand_dims(ends, [d for d in range(out.ndim) if d != axis])
        start = lax.slice_in_dim(ind, 0, ind.shape[axis] - 1, axis=axis)
        end = lax.slice_in_dim(ind, 1, ind.shape[axis], axis=axis)

        def body(i, out):
            inside = (i > start) & (i < end)
            return where_(inside, self(out, take(a, lax.expand_dims(i, (0,)), axis=axis)), out)
        return fori_loop(0, a.shape[axis], body, out)


def frompyfunc(func, /, nin, nout, *, identity=None):
    """`func`, of `nin` scalars to `nout`, as a `jnp.ufunc`."""
    return ufunc(func, nin, nout, identity=identity)


_register("ufunc frompyfunc")


def _convolve_full(a, v):
    """The full convolution of two vectors, `out[k] = sum_i a[i] * v[k - i]`, as the product
    of a Toeplitz matrix of `a` with `v`."""
    n, m = a.shape[0], v.shape[0]
    k = lax.broadcasted_iota(np.int32, (n + m - 1, m), 0)
    j = lax.broadcasted_iota(np.int32, (n + m - 1, m), 1)
    padded = concatenate([zeros(m - 1, a.dtype), a, zeros(m - 1, a.dtype)])
    return matmul(padded[k - j + m - 1], v)


def polymul(a1, a2, *, trim_leading_zeros=False):
    """The product of two polynomials (highest power first)."""
    check_arraylike("polymul", a1, a2)
    a1, a2 = promote_dtypes(a1, a2, inexact=True)
    if trim_leading_zeros and (len(a1) > 1 or len(a2) > 1):
        a1, a2 = trim_zeros(a1, trim="f"), trim_zeros(a2, trim="f")
    if len(a1) == 0:
        a1 = zeros(1, dtype=a2.dtype)
    if len(a2) == 0:
        a2 = zeros(1, dtype=a1.dtype)
    return _convolve_full(a1, a2)


@jit_in_jaxprs("poly")
def poly(seq_of_zeros):
    """The coefficients of the monic polynomial whose roots are `seq_of_zeros`."""
    check_arraylike("poly", seq_of_zeros)
    zeros_, = promote_dtypes(seq_of_zeros, inexact=True)
    zeros_ = atleast_1d(zeros_)
    if zeros_.ndim == 2 and zeros_.shape[0] == zeros_.shape[1] and zeros_.shape[0] != 0:
        zeros_ = eigvals(zeros_)
    if zeros_.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    dt = zeros_.dtype
    if len(zeros_) == 0:
        return ones((), dtype=dt)
    a = ones((1,), dtype=dt)
    for k in range(len(zeros_)):
        a = _convolve_full(a, stack([ones((), dt), -zeros_[k]]))
    return a


_register("polymul poly")


def _complex_of(dtype):
    """The complex dtype of a real one's precision (JAX's `dtypes.to_complex_dtype`)."""
    return np.result_type(dtype, np.complex64)


def _roots_no_zeros(p):
    """The roots of `p`, whose leading coefficient is not zero: the eigenvalues of its companion
    matrix."""
    if p.size < 2:
        return array([], dtype=_complex_of(p.dtype))
    companion = diag(ones((p.size - 2,), p.dtype), -1)
    companion = companion.at[0, :].set(-p[1:] / p[0])
    return eigvals(companion)


@jit_in_jaxprs("_roots_with_zeros")
def _roots_with_zeros(p, num_leading_zeros):
    """The roots of `p` with its leading zeros rolled to the end; a root per leading zero NaN."""
    p = where_(len(p) == num_leading_zeros, 1.0, p)
    n = p.shape[0]
    p = p[(arange(n) + num_leading_zeros) % n]
    found = _roots_no_zeros(p)
    found = sort_key_val(found == 0, found)[1]
    return where_(arange(found.size) < found.size - num_leading_zeros, found,
                  complex(np.nan, np.nan))


def roots(p, *, strip_zeros=True):
    """The roots of the polynomial with coefficients `p` (highest power first)."""
    check_arraylike("roots", p)
    p, = promote_dtypes(p, inexact=True)
    p = atleast_1d(p)
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    if p.size < 2:
        return array([], dtype=_complex_of(p.dtype))
    num_leading_zeros = where_(_all(p == 0), len(p), argmin(p == 0))
    if strip_zeros:
        num_leading_zeros = _concrete_int(
            num_leading_zeros, "The error occurred in the jnp.roots() function. To use this "
            "within a JIT-compiled context, pass strip_zeros=False, but be aware that leading "
            "zeros will result in some returned roots being set to NaN.")
        return _roots_no_zeros(p[num_leading_zeros:])
    return _roots_with_zeros(p, num_leading_zeros)


@jitted(name="polyfit", staged=True, static_argnums=(2, 3, 4, 6))
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares polynomial of degree `deg` through the points `(x, y)` (highest power
    first); with `full`, also the residuals, rank, singular values and `rcond`; with `cov`, the
    coefficients' covariance matrix."""
    check_arraylike("polyfit", x, y, *([] if w is None else [w]))
    x, y = asarray(x), asarray(y)
    deg = _concrete_int(deg, "deg must be int")
    order = deg + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = len(x) * float(finfo(x.dtype).eps)
    rcond = float(_concrete_value(rcond, "rcond must be float"))
    lhs, rhs = vander(x, order), y
    if w is not None:
        w, = promote_dtypes(w, inexact=True)
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if rhs.ndim == 2 else w)
    scale = sqrt((lhs * lhs).sum(axis=0))
    lhs = lhs / scale[None, :]
    c, resids, rank, s = lstsq(lhs, rhs, rcond)
    c = (c.T / scale[None, :]).T if c.ndim > 1 else c / scale
    if full:
        return c, resids, rank, s, asarray(rcond)
    if not cov:
        return c
    vbase = inv(dot(lhs.T, lhs)) / outer(scale, scale)
    if cov == "unscaled":
        fac = array(1.0)
    else:
        if len(x) <= order:
            raise ValueError("the number of data points must exceed order to scale the "
                             "covariance matrix")
        fac = resids / (len(x) - order)
    if y.ndim == 1:
        return c, vbase * atleast_1d(fac)[None]
    return c, vbase[:, :, None] * atleast_1d(fac)[None, None, :]


_register("roots polyfit")


from decimal import Decimal


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """The order in which `einsum` would contract its operands, pairwise, and a report of it
    (`PathInfo`): opt_einsum's `contract_path` with its exhaustive search, `"optimal"` (which
    `True` means, and `"auto"` for up to four operands), or with a path given as a list."""
    inputs, output, shapes, sizes = _contract_spec(subscripts, operands)
    n = len(inputs)
    if not isinstance(optimize, (str, bool)):
        path = [tuple(p) for p in optimize]                   # a path given: taken as it is
    elif n <= 2:
        path = [tuple(range(n))]
    elif optimize is False:                                   # JAX's `Unoptimized`
        path = [(0, 1)] * (n - 1)
    elif optimize in ("optimal", True) or (optimize == "auto" and n <= 4):
        path = contraction_order(inputs, output, sizes)
    else:                          # opt_einsum's "auto" is a cheaper search from 5 operands
        raise NotImplementedError(f"einsum_path with optimize={optimize!r} and {n} operands: "
                                  "the book has only opt_einsum's exhaustive search, 'optimal'")
    size = lambda letters: math.prod(sizes[c] for c in letters)
    indices, out = frozenset("".join(inputs)), frozenset(output)
    sets, terms, term_shapes = [frozenset(s) for s in inputs], list(inputs), list(shapes)
    inner = builtins.sum(map(len, sets)) - len(indices) > 0
    naive_cost = size(indices) * (builtins.max(1, n - 1) + inner)
    steps, cost, largest = [], 0, []
    for k, positions in enumerate(path):
        positions = tuple(sorted(positions, reverse=True))
        contracted = frozenset().union(*[sets.pop(p) for p in positions])
        kept = contracted & out.union(*sets)
        removed = contracted - kept
        sets.append(kept)
        cost += size(contracted) * (builtins.max(1, len(positions) - 1) + bool(removed))
        largest.append(size(kept))
        taken = [terms.pop(p) for p in positions]
        taken_shapes = [term_shapes.pop(p) for p in positions]
        blas = _can_blas(taken, kept, removed, taken_shapes)
        result = (output if k == len(path) - 1
                  else "".join(sorted(kept, key="".join(taken).find)))
        term_shapes.append(tuple(builtins.max(s[t.find(c)] for t, s in zip(taken, taken_shapes)
                                              if c in t) for c in result))
        terms.append(result)
        steps.append((len(contracted), blas, ",".join(taken) + "->" + result,
                      tuple(terms) if len(terms) <= 20 else None))
    info = PathInfo(f"{','.join(inputs)}->{output}", output, len(indices), steps, naive_cost,
                    cost, builtins.max(largest, default=1))
    return path, info


class PathInfo:
    """What `einsum_path` reports besides the path: the contractions, their scaling and BLAS
    kind, and the operation counts, printed as opt_einsum's `PathInfo` prints."""

    def __init__(self, eq, output, n_indices, steps, naive_cost, opt_cost, largest):
        self.eq, self.output_subscript, self.steps = eq, output, steps
        self.scale_list = [scale for scale, *_ in steps]
        self.naive_cost, self.opt_cost = Decimal(naive_cost), Decimal(opt_cost)
        self.speedup = self.naive_cost / builtins.max(self.opt_cost, Decimal(1))
        self.n_indices, self.largest_intermediate = n_indices, Decimal(largest)

    def __repr__(self):
        lines = [f"  Complete contraction:  {self.eq}\n",
                 f"         Naive scaling:  {self.n_indices}\n",
                 f"     Optimized scaling:  {builtins.max(self.scale_list, default=0)}\n",
                 f"      Naive FLOP count:  {self.naive_cost:.3e}\n",
                 f"  Optimized FLOP count:  {self.opt_cost:.3e}\n",
                 f"   Theoretical speedup:  {self.speedup:.3e}\n",
                 f"  Largest intermediate:  {self.largest_intermediate:.3e} elements\n",
                 "-" * 80 + "\n",
                 "{:>6} {:>11} {:>22} {:>37}\n".format("scaling", "BLAS", "current", "remaining"),
                 "-" * 80]
        for scale, blas, current, remaining in self.steps:
            rest = ("..." if remaining is None
                    else ",".join(remaining) + "->" + self.output_subscript)
            lines.append("\n{:>4} {:>14} {:>22}    {:>{}}".format(
                scale, blas, current, rest, builtins.max(0, 56 - builtins.max(22, len(current)))))
        return "".join(lines)


def _contract_spec(subscripts, operands):
    """The subscripts as opt_einsum reads them, with no `...` left: the letters of `...` are
    the last of the first unused letters, as many of those as the largest rank; an implicit
    output is the `...` letters, then the letters used once, sorted. Also NumPy's other form,
    `a, [0, 1], b, [1, 2], [0, 2]`, with ints for letters."""
    if not isinstance(subscripts, str):
        args = [subscripts, *operands]
        spell = lambda sub: "".join("..." if s is Ellipsis else string.ascii_letters[s]
                                    for s in sub)
        operands = args[0:len(args) - len(args) % 2:2]
        subscripts = ",".join(map(spell, args[1::2][:len(operands)]))
        if len(args) % 2:
            subscripts += "->" + spell(args[-1])
    shapes = [tuple(np.shape(x)) for x in operands]
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    inputs, longest = inputs.split(","), 0
    ellipsis = ""
    if "." in spec:
        used = spec.replace(".", "").replace(",", "").replace("->", "")
        free = [c for c in string.ascii_letters if c not in used]
        letters = "".join(free[:builtins.max(len(s) for s in shapes)])
        for k, (sub, shape) in enumerate(zip(inputs, shapes)):
            if "..." in sub:
                count = builtins.max(len(shape), 1) - (len(sub) - 3) if shape else 0
                longest = builtins.max(longest, count)
                inputs[k] = sub.replace("...", letters[len(letters) - count:] if count else "")
        ellipsis = letters[len(letters) - longest:] if longest else ""
        output = output.replace("...", ellipsis)
    if not arrow:
        joined = "".join(inputs)
        once = {c for c in joined if joined.count(c) == 1}
        output = ellipsis + "".join(sorted(once - set(ellipsis)))
    if len(inputs) != len(shapes):
        raise ValueError("Number of einsum subscripts must be equal to the number of operands.")
    sizes = {}
    for k, (sub, shape) in enumerate(zip(inputs, shapes)):
        if len(sub) != len(shape):
            raise ValueError(f"Einstein sum subscript '{sub}' does not contain the correct "
                             f"number of indices for operand {k}.")
        for c, d in zip(sub, shape):
            if sizes.get(c, 1) == 1:
                sizes[c] = int(d)
            elif d not in (1, sizes[c]):
                raise ValueError(f"Size of label '{c}' for operand {k} ({sizes[c]}) does not "
                                 f"match previous terms ({d}).")
    return inputs, output, shapes, sizes


def _can_blas(inputs, result, removed, shapes):
    """opt_einsum's name for the kind of BLAS call a pairwise contraction is, or False."""
    if len(inputs) != 2:
        return False
    left, right = inputs
    for c in set(left + right):
        nl, nr = left.count(c), right.count(c)
        if nl > 1 or nr > 1 or nl + nr > 2 or nl + nr - 1 == int(c in result):
            return False
    if builtins.any(shapes[0][left.find(c)] != shapes[1][right.find(c)] for c in removed):
        return False
    if not removed:
        return "OUTER/EINSUM"
    keep_left, keep_right, rs = set(left) - removed, set(right) - removed, len(removed)
    if left == right:
        return "DOT"
    if set(left) == set(right):
        return "DOT/EINSUM"
    if (left[-rs:] == right[:rs] or left[:rs] == right[-rs:] or left[-rs:] == right[-rs:]
            or left[:rs] == right[:rs]):
        return "GEMM"
    return "GEMV/EINSUM" if not keep_left or not keep_right else "TDOT"


_register("einsum_path")
