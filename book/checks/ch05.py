"""Checks of chapter 5's exercises (chapters/05_jaxprs.md): each takes the notebook's namespace."""
from collections import Counter

import numpy as np

import autodidax.autodiff
from book.exercises import watch


def check_count_flops(nb):
    """1. Counting FLOPs: the checks of `count_flops`."""
    count_flops, make_jaxpr, jnp, lax = nb["count_flops"], nb["make_jaxpr"], nb["jnp"], nb["lax"]
    cases = [
        ("tanh(x @ w).sum() for x f32[8,4], w f32[4,16]", 2 * 8 * 16 * 4 + 8 * 16 + 8 * 16,
         lambda x, w: jnp.tanh(x @ w).sum(), (jnp.ones((8, 4)), jnp.ones((4, 16)))),
        ("a dot_general of f32[4,8] and f32[4,16] contracting their axes 0", 2 * 8 * 16 * 4,
         lambda x, w: lax.dot_general(x, w, (((0,), (0,)), ((), ()))),
         (jnp.ones((4, 8)), jnp.ones((4, 16)))),
        ("a batched dot_general, f32[3,5,4] with f32[3,4,2]", 2 * (3 * 5 * 2) * 4,
         lambda x, w: lax.dot_general(x, w, (((2,), (1,)), ((0,), (0,)))),
         (jnp.ones((3, 5, 4)), jnp.ones((3, 4, 2)))),
        ("1.0 - 2.0 * x ** 3 for x f32[5,6] (the scalars come first)", 3 * 30,
         lambda x: 1.0 - 2.0 * x ** 3, (jnp.ones((5, 6)),)),
        ("a dot_general of f32[2,3,4] and f32[3,4,5] contracting two axes", 2 * (2 * 5) * (3 * 4),
         lambda x, w: lax.dot_general(x, w, (((1, 2), (0, 1)), ((), ()))),
         (jnp.ones((2, 3, 4)), jnp.ones((3, 4, 5)))),
        ("x.sum(axis=1) for x f32[8,16]", 8 * 16, lambda x: x.sum(axis=1), (jnp.ones((8, 16)),)),
        ("a transpose, a reshape, a conversion and a broadcast", 0,
         lambda x: (x.T.reshape(-1).astype(np.int32), jnp.broadcast_to(x[0], (3, 6))),
         (jnp.ones((5, 6)),)),
    ]
    for what, want, fun, args in cases:
        j = make_jaxpr(fun)(*args).jaxpr
        got = count_flops(j)
        assert got == want, f"{what}: expected {want} FLOPs, got {got}\n{j}"


def check_dce(nb):
    """2. Dead code elimination: the checks of `dce`."""
    dce, make_jaxpr, jnp, lax = nb["dce"], nb["make_jaxpr"], nb["jnp"], nb["lax"]
    check_jaxpr, JaxprTypeError, jaxpr_as_fun = (nb["check_jaxpr"], nb["JaxprTypeError"],
                                                 nb["jaxpr_as_fun"])
    w = jnp.asarray(np.arange(3.0, dtype=np.float32))
    v = jnp.asarray(np.float32([1.0, -1.0, 2.0]))
    u = jnp.asarray(np.float32([7.0, 8.0, 9.0]))

    def wasteful(x, y):
        dead = jnp.exp(x * w) * 3.0                  # nothing reads it, so nothing needs w
        first, second = lax.unstack(jnp.stack([x * v, jnp.sin(x)]))   # first is not needed
        head, tail = lax.unstack(jnp.stack([jnp.cos(x), x]))           # tail is not needed
        return second + head, x, u                   # u: a constant that only an output reads

    closed = make_jaxpr(wasteful)(jnp.ones(3), jnp.ones(3))
    ids = lambda c: [list(map(id, xs)) for xs in (c.jaxpr.eqns, c.jaxpr.constvars, c.consts)]
    before = ids(closed)
    with watch(autodidax.autodiff) as seen:
        small = dce(closed)
    assert not seen, f"dce called {seen[0]}, chapter 9's: walk the equations yourself"
    assert ids(closed) == before, \
        "dce changed the jaxpr it was given: build a new Jaxpr and ClosedJaxpr"
    assert small.jaxpr.invars == closed.jaxpr.invars, \
        "dce should keep the inputs, used or not: they are the jaxpr's signature"
    assert len(small.jaxpr.constvars) == len(small.consts), \
        f"the result has {len(small.jaxpr.constvars)} constant variables but " \
        f"{len(small.consts)} constant values: drop a constant's value with its variable"
    try:
        check_jaxpr(small.jaxpr)
    except JaxprTypeError as e:
        raise AssertionError(f"the jaxpr dce returns is not well formed (what a kept equation "
                             f"or an output reads must stay): {e}\n{small}") from None
    names = [e.primitive.name for e in small.eqns]
    want = ["mul", "sin", "stack", "unstack", "cos", "stack", "unstack", "add"]
    assert names == want, f"expected the equations {want} to remain (each unstack is needed for " \
        f"one of its outputs, the first for its second, the second for its first), got " \
        f"{names}\n{small}"
    assert sorted(map(id, small.consts)) == sorted([id(v), id(u)]), \
        f"v is read by a kept equation and u by an output: the constants should be v and u, " \
        f"got {small.consts}"
    x0, y0 = np.float32([0.5, 1.0, -2.0]), np.zeros(3, np.float32)
    for got, expected in zip(jaxpr_as_fun(small)(x0, y0), jaxpr_as_fun(closed)(x0, y0)):
        np.testing.assert_allclose(got, expected, rtol=1e-6,
                                   err_msg="the smaller jaxpr computes something else")


def check_cse(nb):
    """3. Common subexpressions: the checks of `cse`."""
    cse, make_jaxpr, jnp, lax = nb["cse"], nb["make_jaxpr"], nb["jnp"], nb["lax"]
    check_jaxpr, JaxprTypeError, eval_jaxpr = (nb["check_jaxpr"], nb["JaxprTypeError"],
                                               nb["eval_jaxpr"])
    def twice(x, y):
        a = jnp.sin(x) * 2.0
        b = jnp.sin(x) * 2.0               # a again: the literals 2.0 are equal, not the same
        c = jnp.cos(jnp.sin(x))
        d = jnp.cos(jnp.sin(x))            # c again, once its sin is found to be a's
        return a + b, c - d, x - y, y - x, x + 1.0, x + 2.0

    def distinct(x):
        p, q = lax.unstack(x[:2])
        r, s = lax.unstack(x[:2])          # the same unstack: both its outputs are p and q
        m, n = x * lax.neg(0), x * lax.neg(0.0)   # literals 0 and 0.0: equal bytes, two dtypes
        return x.sum(0) - x.sum(1), p * s, q * r, jnp.sin(x), jnp.sin(x), m, n

    for fun, args, want in [
            (twice, (np.float32([0.5, -1.0, 2.0]), np.float32([3.0, 0.0, 1.0])),
             {"sin": 1, "mul": 1, "cos": 1, "add": 3, "sub": 3}),
            (distinct, (np.arange(16.0, dtype=np.float32).reshape(4, 4),),
             {"slice": 1, "unstack": 1, "reduce_sum": 2, "sub": 1, "mul": 4, "sin": 1, "neg": 2,
              "convert_element_type": 2})]:
        closed = make_jaxpr(fun)(*args)
        n_before = len(closed.jaxpr.eqns)
        small = cse(closed.jaxpr)
        assert len(closed.jaxpr.eqns) == n_before, "cse changed the jaxpr it was given"
        try:
            check_jaxpr(small)
        except JaxprTypeError as e:
            raise AssertionError(f"the jaxpr cse returns for {fun.__name__} is not well formed "
                                 f"(is every read of a dropped output replaced?): {e}") from None
        got = eval_jaxpr(small, closed.consts, *args)
        expected = eval_jaxpr(closed.jaxpr, closed.consts, *args)
        for i, (g, e) in enumerate(zip(got, expected)):
            assert np.shape(g) == np.shape(e) and np.allclose(g, e), \
                f"after cse, output {i} of {fun.__name__} is {np.asarray(g)}, it should be " \
                f"{np.asarray(e)}: two equations were merged that compute different things\n{small}"
        counts = dict(Counter(e.primitive.name for e in small.eqns))
        assert counts == want, \
            f"after cse, {fun.__name__} should keep the equations {want}, it keeps " \
            f"{counts}\n{small}"
