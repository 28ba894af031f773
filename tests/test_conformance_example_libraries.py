"""Conformance cases for appendix A28 (autodidax/example_libraries): stax's layers, initialised
from the same key and applied to the same inputs, and the optimizers' trajectories, against
`jax.example_libraries`, bit for bit. Same harness as tests/test_conformance.py."""
import importlib

import numpy as np
import pytest

from test_conformance import B, E, _params, check

X2 = np.linspace(-1.0, 1.0, 2 * 6, dtype=np.float32).reshape(2, 6)
X4 = np.sin(np.arange(2 * 6 * 6 * 3, dtype=np.float32)).reshape(2, 6, 6, 3)


def _stax(jax):
    return importlib.import_module(jax.__name__ + ".example_libraries.stax")


def _opt(jax):
    return importlib.import_module(jax.__name__ + ".example_libraries.optimizers")


def _layer(make, shape, x, *, rng=False, key=0):
    """A layer's output shape, parameters and output, from key `key`."""
    def run(jax, jnp):
        init_fun, apply_fun = make(_stax(jax))
        out_shape, params = init_fun(jax.random.key(key), shape)
        kwargs = {"rng": jax.random.key(7)} if rng else {}
        out = apply_fun(params, jnp.asarray(x), **kwargs)
        return [out_shape, params, out]
    return run


def _init(name, *args, shape=(3, 3, 3, 4)):
    """An initializer's draw from key 3 (of a shape the layers' cases use: JAX compiles less)."""
    return lambda jax, jnp: getattr(_stax(jax), name)(*args)(jax.random.key(3), shape)


def _trajectory(name, *args, steps=4, **kwargs):
    """The parameters after each of `steps` steps of the optimizer on a small quadratic."""
    def run(jax, jnp):
        opt_init, opt_update, get_params = getattr(_opt(jax), name)(*args, **kwargs)
        params = {"w": jnp.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]]), "b": jnp.array(0.5)}
        loss = lambda p: jnp.sum((p["w"] * 3 + p["b"] - 1) ** 2)           # noqa: E731
        state, out = opt_init(params), []
        for i in range(steps):
            state = opt_update(i, jax.grad(loss)(get_params(state)), state)
            out.append(get_params(state))
        return out
    return run


def _residual(s):
    block = s.serial(s.Dense(6), s.Tanh, s.Dense(6))
    return s.serial(s.FanOut(2), s.parallel(block, s.Identity), s.FanInSum, s.Relu)


def _dropout_serial(s):
    return s.serial(s.Dense(6), s.Dropout(0.7), s.Dense(6), s.Dropout(0.5), s.LogSoftmax)


def _concat(s):
    return s.serial(s.FanOut(3), s.parallel(s.Dense(6), s.Dense(6), s.Identity),
                    s.FanInConcat())


def _shape_dependent(s):
    return s.shape_dependent(lambda shape: s.Dense(shape[-1]))


def _cnn(s):
    return s.serial(s.Conv(4, (3, 3), padding='SAME'), s.BatchNorm(), s.Relu,
                    s.MaxPool((2, 2), strides=(2, 2)), s.Flatten, s.Dense(6), s.LogSoftmax)


def _unpacked(jax, jnp):
    o = _opt(jax)
    opt_init, opt_update, get_params = o.adam(0.1)
    params = {"w": jnp.ones((2, 2)), "b": [jnp.zeros(3), jnp.array(1.0)]}
    state = opt_update(0, jax.tree_util.tree_map(lambda p: p * 0.5 + 1, params),
                       opt_init(params))
    unpacked = o.unpack_optimizer_state(state)
    again = o.pack_optimizer_state(unpacked)
    return (jax.tree_util.tree_map(lambda j: j.subtree, unpacked,
                                   is_leaf=lambda j: isinstance(j, o.JoinPoint)),
            again.packed_state, again.tree_def == state.tree_def,
            again.subtree_defs == state.subtree_defs)


def _mismatched_grads(jax, jnp):
    opt_init, opt_update, _ = _opt(jax).sgd(0.1)
    return opt_update(0, {"w": jnp.ones(2)}, opt_init({"w": jnp.ones(2), "b": jnp.ones(1)}))


def _jitted_step(jax, jnp):
    opt_init, opt_update, get_params = _opt(jax).rmsprop_momentum(0.05)
    step = jax.jit(lambda i, s, g: opt_update(i, g, s))
    state = opt_init(jnp.array([1.0, -1.0, 2.0]))
    for i in range(3):
        state = step(i, state, get_params(state) * 2)
    return get_params(state)


def _train(jax, jnp, steps=6, batch_size=128):
    """The appendix's loop (mnist_classifier.py's, on synthetic data), its loss inside the jitted
    step: the losses and the accuracy."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((512, 20)).astype(np.float32)
    y = np.eye(4, dtype=np.float32)[np.argmax(x @ rng.standard_normal((20, 4)), axis=1)]
    s, o = _stax(jax), _opt(jax)
    init_random_params, predict = s.serial(s.Dense(64), s.Relu, s.Dense(64), s.Relu,
                                           s.Dense(4), s.LogSoftmax)
    loss = lambda p, b: -jnp.mean(jnp.sum(predict(p, b[0]) * b[1], axis=1))  # noqa: E731
    opt_init, opt_update, get_params = o.momentum(0.1, mass=0.9)

    @jax.jit
    def update(i, opt_state, batch):
        opt_state = opt_update(i, jax.grad(loss)(get_params(opt_state), batch), opt_state)
        return opt_state, loss(get_params(opt_state), batch)

    opt_state, losses = opt_init(init_random_params(jax.random.key(0), (-1, 20))[1]), []
    for i in range(steps):
        j = (i * batch_size) % x.shape[0]
        opt_state, value = update(i, opt_state, (x[j:j + batch_size], y[j:j + batch_size]))
        losses.append(value)
    hits = jax.jit(lambda p: jnp.argmax(predict(p, x), axis=1) == jnp.argmax(y, 1))
    return losses, jnp.mean(hits(get_params(opt_state)))


def _per_example_grads(jax, jnp):
    """examples/differentially_private_sgd.py's step: per-example gradients of a CNN (vmap of
    grad), clipped by their norm."""
    s, o = _stax(jax), _opt(jax)
    init_fun, predict = s.serial(s.Conv(4, (3, 3), padding='SAME', strides=(2, 2)), s.Relu,
                                 s.MaxPool((2, 2), (1, 1)), s.Flatten, s.Dense(6))
    _, params = init_fun(jax.random.key(0), (-1, 6, 6, 3))
    y = np.eye(6, dtype=np.float32)[:2]

    def loss(params, batch):
        logits = s.logsoftmax(predict(params, batch[0]))
        return -jnp.mean(jnp.sum(logits * batch[1], axis=1))
    grads = jax.jit(jax.vmap(jax.grad(loss), (None, 0)))(params, (X4[:, None], y[:, None]))
    return o.clip_grads(grads, 1.0)


STAX = {
    "glorot_normal, and glorot over other axes": B(lambda jax, jnp: (
        _init("glorot_normal")(jax, jnp), _init("glorot", 0, 2)(jax, jnp),
        _init("glorot", 2, 3, 0)(jax, jnp))),
    "normal and randn": B(lambda jax, jnp: (_init("normal", 0.5, shape=(1, 1, 1, 4))(jax, jnp),
                                            _init("randn", shape=(6,))(jax, jnp))),
    "ones and zeros": B(lambda jax, jnp: (_stax(jax).ones(None, (2, 3)),
                                          _stax(jax).zeros(None, (3,), jnp.int32))),
    "Dense": B(_layer(lambda s: s.Dense(6), (-1, 6), X2)),
    "Conv": B(_layer(lambda s: s.Conv(4, (3, 3), strides=(2, 1), padding='SAME'),
                     (2, 6, 6, 3), X4)),
    "GeneralConv NCHW in, NHWC out": B(_layer(
        lambda s: s.GeneralConv(('NCHW', 'HWIO', 'NHWC'), 4, (3, 3), padding='SAME'),
        (2, 3, 6, 6), X4.transpose(0, 3, 1, 2))),
    "ConvTranspose": B(_layer(lambda s: s.ConvTranspose(4, (3, 3), strides=(2, 2)),
                              (2, 6, 6, 3), X4)),
    "Conv1DTranspose": B(_layer(lambda s: s.Conv1DTranspose(4, (3,), padding='SAME'),
                                (2, 6, 3), X4[:, 0])),
    "BatchNorm": B(_layer(lambda s: s.BatchNorm(), (2, 6, 6, 3), X4)),
    "BatchNorm over one axis, no center": B(_layer(lambda s: s.BatchNorm(0, center=False),
                                                   (-1, 6), X2)),
    "elementwise layers": B(lambda jax, jnp: [
        getattr(_stax(jax), n)[1]((), jnp.asarray(X2))
        for n in ["Tanh", "Relu", "LogSoftmax", "Softmax"]]),   # the others: jax.nn's tests
    "MaxPool SAME": B(_layer(lambda s: s.MaxPool((3, 3), strides=(2, 2), padding='SAME'),
                             (2, 6, 6, 3), X4)),
    "SumPool": B(_layer(lambda s: s.SumPool((2, 2)), (2, 6, 6, 3), X4)),
    "AvgPool SAME": B(_layer(lambda s: s.AvgPool((3, 2), padding='SAME'), (2, 6, 6, 3), X4)),
    "AvgPool NCHW": B(_layer(lambda s: s.AvgPool((2, 2), spec='NCHW', padding='SAME'),
                             (2, 3, 6, 6), X4.transpose(0, 3, 1, 2))),
    "Flatten and Identity": B(_layer(lambda s: s.serial(s.Identity, s.Flatten),
                                     (2, 6, 6, 3), X4)),
    "Dropout": B(_layer(lambda s: s.Dropout(0.6), (2, 6), X2, rng=True)),
    "Dropout in test mode": B(_layer(lambda s: s.Dropout(0.6, 'test'), (2, 6), X2, rng=True)),
    "Dropout without a key": E(_layer(lambda s: s.Dropout(0.6), (2, 6), X2)),
    "serial with dropout": B(_layer(_dropout_serial, (-1, 6), X2, rng=True)),
    "residual block": B(_layer(_residual, (-1, 6), X2)),
    "FanInConcat": B(_layer(_concat, (-1, 6), X2)),
    "shape_dependent": B(_layer(_shape_dependent, (2, 6), X2)),
    "a small CNN": B(_layer(_cnn, (2, 6, 6, 3), X4, key=5)),
    "per-example gradients of a CNN": B(_per_example_grads),
}

OPTIMIZERS = {
    "sgd": B(_trajectory("sgd", 0.01)),
    "momentum": B(_trajectory("momentum", 0.01, 0.9)),
    "nesterov": B(_trajectory("nesterov", 0.01, mass=0.8)),
    "adagrad": B(_trajectory("adagrad", 0.1)),
    "rmsprop": B(_trajectory("rmsprop", 0.01)),
    "rmsprop_momentum": B(_trajectory("rmsprop_momentum", 0.01, momentum=0.5)),
    "adam": B(_trajectory("adam", 0.1)),
    "adamax": B(_trajectory("adamax", 0.1)),
    "sm3": B(_trajectory("sm3", 0.1)),
    "sgd on a schedule": B(lambda jax, jnp: _trajectory(
        "sgd", _opt(jax).inverse_time_decay(0.1, 2, 0.5, staircase=True))(jax, jnp)),
    "schedules": B(lambda jax, jnp: [
        [f(i) for i in range(6)] for f in [
            _opt(jax).constant(0.3), _opt(jax).exponential_decay(1.0, 3, 0.5),
            _opt(jax).inverse_time_decay(1.0, 2, 0.5),
            _opt(jax).inverse_time_decay(1.0, 2, 0.5, staircase=True),
            _opt(jax).polynomial_decay(1.0, 4, 0.1, power=2.0),
            _opt(jax).piecewise_constant([1, 3], [1.0, 0.5, 0.25])]]),
    "piecewise_constant of mismatched lengths": E(
        lambda jax, jnp: _opt(jax).piecewise_constant([1, 3], [1.0, 0.5])),
    "make_schedule of a vector": E(lambda jax, jnp: _opt(jax).make_schedule(jnp.ones(2))),
    "l2_norm and clip_grads": B(lambda jax, jnp: [
        _opt(jax).l2_norm({"a": jnp.array([3.0, 4.0]), "b": [jnp.array(12.0)]}),
        _opt(jax).clip_grads({"a": jnp.array([3.0, 4.0]), "b": [jnp.array(12.0)]}, 1.0),
        _opt(jax).clip_grads({"a": jnp.array([3.0, 4.0])}, 10.0)]),
    "unpack and pack": B(_unpacked),
    "a gradient tree unlike the parameters'": E(_mismatched_grads),
    "a jitted step": B(_jitted_step),
    "safe_map, safe_zip and unzip2": B(lambda jax, jnp: (
        _opt(jax).map(lambda a, b: a * b, [1, 2], (3, 4)), _opt(jax).zip("ab", [1, 2]),
        _opt(jax).unzip2([(1, "a"), (2, "b")]))),
    "safe_map of a longer list": E(lambda jax, jnp: _opt(jax).safe_map(max, [1], [1, 2])),
    "safe_map of a shorter list": E(lambda jax, jnp: _opt(jax).safe_map(max, [1, 2], [1])),
    "safe_zip of unequal lists": E(lambda jax, jnp: _opt(jax).safe_zip([1, 2], [1])),
    "safe_zip of nothing": E(lambda jax, jnp: _opt(jax).safe_zip()),
    "the training loop of the appendix": B(_train),
}


@pytest.mark.parametrize("name", _params(STAX))
def test_stax(name):
    check(STAX[name])


@pytest.mark.parametrize("name", _params(OPTIMIZERS))
def test_optimizers(name):
    check(OPTIMIZERS[name])


def test_the_names_are_jaxs():
    """Every public callable of JAX's two modules is in ours."""
    import jax.example_libraries.optimizers
    import jax.example_libraries.stax

    import autodidax.example_libraries.optimizers
    import autodidax.example_libraries.stax
    for mod in ["stax", "optimizers"]:
        theirs = getattr(jax.example_libraries, mod)
        ours = getattr(autodidax.example_libraries, mod)
        names = {n for n in dir(theirs) if not n.startswith("_") and callable(getattr(theirs, n))}
        assert not names - set(dir(ours)), f"{mod} lacks {sorted(names - set(dir(ours)))}"
