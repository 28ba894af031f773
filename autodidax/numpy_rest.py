# Generated from chapters/A24_numpy_rest.md by `make export`: edit the chapter, not this file.


"""More of jax.numpy (appendix A24): functions registered into appendix A1's `more_functions`,
each written and jitted as JAX 0.10.2 writes it."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from autodidax import lax_core as lax
from autodidax.core import (Array, ConcretizationTypeError, LiteralArray, Tracer, dtype_kind,
                            get_aval, set_array_methods, wrap_public_functions)
from autodidax.numpy import (arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh, array,
                             asarray, atleast_2d, broadcast_to, canonical_axis, check_arraylike,
                             concatenate, flip, full_like, greater, invert, isnan, jit_in_jaxprs,
                             jitted, less, more_functions, nonzero, ones, power, promote_args,
                             promote_dtypes, ravel, result_type, stack, tensordot, transpose, tril,
                             triu, where)
from autodidax.numpy import all as _all


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


def _concrete_int(x, what):
    """`x` as a Python int, or JAX's error if it is a tracer whose value is not known
    (`core.concrete_or_error`)."""
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        if value is None:
            raise ConcretizationTypeError(
                "Abstract tracer value encountered where concrete value is expected: traced "
                f"array with shape {x.aval}\n{what}")
        x = value
    return operator.index(x)


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
        out.append(lax.broadcast_in_dim(lax.iota(dtype, dim), shape, (i,)))
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


def _cumulative_reduction(name, reduction, a, axis, dtype, promote_integers=False):
    """JAX's cumulative reductions: the result's dtype (bool and, if `promote_integers`, narrow
    integers widened), then one `cumsum` or `cumprod` primitive along `axis`."""
    check_arraylike(name, a)
    a = asarray(a)
    axis = canonical_axis(axis, a.ndim)
    if dtype is not None:
        dtype = np.dtype(dtype)
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


wrap_public_functions(globals(), __name__)       # errors show the user's line, as in A1
_PUBLIC = ("inner column_stack dstack argwhere flatnonzero matrix_transpose isreal iscomplex "
            "cumulative_sum cumulative_prod fabs deg2rad rad2deg radians degrees pow signbit "
            "copysign fmax fmin fmod float_power real imag conjugate conj angle reciprocal "
            "isscalar "
            "iscomplexobj isrealobj fliplr flipud rot90 diff ediff1d append atleast_3d concat "
            "array_equal array_equiv diag_indices indices tril_indices triu_indices").split()
more_functions.update({name: globals()[name] for name in _PUBLIC})
set_array_methods({"real": property(real), "imag": property(imag), "conj": conj,
                   "conjugate": conjugate})                     # `x.real`, `x.conj()`
