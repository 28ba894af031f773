"""Checks of appendix A22's exercises (chapters/A22_library_jit.md): each takes the notebook's
namespace."""
import itertools

import numpy as np

import autodidax as jax
import autodidax.numpy as jnp
from autodidax import runtime


def check_call_key(nb):
    """1. `call_key`: calls that can share a program get one key, and no others."""
    call_key = nb["call_key"]
    f32 = np.ones(3, np.float32)
    same = [(((f32, 1.0), set()), ((np.zeros(3, np.float32), 2.0), set()),
             "a Python scalar counts by its type: x + 1.0 and x + 2.0 share a program"),
            (((f32, 1), {1}), ((np.full(3, 2, np.float32), 1), {1}),
             "the same static value, other array values")]
    differ = [(((f32, 1.0), set()), ((f32, 1), set()), "a float and an int are two programs"),
              (((f32, 1), {1}), ((f32, 2), {1}), "a static argument counts by its value"),
              (((f32, 1), {1}), ((f32, 1.0), {1}),
               "a static argument counts by its type too: an axis of 1.0 is not one of 1"),
              (((f32, True), {1}), ((f32, 1), {1}), "True is not the static value 1"),
              (((f32,), set()), ((np.ones(4, np.float32),), set()), "shapes differ"),
              (((f32,), set()), ((np.ones(3, np.int32),), set()), "dtypes differ"),
              (((jnp.asarray(1.0), f32), set()), ((np.float32(1.0), f32), set()),
               "a weak-typed array and a float32 scalar differ in weak type")]
    for (a, sa), (b, sb), what in same:
        assert call_key(a, sa) == call_key(b, sb), f"{what}: the keys should be equal"
        hash(call_key(a, sa))
    for (a, sa), (b, sb), what in differ:
        assert call_key(a, sa) != call_key(b, sb), f"{what}: the keys should differ"


def _count(fn) -> int:
    before = runtime.cache_stats["compiles"] + runtime.cache_stats["disk_hits"]
    fn()
    return runtime.cache_stats["compiles"] + runtime.cache_stats["disk_hits"] - before


_LENGTHS = itertools.count(1001)
SNIPPETS = {
    "var twice": lambda x, rows: (jnp.var(x), jnp.var(x)),
    "x + 1.0, then x + 2.0": lambda x, rows: (x + 1.0, x + 2.0),
    "x + 1.0, then x + 1": lambda x, rows: (x + 1.0, x + 1),
    "jvp of tanh": lambda x, rows: jax.jvp(jnp.tanh, (x,), (x,)),
    "make_jaxpr of jvp of tanh": lambda x, rows: jax.make_jaxpr(
        lambda y: jax.jvp(jnp.tanh, (y,), (y,)))(x),
    "vmap of var": lambda x, rows: jax.vmap(jnp.var)(rows),
}


def check_predicted_programs(nb):
    """2. `predicted_programs`: how many programs each snippet compiles, counted."""
    said = nb["predicted_programs"]()
    assert set(said) == set(SNIPPETS), f"predict these, by name: {sorted(SNIPPETS)}"
    wrong = []
    jax.clear_caches()         # programs in memory forgotten: each counts, compiled or loaded
    for name, snippet in SNIPPETS.items():
        n = next(_LENGTHS)            # a length no earlier check in this process has used
        x = runtime.device_put(np.linspace(0.0, 1.0, n, dtype=np.float32))
        rows = runtime.device_put(np.ones((3, n), np.float32))
        compiled = _count(lambda: snippet(x, rows))
        if said[name] != compiled:
            wrong.append(f"'{name}' (you said {said[name]}, it compiled {compiled})")
    assert not wrong, "mispredicted: " + "; ".join(wrong)
