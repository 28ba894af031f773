# Generated from chapters/A24_numpy_rest.md by `make export`: edit the chapter, not this file.


"""More of jax.numpy (appendix A24): functions registered into appendix A1's `more_functions`,
each written and jitted as JAX 0.10.2 writes it."""
from __future__ import annotations

import builtins
import functools
import math
import operator
import re

import ml_dtypes
import numpy as np

from autodidax import lax_core as lax
from autodidax.batching import vmap
from autodidax.control_flow import scan
from autodidax.core import (Array, ConcretizationTypeError, LiteralArray, ShapedArray, Tracer,
                            api_boundary, dtype_kind, get_aval, set_array_methods)
from autodidax.custom import custom_jvp
from autodidax.custom_checks import SymbolicZero
from autodidax.indexing import sort
from autodidax.jvp import float0
from autodidax.numpy import (arange, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh,
                             argmax, argmin, array, asarray, atleast_1d, atleast_2d,
                             broadcast_shapes, broadcast_to, canonical_axis, canonicalize_dtype,
                             ceil, check_arraylike, clip, concatenate, exp2, expand_dims, finfo,
                             flip, floor, full, full_like, greater, iinfo, invert, isinf, isnan,
                             isposinf, jit_in_jaxprs, jitted, less, matmul, maximum, more_functions,
                             moveaxis, nanmean, nonzero, ones, power, prod, promote_args,
                             promote_dtypes, ravel, result_type, searchsorted, squeeze, stack,
                             tensordot, transpose, tril, triu, true_divide, vdot, where, zeros)
from autodidax.numpy import all as _all, any as _any, divmod as _divmod, sum as _sum


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
    `wrap_public_functions` makes its own (NumPy's `iterable` is registered as it is)."""
    for name in names.split():
        fun = globals()[name]
        if getattr(fun, "__module__", None) == __name__:
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


@_logaddexp2.defjvp
def _logaddexp2_jvp(primals, tangents):
    """Each tangent times `2**(x - out)`, with +inf read as 0, so that it stays finite."""
    (x1, x2), (t1, t2) = primals, tangents
    out = _logaddexp2(x1, x2)
    return out, lax.add(lax.mul(t1, lax.exp2(lax.sub(_replace_inf(x1), _replace_inf(out)))),
                        lax.mul(t2, lax.exp2(lax.sub(_replace_inf(x2), _replace_inf(out)))))


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
          "logaddexp2 frexp ldexp")
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
    return lax.dot_general(ravel(a), ravel(b), (((0,), (0,)), ((), ())), preferred_element_type)


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
    if method == "sort":
        raise NotImplementedError("jnp.isin with method='sort' needs jnp.unique, which "
                                  "autodidax lacks: use method='compare_all' or 'binary_search'")
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
