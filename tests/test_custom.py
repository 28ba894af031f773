"""Chapter 13: custom_jvp and custom_vjp, the behaviour that is not a comparison with JAX: which
of the user's functions run under which transformation, what a rule with symbolic zeros sees,
and the staged equations (type checking, evaluation, lowering). The differential cases are in
test_conformance_custom.py."""
import numpy as np
import pytest

import autodidax as jax
import autodidax.numpy as jnp
from autodidax.custom import custom_jvp_call_p, custom_vjp_call_p
from autodidax.jaxpr import check_jaxpr, jaxpr_as_fun


def _counted():
    calls = {"fun": 0, "jvp": 0}

    @jax.custom_jvp
    def f(x):
        calls["fun"] += 1
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        calls["jvp"] += 1
        return jnp.sin(primals[0]), 3.0 * tangents[0]
    return f, calls


def test_which_function_runs_under_which_transformation():
    f, calls = _counted()
    assert float(f(1.0)) == pytest.approx(np.sin(1.0))
    assert calls == {"fun": 1, "jvp": 0}          # evaluation: the function, not the rule
    _, t = jax.jvp(f, (1.0,), (2.0,))
    assert float(t) == 6.0 and calls == {"fun": 1, "jvp": 1}   # jvp: the rule, not the function
    assert float(jax.grad(f)(0.3)) == 3.0 and calls["fun"] == 1
    jax.vmap(jax.grad(f))(jnp.arange(3.0))
    assert calls["jvp"] == 3 and calls["fun"] == 1   # one batched call of the rule


def test_symbolic_zeros_reach_the_rule():
    seen = []
    SymbolicZero = jax.custom_derivatives.SymbolicZero

    @jax.custom_jvp
    def f(x, y):
        return x * y

    @jax.custom_jvp
    def g(x, y):
        return x * y

    def rule(primals, tangents):
        seen.append(tuple(type(t) is SymbolicZero for t in tangents))
        (x, y), (tx, ty) = primals, tangents
        terms = [a * b for a, b in [(tx, y), (ty, x)] if type(a) is not SymbolicZero]
        return x * y, sum(terms[1:], terms[0])

    f.defjvp(rule, symbolic_zeros=True)
    g.defjvp(rule)
    assert float(jax.grad(f)(2.0, 3.0)) == 3.0 and seen[-1] == (False, True)
    assert float(jax.grad(f, 1)(2.0, 3.0)) == 2.0 and seen[-1] == (True, False)
    assert float(jax.grad(g)(2.0, 3.0)) == 3.0 and seen[-1] == (False, False)   # zeros as arrays
    z = SymbolicZero.from_primal_value(np.ones((2, 3), np.float32))
    assert (z.shape, z.dtype, repr(z)) == ((2, 3), np.float32, "SymbolicZero")
    zeros = jax.custom_derivatives.zero_from_primal({"a": np.ones(2, np.float32)})
    np.testing.assert_array_equal(np.asarray(zeros["a"]), np.zeros(2, np.float32))


def test_public_names():
    import autodidax.custom_derivatives as cd
    assert jax.custom_jvp is cd.custom_jvp and jax.custom_vjp is cd.custom_vjp
    assert cd.custom_jvp_call_p is custom_jvp_call_p and cd.SymbolicZero is not None


def test_staged_equations_typecheck_evaluate_and_keep_the_rule():
    f, calls = _counted()
    closed = jax.make_jaxpr(f)(np.float32(0.5))
    eqn, = closed.eqns
    assert eqn.primitive is custom_jvp_call_p and eqn.params["num_consts"] == 0
    check_jaxpr(closed.jaxpr)
    fun = jaxpr_as_fun(closed)
    assert float(fun(0.5)[0]) == pytest.approx(np.sin(0.5))
    _, t = jax.jvp(lambda x: fun(x)[0], (0.5,), (1.0,))   # evaluating the jaxpr: the rule again
    assert float(t) == 3.0


def test_closure_over_a_tracer_becomes_an_operand():
    def outer(x, y):
        @jax.custom_jvp
        def h(x):
            return x * y
        h.defjvp(lambda p, t: (h(p[0]), 4.0 * t[0] * y))
        return h(x)
    closed = jax.make_jaxpr(outer)(np.float32(1.0), np.float32(2.0))
    eqn, = closed.eqns
    assert eqn.params["num_consts"] == 1 and len(eqn.invars) == 2
    assert "num_consts=1" in str(closed)
    assert float(jax.grad(outer)(1.0, 2.0)) == 8.0


def test_compiled_without_the_rule():
    f, _ = _counted()
    text = jax.jit(f).lower(np.float32(1.0)).as_text()
    assert "stablehlo.sine" in text and "custom" not in text


def test_custom_vjp_staged_and_evaluated():
    @jax.custom_vjp
    def g(x):
        return 2.0 * x
    g.defvjp(lambda x: (g(x), None), lambda _, ct: (10.0 * ct,))
    closed = jax.make_jaxpr(g)(np.float32(1.0))
    assert closed.eqns[0].primitive is custom_vjp_call_p
    check_jaxpr(closed.jaxpr)
    assert float(jax.grad(lambda x: jaxpr_as_fun(closed)(x)[0])(1.0)) == 10.0
    assert float(jax.grad(jax.jit(g))(1.0)) == 10.0


def test_custom_functions_as_methods():
    def _apply(self, x):
        return self.scale * x

    class Model:
        scale = 3.0
        apply = jax.custom_jvp(_apply, nondiff_argnums=(0,))

    Model.apply.defjvp(lambda self, p, t: (self.scale * p[0], 5.0 * t[0]))
    m = Model()
    assert float(m.apply(2.0)) == 6.0
    assert float(jax.grad(lambda x: m.apply(x))(2.0)) == 5.0


def test_custom_vjp_symbolic_zeros_reach_fwd_and_bwd():
    cd = jax.custom_derivatives
    seen = {}

    @jax.custom_vjp
    def f(x, y):
        return x * y, x

    def f_fwd(x, y):
        seen["fwd"] = (type(x).__name__, x.perturbed, y.perturbed)
        x, y = cd.custom_vjp_primal_tree_values((x, y))
        return f(x, y), (x, y)

    def f_bwd(res, cts):
        seen["bwd"] = tuple(type(ct) is cd.SymbolicZero for ct in cts)
        (x, y), (ct, ct_x) = res, cts
        zero = lambda t: type(t) is cd.SymbolicZero   # noqa: E731
        return (0.0 if zero(ct) else ct * y) + (0.0 if zero(ct_x) else ct_x), None

    f.defvjp(f_fwd, f_bwd, symbolic_zeros=True)
    assert float(jax.grad(lambda x, y: f(x, y)[0])(3.0, 2.0)) == 2.0
    assert seen == {"fwd": ("CustomVJPPrimal", True, False), "bwd": (False, True)}
    g = jax.grad(lambda x, y: f(x, y)[0] + f(x, y)[1], argnums=(0, 1))(3.0, 2.0)
    assert [float(v) for v in g] == [3.0, 0.0] and seen["fwd"][1:] == (True, True)
