# Generated from chapters/A2_library.md by `make export`: edit the chapter, not this file.


"""`jax.scipy.special`: special functions, and the primitives they need (`erf`, `lgamma`, ...)."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import chlo
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax.jvp import stop_gradient
from autodidax import numpy as jnp
from autodidax.batching import batching_rules, moveaxis
from autodidax.core import (LiteralArray, Primitive, ShapedArray, abstract_eval_rules, dtype_kind,
                            get_aval, impl_rules, wrap_public_functions)
from autodidax.indexing import xla_impl       # chapter 11: run one primitive compiled by XLA
from autodidax.jvp import defjvp2, full_like
from autodidax.lowering import full_like_aval, lowering_rules, nary_lowering


def _check_float(name, *avals):
    for aval in avals:
        if dtype_kind(aval.dtype) != "f":
            raise TypeError(f"{name} does not accept dtype {aval.dtype.name}. "
                            "Accepted dtypes are subtypes of floating.")


def _unop_batching(primitive):
    return lambda vals, dims: (primitive.bind(*vals), dims[0])


def float_unop(name, chlo_op=None):
    """A new elementwise primitive of one float operand, with its evaluation, abstract
    evaluation and batching rules, and its lowering to `chlo_op` if given."""
    primitive = Primitive(name)
    impl_rules[primitive] = xla_impl(primitive)

    def abstract_eval(x):
        _check_float(name, x)
        return x
    abstract_eval_rules[primitive] = abstract_eval
    batching_rules[primitive] = _unop_batching(primitive)
    if chlo_op is not None:
        lowering_rules[primitive] = nary_lowering(chlo_op)
    return primitive


erf_p = float_unop("erf", chlo.erf)
erfc_p = float_unop("erfc", chlo.erfc)
erf_inv_p = float_unop("erf_inv", chlo.erf_inv)
lgamma_p = float_unop("lgamma", chlo.lgamma)
digamma_p = float_unop("digamma", chlo.digamma)
logistic_p = float_unop("logistic")


def _logistic_lowering(ctx, x):
    one = full_like_aval(1, ctx.avals_in[0])
    return [hlo.divide(one, hlo.add(one, hlo.exponential(hlo.negate(x))))]


lowering_rules[logistic_p] = _logistic_lowering


polygamma_p = Primitive("polygamma")
impl_rules[polygamma_p] = xla_impl(polygamma_p)


def _polygamma_abstract(m, x):
    _check_float("polygamma", m, x)
    if m.dtype != x.dtype:
        raise TypeError(f"lax.polygamma requires arguments to have the same dtypes, got "
                        f"{m.dtype.name}, {x.dtype.name}.")
    shape = lax.broadcasting_shape("polygamma", m.shape, x.shape)
    return ShapedArray(shape, x.dtype, m.weak_type and x.weak_type)


def _polygamma_batching(vals, dims):
    size = next(get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not None)
    rank = max(get_aval(v).ndim - (d is not None) for v, d in zip(vals, dims))

    def to_front(v, d):
        if d is None:                      # one value for every example
            return lax.expand_dims(v, [0]) if get_aval(v).shape else v
        v = moveaxis(v, d, 0)
        return v if get_aval(v).ndim - 1 == rank else lax.reshape(v, (size,) + (1,) * rank)
    return polygamma_p.bind(*map(to_front, vals, dims)), 0


abstract_eval_rules[polygamma_p] = _polygamma_abstract
batching_rules[polygamma_p] = _polygamma_batching
lowering_rules[polygamma_p] = nary_lowering(chlo.polygamma)


const_like = lax.const_like


def _one(x):
    """A scalar 1 of `x`'s dtype and weak type (JAX's `lax._one`)."""
    aval = get_aval(x)
    return LiteralArray(np.asarray(1, aval.dtype), aval.weak_type)


def _gaussian(t, x):
    return lax.mul(t, lax.exp(lax.neg(lax.square(x))))


def _polygamma_jvp_m(t, ans, m, x):
    raise ValueError("polygamma gradient with respect to m is not supported")


defjvp2(logistic_p, lambda t, ans, x: lax.mul(t, lax.mul(ans, lax.sub(_one(ans), ans))))
defjvp2(erf_p, lambda t, ans, x: lax.mul(const_like(x, 2 / np.sqrt(np.pi)), _gaussian(t, x)))
defjvp2(erfc_p, lambda t, ans, x: lax.mul(const_like(x, -2 / np.sqrt(np.pi)), _gaussian(t, x)))
defjvp2(erf_inv_p, lambda t, ans, x: lax.mul(const_like(x, np.sqrt(np.pi) / 2),
                                             lax.mul(t, lax.exp(lax.square(ans)))))
defjvp2(lgamma_p, lambda t, ans, x: lax.mul(t, digamma_p.bind(x)))
defjvp2(digamma_p, lambda t, ans, x: lax.mul(t, polygamma_p.bind(const_like(x, 1), x)))
defjvp2(polygamma_p, _polygamma_jvp_m,
        lambda t, ans, m, x: lax.mul(t, polygamma_p.bind(lax.add(m, const_like(m, 1)), x)))


def logistic(x): return logistic_p.bind(x)
def erf_inv(x): return erf_inv_p.bind(x)
def lgamma(x): return lgamma_p.bind(x)


def _binder(primitive):
    def bind(*args):
        return primitive.bind(*args)
    bind.__name__ = bind.__qualname__ = primitive.name
    return bind


# `jax.lax`'s names for these primitives (JAX's `jax/_src/lax/special.py`): binders, which take
# one dtype and promote nothing, unlike this module's `erf` of `jax.scipy.special`.
LAX_FUNCTIONS = {p.name: _binder(p) for p in (erf_p, erfc_p, erf_inv_p, lgamma_p, digamma_p,
                                              logistic_p, polygamma_p)}


def promote_args_inexact(name, *args):
    """The arguments as arrays of one float dtype (weakly typed if all of them were Python
    scalars) and of one rank: JAX's `promote_args_inexact`."""
    jnp.check_arraylike(name, *args)
    return jnp.promote_args(name, *jnp.promote_dtypes(*args, inexact=True))


def _unary(name, compute, doc):
    """The public function `name`: its argument promoted to an inexact array, then `compute`d."""
    def function(x):
        x, = promote_args_inexact(name, x)
        return compute(x)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


expit = _unary("expit", logistic, "The logistic sigmoid 1 / (1 + exp(-x)).")
logit = _unary("logit", lambda x: lax.log(lax.div(x, lax.sub(const_like(x, 1), x))),
               "The inverse of `expit`: log(x / (1 - x)).")
erf = _unary("erf", erf_p.bind, "The error function 2/sqrt(pi) * integral of exp(-t**2), 0 to x.")
erfc = _unary("erfc", erfc_p.bind, "The complementary error function, 1 - erf(x).")
erfinv = _unary("erfinv", erf_inv_p.bind, "The inverse of `erf`.")
gammaln = _unary("gammaln", lgamma_p.bind, "log |Gamma(x)|.")
digamma = _unary("digamma", digamma_p.bind, "The logarithmic derivative of Gamma, Gamma'/Gamma.")


def polygamma(n, x):
    """The n-th derivative of digamma; `n` must be of an integer dtype."""
    n_dtype = get_aval(n if not isinstance(n, (list, tuple)) else jnp.asarray(n)).dtype
    if dtype_kind(n_dtype) not in "iu":
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype "
                         f"{n_dtype.name}.")
    n, x = promote_args_inexact("polygamma", n, x)
    return polygamma_p.bind(n, x)


def _x_times(x, y, log_y):
    keep = jnp.logical_or(jnp.logical_or(x != 0, jnp.isnan(y)), jnp.isfinite(log_y))
    return lax.mul(x, jnp.where(keep, log_y, jnp.zeros_like(log_y)))


def xlogy(x, y):
    """x * log(y), and 0 where x is 0."""
    x, y = promote_args_inexact("xlogy", x, y)
    return _x_times(x, y, lax.log(y))


def xlog1py(x, y):
    """x * log1p(y), and 0 where x is 0."""
    x, y = promote_args_inexact("xlog1py", x, y)
    return _x_times(x, y, lax.log1p(y))


def _check_ndtr_dtype(name, x):
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype.name} is not supported by {name}: it takes float32 "
                        "or float64.")


def _select(which, on_true, on_false):
    return lax.select_n(which, on_false, on_true)


def _ndtr(x):
    dtype = x.dtype.type
    half_sqrt_2 = dtype(0.5) * np.sqrt(2.0, dtype=dtype)
    w = x * half_sqrt_2
    z = lax.abs(w)
    y = _select(lax.lt(z, half_sqrt_2),
                jnp.add(dtype(1.0), erf_p.bind(w)),
                _select(lax.gt(w, dtype(0.0)),
                        jnp.subtract(dtype(2.0), erfc_p.bind(z)),
                        erfc_p.bind(z)))
    return jnp.multiply(dtype(0.5), y)


def ndtr(x):
    """The standard normal CDF: the integral of the density from -inf to x."""
    x = jnp.asarray(x)
    _check_ndtr_dtype("ndtr", x)
    return _ndtr(x)


_LOG_NDTR_BOUNDS = {np.dtype(np.float32): (-10.0, 5.0), np.dtype(np.float64): (-20.0, 8.0)}


def _log_ndtr_lower(x, series_order):
    dtype = x.dtype.type
    x_2 = lax.square(x)
    log_scale = (jnp.multiply(-dtype(0.5), x_2) - lax.log(lax.neg(x))
                 - dtype(0.5 * np.log(2.0 * np.pi)))
    return log_scale + lax.log(_log_ndtr_asymptotic_series(x, series_order))


def _log_ndtr_asymptotic_series(x, series_order):
    dtype = x.dtype.type
    if series_order <= 0:
        return np.array(1, dtype)
    x_2 = lax.square(x)
    even_sum, odd_sum = jnp.zeros_like(x), jnp.zeros_like(x)
    x_2n = x_2
    for n in range(1, series_order + 1):
        y = jnp.divide(np.array(np.prod(np.arange(2 * n - 1, 0, -2)), dtype), x_2n)
        if n % 2:
            odd_sum += y
        else:
            even_sum += y
        x_2n *= x_2
    return jnp.add(dtype(1.0), even_sum) - odd_sum


def log_ndtr(x, series_order=3):
    """log(ndtr(x)), accurate far into both tails."""
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if not 0 <= series_order <= 30:
        raise ValueError("series_order must be between 0 and 30.")
    x = jnp.asarray(x)
    _check_ndtr_dtype("log_ndtr", x)
    lower, upper = (np.array(b, x.dtype) for b in _LOG_NDTR_BOUNDS[x.dtype])
    above = lax.gt(x, upper)
    q = _ndtr(jnp.where(above, -x, lax.max(x, lower)))
    safe_q = jnp.where(above, jnp.ones_like(q), q)     # no log(0) in the branch not taken
    return jnp.where(above, -q,
                     jnp.where(lax.gt(x, lower), lax.log(safe_q),
                               _log_ndtr_lower(lax.min(x, lower), series_order)))


_NDTRI_P0 = [-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0]
_NDTRI_Q0 = [1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0]
_NDTRI_P1 = [4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4]
_NDTRI_Q1 = [1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4]
_NDTRI_P2 = [3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9]
_NDTRI_Q2 = [1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9]


def _polyval(coefficients, x):
    out = jnp.zeros_like(x)
    for c in np.asarray(coefficients, x.dtype):
        out = out * x + c
    return out


def ndtri(p):
    """The inverse of `ndtr`: the x at which the standard normal CDF is p."""
    p = jnp.asarray(p)
    _check_ndtr_dtype("ndtri", p)
    dtype = p.dtype.type
    maybe_complement = jnp.where(p > dtype(-np.expm1(-2.0)), dtype(1.0) - p, p)
    safe = jnp.where(maybe_complement == dtype(0.0), jnp.full_like(p, 0.5), maybe_complement)
    w = safe - dtype(0.5)
    ww = lax.square(w)
    big_p = w + w * ww * (_polyval(_NDTRI_P0, ww) / _polyval(_NDTRI_Q0, ww))
    big_p = big_p * -dtype(np.sqrt(2.0 * np.pi))
    z = lax.sqrt(jnp.multiply(dtype(-2.0), lax.log(safe)))
    first = z - lax.log(z) / z
    small_p = first - _polyval(_NDTRI_P2, 1 / z) / _polyval(_NDTRI_Q2, 1 / z) / z
    otherwise = first - _polyval(_NDTRI_P1, 1 / z) / _polyval(_NDTRI_Q1, 1 / z) / z
    x = jnp.where(safe > dtype(np.exp(-2.0)), big_p,
                  jnp.where(z >= dtype(8.0), small_p, otherwise))
    x = jnp.where(p > dtype(1.0 - np.exp(-2.0)), x, -x)
    infinity = jnp.full_like(p, np.inf)
    return jnp.where(p == dtype(0.0), -infinity, jnp.where(p == dtype(1.0), infinity, x))


def _reduction_dims(a, axis):
    """(axes as the output keeps them, axes to reduce), both non-negative."""
    if axis is None:
        dims = tuple(range(a.ndim))
    else:
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        dims = tuple(sorted(d + a.ndim if d < 0 else d for d in axes))
        if any(not 0 <= d < a.ndim for d in dims) or len(set(dims)) != len(dims):
            raise ValueError(f"axis {axis} is out of bounds for an array of rank {a.ndim}")
    return dims


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """log(sum(b * exp(a))) along `axis`, without overflow; with `return_sign`, also the sign
    of the sum (the log is then of its absolute value)."""
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        a = jnp.where(b != 0, a, -np.inf)
    else:
        a, = promote_args_inexact("logsumexp", a)
    dims = _reduction_dims(a, axis)
    amax = jnp.max(a, axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = stop_gradient(lax.select_n(lax.is_finite(amax), full_like(amax, 0), amax))
    amax_with_dims = amax if keepdims else lax.expand_dims(amax, dims)
    exp_a = lax.exp(lax.sub(a, amax_with_dims))
    if b is not None:
        exp_a = lax.mul(exp_a, b)
    sumexp = jnp.sum(exp_a, axis=dims, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    out = lax.add(lax.log(lax.abs(sumexp)), amax)
    if return_sign:
        return out, sign
    if b is not None:
        out = jnp.where(sign < 0, jnp.array(np.nan, dtype=out.dtype), out)
    return out


# Hook for appendix A26: the rest of jax.scipy.special, registered by name.
more_functions, __getattr__, __dir__ = jnp.late_attributes(globals())


wrap_public_functions(globals(), __name__)
