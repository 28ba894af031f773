"""Checks of chapter 4's exercises (chapters/04_vmap.md): each takes the notebook's namespace."""
from collections import Counter

import numpy as np

import autodidax.batching
from autodidax.batching import axis_context
from autodidax.core import Trace, eval_trace, set_current_trace
from book.exercises import watch


class CountingTrace(Trace):
    """Evaluates, and counts the primitives it evaluates, by name."""
    def __init__(self):
        self.counts = Counter()

    def process_primitive(self, primitive, args, params):
        self.counts[primitive.name] += 1
        with set_current_trace(eval_trace):
            return primitive.bind(*args, **params)


def attempt(what, thunk):
    try:
        return np.asarray(thunk())
    except NotImplementedError:
        raise
    except Exception as e:
        raise AssertionError(f"{what} failed: {type(e).__name__}: {e}") from None


def check_outer_batching_rule(nb):
    """1. A primitive that cannot take the batch: `outer_batching_rule` under vmap, nested vmaps
    and jvp, with no loop over the examples."""
    outer, outer_p, outer_batching_rule = nb["outer"], nb["outer_p"], nb["outer_batching_rule"]
    batching_rules, vmap, jvp = nb["batching_rules"], nb["vmap"], nb["jvp"]
    rng = np.random.default_rng(4)
    xs = rng.standard_normal((4, 3)).astype(np.float32)      # 4 examples of 3 elements
    ys = rng.standard_normal((4, 2)).astype(np.float32)      # 4 examples of 2 elements
    x0, y0 = xs[1], ys[2]
    want = np.einsum("bi,bj->bij", xs, ys)
    cases = [((0, 0), (xs, ys), want), ((1, 1), (xs.T, ys.T), want),
             ((0, 1), (xs, ys.T), want), ((0, None), (xs, y0), np.einsum("bi,j->bij", xs, y0)),
             ((None, 1), (x0, ys.T), np.einsum("i,bj->bij", x0, ys))]
    others = [rule for p, rule in batching_rules.items() if p is not outer_p]
    with watch(*others) as seen:
        try:
            outer_batching_rule((xs, ys.T), (0, 1))
        except NotImplementedError:
            raise
        except Exception:
            pass                  # the cases below say what is wrong
    assert not seen, f"outer_batching_rule called {seen[0]}, the rule of another primitive: " \
        "write this one from lax operations"
    for in_axes, args, expected in cases:
        got = attempt(f"vmap(outer, in_axes={in_axes})",
                      lambda: vmap(outer, in_axes=in_axes)(*args))
        assert got.shape == expected.shape and np.allclose(got, expected, rtol=1e-6), \
            f"vmap(outer, in_axes={in_axes}) should give the outer product of each example's " \
            f"x and y, shape {expected.shape}; got shape {got.shape}" + \
            ("" if got.shape != expected.shape else f", values off by up to "
             f"{np.abs(got - expected).max():.3g}")

    def operations(n):
        counter = CountingTrace()
        with set_current_trace(counter):
            vmap(outer)(np.resize(xs, (n, 3)), np.resize(ys, (n, 2)))
        return sum(counter.counts.values())
    assert operations(8) == operations(4), \
        f"a batch of 8 binds {operations(8)} primitives, a batch of 4 {operations(4)}: a rule " \
        "does the work of the whole batch at once, with no loop over the examples"
    hint = ": the rule's work goes to the parent trace, here another vmap or a jvp, so compute " \
        "it with lax operations, not with NumPy"
    pairs = attempt("vmap(vmap(outer, in_axes=(0, None)), in_axes=(None, 0))" + hint,
                    lambda: vmap(vmap(outer, in_axes=(0, None)), in_axes=(None, 0))(xs, ys))
    assert np.allclose(pairs, np.einsum("ai,bj->baij", xs, ys), rtol=1e-6), \
        "vmap(vmap(outer, in_axes=(0, None)), in_axes=(None, 0)) should give every x with every y"
    txs, tys = np.ones_like(xs), np.arange(8.0, dtype=np.float32).reshape(4, 2)
    tangent = attempt("jvp(vmap(outer))" + hint, lambda: jvp(vmap(outer), (xs, ys), (txs, tys))[1])
    assert np.allclose(tangent, np.einsum("bi,bj->bij", txs, ys) + np.einsum("bi,bj->bij", xs, tys),
                       rtol=1e-5), "jvp(vmap(outer)) gives the wrong tangent"


def check_jacfwd_chunked(nb):
    """2. Jacobians a few columns at a time: `jacfwd_chunked` against `jacfwd`, one vmap a
    chunk."""
    jacfwd_chunked, jnp = nb["jacfwd_chunked"], nb["jnp"]
    A = np.arange(14.0, dtype=np.float32).reshape(2, 7) / 7
    sizes = []      # for each call of f, the sizes of the vmaps it runs under

    def f(x):
        sizes.append(tuple(a.size for a in axis_context.bound))
        v = jnp.reshape(x, (7,))
        return jnp.stack([jnp.asarray(A) @ jnp.sin(v), (v * v)[:2], v[2:4] * v[5]])

    x0 = np.linspace(-1.0, 1.0, 7).astype(np.float32)
    for x, chunk in [(x0, 3), (x0, 7), (x0, 10), (x0.reshape(7, 1), 2), (x0.reshape(1, 7), 3),
                     (x0.astype(np.float16), 4)]:
        want = np.asarray(autodidax.batching.jacfwd(f)(jnp.asarray(x)))
        sizes.clear()
        with watch(autodidax.batching.jacfwd) as seen:
            try:
                got = jacfwd_chunked(f, jnp.asarray(x), chunk)
            except NotImplementedError:
                raise
            except Exception as e:
                raise AssertionError(f"jacfwd_chunked at an x of shape {x.shape} (7 elements), "
                                     f"in chunks of {chunk}, raised {type(e).__name__}: {e}") \
                    from None
        assert not seen, "jacfwd_chunked called jacfwd, which pushes every column at once: " \
            "push each chunk of the basis with vmap of jvp"
        assert np.shape(got) == want.shape, \
            f"the Jacobian of f from {x.shape} to (3, 2) should have shape {want.shape}, got " \
            f"{np.shape(got)}"
        assert np.allclose(got, want, rtol=1e-5, atol=1e-6), \
            f"the Jacobian at x of shape {x.shape}, in chunks of {chunk}, has wrong values"
        n = x.size
        expected = sorted([(chunk,)] * (n // chunk) + ([(n % chunk,)] if n % chunk else []))
        batched = sorted(s for s in sizes if s)
        assert batched == expected, \
            f"for {n} columns in chunks of {chunk}, f should run under one vmap per chunk, of " \
            f"{[s[0] for s in expected]} tangents; it ran under vmaps of " \
            f"{[s for s in batched] or 'none'}"
