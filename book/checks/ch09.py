"""Checks of chapter 9's exercises (chapters/09_autodiff.md): each takes the notebook's
namespace."""
import numpy as np

from autodidax.jvp import Zero


def check_zeros_like_partial_eval(nb):
    """1. A value known from its type: `zeros_like`'s partial evaluation rule stages nothing."""
    zeros_like_p, partial_eval_jaxpr = nb["zeros_like_p"], nb["partial_eval_jaxpr"]
    make_jaxpr, eval_jaxpr = nb["make_jaxpr"], nb["eval_jaxpr"]

    def f(a, b):
        return a * 2.0, zeros_like_p.bind(b), b * 3
    closed = make_jaxpr(f)(np.ones(3, np.float32), np.ones((2, 4), np.int32))
    known, unknown, out_unknowns, _ = partial_eval_jaxpr(closed, [False, True])
    assert out_unknowns == [False, False, True], (
        f"with b unknown, only b * 3 depends on b's value: the unknown outputs should be "
        f"[False, False, True], got {out_unknowns}")
    assert "zeros_like" not in [e.primitive.name for e in unknown.jaxpr.eqns], \
        f"zeros_like should not be staged:\n{unknown}"
    try:
        outs = eval_jaxpr(known.jaxpr, known.consts, np.full(3, 5.0, np.float32))
    except Exception as e:
        raise AssertionError(f"the known jaxpr does not run ({type(e).__name__}): make the zeros "
                             "from x's type alone, without x, whose value is unknown") from None
    z = np.asarray(outs[1])
    assert (z.dtype, z.shape) == (np.int32, (2, 4)) and not z.any(), (
        f"zeros_like(b) should be zeros of b's type, int32 of shape (2, 4); got {z.dtype} of "
        f"shape {z.shape}")
    baked = [c for c in known.consts if np.shape(c) == (2, 4)]
    assert not baked, (
        "the zeros are a constant of the known jaxpr, made eagerly while tracing: make them on "
        "the parent trace, so that the known jaxpr computes them")


def check_linear_transpose(nb):
    """2. `linear_transpose`: traced once, the transpose of linear maps, an error for others."""
    linear_transpose, jnp = nb["linear_transpose"], nb["jnp"]
    A = np.arange(12.0, dtype=np.float32).reshape(3, 4) - 5.0
    calls = []

    def matvec(x):
        calls.append(x)
        return jnp.asarray(A) @ x

    matvec_t = linear_transpose(matvec, np.zeros(4, np.float32))
    for ct in [np.ones(3, np.float32), np.float32([1.0, -2.0, 0.5])]:
        got = np.asarray(matvec_t(ct))
        assert got.shape == (4,) and np.allclose(got, A.T @ ct), \
            f"the transpose of x -> A @ x should give A.T @ ct = {A.T @ ct}, got {got}"
    assert len(calls) == 1, (
        f"f ran {len(calls)} times for one linear_transpose and two cotangents: trace it once, "
        "when linear_transpose is called")

    rng = np.random.default_rng(0)
    x2, ct2 = rng.standard_normal((2, 3), np.float32), rng.standard_normal((3, 2), np.float32)
    shift = lambda x: jnp.concatenate([x[:, 1:], 2.0 * x[:, :1]], axis=1).T
    got = np.asarray(linear_transpose(shift, x2)(ct2))
    lhs, rhs = np.sum(np.asarray(shift(x2)) * ct2), np.sum(x2 * got)
    assert got.shape == (2, 3) and abs(lhs - rhs) < 1e-4, (
        f"for a shift, a doubling and a transpose: <f(x), ct> = {lhs:.5f} but <x, f_t(ct)> = "
        f"{rhs:.5f}: that is not the transpose")

    z = linear_transpose(lambda x: jnp.zeros(3), np.ones(4, np.float32))(np.ones(3, np.float32))
    assert type(z) is not Zero and np.shape(z) == (4,) and not np.any(np.asarray(z)), (
        f"x -> zeros(3) is linear, and its transpose gives zeros of x's shape (4,), as an array; "
        f"got {z!r}")

    for name, f in [("sin(x)", jnp.sin), ("x * x", lambda x: x * x)]:
        try:
            linear_transpose(f, np.ones(4, np.float32))(np.ones(4, np.float32))
        except Exception:
            continue
        raise AssertionError(f"x -> {name} is not linear, yet it got a transpose: that is the "
                             "transpose of its derivative at one point, which vjp gives")


def _scatter_add_reference(idx, ct, shape):
    out = np.zeros(shape, np.float32)
    np.add.at(out, idx, ct)
    return out


def check_take_rows_transpose(nb):
    """3. The transpose of a gather: repeated rows add up, and the rule binds chapter 1's
    primitives (it runs traced)."""
    take_rows, take_rows_transpose = nb["take_rows"], nb["take_rows_transpose"]
    vjp, grad, jnp, get_aval = nb["vjp"], nb["grad"], nb["jnp"], nb["get_aval"]
    make_jaxpr, eval_jaxpr, UndefinedPrimal = (nb["make_jaxpr"], nb["eval_jaxpr"],
                                               nb["UndefinedPrimal"])
    rng = np.random.default_rng(1)
    idx0 = np.int32([3, 0, 3, 1, 3, 3])         # row 3 four times, rows 2 and 4 never
    for shape, dtype in [((5,), np.float32), ((5, 2, 3), np.float16), ((5, 2), np.float32)]:
        x0 = rng.standard_normal(shape).astype(dtype)
        ct0 = rng.integers(-4, 5, (6, *shape[1:])).astype(dtype)
        _, f_vjp = vjp(lambda x: take_rows(x, idx0), jnp.asarray(x0))
        try:
            (x_bar,) = f_vjp(jnp.asarray(ct0))
        except NotImplementedError:
            raise
        except Exception as e:
            raise AssertionError(f"the vjp of take_rows on {get_aval(x0).str_short()} raised "
                                 f"{type(e).__name__}: {e}") from None
        want = _scatter_add_reference(idx0, ct0, shape)
        assert (np.shape(x_bar), np.asarray(x_bar).dtype) == (shape, dtype), (
            f"the cotangent of x should have x's type {get_aval(x0).str_short()}, got "
            f"{get_aval(np.asarray(x_bar)).str_short()}")
        assert np.allclose(x_bar, want, atol=1e-5), (
            f"for idx = {idx0.tolist()} and ct = {ct0.tolist()}, the cotangent of x should be "
            f"{want.tolist()}, got {np.asarray(x_bar).tolist()}: row k of ct goes to row idx[k], "
            "and the cotangents of a row taken several times add up")

    w0 = rng.integers(-4, 5, (6, 2)).astype(np.float32)
    loss = lambda x, idx: jnp.sum(take_rows(x, idx) * w0)
    try:
        closed = make_jaxpr(grad(loss))(x0, idx0)
    except Exception as e:
        raise AssertionError(f"make_jaxpr(grad(...)), where ct and idx are tracers, failed "
                             f"({type(e).__name__}: {e}): the rule must bind primitives, not "
                             "call NumPy") from None
    used = {e.primitive.name for e in closed.jaxpr.eqns}
    assert not any(name.startswith("scatter") for name in used), \
        "the rule binds chapter 11's scatter-add: build the sum from chapter 1's primitives"
    rule = make_jaxpr(lambda ct, idx: take_rows_transpose(ct, UndefinedPrimal(get_aval(x0)),
                                                          idx)[0])(w0, idx0)
    gathers = sorted({e.primitive.name for e in rule.jaxpr.eqns} & {"take_rows", "gather"})
    assert not gathers, f"the rule binds {gathers}: a gather is not among chapter 1's " \
        "primitives; compare idx with an iota"
    idx1 = np.int32([4, 4, 2, 0, 4, 1])
    (got,) = eval_jaxpr(closed.jaxpr, closed.consts, x0, idx1)
    want = _scatter_add_reference(idx1, w0, (5, 2))
    assert np.allclose(got, want, atol=1e-5), (
        f"the traced gradient, run with idx = {idx1.tolist()}, gives {np.asarray(got).tolist()}, "
        f"not {want.tolist()}")
