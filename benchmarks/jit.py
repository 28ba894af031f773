"""jit against JAX, in the same run: the cost of a cache-hit call, a small MLP's forward pass,
and the first call (trace, lower, compile) of that MLP.

Both libraries run the same XLA, so the forward pass measures overhead around it; the cache-hit
call measures the Python path of autodidax against JAX's C++ fast path.
"""
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp_ref  # noqa: E402
import numpy as np  # noqa: E402

import autodidax  # noqa: E402
import autodidax.numpy as jnp  # noqa: E402
from autodidax import runtime  # noqa: E402


def best_per_call(fn, calls, repeats=7):
    """The median over `repeats` of the mean time per call over `calls` calls, in seconds."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            out = fn()
        leaves = out if isinstance(out, (tuple, list)) else [out]
        for leaf in leaves:
            leaf.block_until_ready()
        times.append((time.perf_counter() - start) / calls)
    return statistics.median(times)


def cache_hit(lib, m, put):
    f = lib.jit(lambda x, y: m.sin(x) * y + y)
    x, y = put(np.ones(3, np.float32)), put(np.full(3, 2.0, np.float32))
    return best_per_call(lambda: f(x, y), calls=2000)


def mlp_params(put):
    rng = np.random.default_rng(0)
    return {"w1": put((rng.standard_normal((256, 512)) * 0.05).astype(np.float32)),
            "b1": put(np.zeros(512, np.float32)),
            "w2": put((rng.standard_normal((512, 10)) * 0.05).astype(np.float32)),
            "b2": put(np.zeros(10, np.float32))}


def mlp(m):
    def forward(params, x):
        h = m.tanh(x @ params["w1"] + params["b1"])
        return h @ params["w2"] + params["b2"]
    return forward


def forward_pass(lib, m, put):
    params, x = mlp_params(put), put(np.ones((1024, 256), np.float32))
    f = lib.jit(mlp(m))
    return best_per_call(lambda: f(params, x), calls=50)


def first_call(lib, m, put):
    """Trace, lower, compile and run a fresh function: best of a few."""
    params, x = mlp_params(put), put(np.ones((1024, 256), np.float32))
    best = float("inf")
    for i in range(5):
        body = mlp(m)
        fresh = lambda params, x, i=i: body(params, x) * (1.0 + i)   # a new program each time
        start = time.perf_counter()
        lib.jit(fresh)(params, x).block_until_ready()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    previous = runtime.set_cache_dir(None)    # compare cold compiles: JAX caches none either
    rows = []
    for name, bench, target in [("cache-hit call, f32[3]", cache_hit, 2.0),
                                ("MLP forward, f32[1024,256]", forward_pass, 1.1),
                                ("MLP first call (trace+lower+compile)", first_call, 1.5)]:
        ours = bench(autodidax, jnp, runtime.device_put)
        theirs = bench(jax, jnp_ref, jax.device_put)
        rows.append((name, ours, theirs, target))
    runtime.set_cache_dir(previous)
    print(f"{'':40} {'autodidax':>11} {'JAX':>11} {'ratio':>6} {'target':>7}")
    for name, ours, theirs, target in rows:
        ratio = ours / theirs
        print(f"{name:40} {ours * 1e6:>9.1f}us {theirs * 1e6:>9.1f}us {ratio:>6.2f} "
              f"{'<=' + str(target):>7} {'met' if ratio <= target else 'NOT met'}")


if __name__ == "__main__":
    sys.exit(main())
