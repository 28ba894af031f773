# Generated from chapters/05_jaxprs.md by `make export`: edit the chapter, not this file.


"""Jaxprs: the data structures, a type checker, an interpreter, and tracing a Python function
into a jaxpr. They print in JAX's format with `autodidax.pretty_printer` (appendix A4)."""
from __future__ import annotations

import contextvars
import functools
import itertools
import os
import sys
import weakref
from typing import Any, NamedTuple

import numpy as np

from autodidax import lax_core as lax
from autodidax.core import (Array, LiteralArray, Primitive, ShapedArray, Trace, Tracer,
                            abstract_eval_rules, api_boundary, escaped_tracer_error, get_aval,
                            is_literal, set_current_trace)
# The printer (appendix A4), which imports nothing from here. pp_eqn_plain, pp_eqn_rules and
# suggest_same_names are here for the chapters that register printing rules (8 and 13).
from autodidax.pretty_printer import (Names, literal_str, pp_eqn, pp_eqn_plain,  # noqa: F401
                                      pp_eqn_rules, pp_jaxpr, pp_param_rules, suggest_same_names,
                                      var_names)
from autodidax.tree_util import flatten_fun, tree_flatten, tree_unflatten


class Var:
    """A variable of a jaxpr: an aval, and an identity."""
    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):                     # as JAX's: Var(id=140...):float32[3]
        return f"Var(id={id(self)}):{self.aval.str_short(False).lstrip('~')}"


class Literal:
    """A scalar constant written in place in an equation."""
    __slots__ = ("val", "aval", "python")    # `python`: the Python number it was, if any

    def __init__(self, val, aval: ShapedArray, python=None):
        self.val, self.aval, self.python = val, aval, python

    def __repr__(self):
        return f"Literal({self.val if self.python is None else self.python})"    # as JAX's


class SourceInfo(NamedTuple):
    """The user's line of code that bound a primitive: printed `file.py:LINE:COLUMN (function)`
    as JAX prints it. The column is found only when printed, from the code object's positions
    table and the instruction being run (`lasti`), as JAX's `source_info_util` does."""
    filename: str
    lineno: int
    function: str
    code: Any = None
    lasti: int = -1
    context: Any = None     # `eqn_context` when it was bound (JAX's JaxprEqnContext)

    @property
    def column(self) -> int | None:
        if self.code is None or self.lasti < 0:
            return None
        position = next(itertools.islice(self.code.co_positions(), self.lasti // 2, None), None)
        return None if position is None else position[2]

    def __str__(self):
        column = self.column
        where = f"{self.lineno}" if column is None else f"{self.lineno}:{column}"
        return f"{os.path.basename(self.filename)}:{where} ({self.function})"


class JaxprEqn(NamedTuple):
    primitive: Primitive
    invars: list          # Vars and Literals
    outvars: list         # Vars
    params: dict
    source_info: SourceInfo | None

    def __repr__(self):
        return pp_eqn(self, Names()).format()


class Jaxpr:
    """A program: constant variables, input variables, equations, outputs."""
    __slots__ = ("constvars", "invars", "eqns", "outvars")

    def __init__(self, constvars, invars, eqns, outvars):
        self.constvars, self.invars = list(constvars), list(invars)
        self.eqns, self.outvars = list(eqns), list(outvars)

    def __str__(self):
        return pp_jaxpr(self).format()

    __repr__ = __str__

    def pretty_print(self, *, use_color: bool = False) -> str:
        return pp_jaxpr(self).format(use_color=use_color)

    def _repr_pretty_(self, p, cycle):     # what a notebook shows: in colour, as JAX's
        p.text(self.pretty_print(use_color=True))


class ClosedJaxpr:
    """A jaxpr with the values of its constants: what `make_jaxpr` returns."""
    __slots__ = ("jaxpr", "consts", "__weakref__")   # weakref_lru_cache (below) needs it

    def __init__(self, jaxpr: Jaxpr, consts):
        self.jaxpr, self.consts = jaxpr, list(consts)

    eqns = property(lambda self: self.jaxpr.eqns)
    literals = property(lambda self: self.consts)   # JAX's other name for them (appendix A31)
    in_avals = property(lambda self: [v.aval for v in self.jaxpr.invars])
    out_avals = property(lambda self: [v.aval for v in self.jaxpr.outvars])

    __str__ = __repr__ = lambda self: str(self.jaxpr)  # noqa: E731

    def pretty_print(self, *, use_color: bool = False) -> str:
        return self.jaxpr.pretty_print(use_color=use_color)

    def _repr_pretty_(self, p, cycle):
        self.jaxpr._repr_pretty_(p, cycle)


class JaxprTracer(Tracer):
    """Stands for a variable of the jaxpr being built."""
    __slots__ = ("_var",)

    def __init__(self, trace: JaxprTrace, var: Var):
        self._trace, self._var = trace, var

    @property
    def aval(self):
        return self._var.aval

    def __repr__(self):
        return f"JitTracer({self.aval.str_short(short_dtypes=False)})"    # JAX's name for it

    def origin(self):
        """The user's line whose equation made this tracer, if it was made by one."""
        for eqn in self._trace.eqns:
            if self._var in eqn.outvars and eqn.source_info is not None:
                return f"on line {eqn.source_info}"
        return None


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) if "__file__" in globals() else "<notebook>"


def user_source_info(depth: int = 2) -> SourceInfo | None:
    """The innermost caller outside the autodidax package."""
    frame = sys._getframe(depth)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    if frame is None:
        return None
    code = frame.f_code
    return _source_info(code.co_filename, frame.f_lineno, code.co_qualname, code, frame.f_lasti,
                        eqn_context.get())


# One `SourceInfo` per place in the code (and context), shared by the equations a loop makes. (The
# file and function names are part of the key: code objects compare equal without them.)
_source_info = functools.lru_cache(maxsize=4096)(SourceInfo)
eqn_context = contextvars.ContextVar("eqn_context", default=None)   # appendix A32 sets it


custom_staging_rules: dict = {}   # primitive -> rule(trace, args, params): stages it itself


class JaxprTrace(Trace):
    """Records the primitives applied to its tracers as the equations of a jaxpr
    (JAX's DynamicJaxprTrace)."""

    def __init__(self):
        self.eqns = []
        self.constvars = {}     # id(value) -> (Var, value): each constant once

    def new_arg(self, aval: ShapedArray) -> JaxprTracer:
        return JaxprTracer(self, Var(aval))

    def to_atom(self, x):
        """The jaxpr input for an argument: its variable, a literal or a constant variable."""
        if type(x) is JaxprTracer and x._trace is self:
            return x._var
        if isinstance(x, Tracer) and not x._trace.is_valid():
            raise escaped_tracer_error(x, f" while tracing with {self!r}")
        aval = get_aval(x)
        if not aval.shape and is_literal(x):
            python = x if type(x) in (bool, int, float, complex) else getattr(x, "python", None)
            return Literal(np.asarray(x, aval.dtype), aval, python)
        var_and_value = self.constvars.get(id(x))
        if var_and_value is None:
            var_and_value = self.constvars[id(x)] = (Var(aval), x)
        return var_and_value[0]

    def process_primitive(self, primitive, args, params):
        rule = custom_staging_rules.get(primitive)
        if rule is not None:
            return rule(self, args, params)
        return self.default_process_primitive(primitive, args, params)

    def default_process_primitive(self, primitive, args, params):
        invars = [self.to_atom(x) for x in args]
        out_avals = abstract_eval_rules[primitive](*[v.aval for v in invars], **params)
        if primitive.multiple_results:
            outvars = [Var(a) for a in out_avals]
        else:
            outvars = [Var(out_avals)]
        self.eqns.append(JaxprEqn(primitive, invars, outvars, params, user_source_info()))
        outs = [JaxprTracer(self, v) for v in outvars]
        return outs if primitive.multiple_results else outs[0]

    def to_jaxpr(self, in_tracers, out_values) -> ClosedJaxpr:
        outvars = [self.to_atom(x) for x in out_values]
        constvars, consts = zip(*self.constvars.values()) if self.constvars else ((), ())
        jaxpr = Jaxpr(constvars, [t._var for t in in_tracers], self.eqns, outvars)
        return ClosedJaxpr(jaxpr, consts)


def _fold_conversion(trace, args, params):
    x, = args
    if isinstance(x, Tracer) or not is_literal(x) or np.shape(x):
        return trace.default_process_primitive(lax.convert_element_type_p, args, params)
    value = np.asarray(x)
    value = value.real if value.dtype.kind == "c" and params["new_dtype"].kind != "c" else value
    return LiteralArray(value.astype(params["new_dtype"]), weak_type=params["weak_type"])


custom_staging_rules[lax.convert_element_type_p] = _fold_conversion


def trace_to_jaxpr(flat_fun, in_avals) -> ClosedJaxpr:
    """Trace `flat_fun(*tracers) -> list of outputs` to a closed jaxpr."""
    trace = JaxprTrace()
    in_tracers = [trace.new_arg(aval) for aval in in_avals]
    try:
        with set_current_trace(trace):
            outs = flat_fun(*in_tracers)
        return trace.to_jaxpr(in_tracers, outs)
    finally:
        trace.invalidate()          # its tracers mean nothing once the jaxpr is made


def make_jaxpr(fun, static_argnums=()):
    """`make_jaxpr(f)(*args)` is the jaxpr of `f` at the types of `args`, as JAX's."""
    if not callable(fun):
        raise TypeError(f"make_jaxpr: the first argument must be callable, got {fun!r}")
    static_argnums = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)

    def make(*args):
        static = {i % len(args) for i in static_argnums}
        dynamic = [a for i, a in enumerate(args) if i not in static]

        def with_static(*dyn):
            it = iter(dyn)
            return fun(*[args[i] if i in static else next(it) for i in range(len(args))])

        flat_args, in_tree = tree_flatten(tuple(dynamic))
        flat_fun, out_tree = flatten_fun(with_static, in_tree)
        return trace_to_jaxpr(flat_fun, [get_aval(x) for x in flat_args])
    make.__name__ = f"make_jaxpr({getattr(fun, '__name__', 'fun')})"
    return api_boundary(make)


class JaxprTypeError(TypeError):
    """A jaxpr is not well typed."""


@api_boundary
def check_jaxpr(jaxpr: Jaxpr) -> None:
    """Raise JaxprTypeError, naming the equation and the user's line, if `jaxpr` is ill-typed."""
    names = var_names(jaxpr)               # name the variables in printing order
    defined = set()

    def define(v, where):
        if not isinstance(v, Var):
            raise JaxprTypeError(f"{where}: binds {v!r}, which is not a variable")
        if v in defined:
            raise JaxprTypeError(f"{where}: variable {names[v]} is defined twice")
        defined.add(v)

    def read(v, where):
        if isinstance(v, Literal):
            if np.shape(v.val) != v.aval.shape or np.asarray(v.val).dtype != v.aval.dtype:
                raise JaxprTypeError(f"{where}: literal {v.val!r} does not have its type "
                                     f"{v.aval.str_short()}")
        elif v not in defined:
            raise JaxprTypeError(f"{where}: reads variable {names[v]} before it is defined")
        return v.aval

    for v in jaxpr.constvars + jaxpr.invars:
        define(v, "the jaxpr's inputs")
    for i, eqn in enumerate(jaxpr.eqns):
        where = f"equation {i}, `{pp_eqn(eqn, names).format()}`"
        if eqn.source_info is not None:
            where += f" (from {eqn.source_info})"
        in_avals = [read(v, where) for v in eqn.invars]
        rule = abstract_eval_rules.get(eqn.primitive)
        if rule is None:
            raise JaxprTypeError(f"{where}: {eqn.primitive} has no abstract evaluation rule")
        try:
            out = rule(*in_avals, **eqn.params)
        except (TypeError, ValueError) as e:
            raise JaxprTypeError(f"{where}: {e}") from None
        outs = out if eqn.primitive.multiple_results else [out]
        if len(outs) != len(eqn.outvars):
            raise JaxprTypeError(f"{where}: {eqn.primitive} gives {len(outs)} outputs, "
                                 f"the equation binds {len(eqn.outvars)}")
        for v, aval in zip(eqn.outvars, outs):
            if (v.aval.shape, v.aval.dtype) != (aval.shape, aval.dtype):
                types = ", ".join(a.str_short() for a in in_avals)
                raise JaxprTypeError(f"{where}: expected output type {aval.str_short()} "
                                     f"({eqn.primitive} of {types}), found "
                                     f"{names[v]}:{v.aval.str_short()}")
            define(v, where)
    for v in jaxpr.outvars:
        read(v, "the jaxpr's outputs")


@api_boundary
def eval_jaxpr(jaxpr: Jaxpr, consts, *args):
    """Run `jaxpr` on `consts` and `args` by binding its primitives; returns the list of outputs."""
    if len(args) != len(jaxpr.invars) or len(consts) != len(jaxpr.constvars):
        raise TypeError(f"the jaxpr takes {len(jaxpr.constvars)} constants and "
                        f"{len(jaxpr.invars)} arguments, got {len(consts)} and {len(args)}")
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))

    def read(v):
        if type(v) is Literal:      # a weakly typed literal stays weak, as it was when traced
            return LiteralArray(v.val, weak_type=True) if v.aval.weak_type else v.val
        return env[v]

    for eqn in jaxpr.eqns:
        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else (outs,)))
    return [read(v) for v in jaxpr.outvars]


def jaxpr_as_fun(closed: ClosedJaxpr):
    """The closed jaxpr as a Python function of its arguments."""
    return lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, *args)


def weakref_lru_cache(fn):
    """Memoize `fn(closed_jaxpr, *args)`: weakly on the jaxpr, by value on the rest."""
    cache = weakref.WeakKeyDictionary()
    _weakref_caches.append(cache)

    @functools.wraps(fn)
    def cached(closed, *args):
        entries = cache.get(closed)
        if entries is None:
            entries = cache[closed] = {}
        result = entries.get(args, _MISSING)
        if result is _MISSING:
            result = entries[args] = fn(closed, *args)
        return result
    return cached


_MISSING = object()
_weakref_caches: list = []      # the table of every weakref_lru_cache


def clear_weakref_caches() -> None:
    """Forget everything every `weakref_lru_cache` has memoized."""
    for cache in _weakref_caches:
        cache.clear()
