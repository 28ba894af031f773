"""Chapter 18's training, checked: autodidax trains the chapter's network as JAX does, from the
same data and initial weights, traces its step once, and gives JAX's per-example gradients."""
import sys
from pathlib import Path

import jax as jax_ref
import jax.numpy as jnp_ref
import numpy as np
import pytest

import autodidax as jax
import autodidax.numpy as jnp
from autodidax import lax

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import classifier  # noqa: E402  (chapter 18's network, trained and exported: `make run-example`)

LEARNING_RATE = 0.3


def spirals(n, noise=0.03, seed=0):
    """The chapter's data set (as `examples/classifier.py` makes it), with one-hot targets."""
    x, label = classifier.spirals(n, noise, seed)
    return x, np.eye(2, dtype=np.float32)[label]


def init_params(jax, jnp, sizes, key):
    """The chapter's initial weights, drawn with either library's `jax.random`."""
    keys = jax.random.split(key, len(sizes) - 1)
    params = {}
    for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:])):
        params[f"w{i}"] = jax.random.normal(keys[i], (m, n)) / m ** 0.5
        params[f"b{i}"] = jnp.zeros(n)
    return params


def model(jax, jnp):
    """The chapter's functions, written against either JAX: (loss, accuracy, sgd_step)."""
    def predict(params, x):
        h = jnp.tanh(x @ params["w0"] + params["b0"])
        h = jnp.tanh(h @ params["w1"] + params["b1"])
        return h @ params["w2"] + params["b2"]

    def loss(params, x, y1h):
        z = predict(params, x)
        shifted = z - jnp.max(z, axis=-1, keepdims=True)
        logp = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=-1, keepdims=True))
        return -jnp.mean(jnp.sum(logp * y1h, axis=-1))

    def accuracy(params, x, y1h):
        logits = predict(params, x)
        right = jnp.sum(logits * y1h, axis=-1) >= jnp.max(logits, axis=-1)
        return jnp.mean(right.astype(jnp.float32))

    def sgd_step(params, x, y1h):
        value, grads = jax.value_and_grad(loss)(params, x, y1h)
        return value, jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)

    return loss, accuracy, sgd_step


X, Y = spirals(400)
SIZES = [2, 32, 32, 2]
# Drawn by autodidax.random; as NumPy arrays, so that both libraries can train from them.
PARAMS0 = {k: np.asarray(v) for k, v in init_params(jax, jnp, SIZES, jax.random.key(1)).items()}
OURS, THEIRS = model(jax, jnp), model(jax_ref, jnp_ref)


def test_initial_weights_are_jaxs():
    """The normal draws are JAX's bits; the scaling, evaluated eagerly, may part in the last
    bit (XLA divides by a constant as a product with its reciprocal, NumPy divides)."""
    ours_keys = jax.random.split(jax.random.key(1), len(SIZES) - 1)
    their_keys = jax_ref.random.split(jax_ref.random.key(1), len(SIZES) - 1)
    for i, (m, n) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        np.testing.assert_array_equal(np.asarray(jax.random.normal(ours_keys[i], (m, n))),
                                      np.asarray(jax_ref.random.normal(their_keys[i], (m, n))))
    theirs = init_params(jax_ref, jnp_ref, SIZES, jax_ref.random.key(1))
    for name, value in PARAMS0.items():
        np.testing.assert_allclose(value, np.asarray(theirs[name]), rtol=1e-6, err_msg=name)


def train(sgd_step, steps):
    step = jax.jit(sgd_step) if sgd_step is OURS[2] else jax_ref.jit(sgd_step)
    params, losses = PARAMS0, []
    for _ in range(steps):
        value, params = step(params, X, Y)
        losses.append(float(value))
    return step, params, losses


@pytest.fixture(scope="module")
def trained():
    return train(OURS[2], 300), train(THEIRS[2], 300)


def test_the_loss_falls_by_a_clear_factor_and_the_spirals_are_learned(trained):
    (step, params, losses), _ = trained
    assert losses[-1] < losses[0] / 8, (losses[0], losses[-1])
    assert float(OURS[1](params, X, Y)) > 0.95


def test_the_loss_trajectory_is_jax_s(trained):
    (_, ours, our_losses), (_, theirs, their_losses) = trained
    np.testing.assert_allclose(our_losses, their_losses, rtol=2e-3, atol=1e-5)
    for k in PARAMS0:
        np.testing.assert_allclose(np.asarray(ours[k]), np.asarray(theirs[k]), rtol=0, atol=2e-3)


def test_the_step_is_traced_once_and_keeps_its_types(trained):
    (step, params, _), _ = trained
    assert step.trace_count == 1 and step._cache_size() == 1
    for k, p in params.items():
        assert p.shape == PARAMS0[k].shape and p.dtype == np.float32, k


def test_the_whole_loop_in_fori_loop_matches_the_python_loop():
    loss, _, sgd_step = OURS
    train_loop = jax.jit(lambda p: lax.fori_loop(0, 50, lambda i, p: sgd_step(p, X, Y)[1], p))
    looped = train_loop(PARAMS0)
    params = PARAMS0
    step = jax.jit(sgd_step)
    for _ in range(50):
        _, params = step(params, X, Y)
    for k in PARAMS0:
        np.testing.assert_allclose(np.asarray(looped[k]), np.asarray(params[k]), rtol=0, atol=1e-5)


def test_per_example_gradients_are_jax_s():
    def per_example(jax, loss):
        one = lambda p, x, y: loss(p, x[None], y[None])
        return jax.vmap(jax.grad(one), in_axes=(None, 0, 0))(PARAMS0, X[:64], Y[:64])

    ours, theirs = per_example(jax, OURS[0]), per_example(jax_ref, THEIRS[0])
    for k in PARAMS0:
        assert ours[k].shape == (64, *PARAMS0[k].shape)
        np.testing.assert_allclose(np.asarray(ours[k]), np.asarray(theirs[k]), rtol=1e-4, atol=1e-5)


def test_the_compiled_step_reports_its_cost():
    compiled = jax.jit(OURS[2]).lower(PARAMS0, X, Y).compile()
    flops = compiled.cost_analysis()["flops"]
    matmuls = 2 * 400 * (2 * 2 * 32 + 3 * 32 * 32 + 3 * 32 * 2)   # forward, weight and input grads
    assert matmuls <= flops < 1.2 * matmuls, flops
    assert "fusion" in compiled.as_text()


def test_data_parallel_step_over_eight_devices_matches_one_device_and_jax():
    """Chapter 18's step with the batch split over 8 devices and the parameters replicated:
    the partitioner all-reduces the gradients, and the numbers are the one-device step's."""
    from autodidax.sharding import Mesh, NamedSharding, P
    mesh = Mesh(np.array(jax.devices()), ("batch",))
    data, replicated = NamedSharding(mesh, P("batch")), NamedSharding(mesh, P())
    step = jax.jit(OURS[2])
    x8, y8 = jax.device_put(X, data), jax.device_put(Y, data)
    p8 = jax.device_put(PARAMS0, replicated)
    value8, new8 = step(p8, x8, y8)
    value1, new1 = step(PARAMS0, X, Y)
    np.testing.assert_allclose(float(value8), float(value1), rtol=1e-6)
    for name in PARAMS0:
        np.testing.assert_allclose(np.asarray(new8[name]), np.asarray(new1[name]),
                                   rtol=1e-5, atol=1e-6, err_msg=name)
        assert new8[name].sharding.is_fully_replicated
    assert "all-reduce" in step.lower(p8, x8, y8).compile().as_text()
    # JAX, with the same layouts over its 8 devices, gets the same step.
    tmesh = jax_ref.sharding.Mesh(np.array(jax_ref.devices()), ("batch",))
    tdata = jax_ref.sharding.NamedSharding(tmesh, jax_ref.sharding.PartitionSpec("batch"))
    trep = jax_ref.sharding.NamedSharding(tmesh, jax_ref.sharding.PartitionSpec())
    tvalue, tnew = jax_ref.jit(THEIRS[2])(jax_ref.device_put(PARAMS0, trep),
                                          jax_ref.device_put(X, tdata),
                                          jax_ref.device_put(Y, tdata))
    np.testing.assert_allclose(float(value8), float(tvalue), rtol=1e-6)
    for name in PARAMS0:
        np.testing.assert_allclose(np.asarray(new8[name]), np.asarray(tnew[name]),
                                   rtol=1e-5, atol=1e-6, err_msg=name)
