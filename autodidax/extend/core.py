# Generated from chapters/A31_extend.md by `make export`: edit the chapter, not this file.


"""jax.extend.core: the core's classes as JAX's users extend it, over chapter 1's tables and
chapter 5's jaxprs (appendix A31)."""
import numpy as _np

from autodidax import core as _core
from autodidax.core import (Tracer as _Tracer, abstract_eval_rules as _abstract_eval_rules,
                            get_aval as _get_aval, impl_rules as _impl_rules)
from autodidax.core import set_current_trace, take_current_trace  # noqa: F401
from autodidax.autodiff import PartialEvalTrace as _PartialEvalTrace
from autodidax.batching import BatchTrace as _BatchTrace, axis_context as _axis_context
from autodidax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, JaxprTypeError,  # noqa: F401
                             JaxprTrace as _JaxprTrace, Literal, Var, check_jaxpr, jaxpr_as_fun)
from autodidax.jvp import TraceTag, float0 as _float0  # noqa: F401
from autodidax.lax_rest import AbstractToken, Token  # noqa: F401

no_effects = frozenset()


def _eager_arg(x, name):
    """An argument as an impl rule sees it eagerly: a NumPy value in its canonical dtype."""
    if isinstance(x, _Tracer):
        raise _core.escaped_tracer_error(x, f" in {name}")
    _get_aval(x)                                # a TypeError for what is not a JAX value
    if isinstance(x, (_np.ndarray, _np.generic)):
        return _np.asarray(x, _core.canonicalize_dtype(x.dtype))
    return x


class Primitive(_core.Primitive):
    """A primitive of the user's: `def_impl` and `def_abstract_eval` fill chapter 1's tables."""
    call_primitive = map_primitive = False

    def def_impl(self, impl):
        _impl_rules[self] = impl
        return impl

    def def_abstract_eval(self, abstract_eval):
        _abstract_eval_rules[self] = abstract_eval
        return abstract_eval

    def def_effectful_abstract_eval(self, effectful_abstract_eval):
        """A rule that returns (avals, effects): the book's traces keep the avals."""
        _abstract_eval_rules[self] = lambda *avals, **params: effectful_abstract_eval(
            *avals, **params)[0]
        return effectful_abstract_eval

    def impl(self, *args, **params):
        if self not in _impl_rules:
            raise NotImplementedError(f"Evaluation rule for '{self.name}' not implemented")
        return _impl_rules[self](*args, **params)

    def abstract_eval(self, *avals, **params):
        """The output type and the effects (none here), as JAX's returns them."""
        if self not in _abstract_eval_rules:
            raise NotImplementedError(f"Abstract evaluation for '{self.name}' not implemented")
        return _abstract_eval_rules[self](*avals, **params), no_effects

    def bind(self, *args, **params):
        if _core.trace_ctx.trace is _core.eval_trace:      # evaluating: the impl rule, as JAX
            return self.impl(*[_eager_arg(x, self.name) for x in args], **params)
        if self not in _abstract_eval_rules:
            self.abstract_eval()                           # its NotImplementedError
        return super().bind(*args, **params)


def valid_jaxtype(x) -> bool:
    """Whether `x` may be passed to a primitive: an array, a tracer, a NumPy or Python scalar."""
    try:
        _get_aval(x)
    except TypeError:
        return False
    return True


def primal_dtype_to_tangent_dtype(dtype):
    """The dtype of the tangents of values of `dtype`: itself if inexact, float0 otherwise."""
    return dtype if _core.dtype_kind(dtype) in "fc" else _float0


def new_jaxpr_eqn(invars, outvars, primitive, params, effects=no_effects, source_info=None,
                  ctx=None):
    """An equation; the book's equations keep no effects or context."""
    return JaxprEqn(primitive, list(invars), list(outvars), dict(params), source_info)


def mapped_aval(size, axis, aval):
    """The type of one slice of `aval` along `axis` (None: the same type)."""
    if axis is None:
        return aval
    if aval.shape[axis] != size:
        raise ValueError(f"mapped axis of size {aval.shape[axis]}, expected {size}")
    return aval.update(shape=aval.shape[:axis] + aval.shape[axis + 1:])


def unmapped_aval(size, axis, aval, explicit_mesh_axis=None):
    """The type of `size` values of type `aval` stacked at `axis` (None: the same type)."""
    if axis is None:
        return aval
    return aval.update(shape=aval.shape[:axis] + (size,) + aval.shape[axis:])


def jaxprs_in_params(params):
    """The jaxprs a primitive's params hold (a closed one's own jaxpr), as JAX finds them."""
    for value in params.values():
        for v in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(v, ClosedJaxpr):
                yield v.jaxpr
            elif isinstance(v, Jaxpr):
                yield v


def subjaxprs(jaxpr):
    """The jaxprs in the params of `jaxpr`'s equations, one level down."""
    for eqn in jaxpr.eqns:
        yield from jaxprs_in_params(eqn.params)


def find_top_trace(xs):
    """The trace a primitive bound now would go to: the current one."""
    return _core.trace_ctx.trace


class DropVar(Var):
    """A binder whose value nobody reads, printed `_`."""
    __slots__ = ()

    def __repr__(self):
        return "_"


gensym = lambda: Var        # noqa: E731   JAX's: the maker of fresh variables


class InconclusiveDimensionOperation(Exception):
    """JAX's error for symbolic dimensions, which the book does not have: for `except`s."""


class _OpaqueTraceState:
    """The current trace, to compare with a later one: equal only to the same trace's."""

    def __init__(self, trace):
        self._trace = trace

    def __eq__(self, other):
        return isinstance(other, _OpaqueTraceState) and self._trace is other._trace


def get_opaque_trace_state(convention=None):
    return _OpaqueTraceState(_core.trace_ctx.trace)


def _trace_stack():
    trace = _core.trace_ctx.trace
    while trace is not None:
        yield trace
        trace = getattr(trace, "parent_trace", None)


def unsafe_am_i_under_a_jit_DO_NOT_USE() -> bool:
    """Whether a jaxpr is being staged (`jit`, `make_jaxpr`, a loop's body; not `grad`'s
    linear program)."""
    return any(isinstance(t, _JaxprTrace) and not isinstance(t, _PartialEvalTrace)
               for t in _trace_stack())


def unsafe_am_i_under_a_vmap_DO_NOT_USE() -> bool:
    return bool(_axis_context.bound) or any(isinstance(t, _BatchTrace) for t in _trace_stack())


def unsafe_get_axis_names_DO_NOT_USE() -> list:
    """The named axes bound now, outermost first."""
    return [a.name for a in _axis_context.bound if a.name is not None]


def nonempty_axis_env_DO_NOT_USE() -> bool:
    return bool(unsafe_get_axis_names_DO_NOT_USE())


def concrete_or_error(force, val, context=""):
    """`force(val)` of a concrete value; a tracer's value if known, else JAX's error."""
    force = (lambda x: x) if force is None else force
    if isinstance(val, _Tracer):
        value = val.to_concrete_value()
        if value is None:
            raise _core.ConcretizationTypeError(
                f"Abstract tracer value encountered where concrete value is expected: "
                f"{val.aval.str_short()}. {context}")
        return force(value)
    return force(val)
