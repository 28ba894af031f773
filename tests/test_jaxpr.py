"""autodidax/jaxpr.py: jaxprs print as JAX's, check, evaluate, and trace."""
import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import autodidax.numpy as jnp
from autodidax import lax
from autodidax.core import ShapedArray
from autodidax.jaxpr import (ClosedJaxpr, Jaxpr, JaxprEqn, JaxprTypeError, Literal, Var,
                             check_jaxpr, eval_jaxpr, jaxpr_as_fun, make_jaxpr)
from autodidax.pretty_printer import jaxpr_graph

F3 = np.ones(3, np.float32)
M = np.arange(6, dtype=np.float32).reshape(2, 3)

# Programs printed identically by JAX and by us: (name, function of (np module, lax module), args)
SAME_PRINT = {
    "sin mul add": (lambda m: lambda x, y: m.sin(x) * y + 1.0, (1.0, 2.0)),
    "one line": (lambda m: lambda x: m.sin(x) * 2.0, (F3,)),
    "identity": (lambda m: lambda x: x, (1.0,)),
    "several outputs": (lambda m: lambda x, y: (x + y, x - y, x * y), (F3, F3)),
    "literal and input outputs": (lambda m: lambda x: (x, 1.0, x * 2), (1.0,)),
    "weak scalar input": (lambda m: lambda x, y: (x + y, x * y), (M, 2.0)),
    "unused output": (lambda m: lambda x: (m.exp(x), m.cos(x))[1], (F3,)),
    "long chain": (lambda m: lambda x: m.tanh(m.exp(m.log(m.sqrt(m.abs(m.cos(m.sin(x))))))), (M,)),
    "many eqns": (lambda m: lambda x: sum((m.sin(x) * float(i) for i in range(30)), x), (F3,)),
    "broadcast": (lambda m: lambda x: x * m.ones((3,)), (M,)),
    "comparisons": (lambda m: lambda x, y: (x > y, x <= 0.0, m.maximum(x, 0.0)), (F3, F3)),
    "matmul": (lambda m: lambda x: x.T @ x, (M,)),
    "divide by constant": (lambda m: lambda x: m.tanh(x) - x / 3, (M,)),
    "integer_pow": (lambda m: lambda x: x ** 2 + x ** 3, (F3,)),
    "pow": (lambda m: lambda x, y: x ** y, (1.0, 2.0)),
    "negation": (lambda m: lambda x: -x, (F3,)),
    "reduce_max": (lambda m: lambda x: m.abs(x).max(axis=1), (M,)),
    "squeeze": (lambda m: lambda x: x.reshape(3, 2)[1], (M,)),
    "transpose": (lambda m: lambda x: m.transpose(x), (M,)),
    "closed-over constant": (lambda m: lambda x: x * m.asarray(F3) + 0.1, (F3,)),
    "ints": (lambda m: lambda i: i * 2 + 1, (np.arange(3, dtype=np.int32),)),
    "int to float": (lambda m: lambda i: m.sin(i), (np.arange(3, dtype=np.int32),)),
    "dtype conversion": (lambda m: lambda x: x.astype(m.int32), (F3,)),
}


@pytest.mark.parametrize("name", SAME_PRINT)
def test_printed_jaxpr_equals_jaxs(name):
    make, args = SAME_PRINT[name]
    ours = str(make_jaxpr(make(jnp))(*args))
    theirs = str(jax.make_jaxpr(make(jnp_ref))(*args))
    assert ours == theirs


def test_printing_is_linear_and_does_not_recurse():
    def chain(x):
        for _ in range(5000):
            x = jnp.sin(x)
        return x
    text = str(make_jaxpr(chain)(1.0))
    assert text.count("\n") == 5001 and "gjh:f32[] = sin gjg" in text


def test_closed_jaxpr_api():
    w = jnp.asarray(M)
    closed = make_jaxpr(lambda p, x: (jnp.tanh(x @ w.T + p["b"]), x.sum()))(
        {"b": jnp.zeros(2)}, jnp.ones((4, 3)))
    assert isinstance(closed, ClosedJaxpr) and isinstance(closed.jaxpr, Jaxpr)
    assert [a.str_short() for a in closed.in_avals] == ["f32[2]", "f32[4,3]"]
    assert [a.str_short() for a in closed.out_avals] == ["f32[4,2]", "f32[]"]
    assert len(closed.consts) == 1 and np.array_equal(np.asarray(closed.consts[0]), M)
    assert [str(e.primitive) for e in closed.eqns][:2] == ["transpose", "dot_general"]
    assert closed.eqns[0].source_info.function == "test_closed_jaxpr_api.<locals>.<lambda>"
    assert closed.eqns[0].source_info.filename == __file__


def test_static_argnums():
    j = make_jaxpr(lambda x, n: x * n if n > 1 else x, static_argnums=1)(F3, 3)
    assert str(j) == "{ lambda ; a:f32[3]. let b:f32[3] = mul a 3.0:f32[] in (b,) }"


def test_typechecker_names_equation_types_and_line():
    good = make_jaxpr(lambda x, y: jnp.sin(x) * y)(F3, F3).jaxpr
    check_jaxpr(good)
    bad = Jaxpr([], good.invars, good.eqns[::-1], good.outvars)
    with pytest.raises(JaxprTypeError, match=r"equation 0, `c:f32\[3\] = mul d b` \(from "
                                             r"test_jaxpr.py:\d+:\d+ \(\S*<lambda>\)\): reads variable d "
                                             r"before it is defined"):
        check_jaxpr(bad)
    x = Var(ShapedArray((3,), np.float32))
    wrong = Jaxpr([], [x], [JaxprEqn(lax.sin_p, [x], [Var(ShapedArray((), np.float32))], {}, None)],
                  [])
    with pytest.raises(JaxprTypeError, match=r"expected output type f32\[3\] \(sin of f32\[3\]\), "
                                             r"found b:f32\[\]"):
        check_jaxpr(wrong)
    y = Var(ShapedArray((4,), np.float32))
    mismatch = Jaxpr([], [x, y], [JaxprEqn(lax.add_p, [x, y], [Var(x.aval)], {}, None)], [])
    with pytest.raises(JaxprTypeError, match="incompatible shapes"):
        check_jaxpr(mismatch)
    twice = Jaxpr([], [x], [JaxprEqn(lax.sin_p, [x], [x], {}, None)], [x])
    with pytest.raises(JaxprTypeError, match="defined twice"):
        check_jaxpr(twice)
    lit = Jaxpr([], [], [], [Literal(np.float32(1.0), ShapedArray((3,), np.float32))])
    with pytest.raises(JaxprTypeError, match="does not have its type"):
        check_jaxpr(lit)


def test_eval_jaxpr_rejects_wrong_arity():
    j = make_jaxpr(lambda x: x + 1.0)(1.0)
    with pytest.raises(TypeError, match="takes 0 constants and 1 arguments, got 0 and 2"):
        eval_jaxpr(j.jaxpr, [], 1.0, 2.0)


UNARY = ["sin", "cos", "exp", "tanh", "negative", "abs", "square"]
BINARY = ["add", "subtract", "multiply", "maximum", "minimum"]


@st.composite
def programs(draw):
    """A random straight-line program over a pool of values: (steps, number of inputs)."""
    n_in = draw(st.integers(1, 3))
    steps = []
    for k in range(draw(st.integers(1, 8))):
        pool = n_in + k
        if draw(st.booleans()):
            steps.append(("u", draw(st.sampled_from(UNARY)), draw(st.integers(0, pool - 1))))
        else:
            steps.append(("b", draw(st.sampled_from(BINARY)), draw(st.integers(0, pool - 1)),
                          draw(st.integers(0, pool - 1))))
    outs = draw(st.lists(st.integers(0, n_in + len(steps) - 1), min_size=1, max_size=3))
    return steps, n_in, outs


def _run(steps, outs, m, *xs):
    vals = list(xs)
    for step in steps:
        if step[0] == "u":
            vals.append(getattr(m, step[1])(vals[step[2]]))
        else:
            vals.append(getattr(m, step[1])(vals[step[2]], vals[step[3]]))
    return [vals[i] for i in outs]


@given(programs(), st.integers(0, 2**31 - 1))
def test_eval_of_make_jaxpr_equals_the_function(program, seed):
    steps, n_in, outs = program
    xs = [np.random.default_rng(seed + i).standard_normal(3).astype(np.float32) * 0.5
          for i in range(n_in)]
    closed = make_jaxpr(lambda *a: _run(steps, outs, jnp, *a))(*xs)
    check_jaxpr(closed.jaxpr)
    got = jaxpr_as_fun(closed)(*xs)
    want = _run(steps, outs, jnp, *[jnp.asarray(x) for x in xs])
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)
    # and the printed jaxpr is JAX's
    assert str(closed) == str(jax.make_jaxpr(lambda *a: _run(steps, outs, jnp_ref, *a))(*xs))


def test_graph_shows_inputs_constants_equations_outputs():
    closed = make_jaxpr(lambda x: (jnp.sin(x) * jnp.asarray(F3), 2.0))(F3)
    source = jaxpr_graph(closed).source
    for piece in ['v_a [label=a fillcolor="#dddddd"', 'v_b [label=b fillcolor="#cfe2f3"',
                  "eqn0 [label=sin", "eqn1 [label=mul", "v_b -> eqn0 [label=\"f32[3]\"]",
                  "out0 [label=\"out 0\"", "out1_lit -> out1"]:
        assert piece in source, piece


def test_a_tracer_that_outlived_its_jaxpr_is_refused_where_it_is_used_again():
    import autodidax
    from autodidax.core import UnexpectedTracerError
    saved = []

    def leak(x):
        y = jnp.sin(x)
        saved.append(y)
        return y
    make_jaxpr(leak)(1.0)
    line = leak.__code__.co_firstlineno + 1
    for use in (lambda: make_jaxpr(lambda x: x + saved[0])(1.0),     # was: a silent constant
                lambda: autodidax.jit(lambda x: x + saved[0])(1.0),  # was: an AttributeError
                lambda: jnp.cos(saved[0])):
        with pytest.raises(UnexpectedTracerError,
                           match=rf"created on line test_jaxpr.py:{line}:\d+ \(\S*\.leak\), escaped"):
            use()


def test_equations_from_equal_code_in_two_files_name_their_own_file():
    # Source infos are shared per place in the code; code objects from different files compare
    # equal when their text and lines are, so the file and function are part of that key.
    infos = []
    for filename in ("a.py", "b.py"):
        namespace = {"jnp": jnp}
        exec(compile("f = lambda x: jnp.sin(x)", filename, "exec"), namespace)
        infos.append(make_jaxpr(namespace["f"])(1.0).eqns[0].source_info)
    assert [i.filename for i in infos] == ["a.py", "b.py"]
    assert str(infos[0]) == "a.py:1:14 (<lambda>)"
    loop = make_jaxpr(lambda x: [x := jnp.sin(x) for _ in range(3)][-1])(1.0)
    assert len({id(e.source_info) for e in loop.eqns}) == 1      # one per place, shared
