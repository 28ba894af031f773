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


# The chapter's last version (examples/classifier.py's `program`): jax.nn, a clipped gradient,
# checkpointed layers, debug.print in the loop, and the export, under both libraries.
LAST = classifier.program(jax, jnp, lax)
LAST_REF = classifier.program(jax_ref, jnp_ref, jax_ref.lax)
LABELS = Y.argmax(1).astype(np.int32)


def test_the_clipped_gradient_is_the_pullback_of_the_clipped_cotangent_and_jaxs():
    def math(jax, jnp, last):
        xent = lambda z: -jnp.mean(jax.nn.log_softmax(z)[jnp.arange(400), LABELS])
        z, pullback = jax.vjp(last.predict, PARAMS0, X)
        ct = jax.grad(xent)(z)
        return pullback(jnp.clip(ct, -0.5 / 400, 0.5 / 400))[0], int(jnp.sum(abs(ct) > 0.5 / 400))

    ours, theirs = jax.grad(LAST.plain_loss)(PARAMS0, X, LABELS), \
        jax_ref.grad(LAST_REF.plain_loss)(PARAMS0, X, LABELS)
    (want, clipped), (their_want, their_clipped) = math(jax, jnp, LAST), \
        math(jax_ref, jnp_ref, LAST_REF)
    assert clipped == their_clipped == 222      # the chapter's count: the misclassified points'
    for k in PARAMS0:
        np.testing.assert_array_equal(np.asarray(ours[k]), np.asarray(want[k]), err_msg=k)
        np.testing.assert_array_equal(np.asarray(theirs[k]), np.asarray(their_want[k]), err_msg=k)
        np.testing.assert_allclose(np.asarray(ours[k]), np.asarray(theirs[k]), rtol=1e-5,
                                   atol=1e-7, err_msg=k)
    unclipped = jax.grad(OURS[0])(PARAMS0, X, Y)
    assert not np.allclose(np.asarray(ours["w2"]), np.asarray(unclipped["w2"]))   # it clips


def test_checkpointed_layers_save_what_jax_saves_and_the_same_gradients():
    from autodidax.ad_checkpoint import saved_residuals
    from jax._src.ad_checkpoint import saved_residuals as saved_ref

    def kinds(saved):       # the shapes, and what each is, without the source lines
        return [(a.shape, str(a.dtype), why.split(" from ")[0] if why.startswith("output")
                 else why) for a, why in saved]

    nbytes = lambda saved: sum(a.size * a.dtype.itemsize for a, _ in saved)
    kept = {}
    for name in ("plain_loss", "ckpt_loss"):
        ours = saved_residuals(getattr(LAST, name), PARAMS0, X, LABELS)
        theirs = saved_ref(getattr(LAST_REF, name), PARAMS0, X, LABELS)
        assert kinds(ours) == kinds(theirs), name
        kept[name] = nbytes(ours)
        temp = jax.jit(jax.grad(getattr(LAST, name))).lower(PARAMS0, X, LABELS).compile() \
            .memory_analysis().temp_size_in_bytes
        their_temp = jax_ref.jit(jax_ref.grad(getattr(LAST_REF, name))).lower(
            PARAMS0, X, LABELS).compile().memory_analysis().temp_size_in_bytes
        assert temp == their_temp, name
        kept[name, "temp"] = temp
    # The chapter's numbers: 102,144 bytes fewer residuals, more of XLA's temp memory.
    assert kept["plain_loss"] - kept["ckpt_loss"] == 102_144
    assert kept["ckpt_loss", "temp"] > kept["plain_loss", "temp"]
    for lib, last in [(jax, LAST), (jax_ref, LAST_REF)]:
        plain = lib.jit(lib.grad(last.plain_loss))(PARAMS0, X, LABELS)
        ckpt = lib.jit(lib.grad(last.ckpt_loss))(PARAMS0, X, LABELS)
        for k in PARAMS0:
            np.testing.assert_array_equal(np.asarray(plain[k]), np.asarray(ckpt[k]), err_msg=k)


@pytest.fixture(scope="module")
def printed_training():
    """The last version's training loop, run by both libraries: (params, printed lines) each."""
    import contextlib
    import io
    runs = []
    for lib, last in [(jax, LAST), (jax_ref, LAST_REF)]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            params = last.train(PARAMS0, X, LABELS)
            params = {k: np.asarray(v) for k, v in params.items()}
            if lib is jax_ref:
                jax_ref.effects_barrier()
        runs.append((params, out.getvalue().splitlines()))
    return runs


def test_debug_print_in_the_training_loop_prints_jaxs_lines(printed_training):
    (ours, our_lines), (theirs, their_lines) = printed_training
    assert our_lines == their_lines, (our_lines, their_lines)
    assert our_lines[0] == "step   0  loss 0.5875" and our_lines[-1] == "step 500  loss 0.0259"
    assert len(our_lines) == 6
    for k in PARAMS0:
        np.testing.assert_allclose(ours[k], theirs[k], rtol=0, atol=2e-3, err_msg=k)


def test_the_exported_classifier_runs_in_a_fresh_runner_as_in_jax(printed_training, tmp_path):
    import subprocess
    (ours, _), (theirs, _) = printed_training
    exported = LAST.export(ours)
    (tmp_path / "c.jaxexport").write_bytes(exported.serialize())
    points, labels = classifier.spirals(64, seed=7)
    np.save(tmp_path / "p.npy", points)
    subprocess.run([sys.executable, "-m", "autodidax.runner", tmp_path / "c.jaxexport",
                    "--input", tmp_path / "p.npy", "--output", tmp_path / "o.npz"], check=True,
                   capture_output=True)
    from_runner = np.load(tmp_path / "o.npz")["result"]
    np.testing.assert_array_equal(from_runner, np.asarray(jax.jit(
        lambda x: LAST.predict(ours, x))(points)))
    # JAX reads our artifact and runs it to the same bits; its own export of its own training
    # classifies the new points as ours does.
    read = jax_ref.export.deserialize((tmp_path / "c.jaxexport").read_bytes())
    np.testing.assert_array_equal(np.asarray(read.call(points)), from_runner)
    their_logits = np.asarray(LAST_REF.export(theirs).call(points))
    np.testing.assert_allclose(their_logits, from_runner, rtol=0, atol=1e-2)
    assert (from_runner.argmax(1) == labels).mean() == 1.0
    assert (their_logits.argmax(1) == from_runner.argmax(1)).all()


def test_the_last_versions_step_over_eight_devices_matches_one_and_jax():
    from autodidax.sharding import Mesh, NamedSharding, P
    results = []
    for lib, last, mesh_mod in [(jax, LAST, None), (jax_ref, LAST_REF, jax_ref.sharding)]:
        if mesh_mod is None:
            mesh = Mesh(np.array(jax.devices()), ("batch",))
            data, rep = NamedSharding(mesh, P("batch")), NamedSharding(mesh, P())
        else:
            mesh = mesh_mod.Mesh(np.array(jax_ref.devices()), ("batch",))
            data = mesh_mod.NamedSharding(mesh, mesh_mod.PartitionSpec("batch"))
            rep = mesh_mod.NamedSharding(mesh, mesh_mod.PartitionSpec())
        step = lib.jit(last.clipped_step)
        results.append(step(lib.device_put(PARAMS0, rep), lib.device_put(X, data),
                            lib.device_put(LABELS, data)))
        results.append(step(PARAMS0, X, LABELS))
    values = [float(v) for v, _ in results]
    np.testing.assert_allclose(values, values[1], rtol=1e-6)
    for _, new in results[1:]:
        for k in PARAMS0:
            np.testing.assert_allclose(np.asarray(new[k]), np.asarray(results[0][1][k]),
                                       rtol=1e-5, atol=1e-6, err_msg=k)
