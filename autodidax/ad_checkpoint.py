# Generated from chapters/14_checkpoint.md by `make export`: edit the chapter, not this file.


"""`checkpoint` (alias `remat`): recompute in the backward pass what the forward pass does not
save, with policies that choose what to save; `checkpoint_name` and `print_saved_residuals`."""
from __future__ import annotations

import dataclasses
import functools
import types

import numpy as np
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax.autodiff import (inner_jaxprs, backward_pass, call_dce_rule, dce_jaxpr,
                                dce_rules, eval_jaxpr_recorded, has_effects, is_linear,
                                linearize_flat, partial_eval_jaxpr, partial_eval_rules,
                                transpose_rules)
from autodidax.batching import batch, batching_rules, fancy_batching_rules, moveaxis
from autodidax.bit_primitives import reduce_precision_p   # appendix A20's
from autodidax.checkpoint_checks import (CheckpointTrace, arg_names,  # appendix A20's
                                         check_prevent_cse, close_over_static_args,
                                         with_static_hint)
from autodidax.core import (ConcretizationTypeError, EvalTrace, Primitive, abstract_eval_rules,
                            api_boundary, dtype_kind, get_aval, impl_rules, set_current_trace,
                            trace_ctx)
from autodidax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, JaxprTrace, JaxprTracer, Var,
                             eval_jaxpr)
from autodidax.jvp import Zero, check_callable, jvp_flat, jvp_rules, tangent_aval
from autodidax.lowering import jaxpr_subcomp, lowering_rules
from autodidax.runtime import evaluated_by_impl
from autodidax.tree_util import flatten_fun, tree_flatten, tree_map, tree_unflatten


def saved_residuals(f, *args, **kwargs) -> list:
    """The residuals reverse mode saves for `f` at `args`: a list of (aval, where it came from)."""
    check_callable(f)
    flat, in_tree = tree_flatten((args, kwargs))
    names = arg_names(f, args, kwargs, len(flat))

    def flat_f(*xs):
        a, k = tree_unflatten(in_tree, list(xs))
        return tree_flatten(f(*a, **k))[0]

    trace = JaxprTrace()
    tracers = [trace.new_arg(get_aval(x)) for x in flat]
    try:
        with set_current_trace(trace):
            _, linear = linearize_flat(flat_f, tracers)
    finally:
        trace.invalidate()
    invars = {t._var: i for i, t in enumerate(tracers)}
    producers = {v: eqn for eqn in trace.eqns for v in eqn.outvars}
    order = {v: i for i, eqn in enumerate(trace.eqns) for v in eqn.outvars}
    consts, args_, eqns, seen = [], [], [], set()
    for c in linear.consts:
        if not (type(c) is JaxprTracer and c._trace is trace):
            consts.append((get_aval(c), "from a constant"))
            continue
        v = c._var
        eqn = producers.get(v)
        if eqn is not None and eqn.primitive is reduce_precision_p:   # look through it
            v = eqn.invars[0]
            eqn = producers.get(v)
        if v in seen:
            continue
        seen.add(v)
        if v in invars:
            args_.append((invars[v], (v.aval, f"from the argument {names[invars[v]]}")))
        elif eqn is None:
            consts.append((v.aval, "from a constant"))
        else:
            eqns.append((order[v], (v.aval, _describe(eqn))))
    return consts + [r for _, r in sorted(args_, key=lambda p: p[0])] + \
        [r for _, r in sorted(eqns, key=lambda p: p[0])]


def _describe(eqn) -> str:
    where = f" from {eqn.source_info}" if eqn.source_info else ""
    if eqn.primitive is name_p:
        return f"named '{eqn.params['name']}'{where}"
    if eqn.primitive.name == "jit":
        return f"output of jitted function '{eqn.params['name']}'{where}"
    return f"output of {eqn.primitive.name}{where}"


def print_saved_residuals(f, *args, **kwargs) -> None:
    """Print the residuals reverse mode saves for `f` at `args`, one line each, as JAX's."""
    for aval, source in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(short_dtypes=True)} {source}")


remat_p = Primitive("remat2")
remat_p.multiple_results = True


def _remat_impl(*args, jaxpr, prevent_cse, differentiated, policy):
    return eval_jaxpr(jaxpr, [], *args)


impl_rules[remat_p] = _remat_impl
evaluated_by_impl.add(remat_p)
abstract_eval_rules[remat_p] = lambda *avals, jaxpr, **params: [v.aval for v in jaxpr.outvars]


def convert_constvars(closed: ClosedJaxpr):
    """(an open jaxpr taking `closed`'s constants as its leading inputs, the constants)."""
    j = closed.jaxpr
    return Jaxpr([], [*j.constvars, *j.invars], j.eqns, j.outvars), list(closed.consts)


def _trace_checkpointed(fun, flat_fun, avals) -> ClosedJaxpr:
    trace = CheckpointTrace(fun)
    tracers = [trace.new_arg(a) for a in avals]
    try:
        with set_current_trace(trace):
            outs = flat_fun(*tracers)
        return trace.to_jaxpr(tracers, outs)
    except ConcretizationTypeError as e:      # JAX's hint, for Python control flow on a value
        with_static_hint(e)
        raise
    finally:
        trace.invalidate()


def checkpoint(fun, *, prevent_cse=True, policy=None, static_argnums=(), static_argnames=()):
    """`fun`, made to recompute its intermediate values when differentiated instead of saving
    them, except those that `policy(primitive, *avals, **params)` calls saveable."""
    check_callable(fun)
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    check_prevent_cse(prevent_cse)

    @functools.wraps(fun)
    @api_boundary
    def fun_remat(*args, **kwargs):
        fun_, args = close_over_static_args(fun, static_argnums, args)
        flat, in_tree = tree_flatten((args, kwargs))
        flat_fun, out_tree = flatten_fun(lambda a, k: fun_(*a, **k), in_tree)
        closed = _trace_checkpointed(fun, flat_fun, [get_aval(x) for x in flat])
        jaxpr, consts = convert_constvars(closed)
        outs = remat_p.bind(*consts, *flat, jaxpr=jaxpr, prevent_cse=prevent_cse,
                            differentiated=False, policy=policy)
        return tree_unflatten(out_tree(), outs)
    return fun_remat


def remat(fun, *, prevent_cse=True, policy=None, static_argnums=()):
    """Another name for `checkpoint`."""
    return checkpoint(fun, prevent_cse=prevent_cse, policy=policy, static_argnums=static_argnums)


def _remat_jvp(primals, tangents, *, jaxpr, **params):
    n = len(primals)
    nonzero = [type(t) is not Zero for t in tangents]
    out_nonzero = []

    def jvp_of_jaxpr(trace, *args):
        ps, ts = args[:n], iter(args[n:])
        tans = [next(ts) if nz else Zero(tangent_aval(get_aval(p))) for p, nz in zip(ps, nonzero)]
        outs, out_tans = jvp_flat(lambda *a: eval_jaxpr_recorded(jaxpr, [], a, [trace]), ps,
                                  tans, instantiate=False)
        out_nonzero[:] = [type(t) is not Zero for t in out_tans]
        return list(outs) + [t for t in out_tans if type(t) is not Zero]

    nz_tangents = [t for t in tangents if type(t) is not Zero]
    closed = _trace(jvp_of_jaxpr, [get_aval(x) for x in (*primals, *nz_tangents)])
    jvp_jaxpr, consts = convert_constvars(closed)
    outs = remat_p.bind(*consts, *primals, *nz_tangents, jaxpr=jvp_jaxpr, **params)
    n_out = len(jaxpr.outvars)
    rest = iter(outs[n_out:])
    return outs[:n_out], [next(rest) if nz else Zero(tangent_aval(v.aval))
                          for nz, v in zip(out_nonzero, jaxpr.outvars)]


def _remat_batching_rule(axis_data, vals, dims, *, jaxpr, **params):
    out_dims = []

    def batched(trace, *args):
        outs, dims_out = batch(lambda *a: eval_jaxpr_recorded(jaxpr, [], a, [trace]),
                               axis_data.size, dims, args)
        out_dims[:] = [None if d is None else 0 for d in dims_out]
        return [o if d is None else moveaxis(o, d, 0) for o, d in zip(outs, dims_out)]

    batched_jaxpr, consts = convert_constvars(_trace(batched, [get_aval(v) for v in vals]))
    return remat_p.bind(*consts, *vals, jaxpr=batched_jaxpr, **params), out_dims


def _trace(flat_fun, avals) -> ClosedJaxpr:
    """The jaxpr of `flat_fun(trace, *tracers)`, told the trace, for `eval_jaxpr_recorded`."""
    trace = JaxprTrace()
    tracers = [trace.new_arg(a) for a in avals]
    try:
        with set_current_trace(trace):
            outs = flat_fun(trace, *tracers)
        return trace.to_jaxpr(tracers, outs)
    finally:
        trace.invalidate()


jvp_rules[remat_p] = _remat_jvp
fancy_batching_rules[remat_p] = _remat_batching_rule


def everything_saveable(*_, **__) -> bool:
    """Save every residual: as if there were no checkpoint."""
    return True


def nothing_saveable(*_, **__) -> bool:
    """Save nothing but the checkpointed function's inputs: the default."""
    return False


@dataclasses.dataclass(frozen=True)
class DotsSaveable:
    """Save the results of `dot_general`s (without batch dimensions if `only_if_no_batch_dims`)."""
    only_if_no_batch_dims: bool

    def __call__(self, prim, *avals, **params):
        if prim is not lax.dot_general_p:
            return False
        (_, _), (lhs_batch, rhs_batch) = params["dimension_numbers"]
        return not self.only_if_no_batch_dims or (not lhs_batch and not rhs_batch)


@dataclasses.dataclass(frozen=True)
class SaveOnlyTheseNames:
    """Save only the values named (by `checkpoint_name`) with one of `saveable_names`."""
    saveable_names: frozenset

    def __call__(self, prim, *avals, **params):
        return prim is name_p and params["name"] in self.saveable_names


@dataclasses.dataclass(frozen=True)
class SaveAnyNamesButThese:
    """Save only named values, except those named with one of `names`."""
    names: frozenset

    def __call__(self, prim, *avals, **params):
        return prim is name_p and params["name"] not in self.names


def save_only_these_names(*names):
    return SaveOnlyTheseNames(frozenset(names))


def save_any_names_but_these(*names):
    return SaveAnyNamesButThese(frozenset(names))


def save_from_both_policies(policy_1, policy_2):
    """Save what either policy saves."""
    def policy(prim, *avals, **params):
        out1, out2 = policy_1(prim, *avals, **params), policy_2(prim, *avals, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError("The return value of the policies should be a boolean. Got: "
                             f"{out1} and {out2}. Please write a custom policy function "
                             "directly, rather than using this helper function.")
        return out1 or out2
    return policy


checkpoint_dots = dots_saveable = DotsSaveable(False)
checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable = DotsSaveable(True)

checkpoint_policies = types.SimpleNamespace(
    everything_saveable=everything_saveable, nothing_saveable=nothing_saveable,
    dots_saveable=dots_saveable, checkpoint_dots=checkpoint_dots,
    dots_with_no_batch_dims_saveable=dots_with_no_batch_dims_saveable,
    checkpoint_dots_with_no_batch_dims=checkpoint_dots_with_no_batch_dims,
    save_only_these_names=save_only_these_names,
    save_any_names_but_these=save_any_names_but_these,
    save_from_both_policies=save_from_both_policies)


name_p = Primitive("name")


def checkpoint_name(x, name):
    """`x` (a pytree of arrays), unchanged, with its values named `name` for the policies."""
    if isinstance(trace_ctx.trace, EvalTrace):
        return x                # nothing to name outside a transformation: `x` itself, as JAX
    return tree_map(functools.partial(name_p.bind, name=name), x)


impl_rules[name_p] = lambda x, *, name: x
abstract_eval_rules[name_p] = lambda x, *, name: x
jvp_rules[name_p] = lambda primals, tangents, *, name: (name_p.bind(primals[0], name=name),
                                                        tangents[0])
batching_rules[name_p] = lambda vals, dims, *, name: (name_p.bind(vals[0], name=name), dims[0])
lowering_rules[name_p] = lambda ctx, x, *, name: [x]


dce_rules[remat_p] = call_dce_rule
remat_disallowed_effects: dict = {}     # primitive -> params -> the name of its effect


def _disallowed_effects(jaxpr) -> list:
    found = []
    for eqn in jaxpr.eqns:
        name = remat_disallowed_effects.get(eqn.primitive)
        if name is not None:
            found.append(name(eqn.params))
        found.extend(e for inner in inner_jaxprs(eqn.params) for e in _disallowed_effects(inner))
    return found


def _remat_partial_eval(trace, args, params):
    jaxpr, policy = params["jaxpr"], params["policy"] or nothing_saveable
    if bad := _disallowed_effects(jaxpr):
        raise NotImplementedError("Effects not supported in partial-eval of `checkpoint`/`remat`: "
                                  f"[{', '.join(bad)}]")
    unknowns = [trace.is_unknown(x) for x in args]
    origins = {}        # id of an equation of `known` or `unknown` -> its index in `jaxpr`
    known, unknown, out_unknowns, forwarded = partial_eval_jaxpr(ClosedJaxpr(jaxpr, []), unknowns,
                                                                 origins)
    kj, uj, n_known = known.jaxpr, unknown.jaxpr, out_unknowns.count(False)
    computed = iter(kj.outvars[n_known:])
    residual_atoms = [kj.invars[f] if f is not None else next(computed) for f in forwarded]

    # Walk back from what the unknown side reads: save, or recompute and walk on.
    producer = {v: (i, eqn) for i, eqn in enumerate(kj.eqns) for v in eqn.outvars}
    saved, recomputed, todo, seen = [], set(), list(residual_atoms), set()
    for i, eqn in enumerate(kj.eqns):       # effects happen again in the backward pass, as in JAX
        if has_effects(eqn):
            recomputed.add(i)
            todo.extend(eqn.invars)
    while todo:
        v = todo.pop()
        if type(v) is not Var or v in seen or v not in producer:
            continue                    # a literal, done already, or an input or constant
        seen.add(v)
        i, eqn = producer[v]
        if policy(eqn.primitive, *[x.aval for x in eqn.invars], **eqn.params):
            saved.append(v)
        elif i not in recomputed:
            recomputed.add(i)
            todo.extend(eqn.invars)
    saved.sort(key=lambda v: (producer[v][0], producer[v][1].outvars.index(v)))

    # The known side: known outputs and saved residuals, computed now, on the parent trace.
    known_jaxpr, used_known = dce_jaxpr(
        Jaxpr(kj.constvars, kj.invars, kj.eqns, kj.outvars[:n_known] + saved),
        [True] * (n_known + len(saved)))
    known_jaxpr = _insert_reduce_precision(known_jaxpr, saved)
    known_args = [x for x, u in zip(args, unknowns) if not u]
    parent = trace.parent_trace
    with set_current_trace(parent):
        outs = eval_jaxpr_recorded(known_jaxpr, known.consts,
                                   [x for x, u in zip(known_args, used_known) if u],
                                   [parent] if isinstance(parent, JaxprTrace) else [])
    known_outs, saved_values = outs[:n_known], outs[n_known:]
    if not any(out_unknowns):
        return known_outs

    # The unknown side: the recomputed equations and the unknown jaxpr's, reading the residuals,
    # in the order of the equations of `jaxpr` they came from.
    subst = dict(zip(uj.invars[:len(forwarded)], residual_atoms))
    sub = lambda v: subst.get(v, v) if type(v) is Var else v
    eqns = [(origins[id(e)], 0, e) for i, e in enumerate(kj.eqns) if i in recomputed]
    eqns += [(origins[id(e)], 1, e._replace(invars=list(map(sub, e.invars)))) for e in uj.eqns]
    eqns = [e for *_, e in sorted(eqns, key=lambda t: t[:2])]
    known_vars, unknown_vars = iter(kj.invars), iter(uj.invars[len(forwarded):])
    arg_vars = [next(unknown_vars) if u else next(known_vars) for u in unknowns]
    staged, used = dce_jaxpr(Jaxpr([], [*kj.constvars, *uj.constvars, *saved, *arg_vars], eqns,
                                   list(map(sub, uj.outvars))), [True] * len(uj.outvars))
    inputs = [*known.consts, *unknown.consts, *saved_values, *args]
    unknown_outs = JaxprTrace.process_primitive(
        trace, remat_p, [x for x, u in zip(inputs, used) if u],
        dict(params, jaxpr=staged, differentiated=True))
    known_iter, unknown_iter = iter(known_outs), iter(unknown_outs)
    return [next(unknown_iter) if u else next(known_iter) for u in out_unknowns]


def _insert_reduce_precision(jaxpr: Jaxpr, saved) -> Jaxpr:
    """`jaxpr` with each saved floating-point residual that its equations also use replaced,
    for those uses and as a residual, by `reduce_precision` of itself (as JAX does)."""
    used = {v for e in jaxpr.eqns for v in e.invars if type(v) is Var}
    eqns = list(jaxpr.eqns)
    for v in saved:
        if v not in used or dtype_kind(v.aval.dtype) != "f":
            continue
        i = next(i for i, e in enumerate(eqns) if v in e.outvars)
        info = np.finfo(v.aval.dtype)
        raw = Var(v.aval)
        eqns[i] = eqns[i]._replace(outvars=[raw if o is v else o for o in eqns[i].outvars])
        eqns.insert(i + 1, JaxprEqn(reduce_precision_p, [raw], [v],
                                    {"exponent_bits": info.nexp, "mantissa_bits": info.nmant},
                                    eqns[i].source_info))
    return Jaxpr(jaxpr.constvars, jaxpr.invars, eqns, jaxpr.outvars)


partial_eval_rules[remat_p] = _remat_partial_eval


def _remat_transpose(cts, *args, jaxpr, **params):
    linear = [is_linear(x) for x in args]
    known = [x for x in args if not is_linear(x)]
    nonzero = [type(ct) is not Zero for ct in cts]
    in_zero = []

    def transposed(trace, *values):
        it, ct_it = iter(values[:len(known)]), iter(values[len(known):])
        full = [x if is_linear(x) else next(it) for x in args]
        cts_out = [next(ct_it) if nz else Zero(tangent_aval(v.aval))
                   for nz, v in zip(nonzero, jaxpr.outvars)]
        cts_in = [ct for ct, lin in zip(backward_pass(jaxpr, [], full, cts_out), linear) if lin]
        in_zero[:] = [type(ct) is Zero for ct in cts_in]
        return [ct for ct in cts_in if type(ct) is not Zero]

    nz_cts = [ct for ct in cts if type(ct) is not Zero]
    closed = _trace(transposed, [get_aval(x) for x in (*known, *nz_cts)])
    t_jaxpr, consts = convert_constvars(closed)
    outs = iter(remat_p.bind(*consts, *known, *nz_cts, jaxpr=t_jaxpr,
                             **dict(params, differentiated=True)))
    zeros = iter(in_zero)
    return [None if not lin or next(zeros) else next(outs) for lin in linear]


transpose_rules[remat_p] = _remat_transpose


def _remat_lowering(ctx, *args, jaxpr, prevent_cse, differentiated, policy):
    if differentiated and prevent_cse and args:
        args = hlo.OptimizationBarrierOp(list(args)).results
    return jaxpr_subcomp(ctx.module_context, jaxpr, [], list(args))


lowering_rules[remat_p] = _remat_lowering
