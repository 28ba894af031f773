# Generated from chapters/10_control_flow.md by `make export`: edit the chapter, not this file.


"""Structured control flow: `cond`, `while_loop` and `fori_loop`, as higher-order primitives."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax
from autodidax import numpy as jnp
from autodidax.autodiff import (backward_pass, is_linear, partial_eval_jaxpr, partial_eval_rules,
                                transpose_rules)
from autodidax.batching import batch, batching_rules, bdim_at_front, moveaxis, not_mapped
from autodidax.core import (Array, LiteralArray, Primitive, abstract_eval_rules, api_boundary,
                            get_aval, impl_rules, set_current_trace)
from autodidax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprTrace, Var, eval_jaxpr, jaxpr_as_fun,
                             trace_to_jaxpr)
from autodidax.jvp import (Zero, instantiate_zeros, jvp_flat, jvp_rules, tangent_aval,
                           zeros_like_aval)
from autodidax.lowering import aval_to_ir_type, ir_constant, jaxpr_subcomp, lowering_rules
from autodidax.tree_util import flatten_fun, tree_flatten, tree_unflatten


def trace_to_jaxpr_with_consts(fun, in_tree, in_avals):
    """Trace `fun`, which takes pytrees, to a closed jaxpr whose constants have become its leading
    inputs. Returns (jaxpr, constants, output tree)."""
    flat_fun, out_tree = flatten_fun(fun, in_tree)
    closed = trace_to_jaxpr(flat_fun, in_avals)
    jaxpr = closed.jaxpr
    opened = Jaxpr([], jaxpr.constvars + jaxpr.invars, jaxpr.eqns, jaxpr.outvars)
    return ClosedJaxpr(opened, []), list(closed.consts), out_tree()


def _same_type(a, b) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype


def _type_diff(what1, what2, avals1, avals2) -> str | None:
    """A sentence naming the first output whose type differs, or None."""
    for i, (a, b) in enumerate(zip(avals1, avals2)):
        if not _same_type(a, b):
            where = "output" if len(avals1) == 1 else f"output {i} (flattened)"
            return (f"{what1} and {what2} output must have identical types, but the {where} of "
                    f"{what1} has type {a.str_short()} and that of {what2} has type "
                    f"{b.str_short()}")
    return None


cond_p = Primitive("cond")
cond_p.multiple_results = True


def _common_consts(jaxprs, consts):
    """Each branch takes the constants of all branches, each constant once (a value both
    branches close over is passed once, as in JAX), then the operands."""
    unique = {}
    for cs in consts:
        for c in cs:
            unique.setdefault(id(c), c)
    all_consts = list(unique.values())
    out = []
    for closed, cs in zip(jaxprs, consts):
        j = closed.jaxpr
        mine = dict(zip(map(id, cs), j.invars[:len(cs)]))
        invars = [mine[id(c)] if id(c) in mine else Var(get_aval(c)) for c in all_consts]
        out.append(ClosedJaxpr(Jaxpr([], invars + j.invars[len(cs):], j.eqns, j.outvars), []))
    return out, all_consts


def _check_pred(pred):
    if pred is None:
        raise TypeError("cond predicate is None")
    try:
        aval = get_aval(pred)
    except TypeError:
        raise TypeError(f"Pred type must be either boolean or number, got {pred!r}.") from None
    if aval.shape:
        raise TypeError(f"Pred must be a scalar, got {pred} of shape {aval.shape}.")
    if aval.dtype.kind not in "biuf":
        raise TypeError(f"Pred type must be either boolean or number, got {aval.dtype.name}.")
    return aval


@api_boundary
def cond(pred, true_fun, false_fun, *operands):
    """`true_fun(*operands)` if `pred` else `false_fun(*operands)`: both are traced, one runs."""
    if not (callable(true_fun) and callable(false_fun)):
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    dtype = _check_pred(pred).dtype
    if dtype.kind != "b":
        pred = lax.ne(pred, np.zeros((), dtype))
    index = lax.convert_element_type(pred, np.int32)
    ops_flat, in_tree = tree_flatten(operands)
    avals = [get_aval(x) for x in ops_flat]
    false_jaxpr, false_consts, false_tree = trace_to_jaxpr_with_consts(false_fun, in_tree, avals)
    true_jaxpr, true_consts, true_tree = trace_to_jaxpr_with_consts(true_fun, in_tree, avals)
    if true_tree != false_tree:
        raise TypeError(f"true_fun and false_fun output must have same type structure, got "
                        f"{true_tree} and {false_tree}.")
    diff = _type_diff("true_fun", "false_fun", true_jaxpr.out_avals, false_jaxpr.out_avals)
    if diff:
        raise TypeError(diff + ".")
    branches, consts = _common_consts([false_jaxpr, true_jaxpr], [false_consts, true_consts])
    outs = cond_p.bind(index, *consts, *ops_flat, branches=tuple(branches))
    return tree_unflatten(true_tree, outs)


def _cond_impl(index, *args, branches):
    branch = branches[int(np.clip(index, 0, len(branches) - 1))]
    return eval_jaxpr(branch.jaxpr, branch.consts, *args)


def _cond_abstract(index, *avals, branches):
    if index.shape or index.dtype != np.int32:
        raise TypeError(f"cond's index must be an i32[] scalar, got {index.str_short()}")
    for i, b in enumerate(branches):
        if len(b.in_avals) != len(avals) or not all(map(_same_type, b.in_avals, avals)):
            got = ", ".join(a.str_short() for a in avals)
            want = ", ".join(a.str_short() for a in b.in_avals)
            raise TypeError(f"cond branch {i} takes ({want}), but the operands are ({got})")
    first = branches[0].out_avals
    for i, b in enumerate(branches[1:], 1):
        diff = _type_diff("branch 0", f"branch {i}", first, b.out_avals)
        if diff or len(b.out_avals) != len(first):
            raise TypeError(diff or "cond's branches must return as many outputs")
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
        out_nonzeros[:] = [(type(t) is not Zero or inst) and get_aval(o).dtype.kind == "f"
                           for o, t, inst in zip(outs, out_tans, instantiate)]
        return list(outs) + [instantiate_zeros(t) for t, nz in zip(out_tans, out_nonzeros) if nz]

    tangent_avals = [tangent_aval(a) for a, nz in zip(avals, nonzeros) if nz]
    return trace_to_jaxpr(jvp_fun, avals + tangent_avals), out_nonzeros


def _nonzero_tangents(primals, tangents):
    return [type(t) is not Zero and get_aval(p).dtype.kind == "f"
            for p, t in zip(primals, tangents)]


def _cond_jvp(primals, tangents, *, branches):
    index, *ops = primals
    nonzeros = _nonzero_tangents(ops, tangents[1:])
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


def _axis_size(vals, dims):
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


def _select_examples(which, cases):
    """`select_n` with one `which` per example, for cases batched along axis 0."""
    shape = get_aval(cases[0]).shape
    if len(shape) > 1:
        which = lax.broadcast_in_dim(which, shape, [0])
    return lax.select_n(which, *cases)


def _cond_batching_rule(vals, dims, *, branches):
    (index, *ops), (index_dim, *op_dims) = vals, dims
    size = _axis_size(vals, dims)
    if index_dim is not not_mapped:     # a predicate per example: run every branch, then select
        index = moveaxis(index, index_dim, 0)
        results = [batch(jaxpr_as_fun(b), size, op_dims, ops) for b in branches]
        outs = [_select_examples(index, [bdim_at_front(outs[k], out_dims[k], size)
                                         for outs, out_dims in results])
                for k in range(len(branches[0].out_avals))]
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


def _const_values(closed):
    return [ir_constant(c, v.aval.dtype) for c, v in zip(closed.consts, closed.jaxpr.constvars)]


def _cond_lowering(ctx, index, *args, branches):
    case = hlo.CaseOp([aval_to_ir_type(a) for a in ctx.avals_out], index, len(branches))
    for region, branch in zip(case.regions, branches):
        with ir.InsertionPoint(region.blocks.append()):
            hlo.return_(jaxpr_subcomp(ctx.module_context, branch.jaxpr, _const_values(branch),
                                      list(args)))
    return list(case.results)


lowering_rules[cond_p] = _cond_lowering


while_p = Primitive("while")
while_p.multiple_results = True


def _check_carry(in_tree, body_tree, avals, out_avals):
    if body_tree != in_tree:
        raise TypeError(f"body_fun must return a carry of the structure of init_val, {in_tree}, "
                        f"but it returned {body_tree}.")
    for i, (a, b) in enumerate(zip(avals, out_avals)):
        if not _same_type(a, b):
            where = "carry" if len(avals) == 1 else f"carry component {i} (flattened)"
            raise TypeError(f"body_fun output and input must have identical types, but the input "
                            f"{where} has type {a.str_short()} and body_fun returns "
                            f"{b.str_short()}.")


def _promote_weak(x, aval, out_aval):
    """The weakly typed initial carry `x`, converted (strongly typed) to the dtype that it and the
    body's output promote to: a constant at once if `x` is a Python or NumPy scalar."""
    dtype, _ = jnp.result_type(aval, out_aval)
    if type(x) in (bool, int, float) or isinstance(x, np.generic):
        return LiteralArray(np.asarray(x).astype(dtype))
    return lax.convert_element_type(x, dtype)


@api_boundary
def while_loop(cond_fun, body_fun, init_val):
    """Repeat `val = body_fun(val)` while `cond_fun(val)`, starting from `init_val`."""
    init_flat, in_tree = tree_flatten(init_val)
    args_tree = tree_flatten((init_val,))[1]
    avals = [get_aval(x) for x in init_flat]
    for _ in range(2):      # twice if a weakly typed initial value has to be promoted
        cond_jaxpr, cond_consts, cond_tree = trace_to_jaxpr_with_consts(cond_fun, args_tree, avals)
        body_jaxpr, body_consts, body_tree = trace_to_jaxpr_with_consts(body_fun, args_tree, avals)
        out_avals = body_jaxpr.out_avals
        if body_tree != in_tree:
            break
        promote = [a.weak_type and not _same_type(a, b) for a, b in zip(avals, out_avals)]
        if not any(promote):
            break
        init_flat = [_promote_weak(x, a, b) if p else x
                     for x, a, b, p in zip(init_flat, avals, out_avals, promote)]
        avals = [get_aval(x) for x in init_flat]
    pred = cond_jaxpr.out_avals
    if cond_tree.num_leaves != 1 or pred[0].shape or pred[0].dtype != np.bool_:
        raise TypeError("cond_fun must return a boolean scalar, but got output type(s) "
                        + ", ".join(a.str_short() for a in pred) + ".")
    _check_carry(in_tree, body_tree, avals, out_avals)
    outs = while_p.bind(*cond_consts, *body_consts, *init_flat,
                        cond_jaxpr=cond_jaxpr, cond_nconsts=len(cond_consts),
                        body_jaxpr=body_jaxpr, body_nconsts=len(body_consts))
    return tree_unflatten(in_tree, outs)


def _split_while_args(args, cond_nconsts, body_nconsts):
    n = cond_nconsts + body_nconsts
    return args[:cond_nconsts], args[cond_nconsts:n], args[n:]


def _while_impl(*args, cond_jaxpr, cond_nconsts, body_jaxpr, body_nconsts):
    cond_consts, body_consts, carry = _split_while_args(args, cond_nconsts, body_nconsts)
    while eval_jaxpr(cond_jaxpr.jaxpr, cond_jaxpr.consts, *cond_consts, *carry)[0]:
        carry = eval_jaxpr(body_jaxpr.jaxpr, body_jaxpr.consts, *body_consts, *carry)
    return carry


def _while_abstract(*avals, cond_jaxpr, cond_nconsts, body_jaxpr, body_nconsts):
    _, _, carry = _split_while_args(avals, cond_nconsts, body_nconsts)
    pred, = cond_jaxpr.out_avals
    if pred.shape or pred.dtype != np.bool_:
        raise TypeError(f"while's cond_jaxpr must return a bool[] scalar, got {pred.str_short()}")
    outs = body_jaxpr.out_avals
    if len(outs) != len(carry) or not all(map(_same_type, carry, outs)):
        raise TypeError("while's body_jaxpr must return the carry's types ("
                        + ", ".join(a.str_short() for a in carry) + "), but it returns ("
                        + ", ".join(a.str_short() for a in outs) + ")")
    return list(outs)


impl_rules[while_p] = _while_impl
abstract_eval_rules[while_p] = _while_abstract


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
    nonzeros = _nonzero_tangents(primals, tangents)
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
    size = _axis_size(vals, dims)
    cond_consts, body_consts, init = _split_while_args(list(vals), nc, nb)
    cc_dims, bc_dims, init_dims = _split_while_args(list(dims), nc, nb)
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
        cond_consts, body_consts, carry = _split_while_args(args, nc, nb)
        new, new_dims = batch(jaxpr_as_fun(body_jaxpr), size, bc_dims + cd,
                              [*body_consts, *carry])
        new = [bdim_at_front(x, d, size) for x, d in zip(new, new_dims)]
        which = preds(cond_consts, carry)
        return [_select_examples(which, [old, x]) for old, x in zip(carry, new)]

    new_cond = trace_to_jaxpr(any_pred, cc_avals + ca)
    new_body = trace_to_jaxpr(masked_body, cc_avals + bc_avals + ca)
    outs = while_p.bind(*cond_consts, *cond_consts, *body_consts, *init, cond_jaxpr=new_cond,
                        cond_nconsts=nc, body_jaxpr=new_body, body_nconsts=nc + nb)
    return outs, cd


batching_rules[while_p] = _while_batching_rule


def _while_lowering(ctx, *args, cond_jaxpr, cond_nconsts, body_jaxpr, body_nconsts):
    nc, nb = cond_nconsts, body_nconsts
    types = [aval_to_ir_type(a) for a in ctx.avals_in]
    loop = hlo.WhileOp(types, list(args))
    cond_block = loop.regions[0].blocks.append(*types)
    with ir.InsertionPoint(cond_block):
        a = list(cond_block.arguments)
        pred, = jaxpr_subcomp(ctx.module_context, cond_jaxpr.jaxpr, _const_values(cond_jaxpr),
                              a[:nc] + a[nc + nb:])
        hlo.return_([pred])
    body_block = loop.regions[1].blocks.append(*types)
    with ir.InsertionPoint(body_block):
        a = list(body_block.arguments)
        new = jaxpr_subcomp(ctx.module_context, body_jaxpr.jaxpr, _const_values(body_jaxpr),
                            a[nc:])
        hlo.return_(a[:nc + nb] + new)
    return list(loop.results)[nc + nb:]


lowering_rules[while_p] = _while_lowering


def _while_transpose(cts, *args, **params):
    raise ValueError("Reverse-mode differentiation does not work for lax.while_loop or "
                     "lax.fori_loop with dynamic start/stop values. Try using lax.scan, or using "
                     "fori_loop with static start/stop.")


transpose_rules[while_p] = _while_transpose


@api_boundary
def fori_loop(lower, upper, body_fun, init_val):
    """`val = body_fun(i, val)` for `i` from `lower` to `upper - 1`; returns the final `val`."""
    def fori_cond(carry):
        i, upper, _ = carry
        return lax.lt(i, upper)

    def fori_body(carry):
        i, upper, x = carry
        return lax.add(i, 1), upper, body_fun(i, x)

    return while_loop(fori_cond, fori_body, (lower, upper, init_val))[2]


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
        start, n_res = sum(map(len, res_avals[:i])), sum(map(len, res_avals))

        def fun(*args):
            mine, uk_ops = args[start:start + len(res_avals[i])], args[n_res:]
            res, passed = mine[:len(fwd)], iter(mine[len(fwd):])
            outs = iter(eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *uk_ops))
            return [next(outs) if m else next(passed) for u, m in zip(out_uk, uk) if u]
        uk_avals = [get_aval(x) for x, u in zip(ops, unknowns) if u]
        return trace_to_jaxpr(fun, [a for avals in res_avals for a in avals] + uk_avals)

    with set_current_trace(trace.parent_trace):
        known_outs = cond_p.bind(index, *[x for x, u in zip(ops, unknowns) if not u],
                                 branches=tuple(map(known_branch, range(len(branches)))))
    n_known = out_uk.count(False)
    unknown_outs = JaxprTrace.process_primitive(
        trace, cond_p, [index, *known_outs[n_known:], *[x for x, u in zip(ops, unknowns) if u]],
        {"branches": tuple(map(unknown_branch, range(len(branches))))})
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
        def fun(*known_and_cts):
            it = iter(known_and_cts[:len(known)])
            full = [x if is_linear(x) else next(it) for x in ops]
            cts_in = backward_pass(branch.jaxpr, branch.consts, full, known_and_cts[len(known):])
            return [instantiate_zeros(ct) for ct, lin in zip(cts_in, linear) if lin]
        return trace_to_jaxpr(fun, [get_aval(x) for x in (*known, *cts)])

    outs = iter(cond_p.bind(index, *known, *cts, branches=tuple(map(transposed, branches))))
    return [None] + [next(outs) if lin else None for lin in linear]


transpose_rules[cond_p] = _cond_transpose


lax.cond, lax.while_loop, lax.fori_loop = cond, while_loop, fori_loop
