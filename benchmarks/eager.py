"""Eager operations, op by op through XLA in both libraries (chapter 7's default), measured in
turns, each keeping its best round:

- small operations on `f32[3]` device arrays, where what is measured is the overhead around the
  arithmetic, beside the floor that Python over jaxlib allows: one cached `execute_sharded` of a
  one-operation program, its result wrapped in our `Array`;
- `x + y` on `f32[1000,1000]`, where the arithmetic dominates;
- the first call of a primitive on a new shape (trace, lower, compile, run), a fresh shape each
  round, with the persistent caches off;
- an eager `fori_loop` of 1,000 steps, and a Python loop of 10,000 small eager operations.
"""
import os
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp_ref  # noqa: E402
import numpy as np  # noqa: E402

import autodidax  # noqa: E402
import autodidax.numpy as jnp  # noqa: E402
from autodidax import lax, runtime  # noqa: E402
from turns import in_turns  # noqa: E402

SMALL = {                       # name -> function of (numpy module, x, y)
    "jnp.sin(x)": lambda m, x, y: m.sin(x),
    "x * y": lambda m, x, y: x * y,
    "x + 1.0": lambda m, x, y: x + 1.0,
    "jnp.sum(x)": lambda m, x, y: m.sum(x),
    "jnp.dot(x, y)": lambda m, x, y: m.dot(x, y),
    "x[0]": lambda m, x, y: x[0],
    "x.reshape(3, 1)": lambda m, x, y: x.reshape(3, 1),
}
TARGETS = {"x[0]": None}        # name -> the ratio aimed at (default 1.2); None: JAX is slow


def floor(x):
    """A function running the cached program of `sin` on `x` as cheaply as Python allows."""
    lax.sin(x)                   # (a primitive: its program is in the dispatch cache)
    call = next(c for k, c in runtime._dispatch_cache.items()
                if k[0].name == "sin" and k[4:] == (x.aval,))
    execute, handlers, buf, wrap = call.execute, call.handlers, x._buf, runtime.Array
    return lambda: wrap(execute([buf]).consume_with_handlers(handlers)[0])


def first_calls(rounds=5):
    """Seconds of the first `jnp.cos` on a new shape, each library's best of `rounds`."""
    shapes = iter(range(11, 11 + 2 * rounds))
    runs = {"ours": lambda: jnp.cos(jnp.zeros(next(shapes))).block_until_ready(),
            "jax": lambda: jnp_ref.cos(jnp_ref.zeros(next(shapes))).block_until_ready()}
    times = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {name: min(t) for name, t in times.items()}


def loops(ours, theirs):
    def python_loop(m, x):
        for _ in range(10_000):
            x = x * 1.0001
        return x
    def body(i, v):              # one function: both libraries cache its loop's program
        return v * 1.0001 + 0.5
    return {
        ("fori_loop, 1,000 steps", "ours"): lambda: lax.fori_loop(0, 1000, body, ours),
        ("fori_loop, 1,000 steps", "jax"): lambda: jax.lax.fori_loop(0, 1000, body, theirs),
        ("Python loop, 10,000 ops", "ours"): lambda: python_loop(jnp, ours),
        ("Python loop, 10,000 ops", "jax"): lambda: python_loop(jnp_ref, theirs),
    }


def report(title, best, names, target=lambda name: 1.2, extra=None):
    print(f"{title:26} {'autodidax':>11} {'JAX':>11} {'ratio':>6} {'target':>7}")
    for name in names:
        o, j = best[name, "ours"], best[name, "jax"]
        t = target(name)
        line = f"{name:26} {o * 1e6:>9.2f}us {j * 1e6:>9.2f}us {o / j:>6.2f} "
        line += f"{'-' if t is None else f'<={t}':>7}"
        print(line + (extra(name) if extra else ""))


def main():
    runtime.set_cache_dir(tempfile.mkdtemp(prefix="eager-bench-"))   # no programs of earlier runs
    jax.config.update("jax_compilation_cache_dir", None)
    a = np.array([1.0, 2.0, 3.0], np.float32)
    ours = autodidax.device_put(a), autodidax.device_put(a * 2)
    theirs = jax.device_put(a), jax.device_put(a * 2)
    runs = {}
    for name, op in SMALL.items():
        runs[name, "ours"] = lambda op=op: op(jnp, *ours)
        runs[name, "jax"] = lambda op=op: op(jnp_ref, *theirs)
    runs["floor", "ours"] = floor(ours[0])
    runs["floor", "jax"] = runs["jnp.sin(x)", "jax"]
    best = {key: min(times) for key, times in in_turns(runs, rounds=9, calls=2000).items()}
    fl = best["floor", "ours"]
    report("eager, f32[3]", best, SMALL, lambda n: TARGETS.get(n, 1.2),
           lambda n: f"   (floor {fl / best[n, 'jax']:.2f}x)" if n == "jnp.sin(x)" else "")
    print(f"{'the floor: one cached execute':26} {fl * 1e6:>9.2f}us, {fl / best['jnp.sin(x)', 'jax']:.2f}"
          "x JAX's jnp.sin")

    b = np.random.default_rng(0).random((1000, 1000), np.float32)
    big = {("x + y, f32[1000,1000]", "ours"): (lambda x=autodidax.device_put(b): x + x),
           ("x + y, f32[1000,1000]", "jax"): (lambda x=jax.device_put(b): x + x)}
    best = {k: min(t) for k, t in in_turns(big, rounds=9, calls=20).items()}
    report("large", best, ["x + y, f32[1000,1000]"], lambda n: 1.1)

    runtime.set_cache_dir(None)          # the persistent caches off, as JAX's is here
    first = first_calls()
    best = {("first cos of a new shape", k): v for k, v in first.items()}
    report("first call", best, ["first cos of a new shape"], lambda n: 1.0)

    best = {k: min(t) for k, t in in_turns(loops(*(s[0] for s in (ours, theirs))),
                                           rounds=3, calls=1).items()}
    report("loops", best, ["fori_loop, 1,000 steps", "Python loop, 10,000 ops"], lambda n: 1.5)


if __name__ == "__main__":
    sys.exit(main())
