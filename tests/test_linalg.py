"""Tests of autodidax/numpy/linalg.py (appendix A2): the cholesky, triangular_solve and lu
primitives rule by rule, against NumPy, finite differences and JAX. The programs of jnp.linalg
are compared with JAX in tests/test_conformance_linalg.py."""
import os
import subprocess
import sys

import jax
import numpy as np
import pytest

import autodidax
import autodidax.numpy as jnp
from autodidax.numpy import linalg as la

rng = np.random.default_rng(3)


def spd(*shape):
    m = rng.standard_normal(shape).astype(np.float32)
    return (m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(np.float32)


def tri(n, lower=True):
    m = rng.standard_normal((n, n)).astype(np.float32) + n * np.eye(n, dtype=np.float32)
    return np.tril(m) if lower else np.triu(m)


def test_jnp_linalg_is_a_submodule():
    assert jnp.linalg is la
    assert la.__name__ == "autodidax.numpy.linalg"


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (2, 2, 3, 3), (0, 0)])
def test_cholesky_impl_and_lowering_agree_with_numpy(shape):
    a = spd(*shape) if shape != (0, 0) else np.zeros((0, 0), np.float32)
    want = np.linalg.cholesky(a)
    eager = np.tril(la.cholesky_p.bind(a))     # LAPACK leaves the upper triangle as it was
    compiled = autodidax.jit(lambda x: jnp.tril(la.cholesky_p.bind(x)))(a)
    assert eager.dtype == compiled.dtype == np.float32
    np.testing.assert_allclose(eager, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(compiled, want, rtol=1e-5, atol=1e-5)


def test_cholesky_nan_only_for_the_bad_matrix_of_a_batch():
    a = np.stack([spd(3, 3), -np.eye(3, dtype=np.float32)])
    lower = np.tril(np.ones((3, 3), bool))       # the upper triangle is zeroed, as in JAX
    for out in (jnp.linalg.cholesky(a), autodidax.jit(jnp.linalg.cholesky)(a)):
        out = np.asarray(out)
        assert np.isfinite(out[0]).all() and np.isnan(out[1][lower]).all()
        assert (out[1][~lower] == 0).all()


FLAGS = [dict(left_side=s, lower=lo, transpose_a=t, unit_diagonal=u)
         for s in (True, False) for lo in (True, False) for t in (True, False)
         for u in (True, False)]


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: "-".join(k for k, v in f.items() if v)
                         or "plain")
def test_triangular_solve_impl_lowering_and_jax(flags):
    a = tri(4, flags["lower"])
    a_garbage = a + (np.triu(np.ones((4, 4)), 1) if flags["lower"]
                     else np.tril(np.ones((4, 4)), -1)).astype(np.float32)   # never read
    b = rng.standard_normal((4, 3) if flags["left_side"] else (3, 4)).astype(np.float32)
    want = jax.lax.linalg.triangular_solve(a_garbage, b, **flags)
    eager = la.triangular_solve(a_garbage, b, **flags)
    compiled = autodidax.jit(lambda x, y: la.triangular_solve(x, y, **flags))(a_garbage, b)
    np.testing.assert_allclose(eager, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(compiled, want, rtol=1e-5, atol=1e-5)


def test_triangular_solve_vector_b():
    a, b = tri(3), rng.standard_normal(3).astype(np.float32)
    x = la.triangular_solve(a, b, left_side=True, lower=True)
    assert x.shape == (3,)
    np.testing.assert_allclose(a @ np.asarray(x), b, rtol=1e-5, atol=1e-5)


def test_triangular_solve_transpose_rule_by_inner_products():
    a, b, ct = tri(4), rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    b, ct = b.astype(np.float32), ct.astype(np.float32)
    f = lambda y: la.triangular_solve(a, y, left_side=True, lower=True)  # noqa: E731
    x, f_vjp = autodidax.vjp(f, b)
    ct_b, = f_vjp(ct)
    np.testing.assert_allclose(np.sum(ct * np.asarray(x)), np.sum(np.asarray(ct_b) * b),
                               rtol=1e-4)


def test_triangular_solve_linearize_has_only_linear_solves():
    a, b = tri(3), rng.standard_normal((3, 2)).astype(np.float32)
    _, f_jvp = autodidax.linearize(
        lambda x, y: la.triangular_solve(x, y, left_side=True, lower=True), a, b)
    assert "triangular_solve" in str(f_jvp.jaxpr)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 4), (1, 1), (0, 0), (0, 3, 3)])
def test_lu_impl_lowering_and_jax(shape):
    a = rng.standard_normal(shape).astype(np.float32)
    want = jax.lax.linalg.lu(a)
    for got in (la.lu(a), autodidax.jit(la.lu)(a)):
        np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-5)
        for g, w in zip(got[1:], want[1:]):
            assert g.dtype == np.int32
            np.testing.assert_array_equal(g, w)


def test_lu_reconstructs_a_and_handles_a_singular_matrix():
    a = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 2.0], [1.0, 3.0, 4.0]], np.float32)
    for lu_, _, perm in (la.lu(a), autodidax.jit(la.lu)(a)):
        lu_ = np.asarray(lu_)
        L, U = np.tril(lu_, -1) + np.eye(3), np.triu(lu_)
        np.testing.assert_allclose(a[np.asarray(perm)], L @ U, atol=1e-6)


def test_lu_and_cholesky_lower_to_lapack_custom_calls_triangular_solve_to_stablehlo():
    a = np.eye(3, dtype=np.float32)
    text = autodidax.jit(la.lu).lower(a).as_text()
    assert "stablehlo.custom_call @lapack_sgetrf_ffi" in text
    assert "api_version = 4" in text and "operand_layouts = [dense<[0, 1]>" in text
    text = autodidax.jit(lambda x: la.cholesky_p.bind(x)).lower(a).as_text()
    assert "stablehlo.custom_call @lapack_spotrf_ffi" in text and "stablehlo.cholesky" not in text
    text = autodidax.jit(lambda x: la.triangular_solve(x, x, left_side=True)).lower(a).as_text()
    assert "triangular_solve" in text and "custom_call" not in text


def test_lu_batched_layouts():
    text = autodidax.jit(la.lu).lower(np.zeros((2, 3, 4), np.float32)).as_text()
    assert "dense<[1, 2, 0]>" in text and 'num_batch_dims = "1"' in text


def test_pivots_to_permutation_matches_the_impl():
    a = rng.standard_normal((3, 6, 6)).astype(np.float32)
    _, pivots, perm = la.lu(a)
    np.testing.assert_array_equal(la.pivots_to_permutation(pivots, 6), perm)


def test_lu_jvp_against_finite_differences():
    a, da = (rng.standard_normal((2, 4, 4)).astype(np.float32) for _ in range(2))
    (lu_, _, _), (t, t_piv, t_perm) = autodidax.jvp(la.lu, (a,), (da,))
    eps = 1e-3
    numeric = (la.lu(a + eps * da)[0] - la.lu(a - eps * da)[0]) / (2 * eps)
    np.testing.assert_allclose(t, numeric, rtol=2e-2, atol=2e-2)
    assert t_piv.dtype == jax.dtypes.float0 and t_perm.shape == (2, 4)


def test_cholesky_jvp_matches_jax():
    a = spd(2, 4, 4)
    da = rng.standard_normal((2, 4, 4)).astype(np.float32)
    ours = autodidax.jvp(jnp.linalg.cholesky, (a,), (da,))[1]
    theirs = jax.jvp(jax.numpy.linalg.cholesky, (a,), (da,))[1]
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("in_axes", [0, 1, 2])
def test_batching_rules_move_the_batch_axis(in_axes):
    a = np.moveaxis(spd(3, 4, 4), 0, in_axes)
    out = autodidax.vmap(jnp.linalg.cholesky, in_axes=in_axes)(a)
    want = np.linalg.cholesky(np.moveaxis(a, in_axes, 0))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    lus = autodidax.vmap(la.lu, in_axes=in_axes)(a)
    for got, w in zip(lus, jax.vmap(jax.lax.linalg.lu, in_axes=in_axes)(a)):
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-5)


def test_triangular_solve_batched_a_and_unbatched_b():
    a = np.stack([tri(3), tri(3)])
    b = rng.standard_normal((3, 2)).astype(np.float32)
    out = autodidax.vmap(lambda x: la.triangular_solve(x, b, left_side=True, lower=True))(a)
    for i in range(2):
        np.testing.assert_allclose(a[i] @ np.asarray(out[i]), b, rtol=1e-4, atol=1e-4)


def test_solve_grad_vmap_jit_compose():
    a = rng.standard_normal((3, 4, 4)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    loss = lambda a, b: jnp.sum(jnp.linalg.solve(a, b) ** 2)  # noqa: E731
    ours = autodidax.jit(autodidax.vmap(autodidax.grad(loss, argnums=(0, 1))))(a, b)
    theirs = jax.jit(jax.vmap(jax.grad(loss_jax := (lambda a, b: jax.numpy.sum(
        jax.numpy.linalg.solve(a, b) ** 2)), argnums=(0, 1))))(a, b)
    del loss_jax
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o, t, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("bad, error", [
    (lambda: la.cholesky_p.bind(np.eye(3, dtype=np.int32)), TypeError),
    (lambda: la.cholesky_p.bind(np.ones((2, 3), np.float32)), ValueError),
    (lambda: la.lu(np.ones(3, np.float32)), ValueError),
    (lambda: la.triangular_solve(np.eye(3, dtype=np.float32), np.ones((2, 2), np.float32),
                                 left_side=True), ValueError),
    (lambda: la.triangular_solve(np.eye(3, dtype=np.float32), np.ones((3, 2), np.int32),
                                 left_side=True), TypeError),
    (lambda: jnp.linalg.slogdet(np.eye(3, dtype=np.complex64), method="qr"),
     NotImplementedError),
    (lambda: la.qr_p.bind(np.eye(3, dtype=np.float32), pivoting=True, full_matrices=True,
                          use_magma=None), NotImplementedError),
    (lambda: la.eigh_p.bind(np.eye(3, dtype=np.float32), lower=True, sort_eigenvalues=True,
                            subset_by_index=(0, 1), algorithm=None), NotImplementedError),
    (lambda: jnp.linalg.eigh(np.eye(3, dtype=np.int32)[:2]), TypeError),   # as JAX: symmetrizing
])
def test_errors(bad, error):
    with pytest.raises(error):
        bad()


def test_error_messages_name_the_problem():
    with pytest.raises(ValueError, match=r"square matrix.*\(2, 3\)"):
        la.cholesky_p.bind(np.ones((2, 3), np.float32))
    with pytest.raises(NotImplementedError, match="pivoting=True.*geqp3"):
        la.qr_p.bind(np.eye(2, dtype=np.float32), pivoting=True, full_matrices=True,
                     use_magma=None)
    with pytest.raises(TypeError, match="floating-point.*i32"):
        la.lu(np.eye(2, dtype=np.int32))


def test_no_jax_in_a_fresh_process():
    code = ("import sys, numpy as np, autodidax as jax, autodidax.numpy as jnp\n"
            "a = np.eye(4, dtype=np.float32) * 2\n"
            "print(float(jax.jit(jnp.linalg.det)(a)), float(jax.grad(jnp.linalg.det)(a)[0, 0]))\n"
            "assert 'jax' not in sys.modules, 'jax was imported'\n")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["16.0", "8.0"]


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 3), (1, 1)])
def test_eigh_impl_lowering_and_jax(shape):
    a = spd(*shape)
    want_v, want_w = jax.lax.linalg.eigh(a)
    for v, w in (la.lax_eigh(a), autodidax.jit(la.lax_eigh)(a)):
        np.testing.assert_allclose(w, want_w, rtol=1e-5, atol=1e-4)
        np.testing.assert_allclose(np.abs(v), np.abs(want_v), rtol=1e-4, atol=1e-4)


def test_eigh_lowering_layouts_and_parameters():
    text = autodidax.jit(la.lax_eigh).lower(spd(2, 3, 3)).as_text()
    assert "stablehlo.custom_call @lapack_ssyevd_ffi" in text
    assert "mode = 86 : ui8" in text and "uplo = 76 : ui8" in text
    # the eigenvectors column-major, the eigenvalues [2, 3] row-major, info [2]
    assert "result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]>" in text


def test_eigh_jvp_against_finite_differences():
    a = spd(4, 4)
    da = rng.standard_normal((4, 4)).astype(np.float32)
    da = da + da.T
    (v, w), (dv, dw) = autodidax.jvp(la.lax_eigh, (a,), (da,))
    eps = 1e-2
    plus, minus = la.lax_eigh(a + eps * da), la.lax_eigh(a - eps * da)
    np.testing.assert_allclose(dw, (plus[1] - minus[1]) / (2 * eps), rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(dv, (plus[0] - minus[0]) / (2 * eps), rtol=5e-2, atol=5e-2)
