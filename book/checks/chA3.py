"""Checks of appendix A3's exercises (chapters/A3_linalg.md): each takes the notebook's
namespace."""
import numpy as np
from book.checks.common import equations



def mvn_reference(x, mean, cov):
    x, mean, cov = (np.asarray(v, np.float64) for v in (x, mean, cov))
    d = x - mean
    quad = np.sum(d * np.linalg.solve(cov, d[..., None])[..., 0], axis=-1)
    return -0.5 * (cov.shape[-1] * np.log(2 * np.pi) + np.linalg.slogdet(cov)[1] + quad)


def check_mvn_logpdf(nb):
    """1. A normal log density from one factor: one Cholesky, one solve, values and gradient."""
    mvn_logpdf, jax = nb["mvn_logpdf"], nb["jax"]
    check_rng = np.random.default_rng(1)
    M = check_rng.standard_normal((4, 4)).astype(np.float32)
    cov = M @ M.T + np.diag([4.0, 0.5, 2.0, 1.0]).astype(np.float32)
    mean = check_rng.standard_normal(4).astype(np.float32)
    xs = check_rng.standard_normal((3, 4)).astype(np.float32)
    names = [e.primitive.name for e in equations(jax.make_jaxpr(mvn_logpdf)(xs, mean, cov).jaxpr)]
    assert "lu" not in names, \
        "mvn_logpdf factors cov with lu (through solve, inv, det or slogdet): use its Cholesky " \
        "factor for both terms"
    assert names.count("cholesky") == 1, \
        f"mvn_logpdf should factor cov once, with cholesky; its program has " \
        f"{names.count('cholesky')}"
    assert names.count("triangular_solve") == 1, \
        f"mvn_logpdf should make one triangular solve, y = L^-1 (x - mean), and take the " \
        f"squared norm of y; its program has {names.count('triangular_solve')}"
    got = np.asarray(mvn_logpdf(xs, mean, cov))
    assert got.shape == (3,), f"for x of shape (3, 4), expected 3 densities, got shape {got.shape}"
    want = mvn_reference(xs, mean, cov)
    assert np.allclose(got, want, rtol=1e-4), \
        f"mvn_logpdf should be {want}, got {got}: the quadratic form is the squared norm of " \
        "L^-1 (x - mean), and log det cov is twice the sum of the logs of L's diagonal"
    one = np.asarray(mvn_logpdf(xs[0], mean, cov))
    assert one.shape == (), f"for one x of shape (4,), expected one density, of shape (), got " \
        f"shape {one.shape}"
    one = float(one)
    assert np.isclose(one, want[0], rtol=1e-4), \
        f"for one x of shape (4,), expected {want[0]}, got {one}"
    big = (10 * np.eye(60) + 0.1 * check_rng.standard_normal((60, 60))).astype(np.float32)
    big = (big @ big.T).astype(np.float32)
    got = float(mvn_logpdf(np.zeros(60, np.float32), np.ones(60, np.float32), big))
    want = mvn_reference(np.zeros(60), np.ones(60), big)
    assert np.isclose(got, want, rtol=1e-4), \
        f"in 60 dimensions, where det(cov) is about 1e120, mvn_logpdf should be {want:.6g}, " \
        f"got {got:.6g}: sum the logs of the diagonal, never take the log of their product"
    g = np.asarray(jax.grad(mvn_logpdf)(xs[0], mean, cov))
    want = -np.linalg.solve(cov.astype(np.float64), xs[0] - mean)
    assert np.allclose(g, want, rtol=1e-3, atol=1e-4), \
        f"the gradient in x should be -inv(cov) (x - mean) = {want}, got {g}"


def check_triangular_solve_batch(nb):
    """2. Batching a solve: one solve with the matrix as it is, when only b is batched."""
    triangular_solve = nb["triangular_solve"]
    triangular_solve_p = nb["triangular_solve_p"]
    jax = nb["jax"]
    check_rng = np.random.default_rng(2)
    T = (np.tril(check_rng.standard_normal((3, 3))) + 3 * np.eye(3)).astype(np.float32)

    def solve_each(a, bs, axis, params):
        return np.stack([triangular_solve(a if a.ndim == 2 else a[i], np.take(bs, i, axis),
                                          **params) for i in range(bs.shape[axis])])
    for left_side in (True, False):
        for lower in (True, False):
            for transpose_a in (False, True):
                params = dict(left_side=left_side, lower=lower, transpose_a=transpose_a)
                a = T if lower else T.T
                example = (3, 2) if left_side else (2, 3)
                for axis in (0, 1, 2):
                    shape = list(example)
                    shape.insert(axis, 4)
                    bs = check_rng.standard_normal(shape).astype(np.float32)
                    f = jax.vmap(lambda b: triangular_solve(a, b, **params), in_axes=axis)
                    try:
                        got = np.asarray(f(bs))
                    except NotImplementedError:
                        raise
                    except Exception as err:
                        raise AssertionError(f"vmap over axis {axis} of b, with {params}, raised "
                                             f"{type(err).__name__}: {err}")
                    want = solve_each(a, bs, axis, params)
                    assert got.shape == want.shape and np.allclose(got, want, atol=1e-4), \
                        f"vmap over axis {axis} of b, with {params}: the solves of the 4 " \
                        "examples come out wrong; fold the batch axis next to b's columns " \
                        "(left_side) or rows, and unfold it the same way"
                    solves = [e for e in equations(jax.make_jaxpr(f)(bs).jaxpr)
                              if e.primitive is triangular_solve_p]
                    seen = [str(e.invars[0].aval.str_short()) for e in solves]
                    assert seen == ["f32[3,3]"], \
                        f"vmap over b alone should make one solve with a as it is, f32[3,3]; " \
                        f"the program solves with {seen}: fold the examples into b instead " \
                        "of copying a"
    Ts = np.stack([T, T + np.eye(3, dtype=np.float32)])          # a stack of 2, not batched
    for left_side in (True, False):
        params = dict(left_side=left_side, lower=True)
        bs = check_rng.standard_normal((2, 4, 3, 2) if left_side else (2, 4, 2, 3))
        f = jax.vmap(lambda b: triangular_solve(Ts, b, **params), in_axes=1)
        try:
            got = np.asarray(f(bs.astype(np.float32)))
        except NotImplementedError:
            raise
        except Exception as err:
            raise AssertionError(f"vmap over axis 1 of b, with a of shape (2, 3, 3) (a stack "
                                 f"of matrices, not batched) and {params}, raised "
                                 f"{type(err).__name__}: {err}")
        want = np.stack([triangular_solve(Ts, bs[:, i].astype(np.float32), **params)
                         for i in range(4)])
        assert got.shape == want.shape and np.allclose(got, want, atol=1e-4), \
            f"vmap over b, with a of shape (2, 3, 3) and {params}: the solves come out wrong; " \
            "a may have batch axes of its own, and b's columns and rows are its last two axes"
    As = np.stack([T + i * np.eye(3, dtype=np.float32) for i in range(4)])
    bs = check_rng.standard_normal((4, 3, 2)).astype(np.float32)
    params = dict(left_side=True, lower=True)
    for in_axes, args in [((0, 0), (As, bs)), ((0, None), (As, bs[0]))]:
        try:
            got = np.asarray(jax.vmap(lambda a, b: triangular_solve(a, b, **params),
                                      in_axes=in_axes)(*args))
        except NotImplementedError:
            raise
        except Exception as err:
            raise AssertionError(f"vmap with in_axes={in_axes}, a batched, raised "
                                 f"{type(err).__name__}: {err}")
        want = np.stack([triangular_solve(As[i], bs[i] if in_axes[1] == 0 else bs[0], **params)
                         for i in range(4)])
        assert np.allclose(got, want, atol=1e-4), \
            f"vmap with in_axes={in_axes}, a batched: wrong solves"


def _sqrtm64(a):
    w, v = np.linalg.eigh(np.asarray(a, np.float64))
    return (v * np.sqrt(w)) @ v.T


def check_sqrtm_jvp(nb):
    """3. A rule about results: the square root of a matrix. Tangents against finite
    differences, `grad` through the rule, and a stack of matrices."""
    sqrtm, jax, jnp = nb["sqrtm"], nb["jax"], nb["jnp"]
    check_rng = np.random.default_rng(3)
    eps = 1e-4
    for n in (3, 4):
        m = check_rng.standard_normal((n, n))
        a = (m @ m.T + n * np.eye(n)).astype(np.float32)
        a_dot = check_rng.standard_normal((n, n))
        a_dot = (a_dot + a_dot.T).astype(np.float32)          # symmetric, as A's moves are
        try:
            x, x_dot = jax.jvp(sqrtm, (a,), (a_dot,))
        except NotImplementedError:
            raise
        except Exception as err:
            raise AssertionError(f"jvp of sqrtm raised {type(err).__name__}: {err}")
        x, x_dot = np.asarray(x), np.asarray(x_dot)
        assert np.allclose(x, _sqrtm64(a), atol=1e-4), \
            "the rule's first result should be sqrtm(a), the primal output"
        want = (_sqrtm64(a + eps * a_dot) - _sqrtm64(a - eps * a_dot)) / (2 * eps)
        assert x_dot.shape == want.shape, \
            f"x_dot should have the shape of a, {want.shape}, got {x_dot.shape}"
        if not np.allclose(x_dot, want, atol=1e-3):
            residual = x @ x_dot + x_dot @ x - a_dot
            hint = ("it does not solve X x_dot + x_dot X = a_dot" if
                    np.abs(residual).max() > 1e-2 else "it solves the equation but not exactly")
            raise AssertionError(f"for a {n}x{n} matrix, x_dot is off by up to "
                                 f"{np.abs(x_dot - want).max():.3g}: {hint}; in the basis V, "
                                 "X is diag(sqrt(w)) and the equation holds entry by entry")
    f = lambda a: jnp.sum(jnp.sin(sqrtm(a)))             # noqa: E731
    try:
        g = np.asarray(jax.grad(f)(a))
    except NotImplementedError:
        raise
    except Exception as err:
        raise AssertionError(f"grad through sqrtm failed ({type(err).__name__}: {err}): build "
                             "x_dot from jnp operations, linear in a_dot")
    want = np.sum(np.cos(x) * x_dot)        # the same derivative, from the checked jvp
    assert np.isclose(np.sum(g * a_dot), want, rtol=1e-4, atol=1e-5), \
        "the gradient through sqrtm does not match the jvp: the rule's x_dot must be linear " \
        "in a_dot, built from jnp operations"
    m = check_rng.standard_normal((2, 3, 3))
    stack = (m @ np.swapaxes(m, -1, -2) + 3 * np.eye(3)).astype(np.float32)
    stack_dot = check_rng.standard_normal((2, 3, 3))
    stack_dot = (stack_dot + np.swapaxes(stack_dot, -1, -2)).astype(np.float32)
    try:
        got = np.asarray(jax.jvp(sqrtm, (stack,), (stack_dot,))[1])
    except NotImplementedError:
        raise
    except Exception as err:
        raise AssertionError(f"jvp of sqrtm of a stack of matrices, of shape (2, 3, 3), raised "
                             f"{type(err).__name__}: {err}: transpose the last two axes only "
                             "(jnp.swapaxes), not with .T")
    want = np.stack([np.asarray(jax.jvp(sqrtm, (stack[i],), (stack_dot[i],))[1])
                     for i in range(2)])
    assert got.shape == want.shape and np.allclose(got, want, atol=1e-4), \
        f"for a stack of matrices of shape (2, 3, 3), x_dot should be each matrix's; got " \
        f"shape {got.shape}: transpose the last two axes only (jnp.swapaxes), and index the " \
        "eigenvalues from the end (s[..., :, None])"
