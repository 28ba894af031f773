"""autodidax/nn.py, autodidax/scipy/special.py, autodidax/scipy/stats/norm.py (appendix A2):
the new primitives and their rules, and the library functions, against JAX."""
import subprocess
import sys

import jax
import jax.numpy as jjnp
import numpy as np
import pytest

import autodidax
import autodidax.numpy as jnp
from autodidax import lax, nn
from autodidax.batching import batching_rules
from autodidax.core import abstract_eval_rules, impl_rules
from autodidax.jvp import jvp_rules
from autodidax.lowering import lowering_rules
from autodidax.scipy import special
from autodidax.scipy.stats import norm

X = np.array([-2.0, -0.7, 0.0, 0.3, 1.1, 2.5], np.float32)
M = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)

PRIMITIVES = {   # ours, JAX's lax function, an input inside its domain
    "erf": (special.erf_p, jax.lax.erf, X),
    "erfc": (special.erfc_p, jax.lax.erfc, X),
    "erf_inv": (special.erf_inv_p, jax.lax.erf_inv, np.tanh(X)),
    "lgamma": (special.lgamma_p, jax.lax.lgamma, np.abs(X) + 0.2),
    "digamma": (special.digamma_p, jax.lax.digamma, np.abs(X) + 0.2),
    "logistic": (special.logistic_p, jax.lax.logistic, X),
}


@pytest.mark.parametrize("name", PRIMITIVES)
def test_primitive_has_every_rule(name):
    prim = PRIMITIVES[name][0]
    for table in (impl_rules, abstract_eval_rules, jvp_rules, batching_rules, lowering_rules):
        assert prim in table, f"{name} has no rule in {table}"


@pytest.mark.parametrize("name", PRIMITIVES)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_primitive_eager_and_jit_agree_with_jax(name, dtype):
    prim, theirs, x = PRIMITIVES[name]
    x = x.astype(dtype)
    want = np.asarray(theirs(x))
    eager = prim.bind(x)
    jitted = autodidax.jit(lambda v: prim.bind(v))(x)
    assert eager.dtype == jitted.dtype == want.dtype
    # Eager evaluation compiles the primitive with XLA, so it is the jitted value bit for bit.
    np.testing.assert_array_equal(np.asarray(eager), np.asarray(jitted))
    np.testing.assert_allclose(np.asarray(eager), want, rtol=1e-6 if dtype == np.float32 else 1e-3)


@pytest.mark.parametrize("name", PRIMITIVES)
def test_primitive_derivative_and_batching(name):
    prim, theirs, x = PRIMITIVES[name]     # digamma's derivative is polygamma's
    ours = autodidax.vmap(autodidax.grad(lambda v: prim.bind(v)))(x)
    want = jax.vmap(jax.grad(theirs))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(want), rtol=2e-5, atol=1e-6)


def test_eager_evaluation_compiles_once_per_type():
    from autodidax.indexing import _executables     # chapter 11's cache, which erf's NumPy rule shares
    from autodidax.runtime import _dispatch_cache, clear_caches, eager_mode
    Y, Z = X + 1, X[:2]
    for cache, mode in ((_dispatch_cache, "xla"), (_executables, "numpy")):
        clear_caches()          # a cache full from earlier tests would stop growing at its cap
        with eager_mode(mode):
            special.erf(X)
            n = len(cache)
            special.erf(Y)
            assert len(cache) == n
            special.erf(Z)                 # a new shape: one more program
            assert len(cache) == n + 1


@pytest.mark.parametrize("name", PRIMITIVES)
def test_primitive_refuses_integers(name):
    prim = PRIMITIVES[name][0]
    with pytest.raises(TypeError, match="floating"):
        prim.bind(np.array([1, 2], np.int32))


def test_lowering_uses_chlo_and_logistic_is_a_formula():
    text = autodidax.jit(lambda v: special.erf_p.bind(v)).lower(X).as_text()
    assert "chlo.erf" in text
    text = autodidax.jit(nn.sigmoid).lower(X).as_text()
    assert "stablehlo.exponential" in text and "stablehlo.divide" in text
    assert "logistic" not in text.split("func.func")[1]     # JAX's lowering, not the hlo op


def test_polygamma_derivative_of_digamma():
    x = np.abs(X) + 0.3
    ours = autodidax.vmap(autodidax.grad(special.digamma))(x)
    want = jax.vmap(jax.grad(jax.scipy.special.digamma))(x)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(want), rtol=1e-5)
    with pytest.raises(ValueError, match="integer"):
        special.polygamma(1.0, x)


def test_stable_formulations_do_not_overflow():
    big = np.array([100.0, 1000.0], np.float32)
    naive = jnp.log(1.0 + jnp.exp(big))
    assert np.all(np.isinf(np.asarray(naive)))
    np.testing.assert_allclose(np.asarray(nn.softplus(big)), big)
    np.testing.assert_allclose(np.asarray(nn.log_sigmoid(-big)), -big)
    np.testing.assert_allclose(np.asarray(autodidax.vmap(autodidax.grad(nn.softplus))(big)), 1.0)
    np.testing.assert_allclose(np.asarray(special.logsumexp(np.array([1000.0, 1000.0]))),
                               1000.0 + np.log(2.0), rtol=1e-6)
    assert np.isfinite(np.asarray(norm.logcdf(np.float32(-30.0))))


def test_relu_derivative_at_zero_is_jax_s():
    x = np.array([-1.0, 0.0, 1.0, 6.0], np.float32)
    for ours, theirs in [(nn.relu, jax.nn.relu), (nn.relu6, jax.nn.relu6),
                         (nn.softplus, jax.nn.softplus), (nn.log_sigmoid, jax.nn.log_sigmoid)]:
        np.testing.assert_allclose(np.asarray(autodidax.vmap(autodidax.grad(ours))(x)),
                                   np.asarray(jax.vmap(jax.grad(theirs))(x)), rtol=1e-6)


def test_logsumexp_max_is_a_stopped_gradient():
    text = str(autodidax.make_jaxpr(special.logsumexp)(X))
    assert "stop_gradient" in text and "is_finite" in text
    g = autodidax.grad(special.logsumexp)(X)
    np.testing.assert_allclose(np.asarray(g), np.asarray(jax.nn.softmax(X)), rtol=1e-6)
    # b, return_sign, where, keepdims together
    ours = special.logsumexp(M, axis=0, b=M, keepdims=True, return_sign=True)
    theirs = jax.scipy.special.logsumexp(M, axis=0, b=M, keepdims=True, return_sign=True)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


@pytest.mark.parametrize("name", ["relu", "relu6", "sigmoid", "log_sigmoid", "softplus", "silu",
                                  "elu", "leaky_relu", "celu", "gelu", "softmax",
                                  "log_softmax", "standardize", "logsumexp", "tanh"])
def test_nn_under_every_transformation(name):
    ours, theirs = getattr(nn, name), getattr(jax.nn, name)
    for transform_a, transform_j in [(lambda f: f, lambda f: f),
                                     (autodidax.jit, jax.jit),
                                     (autodidax.vmap, jax.vmap)]:
        a, j = transform_a(ours)(M), transform_j(theirs)(M)
        assert (a.dtype, a.shape, a.weak_type) == (j.dtype, j.shape, j.weak_type)
        np.testing.assert_allclose(np.asarray(a), np.asarray(j), rtol=1e-5, atol=1e-6)
    ga = autodidax.grad(lambda m: (ours(m) * M).sum())(M)
    gj = jax.grad(lambda m: (theirs(m) * M).sum())(M)
    np.testing.assert_allclose(np.asarray(ga), np.asarray(gj), rtol=1e-4, atol=1e-5)


def test_one_hot():
    labels = np.array([0, 3, -1, 2], np.int32)
    for kwargs in [{}, {"dtype": np.int32}, {"axis": 0}]:
        a, j = nn.one_hot(labels, 3, **kwargs), jax.nn.one_hot(labels, 3, **kwargs)
        assert a.dtype == j.dtype and a.shape == j.shape
        np.testing.assert_array_equal(np.asarray(a), np.asarray(j))
    with pytest.raises(autodidax.errors.ConcretizationTypeError):
        autodidax.jit(lambda n: nn.one_hot(labels, n))(3)


def test_public_names_and_weak_types():
    assert autodidax.nn.relu(1.5).weak_type == jax.nn.relu(1.5).weak_type
    assert autodidax.scipy.special.erf(1.0).weak_type == jax.scipy.special.erf(1.0).weak_type
    assert autodidax.scipy.stats.norm.logpdf(0.5).weak_type is True
    assert autodidax.nn.swish is autodidax.nn.silu


def test_errors_are_jax_s():
    with pytest.raises(TypeError):
        nn.sigmoid(np.array([1, 2], np.int32))
    with pytest.raises(TypeError):
        special.ndtr(np.array([1.0], np.float16))
    with pytest.raises(TypeError):
        special.erf([1.0, 2.0])
    with pytest.raises(ValueError):
        nn.standardize(M, algorithm="slow")


def test_library_never_imports_jax():
    code = ("import sys, numpy as np, autodidax as jax\n"
            "jax.nn.softmax(np.ones(3, np.float32)); jax.scipy.special.erf(np.float32(0.5))\n"
            "jax.scipy.stats.norm.cdf(0.3)\n"
            "assert 'jax' not in sys.modules, 'jax was imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)
