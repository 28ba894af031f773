"""Chapter 18's last version of its classifier, as a script: two spirals, a 2-32-32-2 network
with checkpointed layers, `jax.nn.log_softmax` and a clipped gradient (`custom_vjp`), trained in
one `fori_loop` that prints its loss with `jax.debug.print`, then exported with `jax.export`.
`make run-example` runs the artifact with `python -m autodidax.runner`, which traces nothing.

    python examples/classifier.py FOLDER   # writes FOLDER/classifier.jaxexport, FOLDER/points.npy

`program(jax, jnp, lax)` writes the functions against either library: autodidax here, the real
JAX too in tests/test_capstone.py, which checks that both give the same numbers.
"""
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

import autodidax
import autodidax.numpy

LEARNING_RATE = 0.3
SIZES = [2, 32, 32, 2]


def spirals(n, noise=0.03, seed=0):
    """`n` points on two spiral arms: inputs float32[n, 2], labels int32[n] (0 or 1)."""
    rng = np.random.default_rng(seed)
    t = np.sqrt(rng.uniform(0, 1, n)) * 2 * np.pi
    label = rng.integers(0, 2, n)
    angle = t + np.pi * label
    r = t / (2 * np.pi)
    x = np.stack([r * np.cos(angle), r * np.sin(angle)], axis=1) + rng.normal(0, noise, (n, 2))
    return x.astype(np.float32), label.astype(np.int32)


def init_params(sizes, key, jax=autodidax, jnp=autodidax.numpy):
    keys = jax.random.split(key, len(sizes) - 1)
    return {name: value for i, (m, n) in enumerate(zip(sizes[:-1], sizes[1:]))
            for name, value in [(f"w{i}", jax.random.normal(keys[i], (m, n)) / m ** 0.5),
                                (f"b{i}", jnp.zeros(n))]}


def program(jax, jnp, lax, n=400, every=100):
    """The chapter's last version, written against `jax` (autodidax or JAX), for `n` examples;
    `train` prints its loss every `every` steps."""
    bound = 0.5 / n

    @jax.custom_vjp
    def clip_gradient(z):
        return z

    clip_gradient.defvjp(lambda z: (z, None), lambda _, ct: (jnp.clip(ct, -bound, bound),))

    def dense(w, b, h):
        return jnp.tanh(h @ w + b)

    def predict(params, x):
        h = dense(params["w0"], params["b0"], x)
        h = dense(params["w1"], params["b1"], h)
        return h @ params["w2"] + params["b2"]

    def make_loss(layer):
        def clipped_loss(params, x, y):
            h = layer(params["w0"], params["b0"], x)
            h = layer(params["w1"], params["b1"], h)
            logp = jax.nn.log_softmax(clip_gradient(h @ params["w2"] + params["b2"]))
            return -jnp.mean(logp[jnp.arange(x.shape[0]), y])
        return clipped_loss

    plain_loss, ckpt_loss = make_loss(dense), make_loss(jax.checkpoint(dense))

    def clipped_step(params, x, y):
        value, grads = jax.value_and_grad(ckpt_loss)(params, x, y)
        return value, jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)

    @jax.jit
    def train(params, x, y, steps=501):
        def body(i, params):
            value, params = clipped_step(params, x, y)
            report = lambda: jax.debug.print("step {i:3d}  loss {v:.4f}", i=i, v=value)
            lax.cond(i % every == 0, report, lambda: None)
            return params
        return lax.fori_loop(0, steps, body, params)

    def export(params, points=64):
        """The trained classifier, float32[points, 2] -> float32[points, 2] logits."""
        classify = jax.jit(lambda x: predict(params, x))   # the weights become constants
        return jax.export.export(classify)(jax.ShapeDtypeStruct((points, 2), np.float32))

    return SimpleNamespace(clip_gradient=clip_gradient, dense=dense, predict=predict,
                           plain_loss=plain_loss, ckpt_loss=ckpt_loss, clipped_step=clipped_step,
                           train=train, export=export)


def main(folder):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    x, y = spirals(400)
    ours = program(autodidax, autodidax.numpy, autodidax.lax)
    params = ours.train(init_params(SIZES, autodidax.random.key(1)), x, y)
    exported = ours.export(params)
    (folder / "classifier.jaxexport").write_bytes(exported.serialize())
    points, labels = spirals(64, seed=7)                    # points the network never saw
    np.save(folder / "points.npy", points)
    np.save(folder / "labels.npy", labels)
    print(f"wrote {folder / 'classifier.jaxexport'} ({exported.in_avals[0].str_short()} -> "
          f"{exported.out_avals[0].str_short()}) and 64 new points, {folder / 'points.npy'}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "_build/example")
