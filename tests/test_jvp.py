"""autodidax/jvp.py: JVP rules, symbolic zeros, nesting, `jvp` (and `jacfwd` on it), against JAX."""
from collections import Counter

import jax
import jax.lax as lax_ref
import jax.numpy as jnp_ref
import numpy as np
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import autodidax.numpy as jnp
from autodidax import lax, lax_core
from autodidax.core import (Array, ConcretizationTypeError, Primitive, Trace, eval_trace,
                            set_current_trace)
from autodidax.batching import jacfwd    # the package's jacfwd: chapter 4's, vmap of jvp
from autodidax.jvp import (JVPTrace, JVPTracer, TraceTag, Zero, add_tangents, float0,
                           instantiate_zeros, jvp, jvp_flat, jvp_rules)

RNG = np.random.default_rng(0)
X = RNG.uniform(-1.5, 1.5, (2, 3)).astype(np.float32)
Y = RNG.uniform(-1.5, 1.5, (2, 3)).astype(np.float32)
POS = RNG.uniform(0.5, 2.0, (2, 3)).astype(np.float32)
TX = RNG.normal(size=(2, 3)).astype(np.float32)
TY = RNG.normal(size=(2, 3)).astype(np.float32)
DN = (((1,), (1,)), ((), ()))     # x @ y.T for (2, 3) operands

# Programs of two f32[2,3] arguments, written once against a lax module: ours or JAX's. Each is
# named by the primitives it exercises; together they cover every primitive in autodidax.lax.
PROGRAMS = {
    "neg": lambda L, x, y: L.neg(x),
    "sin": lambda L, x, y: L.sin(x),
    "cos": lambda L, x, y: L.cos(x),
    "exp": lambda L, x, y: L.exp(x),
    "log": lambda L, x, y: L.log(L.add(L.mul(x, x), y * 0 + 1.0)),
    "tanh": lambda L, x, y: L.tanh(x),
    "sqrt": lambda L, x, y: L.sqrt(L.exp(x)),
    "abs": lambda L, x, y: L.abs(x),
    "sign": lambda L, x, y: L.mul(L.sign(x), y),
    "add": lambda L, x, y: L.add(x, y),
    "sub": lambda L, x, y: L.sub(x, y),
    "mul": lambda L, x, y: L.mul(x, y),
    "div": lambda L, x, y: L.div(x, L.exp(y)),
    "max": lambda L, x, y: L.max(x, y),
    "min": lambda L, x, y: L.min(x, y),
    "pow": lambda L, x, y: L.pow(L.exp(x), y),
    "integer_pow": lambda L, x, y: L.add(L.integer_pow(x, 3), L.integer_pow(y, 2)),
    "integer_pow_0_1": lambda L, x, y: L.add(L.integer_pow(x, 0), L.integer_pow(y, 1)),
    "integer_pow_negative": lambda L, x, y: L.integer_pow(L.exp(x), -2),
    "square": lambda L, x, y: L.mul(L.square(x), y),
    "gt_lt_select_n": lambda L, x, y: L.select_n(L.gt(x, y), L.mul(x, y), L.sin(y)) + L.select_n(
        L.lt(x, 0.0 * x), x, y),
    "ge_le": lambda L, x, y: L.select_n(L.ge(x, 0.0 * y), x, L.select_n(L.le(y, x), y, x)),
    "eq_ne": lambda L, x, y: L.add(L.select_n(L.eq(x, y), x, y), L.select_n(L.ne(x, y), y, x)),
    "select_n_3": lambda L, x, y: L.select_n(
        L.convert_element_type(L.gt(x, 0.0 * x), np.int32) + L.convert_element_type(
            L.gt(y, 0.0 * y), np.int32), x, y, L.mul(x, y)),
    "convert_element_type": lambda L, x, y: L.mul(
        L.convert_element_type(L.convert_element_type(x, np.float16), np.float32),
        L.convert_element_type(L.convert_element_type(y * 3, np.int32), np.float32)),
    "reduce_sum": lambda L, x, y: L.reduce_sum(L.mul(x, y), (1,)),
    "reduce_max": lambda L, x, y: L.reduce_max(L.mul(x, y), (0,)),
    "reduce_min": lambda L, x, y: L.reduce_min(L.sin(x), (0, 1)),
    "broadcast_in_dim": lambda L, x, y: L.mul(L.broadcast_in_dim(x, (4, 2, 3), (1, 2)),
                                              L.broadcast_in_dim(L.reduce_sum(y, (1,)),
                                                                 (4, 2, 3), (1,))),
    "reshape": lambda L, x, y: L.reshape(L.mul(x, y), (3, 2)),
    "reshape_dimensions": lambda L, x, y: L.reshape(L.mul(x, y), (6,), (1, 0)),
    "transpose": lambda L, x, y: L.mul(L.transpose(x, (1, 0)), L.transpose(y, (1, 0))),
    "squeeze": lambda L, x, y: L.squeeze(L.reshape(L.mul(x, y), (1, 6, 1)), (0, 2)),
    "slice": lambda L, x, y: L.add(L.slice(x, (0, 1), (2, 3)), L.slice(y, (0, 0), (2, 3), (1, 2))),
    "rev": lambda L, x, y: L.mul(L.rev(x, (0, 1)), y),
    "concatenate": lambda L, x, y: L.concatenate([x, L.sin(y), x], 1),
    "dot_general": lambda L, x, y: L.dot_general(x, y, DN),
    "dot_general_batch": lambda L, x, y: L.dot_general(
        L.reshape(x, (2, 3, 1)), L.reshape(y, (2, 3, 1)), (((1,), (1,)), ((0,), (0,)))),
    "bitwise": lambda L, x, y: L.select_n(L.bitwise_xor(L.bitwise_and(L.gt(x, y), L.gt(y, 0.0 * y)),
                                                      L.bitwise_not(L.bitwise_or(
                                                          L.lt(x, 0.0 * x), L.gt(y, x)))), x, y),
    "argmax_argmin": lambda L, x, y: L.mul(x, L.convert_element_type(
        L.add(L.argmax(y, 1, np.int32), L.argmin(x, 1, np.int32)), np.float32)[:, None]),
    "stack_unstack": lambda L, x, y: L.stack([L.mul(u, 2.0) for u in L.unstack(
        L.stack([x, L.sin(y)], 1), 0)], 2),
    "floor_ceil_round": lambda L, x, y: L.mul(L.add(L.floor(x), L.ceil(y)), L.add(
        L.round(x), L.round(y, L.RoundingMethod.TO_NEAREST_EVEN))),
    "is_finite": lambda L, x, y: L.select_n(L.is_finite(L.div(x, y)), y, x),
    "exp2_expm1_log1p": lambda L, x, y: L.add(L.mul(L.exp2(x), L.expm1(y)), L.log1p(L.exp(x))),
    "tan_atan_atan2": lambda L, x, y: L.add(L.mul(L.tan(x), L.atan(y)), L.atan2(x, y)),
    "asin_acos_atanh": lambda L, x, y: L.add(L.mul(L.asin(L.tanh(x)), L.acos(L.tanh(y))),
                                             L.atanh(L.tanh(x))),
    "sinh_cosh": lambda L, x, y: L.mul(L.sinh(x), L.cosh(y)),
    "asinh_acosh_rsqrt": lambda L, x, y: L.add(L.mul(L.asinh(x), L.acosh(L.add(L.exp(y), 1.0))),
                                               L.rsqrt(L.exp(x))),
    "rem": lambda L, x, y: L.rem(L.mul(x, 3.0), y),
    "stop_gradient": lambda L, x, y: L.mul(L.stop_gradient(x), L.add(x, y)),
    "reduce_prod": lambda L, x, y: L.add(L.reduce_prod(L.mul(x, y), (1,)),
                                         L.reduce_prod(x, (0, 1))),
    "cumsum_cumprod": lambda L, x, y: L.add(L.cumsum(L.mul(x, y), 1), L.mul(
        L.cumprod(x, 1), L.cumprod(y, 0, reverse=True))),
    "reduce_or_and": lambda L, x, y: L.select_n(L.reduce_or(L.gt(x, y), (0,)), L.sin(y[0]),
                                                L.select_n(L.reduce_and(L.gt(x, y), (0,)),
                                                           x[1], y[1])),
    "pad": lambda L, x, y: L.pad(L.mul(x, y), L.reduce_sum(y, (0, 1)), ((1, -1, 1), (-2, 2, 0))),
    "pad_constant_value": lambda L, x, y: L.pad(x, 0.5, ((2, 0, 0), (0, 1, 2))),
    "iota": lambda L, x, y: L.mul(x, L.convert_element_type(L.broadcasted_iota(np.int32, (2, 3), 1),
                                                            np.float32)),
    "clamp": lambda L, x, y: L.clamp(L.mul(y, 0.5), x, L.add(y, 1.0)),
    "full_broadcast": lambda L, x, y: L.mul(L.broadcast(x, (2,)), L.full((2, 2, 3), 1.5)),
    # the bits of y, moved and read back as floats: a zero tangent through integers
    "shifts_bitcast": lambda L, x, y: L.mul(x, L.bitcast_convert_type(L.shift_left(
        L.shift_right_logical(L.bitcast_convert_type(y, np.uint32), np.uint32(4)),
        np.uint32(4)), np.float32)),
    # through complex numbers and back: |x + iy| conj(x + iy) has real and imaginary parts
    "complex_real_imag_conj_abs": lambda L, x, y: L.add(L.real(L.mul(
        L.conj(L.complex(x, y)), L.convert_element_type(L.abs(L.complex(x, y)), np.complex64))),
        L.imag(L.conj(L.complex(y, x)))),
    "shift_right_arithmetic": lambda L, x, y: L.mul(x, L.convert_element_type(
        L.shift_right_arithmetic(L.convert_element_type(L.mul(y, 64.0), np.int32), np.int32(3)),
        np.float32)),
}


def _ours(program, x, y):
    return program(lax, jnp.asarray(x), jnp.asarray(y))


def _theirs(program, x, y):
    return program(lax_ref, jnp_ref.asarray(x), jnp_ref.asarray(y))


def test_the_programs_cover_every_primitive():
    covered = Counter()

    class Recorder(Trace):
        def process_primitive(self, primitive, args, params):
            covered[primitive] += 1
            with set_current_trace(eval_trace):
                return primitive.bind(*args, **params)

    with set_current_trace(Recorder()):
        for program in PROGRAMS.values():
            _ours(program, X, Y)
    primitives = [p for p in vars(lax_core).values() if isinstance(p, Primitive)]
    assert [p for p in primitives if p not in covered] == []
    assert [p for p in primitives if p not in jvp_rules] == []


@pytest.mark.parametrize("name", PROGRAMS)
def test_jvp_agrees_with_jax(name):
    program = PROGRAMS[name]
    ours = jvp(lambda x, y: _ours(program, x, y), (X, Y), (TX, TY))
    theirs = jax.jvp(lambda x, y: program(lax_ref, x, y), (jnp_ref.asarray(X), jnp_ref.asarray(Y)),
                     (jnp_ref.asarray(TX), jnp_ref.asarray(TY)))
    for o, t in zip(ours, theirs):
        assert np.shape(o) == t.shape and np.asarray(o).dtype == t.dtype
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=2e-5, atol=2e-6)


# In the derivative tests below JAX's side runs under jit: one program, where eagerly JAX would
# compile each primitive alone (most of their time); the values agree to far within tolerance.
@pytest.mark.parametrize("name", PROGRAMS)
def test_jacfwd_agrees_with_jax(name):
    program = PROGRAMS[name]
    ours = jacfwd(lambda x, y: _ours(program, x, y), argnums=(0, 1))(X, Y)
    theirs = jax.jit(jax.jacfwd(lambda x, y: program(lax_ref, x, y), argnums=(0, 1)))(
        jnp_ref.asarray(X), jnp_ref.asarray(Y))
    for o, t in zip(ours, theirs):
        assert np.shape(o) == t.shape
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=2e-5, atol=2e-6)


def test_ties_share_the_tangent_as_in_jax():
    for f_ours, f_ref in [(lambda x: jnp.maximum(x, 0.0), lambda x: jnp_ref.maximum(x, 0.0)),
                          (lambda x: jnp.minimum(x, x), lambda x: jnp_ref.minimum(x, x)),
                          (lambda x: jnp.max(x), lambda x: jnp_ref.max(x)),
                          (lambda x: jnp.abs(x), lambda x: jnp_ref.abs(x))]:
        x = np.array([0.0, 1.0, 1.0, -2.0], np.float32)
        t = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
        np.testing.assert_allclose(jvp(f_ours, (x,), (t,))[1],
                                   jax.jvp(f_ref, (x,), (t,))[1], rtol=1e-6)


def test_numpy_programs_with_broadcasting_agree_with_jax():
    def program(np_, x, w, b):
        h = np_.tanh(x @ w + b)
        return {"loss": ((h - 0.5) ** 2).mean(), "h": h[:, ::-1], "m": np_.where(x > 0, x, 0.1 * x)}

    x = RNG.normal(size=(4, 3)).astype(np.float32)
    w = RNG.normal(size=(3, 2)).astype(np.float32)
    b = RNG.normal(size=(2,)).astype(np.float32)
    tangents = tuple(RNG.normal(size=a.shape).astype(np.float32) for a in (x, w, b))
    ours = jvp(lambda *a: program(jnp, *a), (x, w, b), tangents)
    theirs = jax.jit(lambda p, t: jax.jvp(lambda *a: program(jnp_ref, *a), p, t))(
        (x, w, b), tangents)
    for o, t in zip(jax.tree.leaves(ours), jax.tree.leaves(theirs)):
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=2e-5, atol=2e-6)
    jac_ours = jacfwd(lambda *a: program(jnp, *a), argnums=(1, 2))(x, w, b)
    jac_theirs = jax.jit(jax.jacfwd(lambda *a: program(jnp_ref, *a), argnums=(1, 2)))(x, w, b)
    assert jax.tree.structure(jac_ours) == jax.tree.structure(jac_theirs)
    for o, t in zip(jax.tree.leaves(jac_ours), jax.tree.leaves(jac_theirs)):
        assert np.shape(o) == t.shape
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("argnums", [0, 1, (0,), (1, 0), -1])
def test_jacfwd_pytrees_and_argnums_like_jax(argnums):
    def f(np_, p, s):
        return [p["a"] * s, (np_.sin(p["b"]).sum(), s * 2.0)]

    p = {"a": np.array([1.0, 2.0], np.float32), "b": np.ones((2, 2), np.float32)}
    s = np.float32(0.5)
    ours = jacfwd(lambda p, s: f(jnp, p, s), argnums)(p, s)
    theirs = jax.jit(jax.jacfwd(lambda p, s: f(jnp_ref, p, s), argnums))(p, s)
    assert jax.tree.structure(ours) == jax.tree.structure(theirs)
    for o, t in zip(jax.tree.leaves(ours), jax.tree.leaves(theirs)):
        assert np.shape(o) == t.shape
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=1e-6)


def test_hessian_by_nested_jacfwd_agrees_with_jax():
    f_ours = lambda x: (jnp.sin(x) * x[::-1]).sum() * jnp.exp(x[0])
    f_ref = lambda x: (jnp_ref.sin(x) * x[::-1]).sum() * jnp_ref.exp(x[0])
    x = np.array([0.3, -0.7, 1.1], np.float32)
    np.testing.assert_allclose(jacfwd(jacfwd(f_ours))(x), jax.jit(jax.hessian(f_ref))(x),
                               rtol=1e-5, atol=1e-6)


NESTED = [
    (lambda m: lambda x: m.sin(x) * m.exp(x)),
    (lambda m: lambda x: m.tanh(x) ** 3),
    (lambda m: lambda x: x * m.log(x) + m.sqrt(x)),
    (lambda m: lambda x: m.cos(x * x) / (1.0 + x)),
    (lambda m: lambda x: (x ** 1.5) * m.abs(x - 3.0)),
]


@pytest.mark.parametrize("i", range(len(NESTED)))
def test_nested_jvp_to_third_order_agrees_with_jax(i):
    def derivatives(f, j):
        d1 = lambda x: j(f, (x,), (1.0,))[1]
        d2 = lambda x: j(d1, (x,), (1.0,))[1]
        d3 = lambda x: j(d2, (x,), (1.0,))[1]
        return [f, d1, d2, d3]

    for x in (0.7, 1.9):
        ours = [float(d(x)) for d in derivatives(NESTED[i](jnp), jvp)]
        theirs = [float(jax.jit(d)(x)) for d in derivatives(NESTED[i](jnp_ref), jax.jvp)]
        np.testing.assert_allclose(ours, theirs, rtol=5e-5, atol=1e-5)


def test_nested_jvp_of_arrays_with_two_directions():
    # u^T H v, a second derivative along two different directions, at array inputs.
    f_ours = lambda x: jnp.sum(jnp.sin(x) * x ** 2)
    f_ref = lambda x: jnp_ref.sum(jnp_ref.sin(x) * x ** 2)
    x, u, v = (RNG.normal(size=4).astype(np.float32) for _ in range(3))
    ours = jvp(lambda x: jvp(f_ours, (x,), (u,))[1], (x,), (v,))[1]
    theirs = jax.jvp(lambda x: jax.jvp(f_ref, (x,), (u,))[1], (x,), (v,))[1]
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_perturbation_confusion_gives_jax_answer():
    def make(j):
        def f(x):
            return x * j(lambda y: x + y, (1.0,), (1.0,))[1]
        return f

    assert [float(v) for v in jvp(make(jvp), (1.0,), (1.0,))] == \
        [float(v) for v in jax.jvp(make(jax.jvp), (1.0,), (1.0,))] == [1.0, 1.0]

    def g(j):   # d/dx [x * d/dy (x * y)] = d/dx x^2 = 2x
        return lambda x: x * j(lambda y: x * y, (2.0,), (1.0,))[1]

    assert float(jvp(g(jvp), (3.0,), (1.0,))[1]) == float(jax.jvp(g(jax.jvp), (3.0,), (1.0,))[1]) \
        == 6.0


# Property tests: jvp against central differences of the same function in float64 NumPy.
FUNCTIONS = [
    (lambda x: jnp.sin(x) * jnp.cos(2.0 * x), lambda x: np.sin(x) * np.cos(2 * x)),
    (lambda x: jnp.tanh(x) + x ** 3, lambda x: np.tanh(x) + x ** 3),
    (lambda x: jnp.exp(-x * x) / (1.0 + x * x), lambda x: np.exp(-x * x) / (1 + x * x)),
    (lambda x: jnp.sqrt(1.0 + x * x) * jnp.log(2.0 + jnp.sin(x)),
     lambda x: np.sqrt(1 + x * x) * np.log(2 + np.sin(x))),
    (lambda x: jnp.sum(x) * x - jnp.max(x), lambda x: np.sum(x) * x - np.max(x)),
    (lambda x: jnp.concatenate([x[::-1] * x, jnp.sin(x)]),
     lambda x: np.concatenate([x[::-1] * x, np.sin(x)])),
    (lambda x: jnp.outer(x, jnp.sin(x)).T.reshape(-1), lambda x: np.outer(x, np.sin(x)).T.ravel()),
    (lambda x: (1.5 + jnp.sin(x)) ** jnp.cos(x), lambda x: (1.5 + np.sin(x)) ** np.cos(x)),
]

vectors = hnp.arrays(np.float64, st.integers(1, 5).map(lambda n: (n,)),
                     elements=st.floats(-2.0, 2.0))


@given(i=st.integers(0, len(FUNCTIONS) - 1), x=vectors, seed=st.integers(0, 2 ** 16))
def test_jvp_matches_central_differences(i, x, seed):
    f, f_np = FUNCTIONS[i]
    v = np.random.default_rng(seed).normal(size=x.shape)
    if i == 4:   # max is not differentiable at ties: make the maximum stand out
        x = x.copy()
        x[np.argmax(x)] += 0.5
    h = 1e-5
    want = (f_np(x + h * v) - f_np(x - h * v)) / (2 * h)
    primal, tangent = jvp(f, (x.astype(np.float32),), (v.astype(np.float32),))
    np.testing.assert_allclose(primal, f_np(x), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(tangent, want, rtol=2e-3, atol=2e-3)


@given(x=vectors, a=st.floats(-3.0, 3.0), seed=st.integers(0, 2 ** 16))
def test_jvp_is_linear_in_the_tangent(x, a, seed):
    f = FUNCTIONS[3][0]
    rng = np.random.default_rng(seed)
    u, v = (rng.normal(size=x.shape).astype(np.float32) for _ in range(2))
    x = x.astype(np.float32)
    tu, tv = jvp(f, (x,), (u,))[1], jvp(f, (x,), (v,))[1]
    t_sum = jvp(f, (x,), (np.float32(a) * u + v,))[1]
    np.testing.assert_allclose(t_sum, a * np.asarray(tu) + np.asarray(tv), rtol=1e-4, atol=1e-4)


# Symbolic zeros.
class CountingTrace(Trace):
    def __init__(self):
        self.counts = Counter()

    def process_primitive(self, primitive, args, params):
        self.counts[primitive.name] += 1
        with set_current_trace(eval_trace):
            return primitive.bind(*args, **params)


def counts(fun, *args):
    counter = CountingTrace()
    with set_current_trace(counter):
        fun(*args)
    return counter.counts


def test_zero_tangents_do_no_work():
    w = jnp.ones(3)
    got = counts(lambda x, t: jvp(lambda x: x * w, (x,), (t,)), jnp.ones(3), jnp.ones(3))
    assert got == {"mul": 2}, got                       # x * w and t * w: no 0 * x, no add
    got = counts(lambda x, y, t: jvp_flat(lambda x, y: [x * y], [x, y], [t, Zero(y.aval)]),
                 jnp.ones(3), jnp.ones(3), jnp.ones(3))
    assert got == {"mul": 2}, got
    got = counts(lambda x, t: jvp(lambda x: jnp.sin(w) * 2.0, (x,), (t,)), jnp.ones(3),
                 jnp.ones(3))
    assert got == {"sin": 1, "mul": 1, "broadcast_in_dim": 1}, got   # no cos: no rule ran


def test_outputs_that_do_not_depend_on_inputs_have_zero_tangents():
    outs, tangents = jvp_flat(lambda x, y: [x * 2.0, y + 1.0, 3.0], [jnp.ones(2), jnp.ones(3)],
                              [jnp.ones(2), Zero(jnp.ones(3).aval)], instantiate=False)
    assert type(tangents[0]) is not Zero
    assert type(tangents[1]) is Zero and tangents[1].aval.shape == (3,)
    assert type(tangents[2]) is Zero and tangents[2].aval.weak_type
    np.testing.assert_array_equal(instantiate_zeros(tangents[1]), np.zeros(3))
    # As in JAX: a constant output gets an instantiated, weakly typed zero tangent.
    out, t = jvp(lambda x: 3.0, (1.0,), (1.0,))
    ref = jax.jvp(lambda x: 3.0, (1.0,), (1.0,))[1]
    assert (t.dtype, t.weak_type, float(t)) == (ref.dtype, ref.weak_type, 0.0)


def test_all_zero_inputs_bind_on_the_parent_and_make_no_tracer():
    seen = []

    class Spy(JVPTrace):
        def process_primitive(self, primitive, tracers, params):
            out = super().process_primitive(primitive, tracers, params)
            seen.append((primitive.name, type(out).__name__))
            return out

    trace = Spy(eval_trace, TraceTag())
    x = JVPTracer(trace, jnp.asarray(2.0), jnp.asarray(1.0))
    with set_current_trace(trace):
        lax.mul(lax.sin(x), lax.cos(jnp.asarray(1.0)))   # (jnp's would bind `jit`, chapter 8)
    assert seen == [("sin", "JVPTracer"), ("cos", "Array"), ("mul", "JVPTracer")]


def test_zero_helpers():
    z = Zero.from_primal_value(np.ones((2, 3), np.float32))
    assert repr(z) == "Zero(float32[2,3])"
    assert repr(Zero.from_primal_value(3)) == "Zero(float0[])"
    assert add_tangents(z, 1.0) == 1.0 and add_tangents(2.0, z) == 2.0
    assert float(add_tangents(jnp.asarray(1.0), jnp.asarray(2.0))) == 3.0
    zeros = z.instantiate()
    assert isinstance(zeros, Array) and zeros.shape == (2, 3) and zeros.dtype == np.float32
    assert instantiate_zeros(Zero.from_primal_value(True)).dtype == float0


# The tracer and the API.
def test_tracer_aval_and_concrete_value():
    seen = {}

    def f(x):
        seen["aval"] = x.aval.str_short()
        seen["int"] = int(x)                 # a known value may be used as an int or a bool...
        seen["repr"] = repr(x)
        with pytest.raises(ConcretizationTypeError, match="float"):
            float(x)                         # ...but never taken out as a float, as in JAX
        return x * 2 if x > 0 else -x

    assert [float(v) for v in jvp(f, (jnp.asarray(3.0),), (jnp.asarray(1.0),))] == [6.0, 2.0]
    assert seen == {"aval": "f32[]", "int": 3, "repr": "JVPTracer(primal=3.0, tangent=1.0)"}
    assert [float(v) for v in jvp(f, (-1.0,), (1.0,))] == [1.0, -1.0]


def test_comparison_outputs_get_float0_tangents_like_jax():
    out, t = jvp(lambda x: (x > 0, x * 2), (1.0,), (1.0,))
    ref_out, ref_t = jax.jvp(lambda x: (x > 0, x * 2), (1.0,), (1.0,))
    assert bool(out[0]) and np.asarray(t[0]).dtype == float0 == np.asarray(ref_t[0]).dtype
    assert float(t[1]) == float(ref_t[1]) == 2.0


def test_int_primals_with_float0_tangents_like_jax():
    ours = jvp(lambda x, n: x * n, (1.0, 3), (2.0, np.zeros((), float0)))
    theirs = jax.jvp(lambda x, n: x * n, (1.0, 3), (2.0, np.zeros((), jax.dtypes.float0)))
    assert [float(v) for v in ours] == [float(v) for v in theirs] == [3.0, 6.0]


def test_pytrees_in_and_out():
    def f(p, xs):
        return {"y": p["w"] * xs[0], "z": [xs[1] + p["b"]]}

    p = {"w": 2.0, "b": np.ones(2, np.float32)}
    xs = (np.float32(3.0), np.zeros(2, np.float32))
    tp = {"w": 1.0, "b": np.ones(2, np.float32)}
    txs = (np.float32(0.0), np.full(2, 2.0, np.float32))
    (out, tangent), ref = jvp(f, [p, xs], [tp, txs]), jax.jvp(f, [p, xs], [tp, txs])
    assert jax.tree.structure(out) == jax.tree.structure(ref[0])
    assert jax.tree.structure(tangent) == jax.tree.structure(ref[1])
    for a, b in zip(jax.tree.leaves((out, tangent)), jax.tree.leaves(ref)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b))


def test_weak_types_and_dtypes_like_jax():
    cases = [(jnp.sin, jnp_ref.sin, 0.1), (lambda x: x * 2, lambda x: x * 2, np.float32(1.5)),
             (lambda x: x.astype(jnp.float16) * 3.0, lambda x: x.astype(jnp_ref.float16) * 3.0,
              np.ones(2, np.float32))]
    for ours_f, ref_f, x in cases:
        for o, t in zip(jvp(ours_f, (x,), (x,)), jax.jvp(ref_f, (x,), (x,))):
            assert (o.dtype, o.weak_type) == (t.dtype, t.weak_type), (o, t)


def test_escaped_tracer_is_reported():
    from autodidax.core import UnexpectedTracerError
    leaked = []
    jvp(lambda x: leaked.append(x) or x, (1.0,), (1.0,))
    with pytest.raises(UnexpectedTracerError, match="escaped"):
        jnp.sin(leaked[0])


def test_missing_rule_is_named():
    p = Primitive("mystery")
    from autodidax.core import abstract_eval_rules, impl_rules
    impl_rules[p] = lambda x: x
    abstract_eval_rules[p] = lambda x: x
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'mystery'"):
        jvp(lambda x: p.bind(x), (1.0,), (1.0,))


# Bad input.
@pytest.mark.parametrize("primals, tangents, error, message", [
    ((np.ones(3, np.float32),), (np.ones(4, np.float32),), ValueError,
     r"tangent of primals\[0\] does not match its primal: the primal is f32\[3\], so its "
     r"tangent must be f32\[3\], but it is f32\[4\]"),
    ((np.ones(3, np.float32),), (np.ones(3, np.float16),), TypeError,
     r"the primal is f32\[3\], so its tangent must be f32\[3\], but it is f16\[3\]"),
    ((1.0,), (1,), TypeError, r"must be f32\[\], but it is i32\[\]"),
    ((1.0, 3), (1.0, 1), TypeError,
     r"primals\[1\] .* must be float0\[\], but it is i32\[\]; int32 values have no derivative"),
    (({"a": 1.0, "b": (2.0, 3.0)},), ({"a": 1.0, "b": (2.0, 3)},), TypeError,
     r"leaf 2 of primals\[0\]"),
    (({"a": 1.0},), ([1.0],), TypeError,
     r"same tree structure; primals have tree structure PyTreeDef\(\(\{'a': \*\},\)\) "
     r"whereas tangents have tree structure PyTreeDef\(\(\[\*\],\)\)"),
    ((1.0, 2.0), (1.0,), TypeError, "same tree structure"),
    (1.0, (1.0,), TypeError, "must be tuples or lists; found float and tuple"),
])
def test_bad_input_errors(primals, tangents, error, message):
    with pytest.raises(error, match=message):
        jvp(lambda *a: a[0], primals, tangents)


def test_jax_rejects_the_same_inputs():
    with pytest.raises((TypeError, ValueError)):
        jax.jvp(jnp_ref.sin, (np.ones(3, np.float32),), (np.ones(4, np.float32),))
    with pytest.raises(TypeError):
        jax.jvp(lambda x, n: x * n, (1.0, 3), (1.0, 1))


def test_jacfwd_errors():
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs .* got int32"):
        jacfwd(lambda n: n * 2)(3)
    with pytest.raises(ValueError, match="argnums 2 is out of range"):
        jacfwd(lambda x, y: x * y, argnums=2)(1.0, 2.0)


# --- JAX's formulas, JAX's bits, `add_any`, weak types ------------------------------------------

@pytest.mark.parametrize("name", ["tanh", "div", "pow", "max", "min", "abs", "sqrt", "integer_pow",
                                  "integer_pow_negative", "reduce_max", "select_n_3", "sub",
                                  "broadcast_in_dim"])
def test_jit_of_jvp_gives_jaxs_bits(name):
    from autodidax.jit import jit
    program = PROGRAMS[name]
    ours = jit(lambda x, y, tx, ty: jvp(lambda x, y: program(lax, x, y), (x, y), (tx, ty)))
    theirs = jax.jit(lambda x, y, tx, ty: jax.jvp(lambda x, y: program(lax_ref, x, y), (x, y),
                                                  (tx, ty)))
    for o, t in zip(ours(X, Y, TX, TY), theirs(X, Y, TX, TY)):
        assert np.array_equal(np.asarray(o), np.asarray(t), equal_nan=True), (o, t)


def test_tangent_sums_are_add_any_and_jvp_jaxprs_print_as_jaxs():
    from autodidax.jaxpr import make_jaxpr
    ones = np.ones(3, np.float32)
    programs = [(lambda m: lambda x: m.sin(x) * x, 1.0), (lambda m: m.tanh, 1.0),
                (lambda m: lambda x: m.sin(x) / x, 1.0), (lambda m: lambda x: x + m.sin(x), ones),
                (lambda m: lambda x: m.maximum(x, 0.0) - x, ones),
                (lambda m: lambda x: m.sum(x ** 2.5 + m.abs(x)), ones)]
    for make, x in programs:
        ours = make_jaxpr(lambda x, t: jvp(make(jnp), (x,), (t,)))(x, x)
        theirs = jax.make_jaxpr(lambda x, t: jax.jvp(make(jnp_ref), (x,), (t,)))(x, x)
        assert str(ours) == str(theirs)


def test_add_any_adds_tangents_of_one_type_only():
    from autodidax.jvp import add_any, add_any_p
    assert add_any_p.name == "add_any"
    np.testing.assert_array_equal(np.asarray(add_any(np.ones(2, np.float32), np.ones(2, np.float32))),
                                  [2.0, 2.0])
    with pytest.raises(TypeError, match=r"add_any adds two tangents of one type, got f32\[2\] and "
                                        r"f32\[\]"):
        add_any(np.ones(2, np.float32), np.float32(1.0))
    with pytest.raises(TypeError, match="got f32\\[2\\] and f16\\[2\\]"):
        add_any(np.ones(2, np.float32), np.ones(2, np.float16))
    t = jvp(lambda x: add_any(x, x * 2.0), (np.ones(2, np.float32),), (np.ones(2, np.float32),))[1]
    np.testing.assert_array_equal(np.asarray(t), [3.0, 3.0])


@pytest.mark.parametrize("primal, tangent", [
    (1.0, 1.0), (1.0, np.float32(2.0)), (np.float32(1.0), 2.0), (1.0, jnp_ref.float32(2.0))])
def test_tangents_take_their_primals_weak_type_like_jax(primal, tangent):
    for f, f_ref in [(lambda x: x * x, lambda x: x * x), (jnp.sin, jnp_ref.sin),
                     (lambda x: x * 2.0 + 1.0, lambda x: x * 2.0 + 1.0)]:
        ours = jvp(f, (primal,), (np.asarray(tangent),))
        theirs = jax.jvp(f_ref, (primal,), (tangent,))
        for o, t in zip(ours, theirs):
            assert (o.dtype, o.weak_type) == (t.dtype, t.weak_type), (o, t)


@pytest.mark.parametrize("x", [1.0, np.float32(1.0), np.ones(2, np.float32)])
def test_jacfwd_blocks_take_the_outputs_types_like_jax(x):
    for f, f_ref in [(lambda x: x * x, lambda x: x * x),
                     (lambda x: x * 2.0 + 1.0, lambda x: x * 2.0 + 1.0),
                     (lambda x: x * jnp.float32(2), lambda x: x * jnp_ref.float32(2))]:
        want = jax.jacfwd(f_ref)(x)
        for ours in (jacfwd(f)(x),):
            assert (ours.dtype, ours.weak_type) == (want.dtype, want.weak_type)
            np.testing.assert_array_equal(np.asarray(ours), np.asarray(want))
