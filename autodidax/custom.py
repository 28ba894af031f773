# Generated from chapters/13_custom.md by `make export`: edit the chapter, not this file.


"""`custom_jvp` and `custom_vjp`: final-style primitives that carry the user's function and the
rules for its derivative."""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from autodidax import core, lax_core as lax
from autodidax.jvp import stop_gradient
from autodidax.autodiff import backward_pass, partial_eval_rules, transpose_rules
from autodidax.batching import (batch, batching_rules, bdim_at_front, fancy_batching_rules,
                                 moveaxis, not_mapped)
from autodidax.custom_checks import (CustomVJPPrimal, SymbolicZero, check_for_tracers,
                                     check_fwd_pair, check_primal_out, checked_cotangents,
                                     checked_jvp_output, custom_jvp_call_pp, custom_lin_error,
                                     custom_lin_pp, custom_vjp_call_pp, fun_name,
                                     resolve_call_kwargs, split_custom_args,
                                     custom_vjp_primal_tree_values)  # noqa: F401  (public)
from autodidax.core import (Primitive, ShapedArray, Tracer, abstract_eval_rules, api_boundary,
                            get_aval, impl_rules, trace_ctx)
from autodidax.jaxpr import (custom_staging_rules, eval_jaxpr, pp_eqn_rules,
                             trace_to_jaxpr)
from autodidax.jit import hoist_tracer_consts
from autodidax.jvp import (Zero, add_any, instantiate_zeros, jvp_rules, tangent_aval,
                           zeros_like_aval)
from autodidax.lowering import ir_constant, jaxpr_subcomp, lowering_rules
from autodidax.runtime import evaluated_by_impl
from autodidax.tree_util import Store, tree_flatten, tree_map, tree_unflatten


class CustomJVPCallPrimitive(Primitive):
    """`custom_jvp_call`: its params hold Python functions, `fun` and its JVP rule `jvp`."""
    multiple_results = True

    def bind(self, *args, **params):
        if "call_jaxpr" in params:          # an equation of a jaxpr: back to functions
            params = self.get_bind_params(params)
        if trace_ctx.trace is core.eval_trace:   # nothing is traced: run the function
            return params["fun"](*args)
        return super().bind(*args, **params)

    @staticmethod
    def get_bind_params(params):
        call_jaxpr, jvp, n = params["call_jaxpr"], params["jvp_jaxpr_fun"], params["num_consts"]

        def fun(*args):
            return eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *args)

        def jvp_without_consts(*args):      # the rule knows nothing of the hoisted constants
            half = len(args) // 2
            return jvp(*args[n:half], *args[half + n:])

        fun.__name__, jvp_without_consts.__name__ = params["name"], fun_name(jvp)
        return dict(fun=fun, jvp=jvp_without_consts, symbolic_zeros=params["symbolic_zeros"])


custom_jvp_call_p = CustomJVPCallPrimitive("custom_jvp_call")
abstract_eval_rules[custom_jvp_call_p] = lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals


def zero_from_primal(x, symbolic_zeros: bool = False):
    """Zero tangents for the pytree `x`: SymbolicZeros, or arrays of zeros."""
    def zero(leaf):
        aval = tangent_aval(get_aval(leaf))
        return SymbolicZero(aval) if symbolic_zeros else zeros_like_aval(aval)
    return tree_map(zero, x)


def _custom_jvp_call_jvp(primals, tangents, *, fun, jvp, symbolic_zeros):
    if symbolic_zeros:
        tangents = [SymbolicZero(t.aval) if type(t) is Zero else t for t in tangents]
    else:
        tangents = [instantiate_zeros(t) for t in tangents]
    outs = jvp(*primals, *tangents)
    half = len(outs) // 2
    tangents_out = [Zero(t.aval) if type(t) is SymbolicZero else t for t in outs[half:]]
    return outs[:half], tangents_out


jvp_rules[custom_jvp_call_p] = _custom_jvp_call_jvp


def _flatten_fun_with_avals(fun, in_tree, name):
    """`fun` on flat arguments; its store holds (output structure, output avals) once it ran."""
    out = Store(f"the output of {name}")

    def flat_fun(*args):
        leaves, tree = tree_flatten(fun(*tree_unflatten(in_tree, args)))
        out.store((tree, [get_aval(x) for x in leaves]))
        return leaves
    flat_fun.__name__ = name
    return flat_fun, out


def _flatten_jvp(jvp, static, primal_name, in_tree, fun_out):
    """The user's `jvp` on flat primals then tangents; returns flat primal then tangent outputs."""
    jvp_name = fun_name(jvp)
    jvp_out = Store(f"the output of {jvp_name}")

    def flat_jvp(*args):
        half = len(args) // 2
        primals = tree_unflatten(in_tree, args[:half])
        tangents = tree_unflatten(in_tree, args[half:])
        pair = jvp(*static, tuple(primals), tuple(tangents))
        primals_out, tangents_out, out_tree = checked_jvp_output(pair, jvp_name, primal_name,
                                                                  fun_out)
        jvp_out.store((out_tree, [get_aval(p) for p in primals_out]))
        return [*primals_out, *tangents_out]

    flat_jvp.__name__ = jvp_name
    return flat_jvp, jvp_out


def _stop_gradient(x):
    return tree_map(lambda leaf: stop_gradient(leaf) if isinstance(leaf, Tracer) else leaf, x)


class custom_jvp:
    """A function with a JVP rule of the user's: `f = custom_jvp(fun)`, then `f.defjvp(rule)`."""

    def __init__(self, fun: Callable, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun, self.nondiff_argnums = fun, tuple(sorted(nondiff_argnums))
        self.jvp, self.symbolic_zeros = None, False

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        """Set the rule `jvp(primals, tangents) -> (primal_out, tangent_out)`."""
        self.jvp, self.symbolic_zeros = jvp, symbolic_zeros
        return jvp

    def defjvps(self, *jvps) -> None:
        """One rule per argument: `jvps[i](t_i, primal_out, *primals)` is argument i's term."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals, tangents):
            primal_out = self(*primals)
            zeros = zero_from_primal(primal_out)
            terms = [rule(t, primal_out, *primals) if rule else zeros
                     for t, rule in zip(tangents, jvps)]
            return primal_out, tree_map(lambda *ts: functools.reduce(add_any, ts), *terms)
        self.defjvp(jvp)

    def __get__(self, obj, objtype=None):    # as a method: bound to its object
        return self if obj is None else functools.partial(self, obj)

    @api_boundary
    def __call__(self, *args, **kwargs):
        primal_name = fun_name(self.fun)
        if not self.jvp:
            raise AttributeError(f"No JVP defined for custom_jvp function {primal_name} "
                                 "using defjvp.")
        args = resolve_call_kwargs("custom_jvp", self.fun, args, kwargs)
        nondiff = self.nondiff_argnums
        if nondiff:
            args = [_stop_gradient(a) if i in nondiff else a for i, a in enumerate(args)]
        static, dynamic, merge = split_custom_args(args, nondiff)
        args_flat, in_tree = tree_flatten(tuple(dynamic))
        flat_fun, fun_out = _flatten_fun_with_avals(
            lambda *dyn: self.fun(*merge(dyn)), in_tree, primal_name)
        flat_jvp, jvp_out = _flatten_jvp(self.jvp, static, primal_name, in_tree, fun_out)
        out_flat = custom_jvp_call_p.bind(*args_flat, fun=flat_fun, jvp=flat_jvp,
                                          symbolic_zeros=self.symbolic_zeros)
        out_tree = (fun_out if fun_out.filled() else jvp_out)()[0]
        return tree_unflatten(out_tree, out_flat)


def _moved_to_front(outs, dims, size):
    return [SymbolicZero(o.aval.update(shape=(size, *o.aval.shape)))
            if type(o) is SymbolicZero else bdim_at_front(o, d, size)
            for o, d in zip(outs, dims)]


def _batched(f, size, dims):
    """`f`, batched along `dims`, with every output batched along its first axis."""
    def batched(*args):
        outs, out_dims = batch(f, size, dims, args)
        return _moved_to_front(outs, out_dims, size)
    batched.__name__ = fun_name(f)
    return batched


def _unbatched(aval, d):
    return aval if d is not_mapped else aval.update(shape=aval.shape[:d] + aval.shape[d + 1:])


def _custom_jvp_call_batching(axis_data, vals, dims, *, fun, jvp, symbolic_zeros):
    if all(d is not_mapped for d in dims):
        outs = custom_jvp_call_p.bind(*vals, fun=fun, jvp=jvp, symbolic_zeros=symbolic_zeros)
        return outs, [not_mapped] * len(outs)
    size = axis_data.size

    def batched_jvp(*args):      # a tangent is batched as its primal is; a SymbolicZero is not
        half = len(args) // 2
        tdims = [not_mapped if type(t) is SymbolicZero else d for t, d in zip(args[half:], dims)]
        tangents = [SymbolicZero(_unbatched(t.aval, d)) if type(t) is SymbolicZero else t
                    for t, d in zip(args[half:], dims)]
        return _batched(jvp, size, [*dims, *tdims])(*args[:half], *tangents)

    batched_jvp.__name__ = fun_name(jvp)
    outs = custom_jvp_call_p.bind(*vals, fun=_batched(fun, size, dims), jvp=batched_jvp,
                                  symbolic_zeros=symbolic_zeros)
    return outs, [0] * len(outs)


fancy_batching_rules[custom_jvp_call_p] = _custom_jvp_call_batching


def _custom_jvp_call_staging(trace, args, params):
    fun, jvp = params["fun"], params["jvp"]
    call_jaxpr, consts = hoist_tracer_consts(trace_to_jaxpr(fun, [get_aval(x) for x in args]))
    staged = dict(call_jaxpr=call_jaxpr, jvp_jaxpr_fun=jvp, num_consts=len(consts),
                  symbolic_zeros=params["symbolic_zeros"], name=fun_name(fun))
    return trace.default_process_primitive(custom_jvp_call_p, [*consts, *args], staged)


custom_staging_rules[custom_jvp_call_p] = _custom_jvp_call_staging
pp_eqn_rules[custom_jvp_call_p] = custom_jvp_call_pp     # printed as JAX prints it (app. A13)


def _call_lowering(ctx, *args, call_jaxpr, **_):
    jaxpr = call_jaxpr.jaxpr
    consts = [ir_constant(np.asarray(c), v.aval.dtype)
              for c, v in zip(call_jaxpr.consts, jaxpr.constvars)]
    return jaxpr_subcomp(ctx.module_context, jaxpr, consts, list(args))


lowering_rules[custom_jvp_call_p] = _call_lowering


def _custom_call_partial_eval(trace, args, params):
    return params["fun"](*args)


partial_eval_rules[custom_jvp_call_p] = _custom_call_partial_eval
transpose_rules[custom_jvp_call_p] = lambda cts, *args, call_jaxpr, **_: backward_pass(
    call_jaxpr.jaxpr, call_jaxpr.consts, list(args), cts)


class CustomVJPCallPrimitive(CustomJVPCallPrimitive):
    """`custom_vjp_call`: its params hold `fun`, its forward pass `fwd` and backward pass `bwd`."""

    @staticmethod
    def get_bind_params(params):
        call_jaxpr, n = params["call_jaxpr"], params["num_consts"]
        fwd, bwd = params["fwd_jaxpr_thunk"], params["bwd"]

        def fun(*args):
            return eval_jaxpr(call_jaxpr.jaxpr, call_jaxpr.consts, *args)

        def fwd_without_consts(*args):      # the constants are the tracers `fun` closed over,
            return fwd(*args[2 * n:])       # and the user's `fwd` closes over them too

        def bwd_without_consts(*args):
            return [None] * n + list(bwd(*args))

        fun.__name__ = params["name"]
        fwd_without_consts.__name__, bwd_without_consts.__name__ = fun_name(fwd), fun_name(bwd)
        return dict(fun=fun, fwd=fwd_without_consts, bwd=bwd_without_consts,
                    out_trees=params["out_trees"], symbolic_zeros=params["symbolic_zeros"])


custom_vjp_call_p = CustomVJPCallPrimitive("custom_vjp_call")
abstract_eval_rules[custom_vjp_call_p] = lambda *avals, call_jaxpr, **_: call_jaxpr.out_avals
lowering_rules[custom_vjp_call_p] = _call_lowering
partial_eval_rules[custom_vjp_call_p] = _custom_call_partial_eval


custom_lin_p = Primitive("custom_lin")
custom_lin_p.multiple_results = True
impl_rules[custom_lin_p] = custom_lin_error
evaluated_by_impl.add(custom_lin_p)
jvp_rules[custom_lin_p] = custom_lin_error
batching_rules[custom_lin_p] = custom_lin_error     # jacfwd is vmap of jvp
lowering_rules[custom_lin_p] = custom_lin_error
abstract_eval_rules[custom_lin_p] = lambda *avals, out_avals, **_: list(out_avals)
pp_eqn_rules[custom_lin_p] = custom_lin_pp


def _custom_vjp_call_jvp(primals, tangents, *, fun, fwd, bwd, out_trees, symbolic_zeros):
    outs = fwd(*[x for p, t in zip(primals, tangents) for x in (p, type(t) is not Zero)])
    n_res = out_trees()[1].num_leaves
    res, primals_out = outs[:n_res], outs[n_res:]
    in_zeros = [type(t) is Zero for t in tangents]
    out_avals = tuple(tangent_aval(get_aval(p)) for p in primals_out)
    tangents_out = custom_lin_p.bind(*res, *[t for t in tangents if type(t) is not Zero],
                                     num_res=n_res, bwd=bwd, out_avals=out_avals,
                                     in_zeros=in_zeros, symbolic_zeros=symbolic_zeros)
    return primals_out, tangents_out


jvp_rules[custom_vjp_call_p] = _custom_vjp_call_jvp


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals, in_zeros, symbolic_zeros):
    if symbolic_zeros:
        cts = [SymbolicZero(ct.aval) if type(ct) is Zero else ct for ct in cts]
    else:
        cts = [instantiate_zeros(ct) for ct in cts]
    cts_in = bwd(*args[:num_res], *cts)
    return [None] * num_res + [ct for ct, z in zip(cts_in, in_zeros) if not z]


transpose_rules[custom_lin_p] = _custom_lin_transpose


def _flatten_fwd(fwd, merge, primal_name, in_tree, fun_out, symbolic_zeros):
    """The user's `fwd` on flat (input, perturbed) pairs, returning flat residuals then outputs."""
    fwd_name = fun_name(fwd)
    out_trees = Store(f"the output of {fwd_name}")

    def flat_fwd(*args):
        if symbolic_zeros:
            args = [CustomVJPPrimal(x, z) for x, z in zip(args[::2], args[1::2])]
        else:
            args = args[::2]
        pair = fwd(*merge(tree_unflatten(in_tree, args)))
        check_fwd_pair(pair, fwd_name, primal_name)
        primals_out, out_tree = tree_flatten(pair[0])
        res, res_tree = tree_flatten(pair[1])
        check_primal_out(fwd_name, "VJP fwd", primal_name, out_tree, primals_out, fun_out)
        out_trees.store((out_tree, res_tree))
        return [*res, *primals_out]

    flat_fwd.__name__ = fwd_name
    return flat_fwd, out_trees


def _flatten_bwd(bwd, static, in_tree, in_avals, out_trees):
    """The user's `bwd` on flat residuals and cotangents: one flat cotangent (or None) per input."""
    def flat_bwd(*args):
        out_tree, res_tree = out_trees()
        n_res = res_tree.num_leaves
        res = tree_unflatten(res_tree, args[:n_res])
        cts_in = bwd(*static, res, tree_unflatten(out_tree, args[n_res:]))
        if isinstance(cts_in, list) and len(cts_in) == len(in_tree.children()):
            cts_in = tuple(cts_in)
        return checked_cotangents(cts_in, in_tree, in_avals)

    flat_bwd.__name__ = fun_name(bwd)
    return flat_bwd


class custom_vjp:
    """A function with a VJP rule of the user's: `f = custom_vjp(fun)`, `f.defvjp(fwd, bwd)`."""

    def __init__(self, fun: Callable, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun, self.nondiff_argnums = fun, tuple(sorted(nondiff_argnums))
        self.fwd, self.bwd, self.symbolic_zeros = None, None, False

    def defvjp(self, fwd: Callable, bwd: Callable, symbolic_zeros: bool = False,
               optimize_remat: bool = False) -> None:
        """`fwd(*args) -> (out, residuals)`; `bwd(residuals, ct_out) -> (ct_arg, ...)`."""
        if optimize_remat:
            raise NotImplementedError("autodidax's custom_vjp has no optimize_remat")
        self.fwd, self.bwd, self.symbolic_zeros = fwd, bwd, symbolic_zeros

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    @api_boundary
    def __call__(self, *args, **kwargs):
        primal_name = fun_name(self.fun)
        if not self.fwd or not self.bwd:
            raise AttributeError(f"No VJP defined for custom_vjp function {primal_name} "
                                 "using defvjp.")
        args = resolve_call_kwargs("custom_vjp", self.fun, args, kwargs)
        for i in self.nondiff_argnums:
            check_for_tracers(args[i])
        static, dynamic, merge = split_custom_args(args, self.nondiff_argnums)
        args_flat, in_tree = tree_flatten(tuple(dynamic))
        flat_fun, fun_out = _flatten_fun_with_avals(
            lambda *dyn: self.fun(*merge(dyn)), in_tree, primal_name)
        flat_fwd, out_trees = _flatten_fwd(self.fwd, merge, primal_name, in_tree, fun_out,
                                           self.symbolic_zeros)
        flat_bwd = _flatten_bwd(self.bwd, static, in_tree, [get_aval(x) for x in args_flat],
                                out_trees)
        out_flat = custom_vjp_call_p.bind(*args_flat, fun=flat_fun, fwd=flat_fwd, bwd=flat_bwd,
                                          out_trees=out_trees, symbolic_zeros=self.symbolic_zeros)
        out_tree = (fun_out if fun_out.filled() else out_trees)()[0]
        return tree_unflatten(out_tree, out_flat)


def _custom_vjp_call_staging(trace, args, params):
    fun = params["fun"]
    call_jaxpr, consts = hoist_tracer_consts(trace_to_jaxpr(fun, [get_aval(x) for x in args]))
    staged = dict(call_jaxpr=call_jaxpr, fwd_jaxpr_thunk=params["fwd"], num_consts=len(consts),
                  bwd=params["bwd"], out_trees=params["out_trees"],
                  symbolic_zeros=params["symbolic_zeros"], name=fun_name(fun))
    return trace.default_process_primitive(custom_vjp_call_p, [*consts, *args], staged)


custom_staging_rules[custom_vjp_call_p] = _custom_vjp_call_staging
pp_eqn_rules[custom_vjp_call_p] = custom_vjp_call_pp


def _ct_like(ct, d, want, size):
    """The cotangent `ct`, batched along `d`, for an argument batched along `want`."""
    if ct is None or type(ct) is Zero:
        return None
    if want is not_mapped:
        return ct if d is not_mapped else lax.reduce_sum(ct, [d])
    return moveaxis(bdim_at_front(ct, d, size), 0, want)


def _custom_vjp_call_batching(axis_data, vals, dims, *, fun, fwd, bwd, out_trees,
                              symbolic_zeros):
    params = dict(out_trees=out_trees, symbolic_zeros=symbolic_zeros)
    if all(d is not_mapped for d in dims):
        outs = custom_vjp_call_p.bind(*vals, fun=fun, fwd=fwd, bwd=bwd, **params)
        return outs, [not_mapped] * len(outs)
    size, res_dims = axis_data.size, []

    def batched_fwd(*args):    # residuals keep their batch dims; outputs are batched first
        outs, out_dims = batch(fwd, size, [x for d in dims for x in (d, not_mapped)], args)
        n_res = out_trees()[1].num_leaves
        res_dims[:] = out_dims[:n_res]
        return outs[:n_res] + _moved_to_front(outs[n_res:], out_dims[n_res:], size)

    def batched_bwd(*args):    # a cotangent is batched as its argument is, or summed
        res, cts = args[:len(res_dims)], args[len(res_dims):]
        ct_dims = [not_mapped if type(ct) is SymbolicZero else 0 for ct in cts]
        cts = [SymbolicZero(_unbatched(ct.aval, 0)) if type(ct) is SymbolicZero else ct
               for ct in cts]
        cts, ct_dims = batch(bwd, size, [*res_dims, *ct_dims], [*res, *cts])
        return [_ct_like(ct, d, want, size) for ct, d, want in zip(cts, ct_dims, dims)]

    batched_fwd.__name__, batched_bwd.__name__ = fun_name(fwd), fun_name(bwd)
    outs = custom_vjp_call_p.bind(*vals, fun=_batched(fun, size, dims), fwd=batched_fwd,
                                  bwd=batched_bwd, **params)
    return outs, [0] * len(outs)


fancy_batching_rules[custom_vjp_call_p] = _custom_vjp_call_batching
