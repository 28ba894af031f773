# Generated from chapters/01_primitives.md by `make export`: edit the chapter, not this file.


"""The core: abstract values, primitives and `bind`, traces and tracers, eager evaluation."""
from __future__ import annotations

import ml_dtypes
import numpy as np

_SMALL = {**{n: "f" for n in ("bfloat16", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn",
                              "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
                              "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
                              "float8_e8m0fnu")},
          **{n: n[0] for n in ("int1", "int2", "int4", "uint1", "uint2", "uint4")}}
_KINDS = {np.dtype(getattr(ml_dtypes, name)): kind for name, kind in _SMALL.items()}
SUPPORTED_DTYPES = {*_KINDS, *map(np.dtype, (
    "bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float16", "float32",
    "complex64"))}
_WIDE = {np.dtype(f"{k}64"): np.dtype(f"{k}32") for k in ("float", "int", "uint")}
_WIDE[np.dtype("complex128")] = np.dtype("complex64")
_CANONICAL: dict = {}   # a 64-bit type -> the one it becomes (set_x64); empty in 64-bit mode


def dtype_kind(dtype: np.dtype) -> str:
    """NumPy's kind letter, `b`, `i`, `u`, `f` or `c`, for ml_dtypes' types too."""
    return _KINDS.get(dtype) or dtype.kind


def short_dtype_name(dtype: np.dtype) -> str:
    """How jaxprs write a dtype: `f32`, `bf16`, `c64`, `f8_e4m3fn`, `u8`, chapter 3's `float0`."""
    return "float0" if dtype.names == ("float0",) else (dtype.name.replace("float", "f")
            .replace("uint", "u").replace("int", "i").replace("complex", "c"))


def canonicalize_dtype(dtype) -> np.dtype:
    """The dtype JAX uses for `dtype` (`float64` is `float32` unless 64-bit mode is on); a
    TypeError for one we lack."""
    if not isinstance(dtype, np.dtype):
        dtype = np.dtype(dtype)
    dtype = _CANONICAL.get(dtype, dtype)
    if dtype not in SUPPORTED_DTYPES and dtype.names != ("float0",):     # float0: chapter 3
        names = ", ".join(sorted(d.name for d in SUPPORTED_DTYPES))
        raise TypeError(f"autodidax does not support dtype {dtype.name}; it supports {names}")
    return dtype


class ShapedArray:
    """The type of an array: its shape and dtype, and whether the dtype is weak."""
    __slots__ = ("shape", "dtype", "weak_type", "_hash")

    def __init__(self, shape, dtype, weak_type=False):
        self.shape = tuple(shape)
        self.dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        self.weak_type = weak_type
        self._hash = None       # made on first use (appendix A6, "How fast?")

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape)))

    def str_short(self, short_dtypes: bool = True) -> str:
        """`f32[2,3]`; with `short_dtypes=False`, as tracers and `str` print it: `float32[2,3]`,
        and `~float32[]` when weakly typed."""
        if short_dtypes:
            return f"{short_dtype_name(self.dtype)}[{','.join(map(str, self.shape))}]"
        return f"{'~' if self.weak_type else ''}{self.dtype.name}[{','.join(map(str, self.shape))}]"

    def update(self, shape=None, dtype=None, weak_type=None) -> ShapedArray:
        return ShapedArray(self.shape if shape is None else shape,
                           self.dtype if dtype is None else dtype,
                           self.weak_type if weak_type is None else weak_type)

    def __eq__(self, other):
        return (type(other) is ShapedArray and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        h = self._hash
        if h is None:
            h = self._hash = hash((self.shape, self.dtype, self.weak_type))
        return h

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.dtype.name}[{','.join(map(str, self.shape))}]{weak})"

    __str__ = lambda self: self.str_short(short_dtypes=False)   # noqa: E731  (JAX's str)


impl_rules: dict = {}           # primitive -> function on NumPy arrays
abstract_eval_rules: dict = {}  # primitive -> function on avals, giving the output aval(s)


class Primitive:
    """An operation the system knows about. Its meanings live in the rule tables."""
    multiple_results = False

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return self.name

    def bind(self, *args, **params):
        # The current trace handles the primitive with evaluation current, so that a rule that
        # binds primitives without saying where cannot loop back into the trace running it.
        trace = trace_ctx.trace
        if trace is eval_trace:            # evaluating already: nothing to switch
            return trace.process_primitive(self, args, params)
        trace_ctx.trace = eval_trace
        try:
            return trace.process_primitive(self, args, params)
        finally:
            trace_ctx.trace = trace


class TraceContext:
    """The current trace: which interpreter `bind` hands primitives to."""
    __slots__ = ("trace",)


trace_ctx = TraceContext()


class set_current_trace:
    """`with set_current_trace(t):` makes `t` the current trace inside the block."""
    __slots__ = ("trace", "prev")

    def __init__(self, trace):
        self.trace = trace

    def __enter__(self):
        self.prev = trace_ctx.trace
        trace_ctx.trace = self.trace
        return self.trace

    def __exit__(self, *exc):
        trace_ctx.trace = self.prev


class take_current_trace:
    """`with take_current_trace() as t:` takes the current trace, leaving evaluation current."""
    __slots__ = ("prev",)

    def __enter__(self):
        self.prev = trace_ctx.trace
        trace_ctx.trace = eval_trace
        return self.prev

    def __exit__(self, *exc):
        trace_ctx.trace = self.prev


class Trace:
    """An interpreter: gives primitives a meaning through `process_primitive`."""
    _invalidated = False

    def process_primitive(self, primitive, args, params):
        raise NotImplementedError(f"{type(self).__name__} must define process_primitive")

    def invalidate(self) -> None:
        """The transformation that made this trace has returned: its tracers are dead."""
        self._invalidated = True

    def is_valid(self) -> bool:
        return not self._invalidated

    def __repr__(self):         # errors name the trace; a trace may say more about itself
        return type(self).__name__


class ConcretizationTypeError(TypeError):
    """A tracer's value was needed (by `bool`, `int`, `float`, ...) but is not known."""


class TracerBoolConversionError(ConcretizationTypeError):
    """`bool()` of a tracer whose value is not known: `if x > 0:` under `jit`."""


class TracerIntegerConversionError(TypeError):
    """A tracer whose value is not known was used as a Python int: `range(x)`, `lst[x]`."""


class TracerArrayConversionError(TypeError):
    """A tracer was converted to a NumPy array."""


class UnexpectedTracerError(TypeError):
    """A tracer was used after the transformation that made it had finished."""


class NonConcreteBooleanIndexError(IndexError):
    """A boolean mask whose values are not known was used as an index (chapter 11)."""


def escaped_tracer_error(tracer, what: str = "") -> UnexpectedTracerError:
    """The error for `tracer`, met where it cannot belong: its trace ended, or is not running."""
    origin = tracer.origin()
    return UnexpectedTracerError(
        f"Encountered an unexpected tracer{what}: a value of type {tracer.aval.str_short()} "
        f"wrapped in a {type(tracer).__name__} of {tracer._trace!r}"
        + (f", created {origin}" if origin else "") + ", escaped the transformation that made "
        "it. A transformed function must return the values it computes; this one was saved "
        "(in a global, a list, an attribute) and used after the transformation had finished.")


def _concretization_error(tracer, conversion: str, error=ConcretizationTypeError):
    return error(
        f"{conversion} needs a concrete value, but this is an abstract tracer "
        f"({tracer.aval.str_short()}) of {tracer._trace!r}: while a function is "
        "traced, its arguments' values are not known, only their shapes and dtypes. "
        "Python control flow such as `if x > 0:` cannot depend on them. Mark the argument "
        "static (jit's static_argnums), or use structured control flow such as lax.cond.")


def _float_error(tracer):
    # JAX refuses float() of every tracer, even one whose value is known (under jvp or
    # grad): a float taken out of a differentiated value would silently lose its tangent.
    return ConcretizationTypeError(
        f"float() of a traced {tracer.aval.str_short()} value: the value of a tracer cannot "
        f"be taken out as a Python float ({tracer._trace!r}). Keep it an array; use "
        "x.astype(...) to change its dtype.")


def _array_conversion_error(tracer):
    return TracerArrayConversionError(
        f"a tracer ({tracer.aval.str_short()}) was converted to a NumPy array. NumPy functions "
        "cannot see inside a traced function: use autodidax.numpy instead of numpy on traced "
        "values.")


class Tracer:
    """A value being interpreted by a trace. Subclasses hold what their trace needs."""
    __slots__ = ("_trace",)
    __array_priority__ = 1000   # NumPy defers to our operators: np_array * tracer -> tracer

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError(f"{type(self).__name__} must define aval")

    def to_concrete_value(self):
        """The NumPy value this tracer stands for, if known; None otherwise."""
        return None

    def origin(self) -> str | None:
        """Where the user's code made this tracer, for error messages; None if unknown."""
        return None

    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: self.aval.ndim)
    size = property(lambda self: self.aval.size)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object: a 0-d tracer has no length")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self)))

    def _concrete(self, conversion: str, error=ConcretizationTypeError):
        value = self.to_concrete_value()
        if value is None:
            raise _concretization_error(self, conversion, error)
        return value

    def __bool__(self):
        return bool(self._concrete(f"bool() of a {self.aval.str_short()} value",
                                   TracerBoolConversionError))

    def __int__(self):
        return int(self._concrete(f"int() of a {self.aval.str_short()} value"))

    def __float__(self):      # refused even when the value is known, as in JAX
        raise _float_error(self)

    def __index__(self):
        return int(self._concrete(f"using a {self.aval.str_short()} value as a Python int "
                                  "(an index, a range)", TracerIntegerConversionError))

    def __array__(self, dtype=None, copy=None):
        raise _array_conversion_error(self)

    def __hash__(self):
        raise TypeError(f"unhashable type: a tracer ({self.aval.str_short()}); arrays are not "
                        "hashable, and a static argument must not be an array")

    def __repr__(self):       # each kind of tracer may say more; JAX's print as `JitTracer(f32[])`
        return f"{type(self).__name__}({self.aval.str_short(short_dtypes=False)})"


import abc


class Array(metaclass=abc.ABCMeta):
    """A concrete array: a read-only NumPy array and a weak-type flag; tracers are instances."""
    __slots__ = ("_value", "weak_type", "_aval")
    __array_priority__ = 100

    def __init__(self, value, weak_type=False):
        if type(value) is not np.ndarray:
            value = np.asarray(value)
        value.setflags(False)       # write=False, the fast way (appendix A6)
        self._value = value
        self.weak_type = weak_type
        self._aval = None

    @property
    def aval(self) -> ShapedArray:
        aval = self._aval
        if aval is None:
            value = self._value
            aval = self._aval = ShapedArray(value.shape, value.dtype, self.weak_type)
        return aval

    shape = property(lambda self: self._value.shape)
    dtype = property(lambda self: self._value.dtype)
    ndim = property(lambda self: self._value.ndim)
    size = property(lambda self: self._value.size)

    def __array__(self, dtype=None, copy=None):
        if copy:
            return np.array(self._value, dtype=dtype)
        return self._value if dtype is None else self._value.astype(dtype)

    def block_until_ready(self): return self

    # Where an array lives: chapter 7's runtime says, in `array_placement_rules`.
    device = property(lambda self: _placement_rule("device")(self))
    sharding = property(lambda self: _placement_rule("sharding")(self))

    def devices(self): return {self.device}
    def item(self): return self._value.item()
    def tolist(self): return self._value.tolist()
    def __bool__(self): return bool(self._value)
    def __int__(self): return int(self._value)
    def __float__(self): return float(self._value)
    def __complex__(self): return complex(self._value)
    def __index__(self): return self._value.__index__()
    def __len__(self): return len(self._value)
    def __str__(self): return str(self._value)

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self)))

    def __hash__(self):
        raise TypeError("unhashable type: 'Array'")

    def __format__(self, spec):   # as in JAX: a 0-d x as a Python float, 0.10000000149011612
        value = self._value
        return format(value.item() if value.ndim == 0 else value, spec)

    def __repr__(self):
        return _array_repr(self)


def _array_repr(x: Array) -> str:
    prefix = "Array("
    suffix = f"dtype={x.dtype.name}" + (", weak_type=True" if x.weak_type else "") + ")"
    if x.size == 0:
        suffix = f"shape={x.shape}, {suffix}"
    width = np.get_printoptions()["linewidth"]
    body = np.array2string(x._value, prefix=prefix, suffix=",", separator=", ",
                           max_line_width=width)
    last_line = len(body) - body.rfind("\n") + 1
    sep = " " * len(prefix) if last_line + len(suffix) + 1 > width else " "
    return f"{prefix}{body},{sep}{suffix}"


def set_array_methods(methods: dict) -> None:
    """Give arrays and tracers the operators, methods and properties of `methods`, by name
    (`"__add__"`, `"sum"`, `"T"`). The front end, `autodidax.numpy`, calls it once."""
    for cls in (Array, Tracer):
        for name, method in methods.items():
            setattr(cls, name, method)


Array.register(Tracer)       # isinstance(tracer, Array) holds, as for jax.Array

_PYTHON_SCALARS = {bool: np.dtype("bool"), int: np.dtype("int64"), float: np.dtype("float64"),
                   complex: np.dtype("complex128")}    # canonicalized: int32, float32, complex64
_SCALAR_AVALS: dict = {}  # a Python scalar's type -> its aval (shared: avals never change)
_INT_MAX = 2**31          # a Python int must fit in int32 (int64 in 64-bit mode)
aval_rules: dict = {}     # type -> rule(x) -> ShapedArray: chapter 15's ShapeDtypeStruct, A1's int


def set_x64(enabled: bool) -> None:
    """JAX's 64-bit mode (chapter 7's `jax_enable_x64`, appendix A1): 64-bit types stay 64-bit,
    and Python scalars become `int64`, `float64` and `complex128`."""
    global _INT_MAX
    _INT_MAX = 2**63 if enabled else 2**31
    _CANONICAL.clear()
    _CANONICAL.update({} if enabled else _WIDE)
    SUPPORTED_DTYPES.difference_update(_WIDE)
    SUPPORTED_DTYPES.update(_WIDE if enabled else ())
    _SCALAR_AVALS.update({t: ShapedArray((), canonicalize_dtype(d), weak_type=t is not bool)
                          for t, d in _PYTHON_SCALARS.items()})


set_x64(False)


def get_aval(x) -> ShapedArray:
    """The abstract value of anything that may be passed to a primitive."""
    if type(x) is np.ndarray:        # first: `isinstance(x, Array)` is slow when it is False
        return ShapedArray(x.shape, canonicalize_dtype(x.dtype))
    if isinstance(x, (Tracer, Array)):
        return x.aval
    if type(x) in _SCALAR_AVALS and (type(x) is not int or -_INT_MAX <= x < _INT_MAX):
        return _SCALAR_AVALS[type(x)]  # an int out of range goes on
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(x.shape, canonicalize_dtype(x.dtype))
    rule = aval_rules.get(type(x))     # types of later chapters that stand for arrays
    if rule is not None:
        return rule(x)
    raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX type: "
                    "pass arrays, NumPy arrays or Python scalars")


class LiteralArray(Array):
    """A scalar that autodidax made from a Python number: a weakly typed `2.0` next to a float32
    array, the `1.0` that starts a gradient. Traced, it is written in place as a literal."""
    __slots__ = ("python",)   # the Python number it was made from, which jaxprs print (A1, A4)


def is_literal(x) -> bool:
    """Whether a trace recording a jaxpr writes `x` in place as a literal: a Python or NumPy scalar,
    a 0-d NumPy array, a LiteralArray. Other arrays become constant inputs, as `jax.Array`s do."""
    return (type(x) in _PYTHON_SCALARS or isinstance(x, (np.generic, LiteralArray))
            or (type(x) is np.ndarray and x.ndim == 0))


def to_numpy(x) -> np.ndarray:
    """The NumPy value of a concrete input (never a tracer), in its canonical dtype."""
    if type(x) is np.ndarray and x.dtype in SUPPORTED_DTYPES:
        return x                                  # canonical already
    if isinstance(x, Array):
        return x._value
    value = np.asarray(x)
    dtype = get_aval(x).dtype
    return value if value.dtype == dtype else value.astype(dtype)


try:
    from numpy._core._ufunc_config import _extobj_contextvar as _numpy_errors
    with np.errstate(all="ignore"):
        _QUIET = _numpy_errors.get()
except (ImportError, AttributeError):      # another NumPy: the public, slower way
    _numpy_errors = None


def run_quietly(impl, args, params):
    """`impl(*args, **params)` with NumPy's floating-point warnings off, as XLA computes."""
    if _numpy_errors is None:
        with np.errstate(all="ignore"):
            return impl(*args, **params)
    token = _numpy_errors.set(_QUIET)
    try:
        return impl(*args, **params)
    finally:
        _numpy_errors.reset(token)


class EvalTrace(Trace):
    """Evaluates primitives on concrete values with their NumPy implementations."""

    def process_primitive(self, primitive, args, params):
        avals, values = [], []
        for x in args:
            if type(x) is Array:            # the common case: get_aval and to_numpy inlined
                avals.append(x.aval)
                values.append(x._value)
                continue
            if isinstance(x, Tracer):
                raise escaped_tracer_error(x, f" in {primitive}")
            avals.append(get_aval(x))
            values.append(to_numpy(x))
        out_avals = abstract_eval_rules[primitive](*avals, **params)
        if _numpy_errors is None:
            out = run_quietly(impl_rules[primitive], values, params)
        else:                       # run_quietly, inlined
            token = _numpy_errors.set(_QUIET)
            try:
                out = impl_rules[primitive](*values, **params)
            finally:
                _numpy_errors.reset(token)
        if primitive.multiple_results:
            return list(map(_result, out, out_avals))
        return _result(out, out_avals)


def _result(value, aval) -> Array:
    """An `Array` of `value`, keeping `aval`, the abstract rule's answer, if that is its type."""
    out = Array(value, aval.weak_type)
    value = out._value
    if value.dtype is aval.dtype and value.shape == aval.shape:
        out._aval = aval
    return out


eval_trace = EvalTrace()
trace_ctx.trace = eval_trace


def set_eval_trace(trace: Trace) -> Trace:
    """Make `trace` the evaluation trace, the one that runs primitives when nothing is being
    traced, and return the previous one. Chapter 7 installs its XLA evaluator here; no other
    module assigns `core.eval_trace`."""
    global eval_trace
    previous = eval_trace
    if trace_ctx.trace is previous:
        trace_ctx.trace = trace
    eval_trace = trace
    return previous


array_placement_rules: dict = {}   # "device" -> function(array): chapter 7; "sharding": 16


def _placement_rule(name):
    rule = array_placement_rules.get(name)
    if rule is None:
        raise AttributeError(f"an array's {name} is known once a later chapter registers it "
                             "(device: chapter 7's runtime; sharding: chapter 16's)")
    return rule


import builtins
import functools
import os
import types

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) if "__file__" in globals() else None
_NOTE = ("--------------------\nFor simplicity, JAX has removed its internal frames from the "
         "traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.")


def filter_traceback(tb):
    """`tb` without the frames of the autodidax package."""
    kept = []
    while tb is not None:
        if _PACKAGE_DIR is None or not tb.tb_frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            kept.append(tb)
        tb = tb.tb_next
    filtered = None
    for t in reversed(kept):
        filtered = types.TracebackType(filtered, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return filtered


def api_boundary(fun):
    """`fun`, raising its errors with autodidax's own frames removed from their tracebacks."""
    @functools.wraps(fun)
    def api_function(*args, **kwargs):
        try:
            return fun(*args, **kwargs)
        except Exception as e:
            if os.environ.get("JAX_TRACEBACK_FILTERING") == "off":      # as JAX's
                raise
            if not hasattr(builtins, "get_ipython") and _NOTE not in getattr(e, "__notes__", ()):
                e.add_note(_NOTE)           # as JAX says it, outside IPython
            e.with_traceback(filter_traceback(e.__traceback__))
            raise                           # (bare: no frame of ours added)
    return api_function


def wrap_public_functions(namespace: dict, module_name: str) -> None:
    """Make every public function defined in a module an API boundary."""
    for name, value in list(namespace.items()):
        if (isinstance(value, types.FunctionType) and not name.startswith("_")
                and value.__module__ == module_name):
            namespace[name] = api_boundary(value)
