"""autodidax/control_flow.py: cond, while_loop and fori_loop agree with JAX's under every
transformation, print as JAX's, lower to StableHLO's case and while, and err clearly."""
import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest
from jax import lax as lax_ref

import autodidax.numpy as jnp
from autodidax import lax
from autodidax.autodiff import grad, linearize
from autodidax.batching import vmap
from autodidax.control_flow import cond, while_loop
from autodidax.control_flow_reference import fori_loop
from autodidax.jaxpr import make_jaxpr
from autodidax.jit import jit
from autodidax.jvp import jvp

XS = np.array([0.3, -1.2, 2.5, 0.0], np.float32)
PS = np.array([True, False, True, False])


def close(ours, theirs, tol=2e-6):
    ours, theirs = jax.tree.leaves(ours), jax.tree.leaves(theirs)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# Programs written once for both libraries: m is the numpy module, c the lax module.
def branchy(m, c, p, x):
    return c.cond(p, lambda x: m.sin(x) * 2.0, lambda x: m.cos(x) - x, x)


W = np.arange(3.0, dtype=np.float32)


def closes_over(m, c, p, x):
    w = W
    return c.cond(p, lambda x: (x * w, x.sum()), lambda x: (x + 1.0, w.sum()), x)


def loop(m, c, x, n):
    return c.while_loop(lambda s: s[0] < n, lambda s: (s[0] + 1, m.sin(s[1]) * x), (0, x))


def doubling(m, c, x, limit):
    return c.while_loop(lambda v: v < limit, lambda v: v * 2.0, x)


def fori(m, c, x, n):
    return c.fori_loop(0, n, lambda i, v: v * x + i, x)


def both(f, *args):
    return f(jnp, lax, *args), f(jnp_ref, lax_ref, *args)


def test_lax_namespace_exposes_control_flow():
    assert lax.cond is cond and lax.while_loop is while_loop and lax.fori_loop is fori_loop


@pytest.mark.parametrize("p", [True, False, 0, 3, np.int32(1), 0.0, 2.5])
def test_cond_eager_and_jit(p):
    close(*both(branchy, p, 1.3))
    close(jit(lambda p, x: branchy(jnp, lax, p, x))(p, XS),
          jax.jit(lambda p, x: branchy(jnp_ref, lax_ref, p, x))(p, XS))


def test_cond_pytrees_closures_and_no_operands():
    for p in (True, False):
        close(*both(closes_over, p, np.ones(3, np.float32)))
    assert float(cond(True, lambda: 1.0, lambda: 2.0)) == 1.0
    out = cond(False, lambda d: {"a": d["a"] * 2.0}, lambda d: {"a": d["a"] - 1.0}, {"a": 3.0})
    assert float(out["a"]) == 2.0


@pytest.mark.parametrize("in_axes", [(0, 0), (None, 0), (0, None)])
def test_cond_vmap(in_axes):
    p = PS if in_axes[0] == 0 else True
    x = XS if in_axes[1] == 0 else 0.7
    ours = vmap(lambda p, x: branchy(jnp, lax, p, x), in_axes)(p, x)
    theirs = jax.vmap(lambda p, x: branchy(jnp_ref, lax_ref, p, x), in_axes)(p, x)
    close(ours, theirs)
    close(jit(vmap(lambda p, x: branchy(jnp, lax, p, x), in_axes))(p, x), theirs)


def test_cond_vmap_with_batched_predicate_is_a_select():
    text = str(make_jaxpr(vmap(lambda p, x: branchy(jnp, lax, p, x)))(PS, XS))
    assert "cond" not in text and "select_n" in text


def test_grad_of_cond_with_batched_predicate_skips_the_branch_not_taken():
    # the branch not taken computes 1/0 = inf; its examples reach it through stop_gradient, so
    # grad gives JAX's 1.0 there, not 0 * inf = nan
    def make(m, c):
        return lambda p, x: c.cond(p, lambda x: 1.0 / x, lambda x: x * 1.0, x)
    ps, xs = np.array([True, False]), np.array([2.0, 0.0], np.float32)
    close(grad(lambda x: vmap(make(jnp, lax))(ps, x).sum())(xs),
          jax.grad(lambda x: jax.vmap(make(jnp_ref, lax_ref))(ps, x).sum())(xs))
    rows = np.stack([xs, xs + 1.0], 1)      # f32[2, 2], and one operand not batched
    for in_axes, x in [((0, 0), rows), ((0, None), np.float32(3.0))]:
        ours = make_jaxpr(vmap(make(jnp, lax), in_axes))(ps, x)
        assert str(ours) == str(jax.make_jaxpr(jax.vmap(make(jnp_ref, lax_ref), in_axes))(ps, x))


@pytest.mark.parametrize("p", [True, False])
def test_cond_jvp(p):
    ours = jvp(lambda x: branchy(jnp, lax, p, x), (1.3,), (0.5,))
    theirs = jax.jvp(lambda x: branchy(jnp_ref, lax_ref, p, x), (1.3,), (0.5,))
    close(ours, theirs)
    # a tangent that only one branch makes nonzero
    ours = jvp(lambda x: cond(p, lambda x: x * 3.0, lambda x: 1.0, x), (2.0,), (1.0,))
    assert float(ours[1]) == (3.0 if p else 0.0)
    close(jit(lambda x: jvp(lambda x: branchy(jnp, lax, p, x), (x,), (1.0,)))(1.3),
          jax.jvp(lambda x: branchy(jnp_ref, lax_ref, p, x), (1.3,), (1.0,)))


@pytest.mark.parametrize("p", [True, False])
def test_grad_through_cond(p):
    def make(m, c):
        return lambda x, y: c.cond(p, lambda x: (x * y).sum(), lambda x: m.sin(x).sum() * 2.0,
                                   x)
    xs = np.array([0.5, -1.0, 2.0], np.float32)
    close(grad(make(jnp, lax), (0, 1))(xs, 1.5), jax.grad(make(jnp_ref, lax_ref), (0, 1))(xs, 1.5))
    close(jit(grad(make(jnp, lax)))(xs, 1.5), jax.grad(make(jnp_ref, lax_ref))(xs, 1.5))


def test_grad_through_cond_on_a_traced_predicate_with_vmap():
    def make(m, c):
        return lambda x: c.cond(x.sum() > 0, lambda x: (x * x).sum(), lambda x: m.exp(x).sum(), x)
    xs = np.stack([XS, -XS - 1.0])
    # JAX's side under jit: one program, where eagerly it compiles each primitive alone
    close(vmap(grad(make(jnp, lax)))(xs), jax.jit(jax.vmap(jax.grad(make(jnp_ref, lax_ref))))(xs))
    close(grad(make(jnp, lax))(XS), jax.jit(jax.grad(make(jnp_ref, lax_ref)))(XS))


def test_cond_jaxprs_print_as_jax():
    for args in [(True, 1.0), (3, np.ones(3, np.float32))]:
        ours = make_jaxpr(lambda p, x: branchy(jnp, lax, p, x))(*args)
        theirs = jax.make_jaxpr(lambda p, x: branchy(jnp_ref, lax_ref, p, x))(*args)
        assert str(ours) == str(theirs)
    ours = make_jaxpr(lambda p, x: closes_over(jnp, lax, p, x))(True, np.ones(3, np.float32))
    theirs = jax.make_jaxpr(lambda p, x: closes_over(jnp_ref, lax_ref, p, x))(
        True, np.ones(3, np.float32))
    assert str(ours) == str(theirs)


def test_long_branches_print_as_jax():
    def long(m):
        def branch(x):
            for _ in range(11):
                x = m.sin(x)
            return x
        return branch
    ours = make_jaxpr(lambda p, x: cond(p, long(jnp), lambda x: x, x))(True, 1.0)
    theirs = jax.make_jaxpr(lambda p, x: lax_ref.cond(p, long(jnp_ref), lambda x: x, x))(True, 1.0)
    assert str(ours) == str(theirs)


def test_cond_lowers_to_case():
    text = jit(lambda p, x: branchy(jnp, lax, p, x)).lower(True, 1.0).as_text()
    assert '"stablehlo.case"' in text and text.count("stablehlo.return") == 2
    compiled = jit(lambda p, x: branchy(jnp, lax, p, x)).lower(False, 1.0).compile()
    close(compiled(False, 1.0), branchy(jnp_ref, lax_ref, False, 1.0))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_while_loop_eager_and_jit(n):
    close(*both(loop, 0.7, n))
    close(jit(lambda x, n: loop(jnp, lax, x, n))(0.7, n),
          jax.jit(lambda x, n: loop(jnp_ref, lax_ref, x, n))(0.7, n))


def test_while_loop_weak_carry_becomes_strong():
    x = np.float32(1.5)
    ours = while_loop(lambda c: c < 10.0, lambda c: c * x, 1.0)
    theirs = lax_ref.while_loop(lambda c: c < 10.0, lambda c: c * x, 1.0)
    close(ours, theirs)
    assert ours.weak_type == theirs.aval.weak_type


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0)])
def test_while_loop_vmap(in_axes):
    ns = np.array([1, 3, 0, 5], np.int32)
    x = XS if in_axes[0] == 0 else 0.9
    n = ns if in_axes[1] == 0 else 3
    ours = vmap(lambda x, n: loop(jnp, lax, x, n), in_axes)(x, n)
    theirs = jax.vmap(lambda x, n: loop(jnp_ref, lax_ref, x, n), in_axes)(x, n)
    close(ours, theirs)
    close(jit(vmap(lambda x, n: loop(jnp, lax, x, n), in_axes))(x, n), theirs)


def test_while_loop_vmap_batched_predicate_keeps_finished_examples():
    xs = np.array([1.0, 3.0, 20.0, 0.5], np.float32)
    ours = vmap(lambda x: doubling(jnp, lax, x, 10.0))(xs)
    close(ours, jax.vmap(lambda x: doubling(jnp_ref, lax_ref, x, 10.0))(xs))
    assert np.asarray(ours).tolist() == [16.0, 12.0, 20.0, 16.0]


def test_while_loop_jvp():
    for n in (0, 3):
        ours = jvp(lambda x: loop(jnp, lax, x, n)[1], (0.7,), (1.0,))
        theirs = jax.jvp(lambda x: loop(jnp_ref, lax_ref, x, n)[1], (0.7,), (1.0,))
        close(ours, theirs)
    # the carry's tangent starts at zero and becomes nonzero in the body
    f = lambda m, c: lambda x: c.while_loop(lambda s: s[0] < 3, lambda s: (s[0] + 1, s[1] + x),
                                            (0, 0.0))[1]
    close(jvp(f(jnp, lax), (2.0,), (1.0,)), jax.jvp(f(jnp_ref, lax_ref), (2.0,), (1.0,)))
    close(vmap(lambda x: jvp(lambda x: loop(jnp, lax, x, 3)[1], (x,), (1.0,)))(XS),
          jax.vmap(lambda x: jax.jvp(lambda x: loop(jnp_ref, lax_ref, x, 3)[1], (x,), (1.0,)))(XS))
    close(jit(lambda x: jvp(lambda x: loop(jnp, lax, x, 3)[1], (x,), (1.0,)))(0.7),
          jax.jvp(lambda x: loop(jnp_ref, lax_ref, x, 3)[1], (0.7,), (1.0,)))
    close(linearize(lambda x: loop(jnp, lax, x, 3)[1], 0.7)[1](1.0),
          jax.linearize(lambda x: loop(jnp_ref, lax_ref, x, 3)[1], 0.7)[1](1.0))


def test_while_jaxprs_print_as_jax():
    w = np.arange(3.0, dtype=np.float32)

    def count_up(m, c, x):
        return c.while_loop(lambda s: s[0] < 10, lambda s: (s[0] + 1, s[1] * w), (0, x))
    x = np.ones(3, np.float32)
    assert str(make_jaxpr(lambda x: count_up(jnp, lax, x))(x)) == \
        str(jax.make_jaxpr(lambda x: count_up(jnp_ref, lax_ref, x))(x))
    ours = make_jaxpr(lambda x: jvp(lambda x: loop(jnp, lax, x, 3)[1], (x,), (1.0,)))(0.7)
    theirs = jax.make_jaxpr(
        lambda x: jax.jvp(lambda x: loop(jnp_ref, lax_ref, x, 3)[1], (x,), (1.0,)))(0.7)
    assert str(ours) == str(theirs)
    ours = make_jaxpr(lambda x, n: fori(jnp, lax, x, n))(1.0, 5)
    theirs = jax.make_jaxpr(lambda x, n: fori(jnp_ref, lax_ref, x, n))(1.0, 5)
    assert str(ours) == str(theirs)


def test_while_lowers_to_while():
    text = jit(lambda x: loop(jnp, lax, x, 4)).lower(0.7).as_text()
    assert "stablehlo.while" in text and "cond {" in text and "} do {" in text
    close(jit(lambda x: loop(jnp, lax, x, 4)).lower(0.7).compile()(0.7),
          loop(jnp_ref, lax_ref, 0.7, 4))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_fori_loop(n):
    close(*both(fori, 1.1, n))
    close(jit(lambda x: fori(jnp, lax, x, n))(1.1),
          jax.jit(lambda x: fori(jnp_ref, lax_ref, x, n))(1.1))
    close(vmap(lambda x: fori(jnp, lax, x, n))(XS),
          jax.vmap(lambda x: fori(jnp_ref, lax_ref, x, n))(XS), tol=1e-5)
    ns = np.array([0, 2, 4, 1], np.int32)
    close(vmap(lambda n: fori(jnp, lax, 1.1, n))(ns),
          jax.vmap(lambda n: fori(jnp_ref, lax_ref, 1.1, n))(ns))
    close(jvp(lambda x: fori(jnp, lax, x, n), (1.1,), (1.0,)),
          jax.jvp(lambda x: fori(jnp_ref, lax_ref, x, n), (1.1,), (1.0,)), tol=1e-5)


def test_control_flow_nests():
    def f(m, c, x):
        body = lambda i, v: c.cond(i < 2, lambda v: v * 2.0, lambda v: v - 1.0, v)
        return c.fori_loop(0, 5, body, x)

    close(*both(f, 1.5))
    close(jit(lambda x: f(jnp, lax, x))(1.5), f(jnp_ref, lax_ref, 1.5))
    close(vmap(lambda x: f(jnp, lax, x))(XS), jax.vmap(lambda x: f(jnp_ref, lax_ref, x))(XS))

    def g(m, c, x):
        return c.cond(x > 0, lambda x: c.while_loop(lambda v: v < 100.0, lambda v: v * 3.0, x),
                      lambda x: -x, x)
    close(jit(lambda x: g(jnp, lax, x))(2.0), g(jnp_ref, lax_ref, 2.0))
    close(vmap(lambda x: g(jnp, lax, x))(np.abs(XS) + 0.5),
          jax.vmap(lambda x: g(jnp_ref, lax_ref, x))(np.abs(XS) + 0.5))
    close(jvp(lambda x: g(jnp, lax, x), (2.0,), (1.0,)),
          jax.jvp(lambda x: g(jnp_ref, lax_ref, x), (2.0,), (1.0,)))


def test_tracer_closures_under_transformations():
    # The branches and the body close over a value being differentiated or batched.
    def f(m, c, x):
        return c.cond(x > 1.0, lambda: x * x, lambda: m.sin(x))

    def g(m, c, x):
        return c.while_loop(lambda v: v < 5.0, lambda v: v + x, 0.0)
    for x in (0.5, 2.0):
        close(grad(lambda x: f(jnp, lax, x))(x), jax.grad(lambda x: f(jnp_ref, lax_ref, x))(x))
        close(jvp(lambda x: g(jnp, lax, x), (x,), (1.0,)),
              jax.jvp(lambda x: g(jnp_ref, lax_ref, x), (x,), (1.0,)))
    close(vmap(lambda x: f(jnp, lax, x))(XS), jax.vmap(lambda x: f(jnp_ref, lax_ref, x))(XS))
    xs = np.array([0.5, 1.0, 2.5], np.float32)
    close(vmap(lambda x: g(jnp, lax, x))(xs), jax.vmap(lambda x: g(jnp_ref, lax_ref, x))(xs))


def test_cond_errors():
    with pytest.raises(TypeError, match=r"true_fun and false_fun output must have identical "
                                        r"types.*f32\[\].*f32\[2\]"):
        cond(True, lambda: 1.0, lambda: jnp.ones(2))
    with pytest.raises(TypeError, match="same type structure"):
        cond(True, lambda: (1.0, 2.0), lambda: 1.0)
    with pytest.raises(TypeError, match=r"Pred must be a scalar, got .* of shape \(2,\)"):
        cond(jnp.ones(2) > 0, lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="should be callable"):
        cond(True, 1.0, lambda: 2.0)


def test_while_loop_errors():
    with pytest.raises(TypeError, match=r"body_fun output and input must have identical types.*"
                                        r"f32\[\].*f32\[2\]"):
        while_loop(lambda c: c < 3.0, lambda c: jnp.ones(2), 0.0)
    with pytest.raises(TypeError, match="cond_fun must return a boolean scalar"):
        while_loop(lambda c: 1, lambda c: c, 0)
    with pytest.raises(TypeError, match="structure"):
        while_loop(lambda c: c[0] < 3, lambda c: c[0] + 1, (0, 1.0))


def test_errors_point_at_the_users_line():
    try:
        cond(True, lambda: 1.0, lambda: jnp.ones(2))
    except TypeError as e:
        files = []
        tb = e.__traceback__
        while tb is not None:
            files.append(tb.tb_frame.f_code.co_filename)
            tb = tb.tb_next
        assert files[0] == __file__, files
        ours = ("autodidax/control_flow.py", "autodidax/jaxpr.py")
        assert not any(f.endswith(ours) for f in files), files


def test_grad_of_while_loop_fails_as_in_jax():
    msg = "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop"
    with pytest.raises(ValueError, match=msg):
        grad(lambda x: loop(jnp, lax, x, 3)[1])(0.7)
    with pytest.raises(ValueError, match=msg):       # a traced bound: a while_loop
        jit(grad(lambda x, n: fori(jnp, lax, x, n)))(0.7, 3)
    with pytest.raises(ValueError, match=msg):
        jax.jit(jax.grad(lambda x, n: fori(jnp_ref, lax_ref, x, n)))(0.7, 3)
    with pytest.raises(ValueError, match=msg):
        jax.grad(lambda x: loop(jnp_ref, lax_ref, x, 3)[1])(0.7)


def test_grad_of_fori_loop_with_static_bounds_goes_through_scan():
    close(grad(lambda x: fori(jnp, lax, x, 3))(0.7),
          jax.grad(lambda x: fori(jnp_ref, lax_ref, x, 3))(0.7))


# --- weak types: JAX's promotion of a weakly typed initial carry ---------------------------------
LOOPS = {
    "int to float": lambda l, m: l.while_loop(lambda x: x < 10, lambda x: x * 1.5 + 1, 0),
    "weak to strong, one dtype": lambda l, m: l.while_loop(lambda x: x < 10.0,
                                                           lambda x: x * m.float32(2), 1.0),
    "a pair": lambda l, m: l.while_loop(lambda s: s[0] < 5, lambda s: (s[0] + 1, s[1] * 0.5),
                                        (0, 1)),
    "fori_loop": lambda l, m: l.fori_loop(0, 3, lambda i, x: x * 1.5 + 1, 0),
    "weak float to float16": lambda l, m: l.while_loop(
        lambda x: x < 10.0, lambda x: x * m.ones((), m.float16) + 1, 1.0),
}


@pytest.mark.parametrize("name", LOOPS)
def test_weakly_typed_initial_carries_are_promoted_as_in_jax(name):
    ours, theirs = LOOPS[name](lax, jnp), LOOPS[name](lax_ref, jnp_ref)
    for o, t in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
        assert (o.dtype, o.weak_type) == (t.dtype, t.weak_type)
        assert np.array_equal(np.asarray(o), np.asarray(t))


@pytest.mark.parametrize("name", ["int to float", "weak to strong, one dtype", "a pair"])
def test_promoted_loops_print_as_jax(name):
    ours = make_jaxpr(lambda: LOOPS[name](lax, jnp))()
    assert str(ours) == str(jax.make_jaxpr(lambda: LOOPS[name](lax_ref, jnp_ref))())


def test_promotion_of_a_traced_carry_and_what_is_still_refused():
    f = lambda l: lambda x: l.while_loop(lambda s: s < 5, lambda s: s * 0.5, x)
    assert str(make_jaxpr(f(lax))(1)) == str(jax.make_jaxpr(f(lax_ref))(1))
    with pytest.raises(TypeError, match="body_fun output and input must have identical types"):
        while_loop(lambda x: x < 3.0, lambda x: jnp.ones(2) * x, 0.0)


def test_cond_output_has_branch_0s_weak_type_as_in_jax():
    for f in [lambda m, l: l.cond(True, lambda x: x * m.float32(1.5), lambda x: x, 1.0),
              lambda m, l: l.cond(False, lambda x: x, lambda x: x * m.float32(1.5), 1.0),
              lambda m, l: l.cond(True, lambda x: x * 2.0, lambda x: x, 1.0)]:
        o, t = f(jnp, lax), f(jnp_ref, lax_ref)
        assert (o.dtype, o.weak_type, float(o)) == (t.dtype, t.weak_type, float(t))


# --- scan: evaluation, the rules, reverse mode, errors --------------------------------------------
from autodidax.control_flow import scan  # noqa: E402
from autodidax.control_flow_reference import map as lax_map, switch  # noqa: E402

ROWS = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
W33 = (np.arange(9, dtype=np.float32).reshape(3, 3) - 4) / 10


def rnn(m, c, h, xs, **kw):
    return c.scan(lambda h, x: (m.tanh(W33 @ h + x), h.sum()), h, xs, **kw)


def rnn_loss(m, c, h, xs, **kw):
    h, sums = rnn(m, c, h, xs, **kw)
    return h.sum() + (sums * sums).sum()


def test_lax_namespace_exposes_scan_and_switch():
    assert lax.scan is scan and lax.switch is switch


@pytest.mark.parametrize("kw", [{}, {"reverse": True}, {"unroll": 2},
                                {"unroll": 3, "reverse": True}, {"unroll": True}, {"unroll": 0}])
def test_scan_eager_jit_and_grad_for_every_order_and_unroll(kw):
    h = np.array([0.1, -0.2, 0.3], np.float32)
    close(rnn(jnp, lax, h, ROWS, **kw), rnn(jnp_ref, lax_ref, h, ROWS, **kw))
    close(jit(lambda h, xs: rnn(jnp, lax, h, xs, **kw))(h, ROWS),
          rnn(jnp_ref, lax_ref, h, ROWS, **kw))
    theirs = jax.grad(lambda h, xs: rnn_loss(jnp_ref, lax_ref, h, xs, **kw), (0, 1))(h, ROWS)
    close(grad(lambda h, xs: rnn_loss(jnp, lax, h, xs, **kw), (0, 1))(h, ROWS), theirs, 1e-5)
    close(jit(grad(lambda h, xs: rnn_loss(jnp, lax, h, xs, **kw), (0, 1)))(h, ROWS), theirs, 1e-5)


def test_scan_lowers_to_one_stablehlo_while_with_dynamic_slices():
    text = jit(lambda h, xs: rnn(jnp, lax, h, xs)).lower(np.zeros(3, np.float32), ROWS).as_text()
    assert text.count("stablehlo.while") == 1
    assert "stablehlo.dynamic_slice" in text and "stablehlo.dynamic_update_slice" in text
    unrolled = jit(lambda h, xs: rnn(jnp, lax, h, xs, unroll=True)).lower(
        np.zeros(3, np.float32), ROWS).as_text()
    assert "stablehlo.while" not in unrolled


def test_scan_jvp_vmap_and_their_compositions():
    h = np.array([0.1, -0.2, 0.3], np.float32)
    hs = np.stack([h, -h, 2 * h])
    close(jvp(lambda h: rnn(jnp, lax, h, ROWS), (h,), (h,)),
          jax.jvp(lambda h: rnn(jnp_ref, lax_ref, h, ROWS), (h,), (h,)))
    close(vmap(lambda h: rnn(jnp, lax, h, ROWS))(hs),
          jax.vmap(lambda h: rnn(jnp_ref, lax_ref, h, ROWS))(hs))
    xs2 = np.stack([ROWS, ROWS * 2], 2)
    close(vmap(lambda xs: rnn(jnp, lax, h, xs), in_axes=2)(xs2),
          jax.vmap(lambda xs: rnn(jnp_ref, lax_ref, h, xs), in_axes=2)(xs2))
    close(jvp(vmap(lambda h: rnn(jnp, lax, h, ROWS)), (hs,), (hs,)),
          jax.jvp(jax.vmap(lambda h: rnn(jnp_ref, lax_ref, h, ROWS)), (hs,), (hs,)))
    close(vmap(grad(lambda h: rnn_loss(jnp, lax, h, ROWS)))(hs),
          jax.vmap(jax.grad(lambda h: rnn_loss(jnp_ref, lax_ref, h, ROWS)))(hs), 1e-5)
    close(jit(vmap(grad(lambda h: rnn_loss(jnp, lax, h, ROWS))))(hs),
          jax.vmap(jax.grad(lambda h: rnn_loss(jnp_ref, lax_ref, h, ROWS)))(hs), 1e-5)


def test_scan_jacobians_and_hessian():
    def f(m, c):
        return lambda xs: c.scan(lambda a, x: (m.sin(a) * x + a, a * x), 0.3, xs)
    xs = np.array([0.5, -1.0, 2.0], np.float32)
    # JAX's side under jit: one program, where eagerly it compiles each primitive alone
    close(jax_jacrev := jacrev_ours(f(jnp, lax))(xs), jax.jit(jax.jacrev(f(jnp_ref, lax_ref)))(xs))
    assert jax_jacrev is not None
    close(hessian_ours(lambda xs: f(jnp, lax)(xs)[0])(xs),
          jax.jit(jax.hessian(lambda xs: f(jnp_ref, lax_ref)(xs)[0]))(xs), 1e-5)


from autodidax.autodiff import hessian as hessian_ours, jacrev as jacrev_ours, vjp  # noqa: E402


def test_scan_vjp_with_pytree_carry_and_integer_parts():
    def f(m, c):
        def body(carry, x):
            n, v = carry
            return (n + 1, {"a": v["a"] * x + n, "b": v["b"]}), v["a"].sum()
        return lambda a: c.scan(body, (0, {"a": a, "b": 2.0}), ROWS)
    a = np.array([1.0, 0.5, -0.5], np.float32)
    out, pull = vjp(f(jnp, lax), a)
    out_ref, pull_ref = jax.vjp(f(jnp_ref, lax_ref), a)
    close(out, out_ref)
    ct = jax.tree.map(lambda x: np.ones_like(x) if np.asarray(x).dtype.kind == "f"
                      else np.zeros(np.shape(x), jax.dtypes.float0), out_ref)
    close(pull(ct), pull_ref(ct))
    # the integer carry's tangent is float0, as in JAX
    _, t = jvp(f(jnp, lax), (a,), (a,))
    _, t_ref = jax.jvp(f(jnp_ref, lax_ref), (a,), (a,))
    assert np.asarray(t[0][0]).dtype == np.asarray(t_ref[0][0]).dtype == jax.dtypes.float0


def test_loop_invariant_residuals_are_hoisted_not_stacked():
    def f(m, c):
        return lambda w, h: c.scan(lambda h, x: (h * m.sin(w) + x, None), h, XS)[0]
    text = str(make_jaxpr(grad(f(jnp, lax), (0, 1)))(0.3, 0.5))
    assert "f32[4]" in text.split("reverse=True")[0]          # the xs, forwarded
    head = text.split("scan[")[0]
    assert "cos" in head and "sin" in head                       # computed once, before the loops
    close(grad(f(jnp, lax), (0, 1))(0.3, 0.5), jax.grad(f(jnp_ref, lax_ref), (0, 1))(0.3, 0.5))


def test_grad_of_a_scan_stores_one_residual_row_per_iteration():
    text = str(make_jaxpr(grad(lambda h: rnn_loss(jnp, lax, h, ROWS)))(np.zeros(3, np.float32)))
    known, backward = text.split("reverse=True")[0], text.split("reverse=False")[-1]
    assert "f32[4,3]" in known                  # a residual of f32[3] per step, stacked over 4
    assert text.count("scan[") == 2


def test_grad_memory_grows_with_length_and_forward_does_not():
    def temp(f, n):
        xs = np.zeros((n, 3), np.float32)
        loaded = jit(f).lower(np.zeros(3, np.float32), xs).compile().executable.loaded
        return loaded.get_compiled_memory_stats().temp_size_in_bytes
    def fwd(h, xs):
        return lax.scan(lambda h, x: (jnp.tanh(W33 @ h + x), None), h, xs)[0].sum()
    bwd = grad(fwd)
    assert temp(fwd, 1000) == temp(fwd, 100)
    assert temp(bwd, 1000) > 5 * temp(bwd, 100)


def test_scan_prints_as_jax():
    for f in [lambda m, c: lambda h, xs: rnn(m, c, h, xs),
              lambda m, c: lambda h, xs: rnn(m, c, h, xs, reverse=True, unroll=2),
              lambda m, c: lambda h, xs: c.scan(lambda a, x: (a, x * a), h, xs),
              lambda m, c: lambda h, xs: c.scan(lambda a, x: (a + x, x), h, xs)]:
        args = (np.zeros(3, np.float32), ROWS)
        ours = str(make_jaxpr(f(jnp, lax))(*args))
        assert ours == str(jax.make_jaxpr(f(jnp_ref, lax_ref))(*args))


def test_scan_of_zero_length_and_without_xs():
    empty = np.zeros((0, 3), np.float32)
    for f in [lambda m, c: c.scan(lambda a, x: (a + x.sum(), x * 2), 1.0, empty),
              lambda m, c: c.scan(lambda a, _: (a * 2, a), 1.0, None, length=5),
              lambda m, c: c.scan(lambda a, _: (a * 2, None), 1.0, None, length=0)]:
        close(f(jnp, lax), f(jnp_ref, lax_ref))


SCAN_ERRORS = [
    (lambda c: c.scan(lambda a, x: (a + x, x), np.int32(0), XS), TypeError,
     "The input carry a has type int32\\[\\] but the corresponding output carry component has "
     "type float32\\[\\], so the dtypes do not match"),
    (lambda c: c.scan(lambda a, x: ((a, a), x), 0.0, XS), TypeError, "same pytree structure"),
    (lambda c: c.scan(lambda a, x: a, 0.0, XS), TypeError, "scan body output must be a pair"),
    (lambda c: c.scan(lambda a, x: (a, x), 0.0, XS, length=3), ValueError,
     "disagrees with leading axis sizes"),
    (lambda c: c.scan(lambda a, x: (a, x), 0.0, None), ValueError,
     "scan got no values to scan over and `length` not provided."),
    (lambda c: c.scan(lambda a, x: (a, x), 0.0, XS, unroll=-1), ValueError,
     "`unroll` must be a `bool` or a non-negative `int`."),
    (lambda c: c.scan(3, 0.0, XS), TypeError, "lax.scan: f argument should be a callable."),
    (lambda c: c.fori_loop(0, 3, lambda i, x: x + np.ones(2, np.float32), 0.0), TypeError,
     "The input carry component loop_carry\\[1\\] has type float32\\[\\] but the corresponding "
     "output carry component has type float32\\[2\\], so the shapes do not match"),
]


@pytest.mark.parametrize("i", range(len(SCAN_ERRORS)))
def test_scan_errors_as_in_jax(i):
    f, cls, msg = SCAN_ERRORS[i]
    with pytest.raises(cls, match=msg):
        f(lax)
    with pytest.raises(cls, match=msg):
        f(lax_ref)


def test_scan_error_different_leading_sizes():
    for c in (lax, lax_ref):
        with pytest.raises(ValueError, match="different leading axis sizes: 4, 3"):
            c.scan(lambda a, x: (a, x), 0.0, (XS, ROWS[:3]))


# --- fori_loop through scan, switch, map, eager loops compiled -----------------------------
def test_fori_loop_with_static_bounds_is_a_scan_and_differentiates():
    def f(c):
        return lambda x: c.fori_loop(1, 5, lambda i, v: c.sin(v) * i, x)
    assert str(make_jaxpr(f(lax))(0.7)) == str(jax.make_jaxpr(f(lax_ref))(0.7))
    assert "scan[" in str(make_jaxpr(f(lax))(0.7))
    close(grad(f(lax))(0.7), jax.grad(f(lax_ref))(0.7))
    close(jit(grad(f(lax)))(0.7), jax.grad(f(lax_ref))(0.7))
    close(vmap(grad(f(lax)))(XS), jax.vmap(jax.grad(f(lax_ref)))(XS))


def test_fori_loop_with_a_traced_bound_is_a_while_loop():
    text = str(make_jaxpr(lambda x, n: fori(jnp, lax, x, n))(0.7, 3))
    assert "while[" in text and "scan[" not in text
    with pytest.raises(ValueError, match="Can only use `unroll` in `fori_loop`"):
        jit(lambda n: fori_loop(0, n, lambda i, c: c, 1.0, unroll=2))(3)
    with pytest.raises(TypeError, match="lower and upper arguments to fori_loop must have equal"):
        fori_loop(np.int16(0), np.int32(3), lambda i, c: c, 1.0)


@pytest.mark.parametrize("i", [-3, 0, 1, 2, 7])
def test_switch_clamps_and_matches_jax(i):
    fs = lambda m: [m.sin, m.cos, lambda y: y * 3.0]  # noqa: E731
    close(switch(i, fs(jnp), XS), lax_ref.switch(i, fs(jnp_ref), XS))
    close(jit(lambda i, x: switch(i, fs(jnp), x))(i, XS),
          lax_ref.switch(i, fs(jnp_ref), XS))
    close(grad(lambda x: switch(i, fs(jnp), x))(0.4), jax.grad(lambda x: lax_ref.switch(
        i, fs(jnp_ref), x))(0.4))


def test_switch_batched_index_and_printing():
    fs = lambda m: [m.sin, m.cos, lambda y: y * 3.0]  # noqa: E731
    idx = np.array([3, -1, 0, 2], np.int32)
    close(vmap(lambda i, x: switch(i, fs(jnp), x))(idx, XS),
          jax.vmap(lambda i, x: lax_ref.switch(i, fs(jnp_ref), x))(idx, XS))
    assert (str(make_jaxpr(lambda i, x: switch(i, fs(jnp), x))(1, XS))
            == str(jax.make_jaxpr(lambda i, x: lax_ref.switch(i, fs(jnp_ref), x))(1, XS)))
    for bad, cls in [(1.0, TypeError), (idx, TypeError)]:
        with pytest.raises(cls):
            switch(bad, fs(jnp), 0.5)
    with pytest.raises(ValueError, match="Empty branch sequence"):
        switch(0, [], 0.5)


@pytest.mark.parametrize("batch_size", [None, 1, 2, 3, 4, 0])
def test_map_matches_jax(batch_size):
    f = lambda m: lambda r: (r.sum(), r * m.sin(r))  # noqa: E731
    close(lax_map(f(jnp), ROWS, batch_size=batch_size),
          lax_ref.map(f(jnp_ref), ROWS, batch_size=batch_size))
    close(jit(lambda xs: lax_map(f(jnp), xs, batch_size=batch_size))(ROWS),
          lax_ref.map(f(jnp_ref), ROWS, batch_size=batch_size))


def test_map_prints_as_jax():
    assert (str(make_jaxpr(lambda xs: lax_map(jnp.sin, xs))(ROWS))
            == str(jax.make_jaxpr(lambda xs: lax_ref.map(jnp_ref.sin, xs))(ROWS)))


def test_eager_loops_run_compiled_not_interpreted(monkeypatch):
    import autodidax.control_flow as cf
    calls, original = [], cf.eval_jaxpr
    monkeypatch.setattr(cf, "eval_jaxpr", lambda *a: calls.append(1) or original(*a))
    assert float(fori_loop(0, 100_000, lambda i, c: c + 1.0, 0.0)) == 100_000.0
    out = while_loop(lambda c: c < 100_000, lambda c: c + 1, 0)
    assert int(out) == 100_000
    assert not calls          # no Python iteration: the loops ran in XLA
    import autodidax.control_flow_reference as cfr      # appendix A10 compiles them
    n = len(cfr._loop_executables)
    fori_loop(0, 100_000, lambda i, c: c + 1.0, 0.0)    # traced again, the same structure
    assert len(cfr._loop_executables) == n


def test_cond_traces_the_true_branch_first_as_jax_does():
    def order(cond_fn):
        seen = []

        def branch(name):
            def fun(x):
                seen.append(name)
                return x
            return fun
        cond_fn(True, branch("true"), branch("false"), 1.0)
        return seen
    assert order(cond) == order(lax_ref.cond) == ["true", "false"]


def test_cond_index_out_of_range_runs_the_last_branch():
    """A `cond_p` bound with an index out of range runs its last branch, eagerly and under `jit`,
    as StableHLO's `case` (and so JAX's eager `cond_p`, which is compiled) does."""
    from jax._src.lax.control_flow.conditionals import cond_p as cond_p_ref

    from autodidax.control_flow import cond_p

    def cond_params(make_jaxpr_, switch):
        fs = [lambda x: x + 1.0, lambda x: x * 2.0, lambda x: x - 5.0]
        eqns = make_jaxpr_(lambda i, x: switch(i, fs, x))(0, 1.0).eqns
        return next(e for e in eqns if e.primitive.name == "cond").params

    ours, theirs = cond_params(make_jaxpr, lax.switch), cond_params(jax.make_jaxpr, lax_ref.switch)
    x = np.float32(3.0)
    for i in [-1, -7, 0, 2, 3, 100]:
        want = cond_p_ref.bind(np.int32(i), x, **theirs)[0]
        eager = cond_p.bind(np.int32(i), x, **ours)[0]
        jitted = jit(lambda j: cond_p.bind(j, x, **ours)[0])(np.int32(i))
        assert float(eager) == float(jitted) == float(want), i
