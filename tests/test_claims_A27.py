"""Claims of appendix A27 (convolutions, windows and the rest of lax), checked against the real
JAX (see tests/claims.py). Its own file, so that appendices written at the same time do not
edit one list."""
import numpy as np
import pytest

import autodidax
import autodidax.numpy as anp
import jax
import jax.numpy as jnp

from claims import claim, claims_test

A27 = "A27_convolutions_and_windows"
BOTH = [(autodidax, anp), (jax, jnp)]
R = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)


@claim(A27, "JAX refuses reverse mode through a max with window dilation; ours computes it.")
def window_dilated_max_grad():
    args = ((2, 2), (1, 1), "VALID", None, (2, 1))
    f = {lib: (lambda x, lib=lib: lib.lax.reduce_window(x, -np.inf, lib.lax.max, *args).sum())
         for lib, _ in BOTH}
    with pytest.raises(NotImplementedError, match="window dilation"):
        jax.grad(f[jax])(R)
    g = np.asarray(autodidax.grad(f[autodidax])(R))
    assert g.sum() == 2 * 5 and set(np.unique(g)) <= {0.0, 1.0, 2.0}  # one winner per window


@claim(A27, "JAX's partial evaluation raises a `ValueError`; ours reaches the missing transpose "
            "rule and raises `NotImplementedError`.")
def generic_reduce_window_grad():
    for lib, error in ((jax, ValueError), (autodidax, NotImplementedError)):
        with pytest.raises(error):
            lib.grad(lambda x: lib.lax.reduce_window(x, 1.0, lib.lax.mul, (2, 2), (1, 1),
                                                     "VALID").sum())(R)


@claim(A27, "it batches under `vmap` of `lhs` (JAX's raises `NotImplementedError`)")
def ragged_dot_vmap():
    w, sizes = np.ones((2, 6, 3), np.float32), np.array([1, 3], np.int32)
    with pytest.raises(NotImplementedError):
        jax.vmap(lambda x: jax.lax.ragged_dot(x, w, sizes))(np.stack([R, R]))
    out = autodidax.vmap(lambda x: autodidax.lax.ragged_dot(x, w, sizes))(np.stack([R, R]))
    assert out.shape == (2, 4, 3)


@claim(A27, "a call with keywords is traced inline, so its jaxpr lacks the outer `jit` equation "
            "JAX's shows")
def convolve_with_keywords():
    a, v = np.arange(5.0, dtype=np.float32), np.ones(3, np.float32)
    ours, theirs = (str(lib.make_jaxpr(lambda a, v: np_.convolve(a, v, mode="same"))(a, v))
                    for lib, np_ in BOTH)
    assert "name=convolve" in theirs and "name=convolve" not in ours


@claim(A27, "As in JAX, a composite has no JVP, transpose or batching rule")
def composite_has_no_jvp():
    for lib, np_ in BOTH:
        f = lib.lax.composite(lambda x: np_.sin(x), name="my.sin")
        with pytest.raises(ValueError, match="JVP rule for composite not implemented"):
            lib.grad(lambda x: f(x).sum())(R)


@claim(A27, "On the CPU, JAX's falls back to an exact search by sorting, and so do ours")
def approx_top_k_is_exact_on_cpu():
    ours, theirs = (lib.lax.approx_min_k(R, 3) for lib, _ in BOTH)
    exact = np.sort(R, axis=-1)[:, :3]
    assert np.array_equal(theirs[0], exact) and np.array_equal(ours[0], exact)
    assert np.array_equal(ours[1], theirs[1])


@claim(A27, "Where JAX 0.10.2 fails with an internal `AttributeError` (a token operand of `cond` "
            "or `scan`, `jit` of a `while_loop` that carries one), ours runs; a `vmap` that "
            "would stack a token raises a `TypeError` (JAX an `AttributeError`), and `jvp` of a "
            "function returning one gives it a token tangent (JAX a `KeyError`).")
def tokens_where_jax_fails():
    def programs(lib):
        lax = lib.lax
        return [lambda t: lax.cond(True, lax.after_all, lambda t: t, t),
                lambda t: lax.scan(lambda c, x: (lax.after_all(c), x), t, np.ones(2)),
                lambda t: lib.jit(lambda t: lax.while_loop(
                    lambda c: c[0] < 2, lambda c: (c[0] + 1, lax.after_all(c[1])), (0, t)))(t)]
    for f in programs(jax):
        with pytest.raises(AttributeError):
            f(jax.lax.create_token())
    for f in programs(autodidax):
        f(autodidax.lax.create_token())
    for lib, error in ((jax, AttributeError), (autodidax, TypeError)):
        with pytest.raises(error):
            lib.vmap(lambda x: (x, lib.lax.create_token()))(np.ones(3))
    with pytest.raises(KeyError):
        jax.jvp(lambda x: (x, jax.lax.create_token()), (1.0,), (1.0,))
    _, (_, tangent) = autodidax.jvp(lambda x: (x, autodidax.lax.create_token()), (1.0,), (1.0,))
    assert type(tangent).__name__ == "Token"


@claim(A27, "where JAX's has `!stablehlo.token`, `stablehlo.create_token` and "
            "`stablehlo.after_all`, and names a token output `result[0]`, not `result`")
def tokens_lowered_as_empty_arrays():
    texts = {lib: lib.jit(lambda t: lib.lax.after_all(t, lib.lax.create_token())).lower(
        lib.lax.create_token()).as_text() for lib in (jax, autodidax)}
    assert "!stablehlo.token" in texts[jax] and "stablehlo.after_all" in texts[jax]
    assert 'jax.result_info = "result"' in texts[jax]
    assert "tensor<0xi1>" in texts[autodidax] and "token" not in texts[autodidax]
    assert 'jax.result_info = "result[0]"' in texts[autodidax]


test_claims = claims_test(__name__)
