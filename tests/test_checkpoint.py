"""Tests of `autodidax.ad_checkpoint` (chapter 14) that are not a plain differential comparison:
`print_saved_residuals` against JAX's (locations aside), what the staged programs recompute,
the optimization barrier of the lowering, dead code elimination, and compiled memory."""
import contextlib
import io
import os
import re

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.ad_checkpoint  # noqa: E402
import jax.numpy as jjnp  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import autodidax as ad  # noqa: E402
import autodidax.numpy as jnp  # noqa: E402
from autodidax import lax  # noqa: E402
from autodidax.ad_checkpoint import (checkpoint_name, name_p, print_saved_residuals,  # noqa: E402
                                     remat_p, saved_residuals)
from autodidax.autodiff import dce_jaxpr  # noqa: E402

X = np.array([0.5, -1.0, 2.0], np.float32)
W = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0) / 10.0
A = np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(2, 3)


def _printed(lib_print, f, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        lib_print(f, *args)
    # Locations differ in form (JAX adds a column and the full path): compare the rest.
    # JAX names the function by its qualified name, we by its name: compare the last part.
    return re.sub(r" from \S+:\d+(:\d+)? \((?:\S+\.)?([^.\s]+)\)$", r" from LINE (\2)",
                  out.getvalue(), flags=re.M).splitlines()


def _programs(lib, jnp_):
    """A few functions of (x) or (w, a), written once for both libraries."""
    name = (jax.ad_checkpoint if lib is jax else ad.ad_checkpoint).checkpoint_name

    def f(x):
        y = jnp_.sin(x)
        return jnp_.sum(jnp_.sin(y) * x)

    def named(x):
        y = name(jnp_.sin(x), "y")
        return jnp_.sum(jnp_.sin(y) * x)

    def mlp(w, a):
        h = jnp_.tanh(a @ w)
        return jnp_.sum(jnp_.tanh(h @ w.T) ** 2)

    pol = lib.checkpoint_policies
    return [
        (f, (X,)), (lib.checkpoint(f), (X,)), (named, (X,)),
        (lib.checkpoint(named, policy=pol.save_only_these_names("y")), (X,)),
        (mlp, (W, A)), (lib.checkpoint(mlp), (W, A)),
        (lib.checkpoint(mlp, policy=pol.dots_saveable), (W, A)),
        (lambda p: mlp(p["w"], p["a"]), ({"w": W, "a": A},)),
    ]


@pytest.mark.parametrize("i", range(8))
def test_print_saved_residuals_like_jax(i):
    f_jax, args = _programs(jax, jjnp)[i]
    f_ours, _ = _programs(ad, jnp)[i]
    theirs = _printed(jax.ad_checkpoint.print_saved_residuals, f_jax, *args)
    ours = _printed(print_saved_residuals, f_ours, *args)
    assert ours == theirs
    assert ours, "every program here saves something"


def test_saved_residuals_locations_name_the_users_line():
    def g(x):
        y = checkpoint_name(jnp.sin(x), "y")      # the line the residual must name
        return jnp.sum(jnp.sin(y) * x)
    policy = ad.checkpoint_policies.save_only_these_names("y")
    found = saved_residuals(ad.checkpoint(g, policy=policy), X)
    line = g.__code__.co_firstlineno + 1
    assert [s for _, s in found] == ["from the argument x",
                                     f"named 'y' from test_checkpoint.py:{line}:12 "
                                     "(test_saved_residuals_locations_name_the_users_line.<locals>.g)"]


def _remat_eqns(jaxpr):
    return [e for e in jaxpr.jaxpr.eqns if e.primitive is remat_p]


def _count(jaxpr, prim_name):
    return sum(e.primitive.name == prim_name for e in jaxpr.eqns)


@pytest.mark.parametrize("policy, recomputed_sines", [
    (None, 2), ("everything_saveable", 0), ("nothing_saveable", 2)])
def test_backward_pass_recomputes_what_the_policy_does_not_save(policy, recomputed_sines):
    def f(x):
        return jnp.sum(jnp.sin(jnp.sin(x)) * x)
    p = None if policy is None else getattr(ad.checkpoint_policies, policy)
    closed = ad.make_jaxpr(ad.grad(ad.checkpoint(f, policy=p)))(X)
    (backward,) = _remat_eqns(closed)
    assert backward.params["differentiated"] is True
    assert _count(backward.params["jaxpr"], "sin") == recomputed_sines
    forward_sines = sum(e.primitive is lax.sin_p for e in closed.jaxpr.eqns)
    assert forward_sines == 2


def test_dots_saveable_saves_the_products_and_recomputes_tanh():
    def mlp(w, a):
        return jnp.sum(jnp.tanh(jnp.tanh(a @ w) @ w.T))
    closed = ad.make_jaxpr(ad.grad(ad.checkpoint(
        mlp, policy=ad.checkpoint_policies.dots_saveable)))(W, A)
    (backward,) = _remat_eqns(closed)
    inner = backward.params["jaxpr"]
    assert _count(inner, "dot_general") == 3      # the backward products only: none recomputed
    assert _count(inner, "tanh") == 2             # both tanh recomputed from the saved products


def test_lowering_has_a_barrier_only_when_differentiated_and_prevent_cse():
    f = lambda x: jnp.sum(jnp.sin(jnp.sin(x)))       # noqa: E731
    text = ad.jit(ad.grad(ad.checkpoint(f))).lower(X).as_text()
    assert text.count("stablehlo.optimization_barrier") == 1
    text = ad.jit(ad.grad(ad.checkpoint(f, prevent_cse=False))).lower(X).as_text()
    assert "optimization_barrier" not in text
    text = ad.jit(ad.checkpoint(f)).lower(X).as_text()     # not differentiated: no barrier
    assert "optimization_barrier" not in text


def test_checkpoint_is_the_identity_outside_differentiation():
    f = lambda x: jnp.sin(x) * 2.0                    # noqa: E731
    np.testing.assert_array_equal(ad.checkpoint(f)(X), f(X))
    np.testing.assert_array_equal(ad.remat(f)(X), f(X))
    closed = ad.make_jaxpr(ad.checkpoint(f))(X)
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive is remat_p and eqn.params["differentiated"] is False


def test_checkpoint_name_is_the_identity_and_marks_primal_values_only():
    named = lambda x: checkpoint_name(jnp.sin(x), "s")     # noqa: E731
    closed = ad.make_jaxpr(lambda x, t: ad.jvp(named, (x,), (t,)))(X, X)
    names = [e for e in closed.jaxpr.eqns if e.primitive is name_p]
    assert len(names) == 1 and names[0].params == {"name": "s"}
    np.testing.assert_allclose(ad.vmap(named)(A), np.sin(A), rtol=1e-6)
    assert checkpoint_name(X, "x") is X


def test_dce_prunes_inside_remat():
    def f(x):
        a, b = ad.checkpoint(lambda x: (jnp.sin(x), jnp.cos(x) * 3.0))(x)
        return a * 2.0, b
    jaxpr = ad.make_jaxpr(f)(X).jaxpr
    pruned, used = dce_jaxpr(jaxpr, [True, False])
    assert used == [True]
    (remat_eqn, mul_eqn) = pruned.eqns
    assert remat_eqn.primitive is remat_p and len(remat_eqn.outvars) == 1
    assert [e.primitive.name for e in remat_eqn.params["jaxpr"].eqns] == ["sin"]
    none, used = dce_jaxpr(jaxpr, [False, False])
    assert none.eqns == [] and used == [False]


def test_static_argnums_retraces_per_value():
    traces = []

    def f(x, n):
        traces.append(n)
        return jnp.sum(x ** n)
    g = ad.checkpoint(f, static_argnums=(1,))
    np.testing.assert_allclose(ad.grad(g)(X, 2), 2 * X, rtol=1e-6)
    np.testing.assert_allclose(ad.grad(g)(X, 3), 3 * X ** 2, rtol=1e-6)
    assert traces == [2, 3]


def test_memory_analysis_checkpointed_scan_saves_like_jax():
    layers, width, batch = 4, 32, 64
    ws = (np.arange(layers * width * width, dtype=np.float32).reshape(layers, width, width)
          % 13 - 6.0) / (6.0 * width)
    h = np.linspace(-1, 1, batch * width, dtype=np.float32).reshape(batch, width)

    def temp(lib, jnp_, checkpointed):
        body = lambda c, w: (jnp_.tanh(c @ w), None)          # noqa: E731
        body = lib.checkpoint(body) if checkpointed else body
        loss = lambda ws, h: jnp_.sum(lib.lax.scan(body, h, ws)[0] ** 2)   # noqa: E731
        stats = lib.jit(lib.grad(loss)).lower(ws, h).compile().memory_analysis()
        return stats.temp_size_in_bytes

    ours = [temp(ad, jnp, c) for c in (False, True)]
    theirs = [temp(jax, jjnp, c) for c in (False, True)]
    assert ours[1] < ours[0] / 2, f"checkpoint should shrink the scan's residuals: {ours}"
    for o, t in zip(ours, theirs):
        assert abs(o - t) <= 0.1 * t, f"ours {ours}, JAX's {theirs}"


def test_python_control_flow_error_names_the_function_and_points_at_static_argnums():
    def absolute(x):
        return x if x > 0 else -x
    with pytest.raises(ad.errors.TracerBoolConversionError) as info:
        ad.checkpoint(ad.checkpoint(absolute))(1.0)
    message = str(info.value)
    assert "checkpoint(absolute) at test_checkpoint.py" in message
    assert message.count("Consider using the `static_argnums` parameter") == 1
