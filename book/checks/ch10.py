"""Checks of chapter 10's exercises (chapters/10_control_flow.md): each takes the notebook's
namespace."""
import re

import numpy as np

from autodidax.jaxpr import check_jaxpr


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


def _pruned(nb, f, used, *args):
    """The jaxpr of `f` at `args`, and that jaxpr pruned to the outputs marked in `used`."""
    closed = nb["make_jaxpr"](f)(*args)
    before = [dict(e.params) for e in closed.jaxpr.eqns]
    jaxpr = nb["dce_jaxpr"](closed.jaxpr, used, prune_inputs=False)[0]
    changed = [e.primitive.name for e, b in zip(closed.jaxpr.eqns, before)
               if e.params.keys() != b.keys() or any(e.params[k] is not b[k] for k in b)]
    assert not changed, (f"the rule changed the params of the {changed[0]} it was given, in "
                         "place: that equation is still the program's; build a new one")
    return closed, jaxpr


def _eqns_of(jaxpr, primitive):
    return [e for e in jaxpr.eqns if e.primitive is primitive]


def _type_error(nb, jaxpr):
    """Why `jaxpr`, or a jaxpr in one of its equations, is ill-typed; None if none is."""
    try:
        check_jaxpr(jaxpr)
        for eqn in jaxpr.eqns:
            for inner in [*eqn.params.get("branches", ()), eqn.params.get("jaxpr")]:
                if isinstance(inner, nb["ClosedJaxpr"]):
                    check_jaxpr(inner.jaxpr)
    except nb["JaxprTypeError"] as e:     # its last sentence: the equation it names is long
        tail = str(e).rsplit("`", 1)[-1]
        return re.sub(r"^ \(from .*?\)\): |^: ", "", tail)


def _record_primitive(nb, log):
    """A primitive with no outputs that appends its operand to `log`: an effect."""
    record_p = nb["Primitive"]("record")
    record_p.multiple_results = True
    nb["impl_rules"][record_p] = lambda x: log.append(float(x)) or []
    nb["abstract_eval_rules"][record_p] = lambda x: []
    return record_p


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


def _check_scan_pruned(nb, what, f, used, args, shape):
    """`f`'s scan, pruned to the outputs `used`, should carry, take and return `shape`."""
    closed, jaxpr = _pruned(nb, f, used, *args)
    scans = _eqns_of(jaxpr, nb["scan_p"])
    assert len(scans) == 1, f"{what}: the scan was dropped, but one of its outputs is used"
    eqn = scans[0]
    got = (eqn.params["num_carry"], len(eqn.invars), len(eqn.outvars))
    assert got == shape, (f"{what}: the scan's (carries, inputs, outputs) should be {shape}, "
                          f"they are {got}")
    err = _type_error(nb, jaxpr)
    assert err is None, f"{what}: the pruned program is ill-typed: {err}"
    eval_jaxpr = nb["eval_jaxpr"]
    want = [o for o, u in zip(eval_jaxpr(closed.jaxpr, closed.consts, *args), used) if u]
    got = eval_jaxpr(jaxpr, closed.consts, *args)
    assert all(np.allclose(a, b) for a, b in zip(got, want)), \
        f"{what}: the pruned program gives {got}, not {want}"


def check_scan_dce(nb):
    """3. Dead code in a scan: `scan_dce_rule` on carries that stay or go (a fixed point),
    constants and xs that only dropped carries read, effects kept, and `linearize` as JAX's."""
    scan, scan_p, linearize, jnp = nb["scan"], nb["scan_p"], nb["linearize"], nb["jnp"]
    xs, zs = np.float32([1.0, 2.0, -1.0, 0.5]), np.float32([3.0, 1.0, 0.0, 2.0])
    a, b, c = 0.5, 2.0, -1.0
    _check_scan_pruned(
        nb, "carry b, which nothing uses",
        lambda a, b, xs: scan(lambda k, x: ((k[0] * x, k[1] * 2.0 + x), None), (a, b), xs)[0],
        [True, False], (a, b, xs), (1, 2, 1))
    _check_scan_pruned(
        nb, "carry a, used, which the body never reads",
        lambda a, b, xs: scan(lambda k, x: ((x * 2.0, k[1] + k[0]), None), (a, b), xs)[0],
        [True, False], (a, b, xs), (1, 2, 1))
    _check_scan_pruned(
        nb, "a' = b, b' = c, c' = d, d' = d * x, and only a used: a reads b, c and d through "
        "the loop",
        lambda a, b, c, d, xs: scan(lambda k, x: ((k[1], k[2], k[3], k[3] * x), None),
                                    (a, b, c, d), xs)[0],
        [True, False, False, False], (a, b, c, 3.0, xs), (4, 5, 4))
    _check_scan_pruned(
        nb, "an unused carry that a used y reads",
        lambda a, xs: scan(lambda k, x: (k + x, (k * 2.0, jnp.sin(x))), a, xs),
        [False, True, False], (a, xs), (1, 2, 2))
    _check_scan_pruned(
        nb, "a constant w and xs zs that only a dropped carry reads",
        lambda a, b, w, xs, zs: scan(lambda k, x: ((k[0] + x[0], k[1] * w + x[1]), None),
                                     (a, b), (xs, zs))[0],
        [True, False], (a, b, 3.0, xs, zs), (1, 2, 1))

    record_p = _record_primitive(nb, [])

    def noisy(k, x):
        record_p.bind(k)
        return k + x, None
    _, jaxpr = _pruned(nb, lambda a, xs: scan(noisy, a, xs)[0], [False], a, xs)
    assert _eqns_of(jaxpr, scan_p), ("no output of the scan is used, but its body records the "
                                     "carry, an effect: the scan must stay")

    def h(x):
        (k0, k1), _ = scan(lambda k, x: ((k[0] * x, k[1] + jnp.sin(k[0])), None), (x, x), xs)
        return k0
    _, h_jvp = linearize(h, 0.5)
    (eqn,) = _eqns_of(h_jvp.jaxpr.jaxpr, scan_p)
    got = (eqn.params["num_carry"], len(h_jvp.jaxpr.consts))
    assert got == (1, 1), (
        f"linearize(h) keeps a scan of {got[0]} carries and {got[1]} residuals; JAX's keeps one "
        "carry, the tangent of k0, and one residual, the stacked xs")
    assert np.isclose(float(h_jvp(1.0)), np.prod(xs)), "the linearized h should give prod(xs)"
