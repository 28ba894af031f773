# Generated from chapters/A1_numpy.md by `make export`: edit the chapter, not this file.


"""NumPy's interface on top of `lax`: type promotion, broadcasting, reductions, indexing."""
from __future__ import annotations

import builtins
import collections
import functools
import inspect
import itertools
import operator
import string
import warnings
from typing import NamedTuple

import ml_dtypes
import numpy as np

from autodidax import lax_core as lax
from autodidax.tree_util import keystr, tree_flatten_with_path
from autodidax.core import (SUPPORTED_DTYPES, Array, EvalTrace, LiteralArray,
                            NonConcreteBooleanIndexError, ShapedArray, Tracer, api_boundary,
                            aval_rules, canonicalize_dtype, dtype_kind, get_aval,
                            set_array_methods, trace_ctx, wrap_public_functions)


_BOOL, _INT32, _FLOAT32, _COMPLEX64 = map(np.dtype, ("bool", "int32", "float32", "complex64"))
_INT64, _UINT64, _FLOAT64, _COMPLEX128 = map(np.dtype, ("int64", "uint64", "float64", "complex128"))
_HALF = frozenset(map(np.dtype, ("float16", "bfloat16")))   # reduced in float32 (JAX's)
_PYTHON_SCALARS = (bool, int, float, complex)
_WEAK = {"b": _BOOL, "i": "i*", "u": "i*", "f": "f*", "c": "c*"}   # weak types; no weak bool
_WIDEST = {"i*": _INT64, "i": _INT64, "u": _UINT64, "f*": _FLOAT64, "f": _FLOAT64,
           "c*": _COMPLEX128, "c": _COMPLEX128}


def _x64() -> bool:
    """Whether 64-bit mode is on (chapter 7's `jax_enable_x64`): `float64` is then kept."""
    return _FLOAT64 in SUPPORTED_DTYPES


def _default(t) -> np.dtype:
    """The dtype of a weak type (`i*`, `f*`, `c*`), or the default one of a kind (`"i"`, `"u"`,
    `"f"`, `"c"`): 64 bits in 64-bit mode, 32 otherwise (JAX's `default_types`)."""
    return canonicalize_dtype(_WIDEST[t])


def _user_dtype(dtype, name: str):
    """A dtype the user asked for by `dtype=`, canonicalized, with JAX's warning when 64-bit mode
    is off and it loses bits (`check_and_canonicalize_user_dtype`). `None` and Python's scalar
    types, which stand for the defaults, are returned as they are."""
    if dtype is None or (isinstance(dtype, type) and dtype in (bool, int, float, complex)):
        return dtype
    if dtype in SUPPORTED_DTYPES:      # a dtype the mode keeps (the fast way: asarray's callers)
        return dtype
    requested = np.dtype(dtype)
    canonical = canonicalize_dtype(requested)
    if canonical != requested:
        warnings.warn(f"Explicitly requested dtype {requested} requested in {name} is not "
                      f"available, and will be truncated to dtype {canonical.name}. To enable "
                      "more dtypes, set the jax_enable_x64 configuration option or the "
                      "JAX_ENABLE_X64 shell environment variable. See "
                      "https://github.com/jax-ml/jax#current-gotchas for more.", stacklevel=3)
    return canonical


def _to_inexact(dtype) -> np.dtype:
    """JAX's `to_inexact_dtype`: `float64` for the 64-bit integers, `float32` for the other
    integers and `bool`, the dtype itself for floats and complexes, whatever the mode."""
    if dtype_kind(dtype) in "fc":
        return dtype
    return _FLOAT64 if dtype.itemsize == 8 else _FLOAT32


def _lattice(x64: bool) -> dict:
    """Each type of JAX's lattice and the types just above it, as JAX's
    `_type_promotion_lattice` (64-bit types are in it: `promote_types` takes them)."""
    b1, u8, u16, u32, u64, i8, i16, i32, i64, bf16, f16, f32, f64, c64, c128 = map(np.dtype, (
        "bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
        "bfloat16", "float16", "float32", "float64", "complex64", "complex128"))
    small = sorted(SUPPORTED_DTYPES - {b1, u8, u16, u32, u64, i8, i16, i32, i64, bf16, f16, f32,
                                       f64, c64, c128}, key=str)
    return {b1: ["i*"], "i*": [u8, i8, *(d for d in small if dtype_kind(d) in "iu")],
            u8: [i16, u16], u16: [i32, u32], u32: [i64, u64] if x64 else [i32, u64], u64: ["f*"],
            i8: [i16], i16: [i32], i32: [i64], i64: ["f*"],
            "f*": [*(d for d in small if dtype_kind(d) == "f"), bf16, f16, "c*"],
            bf16: [f32], f16: [f32], f32: [f64, c64], f64: [c128], "c*": [c64], c64: [c128],
            c128: [], **{d: [] for d in small}}


def _upper_bounds(lattice: dict) -> dict:
    """Each type and every type above it: the types it may be promoted to."""
    bounds = {}

    def above(t):
        if t not in bounds:
            bounds[t] = {t}.union(*map(above, lattice[t]))
        return bounds[t]
    for t in lattice:
        above(t)
    return bounds


_UPPER = {x64: _upper_bounds(_lattice(x64)) for x64 in (False, True)}   # by mode
_STRICT = [None]    # jax_numpy_dtype_promotion="strict" (appendix A25): its upper bounds


def set_dtype_promotion(lattice) -> None:
    """Promote on another `lattice` (appendix A25's strict one), or on `_lattice`'s (None)."""
    _STRICT[0] = None if lattice is None else _upper_bounds(lattice)
    _promote.cache_clear()


class TypePromotionError(ValueError):
    """Types with no common type on the lattice: `float8_e4m3fn` with `float32` (JAX's)."""


def _join(*types, x64=False):
    """The least upper bound of `types`: the common upper bound every other one is above."""
    upper = _STRICT[0] or _UPPER[x64]
    if bad := [t for t in types if t not in upper]:
        raise ValueError(f"dtype={bad[0]!r} is not a valid dtype for JAX type promotion.")
    common = set.intersection(*(upper[t] for t in types))
    least = [c for c in common if common <= upper[c]]
    if not least:
        weak = {"i*": "<class 'int'>", "f*": "<class 'float'>", "c*": "<class 'complex'>"}
        names = tuple(weak[t] if isinstance(t, str) else t.name for t in types)
        strict = " when jax_numpy_dtype_promotion=strict" if _STRICT[0] else ""
        raise TypePromotionError(f"Input dtypes {names} have no available implicit dtype "
                                 f"promotion path{strict}. Try explicitly casting inputs to the "
                                 "desired output type" + (", or set jax_numpy_dtype_promotion="
                                                          "standard." if strict else "."))
    return least[0]


def promote_avals(*avals) -> tuple[np.dtype, bool]:
    """The dtype of an elementwise result, and whether it is weakly typed (a `bool` result never
    is: the lattice has no weak bool, so a comparison's weak `bool` promotes to a strong one, as
    JAX's `lattice_result_type` says)."""
    return _promote(tuple((a.dtype, a.weak_type) for a in avals), _x64())


@functools.lru_cache(1024)     # every jnp operation asks: answered once per combination (JAX's)
def _promote(types, x64: bool) -> tuple[np.dtype, bool]:
    if builtins.all(weak for _, weak in types) and not _STRICT[0]:    # join the dtypes; weak
        return (d := _join(*dict.fromkeys(d for d, _ in types), x64=x64)), d != _BOOL
    t = _join(*dict.fromkeys(_WEAK[dtype_kind(d)] if weak else d for d, weak in types), x64=x64)
    return (_default(t), True) if isinstance(t, str) else (t, False)


_PYTHON_SCALAR_TYPES = {bool: _BOOL, int: "i*", float: "f*", complex: "c*"}


def result_type(*args) -> np.dtype:
    """JAX's `jnp.result_type`: the dtype that promotion gives arrays, dtypes, scalar types
    (`float` is a weak float) and Python numbers, with 64-bit types canonicalized."""
    if not args:
        raise ValueError("at least one array or dtype is required")
    avals = []
    for a in args:
        if isinstance(a, type) and a in _PYTHON_SCALAR_TYPES:
            t = _PYTHON_SCALAR_TYPES[a]
            avals.append(ShapedArray((), _default(t) if isinstance(t, str) else t,
                                     weak_type=a is not bool))
        elif _is_array(a) or isinstance(a, (np.ndarray, np.generic, *_PYTHON_SCALARS)):
            avals.append(get_aval(a))
        else:
            avals.append(ShapedArray((), canonicalize_dtype(np.dtype(a))))
    return promote_avals(*avals)[0]


def _is_array(x):
    return isinstance(x, (Array, Tracer))


def _as_operand(x):
    """`x` as the operand of a primitive: an array as it is, anything else made into one, but
    for a NumPy array while a transformation is tracing, which stays as it is. A primitive takes
    it as a constant, and a trace knows its constants by identity: a function that uses one NumPy
    array twice, or two branches of a `cond` that close over it, record one constant, as in JAX
    (whose `jnp` also hands the NumPy array itself to `bind`). Eagerly, it is copied into an
    array, so that what follows computes with arrays."""
    if _is_array(x):
        return x
    if (type(x) is np.ndarray and x.ndim and x.dtype == canonicalize_dtype(x.dtype)
            and not isinstance(trace_ctx.trace, EvalTrace)):
        return x
    return asarray(x)


def asarray(a, dtype=None):
    """An array from an array, a NumPy array, a Python scalar or a (nested) list of them."""
    dtype = dtype if dtype is None else _user_dtype(dtype, "asarray")
    if _is_array(a):
        if dtype is not None and (canonicalize_dtype(dtype) != a.dtype or get_aval(a).weak_type):
            return lax.convert_element_type(a, dtype)    # a dtype asked for is strong, as in JAX
        return a
    if type(a) in _PYTHON_SCALARS:
        if dtype is None:
            aval = get_aval(a)
            return _scalar(np.asarray(a, aval.dtype), aval.weak_type, a)
        return _scalar(np.asarray(a, canonicalize_dtype(dtype)), False)
    if isinstance(a, (list, tuple)) and builtins.any(_is_array(e) or isinstance(e, (list, tuple))
                                            for e in a):
        leaves = _list_leaves(a)
        if dtype is None:
            dtype = promote_avals(*map(get_aval, leaves))[0] if leaves else _default("f")
        return _array_of_list(a, canonicalize_dtype(dtype))
    value = np.asarray(a)
    if dtype_kind(value.dtype) in "OSUV":
        raise TypeError(f"Argument {a!r} of type {type(a)} is not a valid JAX type: pass arrays, "
                        "NumPy arrays, Python scalars, or lists of numbers")
    get_aval(value)   # rejects unsupported dtypes with a clear message
    # A list of ints is converted again, from its Python ints: one that int32 cannot hold is an
    # error. (NumPy made them int64; floats and booleans need no second look.)
    again = isinstance(a, (list, tuple)) and dtype_kind(value.dtype) in "iu"
    value = np.array(a if again else value, dtype=canonicalize_dtype(dtype or value.dtype))
    return _scalar(value, False) if not value.ndim else Array(value)


def _int_out_of_range(x):
    """A Python int beyond int32 is an error, as in JAX, not a value wrapped around. (JAX's
    `jnp.full`, `full_like`, `arange` and `lax.full` wrap it silently; here they raise too.)"""
    raise OverflowError(f"Python int {x} too large to convert to int32")


aval_rules[int] = _int_out_of_range      # core.get_aval hands on the ints it has no aval for


def _list_leaves(a):
    return [leaf for e in a for leaf in (_list_leaves(e) if isinstance(e, (list, tuple)) else [e])]


def _array_of_list(a, dtype):
    """A (nested) list holding arrays, as JAX builds it: each element made a strong `dtype`
    array, given a leading axis of 1 (`broadcast_in_dim`) and concatenated along it, at most
    16 at a time (a tree of concatenations compiles faster than a wide one)."""
    if not isinstance(a, (list, tuple)):
        return lax.convert_element_type(asarray(a, dtype), dtype, weak_type=False)
    if not builtins.any(_is_array(leaf) for leaf in _list_leaves(a)):
        return asarray(np.asarray(a, dtype))            # numbers only: one constant
    parts = [lax.expand_dims(_array_of_list(e, dtype), [0]) for e in a]
    while len(parts) > 16:
        parts = [lax.concatenate(parts[i:i + 16], 0) for i in range(0, len(parts), 16)]
    return lax.concatenate(parts, 0)


def _scalar(value, weak_type, python=None):
    """A scalar made from a Python number: a literal when made while a function is traced, as
    in JAX (`jnp.float32(2)` inside `jit`); an ordinary array, which a traced function closing
    over it takes as a constant input, when made outside. A weak literal keeps the Python
    number, which jaxprs print (`0.1:f32[]`, not its float32 digits), as JAX's does."""
    if isinstance(trace_ctx.trace, EvalTrace):
        return Array(value, weak_type=weak_type)
    literal = LiteralArray(value, weak_type=weak_type)
    literal.python = python if weak_type else None
    return literal


array_ops: dict = {}     # "copy" -> appendix A24's `copy_p.bind`, which `array` calls


def array(object, dtype=None, *, copy=True, order="K", ndmin=0):
    """`asarray`, but an array is copied (JAX's `copy_p`, once appendix A24 has defined it)
    unless `copy=False`, and given leading axes of size 1 up to `ndmin` axes, as JAX's."""
    if order is not None and order != "K":
        raise NotImplementedError("Only implemented for order='K'")
    if copy and _is_array(object) and "copy" in array_ops:
        object = array_ops["copy"](object)
    out = asarray(object, _user_dtype(dtype, "array"))
    return lax.expand_dims(out, range(ndmin - out.ndim)) if ndmin > out.ndim else out


def promote_dtypes(*args, inexact=False):
    """Convert the arguments to their common dtype (and weak type, as JAX does); with
    `inexact`, to float32 if that dtype is an integer or bool one."""
    if builtins.all(map(_is_array, args)):    # arrays only, often of one type: nothing to do
        first, *rest = [a.aval for a in args]
        if (builtins.all(v.dtype == first.dtype and v.weak_type == first.weak_type for v in rest)
                and not (inexact and dtype_kind(first.dtype) not in "fc")
                and not (rest and first.weak_type and first.dtype == _BOOL)):
            return list(args)
    scalars = [type(a) in _PYTHON_SCALARS for a in args]
    args = [_as_operand(a) for a in args]
    avals = [get_aval(a) for a in args]
    dtype, weak = promote_avals(*avals)
    if inexact:
        dtype = _to_inexact(dtype)
    return [a if (v.dtype, v.weak_type) == (dtype, weak) else _convert(a, s, dtype, weak)
            for a, s, v in zip(args, scalars, avals)]


def _convert(a, from_scalar, dtype, weak):
    """A scalar constant is made in the right dtype at once: traced, it is a literal such as
    `2:i8[]`. An array's conversion is a primitive, applied now if the array is concrete, and
    recorded, as JAX records it, when a function is being traced."""
    if from_scalar or isinstance(a, LiteralArray):
        literal = LiteralArray(a._value.astype(dtype), weak_type=weak)
        python = getattr(a, "python", None)     # kept by a weak literal of the same kind
        same_kind = type(python) is {"f": float, "c": complex}.get(dtype_kind(dtype), int)
        literal.python = python if weak and same_kind else None
        return literal
    return lax.convert_element_type(a, dtype, weak_type=weak)


def promote_args(name, *args):
    """Convert the arguments to their common dtype and make their ranks agree."""
    check_arraylike(name, *args)
    args = promote_dtypes(*args)
    shapes = [a.shape for a in args]
    ranks = {len(s) for s in shapes if s}          # scalars go with any shape
    if len(ranks) < 2:            # equal ranks: the primitive checks the dimensions (TypeError)
        return args
    if _RANK_PROMOTION[0] != "allow":    # the option `jax_numpy_rank_promotion` (below)
        _refuse_rank_promotion(name, shapes)
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
    if type(x) is np.ndarray and dtype_kind(x.dtype) == "f" and x.dtype in SUPPORTED_DTYPES:
        return x                # the primitive takes it as it is: no copy
    if not _is_array(x):
        x = asarray(x)
    if dtype_kind(x.dtype) in "biu":
        return lax.convert_element_type(x, _to_inexact(x.dtype), weak_type=x.aval.weak_type)
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
def subtract(x, y): return lax.sub(*promote_args("subtract", x, y))
def maximum(x, y): return lax.max(*promote_args("maximum", x, y))
def minimum(x, y): return lax.min(*promote_args("minimum", x, y))
def _ordered(op, name, x, y):
    """`op` of the promoted arguments; complex numbers in order of real part, then imaginary
    part (JAX's `_complex_comparison`)."""
    x, y = promote_args(name, x, y)
    if dtype_kind(x.dtype) != "c":
        return op(x, y)
    return lax.select_n(lax.eq(lax.real(x), lax.real(y)), op(lax.real(x), lax.real(y)),
                        op(lax.imag(x), lax.imag(y)))


def greater(x, y): return _ordered(lax.gt, "greater", x, y)
def less(x, y): return _ordered(lax.lt, "less", x, y)
def greater_equal(x, y): return _ordered(lax.ge, "greater_equal", x, y)
def less_equal(x, y): return _ordered(lax.le, "less_equal", x, y)
def equal(x, y): return lax.eq(*promote_args("equal", x, y))
def not_equal(x, y): return lax.ne(*promote_args("not_equal", x, y))
absolute = abs


def add(x, y):
    x, y = promote_args("add", x, y)
    return lax.bitwise_or(x, y) if x.dtype == _BOOL else lax.add(x, y)   # True + True is True


def multiply(x, y):
    x, y = promote_args("multiply", x, y)
    return lax.bitwise_and(x, y) if x.dtype == _BOOL else lax.mul(x, y)


def logical_and(x, y): return lax.bitwise_and(*promote_args("and", *map(_to_bool, (x, y))))
def logical_or(x, y): return lax.bitwise_or(*promote_args("or", *map(_to_bool, (x, y))))
def logical_xor(x, y): return lax.bitwise_xor(*promote_args("xor", *map(_to_bool, (x, y))))
def logical_not(x): return lax.bitwise_not(_to_bool(x))
def bitwise_and(x, y): return lax.bitwise_and(*promote_args("bitwise_and", x, y))
def bitwise_or(x, y): return lax.bitwise_or(*promote_args("bitwise_or", x, y))
def bitwise_xor(x, y): return lax.bitwise_xor(*promote_args("bitwise_xor", x, y))
def bitwise_not(x): return lax.bitwise_not(asarray(x))


invert = bitwise_not


def _to_bool(x):
    x = asarray(x)
    return x if x.dtype == _BOOL else not_equal(x, 0)


def true_divide(x, y):
    x, y = promote_dtypes(x, y, inexact=True)
    return lax.div(*promote_args("true_divide", x, y))


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
    # JAX promotes first, even when unused, and booleans become int32 (`promote_args_numeric`)
    promoted = [_numeric(v) for v in promote_args("power", x, y)]
    if dtype_kind(promoted[0].dtype) in "iu":     # JAX's integer power (`_pow_int_int`) is strong
        promoted = [_strong(v) for v in promoted]
    x, y = asarray(x), asarray(y)
    if dtype_kind(x.dtype) == "f" and dtype_kind(y.dtype) in "iu":
        return lax.pow(*_broadcast_ranks("pow", [x, y], [x.shape, y.shape]))
    return lax.pow(*promoted)


class LibraryJit:
    """A function of this module that JAX jits: its name, which of its parameters are static
    (known while tracing: positions and names), whether a jaxpr shows a call as one `jit`
    equation (`staged`) or inlines it, and the programs compiled for its eager calls."""

    def __init__(self, fun, name, static_argnums=(), static_argnames=(), staged=False):
        params = list(inspect.signature(fun).parameters)
        self.fun, self.name, self.staged, self.programs = fun, name, staged, {}
        self.last = (None, None)             # the last eager call's key and program
        self.static_argnums = tuple(static_argnums)
        self.static_names = frozenset(static_argnames) | {params[i] for i in static_argnums}
        self.static = frozenset(static_argnums) | {params.index(n) for n in static_argnames}
        self.first_static = builtins.min(self.static, default=len(params))


def jitted(*static_argnames, name=None, staged=False, static_argnums=()):
    """JAX jits most of its NumPy functions, with the parameters that shape the program static
    (`jit(f, static_argnames=..., inline=True)`): eagerly a call is one compiled program, made
    once per signature, so `jnp.var(x)` is one fused program with JAX's bits, not seven. Under a
    transformation the function is traced inline, unless `staged`: then a jaxpr shows each call
    as one `jit` equation, `jit[name=_where ...]`. `jit` comes in chapter 8, and appendix A22
    registers in `eager_rules` how to run a call and in `staging_rules` how to stage one; until
    then, and whenever a rule declines (returning NotImplemented), the function simply runs."""
    def decorate(fun):
        spec = LibraryJit(fun, name or fun.__name__, static_argnums, static_argnames, staged)

        @functools.wraps(fun)
        def wrapper(*args, **kwargs):
            for rule in eager_rules:
                out = rule(spec, args, kwargs)
                if out is not NotImplemented:
                    return out
            staged_args = (None if not staged else args if not kwargs
                           else _static_by_position(spec, args, kwargs))
            if staged_args is not None:
                for rule in staging_rules:
                    out = rule(fun, spec.name, spec.static_argnums, staged_args)
                    if out is not NotImplemented:
                        return out
            return fun(*args, **kwargs)
        wrapper.library_jit = spec           # (named as `fun` in tracebacks and profiles, too)
        wrapper.__code__ = wrapper.__code__.replace(co_name=fun.__name__,
                                                    co_qualname=fun.__qualname__)
        return wrapper
    return decorate


def _static_by_position(spec, args, kwargs):
    """`args` with `kwargs` put in their places, the parameters between them at their defaults,
    if all those places are static (JAX's `static_argnames` for them), else None."""
    try:
        bound = inspect.signature(spec.fun).bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    if bound.kwargs or not set(range(len(args), len(bound.args))) <= spec.static:
        return None
    return bound.args


def jit_in_jaxprs(name, static_argnums=()):
    """A function JAX jits that a jaxpr shows as one `jit` equation named `name` (called with
    keywords too, if they are static parameters)."""
    return jitted(name=name, staged=True, static_argnums=static_argnums)


eager_rules: list = []       # rule(spec, args, kwargs) -> an eager call's result, or NotImplemented
staging_rules: list = []     # rule(fun, name, static_argnums, args) -> result, or NotImplemented


def where(condition, x=None, y=None, *, size=None, fill_value=None):
    """Elementwise `x` where `condition` is true, else `y`. With `condition` alone, the indices
    of its nonzero elements, as `nonzero`."""
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided "
                         "to jax.numpy.where, got x={x!r} and y={y!r}.")
    return _where(condition, x, y)


@jit_in_jaxprs("_where")
def _where(condition, x, y):
    condition = asarray(condition)
    if condition.dtype != _BOOL:
        condition = not_equal(condition, 0)
    check_arraylike("select_n", x, y)
    x, y = promote_dtypes(x, y)                     # (JAX's `where` allows any ranks)
    arrays = [x, y] if not condition.shape else [condition, x, y]  # select_n takes a scalar
    if len({a.shape for a in arrays}) > 1:                          # predicate as it is
        arrays = _broadcast_ranks("select_n", arrays, [a.shape for a in arrays])
        shape = lax.broadcasting_shape("select_n", *(a.shape for a in arrays))
        arrays = [a if a.shape == shape else broadcast_to(a, shape) for a in arrays]
    condition, x, y = arrays if condition.shape else [condition, *arrays]
    return lax.select_n(condition, y, x)


def nonzero(a, *, size=None, fill_value=None):
    """The indices of the nonzero elements of `a`, one array per dimension. Their number depends
    on the values, so `a` must be concrete: not a traced value under `jit`, unless `size` is
    given (chapter 11)."""
    if size is not None:
        _needs_chapter_11("nonzero")
        return _nonzero_sized(a, size, fill_value)
    a = asarray(a)
    value = a.to_concrete_value() if isinstance(a, Tracer) else np.asarray(a)
    if value is None:
        a._concrete("jnp.nonzero (and one-argument jnp.where), whose output shape depends on "
                    "the values,")
    return tuple(Array(i.astype(_default("i"))) for i in np.nonzero(value))


def clip(arr, min=None, max=None, *, a_min=None, a_max=None):
    """`arr` with values below `min` raised to it and above `max` lowered to it (NumPy's
    `a_min` and `a_max` are accepted too)."""
    low, high = (a_min if min is None else min), (a_max if max is None else max)
    return _clip(asarray(arr), low, high)


@jit_in_jaxprs("clip")
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
def arctan2(x1, x2): return lax.atan2(*promote_args("atan2", *promote_dtypes(x1, x2, inexact=True)))


def _constant_like(x, value):
    """A strongly typed scalar constant of `x`'s dtype (JAX's `_constant_like`)."""
    return LiteralArray(np.asarray(value, x.dtype))


def log2(x):
    x = _to_float(x)
    return lax.div(lax.log(x), lax.log(_constant_like(x, 2)))


def log10(x):
    x = _to_float(x)
    return lax.mul(lax.log(x), _constant_like(x, 0.4342944819032518))   # 1 / log(10)


def floor(x):
    x = asarray(x)
    return x if dtype_kind(x.dtype) in "biu" else lax.floor(x)


def ceil(x):
    x = asarray(x)
    return x if dtype_kind(x.dtype) in "biu" else lax.ceil(x)


def trunc(x):
    x = asarray(x)
    return x if dtype_kind(x.dtype) in "biu" else _trunc(x)


@jit_in_jaxprs("trunc")
def _trunc(x):
    return _where(lax.lt(x, _constant_like(x, 0)), ceil(x), floor(x))


def round(a, decimals=0, out=None):
    """`a` rounded to `decimals` decimal places, halves to the nearest even value, as NumPy
    (`lax.round`'s default is away from 0). With `decimals`, JAX scales by `10**decimals`,
    rounds and scales back, in float32 for float16 inputs."""
    _check_out("round", out, a)
    decimals = operator.index(_concrete(decimals, "the decimals argument of jnp.round"))
    return _round(asarray(a), decimals)


@jit_in_jaxprs("round", static_argnums=(1,))
def _round(a, decimals):
    if dtype_kind(a.dtype) in "iu":
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return a                              # integers are already round
    if a.dtype == _BOOL:                      # JAX asks np.finfo, which refuses booleans
        raise ValueError(f"data type {np.bool_} not inexact")
    if decimals == 0:
        return lax.round(a, lax.RoundingMethod.TO_NEAREST_EVEN)
    if decimals > np.log10(np.finfo(a.dtype).max):
        return a                              # rounding beyond the precision changes nothing
    x = lax.convert_element_type(a, _FLOAT32) if a.dtype == np.float16 else a
    factor = _constant_like(x, 10 ** decimals)
    out = lax.div(lax.round(lax.mul(x, factor), lax.RoundingMethod.TO_NEAREST_EVEN), factor)
    return lax.convert_element_type(out, a.dtype) if a.dtype == np.float16 else out


def around(a, decimals=0, out=None):
    """`round`, under another name (jitted in JAX as a function of its own)."""
    _check_out("round", out, a)
    return _around(asarray(a), operator.index(_concrete(decimals, "jnp.around's decimals")))


@jit_in_jaxprs("around", static_argnums=(1,))
def _around(a, decimals):
    return round(a, decimals)


def isnan(x):
    x = asarray(x)
    return lax.ne(x, x)


@jit_in_jaxprs("isinf")
def isinf(x):
    x = asarray(x)
    if dtype_kind(x.dtype) == "f":
        return lax.eq(lax.abs(x), _constant_like(x, np.inf))
    if dtype_kind(x.dtype) == "c":                 # either part infinite
        return lax.bitwise_or(isinf(lax.real(x)), isinf(lax.imag(x)))
    return full_like(x, False, _BOOL)


def isfinite(x):
    x = asarray(x)
    if dtype_kind(x.dtype) == "c":                 # both parts finite
        return lax.bitwise_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return lax.is_finite(x) if dtype_kind(x.dtype) == "f" else full_like(x, True, _BOOL)
def isposinf(x):
    return _isposneginf(np.inf, asarray(x))


def isneginf(x):
    return _isposneginf(-np.inf, asarray(x))


def _isposneginf(infinity, x):
    if dtype_kind(x.dtype) == "f":
        return lax.eq(x, _constant_like(x, infinity))
    return full_like(x, False, _BOOL)


_NAN_TO_NUM_DEFAULTS = (0.0, None, None)


@jit_in_jaxprs("nan_to_num", static_argnums=(1,))
def _nan_to_num(x, names, *values):
    nan, posinf, neginf = map(dict(zip(names, values)).get, ("nan", "posinf", "neginf"))
    nan = 0.0 if nan is None else nan
    info = np.finfo(x.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = where(isnan(x), asarray(nan, x.dtype), x)
    out = where(isposinf(out), asarray(posinf, x.dtype), out)
    return where(isneginf(out), asarray(neginf, x.dtype), out)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """`x` with NaN replaced by `nan` and the infinities by `posinf` and `neginf` (default:
    the largest and smallest finite values of the dtype)."""
    check_arraylike("nan_to_num", x)
    x = asarray(x)
    if dtype_kind(x.dtype) != "f":
        return x
    # JAX's jit gets only the arguments given, by keyword (so sorted by name); the defaults
    # are constants of the traced function.
    given = sorted((name, value) for name, value, default in
                   zip(("nan", "posinf", "neginf"), (nan, posinf, neginf), _NAN_TO_NUM_DEFAULTS)
                   if value is not default)
    return _nan_to_num(x, tuple(n for n, _ in given), *(v for _, v in given))


@jit_in_jaxprs("heaviside")
def heaviside(x1, x2):
    """0 where `x1 < 0`, 1 where `x1 > 0`, and `x2` where `x1 == 0`."""
    check_arraylike("heaviside", x1, x2)
    x1, x2 = promote_dtypes(x1, x2, inexact=True)
    zero = _constant_like(x1, 0)
    return _where(lax.lt(x1, zero), zero,
                  _where(lax.gt(x1, zero), _constant_like(x1, 1), _where(isnan(x1), x1, x2)))


@jit_in_jaxprs("sinc")
def sinc(x):
    """sin(pi x) / (pi x), and 1 at x = 0."""
    check_arraylike("sinc", x)
    x, = promote_dtypes(x, inexact=True)
    eq_zero = lax.eq(x, _constant_like(x, 0))
    pi_x = lax.mul(_constant_like(x, np.pi), x)
    safe_pi_x = _where(eq_zero, _constant_like(x, 1), pi_x)
    at_zero = lax.add(lax.mul(pi_x, _constant_like(x, 0)), _constant_like(x, 1))
    return _where(eq_zero, at_zero, lax.div(lax.sin(safe_pi_x), safe_pi_x))


def _numeric_pair(name, x1, x2):
    x1, x2 = promote_args(name, x1, x2)
    return (_numeric(x1), _numeric(x2)) if x1.dtype == _BOOL else (x1, x2)


@jit_in_jaxprs("remainder")
def remainder(x1, x2):
    x1, x2 = _numeric_pair("remainder", x1, x2)        # inside the `jit`, as JAX promotes
    zero = _constant_like(x1, 0)
    if dtype_kind(x2.dtype) in "iu":
        x2 = _where(lax.eq(x2, _constant_like(x2, 0)), full_like(x2, 1), x2)
    trunc_mod = lax.rem(x1, x2)
    trunc_mod_not_zero = lax.ne(trunc_mod, zero)
    do_plus = lax.bitwise_and(lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, zero)),
                              trunc_mod_not_zero)
    return lax.select_n(do_plus, trunc_mod, lax.add(trunc_mod, x2))


mod = remainder


@jit_in_jaxprs("floor_divide")
def floor_divide(x1, x2):
    x1, x2 = _numeric_pair("floor_divide", x1, x2)        # inside the `jit`, as JAX promotes
    if dtype_kind(x1.dtype) == "u":
        return lax.div(x1, x2)
    if dtype_kind(x1.dtype) == "i":
        quotient = lax.div(x1, x2)
        select = logical_and(not_equal(lax.sign(x1), lax.sign(x2)),
                             not_equal(lax.rem(x1, x2), 0))
        return _where(select, subtract(quotient, 1), quotient)
    return _float_divmod(x1, x2)[0]


@jit_in_jaxprs("divmod")
def divmod(x1, x2):
    x1, x2 = _numeric_pair("divmod", x1, x2)        # inside the `jit`, as JAX promotes
    if dtype_kind(x1.dtype) in "iu":
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


@jit_in_jaxprs("isclose", static_argnums=(4,))
def _isclose(a, b, rtol=_ISCLOSE_DEFAULTS[0], atol=_ISCLOSE_DEFAULTS[1],
             equal_nan=_ISCLOSE_DEFAULTS[2]):
    a, b = promote_args("isclose", *promote_dtypes(a, b, inexact=True))
    tol = lax.real_dtype(a.dtype)               # of complex numbers: the real part's dtype
    rtol, atol = (LiteralArray(np.asarray(t, tol)) if type(t) in _PYTHON_SCALARS
                  else lax.convert_element_type(asarray(t), tol) for t in (rtol, atol))
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


def broadcast_shapes(*shapes):
    """The shape that arrays of `shapes` broadcast to, by NumPy's rule."""
    shapes = [tuple(int(d) for d in s) for s in shapes]
    rank = builtins.max([len(s) for s in shapes], default=0)
    padded = [(1,) * (rank - len(s)) + s for s in shapes]
    sizes = [{d for d in dims if d != 1} for dims in zip(*padded)]
    if builtins.any(len(ds) > 1 for ds in sizes):
        raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
    return tuple(ds.pop() if ds else 1 for ds in sizes)


def broadcast_to(a, shape):
    a = asarray(a)
    shape = tuple(shape)
    lead = len(shape) - a.ndim
    if lead < 0 or builtins.any(d not in (1, s) for d, s in zip(a.shape, shape[lead:])):
        raise ValueError(f"cannot broadcast an array of shape {a.shape} to shape {shape}")
    if a.shape == shape:
        return a
    return lax.broadcast_in_dim(a, shape, range(lead, len(shape)))


def reshape(a, *shape, order="C", copy=None):
    """`a` in a new `shape`, its elements read and written in C (row-major) or F (column-major)
    order, as JAX's: F is a reshape of the reversed shape with the axes reversed, transposed."""
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
    if order == "F":
        return transpose(lax.reshape(a, shape[::-1], tuple(range(a.ndim))[::-1]))
    if order != "C":
        if order == "A":
            raise NotImplementedError("np.reshape order=A is not implemented.")
        raise ValueError(f"Unexpected value for 'order' argument: {order}.")
    return lax.reshape(a, shape)


def ravel(a): return reshape(a, -1)


def canonical_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def transpose(a, axes=None):
    a = asarray(a)
    axes = range(a.ndim)[::-1] if axes is None else [canonical_axis(d, a.ndim) for d in axes]
    return lax.transpose(a, axes)


def swapaxes(a, axis1, axis2):
    a = asarray(a)
    perm = list(range(a.ndim))
    i, j = canonical_axis(axis1, a.ndim), canonical_axis(axis2, a.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, perm)


def moveaxis(a, source, destination):
    a = asarray(a)
    perm = list(range(a.ndim))
    perm.insert(canonical_axis(destination, a.ndim),
                perm.pop(canonical_axis(source, a.ndim)))
    return a if perm == list(range(a.ndim)) else lax.transpose(a, perm)


def expand_dims(a, axis):
    a = asarray(a)
    axes = _axis_tuple(axis)
    ndim = a.ndim + len(axes)
    return lax.expand_dims(a, sorted(canonical_axis(d, ndim) for d in axes))


def squeeze(a, axis=None):
    a = asarray(a)
    if axis is None:
        axes = [i for i, d in enumerate(a.shape) if d == 1]
    else:
        axes = [canonical_axis(d, a.ndim) for d in _axis_tuple(axis)]
    return lax.squeeze(a, axes) if axes else a


def concatenate(arrays, axis=0):
    _check_sequence("concatenate", arrays)
    if not len(arrays):
        raise ValueError("Need at least one array to concatenate.")
    arrays = promote_dtypes(*arrays)
    if arrays[0].ndim == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    return lax.concatenate(arrays, canonical_axis(axis, arrays[0].ndim))


def stack(arrays, axis=0):
    _check_sequence("stack", arrays)
    arrays = promote_dtypes(*arrays)
    if len({a.shape for a in arrays}) != 1:
        raise ValueError("all input arrays must have the same shape, got "
                         + ", ".join(str(a.shape) for a in arrays))
    return lax.stack(arrays, canonical_axis(axis, arrays[0].ndim + 1))


@jit_in_jaxprs("atleast_1d")
def atleast_1d(a):
    a = asarray(a)
    return reshape(a, (1,)) if a.ndim == 0 else a


@jit_in_jaxprs("atleast_2d")
def atleast_2d(a):
    a = asarray(a)
    return lax.expand_dims(a, tuple(range(2 - a.ndim))) if a.ndim < 2 else a


def vstack(tup):
    """The arrays joined along a first axis, vectors as rows."""
    _check_sequence("vstack", tup)
    return concatenate([atleast_2d(a) for a in tup], axis=0)


def hstack(tup):
    """The arrays joined along their second axis, or their only one for vectors."""
    _check_sequence("hstack", tup)
    arrays = [atleast_1d(a) for a in tup]
    return concatenate(arrays, axis=0 if arrays and arrays[0].ndim == 1 else 1)


def flip(m, axis=None):
    """`m` with the order of its elements reversed along `axis` (default: every axis)."""
    return _flip(asarray(m), tuple(axis) if isinstance(axis, list) else axis)


@jit_in_jaxprs("_flip", static_argnums=(1,))
def _flip(m, axis):
    axes = range(m.ndim) if axis is None else _axis_tuple(axis)
    return lax.rev(m, sorted(canonical_axis(a, m.ndim) for a in axes))


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
    return broadcast_to(asarray(fill_value, _user_dtype(dtype, "full")), _canonical_shape(shape))


def zeros(shape, dtype=None): return full(shape, 0, _user_dtype(dtype, "zeros") or _default("f"))
def ones(shape, dtype=None): return full(shape, 1, _user_dtype(dtype, "ones") or _default("f"))
def full_like(a, fill_value, dtype=None):
    """An array of `a`'s shape filled with `fill_value`; of `a`'s dtype, and weak type, unless
    `dtype` is given."""
    a = asarray(a)
    if dtype is not None:
        return full(a.shape, fill_value, _user_dtype(dtype, "full_like"))
    fill = asarray(fill_value, a.dtype)
    if a.aval.weak_type and type(fill_value) in _PYTHON_SCALARS:
        fill = _scalar(fill._value, weak_type=True)
    return broadcast_to(fill, a.shape)


def zeros_like(a, dtype=None): return full_like(a, 0, _user_dtype(dtype, "zeros_like"))
def ones_like(a, dtype=None): return full_like(a, 1, _user_dtype(dtype, "ones_like"))


def arange(start, stop=None, step=None, dtype=None):
    """`start, start + step, ...` up to `stop`, as JAX makes it: an `iota`, multiplied by the
    step and shifted by the start (in float32 for float16), so that a traced program records
    one small operation rather than a constant array."""
    for i, v in enumerate((start, stop, step)):
        if isinstance(v, (list, tuple)):
            raise TypeError("arange requires ndarray, scalar, or None arguments, got "
                            f"{type(v)} at position {i}.")
    names = ("stop" if stop is None and step is None else "start", "stop", "step")
    start, stop, step = (None if v is None else _concrete(v, f"the jnp.arange argument '{n}'")
                         for n, v in zip(names, (start, stop, step)))
    for name, v in zip(names, (start, stop, step)):
        if v is not None and np.ndim(v) != 0:
            raise ValueError(f"jax.numpy.arange: arguments must be scalars; got {name}={v}")
    given = [asarray(v) for v in (start, stop, step) if v is not None]
    dtype = _user_dtype(dtype, "arange") if dtype is not None else promote_avals(
        *(v.aval for v in given))[0]
    dtype = canonicalize_dtype(dtype)
    if stop is None:
        start, stop = 0, start
    if step is not None:
        work = _FLOAT32 if dtype == np.float16 else dtype
        size = builtins.max(0, int(np.ceil((stop - start) / step)))
        const = lambda v: LiteralArray(np.asarray(v).astype(work))
        out = lax.add(const(start), lax.mul(const(step), lax.iota(work, size)))
        return lax.convert_element_type(out, dtype)
    if start == 0:
        return lax.iota(dtype, builtins.max(0, int(np.ceil(stop))))
    size = builtins.max(0, int(np.ceil(stop - start)))
    return lax.add(LiteralArray(np.asarray(start).astype(dtype)), lax.iota(dtype, size))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """`num` evenly spaced values from `start` to `stop` (arrays: along a new `axis`), by JAX's
    formula, `start * (1 - t) + stop * t` for `t = i / div`, which reproduces the endpoints
    exactly; one staged `jit`, `_linspace`, as in JAX."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    check_arraylike("linspace", start, stop)
    dtype = None if dtype is None else canonicalize_dtype(_user_dtype(dtype, "linspace"))
    return _linspace(start, stop, num, endpoint, retstep, dtype, operator.index(axis))


@jit_in_jaxprs("_linspace", static_argnums=(2, 3, 4, 5, 6))
def _linspace(start, stop, num, endpoint, retstep, dtype, axis):
    start, stop = asarray(start), asarray(stop)
    dtype = _to_inexact(result_type(start, stop)) if dtype is None else dtype
    compute = np.dtype(_to_inexact(dtype))
    start, stop = (lax.convert_element_type(v, compute) for v in (start, stop))
    bounds = list(lax.broadcasting_shape("linspace", start.shape, stop.shape))
    start, stop = broadcast_to(start, bounds), broadcast_to(stop, bounds)
    axis = len(bounds) + axis + 1 if axis < 0 else axis
    shape = bounds[:axis] + [1] + bounds[axis:]
    div = num - 1 if endpoint else num
    if num > 1:
        delta = lax.div(lax.sub(stop, start), full((), div, compute))
        steps = [1] * len(shape)
        steps[axis] = div
        real = np.dtype(finfo(compute).dtype)
        t = lax.div(lax.reshape(lax.iota(real, div), steps), full((), div, real))
        t = lax.convert_element_type(t, compute)
        out = lax.add(lax.mul(lax.reshape(start, shape), lax.sub(_constant_like(t, 1), t)),
                      lax.mul(lax.reshape(stop, shape), t))
        if endpoint:
            out = lax.concatenate([out, lax.expand_dims(stop, (axis,))], axis)
    elif num == 1:
        delta = full((), np.nan, compute) if endpoint else lax.sub(stop, start)
        out = lax.reshape(start, shape)
    else:
        delta = full((), np.nan, compute)
        out = zeros(bounds[:axis] + [0] + bounds[axis:], dtype)
    if dtype_kind(dtype) in "iu" and dtype_kind(out.dtype) not in "iu":
        out = lax.floor(out)
    out = lax.convert_element_type(out, dtype)
    return (out, delta) if retstep else out


def eye(N, M=None, k=0, dtype=None):
    return Array(np.eye(N, M, k, dtype=canonicalize_dtype(dtype or _default("f"))))
def identity(n, dtype=None):
    """The `n` by `n` identity matrix."""
    return eye(n, dtype=_user_dtype(dtype, "identity"))


def empty(shape, dtype=None):
    """An array of `shape`: zeros, as JAX's (XLA has no uninitialised memory to hand out)."""
    return zeros(shape, _user_dtype(dtype, "empty"))


def empty_like(prototype, dtype=None):
    return zeros_like(prototype, dtype)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """`base ** linspace(start, stop, num)`: `num` values evenly spaced on a log scale."""
    if axis != 0:
        raise NotImplementedError("jnp.logspace with axis != 0 is not built in autodidax")
    out_dtype = canonicalize_dtype(dtype) if dtype is not None else _to_inexact(promote_avals(
        *(asarray(v).aval for v in (start, stop)))[0])
    compute = out_dtype if dtype_kind(out_dtype) == "f" else _FLOAT32
    lin = linspace(start, stop, num, endpoint=endpoint, dtype=compute)
    return lax.convert_element_type(power(base, lin), out_dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """`num` values from `start` to `stop`, each a constant factor from the one before."""
    if axis != 0:
        raise NotImplementedError("jnp.geomspace with axis != 0 is not built in autodidax")
    out_dtype = canonicalize_dtype(dtype) if dtype is not None else _to_inexact(promote_avals(
        *(asarray(v).aval for v in (start, stop)))[0])
    compute = out_dtype if dtype_kind(out_dtype) == "f" else _FLOAT32
    start, stop = asarray(start, compute), asarray(stop, compute)
    sign = sign_ = lax.sign(start)
    res = multiply(sign, logspace(log10(true_divide(start, sign_)),
                                  log10(true_divide(stop, sign_)), num, endpoint=endpoint,
                                  base=10.0, dtype=compute))
    return lax.convert_element_type(res, out_dtype)


def astype(x, dtype):
    return lax.convert_element_type(asarray(x), _user_dtype(dtype, "astype"))


def _reduction_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if not isinstance(axis, (tuple, list)) else axis
    axes = tuple(canonical_axis(a, ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in {axis}")
    return axes


def _check_out(name, out, *arrays):
    """JAX's checks of a reduction's arguments: no `out=`, and arrays, not lists."""
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{name} is not supported: JAX "
                                  "arrays are immutable, use the returned value instead.")
    check_arraylike(name, *arrays)


def check_arraylike(name, *args):
    """A list or tuple is not an array to JAX's functions (only `jnp.asarray` and `jnp.array`
    turn them into one): `jnp.sum([1, 2])` would hide a slow conversion, so it is refused."""
    for i, a in enumerate(args):
        if isinstance(a, (list, tuple)):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(a)} at "
                            f"position {i}.")


def _axis_tuple(axis):
    """An axis, or a sequence of them, as a tuple: a NumPy integer is an axis too, as in JAX
    (`operator.index`), and a float is refused with a `TypeError`."""
    try:
        return (operator.index(axis),)
    except TypeError:
        return tuple(axis)


def _check_sequence(name, arrays):
    """The elements of a list or tuple of arrays must be arrays themselves."""
    if isinstance(arrays, (list, tuple)):
        check_arraylike(name, *arrays)


def _strong(a, dtype=None):
    """`a` in `dtype` (default: its own), strongly typed."""
    dtype = a.dtype if dtype is None else canonicalize_dtype(dtype)
    if a.dtype == dtype and not a.aval.weak_type:
        return a
    return lax.convert_element_type(a, dtype)


def _reduce(reducer, a, axis, keepdims, initial=None, combine=None):
    """`reducer` over `axis`, then `combine(initial, out)` if given, then the kept dimensions
    put back (JAX's order: the `initial` equation is on the unexpanded result)."""
    axes = _reduction_axes(axis, a.ndim)
    out = reducer(a, axes)
    if initial is not None:
        out = combine(initial, out)
    return lax.expand_dims(out, axes) if keepdims else out


def _accumulate(name, reducer, combine, identity, a, axis, dtype, out, keepdims, initial,
                where):
    """A sum or a product, as NumPy's and JAX's: integers narrower than the default (u)int and
    booleans accumulate in it, float16 in float32; `where=` masks elements with the identity
    (JAX's `_promote_integer_dtype`)."""
    _check_out(name, out, a)
    a = asarray(a)
    if dtype is None:
        dtype = a.dtype
        if dtype_kind(dtype) in "biu":
            wide = _default("u" if dtype_kind(dtype) == "u" else "i")
            if dtype_kind(dtype) == "b" or dtype.itemsize < wide.itemsize:
                dtype = wide
    dtype = canonicalize_dtype(dtype)
    compute = _FLOAT32 if dtype in _HALF else dtype     # half precision adds in single
    a = _strong(a, compute)
    if where is not None:
        a = _where(where, a, full((), identity, compute))
    if initial is not None:
        initial = lax.convert_element_type(initial, compute)
    return _strong(_reduce(reducer, a, axis, keepdims, initial, combine), dtype)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    return _accumulate("sum", lax.reduce_sum, add, 0, a, axis, dtype, out, keepdims, initial,
                       where)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    _check_out("mean", out, a)
    a = asarray(a)
    dtype = canonicalize_dtype(dtype or _to_inexact(a.dtype))
    compute = _FLOAT32 if dtype in _HALF else dtype
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


@jit_in_jaxprs("_var", static_argnums=(1, 2, 4))
def _var(a, axis, dtype, correction, keepdims):
    """The variance as JAX computes it: the mean of the squared deviations, divided by the count
    less `correction` (NumPy's `ddof`), and NaN where that is not positive."""
    if dtype is not None:
        dtype = compute = canonicalize_dtype(dtype)
    else:                            # of complex numbers: a real variance, computed in complex
        dtype = compute = _to_inexact(a.dtype)
        dtype = lax.real_dtype(dtype)
    compute = _FLOAT32 if compute in _HALF else compute
    a = astype(a, compute)
    centred = lax.sub(a, mean(a, axis, compute, keepdims=True))
    if dtype_kind(compute) == "c":                      # |z - mean|^2
        centred, compute = lax.real(lax.mul(centred, lax.conj(centred))), lax.real_dtype(compute)
    else:
        centred = lax.square(centred)
    count = np.prod([a.shape[i] for i in _reduction_axes(axis, a.ndim)])
    normalizer = lax.sub(LiteralArray(np.asarray(count, compute)),
                         lax.convert_element_type(correction, compute))
    result = astype(lax.div(sum(centred, axis, compute, keepdims=keepdims), normalizer), dtype)
    return _where(greater(normalizer, 0), result, np.nan)


@jit_in_jaxprs("_std", static_argnums=(1, 2, 4))
def _std(a, axis, dtype, correction, keepdims):
    return lax.sqrt(_var(a, axis, dtype, correction, keepdims))


def _identity_of(dtype, infinity):
    """`infinity` in `dtype`, as JAX's `_reduction_init_val`: an integer type's extreme value,
    `bool`'s `True` or `False`."""
    if dtype == _BOOL:
        return np.array(infinity > 0)
    if dtype_kind(dtype) in "iu":
        return np.array(iinfo(dtype).min if infinity < 0 else iinfo(dtype).max, dtype)
    return np.array(infinity, dtype)


def _extremum(name, reducer, pick, a, axis, out, keepdims, initial, where):
    _check_out(name, out, a)
    a = _strong(asarray(a))
    axes = _reduction_axes(axis, a.ndim)
    if initial is None and (where is not None or builtins.any(a.shape[i] == 0 for i in axes)):
        raise ValueError(f"zero-size array to reduction operation {name} which has no "
                         "identity" if where is None else
                         f"reduction operation {name} with where= needs an initial value")
    if initial is not None:     # converted as lax converts: -inf for an int is its minimum
        initial = lax.convert_element_type(initial, a.dtype)
    if where is not None:       # the masked elements: the reduction's identity (JAX's)
        a = _where(where, a, _identity_of(a.dtype, -np.inf if name == "max" else np.inf))
    return _reduce(reducer, a, axes, keepdims, initial, pick)


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
        result = primitive_fun(ravel(a), 0, _default("i"))
        return lax.expand_dims(result, range(a.ndim)) if keepdims else result
    axis = canonical_axis(axis, a.ndim)
    if a.shape[axis] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    result = primitive_fun(a, axis, _default("i"))
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
    axis = canonical_axis(axis, a.ndim)
    dtype = canonicalize_dtype(dtype) if dtype is not None else (
        _default("i") if a.dtype == _BOOL else a.dtype)
    if a.dtype != dtype or get_aval(a).weak_type:    # a weak input: a strong result
        a = lax.convert_element_type(a, dtype)
    return reducer(a, axis)


@jit_in_jaxprs("cumsum", static_argnums=(1, 2))
def _cumsum(a, axis, dtype):
    return _cumulative(lax.cumsum, a, axis, dtype)


@jit_in_jaxprs("cumprod", static_argnums=(1, 2))
def _cumprod(a, axis, dtype):
    return _cumulative(lax.cumprod, a, axis, dtype)


def matmul(a, b):
    check_arraylike("matmul", a, b)
    a, b = _as_operand(a), _as_operand(b)
    for i, x in enumerate((a, b)):
        if x.ndim == 0:
            raise ValueError(f"matmul input operand {i} must have ndim at least 1, but it has "
                             "ndim 0")
    a, b = promote_dtypes(a, b)
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
            raise ValueError("Incompatible types for matmul arguments: "
                             f"{get_aval(a)} and {get_aval(b)}")
    if a_mat:
        out_a.append(n)
    if b_mat:
        out_b.append(n + a_mat)
    a = lax.squeeze(a, a_squeeze) if a_squeeze else a      # a NumPy array stays one
    b = lax.squeeze(b, b_squeeze) if b_squeeze else b
    dims = (((a.ndim - 1,), (b.ndim - 1 - b_mat,)), (tuple(a_batch), tuple(b_batch)))
    out = lax.dot_general(a, b, dims, preferred_element_type=a.dtype)
    order = out_batch + out_a + out_b             # where each of dot_general's dimensions goes
    out = lax.transpose(out, sorted(range(len(order)), key=order.__getitem__))
    return lax.expand_dims(out, both_squeeze) if both_squeeze else out


def tensordot(a, b, axes=2):
    """Contract the last `axes` dimensions of `a` with the first of `b` (an int), or the
    dimensions listed for each (a pair of sequences): one `dot_general`."""
    check_arraylike("tensordot", a, b)
    a, b = promote_dtypes(a, b)
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
        a_axes = tuple(canonical_axis(i, a.ndim) for i in a_axes)
        b_axes = tuple(canonical_axis(i, b.ndim) for i in b_axes)
    return lax.dot_general(a, b, ((a_axes, b_axes), ((), ())), preferred_element_type=a.dtype)


def dot(a, b):
    """One `dot_general`, as JAX's: over the last axis of `a` and the second-to-last of `b` (its
    only one if 1-d), or over none if either is a scalar. JAX's `dot_general` takes operands of
    two dtypes; ours takes one, so an operand of another dtype is converted first."""
    check_arraylike("dot", a, b)
    scalars = [type(x) in _PYTHON_SCALARS for x in (a, b)]
    a, b = _as_operand(a), _as_operand(b)
    dtype, weak = promote_avals(get_aval(a), get_aval(b))
    a, b = [x if get_aval(x).dtype == dtype else _convert(x, s, dtype, weak)
            for x, s in zip((a, b), scalars)]
    contract = ((), ()) if a.ndim == 0 or b.ndim == 0 else (
        (a.ndim - 1,), (0 if b.ndim == 1 else b.ndim - 2,))
    out = lax.dot_general(a, b, (contract, ((), ())), preferred_element_type=dtype)
    return _convert(out, False, dtype, True) if weak else out


def vdot(a, b):
    a = asarray(a)                          # the first operand conjugated, as in NumPy
    return dot(ravel(lax.conj(a) if dtype_kind(a.dtype) == "c" else a), ravel(b))


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
    axis = canonical_axis(axis, a.ndim)
    wide = a.shape[:axis + 1] + (repeats,) + a.shape[axis + 1:]
    a = lax.broadcast_in_dim(a, wide, [i for i in range(len(wide)) if i != axis + 1])
    return reshape(a, a.shape[:axis] + (wide[axis] * repeats,) + wide[axis + 2:])


def roll(a, shift, axis=None):
    """`a` with its elements shifted by `shift` places along `axis`, those that fall off one
    end coming back at the other (default: of the flattened array, then reshaped)."""
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    shifts = _axis_tuple(shift)
    axes = _axis_tuple(axis)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    for s, ax in zip(shifts, axes):
        ax = canonical_axis(ax, a.ndim)
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
    axis1, axis2 = canonical_axis(axis1, a.ndim), canonical_axis(axis2, a.ndim)
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
    a, b = promote_dtypes(a, b)
    d = builtins.max(a.ndim, b.ndim)
    a, b = reshape(a, (1,) * (d - a.ndim) + a.shape), reshape(b, (1,) * (d - b.ndim) + b.shape)
    wide = multiply(lax.expand_dims(a, range(1, 2 * d, 2)), lax.expand_dims(b, range(0, 2 * d, 2)))
    return reshape(wide, [m * n for m, n in zip(a.shape, b.shape)])


def _concrete(x, what):
    """`x` with every tracer in it replaced by its known value; a ConcretizationTypeError
    naming `what` if a value is not known (a traced argument under `jit`)."""
    if isinstance(x, Tracer):
        value = x.to_concrete_value()
        return x._concrete(what) if value is None else value
    if isinstance(x, (list, tuple)):
        return type(x)(_concrete(e, what) for e in x)
    return x


def _pad_pairs(nvals, nd, name):
    """NumPy's forms of `pad_width`: `n`, `(n,)`, `(before, after)`, `((before, after),)` or
    one pair per axis; one `(before, after)` pair per axis."""
    try:
        nvals = np.asarray(_concrete(nvals, f"the {name} argument of jnp.pad"))
    except ValueError as e:
        raise TypeError(f"`{name}` entries must be the same shape: {nvals}") from e
    if nvals.shape == (nd, 2):
        return tuple((v[0], v[1]) for v in nvals)
    if nvals.shape in ((1, 2), (2,)):
        pair = tuple(nvals.reshape(2))
        return (pair,) * nd
    if nvals.shape in ((1,), ()):
        v = nvals.reshape(())[()]
        return ((v, v),) * nd
    raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {nvals.shape}. "
                     f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")


_PAD_MODES = {"constant": ["constant_values"], "edge": [], "wrap": [], "empty": [],
              "reflect": ["reflect_type"], "symmetric": ["reflect_type"],
              "maximum": ["stat_length"], "minimum": ["stat_length"], "mean": ["stat_length"],
              "median": ["stat_length"], "linear_ramp": ["end_values"]}


def pad(array, pad_width, mode="constant", **kwargs):
    """`array` padded at both ends of each axis: by `pad_width` (`n`, `(before, after)`, or one
    pair per axis) copies of `constant_values`, of the edge values (`'edge'`), of the array
    mirrored (`'reflect'` without the edge, `'symmetric'` with it) or repeated (`'wrap'`)."""
    check_arraylike("pad", array)
    array = asarray(array)
    pad_width = _pad_pairs(pad_width, array.ndim, "pad_width")
    if not builtins.all(isinstance(p, (int, np.integer)) for pair in pad_width for p in pair):
        raise TypeError("`pad_width` must be of integral type.")
    if callable(mode):
        raise NotImplementedError("jnp.pad with a function as its mode is not built in "
                                  "autodidax (JAX maps the function over the array with vmap)")
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad: autodidax "
                                  f"has the modes {', '.join(_PAD_MODES)}.")
    unsupported = set(kwargs) - set(_PAD_MODES[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    stat_length = kwargs.get("stat_length")
    if stat_length is not None:
        stat_length = _pad_pairs(stat_length, array.ndim, "stat_length")
    end_values = _pad_pairs(kwargs.get("end_values", 0), array.ndim, "end_values")
    return _pad(array, pad_width, mode, kwargs.get("constant_values", 0), stat_length,
                end_values, reflect_type)


@jit_in_jaxprs("_pad", static_argnums=(1, 2, 4, 5, 6))
def _pad(array, pad_width, mode, constant_values, stat_length, end_values, reflect_type):
    if array.ndim == 0:
        return array
    if builtins.any(p < 0 for pair in pad_width for p in pair):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(array, pad_width, asarray(constant_values))
    if mode == "empty":                        # JAX's empty is zeros
        return _pad_constant(array, pad_width, asarray(0))
    if mode == "linear_ramp":
        return _pad_linear_ramp(array, pad_width, end_values)
    if mode in ("maximum", "minimum", "mean", "median"):
        return _pad_stats(array, pad_width, stat_length, {"maximum": max, "minimum": min,
                                                          "mean": mean, "median": median}[mode])
    for i in range(array.ndim):
        if array.shape[i] == 0:
            if pad_width[i][0] > 0 or pad_width[i][1] > 0:
                raise ValueError(f"Cannot apply '{mode}' padding to empty axis")
            continue
        if mode == "edge":
            array = _pad_edge(array, pad_width[i], i)
        elif mode == "wrap":
            array = _pad_wrap(array, pad_width[i], i)
        elif pad_width[i] != (0, 0):
            array = _pad_mirror(array, pad_width[i][0], i, mode, reflect_type, before=True)
            array = _pad_mirror(array, pad_width[i][1], i, mode, reflect_type, before=False)
    return array


def _pad_constant(array, pad_width, constant_values):
    """One `pad` for a scalar; for a value per axis and side, one `pad` per side padded."""
    nd = array.ndim
    values = lax.convert_element_type(constant_values, array.dtype, array.aval.weak_type)
    if values.ndim == 0 or values.shape == (1,):
        values = lax.squeeze(values, (0,)) if values.ndim else values
        return lax.pad(array, values, [(lo, hi, 0) for lo, hi in pad_width])
    if values.ndim == 1 and values.shape[-1] != 2:
        raise ValueError(f"jnp.pad: constant_values has unsupported shape {values.shape}. If "
                         "the shape is 1D or 2D, the last dimension must be of size 1 or 2.")
    values = broadcast_to(values, (nd, 2))
    for i in range(nd):
        for side in (0, 1):
            if pad_width[i][side] != 0:
                widths = [(0, 0, 0)] * nd
                widths[i] = (pad_width[i][0], 0, 0) if side == 0 else (0, pad_width[i][1], 0)
                array = lax.pad(array, values[i, side], widths)
    return array


def _pad_stats(array, pad_width, stat_length, stat):
    """Each side padded with a statistic (max, min, mean) of the whole axis, or of the
    `stat_length` elements nearest that side; rounded first for integer arrays."""
    for i in range(array.ndim):
        if stat_length is None:
            before = after = stat(array, axis=i, keepdims=True)
        else:
            n_before, n_after = stat_length[i]
            if n_before == 0 or n_after == 0:
                raise ValueError("stat_length of 0 yields no value for padding")
            n_before, n_after = (int(builtins.min(n, array.shape[i])) for n in (n_before, n_after))
            before = stat(_slice_in_dim(array, 0, n_before, i), axis=i, keepdims=True)
            after = stat(_slice_in_dim(array, -n_after, None, i), axis=i, keepdims=True)
        if dtype_kind(array.dtype) in "iu":
            before, after = round(before), round(after)
        before, after = (lax.convert_element_type(v, array.dtype, array.aval.weak_type)
                         for v in (before, after))
        array = lax.concatenate([repeat(before, int(pad_width[i][0]), axis=i), array,
                                 repeat(after, int(pad_width[i][1]), axis=i)], i)
    return array


def _pad_linear_ramp(array, pad_width, end_values):
    """Along each axis, a `linspace` from the end value to the edge, without the edge, on each
    side (the one after reversed), as JAX's `_pad_linear_ramp`."""
    for axis in range(array.ndim):
        edges = (_slice_in_dim(array, 0, 1, axis), _slice_in_dim(array, -1, None, axis))
        before, after = [
            lax.convert_element_type(linspace(end_values[axis][side], squeeze(edge, axis),
                                              pad_width[axis][side], endpoint=False,
                                              dtype=array.dtype, axis=axis),
                                     array.dtype, array.aval.weak_type)
            for side, edge in enumerate(edges)]
        array = lax.concatenate([before, array, flip(after, axis)], axis)
    return array


def _slice_in_dim(a, start, stop, axis):
    """`a[start:stop]` along `axis` (JAX's `lax.slice_in_dim`, which gives strides)."""
    n = a.shape[axis]
    starts, limits = [0] * a.ndim, list(a.shape)
    starts[axis] = int(0 if start is None else start + n if start < 0 else start)
    limits[axis] = int(n if stop is None else stop + n if stop < 0 else stop)
    return lax.slice(a, starts, limits, [1] * a.ndim)


def _pad_edge(array, widths, i):
    n = array.shape[i]
    before = repeat(_slice_in_dim(array, 0, 1, i), int(widths[0]), axis=i)
    after = repeat(_slice_in_dim(array, n - 1, n, i), int(widths[1]), axis=i)
    return lax.concatenate([before, array, after], i)


def _pad_wrap(array, widths, i):
    size = array.shape[i]
    left_repeats, left_rest = builtins.divmod(widths[0], size)
    right_repeats, right_rest = builtins.divmod(widths[1], size)
    parts = [_slice_in_dim(array, size - left_rest, size, i)] if left_rest > 0 else []
    parts += [array] * int(left_repeats + right_repeats + 1)
    parts += [_slice_in_dim(array, 0, right_rest, i)] if right_rest > 0 else []
    return lax.concatenate(parts, i)


def _pad_mirror(array, padding, i, mode, reflect_type, before):
    """`padding` elements mirrored at one end of axis `i`: without the edge element
    (`'reflect'`) or with it (`'symmetric'`); `reflect_type='odd'` mirrors the values about
    the edge value too. Padding longer than the axis mirrors again, and again."""
    size = array.shape[i]
    edge = _slice_in_dim(array, 0, 1, i) if before else _slice_in_dim(array, -1, None, i)
    offset = 1 if mode == "reflect" and size > 1 else 0
    while padding > 0:
        step = builtins.min(padding, size - offset)
        padding -= step
        if before:
            x = _slice_in_dim(array, offset, offset + step, i)
        else:
            x = _slice_in_dim(array, -(step + offset),
                              None if mode == "symmetric" or size == 1 else -1, i)
        x = flip(x, axis=i)
        if reflect_type == "odd":
            x = 2 * edge - x
            if size > 1:
                edge = _slice_in_dim(x, 0, 1, i) if before else _slice_in_dim(x, -1, None, i)
        array = lax.concatenate([x, array] if before else [array, x], i)
    return array


def _split(name, ary, indices_or_sections, axis):
    check_arraylike(name, ary)
    ary = asarray(ary)
    axis = canonical_axis(axis, ary.ndim)
    size = ary.shape[axis]
    if isinstance(indices_or_sections, (tuple, list)) or (
            _is_array(indices_or_sections) or isinstance(indices_or_sections, np.ndarray)) and \
            np.ndim(indices_or_sections) > 0:
        points = [0] + [operator.index(i) for i in
                        _concrete(list(indices_or_sections), f"jnp.{name}'s indices")] + [size]
        sizes = list(np.diff(points))
    else:
        sections = operator.index(_concrete(indices_or_sections, f"jnp.{name}'s sections"))
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        part, rest = builtins.divmod(size, sections)
        if rest and name != "array_split":
            raise ValueError(f"array split does not result in an equal division: rest is {rest}")
        sizes = [part + 1] * rest + [part] * (sections - rest)
    if builtins.any(s < 0 for s in sizes) or builtins.sum(sizes) != size:
        raise ValueError(f"jnp.{name}: the split points {indices_or_sections} do not cut an "
                         f"axis of size {size} into pieces (they must increase, up to {size})")
    starts = np.cumsum([0] + sizes[:-1])
    return [_slice_axis(ary, int(s), int(s + n), axis) for s, n in zip(starts, sizes)]


def split(ary, indices_or_sections, axis=0):
    """`ary` cut along `axis` into equal sections (an int), or at the given indices."""
    return _split("split", ary, indices_or_sections, axis)


def array_split(ary, indices_or_sections, axis=0):
    """As `split`, but `n` sections need not divide the axis: the first ones get one more."""
    return _split("array_split", ary, indices_or_sections, axis)


def vsplit(ary, indices_or_sections): return _split("vsplit", ary, indices_or_sections, 0)
def dsplit(ary, indices_or_sections): return _split("dsplit", ary, indices_or_sections, 2)


def hsplit(ary, indices_or_sections):
    check_arraylike("hsplit", ary)
    ary = asarray(ary)
    return _split("hsplit", ary, indices_or_sections, 0 if ary.ndim == 1 else 1)


def _einsum_operands(subscripts, operands):
    """The subscripts as one string, from either of NumPy's forms: `"ij,jk->ik", a, b` or
    `a, [0, 1], b, [1, 2], [0, 2]` (sublists of ints, `...` as Ellipsis)."""
    if isinstance(subscripts, str):
        return subscripts, list(operands)
    args = [subscripts, *operands]
    name = lambda sub: "".join("..." if s is Ellipsis else string.ascii_letters[operator.index(s)]
                               for s in sub)
    ops, subs = args[0:len(args) - len(args) % 2:2], args[1::2]
    spec = ",".join(map(name, subs[:len(ops)]))
    if len(args) % 2:
        spec += "->" + name(args[-1])
    return spec, ops


def _parse_einsum(spec, shapes):
    """Input and output subscripts, one letter per dimension (any character but `,.->`):
    `...` becomes the first letters not used (opt_einsum's rule), an implicit output is the
    letters used once, sorted."""
    spec = spec.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    inputs = inputs.split(",")
    if len(inputs) != len(shapes):
        raise ValueError(f"einsum: {len(inputs)} subscripts for {len(shapes)} operands in {spec!r}")
    letters = inputs and "".join(inputs).replace(".", "")
    once = "".join(c for c in sorted(set(letters)) if letters.count(c) == 1)
    if "..." in spec:
        used = set(spec)
        free = [c for c in string.ascii_letters if c not in used]
        longest = builtins.max([len(s) - (len(sub) - 3) for sub, s in zip(inputs, shapes)
                                if "..." in sub] + [0])
        ellipsis = "".join(free[:longest])
        inputs = [sub.replace("...", ellipsis[len(ellipsis) - (len(s) - (len(sub) - 3)):]
                              if len(s) > len(sub) - 3 else "") for sub, s in zip(inputs, shapes)]
        output = output.replace("...", ellipsis) if arrow else ellipsis + once
    elif not arrow:
        output = once
    sizes = {}
    for i, (sub, shape) in enumerate(zip(inputs, shapes)):
        if len(sub) != len(shape):
            raise ValueError(f"Einstein sum subscript '{sub}' does not contain the correct number "
                             f"of indices for operand {i}.")
        for c, d in zip(sub, shape):
            if sizes.get(c, 1) not in (1, d) and d != 1:
                raise ValueError(f"Size of label '{c}' for operand {i} ({d}) does not match "
                                 f"previous terms ({sizes[c]}).")
            sizes[c] = builtins.max(sizes.get(c, 1), d)
    if len(set(output)) != len(output) or builtins.any(c not in sizes for c in output):
        raise ValueError(f"einsum output subscript {output!r} repeats a letter or has one that "
                         "no input has")
    return inputs, output, sizes


def _einsum_path(inputs, output, sizes):
    """The contractions, as opt_einsum's `contract_path` describes them: the positions of the
    operands taken (highest first), the letters summed away, and a subscript string. The order
    of the pairs is opt_einsum's default for up to four operands, its exhaustive search for the
    fewest operations; beyond four we contract left to right, where opt_einsum searches less."""
    n = len(inputs)
    order = ([tuple(range(n))] if n <= 2 else contraction_order(inputs, output, sizes) if n <= 4
             else [(0, 1)] * (n - 1))
    path, remaining = [], list(inputs)
    for k, positions in enumerate(order):
        positions = tuple(sorted(positions, reverse=True))
        taken = [remaining[p] for p in positions]
        rest = [r for i, r in enumerate(remaining) if i not in positions]
        letters = set().union(*taken)
        kept = letters & set(output).union(*rest)
        result = (output if k == len(order) - 1
                  else "".join(sorted(kept, key="".join(taken).find)))
        path.append((positions, letters - kept, ",".join(taken) + "->" + result))
        remaining = rest + [result]
    return path


def pair_flops(left, right, kept, sizes):
    """opt_einsum's cost of contracting two operands whose letters are `left` and `right` into
    one with the letters `kept`: the size of all their letters, twice that if letters both
    share are summed away (a multiply and an add per term)."""
    size = int(np.prod([sizes[c] for c in left | right], dtype=np.int64))
    return size * (2 if (left & right) - kept else 1)


def contraction_order(inputs, output, sizes, cost=pair_flops):
    """The order of pairwise contractions with the lowest total `cost`, searched as
    opt_einsum's `optimal` path is: every order, depth first, a branch dropped once its cost
    reaches the best so far, so that ties go to the first found. `inputs` are the operands'
    subscripts, `sizes` maps each letter to its size, `cost(left, right, kept, sizes)` prices
    one pair (letter sets of the two operands and of their result). As opt_einsum does, it
    prices a pair of letter sets once, the first time it meets them, and reuses that result and
    cost wherever the pair comes up again, even where the operands left would keep other
    letters. Positions are returned as `contract_path` gives them: into the list of operands
    left, each result appended last."""
    out = frozenset(output)
    best, seen = [float("inf"), ()], {}

    def search(path, remaining, sets, total):
        if len(remaining) == 1:
            best[:] = [total, path]
            return
        for i, j in itertools.combinations(sorted(remaining), 2):
            if (sets[i], sets[j]) not in seen:
                kept = (sets[i] | sets[j]) & out.union(*(sets[r] for r in remaining
                                                          if r not in (i, j)))
                seen[sets[i], sets[j]] = kept, cost(sets[i], sets[j], kept, sizes)
            kept, price = seen[sets[i], sets[j]]
            step = total + price
            if step < best[0]:
                search(path + ((i, j),), remaining - {i, j} | {len(sets)}, sets + (kept,), step)

    search((), set(range(len(inputs))), tuple(map(frozenset, inputs)), 0)
    ids, linear = list(range(len(inputs))), []
    for pair in best[1]:                 # single-assignment ids to positions in the list left
        positions = sorted(ids.index(k) for k in pair)
        for p in reversed(positions):
            ids.pop(p)
        ids.append(len(inputs) + len(linear))
        linear.append(tuple(positions))
    return linear


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None,
           preferred_element_type=None):
    """Einstein summation: each operand's dimensions are named by letters; letters in the
    output are kept, the others summed over. `"ij,jk->ik"` is a matrix product, `"ii->i"` a
    diagonal, `"bij,bjk->bik"` a batch of products, `"...ij->...ji"` a transpose."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    spec, operands = _einsum_operands(subscripts, operands)
    check_arraylike("einsum", *operands)
    operands = [asarray(x) for x in operands]
    inputs, output, sizes = _parse_einsum(spec, [x.shape for x in operands])
    path = _einsum_path(inputs, output, sizes)
    return _einsum(operands, path, preferred_element_type)


def _einsum(operands, path, preferred_element_type):
    """JAX's `_einsum`, step by step: sum away letters only one operand has, take diagonals of
    repeated letters against an `iota` mask, then one `dot_general` per pair of operands."""
    if preferred_element_type is None:
        dtype, weak = promote_avals(*(x.aval for x in operands))
    else:
        dtype, weak = canonicalize_dtype(preferred_element_type), False

    def total(x, axes):
        if _join(x.dtype, dtype) != x.dtype:
            x = lax.convert_element_type(x, dtype)
        return lax.reduce_or(x, axes) if x.dtype == _BOOL else lax.reduce_sum(x, axes)

    def sum_uniques(x, names, uniques):
        if uniques:
            x = total(x, [names.index(c) for c in uniques])
            names = "".join(c for c in names if c not in uniques)
        return x, names

    def sum_repeats(x, names, counts, keep):
        for c, count in counts.items():
            if count > 1:
                axes = [i for i, n in enumerate(names) if n == c]
                x = _where_delta(x, axes)
                if c not in keep:
                    x, names = total(x, axes), names.replace(c, "")
                else:
                    x, names = total(x, axes[:-1]), names.replace(c, "", count - 1)
        return x, names

    def drop_singletons(x, names, other_shape, other_names):
        squeezed = [i for i, c in enumerate(names) if x.shape[i] == 1
                    and other_names.find(c) != -1 and other_shape[other_names.find(c)] != 1]
        return (lax.squeeze(x, squeezed) if squeezed else x,
                "".join(c for i, c in enumerate(names) if i not in squeezed))

    operands = list(operands)
    for positions, contracted, einstr in path:
        contracted = sorted(contracted)
        input_str, result = einstr.split("->")
        input_names = input_str.split(",")
        if len(positions) == 1:
            x, names = operands.pop(positions[0]), input_names[0]
            counts = collections.Counter(names)
            x, names = sum_uniques(x, names, [c for c in contracted if counts[c] == 1])
            x, names = sum_repeats(x, names, counts, result)
        else:
            lhs, rhs = map(operands.pop, positions)
            lhs_names, rhs_names = input_names
            lhs, lhs_names = drop_singletons(lhs, lhs_names, rhs.shape, rhs_names)
            rhs, rhs_names = drop_singletons(rhs, rhs_names, lhs.shape, lhs_names)
            lhs_counts, rhs_counts = (collections.Counter(n) for n in (lhs_names, rhs_names))
            lhs, lhs_names = sum_uniques(lhs, lhs_names, [
                c for c in contracted if lhs_counts[c] == 1 and rhs_counts[c] == 0])
            rhs, rhs_names = sum_uniques(rhs, rhs_names, [
                c for c in contracted if rhs_counts[c] == 1 and lhs_counts[c] == 0])
            lhs, lhs_names = sum_repeats(lhs, lhs_names, lhs_counts, result + rhs_names)
            rhs, rhs_names = sum_repeats(rhs, rhs_names, rhs_counts, result + lhs_names)
            contracted = [c for c in contracted if c in set(lhs_names) | set(rhs_names)]
            batch = [c for c in result if c in set(lhs_names) & set(rhs_names)]
            lhs_batch = tuple(lhs_names.find(c) for c in batch)
            rhs_batch = tuple(rhs_names.find(c) for c in batch)
            lhs_cont = tuple(lhs_names.index(c) for c in contracted)
            rhs_cont = tuple(rhs_names.index(c) for c in contracted)
            gone = set(batch) | set(contracted)
            lhs_rest = "".join(c for c in lhs_names if c not in gone)
            rhs_rest = "".join(c for c in rhs_names if c not in gone)
            if lhs.dtype != rhs.dtype:      # JAX's dot_general takes mixed dtypes; ours not
                common = promote_avals(lhs.aval.update(weak_type=False),
                                     rhs.aval.update(weak_type=False))[0]
                lhs, rhs = (lax.convert_element_type(v, common) for v in (lhs, rhs))
            names = "".join(batch) + rhs_rest + lhs_rest     # try (rhs, lhs) first, as JAX
            if names == result:
                x = lax.dot_general(rhs, lhs, ((rhs_cont, lhs_cont), (rhs_batch, lhs_batch)),
                                    preferred_element_type=dtype)
            else:
                names = "".join(batch) + lhs_rest + rhs_rest
                x = lax.dot_general(lhs, rhs, ((lhs_cont, rhs_cont), (lhs_batch, rhs_batch)),
                                    preferred_element_type=dtype)
        if names != result:
            x = lax.transpose(x, [names.index(c) for c in result])
        operands.append(x)
    return lax.convert_element_type(operands[0], dtype, weak)


def _where_delta(x, axes):
    """`x` where the indices along `axes` are all equal, 0 elsewhere (JAX's `lax._delta`)."""
    shape = tuple(x.shape[a] for a in axes)
    iotas = [lax.broadcasted_iota(np.uint32, shape, i) for i in range(len(shape))]
    eye = functools.reduce(lax.bitwise_and, [lax.eq(i, j) for i, j in zip(iotas, iotas[1:])])
    if shape != x.shape:
        eye = lax.broadcast_in_dim(eye, x.shape, axes)
    zero = lax.broadcast_in_dim(LiteralArray(np.zeros((), x.dtype), x.aval.weak_type), x.shape, ())
    return lax.select_n(eye, zero, x)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of vectors of 3 (or 2) components along the given axes."""
    check_arraylike("cross", a, b)
    return _cross(asarray(a), asarray(b), axisa, axisb, axisc, axis)


@jit_in_jaxprs("cross", static_argnums=(2, 3, 4, 5))
def _cross(a, b, axisa, axisb, axisc, axis):
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("Dimension must be either 2 or 3 for cross product")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else zeros_like(a0)
    b2 = b[..., 2] if b.shape[-1] == 3 else zeros_like(b0)
    c = array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
    return moveaxis(c, 0, axisc)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    """The covariance matrix of the variables in the rows of `m` (columns if not `rowvar`),
    and of `y`'s, if given: the mean products of deviations, divided by `n - ddof`; each
    observation counted `fweights` times (integers) and weighted by `aweights`."""
    check_arraylike("cov", m, *(v for v in (y, fweights, aweights) if v is not None))
    m, y, fweights, aweights = (None if v is None else asarray(v)
                                for v in (m, y, fweights, aweights))
    return _cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype)


@jit_in_jaxprs("cov", static_argnums=(2, 3, 4, 7))
def _cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype):
    if y is not None:
        m, y = promote_dtypes(m, y, inexact=True)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
    else:
        m, = promote_dtypes(m, inexact=True)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if dtype is not None and dtype_kind(canonicalize_dtype(dtype)) not in "fc":
        raise ValueError(f"cov: dtype must be a subclass of float or complex; got dtype={dtype}")
    X = atleast_2d(m)
    if not rowvar and m.ndim != 1:
        X = X.T
    if X.shape[0] == 0:
        return reshape(array([]), (0, 0))
    if y is not None:
        y = atleast_2d(y)
        if not rowvar and y.shape[0] != 1:
            y = y.T
        X = concatenate((X, y), axis=0)
    if X.shape[1] == 0:
        return full(() if X.shape[0] == 1 else (X.shape[0],) * 2, np.nan, X.dtype)
    if ddof is None:
        ddof = 1 if bias == 0 else 0
    w = None
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is not None:
            if weights.ndim > 1:
                raise RuntimeError(f"cannot handle multidimensional {name}")
            if weights.shape[0] != X.shape[1]:
                raise RuntimeError(f"incompatible numbers of samples and {name}")
            if name == "fweights" and dtype_kind(weights.dtype) not in "iu":
                raise TypeError("fweights must be integer.")
            w = abs(weights) if w is None else multiply(w, abs(weights))
    if dtype is not None:
        X = X.astype(dtype)
        w = None if w is None else w.astype(dtype)
    if w is None:
        avg, f = mean(X, axis=1), X.shape[1] - ddof
    else:
        X, w = promote_dtypes(X, w, inexact=True)
        w_sum = sum(w)
        avg = true_divide(sum(multiply(X, w), axis=1), w_sum)
        f = w_sum if ddof == 0 else subtract(w_sum, ddof) if aweights is None else subtract(
            w_sum, true_divide(multiply(ddof, sum(multiply(w, abs(aweights)))), w_sum))
    X = X - avg[:, None]
    X_T = X.T if w is None else multiply(X, w).T
    return squeeze(true_divide(dot(X, X_T), f))


def corrcoef(x, y=None, rowvar=True, dtype=None):
    """The correlation coefficients: the covariance matrix scaled to 1 on its diagonal."""
    check_arraylike("corrcoef", x, *([] if y is None else [y]))
    return _corrcoef(asarray(x), None if y is None else asarray(y), rowvar, dtype)


@jit_in_jaxprs("corrcoef", static_argnums=(2, 3))
def _corrcoef(x, y, rowvar, dtype):
    if dtype is not None and dtype_kind(canonicalize_dtype(dtype)) not in "fc":
        raise ValueError(f"corrcoef: dtype must be a subclass of float or complex; got "
                         f"dtype={dtype}")
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return true_divide(c, c)       # NaN for nan/nan, inf/inf, 0/0; 1 otherwise
    stddev = sqrt(diag(c)).astype(c.dtype)
    c = c / stddev[:, None] / stddev[None, :]
    return clip(c, -1, 1)


def count_nonzero(a, axis=None, keepdims=False):
    """The number of elements of `a` that are not zero (not False), as int32."""
    check_arraylike("count_nonzero", a)
    return _count_nonzero(asarray(a), _static_axis(axis), keepdims)


@jit_in_jaxprs("count_nonzero", static_argnums=(1, 2))
def _count_nonzero(a, axis, keepdims):
    return sum(lax.ne(a, _constant_like(a, 0)), axis=axis, dtype=_default("i"),
               keepdims=keepdims)


def _nan_reduction(name, reduction, init, nan_if_all_nan, a, axis, keepdims, **kwargs):
    """`reduction` of `a` with its NaNs replaced by `init`, the reduction's identity; NaN where
    every element was NaN, for `nanmax` and `nanmin` (which have no identity of their own)."""
    if dtype_kind(a.dtype) not in "fc":
        return reduction(a, axis=axis, keepdims=keepdims, **kwargs)
    out = reduction(_where(isnan(a), LiteralArray(np.asarray(init, a.dtype)), a), axis=axis,
                    keepdims=keepdims, **kwargs)
    if nan_if_all_nan:
        return _where(all(isnan(a), axis=axis, keepdims=keepdims), _constant_like(a, np.nan), out)
    return out


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """`sum`, counting NaNs as 0."""
    _check_out("nansum", out, a)
    return _nansum(asarray(a), _static_axis(axis), dtype, keepdims, initial, where)


@jit_in_jaxprs("nansum", static_argnums=(1, 2, 3))
def _nansum(a, axis, dtype, keepdims, initial, where):
    return _nan_reduction("nansum", sum, 0, False, a, axis, keepdims, dtype=dtype,
                          initial=initial, where=where)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """`max`, ignoring NaNs: NaN only where every element is NaN."""
    _check_out("nanmax", out, a)
    return _nanmax(asarray(a), _static_axis(axis), keepdims, initial, where)


@jit_in_jaxprs("nanmax", static_argnums=(1, 2))
def _nanmax(a, axis, keepdims, initial, where):
    return _nan_reduction("nanmax", max, -np.inf, initial is None, a, axis, keepdims,
                          initial=initial, where=where)


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """`min`, ignoring NaNs: NaN only where every element is NaN."""
    _check_out("nanmin", out, a)
    return _nanmin(asarray(a), _static_axis(axis), keepdims, initial, where)


@jit_in_jaxprs("nanmin", static_argnums=(1, 2))
def _nanmin(a, axis, keepdims, initial, where):
    return _nan_reduction("nanmin", min, np.inf, initial is None, a, axis, keepdims,
                          initial=initial, where=where)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    """The mean of the elements that are not NaN (NaN where there are none)."""
    _check_out("nanmean", out, a)
    return _nanmean(asarray(a), _static_axis(axis), dtype, keepdims, where)


@jit_in_jaxprs("nanmean", static_argnums=(1, 2, 3))
def _nanmean(a, axis, dtype, keepdims, where):
    if dtype_kind(a.dtype) in "biu":
        return mean(a, axis, dtype, keepdims=keepdims, where=where)
    dtype = a.dtype if dtype is None else canonicalize_dtype(dtype)
    normalizer = sum(lax.bitwise_not(isnan(a)), axis=axis, dtype=dtype, keepdims=keepdims,
                     where=where)
    return lax.div(nansum(a, axis, dtype=dtype, keepdims=keepdims, where=where), normalizer)


def _at(x):
    _needs_chapter_11("at")
    return _IndexUpdateHelper(x)


item_rules: dict = {}   # aval type -> (get, set): indexing of appendix A30's refs


def _getitem(a, index):
    if (rules := item_rules.get(type(a.aval))) is not None:
        return rules[0](a, index)
    original = index
    index = index if isinstance(index, tuple) else (index,)
    for i in index:
        if _indexing_with_arrays() and (
                isinstance(i, (Tracer, list, bool, np.bool_)) or isinstance(i, (Array, np.ndarray))
                and (np.ndim(i) or getattr(i, "dtype", None) == _BOOL)):
            return _rewriting_take(a, original)
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
            if not -n <= k < n and n and _indexing_with_arrays():
                return _rewriting_take(a, original)    # JAX clamps
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


# Hook for chapter 11 and appendix A12: the functions that indexing with arrays, `x.at`, `take`,
# `nonzero` and the sort wrappers call (`gather`, `scatter_add`, `sort`...), registered by name.
indexing_ops: dict = {}


def _indexing_with_arrays():
    """Whether chapter 11 has registered its indexing functions."""
    return "gather" in indexing_ops


def _needs_chapter_11(what):
    if not _indexing_with_arrays():
        raise NotImplementedError(f"{what} needs chapter 11's indexing: import autodidax.indexing")


def _axis(axis, ndim):
    """`axis` in `range(ndim)`, counted from the end if negative (0 for a 0-d array too)."""
    axis = operator.index(axis)        # a float is a TypeError, as in JAX
    if not -ndim <= axis < builtins.max(ndim, 1):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % builtins.max(ndim, 1)


def _is_int_array(i):
    return isinstance(i, (Array, Tracer, np.ndarray)) and dtype_kind(get_aval(i).dtype) in "iu"


def _is_bool_array(i):
    return isinstance(i, (Array, Tracer, np.ndarray)) and get_aval(i).dtype == np.bool_


def _check_index(i):
    if isinstance(i, list):
        return asarray(i) if i else asarray(i, np.int32)
    if i is None or i is Ellipsis or isinstance(i, builtins.slice):
        return i
    if isinstance(i, (bool, np.bool_)):
        return i
    if isinstance(i, (int, np.integer)):
        return int(i)
    if isinstance(i, (Array, Tracer, np.ndarray)):
        if _is_bool_array(i) and not get_aval(i).shape:      # a 0-d mask is a scalar boolean
            value = i.to_concrete_value() if isinstance(i, Tracer) else np.asarray(i)
            return i if value is None else bool(value)
        if dtype_kind(get_aval(i).dtype) not in "iub":
            raise TypeError(f"Indexer must have integer or boolean type, got indexer with "
                             f"type {get_aval(i).dtype.name}")
        return i
    raise TypeError(f"Indexer must be an integer, a slice, None, ..., or an array of integers "
                    f"or booleans; got {type(i).__name__}")


def _is_scalar_bool(i):
    return isinstance(i, (bool, np.bool_))


def _expand_ellipsis(index, ndim):
    real = [i for i in index if i is not None and i is not Ellipsis and not _is_scalar_bool(i)]
    nreal = builtins.sum(get_aval(i).ndim if _is_bool_array(i) else 1 for i in real)
    if nreal > ndim:
        raise IndexError(f"Too many indices: {ndim}-dimensional array indexed with {nreal} "
                         "regular indices.")
    if builtins.sum(i is Ellipsis for i in index) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    fill = (builtins.slice(None),) * (ndim - nreal)
    if builtins.any(i is Ellipsis for i in index):
        at = next(k for k, i in enumerate(index) if i is Ellipsis)
        return index[:at] + fill + index[at + 1:]
    return index + fill


def _expand_bool_indices(index, shape):
    out, dim = [], 0
    for i in index:
        if _is_bool_array(i):
            aval = get_aval(i)
            if aval.shape != tuple(shape[dim:dim + aval.ndim]):
                raise IndexError(f"boolean index did not match shape of indexed array in index "
                                 f"{dim}: got {aval.shape}, expected "
                                 f"{tuple(shape[dim:dim + aval.ndim])}")
            value = i.to_concrete_value() if isinstance(i, Tracer) else np.asarray(i)
            if value is None:
                raise NonConcreteBooleanIndexError(
                    f"Array boolean indices must be concrete; got {aval.str_short()}\n\nA "
                    "boolean mask selects a number of elements that depends on its values, "
                    "and under jit the shape of every value must be known when it is traced. "
                    "Use jnp.where(mask, x, 0) instead, or nonzero(mask, size=...).")
            out.extend(asarray(np.asarray(k, np.int32)) for k in np.nonzero(value))
            dim += aval.ndim
        else:
            out.append(i)
            dim += i is not None
    return tuple(out)


def _normalize(i, size):
    """`i` counted from the end where negative: `select_n(i < 0, i, i + size)`."""
    if isinstance(i, int):
        return i + size if i < 0 else i
    if dtype_kind(get_aval(i).dtype) == "u":
        return i
    return lax.select_n(lax.lt(i, lax.const_like(i, 0)), i, lax.add(i, lax.const_like(i, size)))


def _try_dynamic_slice(a, index, normalize=True):
    """`a[index]` as one dynamic_slice, or None if the index is not of that form."""
    for i in index:
        if isinstance(i, builtins.slice):
            if i.step not in (None, 1, -1):
                return None
        elif not (i is None or isinstance(i, int) or _is_int_array(i) and not get_aval(i).shape):
            return None
    starts, sizes, rev_axes, squeeze_axes, new_axes = [], [], [], [], []
    dim = 0
    for i in index:
        if i is None:
            new_axes.append(len(starts) - len(squeeze_axes) + len(new_axes))
            continue
        n = a.shape[dim]
        if isinstance(i, builtins.slice):
            start, stop, step = i.indices(n)
            if step < 0:
                new_start = stop + 1 + builtins.abs(start - stop - 1) % builtins.abs(step)
                starts.append(new_start)
                sizes.append(builtins.max(0, start + 1 - new_start))
                rev_axes.append(dim)
            else:
                starts.append(start)
                sizes.append(builtins.max(0, stop - start))
        else:
            if n == 0:
                raise IndexError(f"index is out of bounds for axis {dim} with size 0")
            starts.append(asarray(i))
            sizes.append(1)
            squeeze_axes.append(dim)
        dim += 1
    if len(starts) > 1:
        starts = [lax.convert_element_type(s, np.int32) if isinstance(s, Tracer)
                  else asarray(s, np.int32) for s in starts]
    out = indexing_ops["dynamic_slice"](a, starts, sizes, allow_negative_indices=normalize)
    if rev_axes:
        out = lax.rev(out, rev_axes)
    if squeeze_axes:
        out = lax.squeeze(out, squeeze_axes)
    if new_axes:
        out = lax.expand_dims(out, new_axes)
    return out


class _Indexer(NamedTuple):
    """`x[index]` as a gather: its indices, dimension numbers and slice sizes, and what to do
    to the gathered array after (reverse some dimensions, insert `None`s)."""
    slice_shape: tuple
    gather_slice_shape: tuple
    gather_indices: object
    dnums: object                     # chapter 11's GatherDimensionNumbers
    unique_indices: bool
    indices_are_sorted: bool
    reversed_y_dims: tuple
    newaxis_dims: tuple


def _index_to_gather(shape, index, normalize=True):
    index = _expand_ellipsis(tuple(_check_index(i) for i in index), len(shape))
    index = _expand_bool_indices(index, shape)
    advanced = [k for k, i in enumerate(index)
                if i is not None and not isinstance(i, builtins.slice)]
    # NumPy: integers (and 0-d arrays) count as advanced indices only if some array does too
    if not builtins.any(not isinstance(index[k], int) and get_aval(index[k]).ndim > 0
                        for k in advanced):
        advanced = []
    contiguous = advanced == list(range(advanced[0], advanced[-1] + 1)) if advanced else True
    x_dims = {}
    dim = 0
    for k, i in enumerate(index):
        if i is not None:
            x_dims[k] = dim
            dim += 1
    arrays = []
    for k in advanced:
        i = index[k]
        i = asarray(i) if isinstance(i, int) else i
        arrays.append(_normalize(i, shape[x_dims[k]]) if normalize else i)
    if arrays:
        bshape = np.broadcast_shapes(*(get_aval(a).shape for a in arrays))
        arrays = [a if get_aval(a).shape == bshape else broadcast_to(a, bshape)
                  for a in arrays]
    offset_dims, collapsed, start_map, gathered = [], [], [], []
    indices_shape, slice_shape, gather_slice_shape = [], [], []
    newaxis_dims, reversed_y_dims = [], []
    y_axis = collapsed_y_axis = 0
    for k, i in enumerate(index):
        if advanced and (contiguous and k == advanced[0] or not contiguous and k == 0):
            start = len(indices_shape)
            gathered.extend((lax.convert_element_type(a, np.int32), start) for a in arrays)
            indices_shape += list(bshape)
            start_map.extend(x_dims[j] for j in advanced)
            collapsed.extend(x_dims[j] for j in advanced)
            slice_shape.extend(bshape)
            y_axis += len(bshape)
            collapsed_y_axis += len(bshape)
        if k in advanced:
            gather_slice_shape.append(1)
            continue
        if i is None:
            slice_shape.append(1)
            newaxis_dims.append(y_axis)
            y_axis += 1
        elif isinstance(i, int) or not isinstance(i, builtins.slice):
            n = shape[x_dims[k]]
            if n == 0:
                raise IndexError(f"index is out of bounds for axis {x_dims[k]} with size 0")
            i = _normalize(i, n) if normalize else i
            i = lax.convert_element_type(i, np.int32) if isinstance(i, Tracer) \
                else asarray(i, np.int32)
            gathered.append((i, len(indices_shape)))
            collapsed.append(x_dims[k])
            gather_slice_shape.append(1)
            start_map.append(x_dims[k])
        else:
            n = shape[x_dims[k]]
            start, stop, step = i.indices(n)
            size = builtins.max(0, len(range(start, stop, step)))
            slice_shape.append(size)
            if step == 1:
                if size != n:
                    gathered.append((np.asarray(start, np.int32), len(indices_shape)))
                    start_map.append(x_dims[k])
                gather_slice_shape.append(size)
                offset_dims.append(collapsed_y_axis)
            else:
                positions = np.arange(start, stop, step, dtype=np.int32)
                if step < 0:
                    reversed_y_dims.append(collapsed_y_axis)
                    positions = positions[::-1].copy()
                gather_slice_shape.append(1)
                gathered.append((asarray(positions), len(indices_shape)))
                start_map.append(x_dims[k])
                indices_shape.append(size)
                collapsed.append(x_dims[k])
            collapsed_y_axis += 1
            y_axis += 1
    if not gathered:
        indices = np.zeros((0,), np.int32)
    elif len(gathered) == 1:
        g, _ = gathered[0]
        indices = lax.expand_dims(g, (get_aval(g).ndim,))
    else:
        full = tuple(indices_shape) + (1,)
        indices = lax.concatenate(
            [lax.broadcast_in_dim(g, full, tuple(range(s, s + get_aval(g).ndim)))
             for g, s in gathered], len(indices_shape))
    dnums = indexing_ops["GatherDimensionNumbers"](offset_dims=tuple(offset_dims),
                                       collapsed_slice_dims=tuple(sorted(collapsed)),
                                       start_index_map=tuple(start_map))
    return _Indexer(tuple(slice_shape), tuple(gather_slice_shape), indices, dnums,
                    not advanced, not advanced, tuple(reversed_y_dims), tuple(newaxis_dims))


def _as_index_tuple(index):
    if isinstance(index, list):
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                        "allowed; use `arr[array(seq)]` instead of `arr[seq]`. See "
                        "https://github.com/jax-ml/jax/issues/4564 for more information.")
    return index if isinstance(index, tuple) else (index,)


def _scalar_bools_to_axes(a, index):
    """A scalar boolean is an advanced index into a new axis of size 1: `[0]` if it is True,
    `[]` if it is False (NumPy's rule, JAX's `expand_scalar_bool_indices`)."""
    index = _expand_ellipsis(tuple(_check_index(i) for i in index), get_aval(a).ndim)
    axes, new_index, dim = [], [], 0
    for i in index:
        if _is_scalar_bool(i):
            axes.append(dim)
            new_index.append(np.arange(int(i), dtype=np.int32))
        else:
            new_index.append(i)
        dim += i is not None
    return lax.expand_dims(a, axes), tuple(new_index)


def _rewriting_take(a, index, *, indices_are_sorted=False, unique_indices=False, mode=None,
                    fill_value=None, normalize_indices=True):
    """`a[index]`: a dynamic slice where that is enough, a gather otherwise."""
    a = asarray(a)
    index = tuple(_check_index(i) for i in _as_index_tuple(index))
    if builtins.any(_is_scalar_bool(i) for i in index):
        a, index = _scalar_bools_to_axes(a, index)
    checked = _expand_ellipsis(tuple(_check_index(i) for i in index), a.ndim)
    modes = indexing_ops["GatherScatterMode"]
    if mode is None or modes.from_any(mode) in (modes.PROMISE_IN_BOUNDS, modes.CLIP):
        out = _try_dynamic_slice(a, checked, normalize_indices)
        if out is not None:
            return out
    idx = _index_to_gather(a.shape, index, normalize_indices)
    if builtins.any(s == 0 for s in idx.slice_shape):
        return lax.full(idx.slice_shape, 0, a.dtype)
    y = a
    if get_aval(idx.gather_indices).size:
        y = indexing_ops["gather"](y, idx.gather_indices, idx.dnums, idx.gather_slice_shape,
                       unique_indices=unique_indices or idx.unique_indices,
                       indices_are_sorted=indices_are_sorted or idx.indices_are_sorted,
                       mode=mode, fill_value=fill_value)
    if idx.reversed_y_dims:
        y = lax.rev(y, idx.reversed_y_dims)
    if idx.newaxis_dims:
        y = lax.expand_dims(y, idx.newaxis_dims)
    return y


def _scatter_update(scatter, x, index, y, *, indices_are_sorted=False, unique_indices=False,
                    mode=None, normalize_indices=True):
    x = asarray(x)
    y = asarray(y)
    x_aval = get_aval(x)
    if builtins.any(_is_scalar_bool(_check_index(i)) for i in _as_index_tuple(index)):
        raise TypeError("autodidax does not support a scalar boolean index in x.at[...]")
    idx = _index_to_gather(x_aval.shape, _as_index_tuple(index), normalize_indices)
    if builtins.any(s == 0 for s in idx.slice_shape):
        return x
    if not isinstance(y, Tracer):                     # a constant: convert it on the spot
        y = asarray(np.asarray(y, x_aval.dtype))
    elif get_aval(y).dtype != x_aval.dtype or get_aval(y).weak_type:
        y = lax.convert_element_type(y, x_aval.dtype, weak_type=False)
    y = broadcast_to(y, idx.slice_shape)
    if idx.newaxis_dims:
        y = lax.squeeze(y, idx.newaxis_dims)
    if idx.reversed_y_dims:
        y = lax.rev(y, idx.reversed_y_dims)
    dn = idx.dnums                    # the gather's dimension numbers, renamed for a scatter
    dn = indexing_ops["ScatterDimensionNumbers"](dn.offset_dims, dn.collapsed_slice_dims,
                                     dn.start_index_map, dn.operand_batching_dims,
                                     dn.start_indices_batching_dims)
    out = scatter(x, idx.gather_indices, y, dn,
                  indices_are_sorted=idx.indices_are_sorted or indices_are_sorted,
                  unique_indices=idx.unique_indices or unique_indices, mode=mode)
    if x_aval.weak_type:
        out = lax.convert_element_type(out, x_aval.dtype, weak_type=True)
    return out


class _IndexUpdateRef:
    """`x.at[index]`: the methods that read or update `x` at `index`."""

    def __init__(self, array, index):
        self.array, self.index = array, index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def _scatter(self, scatter, values, *, indices_are_sorted=False, unique_indices=False,
                 mode=None, wrap_negative_indices=True):
        return _scatter_update(scatter, self.array, self.index, values, mode=mode,
                               indices_are_sorted=indices_are_sorted,
                               unique_indices=unique_indices,
                               normalize_indices=wrap_negative_indices)

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None,
            fill_value=None, wrap_negative_indices=True):
        return _rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                               unique_indices=unique_indices, mode=mode, fill_value=fill_value,
                               normalize_indices=wrap_negative_indices)

    def set(self, values, **kw):
        return self._scatter(indexing_ops["scatter"], values, **kw)

    def add(self, values, **kw):
        return self._scatter(indexing_ops["scatter_add"], values, **kw)

    def subtract(self, values, **kw):
        return self._scatter(indexing_ops["scatter_sub"], values, **kw)

    def multiply(self, values, **kw):
        return self._scatter(indexing_ops["scatter_mul"], values, **kw)

    mul = multiply

    def divide(self, values, **kw):
        return self.multiply(true_divide(1, values), **kw)

    def power(self, values, *, wrap_negative_indices=True, **kw):
        """`x ** e`, where `e` is 1 except at the index, where repeated indices multiply."""
        exponents = _scatter_update(indexing_ops["scatter_mul"], ones_like(self.array), self.index,
                                    values, normalize_indices=wrap_negative_indices, **kw)
        return power(self.array, exponents)

    def min(self, values, **kw):
        return self._scatter(indexing_ops["scatter_min"], values, **kw)

    def max(self, values, **kw):
        return self._scatter(indexing_ops["scatter_max"], values, **kw)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices=True):
        """`func` applied to the elements at the index, once per time the index names them."""
        def apply_scatter(x, indices, y, dnums, **kw):
            return indexing_ops["scatter_apply"](x, indices, func, dnums,
                                                 update_shape=get_aval(y).shape, **kw)
        return _scatter_update(apply_scatter, self.array, self.index, 0,
                               indices_are_sorted=indices_are_sorted,
                               unique_indices=unique_indices, mode=mode,
                               normalize_indices=wrap_negative_indices)


class _IndexUpdateHelper:
    """`x.at`: indexing it gives an `_IndexUpdateRef`."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


def take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
         indices_are_sorted=False, fill_value=None):
    """`a` indexed by `indices` along `axis` (flattened if None)."""
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a, indices = asarray(a), asarray(indices)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, a.ndim)
    mode = "fill" if mode is None else mode
    if mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    if mode == "wrap":
        indices, mode = remainder(indices, a.shape[axis]), "promise_in_bounds"
    index = (builtins.slice(None),) * axis + (indices,)
    # as JAX's: "clip" clips negative indices to 0, where the other modes count from the end
    return _rewriting_take(a, index, mode=mode, fill_value=fill_value,
                           unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                           normalize_indices=mode != "clip")


def take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
                    wrap_negative_indices=None):
    """Elements of `arr` picked by `indices` along `axis` (of the flattened `arr` if None);
    the other axes broadcast. Negative indices count from the end unless
    `wrap_negative_indices=False` (the default under `mode="promise_in_bounds"`)."""
    arr, indices = asarray(arr), asarray(indices)
    if dtype_kind(indices.dtype) not in "iu":
        raise TypeError(f"take_along_axis indices must be of integer type, got {indices.dtype}")
    if axis is None:
        if indices.ndim != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape "
                             f"{indices.shape}")
        arr, axis = ravel(arr), 0
    if arr.ndim != indices.ndim:
        raise ValueError("indices and arr must have the same number of dimensions; "
                         f"{indices.ndim} vs. {arr.ndim}")
    axis = _axis(axis, arr.ndim)
    along = list(arr.shape)
    along[axis] = indices.shape[axis]
    shape = np.broadcast_shapes(tuple(along), indices.shape)
    if arr.shape[axis] == 0:
        return lax.full(shape, 0, arr.dtype)
    if mode == "one_hot":
        raise NotImplementedError("take_along_axis(mode='one_hot') is not built in autodidax")
    if wrap_negative_indices is None:
        wrap_negative_indices = mode != "promise_in_bounds"
    index = [broadcast_to(indices, shape) if d == axis
             else lax.broadcasted_iota(np.int32, shape, d) if arr.shape[d] != 1
             else lax.full(shape, 0, np.int32) for d in range(arr.ndim)]
    return _rewriting_take(arr, tuple(index), mode="fill" if mode is None else mode,
                           fill_value=fill_value, normalize_indices=wrap_negative_indices)


def _nonzero_sized(a, size, fill_value):
    """`nonzero(a, size=size)`: the indices of the nonzero elements of `a`, `size` per
    dimension, padded with `fill_value`."""
    a = asarray(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(a)"
                         ".nonzero() instead.")
    mask = ravel(a != 0) if a.dtype != np.bool_ else ravel(a)
    size = operator.index(size)
    fills = fill_value if isinstance(fill_value, tuple) else (fill_value,) * a.ndim
    flat = cumsum(mask.astype(np.int32)) - 1          # the output slot of each element
    slot = where(mask, flat, size)                    # zeros go out of bounds: dropped
    positions = lax.broadcasted_iota(np.int32, (mask.shape[0],), 0)
    found = zeros(size, np.int32).at[slot].set(positions, mode="drop")
    count = sum(mask.astype(np.int32))
    valid = lax.lt(lax.broadcasted_iota(np.int32, (size,), 0), count)
    out = []
    strides = np.cumprod((1,) + a.shape[:0:-1])[::-1]
    coords = [lax.rem(lax.div(found, np.int32(st)), np.int32(n)) if a.ndim > 1 else found
              for st, n in zip(strides, a.shape)]
    for d, coord in enumerate(coords):
        fill = 0 if fills[d] is None else fills[d]
        out.append(where(valid, coord, asarray(fill, np.int32)))
    return tuple(out)


@jit_in_jaxprs("quantile", static_argnums=(2, 3, 4, 5, 6))
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False):
    """The `q`-th quantiles of `a` along `axis`: sort, then interpolate between the two
    neighbouring order statistics (JAX's `_quantile`, without NaN squashing)."""
    if method not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', or "
                         "'nearest'")
    check_arraylike("quantile", a, q)
    if overwrite_input or out is not None:
        raise ValueError("jax.numpy.quantile does not support overwrite_input=True or out != None")
    (a,), q = promote_dtypes(a, inexact=True), asarray(q)     # `q` keeps its type, as in JAX
    if get_aval(q).ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {get_aval(q).shape}")
    ndim = get_aval(a).ndim
    if axis is None:
        a, axis, keep_shape = ravel(a), 0, (1,) * ndim
    else:
        axis, keep_shape = _axis(axis, ndim), None
    a = where(any(isnan(a), axis=axis, keepdims=True), np.nan, a)
    a = indexing_ops["sort"](a, dimension=axis)
    shape, qdtype = get_aval(a).shape, get_aval(q).dtype
    n_1 = lambda: lax.sub(np.asarray(shape[axis], qdtype), np.asarray(1, qdtype))  # as JAX's
    q = lax.mul(q, n_1())
    low, high = lax.floor(q), lax.ceil(q)
    high_weight = lax.sub(q, low)
    low_weight = lax.sub(np.asarray(1, qdtype), high_weight)
    low, high = [lax.clamp(np.asarray(0, qdtype), i, n_1()) for i in (low, high)]
    low, high = [lax.convert_element_type(i, np.int32) for i in (low, high)]
    q_ndim = get_aval(q).ndim
    keep = keepdims and keep_shape is None
    sizes = list(shape)
    sizes[axis] = 1
    dn = indexing_ops["GatherDimensionNumbers"](
        offset_dims=tuple(range(q_ndim, len(shape) + q_ndim - (not keep))),
        collapsed_slice_dims=() if keep else (axis,), start_index_map=(axis,))
    low_value = indexing_ops["gather"](a, lax.expand_dims(low, (q_ndim,)), dn, sizes)
    high_value = indexing_ops["gather"](a, lax.expand_dims(high, (q_ndim,)), dn, sizes)
    if q_ndim == 1:
        low_weight = lax.broadcast_in_dim(low_weight, get_aval(low_value).shape, (0,))
        high_weight = lax.broadcast_in_dim(high_weight, get_aval(high_value).shape, (0,))
    if method == "linear":      # in `q`'s dtype, as JAX's
        result = lax.add(lax.mul(low_value.astype(qdtype), low_weight),
                         lax.mul(high_value.astype(qdtype), high_weight))
    elif method == "lower":
        result = low_value
    elif method == "higher":
        result = high_value
    elif method == "nearest":
        result = lax.select_n(lax.le(high_weight, np.asarray(0.5, qdtype)), high_value, low_value)
    else:
        adtype = get_aval(low_value).dtype
        result = lax.mul(lax.add(low_value, high_value), np.asarray(0.5, adtype))
    if keepdims and keep_shape is not None:
        result = lax.reshape(result, tuple(get_aval(result).shape[:q_ndim]) + keep_shape)
    return result


@jit_in_jaxprs("percentile", static_argnums=(2, 3, 4, 5, 6))
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False):
    """The `q`-th percentiles: `quantile(a, q / 100)`."""
    check_arraylike("percentile", a, q)
    q, = promote_dtypes(q, inexact=True)
    return quantile(a, lax.div(q, np.asarray(100, get_aval(q).dtype)), axis, out,
                    overwrite_input, method, keepdims)


@jit_in_jaxprs("median", static_argnums=(1, 2, 3, 4))
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median: the midpoint of the two middle order statistics."""
    check_arraylike("median", a)
    return quantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)


def _check_sort_arguments(name, a, kind, order):
    """NumPy's `kind` and `order` are refused, with JAX's messages."""
    if kind is not None:
        raise TypeError(f"'kind' argument to {name} is not supported. Use stable=True or "
                        "stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")
    check_arraylike(name, a)


@jit_in_jaxprs("sort", static_argnums=(1, 2, 3))
def _sort(a, axis, stable, descending):
    if axis is None:
        a, axis = ravel(a), 0
    elif not a.ndim:                 # a 0-d array has no axis to sort along, as in JAX
        raise ValueError(f"axis {operator.index(axis)} is out of bounds for array of dimension 0")
    axis = _axis(axis, a.ndim)
    out = indexing_ops["sort"](a, dimension=axis, is_stable=stable)
    return lax.rev(out, (axis,)) if descending else out


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """`a` sorted along `axis` (flattened first if `axis` is None)."""
    _check_sort_arguments("sort", a, kind, order)
    return _sort(asarray(a), axis, bool(stable), bool(descending))


@jit_in_jaxprs("argsort", static_argnums=(1, 2, 3))
def _argsort(a, axis, stable, descending):
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, a.ndim)
    iota = lax.broadcasted_iota(_default("i"), a.shape, axis)
    if descending and stable:        # reversed, so that equal keys keep their order at the end
        a, iota = lax.rev(a, (axis,)), lax.rev(iota, (axis,))
    _, perm = indexing_ops["sort"]((a, iota), dimension=axis, is_stable=stable, num_keys=1)
    return lax.rev(perm, (axis,)) if descending else perm


def argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """The indices that sort `a` along `axis`."""
    _check_sort_arguments("argsort", a, kind, order)
    return _argsort(asarray(a), axis, bool(stable), bool(descending))


def searchsorted(a, v, side="left", sorter=None, *, method="scan"):
    """Where each element of `v` would go in the sorted 1-D `a` to keep it sorted."""
    if side not in ("left", "right"):
        raise ValueError(f"{side!r} is an invalid value for keyword 'side'. Expected one of "
                         "['left', 'right'].")
    check_arraylike("searchsorted", a, v)
    a, v = promote_dtypes(a, v)
    if get_aval(a).ndim != 1:
        raise ValueError("a should be 1-dimensional")
    if sorter is not None:
        a = take(a, sorter)
    v_flat = ravel(v)[:, None]
    before = lax.lt(a[None, :], v_flat) if side == "left" else lax.le(a[None, :], v_flat)
    if dtype_kind(get_aval(a).dtype) == "f":       # NaN sorts last, as in NumPy
        nan_v = lax.ne(v_flat, v_flat)
        if side == "left":
            before = lax.bitwise_or(before, lax.bitwise_and(nan_v, lax.eq(a[None, :], a[None, :])))
        else:
            before = lax.bitwise_or(before, nan_v)
    counts = sum(before.astype(np.int32), axis=1)
    return reshape(counts, get_aval(v).shape)


_ARRAY_ARGUMENTS = {        # function -> the positions of its array arguments (None: all)
    **dict.fromkeys(
        "abs absolute arccos arccosh arcsin arcsinh arctan arctanh atleast_1d atleast_2d "
        "bitwise_not broadcast_to ceil clip cos cosh diag diagonal empty_like exp exp2 "
        "expand_dims expm1 flip floor invert isfinite isinf isnan isneginf isposinf log log10 "
        "log1p log2 logical_not moveaxis negative nonzero ones_like ravel reshape roll sign sin "
        "sinh sqrt square squeeze swapaxes tan tanh tile trace transpose tril triu trunc "
        "zeros_like".split(), (0,)),
    **dict.fromkeys(
        "allclose arctan2 divide dot full_like geomspace isclose kron linspace "
        "logical_and logical_or logical_xor logspace outer percentile repeat take "
        "take_along_axis true_divide vdot".split(), (0, 1)),
    "where": (0, 1, 2), "full": (1,), "meshgrid": None,
}
_JAX_NAMES = {"abs": "absolute", "divide": "true_divide", "empty_like": "ones_like"}


def _checking_arraylike(fun, name, positions):
    """`fun`, checking first that its arguments at `positions`, given by position or by keyword,
    are not lists or tuples."""
    params = list(inspect.signature(fun).parameters)
    keywords = [params[i] if i < len(params) else None for i in positions or ()]

    @functools.wraps(fun)
    def checked(*args, **kwargs):
        # (a hot path: no list or tuple anywhere, the common case, is one quick look)
        if kwargs or builtins.any(isinstance(a, (list, tuple)) for a in args):
            check_arraylike(name, *(args if positions is None else [
                args[i] if i < len(args) else kwargs.get(k) for i, k in zip(positions, keywords)]))
        return fun(*args, **kwargs)
    # named as `fun` in tracebacks and profiles, too, not `checked`
    checked.__code__ = checked.__code__.replace(co_name=fun.__name__, co_qualname=fun.__qualname__)
    return checked


for _name, _positions in _ARRAY_ARGUMENTS.items():
    globals()[_name] = _checking_arraylike(globals()[_name], _JAX_NAMES.get(_name, _name),
                                           _positions)


def check_static_args(fun, static_argnums, static_argnames) -> tuple[tuple, tuple]:
    """`jit`'s `static_argnums` and `static_argnames` as tuples, checked against `fun`."""
    try:
        nums = (operator.index(static_argnums),)
    except TypeError:
        nums = tuple(map(operator.index, static_argnums))
    names = ((static_argnames,) if isinstance(static_argnames, str)
             else tuple(map(_argument_name, static_argnames)))
    try:
        params = inspect.signature(fun).parameters.values()
    except (TypeError, ValueError):            # no signature (some builtins): nothing to check
        return nums, names
    P, kinds = inspect.Parameter, {p.kind for p in params}
    n = builtins.sum(p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD) for p in params)
    if P.VAR_POSITIONAL not in kinds and nums and (-builtins.min(nums) > n
                                                  or builtins.max(nums) >= n):
        raise ValueError(f"Jitted function has static_argnums={nums}, but only accepts {n} "
                         "positional arguments.")
    positional = {p.name for p in params if p.kind in (P.POSITIONAL_ONLY, P.VAR_POSITIONAL)}
    if bad := positional & set(names):
        raise ValueError(f"Jitted function has invalid argnames {bad} in static_argnames. These "
                         "are positional-only")
    keywords = {p.name for p in params if p.kind in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY)}
    if P.VAR_KEYWORD not in kinds and (bad := set(names) - keywords):
        raise ValueError(f"Jitted function has invalid argnames {bad} in static_argnames. "
                         "Function does not take these args.")
    return nums, names


def _argument_name(name):
    if not isinstance(name, str):
        raise TypeError(f"argument is not a string: {name}")
    return name


def jit_argument_overflow(fun, args, kwargs, static_argnames, error):
    """JAX's error for a Python int beyond int32 passed to a jitted function, naming the path of
    the argument (`x`, `y['a']`, `args[0]`); `error` itself if no argument holds one."""
    try:
        bound = inspect.signature(fun).bind(*args, **kwargs).arguments
    except (TypeError, ValueError):
        bound = {"args": args, **kwargs}
    for name, value in bound.items():
        for path, leaf in tree_flatten_with_path(value)[0] if name not in static_argnames else ():
            if type(leaf) is int and not -2**31 <= leaf < 2**31:
                return OverflowError("An overflow was encountered while parsing an argument to a "
                                     f"jitted computation, whose argument path is {name}"
                                     f"{keystr(path)}. Got {type(leaf)} with value {leaf}")
    return error


_RANK_PROMOTION = ["allow"]


def set_rank_promotion(mode: str) -> None:
    """What broadcasting between ranks does: "allow", "warn" or "raise"."""
    _RANK_PROMOTION[0] = mode


def _refuse_rank_promotion(name, shapes):
    """JAX's warning, or error, for broadcasting between ranks (its texts)."""
    said = f"for {name} on shapes {' '.join(map(str, shapes))}"
    see = "see https://docs.jax.dev/en/latest/rank_promotion_warning.html."
    if _RANK_PROMOTION[0] == "warn":
        warnings.warn(f"Following NumPy automatic rank promotion {said}. Set the "
                      "jax_numpy_rank_promotion config option to 'allow' to disable this "
                      f"warning; for more information, {see}", stacklevel=4)
    else:
        raise ValueError(f"Operands could not be broadcast together {said} and with the config "
                         f"option jax_numpy_rank_promotion='raise'. For more information, {see}")


_REDUCTION, _EXTREMUM = ("axis", "dtype", "out", "keepdims"), ("axis", "out", "keepdims")
_JITTED = {
    **dict.fromkeys(
        "sin cos tan exp exp2 log log1p expm1 log2 log10 tanh sinh cosh arcsin arccos arctan "
        "arcsinh arccosh arctanh arctan2 sqrt negative abs absolute sign square floor ceil "
        "isnan isfinite add subtract multiply true_divide divide maximum minimum "
        "greater less greater_equal less_equal equal not_equal logical_and logical_or "
        "logical_xor logical_not bitwise_and bitwise_or bitwise_xor bitwise_not invert "
        "dot matmul outer".split(), ()),
    "sum": _REDUCTION, "prod": _REDUCTION, "mean": _REDUCTION,
    **dict.fromkeys("max min any all argmax argmin".split(), _EXTREMUM),
}
for _name, _static in _JITTED.items():
    globals()[_name] = jitted(*_static, name=_name)(globals()[_name])


def _swap(f):
    return lambda x, y: f(y, x)


def _setitem(x, idx, value):
    if (rules := item_rules.get(type(x.aval))) is not None:
        return rules[1](x, idx, value)
    raise TypeError("JAX arrays are immutable and do not support in-place item assignment. "
                    "Instead of x[idx] = y, use x = x.at[idx].set(y) or another .at[] method: "
                    "https://docs.jax.dev/en/latest/_autosummary/jax.numpy.ndarray.at.html")


_METHODS = {
    "__add__": add, "__radd__": _swap(add), "__sub__": subtract, "__rsub__": _swap(subtract),
    "__mul__": multiply, "__rmul__": _swap(multiply),
    "__truediv__": true_divide, "__rtruediv__": _swap(true_divide),
    "__pow__": power, "__rpow__": _swap(power),
    "__matmul__": matmul, "__rmatmul__": _swap(matmul),
    "__neg__": negative, "__pos__": lambda x: x, "__abs__": abs,
    "__gt__": greater, "__lt__": less, "__ge__": greater_equal, "__le__": less_equal,
    "__eq__": equal, "__ne__": not_equal, "__getitem__": _getitem, "__setitem__": _setitem,
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
    "at": property(_at),
}
wrap_public_functions(globals(), __name__)       # errors show the user's frames only
set_array_methods({name: property(api_boundary(m.fget)) if isinstance(m, property)
                   else api_boundary(m) if callable(m) else m for name, m in _METHODS.items()})

ndarray = Array
pi, e, inf, nan = np.pi, np.e, np.inf, np.nan

def late_attributes(namespace: dict):
    """A table that later chapters fill by name, and a module's `__getattr__` and `__dir__` that
    read it: what Python calls for the names the module itself lacks (PEP 562). A module sets
    `more_functions, __getattr__, __dir__ = late_attributes(globals())`."""
    table, module = {}, namespace["__name__"]

    def __getattr__(name):
        try:
            return table[name]
        except KeyError:
            raise AttributeError(f"module {module!r} has no attribute {name!r}") from None

    def __dir__():
        return sorted({*namespace, *table})
    return table, __getattr__, __dir__


# Hook for appendix A24: the rest of jax.numpy's functions, registered by name.
more_functions, __getattr__, __dir__ = late_attributes(globals())


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
complex64, complex128, uint64 = (_ScalarType(n) for n in ("complex64", "complex128", "uint64"))
single, double, csingle, cdouble = float32, float64, complex64, complex128   # NumPy's aliases
float_, complex_, int_, uint = float64, complex128, int64, uint64     # 64-bit: canonicalized
globals().update({d.name: _ScalarType(d.name) for d in SUPPORTED_DTYPES   # bfloat16, float8_...
                  if d.name not in globals() and d.name != "bool"})
more_functions["bool"] = bool_            # `jnp.bool`, without hiding Python's `bool` in here


uint16 = _ScalarType("uint16")
newaxis = None
dtype = np.dtype
generic, number, inexact, floating = np.generic, np.number, np.inexact, np.floating
integer, signedinteger, unsignedinteger = np.integer, np.signedinteger, np.unsignedinteger
complexfloating = np.complexfloating


def _as_dtype(x):
    """A NumPy dtype from a dtype, a name, a scalar type (ours or NumPy's) or an array."""
    if isinstance(x, _ScalarType) or _is_array(x):
        return x.dtype
    return np.dtype(x)


def _as_type(x):
    """A NumPy scalar type, abstract ones (`floating`) included, from what `_as_dtype` takes."""
    if isinstance(x, type) and issubclass(x, np.generic):
        return x
    return _as_dtype(x).type


_SMALL_TYPES = {d.type: {"f": np.floating, "i": np.signedinteger, "u": np.unsignedinteger}[
    dtype_kind(d)] for d in SUPPORTED_DTYPES if d.type.__module__ == "ml_dtypes"}   # bfloat16...


def issubdtype(arg1, arg2):
    """Whether `arg1` is below `arg2` in NumPy's hierarchy: `issubdtype(float32, floating)`;
    ml_dtypes' types sit under `floating` or `(un)signedinteger`, as in JAX."""
    t1, t2 = _as_type(arg1), _as_type(arg2)
    if t1 in _SMALL_TYPES and t1 is not t2:
        return issubclass(_SMALL_TYPES[t1], t2)
    return np.issubdtype(t1, t2)


_DTYPE_KINDS = {"bool": "b", "signed integer": "i", "unsigned integer": "u", "integral": "iu",
                "real floating": "f", "complex floating": "c", "numeric": "iufc"}


def isdtype(dtype, kind):
    """Whether `dtype` is of `kind`: a name in `_DTYPE_KINDS`, a dtype, or a tuple of them (the
    Array API's function, as JAX's)."""
    d = _as_dtype(dtype)
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _DTYPE_KINDS:
            if dtype_kind(d) in _DTYPE_KINDS[k] and d in _UPPER[False]:
                return True
            continue
        try:
            if d == _as_dtype(k):
                return True
        except TypeError as e:
            if isinstance(k, str):
                raise ValueError(f"Unrecognized kind={k!r} expected one of "
                                 f"{list(_DTYPE_KINDS)}, or a compatible input for jnp.dtype()")
            raise TypeError(f"Expected kind to be a dtype, string, or tuple; got kind={k!r}") from e
    return False


def iinfo(int_type): return ml_dtypes.iinfo(_as_dtype(int_type))
def finfo(dtype): return ml_dtypes.finfo(_as_dtype(dtype))


def can_cast(from_, to, casting="safe"):
    return np.can_cast(_as_dtype(from_), _as_dtype(to), casting)


def promote_types(a, b):
    """The dtype that values of dtypes `a` and `b` are promoted to, on JAX's lattice; Python's
    `int`, `float` and `complex` are the weak types, which promote to their 64-bit dtypes."""
    weak = {"i*": int, "f*": float, "c*": complex}
    t = _join(*(next((k for k, w in weak.items() if x is w), None) or _as_dtype(x) for x in (a, b)),
              x64=_x64())
    return np.dtype(weak.get(t, t))
