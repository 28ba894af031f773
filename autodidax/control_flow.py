# Generated from chapters/10_control_flow.md by `make export`: edit the chapter, not this file.


"""Structured control flow: `cond`, `while_loop` and `scan`, as higher-order primitives (appendix
A10's `control_flow_reference` adds `switch`, `fori_loop`, `map` and the remaining rules)."""
from __future__ import annotations

import operator
import weakref

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax import numpy as jnp
from autodidax.autodiff import (UndefinedPrimal, add_cotangents, backward_pass, is_linear,
                                partial_eval_jaxpr, partial_eval_rules, transpose_rules)
from autodidax.core import (ConcretizationTypeError, LiteralArray, Primitive, Tracer,
                            abstract_eval_rules, api_boundary, dtype_kind, get_aval, impl_rules,
                            set_current_trace)
from autodidax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprTrace, Var, eval_jaxpr, jaxpr_as_fun,
                             trace_to_jaxpr)
from autodidax.jit import signature_context
from autodidax.jvp import (Zero, instantiate_zeros, jvp_flat, jvp_rules, tangent_aval,
                           zeros_like_aval)
from autodidax.lowering import aval_to_ir_type, ir_constant, jaxpr_subcomp, lowering_rules
from autodidax.runtime import cache_clearers, config
from autodidax.tree_util import flatten_fun, tree_flatten, tree_map, tree_unflatten


def trace_to_jaxpr_with_consts(fun, in_tree, in_avals):
    """Trace `fun`, which takes pytrees, to a closed jaxpr whose constants have become its leading
    inputs. Returns (jaxpr, constants, output tree)."""
    key = (in_tree, tuple(in_avals), tuple(signature_context.items()), config.jax_disable_jit)
    try:
        by_types = _traced.setdefault(fun, {})
    except TypeError:                       # not weakly referable: traced each time
        by_types = {}
    found = by_types.get(key)
    if found is None:
        flat_fun, out_tree = flatten_fun(fun, in_tree)
        closed = trace_to_jaxpr(flat_fun, in_avals)
        jaxpr = closed.jaxpr
        opened = Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.eqns, jaxpr.outvars)
        found = ClosedJaxpr(opened, []), list(closed.consts), out_tree()
        if not any(isinstance(c, Tracer) for c in found[1]):
            by_types[key] = found
    return found[0], list(found[1]), found[2]


_traced = weakref.WeakKeyDictionary()     # function -> {its input types: what it traced to}
cache_clearers.append(_traced.clear)      # chapter 7's clear_caches() empties it
_wrappers = weakref.WeakKeyDictionary()   # function -> {wrap: its wrapper}


def wrapped_once(wrap, fun):
    """`wrap(get_fun)`, made once per `fun`, so that it traces to the same jaxpr again; it reads
    `fun` through `get_fun`, a weak reference, so that the table does not keep `fun` alive."""
    try:
        by_wrap, get_fun = _wrappers.setdefault(fun, {}), weakref.ref(fun)
    except TypeError:                       # not weakly referable: a wrapper for this call
        return wrap(lambda: fun)
    wrapper = by_wrap.get(wrap)
    if wrapper is None:
        wrapper = by_wrap[wrap] = wrap(get_fun)
    return wrapper


def same_type(a, b) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype


def same_types(avals1, avals2) -> bool:
    return len(avals1) == len(avals2) and all(map(same_type, avals1, avals2))


jax_errors = {}     # what is refused -> raises JAX's exception, word for word (appendix A10)


def refuse(what, *args, **params):
    """Refuse the call or jaxpr `what` names: with JAX's message, from `jax_errors`, or a short
    one."""
    jax_errors.get(what, lambda *args, **params: None)(*args, **params)
    raise TypeError(f"{what}: the types or structures do not match")


def type_diff(what1, what2, avals1, avals2) -> str | None:
    """A sentence naming the first output whose type differs, or None."""
    for i, (a, b) in enumerate(zip(avals1, avals2)):
        if not same_type(a, b):
            where = "output" if len(avals1) == 1 else f"output {i} (flattened)"
            return (f"{what1} and {what2} output must have identical types, but the {where} of "
                    f"{what1} has type {a.str_short()} and that of {what2} has type "
                    f"{b.str_short()}")
    return None


cond_p = Primitive("cond")
cond_p.multiple_results = True


def common_consts(jaxprs, consts):
    """Each branch takes the constants of all branches, each constant once (a value both
    branches close over is passed once, as JAX's `_dedup_consts` does), then the operands."""
    if not any(consts) and not any(c.jaxpr.constvars or c.consts for c in jaxprs):
        return list(jaxprs), []       # the same jaxprs, so the same programs in the caches
    all_consts = list({id(c): c for cs in consts for c in cs}.values())
    out = []
    for closed, cs in zip(jaxprs, consts):
        j = closed.jaxpr
        mine = {id(c): v for c, v in zip(cs, j.invars[:len(cs)])}
        invars = [mine[id(c)] if id(c) in mine else Var(get_aval(c)) for c in all_consts]
        out.append(ClosedJaxpr(Jaxpr([], invars + j.invars[len(cs):], j.eqns, j.outvars), []))
    return out, all_consts


no_operand = object()


def one_operand(operands, operand):
    """The operands, given positionally or (one of them) as `operand=`."""
    if operand is no_operand:
        return operands
    if operands:
        raise TypeError(f"if 'operand' keyword is passed then no positional operands can be "
                        f"passed, got operand={operand} and positional operands {operands}")
    return (operand,)


@api_boundary
def cond(pred, true_fun, false_fun, *operands, operand=no_operand):
    """`true_fun(*operands)` if `pred` else `false_fun(*operands)`: both are traced, one runs.
    A single operand may be passed by keyword, `operand=`, JAX's older convention."""
    if not (callable(true_fun) and callable(false_fun)):
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = one_operand(operands, operand)
    try:
        aval = get_aval(pred)
    except TypeError:
        aval = None
    if aval is None or aval.shape or dtype_kind(aval.dtype) not in "biuf":
        refuse("cond_pred", pred)
    if dtype_kind(aval.dtype) != "b":
        pred = lax.ne(pred, np.zeros((), aval.dtype))
    index = lax.convert_element_type(pred, np.int32)
    ops_flat, in_tree = tree_flatten(operands)
    avals = [get_aval(x) for x in ops_flat]
    true_jaxpr, true_consts, true_tree = trace_to_jaxpr_with_consts(true_fun, in_tree, avals)
    false_jaxpr, false_consts, false_tree = trace_to_jaxpr_with_consts(false_fun, in_tree, avals)
    if true_tree != false_tree:
        raise TypeError(f"true_fun and false_fun output must have same type structure, got "
                        f"{true_tree} and {false_tree}.")
    diff = type_diff("true_fun", "false_fun", true_jaxpr.out_avals, false_jaxpr.out_avals)
    if diff:
        raise TypeError(diff + ".")
    (true_jaxpr, false_jaxpr), consts = common_consts([true_jaxpr, false_jaxpr],
                                                       [true_consts, false_consts])
    return tree_unflatten(true_tree, bind_forwarding(cond_p, [index, *consts, *ops_flat],
                                                      branches=(false_jaxpr, true_jaxpr)))


forwarding_rules = {}   # primitive -> JAX's rewrite of what its jaxprs forward (appendix A10)
ref_rules = {}          # "bind" -> appendix A30's: an eager loop or branch with refs, run by jit


def bind_forwarding(p, args, **params):
    """`p.bind(*args, **params)`, after the rewrite in `forwarding_rules`: it gives what to bind,
    and how to rebuild the outputs from what the equation returns."""
    if "bind" in ref_rules and (outs := ref_rules["bind"](p, args, params)) is not None:
        return outs
    if p not in forwarding_rules:
        return p.bind(*args, **params)
    args, params, rebuild = forwarding_rules[p](args, **params)
    return rebuild(p.bind(*args, **params))


def _cond_impl(index, *args, branches):
    i = int(index)
    branch = branches[i if 0 <= i < len(branches) else -1]  # out of range: the last, as `case`
    return eval_jaxpr(branch.jaxpr, branch.consts, *args)


def _cond_abstract(index, *avals, branches):
    first = branches[0].out_avals
    if index.shape or index.dtype != np.int32 or not all(
            same_types(b.in_avals, avals) and same_types(b.out_avals, first) for b in branches):
        refuse("cond_p", index, *avals, branches=branches)
    return list(first)


impl_rules[cond_p] = _cond_impl
abstract_eval_rules[cond_p] = _cond_abstract


def jvp_jaxpr(closed: ClosedJaxpr, nonzeros, instantiate):
    """The JVP of `closed`. Its inputs: the primals, then the tangents of the inputs marked in
    `nonzeros`; its outputs: the primals, then the tangents that are nonzero or marked in
    `instantiate` (floating-point ones only). Returns the jaxpr, and which tangents it returns."""
    avals, n = closed.in_avals, len(closed.in_avals)
    out_nonzeros = []

    def jvp_fun(*args):
        primals, tangents = args[:n], iter(args[n:])
        tans = [next(tangents) if nz else Zero(tangent_aval(a)) for a, nz in zip(avals, nonzeros)]
        outs, out_tans = jvp_flat(jaxpr_as_fun(closed), primals, tans, instantiate=False)
        out_nonzeros[:] = [(type(t) is not Zero or inst) and dtype_kind(get_aval(o).dtype) == "f"
                           for o, t, inst in zip(outs, out_tans, instantiate)]
        return list(outs) + [instantiate_zeros(t) for t, nz in zip(out_tans, out_nonzeros) if nz]

    tangent_avals = [tangent_aval(a) for a, nz in zip(avals, nonzeros) if nz]
    return trace_to_jaxpr(jvp_fun, avals + tangent_avals), out_nonzeros


def nonzero_tangents(primals, tangents):
    return [type(t) is not Zero and dtype_kind(get_aval(p).dtype) == "f"
            for p, t in zip(primals, tangents)]


def _cond_jvp(primals, tangents, *, branches):
    index, *ops = primals
    nonzeros = nonzero_tangents(ops, tangents[1:])
    n_out = len(branches[0].out_avals)
    out_nz = [False] * n_out
    for b in branches:
        _, nz = jvp_jaxpr(b, nonzeros, [False] * n_out)
        out_nz = [x or y for x, y in zip(out_nz, nz)]
    jvp_branches = tuple(jvp_jaxpr(b, nonzeros, out_nz)[0] for b in branches)
    nz_tangents = [t for t, nz in zip(tangents[1:], nonzeros) if nz]
    outs = cond_p.bind(index, *ops, *nz_tangents, branches=jvp_branches)
    out_tangents = iter(outs[n_out:])
    return outs[:n_out], [next(out_tangents) if nz else Zero(tangent_aval(a))
                          for nz, a in zip(out_nz, branches[0].out_avals)]


jvp_rules[cond_p] = _cond_jvp


def const_values(closed):
    return [ir_constant(c, v.aval.dtype) for c, v in zip(closed.consts, closed.jaxpr.constvars)]


def _cond_lowering(ctx, index, *args, branches):
    case = hlo.CaseOp([aval_to_ir_type(a) for a in ctx.avals_out], index, len(branches))
    for region, branch in zip(case.regions, branches):
        with ir.InsertionPoint(region.blocks.append()):
            hlo.return_(jaxpr_subcomp(ctx.module_context, branch.jaxpr, const_values(branch),
                                      list(args)))
    return list(case.results)


lowering_rules[cond_p] = _cond_lowering


while_p = Primitive("while")
while_p.multiple_results = True


def _promote_weak(x, aval, out_aval):
    """The weakly typed initial carry `x`, converted (strongly typed) to the dtype that it and the
    body's output promote to: a constant at once if `x` is a Python or NumPy scalar."""
    dtype, _ = jnp.promote_avals(aval, out_aval)
    if type(x) in (bool, int, float, complex) or isinstance(x, np.generic):
        return LiteralArray(np.asarray(x).astype(dtype))
    return lax.convert_element_type(x, dtype)


def _trace_loop(trace, init_flat):
    """Trace a loop's functions at the initial carry's types: `trace(avals)` returns what it
    traced, whether the body kept the carry's structure, and the body's carry types. A weakly
    typed initial carry whose dtype the body changes is promoted, and the functions traced
    again (`while_loop` and `scan` share this). Returns (traced, init_flat, avals, out_avals)."""
    avals = [get_aval(x) for x in init_flat]
    for _ in range(2):      # twice if a weakly typed initial carry has to be promoted
        traced, same_tree, out_avals = trace(avals)
        if not same_tree:
            break
        promote = [a.weak_type and not same_type(a, b) for a, b in zip(avals, out_avals)]
        if not any(promote):
            break
        init_flat = [_promote_weak(x, a, b) if p else x
                     for x, a, b, p in zip(init_flat, avals, out_avals, promote)]
        avals = [get_aval(x) for x in init_flat]
    return traced, init_flat, avals, out_avals


@api_boundary
def while_loop(cond_fun, body_fun, init_val):
    """Repeat `val = body_fun(val)` while `cond_fun(val)`, starting from `init_val`."""
    if config.jax_disable_jit:          # debugging: a Python loop, unless a value is traced
        try:
            val = tree_map(jnp.asarray, init_val)
            while cond_fun(val):
                val = body_fun(val)
            return val
        except ConcretizationTypeError:
            pass
    init_flat, in_tree = tree_flatten(init_val)
    args_tree = tree_flatten((init_val,))[1]

    def trace(avals):
        cond_traced = trace_to_jaxpr_with_consts(cond_fun, args_tree, avals)
        body_traced = trace_to_jaxpr_with_consts(body_fun, args_tree, avals)
        return (cond_traced, body_traced), body_traced[2] == in_tree, body_traced[0].out_avals

    traced, init_flat, avals, out_avals = _trace_loop(trace, init_flat)
    (cond_jaxpr, cond_consts, cond_tree), (body_jaxpr, body_consts, body_tree) = traced
    pred = cond_jaxpr.out_avals
    if cond_tree.num_nodes != 1:                  # JAX's messages
        raise TypeError(f"cond_fun must return a boolean scalar, but got pytree {cond_tree}.")
    if pred[0].shape or pred[0].dtype != np.bool_:
        raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) {pred}.")
    if body_tree != in_tree or not all(same_type(a, b) for a, b in zip(avals, out_avals)):
        refuse("while_loop", in_tree, body_tree, avals, out_avals)
    outs = bind_forwarding(while_p, [*cond_consts, *body_consts, *init_flat],
                           cond_jaxpr=cond_jaxpr, cond_nconsts=len(cond_consts),
                           body_jaxpr=body_jaxpr, body_nconsts=len(body_consts))
    return tree_unflatten(in_tree, outs)


def split_while_args(args, cond_nconsts, body_nconsts):
    n = cond_nconsts + body_nconsts
    return args[:cond_nconsts], args[cond_nconsts:n], args[n:]


def _while_impl(*args, cond_jaxpr, cond_nconsts, body_jaxpr, body_nconsts):
    cond_consts, body_consts, carry = split_while_args(args, cond_nconsts, body_nconsts)
    while eval_jaxpr(cond_jaxpr.jaxpr, cond_jaxpr.consts, *cond_consts, *carry)[0]:
        carry = eval_jaxpr(body_jaxpr.jaxpr, body_jaxpr.consts, *body_consts, *carry)
    return carry


def _while_abstract(*avals, cond_jaxpr, cond_nconsts, body_jaxpr, body_nconsts):
    _, _, carry = split_while_args(avals, cond_nconsts, body_nconsts)
    pred, outs = cond_jaxpr.out_avals, body_jaxpr.out_avals
    if [(a.shape, a.dtype) for a in pred] != [((), np.bool_)] or not same_types(carry, outs):
        refuse("while_p", *avals, cond_jaxpr=cond_jaxpr, cond_nconsts=cond_nconsts,
               body_jaxpr=body_jaxpr, body_nconsts=body_nconsts)
    return list(outs)


impl_rules[while_p] = _while_impl
abstract_eval_rules[while_p] = _while_abstract


def _while_lowering(ctx, *args, cond_jaxpr, cond_nconsts, body_jaxpr, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    types = [aval_to_ir_type(a) for a in ctx.avals_in]
    loop = hlo.WhileOp(types, list(args))
    cond_block = loop.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond_block):
        a = list(cond_block.arguments)
        pred, = jaxpr_subcomp(ctx.module_context, cond_jaxpr.jaxpr, const_values(cond_jaxpr),
                              a[:nc] + a[nc + nb:])
        hlo.return_([pred])
    body_block = loop.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body_block):
        a = list(body_block.arguments)
        new = jaxpr_subcomp(ctx.module_context, body_jaxpr.jaxpr, const_values(body_jaxpr),
                            a[nc:])
        hlo.return_(a[:nc + nb] + new)
    return list(loop.results)[nc + nb:]


lowering_rules[while_p] = _while_lowering


def _while_transpose(cts, *args, **params):
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using "
                     "fori_loop with static start/stop.")


transpose_rules[while_p] = _while_transpose


scan_p = Primitive("scan")
scan_p.multiple_results = True


def stacked_aval(aval, length):
    return aval.update(shape=(length, *aval.shape))


def unstacked_aval(aval):
    return aval.update(shape=aval.shape[1:])


def _scan_length(xs_flat, length):
    """The trip count: `length`, or the leading size that every leaf of `xs` shares."""
    sizes = {np.shape(x)[0] if np.shape(x) else None for x in xs_flat}
    try:
        n = operator.index(next(iter(sizes)) if length is None and len(sizes) == 1 else length)
    except TypeError:
        n = None
    if n is None or not sizes <= {n}:
        refuse("scan_length", xs_flat, length)
    return n


@api_boundary
def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Loop `carry, y = f(carry, x)` over the leading axis of `xs`; returns the final carry
    and the `y`s stacked."""
    if not callable(f):
        raise TypeError("lax.scan: f argument should be a callable.")
    init_flat, init_tree = tree_flatten(init)
    xs_flat, _ = tree_flatten(xs)
    length = _scan_length(xs_flat, length)
    if isinstance(unroll, bool):
        unroll = max(length, 1) if unroll else 1
    unroll = operator.index(unroll)
    if unroll < 0:
        raise ValueError("`unroll` must be a `bool` or a non-negative `int`.")
    if config.jax_disable_jit:          # debugging: a Python loop that calls `f` itself
        return _scan_in_python(f, init, xs, length, reverse)
    x_avals = [unstacked_aval(get_aval(x)) for x in xs_flat]
    args_tree = tree_flatten((init, xs))[1]
    trees, body = {}, wrapped_once(_pair_body, f)

    def trace(avals):
        jaxpr, consts, out_tree = trace_to_jaxpr_with_consts(body, args_tree, avals + x_avals)
        trees["carry"], trees["ys"] = out_tree.children()
        return (jaxpr, consts), trees["carry"] == init_tree, jaxpr.out_avals[:len(avals)]

    (jaxpr, consts), init_flat, avals, out_avals = _trace_loop(trace, init_flat)
    if trees["carry"] != init_tree or not all(same_type(a, b) for a, b in zip(avals, out_avals)):
        refuse("scan", f, init, init_tree, trees["carry"], avals, out_avals)
    nk = len(init_flat)
    outs = bind_forwarding(scan_p, [*consts, *init_flat, *xs_flat], jaxpr=jaxpr, length=length,
                           reverse=reverse, unroll=unroll, num_consts=len(consts), num_carry=nk)
    return tree_unflatten(init_tree, outs[:nk]), tree_unflatten(trees["ys"], outs[nk:])


def _pair_body(get_f):
    def body(carry, x):
        out = get_f()(carry, x)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(f"scan body output must be a pair, got {out}.")
        return tuple(out)
    return body


def _scan_in_python(f, init, xs, length, reverse):
    if length == 0:
        raise ValueError("zero-length scan is not supported in disable_jit() mode because the "
                         "output type is unknown.")
    carry, ys = init, []
    for i in (reversed(range(length)) if reverse else range(length)):
        carry, y = f(carry, tree_map(lambda x: jnp.asarray(x)[i], xs))
        ys.append(y)
    if reverse:
        ys.reverse()
    return carry, tree_map(lambda *rows: jnp.stack(rows), *ys)


def split_scan_args(args, num_consts, num_carry):
    return args[:num_consts], args[num_consts:num_consts + num_carry], args[num_consts + num_carry:]


def _scan_impl(*args, jaxpr, length, reverse, unroll, num_consts, num_carry):
    consts, carry, xs = split_scan_args(args, num_consts, num_carry)
    rows = []
    for t in range(length):
        i = length - 1 - t if reverse else t
        outs = eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *consts, *carry, *[x[i] for x in xs])
        carry = outs[:num_carry]
        rows.append(outs[num_carry:])
    if reverse:
        rows.reverse()
    ys = [np.stack([np.asarray(r[k]) for r in rows]) if rows else np.zeros(a.shape, a.dtype)
          for k, a in enumerate(_scan_out_avals(jaxpr, length, num_carry)[num_carry:])]
    return list(carry) + ys


def _scan_out_avals(jaxpr, length, num_carry):
    outs = jaxpr.out_avals
    return list(outs[:num_carry]) + [stacked_aval(a, length) for a in outs[num_carry:]]


def _scan_abstract(*avals, jaxpr, length, reverse, unroll, num_consts, num_carry):
    consts, carry, xs = split_scan_args(avals, num_consts, num_carry)
    sliced = [unstacked_aval(a) if a.shape[:1] == (length,) else a for a in xs]
    if not same_types([*consts, *carry, *sliced], jaxpr.in_avals) or not same_types(
            carry, jaxpr.out_avals[:num_carry]):
        refuse("scan_p", *avals, jaxpr=jaxpr, length=length, reverse=reverse, unroll=unroll,
               num_consts=num_consts, num_carry=num_carry)
    return _scan_out_avals(jaxpr, length, num_carry)


impl_rules[scan_p] = _scan_impl
abstract_eval_rules[scan_p] = _scan_abstract


def _rearrange(closed, in_order, out_order):
    """`closed` with its inputs and outputs reordered: position k takes the old one in_order[k]."""
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, [j.invars[i] for i in in_order], j.eqns,
                             [j.outvars[i] for i in out_order]), closed.consts)


def _groups_order(sizes, nz_sizes):
    """The order that interleaves (primals, tangents) group by group, for a jaxpr whose inputs
    are all primal groups, then all tangent groups."""
    n = sum(sizes)
    primal, tangent = iter(range(n)), iter(range(n, n + sum(nz_sizes)))
    return [next(it) for k, nz in zip(sizes, nz_sizes) for it in [primal] * k + [tangent] * nz]


def _scan_jvp(primals, tangents, *, jaxpr, length, reverse, unroll, num_consts, num_carry):
    nc, nk = num_consts, num_carry
    n_xs, n_ys = len(primals) - nc - nk, len(jaxpr.out_avals) - nk
    nonzeros = nonzero_tangents(primals, tangents)
    const_nz, carry_nz, xs_nz = split_scan_args(nonzeros, nc, nk)
    while True:     # a carry tangent the body makes nonzero is nonzero from the start
        body_jvp, out_nz = jvp_jaxpr(jaxpr, const_nz + carry_nz + xs_nz, carry_nz + [False] * n_ys)
        if out_nz[:nk] == carry_nz:
            break
        carry_nz = [a or b for a, b in zip(carry_nz, out_nz[:nk])]
    ys_nz = out_nz[nk:]
    body_jvp = _rearrange(body_jvp,
                          _groups_order([nc, nk, n_xs], [sum(const_nz), sum(carry_nz), sum(xs_nz)]),
                          _groups_order([nk, n_ys], [sum(carry_nz), sum(ys_nz)]))
    consts, init, xs = split_scan_args(primals, nc, nk)
    t_consts, t_init, t_xs = split_scan_args(tangents, nc, nk)
    pick = lambda ts, nz: [instantiate_zeros(t) for t, z in zip(ts, nz) if z]  # noqa: E731
    outs = scan_p.bind(*consts, *pick(t_consts, const_nz), *init, *pick(t_init, carry_nz),
                       *xs, *pick(t_xs, xs_nz), jaxpr=body_jvp, length=length, reverse=reverse,
                       unroll=unroll, num_consts=nc + sum(const_nz),
                       num_carry=nk + sum(carry_nz))
    n_kt = nk + sum(carry_nz)
    carry, t_carry = outs[:nk], iter(outs[nk:n_kt])
    ys, t_ys = outs[n_kt:n_kt + n_ys], iter(outs[n_kt + n_ys:])
    out_avals = _scan_out_avals(jaxpr, length, nk)
    out_tangents = [next(t_carry) if z else Zero(tangent_aval(a))
                    for z, a in zip(carry_nz, out_avals[:nk])]
    out_tangents += [next(t_ys) if z else Zero(tangent_aval(a))
                     for z, a in zip(ys_nz, out_avals[nk:])]
    return list(carry) + list(ys), out_tangents


jvp_rules[scan_p] = _scan_jvp


def _invariant_vars(jaxpr: Jaxpr, n_consts: int) -> set:
    """The variables of `jaxpr` computed from its constants and first `n_consts` inputs alone."""
    inv = set(jaxpr.constvars) | set(jaxpr.invars[:n_consts])
    for eqn in jaxpr.eqns:
        if all(type(v) is not Var or v in inv for v in eqn.invars):
            inv.update(eqn.outvars)
    return inv


def _eval_invariant(closed: ClosedJaxpr, consts, wanted):
    """The values of the variables `wanted`, loop-invariant, from the first inputs `consts`:
    only the equations they need are evaluated."""
    if not wanted:
        return []
    j = closed.jaxpr
    env = dict(zip(j.constvars, closed.consts))
    env.update(zip(j.invars, consts))
    read = lambda v: v.val if type(v) is not Var else env[v]  # noqa: E731
    needed = set(wanted)
    for eqn in reversed(j.eqns):
        if any(v in needed for v in eqn.outvars):
            needed.update(v for v in eqn.invars if type(v) is Var)
    for eqn in j.eqns:
        if any(v in needed for v in eqn.outvars):
            outs = eqn.primitive.bind(*[read(v) for v in eqn.invars], **eqn.params)
            env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(v) for v in wanted]


def _residual_kinds(known, fwd, known_args, n_kc, n_kk, n_known_out):
    """Where each residual of the known body comes from: "const", a known constant (the same in
    every iteration: not stacked); "x", a known x (already stacked); "hoist", a value computed
    from known constants alone (computed once, before the loop); "body", a carry the body reads
    or a value it computes (stacked by the known scan, one row per iteration)."""
    kind = ["const" if f is not None and f < n_kc else
            "x" if f is not None and f >= n_kc + n_kk else "body" for f in fwd]
    # JAX stacks a copy of `xs` given as a NumPy array rather than forward it; so do we, so
    # that the programs print alike
    kind = ["body" if k == "x" and isinstance(known_args[f], np.ndarray) else k
            for f, k in zip(fwd, kind)]
    invariant = _invariant_vars(known.jaxpr, n_kc)
    computed_vars = iter(known.jaxpr.outvars[n_known_out:])
    return ["hoist" if f is None and next(computed_vars) in invariant else k
            for f, k in zip(fwd, kind)]


def _scan_partial_eval(trace, args, params):
    jaxpr, length, nc, nk = (params["jaxpr"], params["length"], params["num_consts"],
                             params["num_carry"])
    n_ys = len(jaxpr.out_avals) - nk
    const_uk, carry_uk, xs_uk = split_scan_args([trace.is_unknown(x) for x in args], nc, nk)
    while True:     # a carry the body makes unknown is unknown from the start
        known, unknown, out_uk, fwd = partial_eval_jaxpr(jaxpr, const_uk + carry_uk + xs_uk)
        if all(c or not o for c, o in zip(carry_uk, out_uk[:nk])):
            break
        carry_uk = [a or b for a, b in zip(carry_uk, out_uk[:nk])]
    uk = const_uk + carry_uk + xs_uk
    avals = jaxpr.in_avals
    n_kc, n_kk = const_uk.count(False), carry_uk.count(False)
    known_args = [x for x, u in zip(args, uk) if not u]
    passed = [c and not o for c, o in zip(carry_uk, out_uk[:nk])]     # unknown, known inputs
    n_known_out = out_uk.count(False)
    kind = _residual_kinds(known, fwd, known_args, n_kc, n_kk, n_known_out)

    def known_body(*known_ins):
        outs = eval_jaxpr(known.jaxpr, known.consts, *known_ins)
        k_outs, computed = outs[:n_known_out], iter(outs[n_known_out:])
        full = iter(k_outs)
        full = [None if u else next(full) for u in out_uk]
        res = [next(computed) if f is None else known_ins[f]
               for f, k in zip(fwd, kind) if k == "body"]
        carry = [o for o, u in zip(full[:nk], carry_uk) if not u]
        ys = [o for o, u in zip(full[nk:], out_uk[nk:]) if not u]
        return carry + ys + res + [o for o, p in zip(full[:nk], passed) if p]

    known_avals = [a for a, u in zip(avals, uk) if not u]
    known_jaxpr = trace_to_jaxpr(known_body, known_avals)
    computed_vars = iter(known.jaxpr.outvars[n_known_out:])
    hoisted_vars = [next(computed_vars) if f is None else None for f in fwd]
    with set_current_trace(trace.parent_trace):
        hoisted = iter(_eval_invariant(known, known_args[:n_kc],
                                       [v for v, k in zip(hoisted_vars, kind) if k == "hoist"]))
        known_outs = scan_p.bind(*known_args, jaxpr=known_jaxpr, length=length,
                                 reverse=params["reverse"], unroll=params["unroll"],
                                 num_consts=n_kc, num_carry=n_kk)
    n_k_carry_ys = n_kk + out_uk[nk:].count(False)
    body_res = known_outs[n_k_carry_ys:]
    const_res = [known_args[f] if k == "const" else next(hoisted)  # not scanned over
                 for f, k in zip(fwd, kind) if k in ("const", "hoist")]
    computed = iter(body_res)
    ext_res = [known_args[f] if k == "x" else next(computed)        # scanned by the unknown
               for f, k in zip(fwd, kind) if k in ("x", "body")] + list(computed)  # passed last
    n_ext = len(ext_res) - sum(passed)

    def unknown_body(*ins):
        c_res = iter(ins[:len(const_res)])
        uk_ins = ins[len(const_res):len(ins) - len(ext_res)]
        e_res = ins[len(ins) - len(ext_res):]
        e_it, passed_vals = iter(e_res[:n_ext]), iter(e_res[n_ext:])
        res = [next(c_res) if k in ("const", "hoist") else next(e_it) for k in kind]
        outs = iter(eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *uk_ins))
        carry = [next(passed_vals) if p else next(outs) for p, u in zip(passed, carry_uk) if u]
        return carry + [next(outs) for u in out_uk[nk:] if u]

    uk_avals = [a for a, u in zip(avals, uk) if u]
    unknown_jaxpr = trace_to_jaxpr(
        unknown_body, [get_aval(r) for r in const_res] + uk_avals
        + [unstacked_aval(get_aval(r)) for r in ext_res])
    unknown_outs = JaxprTrace.process_primitive(
        trace, scan_p, [*const_res, *[x for x, u in zip(args, uk) if u], *ext_res],
        dict(jaxpr=unknown_jaxpr, length=length, reverse=params["reverse"],
             unroll=params["unroll"], num_consts=len(const_res) + sum(const_uk),
             num_carry=sum(carry_uk)))
    known_iter, unknown_iter = iter(known_outs[:n_k_carry_ys]), iter(unknown_outs)
    return [next(unknown_iter) if u else next(known_iter) for u in carry_uk + out_uk[nk:]]


partial_eval_rules[scan_p] = _scan_partial_eval


def _scan_transpose(cts, *args, jaxpr, length, reverse, unroll, num_consts, num_carry):
    nc, nk = num_consts, num_carry
    consts, init, xs = split_scan_args(args, nc, nk)
    c_lin, x_lin = [is_linear(x) for x in consts], [is_linear(x) for x in xs]
    ires = [x for x in consts if not is_linear(x)]
    eres = [x for x in xs if not is_linear(x)]
    ct_carry = [instantiate_zeros(ct) for ct in cts[:nk]]
    ys_nz = [type(ct) is not Zero for ct in cts[nk:]]       # zero cotangents are not scanned
    ct_ys = [ct for ct, nz in zip(cts[nk:], ys_nz) if nz]
    in_avals = jaxpr.in_avals
    lin_const_avals = [tangent_aval(a) for a, lin in zip(in_avals[:nc], c_lin) if lin]
    ct_consts = [zeros_like_aval(a) for a in lin_const_avals]

    def body(*ins):
        ires_, acc, ct_c, ct_y, eres_ = _split_groups(
            ins, [len(ires), len(ct_consts), nk, len(ct_ys), len(eres)])
        it_i, it_e = iter(ires_), iter(eres_)
        full = ([UndefinedPrimal(a) if lin else next(it_i) for a, lin in zip(in_avals, c_lin)]
                + [UndefinedPrimal(get_aval(ct)) for ct in ct_carry]
                + [UndefinedPrimal(a) if lin else next(it_e)
                   for a, lin in zip(in_avals[nc + nk:], x_lin)])
        ct_y = iter(ct_y)
        ct_y = [next(ct_y) if nz else ct for ct, nz in zip(cts[nk:], ys_nz)]
        cts_in = backward_pass(jaxpr.jaxpr, jaxpr.consts, full, list(ct_c) + ct_y)
        ct_c_in, ct_k_in, ct_x_in = split_scan_args(cts_in, nc, nk)
        acc = [instantiate_zeros(add_cotangents(a, ct))
               for a, ct in zip(acc, [ct for ct, lin in zip(ct_c_in, c_lin) if lin])]
        return (acc + [instantiate_zeros(ct) for ct in ct_k_in]
                + [instantiate_zeros(ct) for ct, lin in zip(ct_x_in, x_lin) if lin])

    # the carry's cotangents have the types of the output carry's (strongly typed where the
    # initial carry was weak): transpose a body whose carry inputs have those types, as JAX does
    jaxpr = retype_invars(jaxpr, range(nc, nc + nk), [get_aval(ct) for ct in ct_carry])
    t_avals = ([get_aval(x) for x in ires] + lin_const_avals
               + [get_aval(ct) for ct in ct_carry]
               + [unstacked_aval(get_aval(ct)) for ct in ct_ys]
               + [unstacked_aval(get_aval(x)) for x in eres])
    t_jaxpr = trace_to_jaxpr(body, t_avals)
    # residuals the backward loop does not read (those of outputs whose cotangent is zero) are
    # not passed to it: the known scan then computes them for nobody, and XLA drops them
    used = _used_vars(t_jaxpr.jaxpr)
    n_mid = len(ct_consts) + nk + len(ct_ys)
    keep = [v in used for v in t_jaxpr.jaxpr.invars]
    keep[len(ires):len(ires) + n_mid] = [True] * n_mid
    j = t_jaxpr.jaxpr
    t_jaxpr = ClosedJaxpr(Jaxpr(j.constvars, [v for v, k in zip(j.invars, keep) if k], j.eqns,
                                j.outvars), t_jaxpr.consts)
    args = [x for x, k in zip([*ires, *ct_consts, *ct_carry, *ct_ys, *eres], keep) if k]
    n_ires = sum(keep[:len(ires)])
    outs = scan_p.bind(*args, jaxpr=t_jaxpr, length=length, reverse=not reverse, unroll=unroll,
                       num_consts=n_ires, num_carry=len(ct_consts) + nk)
    ct_c_out = iter(outs[:len(ct_consts)])
    ct_k_out = outs[len(ct_consts):len(ct_consts) + nk]
    ct_x_out = iter(outs[len(ct_consts) + nk:])
    return ([next(ct_c_out) if lin else None for lin in c_lin]
            + [ct if is_linear(x) else None for ct, x in zip(ct_k_out, init)]
            + [next(ct_x_out) if lin else None for lin in x_lin])


def _used_vars(j: Jaxpr) -> set:
    return ({v for e in j.eqns for v in e.invars if type(v) is Var}
            | {v for v in j.outvars if type(v) is Var})


def _split_groups(xs, sizes):
    it = iter(xs)
    return [[next(it) for _ in range(n)] for n in sizes]


def _substitute(j: Jaxpr, new: dict) -> Jaxpr:
    """`j` with the variables in `new` replaced by their values there."""
    sub = lambda vs: [new.get(v, v) if type(v) is Var else v for v in vs]  # noqa: E731
    return Jaxpr(j.constvars, sub(j.invars), [e._replace(invars=sub(e.invars)) for e in j.eqns],
                 sub(j.outvars))


def retype_invars(closed, positions, avals):
    """`closed` with the inputs at `positions` given the types `avals` (same shapes and dtypes,
    weak types may differ)."""
    j = closed.jaxpr
    new = dict(zip((j.invars[i] for i in positions), (Var(a) for a in avals)))
    if all(v.aval == new[v].aval for v in new):
        return closed
    return ClosedJaxpr(_substitute(j, new), closed.consts)



transpose_rules[scan_p] = _scan_transpose


compiled_impls = {}     # loop primitive -> its impl, compiled by XLA (appendix A10)


def _loop_impl(primitive, python_impl):
    """Run the loop compiled if it can be (its compiled impl returns None if not), else in
    Python: always under `disable_jit()`."""
    def impl(*args, **params):
        out = None
        if primitive in compiled_impls and not config.jax_disable_jit:
            out = compiled_impls[primitive](*args, **params)
        return python_impl(*args, **params) if out is None else out
    return impl


impl_rules[while_p] = _loop_impl(while_p, _while_impl)
impl_rules[scan_p] = _loop_impl(scan_p, _scan_impl)
