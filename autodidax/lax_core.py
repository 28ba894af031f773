# Generated from chapters/A6_lax.md by `make export`: edit the chapter, not this file.


"""The primitives, named as in `jax.lax`, with their evaluation and abstract evaluation rules."""
from __future__ import annotations

import builtins
import enum
import math
import operator

import ml_dtypes
import numpy as np

from autodidax.core import (Array, EvalTrace, LiteralArray, Primitive, ShapedArray,
                            abstract_eval_rules, canonicalize_dtype, dtype_kind, get_aval,
                            impl_rules, trace_ctx, wrap_public_functions)


_FLOAT, _COMPLEX, _INT, _BOOL = frozenset("f"), frozenset("c"), frozenset("iu"), frozenset("b")
_INEXACT = _FLOAT | _COMPLEX
_NUM = _INEXACT | _INT
_ANY, _ORDERED = _NUM | _BOOL, _FLOAT | _INT | _BOOL      # complex numbers have no order
_KIND_NAMES = {"f": "floating", "c": "complexfloating", "i": "signedinteger",
               "u": "unsignedinteger", "b": "bool"}


def _check_dtype(name, dtype, kinds):
    if dtype_kind(dtype) not in kinds:
        accepted = ", ".join(sorted({_KIND_NAMES[k] for k in kinds}))
        raise TypeError(f"{name} does not accept dtype {dtype.name}. "
                        f"Accepted dtypes are subtypes of {accepted}.")


def _unop(name, impl, kinds, out_dtype=None):
    """An elementwise primitive; its result has the operand's aval, or `out_dtype(its dtype)`."""
    prim = Primitive(name)
    impl_rules[prim] = impl

    def abstract_eval(x, **params):
        _check_dtype(name, x.dtype, kinds)
        return x if out_dtype is None else ShapedArray(x.shape, out_dtype(x.dtype), x.weak_type)
    abstract_eval_rules[prim] = abstract_eval
    return prim


neg_p = _unop("neg", np.negative, _NUM)
sin_p = _unop("sin", np.sin, _INEXACT)
cos_p = _unop("cos", np.cos, _INEXACT)
exp_p = _unop("exp", np.exp, _INEXACT)
log_p = _unop("log", np.log, _INEXACT)
tanh_p = _unop("tanh", np.tanh, _INEXACT)
sqrt_p = _unop("sqrt", np.sqrt, _INEXACT)
sign_p = _unop("sign", lambda x: np.where(x == 0, x, np.sign(x)), _NUM)   # sign(-0.0) is -0.0
square_p = _unop("square", np.square, _NUM)
floor_p = _unop("floor", np.floor, _FLOAT)
ceil_p = _unop("ceil", np.ceil, _FLOAT)
expm1_p = _unop("expm1", np.expm1, _INEXACT)
log1p_p = _unop("log1p", np.log1p, _INEXACT)
tan_p = _unop("tan", np.tan, _INEXACT)
asin_p = _unop("asin", np.arcsin, _INEXACT)
acos_p = _unop("acos", np.arccos, _INEXACT)
atan_p = _unop("atan", np.arctan, _INEXACT)
sinh_p = _unop("sinh", np.sinh, _INEXACT)
cosh_p = _unop("cosh", np.cosh, _INEXACT)
asinh_p = _unop("asinh", np.arcsinh, _INEXACT)
acosh_p = _unop("acosh", np.arccosh, _INEXACT)
atanh_p = _unop("atanh", np.arctanh, _INEXACT)
rsqrt_p = _unop("rsqrt", lambda x: (1 / np.sqrt(x)).astype(x.dtype), _INEXACT)
# JAX lowers 2**x as exp(log(2) * x), a last bit away from NumPy's exp2 at some x.
exp2_p = _unop("exp2", lambda x: np.exp(x.dtype.type(np.log(2)) * x), _INEXACT)


def broadcasting_shape(name, *shapes):
    """The shape of an elementwise result; an error naming the operation when shapes disagree."""
    arrays = [s for s in shapes if s]
    if not arrays:
        return ()
    if all(s == arrays[0] for s in arrays):    # the common case, checked first
        return arrays[0]
    rank = len(arrays[0])
    out = []
    for dims in zip(*arrays):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1 or any(len(s) != rank for s in arrays):
            break
        out.append(sizes.pop() if sizes else 1)
    if len(out) != rank or any(len(s) != rank for s in arrays):
        raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                        f"{', '.join(map(str, shapes))}.")
    return tuple(out)


def _binop(name, impl, kinds, out_dtype=None):
    prim = Primitive(name)
    impl_rules[prim] = impl

    def abstract_eval(x, y):
        _check_dtype(name, x.dtype, kinds)
        if x.dtype != y.dtype:        # each operand's kind first, then their equality, as JAX
            _check_dtype(name, y.dtype, kinds)
            raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                            f"{x.dtype.name}, {y.dtype.name}. (autodidax.numpy's functions "
                            "promote their inputs to a common dtype first.)")
        shape = broadcasting_shape(name, x.shape, y.shape)
        dtype, weak_type = out_dtype or x.dtype, x.weak_type and y.weak_type
        for a in (x, y):            # an input's aval, when it is the result's: one object less
            if a.shape == shape and a.dtype is dtype and a.weak_type == weak_type:
                return a
        return ShapedArray(shape, dtype, weak_type)
    abstract_eval_rules[prim] = abstract_eval
    return prim


def _div_impl(x, y):
    if dtype_kind(x.dtype) in "fc":
        return np.divide(x, y)
    dtype = x.dtype
    x, y = x.astype(np.int64), y.astype(np.int64)   # room for every int32 and uint32 value
    divisor = np.where(y == 0, 1, y)
    quotient = np.abs(x) // np.abs(divisor)    # lax.div rounds integers toward zero, like C
    quotient = np.where((x < 0) != (divisor < 0), -quotient, quotient)
    # XLA defines x / 0 as -1 (all bits set: the largest value of an unsigned type); the cast
    # back wraps INT_MIN / -1 to INT_MIN, as XLA does.
    return np.where(y == 0, -1, quotient).astype(dtype)


def _rem_impl(x, y):
    """C's `%`: the sign of the dividend. XLA defines an integer x % 0 as x, and
    INT_MIN % -1 as 0."""
    if dtype_kind(x.dtype) == "f":
        return np.fmod(x, y)
    divisor = np.where(y == 0, 1, y)
    return np.where(y == 0, x, np.fmod(x.astype(np.int64), divisor)).astype(x.dtype)


add_p = _binop("add", np.add, _NUM)
sub_p = _binop("sub", np.subtract, _NUM)
mul_p = _binop("mul", np.multiply, _NUM)
div_p = _binop("div", _div_impl, _NUM)
rem_p = _binop("rem", _rem_impl, _FLOAT | _INT)
max_p = _binop("max", np.maximum, _ANY)
min_p = _binop("min", np.minimum, _ANY)
pow_p = _binop("pow", lambda x, y: np.power(x, y).astype(x.dtype, copy=False), _NUM)
atan2_p = _binop("atan2", np.arctan2, _INEXACT)
_BOOL_DTYPE = np.dtype("bool")
gt_p = _binop("gt", np.greater, _ORDERED, _BOOL_DTYPE)
lt_p = _binop("lt", np.less, _ORDERED, _BOOL_DTYPE)
ge_p = _binop("ge", np.greater_equal, _ORDERED, _BOOL_DTYPE)
le_p = _binop("le", np.less_equal, _ORDERED, _BOOL_DTYPE)
eq_p = _binop("eq", np.equal, _ANY, _BOOL_DTYPE)
ne_p = _binop("ne", np.not_equal, _ANY, _BOOL_DTYPE)


def _pow_abstract(x, y):
    """`pow` also takes a float base with an integer exponent, as JAX's does."""
    if dtype_kind(x.dtype) == "f" and dtype_kind(y.dtype) in "iu":
        shape = broadcasting_shape("pow", x.shape, y.shape)
        return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)
    return _pow_same_dtypes(x, y)


_pow_same_dtypes = abstract_eval_rules[pow_p]
abstract_eval_rules[pow_p] = _pow_abstract


_BITS = _INT | _BOOL
and_p = _binop("and", np.bitwise_and, _BITS)
or_p = _binop("or", np.bitwise_or, _BITS)
xor_p = _binop("xor", np.bitwise_xor, _BITS)
not_p = _unop("not", np.invert, _BITS)


def _shift_impl(kind):
    def impl(x, y):
        bits = x.dtype.itemsize * 8
        x, y = np.broadcast_arrays(x, y)
        too_far = y.astype(np.uint64) >= bits          # XLA's rule: shifting out every bit
        safe = np.where(too_far, 0, y).astype(x.dtype)
        if kind == "left":
            out, fill = np.left_shift(x, safe), 0
        elif kind == "logical":
            unsigned = x.view(f"u{x.dtype.itemsize}")
            out, fill = np.right_shift(unsigned, safe.view(unsigned.dtype)).view(x.dtype), 0
        else:                     # the top bit is the sign, for unsigned dtypes too (XLA's)
            signed = x.view(f"i{x.dtype.itemsize}")
            out = np.right_shift(signed, safe.view(signed.dtype)).view(x.dtype)
            fill = np.where(signed < 0, -1, 0).astype(signed.dtype).view(x.dtype)
        return np.where(too_far, fill, out).astype(x.dtype)
    return impl


def _shift_primitive(name, kind):
    prim = Primitive(name)
    impl_rules[prim] = _shift_impl(kind)

    def abstract_eval(x, y):
        for a in (x, y):
            _check_dtype(name, a.dtype, _INT)
        if x.dtype != y.dtype:
            raise TypeError(f"{name} requires arguments to have the same dtypes, got "
                            f"{x.dtype.name}, {y.dtype.name}.")
        shape = broadcasting_shape(name, x.shape, y.shape)
        return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)
    abstract_eval_rules[prim] = abstract_eval
    return prim


shift_left_p = _shift_primitive("shift_left", "left")
shift_right_logical_p = _shift_primitive("shift_right_logical", "logical")
shift_right_arithmetic_p = _shift_primitive("shift_right_arithmetic", "arithmetic")

bitcast_convert_type_p = Primitive("bitcast_convert_type")
impl_rules[bitcast_convert_type_p] = lambda x, *, new_dtype: x.view(new_dtype)


def _bitcast_abstract(x, *, new_dtype):
    if x.dtype.itemsize != new_dtype.itemsize:
        raise TypeError(f"bitcast_convert_type from {x.dtype.name} to {new_dtype.name}: "
                        "autodidax bitcasts only between dtypes of the same width")
    return ShapedArray(x.shape, new_dtype)


abstract_eval_rules[bitcast_convert_type_p] = _bitcast_abstract


is_finite_p = Primitive("is_finite")
impl_rules[is_finite_p] = np.isfinite


def _is_finite_abstract(x):
    _check_dtype("is_finite", x.dtype, _FLOAT)
    return ShapedArray(x.shape, _BOOL_DTYPE, x.weak_type)


abstract_eval_rules[is_finite_p] = _is_finite_abstract


class RoundingMethod(enum.IntEnum):
    """How `lax.round` rounds halves (JAX's enum, printed as its number)."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def _round_impl(x, *, rounding_method):
    if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
        return np.rint(x)
    whole = np.trunc(x)                   # x - whole is exact: no rounding error at 0.49999997
    return np.where(np.abs(x - whole) >= 0.5, whole + np.sign(x), whole).astype(x.dtype)


def _round_abstract(x, *, rounding_method):
    _check_dtype("round", x.dtype, _FLOAT)
    return x


round_p = Primitive("round")
impl_rules[round_p] = _round_impl
abstract_eval_rules[round_p] = _round_abstract

stop_gradient_p = Primitive("stop_gradient")
impl_rules[stop_gradient_p] = lambda x: x
abstract_eval_rules[stop_gradient_p] = lambda x: x


def real_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype of a complex dtype's parts, `float32` for `complex64`; any other dtype is
    returned unchanged (JAX's `_complex_basetype`)."""
    return np.finfo(dtype).dtype if dtype_kind(dtype) == "c" else dtype


def complex_dtype(dtype: np.dtype) -> np.dtype:
    """The complex dtype whose parts are `dtype`'s (JAX's `_complex_dtype`)."""
    return np.result_type(dtype, np.complex64)


_PARTS = frozenset(map(np.dtype, ("float32", "float64")))    # JAX's `_complex_elem_types`
real_p = _unop("real", lambda x: np.real(x).copy(), _COMPLEX, real_dtype)
imag_p = _unop("imag", lambda x: np.imag(x).copy(), _COMPLEX, real_dtype)
conj_p = _unop("conj", lambda x, *, input_dtype: np.conj(x).astype(complex_dtype(x.dtype)),
                     _INEXACT, complex_dtype)
abs_p = _unop("abs", np.abs, _NUM, real_dtype)


def _complex_impl(x, y):
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), complex_dtype(x.dtype))
    out.real, out.imag = x, y                # not x + 1j * y, which makes nan of inf * 1j
    return out


complex_p = _binop("complex", _complex_impl, _FLOAT, np.dtype("complex64"))


def _complex_abstract(x, y):
    for a in (x, y):
        if a.dtype not in _PARTS:      # the accepted ones as the mode has them: float32 alone
            accepted = sorted({canonicalize_dtype(d).name for d in _PARTS})    # with it off
            raise TypeError(f"complex does not accept dtype {a.dtype.name}. "
                            f"Accepted dtypes are subtypes of {', '.join(accepted)}.")
    out = _complex_same_dtypes(x, y)
    return ShapedArray(out.shape, complex_dtype(x.dtype), out.weak_type)


_complex_same_dtypes = abstract_eval_rules[complex_p]
abstract_eval_rules[complex_p] = _complex_abstract


integer_pow_p = Primitive("integer_pow")
impl_rules[integer_pow_p] = lambda x, *, y: np.power(     # (wrapping in integer dtypes)
    x, np.int64(y) if dtype_kind(x.dtype) in "iu" or not -2**31 <= y < 2**31 else y).astype(x.dtype)


def _integer_pow_abstract(x, *, y):
    _check_dtype("integer_pow", x.dtype, _NUM)
    if not isinstance(y, int):
        raise TypeError(f"integer_pow needs a Python int exponent, got {y!r}")
    if y < 0 and dtype_kind(x.dtype) not in "fc":
        raise TypeError(f"Integers cannot be raised to negative powers, got "
                        f"integer_pow({x.dtype.name}[{','.join(map(str, x.shape))}], {y})")
    return x


abstract_eval_rules[integer_pow_p] = _integer_pow_abstract

select_n_p = Primitive("select_n")
impl_rules[select_n_p] = lambda which, *cases: np.choose(which.astype(np.int32), cases)


def _select_n_abstract(which, *cases):
    if not cases:
        raise TypeError("select_n needs at least one case")
    if dtype_kind(which.dtype) not in "bi":
        raise TypeError(f"select_n's first argument must be bool or int32, got {which.dtype.name}")
    if any(c.shape != cases[0].shape or c.dtype != cases[0].dtype for c in cases):
        raise TypeError("select_n cases must have the same shape and dtype, got "
                        + ", ".join(c.str_short() for c in cases))
    if which.shape and which.shape != cases[0].shape:
        raise TypeError(f"select_n's predicate must be a scalar or have the cases' shape "
                        f"{cases[0].shape}, got {which.shape}")
    return cases[0].update(weak_type=all(c.weak_type for c in cases))


abstract_eval_rules[select_n_p] = _select_n_abstract

convert_element_type_p = Primitive("convert_element_type")


def _convert_element_type_impl(x, *, new_dtype, weak_type, sharding=None):
    if dtype_kind(x.dtype) == "c" and dtype_kind(new_dtype) != "c":
        x = np.real(x)                   # the real part, as JAX's lowering takes it
    if dtype_kind(x.dtype) == "f" and dtype_kind(new_dtype) in "iu":
        # XLA saturates: out-of-range floats become the integer type's limits, NaN becomes 0.
        # NumPy's cast leaves such values undefined (300.0 to uint8 gives 44).
        info = ml_dtypes.iinfo(new_dtype)
        wide = np.clip(x.astype(np.float64), info.min, info.max)
        return np.where(np.isnan(wide), 0, wide).astype(new_dtype)
    return x.astype(new_dtype)


impl_rules[convert_element_type_p] = _convert_element_type_impl
abstract_eval_rules[convert_element_type_p] = (
    lambda x, *, new_dtype, weak_type, sharding=None: ShapedArray(x.shape, new_dtype, weak_type))


def _check_axes(name, axes, ndim):
    for a in axes:
        operator.index(a)       # a float axis: "'float' object cannot be interpreted as..."
    if any(not 0 <= a < ndim for a in axes) or len(set(axes)) != len(axes):
        raise ValueError(f"{name}: axes {axes} are not distinct axes of an array of rank {ndim}")


def _reduce(name, impl, kinds):
    prim = Primitive(name)
    impl_rules[prim] = (lambda x, *, axes, out_sharding=None:
                        np.asarray(impl(x, axes)).astype(x.dtype))

    def abstract_eval(x, *, axes, out_sharding=None):
        _check_dtype(name, x.dtype, kinds)
        _check_axes(name, axes, x.ndim)
        return x.update(shape=tuple(d for i, d in enumerate(x.shape) if i not in axes))
    abstract_eval_rules[prim] = abstract_eval
    return prim


def lowest(dtype):
    """The identity of `max` on `dtype`: -inf (the lowest float, for the float8 types that have
    no infinity), the smallest integer, or False."""
    return -highest(dtype) if dtype_kind(dtype) in "fc" else (
        False if dtype == _BOOL_DTYPE else ml_dtypes.iinfo(dtype).min)


def highest(dtype):
    """The identity of `min` on `dtype`: inf (or the highest float), the largest int, or True."""
    if dtype_kind(dtype) in "fc":
        return np.inf if np.isinf(np.asarray(np.inf).astype(dtype)) else ml_dtypes.finfo(dtype).max
    return True if dtype == _BOOL_DTYPE else ml_dtypes.iinfo(dtype).max


def _sum(x, axes):
    # NumPy adds along a strided axis one element after the other, in float32 when the input is
    # float32, and loses digits; XLA promises no order, and its CPU code keeps several partial
    # sums. Accumulating in float64 keeps eager sums at least as accurate as XLA's.
    # (`np.add.reduce` is `np.sum` without its Python wrapper, a microsecond.)
    return np.add.reduce(x, axis=axes, dtype=np.float64 if dtype_kind(x.dtype) == "f" else None)


reduce_sum_p = _reduce("reduce_sum", _sum, _NUM)
reduce_max_p = _reduce("reduce_max", lambda x, axes: np.max(x, axes, initial=lowest(x.dtype)),
                       _ANY)
reduce_min_p = _reduce("reduce_min", lambda x, axes: np.min(x, axes, initial=highest(x.dtype)),
                       _ANY)
reduce_prod_p = _reduce("reduce_prod", lambda x, axes: np.prod(x, axes), _NUM)
reduce_or_p = _reduce("reduce_or", lambda x, axes: np.bitwise_or.reduce(x, axes), _BITS)
reduce_and_p = _reduce("reduce_and", lambda x, axes: np.bitwise_and.reduce(x, axes), _BITS)


def _cumulative(name, impl):
    prim = Primitive(name)

    def impl_rule(x, *, axis, reverse):
        x_in = np.flip(x, axis) if reverse else x
        out = np.asarray(impl(x_in, axis)).astype(x.dtype)
        return np.flip(out, axis) if reverse else out

    def abstract_eval(x, *, axis, reverse):
        _check_dtype(name, x.dtype, _NUM)
        if not 0 <= axis < x.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
        return x
    impl_rules[prim] = impl_rule
    abstract_eval_rules[prim] = abstract_eval
    return prim


cumsum_p = _cumulative("cumsum", lambda x, axis: np.cumsum(
    x, axis, dtype=np.float64 if dtype_kind(x.dtype) == "f" else None))
cumprod_p = _cumulative("cumprod", lambda x, axis: np.cumprod(x, axis))


def _argminmax(name, impl):
    prim = Primitive(name)

    def impl_rule(x, *, axes, index_dtype):
        if x.shape[axes[0]] == 0:           # nothing to choose from: index 0, as XLA gives
            return np.zeros(np.delete(x.shape, axes[0]), index_dtype)
        return impl(x, axis=axes[0]).astype(index_dtype)

    def abstract_eval(x, *, axes, index_dtype):
        _check_dtype(name, x.dtype, _ORDERED)
        if len(axes) != 1 or not 0 <= axes[0] < x.ndim:
            raise ValueError(f"Invalid axis {axes} for operand shape {x.shape}")
        return ShapedArray(tuple(d for i, d in enumerate(x.shape) if i != axes[0]), index_dtype)
    impl_rules[prim] = impl_rule
    abstract_eval_rules[prim] = abstract_eval
    return prim


argmax_p = _argminmax("argmax", np.argmax)
argmin_p = _argminmax("argmin", np.argmin)


broadcast_in_dim_p = Primitive("broadcast_in_dim")


def _broadcast_in_dim_impl(x, *, shape, broadcast_dimensions, sharding=None):
    expanded = [1] * len(shape)
    for d, size in zip(broadcast_dimensions, x.shape):
        expanded[d] = size
    return np.broadcast_to(x.reshape(expanded), shape)


def _broadcast_in_dim_abstract(x, *, shape, broadcast_dimensions, sharding=None):
    if any(d < 0 for d in shape):
        raise TypeError("broadcast_in_dim shape must have every element be nonnegative, "
                        f"got {tuple(shape)}.")
    bdims = broadcast_dimensions
    if (len(bdims) != x.ndim or list(bdims) != sorted(set(bdims))
            or any(not 0 <= d < len(shape) for d in bdims)
            or any(x.shape[i] not in (1, shape[d]) for i, d in enumerate(bdims))):
        raise TypeError(f"broadcast_in_dim cannot place an operand of shape {x.shape} at "
                        f"dimensions {bdims} of shape {tuple(shape)}")
    return x.update(shape=shape)


impl_rules[broadcast_in_dim_p] = _broadcast_in_dim_impl
abstract_eval_rules[broadcast_in_dim_p] = _broadcast_in_dim_abstract


reshape_p = Primitive("reshape")


def _reshape_impl(x, *, new_sizes, dimensions, sharding=None):
    return (x if dimensions is None else x.transpose(dimensions)).reshape(new_sizes)


def _reshape_abstract(x, *, new_sizes, dimensions, sharding=None):
    if int(np.prod(new_sizes)) != x.size:
        raise TypeError(f"cannot reshape array of shape {x.shape} (size {x.size}) into shape "
                        f"{tuple(new_sizes)} (size {int(np.prod(new_sizes))})")
    return x.update(shape=new_sizes)


impl_rules[reshape_p] = _reshape_impl
abstract_eval_rules[reshape_p] = _reshape_abstract

transpose_p = Primitive("transpose")
impl_rules[transpose_p] = lambda x, *, permutation: np.transpose(x, permutation)


def _transpose_abstract(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, got "
                        f"permutation {tuple(permutation)} for operand shape {x.shape}.")
    return x.update(shape=tuple(x.shape[p] for p in permutation))


abstract_eval_rules[transpose_p] = _transpose_abstract

squeeze_p = Primitive("squeeze")
impl_rules[squeeze_p] = lambda x, *, dimensions: np.squeeze(x, dimensions)


def _squeeze_abstract(x, *, dimensions):
    if any(not 0 <= d < x.ndim or x.shape[d] != 1 for d in dimensions):
        raise ValueError(f"cannot squeeze dimensions {dimensions} of shape {x.shape}: "
                         "each must exist and have size 1")
    return x.update(shape=tuple(s for i, s in enumerate(x.shape) if i not in dimensions))


abstract_eval_rules[squeeze_p] = _squeeze_abstract


slice_p = Primitive("slice")


def _slice_impl(x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * x.ndim
    return x[tuple(map(builtins.slice, start_indices, limit_indices, strides))]


def _slice_abstract(x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * x.ndim
    if not (len(start_indices) == len(limit_indices) == len(strides) == x.ndim) or any(
            not 0 <= s <= l <= d or st < 1
            for s, l, st, d in zip(start_indices, limit_indices, strides, x.shape)):
        raise TypeError(f"slice of an array of shape {x.shape} got start_indices "
                        f"{start_indices}, limit_indices {limit_indices}, strides {strides}")
    return x.update(shape=tuple((l - s + st - 1) // st
                                for s, l, st in zip(start_indices, limit_indices, strides)))


impl_rules[slice_p] = _slice_impl
abstract_eval_rules[slice_p] = _slice_abstract

rev_p = Primitive("rev")
impl_rules[rev_p] = lambda x, *, dimensions: np.flip(x, dimensions)


def _rev_abstract(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions):                 # JAX's checks and words
        raise TypeError(f"rev dimensions must be unique, got {dimensions}.")
    _check_axes("rev", dimensions, x.ndim)
    return x


abstract_eval_rules[rev_p] = _rev_abstract

concatenate_p = Primitive("concatenate")
impl_rules[concatenate_p] = lambda *xs, dimension: np.concatenate(xs, dimension)


def _concatenate_abstract(*xs, dimension):
    first = xs[0]
    if any(x.dtype != first.dtype for x in xs):
        raise TypeError("concatenate needs operands of one dtype, got "
                        + ", ".join(x.dtype.name for x in xs))
    if not 0 <= dimension < first.ndim or any(
            x.ndim != first.ndim or any(a != b for i, (a, b) in enumerate(zip(x.shape, first.shape))
                                        if i != dimension) for x in xs):
        raise TypeError(f"concatenate along dimension {dimension} needs shapes equal elsewhere, "
                        "got " + ", ".join(str(x.shape) for x in xs))
    size = sum(x.shape[dimension] for x in xs)
    return first.update(shape=first.shape[:dimension] + (size,) + first.shape[dimension + 1:],
                        weak_type=all(x.weak_type for x in xs))


abstract_eval_rules[concatenate_p] = _concatenate_abstract


pad_p = Primitive("pad")


def _dilated(d, interior):
    """The size of `d` elements with `interior` padding between each two."""
    return 0 if d == 0 else d + (d - 1) * interior


def _pad_impl(x, padding_value, *, padding_config):
    grow = [(builtins.max(lo, 0), builtins.max(hi, 0), i) for lo, hi, i in padding_config]
    out = np.full([lo + hi + _dilated(d, i) for d, (lo, hi, i) in zip(x.shape, grow)],
                  padding_value, x.dtype)
    out[tuple(builtins.slice(lo, lo + _dilated(d, i), i + 1)
              for d, (lo, hi, i) in zip(x.shape, grow))] = x
    return out[tuple(builtins.slice(-builtins.min(lo, 0), n + builtins.min(hi, 0))
                     for n, (lo, hi, _) in zip(out.shape, padding_config))]


def _pad_abstract(x, padding_value, *, padding_config):
    if x.dtype != padding_value.dtype:
        raise TypeError("pad operand and padding_value must be same dtype: got "
                        f"{x.dtype.name} and {padding_value.dtype.name}.")
    if padding_value.shape:
        raise ValueError(f"padding_value must be a scalar; got shape {padding_value.shape}")
    if len(padding_config) != x.ndim:
        raise ValueError(f"length of padding_config must equal the number of axes of operand, "
                         f"got padding_config {padding_config} for operand shape {x.shape}")
    if any(i < 0 for _, _, i in padding_config):
        raise ValueError("interior padding in padding_config must be nonnegative, got "
                         f"padding_config {padding_config}")
    shape = tuple(int(lo + hi + _dilated(d, i)) for d, (lo, hi, i) in zip(x.shape, padding_config))
    if any(d < 0 for d in shape):
        raise ValueError(f"Dimension size after padding is not at least 0, got result shape "
                         f"{shape}, for padding_config {padding_config} and operand shape "
                         f"{x.shape}")
    return x.update(shape=shape, weak_type=x.weak_type and padding_value.weak_type)


impl_rules[pad_p] = _pad_impl
abstract_eval_rules[pad_p] = _pad_abstract


iota_p = Primitive("iota")


def _iota_impl(*, dtype, shape, dimension, sharding=None):
    kept = [1] * len(shape)
    kept[dimension] = shape[dimension]
    return np.broadcast_to(np.arange(shape[dimension], dtype=dtype).reshape(kept), shape)


def _iota_abstract(*, dtype, shape, dimension, sharding=None):
    _check_dtype("iota", dtype, _NUM)
    if any(d < 0 for d in shape) or not 0 <= dimension < len(shape):
        raise ValueError(f"iota: dimension {dimension} is not an axis of shape {shape}, or the "
                         "shape has a negative size")
    return ShapedArray(shape, dtype)


impl_rules[iota_p] = _iota_impl
abstract_eval_rules[iota_p] = _iota_abstract


stack_p = Primitive("stack")
impl_rules[stack_p] = lambda *xs, axis: np.stack(xs, axis)


def _stack_abstract(*xs, axis):
    if not xs:
        raise ValueError("stack expects at least one operand, got 0.")
    if len({x.shape for x in xs}) != 1:
        raise ValueError("All input arrays must have the same shape. Got "
                         + ", ".join(str(x.shape) for x in xs) + ".")
    if len({x.dtype for x in xs}) != 1:
        raise TypeError("stack requires arguments to have the same dtypes, got "
                        + ", ".join(x.dtype.name for x in xs) + ".")
    if not 0 <= axis <= xs[0].ndim:
        raise ValueError(f"stack: axis {axis} is out of range for arrays of rank {xs[0].ndim}")
    shape = xs[0].shape[:axis] + (len(xs),) + xs[0].shape[axis:]
    return xs[0].update(shape=shape, weak_type=all(x.weak_type for x in xs))


abstract_eval_rules[stack_p] = _stack_abstract

unstack_p = Primitive("unstack")
unstack_p.multiple_results = True
impl_rules[unstack_p] = lambda x, *, axis: [np.take(x, i, axis) for i in range(x.shape[axis])]


def _unstack_abstract(x, *, axis):
    if not 0 <= axis < x.ndim:
        raise ValueError(f"unstack: axis {axis} is out of range for an array of rank {x.ndim}")
    return [x.update(shape=x.shape[:axis] + x.shape[axis + 1:])] * x.shape[axis]


abstract_eval_rules[unstack_p] = _unstack_abstract


dot_general_p = Primitive("dot_general")


def _dot_general_impl(x, y, *, dimension_numbers, preferred_element_type, **_):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    dtype = preferred_element_type or x.dtype      # accumulate in it, as XLA does
    compute = np.float32 if dtype == np.float16 else dtype    # (and half precision in single)
    x, y = x.astype(compute, copy=False), y.astype(compute, copy=False)
    if not x_batch and x_contract == (x.ndim - 1,) and y_contract == (0,) and y.ndim <= 2:
        return np.dot(x, y).astype(dtype, copy=False)     # a plain matrix product: NumPy's own
    x_free = tuple(i for i in range(x.ndim) if i not in x_batch + x_contract)
    y_free = tuple(j for j in range(y.ndim) if j not in y_batch + y_contract)

    def grouped(a, *groups):          # `a` with its dimensions in `groups`, each made one
        order = [d for g in groups for d in g]
        return a.transpose(order).reshape([math.prod(a.shape[d] for d in g) for g in groups])
    x3, y3 = grouped(x, x_batch, x_free, x_contract), grouped(y, y_batch, y_contract, y_free)
    # Nothing contracted (x3 is (batch, free, 1), y3 (batch, 1, free)): products only, as XLA
    # computes them (a matrix product would add each to a zero, and turn -0.0 into 0.0).
    out = np.matmul(x3, y3) if x_contract else x3 * y3
    shape = [x.shape[i] for i in x_batch + x_free] + [y.shape[j] for j in y_free]
    return out.reshape(shape).astype(dtype, copy=False)


def _dot_general_abstract(x, y, *, dimension_numbers, preferred_element_type, **_):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    if x.dtype != y.dtype:
        raise TypeError(f"dot_general requires operands of the same dtype, got "
                        f"{x.dtype.name}, {y.dtype.name}")
    _check_dtype("dot_general", x.dtype, _ANY)
    _check_axes("dot_general", x_contract + x_batch, x.ndim)
    _check_axes("dot_general", y_contract + y_batch, y.ndim)
    for name, xs, ys in (("contracting", x_contract, y_contract), ("batch", x_batch, y_batch)):
        x_sizes = tuple([x.shape[i] for i in xs])
        y_sizes = tuple([y.shape[i] for i in ys])
        if x_sizes != y_sizes:
            raise TypeError(f"dot_general requires {name} dimensions to have the same shape, "
                            f"got {x_sizes} and {y_sizes}.")
    x_gone, y_gone = x_batch + x_contract, y_batch + y_contract
    shape = ([x.shape[i] for i in x_batch]
             + [d for i, d in enumerate(x.shape) if i not in x_gone]
             + [d for j, d in enumerate(y.shape) if j not in y_gone])
    return ShapedArray(shape, preferred_element_type or x.dtype, x.weak_type and y.weak_type)


impl_rules[dot_general_p] = _dot_general_impl
abstract_eval_rules[dot_general_p] = _dot_general_abstract


_PYTHON_SCALARS = (bool, int, float, builtins.complex)   # (`complex` is lax.complex below)


def _lift_scalars(x, y):
    """Python scalar operands as weakly typed arrays of their own default dtypes, as in JAX."""
    return _literal(x), _literal(y)


def _literal(v):
    if type(v) not in _PYTHON_SCALARS:
        return v
    aval = get_aval(v)           # an int out of int32's range is an OverflowError
    literal = LiteralArray(np.asarray(v, aval.dtype), aval.weak_type)
    literal.python = v if aval.weak_type else None    # jaxprs print `0.1`, as JAX's (A4)
    return literal


def const_like(x, value):
    """`value` as a scalar of `x`'s dtype, weakly typed only if `x` is a weakly typed scalar: the
    constants of rules (JAX's `lax._const`)."""
    aval = get_aval(x)
    return LiteralArray(np.asarray(value, aval.dtype), aval.weak_type and not aval.shape)


def neg(x): return neg_p.bind(x)
def sin(x): return sin_p.bind(x)
def cos(x): return cos_p.bind(x)
def exp(x): return exp_p.bind(x)
def log(x): return log_p.bind(x)
def tanh(x): return tanh_p.bind(x)
def sqrt(x): return sqrt_p.bind(x)
def abs(x): return abs_p.bind(x)
def real(x): return real_p.bind(x)
def imag(x): return imag_p.bind(x)
def conj(x): return conj_p.bind(x, input_dtype=get_aval(x).dtype)
def complex(x, y): return complex_p.bind(*_lift_scalars(x, y))
def sign(x): return sign_p.bind(x)
def square(x): return square_p.bind(x)
def floor(x): return floor_p.bind(x)
def ceil(x): return ceil_p.bind(x)
def is_finite(x): return is_finite_p.bind(x)
def exp2(x): return exp2_p.bind(x)
def expm1(x): return expm1_p.bind(x)
def log1p(x): return log1p_p.bind(x)
def tan(x): return tan_p.bind(x)
def asin(x): return asin_p.bind(x)
def acos(x): return acos_p.bind(x)
def atan(x): return atan_p.bind(x)
def sinh(x): return sinh_p.bind(x)
def cosh(x): return cosh_p.bind(x)
def asinh(x): return asinh_p.bind(x)
def acosh(x): return acosh_p.bind(x)
def atanh(x): return atanh_p.bind(x)
def rsqrt(x): return rsqrt_p.bind(x)
def atan2(x, y): return atan2_p.bind(*_lift_scalars(x, y))
def rem(x, y): return rem_p.bind(*_lift_scalars(x, y))


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
    return round_p.bind(x, rounding_method=RoundingMethod(rounding_method))


def add(x, y): return add_p.bind(*_lift_scalars(x, y))
def sub(x, y): return sub_p.bind(*_lift_scalars(x, y))
def mul(x, y): return mul_p.bind(*_lift_scalars(x, y))
def div(x, y): return div_p.bind(*_lift_scalars(x, y))
def max(x, y): return max_p.bind(*_lift_scalars(x, y))
def min(x, y): return min_p.bind(*_lift_scalars(x, y))
def pow(x, y): return pow_p.bind(*_lift_scalars(x, y))
def gt(x, y): return gt_p.bind(*_lift_scalars(x, y))
def lt(x, y): return lt_p.bind(*_lift_scalars(x, y))
def ge(x, y): return ge_p.bind(*_lift_scalars(x, y))
def le(x, y): return le_p.bind(*_lift_scalars(x, y))
def eq(x, y): return eq_p.bind(*_lift_scalars(x, y))
def ne(x, y): return ne_p.bind(*_lift_scalars(x, y))
def bitwise_and(x, y): return and_p.bind(*_lift_scalars(x, y))
def bitwise_or(x, y): return or_p.bind(*_lift_scalars(x, y))
def bitwise_xor(x, y): return xor_p.bind(*_lift_scalars(x, y))
def bitwise_not(x): return not_p.bind(x)
def shift_left(x, y): return shift_left_p.bind(*_lift_scalars(x, y))
def shift_right_logical(x, y): return shift_right_logical_p.bind(*_lift_scalars(x, y))
def shift_right_arithmetic(x, y): return shift_right_arithmetic_p.bind(*_lift_scalars(x, y))
def integer_pow(x, y): return integer_pow_p.bind(x, y=y)
def select_n(which, *cases): return select_n_p.bind(which, *cases)


def convert_element_type(x, new_dtype, weak_type=False):
    new_dtype = canonicalize_dtype(new_dtype)
    if isinstance(x, Array) and (x.dtype, x.aval.weak_type) == (new_dtype, weak_type):
        return x                          # as JAX: a conversion that changes nothing binds nothing
    if type(x) is builtins.complex and dtype_kind(new_dtype) != "c":
        float(x)                          # JAX's TypeError: a Python complex has no real value
    return convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type, sharding=None)


def bitcast_convert_type(operand, new_dtype):
    return bitcast_convert_type_p.bind(operand, new_dtype=canonicalize_dtype(new_dtype))


def reduce_sum(x, axes): return reduce_sum_p.bind(x, axes=tuple(axes), out_sharding=None)
def reduce_max(x, axes): return reduce_max_p.bind(x, axes=tuple(axes))
def reduce_min(x, axes): return reduce_min_p.bind(x, axes=tuple(axes))
def reduce_prod(x, axes): return reduce_prod_p.bind(x, axes=tuple(axes))
def reduce_or(x, axes): return reduce_or_p.bind(x, axes=tuple(axes))
def reduce_and(x, axes): return reduce_and_p.bind(x, axes=tuple(axes))
def cumsum(x, axis=0, reverse=False): return cumsum_p.bind(x, axis=axis, reverse=reverse)
def cumprod(x, axis=0, reverse=False): return cumprod_p.bind(x, axis=axis, reverse=reverse)


def argmax(operand, axis, index_dtype):
    return argmax_p.bind(operand, axes=(axis,), index_dtype=canonicalize_dtype(index_dtype))


def argmin(operand, axis, index_dtype):
    return argmin_p.bind(operand, axes=(axis,), index_dtype=canonicalize_dtype(index_dtype))


def broadcast_in_dim(x, shape, broadcast_dimensions):
    if not shape and np.ndim(x) == 0 and isinstance(x, Array):
        return x                # as JAX: a scalar "broadcast" to a scalar binds nothing
    return broadcast_in_dim_p.bind(x, shape=tuple(shape),
                                   broadcast_dimensions=tuple(broadcast_dimensions), sharding=None)


def reshape(x, new_sizes, dimensions=None):
    new_sizes = tuple(new_sizes)
    if np.shape(x) and new_sizes == np.shape(x) and dimensions is None and isinstance(x, Array):
        return x            # as JAX: a no-op reshape binds nothing (except of a 0-d array)
    return reshape_p.bind(x, new_sizes=new_sizes,
                          dimensions=None if dimensions is None else tuple(dimensions),
                          sharding=None)


def transpose(x, permutation):
    permutation = tuple(permutation)
    if isinstance(x, Array) and permutation == tuple(range(x.ndim)):
        return x                          # as JAX: the identity permutation binds nothing
    return transpose_p.bind(x, permutation=permutation)


def squeeze(x, dimensions):
    if not dimensions and isinstance(x, Array):
        return x
    return squeeze_p.bind(x, dimensions=tuple(dimensions))


def rev(x, dimensions): return rev_p.bind(x, dimensions=tuple(dimensions))


def concatenate(xs, dimension):
    if len(xs) == 1:                # one operand is its own concatenation: nothing bound, as JAX
        return xs[0]
    return concatenate_p.bind(*xs, dimension=dimension)


def broadcasted_iota(dtype, shape, dimension):
    """Integers counting along `dimension` of an array of `shape`."""
    shape = tuple(operator.index(d) for d in shape)
    return iota_p.bind(dtype=canonicalize_dtype(dtype), shape=shape,
                       dimension=operator.index(dimension), sharding=None)


def iota(dtype, size):
    """`0, 1, ..., size - 1` as an array of `dtype`."""
    return broadcasted_iota(dtype, (operator.index(size),), 0)


def full(shape, fill_value, dtype=None):
    """An array of `shape` filled with the scalar `fill_value`, weakly typed if it is a Python
    scalar and no `dtype` is given."""
    shape = (operator.index(shape),) if np.ndim(shape) == 0 else tuple(map(operator.index, shape))
    if np.shape(fill_value):
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape "
                        f"{np.shape(fill_value)}.")
    aval = get_aval(fill_value)
    weak_type = dtype is None and aval.weak_type
    if type(fill_value) in _PYTHON_SCALARS:      # a constant: made in its dtype at once
        fill_value = LiteralArray(np.asarray(fill_value, canonicalize_dtype(dtype or aval.dtype)),
                                  weak_type)
    else:
        fill_value = convert_element_type(fill_value, dtype or aval.dtype, weak_type)
    return broadcast(fill_value, shape)


def broadcast(operand, sizes):
    """`operand` with new leading dimensions of `sizes`."""
    shape = tuple(sizes) + tuple(get_aval(operand).shape)
    return broadcast_in_dim(operand, shape, range(len(sizes), len(shape)))


def clamp(min, x, max):
    """`x` limited to `[min, max]` elementwise (`min` and `max` may be scalars). JAX has a
    primitive for it; we compose it from comparisons and `select_n`, with JAX's derivative:
    each of the three operands gets the tangent where it is the answer strictly, and at a tie
    nobody does."""
    x_aval = get_aval(x)
    lo, hi = min, max
    for name, v in (("min", lo), ("max", hi)):
        aval = get_aval(v)
        if aval.dtype != x_aval.dtype:
            raise TypeError(f"lax.clamp requires arguments to have the same dtypes, got "
                            f"{get_aval(lo).dtype.name}, {x_aval.dtype.name}, "
                            f"{get_aval(hi).dtype.name}.")
        if aval.shape and aval.shape != x_aval.shape:
            raise TypeError(f"clamp requires {name}.shape == operand.shape or {name}.shape == "
                            f"(), got {aval.shape} and {x_aval.shape}.")
    value = min_p.bind(max_p.bind(x, lo), hi)
    if isinstance(trace_ctx.trace, EvalTrace):
        return value
    x_wins = and_p.bind(gt_p.bind(x, lo), lt_p.bind(x, hi))
    lo_wins = and_p.bind(gt_p.bind(lo, x), lt_p.bind(lo, hi))
    hi_wins = lt_p.bind(hi, x)
    tie = stop_gradient_p.bind(value)
    out = select_n_p.bind(hi_wins, tie, _broadcast_to(hi, x_aval.shape))
    out = select_n_p.bind(lo_wins, out, _broadcast_to(lo, x_aval.shape))
    return select_n_p.bind(x_wins, out, x)


def _broadcast_to(v, shape):
    return v if get_aval(v).shape == shape else broadcast_in_dim(v, shape, ())


def pad(operand, padding_value, padding_config):
    """`operand` with `padding_value` added (or, where negative, elements removed) at each
    dimension's ends, and between its elements: one `(low, high, interior)` per dimension."""
    return pad_p.bind(operand, padding_value,
                      padding_config=tuple(tuple(c) for c in padding_config))


def stack(xs, axis=0): return stack_p.bind(*xs, axis=axis)
def unstack(x, axis=0): return tuple(unstack_p.bind(x, axis=axis))


def slice(x, start_indices, limit_indices, strides=None):
    return slice_p.bind(x, start_indices=tuple(start_indices),
                        limit_indices=tuple(limit_indices),
                        strides=None if strides is None else tuple(strides))


def expand_dims(x, dimensions):
    """Insert dimensions of size 1: a `broadcast_in_dim`, as in JAX."""
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"repeated axis in lax.expand_dims: {dimensions}")
    shape = list(get_aval(x).shape)
    for d in sorted(dimensions):
        shape.insert(d, 1)
    kept = [d for d in range(len(shape)) if d not in dimensions]
    return broadcast_in_dim(x, shape, kept)


canonical_params: dict = {}   # a param's name -> its canonicalizer (appendix A27: "precision")


def dot_general(x, y, dimension_numbers, precision=None, preferred_element_type=None,
                out_sharding=None):
    (xc, yc), (xb, yb) = dimension_numbers
    dims = ((tuple(xc), tuple(yc)), (tuple(xb), tuple(yb)))
    dtype = None if preferred_element_type is None else canonicalize_dtype(preferred_element_type)
    precision = canonical_params.get("precision", lambda p: p)(precision)
    return dot_general_p.bind(x, y, dimension_numbers=dims, precision=precision,
                              preferred_element_type=dtype, out_sharding=out_sharding)


def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None):
    """A matrix or vector product: one `dot_general`, of `dimension_numbers` if given."""
    lhs_shape, rhs_shape = get_aval(lhs).shape, get_aval(rhs).shape
    if dimension_numbers is None:
        if not (1 <= len(lhs_shape) <= 2 and 1 <= len(rhs_shape) <= 2
                and lhs_shape[-1] == rhs_shape[0]):
            raise ValueError("jax.lax.dot: dimension_numbers must be specified when not "
                             "performing simple un-batched matrix-matrix, matrix-vector, or "
                             f"vector-vector products; got lhs_shape={lhs_shape} "
                             f"rhs_shape={rhs_shape}")
        dimension_numbers = (((len(lhs_shape) - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type)


def select(pred, on_true, on_false):
    """`on_true` where `pred`, else `on_false`: `select_n` with the cases the other way round."""
    return select_n_p.bind(pred, on_false, on_true)


def reciprocal(x): return integer_pow(x, -1)


def full_like(x, fill_value, dtype=None, shape=None):
    """An array of `x`'s shape (or `shape`) and dtype (or `dtype`) filled with `fill_value`,
    weakly typed if `x` is and no `dtype` is given."""
    aval = get_aval(x)
    weak_type = dtype is None and aval.weak_type
    dtype = aval.dtype if dtype is None else canonicalize_dtype(dtype)
    if type(fill_value) in _PYTHON_SCALARS:
        fill_value = LiteralArray(np.asarray(fill_value, dtype), weak_type)
    else:
        fill_value = convert_element_type(fill_value, dtype, weak_type)
    return full(aval.shape if shape is None else shape, fill_value)


def broadcast_to_rank(x, rank):
    """`x` with leading dimensions of size 1 added up to `rank`."""
    aval = get_aval(x)
    if len(aval.shape) != rank:
        return broadcast(x, (1,) * (rank - len(aval.shape)))
    if isinstance(x, (np.ndarray, np.generic, *_PYTHON_SCALARS)):   # an array, as JAX's asarray
        return convert_element_type(x, aval.dtype, aval.weak_type)
    return x


def collapse(operand, start_dimension, stop_dimension=None):
    """`operand` with its dimensions `start_dimension` to `stop_dimension` merged into one."""
    shape = get_aval(operand).shape
    lo, hi, _ = builtins.slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                         f"[{start_dimension}:{stop_dimension}]")
    return reshape(operand, shape[:lo] + (math.prod(shape[lo:hi]),) + shape[hi:])


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """`operand[start_index:limit_index:stride]` along `axis` (negative indices count from the
    end, None is the whole), a `slice`."""
    shape = get_aval(operand).shape
    starts, limits, strides = [0] * len(shape), list(shape), [1] * len(shape)
    size = shape[axis]
    start = 0 if start_index is None else operator.index(start_index)
    limit = size if limit_index is None else operator.index(limit_index)
    starts[axis] = start + size if start < 0 else start
    limits[axis] = limit + size if limit < 0 else limit
    strides[axis] = operator.index(stride)
    return slice(operand, starts, limits, strides)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """`operand[index]` along `axis`, with that axis kept (of size 1) unless `keepdims=False`."""
    index, axis = operator.index(index), int(axis)
    size = get_aval(operand).shape[axis]
    wrapped = index + size if index < 0 else index
    if not 0 <= wrapped < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    result = slice_in_dim(operand, wrapped, wrapped + 1, 1, axis)
    return result if keepdims else squeeze(result, (axis,))


wrap_public_functions(globals(), __name__)
