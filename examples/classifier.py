"""Train chapter 18's classifier (two spirals, a 2-32-32-2 network), export it with
`jax.export`, and write new points to classify: `make run-example` then runs the artifact with
`python -m autodidax.runner`, which traces nothing.

    python examples/classifier.py FOLDER   # writes FOLDER/classifier.jaxexport, FOLDER/points.npy
"""
import sys
from pathlib import Path

import numpy as np

import autodidax as jax
import autodidax.numpy as jnp


def spirals(n, noise=0.03, seed=0):
    """`n` points on two spiral arms: inputs float32[n, 2], labels int32[n] (0 or 1)."""
    rng = np.random.default_rng(seed)
    t = np.sqrt(rng.uniform(0, 1, n)) * 2 * np.pi
    label = rng.integers(0, 2, n)
    angle = t + np.pi * label
    r = t / (2 * np.pi)
    x = np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1) + rng.normal(0, noise, (n, 2))
    return x.astype(np.float32), label.astype(np.int32)


def init_params(sizes, key):
    keys = jax.random.split(key, len(sizes) - 1)
    return {name: value for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:]))
            for name, value in [(f"w{i}", jax.random.normal(keys[i], (m, n)) / m ** 0.5),
                                (f"b{i}", jnp.zeros(n))]}


def predict(params, x):
    h = jnp.tanh(x @ params["w0"] + params["b0"])
    h = jnp.tanh(h @ params["w1"] + params["b1"])
    return h @ params["w2"] + params["b2"]


def loss(params, x, y):
    logp = jax.nn.log_softmax(predict(params, x))
    return -jnp.mean(logp[jnp.arange(x.shape[0]), y])


@jax.jit
def sgd_step(params, x, y):
    grads = jax.grad(loss)(params, x, y)
    return jax.tree.map(lambda p, g: p - 0.3 * g, params, grads)


def trained_classifier(steps=500):
    """The exported classifier: float32[n, 2] points -> float32[n, 2] logits, for `n` = 64."""
    x, y = spirals(400)
    params = init_params([2, 32, 32, 2], jax.random.key(1))
    for _ in range(steps):
        params = sgd_step(params, x, y)
    classify = jax.jit(lambda points: predict(params, points))   # the weights become constants
    return jax.export.export(classify)(jax.ShapeDtypeStruct((64, 2), np.float32))


def main(folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    exported = trained_classifier()
    (folder / "classifier.jaxexport").write_bytes(exported.serialize())
    points, labels = spirals(64, seed=7)                    # points the network never saw
    np.save(folder / "points.npy", points)
    np.save(folder / "labels.npy", labels)
    print(f"wrote {folder / 'classifier.jaxexport'} ({exported.in_avals[0].str_short()} -> "
          f"{exported.out_avals[0].str_short()}) and 64 new points, {folder / 'points.npy'}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "_build/example")
