"""Checks of appendix A17's exercises (chapters/A17_catalogue_rules.md): each takes the notebook's
namespace."""
import numpy as np

from autodidax.core import Trace, eval_trace, set_current_trace


class _Recorder(Trace):
    """Evaluates, and records the name of each primitive it evaluates."""
    def __init__(self):
        self.names = []

    def process_primitive(self, primitive, args, params):
        self.names.append(primitive.name)
        with set_current_trace(eval_trace):
            return primitive.bind(*args, **params)


def check_logaddexp_jvp(nb):
    """1. A JVP rule from a calculus table: `logaddexp`'s tangent in each operand, at large
    inputs, and under an outer jvp."""
    logaddexp, jvp, jnp = nb["logaddexp"], nb["jvp"], nb["jnp"]
    x0, y0 = np.float32([-1.0, 0.5, 2.0]), np.float32([1.0, 0.5, -3.0])
    tx, ty = np.float32([1.0, -2.0, 0.5]), np.float32([3.0, 1.0, -1.0])
    px, py = 1 / (1 + np.exp(y0 - x0)), 1 / (1 + np.exp(x0 - y0))
    for what, tangents, want in [("x's", (tx, np.zeros(3, np.float32)), tx * px),
                                 ("y's", (np.zeros(3, np.float32), ty), ty * py),
                                 ("both", (tx, ty), tx * px + ty * py)]:
        _, got = jvp(logaddexp, (jnp.asarray(x0), jnp.asarray(y0)), tuple(map(jnp.asarray,
                                                                               tangents)))
        assert np.allclose(got, want, rtol=1e-5), \
            f"with {what} tangent, at x={x0}, y={y0}, the tangent should be " \
            f"tx e^x/(e^x+e^y) + ty e^y/(e^x+e^y) = {want}, got {np.asarray(got)}"
    big = np.float32([100.0, -100.0])
    with np.errstate(over="ignore", invalid="ignore"):
        _, got = jvp(logaddexp, (jnp.asarray(big), jnp.asarray(big)), (jnp.ones(2), jnp.ones(2)))
    assert np.allclose(got, [1.0, 1.0]), \
        f"at x = y = [100, -100] the tangent for tx = ty = 1 should be [1, 1], got " \
        f"{np.asarray(got)}: an e^x that overflows float32 makes inf / inf, and one that " \
        "underflows 0 / 0; write the partials with ans"
    hint = "build the terms from lax operations, so that an outer jvp can differentiate them"
    try:
        second = jvp(lambda x: jvp(lambda x: logaddexp(x, 0.0), (x,), (1.0,))[1], (0.0,),
                     (1.0,))[1]
    except Exception as e:
        raise AssertionError(f"the second derivative of logaddexp(x, 0) at 0 raised "
                             f"{type(e).__name__}: {e}; {hint}") from None
    assert abs(float(second) - 0.25) < 1e-5, \
        f"the second derivative of logaddexp(x, 0) at 0 should be 0.25, got {float(second)}: {hint}"


def check_cummax_batching_rule(nb):
    """2. The batching rule of a cumulative primitive: `cummax` under vmap along every axis,
    with one cummax and no transpose."""
    cummax, vmap, rule = nb["cummax"], nb["vmap"], nb["cummax_batching_rule"]
    x = np.random.default_rng(17).standard_normal((3, 4, 5)).astype(np.float32)
    for in_axis in range(3):
        for axis in range(2):
            got = vmap(lambda v: cummax(v, axis), in_axes=in_axis)(x)
            examples = np.moveaxis(x, in_axis, 0)
            want = np.stack([np.maximum.accumulate(e, axis=axis) for e in examples])
            assert np.shape(got) == want.shape and np.allclose(got, want), \
                f"vmap(lambda v: cummax(v, {axis}), in_axes={in_axis}) of an f32[3,4,5] should " \
                f"be the running maximum of each example along its axis {axis}; got the wrong " \
                "values" + ("" if np.shape(got) == want.shape else f" (shape {np.shape(got)})")
    recorder = _Recorder()
    with set_current_trace(recorder):
        rule((x,), (2,), axis=1)
    assert recorder.names == ["cummax"], \
        f"for an operand batched along axis 2, the rule bound {recorder.names}: it should bind " \
        "one cummax and move no data (no transpose), only renumber the axis"
