# Generated from chapters/A26_special_functions.md by `make export`: edit the chapter, not this file.


"""Special functions (appendix A26): the primitives of `jax/_src/lax/special.py` that the book
had not built (`igamma`, `igammac`, `igamma_grad_a`, `regularized_incomplete_beta`, `bessel_i0e`,
`bessel_i1e`, `zeta`), each with all its rules, and the `jax.scipy.special` functions on them."""
from __future__ import annotations

import numpy as np
from jaxlib.mlir.dialects import chlo

from autodidax import lax_core as lax
from autodidax import numpy as jnp
from autodidax.batching import batching_rules, moveaxis
from autodidax.control_flow import while_loop
from autodidax.core import (Primitive, ShapedArray, abstract_eval_rules, dtype_kind, get_aval,
                            impl_rules, wrap_public_functions)
from autodidax.indexing import lower_fun, xla_impl
from autodidax.jvp import defjvp2
from autodidax.lowering import lowering_rules, nary_lowering
from autodidax.scipy.special import (const_like, digamma_p, erfc_p, lgamma_p,
                                     promote_args_inexact)


def _float_abstract(name):
    """Abstract evaluation of an elementwise primitive of float operands of one dtype."""
    def abstract(*avals):
        for i, aval in enumerate(avals):
            if dtype_kind(aval.dtype) != "f":
                at = f" at position {i}" if len(avals) > 1 else ""
                raise TypeError(f"{name} does not accept dtype {aval.dtype.name}{at}. "
                                f"Accepted dtypes{at} are subtypes of floating.")
        if len({a.dtype for a in avals}) > 1:
            raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                            f"{', '.join(a.dtype.name for a in avals)}.")
        shape = lax.broadcasting_shape(name, *(a.shape for a in avals))
        return ShapedArray(shape, avals[0].dtype, all(a.weak_type for a in avals))
    return abstract


def _nary_batching(primitive):
    """Batch axes to the front; an operand shared by every example broadcasts as it is."""
    def rule(vals, dims):
        size = next(get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not None)
        rank = max(get_aval(v).ndim - (d is not None) for v, d in zip(vals, dims))

        def to_front(v, d):
            if d is None:
                return lax.expand_dims(v, [0]) if get_aval(v).shape else v
            v = moveaxis(v, d, 0)
            return v if get_aval(v).ndim - 1 == rank else lax.reshape(v, (size,) + (1,) * rank)
        return primitive.bind(*map(to_front, vals, dims)), 0
    return rule


def _up_and_broadcast(impl):
    """`impl` on operands broadcast to one shape and, if float16 or bfloat16, computed in
    float32 (JAX's `_up_and_broadcast`): the series need the range and digits."""
    def wrapped(*args):
        shape = lax.broadcasting_shape("special", *(get_aval(a).shape for a in args))
        args = [lax.broadcast_in_dim(a, shape, tuple(range(get_aval(a).ndim))) for a in args]
        dtype = get_aval(args[0]).dtype
        if dtype in (np.float16, jnp.bfloat16):
            args = [lax.convert_element_type(a, np.float32) for a in args]
            return lax.convert_element_type(impl(*args, dtype=np.dtype(np.float32)), dtype)
        return impl(*args, dtype=dtype)
    return wrapped


def special_primitive(name, impl=None, chlo_op=None):
    """A new elementwise float primitive: evaluated by XLA, batched, and lowered either to
    `chlo_op` or, in place, through `impl` written with `lax` (JAX's `mlir.lower_fun`)."""
    primitive = Primitive(name)
    impl_rules[primitive] = xla_impl(primitive)
    abstract_eval_rules[primitive] = _float_abstract(name)
    batching_rules[primitive] = _nary_batching(primitive)
    if chlo_op is not None:
        lowering_rules[primitive] = nary_lowering(chlo_op)
    else:
        lowering_rules[primitive] = lambda ctx, *args: lower_fun(impl, ctx, *args)
    return primitive


def _any(pred):
    return lax.reduce_or(pred, tuple(range(get_aval(pred).ndim)))


def _isnan(x):
    return lax.ne(x, x)


def _or(*preds):
    out = preds[0]
    for p in preds[1:]:
        out = lax.bitwise_or(out, p)
    return out


VALUE, DERIVATIVE = "value", "derivative"      # what the series compute: P(a, x), or dP/da


def _igamma_series(ax, x, a, enabled, dtype, mode):
    """P(a, x) (or its derivative in a) by the power series sum_n x^n / (a+1)...(a+n), for
    x < a + 1 or x < 1; each element stops when its next term no longer changes the sum."""
    eps = np.finfo(dtype).eps

    def body(vals):
        enabled, r, c, ans, x, dc_da, dans_da = vals
        r = r + const_like(r, 1.0)
        dc_da = dc_da * (x / r) - (c * x) / (r * r)
        dans_da = dans_da + dc_da
        c = c * (x / r)
        ans = ans + c
        if mode == VALUE:
            going = lax.bitwise_and(enabled, c / ans > eps)
        else:
            going = lax.bitwise_and(enabled, lax.abs(dc_da / dans_da) > eps)
        new = (r, c, ans, x, dc_da, dans_da)
        return (going,) + tuple(lax.select(enabled, n, o) for n, o in zip(new, vals[1:]))
    zero, one = lax.full_like(a, 0), lax.full_like(a, 1)
    vals = while_loop(lambda vals: _any(vals[0]), body, (enabled, a, one, one, x, zero, zero))
    ans, dans_da = vals[3], vals[6]
    if mode == VALUE:
        return (ans * ax) / a
    dlogax_da = lax.log(x) - digamma_p.bind(a + const_like(a, 1))
    return ax * (ans * dlogax_da + dans_da) / a


def _igammac_continued_fraction(ax, x, a, enabled, dtype, mode):
    """Q(a, x) = 1 - P(a, x) (or its derivative in a) by Legendre's continued fraction, for
    x > a + 1 and x > 1, with the convergents' numerators and denominators rescaled by eps when
    they grow past 1/eps; at most 2000 steps."""
    eps = np.finfo(dtype).eps

    def cond(vals):
        return lax.bitwise_and(vals[5] < const_like(vals[5], 2000), _any(vals[0]))

    def body(vals):
        (enabled, ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2,
         dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da, dans_da) = vals
        c = c + const_like(c, 1)
        y = y + const_like(y, 1)
        z = z + const_like(z, 2)
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        qk_nonzero = lax.ne(qk, const_like(qk, 0))
        r = pk / qk
        t = lax.select(qk_nonzero, lax.abs(lax.div(lax.sub(ans, r), r)), lax.full_like(r, 1))
        ans = lax.select(qk_nonzero, r, ans)
        dpk_da = dpkm1_da * z - pkm1 - dpkm2_da * yc + pkm2 * c
        dqk_da = dqkm1_da * z - qkm1 - dqkm2_da * yc + qkm2 * c
        dans_da_new = lax.select(qk_nonzero, lax.div(dpk_da - ans * dqk_da, qk), dans_da)
        grad_change = lax.select(qk_nonzero, lax.abs(dans_da_new - dans_da),
                                 lax.full_like(dans_da, 1))
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = dpkm1_da, dqkm1_da, dpk_da, dqk_da
        rescale = lax.gt(lax.abs(pk), lax.reciprocal(const_like(pk, eps)))
        small = [lax.select(rescale, lax.mul(v, const_like(v, eps)), v)
                 for v in (pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da)]
        pkm2, pkm1, qkm2, qkm1, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da = small
        if mode == VALUE:
            going = lax.bitwise_and(enabled, t > eps)
        else:
            going = lax.bitwise_and(enabled, grad_change > const_like(grad_change, eps))
        new = (ans, t, y, z, c, pkm1, qkm1, pkm2, qkm2, dpkm2_da, dqkm2_da, dpkm1_da, dqkm1_da,
               dans_da_new)
        return (going,) + tuple(v if i == 4 else lax.select(enabled, v, old)
                                for i, (v, old) in enumerate(zip(new, vals[1:])))
    y = const_like(a, 1) - a
    z = x + y + const_like(x, 1)
    pkm1 = x + const_like(x, 1)
    qkm1 = z * x
    ans = pkm1 / qkm1
    dqkm1_da = -x
    zero = lax.full_like(x, 0)
    dans_da = (zero - ans * dqkm1_da) / qkm1
    init = (enabled, ans, lax.full_like(x, 1), y, z, const_like(x, 0), pkm1, qkm1,
            lax.full_like(x, 1), x, zero, zero, zero, dqkm1_da, dans_da)
    vals = while_loop(cond, body, init)
    if mode == VALUE:
        return vals[1] * ax
    dlogax_da = lax.log(x) - digamma_p.bind(a)
    return lax.mul(ax, lax.add(lax.mul(vals[1], dlogax_da), vals[14]))


def _log_ax(a, x):
    return a * lax.log(x) - x - lgamma_p.bind(a)


def igamma_impl(a, x, *, dtype):
    """P(a, x), the regularized lower incomplete gamma function: the series where it converges
    fast, one minus the continued fraction elsewhere, and the edge cases by `select`."""
    x_is_inf = lax.eq(x, const_like(x, np.inf))
    x_is_zero = lax.eq(x, const_like(x, 0))
    domain_error = _or(lax.lt(x, const_like(x, 0)), lax.lt(a, const_like(a, 0)),
                       lax.bitwise_and(lax.eq(a, const_like(a, 0)), x_is_zero),
                       lax.bitwise_or(_isnan(a), _isnan(x)))
    use_cf = lax.bitwise_and(lax.ge(x, const_like(x, 1)), lax.gt(x, a))
    ax = _log_ax(a, x)
    underflow = lax.lt(ax, -lax.log(np.finfo(dtype).max))
    ax = lax.exp(ax)
    enabled = lax.bitwise_not(_or(x_is_zero, domain_error, underflow, x_is_inf))
    out = lax.select(
        use_cf,
        const_like(a, 1) - _igammac_continued_fraction(
            ax, x, a, lax.bitwise_and(enabled, use_cf), dtype, VALUE),
        _igamma_series(ax, x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_cf)), dtype,
                       VALUE))
    out = lax.select(x_is_zero, lax.full_like(a, 0), out)
    out = lax.select(x_is_inf, lax.full_like(a, 1), out)
    return lax.select(domain_error, lax.full_like(a, np.nan), out)


def igammac_impl(a, x, *, dtype):
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function."""
    a_is_zero = lax.eq(a, const_like(a, 0))
    x_is_zero = lax.eq(x, const_like(x, 0))
    x_is_inf = lax.eq(x, const_like(x, np.inf))
    domain_error = _or(lax.lt(x, const_like(x, 0)), lax.lt(a, const_like(a, 0)),
                       lax.bitwise_and(a_is_zero, x_is_zero),
                       lax.bitwise_or(_isnan(a), _isnan(x)))
    use_series = lax.bitwise_or(lax.lt(x, const_like(x, 1)), lax.lt(x, a))
    ax = _log_ax(a, x)
    underflow = lax.lt(ax, -lax.log(np.finfo(dtype).max))
    enabled = lax.bitwise_not(_or(domain_error, underflow, x_is_inf, a_is_zero))
    ax = lax.exp(ax)
    series = _igamma_series(ax, x, a, lax.bitwise_and(enabled, use_series), dtype, VALUE)
    fraction = _igammac_continued_fraction(
        ax, x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_series)), dtype, VALUE)
    out = lax.select(use_series, const_like(a, 1) - series, fraction)
    out = lax.select(lax.bitwise_or(x_is_inf, a_is_zero), lax.full_like(out, 0), out)
    return lax.select(domain_error, lax.full_like(a, np.nan), out)


def igamma_grad_a_impl(a, x, *, dtype):
    """dP(a, x)/da, by differentiating the series and the continued fraction term by term."""
    is_nan = lax.bitwise_or(_isnan(a), _isnan(x))
    x_is_zero = lax.eq(x, lax.full_like(x, 0))
    domain_error = lax.bitwise_or(lax.lt(x, lax.full_like(x, 0)), lax.le(a, lax.full_like(a, 0)))
    use_cf = lax.bitwise_and(lax.gt(x, lax.full_like(x, 1)), lax.gt(x, a))
    ax = _log_ax(a, x)
    underflow = lax.lt(ax, -lax.log(np.finfo(dtype).max))
    ax = lax.exp(ax)
    enabled = lax.bitwise_not(_or(x_is_zero, domain_error, underflow, is_nan))
    out = lax.select(
        use_cf,
        -_igammac_continued_fraction(ax, x, a, lax.bitwise_and(enabled, use_cf), dtype,
                                     DERIVATIVE),
        _igamma_series(ax, x, a, lax.bitwise_and(enabled, lax.bitwise_not(use_cf)), dtype,
                       DERIVATIVE))
    out = lax.select(x_is_zero, lax.full_like(out, 0), out)
    return lax.select(lax.bitwise_or(domain_error, is_nan), lax.full_like(a, np.nan), out)


igamma_p = special_primitive("igamma", _up_and_broadcast(igamma_impl))
igammac_p = special_primitive("igammac", _up_and_broadcast(igammac_impl))
igamma_grad_a_p = special_primitive("igamma_grad_a", _up_and_broadcast(igamma_grad_a_impl))


def _igamma_dx(t, ans, a, x):
    """dP/dx = x^(a-1) e^(-x) / Gamma(a)."""
    return t * lax.exp(-x + (a - lax.full_like(a, 1)) * lax.log(x) - lgamma_p.bind(a))


defjvp2(igamma_p, lambda t, ans, a, x: t * igamma_grad_a_p.bind(a, x), _igamma_dx)
defjvp2(igammac_p, lambda t, ans, a, x: -(t * igamma_grad_a_p.bind(a, x)),
        lambda t, ans, a, x: -_igamma_dx(t, ans, a, x))


def _lentz(num_iterations, small, threshold, numerator, denominator, inputs):
    """The continued fraction b0 + a1/(b1 + a2/(b2 + ...)) by the modified Lentz method: the
    ratios C and D of successive convergents, and their product H, until every element's last
    factor C * D is within `threshold` of 1, or `num_iterations` steps."""
    def body(vals):
        i, _, c, d, h = vals
        a_n, b_n = numerator(i, *inputs), denominator(i, *inputs)
        small_c = lax.full_like(c, small)
        c = lax.add(b_n, lax.div(a_n, c))
        c = lax.select(lax.lt(lax.abs(c), small_c), small_c, c)
        d = lax.add(b_n, lax.mul(a_n, d))
        d = lax.reciprocal(lax.select(lax.lt(lax.abs(d), small_c), small_c, d))
        delta = lax.mul(c, d)
        unconverged = _any(lax.ge(lax.abs(lax.sub(delta, const_like(delta, 1.0))), threshold))
        return [i + 1, unconverged, c, d, lax.mul(h, delta)]
    b0 = denominator(0, *inputs)
    h = lax.select(lax.lt(lax.abs(b0), small), lax.broadcast_in_dim(small, b0.shape, ()), b0)
    vals = while_loop(lambda v: lax.bitwise_and(lax.lt(v[0], num_iterations), v[1]), body,
                      [1, True, h, lax.full_like(h, 0), h])
    return vals[4]


def betainc_impl(a, b, x, *, dtype):
    """I_x(a, b), the regularized incomplete beta function, by the continued fraction of DLMF
    8.17.22, on x or, by the symmetry I_x(a, b) = 1 - I_{1-x}(b, a), on 1 - x, whichever side
    converges fast."""
    shape = get_aval(a).shape

    def numerator(i, a, b, x):
        i = lax.broadcast_in_dim(i, shape, ())
        even = lax.eq(lax.rem(i, lax.full_like(i, 2)), lax.full_like(i, 0))
        m_int = lax.div(i - lax.full_like(i, 1), lax.full_like(i, 2))
        m = lax.convert_element_type(m_int, dtype)
        one, two = lax.full_like(a, 1), lax.full_like(a, 2.0)
        first = -(a + b) * x / (a + one)                  # m = 0, accurate for a near 0
        even_term = lax.select(lax.eq(m_int, lax.full_like(m_int, 0)), first,
                               -(a + m) * (a + b + m) * x / ((a + two * m) * (a + two * m + one)))
        odd_term = m * (b - m) * x / ((a + two * m - one) * (a + two * m))
        term = lax.select(even, even_term, odd_term)
        return lax.select(lax.eq(i, lax.full_like(i, 1)), lax.full_like(x, 1.0), term)

    def denominator(i, a, b, x):
        i = lax.broadcast_in_dim(i, shape, ())
        return lax.select(lax.eq(i, lax.full_like(i, 0)), lax.full_like(x, 0),
                          lax.full_like(x, 1))
    full = lax.full_like
    a_is_zero = lax.bitwise_or(lax.eq(a, full(a, 0)), lax.eq(b, full(b, np.inf)))
    b_is_zero = lax.bitwise_or(lax.eq(b, full(b, 0)), lax.eq(a, full(a, np.inf)))
    x_is_zero, x_is_one = lax.eq(x, full(x, 0)), lax.eq(x, full(x, 1))
    is_nan = _or(_isnan(a), _isnan(b), _isnan(x))
    is_zero = lax.bitwise_or(lax.bitwise_and(b_is_zero, lax.bitwise_not(x_is_one)),
                             lax.bitwise_and(a_is_zero, x_is_zero))
    is_one = lax.bitwise_or(lax.bitwise_and(a_is_zero, lax.bitwise_not(x_is_zero)),
                            lax.bitwise_and(b_is_zero, x_is_one))
    is_nan = lax.bitwise_or(_or(lax.lt(a, full(a, 0)), lax.lt(b, full(b, 0)),
                                lax.lt(x, full(x, 0)), lax.gt(x, full(x, 1))),
                            lax.bitwise_or(lax.bitwise_and(a_is_zero, b_is_zero), is_nan))
    fast = lax.lt(x, (a + full(a, 1)) / (a + b + full(b, 2.0)))
    a, b = lax.select(fast, a, b), lax.select(fast, b, a)
    x = lax.select(fast, x, lax.sub(full(x, 1), x))
    eps = np.finfo(dtype).eps
    fraction = _lentz(200 if dtype == np.float32 else 600, (eps / 2).astype(dtype),
                      (eps / 2).astype(dtype), numerator, denominator, [a, b, x])
    tiny = (np.finfo(dtype).tiny * 2).astype(dtype)
    lbeta_small_a = lgamma_p.bind(b) - lgamma_p.bind(a + b)   # a Gamma(a) -> 1 as a -> 0
    lbeta = lgamma_p.bind(a) + lbeta_small_a
    factor = lax.select(lax.lt(a, full(a, tiny)),
                        lax.exp(lax.log1p(-x) * b - lbeta_small_a),
                        lax.exp(lax.log(x) * a + lax.log1p(-x) * b - lbeta) / a)
    out = fraction * factor
    out = lax.select(fast, out, lax.sub(full(out, 1), out))
    out = lax.select(is_zero, full(a, 0), out)
    out = lax.select(is_one, full(a, 1), out)
    return lax.select(is_nan, full(a, np.nan), out)


regularized_incomplete_beta_p = special_primitive("regularized_incomplete_beta",
                                                  _up_and_broadcast(betainc_impl))


def _betainc_grad_ab(t, ans, a, b, x):
    raise ValueError("Betainc gradient with respect to a and b not supported.")


def _betainc_dx(t, ans, a, b, x):
    """dI/dx = x^(a-1) (1-x)^(b-1) / B(a, b)."""
    lbeta = lgamma_p.bind(a) + lgamma_p.bind(b) - lgamma_p.bind(a + b)
    return lax.exp((b - 1) * lax.log1p(-x) + (a - 1) * lax.log(x) - lbeta) * t


defjvp2(regularized_incomplete_beta_p, _betainc_grad_ab, _betainc_grad_ab, _betainc_dx)


def _chebyshev(x, coefficients):
    """The Chebyshev series sum_k c_k T_k(x/2), halved at the ends, by Clenshaw's recurrence,
    as Cephes' `chbevl` evaluates it."""
    b0, b1, b2 = lax.full_like(x, 0), lax.full_like(x, 0), lax.full_like(x, 0)
    for c in coefficients:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + lax.full_like(x, c)
    return 0.5 * (b0 - b2)


# Cephes' coefficients of exp(-x) I0(x): on [0, 8] in x/2 - 2, and on (8, inf) in 32/x - 2,
# times sqrt(x). float32 takes the last terms of each list, as Cephes' float32 version does.
_I0E_A = [-4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
          1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
          -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
          9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
          -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
          1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
          -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
          1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
          -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
          1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1]
_I0E_B = [-7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
          3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
          1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
          -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
          7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
          -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
          3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
          2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
          8.04490411014108831608E-1]


def bessel_i0e_impl(x):
    """exp(-|x|) I0(x) by Cephes' Chebyshev series; float16 and bfloat16 computed in float32."""
    dtype = get_aval(x).dtype
    if dtype not in (np.float32, np.float64):
        return lax.convert_element_type(
            bessel_i0e_impl(lax.convert_element_type(x, np.float32)), dtype)
    coeffs_a, coeffs_b = (_I0E_A, _I0E_B) if dtype == np.float64 else (_I0E_A[-18:],
                                                                        _I0E_B[-7:])
    x = lax.abs(x)
    half, two, thirty_two = (lax.full_like(x, v) for v in (0.5, 2.0, 32.0))
    near = _chebyshev(half * x - two, coeffs_a)
    far = lax.div(_chebyshev(thirty_two / x - two, coeffs_b), lax.sqrt(x))
    return lax.select(x <= 8.0, near, far)


bessel_i0e_p = special_primitive("bessel_i0e", bessel_i0e_impl)
bessel_i1e_p = special_primitive("bessel_i1e", chlo_op=chlo.bessel_i1e)
zeta_p = special_primitive("zeta", chlo_op=chlo.zeta)


def _bessel_i1e_jvp(t, ans, x):
    """i1e'(x) = i0e(x) - i1e(x) (sign(x) + 1/x), and 1/2 at 0, where 1/x is not finite."""
    eps = np.finfo(get_aval(x).dtype).eps
    not_tiny = lax.abs(x) > eps
    safe_x = lax.select(not_tiny, x, lax.full_like(x, eps))
    slope = bessel_i0e_p.bind(safe_x) - ans * (lax.sign(safe_x) + lax.reciprocal(safe_x))
    return t * lax.select(not_tiny, slope, lax.full_like(x, 0.5))


defjvp2(bessel_i0e_p, lambda t, ans, x: t * (bessel_i1e_p.bind(x) - lax.sign(x) * ans))
defjvp2(bessel_i1e_p, _bessel_i1e_jvp)


def _binder(primitive, name):
    def bind(*args):
        return primitive.bind(*args)
    bind.__name__ = bind.__qualname__ = name
    return bind


# `jax.lax`'s names for the primitives: binders, which promote nothing (autodidax/lax.py).
igamma = _binder(igamma_p, "igamma")
igammac = _binder(igammac_p, "igammac")
igamma_grad_a = _binder(igamma_grad_a_p, "igamma_grad_a")
lax_betainc = _binder(regularized_incomplete_beta_p, "betainc")
bessel_i0e = _binder(bessel_i0e_p, "bessel_i0e")
bessel_i1e = _binder(bessel_i1e_p, "bessel_i1e")
lax_zeta = _binder(zeta_p, "zeta")


import functools
import operator
from typing import Any, NamedTuple

from autodidax import nn
from autodidax.batching import vmap
from autodidax.custom import custom_jvp
from autodidax.jit import jit
from autodidax.jvp import jvp
from autodidax.scipy import special as scipy_special
from autodidax.scipy.special import xlogy


def gammainc(a, x):
    """P(a, x): the regularized lower incomplete gamma function."""
    a, x = promote_args_inexact("gammainc", a, x)
    return igamma_p.bind(a, x)


def gammaincc(a, x):
    """Q(a, x) = 1 - P(a, x): the regularized upper incomplete gamma function."""
    a, x = promote_args_inexact("gammaincc", a, x)
    return igammac_p.bind(a, x)


def _real_only(name, x):
    if dtype_kind(x.dtype) == "c":
        raise ValueError(f"{name} does not support complex-valued inputs.")


def betainc(a, b, x):
    """I_x(a, b): the regularized incomplete beta function."""
    a, b, x = promote_args_inexact("betainc", a, b, x)
    _real_only("betainc", x)
    return regularized_incomplete_beta_p.bind(a, b, x)


def i0e(x):
    """exp(-|x|) I0(x): the exponentially scaled modified Bessel function of order 0."""
    x, = promote_args_inexact("i0e", x)
    return bessel_i0e_p.bind(x)


def i0(x):
    """I0(x): the modified Bessel function of order 0."""
    x, = promote_args_inexact("i0", x)
    return lax.mul(lax.exp(lax.abs(x)), bessel_i0e_p.bind(x))


def i1e(x):
    """exp(-|x|) I1(x): the exponentially scaled modified Bessel function of order 1."""
    x, = promote_args_inexact("i1e", x)
    return bessel_i1e_p.bind(x)


def i1(x):
    """I1(x): the modified Bessel function of order 1."""
    x, = promote_args_inexact("i1", x)
    return lax.mul(lax.exp(lax.abs(x)), bessel_i1e_p.bind(x))


def zeta(x, q=None):
    """The Hurwitz zeta function sum_n (n + q)^(-x); `q` is required."""
    if q is None:
        raise NotImplementedError("Riemann zeta function not implemented; pass q != None to "
                                  "compute the Hurwitz Zeta function.")
    x, q = promote_args_inexact("zeta", x, q)
    return zeta_p.bind(x, q)


@jit
def gammasgn(x):
    """The sign of Gamma(x): 1 or -1, and NaN at the poles 0, -1, -2, ... (and -1 at -0.0)."""
    x, = promote_args_inexact("gammasgn", x)
    _real_only("gammasgn", x)
    typ = x.dtype.type
    floor_x = lax.floor(x)
    negative = x < 0
    return jnp.select(
        [(negative & (x == floor_x)) | jnp.isnan(x),
         (negative & (floor_x % 2 != 0)) | ((x == 0) & jnp.signbit(x))],
        [typ(np.nan), typ(-1.0)], typ(1.0))


def gamma(x):
    """Gamma(x), as its sign times exp(lgamma(x))."""
    x, = promote_args_inexact("gamma", x)
    _real_only("gamma", x)
    return gammasgn(x) * lax.exp(lgamma_p.bind(x))


def factorial(n, exact=False):
    """n! = Gamma(n + 1), and 0 for n < 0."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    n, = promote_args_inexact("factorial", n)
    return jnp.where(n < 0, 0, lax.exp(lgamma_p.bind(n + 1)))


@custom_jvp
def poch(z, m):
    """The rising factorial (z)_m = Gamma(z + m) / Gamma(z), and 1 for m = 0."""
    z, m = promote_args_inexact("poch", z, m)
    _real_only("jnp.poch", z)
    return jnp.where(m == 0.0, jnp.array(1, dtype=z.dtype), gamma(z + m) / gamma(z))


# The quotient's own derivative squares Gamma(z), which overflows float32 from z = 21 on; the
# derivatives in closed form, with digamma, do not.
poch.defjvps(
    lambda t, ans, z, m: (digamma_p.bind(z + m) - digamma_p.bind(z)) * poch(z, m) * t,
    lambda t, ans, z, m: digamma_p.bind(z + m) * poch(z, m) * t)


@custom_jvp
def _xlogx(x):
    """x log(x), 0 at 0, with the derivative log(x) + 1 (-inf at 0, not xlogy's NaN)."""
    return xlogy(x, x)


@_xlogx.defjvp
def _xlogx_jvp(primals, tangents):
    x, = primals
    return _xlogx(x), tangents[0] * (lax.log(x) + 1)


def entr(x):
    """-x log(x), 0 at 0 and -inf below."""
    x, = promote_args_inexact("entr", x)
    _real_only("entr", x)
    return lax.select(lax.lt(x, const_like(x, 0)), lax.full_like(x, -np.inf), lax.neg(_xlogx(x)))


def rel_entr(p, q):
    """p log(p / q) for p, q > 0; 0 where p = 0 and q >= 0; inf elsewhere."""
    p, q = promote_args_inexact("rel_entr", p, q)
    _real_only("rel_entr", p)
    zero = const_like(p, 0.0)
    both_positive = lax.bitwise_and(lax.gt(p, zero), lax.gt(q, zero))
    p_zero = lax.bitwise_and(lax.eq(p, zero), lax.ge(q, zero))
    safe_p = jnp.where(both_positive, p, 1)
    safe_q = jnp.where(both_positive, q, 1)
    value = lax.sub(_xlogx(safe_p), xlogy(safe_p, safe_q))
    return jnp.where(both_positive, value, jnp.where(p_zero, zero, np.inf))


def kl_div(p, q):
    """rel_entr(p, q) - p + q: the terms of the Kullback-Leibler divergence."""
    p, q = promote_args_inexact("kl_div", p, q)
    _real_only("kl_div", p)
    return rel_entr(p, q) - p + q


def _boxcox(name, x, lmbda, log):
    x, lmbda = promote_args_inexact(name, x, lmbda)
    lmbda_is_zero = lmbda == 0
    safe_lmbda = jnp.where(lmbda_is_zero, jnp.ones_like(lmbda), lmbda)
    log_x = log(x)
    return jnp.where(lmbda_is_zero, log_x, jnp.expm1(safe_lmbda * log_x) / safe_lmbda)


def boxcox(x, lmbda):
    """The Box-Cox transform (x^lmbda - 1) / lmbda, and log(x) for lmbda = 0."""
    return _boxcox("boxcox", x, lmbda, jnp.log)


def boxcox1p(x, lmbda):
    """boxcox of 1 + x, accurate for small x."""
    return _boxcox("boxcox1p", x, lmbda, jnp.log1p)


def multigammaln(a, d):
    """The log of the multivariate gamma function of dimension `d` (a concrete integer)."""
    d = operator.index(d)
    a, d_ = promote_args_inexact("multigammaln", a, d)
    constant = lax.mul(lax.mul(lax.mul(const_like(a, 0.25), d_), lax.sub(d_, const_like(a, 1))),
                       lax.log(const_like(a, np.pi)))
    b = lax.div(jnp.arange(d, dtype=d_.dtype), const_like(a, 2))
    terms = lgamma_p.bind(jnp.expand_dims(a, axis=-1) - jnp.expand_dims(b, tuple(range(a.ndim))))
    return jnp.sum(terms, axis=-1) + constant


def _algdiv(a, b):
    """log(Gamma(b) / Gamma(a + b)) for b >= 8 and a <= b, by the asymptotic series of
    SciPy's cdflib (`algdiv`): no difference of two huge lgammas."""
    c0, c1, c2 = 0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03
    c3, c4, c5 = -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02
    h = a / b
    c = h / (1 + h)
    x = h / (1 + h)
    d = b + (a - 0.5)
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return jnp.where(u <= v, (w - v) - u, (w - u) - v)


def betaln(a, b):
    """log |B(a, b)|, with `_algdiv` for the larger argument from 8 on."""
    a, b = promote_args_inexact("betaln", a, b)
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    small_b = lgamma_p.bind(a) + (lgamma_p.bind(b) - lgamma_p.bind(a + b))
    large_b = lgamma_p.bind(a) + _algdiv(a, b)
    return jnp.where(b < 8, small_b, large_b)


def beta(a, b):
    """B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b), as its sign times exp(betaln)."""
    a, b = promote_args_inexact("beta", a, b)
    _real_only("beta", a)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax.exp(betaln(a, b))


def loggamma(x):
    """log(Gamma(x)) for x > 0, NaN elsewhere (real arguments only, here)."""
    x, = promote_args_inexact("loggamma", x)
    _real_only("loggamma", x)
    return jnp.where(x > 0, lgamma_p.bind(x), jnp.nan)


def comb(N, k, *, exact=False, repetition=False):
    """The number of ways to choose k of N, as exp of lgammas; 0 outside 0 <= k <= N."""
    if exact:
        raise NotImplementedError("comb with exact=True")
    N, k = promote_args_inexact("comb", N, k)
    if repetition:
        return jnp.where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k))
    ok = (k <= N) & (N >= 0) & (k >= 0)
    safe_N, safe_k = jnp.where(ok, N, 0.0), jnp.where(ok, k, 0.0)
    out = lax.exp(lgamma_p.bind(safe_N + 1) - lgamma_p.bind(safe_k + 1)
                  - lgamma_p.bind(safe_N + 1 - safe_k))
    return jnp.where(ok, out, 0.0)


def bernoulli(n):
    """The Bernoulli numbers B_0 ... B_n, from zeta(m) = sum_k k^-m at the even m."""
    n = operator.index(n)
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    first = jnp.array([1, -1 / 2, 1 / 6])
    if n < 3:
        return first[:n + 1]
    out = jnp.zeros(n + 1).at[:3].set(first)
    m = jnp.arange(4, n + 1, 2, dtype=out.dtype)
    q1 = (1.0 / np.pi ** 2) * jnp.cumprod(-(m - 1) * m / 4 / np.pi ** 2)
    k = jnp.arange(2, 50, dtype=out.dtype)           # 2**-50 is below float64's epsilon
    q2 = jnp.sum(k[:, None] ** -m[None, :], axis=0)
    return out.at[4::2].set(q1 * (1 + q2))


def _erfcx_asymptotic(x, nterms):
    """erfcx(x) ~ P(1/x^2) / (sqrt(pi) x), P's coefficients (-1)^k (2k-1)!! / 2^k."""
    coeffs = [7918.06640625, -1055.7421875, 162.421875, -29.53125, 6.5625, -1.875, 0.75, -0.5,
              1.0]
    t = const_like(x, 1.0) / lax.square(x)
    p = jnp.polyval(np.array(coeffs[-nterms:], dtype=x.dtype), t)
    return p / (x * const_like(x, np.sqrt(np.pi)))


def _erfcx_impl(x, nterms):
    large = x > const_like(x, np.sqrt(np.log(jnp.finfo(x.dtype).max)))   # exp(x^2) overflows
    safe_x = lax.select(large, lax.full_like(x, 1.0), x)
    direct = lax.exp(lax.square(safe_x)) * erfc_p.bind(safe_x)
    return lax.select(large, _erfcx_asymptotic(x, nterms), direct)


@custom_jvp
def _erfcx(x):
    if x.dtype == np.float64:
        return _erfcx_impl(x, nterms=9)
    if x.dtype == np.float32:
        return _erfcx_impl(x, nterms=5)
    return _erfcx_impl(x.astype(np.float32), nterms=5).astype(x.dtype)


_erfcx.defjvps(lambda t, ans, x: t * (2 * x * ans - const_like(x, 2.0 / np.sqrt(np.pi))))


def erfcx(x):
    """The scaled complementary error function exp(x^2) erfc(x), for real x: the direct
    formula until exp(x^2) overflows, then the asymptotic series."""
    x, = promote_args_inexact("erfcx", x)
    if dtype_kind(x.dtype) == "c":
        raise NotImplementedError("erfcx of complex numbers (Faddeeva's wofz) is not built.")
    return _erfcx(x)


# Cody, Paciorek and Thacher's rational approximations of Dawson's integral on |x| < 3.25 (in
# x^2), on [3.25, 6.25) and beyond (in 1/x^2).
_DAWSN_AN = [1.13681498971755972054e-11, 8.49262267667473811108e-10, 1.94434204175553054283e-8,
             9.53151741254484363489e-7, 3.07828309874913200438e-6, 3.52513368520288738649e-4,
             -8.50149846724410912031e-4, 4.22618223005546594270e-2, -9.17480371773452345351e-2,
             9.99999999999999994612e-1]
_DAWSN_AD = [2.40372073066762605484e-11, 1.48864681368493396752e-9, 5.21265281010541664570e-8,
             1.27258478273186970203e-6, 2.32490249820789513991e-5, 3.25524741826057911661e-4,
             3.48805814657162590916e-3, 2.79448531198828973716e-2, 1.58874241960120565368e-1,
             5.74918629489320327824e-1, 1.00000000000000000539e0]
_DAWSN_BN = [5.08955156417900903354e-1, -2.44754418142697847934e-1, 9.41512335303534411857e-2,
             -2.18711255142039025206e-2, 3.66207612329569181322e-3, -4.23209114460388756528e-4,
             3.59641304793896631888e-5, -2.14640351719968974225e-6, 9.10010780076391431042e-8,
             -2.40274520828250956942e-9, 3.59233385440928410398e-11]
_DAWSN_BD = [1.00000000000000000000e0, -6.31839869873368190192e-1, 2.36706788228248691528e-1,
             -5.31806367003223277662e-2, 8.48041718586295374409e-3, -9.47996768486665330168e-4,
             7.81025592944552338085e-5, -4.55875153252442634831e-6, 1.89100358111421846170e-7,
             -4.91324691331920606875e-9, 7.18466403235734541950e-11]
_DAWSN_CN = [-5.90592860534773254987e-1, 6.29235242724368800674e-1, -1.72858975380388136411e-1,
             1.64837047825189632310e-2, -4.86827613020462700845e-4]
_DAWSN_CD = [1.00000000000000000000e0, -2.69820057197544900361e0, 1.73270799045947845857e0,
             -3.93708582281939493482e-1, 3.44278924041233391079e-2, -9.73655226040941223894e-4]


def _dawsn_impl(x):
    """The three ratios of polynomials on |x|, each fed a harmless 1 where another is taken (an
    overflowing polyval would give inf / inf = NaN), and the sign of x put back: D is odd."""
    ax = lax.abs(x)
    coeffs = [np.array(c, dtype=x.dtype) for c in (_DAWSN_AN, _DAWSN_AD, _DAWSN_BN, _DAWSN_BD,
                                                   _DAWSN_CN, _DAWSN_CD)]
    an, ad, bn, bd, cn, cd = coeffs
    t = const_like(x, 1.0) / lax.square(ax)
    low, high = ax < const_like(x, 3.25), ax >= const_like(x, 6.25)
    middle = (ax >= const_like(x, 3.25)) & (ax < const_like(x, 6.25))
    ax1 = lax.select(low, ax, lax.full_like(ax, 1.0))
    ax1_2 = lax.square(ax1)
    near = ax1 * jnp.polyval(an, ax1_2) / jnp.polyval(ad, ax1_2)

    def tail(where, num, den):
        t_safe = lax.select(where, t, lax.full_like(t, 1.0))
        ax_safe = lax.select(where, ax, lax.full_like(ax, 1.0))
        return (const_like(x, 0.5) / ax_safe) * (
            const_like(x, 1.0) + t_safe * jnp.polyval(num, t_safe) / jnp.polyval(den, t_safe))
    out = lax.select(low, near, lax.select(ax < const_like(x, 6.25), tail(middle, bn, bd),
                                           tail(high, cn, cd)))
    return jnp.sign(x) * out


@custom_jvp
def _dawsn(x):
    if x.dtype in (np.float32, np.float64):
        return _dawsn_impl(x)
    return _dawsn_impl(x.astype(np.float32)).astype(x.dtype)


_dawsn.defjvps(lambda t, ans, x: t * (const_like(x, 1.0) - const_like(x, 2.0) * x * ans))


def dawsn(x):
    """Dawson's integral exp(-x^2) * integral of exp(t^2) from 0 to x, with D' = 1 - 2xD."""
    x, = promote_args_inexact("dawsn", x)
    _real_only("dawsn", x)
    return _dawsn(x)


_SPENCE_A = [4.65128586073990045278E-5, 7.31589045238094711071E-3, 1.33847639578309018650E-1,
             8.79691311754530315341E-1, 2.71149851196553469920E0, 4.25697156008121755724E0,
             3.29771340985225106936E0, 1.00000000000000000126E0]
_SPENCE_B = [6.90990488912553276999E-4, 2.54043763932544379113E-2, 2.82974860602568089943E-1,
             1.41172597751831069617E0, 3.63800533345137075418E0, 5.03278880143316990390E0,
             3.54771340985225096217E0, 9.99999999999999998740E-1]


def _spence_calc(x):
    """Cephes' rational approximation on [0.5, 1.5], and its reflections for the rest."""
    above_2 = x > 2.0
    x = jnp.where(above_2, 1.0 / x, x)
    above_1_5, below_0_5 = x > 1.5, x < 0.5
    above_2 = above_2 | above_1_5
    w = jnp.where(above_1_5, 1.0 / x - 1.0, jnp.where(below_0_5, -x, x - 1.0))
    y = -w * jnp.polyval(jnp.array(_SPENCE_A, dtype=w.dtype), w) / jnp.polyval(
        jnp.array(_SPENCE_B, dtype=w.dtype), w)
    y = jnp.where(below_0_5, np.pi ** 2 / 6.0 - jnp.log(x) * jnp.log(1.0 - x) - y, y)
    return jnp.where(above_2, -0.5 * jnp.log(x) ** 2 - y, y)


def spence(x):
    """Spence's function, the dilogarithm integral of log(t) / (1 - t) from 1 to x, x >= 0."""
    x = jnp.asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported "
                        "types.")
    return jnp.select([x < 0.0, x == 1.0, x == 0.0],
                      [jnp.full_like(x, np.nan), jnp.zeros_like(x),
                       jnp.full_like(x, np.pi ** 2 / 6)], _spence_calc(x))


def softmax(x, /, *, axis=None):
    """jax.nn.softmax, with SciPy's default: over every axis."""
    return nn.softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    """jax.nn.log_softmax, with SciPy's default: over every axis."""
    return nn.log_softmax(x, axis=axis)


SCIPY_SPECIAL = ["bernoulli", "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb", "dawsn",
                 "entr", "erfcx", "factorial", "gamma", "gammainc", "gammaincc", "gammasgn", "i0",
                 "i0e", "i1", "i1e", "kl_div", "log_softmax", "loggamma", "multigammaln", "poch",
                 "rel_entr", "softmax", "spence", "zeta"]
wrap_public_functions(globals(), __name__)
scipy_special.more_functions.update({name: globals()[name] for name in SCIPY_SPECIAL})


@custom_jvp
def _i0(x):
    abs_x = lax.abs(x)
    return lax.mul(lax.exp(abs_x), bessel_i0e_p.bind(abs_x))


@_i0.defjvp
def _i0_jvp(primals, tangents):
    """I0 is even, so its slope at 0 is 0; the composition's `abs` would make it 1."""
    out, t_out = jvp(_i0.fun, primals, tangents)
    return out, jnp.where(primals[0] == 0, 0.0, t_out)


def _numpy_i0(x):
    x, = promote_args_inexact("i0", x)
    if dtype_kind(x.dtype) != "f":
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {x.dtype}")
    return _i0(x)


_numpy_i0.__name__ = _numpy_i0.__qualname__ = "i0"
jnp.more_functions["i0"] = jit(_numpy_i0)


from autodidax.control_flow import cond
from autodidax.indexing import sort_key_val
from autodidax.scipy import stats as scipy_stats


@functools.partial(jit, static_argnames=("axis", "nan_policy", "keepdims"))
def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """The standard error of the mean along `axis`."""
    b, = promote_args_inexact("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
        return jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(count).astype(b.dtype)
    raise ValueError(f"{nan_policy} is not supported")


def _ranks(a, method):
    arr, sorter = sort_key_val(a, jnp.arange(a.size))
    inv = jnp.empty_like(sorter).at[sorter].set(jnp.arange(sorter.size, dtype=sorter.dtype))
    if method == "ordinal":
        return (inv + 1).astype(np.float32)
    first = jnp.concatenate([jnp.array([True]), arr[1:] != arr[:-1]])
    dense = first.cumsum()[inv]
    if method == "dense":
        return dense.astype(np.float32)
    count = jnp.nonzero(first, size=arr.size + 1, fill_value=first.size)[0].astype(np.float32)
    if method == "max":
        return count[dense]
    if method == "min":
        return count[dense - 1] + 1
    return 0.5 * (count[dense] + count[dense - 1] + 1)


@functools.partial(jit, static_argnames=("method", "axis", "nan_policy"))
def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """The ranks of `a`'s entries, 1 for the smallest; ties by `method` ('average', 'min',
    'max', 'dense' or 'ordinal'); all NaN if any entry is NaN."""
    jnp.check_arraylike("rankdata", a)
    if nan_policy not in ["propagate", "omit", "raise"]:
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy != "propagate":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:                       # JAX's apply_along_axis: a vmap over the rest
        a = jnp.moveaxis(jnp.asarray(a), axis, -1)
        ranked = vmap(lambda row: rankdata(row, method))(a.reshape(-1, a.shape[-1]))
        return jnp.moveaxis(ranked.reshape(a.shape), -1, axis)
    a = jnp.ravel(a)
    return cond(jnp.any(jnp.isnan(a)), lambda a: jnp.full_like(a, jnp.nan, np.float32),
                lambda a: _ranks(a, method), a)


class ModeResult(NamedTuple):
    mode: Any
    count: Any


def _mode_of_column(x):
    """The smallest of the most frequent values of a 1-D `x`, and how often it occurs."""
    if x.size == 0:
        return jnp.array(np.nan, dtype=np.float32), jnp.array(0, dtype=np.float32)
    s = jnp.sort(x)
    counts = jnp.sum(s[:, None] == s[None, :], axis=1, dtype=np.int32)
    i = jnp.argmax(counts)                        # the first maximum: the smallest value
    return s[i], counts[i]


@functools.partial(jit, static_argnames=("axis", "nan_policy", "keepdims"))
def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most common value along `axis` (the smallest of them on a tie), and its count."""
    jnp.check_arraylike("mode", a)
    x = jnp.atleast_1d(a)
    if nan_policy not in ["propagate", "omit", "raise"]:
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of "
                         "{'propagate', 'omit', 'raise'}")
    if nan_policy != "propagate":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if axis is None:
        shape = (1,) * x.ndim if keepdims else ()
        x, axis = x.ravel(), 0
    else:
        axis = axis + x.ndim if axis < 0 else axis
        shape = tuple(1 if i == axis else n for i, n in enumerate(x.shape)
                      if keepdims or i != axis)
    x = jnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], int(np.prod(x.shape[1:])))
    values, counts = vmap(_mode_of_column, in_axes=1)(x)
    return ModeResult(values.reshape(shape), counts.reshape(shape))


scipy_stats.more_functions.update(sem=sem, rankdata=rankdata, mode=mode)
