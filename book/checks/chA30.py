"""Checks of appendix A30's exercises (chapters/A30_array_refs.md): each takes the notebook's
namespace."""
import numpy as np

import autodidax as jax
import autodidax.numpy as jnp
from autodidax import refs


def _ref_equations(closed):
    """The equations of `closed`'s own body (not those inside its loops) that make, read or
    write a ref, or take one."""
    return [e for e in closed.jaxpr.eqns if isinstance(e.primitive, refs.RefPrimitive)
            or any(type(v.aval) is refs.AbstractRef for v in e.invars)]


def _same(got, want):
    return np.asarray(got).shape == np.shape(want) and np.allclose(np.asarray(got), want)


def check_run_state(nb):
    """1. `run_state`: f's result and the ref's last value, from a jaxpr with no refs."""
    run_state = nb["run_state"]

    def f(r):
        r[0] += 1.0
        r[jnp.array([1, 2])] = r[:2] * 10
        return r[2] * 2

    def g(r):
        def body(i, c):
            r[i] = r[i - 1] * 2
            return c
        jax.lax.fori_loop(1, 4, body, 0)
        return r[0]

    x = jnp.array([1.0, 2.0, 3.0, 4.0])
    for fun, want, name in [(f, (40.0, [2.0, 20.0, 20.0, 4.0]), "f"),
                            (g, (1.0, [1.0, 2.0, 4.0, 8.0]), "a loop")]:
        got = run_state(fun)(x)
        assert len(got) == 2 and _same(got[0], want[0]) and _same(got[1], want[1]), \
            f"run_state({name})([1, 2, 3, 4]) is f's result and the ref's last value " \
            f"{want[0], want[1]}, got {tuple(np.asarray(v).tolist() for v in got)}"
        jitted = jax.jit(run_state(fun))(x)
        assert _same(jitted[1], want[1]), "under jit, run_state(f) gives the same last value"
        closed = jax.make_jaxpr(run_state(fun))(x)
        bad = _ref_equations(closed)
        assert not bad and "Ref{" not in str(closed), \
            "run_state(f) must be pure, but its jaxpr has refs (" + \
            ", ".join(sorted({e.primitive.name for e in bad})) + "): evaluate the discharged " \
            "jaxpr instead"


def check_scan_with_ref(nb):
    """2. `scan_with_ref`: the ref's value carried through a `scan`, no ref outside the loop."""
    scan_with_ref = nb["scan_with_ref"]

    def body(r, x):
        r[...] = r[...] * x + 1.0
        return r[...] * 2

    def count(r, i):
        r[i] += 1.0
        return r[0]

    xs, idx = jnp.arange(4.0), jnp.array([0, 2, 2, 1])
    value, ys = 1.0, []
    for x in range(4):
        value = value * x + 1.0
        ys.append(value * 2)
    for args, want, name in [((body, 1.0, xs), (value, ys), "r = r * x + 1"),
                             ((count, jnp.zeros(3), idx), ([1.0, 1.0, 2.0], [1.0] * 4),
                              "r[i] += 1")]:
        got = scan_with_ref(*args)
        assert len(got) == 2 and _same(got[0], want[0]) and _same(got[1], want[1]), \
            f"with the body {name}, scan_with_ref gives the ref's last value and the ys " \
            f"{want}, got {tuple(np.asarray(v).tolist() for v in got)}"
        jitted = jax.jit(lambda xs: scan_with_ref(args[0], args[1], xs))(args[2])
        assert _same(jitted[0], want[0]), "under jit, scan_with_ref gives the same last value"
    closed = jax.make_jaxpr(lambda xs: scan_with_ref(body, 1.0, xs))(xs)
    loops = [e for e in closed.jaxpr.eqns if e.primitive.name == "scan"]
    bad = _ref_equations(closed)
    assert not bad and loops and loops[0].params["num_carry"] >= 1, \
        "no ref may live outside the loop: carry the ref's value through one scan, and " \
        "make each step's ref inside the body (outside it: " + \
        (", ".join(sorted({e.primitive.name for e in bad})) or "no scan") + ")"
