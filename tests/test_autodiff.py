"""autodidax/autodiff.py: linearize, transposition, vjp, grad, jacrev, hessian, against JAX."""
import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import autodidax.numpy as jnp
from autodidax import lax
from autodidax.autodiff import (grad, hessian, jacrev, linearize, pad, transpose_rules,
                                value_and_grad, vjp)
from autodidax.batching import vmap
from autodidax.core import Primitive
from autodidax.jaxpr import check_jaxpr, make_jaxpr

rng = np.random.default_rng(3)
X = (rng.standard_normal((2, 3)) * 0.7).astype(np.float32)
P = (np.abs(rng.standard_normal((2, 3))) + 0.5).astype(np.float32)
W = (rng.standard_normal((3, 4)) * 0.5).astype(np.float32)


def both(make):
    return make(jnp, lax), make(jnp_ref, jax.lax)


# Scalar functions of one array, together using every differentiable primitive of chapter 1.
PROGRAMS = {
    "elementwise": lambda m, l: lambda x: m.sum(m.sin(x) * m.cos(x) + m.exp(-x) - m.tanh(x) / 3),
    "log sqrt abs sign": lambda m, l: lambda x: m.sum(m.log(m.abs(x) + 1.0) * m.sqrt(x * x + 1.0)
                                                    + m.sign(x) * x),
    "max min": lambda m, l: lambda x: m.sum(m.maximum(x, 0.1) + m.minimum(x, -0.2) * 2.0),
    "pow and integer_pow": lambda m, l: lambda x: m.sum((x * x + 1.0) ** 1.5 + x ** 3 + m.square(x)),
    "where (select_n)": lambda m, l: lambda x: m.sum(m.where(x > 0, x * 3.0, -x)),
    "reductions": lambda m, l: lambda x: m.max(x, axis=0).sum() + m.min(x) + x.mean(axis=1).sum(),
    "broadcast reshape transpose": lambda m, l: lambda x: m.sum(
        (x.reshape(3, 2).T + x[0:1, 0:1]) * m.ones((2, 3))),
    "matmul (dot_general)": lambda m, l: lambda x: m.sum(m.tanh(x @ W) ** 2),
    "batched dot_general": lambda m, l: lambda x: m.sum(
        l.dot_general(m.stack([x, x * 2.0]), m.stack([x.T, x.T]), (((2,), (1,)), ((0,), (0,))))),
    "slice rev squeeze": lambda m, l: lambda x: m.sum(x[1, ::2] * 2.0) + m.sum(x[::-1, 1]) + x[0, 2],
    "concatenate expand_dims": lambda m, l: lambda x: m.sum(
        m.concatenate([x, m.expand_dims(x[0], 0) * 3.0], axis=0) ** 2),
    "convert_element_type": lambda m, l: lambda x: m.sum(x.astype(m.float16).astype(m.float32) * x),
    "div": lambda m, l: lambda x: m.sum(1.0 / (x * x + 1.0) + x / 2.0),
}


@pytest.mark.parametrize("name", PROGRAMS)
def test_grad_agrees_with_jax(name):
    ours, theirs = both(PROGRAMS[name])
    np.testing.assert_allclose(np.asarray(grad(ours)(jnp.asarray(X))),
                               np.asarray(jax.grad(theirs)(X)), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", ["elementwise", "matmul (dot_general)", "max min",
                                  "slice rev squeeze", "pow and integer_pow"])
def test_hessian_and_third_order_agree_with_jax(name):
    ours, theirs = both(PROGRAMS[name])
    np.testing.assert_allclose(np.asarray(hessian(ours)(jnp.asarray(X))),
                               np.asarray(jax.hessian(theirs)(X)), rtol=1e-4, atol=1e-5)
    f = lambda m: lambda x: m.sin(x) * m.exp(x / 2.0) * x
    d3 = grad(grad(grad(f(jnp))))(0.7)
    np.testing.assert_allclose(float(d3), float(jax.grad(jax.grad(jax.grad(f(jnp_ref))))(0.7)),
                               rtol=1e-5)


def test_linearize_and_vjp_agree_with_jax():
    f = lambda m: lambda x, y: (m.sin(x) @ y, m.sum(x * 2.0))
    y = np.ones((3, 2), np.float32)
    out, f_jvp = linearize(f(jnp), jnp.asarray(X), jnp.asarray(y))
    out_r, f_jvp_r = jax.linearize(f(jnp_ref), X, y)
    tx, ty = np.ones_like(X), np.full_like(y, 0.5)
    for a, b in zip(f_jvp(tx, ty), f_jvp_r(tx, ty)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
    check_jaxpr(f_jvp.jaxpr.jaxpr)
    out, f_vjp = vjp(f(jnp), jnp.asarray(X), jnp.asarray(y))
    out_r, f_vjp_r = jax.vjp(f(jnp_ref), X, y)
    ct = (np.ones((2, 2), np.float32), np.float32(3.0))
    for a, b in zip(f_vjp(ct), f_vjp_r(ct)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)


def test_pytrees_argnums_has_aux_value_and_grad():
    def loss(params, x, scale):
        h = jnp.tanh(x @ params["w"] + params["b"])
        return jnp.mean(h ** 2) * scale, h.shape
    params = {"w": jnp.asarray(W), "b": jnp.zeros(4)}
    (value, aux), g = value_and_grad(loss, has_aux=True)(params, jnp.asarray(X), 2.0)
    ref = jax.grad(lambda p, x, s: loss.__wrapped__(p, x, s) if False else
                   jnp_ref.mean(jnp_ref.tanh(x @ p["w"] + p["b"]) ** 2) * s)(
        {"w": W, "b": np.zeros(4, np.float32)}, X, 2.0)
    assert aux == (2, 4) and set(g) == {"w", "b"}
    for k in g:
        np.testing.assert_allclose(np.asarray(g[k]), np.asarray(ref[k]), rtol=1e-5, atol=1e-7)
    gx, gs = grad(lambda p, x, s: loss(p, x, s)[0], argnums=(1, 2))(params, jnp.asarray(X), 2.0)
    assert gx.shape == X.shape and gs.shape == ()


def test_jacrev_agrees_with_jax():
    f = lambda m: lambda x: {"a": m.sin(x) * x[0, 0], "b": m.sum(x ** 2, axis=1)}
    ours = jacrev(f(jnp))(jnp.asarray(X))
    theirs = jax.jacrev(f(jnp_ref))(X)
    for k in ("a", "b"):
        np.testing.assert_allclose(np.asarray(ours[k]), np.asarray(theirs[k]), rtol=1e-5)


def test_composition_with_vmap():
    loss = lambda m: lambda w, x: m.mean((m.tanh(x @ w) - 1.0) ** 2)
    xs = X[:, None, :]
    ours = vmap(grad(loss(jnp)), in_axes=(None, 0))(jnp.asarray(W), jnp.asarray(xs))
    theirs = jax.vmap(jax.grad(loss(jnp_ref)), in_axes=(None, 0))(W, xs)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-7)
    g_of_vmap = grad(lambda w: jnp.sum(vmap(lambda x: loss(jnp)(w, x))(jnp.asarray(xs))))(
        jnp.asarray(W))
    np.testing.assert_allclose(np.asarray(g_of_vmap), np.asarray(theirs.sum(0)), rtol=1e-5)


def test_grad_jaxpr_is_well_typed_and_shows_both_passes():
    closed = make_jaxpr(grad(lambda x: jnp.sum(jnp.tanh(x) * x ** 2)))(jnp.ones(3))
    check_jaxpr(closed.jaxpr)
    names = [e.primitive.name for e in closed.eqns]
    assert names[:2] == ["tanh", "mul"] and names[-1] == "add"


# Bounded functions with bounded derivatives, so that float32 gradients and float64 central
# differences can be compared at a fixed tolerance whatever the chain.
UNARY = [("sin", 1.0), ("cos", 1.0), ("tanh", 1.0), ("exp", -0.5), ("square", 0.5)]


@given(st.lists(st.sampled_from(UNARY), min_size=1, max_size=5),
       st.floats(-1.5, 1.5), st.floats(0.5, 1.2))
def test_grad_matches_finite_differences(ops, x0, scale):
    def f(m):
        def g(x):
            for name, c in ops:
                x = getattr(m, name)(m.tanh(x) * c) * scale
            return m.sum(x)
        return g
    x = np.array([x0, x0 / 2], np.float64)
    g = np.asarray(grad(f(jnp))(jnp.asarray(x.astype(np.float32))))
    eps = 1e-4
    for i in range(2):
        e = np.zeros(2)
        e[i] = eps
        fd = (f(np)(x + e) - f(np)(x - e)) / (2 * eps)
        np.testing.assert_allclose(g[i], fd, rtol=2e-3, atol=2e-3)


def test_pad_is_the_transpose_of_slice():
    x = jnp.asarray(np.arange(10.0, dtype=np.float32))
    y = pad(x[::3], jnp.float32(0.0), [(1, 2, 2)])
    ref = jax.lax.pad(np.arange(10.0, dtype=np.float32)[::3], np.float32(0), [(1, 2, 2)])
    np.testing.assert_array_equal(np.asarray(y), np.asarray(ref))
    g = grad(lambda x: jnp.sum(x[2:9:3] * jnp.asarray([1.0, 2.0, 3.0])))(x)
    np.testing.assert_array_equal(np.asarray(g), [0, 0, 1, 0, 0, 2, 0, 0, 3, 0])


def test_errors_are_jaxs_sentences():
    with pytest.raises(TypeError, match=r"Gradient only defined for scalar-output functions\. "
                                        r"Output was f32\[3\]\."):
        grad(lambda x: x * 2.0)(jnp.ones(3))
    with pytest.raises(TypeError, match="grad requires real-valued inputs .* got int32"):
        grad(lambda i: i * 2)(3)
    with pytest.raises(TypeError, match=r"has_aux=True .* pair \(output, aux\).*a single value"):
        grad(lambda x: x, has_aux=True)(1.0)
    out, f_vjp = vjp(lambda x: x * 2.0, jnp.ones(3))
    with pytest.raises(ValueError, match=r"cotangent of type f32\[2\] .* output of type f32\[3\]"):
        f_vjp(jnp.ones(2))
    nonlinear = Primitive("mystery")
    from autodidax.core import abstract_eval_rules, impl_rules
    from autodidax.jvp import deflinear
    impl_rules[nonlinear] = lambda x: x
    abstract_eval_rules[nonlinear] = lambda x: x
    deflinear(nonlinear)
    with pytest.raises(NotImplementedError, match="Transpose rule .* for 'mystery'"):
        grad(lambda x: nonlinear.bind(x) * 2.0)(1.0)
    assert nonlinear not in transpose_rules


def test_grad_of_long_chain_does_not_recurse():
    def chain(x):
        for _ in range(3000):
            x = jnp.sin(x) * 0.999
        return x
    g = grad(chain)(0.5)
    assert np.isfinite(float(g))


def test_pad_lowers_and_runs_on_xla():
    from test_lowering import run
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    closed = make_jaxpr(lambda x: pad(x, jnp.float32(-1.0), [(1, 0, 1), (0, 2, 0)]))(x)
    got = run(closed, x)[0]
    want = jax.lax.pad(x, np.float32(-1.0), [(1, 0, 1), (0, 2, 0)])
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
