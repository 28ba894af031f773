"""Checks of chapter 18's exercises (chapters/18_capstone.md): each takes the notebook's
namespace."""
import re

import numpy as np

import autodidax as jax
import autodidax.numpy as jnp

COLLECTIVES = ("all-reduce", "all-gather", "all-to-all", "reduce-scatter", "collective-permute")


def check_momentum_step(nb):
    """1. Momentum: `momentum_step` under `jit` matches SGD with momentum, step by step, trains
    the chapter's network, and maps over any pytree of parameters."""
    momentum_step, loss, params0, X, Y = (nb["momentum_step"], nb["loss"], nb["params0"],
                                          nb["X"], nb["Y"])
    LR, BETA = nb["LR"], nb["BETA"]
    p, v = params0, jax.tree.map(np.zeros_like, params0)
    want_p, want_v = params0, jax.tree.map(np.zeros_like, params0)
    fast = jax.jit(momentum_step)
    for i in range(3):
        value, p, v = fast(p, v, X, Y)
        want_value = float(loss(want_p, X, Y))
        assert abs(float(value) - want_value) < 1e-5, \
            f"step {i}: the loss should be that of the parameters before the step, " \
            f"{want_value:.5f}, got {float(value):.5f}"
        g = jax.grad(loss)(want_p, X, Y)
        want_v = {k: BETA * want_v[k] + np.asarray(g[k]) for k in g}
        want_p = {k: np.asarray(want_p[k]) - LR * want_v[k] for k in g}
        assert set(v) == set(params0), \
            f"the velocity should have the keys of params, got {sorted(v)}"
        for k in params0:
            err = float(np.max(np.abs(np.asarray(v[k]) - want_v[k])))
            assert err < 1e-4, \
                f"step {i}: velocity[{k!r}] is off by {err:.2g}: it should be BETA * velocity " \
                "+ grad"
            err = float(np.max(np.abs(np.asarray(p[k]) - want_p[k])))
            assert err < 1e-4, \
                f"step {i}: params[{k!r}] is off by {err:.2g}: it should move by LR times the " \
                "new velocity"
    for _ in range(200):
        value, p, v = fast(p, v, X, Y)
    assert float(value) < 0.2, \
        f"after 203 steps with momentum the loss should be below 0.2, got {float(value):.4f}"
    chapter_loss = loss         # a loss of nested parameters, for one step (momentum_step reads
    nb["loss"] = lambda params, x, y: sum(   # the notebook's global `loss`)
        jnp.sum((q - 1.0) ** 2) for q in jax.tree.leaves(params))
    tree = ({"layer": np.float32([0.0, 2.0])}, [np.float32([3.0])])
    try:
        value, p, v = momentum_step(tree, jax.tree.map(np.ones_like, tree), None, None)
    except Exception as e:
        raise AssertionError(f"on nested parameters {tree}, momentum_step raised "
                             f"{type(e).__name__}: {e}: map over any pytree") from None
    finally:
        nb["loss"] = chapter_loss
    want_v = jax.tree.map(lambda q: BETA + 2 * (q - 1), tree)
    want_p = jax.tree.map(lambda q, w: q - LR * w, tree, want_v)
    for name, got, want in [("velocity", v, want_v), ("params", p, want_p)]:
        assert jax.tree.structure(got) == jax.tree.structure(want) and all(
            np.allclose(g, w) for g, w in zip(jax.tree.leaves(got), jax.tree.leaves(want))), \
            f"on nested parameters {tree}, the new {name} should be {want}, got {got}"


def check_train_until(nb):
    """2. Stopping inside the program: `train_until` under `jit` stops where the chapter's step
    would, with one program for every target, and tests the loss in its loop."""
    train_until, loss, step, params0, X, Y = (nb["train_until"], nb["loss"], nb["step"],
                                              nb["params0"], nb["X"], nb["Y"])

    def steps_until(target, max_steps):
        """The steps the chapter's `step` takes from `params0` until the loss is below `target`."""
        p, n, losses = params0, 0, [float(loss(params0, X, Y))]
        while losses[-1] >= target and n < max_steps:
            _, p = step(p, X, Y)
            n += 1
            losses.append(float(loss(p, X, Y)))
        return p, n, losses

    until = jax.jit(train_until)
    for target, max_steps in [(0.3, 1000), (0.1, 1000), (0.1, 40), (1.0, 1000)]:
        want_p, want_n, losses = steps_until(target, max_steps)
        try:
            p, n = until(params0, X, Y, target, max_steps)
        except NotImplementedError:
            raise
        except Exception as e:
            raise AssertionError(
                f"jit(train_until) raised {type(e).__name__}: the loop runs inside the "
                "program, where the loss is a tracer: test it with lax.while_loop") from None
        assert np.asarray(n).dtype.kind in "iu", \
            f"the number of steps should be an integer array, got one of {np.asarray(n).dtype}"
        assert int(n) == want_n, \
            f"to a loss below {target} (at most {max_steps} steps) the chapter's step takes " \
            f"{want_n} steps, you took {int(n)}: " + (
                f"stop at {max_steps} steps" if want_n == max_steps else
                f"the loss of params0 is already {losses[0]:.4f}: test it before the first step"
                if want_n == 0 else
                f"the loss after {want_n} steps is {losses[want_n]:.4f}, after "
                f"{want_n - 1}, {losses[want_n - 1]:.4f}: test the loss of the parameters "
                "you would return")
        gap = max(float(np.max(np.abs(np.asarray(p[k]) - np.asarray(want_p[k])))) for k in p)
        assert gap < 1e-4, f"the parameters after {want_n} steps are off by {gap:.2g}"
    assert until.trace_count == 1, \
        f"jit(train_until) was traced {until.trace_count} times for four targets: the target " \
        "and max_steps should be traced arguments, not constants"
    def tests_of_loops(jaxpr):
        """The input types of the comparisons in the test of each `while` in `jaxpr`."""
        for e in jaxpr.eqns:
            if e.primitive.name == "while":
                yield {str(v.aval.dtype) for q in e.params["cond_jaxpr"].jaxpr.eqns
                       for v in q.invars}
            for sub in e.params.values():
                if hasattr(sub, "eqns") or hasattr(sub, "jaxpr"):
                    yield from tests_of_loops(getattr(sub, "jaxpr", sub))
    tests = list(tests_of_loops(jax.make_jaxpr(train_until)(params0, X, Y, 0.1, 40).jaxpr))
    assert any("float32" in t for t in tests), \
        "the loop of train_until tests only its count, and runs max_steps times whatever the " \
        "loss: its test (the while_loop's cond_fun) should compare the loss with target"


def check_model_shardings(nb):
    """3. The model split over eight devices: the step on parameters placed by
    `model_shardings` is the one-device step, keeps their shardings, and has one all-reduce."""
    model_shardings, step, params0, X, Y, Mesh = (nb["model_shardings"], nb["step"],
                                                  nb["params0"], nb["X"], nb["Y"], nb["Mesh"])
    model = Mesh(np.array(jax.devices()), ("model",))
    shardings = model_shardings(model)
    assert isinstance(shardings, dict) and set(shardings) == set(params0), \
        f"model_shardings should give a sharding for each of {sorted(params0)}, got {shardings}"
    try:
        placed = {k: jax.device_put(params0[k], shardings[k]) for k in params0}
    except ValueError as e:
        raise AssertionError(f"placing the parameters so raised: {e}: a dimension split over "
                             "8 devices must be divisible by 8") from None
    for k in ("w0", "w1"):
        piece = placed[k].addressable_shards[0].data.shape
        assert np.prod(piece) * 8 == placed[k].size, \
            f"each device holds {piece} of {k}, of shape {placed[k].shape}: it should hold " \
            "an eighth"
    value8, new8 = step(placed, X, Y)
    value1, new1 = step(params0, X, Y)
    for k in params0:
        gap = float(np.max(np.abs(np.asarray(new8[k]) - np.asarray(new1[k]))))
        assert gap < 1e-5, f"the new {k} is off by {gap:.2g} from the step on one device"
    text = step.lower(placed, X, Y).compile().as_text()
    found = {op: n for op in COLLECTIVES
             if (n := len(re.findall(rf" {op}(?:-start)?\(", text)))}
    assert found == {"all-reduce": 1}, \
        f"the partitioned step communicates with {found}, not one all-reduce: a product whose " \
        "contracted dimension is split needs an all-reduce of its partial sums; a split operand " \
        "that must be whole, an all-gather"
    for k in params0:
        came, left = placed[k].sharding.spec, new8[k].sharding.spec
        assert new8[k].sharding == placed[k].sharding, \
            f"{k} came in split as {came} and leaves the step split as {left}: the next step " \
            "would be another program"
