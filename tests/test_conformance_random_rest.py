"""Conformance cases for the rest of `jax.random` (appendix A14's later sections): the same
programs under JAX and autodidax, compared by the harness of `test_conformance.py` (read its
docstring for the case kinds C, B, E and J). Draws are compared bit for bit (B), floats
included: on the CPU, XLA's transcendental functions give both sides the same bits, since both
lower the same operations in the same order. Gradients of `gamma` are compared bit for bit too.
A few programs draw with two keys (a list), which JAX compiles once.

The cases are few for the loops (gamma, poisson, binomial): each costs seconds of compiling on
both sides. The draws built on gamma (beta, dirichlet, t, chisquare, f, generalized_normal,
ball), multinomial, and gamma in float16, in log space and under vmap, were compared bit for
bit with JAX when appendix A14 was written; the appendix's stored outputs keep them fixed.
`beta`'s gradient matches to float32 rounding (one ulp): the backward pass of its divisions
rounds differently."""
import numpy as np
import pytest

from test_conformance import B, E, J, check, _params  # noqa: F401

A4 = np.array([0.3, 1.0, 2.5, 7.0], np.float32)         # shape parameters: below and above 1
LAM = np.array([0.0, 0.5, 3.0, 12.0, 100.0], np.float32)  # Knuth below 10, rejection above
P4 = np.array([0.1, 0.5, 0.7, 0.3], np.float32)
# binomial: inversion and BTRS, p above 1/2 mirrored, and the invalid counts and p
N7 = np.array([5.0, 20.0, 100.0, 1000.0, -1.0, np.inf, 4.0], np.float32)
P7 = np.array([0.1, 0.5, 0.7, 0.3, 0.5, 0.5, np.nan], np.float32)


def _k(jax, seed=3):
    return jax.random.PRNGKey(seed)


def _two(jax, f):
    return [f(_k(jax, s)) for s in (0, 3)]


RANDOM_REST = {
    # formulas on one draw
    "cauchy": B(lambda jax, jnp: _two(jax, lambda k: jax.random.cauchy(k, (5,)))),
    "laplace": B(lambda jax, jnp: _two(jax, lambda k: jax.random.laplace(k, (5,)))),
    "logistic float16": B(lambda jax, jnp: jax.random.logistic(_k(jax), (5,), np.float16)),
    "pareto": B(lambda jax, jnp: jax.random.pareto(_k(jax), A4)),
    "rayleigh": B(lambda jax, jnp: jax.random.rayleigh(_k(jax), A4, (2, 4))),
    "wald": B(lambda jax, jnp: jax.random.wald(_k(jax), A4)),
    "triangular": B(lambda jax, jnp: jax.random.triangular(_k(jax), 0.0, 0.3, 1.0, (5,))),
    "lognormal": B(lambda jax, jnp: jax.random.lognormal(_k(jax), 0.5, (5,))),
    "lognormal default": B(lambda jax, jnp: jax.random.lognormal(_k(jax))),
    "maxwell": B(lambda jax, jnp: jax.random.maxwell(_k(jax), (5,))),
    "double_sided_maxwell": B(lambda jax, jnp: jax.random.double_sided_maxwell(
        _k(jax), 1.0, A4[:2], (3,))),
    "weibull_min": B(lambda jax, jnp: jax.random.weibull_min(_k(jax), 2.0, 1.5, (5,))),
    "rademacher": B(lambda jax, jnp: _two(jax, lambda k: jax.random.rademacher(k, (6,)))),
    "rademacher float32": B(lambda jax, jnp: jax.random.rademacher(_k(jax), (4,), np.float32)),
    "geometric": B(lambda jax, jnp: jax.random.geometric(_k(jax), P4)),
    "geometric int8": B(lambda jax, jnp: jax.random.geometric(_k(jax), 0.3, (4,), np.int8)),
    "uniform bfloat16": B(lambda jax, jnp: jax.random.uniform(_k(jax), (6,), jnp.bfloat16)),
    "laplace bfloat16": B(lambda jax, jnp: jax.random.laplace(_k(jax), (6,), jnp.bfloat16)),
    "shape of one int": B(lambda jax, jnp: jax.random.logistic(_k(jax), 3)),
    "typed key": B(lambda jax, jnp: jax.random.laplace(jax.random.key(1), (3,))),
    "jit": B(lambda jax, jnp: jax.jit(lambda k: jax.random.wald(k, 2.0, (3,)))(_k(jax))),
    "vmap": B(lambda jax, jnp: jax.vmap(lambda k: jax.random.cauchy(k, (2,)))(
        jax.random.split(_k(jax), 3))),
    # gamma and what is built on it
    "gamma": B(lambda jax, jnp: jax.random.gamma(_k(jax), A4)),
    "gamma grad": B(lambda jax, jnp: jax.grad(lambda a: jax.random.gamma(_k(jax), a).sum())(A4)),
    # loops over the whole array
    "poisson": B(lambda jax, jnp: jax.random.poisson(_k(jax), LAM)),
    "binomial": B(lambda jax, jnp: jax.random.binomial(_k(jax), N7, P7)),
    "clone": B(lambda jax, jnp: jax.random.key_data(jax.random.clone(jax.random.key(1)))),
    # printed jaxprs
    "jaxpr gamma": J(lambda jax, jnp: jax.make_jaxpr(
        lambda k: jax.random.gamma(k, 2.0, (3,)))(_k(jax))),
    "jaxpr loggamma": J(lambda jax, jnp: jax.make_jaxpr(
        lambda k, a: jax.random.loggamma(k, a))(jax.random.key(0), A4)),
    "jaxpr cauchy": J(lambda jax, jnp: jax.make_jaxpr(lambda k: jax.random.cauchy(k, (3,)))(
        _k(jax))),
    "jaxpr pareto": J(lambda jax, jnp: jax.make_jaxpr(lambda k, b: jax.random.pareto(k, b))(
        _k(jax), A4)),
    "jaxpr rayleigh": J(lambda jax, jnp: jax.make_jaxpr(
        lambda k: jax.random.rayleigh(k, 2.0, (3,)))(_k(jax))),
    "jaxpr weibull_min": J(lambda jax, jnp: jax.make_jaxpr(
        lambda k: jax.random.weibull_min(k, 1.0, 2.0, (3,)))(_k(jax))),
    "jaxpr rademacher": J(lambda jax, jnp: jax.make_jaxpr(
        lambda k: jax.random.rademacher(k, (3,)))(_k(jax))),
    "jaxpr chisquare": J(lambda jax, jnp: jax.make_jaxpr(
        lambda k: jax.random.chisquare(k, 3.0, (3,)))(_k(jax))),
    "jaxpr clone": J(lambda jax, jnp: jax.make_jaxpr(jax.random.clone)(jax.random.key(0))),
    "jaxpr clone raw": J(lambda jax, jnp: jax.make_jaxpr(jax.random.clone)(_k(jax))),
    # errors
    "cauchy int dtype": E(lambda jax, jnp: jax.random.cauchy(_k(jax), (2,), np.int32)),
    "gamma int dtype": E(lambda jax, jnp: jax.random.gamma(_k(jax), 1.0, (2,), np.int32)),
    "loggamma int dtype": E(lambda jax, jnp: jax.random.loggamma(_k(jax), 1.0, None, int)),
    "beta bad shape": E(lambda jax, jnp: jax.random.beta(_k(jax), A4, 2.0, (3,))),
    "gamma bad shape": E(lambda jax, jnp: jax.random.gamma(_k(jax), A4, (2, 3))),
    "t unsafe cast": E(lambda jax, jnp: jax.random.t(_k(jax), np.float32(3), (2,), np.float16)),
    "pareto unsafe cast": E(lambda jax, jnp: jax.random.pareto(_k(jax), A4, None, np.float16)),
    "geometric float dtype": E(lambda jax, jnp: jax.random.geometric(_k(jax), 0.3, (2,),
                                                                     np.float32)),
    "geometric list": E(lambda jax, jnp: jax.random.geometric(_k(jax), [0.3, 0.4])),
    "binomial float16 ok, int dtype": E(lambda jax, jnp: jax.random.binomial(
        _k(jax), 5.0, 0.5, (2,), np.int32)),
    "binomial list": E(lambda jax, jnp: jax.random.binomial(_k(jax), [5.0], 0.5)),
    "dirichlet scalar alpha": E(lambda jax, jnp: jax.random.dirichlet(_k(jax), 1.0)),
    "lognormal int dtype": E(lambda jax, jnp: jax.random.lognormal(_k(jax), 1.0, (2,), int)),
    "ball float d": E(lambda jax, jnp: jax.random.ball(_k(jax), 2.5)),
    "gamma batched key": E(lambda jax, jnp: jax.random.gamma(jax.random.split(_k(jax)), 1.0)),
    "float in shape": E(lambda jax, jnp: jax.random.laplace(_k(jax), (2.0,))),
    "float in shape of uniform": E(lambda jax, jnp: jax.random.uniform(_k(jax), [2, 1.5])),
    "wald bad shape": E(lambda jax, jnp: jax.random.wald(_k(jax), A4, (3,))),
}


@pytest.mark.parametrize("name", _params(RANDOM_REST))
def test_random_rest(name):
    check(RANDOM_REST[name])
