# Generated from chapters/A20_bit_primitives.md by `make export`: edit the chapter, not this file.


"""`checkpoint`'s checks of its arguments and the names of a function's arguments, as JAX's
(appendix A20, for chapter 14)."""
from __future__ import annotations

import inspect
import os

from autodidax.jaxpr import JaxprTrace
from autodidax.tree_util import keystr, tree_flatten_with_path


class CheckpointTrace(JaxprTrace):
    """The trace that records a checkpointed function: it names the function in errors."""

    def __init__(self, fun):
        super().__init__()
        code = getattr(fun, "__code__", None)
        where = f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}" if code else "?"
        self.where = where
        self.fun_name = getattr(fun, "__name__", type(fun).__name__)

    def __repr__(self):
        return f"checkpoint({self.fun_name}) at {self.where}"


STATIC_HINT = (
    "\n\nConsider using the `static_argnums` parameter for `jax.remat` or `jax.checkpoint`. "
    "See the `jax.checkpoint` docstring and its example involving `static_argnums`:\n"
    "https://docs.jax.dev/en/latest/_autosummary/jax.checkpoint.html\n")


def with_static_hint(e) -> None:
    """Add JAX's hint to `e`, a ConcretizationTypeError raised in a checkpointed function."""
    if e.args and isinstance(e.args[0], str) and STATIC_HINT not in e.args[0]:
        e.args = (e.args[0] + STATIC_HINT,) + e.args[1:]


def check_prevent_cse(prevent_cse) -> None:
    if isinstance(prevent_cse, (list, tuple)):
        raise NotImplementedError("prevent_cse as a tuple of bools (one per argument) is not "
                                  "supported by autodidax; pass True or False")
    if not isinstance(prevent_cse, bool):
        raise TypeError("prevent_cse must be a bool or tuple of bools, got "
                        f"{type(prevent_cse)=}")


def close_over_static_args(fun, static_argnums, args):
    """(`fun` with the static arguments closed over, the dynamic arguments)."""
    if not (type(static_argnums) is tuple and all(type(d) is int for d in static_argnums)):
        raise TypeError("the `static_argnums` argument to `jax.checkpoint` / `jax.remat` must "
                        f"be an int, tuple of ints or, bool, but got value {static_argnums}")
    if not all(-len(args) <= d < len(args) for d in static_argnums):
        raise ValueError("the `static_argnums` argument to `jax.checkpoint` / `jax.remat` can "
                         "only take integer values greater than or equal to `-len(args)` and "
                         f"less than `len(args)`, but got {static_argnums}, while `len(args)` "
                         f"= {len(args)}")
    if not static_argnums:
        return fun, args
    static = {d % len(args) for d in static_argnums}

    def fun_(*dynamic, **kwargs):
        it = iter(dynamic)
        return fun(*[args[i] if i in static else next(it) for i in range(len(args))], **kwargs)
    return fun_, tuple(a for i, a in enumerate(args) if i not in static)


def arg_names(f, args, kwargs, n) -> list:
    """A name per flat argument, as JAX's debug info gives them: `x`, `params['w']`..."""
    try:
        bound = inspect.signature(f).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return [f"at flattened index {i}" for i in range(n)]
    names = []
    for name, value in bound.arguments.items():       # `*args` comes bound as a tuple
        paths, _ = tree_flatten_with_path(value)
        names += [name + keystr(path) for path, _ in paths]
    return names if len(names) == n else [f"at flattened index {i}" for i in range(n)]
