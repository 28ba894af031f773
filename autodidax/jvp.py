# Generated from chapters/03_jvp.md by `make export`: edit the chapter, not this file.


"""Forward-mode automatic differentiation: the JVP trace, its rules, `jvp`, and the standard
basis and Jacobian blocks of `jacfwd` (chapter 4) and `jacrev` (chapter 9)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from autodidax import lax_core as lax
from autodidax import numpy as jnp
from autodidax.core import (Array, EvalTrace, LiteralArray, Primitive, ShapedArray, Trace, Tracer,
                            abstract_eval_rules, api_boundary, dtype_kind, get_aval, impl_rules,
                            is_literal, set_current_trace, take_current_trace, to_numpy, trace_ctx)
from autodidax.tree_util import (flatten_fun, tree_flatten, tree_map, tree_structure,
                                 tree_unflatten)

float0 = np.dtype([("float0", np.void, 0)])   # the dtype of tangents of int and bool values


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    """The type of the tangents of values of type `aval`: itself for floats, float0 otherwise."""
    return aval if dtype_kind(aval.dtype) in "fc" else ShapedArray(aval.shape, float0)


def _aval_str(aval: ShapedArray, short: bool = True) -> str:
    if aval.dtype == float0:
        return f"float0[{','.join(map(str, aval.shape))}]"
    return aval.str_short(short)


class Zero:
    """A tangent known to be zero. It holds only its type: no array is made."""
    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    @staticmethod
    def from_primal_value(x) -> Zero:
        """The zero tangent of the value `x`."""
        return Zero(tangent_aval(get_aval(x)))

    def instantiate(self):
        return zeros_like_aval(self.aval)

    def __repr__(self):     # `Zero(~float32[])`, as JAX's
        return f"Zero({_aval_str(self.aval, short=False)})"


def full_like_aval(value, aval: ShapedArray):
    """An array of type `aval` filled with `value`, made by the current trace."""
    scalar = LiteralArray(np.full((), value, aval.dtype), aval.weak_type)
    return lax.broadcast_in_dim(scalar, aval.shape, ()) if aval.shape else scalar


def zeros_like_aval(aval: ShapedArray):
    """An array of zeros of type `aval`, made by the current trace."""
    if aval.dtype == float0 and (isinstance(trace_ctx.trace, EvalTrace) or not aval.shape):
        return np.zeros(aval.shape, float0)       # no values: eagerly, nothing to compute
    return full_like_aval(0, aval)


def instantiate_zeros(tangent):
    """A real array for a tangent that may be `Zero`."""
    return zeros_like_aval(tangent.aval) if type(tangent) is Zero else tangent


add_any_p = Primitive("add_any")


def _add_any_abstract(x: ShapedArray, y: ShapedArray) -> ShapedArray:
    if x.shape != y.shape or x.dtype != y.dtype:
        raise TypeError(f"add_any adds two tangents of one type, got {x.str_short()} and "
                        f"{y.str_short()}")
    return x.update(weak_type=x.weak_type and y.weak_type)


impl_rules[add_any_p] = np.add
abstract_eval_rules[add_any_p] = _add_any_abstract


def add_any(x, y):
    """The sum of two tangents (or cotangents) of one type."""
    return add_any_p.bind(x, y)


def add_tangents(x, y):
    """The sum of two tangents of one value, either of which may be `Zero`."""
    if type(x) is Zero:
        return y
    if type(y) is Zero:
        return x
    return add_any_p.bind(x, y)


class TraceTag:
    """The identity of one application of a transformation; compared with `is`, never by value."""
    __slots__ = ()


class JVPTracer(Tracer):
    """A value under `jvp`: its primal and its tangent (never a `Zero`: see `maybe_jvp_tracer`)."""
    __slots__ = ("primal", "tangent")

    def __init__(self, trace: JVPTrace, primal, tangent):
        self._trace, self.primal, self.tangent = trace, primal, tangent

    def __repr__(self):
        return self._trace.tracer_repr(self)

    @property
    def aval(self) -> ShapedArray:
        return get_aval(self.primal)

    def to_concrete_value(self):
        primal = self.primal
        return primal.to_concrete_value() if isinstance(primal, Tracer) else to_numpy(primal)


def maybe_jvp_tracer(trace: JVPTrace, primal, tangent):
    """A tracer for a primal with a tangent; the primal itself when the tangent is `Zero`."""
    return primal if type(tangent) is Zero else JVPTracer(trace, primal, tangent)


jvp_rules: dict = {}   # primitive -> rule(primals, tangents, **params) -> (primal_out, tangent_out)


class JVPTrace(Trace):
    """Processes primitives on (primal, tangent) pairs, with the parent trace for the arithmetic."""

    def __init__(self, parent_trace: Trace, tag: TraceTag):
        self.parent_trace, self.tag = parent_trace, tag

    def __repr__(self):
        return "jvp"

    def tracer_repr(self, tracer) -> str:
        return f"JVPTracer(primal={tracer.primal}, tangent={tracer.tangent})"

    def to_primal_tangent_pair(self, val):
        if isinstance(val, JVPTracer) and val._trace.tag is self.tag:
            return val.primal, val.tangent
        return val, Zero.from_primal_value(val)

    def process_primitive(self, primitive, tracers, params):
        pairs = [self.to_primal_tangent_pair(x) for x in tracers]
        primals, tangents = tuple(p for p, _ in pairs), tuple(t for _, t in pairs)
        if all(type(t) is Zero for t in tangents):        # and a primitive without operands
            with set_current_trace(self.parent_trace):
                return primitive.bind(*primals, **params)
        rule = jvp_rules.get(primitive)
        if rule is None:
            raise NotImplementedError(f"Differentiation rule for '{primitive}' not implemented: "
                                      f"register one in autodidax.jvp.jvp_rules[{primitive}]")
        with set_current_trace(self.parent_trace):
            primal_out, tangent_out = rule(primals, tangents, **params)
        if primitive.multiple_results:
            return [maybe_jvp_tracer(self, p, t) for p, t in zip(primal_out, tangent_out)]
        return maybe_jvp_tracer(self, primal_out, tangent_out)


def defjvp2(primitive, *term_rules):
    """A JVP rule that sums one term per input: `term(t, ans, *primals, **params)` is the
    contribution of input i's tangent `t`; None for an input that has no derivative."""
    def rule(primals, tangents, **params):
        ans = primitive.bind(*primals, **params)
        tangent_out = Zero.from_primal_value(ans)
        for term, t in zip(term_rules, tangents):
            if term is not None and type(t) is not Zero:
                tangent_out = add_tangents(tangent_out, term(t, ans, *primals, **params))
        return ans, tangent_out
    jvp_rules[primitive] = rule


def deflinear(primitive):
    """The JVP rule of a primitive linear in its inputs: the primitive, applied to the tangents."""
    def rule(primals, tangents, **params):
        return (primitive.bind(*primals, **params),
                primitive.bind(*map(instantiate_zeros, tangents), **params))
    jvp_rules[primitive] = rule


def defjvp_zero(primitive):
    """The JVP rule of a primitive whose output does not move when its inputs move a little."""
    def rule(primals, tangents, **params):
        ans = primitive.bind(*primals, **params)
        return ans, Zero.from_primal_value(ans)
    jvp_rules[primitive] = rule


def full_like(x, value):
    """An array of `x`'s shape, dtype and weak type filled with `value` (JAX's `full_like`)."""
    return full_like_aval(value, get_aval(x))


def _complex_abs_jvp(t, ans, x):
    """d|z| = Re(t conj(z) / |z|), dividing by 1 where |z| = 0 (JAX's `_abs_jvp_rule`)."""
    conj_x, ans = lax.conj(x), lax.convert_element_type(ans, get_aval(x).dtype)
    ans = lax.select_n(lax.eq(ans, lax.const_like(ans, 0)), ans, full_like(ans, 1))
    return lax.real(lax.mul(t, lax.div(conj_x, ans)))


deflinear(lax.neg_p)
defjvp2(lax.sin_p, lambda t, ans, x: lax.mul(t, lax.cos(x)))
defjvp2(lax.cos_p, lambda t, ans, x: lax.neg(lax.mul(t, lax.sin(x))))
defjvp2(lax.exp_p, lambda t, ans, x: lax.mul(t, ans))
defjvp2(lax.log_p, lambda t, ans, x: lax.div(t, x))
defjvp2(lax.tanh_p, lambda t, ans, x: lax.mul(lax.add(t, lax.mul(t, ans)),
                                              lax.sub(lax.const_like(x, 1), ans)))
defjvp2(lax.sqrt_p, lambda t, ans, x: lax.mul(t, lax.div(lax.const_like(x, 0.5), ans)))
defjvp2(lax.abs_p, lambda t, ans, x: lax.select_n(lax.ge(x, lax.const_like(x, 0)), lax.neg(t), t)
        if dtype_kind(get_aval(x).dtype) != "c" else _complex_abs_jvp(t, ans, x))
defjvp_zero(lax.sign_p)
defjvp2(lax.square_p, lambda t, ans, x: lax.mul(t, lax.mul(lax.const_like(x, 2), x)))
deflinear(add_any_p)


def maybe_broadcast(t, shape):
    """`t`, broadcast to `shape`: from a scalar, or by stretching its dimensions of size 1."""
    t_shape = get_aval(t).shape
    if t_shape == tuple(shape):
        return t
    if not t_shape:
        return lax.broadcast_in_dim(t, shape, ())
    kept = [i for i, (a, b) in enumerate(zip(t_shape, shape)) if a == b]
    return lax.broadcast_in_dim(lax.reshape(t, [t_shape[i] for i in kept]), shape, kept)


def _add_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    ans = lax.add_p.bind(x, y)
    if type(x_dot) is Zero:
        return ans, maybe_broadcast(y_dot, get_aval(ans).shape)
    if type(y_dot) is Zero:
        return ans, maybe_broadcast(x_dot, get_aval(ans).shape)
    return ans, lax.add(x_dot, y_dot)


def _sub_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    ans = lax.sub_p.bind(x, y)
    if type(x_dot) is Zero:
        return ans, maybe_broadcast(lax.neg(y_dot), get_aval(ans).shape)
    if type(y_dot) is Zero:
        return ans, maybe_broadcast(x_dot, get_aval(ans).shape)
    return ans, lax.sub(x_dot, y_dot)


def _select(which, on_true, on_false):
    """JAX's `select`: the arguments in the order it evaluates them."""
    return lax.select_n(which, on_false, on_true)


def _balanced_eq(x, z, y):
    """Where z equals x: 1, or 1/2 if z equals y too; 0 elsewhere."""
    return lax.div(_select(lax.eq(x, z), full_like(z, 1), full_like(z, 0)),
                   _select(lax.eq(y, z), full_like(z, 2), full_like(z, 1)))


jvp_rules[lax.add_p] = _add_jvp
jvp_rules[lax.sub_p] = _sub_jvp
defjvp2(lax.mul_p, lambda t, ans, x, y: lax.mul(t, y), lambda t, ans, x, y: lax.mul(x, t))
defjvp2(lax.div_p, lambda t, ans, x, y: lax.div(t, y),
        lambda t, ans, x, y: lax.mul(lax.mul(lax.neg(t), x), lax.integer_pow(y, -2)))
defjvp2(lax.max_p, lambda t, ans, x, y: lax.mul(t, _balanced_eq(x, ans, y)),
        lambda t, ans, x, y: lax.mul(t, _balanced_eq(y, ans, x)))
defjvp2(lax.min_p, lambda t, ans, x, y: lax.mul(t, _balanced_eq(x, ans, y)),
        lambda t, ans, x, y: lax.mul(t, _balanced_eq(y, ans, x)))
for _piecewise_constant in (lax.gt_p, lax.lt_p, lax.ge_p, lax.le_p, lax.eq_p, lax.ne_p,
                            lax.and_p, lax.or_p, lax.xor_p, lax.not_p):
    defjvp_zero(_piecewise_constant)


def _integer_pow_term(t, ans, x, *, y):
    if y == 0:
        return full_like(t, 0)
    if y == 1:
        return t
    return lax.mul(t, lax.mul(lax.const_like(x, y), x if y == 2 else lax.integer_pow(x, y - 1)))


defjvp2(lax.integer_pow_p, _integer_pow_term)


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    case_tangents = tangents[1:]
    ans = lax.select_n(which, *cases)
    nonzero = [t for t in case_tangents if type(t) is not Zero]
    if not nonzero:
        return ans, Zero.from_primal_value(ans)
    zeros = full_like(nonzero[0], 0)          # one array of zeros for every `Zero` case
    return ans, lax.select_n(which, *[zeros if type(t) is Zero else t for t in case_tangents])


def _convert_element_type_jvp(primals, tangents, **params):
    (x,), (t,) = primals, tangents
    ans = lax.convert_element_type_p.bind(x, **params)
    if dtype_kind(params["new_dtype"]) not in "fc" or type(t) is Zero:
        return ans, Zero.from_primal_value(ans)
    return ans, lax.convert_element_type_p.bind(t, **params)


jvp_rules[lax.select_n_p] = _select_n_jvp
jvp_rules[lax.convert_element_type_p] = _convert_element_type_jvp


for _linear in (lax.reduce_sum_p, lax.broadcast_in_dim_p, lax.reshape_p, lax.transpose_p,
                lax.squeeze_p, lax.slice_p, lax.rev_p, lax.concatenate_p, lax.pad_p,
                lax.stack_p, lax.unstack_p):
    deflinear(_linear)
defjvp_zero(lax.iota_p)
defjvp2(lax.dot_general_p,
        lambda t, ans, x, y, **params: lax.dot_general_p.bind(t, y, **params),
        lambda t, ans, x, y, **params: lax.dot_general_p.bind(x, t, **params))


defjvp_zero(lax.stop_gradient_p)        # the identity, declared not to move (JAX's rule too)


def stop_gradient(x):
    """`x`, each leaf of the pytree `x`, with a zero derivative."""
    if isinstance(trace_ctx.trace, EvalTrace):
        return x
    return tree_map(lax.stop_gradient_p.bind, x)


def jvp_flat(fun: Callable, primals: Sequence, tangents: Sequence, instantiate: bool = True):
    """`fun` takes flat arrays and returns a list of arrays; tangents may be `Zero`.
    Returns `(primals_out, tangents_out)`, two lists."""
    with take_current_trace() as parent_trace:
        trace = JVPTrace(parent_trace, TraceTag())
        tracers = [maybe_jvp_tracer(trace, p, t) for p, t in zip(primals, tangents)]
        try:
            with set_current_trace(trace):
                outs = fun(*tracers)
            primals_out, tangents_out = [], []
            for out in outs:
                p, t = trace.to_primal_tangent_pair(out)
                primals_out.append(p)
                tangents_out.append(t)
        finally:
            trace.invalidate()
    if instantiate:
        tangents_out = [instantiate_zeros(t) for t in tangents_out]
    return primals_out, tangents_out


@api_boundary
def jvp(fun: Callable, primals: Sequence, tangents: Sequence, has_aux: bool = False):
    """`(fun(*primals), J v)`: the value of `fun` and its Jacobian at `primals` applied to
    `tangents`, both in the structure of `fun`'s output. With `has_aux`, `fun` returns
    `(output, aux)`, and so does this, as `(output, J v, aux)`: `aux` is not differentiated."""
    check_callable(fun)
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("primal and tangent arguments to jax.jvp must be tuples or lists; found "
                        f"{type(primals).__name__} and {type(tangents).__name__}.")
    primals_flat, in_tree = tree_flatten(tuple(primals))
    tangents_flat, tangent_tree = tree_flatten(tuple(tangents))
    if in_tree != tangent_tree:
        raise TypeError("primal and tangent arguments to jax.jvp must have the same tree "
                        f"structure; primals have tree structure {in_tree} whereas tangents "
                        f"have tree structure {tangent_tree}.")
    tangents_flat = [_check_tangent(p, t, where) for p, t, where
                     in zip(primals_flat, tangents_flat, _leaf_names(primals, "primals"))]
    flat_fun, out_tree = flatten_fun(split_aux(fun) if has_aux else fun, in_tree)
    primals_out, tangents_out = jvp_flat(flat_fun, primals_flat, tangents_flat)
    out_tree = out_tree()
    if not has_aux:
        return tree_unflatten(out_tree, primals_out), tree_unflatten(out_tree, tangents_out)
    out_tree, aux_tree = out_tree.children()
    n = out_tree.num_leaves
    return (tree_unflatten(out_tree, primals_out[:n]), tree_unflatten(out_tree, tangents_out[:n]),
            tree_unflatten(aux_tree, primals_out[n:]))


def std_basis(avals: Sequence[ShapedArray]) -> list:
    """The standard basis of the leaves `avals`, one array per leaf: the columns of the identity
    matrix of their total size `n` that fall on the leaf, shaped `(n,) + leaf.shape`."""
    n = sum(a.size for a in avals)
    eye, basis, start = np.eye(n), [], 0
    for a in avals:
        basis.append(Array(eye[:, start:start + a.size].reshape((n,) + a.shape).astype(a.dtype)))
        start += a.size
    return basis


def jacobian_blocks(jac, axis: int, avals: Sequence[ShapedArray], like: ShapedArray) -> list:
    """Cut the axis `axis` (0 or -1) of `jac` into one block per leaf of `avals`, each with the
    leaf's shape in place of the axis, and the dtype and weak type of `like`."""
    shape, blocks, start = get_aval(jac).shape, [], 0
    axis %= len(shape)
    for a in avals:
        block = jac[(slice(None),) * axis + (slice(start, start + a.size),)]
        block = jnp.reshape(block, shape[:axis] + a.shape + shape[axis + 1:])
        blocks.append(cast_like(block, like))
        start += a.size
    return blocks


def cast_like(x, aval: ShapedArray):
    """`x` with the dtype and weak type of `aval` (JAX's `_possible_downcast`)."""
    x_aval = get_aval(x)
    if (x_aval.dtype, x_aval.weak_type) == (aval.dtype, aval.weak_type):
        return x
    return lax.convert_element_type(x, aval.dtype, aval.weak_type)


def _leaf_names(args: Sequence, what: str) -> list[str]:
    names = []
    for i, arg in enumerate(args):
        n = len(tree_flatten(arg)[0])
        names += [f"{what}[{i}]"] if n == 1 else [f"leaf {j} of {what}[{i}]" for j in range(n)]
    return names


def check_callable(fun) -> None:
    """JAX's error for a transformation given something that is not a function."""
    if not callable(fun):
        raise TypeError(f"Expected a callable value, got {fun}")


def _check_tangent(primal, tangent, where: str):
    """The tangent as `jvp_flat` wants it; a clear error when it does not fit its primal."""
    p_aval = get_aval(primal)
    if isinstance(tangent, np.ndarray) and tangent.dtype == float0:
        t_aval = ShapedArray(tangent.shape, float0)
    else:
        t_aval = get_aval(tangent)
    want = tangent_aval(p_aval)
    if t_aval.dtype != want.dtype or t_aval.shape != want.shape:
        hint = ("" if want.dtype != float0 else
                f"; {p_aval.dtype.name} values have no derivative, and take tangents of dtype "
                "float0: np.zeros(shape, autodidax.jvp.float0)")
        raise (TypeError if t_aval.dtype != want.dtype else ValueError)(
            f"jvp: the tangent of {where} does not match its primal: the primal is "
            f"{p_aval.str_short()}, so its tangent must be {_aval_str(want)}, but it is "
            f"{_aval_str(t_aval)}{hint}")
    if want.dtype == float0:
        return Zero(want)
    if t_aval.weak_type != p_aval.weak_type and not isinstance(tangent, Tracer):
        cls = LiteralArray if is_literal(tangent) else Array
        return cls(to_numpy(tangent), p_aval.weak_type)      # the primal's weak type
    return tangent


def split_aux(fun: Callable) -> Callable:
    """`fun`, which returns a pair `(output, aux)`, checked to return one: for `has_aux=True`,
    where `aux` is carried along without being differentiated."""
    def with_aux(*args, **kwargs):
        result = fun(*args, **kwargs)
        if not (isinstance(result, (tuple, list)) and len(result) == 2):
            what = (f"a {type(result).__name__} of length {len(result)}"
                    if isinstance(result, (tuple, list)) else "a single value")
            raise TypeError("with has_aux=True the function must return a pair (output, aux), "
                            f"but it returned {what}")
        return tuple(result)
    return with_aux


def argnums_partial(fun: Callable, argnums, args: Sequence, what: str):
    """`fun` as a function of its positional arguments `argnums` (an int or a tuple of ints)
    only, the others fixed to `args`; and those arguments. `what` names the caller in errors."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if any(not -len(args) <= i < len(args) for i in nums):
        raise ValueError(f"{what}: argnums {argnums} is out of range for a function called "
                         f"with {len(args)} positional arguments")
    nums = [i % len(args) for i in nums]

    def partial_fun(*dynamic):
        full = list(args)
        for i, x in zip(nums, dynamic):
            full[i] = x
        return fun(*full)
    return partial_fun, tuple(args[i] for i in nums)


def check_float_inputs(leaves, what: str, holomorphic=False, outputs=False) -> None:
    """Refuse, in JAX's words, the inputs (or `outputs`) a Jacobian cannot take: all but real
    floats, or all but complex numbers when `holomorphic`."""
    for leaf in leaves:
        dtype, which = get_aval(leaf).dtype, "outputs" if outputs else "inputs"
        if holomorphic and dtype_kind(dtype) != "c":
            raise TypeError(f"{what} with holomorphic=True requires {which} with complex dtype, "
                            f"but got {dtype.name}.")
        if not (holomorphic or outputs) and dtype_kind(dtype) != "f":
            raise TypeError(f"{what} requires real-valued inputs (input dtype that is a sub-dtype "
                            f"of np.floating), but got {dtype.name}. For holomorphic "
                            "differentiation, pass holomorphic=True. For differentiation of "
                            "non-holomorphic functions involving complex inputs or integer "
                            "inputs, use jax.jvp directly.")
