"""Checks of appendix A10's exercises (chapters/A10_control_flow_reference.md): each takes the
notebook's namespace."""
import numpy as np

from autodidax.runtime import eager_mode
from book.checks.ch10 import _eqns_of, _pruned, _record_primitive, _type_error


def check_bounded_fori_loop(nb):
    """1. A loop that grad can go through: `bounded_fori_loop` under jit with traced bounds,
    against a Python loop, and its derivative against `fori_loop`'s with static bounds."""
    bounded_fori_loop, jit, grad = nb["bounded_fori_loop"], nb["jit"], nb["grad"]
    fori_loop, jnp, ConcretizationTypeError = (nb["fori_loop"], nb["jnp"],
                                               nb["ConcretizationTypeError"])

    def loop_reference(lower, upper, body, x):
        for i in range(lower, upper):
            x = body(i, x)
        return float(x)

    body = lambda i, c: jnp.sin(c) * (i + 1.0)
    looped = jit(lambda lower, upper, x: bounded_fori_loop(lower, upper, body, x, 6))
    for lower, upper in [(0, 3), (2, 5), (1, 7), (4, 4), (3, 1)]:
        try:
            got = float(looped(lower, upper, 0.5))
        except ConcretizationTypeError:
            raise AssertionError("under jit the bounds are tracers, and Python cannot branch or "
                                 "loop on them: decide each step inside the loop") from None
        want = loop_reference(lower, upper, body, 0.5)
        assert np.isclose(got, want, rtol=1e-5), \
            f"with lower={lower}, upper={upper}: got {got}, expected {want}"
    d_looped = jit(grad(lambda x, lower, upper: bounded_fori_loop(lower, upper, body, x, 6)))
    try:
        got = float(d_looped(0.5, 2, 5))
    except ValueError as e:
        raise AssertionError(f"grad with traced bounds failed: {e}") from None
    want = float(grad(lambda x: fori_loop(2, 5, body, x))(0.5))
    assert np.isclose(got, want, rtol=1e-5), \
        f"the derivative for lower=2, upper=5 at 0.5 should be {want}, got {got}"


def check_cond_dce(nb):
    """2. Dead code in a cond: `cond_dce_rule` through `dce_jaxpr` on conds and a switch, with
    the operands some branch still reads, effects kept, and `linearize` as JAX's."""
    cond, switch, cond_p, cond_dce_rule = nb["cond"], nb["switch"], nb["cond_p"], \
        nb["cond_dce_rule"]
    eval_jaxpr, linearize, jnp = nb["eval_jaxpr"], nb["linearize"], nb["jnp"]

    def both_ways(first, second):           # the same two branches, given in both orders
        yield lambda p, x, y, z: cond(p, first, second, x, y, z)
        yield lambda p, x, y, z: cond(p, second, first, x, y, z)

    args = (1.5, -2.0, 0.5)
    for f in both_ways(lambda x, y, z: (x * y, jnp.sin(z)), lambda x, y, z: (x * 2.0, z * y)):
        closed, jaxpr = _pruned(nb, f, [True, False], True, *args)
        (whole,) = _eqns_of(closed.jaxpr, cond_p)
        conds = _eqns_of(jaxpr, cond_p)
        n_ops = len(conds[0].invars) - 1 if len(conds) == 1 else None
        assert n_ops in (2, None), (
            f"the first output reads x in both branches and y in one, so the cond should take 2 "
            f"operands, x and y, whichever branch reads y (z fed only the second output); it "
            f"takes {n_ops}")
    f = next(both_ways(lambda x, y, z: (x * y, jnp.sin(z)), lambda x, y, z: (x * 2.0, z * y)))
    closed, jaxpr = _pruned(nb, f, [True, False], True, *args)
    (whole,) = _eqns_of(closed.jaxpr, cond_p)
    used_inputs, _ = cond_dce_rule([True, False], whole)
    assert len(used_inputs) == len(whole.invars) and used_inputs[0], (
        f"the rule returns {len(used_inputs)} flags for the cond's {len(whole.invars)} inputs, "
        f"{list(used_inputs)}: one per input, the index first, and the index is always used")
    conds = _eqns_of(jaxpr, cond_p)
    assert len(conds) == 1, "the cond was dropped, but its first output is used"
    n_outs, n_ops = len(conds[0].outvars), len(conds[0].invars) - 1
    assert n_outs == 1, f"only the first output is used: the cond should have 1, it has {n_outs}"
    assert n_ops == 2, (
        f"the first output reads x in both branches and y in the true one, so the cond should "
        f"take 2 operands, x and y (z fed only the second output); it takes {n_ops}")
    err = _type_error(nb, jaxpr)
    assert err is None, \
        f"the pruned program is ill-typed (every branch takes all the operands): {err}"
    for p in (True, False):
        want = eval_jaxpr(closed.jaxpr, closed.consts, p, *args)[0]
        got = eval_jaxpr(jaxpr, closed.consts, p, *args)[0]
        assert np.allclose(got, want), f"with p={p}, the pruned cond gives {got}, not {want}"

    f3 = lambda i, x, y, z: switch(i, [lambda x, y, z: (x * 2.0, z), lambda x, y, z: (x, z * y),
                                       lambda x, y, z: (x * y, z * x)], x, y, z)
    try:
        closed, jaxpr = _pruned(nb, f3, [True, False], 2, *args)
    except Exception as e:
        raise AssertionError(f"the rule failed on a switch of three branches "
                             f"({type(e).__name__}: {e}): prune every branch") from None
    n_ops = len(_eqns_of(jaxpr, cond_p)[0].invars) - 1
    assert n_ops == 2, (f"a switch whose third branch alone reads y for its used output should "
                        f"take 2 operands, x and y; it takes {n_ops}")

    recorded = []
    record_p = _record_primitive(nb, recorded)

    def noisy(x):
        record_p.bind(x)
        return x * 2.0
    closed, jaxpr = _pruned(nb, lambda p, x: cond(p, noisy, lambda x: x * 3.0, x), [False],
                            True, 1.0)
    with eager_mode("numpy"):        # record has no lowering: XLA could not compile the cond
        eval_jaxpr(jaxpr, closed.consts, True, 1.5)
    assert recorded == [1.5], ("no output of the cond is used, but its true branch records x, an "
                               "effect: the cond must stay, and the recording in it")

    def g(x):
        a, b = cond(x > 0, lambda x: (jnp.sin(x), jnp.cos(x) * x), lambda x: (x * 2.0, x * x), x)
        return a
    _, g_jvp = linearize(g, 1.0)
    (eqn,) = _eqns_of(g_jvp.jaxpr.jaxpr, cond_p)
    n_res = len(g_jvp.jaxpr.consts)
    assert (len(eqn.outvars), n_res) == (1, 2), (
        f"linearize(g) keeps a cond of {len(eqn.outvars)} outputs and {n_res} residuals; JAX's "
        "keeps one output, the tangent of a, and two residuals, the index and cos(1)")
    assert np.isclose(float(g_jvp(1.0)), np.cos(1.0)), "the linearized g should give cos(1)"
