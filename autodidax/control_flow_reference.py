# Generated from chapters/A10_control_flow_reference.md by `make export`: edit the chapter, not this file.


"""The reference half of chapter 10's control flow: the three primitives under `vmap`,
`while_loop` under `jvp`, `scan` lowered, `cond` under reverse mode, `fori_loop`, `switch` and
`map`, built on the three, and chapter 10's hooks filled: forwarding rewrites, eager loops
compiled, JAX's error messages."""
from __future__ import annotations

import inspect
import operator

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax import numpy as jnp
from autodidax.autodiff import (backward_pass, is_linear, partial_eval_jaxpr, partial_eval_rules,
                                transpose_rules)
from autodidax.batching import batch, batching_rules, bdim_at_front, moveaxis, not_mapped, vmap
from autodidax.control_flow import (bind_forwarding, common_consts, compiled_impls, cond_p,
                                    const_values, forwarding_rules, jax_errors, jvp_jaxpr,
                                    no_operand, nonzero_tangents, one_operand, retype_invars,
                                    same_type, scan, scan_p, split_scan_args, split_while_args,
                                    stacked_aval, trace_to_jaxpr_with_consts, type_diff,
                                    unstacked_aval, while_loop, while_p, wrapped_once)
from autodidax.core import (ConcretizationTypeError, Primitive, ShapedArray, Tracer,
                            abstract_eval_rules, api_boundary, dtype_kind, get_aval, impl_rules,
                            set_current_trace)
from autodidax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprTrace, JaxprTypeError, Var, eval_jaxpr,
                             jaxpr_as_fun, trace_to_jaxpr, weakref_lru_cache)
from autodidax.jvp import (Zero, instantiate_zeros, jvp_rules, stop_gradient, tangent_aval,
                           zeros_like_aval)
from autodidax.lowering import (aval_to_ir_type, compare, full_like_aval, ir_constant,
                                jaxpr_subcomp, lowering_rules)
from autodidax.runtime import default_device, xla_primitive_executable
from autodidax.tree_util import (keystr, tree_flatten, tree_flatten_with_path, tree_map,
                                 tree_unflatten)


def mapped_size(vals, dims):
    return next(get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not not_mapped)


def batch_jaxpr(closed: ClosedJaxpr, axis_size, in_dims, in_avals, force):
    """`closed`, batched: inputs of types `in_avals` batched along `in_dims`; each output batched
    along axis 0 if it depends on a batched input or is marked in `force`, unbatched otherwise.
    Returns the jaxpr, and which outputs are batched."""
    out_batched = []

    def batched_fun(*args):
        outs, dims = batch(jaxpr_as_fun(closed), axis_size, in_dims, args)
        out_batched[:] = [d is not not_mapped or f for d, f in zip(dims, force)]
        return [bdim_at_front(o, d, axis_size) if b else o
                for o, d, b in zip(outs, dims, out_batched)]

    return trace_to_jaxpr(batched_fun, in_avals), out_batched


def select_examples(which, cases):
    """`select_n` with one `which` per example, for cases batched along axis 0."""
    shape = get_aval(cases[0]).shape
    if len(shape) > 1:
        which = lax.broadcast_in_dim(which, shape, [0])
    return lax.select_n(which, *cases)


def _cond_batching_rule(vals, dims, *, branches):
    (index, *ops), (index_dim, *op_dims) = vals, dims
    size = mapped_size(vals, dims)
    if index_dim is not not_mapped:     # a predicate per example: run every branch, then select
        index = moveaxis(index, index_dim, 0)
        ops = [bdim_at_front(x, d, size) for x, d in zip(ops, op_dims)]
        results = []
        for i, b in enumerate(branches):
            # the examples a branch does not serve reach it through `stop_gradient`, as in JAX
            mine = lax.eq(index, np.int32(i))
            safe = [select_examples(mine, [stop_gradient(x), x]) for x in ops]
            outs, out_dims = batch(jaxpr_as_fun(b), size, [0] * len(ops), safe)
            results.append([bdim_at_front(o, d, size) for o, d in zip(outs, out_dims)])
        outs = [select_examples(index, list(cases)) for cases in zip(*results)]
        return outs, [0] * len(outs)
    avals, n_out = [get_aval(x) for x in ops], len(branches[0].out_avals)
    out_batched = [False] * n_out
    for b in branches:
        _, batched = batch_jaxpr(b, size, op_dims, avals, [False] * n_out)
        out_batched = [x or y for x, y in zip(out_batched, batched)]
    new = tuple(batch_jaxpr(b, size, op_dims, avals, out_batched)[0] for b in branches)
    outs = cond_p.bind(index, *ops, branches=new)
    return outs, [0 if b else not_mapped for b in out_batched]


batching_rules[cond_p] = _cond_batching_rule


def _permute_invars(closed, order):
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, [j.invars[i] for i in order], j.eqns, j.outvars),
                       closed.consts)


def _add_invars(closed, avals):
    """`closed`, taking unused inputs of types `avals` after its own."""
    j = closed.jaxpr
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars + [Var(a) for a in avals], j.eqns,
                             j.outvars), closed.consts)


def _while_jvp(primals, tangents, *, cond_jaxpr, cond_nconsts, body_jaxpr, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    nonzeros = nonzero_tangents(primals, tangents)
    body_nz, carry_nz = nonzeros[nc:nc + nb], nonzeros[nc + nb:]
    while True:     # a carry tangent the body makes nonzero is nonzero from the start
        _, out_nz = jvp_jaxpr(body_jaxpr, body_nz + carry_nz, carry_nz)
        if out_nz == carry_nz:
            break
        carry_nz = [a or b for a, b in zip(carry_nz, out_nz)]
    body_jvp, _ = jvp_jaxpr(body_jaxpr, body_nz + carry_nz, carry_nz)
    # body_jvp takes (consts, carry, tangents of consts, tangents of carry); the loop needs the
    # consts first, then the carry.
    n, nbt, nct = len(carry_nz), sum(body_nz), sum(carry_nz)
    order = [*range(nb), *range(nb + n, nb + n + nbt), *range(nb, nb + n),
             *range(nb + n + nbt, nb + n + nbt + nct)]
    body_jvp = _permute_invars(body_jvp, order)
    carry_avals = body_jaxpr.in_avals[nb:]
    cond_jvp = _add_invars(cond_jaxpr, [tangent_aval(a)
                                        for a, nz in zip(carry_avals, carry_nz) if nz])
    body_tangents = [t for t, nz in zip(tangents[nc:nc + nb], body_nz) if nz]
    init_tangents = [instantiate_zeros(t) for t, nz in zip(tangents[nc + nb:], carry_nz) if nz]
    outs = while_p.bind(*primals[:nc + nb], *body_tangents, *primals[nc + nb:], *init_tangents,
                        cond_jaxpr=cond_jvp, cond_nconsts=nc,
                        body_jaxpr=body_jvp, body_nconsts=nb + nbt)
    out_tangents = iter(outs[n:])
    return outs[:n], [next(out_tangents) if nz else Zero(tangent_aval(a))
                      for nz, a in zip(carry_nz, carry_avals)]


jvp_rules[while_p] = _while_jvp


def _while_batching_rule(vals, dims, *, cond_jaxpr, cond_nconsts, body_jaxpr, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    size = mapped_size(vals, dims)
    cond_consts, body_consts, init = split_while_args(list(vals), nc, nb)
    cc_dims, bc_dims, init_dims = split_while_args(list(dims), nc, nb)
    cc_avals, bc_avals = [get_aval(x) for x in cond_consts], [get_aval(x) for x in body_consts]
    carry_avals = body_jaxpr.in_avals[nb:]

    def carry_types(batched):
        return ([0 if b else not_mapped for b in batched],
                [a.update(shape=(size, *a.shape)) if b else a
                 for a, b in zip(carry_avals, batched)])

    carry_bat = [d is not not_mapped for d in init_dims]
    while True:     # a carry the body makes batched is batched from the start
        cd, ca = carry_types(carry_bat)
        _, out_bat = batch_jaxpr(body_jaxpr, size, bc_dims + cd, bc_avals + ca, carry_bat)
        if out_bat == carry_bat:
            break
        carry_bat = [a or b for a, b in zip(carry_bat, out_bat)]
    _, (pred_batched,) = batch_jaxpr(cond_jaxpr, size, cc_dims + cd, cc_avals + ca, [False])
    if pred_batched:
        carry_bat = [True] * len(carry_bat)
        cd, ca = carry_types(carry_bat)
    init = [bdim_at_front(x, d, size) if b else x for x, d, b in zip(init, init_dims, carry_bat)]
    if not pred_batched:
        new_cond, _ = batch_jaxpr(cond_jaxpr, size, cc_dims + cd, cc_avals + ca, [False])
        new_body, _ = batch_jaxpr(body_jaxpr, size, bc_dims + cd, bc_avals + ca, carry_bat)
        outs = while_p.bind(*cond_consts, *body_consts, *init, cond_jaxpr=new_cond,
                            cond_nconsts=nc, body_jaxpr=new_body, body_nconsts=nb)
        return outs, cd

    def preds(cond_consts, carry):
        (pred,), (d,) = batch(jaxpr_as_fun(cond_jaxpr), size, cc_dims + cd,
                              [*cond_consts, *carry])
        return bdim_at_front(pred, d, size)

    def any_pred(*args):
        return [lax.reduce_max(preds(args[:nc], args[nc:]), [0])]

    def masked_body(*args):     # examples whose predicate is false keep their carry
        cond_consts, body_consts, carry = split_while_args(args, nc, nb)
        new, new_dims = batch(jaxpr_as_fun(body_jaxpr), size, bc_dims + cd,
                              [*body_consts, *carry])
        new = [bdim_at_front(x, d, size) for x, d in zip(new, new_dims)]
        which = preds(cond_consts, carry)
        return [select_examples(which, [old, x]) for old, x in zip(carry, new)]

    new_cond = trace_to_jaxpr(any_pred, cc_avals + ca)
    new_body = trace_to_jaxpr(masked_body, cc_avals + bc_avals + ca)
    outs = while_p.bind(*cond_consts, *cond_consts, *body_consts, *init, cond_jaxpr=new_cond,
                        cond_nconsts=nc, body_jaxpr=new_body, body_nconsts=nc + nb)
    return outs, cd


batching_rules[while_p] = _while_batching_rule


def _scan_batching_rule(vals, dims, *, jaxpr, length, reverse, unroll, num_consts, num_carry):
    nc, nk = num_consts, num_carry
    size = mapped_size(vals, dims)
    n_ys = len(jaxpr.out_avals) - nk
    batched = [d is not not_mapped for d in dims]
    const_b, carry_b, xs_b = split_scan_args(batched, nc, nk)

    def body_types(bat):
        return ([0 if b else not_mapped for b in bat],
                [a.update(shape=(size, *a.shape)) if b else a
                 for a, b in zip(jaxpr.in_avals, bat)])

    while True:     # a carry the body makes batched is batched from the start
        body, out_b = batch_jaxpr(jaxpr, size, *body_types(const_b + carry_b + xs_b),
                                  carry_b + [False] * n_ys)
        if out_b[:nk] == carry_b:
            break
        carry_b = [a or b for a, b in zip(carry_b, out_b[:nk])]
    consts, init, xs = split_scan_args(vals, nc, nk)
    c_dims, i_dims, x_dims = split_scan_args(dims, nc, nk)
    consts = [moveaxis(x, d, 0) if d is not not_mapped else x for x, d in zip(consts, c_dims)]
    init = [bdim_at_front(x, d, size) if b else x for x, d, b in zip(init, i_dims, carry_b)]
    xs = [moveaxis(x, d, 1) if d is not not_mapped else x for x, d in zip(xs, x_dims)]
    outs = scan_p.bind(*consts, *init, *xs, jaxpr=body, length=length, reverse=reverse,
                       unroll=unroll, num_consts=nc, num_carry=nk)
    return outs, ([0 if b else not_mapped for b in carry_b]
                  + [1 if b else not_mapped for b in out_b[nk:]])


batching_rules[scan_p] = _scan_batching_rule


_I32 = ShapedArray((), np.dtype(np.int32))


def _scan_step(ctx, jaxpr, length, reverse, step, consts, carry, xs, ys, x_avals, y_avals):
    """One iteration of the scan, at step `step` (an i32 ir.Value); returns (carry, ys)."""
    i = hlo.subtract(ir_constant(np.int32(length - 1)), step) if reverse else step
    zero = ir_constant(np.int32(0))
    x_t = []
    for x, a in zip(xs, x_avals):
        row = hlo.dynamic_slice(x, [i] + [zero] * len(a.shape),
                                ir.DenseI64ArrayAttr.get([1, *a.shape]))
        x_t.append(hlo.reshape(aval_to_ir_type(a), row))
    outs = jaxpr_subcomp(ctx.module_context, jaxpr.jaxpr, const_values(jaxpr),
                         list(consts) + list(carry) + x_t)
    carry, y_t = outs[:len(carry)], outs[len(carry):]
    ys = [hlo.dynamic_update_slice(buf, hlo.reshape(aval_to_ir_type(stacked_aval(a, 1)), y),
                                   [i] + [zero] * len(a.shape))
          for buf, y, a in zip(ys, y_t, y_avals)]
    return carry, ys


def _scan_lowering(ctx, *args, jaxpr, length, reverse, unroll, num_consts, num_carry):
    nc, nk = num_consts, num_carry
    consts, carry, xs = split_scan_args(list(args), nc, nk)
    x_avals = [unstacked_aval(a) for a in ctx.avals_in[nc + nk:]]
    y_avals = jaxpr.out_avals[nk:]
    ys = [full_like_aval(0, a) for a in ctx.avals_out[nk:]]
    trips = length // unroll if unroll else 0
    if unroll != 1 and trips == 1 and length % unroll == 0:
        trips = 0                               # fully unrolled: no loop at all, as in JAX
    step = lambda t, carry, ys: _scan_step(ctx, jaxpr, length, reverse, t, consts,  # noqa: E731
                                           carry, xs, ys, x_avals, y_avals)
    if trips:
        state = [ir_constant(np.int32(0)), *carry, *ys]
        types = [aval_to_ir_type(_I32)] + [aval_to_ir_type(a) for a in
                                           [*ctx.avals_in[nc:nc + nk], *ctx.avals_out[nk:]]]
        loop = hlo.WhileOp(types, state)
        cond_block = loop.regions[0].blocks.append(*types)
        with ir.InsertionPoint(cond_block):
            hlo.return_([compare(cond_block.arguments[0], ir_constant(np.int32(trips)), "LT",
                                 _I32)])
        body_block = loop.regions[1].blocks.append(*types)
        with ir.InsertionPoint(body_block):
            trip, *rest = body_block.arguments
            c, b = list(rest[:nk]), list(rest[nk:])
            for k in range(unroll):
                t = hlo.add(hlo.multiply(trip, ir_constant(np.int32(unroll))),
                            ir_constant(np.int32(k)))
                c, b = step(t, c, b)
            hlo.return_([hlo.add(trip, ir_constant(np.int32(1))), *c, *b])
        results = list(loop.results)[1:]
        carry, ys = results[:nk], results[nk:]
    for t in range(trips * unroll, length):     # the steps that do not fill a trip
        carry, ys = step(ir_constant(np.int32(t)), carry, ys)
    return list(carry) + list(ys)


lowering_rules[scan_p] = _scan_lowering


def _cond_partial_eval(trace, args, params):
    branches = params["branches"]
    index, *ops = args
    if trace.is_unknown(index):
        return JaxprTrace.process_primitive(trace, cond_p, args, params)
    unknowns = [trace.is_unknown(x) for x in ops]
    splits = [partial_eval_jaxpr(b, unknowns) for b in branches]
    out_avals = branches[0].out_avals
    out_uk = [any(s[2][k] for s in splits) for k in range(len(out_avals))]
    res_avals = []      # per branch: what its unknown part reads, then outputs it passes on
    for known, unknown, uk, fwd in splits:
        passed = [a for a, u, mine in zip(out_avals, out_uk, uk) if u and not mine]
        res_avals.append([v.aval for v in unknown.jaxpr.invars[:len(fwd)]] + passed)

    def known_branch(i):
        known, unknown, uk, fwd = splits[i]

        def fun(*known_ops):
            outs = eval_jaxpr(known.jaxpr, known.consts, *known_ops)
            n = uk.count(False)
            mine, computed = iter(outs[:n]), iter(outs[n:])
            k_outs = [None if u else next(mine) for u in uk]
            res = [known_ops[f] if f is not None else next(computed) for f in fwd]
            res += [o for o, u, m in zip(k_outs, out_uk, uk) if u and not m]
            all_res = []
            for j, avals in enumerate(res_avals):
                all_res += res if j == i else [zeros_like_aval(a) for a in avals]
            return [o for o, u in zip(k_outs, out_uk) if not u] + all_res
        return trace_to_jaxpr(fun, [get_aval(x) for x, u in zip(ops, unknowns) if not u])

    def unknown_branch(i):
        known, unknown, uk, fwd = splits[i]
        start, n_res = sum(len(a) for a in res_avals[:i]), sum(len(a) for a in res_avals)

        def fun(*args):
            mine, uk_ops = args[start:start + len(res_avals[i])], args[n_res:]
            res, passed = mine[:len(fwd)], iter(mine[len(fwd):])
            outs = iter(eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *uk_ops))
            return [next(outs) if m else next(passed) for u, m in zip(out_uk, uk) if u]
        uk_avals = [get_aval(x) for x, u in zip(ops, unknowns) if u]
        return trace_to_jaxpr(fun, [a for avals in res_avals for a in avals] + uk_avals)

    with set_current_trace(trace.parent_trace):
        known_outs = cond_p.bind(index, *[x for x, u in zip(ops, unknowns) if not u],
                                 branches=tuple(known_branch(i) for i in range(len(branches))))
    n_known = out_uk.count(False)
    unknown_outs = JaxprTrace.process_primitive(
        trace, cond_p, [index, *known_outs[n_known:], *[x for x, u in zip(ops, unknowns) if u]],
        {"branches": tuple(unknown_branch(i) for i in range(len(branches)))})
    known_iter, unknown_iter = iter(known_outs[:n_known]), iter(unknown_outs)
    return [next(unknown_iter) if u else next(known_iter) for u in out_uk]


partial_eval_rules[cond_p] = _cond_partial_eval


def _cond_transpose(cts, index, *ops, branches):
    if is_linear(index):
        raise ValueError("cond is not linear in its predicate")
    linear = [is_linear(x) for x in ops]
    known = [x for x in ops if not is_linear(x)]
    cts = [instantiate_zeros(ct) for ct in cts]

    def transposed(branch):
        branch = retype_invars(branch, [i for i, lin in enumerate(linear) if lin],
                                [x.aval for x in ops if is_linear(x)])

        def fun(*known_and_cts):
            it = iter(known_and_cts[:len(known)])
            full = [x if is_linear(x) else next(it) for x in ops]
            cts_in = backward_pass(branch.jaxpr, branch.consts, full, known_and_cts[len(known):])
            return [instantiate_zeros(ct) for ct, lin in zip(cts_in, linear) if lin]
        return trace_to_jaxpr(fun, [get_aval(x) for x in (*known, *cts)])

    outs = iter(cond_p.bind(index, *known, *cts, branches=tuple(transposed(b) for b in branches)))
    return [None] + [next(outs) if lin else None for lin in linear]


transpose_rules[cond_p] = _cond_transpose


def _bound_dtype(lower, upper):
    """The dtype of the counter: the bounds', or the strongly typed one's if one is a weakly
    typed integer (a Python int), as in JAX."""
    la, ua = get_aval(lower), get_aval(upper)
    if la.dtype == ua.dtype:
        return la.dtype
    if dtype_kind(la.dtype) == "i" and dtype_kind(ua.dtype) == "i" and la.weak_type != ua.weak_type:
        return ua.dtype if la.weak_type else la.dtype
    raise TypeError("lower and upper arguments to fori_loop must have equal types, got "
                    f"{la.dtype.name} and {ua.dtype.name}")


def _fori_scan_body(get_body):       # one per body_fun (chapter 10's wrapped_once), as JAX's
    def scan_body(loop_carry, _):     # JAX's name for the carry, which its errors print
        i, x = loop_carry
        return (i + 1, get_body()(i, x)), None
    return scan_body


@api_boundary
def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """`val = body_fun(i, val)` for `i` from `lower` to `upper - 1`; returns the final `val`."""
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    dtype = _bound_dtype(lower, upper)
    if not isinstance(lower, Tracer) and not isinstance(upper, Tracer):
        length = max(int(upper) - int(lower), 0)
        (_, result), _ = scan(wrapped_once(_fori_scan_body, body_fun), (int(lower), init_val),
                              None, length=length, unroll=False if unroll is None else unroll)
        return result
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError("Can only use `unroll` in `fori_loop` if the loop bounds are "
                         "statically known.")
    if get_aval(lower).dtype != dtype:
        lower = lax.convert_element_type(lower, dtype)
    if get_aval(upper).dtype != dtype:
        upper = lax.convert_element_type(upper, dtype)

    def fori_cond(carry):
        i, upper, _ = carry
        return lax.lt(i, upper)

    def fori_body(carry):
        i, upper, x = carry
        return lax.add(i, lax.const_like(i, 1)), upper, body_fun(i, x)

    return while_loop(fori_cond, fori_body, (lower, upper, init_val))[2]


clamp_p = Primitive("clamp")


def _clamp_abstract(lo, x, hi):
    for b in (lo, hi):
        if b.dtype != x.dtype or (b.shape and b.shape != x.shape):
            raise TypeError(f"clamp requires min and max to be scalars or of the operand's "
                            f"shape, of its dtype; got min {lo.str_short()}, operand "
                            f"{x.str_short()}, max {hi.str_short()}")
    return x


def _clamp_batching_rule(vals, dims, **params):
    size = mapped_size(vals, dims)
    lo, x, hi = [bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    shape = get_aval(x).shape
    lo, hi = [lax.broadcast_in_dim(b, shape, [0]) if get_aval(b).shape != shape else b
              for b in (lo, hi)]
    return clamp_p.bind(lo, x, hi), 0


def _clamp_jvp(primals, tangents):
    lo, x, hi = primals
    out = clamp_p.bind(lo, x, hi)
    t = tangents[1]
    if type(t) is Zero:
        return out, t
    inside = lax.bitwise_and(lax.gt(x, lo), lax.lt(x, hi))
    return out, lax.select_n(inside, zeros_like_aval(get_aval(t)), t)


impl_rules[clamp_p] = lambda lo, x, hi: np.clip(x, lo, hi)
abstract_eval_rules[clamp_p] = _clamp_abstract
jvp_rules[clamp_p] = _clamp_jvp
batching_rules[clamp_p] = _clamp_batching_rule
lowering_rules[clamp_p] = lambda ctx, lo, x, hi: [hlo.clamp(lo, x, hi)]


def clamp(min, x, max):
    """`x` with values below `min` raised to it and above `max` lowered to it."""
    return clamp_p.bind(min, x, max)


@api_boundary
def switch(index, branches, *operands, operand=no_operand):
    """`branches[index](*operands)`, with `index` clamped into range."""
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    operands = one_operand(operands, operand)
    if np.shape(index):
        raise TypeError(f"Branch index must be scalar, got {index} of shape "
                        f"{np.shape(index)}.")
    try:
        dtype = get_aval(index).dtype
    except TypeError:
        raise TypeError(f"Index type must be an integer, got {index}.") from None
    if dtype_kind(dtype) not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {dtype}")
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        return branches[0](*operands)
    index = lax.convert_element_type(index, np.int32)
    index = clamp(np.int32(0), index, np.int32(len(branches) - 1))
    ops_flat, in_tree = tree_flatten(operands)
    avals = [get_aval(x) for x in ops_flat]
    traced = [trace_to_jaxpr_with_consts(b, in_tree, avals) for b in branches]
    trees = [t[2] for t in traced]
    for i, tree in enumerate(trees[1:], 1):
        if tree != trees[0]:
            raise TypeError(f"branch 0 and branch{i} outputs must have same type structure, "
                            f"got {trees[0]} and {tree}.")
        diff = type_diff("branch 0", f"branch{i}", traced[0][0].out_avals, traced[i][0].out_avals)
        if diff:
            raise TypeError(diff + ".")
    jaxprs, consts = common_consts([t[0] for t in traced], [t[1] for t in traced])
    return tree_unflatten(trees[0], bind_forwarding(cond_p, [index, *consts, *ops_flat],
                                                    branches=tuple(jaxprs)))


@api_boundary
def map(f, xs, *, batch_size=None):
    """`f` applied to each row of `xs` (a pytree of arrays), the results stacked."""
    if batch_size is None:
        return scan(lambda _, x: ((), f(x)), (), xs)[1]
    leaves, tree = tree_flatten(xs)
    n = np.shape(leaves[0])[0]
    batches, rest = divmod(n, batch_size) if batch_size else (0, n)
    cut = batches * batch_size
    stacked, left = [], []
    for x in leaves:        # as JAX's does: each leaf cut into its batches and what is left
        if batches:
            stacked.append(lax.reshape(x[:cut], (batches, batch_size, *np.shape(x)[1:])))
        if rest or not batches:
            left.append(x[cut:])
    if not batches:
        return vmap(f)(tree_unflatten(tree, left))
    ys = scan(lambda _, x: ((), vmap(f)(x)), (), tree_unflatten(tree, stacked))[1]
    flat = lambda y: lax.reshape(y, (cut, *np.shape(y)[2:]))   # noqa: E731
    if not rest:
        return tree_map(flat, ys)
    rest_ys = vmap(f)(tree_unflatten(tree, left))
    return tree_map(lambda a, b: lax.concatenate([flat(a), b], 0), ys, rest_ys)





@weakref_lru_cache
def _cond_forwarded(first, rest):
    """The branches `(first, *rest)` without the outputs that all of them forward from one
    operand, and which operand each output is (None: computed). Memoised, as `_forwarded`
    below: the same branches bound again bind the same rewritten ones."""
    branches, fwd = (first, *rest), []
    for outs in zip(*[b.jaxpr.outvars for b in branches]):
        where = {b.jaxpr.invars.index(v) if type(v) is Var and v in b.jaxpr.invars else None
                 for b, v in zip(branches, outs)}
        fwd.append(where.pop() if len(where) == 1 else None)
    if any(f is not None for f in fwd):
        branches = tuple(ClosedJaxpr(Jaxpr(b.jaxpr.constvars, b.jaxpr.invars, b.jaxpr.eqns,
                                           [v for v, f in zip(b.jaxpr.outvars, fwd) if f is None]),
                                     b.consts) for b in branches)
    return branches, fwd


def _cond_forwarding(args, *, branches):
    branches, fwd = _cond_forwarded(branches[0], branches[1:])
    ops = args[1:]

    def rebuild(outs):
        outs = iter(outs)
        return [next(outs) if f is None else jnp.asarray(ops[f]) for f in fwd]
    return args, dict(branches=branches), rebuild


@weakref_lru_cache
def _forwarded(jaxpr, nc, num_carry, n_xs):
    """The scan body with its pass-through carries moved to the constants, and its ys that are
    x slices dropped; and which carries moved, which ys are which xs. Memoised: a scan bound
    again with the same jaxpr binds the same rewritten one, which chapter 7's dispatch finds."""
    j = jaxpr.jaxpr
    moved = [j.outvars[i] is j.invars[nc + i] for i in range(num_carry)]
    carry_in = j.invars[nc:nc + num_carry]
    invars = ([v for v, m in zip(carry_in, moved) if m] + j.invars[:nc]
              + [v for v, m in zip(carry_in, moved) if not m] + j.invars[nc + num_carry:])
    outvars = [v for v, m in zip(j.outvars, moved) if not m] + j.outvars[num_carry:]
    nk, x_vars = num_carry - sum(moved), invars[len(invars) - n_xs:]
    same_x = [x_vars.index(v) if type(v) is Var and v in x_vars else None for v in outvars[nk:]]
    outvars = outvars[:nk] + [v for v, s in zip(outvars[nk:], same_x) if s is None]
    return ClosedJaxpr(Jaxpr(j.constvars, invars, j.eqns, outvars), jaxpr.consts), moved, same_x


def _as_array(x):
    """A NumPy input returned as an output becomes an array of the library, as in JAX."""
    return jnp.asarray(x) if isinstance(x, np.ndarray) else x


def _scan_forwarding(args, *, jaxpr, length, reverse, unroll, num_consts, num_carry):
    consts, init_flat, xs_flat = split_scan_args(args, num_consts, num_carry)
    # a carry passed through: a constant; a y that is an x slice: that input, not stacked again
    new, moved, same_x = _forwarded(jaxpr, num_consts, num_carry, len(xs_flat))
    consts = [x for x, m in zip(init_flat, moved) if m] + list(consts)
    carry_flat = [x for x, m in zip(init_flat, moved) if not m]
    nk = len(carry_flat)
    params = dict(jaxpr=new, length=length, reverse=reverse, unroll=unroll,
                  num_consts=len(consts), num_carry=nk)

    def rebuild(outs):
        carry_out, ys = iter(outs[:nk]), iter(outs[nk:])
        moved_vals = iter(x for x, m in zip(init_flat, moved) if m)
        carry_out = [next(moved_vals) if m else next(carry_out) for m in moved]
        return carry_out + [next(ys) if s is None else _as_array(xs_flat[s]) for s in same_x]
    return [*consts, *carry_flat, *xs_flat], params, rebuild


forwarding_rules.update({cond_p: _cond_forwarding, scan_p: _scan_forwarding})


def _param_key(p):
    if isinstance(p, ClosedJaxpr):
        return _jaxpr_key(p)
    if isinstance(p, tuple):
        return tuple(_param_key(x) for x in p)
    try:
        hash(p)
        return p
    except TypeError:
        return repr(p)


def _value_key(c):
    c = np.asarray(c)
    return c.shape, c.dtype, c.tobytes()


def _jaxpr_key(closed):
    """A hashable key that two jaxprs of the same structure share."""
    j, ids = closed.jaxpr, {}

    def atom(v):
        if type(v) is Var:
            return ids.setdefault(v, len(ids)), v.aval
        return "literal", v.aval, _value_key(v.val)

    key = [tuple(atom(v) for v in j.constvars + j.invars)]
    for eqn in j.eqns:
        params = tuple(sorted((k, _param_key(p)) for k, p in eqn.params.items()))
        key.append((eqn.primitive.name, params, tuple(atom(v) for v in eqn.invars),
                    tuple(atom(v) for v in eqn.outvars)))
    key.append(tuple(atom(v) for v in j.outvars))
    key.append(tuple(_value_key(c) for c in closed.consts))
    return tuple(key)


_loop_executables: dict = {}    # (primitive, structure of params, input types) -> Executable


def _compiled(primitive):
    def impl(*args, **params):
        avals = tuple(get_aval(x) for x in args)
        key = (primitive.name, _param_key(tuple(sorted(params.items()))), avals)
        exe = _loop_executables.get(key)
        if exe is None:
            try:
                exe = xla_primitive_executable(primitive, params, avals, default_device())
            except NotImplementedError:         # a primitive of the body cannot be lowered
                return None
            _loop_executables[key] = exe
        return exe(*args)
    return impl


compiled_impls.update({while_p: _compiled(while_p), scan_p: _compiled(scan_p)})


def _check_pred(pred):
    if pred is None:
        raise TypeError("cond predicate is None")
    try:
        aval = get_aval(pred)
    except TypeError:
        raise TypeError(f"Pred type must be either boolean or number, got {pred!r}.") from None
    if aval.shape:
        raise TypeError(f"Pred must be a scalar, got {pred} of shape {aval.shape}.")
    if dtype_kind(aval.dtype) not in "biuf":
        raise TypeError(f"Pred type must be either boolean or number, got {aval.dtype.name}.")
    return aval


def _check_cond_p(index, *avals, branches):
    if index.shape or index.dtype != np.int32:
        raise TypeError(f"cond's index must be an i32[] scalar, got {index.str_short()}")
    for i, b in enumerate(branches):
        if len(b.in_avals) != len(avals) or not all(
                same_type(a, b) for a, b in zip(b.in_avals, avals)):
            got = ", ".join(a.str_short() for a in avals)
            want = ", ".join(a.str_short() for a in b.in_avals)
            raise TypeError(f"cond branch {i} takes ({want}), but the operands are ({got})")
    first = branches[0].out_avals
    for i, b in enumerate(branches[1:], 1):
        diff = type_diff("branch 0", f"branch {i}", first, b.out_avals)
        if diff or len(b.out_avals) != len(first):
            raise TypeError(diff or "cond's branches must return as many outputs")


def _check_while_p(*avals, cond_jaxpr, cond_nconsts, body_jaxpr, body_nconsts):
    _, _, carry = split_while_args(avals, cond_nconsts, body_nconsts)
    pred, = cond_jaxpr.out_avals
    if pred.shape or pred.dtype != np.bool_:
        raise TypeError(f"while's cond_jaxpr must return a bool[] scalar, got {pred.str_short()}")
    outs = body_jaxpr.out_avals
    if len(outs) != len(carry) or not all(same_type(a, b) for a, b in zip(carry, outs)):
        raise TypeError("while's body_jaxpr must return the carry's types ("
                        + ", ".join(a.str_short() for a in carry) + "), but it returns ("
                        + ", ".join(a.str_short() for a in outs) + ")")


def _scan_length(xs_flat, length):
    """The trip count: `length`, or the leading size that every leaf of `xs` shares."""
    for x in xs_flat:
        if not np.shape(x):
            raise ValueError(f"scan got value with no leading axis to scan over: {x}.")
    sizes = [np.shape(x)[0] for x in xs_flat]
    if length is not None:
        try:
            length = operator.index(length)
        except TypeError:
            raise ConcretizationTypeError(
                "The `length` argument to `scan` expects a concrete `int` value. For scan-like "
                "iteration with a dynamic length, use `while_loop` or `fori_loop`.") from None
        if any(s != length for s in sizes):
            raise ValueError(f"scan got `length` argument of {length} which disagrees with "
                             f"leading axis sizes {sizes}.")
        return length
    if not sizes:
        raise ValueError("scan got no values to scan over and `length` not provided.")
    if len(set(sizes)) > 1:
        raise ValueError("scan got values with different leading axis sizes: "
                         + ", ".join(str(s) for s in sizes) + ".")
    return sizes[0]


def _check_scan_p(*avals, jaxpr, length, reverse, unroll, num_consts, num_carry):
    consts, carry, xs = split_scan_args(avals, num_consts, num_carry)
    want = jaxpr.in_avals
    got = list(consts) + list(carry) + [unstacked_aval(a) if a.shape[:1] == (length,) else a
                                        for a in xs]
    if len(got) != len(want) or not all(same_type(a, b) for a, b in zip(got, want)):
        raise JaxprTypeError("scan's jaxpr takes (" + ", ".join(a.str_short() for a in want)
                             + "), but the inputs, sliced, are ("
                             + ", ".join(a.str_short() for a in got) + ")")
    outs = jaxpr.out_avals[:num_carry]
    if not all(same_type(a, b) for a, b in zip(carry, outs)):
        raise JaxprTypeError("scan's jaxpr must return the carry's types ("
                             + ", ".join(a.str_short() for a in carry) + "), but it returns ("
                             + ", ".join(a.str_short() for a in outs) + ")")


jax_errors.update(cond_pred=_check_pred, cond_p=_check_cond_p, while_p=_check_while_p,
                  scan_length=_scan_length, scan_p=_check_scan_p)


def _check_carry(in_tree, body_tree, avals, out_avals):
    if body_tree != in_tree:
        raise TypeError(f"body_fun must return a carry of the structure of init_val, {in_tree}, "
                        f"but it returned {body_tree}.")
    for i, (a, b) in enumerate(zip(avals, out_avals)):
        if not same_type(a, b):
            where = "carry" if len(avals) == 1 else f"carry component {i} (flattened)"
            raise TypeError(f"body_fun output and input must have identical types, but the input "
                            f"{where} has type {a.str_short()} and body_fun returns "
                            f"{b.str_short()}.")


def _carry_name(f):
    try:
        return next(iter(inspect.signature(f).parameters), None)
    except (TypeError, ValueError):
        return None


def _mismatch(a, b):
    what = ([] if a.dtype == b.dtype else ["the dtypes do not match"]) + (
        [] if a.shape == b.shape else ["the shapes do not match"])
    return ", so " + ", and ".join(what)


def _check_scan_carry(f, init, in_tree, out_tree, avals, out_avals):
    if in_tree == out_tree and all(same_type(a, b) for a, b in zip(avals, out_avals)):
        return
    name = _carry_name(f)

    def component(path):
        if name:
            return f"the input carry component {name}{path}" if path else f"the input carry {name}"
        return f"the input carry at path {path}" if path else "the input carry"

    if in_tree != out_tree:
        raise TypeError("scan body function carry input and carry output must have the same "
                        "pytree structure, but they differ:\n\nthe input tree structure is:\n"
                        f"{in_tree}\nthe output tree structure is:\n{out_tree}\n\nRevise the "
                        "function so that the carry output has the same pytree structure as the "
                        "carry input.")
    paths = [keystr(p) for p, _ in tree_flatten_with_path(init)[0]]
    long = lambda a: a.update(weak_type=False).str_short(False)  # noqa: E731  (JAX's: no ~)
    diffs = [f"{component(p)} has type {long(a)} but the corresponding output "
             f"carry component has type {long(b)}{_mismatch(a, b)}"
             for p, a, b in zip(paths, avals, out_avals) if not same_type(a, b)]
    if diffs:
        if len(diffs) == 1:
            text = diffs[0][0].upper() + diffs[0][1:] + ".\n"
        else:
            text = "".join(f"  * {d};\n" for d in diffs[:-1]) + f"  * {diffs[-1]}.\n"
        raise TypeError("scan body function carry input and carry output must have equal "
                        f"types, but they differ:\n\n{text}\nRevise the function so that all "
                        "output types match the corresponding input types.")
jax_errors.update(while_loop=_check_carry, scan=_check_scan_carry)
