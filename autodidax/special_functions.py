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


def comb(N, k, *, repetition=False):
    """The number of ways to choose k of N, as exp of lgammas; 0 outside 0 <= k <= N."""
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
    k = jnp.arange(2, 50, dtype=out.dtype)           # the series of k**-m cut at 49, as JAX
    q2 = jnp.sum(k[:, None] ** -m[None, :], axis=0)
    return out.at[4::2].set(q1 * (1 + q2))


# Weideman's (1994) rational approximation of the Faddeeva function with N = 32 terms: for
# Im(z) >= 0, w(z) = 2 P(Z) / (L - iz)^2 + 1 / (sqrt(pi) (L - iz)), Z = (L + iz) / (L - iz),
# P's coefficients highest power first.
_WOFZ_L = 4.7568284600108841
_WOFZ_C = np.array([
    -1.3034426067909105e-12, 3.7411838373738471e-12, 8.030427700497756e-12,
    -2.1543593557490879e-11, -5.5442449963237932e-11, 1.165824698850374e-10,
    4.1537441121999766e-10, -5.2310202114920615e-10, -3.2080151339721323e-09,
    8.1248864216535907e-10, 2.3797556530014025e-08, 2.2930438438915445e-08,
    -1.4813078929137642e-07, -4.1840763750512053e-07, 4.2558331397138446e-07,
    4.4015317312832251e-06, 6.8210319443575151e-06, -2.1409619201999998e-05,
    -0.00013075449254579421, -0.00024532980270038237, 0.00039259136070109705,
    0.0045195411053493093, 0.019006155784845501, 0.057304403529837282, 0.14060716226893755,
    0.29544451071508743, 0.54601397206393376, 0.9019254893648001, 1.3455441692345449,
    1.8256696296324815, 2.2635372999002676, 2.5722534081245696])


def _wofz_upper(z):
    """w(z) in the upper half plane, by Weideman's approximation."""
    re = lax.real(z)
    big_l = lax.complex(const_like(re, _WOFZ_L), const_like(re, 0.0))
    iz = lax.complex(lax.neg(lax.imag(z)), re)
    denom = big_l - iz
    p = jnp.polyval(jnp.asarray(_WOFZ_C, dtype=z.dtype), (big_l + iz) / denom)
    inv_sqrt_pi = lax.complex(const_like(re, 1.0 / np.sqrt(np.pi)), const_like(re, 0.0))
    return 2 * p / (denom * denom) + inv_sqrt_pi / denom


@custom_jvp
def _wofz(z):
    """w(z) anywhere: below the real axis by the reflection w(z) = 2 exp(-z^2) - w(-z)."""
    upper = lax.ge(lax.imag(z), const_like(lax.real(z), 0.0))
    w_upper = _wofz_upper(lax.select(upper, z, lax.neg(z)))
    return lax.select(upper, w_upper, 2 * lax.exp(lax.neg(z * z)) - w_upper)


# w'(z) = -2 z w(z) + 2i / sqrt(pi).
_wofz.defjvps(lambda t, ans, z: t * (lax.neg(2 * z * ans) + lax.complex(
    const_like(lax.real(z), 0.0), const_like(lax.real(z), 2.0 / np.sqrt(np.pi)))))


def promote_args_complex(name, *args):
    """The arguments as arrays of one complex dtype, of the precision of their common inexact
    dtype, and of one rank: JAX's `promote_args_complex`."""
    args = promote_args_inexact(name, *args)
    dtype = np.complex128 if args[0].dtype in (np.float64, np.complex128) else np.complex64
    return [a if a.dtype == dtype else
            lax.convert_element_type(a, dtype, weak_type=get_aval(a).weak_type) for a in args]


def wofz(z):
    """The Faddeeva function w(z) = exp(-z^2) erfc(-iz), complex for real or complex z."""
    z, = promote_args_complex("wofz", z)
    return _wofz(z)


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
    if dtype_kind(x.dtype) == "c":                     # erfcx(z) = w(iz)
        return _wofz(lax.complex(lax.neg(lax.imag(x)), lax.real(x)))
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
                 "rel_entr", "softmax", "spence", "wofz", "zeta"]
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


@custom_jvp
@jit
def log1mexp(x):
    """log(1 - exp(-x)) for x > 0, accurate near 0 and for large x."""
    jnp.check_arraylike("log1mexp", x)
    x = jnp.asarray(x)
    return jnp.where(x < jnp.log(2.0), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda t, ans, x: t / jnp.expm1(x))
nn.more_functions["log1mexp"] = log1mexp


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


from autodidax.control_flow import scan
from autodidax.control_flow_reference import fori_loop
from autodidax.core import Tracer, api_boundary
from autodidax.numpy_rest import piecewise, polyval, select, vectorize

_jnp_i0 = jnp.more_functions["i0"]


def _static_int(x, what):
    """`x` as a Python int: JAX's ConcretizationTypeError naming `what` for a traced value."""
    return operator.index(x._concrete(what) if isinstance(x, Tracer) else x)


def kaiser(M, beta):
    """The Kaiser window of `M` points, I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta) with
    a = (M - 1) / 2."""
    M = _static_int(M, "M argument of jnp.kaiser")
    dtype = jnp.canonicalize_dtype(np.float64)
    if M <= 1:
        return lax.full((M,), 1, dtype)
    n = lax.iota(dtype, M)
    half = 0.5 * (M - 1)
    return _jnp_i0(beta * jnp.sqrt(1 - ((n - half) / half) ** 2)) / _jnp_i0(beta)


jnp.more_functions["kaiser"] = api_boundary(kaiser)


def _bessel_jn_step(carry, k):
    """Miller's backward recurrence, J_k = 2 (k + 1) J_{k+1} / z - J_{k+2}, with the running
    sum J_0 + 2 (J_2 + J_4 + ...) that normalises it at the end."""
    f0, f1, total, z = carry
    f = 2.0 * (k + 1.0) * f1 / z - f0
    total = cond(jnp.mod(k, 2) == 0, lambda u: u[0] + 2.0 * u[1], lambda u: u[0],
                 operand=(total, f))
    return (f1, f, total, z), f


def _bessel_jn(z, *, v, n_iter=50):
    init = (const_like(z, 0.0), const_like(z, 1e-16), const_like(z, 0.0), z)
    (_, _, total, _), f = scan(_bessel_jn_step, init, lax.iota(z.dtype, n_iter + 1),
                               reverse=True)
    return f[:v + 1] / (total - f[0])


@functools.partial(jit, static_argnames=("v", "n_iter"))
def bessel_jn(z, *, v, n_iter=50):
    """J_0(z), ..., J_v(z), Bessel functions of the first kind of integer order, stacked on a
    new first axis: `n_iter` steps of the backward recurrence from order `n_iter`."""
    z, = jnp.promote_dtypes(jnp.asarray(z), inexact=True)
    if dtype_kind(z.dtype) == "c":
        raise ValueError("complex input not supported.")
    fun = functools.partial(_bessel_jn, v=operator.index(v), n_iter=int(n_iter))
    for _ in range(z.ndim):
        fun = vmap(fun)
    return jnp.moveaxis(fun(z), -1, 0)


# Cephes' rational approximations of Ei(x) (ei.c): on (0, 2] in x, A(x) / B(x); on (2, 4],
# (4, 8], ..., (32, 64] and (64, inf) in w = 1/x, as exp(x) w (1 + w A(w) / B(w)).
_EXPINT = [
    ([-5.350447357812542947283e0, 2.185049168816613393830e2, -4.176572384826693777058e3,
     5.541176756393557601232e4, -3.313381331178144034309e5, 1.592627163384945414220e6],
     [1.0, -5.250547959112862969197e1, 1.259616186786790571525e3, -1.756549581973534652631e4,
     1.493062117002725991967e5, -7.294949239640527645655e5, 1.592627163384945429726e6]),
    ([1.981808503259689673238e-2, -1.271645625984917501326e0, -2.088160335681228318920e0,
     2.755544509187936721172e0, -4.409507048701600257171e-1, 4.665623805935891391017e-2,
     -1.545042679673485262580e-3, 7.059980605299617478514e-5],
     [1.0, 1.476498670914921440652e0, 5.629177174822436244827e-1, 1.699017897879307263248e-1,
     2.291647179034212017463e-2, 4.450150439728752875043e-3, 1.727439612206521482874e-4,
     3.953167195549672482304e-5]),
    ([-1.373215375871208729803e0, -7.084559133740838761406e-1, 1.580806855547941010501e0,
     -2.601500427425622944234e-1, 2.994674694113713763365e-2, -1.038086040188744005513e-3,
     4.371064420753005429514e-5, 2.141783679522602903795e-6],
     [1.0, 8.585231423622028380768e-1, 4.483285822873995129957e-1, 7.687932158124475434091e-2,
     2.449868241021887685904e-2, 8.832165941927796567926e-4, 4.590952299511353531215e-4,
     -4.729848351866523044863e-6, 2.665195537390710170105e-6]),
    ([-2.106934601691916512584e0, 1.732733869664688041885e0, -2.423619178935841904839e-1,
     2.322724180937565842585e-2, 2.372880440493179832059e-4, -8.343219561192552752335e-5,
     1.363408795605250394881e-5, -3.655412321999253963714e-7, 1.464941733975961318456e-8,
     6.176407863710360207074e-10],
     [1.0, -2.298062239901678075778e-1, 1.105077041474037862347e-1, -1.566542966630792353556e-2,
     2.761106850817352773874e-3, -2.089148012284048449115e-4, 1.708528938807675304186e-5,
     -4.459311796356686423199e-7, 1.394634930353847498145e-8, 6.150865933977338354138e-10]),
    ([-2.458119367674020323359e-1, -1.483382253322077687183e-1, 7.248291795735551591813e-2,
     -1.348315687380940523823e-2, 1.342775069788636972294e-3, -7.942465637159712264564e-5,
     2.644179518984235952241e-6, -4.239473659313765177195e-8],
     [1.0, -1.044225908443871106315e-1, -2.676453128101402655055e-1, 9.695000254621984627876e-2,
     -1.601745692712991078208e-2, 1.496414899205908021882e-3, -8.462452563778485013756e-5,
     2.728938403476726394024e-6, -4.239462431819542051337e-8]),
    ([1.212561118105456670844e-1, -5.823133179043894485122e-1, 2.348887314557016779211e-1,
     -3.040034318113248237280e-2, 1.510082146865190661777e-3, -2.523137095499571377122e-5],
     [1.0, -1.002252150365854016662e0, 2.928709694872224144953e-1, -3.337004338674007801307e-2,
     1.560544881127388842819e-3, -2.523137093603234562648e-5]),
    ([-7.657847078286127362028e-1, 6.886192415566705051750e-1, -2.132598113545206124553e-1,
     3.346107552384193813594e-2, -3.076541477344756050249e-3, 1.747119316454907477380e-4,
     -6.103711682274170530369e-6, 1.218032765428652199087e-7, -1.086076102793290233007e-9],
     [1.0, -1.888802868662308731041e0, 1.066691687211408896850e0, -2.751915982306380647738e-1,
     3.930852688233823569726e-2, -3.414684558602365085394e-3, 1.866844370703555398195e-4,
     -6.345146083130515357861e-6, 1.239754287483206878024e-7, -1.086076102793126632978e-9]),
]


def _expi_small(x):
    """Ei(x) on (0, 2]: gamma + log(x) + x A(x) / B(x)."""
    a, b = (np.array(c, dtype=x.dtype) for c in _EXPINT[0])
    return x * (polyval(a, x) / polyval(b, x)) + np.euler_gamma + jnp.log(x)


def _expi_large(k):
    """Ei(x) on the k-th interval beyond 2."""
    def expi_on_interval(x):
        a, b = (np.array(c, dtype=x.dtype) for c in _EXPINT[k])
        one = const_like(x, 1.0)
        w = one / x
        return jnp.exp(x) * w * (w * (polyval(a, w) / polyval(b, w)) + one)
    return expi_on_interval


def _expi_pos(x):
    c = const_like
    conds = [(c(x, 0) < x) & (x <= c(x, 2))] + [
        (c(x, 2 ** i) < x) & (x <= c(x, 2 ** (i + 1))) for i in range(1, 6)]
    return piecewise(x, conds, [_expi_small] + [_expi_large(k) for k in range(1, 7)])


def _expi_neg(x):
    return -exp1(-x)                                    # Ei(-x) = -E1(x)


@custom_jvp
@jit
def expi(x):
    """The exponential integral Ei(x), the principal value of the integral of e^t / t up to x."""
    x, = promote_args_inexact("expi", x)
    if dtype_kind(x.dtype) == "c":
        raise ValueError("expi does not support complex-valued inputs.")
    return piecewise(x, [x < 0], [_expi_neg, _expi_pos])


@expi.defjvp
@jit
def _expi_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return expi(x), jnp.exp(x) / x * t


def _expn_series(x, n):
    """E_n(x) for x <= 1 by its power series (Cephes' expn.c)."""
    c = const_like
    eps = jnp.finfo(x.dtype).eps
    zero, one = c(x, 0.0), c(x, 1.0)
    psi = fori_loop(c(n, 1), n, lambda i, psi: psi + one / i, -np.euler_gamma - jnp.log(x))
    n1 = jnp.where(n == c(n, 1), one + one, n)
    init = dict(x=x, z=-x, xk=zero, yk=one, pk=one - n,
                ans=jnp.where(n == c(n, 1), zero, one / (one - n1)), t=np.inf)

    def body(d):
        d = dict(d)
        d["xk"] += one
        d["yk"] *= d["z"] / d["xk"]
        d["pk"] += one
        d["ans"] += jnp.where(d["pk"] != zero, d["yk"] / d["pk"], zero)
        d["t"] = jnp.where(d["ans"] != zero, abs(d["yk"] / d["ans"]), one)
        return d

    d = while_loop(lambda d: (d["x"] > c(d["x"], 0.0)) & (d["t"] > eps), body, init)
    return d["z"] ** (n - c(n, 1)) * psi / jnp.exp(scipy_special.gammaln(n)) - d["ans"]


def _expn_fraction(x, n):
    """E_n(x) for x > 1 by its continued fraction, its convergents rescaled when they grow."""
    c = const_like
    big = c(x, 1.44115188075855872e17)
    eps = jnp.finfo(x.dtype).eps
    zero, one = c(x, 0.0), c(x, 1.0)
    init = dict(k=c(n, 1), pkm2=one, qkm2=x, pkm1=one, qkm1=x + n, ans=one / (x + n),
                t=c(x, np.inf), r=zero, x=x)

    def body(d):
        d = dict(d)
        x = d["x"]
        d["k"] += c(d["k"], 1)
        k = d["k"]
        odd = k % c(k, 2) == c(k, 1)
        yk = jnp.where(odd, one, x)
        xk = jnp.where(odd, n + (k - c(k, 1)) / c(k, 2), k / c(k, 2))
        pk = d["pkm1"] * yk + d["pkm2"] * xk
        qk = d["qkm1"] * yk + d["qkm2"] * xk
        nonzero = qk != zero
        d["r"] = r = jnp.where(nonzero, pk / qk, d["r"])
        d["t"] = jnp.where(nonzero, abs((d["ans"] - r) / r), one)
        d["ans"] = jnp.where(nonzero, r, d["ans"])
        d["pkm2"], d["pkm1"], d["qkm2"], d["qkm1"] = d["pkm1"], pk, d["qkm1"], qk
        is_big = abs(pk) > big
        for key in ("pkm1", "pkm2", "qkm1", "qkm2"):
            d[key] = jnp.where(is_big, d[key] / big, d[key])
        return d

    d = while_loop(lambda d: (d["x"] > c(d["k"], 0)) & (d["t"] > eps), body, init)
    return d["ans"] * jnp.exp(-x)


def _expn_large_n(x, n):
    """E_n(x) for n >= 5000, by its asymptotic expansion in n."""
    c = const_like
    one = c(x, 1.0)
    xk = x + n
    yk = one / (xk * xk)
    ans = yk * n * (c(x, 6) * x * x - c(x, 8) * n * x + n * n)
    ans = yk * (ans + n * (n - c(x, 2) * x))
    ans = yk * (ans + n)
    return (ans + one) * jnp.exp(-x) / xk


@functools.partial(custom_jvp, nondiff_argnums=(0,))
@vectorize
@jit
def expn(n, x):
    """The generalized exponential integral E_n(x), the integral of e^(-xt) / t^n over t >= 1."""
    n, x = promote_args_inexact("expn", n, x)
    if dtype_kind(x.dtype) == "c":
        raise ValueError("expn does not support complex-valued inputs.")
    c = const_like
    zero, one = c(x, 0), c(x, 1)
    conds = [(n < c(n, 0)) | (x < zero), (x == zero) & (n < c(n, 2)),
             (x == zero) & (n >= c(n, 2)), (n == c(n, 0)) & (x >= zero), n >= c(n, 5000),
             x > one]
    n1 = jnp.where(n == c(n, 1), n + n, n)               # keeps 1 / (n - 1) finite at n = 1
    values = [np.nan, np.inf, one / n1, jnp.exp(-x) / x, _expn_large_n, _expn_fraction,
              _expn_series]
    return piecewise(x, conds, values, n=n)


@expn.defjvp
@jit
def _expn_jvp(n, primals, tangents):
    (x,), (t,) = primals, tangents
    return expn(n, x), lax.mul(lax.neg(t), expn(lax.sub(n, const_like(n, 1)), x))


def exp1(x):
    """The exponential integral E_1(x)."""
    x, = promote_args_inexact("exp1", x)
    if dtype_kind(x.dtype) == "c":
        raise ValueError("exp1 does not support complex-valued inputs.")
    return expn(1, x)


# Cephes' coefficients of Si and Ci (sici.c): series ratios on [0, 4]; the auxiliary functions
# f and g on (4, 8) and [8, inf), in 1/x^2.
_SICI_SN = [-8.39167827910303881427E-11, 4.62591714427012837309E-8, -9.75759303843632795789E-6,
    9.76945438170435310816E-4, -4.13470316229406538752E-2, 1.00000000000000000302E0]
_SICI_SD = [2.03269266195951942049E-12, 1.27997891179943299903E-9, 4.41827842801218905784E-7,
    9.96412122043875552487E-5, 1.42085239326149893930E-2, 9.99999999999999996984E-1]
_SICI_CN = [2.02524002389102268789E-11, -1.35249504915790756375E-8, 3.59325051419993077021E-6,
    -4.74007206873407909465E-4, 2.89159652607555242092E-2, -1.00000000000000000080E0]
_SICI_CD = [4.07746040061880559506E-12, 3.06780997581887812692E-9, 1.23210355685883423679E-6,
    3.17442024775032769882E-4, 5.10028056236446052392E-2, 4.00000000000000000080E0]
_SICI_FN4 = [4.23612862892216586994E0, 5.45937717161812843388E0, 1.62083287701538329132E0,
    1.67006611831323023771E-1, 6.81020132472518137426E-3, 1.08936580650328664411E-4,
    5.48900223421373614008E-7]
_SICI_FD4 = [1, 8.16496634205391016773E0, 7.30828822505564552187E0, 1.86792257950184183883E0,
    1.78792052963149907262E-1, 7.01710668322789753610E-3, 1.10034357153915731354E-4,
    5.48900252756255700982E-7]
_SICI_GN4 = [8.71001698973114191777E-2, 6.11379109952219284151E-1, 3.97180296392337498885E-1,
    7.48527737628469092119E-2, 5.38868681462177273157E-3, 1.61999794598934024525E-4,
    1.97963874140963632189E-6, 7.82579040744090311069E-9]
_SICI_GD4 = [1, 1.64402202413355338886E0, 6.66296701268987968381E-1, 9.88771761277688796203E-2,
    6.22396345441768420760E-3, 1.73221081474177119497E-4, 2.02659182086343991969E-6,
    7.82579218933534490868E-9]
_SICI_FN8 = [4.55880873470465315206E-1, 7.13715274100146711374E-1, 1.60300158222319456320E-1,
    1.16064229408124407915E-2, 3.49556442447859055605E-4, 4.86215430826454749482E-6,
    3.20092790091004902806E-8, 9.41779576128512936592E-11, 9.70507110881952024631E-14]
_SICI_FD8 = [1.0, 9.17463611873684053703E-1, 1.78685545332074536321E-1, 1.22253594771971293032E-2,
    3.58696481881851580297E-4, 4.92435064317881464393E-6, 3.21956939101046018377E-8,
    9.43720590350276732376E-11, 9.70507110881952025725E-14]
_SICI_GN8 = [6.97359953443276214934E-1, 3.30410979305632063225E-1, 3.84878767649974295920E-2,
    1.71718239052347903558E-3, 3.48941165502279436777E-5, 3.47131167084116673800E-7,
    1.70404452782044526189E-9, 3.85945925430276600453E-12, 3.14040098946363334640E-15]
_SICI_GD8 = [1.0, 1.68548898811011640017E0, 4.87852258695304967486E-1, 4.67913194259625806320E-2,
    1.90284426674399523638E-3, 3.68475504442561108162E-5, 3.57043223443740838771E-7,
    1.72693748966316146736E-9, 3.87830166023954706752E-12, 3.14040098946363335242E-15]


def _sici_series(x):
    """Si and Ci on [0, 4]: Si = x S(x^2), Ci = gamma + log(x) + x^2 C(x^2), S and C ratios."""
    t = x * x
    sn, sd, cn, cd = (np.array(c, dtype=x.dtype) for c in (_SICI_SN, _SICI_SD, _SICI_CN,
                                                           _SICI_CD))
    si = (x * polyval(sn, t)) / polyval(sd, t)
    ci = np.euler_gamma + jnp.log(x) + t * polyval(cn, t) / polyval(cd, t)
    return jnp.where(x == 0, 0.0, si), jnp.where(x == 0, -np.inf, ci)


def _sici_asymptotic(x):
    """Si and Ci on (4, 1e9]: pi/2 - f cos x - g sin x and f sin x - g cos x, with the
    auxiliary functions f and g as ratios in 1/x^2, one pair below 8, one above."""
    s, c = jnp.sin(x), jnp.cos(x)
    z = 1.0 / (x * x)
    def p(coefficients):
        return polyval(np.array(coefficients, dtype=x.dtype), z)
    f4 = p(_SICI_FN4) / (x * p(_SICI_FD4))
    g4 = z * p(_SICI_GN4) / p(_SICI_GD4)
    f8 = p(_SICI_FN8) / (x * p(_SICI_FD8))
    g8 = z * p(_SICI_GN8) / p(_SICI_GD8)
    below_8 = x < 8.0
    f, g = jnp.where(below_8, f4, f8), jnp.where(below_8, g4, g8)
    return (np.pi / 2) - f * c - g * s, f * s - g * c


def _sici_far(x):
    """Si and Ci beyond 1e9, the leading terms of the asymptotic series."""
    si = jnp.where(jnp.isposinf(x), np.pi / 2, (np.pi / 2) - jnp.cos(x) / x)
    ci = jnp.where(jnp.isposinf(x), 0.0, jnp.sin(x) / x)
    return si, ci


@custom_jvp
@jit
def sici(x):
    """The sine and cosine integrals Si(x), the integral of sin(t)/t from 0 to x, and Ci(x),
    gamma + log(x) + the integral of (cos(t) - 1)/t from 0 to x."""
    x, = promote_args_inexact("sici", x)
    if dtype_kind(x.dtype) == "c":
        raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {x.dtype}.")
    ax = jnp.abs(x)
    si_series, ci_series = _sici_series(ax)
    si_asymp, ci_asymp = _sici_asymptotic(ax)
    si_far, ci_far = _sici_far(ax)
    near, middle = ax <= 4, (ax > 4) & (ax <= 1e9)
    si = select([near, middle], [si_series, si_asymp], si_far)
    ci = select([near, middle], [ci_series, ci_asymp], ci_far)
    return jnp.sign(x) * si, jnp.where(jnp.isneginf(x), np.nan, ci)


@sici.defjvp
@jit
def _sici_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return sici(x), (jnp.sinc(x / np.pi) * t, jnp.cos(x) / x * t)


# Cephes' coefficients of the Fresnel integrals (fresnl.c), for float32 and float64.
_FRESNEL32 = dict(
    sn=[1.647629463788700e-9, -1.522754752581096e-7, 8.424748808502400e-6, -3.120693124703272e-4,
        7.244727626597022e-3, -9.228055941124598e-2, 5.235987735681432e-1],
    cn=[1.416802502367354e-8, -1.157231412229871e-6, 5.387223446683264e-5, -1.604381798862293e-3,
        2.818489036795073e-2, -2.467398198317899e-1, 9.999999760004487e-1],
    fn=[-1.903009855649792e12, 1.355942388050252e11, -4.158143148511033e9, 7.343848463587323e7,
        -8.732356681548485e5, 8.560515466275470e3, -1.032877601091159e2, 2.999401847870011e0],
    gn=[-1.860843997624650e11, 1.278350673393208e10, -3.779387713202229e8, 6.492611570598858e6,
        -7.787789623358162e4, 8.602931494734327e2, -1.493439396592284e1, 9.999841934744914e-1],
)
_FRESNEL64 = dict(
    sn=[-2.99181919401019853726e3, 7.08840045257738576863e5, -6.29741486205862506537e7,
        2.54890880573376359104e9, -4.42979518059697779103e10, 3.18016297876567817986e11],
    sd=[1.00000000000000000000e0, 2.81376268889994315696e2, 4.55847810806532581675e4,
        5.17343888770096400730e6, 4.19320245898111231129e8, 2.24411795645340920940e10,
        6.07366389490084639049e11],
    cn=[-4.98843114573573548651e-8, 9.50428062829859605134e-6, -6.45191435683965050962e-4,
        1.88843319396703850064e-2, -2.05525900955013891793e-1, 9.99999999999999998822e-1],
    cd=[3.99982968972495980367e-12, 9.15439215774657478799e-10, 1.25001862479598821474e-7,
        1.22262789024179030997e-5, 8.68029542941784300606e-4, 4.12142090722199792936e-2,
        1.00000000000000000118e0],
    fn=[4.21543555043677546506e-1, 1.43407919780758885261e-1, 1.15220955073585758835e-2,
        3.45017939782574027900e-4, 4.63613749287867322088e-6, 3.05568983790257605827e-8,
        1.02304514164907233465e-10, 1.72010743268161828879e-13, 1.34283276233062758925e-16,
        3.76329711269987889006e-20],
    fd=[1.00000000000000000000e0, 7.51586398353378947175e-1, 1.16888925859191382142e-1,
        6.44051526508858611005e-3, 1.55934409164153020873e-4, 1.84627567348930545870e-6,
        1.12699224763999035261e-8, 3.60140029589371370404e-11, 5.88754533621578410010e-14,
        4.52001434074129701496e-17, 1.25443237090011264384e-20],
    gn=[5.04442073643383265887e-1, 1.97102833525523411709e-1, 1.87648584092575249293e-2,
        6.84079380915393090172e-4, 1.15138826111884280931e-5, 9.82852443688422223854e-8,
        4.45344415861750144738e-10, 1.08268041139020870318e-12, 1.37555460633261799868e-15,
        8.36354435630677421531e-19, 1.86958710162783235106e-22],
    gd=[1.00000000000000000000e0, 1.47495759925128324529e0, 3.37748989120019970451e-1,
        2.53603741420338795122e-2, 8.14679107184306179049e-4, 1.27545075667729118702e-5,
        1.04314589657571990585e-7, 4.60680728146520428211e-10, 1.10273215066240270757e-12,
        1.38796531259578871258e-15, 8.39158816283118707363e-19, 1.86958710162783236342e-22],
)


@jit
def _sincospisquaredhalf(x):
    """sin(pi x^2 / 2) and cos(pi x^2 / 2), accurate for large x: with s = x mod 2,
    x^2 / 2 mod 2 is s (x - s / 2) mod 2, reduced before the sine is taken."""
    x = jnp.abs(x)
    s = jnp.fmod(x, 2.0)
    r = jnp.fmod(s * (x - s / 2), 2.0)
    sinpi = jnp.where(r < 0.5, jnp.sin(np.pi * r),
                      jnp.where(r > 1.5, jnp.sin(np.pi * (r - 2.0)), -jnp.sin(np.pi * (r - 1.0))))
    cospi = jnp.where(r == 0.5, 0.0, jnp.where(r < 1.0, -jnp.sin(np.pi * (r - 0.5)),
                                                jnp.sin(np.pi * (r - 1.5))))
    return sinpi, cospi


@custom_jvp
def fresnel(x):
    """The Fresnel integrals S(x) and C(x), of sin(pi t^2 / 2) and cos(pi t^2 / 2) from 0."""
    xxa, = promote_args_inexact("fresnel", x)
    original_dtype = xxa.dtype
    if dtype_kind(xxa.dtype) == "c":
        raise NotImplementedError("Support for complex-valued inputs is not implemented yet.")
    if xxa.dtype not in (np.float16, np.float32, jnp.bfloat16, np.float64):
        raise NotImplementedError(f"Support for {xxa.dtype} dtype is not implemented yet.")
    single = xxa.dtype != np.float64
    xxa = xxa.astype(np.float32) if single else xxa       # half precision computes in float32
    k = {name: np.array(v, xxa.dtype) for name, v in (_FRESNEL32 if single else
                                                       _FRESNEL64).items()}
    x = jnp.abs(xxa)
    x2 = x * x
    t = x2 * x2                                           # small x: Cephes' series
    if single:
        s_small, c_small = x * x2 * polyval(k["sn"], t), x * polyval(k["cn"], t)
    else:
        s_small = x * x2 * polyval(k["sn"], t) / polyval(k["sd"], t)
        c_small = x * polyval(k["cn"], t) / polyval(k["cd"], t)
    sinpi, cospi = _sincospisquaredhalf(x)
    if single:                                            # very large x: the limit 1/2
        c_large = s_large = 0.5
    else:
        c_large = 0.5 + 1 / (np.pi * x) * sinpi
        s_large = 0.5 - 1 / (np.pi * x) * cospi
    t = np.pi * x2                                        # otherwise: the auxiliary f and g
    u = 1.0 / (t * t)
    t = 1.0 / t
    if single:
        f = 1.0 - u * polyval(k["fn"], u)
        g = t * polyval(k["gn"], u)
    else:
        f = 1.0 - u * polyval(k["fn"], u) / polyval(k["fd"], u)
        g = t * polyval(k["gn"], u) / polyval(k["gd"], u)
    t = np.pi * x
    c_other = 0.5 + (f * sinpi - g * cospi) / t
    s_other = 0.5 - (f * cospi + g * sinpi) / t
    isinf, small, large = jnp.isinf(xxa), x2 < 2.5625, x > 36974.0
    s = jnp.where(isinf, 0.5, jnp.where(small, s_small, jnp.where(large, s_large, s_other)))
    c = jnp.where(isinf, 0.5, jnp.where(small, c_small, jnp.where(large, c_large, c_other)))
    neg = xxa < 0.0
    s, c = jnp.where(neg, -s, s), jnp.where(neg, -c, c)
    if original_dtype != xxa.dtype:
        s, c = s.astype(original_dtype), c.astype(original_dtype)
    return s, c


@fresnel.defjvp
def _fresnel_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    sinpi, cospi = _sincospisquaredhalf(x)
    return fresnel(x), (sinpi * t, cospi * t)


exp1 = api_boundary(exp1)
MORE_SCIPY_SPECIAL = ["bessel_jn", "exp1", "expi", "expn", "fresnel", "sici"]
scipy_special.more_functions.update({name: globals()[name] for name in MORE_SCIPY_SPECIAL})


from autodidax.scipy.special import erf_p

# Patefield and Tandy's (2000) method T5: a 13-point Gauss rule for Owen's T integral,
# T(h, a) = (1 / 2 pi) int_0^a exp(-h^2 (1 + u^2) / 2) / (1 + u^2) du, in t = u^2 / a^2, with the
# 1 / (2 pi) and the Jacobian folded into the weights.
_OWENS_T_POINTS = np.array([
    0.0035082039676451715, 0.031279042338030754, 0.085266826283219451, 0.16245071730812277,
    0.25851196049125435, 0.36807553840697534, 0.48501092905604697, 0.60277514152618577,
    0.71477884217753227, 0.81475510988760099, 0.89711029755948966, 0.95723808085944262,
    0.99178832974629704])
_OWENS_T_WEIGHTS = np.array([
    0.018831438115323503, 0.018567086243977649, 0.018042093461223386, 0.017263829606398753,
    0.016243219975989857, 0.014994592034116705, 0.013535474469662088, 0.011886351605820165,
    0.010070377242777432, 0.0081130545742299587, 0.0060419009528470239, 0.0038862217010742058,
    0.0016793031084546090])


def _owens_t_quadrature(h, a):
    r = jnp.square(a)[..., None] * jnp.expand_dims(_OWENS_T_POINTS, tuple(range(a.ndim)))
    integrand = jnp.exp(-0.5 * jnp.square(h)[..., None] * (1. + r)) / (1. + r)
    return a * (integrand @ _OWENS_T_WEIGHTS)


@custom_jvp
def _owens_t(h, a):
    """T(h, a) by the quadrature for |a| <= 1; for |a| > 1 by the reflection
    T(h, a) = (Phi(h) + Phi(ah)) / 2 - Phi(h) Phi(ah) - 1/4 [h >= 0] - T(ah, 1/a), written
    with erf and erfc; exact at h = 0 and a = 1; odd in a, even in h."""
    h, abs_a = jnp.abs(h), jnp.abs(a)
    root_2 = const_like(h, np.sqrt(2))
    h_normed = h / root_2
    small_a = abs_a <= 1.
    mod_a = jnp.where(small_a, abs_a, jnp.reciprocal(abs_a))
    mod_h = jnp.where(small_a, h, abs_a * h)
    result = _owens_t_quadrature(mod_h, mod_a)
    result = jnp.where(mod_h == 0., jnp.arctan(mod_a) / (2 * np.pi), result)
    result = jnp.where(mod_a == 1.,
                       0.125 * erfc_p.bind(-mod_h / root_2) * erfc_p.bind(mod_h / root_2), result)
    normh, normah = erfc_p.bind(h_normed), erfc_p.bind(abs_a * h_normed)
    near = 0.25 - 0.25 * erf_p.bind(h_normed) * erf_p.bind(abs_a * h_normed) - result
    reflected = jnp.where(abs_a * h <= 0.67, near,
                          0.25 * (normh + normah - normh * normah) - result)
    result = lax.sign(a) * jnp.where(abs_a > 1., reflected, result)
    return jnp.where(jnp.isnan(a) | jnp.isnan(h), jnp.full_like(result, jnp.nan), result)


@_owens_t.defjvp
def _owens_t_jvp(primals, tangents):
    (h, a), (dh, da) = primals, tangents
    root_2 = const_like(h, np.sqrt(2))
    dout_dh = (-lax.exp(-0.5 * lax.square(h)) * erf_p.bind(a * h / root_2)
               / (2. * const_like(h, np.sqrt(2. * np.pi))))
    dout_da = (lax.exp(-0.5 * (lax.square(a) + 1.) * lax.square(h))
               / (2. * np.pi * (lax.square(a) + 1.)))
    result = _owens_t(h, a)
    return result, (dout_dh * dh + dout_da * da).astype(result.dtype)


def owens_t(h, a):
    """Owen's T function: the probability that X > h and 0 < Y < aX, X and Y independent
    standard normals."""
    h, a = promote_args_inexact("owens_t", h, a)
    return _owens_t(h, a)


scipy_special.more_functions["owens_t"] = api_boundary(owens_t)


def _series_sum(x, first, update, init_sum):
    """The sum of a series from `init_sum` with terms `term_k`, `term_1 = first`,
    `term_{k+1} = update(term_k, k)` (each added by `add(sum, term, k)`), until a term is below
    epsilon relative to the sum, or 250 terms: the loop of Pearson, Olver and Porter's methods."""
    eps = jnp.finfo(x.dtype).eps
    add, step = update

    def body(state):
        total, k, term = state
        return add(total, term, k), k + 1, step(term, k)

    def keep_going(state):
        total, k, term = state
        return (k < 250) & (lax.abs(term) / lax.abs(total) > eps)

    return while_loop(keep_going, body, (init_sum, 1, first))[0]


def _hyp1f1_series(a, b, x):
    """1F1 by its Taylor series (Pearson, Olver and Porter 2014, eq. 3.2)."""
    return _series_sum(x, a / b * x, (lambda s, t, k: s + t,
                                      lambda t, k: t * ((a + k) / (b + k) * x / (k + 1))), 1)


def _hyp1f1_asymptotic(a, b, x):
    """1F1 for large |x| by its asymptotic series (eq. 3.8, for real arguments)."""
    total = _series_sum(x, (b - a) * (1 - a) / x, (
        lambda s, t, k: s + t, lambda t, k: t * ((b - a + k) * (1 - a + k) / (k + 1) / x)), 1)
    return gamma(b) / gamma(a) * lax.exp(x) * x ** (a - b) * total


@jit
@vectorize
def _hyp1f1_a_derivative(a, b, x):
    """d 1F1 / da: the series whose terms carry psi(a + k) - psi(a)."""
    digamma = scipy_special.digamma
    return _series_sum(x, a / b * x, (
        lambda s, t, k: s + t * (digamma(a + k) - digamma(a)),
        lambda t, k: t * ((a + k) / (b + k) * x / (k + 1))), 0)


@jit
@vectorize
def _hyp1f1_b_derivative(a, b, x):
    """d 1F1 / db: the series whose terms carry psi(b) - psi(b + k)."""
    digamma = scipy_special.digamma
    return _series_sum(x, a / b * x, (
        lambda s, t, k: s + t * (digamma(b) - digamma(b + k)),
        lambda t, k: t * ((a + k) / (b + k) * x / (k + 1))), 0)


@jit
def _hyp1f1_x_derivative(a, b, x):
    return a / b * hyp1f1(a + 1, b + 1, x)                # d 1F1(a; b; x) / dx


@custom_jvp
@jit
@vectorize
def hyp1f1(a, b, x):
    """Kummer's confluent hypergeometric function 1F1(a; b; x), for real arguments."""
    a, b, x = promote_args_inexact("hyp1f1", a, b, x)
    if dtype_kind(x.dtype) == "c":
        raise ValueError("hyp1f1 does not support complex-valued inputs.")
    result = cond(lax.abs(x) < 100, _hyp1f1_series, _hyp1f1_asymptotic, a, b, x)
    index = (a == 0) * 1 + ((a == b) & (a != 0)) * 2 + ((b == 0) & (a != 0)) * 3
    return lax.select_n(index, result, jnp.array(1, dtype=x.dtype), jnp.exp(x),
                        jnp.array(np.inf, dtype=x.dtype))


hyp1f1.defjvps(lambda t, ans, a, b, x: _hyp1f1_a_derivative(a, b, x) * t,
               lambda t, ans, a, b, x: _hyp1f1_b_derivative(a, b, x) * t,
               lambda t, ans, a, b, x: _hyp1f1_x_derivative(a, b, x) * t)
scipy_special.more_functions["hyp1f1"] = hyp1f1


def _hyp2f1_terminal(a, b, c, x):
    """2F1 when a or b is a non-positive integer: its Taylor series is then a polynomial
    (Pearson, Olver and Porter, eq. 4.1). The integer of larger magnitude bounds the loop,
    unless c is a non-positive integer it would pass."""
    eps = jnp.finfo(x.dtype).eps * 50
    swap = (b < a) & (jnp.abs(b - jnp.round(b)) < eps) & ~((c % 1 == 0) & (c <= 0) & (c > b))
    a, b = jnp.abs(jnp.where(swap, b, a)), jnp.where(swap, a, b)

    def body(i, state):
        total, term = state
        term = term * (-(a - i + 1) / (c + i - 1) * (b + i - 1) / i * x)
        return total + term, term

    one = jnp.array(1, dtype=x.dtype)
    return fori_loop(jnp.array(1, dtype=a.dtype), a + 1, body, (one, one))[0]


def _hyp2f1_series(a, b, c, x):
    """2F1 by its Taylor series, until a term is below epsilon relative to the sum."""
    rtol = jnp.finfo(x.dtype).eps

    def body(state):
        total, k, term = state
        return total + term, k + 1, term * ((a + k - 1) * (b + k - 1) / (c + k - 1) / k * x)

    def keep_going(state):
        total, k, term = state
        return (k < 250) & (lax.abs(term) > rtol * lax.abs(total))

    zero, one = jnp.array(0, dtype=x.dtype), jnp.array(1, dtype=x.dtype)
    return while_loop(keep_going, body, (zero, one, one))[0]


def _hyp2f1_digamma_transform(a, b, c, x):
    """2F1 near x = 1 when c - a - b is an integer, by the expansions in 1 - x with digammas
    (Abramowitz and Stegun 15.3.10 to 15.3.12)."""
    rtol = jnp.finfo(x.dtype).eps
    digamma = scipy_special.digamma
    d = c - a - b
    s = 1 - x
    rd = jnp.round(d)
    zero = jnp.array(0, dtype=d.dtype)
    e, d1, d2 = jnp.where(rd >= 0, d, -d), jnp.where(rd >= 0, d, zero), jnp.where(rd >= 0, zero, d)
    ard = jnp.where(rd >= 0, rd, -rd).astype("int32")
    log_s = jnp.log(s)
    y = digamma(1.0) + digamma(1.0 + e) - digamma(a + d1) - digamma(b + d1) - log_s
    y = y / gamma(e + 1.0)
    p = (a + d1) * (b + d1) * s / gamma(e + 2.0)

    def body(state):
        p, q, t, y = state
        r = (digamma(1.0 + t) + digamma(1.0 + t + e) - digamma(a + t + d1)
             - digamma(b + t + d1) - log_s)
        q = p * r
        y = y + q
        p = p * (s * (a + t + d1) / (t + 1.0))
        p = p * ((b + t + d1) / (t + 1.0 + e))
        return p, q, t + 1.0, y

    def keep_going(state):
        p, q, t, y = state
        return (t < 250) & (jnp.abs(q) >= rtol * jnp.abs(y))

    _, _, _, y = while_loop(keep_going, body, (p, y, jnp.array(1, dtype=x.dtype), y))

    def finite_sum(y):
        def for_body(i, state):
            p, t, y1 = state
            r = 1.0 - e + t
            p = p * (s * (a + t + d2) * (b + t + d2) / r)
            t = t + 1.0
            p = p / t
            return p, t, y1 + p

        one = jnp.array(1, dtype=x.dtype)
        y1 = fori_loop(1, ard, for_body, (one, jnp.array(0, dtype=x.dtype), one))[-1]
        gc = gamma(c)
        y1 = y1 * (gamma(e) * gc / (gamma(a + d1) * gamma(b + d1)))
        y = y * (gc / (gamma(a + d2) * gamma(b + d2)))
        y = jnp.where((ard & 1) != 0, -y, y)
        q = s ** rd
        return jnp.where(rd > 0, y * q + y1, y + y1 * q)

    return jnp.where(rd == 0, y * gamma(c) / (gamma(a) * gamma(b)), finite_sum(y))


def _hyp2f1_terminal_or_series(a, b, c, x):
    """The series, its terminating form, or the digamma transform (x > 0.9 with c - a - b an
    integer), as a `select_n` of all three."""
    eps = jnp.finfo(x.dtype).eps * 50
    d = c - a - b
    neg_int_a = (a <= 0) & (jnp.abs(a - jnp.round(a)) < eps)
    neg_int_b = (b <= 0) & (jnp.abs(b - jnp.round(b)) < eps)
    neg_int = neg_int_a | neg_int_b
    index = jnp.where((x > 0.9) & ~neg_int, jnp.where(jnp.abs(d - jnp.round(d)) >= eps, 0, 1),
                      jnp.where(neg_int, 2, 0))
    return lax.select_n(index, _hyp2f1_series(a, b, c, x),
                        _hyp2f1_digamma_transform(a, b, c, x), _hyp2f1_terminal(a, b, c, x))


def _hyp2f1_derivative(shift):
    """d 2F1 / dp for p one of a, b, c: the series whose terms carry `shift(a, b, c, k)`."""
    @jit
    @vectorize
    def derivative(a, b, c, x):
        return _series_sum(x, a * b / c * x, (
            lambda s, t, k: s + t * shift(a, b, c, k),
            lambda t, k: t * ((a + k) * (b + k) / (c + k) / (k + 1) * x)), 0)
    return derivative


_digamma = scipy_special.digamma
_hyp2f1_a_derivative = _hyp2f1_derivative(lambda a, b, c, k: _digamma(a + k) - _digamma(a))
_hyp2f1_b_derivative = _hyp2f1_derivative(lambda a, b, c, k: _digamma(b + k) - _digamma(b))
_hyp2f1_c_derivative = _hyp2f1_derivative(lambda a, b, c, k: _digamma(c) - _digamma(c + k))


@jit
def _hyp2f1_x_derivative(a, b, c, x):
    return a * b / c * hyp2f1(a + 1, b + 1, c + 1, x)      # d 2F1(a, b; c; x) / dx


@custom_jvp
@jit
@vectorize
def hyp2f1(a, b, c, x):
    """Gauss's hypergeometric function 2F1(a, b; c; x), for real arguments."""
    a, b, c, x = promote_args_inexact("hyp2f1", a, b, c, x)
    eps = jnp.finfo(x.dtype).eps * 50
    d, s, ca, cb = c - a - b, 1 - x, c - a, c - b
    index = jnp.where(
        (x == 0) | (((a == 0) | (b == 0)) & (c != 0)), 0, jnp.where(
            (c == 0) | ((c < 0) & (c % 1 == 0)), 1, jnp.where(
                (d <= -1) & ~((jnp.abs(d - jnp.round(d)) >= eps) & (s < 0)), 2, jnp.where(
                    (d <= 0) & (x == 1), 1, jnp.where(
                        (x < 1) & (b == c), 3, jnp.where(
                            (x < 1) & (a == c), 4, jnp.where(
                                x > 1, 1, jnp.where(x == 1, 5, 6))))))))
    return lax.select_n(index, jnp.array(1, dtype=x.dtype), jnp.array(np.inf, dtype=x.dtype),
                        s ** d * _hyp2f1_terminal_or_series(ca, cb, c, x), s ** (-a), s ** (-b),
                        gamma(c) * gamma(d) / (gamma(ca) * gamma(cb)),
                        _hyp2f1_terminal_or_series(a, b, c, x))


hyp2f1.defjvps(lambda t, ans, a, b, c, x: _hyp2f1_a_derivative(a, b, c, x) * t,
               lambda t, ans, a, b, c, x: _hyp2f1_b_derivative(a, b, c, x) * t,
               lambda t, ans, a, b, c, x: _hyp2f1_c_derivative(a, b, c, x) * t,
               lambda t, ans, a, b, c, x: _hyp2f1_x_derivative(a, b, c, x) * t)
scipy_special.more_functions["hyp2f1"] = hyp2f1


def _legendre_recurrence_coefficients(l_max, dtype):
    """The coefficients of the normalized recurrence P_l^m = d0 x P_{l-1}^m - d1 P_{l-2}^m, laid
    out per step i as [i, m, l] arrays, nonzero where l = i + m (and l > m, l > m + 1)."""
    m_mat, l_mat = jnp.meshgrid(jnp.arange(l_max + 1, dtype=dtype),
                                jnp.arange(l_max + 1, dtype=dtype), indexing="ij")
    c0, c1, c2, c3 = l_mat * l_mat, m_mat * m_mat, 2.0 * l_mat, (l_mat - 1.0) * (l_mat - 1.0)
    d0 = jnp.sqrt((4.0 * c0 - 1.0) / (c0 - c1))
    d1 = jnp.sqrt(((c2 + 1.0) * (c3 - c1)) / ((c2 - 3.0) * (c0 - c1)))
    d0 = jnp.where(l_mat - m_mat >= 1, d0, jnp.zeros_like(d0))
    d1 = jnp.where(l_mat - m_mat >= 2, d1, jnp.zeros_like(d1))
    i, j, k = (lax.broadcasted_iota(np.int32, (l_max + 1,) * 3, axis) for axis in range(3))
    on_step = (i + j - k == 0).astype(dtype)
    return d0[None] * on_step, d1[None] * on_step


@functools.partial(jit, static_argnums=0)
def _normalized_legendre(l_max, x):
    """The normalized associated Legendre functions P_l^m(x), m, l <= l_max, as an array
    [m, l, len(x)]: the diagonal in closed form, the first off-diagonal from it, then the
    recurrence in l, one step per `fori_loop` iteration."""
    p = jnp.zeros((l_max + 1, l_max + 1, x.shape[0]), dtype=x.dtype)
    a_idx = jnp.arange(1, l_max + 1, dtype=x.dtype)
    b_idx = jnp.arange(l_max, dtype=x.dtype)
    initial_value = 0.5 / jnp.sqrt(np.pi)                 # P_0^0
    f_a = jnp.cumprod(-1 * jnp.sqrt(1.0 + 0.5 / a_idx))
    f_b = jnp.sqrt(2.0 * b_idx + 3.0)
    p = p.at[0, 0].set(initial_value)
    y = jnp.cumprod(jnp.broadcast_to(jnp.sqrt(1.0 - x * x), (l_max, x.shape[0])), axis=0)
    diag = jnp.arange(l_max + 1)
    p = p.at[diag[1:], diag[1:]].set(initial_value * (f_a[:, None] * y))
    p = p.at[diag[:l_max], diag[:l_max] + 1].set(
        (f_b[:, None] * x[None, :]) * p[diag[:l_max], diag[:l_max]])
    d0, d1 = _legendre_recurrence_coefficients(l_max, x.dtype)

    def step(i, p):
        return p + (d0[i][:, :, None] * (jnp.roll(p, 1, axis=1) * x)
                    - d1[i][:, :, None] * jnp.roll(p, 2, axis=1))

    p = p.astype(jnp.result_type(p, x, d0))
    return fori_loop(2, l_max + 1, step, p) if l_max > 1 else p


@functools.partial(jit, static_argnums=4)
def _sph_harm(n, m, theta, phi, n_max):
    legendre = _normalized_legendre(n_max, jnp.cos(theta))
    value = legendre.at[abs(m), n, jnp.arange(len(n))].get(mode="clip")
    angle = abs(m) * phi
    turn = lax.complex(jnp.cos(angle), jnp.sin(angle))
    harmonics = lax.complex(value * jnp.real(turn), value * jnp.imag(turn))
    return jnp.where(m < 0, (-1.0) ** abs(m) * jnp.conjugate(harmonics), harmonics)


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonics Y_n^m(theta, phi), theta the colatitude, phi the longitude;
    `n_max`, the largest degree in `n`, must be static under a transformation."""
    if diff_n is not None:
        raise NotImplementedError(
            "The 'diff_n' argument to jax.scipy.special.sph_harm_y is not supported.")
    if jnp.isscalar(theta):
        theta = jnp.array([theta])
    if n_max is None:
        n_max = np.max(n)
    n_max = _static_int(n_max, "The `n_max` argument of `jnp.scipy.special.sph_harm` must be "
                        "statically specified to use `sph_harm` within JAX transformations.")
    return _sph_harm(n, m, theta, phi, n_max)


scipy_special.more_functions["sph_harm_y"] = api_boundary(sph_harm_y)


from autodidax.distributions import choice
from autodidax.numpy.linalg import lax_cholesky, multivariate_normal, triangular_solve
from autodidax.prng import split
from autodidax.tree_util import register_pytree_node_class


def _cho_factor(a):
    """The upper Cholesky factor of `a` and `False` (`jax.scipy.linalg.cho_factor`)."""
    return jnp.conj(lax_cholesky(jnp.conj(a.T), symmetrize_input=False).T), False


def _cho_solve(c_and_lower, b):
    """x with a x = b, given a's upper Cholesky factor: two triangular solves."""
    c, _ = c_and_lower
    b = triangular_solve(c, b, left_side=True, lower=False, transpose_a=True,
                         conjugate_a=True)
    return triangular_solve(c, b, left_side=True, lower=False)


def _gaussian_kernel_convolve(chol, norm, target, weights, mean):
    """The weighted sum of the Gaussian kernels of covariance `chol`'s matrix at `mean`."""
    diff = target - mean[:, None]
    arg = 0.5 * jnp.sum(diff * _cho_solve(chol, diff), axis=0)
    return norm * jnp.sum(jnp.exp(-arg) * weights)


@functools.partial(jit, static_argnums=0)
def _gaussian_kernel_eval(in_log, points, values, xi, precision):
    """Per row of `xi`, the `values`-weighted sum of the Gaussian kernels of precision
    `precision` at `points` (its logarithm, by `logsumexp`, if `in_log`)."""
    points, values, xi, precision = jnp.promote_dtypes(points, values, xi, precision,
                                                       inexact=True)
    d = points.shape[1]
    if xi.shape[1] != d:
        raise ValueError("points and xi must have same trailing dim")
    if precision.shape != (d, d):
        raise ValueError("precision matrix must match data dims")
    whitening = lax_cholesky(precision, symmetrize_input=False)
    points, xi = jnp.dot(points, whitening), jnp.dot(xi, whitening)
    log_norm = jnp.sum(jnp.log(jnp.diag(whitening))) - 0.5 * d * jnp.log(2 * np.pi)

    def kernel(x_test, x_train, y_train):
        arg = log_norm - 0.5 * jnp.sum(jnp.square(x_train - x_test))
        return jnp.log(y_train) + arg if in_log else y_train * jnp.exp(arg)

    reduce = scipy_special.logsumexp if in_log else jnp.sum
    return vmap(lambda x: reduce(vmap(kernel, in_axes=(None, 0, 0))(x, points, values),
                                 axis=0))(xi)


@register_pytree_node_class
class gaussian_kde:
    """A Gaussian kernel density estimate of the columns of `dataset` (d rows, n points), with a
    bandwidth by Scott's or Silverman's rule, a scalar or a callable, and optional weights."""

    def __init__(self, dataset, bw_method=None, weights=None):
        jnp.check_arraylike("gaussian_kde", dataset)
        dataset = jnp.atleast_2d(dataset)
        if dtype_kind(dataset.dtype) == "c":
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not dataset.size > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = dataset.shape
        if weights is not None:
            jnp.check_arraylike("gaussian_kde", weights)
            dataset, weights = jnp.promote_dtypes(dataset, weights, inexact=True)
            weights = jnp.atleast_1d(weights)
            weights = weights / jnp.sum(weights)
            if weights.ndim != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        else:
            dataset, = jnp.promote_dtypes(dataset, inexact=True)
            weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
        self.dataset, self.weights = dataset, weights
        self.neff = 1 / jnp.sum(weights ** 2)
        bw_method = "scott" if bw_method is None else bw_method
        if isinstance(bw_method, str) and bw_method == "scott":
            factor = jnp.power(self.neff, -1. / (d + 4))
        elif isinstance(bw_method, str) and bw_method == "silverman":
            factor = jnp.power(self.neff * (d + 2) / 4.0, -1. / (d + 4))
        elif jnp.isscalar(bw_method) and not isinstance(bw_method, str):
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a "
                             "callable.")
        data_covariance = jnp.atleast_2d(jnp.cov(dataset, rowvar=1, bias=False,
                                                 aweights=weights))
        self.covariance = data_covariance * factor ** 2
        self.inv_cov = jnp.linalg.inv(data_covariance) / factor ** 2

    def tree_flatten(self):
        return (self.neff, self.dataset, self.weights, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        kde = cls.__new__(cls)
        kde.neff, kde.dataset, kde.weights, kde.covariance, kde.inv_cov = children
        return kde

    @property
    def d(self):
        return self.dataset.shape[0]

    @property
    def n(self):
        return self.dataset.shape[1]

    def evaluate(self, points):
        """The estimated density at the columns of `points`."""
        jnp.check_arraylike("evaluate", points)
        points = self._reshape_points(points)
        return _gaussian_kernel_eval(False, self.dataset.T, self.weights[:, None], points.T,
                                     self.inv_cov)[:, 0]

    __call__ = pdf = evaluate

    def logpdf(self, x):
        """The logarithm of the estimated density at the columns of `x`."""
        jnp.check_arraylike("logpdf", x)
        x = self._reshape_points(x)
        return _gaussian_kernel_eval(True, self.dataset.T, self.weights[:, None], x.T,
                                     self.inv_cov)[:, 0]

    def _norm_and_chol(self, cov):
        chol = _cho_factor(self.covariance + cov)
        return 1.0 / (jnp.sqrt(2 * np.pi) ** self.d * jnp.prod(jnp.diag(chol[0]))), chol

    def integrate_gaussian(self, mean, cov):
        """The integral of the density times the Gaussian of `mean` and `cov`."""
        mean, cov = jnp.atleast_1d(jnp.squeeze(mean)), jnp.atleast_2d(cov)
        if mean.shape != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if cov.shape != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        norm, chol = self._norm_and_chol(cov)
        return _gaussian_kernel_convolve(chol, norm, self.dataset, self.weights, mean)

    @jit
    def integrate_box_1d(self, low, high):
        """The integral of a 1-D density from `low` to `high`."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = jnp.squeeze(jnp.sqrt(self.covariance))
        low = jnp.squeeze((low - self.dataset) / sigma)
        high = jnp.squeeze((high - self.dataset) / sigma)
        ndtr = scipy_special.ndtr
        return jnp.sum(self.weights * (ndtr(high) - ndtr(low)))

    def integrate_kde(self, other):
        """The integral of the product of this density and `other`'s."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        norm, chol = self._norm_and_chol(other.covariance)
        small, large = (self, other) if self.n < other.n else (other, self)
        result = vmap(functools.partial(_gaussian_kernel_convolve, chol, norm, large.dataset,
                                        large.weights), in_axes=1)(small.dataset)
        return jnp.sum(result * small.weights)

    @functools.partial(jit, static_argnames=("shape",))
    def resample(self, key, shape=()):
        """Points drawn from the density: a data point chosen by weight, plus Gaussian noise of
        the kernel's covariance; shape `(d,) + shape`."""
        ind_key, eps_key = split(key)
        ind = choice(ind_key, self.n, shape=shape, p=self.weights)
        eps = multivariate_normal(eps_key, jnp.zeros(self.d, self.covariance.dtype),
                                  self.covariance, shape=shape, dtype=self.dataset.dtype).T
        return self.dataset[:, ind] + eps

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        raise NotImplementedError("only 1D box integrations are supported; use "
                                  "`integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")

    def _reshape_points(self, points):
        if dtype_kind(jnp.asarray(points).dtype) == "c":
            raise NotImplementedError("gaussian_kde does not support complex coordinates")
        points = jnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                points = jnp.reshape(points, (self.d, 1))
            else:
                raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points


scipy_stats.more_functions["gaussian_kde"] = gaussian_kde
