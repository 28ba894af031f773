"""Checks of appendix A2's exercises (chapters/A2_library.md): each takes the notebook's
namespace."""
import numpy as np

import autodidax.indexing_rest as a12            # lax.top_k is appendix A12's
from autodidax.jvp import float0
from book.exercises import watch

a12_top_k = (a12.top_k, a12._top_k_abstract, a12._top_k_jvp, a12._top_k_batching,
             a12._top_k_lowering)


def _refused(*args, **kwargs):
    raise AssertionError("log1mexp calls jax.nn.log1mexp, which is this exercise's answer with "
                         "a derivative rule of its own: write it with jnp's functions")


def check_log1mexp(nb):
    """1. log(1 - exp(-x)): its values and its gradient, on both sides of log 2."""
    import autodidax.nn as nn
    saved = nn.more_functions.get("log1mexp")
    nn.more_functions["log1mexp"] = _refused         # found by name, as `jax.nn.log1mexp` is
    try:
        _check_log1mexp(nb)
    finally:
        nn.more_functions["log1mexp"] = saved


def _check_log1mexp(nb):
    log1mexp, jax, jnp = nb["log1mexp"], nb["jax"], nb["jnp"]
    x = np.array([1e-30, 1e-7, 0.3, 0.69, 0.7, 2.0, 30.0, 60.0], np.float32)
    xd = x.astype(np.float64)
    small = xd < np.log(2)
    want = np.empty_like(xd)
    want[small], want[~small] = np.log(-np.expm1(-xd[small])), np.log1p(-np.exp(-xd[~small]))
    got = np.asarray(log1mexp(jnp.asarray(x)))
    assert got.dtype == np.float32, f"log1mexp of float32 should be float32, got {got.dtype}"
    for xi, g, w in zip(x, got, want):
        near = "near 0, 1 - exp(-x) keeps few digits of x; -expm1(-x) keeps them all"
        far = "for large x, 1 - exp(-x) rounds to 1; log1p(-exp(-x)) keeps the small term"
        assert np.isclose(g, w, rtol=1e-5, atol=0), \
            f"log1mexp({xi:g}) should be {w:.7g}, got {g:.7g}: {near if xi < 0.5 else far}"
    grads = np.asarray(jax.vmap(jax.grad(log1mexp))(jnp.asarray(x)))
    assert np.all(np.isfinite(grads)), \
        f"the gradient at x = {x[~np.isfinite(grads)]} is {grads[~np.isfinite(grads)]}: the " \
        "branch that where does not take is still differentiated, and log1p(-1) is -inf " \
        "there; feed that branch a harmless input where it is not taken"
    want_g = 1 / np.expm1(xd)
    assert np.allclose(grads, want_g, rtol=1e-4, atol=0), \
        f"the gradient at x = {x.tolist()} should be 1 / (exp(x) - 1) = " \
        f"{[float(f'{v:.5g}') for v in want_g]}, got {[float(f'{v:.5g}') for v in grads]}"


def check_logcumsumexp(nb):
    """2. A cumulative logsumexp: values, any axis, and the gradient."""
    logcumsumexp, jax, jnp = nb["logcumsumexp"], nb["jax"], nb["jnp"]
    x = np.array([[-200.0, 0.0, 1000.0, 999.0, -5.0], [0.25, 0.5, 0.75, -80.0, 3.0]], np.float32)
    want = np.logaddexp.accumulate(x.astype(np.float64), axis=-1)
    assert "cumlogsumexp" not in str(jax.make_jaxpr(logcumsumexp)(x)), \
        "logcumsumexp binds lax's cumlogsumexp, which is this exercise's answer: write it with " \
        "jax.lax.scan and jnp's functions"
    got = np.asarray(logcumsumexp(jnp.asarray(x)))
    assert got.shape == x.shape, f"the result should have x's shape {x.shape}, got {got.shape}"
    assert np.isclose(got[1, 0], x[1, 0], rtol=1e-5), \
        f"the first entry of logcumsumexp({x[1].tolist()}) should be {x[1, 0]}, got " \
        f"{got[1, 0]}: the prefix at position i is x_0, ..., x_i, so the first is x_0 alone " \
        "(its logsumexp combined with log 0 = -inf, nothing else)"
    assert np.all(np.isfinite(got)), \
        f"logcumsumexp({x.tolist()}) gave {np.round(got, 4).tolist()}: a prefix far below the " \
        "largest entry of the axis must not underflow, nor a large entry overflow"
    assert np.allclose(got, want, rtol=1e-5, atol=1e-5), \
        f"logcumsumexp({x.tolist()}) should be {np.round(want, 4).tolist()}, got " \
        f"{np.round(got, 4).tolist()}"
    got0 = np.asarray(logcumsumexp(jnp.asarray(x), axis=0))
    assert got0.shape == x.shape, \
        f"with axis=0, the result should have x's shape {x.shape}, got {got0.shape}: move the " \
        "axis back to where it was"
    assert np.allclose(got0, np.logaddexp.accumulate(x.astype(np.float64), axis=0),
                       rtol=1e-5, atol=1e-5), f"with axis=0, got {np.round(got0, 4).tolist()}"
    x3 = np.linspace(-3.0, 3.0, 24, dtype=np.float32).reshape(2, 3, 4) ** 3
    got1 = np.asarray(logcumsumexp(jnp.asarray(x3), axis=1))
    want1 = np.logaddexp.accumulate(x3.astype(np.float64), axis=1)
    assert got1.shape == x3.shape and np.allclose(got1, want1, rtol=1e-5, atol=1e-5), \
        f"with axis=1 of an f32[2,3,4], the result should be {np.round(want1, 3).tolist()}, " \
        f"got {np.round(got1.astype(np.float64), 3).tolist()}: any axis of any rank, not only a " \
        "matrix's"
    w = np.linspace(0.1, 1.0, 10, dtype=np.float32).reshape(2, 5)
    g = np.asarray(jax.grad(lambda x: jnp.sum(logcumsumexp(x) * w))(jnp.asarray(x)))
    # d/dx_j of sum_i w_i out_i is the sum over i >= j of w_i exp(x_j - out_i)
    i, j = np.indices((5, 5))
    exponent = np.where(i >= j, x.astype(np.float64)[:, None, :] - want[:, :, None], -np.inf)
    want_g = np.einsum("rij,ri->rj", np.exp(exponent), w)
    assert np.allclose(g, want_g, rtol=1e-4, atol=1e-6), \
        f"the gradient of sum(w * logcumsumexp(x)) should be {np.round(want_g, 4).tolist()}, " \
        f"got {np.round(g, 4).tolist()}"


def check_top_k(nb):
    """3. A new primitive, top_k: its abstract evaluation, JVP and batching rules."""
    top_k, jax, jnp = nb["top_k"], nb["jax"], nb["jnp"]
    with watch(*a12_top_k) as seen:
        x = np.array([[3.0, 1.0, 4.0, 1.5, 9.0, 2.6], [5.0, 3.0, 5.8, 9.7, 9.3, 2.0]], np.float32)
        order = np.argsort(-x, axis=-1)
        outs = jax.make_jaxpr(lambda x: top_k(x, 2))(x).jaxpr.outvars
        types = [v.aval.str_short() for v in outs]
        assert types == ["f32[2,2]", "i32[2,2]"], \
            f"top_k(x, 2) of an f32[2,6] should give f32[2,2] and i32[2,2], got {types}"
        outs = jax.make_jaxpr(lambda x: top_k(x, 3))(np.zeros((2, 5, 6), np.float32)).jaxpr.outvars
        types = [v.aval.str_short() for v in outs]
        assert types == ["f32[2,5,3]", "i32[2,5,3]"], \
            f"top_k(x, 3) of an f32[2,5,6] should give f32[2,5,3] and i32[2,5,3], got {types}: " \
            "the last axis becomes k, and the others stay as they are"
        outs = jax.make_jaxpr(lambda x: top_k(x, 2))(np.zeros((2, 6), np.int32)).jaxpr.outvars
        types = [v.aval.str_short() for v in outs]
        assert types == ["i32[2,2]", "i32[2,2]"], \
            f"top_k(x, 2) of an i32[2,6] should give i32[2,2] and i32[2,2], got {types}: the " \
            "values have x's dtype"
        for run in (top_k, jax.jit(top_k, static_argnums=1)):
            values, indices = run(x, 3)
            assert np.array_equal(indices, order[:, :3]) and np.array_equal(
                values, np.take_along_axis(x, order[:, :3], -1)), \
                f"top_k(x, 3) should be the 3 largest entries of each row and their indices, " \
                f"got {values} and {indices}"
        t = np.arange(12, dtype=np.float32).reshape(2, 6) - 5
        _, t_values = jax.jvp(lambda x: top_k(x, 3)[0], (x,), (t,))
        want = np.take_along_axis(t, order[:, :3], -1)
        assert np.array_equal(t_values, want), \
            f"with x's tangent {t.tolist()}, the values' tangent should be x's tangent at the " \
            f"chosen indices, {want.tolist()}, got {np.asarray(t_values).tolist()}"
        _, t_indices = jax.jvp(lambda x: top_k(x, 3)[1], (x,), (t,))
        assert np.asarray(t_indices).dtype == float0, \
            f"the indices' tangent should be the zero tangent of an int32 value, of dtype float0 " \
            f"(Zero.from_primal_value), got dtype {np.asarray(t_indices).dtype}"
        w = np.array([1.0, 2.0], np.float32)
        try:
            g = jax.grad(lambda x: jnp.sum(top_k(x, 2)[0] * w))(x)
        except NotImplementedError:
            raise
        except Exception as err:
            raise AssertionError(f"grad through top_k failed ({type(err).__name__}: {err}): build "
                                 "the values' tangent from jnp operations on the tangent")
        want = np.zeros_like(x)
        np.put_along_axis(want, order[:, :2], w, -1)
        assert np.array_equal(g, want), f"grad should put w at the chosen indices: {want}, got {g}"
        x3 = np.random.default_rng(0).permutation(48).astype(np.float32).reshape(2, 6, 4)
        for axis in (0, 1, 2):
            values, indices = jax.vmap(lambda x: top_k(x, 2), in_axes=axis)(x3)
            each = [top_k(np.take(x3, i, axis), 2) for i in range(x3.shape[axis])]
            want_v, want_i = (np.stack([np.asarray(e[j]) for e in each]) for j in (0, 1))
            assert np.shape(values) == want_v.shape and np.array_equal(values, want_v) \
                and np.array_equal(indices, want_i), \
                f"vmap over axis {axis} of an f32{list(x3.shape)}: the results should be each " \
                f"example's, of shape {want_v.shape}; got {np.shape(values)} and " \
                f"{np.shape(indices)}" \
                f"{'' if np.shape(values) != want_v.shape else ', other values'}: the primitive " \
                "works along the last axis, whichever axis is batched"
        assert not seen, f"the rules called appendix A12's {seen[0]}: write this primitive's own"
