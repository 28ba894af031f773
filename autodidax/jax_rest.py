# Generated from chapters/A25_jax_rest.md by `make export`: edit the chapter, not this file.


"""The rest of jax's top level (appendix A25): `eval_shape`, `typeof`, `named_call`,
`named_scope`, `ensure_compile_time_eval`, `custom_gradient`, the process functions and
`enable_x64`, each written as JAX 0.10.2 writes it."""
from __future__ import annotations

import contextlib
import functools
import warnings

from autodidax import core
from autodidax.callbacks import ShapeDtypeStruct
from autodidax.control_flow import trace_to_jaxpr_with_consts
from autodidax.core import Trace, Tracer, get_aval, set_current_trace
from autodidax.custom import custom_vjp
from autodidax.jaxpr import eval_jaxpr
from autodidax.jit import jit
from autodidax.jvp import tangent_aval
from autodidax.runtime import config, process_count, process_index
from autodidax.tree_util import register_pytree_node, tree_flatten, tree_structure, tree_unflatten


def eval_shape(fun, *args, **kwargs):
    """The output types of `fun(*args, **kwargs)`, as `ShapeDtypeStruct`s in the output's
    structure, from a trace: no number is computed (JAX's `jit(fun).trace(...).out_info`)."""
    traced = jit(fun).trace(*args, **kwargs)
    out = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
           for a in traced.jaxpr.out_avals]
    return tree_unflatten(traced.out_tree, out)


def typeof(x):
    """The JAX type of `x`: its abstract value (a `TypeError` for what is not a JAX value)."""
    return get_aval(x)


class named_scope:
    """`with named_scope("layer"):`, or `@named_scope("layer")`: a name for the operations
    traced inside, which JAX keeps in its name stack (ours has none: see the differences)."""

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise TypeError("named_scope name argument must be a string.")
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fun):
        @functools.wraps(fun)
        def named(*args, **kwargs):
            with self:
                return fun(*args, **kwargs)
        return named


def named_call(fun, *, name: str | None = None):
    """`fun`, each of its calls traced under the name `name` (default: `fun.__name__`)."""
    return named_scope(fun.__name__ if name is None else name)(fun)


class _CompileTimeEval(Trace):
    """Evaluation now for known values; the trace the block began in for the rest."""

    def __init__(self, outer: Trace):
        self.outer = outer

    def process_primitive(self, primitive, args, params):
        known = not any(isinstance(x, Tracer) for x in args)
        with set_current_trace(core.eval_trace if known else self.outer):
            return primitive.bind(*args, **params)


@contextlib.contextmanager
def ensure_compile_time_eval():
    """`with ensure_compile_time_eval():` runs the operations on known values inside now, even
    under `jit` (JAX's turns on `config.eager_constant_folding`)."""
    with set_current_trace(_CompileTimeEval(core.trace_ctx.trace)):
        yield


class _Residuals:
    """What custom_gradient's forward rule saves: the VJP function as a jaxpr, its input and
    output trees, and its constants, the pytree's leaves (JAX's `Residuals`)."""

    def __init__(self, jaxpr, in_tree, out_tree, consts):
        self.jaxpr, self.in_tree, self.out_tree, self.consts = jaxpr, in_tree, out_tree, consts


register_pytree_node(_Residuals, lambda r: (r.consts, (r.jaxpr, r.in_tree, r.out_tree)),
                     lambda aux, consts: _Residuals(*aux, list(consts)))


def custom_gradient(fun):
    """Turn `fun(*args) -> (out, vjp)` into a function that returns `out` and whose VJP is `vjp`
    (JAX's `custom_gradient`, on `custom_vjp`)."""
    @custom_vjp
    def wrapped(*args, **kwargs):
        return fun(*args, **kwargs)[0]

    def fwd(*args, **kwargs):
        ans, rule = fun(*args, **kwargs)
        in_tree = tree_structure((ans,))
        avals = [tangent_aval(get_aval(x)) for x in tree_flatten(ans)[0]]
        jaxpr, consts, out_tree = trace_to_jaxpr_with_consts(rule, in_tree, avals)
        return ans, _Residuals(jaxpr, in_tree, out_tree, consts)

    def bwd(res, ct):
        cts = eval_jaxpr(res.jaxpr.jaxpr, [], *res.consts, *tree_flatten((ct,))[0])
        cts = tree_unflatten(res.out_tree, cts)
        return (cts,) if res.out_tree == tree_structure(0) else cts     # one leaf: a tuple

    wrapped.defvjp(fwd, bwd)
    return wrapped


def process_indices(backend=None) -> list[int]:
    """The indices of every process: `[0, ..., process_count() - 1]`."""
    return list(range(process_count(backend)))


def host_count(backend=None) -> int:
    warnings.warn("jax.process_count has been renamed to jax.process_count. This alias will "
                  "eventually be removed; please update your code.")
    return process_count(backend)


def host_id(backend=None) -> int:
    warnings.warn("jax.process_index has been renamed to jax.process_index. This alias will "
                  "eventually be removed; please update your code.")
    return process_index(backend)


def host_ids(backend=None) -> list[int]:
    warnings.warn("jax.process_indexs has been renamed to jax.process_indices. This alias will "
                  "eventually be removed; please update your code.")
    return process_indices(backend)


_NO_VALUE = object()


class State:
    """A config option as JAX's `State`: `.value` reads it; `state(value)` sets it for a block
    (`with`) or a function (as a decorator)."""

    def __init__(self, name: str):
        self._name, self.__name__ = name, name.removeprefix("jax_")

    name = property(lambda self: self._name)
    value = property(lambda self: getattr(config, self._name))

    def __bool__(self):
        raise TypeError("bool() not supported for instances of type 'State' (did you mean to use "
                        "'State.value' instead?)")

    def __call__(self, new_val=_NO_VALUE):
        if new_val is _NO_VALUE:
            raise TypeError(f"Context manager for {self.__name__} config option requires an "
                            "argument representing the new value for the config option.")
        return _Setting(self._name, new_val)


class _Setting(contextlib.ContextDecorator):
    """The option `name` set to `value` inside the block, and set back after it."""

    def __init__(self, name, value):
        self.name, self.value, self.previous = name, value, []

    def __enter__(self):
        self.previous.append(getattr(config, self.name))
        config.update(self.name, self.value)

    def __exit__(self, *exc):
        config.update(self.name, self.previous.pop())


enable_x64 = State("jax_enable_x64")
