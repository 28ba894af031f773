# Generated from chapters/15_callbacks.md by `make export`: edit the chapter, not this file.


"""`jax.debug`: `callback` and `print`, Python side effects at run time, and their effects."""
from __future__ import annotations

import string
import sys

import numpy as np

from autodidax import lax_core as lax
from autodidax.batching import batching_rules
from autodidax.callbacks import on_host, effectful_callback_lowering
from autodidax.core import Primitive, abstract_eval_rules, get_aval, impl_rules
from autodidax.error_texts import callback_error, check_format
from autodidax.jvp import jvp_rules
from autodidax.lowering import lowering_rules, ordered_effect_rules
from autodidax.runtime import evaluated_by_impl
from autodidax.tree_util import tree_flatten, tree_unflatten


class DebugEffect:
    __str__ = __repr__ = lambda self: "Debug"


class OrderedDebugEffect:
    __str__ = __repr__ = lambda self: "OrderedDebug"


debug_effect, ordered_debug_effect = DebugEffect(), OrderedDebugEffect()

debug_callback_p = Primitive("debug_callback")
debug_callback_p.multiple_results = True


def _run_callback(callback, args):
    try:
        callback(*on_host(args))
    except Exception as e:
        raise callback_error(e) from None
    sys.stdout.flush()
    return []


impl_rules[debug_callback_p] = lambda *args, callback, effect, partitioned: _run_callback(
    callback, args)
evaluated_by_impl.add(debug_callback_p)
abstract_eval_rules[debug_callback_p] = lambda *avals, callback, effect, partitioned: []
ordered_effect_rules[debug_callback_p] = lambda *, effect, **_: effect is ordered_debug_effect


def callback_lowering(ctx, args, callback, ordered: bool):
    """Lower a call of `callback` for its side effect, ordered by the module's token or not."""
    def host(*flat_args):
        _run_callback(callback, flat_args)
        return ()
    return effectful_callback_lowering(ctx, host, args, [], ordered)


lowering_rules[debug_callback_p] = lambda ctx, *args, callback, effect, partitioned: \
    callback_lowering(ctx, args, callback, effect is ordered_debug_effect)


def _split_callback_args(args, kwargs):
    flat, in_tree = tree_flatten((args, kwargs))
    static, dynamic = {}, []
    for i, a in enumerate(flat):
        try:
            get_aval(a)
            dynamic.append(a)
        except TypeError:
            static[i] = a
    return in_tree, dynamic, static


def debug_callback(callback=None, *args, ordered=False, partitioned=False, **kwargs):
    """Call `callback(*args, **kwargs)` for its side effect, eagerly or at run time of a
    compiled program. `debug_callback(ordered=True)(callback, *args)` also works."""
    def _debug_callback(callback, *c_args, **c_kwargs):
        if not callable(callback):
            raise TypeError("first argument to jax.debug.callback must be callable, "
                            f"but got an object of type {type(callback)}")
        in_tree, dynamic, static = _split_callback_args(c_args, c_kwargs)

        def _flat_callback(*dynamic_flat):
            it = iter(dynamic_flat)
            flat = [static[i] if i in static else next(it)
                    for i in range(len(static) + len(dynamic_flat))]
            args_, kwargs_ = tree_unflatten(in_tree, flat)
            callback(*args_, **kwargs_)
            return ()

        effect = ordered_debug_effect if ordered else debug_effect
        debug_callback_p.bind(*dynamic, callback=_flat_callback, effect=effect,
                              partitioned=partitioned)

    if callback is not None:
        _debug_callback(callback, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError("debug_callback received unexpected arguments in the two-call form:"
                        f" {args=} {kwargs=}")
    return _debug_callback


debug_print_p = Primitive("debug_print")
debug_print_p.multiple_results = True


def _format_and_print(fmt, np_printoptions, has_placeholders, in_tree, static_args,
                      dynamic):
    static = dict(static_args)
    it = iter(dynamic)
    flat = [static[i] if i in static else next(it) for i in range(len(static) + len(dynamic))]
    args, kwargs = tree_unflatten(in_tree, flat)
    if has_placeholders:
        with np.printoptions(**dict(np_printoptions)):
            msg = fmt.format(*args, **kwargs)
    else:
        msg = " ".join((fmt, *(str(a) for a in args)))
    sys.stdout.write(msg + "\n")


def _print_callback(fmt, np_printoptions, has_placeholders, in_tree, static_args, **_):
    return lambda *dynamic: _format_and_print(fmt, np_printoptions, has_placeholders,
                                              in_tree, static_args, dynamic)


impl_rules[debug_print_p] = lambda *args, **params: _run_callback(
    _print_callback(**params), args)
evaluated_by_impl.add(debug_print_p)
abstract_eval_rules[debug_print_p] = lambda *avals, **params: []
ordered_effect_rules[debug_print_p] = lambda *, ordered, **_: ordered
lowering_rules[debug_print_p] = lambda ctx, *args, **params: callback_lowering(
    ctx, args, _print_callback(**params), params["ordered"])


def debug_print(fmt=None, *args, ordered=False, partitioned=False, skip_format_check=False,
                **kwargs):
    """`print(fmt.format(*args, **kwargs))` with the values of `args`, eagerly or when the
    compiled program runs. `debug_print(ordered=True)(fmt, *args)` also works."""
    def _debug_print(fmt, *c_args, **c_kwargs):
        if not skip_format_check:
            check_format(fmt, *c_args, **c_kwargs)
        has_placeholders = False
        if fmt:
            _, field_name, *_ = next(iter(string.Formatter().parse(fmt)))
            has_placeholders = field_name is not None
        in_tree, dynamic, static = _split_callback_args(c_args, c_kwargs)
        debug_print_p.bind(*dynamic, fmt=fmt, ordered=ordered, partitioned=partitioned,
                           in_tree=in_tree, static_args=tuple(static.items()),
                           np_printoptions=tuple(np.get_printoptions().items()),
                           has_placeholders=has_placeholders, logging_record=None)

    if fmt is not None:
        _debug_print(fmt, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError("debug_print received unexpected arguments in the two-call form:"
                        f" {args=} {kwargs=}")
    return _debug_print


def _debug_jvp(primitive):
    def rule(primals, tangents, **params):
        return primitive.bind(*primals, **params), []
    return rule


def _index_in_dim(x, i, axis):
    start, limit = [0] * x.ndim, list(x.shape)
    start[axis], limit[axis] = i, i + 1
    return lax.squeeze(lax.slice(x, start, limit, [1] * x.ndim), (axis,))


def _debug_batching(primitive):
    def rule(vals, dims, **params):
        size = next(x.shape[d] for x, d in zip(vals, dims) if d is not None)
        for i in range(size):
            primitive.bind(*[x if d is None else _index_in_dim(x, i, d)
                             for x, d in zip(vals, dims)], **params)
        return [], []
    return rule


for _p in (debug_callback_p, debug_print_p):
    jvp_rules[_p] = _debug_jvp(_p)
    batching_rules[_p] = _debug_batching(_p)
