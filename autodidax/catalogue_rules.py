# Generated from chapters/A17_catalogue_rules.md by `make export`: edit the chapter, not this file.


"""The JVP and batching rules of the `lax` catalogue's rarely used primitives, registered into
chapter 3's `jvp_rules` and chapter 4's `batching_rules`."""
from __future__ import annotations

import numpy as np

from autodidax import lax_core as lax
from autodidax.batching import (batching_rules, bdim_at_front, broadcast, broadcasting,
                                not_mapped, reducer, vectorized)
from autodidax.core import LiteralArray, get_aval, is_literal, to_numpy
from autodidax.jvp import (Zero, defjvp2, defjvp_zero, deflinear, full_like, full_like_aval,
                           jvp_rules, maybe_broadcast)


def _const(x, value):
    """A scalar constant of `x`'s dtype, strongly typed (JAX's `_const`)."""
    return LiteralArray(np.asarray(value, get_aval(x).dtype), weak_type=False)


def _one(x):
    """A scalar 1 of `x`'s dtype and weak type (JAX's `_one`)."""
    return full_like_aval(1, get_aval(x).update(shape=()))


defjvp2(lax.exp2_p, lambda t, ans, x: lax.mul(lax.log(_const(x, 2)), lax.mul(t, ans)))
defjvp2(lax.expm1_p, lambda t, ans, x: lax.mul(t, lax.add(ans, _one(ans))))
defjvp2(lax.log1p_p, lambda t, ans, x: lax.div(t, lax.add(x, _one(x))))
defjvp2(lax.tan_p, lambda t, ans, x: lax.mul(t, lax.add(_const(x, 1), lax.square(ans))))
defjvp2(lax.asin_p, lambda t, ans, x: lax.mul(t, lax.rsqrt(lax.sub(_const(x, 1),
                                                                   lax.square(x)))))
defjvp2(lax.acos_p, lambda t, ans, x: lax.mul(t, lax.neg(lax.rsqrt(lax.sub(_const(x, 1),
                                                                           lax.square(x))))))
defjvp2(lax.atan_p, lambda t, ans, x: lax.div(t, lax.add(_const(x, 1), lax.square(x))))
defjvp2(lax.sinh_p, lambda t, ans, x: lax.mul(t, lax.cosh(x)))
defjvp2(lax.cosh_p, lambda t, ans, x: lax.mul(t, lax.sinh(x)))
defjvp2(lax.asinh_p, lambda t, ans, x: lax.mul(t, lax.rsqrt(lax.add(lax.square(x), _one(x)))))
defjvp2(lax.acosh_p, lambda t, ans, x: lax.mul(t, lax.rsqrt(lax.sub(lax.square(x), _one(x)))))
defjvp2(lax.atanh_p, lambda t, ans, x: lax.mul(lax.integer_pow(lax.add(_one(x), x), -1),
                                               lax.div(t, lax.sub(_one(x), x))))
defjvp2(lax.rsqrt_p, lambda t, ans, x: lax.mul(t, lax.mul(_const(x, -0.5), lax.div(ans, x))))
defjvp2(lax.atan2_p,
        lambda t, ans, x, y: lax.mul(t, lax.div(y, lax.add(lax.square(x), lax.square(y)))),
        lambda t, ans, x, y: lax.mul(t, lax.div(lax.neg(x),
                                                lax.add(lax.square(x), lax.square(y)))))


def _rem_jvp_rhs(t, ans, x, y):
    return lax.mul(lax.neg(t), lax.mul(lax.sign(lax.div(x, y)),
                                       lax.floor(lax.abs(lax.div(x, y)))))


defjvp2(lax.rem_p, lambda t, ans, x, y: maybe_broadcast(t, get_aval(ans).shape),
        _rem_jvp_rhs)


def _strong(x):
    """`x` without its weak type, as JAX's public `convert_element_type` makes it: a scalar
    constant is converted at once, anything else by a `convert_element_type`."""
    aval = get_aval(x)
    if not aval.weak_type:
        return x
    if not aval.shape and is_literal(x):
        return LiteralArray(to_numpy(x), weak_type=False)
    return lax.convert_element_type(x, aval.dtype)


def _replace_zero(x):
    """`x`, with 1 where it is 0 (JAX's `_replace_zero`)."""
    is_zero, ones = lax.eq(x, _const(x, 0)), full_like(x, 1)
    return lax.select_n(is_zero, x, ones)


def _pow_jvp_lhs(t, ans, x, y):
    x, y = _strong(x), _strong(y)
    return lax.mul(t, lax.mul(y, lax.pow(x, lax.sub(y, full_like(y, 1)))))


def _pow_jvp_rhs(t, ans, x, y):
    return _strong(lax.mul(t, lax.mul(lax.log(_replace_zero(x)), ans)))


defjvp2(lax.pow_p, _pow_jvp_lhs, _pow_jvp_rhs)


def _reduce_chooser_term(t, ans, x, *, axes, **params):
    kept_shape = [1 if i in axes else d for i, d in enumerate(get_aval(x).shape)]
    winners = lax.convert_element_type(lax.eq(x, lax.reshape(ans, kept_shape)),
                                       get_aval(t).dtype)
    counts = lax.reduce_sum(winners, axes)
    return lax.div(lax.reduce_sum(lax.mul(t, winners), axes), counts)


defjvp2(lax.reduce_max_p, _reduce_chooser_term)
defjvp2(lax.reduce_min_p, _reduce_chooser_term)
for _piecewise_constant in (lax.floor_p, lax.ceil_p, lax.round_p, lax.is_finite_p,
                            lax.reduce_or_p, lax.reduce_and_p, lax.argmax_p, lax.argmin_p):
    defjvp_zero(_piecewise_constant)


def _reduce_prod_jvp(primals, tangents, *, axes):
    (x,), (t,) = primals, tangents
    ans = lax.reduce_prod(x, axes)
    if type(t) is Zero:
        return ans, Zero.from_primal_value(ans)
    shape = get_aval(x).shape
    kept = [i for i in range(len(shape)) if i not in axes]
    rest = [shape[i] for i in kept]
    n = int(np.prod([shape[i] for i in axes], dtype=int))
    x, t = (lax.reshape(lax.transpose(v, [*axes, *kept]), [n, *rest]) for v in (x, t))
    while n > 1:                 # product rule on pairs: (x1 x2)' = t1 x2 + x1 t2
        if n % 2:                # an odd one out is paired with 1, whose tangent is 0
            x = lax.concatenate([x, full_like_aval(1, get_aval(x).update(shape=(1, *rest)))], 0)
            t = lax.concatenate([t, full_like_aval(0, get_aval(t).update(shape=(1, *rest)))], 0)
            n += 1
        h = n // 2
        (x1, x2), (t1, t2) = ([lax.slice(v, [0] * (1 + len(rest)), [h, *rest]),
                               lax.slice(v, [h] + [0] * len(rest), [n, *rest])] for v in (x, t))
        x, t, n = lax.mul(x1, x2), lax.add(lax.mul(t1, x2), lax.mul(x1, t2)), h
    if n == 0:
        return ans, full_like(ans, 0)
    return ans, lax.reshape(t, rest)


jvp_rules[lax.reduce_prod_p] = _reduce_prod_jvp
for _p in [lax.cumsum_p, lax.real_p, lax.imag_p, lax.conj_p, lax.complex_p]:
    deflinear(_p)


def _cumprod_jvp(primals, tangents, *, axis, reverse):
    """The product rule through a prefix scan: at step s every element is multiplied by the
    one s places before it (Hillis and Steele), which takes log2(n) steps."""
    (x,), (t,) = primals, tangents
    ans = lax.cumprod(x, axis, reverse)
    if type(t) is Zero:
        return ans, Zero.from_primal_value(ans)
    if reverse:
        x, t = lax.rev(x, [axis]), lax.rev(t, [axis])
    n, step = get_aval(x).shape[axis], 1
    while step < n:
        x_before, t_before = _shifted(x, axis, step, 1), _shifted(t, axis, step, 0)
        x, t = lax.mul(x, x_before), lax.add(lax.mul(t, x_before), lax.mul(x, t_before))
        step *= 2
    return ans, lax.rev(t, [axis]) if reverse else t


def _shifted(v, axis, step, fill):
    """`v` moved `step` places along `axis`, the first `step` places filled with `fill`."""
    shape = list(get_aval(v).shape)
    start, limit = [0] * len(shape), list(shape)
    limit[axis] -= step
    head = full_like_aval(fill, get_aval(v).update(shape=(*shape[:axis], step, *shape[axis + 1:])))
    return lax.concatenate([head, lax.slice(v, start, limit)], axis)


jvp_rules[lax.cumprod_p] = _cumprod_jvp


def _shape(x):
    return get_aval(x).shape


for _p in [lax.floor_p, lax.ceil_p, lax.round_p, lax.is_finite_p, lax.exp2_p, lax.expm1_p,
           lax.log1p_p, lax.tan_p, lax.asin_p, lax.acos_p, lax.atan_p, lax.sinh_p, lax.cosh_p,
           lax.asinh_p, lax.acosh_p, lax.atanh_p, lax.rsqrt_p, lax.real_p, lax.imag_p,
           lax.conj_p]:
    batching_rules[_p] = vectorized(_p)
for _p in [lax.pow_p, lax.atan2_p, lax.rem_p, lax.complex_p]:
    batching_rules[_p] = broadcasting(_p)
for _p in [lax.reduce_prod_p, lax.reduce_or_p, lax.reduce_and_p, lax.argmax_p, lax.argmin_p]:
    batching_rules[_p] = reducer(_p)


def _cumulative_rule(prim):
    """`cumsum` and `cumprod` keep their axis: shift it past the batch axis."""
    def rule(vals, dims, *, axis, reverse):
        (x,), (d,) = vals, dims
        return prim.bind(x, axis=axis + (axis >= d), reverse=reverse), d
    return rule


for _p in [lax.cumsum_p, lax.cumprod_p]:
    batching_rules[_p] = _cumulative_rule(_p)


def _stack_rule(vals, dims, *, axis):
    d = dims[0]
    if d is not not_mapped and all(x == d for x in dims):
        return lax.stack_p.bind(*vals, axis=axis + (axis > d)), d + (axis <= d)
    size = next(_shape(x)[xd] for x, xd in zip(vals, dims) if xd is not not_mapped)
    return lax.stack_p.bind(*[bdim_at_front(x, xd, size) for x, xd in zip(vals, dims)],
                            axis=axis + 1), 0


def _unstack_rule(vals, dims, *, axis):
    (x,), (d,) = vals, dims
    outs = lax.unstack_p.bind(x, axis=axis + (axis >= d))
    return outs, [d - (axis < d)] * len(outs)


batching_rules.update({lax.stack_p: _stack_rule, lax.unstack_p: _unstack_rule})


def _select_n_rule(vals, dims, **params):
    (which, *cases), (wd, *case_dims) = vals, dims
    size = next(_shape(x)[d] for x, d in zip(vals, dims) if d is not not_mapped)
    which_rank = len(_shape(which)) - (wd is not not_mapped)
    case_rank = len(_shape(cases[0])) - (case_dims[0] is not not_mapped)
    d0 = case_dims[0]
    if d0 is not not_mapped and all(d == d0 for d in case_dims) and (
            (wd is not_mapped and which_rank == 0) or (wd == d0 and which_rank == case_rank)):
        return lax.select_n_p.bind(which, *cases, **params), d0
    cases = [bdim_at_front(c, d, size) for c, d in zip(cases, case_dims)]
    if wd is not not_mapped or which_rank != 0:
        if which_rank == case_rank:
            which = bdim_at_front(which, wd, size)
        else:   # one predicate per example, for cases that are arrays
            which = lax.broadcast_in_dim(which, _shape(cases[0]), [0])
    return lax.select_n_p.bind(which, *cases, **params), 0


batching_rules[lax.select_n_p] = _select_n_rule


def _pad_rule(vals, dims, *, padding_config):
    (x, value), (d, value_dim) = vals, dims
    if d is not_mapped:
        x, d = broadcast(x, _shape(value)[value_dim], 0), 0
    config = list(padding_config)
    config.insert(d, (0, 0, 0))
    if value_dim is not_mapped:
        return lax.pad(x, value, config), d
    dtype = get_aval(x).dtype
    padded = lax.pad(x, np.zeros((), dtype), config)
    mask = lax.pad(lax.broadcast_in_dim(np.array(True), _shape(x), ()), np.array(False), config)
    values = lax.broadcast_in_dim(value, _shape(padded), (d,))
    return lax.select_n(mask, values, padded), d


batching_rules[lax.pad_p] = _pad_rule
