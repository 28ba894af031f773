"""Conformance cases for appendix A26 (autodidax/special_functions.py: lax's special-function
primitives, the rest of jax.scipy.special, jnp.i0) and for appendix A2's later jax.nn names,
against JAX. Same harness as tests/test_conformance.py. The cases gather many functions each,
and run the costly ones under jit: each primitive evaluated eagerly is compiled alone."""
import numpy as np
import pytest

from test_conformance import B, C, E, J, _params, check

X = np.array([-3.5, -2.0, -0.5, -0.0, 0.0, 0.3, 1.0, 2.5, 7.0, 30.0], np.float32)
A = np.array([0.5, 1.0, 2.5, 10.0, 0.1, 3.0, 0.0, -1.0, 50.0, 2.0], np.float32)
Z = np.array([0.3, 2.0, 1.0, 12.0, 5.0, 3.0, 1.0, 1.0, 45.0, np.inf], np.float32)
U = np.array([0.3, 0.9, 0.5, 0.7, 0.01, 1.0, 0.0, 0.5, 0.5, 0.2], np.float32)
P = np.abs(X)
M = (np.arange(24, dtype=np.float32).reshape(4, 6) - 9) / 4
RNG = np.random.RandomState(0)
Q, K, V = (RNG.randn(2, 5, 4, 8).astype(np.float32), RNG.randn(2, 6, 2, 8).astype(np.float32),
           RNG.randn(2, 6, 2, 8).astype(np.float32))
BIAS = RNG.randn(2, 1, 5, 6).astype(np.float32)
MASK = RNG.rand(2, 4, 5, 6) > 0.3
GRAD = dict(rtol=2e-5, atol=1e-6)


def _lax_all(jax, a, z, u, x):
    lax = jax.lax
    return {"igamma": lax.igamma(a, z), "igammac": lax.igammac(a, z),
            "igamma_grad_a": lax.igamma_grad_a(a, z), "betainc": lax.betainc(a, z, u),
            "i0e": lax.bessel_i0e(x), "i1e": lax.bessel_i1e(x),
            "zeta": lax.zeta(jax.numpy.abs(x) + 1.5, z + 0.1)}


def _lax_grads(jax):
    lax, g = jax.lax, lambda f, *a, n=0: jax.vmap(jax.grad(f, argnums=n))(*a)
    return [g(lax.igamma, A[:6], Z[:6], n=(0, 1)), g(lax.igammac, A[:6], Z[:6], n=(0, 1)),
            g(lambda x: lax.betainc(np.float32(2.0), np.float32(3.0), x), U[:5]),
            g(lax.bessel_i0e, X), g(lax.bessel_i1e, X)]


LAX = {
    "values": B(lambda jax, jnp: _lax_all(jax, A, Z, U, X)),
    "values float16": B(lambda jax, jnp: (jax.lax.igamma(A.astype(np.float16), Z.astype(
        np.float16)), jax.lax.bessel_i0e(X.astype(np.float16)))),
    "scalar broadcast and vmap": B(lambda jax, jnp: jax.jit(lambda: (
        jax.lax.igamma(np.float32(2.5), Z), jax.vmap(jax.lax.igammac, (0, None))(
            A.reshape(5, 2), Z[:2]), jax.vmap(jax.lax.zeta, (None, 0))(
            np.float32(2.0), jnp.asarray(Z).reshape(2, 5))))()),
    "grads under jit": C(lambda jax, jnp: jax.jit(lambda: _lax_grads(jax))(), **GRAD),
    "igamma_grad_a has no jvp": E(lambda jax, jnp: jax.grad(jax.lax.igamma_grad_a)(2.0, 1.0)),
    "betainc grad a": E(lambda jax, jnp: jax.grad(jax.lax.betainc)(
        np.float32(2.0), np.float32(3.0), np.float32(0.5))),
    "zeta no jvp": E(lambda jax, jnp: jax.grad(jax.lax.zeta)(2.0, 1.0)),
    "igamma jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jax.lax.igamma)(A, Z)),
    "igamma weak jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda a: jax.lax.igamma(a, 2.0))(1.0)),
    "betainc jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jax.lax.betainc)(A, Z, U)),
    "bessel_i0e jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jax.lax.bessel_i0e)(X)),
    "dtypes differ": E(lambda jax, jnp: jax.lax.igamma(A, Z.astype(np.float16))),
    "ints": E(lambda jax, jnp: jax.lax.igamma(np.int32(1), np.int32(2))),
    "int unary": E(lambda jax, jnp: jax.lax.bessel_i1e(np.arange(3))),
    "shapes": E(lambda jax, jnp: jax.lax.igamma(A, Z[:3])),
}

_S = [("gammainc", (P, Z)), ("gammaincc", (P, Z)), ("betainc", (Z, P + 1, U)),
      ("i0", (X,)), ("i0e", (X,)), ("i1", (X,)), ("i1e", (X,)), ("zeta", (P + 1.5, Z + 0.1)),
      ("gamma", (X,)), ("gammasgn", (X,)), ("factorial", (X,)), ("poch", (P, Z)),
      ("entr", (X,)), ("rel_entr", (P, U)), ("kl_div", (P, U)), ("boxcox", (P, X)),
      ("boxcox1p", (P, X)), ("softmax", (M,)), ("log_softmax", (M,)), ("beta", (X, Z)),
      ("betaln", (P + 0.5, Z * 100)), ("loggamma", (X,)), ("comb", (Z, P)), ("erfcx", (X,)),
      ("spence", (P,)), ("dawsn", (X,))]


_FEW = ("gammainc", "i0", "entr", "rel_entr", "erfcx", "dawsn")


def _special_grads(jax, jnp, x):
    s = jax.scipy.special
    fs = [s.gamma, s.entr, jnp.i0, s.erfcx, s.dawsn, lambda a: s.gammainc(a, np.float32(2.0)),
          lambda x: s.poch(x, np.float32(1.5))]
    return [jax.vmap(jax.grad(f))(x) for f in fs]


SPECIAL = {
    "values": B(lambda jax, jnp: {n: getattr(jax.scipy.special, n)(*a) for n, a in _S
                                  if n in _FEW}),
    "values under jit": B(lambda jax, jnp: jax.jit(lambda: {
        n: getattr(jax.scipy.special, n)(*map(jnp.asarray, a)) for n, a in _S})()),
    "of Python scalars and ints": B(lambda jax, jnp: jax.jit(lambda: {n: (
        getattr(jax.scipy.special, n)(*[1.5] * len(a)),
        getattr(jax.scipy.special, n)(*[jnp.arange(1, 4)] * len(a))) for n, a in _S
        if n in _FEW})()),
    "softmax axes and multigammaln": B(lambda jax, jnp: (
        jax.scipy.special.softmax(M, axis=1), jax.scipy.special.log_softmax(M, axis=0),
        jax.scipy.special.multigammaln(Z[:-1] + 2, 3))),
    "grads under jit": C(lambda jax, jnp: jax.jit(lambda x: _special_grads(jax, jnp, x))(X[4:]),
                         **GRAD),
    "spence eagerly": C(lambda jax, jnp: jax.scipy.special.spence(P), rtol=2e-7, atol=0),
    "spence of ints": E(lambda jax, jnp: jax.scipy.special.spence(np.arange(3))),
    "comb with repetition, bernoulli": B(lambda jax, jnp: jax.jit(lambda: (
        jax.scipy.special.comb(jnp.asarray(Z), jnp.asarray(P), repetition=True),
        jax.scipy.special.bernoulli(6), jax.scipy.special.bernoulli(1)))()),
    "bernoulli of a negative n": E(lambda jax, jnp: jax.scipy.special.bernoulli(-1)),
    "zeta without q": E(lambda jax, jnp: jax.scipy.special.zeta(2.0)),
    "factorial exact": E(lambda jax, jnp: jax.scipy.special.factorial(3, exact=True)),
    "i0 jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jax.scipy.special.i0)(X)),
    "gammainc jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jax.scipy.special.gammainc)(2.5, X)),
    "jnp.i0": B(lambda jax, jnp: (jnp.i0(X), jnp.i0(np.arange(4)), jnp.i0(2.0))),
    "jnp.i0 jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jnp.i0)(X)),
    "jnp.i0 complex": E(lambda jax, jnp: jnp.i0(np.complex64(1j))),
}

_NN = ["identity", "hard_tanh", "hard_sigmoid", "hard_silu", "hard_swish", "selu", "mish",
       "soft_sign", "squareplus", "sparse_plus", "sparse_sigmoid", "log1mexp"]


def _attention(jax, **kw):
    return jax.jit(lambda q, k, v: jax.nn.dot_product_attention(q, k, v, **kw))(Q, K, V)


NN = {
    "values": B(lambda jax, jnp: {n: getattr(jax.nn, n)(X) for n in _NN}),
    "of a Python scalar": B(lambda jax, jnp: {n: getattr(jax.nn, n)(2.0) for n in _NN}),
    "grads under jit": C(lambda jax, jnp: jax.jit(lambda x: {
        n: jax.vmap(jax.grad(getattr(jax.nn, n)))(x) for n in _NN})(X), **GRAD),
    **{f"{n} jaxpr": J(lambda jax, jnp, n=n: jax.make_jaxpr(getattr(jax.nn, n))(X))
       for n in ("identity", "hard_tanh", "soft_sign", "squareplus", "sparse_plus",
                 "sparse_sigmoid", "log1mexp", "selu")},
    # JAX's jax.nn refuses lists (ensure_arraylike), each with the name of the function that does
    **{f"{n} of a list": E(lambda jax, jnp, n=n: getattr(jax.nn, n)([0.5, 2.0]))
       for n in _NN + ["relu", "relu6", "silu", "elu", "leaky_relu", "log_sigmoid", "log_softmax",
                       "glu"]},
    "squareplus of a list b": E(lambda jax, jnp: jax.nn.squareplus(X, [1.0, 2.0])),
    "glu and logmeanexp": B(lambda jax, jnp: (
        jax.nn.squareplus(X, 0.5), jax.nn.glu(M), jax.nn.glu(M, axis=0), jax.nn.logmeanexp(M),
        jax.nn.logmeanexp(M, axis=1, keepdims=True),
        jax.nn.logmeanexp(M, axis=0, where=M > 0))),
    "glu odd": E(lambda jax, jnp: jax.nn.glu(M[:3], axis=0)),
    "attention": B(lambda jax, jnp: jax.nn.dot_product_attention(
        Q[:1, :3, :2, :4], K[:1, :3, :1, :4], V[:1, :3, :1, :4], is_causal=True)),
    "attention under jit": C(lambda jax, jnp: _attention(jax)),
    "attention bias, mask, lengths, window": C(lambda jax, jnp: (
        jax.jit(lambda q, b, m: jax.nn.dot_product_attention(q, K, V, b, m, scale=0.5))(
            Q, BIAS, MASK),
        _attention(jax, local_window_size=(1, 2), query_seq_lengths=np.array([3, 5], np.int32),
                   key_value_seq_lengths=np.array([6, 2], np.int32)))),
    "attention residual, unbatched": C(lambda jax, jnp: (
        _attention(jax, implementation="xla", return_residual=True),
        jax.jit(jax.nn.dot_product_attention)(Q[0], K[0], V[0]))),
    "attention grad": C(lambda jax, jnp: jax.jit(jax.grad(lambda q: jax.nn.dot_product_attention(
        q, K, V, is_causal=True).sum()))(Q), rtol=1e-5, atol=1e-5),
    "attention heads": E(lambda jax, jnp: jax.nn.dot_product_attention(Q[:, :, :3], K, V)),
    "attention dtypes": E(lambda jax, jnp: jax.nn.dot_product_attention(
        Q, K, V.astype(np.float16))),
    "attention mask dtype": E(lambda jax, jnp: jax.nn.dot_product_attention(
        Q, K, V, mask=MASK.astype(np.int32))),
    "get_scaled_dot_general_config": C(lambda jax, jnp: [
        (c.mode, c.block_size, np.dtype(c.data_type).name, np.dtype(c.scale_type).name,
         c.global_scale, c.infer_only, type(c).__name__)
        for c in (jax.nn.get_scaled_dot_general_config("nvfp4"),
                  jax.nn.get_scaled_dot_general_config("mxfp8"))]),
    "get_scaled_dot_general_config mode": E(
        lambda jax, jnp: jax.nn.get_scaled_dot_general_config("fp8")),
    "attention implementation": E(lambda jax, jnp: jax.nn.dot_product_attention(
        Q, K, V, implementation="flash")),
}


Q01 = np.array([0.0, 0.1, 0.5, 0.9, 1.0, 1.5, np.nan], np.float32)
KS = np.array([-1.0, 0.0, 1.0, 2.0, 3.5, 5.0, 12.0], np.float32)
_DISTRIBUTIONS = {
    "expon": [("logpdf", (X,)), ("pdf", (X, 0.5, 2.0)), ("cdf", (X,)), ("logcdf", (X,)),
              ("sf", (X,)), ("logsf", (X,)), ("ppf", (Q01,))],
    "uniform": [("logpdf", (X, 0.0, 2.0)), ("pdf", (X,)), ("cdf", (X, 0.0, 2.0)),
                ("ppf", (Q01, 1.0, 2.0))],
    "logistic": [("logpdf", (X,)), ("pdf", (X,)), ("cdf", (X,)), ("sf", (X,)), ("ppf", (Q01,)),
                 ("isf", (Q01,))],
    "laplace": [("logpdf", (X,)), ("pdf", (X, 1.0, 2.0)), ("cdf", (X,))],
    "cauchy": [("logpdf", (X,)), ("pdf", (X,)), ("cdf", (X,)), ("logcdf", (X,)), ("sf", (X,)),
               ("logsf", (X,)), ("ppf", (Q01,)), ("isf", (Q01,))],
    "gamma": [("logpdf", (X, 2.0)), ("pdf", (X, 0.5)), ("cdf", (X, 2.0)), ("sf", (X, 2.0))],
    "chi2": [("logpdf", (X, 3.0)), ("pdf", (X, 3.0)), ("cdf", (X, 3.0)), ("logsf", (X, 3.0))],
    "beta": [("logpdf", (Q01, 2.0, 3.0)), ("pdf", (Q01, 2.0, 3.0)), ("logcdf", (Q01, 2.0, 3.0)),
             ("sf", (Q01, 2.0, 3.0))],
    "t": [("logpdf", (X, 3.0)), ("pdf", (X, 3.0))],
    "poisson": [("logpmf", (KS, 3.0)), ("pmf", (KS, 3.0)), ("cdf", (KS, 3.0))],
    "bernoulli": [("logpmf", (KS, 0.3)), ("pmf", (KS, 0.3)), ("cdf", (KS, 0.3)),
                  ("ppf", (Q01, 0.3))],
}
R = np.array([[3.0, 1.0, 3.0, 2.0], [0.0, 0.0, 5.0, -1.0]], np.float32)

STATS = {
    "distributions under jit": B(lambda jax, jnp: jax.jit(lambda: {
        (d, f): getattr(getattr(jax.scipy.stats, d), f)(*map(jnp.asarray, a))
        for d, fs in _DISTRIBUTIONS.items() for f, a in fs})()),
    "of Python scalars": B(lambda jax, jnp: jax.jit(lambda: (
        jax.scipy.stats.gamma.cdf(1.0, 2.0), jax.scipy.stats.expon.logpdf(1.0),
        jax.scipy.stats.beta.pdf(0.5, 2, 3)))()),
    "grads": C(lambda jax, jnp: jax.jit(lambda x: (
        jax.vmap(jax.grad(lambda v: jax.scipy.stats.gamma.logpdf(v, 2.0)))(x),
        jax.vmap(jax.grad(lambda v: jax.scipy.stats.t.logpdf(v, 3.0)))(x)))(X[5:]), **GRAD),
    "rankdata": B(lambda jax, jnp: [jax.scipy.stats.rankdata(R, m) for m in (
        "average", "max", "dense", "ordinal")]),
    "rankdata axis and nan": B(lambda jax, jnp: (
        jax.scipy.stats.rankdata(R, "min", axis=0),
        jax.scipy.stats.rankdata(np.array([1.0, np.nan])))),
    "rankdata method": E(lambda jax, jnp: jax.scipy.stats.rankdata(R, "middle")),
    "rankdata nan_policy": E(lambda jax, jnp: jax.scipy.stats.rankdata(R, nan_policy="omit")),
    "sem": B(lambda jax, jnp: (jax.scipy.stats.sem(R), jax.scipy.stats.sem(R, axis=1),
                               jax.scipy.stats.sem(R, axis=None),
                               jax.scipy.stats.sem(R, ddof=0, keepdims=True),
                               jax.scipy.stats.sem(np.array([1.0, np.nan, 3.0, 4.0]),
                                                   nan_policy="omit"))),
    "mode": B(lambda jax, jnp: (jax.scipy.stats.mode(R, axis=1),
                                jax.scipy.stats.mode(R, axis=None, keepdims=True),
                                jax.scipy.stats.mode(np.zeros((0, 3))))),
    "mode nan_policy": E(lambda jax, jnp: jax.scipy.stats.mode(R, nan_policy="omit")),
    "sem nan_policy": E(lambda jax, jnp: jax.scipy.stats.sem(R, nan_policy="raise")),
}


@pytest.mark.parametrize("name", _params(STATS))
def test_scipy_stats(name):
    check(STATS[name])


@pytest.mark.parametrize("name", _params(LAX))
def test_lax_special(name):
    check(LAX[name])


@pytest.mark.parametrize("name", _params(SPECIAL))
def test_scipy_special(name):
    check(SPECIAL[name])


@pytest.mark.parametrize("name", _params(NN))
def test_nn(name):
    check(NN[name])


W = (X + 3j * U).astype(np.complex64)
_SPH_N, _SPH_M = np.array([0, 1, 2, 3, 4, 4, 2], np.int32), np.array([0, -1, 2, 1, -3, 4, 0],
                                                                      np.int32)
_HYP2F1 = np.array([[0.5, 1.0, 2.5, 0.0, -2.0, 3.0, 2.0, -1.0, 5.0, 2.0, 1.0, 0.3],
                    [1.5, 1.0, 0.5, 1.0, 0.5, 3.0, 2.0, 2.0, -3.0, 0.7, 2.0, 0.2],
                    [2.5, 3.0, 4.5, 1.0, 2.0, 3.0, -2.0, 2.0, 4.0, 0.7, 3.0, 1.5],
                    [-0.5, 0.3, 0.95, 0.2, 0.5, 0.99, 0.4, 1.0, 0.7, 0.8, 0.97, 1.0]], np.float32)
_EXPN_N = np.array([[0.0], [1.0], [2.0], [5.0]], np.float32)

MORE = {
    "kaiser": B(lambda jax, jnp: (jnp.kaiser(7, 4.0), jnp.kaiser(1, 2.0), jnp.kaiser(0, 2.0),
                                  jnp.kaiser(6, np.float32(0.5)))),
    "kaiser jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda b: jnp.kaiser(4, b))(
        np.float32(2.0))),
    "kaiser traced M": E(lambda jax, jnp: jax.jit(jnp.kaiser)(5, 1.0)),
    "wofz and complex erfcx under jit": B(lambda jax, jnp: jax.jit(lambda w, x: (
        jax.scipy.special.wofz(w), jax.scipy.special.wofz(jnp.conj(w)),
        jax.scipy.special.wofz(x), jax.scipy.special.erfcx(w)))(W, X)),
    "wofz of a Python float": B(lambda jax, jnp: jax.scipy.special.wofz(0.5)),
    "bessel_jn": B(lambda jax, jnp: (jax.scipy.special.bessel_jn(P + 0.1, v=3),
                                     jax.scipy.special.bessel_jn(M, v=1, n_iter=30))),
    "sici under jit": B(lambda jax, jnp: jax.jit(lambda x: (
        jax.scipy.special.sici(x), jax.scipy.special.sici(x * 1e9)))(
        np.append(X, [np.inf, -np.inf, 1e10]).astype(np.float32))),
    # JAX's E_n(x) differs from ours in the last bits, and its batched E_n from its own scalar
    # one (XLA compiles the loops otherwise): compared to a tolerance.
    "expi, exp1, expn under jit": C(lambda jax, jnp: jax.jit(lambda x, p: (
        jax.scipy.special.expi(x), jax.scipy.special.exp1(p),
        jax.scipy.special.expn(_EXPN_N, p), jax.scipy.special.expn(6000.0, p)))(X, P + 0.1),
        rtol=2e-6),
    "expn at scalars": C(lambda jax, jnp: [jax.scipy.special.expn(3, np.float32(v))
                                           for v in (0.5, 2.0)], rtol=2e-6),
    "grads": C(lambda jax, jnp: jax.jit(lambda x, w: [
        jax.vmap(jax.grad(f))(x) for f in (
            jax.scipy.special.expi, lambda v: jax.scipy.special.expn(2.0, v),
            lambda v: jax.scipy.special.sici(v)[0], lambda v: jax.scipy.special.sici(v)[1],
            lambda v: jax.scipy.special.wofz(v).imag)]
        + [jax.vmap(jax.grad(lambda v: jax.scipy.special.wofz(v).real, holomorphic=False))(
            x)])(P + 0.1, W), **GRAD),
    "fresnel under jit": B(lambda jax, jnp: jax.jit(lambda x: (
        jax.scipy.special.fresnel(x), jax.scipy.special.fresnel(x.astype(jnp.float16)),
        jax.scipy.special.fresnel(x * 1e4), jax.vmap(jax.grad(
            lambda v: jax.scipy.special.fresnel(v)[0]))(x)))(
        np.append(X, [np.inf, -np.inf]).astype(np.float32))),
    "fresnel complex": E(lambda jax, jnp: jax.scipy.special.fresnel(W)),
    "owens_t under jit": B(lambda jax, jnp: jax.jit(lambda h, a: (
        jax.scipy.special.owens_t(h, a), jax.scipy.special.owens_t(h[:, None], a[None]),
        jax.vmap(jax.grad(jax.scipy.special.owens_t, (0, 1)))(h, a)))(X, A)),
    "hyp1f1 under jit": B(lambda jax, jnp: jax.jit(lambda a, b, x: (
        jax.scipy.special.hyp1f1(a, b, x), jax.scipy.special.hyp1f1(a[:5], b[:5], x[:5] * 40),
        jax.vmap(jax.grad(jax.scipy.special.hyp1f1, (0, 1, 2)))(a + 0.5, b + 1.5, x)))(
        np.abs(A[:8]), U[:8] * 3, X[:8])),
    "hyp1f1 special cases and scalars": B(lambda jax, jnp: (
        jax.scipy.special.hyp1f1(np.float32([0.0, 2.0, 1.0]), np.float32([1.0, 2.0, 0.0]), X[:3]),
        jax.scipy.special.hyp1f1(0.5, 1.5, 2.0))),
    "hyp1f1 complex": E(lambda jax, jnp: jax.scipy.special.hyp1f1(W, W, W)),
    "hyp2f1 under jit": B(lambda jax, jnp: jax.jit(lambda a, b, c, x: (
        jax.scipy.special.hyp2f1(a, b, c, x),
        jax.vmap(jax.grad(jax.scipy.special.hyp2f1, 2))(
            jnp.abs(a[:4]) + 0.5, jnp.abs(b[:4]) + 0.5, jnp.abs(c[:4]) + 2, x[:4] * 0.5)))(
        *_HYP2F1)),
    "sph_harm_y": B(lambda jax, jnp: (
        jax.scipy.special.sph_harm_y(_SPH_N, _SPH_M, U[:7] * 3, Z[:7]),
        jax.jit(jax.scipy.special.sph_harm_y, static_argnames="n_max")(
            _SPH_N, _SPH_M, U[:7] * 3, Z[:7], n_max=6),
        jax.scipy.special.sph_harm_y(_SPH_N[:1], _SPH_M[:1], 0.5, np.float32(0.2)))),
    "sph_harm_y n_max traced": E(lambda jax, jnp: jax.jit(jax.scipy.special.sph_harm_y)(
        _SPH_N, _SPH_M, U[:7], Z[:7])),
    "sph_harm_y diff_n": E(lambda jax, jnp: jax.scipy.special.sph_harm_y(
        _SPH_N, _SPH_M, U[:7], Z[:7], diff_n=1)),
    "expi complex": E(lambda jax, jnp: jax.scipy.special.expi(W)),
    "exp1 complex": E(lambda jax, jnp: jax.scipy.special.exp1(W)),
    "expn complex": E(lambda jax, jnp: jax.scipy.special.expn(1, W)),
    "sici complex": E(lambda jax, jnp: jax.scipy.special.sici(W)),
}


KD = np.array([0.0, 0.5, 1.5, 3.0, 2.2, -1.0], np.float32)
KD2 = RNG.randn(2, 8).astype(np.float32)


def _kdes(jax):
    kde = jax.scipy.stats.gaussian_kde
    return (kde(KD), kde(KD2, bw_method="silverman"),
            kde(KD, weights=np.arange(1, 7, dtype=np.float32), bw_method=0.4))


MORE.update({
    "gaussian_kde, a pytree, under jit": B(lambda jax, jnp: jax.jit(lambda k1, k2, k3, p: (
        k1.pdf(p), k1.logpdf(p), k2(KD2[:, :3]), k3.evaluate(p), k1.integrate_box_1d(0.0, 1.0),
        k2.integrate_gaussian(np.zeros(2, np.float32), np.eye(2, dtype=np.float32)),
        k1.integrate_kde(k3), k1.resample(jax.random.key(0), (4,)),
        k2.resample(jax.random.key(1)), k1.neff, k2.covariance, k3.inv_cov))(
        *_kdes(jax), X[:5])),
    "gaussian_kde one point": E(lambda jax, jnp: jax.scipy.stats.gaussian_kde(np.ones(1))),
    "gaussian_kde bw_method": E(lambda jax, jnp: jax.scipy.stats.gaussian_kde(KD, "wide")),
    "gaussian_kde weights": E(lambda jax, jnp: jax.scipy.stats.gaussian_kde(KD, None, KD[:2])),
    "gaussian_kde points": E(lambda jax, jnp: _kdes(jax)[1].pdf(np.ones((3, 2)))),
    "gaussian_kde box 2-D": E(lambda jax, jnp: _kdes(jax)[1].integrate_box_1d(0.0, 1.0)),
    "gaussian_kde integrate_box": E(lambda jax, jnp: _kdes(jax)[0].integrate_box(0.0, 1.0)),
})


def _in_x64(fn):
    """`fn` run inside `jax.enable_x64(True)`, with float64 inputs."""
    def in_x64(jax, jnp):
        with jax.enable_x64(True):
            return fn(jax, jnp)
    return in_x64


X64 = np.array([-3.0, -0.5, 0.0, 0.3, 1.5, 3.0, 7.0, 20.0, 5e4, 1e8])

MORE.update({
    "64-bit paths under jit": B(_in_x64(lambda jax, jnp: jax.jit(lambda x: (
        jax.scipy.special.fresnel(x), jax.scipy.special.sici(x),
        jax.scipy.special.owens_t(x, jnp.abs(x)),
        jax.scipy.special.bessel_jn(jnp.abs(x[:8]) + 0.1, v=2), jnp.kaiser(6, 2.0),
        jnp.polyfit(x[:6], x[1:7], 2)))(X64))),
})


@pytest.mark.parametrize("name", _params(MORE))
def test_more_special(name):
    check(MORE[name])
