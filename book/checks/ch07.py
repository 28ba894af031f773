"""Checks of chapter 7's exercises (chapters/07_runtime.md): each takes the notebook's namespace."""
import numpy as np

import autodidax.core


def _evaluator(Array):
    """Which evaluator made an array: a device array (of the chapter's `Array`) comes from XLA,
    a host array from NumPy."""
    return lambda x: {Array: "XLA", autodidax.core.Array: "NumPy"}.get(type(x), type(x).__name__)


def check_placing_eval_trace(nb):
    """1. NumPy or XLA, by size and by place: the checks of `PlacingEvalTrace`."""
    PlacingEvalTrace, jnp, device_put, eager_mode = (nb["PlacingEvalTrace"], nb["jnp"],
                                                     nb["device_put"], nb["eager_mode"])
    evaluator = _evaluator(nb["Array"])
    h10, h99, h100, h1000 = (jnp.asarray(np.linspace(0, 1, n, dtype=np.float32))
                             for n in (10, 99, 100, 1000))
    d3, h3 = device_put(np.arange(3, dtype=np.float32)), jnp.asarray(np.ones(3, np.float32))
    with eager_mode(PlacingEvalTrace(threshold=100)):
        cases = [("sin of 10 numbers on the host", jnp.sin(h10), np.sin(h10), "NumPy"),
                 ("sin of 99 numbers on the host", jnp.sin(h99), np.sin(h99), "NumPy"),
                 ("sin of 100 numbers (the threshold itself)", jnp.sin(h100), np.sin(h100),
                  "XLA"),
                 ("concatenate of 10 host numbers and 1000 host numbers",
                  jnp.concatenate([h10, h1000]), np.concatenate([h10, h1000]), "XLA"),
                 ("99 host numbers plus 99 host numbers (each argument is small)", h99 + h99,
                  2 * np.asarray(h99), "NumPy"),
                 ("the sum of 1000 host numbers (a large argument, a result of one)", h1000.sum(),
                  np.sum(h1000), "XLA"),
                 ("10 host numbers broadcast to 20 rows (a small argument, a result of 200)",
                  jnp.broadcast_to(h10, (20, 10)), np.broadcast_to(h10, (20, 10)), "NumPy"),
                 ("a device array of 3 numbers times a host array of 3", d3 * h3,
                  np.arange(3.0), "XLA")]
    for what, got, want, where in cases:
        assert evaluator(got) == where, \
            f"{what}: should run with {where}, ran with {evaluator(got)} (threshold 100)"
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, err_msg=f"{what}: wrong")


def check_tiered_eval_trace(nb):
    """2. Compile what runs often: the checks of `TieredEvalTrace`."""
    TieredEvalTrace, jnp, eager_mode = nb["TieredEvalTrace"], nb["jnp"], nb["eager_mode"]
    evaluator = _evaluator(nb["Array"])
    x3s = [jnp.asarray(np.float32([0.5, 1.0, 2.0]) * k) for k in range(1, 5)]  # all f32[3]
    x4 = jnp.asarray(np.float32([1, 2, 3, 4]))
    m = jnp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    weak, strong = jnp.asarray(2.0), jnp.asarray(np.float32(2.0))     # ~f32[] and f32[]
    with eager_mode(TieredEvalTrace(warmup=2)):
        sins = [jnp.sin(x3) for x3 in x3s]
        sin_device = jnp.sin(sins[-1])      # on a device array of type f32[3]
        cos3 = jnp.cos(x3s[0])
        sin4 = jnp.sin(x4)
        sums0 = [m.sum(0) for _ in range(3)]
        sum1 = m.sum(1)
        weak_sins = [jnp.sin(weak) for _ in range(3)]
        strong_sin = jnp.sin(strong)
    ran = [evaluator(y) for y in sins]
    assert ran == ["NumPy", "NumPy", "XLA", "XLA"], \
        f"sin on four arrays of type f32[3], with warmup=2, should run with NumPy, NumPy, XLA, " \
        f"XLA; ran {', '.join(ran)}"
    np.testing.assert_allclose(np.asarray(sins[-1]), np.sin(x3s[-1]), rtol=1e-6)
    assert evaluator(sin_device) == "XLA", \
        "sin on a device array of type f32[3], after four on host arrays of that type, is the " \
        "same kind of call (XLA's program does not depend on where its arguments are), seen " \
        f"a fifth time: it should run with XLA, ran with {evaluator(sin_device)}"
    assert evaluator(cos3) == "NumPy", \
        "cos on f32[3], after sin on f32[3], is another kind of call (another primitive), " \
        f"seen once: it should run with NumPy, ran with {evaluator(cos3)}"
    assert evaluator(sin4) == "NumPy", \
        "sin on f32[4], after four on f32[3], is another kind of call (another shape), seen " \
        f"once: it should run with NumPy, ran with {evaluator(sin4)}"
    ran = [evaluator(y) for y in sums0]
    assert ran == ["NumPy", "NumPy", "XLA"], f"m.sum(0) three times should run NumPy, NumPy, " \
                                             f"XLA; ran {ran}"
    assert evaluator(sum1) == "NumPy", \
        "m.sum(1), after three m.sum(0), is another kind of call (other parameters: the axes), " \
        f"seen once: it should run with NumPy, ran with {evaluator(sum1)}"
    np.testing.assert_allclose(np.asarray(sum1), [3.0, 12.0])
    assert [evaluator(y) for y in weak_sins] == ["NumPy", "NumPy", "XLA"], \
        f"sin on a weakly typed ~f32[] three times: ran {[evaluator(y) for y in weak_sins]}"
    assert evaluator(strong_sin) == "NumPy", \
        "sin on a f32[], after three on a weakly typed ~f32[], is another kind of call (another " \
        "type: the weak type is part of it, and XLA compiles a program for each), seen once: " \
        f"it should run with NumPy, ran with {evaluator(strong_sin)}"
    assert not strong_sin.weak_type and weak_sins[-1].weak_type, "the results' weak types are wrong"
