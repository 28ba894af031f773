"""Checks of chapter 10's exercise (chapters/10_control_flow.md): each takes the notebook's
namespace."""
import re

import numpy as np

from autodidax.jaxpr import check_jaxpr


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


def check_rnn(nb):
    """2. A recurrent loop that grad goes through: `rnn` against a NumPy loop, traced to one scan
    whatever the number of rows, and its gradient against that of the unrolled loop."""
    rnn, jnp, grad, make_jaxpr, scan_p = (nb["rnn"], nb["jnp"], nb["grad"], nb["make_jaxpr"],
                                          nb["scan_p"])
    rng = np.random.default_rng(0)
    W = (rng.standard_normal((3, 3)) * 0.5).astype(np.float32)
    h0 = rng.standard_normal(3).astype(np.float32)
    xs = rng.standard_normal((5, 3)).astype(np.float32)
    want = h0
    for x in xs:
        want = np.tanh(W @ want + x)
    got = np.asarray(rnn(jnp.asarray(h0), jnp.asarray(W), jnp.asarray(xs)))
    assert got.shape == want.shape, \
        f"rnn returns an array of shape {got.shape}: the final h has {want.shape}"
    assert np.allclose(got, want, rtol=1e-4, atol=1e-5), f"rnn gives {got}, expected {want}"
    sizes = []
    for n in (2, 8):
        closed = make_jaxpr(rnn)(h0, W, np.zeros((n, 3), np.float32))
        scans = [e for e in closed.jaxpr.eqns if e.primitive is scan_p]
        assert len(scans) == 1, (f"with {n} rows the program has {len(scans)} scans: the loop "
                                 "should be one scan, whatever the number of rows")
        sizes.append(len(closed.jaxpr.eqns))
    assert sizes[0] == sizes[1], (f"the program has {sizes[0]} equations for 2 rows and {sizes[1]} "
                                  "for 8: the loop should be one scan, whatever the number of rows")

    def unrolled(W):
        h = jnp.asarray(h0)
        for x in xs:
            h = jnp.tanh(W @ h + x)
        return h.sum()
    try:
        g = np.asarray(grad(lambda W: rnn(jnp.asarray(h0), W, jnp.asarray(xs)).sum())(
            jnp.asarray(W)))
    except ValueError as e:
        raise AssertionError(f"grad through rnn failed: {e}") from None
    g_want = np.asarray(grad(unrolled)(jnp.asarray(W)))
    assert np.allclose(g, g_want, rtol=1e-4, atol=1e-5), \
        f"the gradient of rnn(h, W, xs).sum() with respect to W is {g}, expected {g_want}"
