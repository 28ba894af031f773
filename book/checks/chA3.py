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


def check_qr_jvp(nb):
    """3. The derivative of QR: tangents against finite differences, no lu, any stack."""
    qr, triangular_solve_p, jax, jnp = nb["qr"], nb["triangular_solve_p"], nb["jax"], nb["jnp"]
    check_rng = np.random.default_rng(3)
    eps = 1e-4
    for shape, kind in [((4, 4), "square"), ((5, 3), "tall")]:
        a, a_dot = (check_rng.standard_normal(shape).astype(np.float32) for _ in range(2))
        (q, r), (q_dot, r_dot) = jax.jvp(qr, (a,), (a_dot,))
        plus, minus = (np.linalg.qr(a.astype(np.float64) + s * eps * a_dot) for s in (1, -1))
        want_q, want_r = ((p - m) / (2 * eps) for p, m in zip(plus, minus))
        assert np.allclose(r_dot, want_r, atol=1e-3), \
            f"for a {kind} {shape} matrix, r_dot should be {np.round(want_r, 3).tolist()}, got " \
            f"{np.round(np.asarray(r_dot, np.float64), 3).tolist()}: (X - omega) R, with omega " \
            "the antisymmetric matrix made from X's part below the diagonal"
        assert np.allclose(q_dot, want_q, atol=1e-3), \
            f"for a {kind} {shape} matrix, q_dot is wrong (off by up to " \
            f"{np.abs(np.asarray(q_dot) - want_q).max():.3g})" + \
            (": when m > n, add the part outside Q's columns" if kind == "tall" else
             ": Q omega, with omega the antisymmetric matrix made from X's part below the "
             "diagonal")
    try:
        names = [e.primitive.name for e in equations(jax.make_jaxpr(
            lambda a, t: jax.jvp(qr, (a,), (t,)))(a, a_dot).jaxpr)]
    except NotImplementedError:
        raise
    except Exception as err:
        raise AssertionError(f"jvp of qr failed under make_jaxpr ({type(err).__name__}: {err}): "
                             "build the tangents from jnp operations and triangular_solve")
    assert "lu" not in names, \
        "the rule inverts R with lu (through inv or solve): R is triangular, use triangular_solve"
    jvp_jaxpr = jax.make_jaxpr(lambda a, t: jax.jvp(qr, (a,), (t,)))(a, a_dot).jaxpr
    tangential = {jvp_jaxpr.invars[1]}            # the values that depend on the tangent
    for e in jvp_jaxpr.eqns:
        if any(v in tangential for v in e.invars if not hasattr(v, "val")):
            tangential.update(e.outvars)
        assert e.primitive is not triangular_solve_p or e.invars[1] in tangential, \
            "the rule solves with R against a matrix that does not depend on a_dot (inverting " \
            "R, as against the identity): apply R^-1 to a_dot itself, with triangular_solve"
    f = lambda a: jnp.sum(jnp.sin(qr(a)[0])) + jnp.sum(qr(a)[1] ** 2)
    try:
        g = np.asarray(jax.grad(f)(a))
    except NotImplementedError:
        raise
    except Exception as err:
        raise AssertionError(f"grad through qr failed ({type(err).__name__}: {err}): build "
                             "the tangents from jnp operations and triangular_solve")
    fd = lambda a: np.sum(np.sin(np.linalg.qr(a)[0])) + np.sum(np.linalg.qr(a)[1] ** 2)
    numeric = (fd(a.astype(np.float64) + eps * a_dot) - fd(a.astype(np.float64) - eps * a_dot))
    assert np.isclose(np.sum(g * a_dot), numeric / (2 * eps), rtol=1e-3), \
        "the gradient through qr does not match finite differences"
    stack, stack_dot = (check_rng.standard_normal((2, 5, 3)).astype(np.float32)
                        for _ in range(2))
    try:
        got = jax.jvp(qr, (stack,), (stack_dot,))[1]
    except NotImplementedError:
        raise
    except Exception as err:
        raise AssertionError(f"jvp of qr of a stack of matrices, of shape (2, 5, 3), raised "
                             f"{type(err).__name__}: {err}: transpose the last two axes only "
                             "(jnp.swapaxes), not with .T")
    each = [jax.jvp(qr, (stack[i],), (stack_dot[i],))[1] for i in range(2)]
    for k, name in enumerate(["q_dot", "r_dot"]):
        want = np.stack([np.asarray(e[k]) for e in each])
        assert np.shape(got[k]) == want.shape and np.allclose(got[k], want, atol=1e-4), \
            f"for a stack of matrices of shape (2, 5, 3), {name} should be each matrix's; got " \
            f"shape {np.shape(got[k])}: transpose the last two axes only (jnp.swapaxes)"
