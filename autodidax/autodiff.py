# Generated from chapters/09_autodiff.md by `make export`: edit the chapter, not this file.


"""Reverse-mode autodiff: partial evaluation, linearize, transposition, `vjp` and `grad`."""
from __future__ import annotations

import functools

import numpy as np

from autodidax import lax_core as lax
from autodidax import numpy as jnp
from autodidax.batching import jacfwd, psum_p, vmap
from autodidax.collectives import pmax_p, pmin_p
from autodidax.core import (Array, LiteralArray, ShapedArray, api_boundary, dtype_kind, get_aval,
                            set_current_trace, take_current_trace)
from autodidax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprTrace, JaxprTracer, Literal, Var,
                             eval_jaxpr, trace_to_jaxpr, weakref_lru_cache)
from autodidax.jit import jit_p
from autodidax.jvp import (JVPTrace, TraceTag, Zero, add_any, add_any_p, argnums_partial,
                           check_callable, float0, full_like, instantiate_zeros, jacobian_blocks,
                           maybe_jvp_tracer, split_aux, std_basis, tangent_aval)
from autodidax.lowering import lowering_rules
from autodidax.tree_util import (flatten_fun, register_pytree_node, tree_flatten, tree_map,
                                 tree_unflatten)


partial_eval_rules: dict = {}   # primitive -> rule(trace, args, params), for higher-order ones


class PartialEvalTrace(JaxprTrace):
    """Computes, on the parent trace, what depends only on known values; stages into a jaxpr
    what depends on its own tracers, the unknown values."""

    def __init__(self, parent_trace):
        super().__init__()
        self.parent_trace = parent_trace

    def is_unknown(self, x) -> bool:
        return type(x) is JaxprTracer and x._trace is self

    def process_primitive(self, primitive, args, params):
        if not any(map(self.is_unknown, args)):
            with set_current_trace(self.parent_trace):
                return primitive.bind(*args, **params)
        rule = partial_eval_rules.get(primitive)
        if rule is not None:
            return rule(self, args, params)
        return super().process_primitive(primitive, args, params)


class LinearizeTrace(JVPTrace):
    """A JVP trace whose tangents are staged into a jaxpr: linearize's, and so grad's."""

    def tracer_repr(self, tracer) -> str:     # as JAX's tracers print under `grad`
        return (f"GradTracer(primal={tracer.primal}, "
                f"typeof(tangent)={get_aval(tracer.tangent).str_short()})")


def linearize_flat(flat_fun, primals, prune=True):
    """Evaluate `flat_fun` at `primals` and stage its derivative there into a jaxpr. Returns
    the outputs, and a ClosedJaxpr from the tangents of the floating-point inputs to those of
    the floating-point outputs (integers and booleans have no derivative), its dead code pruned
    unless `prune` is False."""
    with take_current_trace() as parent:
        pe = PartialEvalTrace(parent)
        jvp_trace = LinearizeTrace(pe, TraceTag())
        avals = [tangent_aval(get_aval(p)) for p in primals]
        tangents = [pe.new_arg(a) if is_float(p) else Zero(a) for p, a in zip(primals, avals)]
        tangents_in = [t for t in tangents if type(t) is not Zero]
        tracers = [maybe_jvp_tracer(jvp_trace, p, t) for p, t in zip(primals, tangents)]
        try:
            with set_current_trace(jvp_trace):
                outs = flat_fun(*tracers)
            pairs = [jvp_trace.to_primal_tangent_pair(o) for o in outs]
            with set_current_trace(pe):
                tangents_out = [instantiate_zeros(t) for p, t in pairs if is_float(p)]
            linear = pe.to_jaxpr(tangents_in, tangents_out)
            linear = dce_closed_jaxpr(linear) if prune else linear
        finally:
            jvp_trace.invalidate()
            pe.invalidate()
    return [p for p, _ in pairs], linear


def is_float(x) -> bool:
    return dtype_kind(get_aval(x).dtype) in "fc"      # float or complex: differentiable


def _fill(values, floats, avals):
    """Put `values` at the floating-point positions; float0 zeros elsewhere."""
    values = iter(values)
    return [next(values) if f else Zero(tangent_aval(a)).instantiate()
            for f, a in zip(floats, avals)]


@api_boundary
def linearize(fun, *primals):
    """`(fun(*primals), f_jvp)` where `f_jvp(*tangents)` applies the derivative at `primals`."""
    check_callable(fun)
    primals_flat, in_tree = tree_flatten(primals)
    flat_fun, out_tree = flatten_fun(fun, in_tree)
    out_flat, linear = linearize_flat(flat_fun, primals_flat)
    out_tree = out_tree()
    in_floats = [is_float(p) for p in primals_flat]
    out_floats, out_avals = [is_float(o) for o in out_flat], [get_aval(o) for o in out_flat]

    def f_jvp(*tangents):
        tangents_flat, tangent_tree = tree_flatten(tangents)
        if tangent_tree != in_tree:
            raise TypeError(f"the linearized function takes tangents of structure {in_tree}, "
                            f"got {tangent_tree}")
        used = [t for t, f in zip(tangents_flat, in_floats) if f]
        outs = eval_jaxpr(linear.jaxpr, linear.consts, *used)
        return tree_unflatten(out_tree, _fill(outs, out_floats, out_avals))

    f_jvp.jaxpr = linear
    return tree_unflatten(out_tree, out_flat), api_boundary(f_jvp)


dce_rules: dict = {}   # primitive -> rule(used_outputs, eqn) -> (used_inputs, new eqn or None)
effectful_primitives: set = set()   # primitives whose equations dead code elimination keeps


def inner_jaxprs(params):
    for value in params.values():
        for v in value if isinstance(value, (list, tuple)) else (value,):
            if type(v) is ClosedJaxpr:
                yield v.jaxpr
            elif type(v) is Jaxpr:
                yield v


def has_effects(eqn) -> bool:
    """Whether `eqn` must stay, used or not: it has no outputs, its primitive is effectful, or
    an equation of one of its inner jaxprs has effects."""
    return (not eqn.outvars or eqn.primitive in effectful_primitives
            or any(has_effects(e) for j in inner_jaxprs(eqn.params) for e in j.eqns))


def _default_dce_rule(used_outputs, eqn):
    if not any(used_outputs) and not has_effects(eqn):
        return [False] * len(eqn.invars), None
    return [True] * len(eqn.invars), eqn


def dce_jaxpr(jaxpr: Jaxpr, used_outputs, prune_inputs: bool = True):
    """(`jaxpr` keeping only the outputs marked used and the equations they need, and which
    inputs it still uses). With `prune_inputs`, the unused inputs are dropped too."""
    live = {v for v, u in zip(jaxpr.outvars, used_outputs) if u and type(v) is Var}
    eqns = []
    for eqn in reversed(jaxpr.eqns):
        rule = dce_rules.get(eqn.primitive, _default_dce_rule)
        used_inputs, new_eqn = rule([v in live for v in eqn.outvars], eqn)
        if new_eqn is not None:
            eqns.append(new_eqn)
            live.update(v for v, u in zip(eqn.invars, used_inputs) if u and type(v) is Var)
    used_inputs = [v in live for v in jaxpr.invars]
    invars = [v for v, u in zip(jaxpr.invars, used_inputs) if u] if prune_inputs else jaxpr.invars
    outvars = [v for v, u in zip(jaxpr.outvars, used_outputs) if u]
    return Jaxpr(jaxpr.constvars, invars, eqns[::-1], outvars), used_inputs


def dce_closed_jaxpr(closed: ClosedJaxpr) -> ClosedJaxpr:
    """`closed` with every output and input kept, pruned of the equations and the constants
    that no output needs (JAX's `dce_jaxpr_consts`)."""
    jaxpr, _ = dce_jaxpr(closed.jaxpr, [True] * len(closed.jaxpr.outvars), prune_inputs=False)
    read = {v for e in jaxpr.eqns for v in e.invars} | set(jaxpr.outvars)
    keep = [v in read for v in jaxpr.constvars]
    return ClosedJaxpr(Jaxpr([v for v, k in zip(jaxpr.constvars, keep) if k], jaxpr.invars,
                             jaxpr.eqns, jaxpr.outvars),
                       [c for c, k in zip(closed.consts, keep) if k])


def call_dce_rule(used_outputs, eqn):
    """The rule of a primitive that runs its parameter `jaxpr` (a Jaxpr or a ClosedJaxpr) once:
    that jaxpr pruned to the used outputs, and the inputs it no longer reads dropped."""
    if not any(used_outputs) and not has_effects(eqn):
        return [False] * len(eqn.invars), None
    jaxpr = eqn.params["jaxpr"]
    if type(jaxpr) is Jaxpr:
        inner, used_inputs = dce_jaxpr(jaxpr, used_outputs)
    else:
        inner, used_inputs = _dced_jaxpr(jaxpr, tuple(used_outputs))
    new_eqn = eqn._replace(invars=[v for v, u in zip(eqn.invars, used_inputs) if u],
                           outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
                           params=dict(eqn.params, jaxpr=inner))
    return used_inputs, new_eqn


@weakref_lru_cache           # the same jitted function, DCE'd the same way: the same jaxpr
def _dced_jaxpr(closed: ClosedJaxpr, used_outputs: tuple):
    inner, used_inputs = dce_jaxpr(closed.jaxpr, list(used_outputs))
    return ClosedJaxpr(inner, closed.consts), used_inputs


dce_rules[jit_p] = call_dce_rule


class UndefinedPrimal:
    """A linear input of an equation being transposed: no value, a cotangent wanted."""
    __slots__ = ("aval",)

    def __init__(self, aval):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval})"       # `~float32[]`, as JAX's


transpose_rules: dict = {}   # primitive -> rule(ct, *args, **params) -> a cotangent per arg


def is_linear(x) -> bool:
    return type(x) is UndefinedPrimal


def add_cotangents(x, y):
    if x is None or type(x) is Zero:
        return y
    if y is None or type(y) is Zero:
        return x
    return add_any(x, y)


def read_var(env, v):
    """The value of `v` in `env`; a weakly typed literal stays weak, as it was when traced."""
    if type(v) is Literal:
        return LiteralArray(v.val, weak_type=True) if v.aval.weak_type else v.val
    return env[v]


def backward_pass(jaxpr: Jaxpr, consts, args, cotangents_out):
    """The cotangents of the inputs of `jaxpr` that are `UndefinedPrimal`s in `args`, given
    the cotangents of its outputs. `jaxpr` must be linear in those inputs."""
    env = dict(zip(jaxpr.constvars, consts))
    linear = set()
    for v, x in zip(jaxpr.invars, args):
        if is_linear(x):
            linear.add(v)
        else:
            env[v] = x
    read = functools.partial(read_var, env)

    linear_eqns = []
    for eqn in jaxpr.eqns:          # forwards: evaluate the non-linear work on known values
        if any(type(v) is Var and v in linear for v in eqn.invars):
            linear.update(eqn.outvars)
            linear_eqns.append(eqn)
        else:
            outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
            env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else (outs,)))

    ct_env = {}
    for v, ct in zip(jaxpr.outvars, cotangents_out):
        if type(v) is Var and v in linear and type(ct) is not Zero:
            ct_env[v] = add_cotangents(ct_env.get(v), ct)
    for eqn in reversed(linear_eqns):   # backwards: transpose each linear equation
        cts = [ct_env.pop(v, None) for v in eqn.outvars]
        if all(ct is None for ct in cts):
            continue                    # nothing flows back through this equation
        rule = transpose_rules.get(eqn.primitive)
        if rule is None:
            raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for "
                                      f"'{eqn.primitive}' not implemented")
        ct = ([Zero(v.aval) if c is None else c for v, c in zip(eqn.outvars, cts)]
              if eqn.primitive.multiple_results else cts[0])
        args_in = [UndefinedPrimal(v.aval) if type(v) is Var and v in linear else read(v)
                   for v in eqn.invars]
        for v, ct_in in zip(eqn.invars, rule(ct, *args_in, **eqn.params)):
            if ct_in is not None and type(ct_in) is not Zero:
                ct_env[v] = add_cotangents(ct_env.get(v), ct_in)
    return [ct_env.get(v, Zero(v.aval)) if is_linear(x) else None
            for v, x in zip(jaxpr.invars, args)]


def unbroadcast(ct, aval):
    """Sum `ct` down to the shape `aval` had before an elementwise operation broadcast it."""
    shape = get_aval(ct).shape
    if shape == aval.shape:
        return ct
    if not aval.shape:
        return lax.reduce_sum(ct, range(len(shape)))
    axes = [i for i, (a, b) in enumerate(zip(aval.shape, shape)) if a == 1 and b != 1]
    return lax.reshape(lax.reduce_sum(ct, axes), aval.shape)


def _add_transpose(ct, x, y):
    return [unbroadcast(ct, x.aval) if is_linear(x) else None,
            unbroadcast(ct, y.aval) if is_linear(y) else None]


def _sub_transpose(ct, x, y):
    return [unbroadcast(ct, x.aval) if is_linear(x) else None,
            unbroadcast(lax.neg(ct), y.aval) if is_linear(y) else None]


def _mul_transpose(ct, x, y):
    if is_linear(x) and is_linear(y):
        raise ValueError("mul of two linear values is not linear: it cannot be transposed")
    if is_linear(x):
        return [unbroadcast(lax.mul(ct, y), x.aval), None]
    return [None, unbroadcast(lax.mul(x, ct), y.aval)]


def _div_transpose(ct, x, y):
    if is_linear(y):
        raise ValueError("div is not linear in its divisor: it cannot be transposed")
    return [unbroadcast(lax.div(ct, y), x.aval), None]


transpose_rules[lax.neg_p] = lambda ct, x: [lax.neg(ct)]
transpose_rules[add_any_p] = lambda ct, x, y: [ct if is_linear(x) else None,
                                                ct if is_linear(y) else None]
transpose_rules[lax.add_p] = _add_transpose
transpose_rules[lax.sub_p] = _sub_transpose
transpose_rules[lax.mul_p] = _mul_transpose
transpose_rules[lax.div_p] = _div_transpose
transpose_rules[lax.convert_element_type_p] = lambda ct, x, **params: [
    lax.convert_element_type(ct, x.aval.dtype, x.aval.weak_type)]


def reduce_sum_transpose(ct, x, *, axes, **params):
    kept = tuple(np.delete(np.arange(x.aval.ndim), axes))   # NumPy ints, printed as JAX's
    return [lax.broadcast_in_dim(ct, x.aval.shape, kept)]


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions, sharding=None):
    # Sum over every dimension that does not come from one of x's dimensions of size > 1; then
    # put x's dimensions of size 1 back (as JAX does, whether or not they were stretched).
    unit_dims = [i for i, d in enumerate(x.aval.shape) if d == 1]
    kept = [d for i, d in enumerate(broadcast_dimensions) if i not in unit_dims]
    summed = lax.reduce_sum(ct, [d for d in range(len(shape)) if d not in kept])
    return [lax.expand_dims(summed, unit_dims) if unit_dims else summed]


def _reshape_transpose(ct, x, *, new_sizes, dimensions, **params):
    if dimensions is None:
        return [lax.reshape(ct, x.aval.shape)]
    permuted = lax.reshape(ct, [x.aval.shape[d] for d in dimensions])
    return [lax.transpose(permuted, np.argsort(dimensions).tolist())]


def _select_n_transpose(ct, which, *cases):
    if is_linear(which):
        raise ValueError("select_n is not linear in its predicate")
    if len(cases) == 1:
        return [None, ct]
    zeros = full_like(ct, 0)
    if get_aval(which).dtype == np.bool_:
        return [None, lax.select_n(which, ct, zeros) if is_linear(cases[0]) else None,
                lax.select_n(which, zeros, ct) if is_linear(cases[1]) else None]
    return [None] + [lax.select_n(lax.eq(which, np.int32(i)), zeros, ct) if is_linear(case)
                     else None for i, case in enumerate(cases)]


transpose_rules[lax.reduce_sum_p] = reduce_sum_transpose
transpose_rules[lax.broadcast_in_dim_p] = _broadcast_in_dim_transpose
transpose_rules[lax.reshape_p] = _reshape_transpose
transpose_rules[lax.squeeze_p] = lambda ct, x, *, dimensions: [lax.expand_dims(ct, dimensions)]
transpose_rules[lax.transpose_p] = lambda ct, x, *, permutation: [
    lax.transpose(ct, np.argsort(permutation).tolist())]
transpose_rules[lax.select_n_p] = _select_n_transpose


def _dot_general_transpose(ct, x, y, *, dimension_numbers, preferred_element_type, **params):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    if is_linear(x) and is_linear(y):
        raise ValueError("dot_general of two linear values is not linear")
    x_aval = x.aval if is_linear(x) else get_aval(x)
    y_aval = y.aval if is_linear(y) else get_aval(y)
    x_free = [i for i in range(x_aval.ndim) if i not in x_batch + x_contract]
    y_free = [j for j in range(y_aval.ndim) if j not in y_batch + y_contract]
    batch = list(range(len(x_batch)))
    ct_x_free = list(range(len(batch), len(batch) + len(x_free)))
    ct_y_free = list(range(len(batch) + len(x_free), get_aval(ct).ndim))
    if is_linear(x):
        out = lax.dot_general(ct, y, ((ct_y_free, y_free), (batch, list(y_batch))),
                              params.get("precision"), preferred_element_type)
        order = (list(x_batch) + x_free
                 + [x_contract[list(y_contract).index(j)] for j in sorted(y_contract)])
        target = x_aval
    else:
        out = lax.dot_general(ct, x, ((ct_x_free, x_free), (batch, list(x_batch))),
                              params.get("precision"), preferred_element_type)
        order = (list(y_batch) + y_free
                 + [y_contract[list(x_contract).index(i)] for i in sorted(x_contract)])
        target = y_aval
    if order != sorted(order):        # JAX's `transpose` skips the identity permutation
        out = lax.transpose(out, np.argsort(order).tolist())
    if get_aval(out).dtype != target.dtype:
        out = lax.convert_element_type(out, target.dtype)
    return [out, None] if is_linear(x) else [None, out]


transpose_rules[lax.dot_general_p] = _dot_general_transpose


grad_checks: dict = {}   # "cotangents", "argnums", "inputs"... -> appendix A19's checks


class VJP(functools.partial):
    """`vjp`'s backward function: a pytree whose leaves are the residuals (JAX's `VJP`)."""


register_pytree_node(VJP, lambda v: (v.args, v.func), lambda bwd, args: VJP(bwd, *args))


def _vjp_bwd(jaxpr, in_tree, out_tree, in_avals, out_avals, residuals, cotangent):
    cts_flat, ct_tree = tree_flatten(cotangent)
    if ct_tree != out_tree:
        raise TypeError(f"the cotangent must have the structure of the function's output, "
                        f"{out_tree}, but it has {ct_tree}")
    grad_checks["cotangents"](cts_flat, out_avals)
    cts = [ct for ct, aval in zip(cts_flat, out_avals) if dtype_kind(aval.dtype) in "fc"]
    cts_in = backward_pass(jaxpr, residuals, [UndefinedPrimal(v.aval) for v in jaxpr.invars], cts)
    floats = [dtype_kind(a.dtype) in "fc" for a in in_avals]
    return tree_unflatten(in_tree, _fill(map(instantiate_zeros, cts_in), floats, in_avals))


@api_boundary
def vjp(fun, *primals, has_aux=False):
    """`(fun(*primals), f_vjp)`, `f_vjp(cotangent)` the cotangent of `primals`; with `has_aux`,
    `fun` returns `(out, aux)` and this `(out, f_vjp, aux)`."""
    check_callable(fun)
    primals_flat, in_tree = tree_flatten(primals)
    flat_fun, out_tree = flatten_fun(split_aux(fun) if has_aux else fun, in_tree)
    out_flat, linear = linearize_flat(flat_fun, primals_flat)
    out_tree, aux_tree = out_tree().children() if has_aux else (out_tree(), None)
    out_flat, aux_flat = out_flat[:out_tree.num_leaves], out_flat[out_tree.num_leaves:]
    j, res, first = linear.jaxpr, linear.consts, {id(p): i for i, p in enumerate(primals_flat)}
    order = sorted(range(len(res)),     # JAX's order: residuals that are inputs first, as inputs
                   key=lambda i: (id(res[i]) not in first, first.get(id(res[i]), i)))
    jaxpr = Jaxpr([j.constvars[i] for i in order], j.invars, j.eqns,
                  j.outvars[:sum(map(is_float, out_flat))])
    bwd = functools.partial(_vjp_bwd, jaxpr, in_tree, out_tree,
                            [get_aval(p) for p in primals_flat], [get_aval(o) for o in out_flat])
    out, f_vjp = tree_unflatten(out_tree, out_flat), VJP(api_boundary(bwd), [res[i] for i in order])
    return (out, f_vjp, tree_unflatten(aux_tree, aux_flat)) if has_aux else (out, f_vjp)


def _named_like(fun, f):
    """`f`, under `fun`'s name, as JAX's transformed functions are (so `jit` names it so)."""
    return api_boundary(functools.wraps(fun, updated=())(f))


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """A function returning `(fun(*args), gradient)`, with respect to the positional arguments
    `argnums` (an int or a tuple); keyword arguments are not differentiated, as in JAX."""
    check_callable(fun)

    def value_and_grad_f(*args, **kwargs):
        grad_checks["argnums"](argnums, args)
        f = functools.partial(fun, **kwargs) if kwargs else fun
        partial_fun, dynamic = argnums_partial(f, argnums, args, "grad")
        grad_checks["inputs"]("grad", tree_flatten(dynamic)[0], allow_int, holomorphic)
        out, vjp_fun, *aux = vjp(partial_fun, *dynamic, has_aux=has_aux)
        grad_checks["scalar"](out)
        grad_checks["outputs"]("grad", [out], holomorphic)
        out_aval = get_aval(out)
        grads = vjp_fun(LiteralArray(np.ones((), out_aval.dtype), out_aval.weak_type))
        g = grads[0] if isinstance(argnums, int) else grads
        return ((out, aux[0]) if has_aux else out), g
    return _named_like(fun, value_and_grad_f)


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """A function returning the gradient of the scalar function `fun` (and its aux output)."""
    value_and_grad_f = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    def grad_f(*args, **kwargs):
        value, g = value_and_grad_f(*args, **kwargs)
        return (g, value[1]) if has_aux else g
    return _named_like(fun, grad_f)


def jacrev(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """The Jacobian of `fun` with respect to `argnums`, one `vjp` per output row, batched."""
    check_callable(fun)

    def jacfun(*args, **kwargs):
        f = functools.partial(fun, **kwargs) if kwargs else fun
        partial_fun, dynamic = argnums_partial(f, argnums, args, "jacrev")
        grad_checks["inputs"]("jacrev", tree_flatten(dynamic)[0], allow_int, holomorphic)
        out, vjp_fun, *aux = vjp(partial_fun, *dynamic, has_aux=has_aux)
        out_flat, out_tree = tree_flatten(out)
        grad_checks["outputs"]("jacrev", out_flat, holomorphic)
        out_avals = [get_aval(o) for o in out_flat]
        rows = vmap(lambda *b: vjp_fun(tree_unflatten(out_tree, list(b))))(*std_basis(out_avals))
        rows, example = (rows[0], dynamic[0]) if isinstance(argnums, int) else (rows, dynamic)
        row_leaves, in_tree = tree_flatten(rows)
        cut = [jacobian_blocks(r, 0, out_avals, get_aval(x))     # chapter 3's helpers
               for r, x in zip(row_leaves, tree_flatten(example)[0])]
        jac = tree_unflatten(out_tree, [tree_unflatten(in_tree, [c[m] for c in cut])
                                        for m in range(len(out_avals))])
        return (jac, *aux) if has_aux else jac
    return _named_like(fun, jacfun)


def hessian(fun, argnums=0, has_aux=False, holomorphic=False):
    """The Hessian of a scalar function: forward-mode over reverse-mode, as in JAX."""
    check_callable(fun)

    def hessian_f(*args, **kwargs):
        f = functools.partial(fun, **kwargs) if kwargs else fun
        return jacfwd(jacrev(f, argnums, has_aux, holomorphic), argnums, has_aux,
                      holomorphic)(*args)
    return _named_like(fun, hessian_f)


def eval_jaxpr_recorded(jaxpr: Jaxpr, consts, args, traces, origins=None):
    """`eval_jaxpr(jaxpr, consts, *args)`; the equations that the jaxpr traces `traces` record
    while one of `jaxpr`'s equations is evaluated take that equation's source line. If
    `origins` is a dict, it maps the id of each recorded equation to that equation's index."""
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    read = functools.partial(read_var, env)

    for i, eqn in enumerate(jaxpr.eqns):
        before = [len(t.eqns) for t in traces]
        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else (outs,)))
        for t, n in zip(traces, before):
            if eqn.source_info is not None:
                t.eqns[n:] = [e._replace(source_info=eqn.source_info) for e in t.eqns[n:]]
            if origins is not None:
                origins.update((id(e), i) for e in t.eqns[n:])
    return [read(v) for v in jaxpr.outvars]


def partial_eval_jaxpr(closed: ClosedJaxpr, unknowns, origins=None):
    """Split `closed` by which inputs are unknown. Returns `(known, unknown, out_unknowns,
    forwarded)`: `unknown` takes the residuals, then the unknown inputs, and returns the unknown
    outputs; `known` takes the known inputs and returns the known outputs, then the residuals
    it computes. A residual that is simply a known input is not returned but forwarded:
    `forwarded[i]` is its position among the known inputs, or None if `known` computes it.
    `origins`, if a dict, receives the index in `closed` of each equation of the two jaxprs."""
    known_trace = JaxprTrace()
    pe = PartialEvalTrace(known_trace)
    args = [pe.new_arg(a) if u else known_trace.new_arg(a)
            for a, u in zip(closed.in_avals, unknowns)]
    with set_current_trace(pe):
        outs = eval_jaxpr_recorded(closed.jaxpr, closed.consts, args, [known_trace, pe], origins)
    out_unknowns = [pe.is_unknown(o) for o in outs]
    known_in = [x for x, u in zip(args, unknowns) if not u]
    staged = pe.to_jaxpr([x for x, u in zip(args, unknowns) if u],
                         [o for o, u in zip(outs, out_unknowns) if u])
    j = staged.jaxpr
    is_res = [type(c) is JaxprTracer and c._trace is known_trace for c in staged.consts]
    residuals = [c for c, r in zip(staged.consts, is_res) if r]
    unknown = ClosedJaxpr(
        Jaxpr([v for v, r in zip(j.constvars, is_res) if not r],
              [v for v, r in zip(j.constvars, is_res) if r] + j.invars, j.eqns, j.outvars),
        [c for c, r in zip(staged.consts, is_res) if not r])
    forwarded = [next((i for i, x in enumerate(known_in) if x is r), None) for r in residuals]
    computed = [r for r, f in zip(residuals, forwarded) if f is None]
    known = known_trace.to_jaxpr(known_in, [o for o, u in zip(outs, out_unknowns) if not u]
                                 + computed)
    return known, unknown, out_unknowns, forwarded


def _dedup_residuals(known: ClosedJaxpr, n_out: int):
    """`known` without the residual outputs that are also among its first `n_out` outputs, and
    for each residual output, the position of that output (None if it is kept)."""
    j = known.jaxpr
    first = {}
    for i, v in enumerate(j.outvars[:n_out]):
        if type(v) is Var:
            first.setdefault(v, i)
    same = [first.get(v) if type(v) is Var else None for v in j.outvars[n_out:]]
    kept = [v for v, s in zip(j.outvars[n_out:], same) if s is None]
    return ClosedJaxpr(Jaxpr(j.constvars, j.invars, j.eqns, j.outvars[:n_out] + kept),
                       known.consts), same


def _jit_partial_eval(trace, args, params):
    jaxpr, name, inline = params["jaxpr"], params["name"], params["inline"]
    unknowns = [trace.is_unknown(x) for x in args]
    known, unknown, out_unknowns, forwarded, same = _split_jaxpr(jaxpr, tuple(unknowns))
    n_known = out_unknowns.count(False)
    known_args = [x for x, u in zip(args, unknowns) if not u]
    with set_current_trace(trace.parent_trace):
        known_outs = jit_p.bind(*known_args, jaxpr=known, name=name, inline=inline)
    rest = iter(known_outs[n_known:])
    computed = iter([known_outs[i] if i is not None else next(rest) for i in same])
    residuals = [known_args[f] if f is not None else next(computed) for f in forwarded]
    unknown_outs = JaxprTrace.process_primitive(
        trace, jit_p, [*residuals, *[x for x, u in zip(args, unknowns) if u]],
        {"jaxpr": unknown, "name": name, "inline": inline})
    known_iter, unknown_iter = iter(known_outs[:n_known]), iter(unknown_outs)
    return [next(unknown_iter) if u else next(known_iter) for u in out_unknowns]


@weakref_lru_cache
def _split_jaxpr(jaxpr: ClosedJaxpr, unknowns: tuple):
    """The known and unknown halves of `jaxpr`, made once per pattern of unknown inputs."""
    known, unknown, out_unknowns, forwarded = partial_eval_jaxpr(jaxpr, list(unknowns))
    known, same = _dedup_residuals(known, out_unknowns.count(False))
    return known, unknown, out_unknowns, forwarded, same


partial_eval_rules[jit_p] = _jit_partial_eval


def _jit_transpose(cts, *args, jaxpr, name, inline):
    linear = tuple(x.aval if is_linear(x) else None for x in args)
    known = [x for x in args if not is_linear(x)]
    cts = [instantiate_zeros(ct) for ct in cts]
    avals = tuple(get_aval(x) for x in (*known, *cts))
    outs = iter(jit_p.bind(*known, *cts, jaxpr=_transposed_jaxpr(jaxpr, linear, avals),
                           name=name, inline=inline))
    return [next(outs) if lin is not None else None for lin in linear]


@weakref_lru_cache
def _transposed_jaxpr(jaxpr: ClosedJaxpr, linear: tuple, avals: tuple):
    """The transpose of `jaxpr` in its linear inputs (`linear`: their avals, None for the
    others), as a jaxpr of the other inputs and the output cotangents, of types `avals`."""
    n_known = sum(lin is None for lin in linear)

    def transposed(*known_and_cts):
        it = iter(known_and_cts[:n_known])
        full = [UndefinedPrimal(lin) if lin is not None else next(it) for lin in linear]
        cts_in = backward_pass(jaxpr.jaxpr, jaxpr.consts, full, known_and_cts[n_known:])
        return [instantiate_zeros(ct) for ct, lin in zip(cts_in, linear) if lin is not None]

    return trace_to_jaxpr(transposed, list(avals))


transpose_rules[jit_p] = _jit_transpose


shard_map_lowerings: dict = {}   # primitive -> chapter 16's rule, in a shard_map body


def _allreduce_lowering(reduce_p):
    def rule(ctx, x, *, axes, axis_index_groups):
        in_body = shard_map_lowerings.get(ctx.primitive)      # NotImplemented outside a body
        out = NotImplemented if in_body is None else in_body(
            ctx, x, axes=axes, axis_index_groups=axis_index_groups)
        if out is not NotImplemented:
            return out
        named = tuple(a for a in axes if not isinstance(a, int))
        if named:
            raise NotImplementedError(f"compiling a collective over the named axes {named}, "
                                      "an exchange between devices, is not supported yet")
        positional = tuple(a for a in axes if isinstance(a, int))
        return lowering_rules[reduce_p](ctx, x, axes=positional) if positional else [x]
    return rule


lowering_rules[psum_p] = _allreduce_lowering(lax.reduce_sum_p)
lowering_rules[pmax_p] = _allreduce_lowering(lax.reduce_max_p)
lowering_rules[pmin_p] = _allreduce_lowering(lax.reduce_min_p)
