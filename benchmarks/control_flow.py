"""Control flow against JAX, in the same run: an eager `fori_loop` of 100,000 iterations (it
must run compiled, not one Python step per iteration); `jit(grad(...))` of an RNN-style `scan`
of 1,000 steps on `f32[128]` carries, per call; and `make_jaxpr` of a `scan` whose body has 200
equations.
"""
import os
import statistics

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp_ref  # noqa: E402
import numpy as np  # noqa: E402

import autodidax  # noqa: E402
import autodidax.numpy as jnp  # noqa: E402
from turns import in_turns, median, per_call  # noqa: E402


def eager_fori(lib):
    def body(i, c):
        return c + 1.0

    def run():
        np.asarray(lib.lax.fori_loop(0, 100_000, body, 0.0))
    run()
    return per_call(run, 5, repeats=7, warm=False, stat=median)


def rnn_grad(lib, m, put):
    rng = np.random.default_rng(0)
    w = put((rng.standard_normal((128, 128)) * 0.05).astype(np.float32))
    u = put((rng.standard_normal((128, 128)) * 0.05).astype(np.float32))
    xs = put(rng.standard_normal((1000, 128)).astype(np.float32))
    h0 = put(np.zeros(128, np.float32))

    def loss(params, h, xs):
        w, u = params

        def step(h, x):
            h = m.tanh(w @ h + u @ x)
            return h, h.sum()
        h, sums = lib.lax.scan(step, h, xs)
        return (h * h).sum() + (sums * sums).mean()

    g = lib.jit(lib.grad(loss))
    return lambda: g((w, u), h0, xs)


def rnn_grads(rounds=7):
    """Both libraries' `rnn_grad`, per call, measured in turns (one after the other, the same
    program's ratio moved between 1.07 and 1.4 on a 2-core machine)."""
    times = in_turns({"ours": rnn_grad(autodidax, jnp, autodidax.device_put),
                      "jax": rnn_grad(jax, jnp_ref, jax.device_put)}, rounds, calls=3)
    return statistics.median(times["ours"]), statistics.median(times["jax"])


def big_body(lib, m):
    xs = np.ones((10, 8), np.float32)

    def run():                      # a fresh body each time: JAX caches tracing by function
        def body(c, x):
            for _ in range(100):
                c = m.sin(c) * x    # two equations per round: 200 in all
            return c, c
        lib.make_jaxpr(lambda c, xs: lib.lax.scan(body, c, xs))(np.zeros(8, np.float32), xs)
    run()
    return per_call(run, 2, repeats=5, warm=False, stat=median)


def report(what, ours, theirs, target, unit=1e3, suffix="ms"):
    ratio = ours / theirs
    print(f"{what:44} {ours * unit:>9.2f}{suffix} {theirs * unit:>9.2f}{suffix}  ratio "
          f"{ratio:.2f} (target <= {target}): {'met' if ratio <= target else 'NOT met'}")


def main():
    print(f"{'':44} {'autodidax':>11} {'JAX':>11}")
    report("eager fori_loop, 100,000 iterations", eager_fori(autodidax), eager_fori(jax), 2)
    report("jit(grad(rnn scan)), 1,000 steps, f32[128]", *rnn_grads(), 1.1)
    report("make_jaxpr of a scan, 200-equation body", big_body(autodidax, jnp),
           big_body(jax, jnp_ref), 0.5)


if __name__ == "__main__":
    main()
