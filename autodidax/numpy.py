# Generated from chapters/01_primitives.md by `make export`: edit the chapter, not this file.


"""NumPy's interface on top of `lax`: type promotion, broadcasting, reductions, indexing."""
from __future__ import annotations

import builtins
import functools
import operator

import numpy as np

from autodidax import lax
from autodidax.core import (Array, EvalTrace, LiteralArray, Tracer, api_boundary,
                            canonicalize_dtype, get_aval, trace_ctx, wrap_public_functions)


_KIND_ORDER = {"b": 0, "u": 1, "i": 1, "f": 2}
_BOOL, _INT32, _FLOAT32 = np.dtype("bool"), np.dtype("int32"), np.dtype("float32")
_PYTHON_SCALARS = (bool, int, float)


def _promote_two(a: np.dtype, b: np.dtype) -> np.dtype:
    """The least common dtype of two strongly typed dtypes, on JAX's lattice (64-bit off)."""
    if a == b:
        return a
    ka, kb = _KIND_ORDER[a.kind], _KIND_ORDER[b.kind]
    if ka != kb:
        return a if ka > kb else b
    if a.kind == b.kind:
        return a if a.itemsize >= b.itemsize else b
    signed, unsigned = (a, b) if a.kind == "i" else (b, a)
    if signed.itemsize > unsigned.itemsize:
        return signed
    return np.dtype(f"int{builtins.min(2 * unsigned.itemsize * 8, 32)}")


def result_type(*avals) -> tuple[np.dtype, bool]:
    """The dtype of an elementwise result, and whether it is weakly typed."""
    strong = [a.dtype for a in avals if not a.weak_type]
    weak = [a.dtype for a in avals if a.weak_type]
    if not strong:
        return builtins.max(weak, key=lambda d: _KIND_ORDER[d.kind]), True
    dtype = strong[0]
    for d in strong[1:]:
        dtype = _promote_two(dtype, d)
    for d in weak:
        if _KIND_ORDER[d.kind] > _KIND_ORDER[dtype.kind]:
            return d, True
    return dtype, False


def _is_array(x):
    return isinstance(x, (Array, Tracer))


def asarray(a, dtype=None):
    """An array from an array, a NumPy array, a Python scalar or a (nested) list of them."""
    if _is_array(a):
        if dtype is not None and canonicalize_dtype(dtype) != a.dtype:
            return lax.convert_element_type(a, dtype)
        return a
    if type(a) in _PYTHON_SCALARS:
        aval = get_aval(a)
        if dtype is None:
            return _scalar(np.asarray(a, aval.dtype), aval.weak_type)
        return _scalar(np.asarray(a, canonicalize_dtype(dtype)), False)
    if isinstance(a, (list, tuple)) and builtins.any(_is_array(e) or isinstance(e, (list, tuple))
                                            for e in a):
        return stack([asarray(e, dtype) for e in a])
    value = np.asarray(a)
    if value.dtype.kind in "OSUV":
        raise TypeError(f"Argument {a!r} of type {type(a)} is not a valid JAX type: pass arrays, "
                        "NumPy arrays, Python scalars, or lists of numbers")
    get_aval(value)   # rejects unsupported dtypes with a clear message
    value = np.array(value, dtype=canonicalize_dtype(dtype or value.dtype))
    return _scalar(value, False) if not value.ndim else Array(value)


def _scalar(value, weak_type):
    """A scalar made from a Python number: a literal when made while a function is traced, as
    in JAX (`jnp.float32(2)` inside `jit`); an ordinary array, which a traced function closing
    over it takes as a constant input, when made outside."""
    cls = Array if isinstance(trace_ctx.trace, EvalTrace) else LiteralArray
    return cls(value, weak_type=weak_type)


def array(a, dtype=None):
    return asarray(a, dtype)


def _promote_dtypes(*args, inexact=False):
    """Convert the arguments to their common dtype (and weak type, as JAX does); with
    `inexact`, to float32 if that dtype is an integer or bool one."""
    scalars = [type(a) in _PYTHON_SCALARS for a in args]
    args = [a if _is_array(a) else asarray(a) for a in args]
    avals = [a.aval for a in args]
    dtype, weak = result_type(*avals)
    if inexact and dtype.kind != "f":
        dtype = _FLOAT32
    return [a if (v.dtype, v.weak_type) == (dtype, weak) else _convert(a, s, dtype, weak)
            for a, s, v in zip(args, scalars, avals)]


def _convert(a, from_scalar, dtype, weak):
    """A scalar constant is made in the right dtype at once: traced, it is a literal such as
    `2:i8[]`. An array's conversion is a primitive, applied now if the array is concrete, and
    recorded, as JAX records it, when a function is being traced."""
    if from_scalar or isinstance(a, LiteralArray):
        return LiteralArray(a._value.astype(dtype), weak_type=weak)
    return lax.convert_element_type(a, dtype, weak_type=weak)


def _promote(name, *args):
    """Convert the arguments to their common dtype and make their ranks agree."""
    _check_arraylike(name, *args)
    args = _promote_dtypes(*args)
    shapes = [a.shape for a in args]
    ranks = {len(s) for s in shapes if s}          # scalars go with any shape
    if len(ranks) < 2:            # equal ranks: the primitive checks the dimensions (TypeError)
        return args
    return _broadcast_ranks(name, args, shapes)


def _broadcast_ranks(name, args, shapes):
    """Give every non-scalar argument the same rank by adding leading dimensions of size 1;
    NumPy's error, a ValueError, if the shapes do not broadcast."""
    rank = builtins.max(len(s) for s in shapes)
    padded = [(1,) * (rank - len(s)) + s for s in shapes]
    if builtins.any(len({d for d in dims if d != 1}) > 1 for dims in zip(*padded)):
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={list(shapes)}")
    return [lax.broadcast_in_dim(a, p, range(rank - len(s), rank)) if s and len(s) < rank else a
            for a, s, p in zip(args, shapes, padded)]


def _to_float(x):
    x = x if _is_array(x) else asarray(x)
    if x.dtype.kind in "biu":
        return lax.convert_element_type(x, _FLOAT32, weak_type=x.aval.weak_type)
    return x


def sin(x): return lax.sin(_to_float(x))
def cos(x): return lax.cos(_to_float(x))
def exp(x): return lax.exp(_to_float(x))
def log(x): return lax.log(_to_float(x))
def tanh(x): return lax.tanh(_to_float(x))
def sqrt(x): return lax.sqrt(_to_float(x))
def negative(x): return lax.neg(asarray(x))
def abs(x):
    x = asarray(x)
    return x if x.dtype == _BOOL else lax.abs(x)


def _numeric(x):
    """Booleans as int32, for the arithmetic that booleans lack, as `jnp.square(True)` is 1."""
    x = asarray(x)
    return lax.convert_element_type(x, _INT32) if x.dtype == _BOOL else x
def sign(x): return lax.sign(asarray(x))
def square(x): return lax.square(_numeric(x))
def subtract(x, y): return lax.sub(*_promote("sub", x, y))
def maximum(x, y): return lax.max(*_promote("max", x, y))
def minimum(x, y): return lax.min(*_promote("min", x, y))
def greater(x, y): return lax.gt(*_promote("gt", x, y))
def less(x, y): return lax.lt(*_promote("lt", x, y))
def greater_equal(x, y): return lax.ge(*_promote("ge", x, y))
def less_equal(x, y): return lax.le(*_promote("le", x, y))
def equal(x, y): return lax.eq(*_promote("eq", x, y))
def not_equal(x, y): return lax.ne(*_promote("ne", x, y))
absolute = abs


def add(x, y):
    x, y = _promote("add", x, y)
    return lax.bitwise_or(x, y) if x.dtype == _BOOL else lax.add(x, y)   # True + True is True


def multiply(x, y):
    x, y = _promote("mul", x, y)
    return lax.bitwise_and(x, y) if x.dtype == _BOOL else lax.mul(x, y)


def logical_and(x, y): return lax.bitwise_and(*_promote("and", *map(_to_bool, (x, y))))
def logical_or(x, y): return lax.bitwise_or(*_promote("or", *map(_to_bool, (x, y))))
def logical_xor(x, y): return lax.bitwise_xor(*_promote("xor", *map(_to_bool, (x, y))))
def logical_not(x): return lax.bitwise_not(_to_bool(x))
def bitwise_and(x, y): return lax.bitwise_and(*_promote("and", x, y))
def bitwise_or(x, y): return lax.bitwise_or(*_promote("or", x, y))
def bitwise_xor(x, y): return lax.bitwise_xor(*_promote("xor", x, y))
def bitwise_not(x): return lax.bitwise_not(asarray(x))


invert = bitwise_not


def _to_bool(x):
    x = asarray(x)
    return x if x.dtype == _BOOL else not_equal(x, 0)


def true_divide(x, y):
    x, y = _promote_dtypes(x, y, inexact=True)
    return lax.div(*_promote("div", x, y))


divide = true_divide


def power(x, y):
    """`x ** y`. A concrete integer exponent gives `integer_pow` (`x ** 2` is a multiplication,
    not exp(2 log x)); a float base with integer exponents is `pow` without promotion, which
    keeps the derivative at `x = 0`; anything else is promoted first, as in JAX."""
    if not isinstance(y, Tracer):
        try:
            n = operator.index(y)
        except TypeError:
            pass
        else:
            return lax.integer_pow(_numeric(x), n)
    promoted = _promote("pow", x, y)        # JAX computes this first, even when unused
    x, y = asarray(x), asarray(y)
    if x.dtype.kind == "f" and y.dtype.kind in "iu":
        return lax.pow(*_broadcast_ranks("pow", [x, y], [x.shape, y.shape]))
    return lax.pow(*promoted)


def _jit_in_jaxprs(name, static_argnums=()):
    """JAX decorates some of its NumPy functions with `jax.jit`, so that a traced program shows
    each call as one `jit` equation: `jit[name=_where ...]`. `jit` comes in chapter 8, which
    registers in `staging_rules` how to stage such a call; until then, and whenever a rule
    declines (by returning NotImplemented), the function simply runs."""
    def decorate(fun):
        @functools.wraps(fun)
        def wrapper(*args):
            for rule in staging_rules:
                out = rule(fun, name, static_argnums, args)
                if out is not NotImplemented:
                    return out
            return fun(*args)
        return wrapper
    return decorate


staging_rules: list = []     # rule(fun, name, static_argnums, args) -> result, or NotImplemented


def where(condition, x=None, y=None):
    """Elementwise `x` where `condition` is true, else `y`. With `condition` alone, the indices
    of its nonzero elements, as `nonzero`."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided "
                         "to jax.numpy.where, got x={x!r} and y={y!r}.")
    return _where(condition, x, y)


@_jit_in_jaxprs("_where")
def _where(condition, x, y):
    condition = asarray(condition)
    if condition.dtype != _BOOL:
        condition = not_equal(condition, 0)
    x, y = _promote("select_n", x, y)
    arrays = [x, y] if not condition.shape else [condition, x, y]  # select_n takes a scalar
    if len({a.shape for a in arrays}) > 1:                          # predicate as it is
        arrays = _broadcast_ranks("select_n", arrays, [a.shape for a in arrays])
        shape = lax.broadcasting_shape("select_n", *(a.shape for a in arrays))
        arrays = [a if a.shape == shape else broadcast_to(a, shape) for a in arrays]
    condition, x, y = arrays if condition.shape else [condition, *arrays]
    return lax.select_n(condition, y, x)


def nonzero(a):
    """The indices of the nonzero elements of `a`, one array per dimension. Their number depends
    on the values, so `a` must be concrete: not a traced value under `jit`."""
    a = asarray(a)
    value = a.to_concrete_value() if isinstance(a, Tracer) else np.asarray(a)
    if value is None:
        a._concrete("jnp.nonzero (and one-argument jnp.where), whose output shape depends on "
                    "the values,")
    return tuple(Array(i.astype(np.int32)) for i in np.nonzero(value))


def clip(arr, min=None, max=None, *, a_min=None, a_max=None):
    """`arr` with values below `min` raised to it and above `max` lowered to it (NumPy's
    `a_min` and `a_max` are accepted too)."""
    low, high = (a_min if min is None else min), (a_max if max is None else max)
    return _clip(asarray(arr), low, high)


@_jit_in_jaxprs("clip")
def _clip(arr, low, high):
    arr = arr if low is None else maximum(low, arr)
    return arr if high is None else minimum(high, arr)


def log1p(x): return lax.log1p(_to_float(x))
def expm1(x): return lax.expm1(_to_float(x))
def exp2(x): return lax.exp2(_to_float(x))
def tan(x): return lax.tan(_to_float(x))
def arcsin(x): return lax.asin(_to_float(x))
def arccos(x): return lax.acos(_to_float(x))
def arctan(x): return lax.atan(_to_float(x))
def sinh(x): return lax.sinh(_to_float(x))
def cosh(x): return lax.cosh(_to_float(x))
def arcsinh(x): return lax.asinh(_to_float(x))
def arccosh(x): return lax.acosh(_to_float(x))
def arctanh(x): return lax.atanh(_to_float(x))
def arctan2(x1, x2): return lax.atan2(*_promote("atan2", *_promote_dtypes(x1, x2, inexact=True)))


def _constant_like(x, value):
    """A strongly typed scalar constant of `x`'s dtype (JAX's `_constant_like`)."""
    return LiteralArray(np.asarray(value, x.dtype))


def log2(x):
    x = _to_float(x)
    return lax.div(lax.log(x), lax.log(_constant_like(x, 2)))


def log10(x):
    x = _to_float(x)
    return lax.mul(lax.log(x), _constant_like(x, 0.4342944819032518))   # 1 / log(10)


def logaddexp(x1, x2):
    x1, x2 = _promote("logaddexp", *_promote_dtypes(x1, x2, inexact=True))
    amax, delta = lax.max(x1, x2), lax.sub(x1, x2)
    return lax.select_n(lax.ne(delta, delta),     # NaNs, or infinities of one sign: x1 + x2
                        lax.add(amax, lax.log1p(lax.exp(lax.neg(lax.abs(delta))))),
                        lax.add(x1, x2))


def floor(x):
    x = asarray(x)
    return x if x.dtype.kind in "biu" else lax.floor(x)


def ceil(x):
    x = asarray(x)
    return x if x.dtype.kind in "biu" else lax.ceil(x)


def trunc(x):
    x = asarray(x)
    return x if x.dtype.kind in "biu" else _trunc(x)


@_jit_in_jaxprs("trunc")
def _trunc(x):
    return _where(lax.lt(x, _constant_like(x, 0)), ceil(x), floor(x))


def round(a, decimals=0, out=None):
    """Halves to the nearest even integer, as NumPy (`lax.round`'s default is away from 0)."""
    _check_out("round", out, a)
    if decimals != 0:
        raise NotImplementedError("jnp.round with decimals != 0 is not built in autodidax")
    a = asarray(a)
    return a if a.dtype.kind in "iu" else _round(a)


@_jit_in_jaxprs("round")
def _round(a):
    return lax.round(a, lax.RoundingMethod.TO_NEAREST_EVEN)


around = round


def isnan(x):
    x = asarray(x)
    return lax.ne(x, x)


@_jit_in_jaxprs("isinf")
def isinf(x):
    x = asarray(x)
    if x.dtype.kind == "f":
        return lax.eq(lax.abs(x), _constant_like(x, np.inf))
    return full_like(x, False, _BOOL)


def isfinite(x):
    x = asarray(x)
    return lax.is_finite(x) if x.dtype.kind == "f" else full_like(x, True, _BOOL)


def _numeric_pair(name, x1, x2):
    x1, x2 = _promote(name, x1, x2)
    return (_numeric(x1), _numeric(x2)) if x1.dtype == _BOOL else (x1, x2)


def remainder(x1, x2):
    return _remainder(*_numeric_pair("rem", x1, x2))


@_jit_in_jaxprs("remainder")
def _remainder(x1, x2):
    zero = _constant_like(x1, 0)
    if x2.dtype.kind in "iu":
        x2 = _where(lax.eq(x2, _constant_like(x2, 0)), full_like(x2, 1), x2)
    trunc_mod = lax.rem(x1, x2)
    trunc_mod_not_zero = lax.ne(trunc_mod, zero)
    do_plus = lax.bitwise_and(lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, zero)),
                              trunc_mod_not_zero)
    return lax.select_n(do_plus, trunc_mod, lax.add(trunc_mod, x2))


mod = remainder


def floor_divide(x1, x2):
    return _floor_divide(*_numeric_pair("div", x1, x2))


@_jit_in_jaxprs("floor_divide")
def _floor_divide(x1, x2):
    if x1.dtype.kind == "u":
        return lax.div(x1, x2)
    if x1.dtype.kind == "i":
        quotient = lax.div(x1, x2)
        select = logical_and(not_equal(lax.sign(x1), lax.sign(x2)),
                             not_equal(lax.rem(x1, x2), 0))
        return _where(select, subtract(quotient, 1), quotient)
    return _float_divmod(x1, x2)[0]


def divmod(x1, x2):
    return _divmod(*_numeric_pair("div", x1, x2))


@_jit_in_jaxprs("divmod")
def _divmod(x1, x2):
    if x1.dtype.kind in "iu":
        return floor_divide(x1, x2), remainder(x1, x2)
    return _float_divmod(x1, x2)


def _float_divmod(x1, x2):
    """CPython's float_divmod (floatobject.c), in JAX's operations."""
    mod = lax.rem(x1, x2)
    div = lax.div(_where(equal(x2, 0), x1, lax.sub(x1, mod)), x2)
    ind = lax.bitwise_and(not_equal(mod, 0), not_equal(lax.sign(x2), lax.sign(mod)))
    mod = lax.select_n(ind, mod, add(mod, x2))
    div = lax.select_n(ind, div, subtract(div, 1.0))
    return lax.round(div), mod


_ISCLOSE_DEFAULTS = (1e-05, 1e-08, False)


def isclose(a, b, rtol=_ISCLOSE_DEFAULTS[0], atol=_ISCLOSE_DEFAULTS[1],
            equal_nan=_ISCLOSE_DEFAULTS[2]):
    """|a - b| <= atol + rtol |b|, elementwise, as a boolean array (JAX's formula)."""
    extra = [rtol, atol, equal_nan]
    while extra and extra[-1] is _ISCLOSE_DEFAULTS[len(extra) - 1]:
        extra.pop()            # as under JAX's jit, arguments left at their defaults are
    return _isclose(a, b, *extra)      # constants of the traced function, not inputs


@_jit_in_jaxprs("isclose", static_argnums=(4,))
def _isclose(a, b, rtol=_ISCLOSE_DEFAULTS[0], atol=_ISCLOSE_DEFAULTS[1],
             equal_nan=_ISCLOSE_DEFAULTS[2]):
    a, b = _promote("isclose", *_promote_dtypes(a, b, inexact=True))
    rtol, atol = (LiteralArray(np.asarray(t, a.dtype)) if type(t) in _PYTHON_SCALARS
                  else lax.convert_element_type(asarray(t), a.dtype) for t in (rtol, atol))
    both_nan = logical_and(isnan(a), isnan(b))
    check_finite = isfinite(b)
    in_range = lax.le(lax.abs(lax.sub(a, b)), lax.add(atol, lax.mul(rtol, lax.abs(b))))
    out = logical_or(lax.eq(a, b), logical_and(check_finite, in_range))
    return logical_or(out, both_nan) if equal_nan else out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return all(isclose(a, b, rtol, atol, equal_nan))


def shape(a): return asarray(a).shape
def ndim(a): return asarray(a).ndim
def size(a): return asarray(a).size


def broadcast_to(a, shape):
    a = asarray(a)
    shape = tuple(shape)
    lead = len(shape) - a.ndim
    if lead < 0 or builtins.any(d not in (1, s) for d, s in zip(a.shape, shape[lead:])):
        raise ValueError(f"cannot broadcast an array of shape {a.shape} to shape {shape}")
    if a.shape == shape:
        return a
    return lax.broadcast_in_dim(a, shape, range(lead, len(shape)))


def reshape(a, *shape):
    a = asarray(a)
    shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    shape = tuple(operator.index(d) for d in shape)
    if shape.count(-1) > 1:
        raise ValueError(f"can only specify one unknown dimension (-1), got {shape}")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1]))
        if known == 0 or a.size % known:
            raise ValueError(f"cannot reshape array of size {a.size} into shape {shape}")
        shape = tuple(a.size // known if d == -1 else d for d in shape)
    if int(np.prod(shape)) != a.size:
        raise ValueError(f"cannot reshape array of size {a.size} into shape {shape}")
    return lax.reshape(a, shape)


def ravel(a): return reshape(a, -1)


def _canonical_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def transpose(a, axes=None):
    a = asarray(a)
    axes = range(a.ndim)[::-1] if axes is None else [_canonical_axis(d, a.ndim) for d in axes]
    return lax.transpose(a, axes)


def swapaxes(a, axis1, axis2):
    a = asarray(a)
    perm = list(range(a.ndim))
    i, j = _canonical_axis(axis1, a.ndim), _canonical_axis(axis2, a.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, perm)


def moveaxis(a, source, destination):
    a = asarray(a)
    perm = list(range(a.ndim))
    perm.insert(_canonical_axis(destination, a.ndim),
                perm.pop(_canonical_axis(source, a.ndim)))
    return a if perm == list(range(a.ndim)) else lax.transpose(a, perm)


def expand_dims(a, axis):
    a = asarray(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    ndim = a.ndim + len(axes)
    return lax.expand_dims(a, sorted(_canonical_axis(d, ndim) for d in axes))


def squeeze(a, axis=None):
    a = asarray(a)
    if axis is None:
        axes = [i for i, d in enumerate(a.shape) if d == 1]
    else:
        axes = [_canonical_axis(d, a.ndim) for d in ((axis,) if isinstance(axis, int) else axis)]
    return lax.squeeze(a, axes) if axes else a


def concatenate(arrays, axis=0):
    if not len(arrays):
        raise ValueError("Need at least one array to concatenate.")
    arrays = _promote_dtypes(*arrays)
    if arrays[0].ndim == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    return lax.concatenate(arrays, _canonical_axis(axis, arrays[0].ndim))


def stack(arrays, axis=0):
    arrays = _promote_dtypes(*arrays)
    if len({a.shape for a in arrays}) != 1:
        raise ValueError("all input arrays must have the same shape, got "
                         + ", ".join(str(a.shape) for a in arrays))
    return lax.stack(arrays, _canonical_axis(axis, arrays[0].ndim + 1))


@_jit_in_jaxprs("atleast_1d")
def atleast_1d(a):
    a = asarray(a)
    return reshape(a, (1,)) if a.ndim == 0 else a


@_jit_in_jaxprs("atleast_2d")
def atleast_2d(a):
    a = asarray(a)
    return lax.expand_dims(a, tuple(range(2 - a.ndim))) if a.ndim < 2 else a


def vstack(tup):
    """The arrays joined along a first axis, vectors as rows."""
    return concatenate([atleast_2d(a) for a in tup], axis=0)


def hstack(tup):
    """The arrays joined along their second axis, or their only one for vectors."""
    arrays = [atleast_1d(a) for a in tup]
    return concatenate(arrays, axis=0 if arrays and arrays[0].ndim == 1 else 1)


def flip(m, axis=None):
    """`m` with the order of its elements reversed along `axis` (default: every axis)."""
    return _flip(asarray(m), tuple(axis) if isinstance(axis, list) else axis)


@_jit_in_jaxprs("_flip", static_argnums=(1,))
def _flip(m, axis):
    axes = range(m.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    return lax.rev(m, sorted(_canonical_axis(a, m.ndim) for a in axes))


def _canonical_shape(shape) -> tuple:
    """A shape from an int, a sequence of ints, or arrays holding them (`zeros(x.shape[0])`)."""
    try:
        return (operator.index(shape),)
    except TypeError:
        pass
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError(f"Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {shape!r}.") from None


def full(shape, fill_value, dtype=None):
    return broadcast_to(asarray(fill_value, dtype), _canonical_shape(shape))


def zeros(shape, dtype=None): return full(shape, 0, dtype or _FLOAT32)
def ones(shape, dtype=None): return full(shape, 1, dtype or _FLOAT32)
def full_like(a, fill_value, dtype=None):
    """An array of `a`'s shape filled with `fill_value`; of `a`'s dtype, and weak type, unless
    `dtype` is given."""
    a = asarray(a)
    if dtype is not None:
        return full(a.shape, fill_value, dtype)
    fill = asarray(fill_value, a.dtype)
    if a.aval.weak_type and type(fill_value) in _PYTHON_SCALARS:
        fill = _scalar(fill._value, weak_type=True)
    return broadcast_to(fill, a.shape)


def zeros_like(a, dtype=None): return full_like(a, 0, dtype)
def ones_like(a, dtype=None): return full_like(a, 1, dtype)


def arange(start, stop=None, step=None, dtype=None):
    value = np.arange(start, stop, step) if step is not None else (
        np.arange(start) if stop is None else np.arange(start, stop))
    return Array(value.astype(canonicalize_dtype(dtype or value.dtype)))


def linspace(start, stop, num=50, endpoint=True, dtype=None):
    """`num` evenly spaced values from `start` to `stop`, by JAX's formula, which computes
    `start * (1 - t) + stop * t` for `t = i / div` in float32 and so reproduces the endpoints
    exactly: its values differ from NumPy's in the last bit."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dtype = canonicalize_dtype(dtype or _FLOAT32)
    compute = np.dtype(dtype if dtype.kind == "f" else _FLOAT32)
    start, stop = np.asarray(start, compute), np.asarray(stop, compute)
    div = num - 1 if endpoint else num
    if num > 1:
        t = (np.arange(div, dtype=compute) / compute.type(div)).astype(compute)
        values = start * (compute.type(1) - t) + stop * t
        values = np.concatenate([values, [stop]]) if endpoint else values
    else:
        values = np.full(num, start, compute)
    if dtype.kind in "iu":
        values = np.floor(values)
    return Array(values.astype(dtype))


def eye(N, M=None, k=0, dtype=None):
    return Array(np.eye(N, M, k, dtype=canonicalize_dtype(dtype or _FLOAT32)))


def astype(x, dtype):
    return lax.convert_element_type(asarray(x), dtype)


def _reduction_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if not isinstance(axis, (tuple, list)) else axis
    axes = tuple(_canonical_axis(a, ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in {axis}")
    return axes


def _check_out(name, out, *arrays):
    """JAX's checks of a reduction's arguments: no `out=`, and arrays, not lists."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported: JAX "
                                  "arrays are immutable, use the returned value instead.")
    _check_arraylike(name, *arrays)


def _check_arraylike(name, *args):
    """A list or tuple is not an array to JAX's functions (only `jnp.asarray` and `jnp.array`
    turn them into one): `jnp.sum([1, 2])` would hide a slow conversion, so it is refused."""
    for i, a in enumerate(args):
        if isinstance(a, (list, tuple)):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(a)} at "
                            f"position {i}.")


def _strong(a, dtype=None):
    """`a` in `dtype` (default: its own), strongly typed."""
    dtype = a.dtype if dtype is None else canonicalize_dtype(dtype)
    if a.dtype == dtype and not a.aval.weak_type:
        return a
    return lax.convert_element_type(a, dtype)


def _reduce(reducer, a, axis, keepdims):
    axes = _reduction_axes(axis, a.ndim)
    out = reducer(a, axes)
    return lax.expand_dims(out, axes) if keepdims else out


def _accumulate(name, reducer, combine, identity, a, axis, dtype, out, keepdims, initial,
                where):
    """A sum or a product, as NumPy's and JAX's: small integers and booleans accumulate in
    (u)int32, float16 in float32; `where=` masks elements with the identity."""
    _check_out(name, out, a)
    a = asarray(a)
    if dtype is None:
        if a.dtype.kind == "b" or a.dtype.kind in "iu" and a.dtype.itemsize < 4:
            dtype = np.dtype("uint32") if a.dtype.kind == "u" else _INT32
        else:
            dtype = a.dtype
    dtype = canonicalize_dtype(dtype)
    compute = _FLOAT32 if dtype == np.float16 else dtype     # half precision adds in single
    a = _strong(a, compute)
    if where is not None:
        a = _where(where, a, full((), identity, compute))
    result = _reduce(reducer, a, axis, keepdims)
    if initial is not None:
        result = combine(result, asarray(initial, compute))
    return _strong(result, dtype)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    return _accumulate("sum", lax.reduce_sum, add, 0, a, axis, dtype, out, keepdims, initial,
                       where)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    _check_out("mean", out, a)
    a = asarray(a)
    dtype = canonicalize_dtype(dtype or (a.dtype if a.dtype.kind == "f" else _FLOAT32))
    compute = _FLOAT32 if dtype == np.float16 else dtype
    axes = _reduction_axes(axis, a.ndim)
    if where is None:
        count = float(np.prod([a.shape[i] for i in axes]))
    else:
        count = sum(broadcast_to(where, a.shape), axes, compute, keepdims=keepdims)
    total = sum(a, axes, compute, keepdims=keepdims, where=where)
    return _strong(lax.div(total, count if where is not None else
                           LiteralArray(np.asarray(count, compute), weak_type=True)), dtype)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    _check_out("var", out, a)
    return _var(asarray(a), _static_axis(axis), dtype, ddof, keepdims)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    _check_out("std", out, a)
    return _std(asarray(a), _static_axis(axis), dtype, ddof, keepdims)


def _static_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


@_jit_in_jaxprs("_var", static_argnums=(1, 2, 4))
def _var(a, axis, dtype, correction, keepdims):
    """The variance as JAX computes it: the mean of the squared deviations, divided by the count
    less `correction` (NumPy's `ddof`), and NaN where that is not positive."""
    if dtype is not None:
        dtype = compute = canonicalize_dtype(dtype)
    else:
        dtype = compute = a.dtype if a.dtype.kind == "f" else _FLOAT32
    compute = _FLOAT32 if compute == np.float16 else compute
    a = astype(a, compute)
    centred = lax.square(lax.sub(a, mean(a, axis, compute, keepdims=True)))
    count = np.prod([a.shape[i] for i in _reduction_axes(axis, a.ndim)])
    normalizer = lax.sub(LiteralArray(np.asarray(count, compute)),
                         lax.convert_element_type(correction, compute))
    result = astype(lax.div(sum(centred, axis, compute, keepdims=keepdims), normalizer), dtype)
    return _where(greater(normalizer, 0), result, np.nan)


@_jit_in_jaxprs("_std", static_argnums=(1, 2, 4))
def _std(a, axis, dtype, correction, keepdims):
    return lax.sqrt(_var(a, axis, dtype, correction, keepdims))


def _extremum(name, reducer, pick, a, axis, out, keepdims, initial, where):
    _check_out(name, out, a)
    a = _strong(asarray(a))
    axes = _reduction_axes(axis, a.ndim)
    if initial is None and (where is not None or builtins.any(a.shape[i] == 0 for i in axes)):
        raise ValueError(f"zero-size array to reduction operation {name} which has no "
                         "identity" if where is None else
                         f"reduction operation {name} with where= needs an initial value")
    if where is not None:
        a = _where(where, a, asarray(initial, a.dtype))
    result = _reduce(reducer, a, axes, keepdims)
    return result if initial is None else pick(result, asarray(initial, a.dtype))


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _extremum("max", lax.reduce_max, maximum, a, axis, out, keepdims, initial, where)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    return _extremum("min", lax.reduce_min, minimum, a, axis, out, keepdims, initial, where)


amax, amin = max, min


def _arg_extremum(name, primitive_fun, a, axis, out, keepdims):
    _check_out(name, out, a)
    a = asarray(a)
    if axis is None:
        if a.size == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        result = primitive_fun(ravel(a), 0, _INT32)
        return lax.expand_dims(result, range(a.ndim)) if keepdims else result
    axis = _canonical_axis(axis, a.ndim)
    if a.shape[axis] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    result = primitive_fun(a, axis, _INT32)
    return lax.expand_dims(result, (axis,)) if keepdims else result


def argmax(a, axis=None, out=None, keepdims=False):
    return _arg_extremum("argmax", lax.argmax, a, axis, out, keepdims)


def argmin(a, axis=None, out=None, keepdims=False):
    return _arg_extremum("argmin", lax.argmin, a, axis, out, keepdims)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    return _accumulate("prod", lax.reduce_prod, multiply, 1, a, axis, dtype, out, keepdims,
                       initial, where)


def _logical_reduction(name, reducer, a, axis, out, keepdims):
    _check_out(name, out, a)
    a = asarray(a)
    return _reduce(reducer, _strong(a, _BOOL), axis, keepdims)


def any(a, axis=None, out=None, keepdims=False):
    return _logical_reduction("any", lax.reduce_or, a, axis, out, keepdims)


def all(a, axis=None, out=None, keepdims=False):
    return _logical_reduction("all", lax.reduce_and, a, axis, out, keepdims)


def cumsum(a, axis=None, dtype=None, out=None):
    _check_out("cumsum", out, a)
    return _cumsum(asarray(a), axis, dtype)


def cumprod(a, axis=None, dtype=None, out=None):
    _check_out("cumprod", out, a)
    return _cumprod(asarray(a), axis, dtype)


def _cumulative(reducer, a, axis, dtype):
    """As JAX's `_cumulative_reduction`: `axis=None` flattens; booleans accumulate in int32."""
    if axis is None:
        a, axis = lax.reshape(a, (a.size,)), 0
    axis = _canonical_axis(axis, a.ndim)
    dtype = canonicalize_dtype(dtype) if dtype is not None else (
        _INT32 if a.dtype == _BOOL else a.dtype)
    if a.dtype != dtype:
        a = lax.convert_element_type(a, dtype)
    return reducer(a, axis)


@_jit_in_jaxprs("cumsum", static_argnums=(1, 2))
def _cumsum(a, axis, dtype):
    return _cumulative(lax.cumsum, a, axis, dtype)


@_jit_in_jaxprs("cumprod", static_argnums=(1, 2))
def _cumprod(a, axis, dtype):
    return _cumulative(lax.cumprod, a, axis, dtype)


def matmul(a, b):
    _check_arraylike("matmul", a, b)
    a, b = asarray(a), asarray(b)
    for i, x in enumerate((a, b)):
        if x.ndim == 0:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, but it has "
                             "ndim 0")
    a, b = _promote_dtypes(a, b)
    a_mat, b_mat = a.ndim > 1, b.ndim > 1
    a_lead, b_lead = a.shape[:-2] if a_mat else (), b.shape[:-2] if b_mat else ()
    n = builtins.max(len(a_lead), len(b_lead))
    a_lead = (None,) * (n - len(a_lead)) + a_lead       # None: the operand lacks it
    b_lead = (None,) * (n - len(b_lead)) + b_lead
    a_squeeze, b_squeeze, both_squeeze, a_batch, b_batch = [], [], [], [], []
    out_batch, out_a, out_b = [], [], []   # output positions of dot_general's dimensions
    for i, (da, db) in enumerate(zip(a_lead, b_lead)):
        a_at = len(out_batch) + len(out_a) + len(a_squeeze)   # where it is in a, if a has it
        b_at = len(out_batch) + len(out_b) + len(b_squeeze)
        if da is None:
            out_b.append(i)
        elif db is None:
            out_a.append(i)
        elif da == db == 1:
            a_squeeze.append(a_at)
            b_squeeze.append(b_at)
            both_squeeze.append(i)
        elif da == 1:
            a_squeeze.append(a_at)
            out_b.append(i)
        elif db == 1:
            b_squeeze.append(b_at)
            out_a.append(i)
        elif da == db:
            a_batch.append(a_at)
            b_batch.append(b_at)
            out_batch.append(i)
        else:
            raise ValueError(f"Incompatible types for matmul arguments: {a.aval.str_short()} "
                             f"and {b.aval.str_short()}")
    if a_mat:
        out_a.append(n)
    if b_mat:
        out_b.append(n + a_mat)
    a, b = lax.squeeze(a, a_squeeze), lax.squeeze(b, b_squeeze)
    dims = (((a.ndim - 1,), (b.ndim - 1 - b_mat,)), (tuple(a_batch), tuple(b_batch)))
    out = lax.dot_general(a, b, dims, preferred_element_type=a.dtype)
    out = lax.transpose(out, np.argsort(out_batch + out_a + out_b).tolist())
    return lax.expand_dims(out, both_squeeze) if both_squeeze else out


def tensordot(a, b, axes=2):
    """Contract the last `axes` dimensions of `a` with the first of `b` (an int), or the
    dimensions listed for each (a pair of sequences): one `dot_general`."""
    _check_arraylike("tensordot", a, b)
    a, b = _promote_dtypes(a, b)
    if type(axes) is int:
        if axes > builtins.min(a.ndim, b.ndim):
            raise TypeError(f"Number of tensordot axes (axes {axes}) exceeds input ranks "
                            f"({a.shape} and {b.shape})")
        a_axes, b_axes = tuple(range(a.ndim - axes, a.ndim)), tuple(range(axes))
    else:
        a_axes, b_axes = ((ax,) if isinstance(ax, int) else tuple(ax) for ax in axes)
        if len(a_axes) != len(b_axes):
            raise TypeError("tensordot requires axes lists to have equal length, got "
                            f"{a_axes} and {b_axes}.")
        a_axes = tuple(_canonical_axis(i, a.ndim) for i in a_axes)
        b_axes = tuple(_canonical_axis(i, b.ndim) for i in b_axes)
    return lax.dot_general(a, b, ((a_axes, b_axes), ((), ())), preferred_element_type=a.dtype)


def dot(a, b):
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    if b.ndim > 2:
        raise NotImplementedError("dot with an operand of rank > 2: use matmul or einsum-style "
                                  "dot_general")
    return matmul(a, b)


def vdot(a, b):
    return dot(ravel(a), ravel(b))


def outer(a, b):
    return multiply(ravel(a)[:, None], ravel(b)[None, :])


def tile(A, reps):
    """`A` repeated `reps` times along each axis (an int, or one count per axis)."""
    A = asarray(A)
    reps = (operator.index(reps),) if not isinstance(reps, (tuple, list)) else tuple(reps)
    d = builtins.max(A.ndim, len(reps))
    shape, reps = (1,) * (d - A.ndim) + A.shape, (1,) * (d - len(reps)) + reps
    A = reshape(A, shape)
    wide = [n for pair in zip(reps, shape) for n in pair]        # (r0, s0, r1, s1, ...)
    A = lax.broadcast_in_dim(A, wide, range(1, 2 * d, 2))
    return reshape(A, [r * s for r, s in zip(reps, shape)])


def repeat(a, repeats, axis=None):
    """Each element of `a` repeated `repeats` times (an int) along `axis` (default: of the
    flattened array)."""
    a = asarray(a)
    if not isinstance(repeats, int):
        raise NotImplementedError("jnp.repeat with an array of repeat counts is not built in "
                                  "autodidax: pass an int")
    if axis is None:
        a, axis = ravel(a), 0
    axis = _canonical_axis(axis, a.ndim)
    wide = a.shape[:axis + 1] + (repeats,) + a.shape[axis + 1:]
    a = lax.broadcast_in_dim(a, wide, [i for i in range(len(wide)) if i != axis + 1])
    return reshape(a, a.shape[:axis] + (wide[axis] * repeats,) + wide[axis + 2:])


def roll(a, shift, axis=None):
    """`a` with its elements shifted by `shift` places along `axis`, those that fall off one
    end coming back at the other (default: of the flattened array, then reshaped)."""
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    shifts = (shift,) if isinstance(shift, int) else tuple(shift)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    for s, ax in zip(shifts, axes):
        ax = _canonical_axis(ax, a.ndim)
        n = a.shape[ax]
        if n:
            s = operator.index(s) % n
            a = concatenate([_slice_axis(a, n - s, n, ax), _slice_axis(a, 0, n - s, ax)],
                            ax) if s else a
    return a


def _slice_axis(a, start, stop, axis):
    starts, limits = [0] * a.ndim, list(a.shape)
    starts[axis], limits[axis] = start, stop
    return lax.slice(a, starts, limits)


def _triangle(m, k, lower):
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError(f"{'tril' if lower else 'triu'} requires an array of at least two "
                         f"dimensions, got shape {m.shape}")
    n, p = m.shape[-2:]
    mask = np.tri(n, p, k, dtype=bool) if lower else ~np.tri(n, p, k - 1, dtype=bool)
    return _where(mask, m, zeros_like(m))


def tril(m, k=0): return _triangle(m, k, lower=True)
def triu(m, k=0): return _triangle(m, k, lower=False)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal of the matrices along `axis1` and `axis2`, as the last axis."""
    a = asarray(a)
    axis1, axis2 = _canonical_axis(axis1, a.ndim), _canonical_axis(axis2, a.ndim)
    a = lax.transpose(a, [i for i in range(a.ndim) if i not in (axis1, axis2)] + [axis1, axis2])
    n, p = a.shape[-2:]
    picked = sum(_where(np.eye(n, p, offset, dtype=bool), a, zeros_like(a)), axis=-1,
                 dtype=a.dtype)
    start, stop = builtins.max(0, -offset), builtins.min(n, p - offset)
    return _slice_axis(picked, start, builtins.max(start, stop), picked.ndim - 1)


def trace(a, offset=0, axis1=0, axis2=1):
    return sum(diagonal(a, offset, axis1, axis2), axis=-1)


def diag(v, k=0):
    """The diagonal of a matrix, or the matrix with a vector on its diagonal."""
    v = asarray(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError("diag input must be 1d or 2d")
    n = v.shape[0] + builtins.abs(k)
    padded = concatenate([v, zeros(builtins.abs(k), v.dtype)]) if k else v
    values = padded[:, None] if k >= 0 else padded[None, :]    # v[i] at (i, i + k)
    return _where(np.eye(n, n, k, dtype=bool), broadcast_to(values, (n, n)),
                  zeros((n, n), v.dtype))


def meshgrid(*xi, indexing="xy", sparse=False):
    """Coordinate arrays from coordinate vectors: `indexing="xy"` (Cartesian, the first two
    axes swapped) or `"ij"` (matrix)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    xi = [ravel(asarray(x)) for x in xi]
    shape = [x.shape[0] for x in xi]
    if indexing == "xy" and len(xi) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, x in enumerate(xi):
        at = (1 - i if i < 2 else i) if indexing == "xy" and len(xi) > 1 else i
        out.append(lax.broadcast_in_dim(x, [s if j == at else 1 for j, s in enumerate(shape)]
                                        if sparse else shape, [at]))
    return out


def kron(a, b):
    """The Kronecker product: every element of `a` times the whole of `b`."""
    a, b = _promote_dtypes(a, b)
    d = builtins.max(a.ndim, b.ndim)
    a, b = reshape(a, (1,) * (d - a.ndim) + a.shape), reshape(b, (1,) * (d - b.ndim) + b.shape)
    wide = multiply(lax.expand_dims(a, range(1, 2 * d, 2)), lax.expand_dims(b, range(0, 2 * d, 2)))
    return reshape(wide, [m * n for m, n in zip(a.shape, b.shape)])


def _getitem(a, index):
    index = index if isinstance(index, tuple) else (index,)
    for i in index:
        if isinstance(i, (Array, np.ndarray, list)) and (
                np.ndim(i) or getattr(i, "dtype", None) == _BOOL):
            raise NotImplementedError(
                "indexing with an array of integers or booleans (NumPy's advanced indexing) is "
                "not built yet: autodidax supports basic indexing (integers, slices, None and "
                f"...), and got an index of shape {np.shape(i)}")
        if not (i is None or i is Ellipsis or isinstance(i, builtins.slice)
                or (not isinstance(i, bool) and hasattr(i, "__index__"))):
            raise TypeError(f"autodidax supports basic indexing only (integers, slices, None "
                            f"and ...); got an index of type {type(i).__name__}")
    real = [i for i in index if i is not None and i is not Ellipsis]
    if len(real) > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but "
                         f"{len(real)} were indexed")
    if builtins.sum(i is Ellipsis for i in index) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    fill = (builtins.slice(None),) * (a.ndim - len(real))
    if builtins.any(i is Ellipsis for i in index):
        at = next(k for k, i in enumerate(index) if i is Ellipsis)
        index = index[:at] + fill + index[at + 1:]
    else:
        index = index + fill
    starts, limits, strides, reversed_, squeezed, new_axes = [], [], [], [], [], []
    dim = out_dim = 0
    for i in index:
        if i is None:
            new_axes.append(out_dim)
            out_dim += 1
            continue
        n = a.shape[dim]
        if isinstance(i, builtins.slice):
            start, stop, step = i.indices(n)
            if step < 0:                     # walk the reversed dimension forwards instead
                reversed_.append(dim)
                start, stop, step = n - 1 - start, n - 1 - stop, -step
            starts.append(start)
            limits.append(builtins.max(start, stop))
            strides.append(step)
            out_dim += 1
        else:
            k = operator.index(i)
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {dim} with size {n}")
            k %= n
            starts.append(k)
            limits.append(k + 1)
            strides.append(1)
            squeezed.append(dim)
        dim += 1
    out = lax.rev(a, reversed_) if reversed_ else a
    if starts != [0] * a.ndim or limits != list(a.shape) or strides != [1] * a.ndim:
        out = lax.slice(out, starts, limits, None if strides == [1] * a.ndim else strides)
    if squeezed:
        out = lax.squeeze(out, squeezed)
    if new_axes:
        out = lax.expand_dims(out, new_axes)
    return out


def _swap(f):
    return lambda x, y: f(y, x)


_METHODS = {
    "__add__": add, "__radd__": _swap(add), "__sub__": subtract, "__rsub__": _swap(subtract),
    "__mul__": multiply, "__rmul__": _swap(multiply),
    "__truediv__": true_divide, "__rtruediv__": _swap(true_divide),
    "__pow__": power, "__rpow__": _swap(power),
    "__matmul__": matmul, "__rmatmul__": _swap(matmul),
    "__neg__": negative, "__pos__": lambda x: x, "__abs__": abs,
    "__gt__": greater, "__lt__": less, "__ge__": greater_equal, "__le__": less_equal,
    "__eq__": equal, "__ne__": not_equal, "__getitem__": _getitem,
    "T": property(lambda x: transpose(x)), "reshape": reshape, "ravel": ravel,
    "flatten": ravel, "transpose": lambda x, *axes: transpose(
        x, axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else (axes or None)),
    "__and__": bitwise_and, "__rand__": _swap(bitwise_and), "__or__": bitwise_or,
    "__ror__": _swap(bitwise_or), "__xor__": bitwise_xor, "__rxor__": _swap(bitwise_xor),
    "__invert__": bitwise_not,
    "__mod__": remainder, "__rmod__": _swap(remainder), "__floordiv__": floor_divide,
    "__rfloordiv__": _swap(floor_divide), "__divmod__": divmod, "__rdivmod__": _swap(divmod),
    "sum": sum, "mean": mean, "max": max, "min": min, "var": var, "std": std,
    "prod": prod, "any": any, "all": all, "round": round, "cumsum": cumsum, "cumprod": cumprod,
    "argmax": argmax, "argmin": argmin,
    "astype": astype, "squeeze": squeeze, "dot": dot, "clip": clip, "swapaxes": swapaxes,
}
wrap_public_functions(globals(), __name__)       # errors show the user's frames only
for _cls in (Array, Tracer):
    for _name, _method in _METHODS.items():
        if isinstance(_method, property):
            _method = property(api_boundary(_method.fget))
        setattr(_cls, _name, api_boundary(_method) if callable(_method) else _method)

ndarray = Array
pi, e, inf, nan = np.pi, np.e, np.inf, np.nan


class _ScalarType:
    """`jnp.float32` and friends: a dtype that also makes arrays when called."""

    def __init__(self, name):
        self.dtype = np.dtype(name)
        self.__name__ = name

    def __call__(self, x):
        return asarray(x, self.dtype)

    def __repr__(self):
        return f"<class 'autodidax.numpy.{self.__name__}'>"


float32, float16 = _ScalarType("float32"), _ScalarType("float16")
int32, int16, int8 = _ScalarType("int32"), _ScalarType("int16"), _ScalarType("int8")
uint32, uint8, bool_ = _ScalarType("uint32"), _ScalarType("uint8"), _ScalarType("bool")
float64, int64 = _ScalarType("float64"), _ScalarType("int64")
