"""autodidax/batching.py: vmap agrees with jax.vmap, with a Python loop, and composes with jvp."""
import functools
import itertools
from collections import Counter, namedtuple

import jax
import jax.lax as jlax
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import autodidax.numpy as jnp
from autodidax import core, lax, lax_core
from autodidax.batching import (BatchTrace, BatchTracer, batching_rules, not_mapped, vmap)

B = 4   # the batch size of the differential tests
rng = np.random.default_rng(0)


def normal(*shape):
    return rng.standard_normal(shape).astype(np.float32)


A, Bm, M, V = normal(2, 3), normal(2, 3), normal(3, 4), normal(3)
P = np.abs(normal(2, 3)) + 0.5
T3 = normal(2, 3, 4)
I = np.array([[-7, 3, 0], [5, -2, 9]], np.int32)
J = np.array([[2, -2, 4], [3, 3, -4]], np.int32)
MASK = A > 0
S = np.float32(1.5)
Z = (A + 1j * Bm).astype(np.complex64)
WORDS = np.array([[0x3FFFFFFF, 7, 1], [0x20000000, 12345, 0]], np.uint32)
SHIFTS = np.array([[0, 4, 31], [1, 3, 20]], np.uint32)   # examples scale them: up to 54

# (primitive name, per-example operands, params): called as lax.NAME(*operands, **params) in
# both libraries; `concatenate` takes its operands as one list.
CASES = [
    ("neg", (A,), {}), ("sin", (A,), {}), ("cos", (A,), {}), ("exp", (A,), {}),
    ("log", (P,), {}), ("tanh", (A,), {}), ("sqrt", (P,), {}), ("abs", (A,), {}),
    ("sign", (A,), {}), ("neg", (I,), {}), ("square", (A,), {}), ("square", (I,), {}),
    ("add", (A, Bm), {}), ("sub", (A, Bm), {}), ("mul", (A, Bm), {}), ("div", (A, Bm), {}),
    ("div", (I, J), {}), ("max", (A, Bm), {}), ("min", (A, Bm), {}), ("pow", (P, Bm), {}),
    ("add", (A, S), {}), ("mul", (S, A), {}), ("mul", (A, A[:1]), {}), ("sub", (S, S), {}),
    ("gt", (A, Bm), {}), ("lt", (A, Bm), {}), ("ge", (I, J), {}), ("le", (I, J), {}),
    ("eq", (I, J), {}), ("ne", (A, Bm), {}),
    ("integer_pow", (A,), {"y": 3}), ("integer_pow", (P,), {"y": -2}),
    ("select_n", (MASK, A, Bm), {}), ("select_n", (np.bool_(True), A, Bm), {}),
    ("select_n", (np.int32(1), S, S), {}),
    ("convert_element_type", (A,), {"new_dtype": np.int32}),
    ("convert_element_type", (I,), {"new_dtype": np.float32}),
    ("reduce_sum", (A,), {"axes": (1,)}), ("reduce_sum", (T3,), {"axes": (0, 2)}),
    ("reduce_max", (A,), {"axes": (0,)}), ("reduce_min", (I,), {"axes": (0, 1)}),
    ("broadcast_in_dim", (V,), {"shape": (2, 3), "broadcast_dimensions": (1,)}),
    ("broadcast_in_dim", (A,), {"shape": (2, 5, 3), "broadcast_dimensions": (0, 2)}),
    ("broadcast_in_dim", (A[:1],), {"shape": (4, 3), "broadcast_dimensions": (0, 1)}),
    ("broadcast_in_dim", (S,), {"shape": (2, 2), "broadcast_dimensions": ()}),
    ("reshape", (T3,), {"new_sizes": (6, 4)}),
    ("reshape", (A,), {"new_sizes": (3, 2), "dimensions": (1, 0)}),
    ("transpose", (T3,), {"permutation": (2, 0, 1)}),
    ("squeeze", (A[:1],), {"dimensions": (0,)}),
    ("squeeze", (T3[:, :1, :1],), {"dimensions": (1, 2)}),
    ("slice", (T3,), {"start_indices": (1, 0, 1), "limit_indices": (2, 3, 4),
                      "strides": (1, 2, 2)}),
    ("slice", (A,), {"start_indices": (0, 1), "limit_indices": (2, 3), "strides": None}),
    ("rev", (T3,), {"dimensions": (0, 2)}),
    ("concatenate", (A, Bm, A[:1]), {"dimension": 0}),
    ("concatenate", (A, Bm), {"dimension": 1}),
    ("dot_general", (A, M), {"dimension_numbers": (((1,), (0,)), ((), ()))}),
    ("dot_general", (M, V), {"dimension_numbers": (((0,), (0,)), ((), ()))}),
    ("dot_general", (T3, T3), {"dimension_numbers": (((2,), (2,)), ((0,), (0,)))}),
    ("dot_general", (A, Bm), {"dimension_numbers": (((), ()), ((), ()))}),
    ("dot_general", (V, V), {"dimension_numbers": (((0,), (0,)), ((), ()))}),
    ("and", (I, J), {}), ("or", (MASK, ~MASK), {}), ("xor", (I, J), {}), ("not", (MASK,), {}),
    ("not", (I,), {}),
    ("argmax", (A,), {"axis": 1, "index_dtype": np.int32}),
    ("argmin", (T3,), {"axis": 0, "index_dtype": np.int32}),
    ("stack", (A, Bm), {"axis": 0}), ("stack", (A, Bm, A), {"axis": 2}),
    ("unstack", (T3,), {"axis": 1}), ("unstack", (A,), {"axis": 0}),
    ("floor", (A,), {}), ("ceil", (A,), {}), ("round", (A,), {"rounding_method": 1}),
    ("is_finite", (A,), {}), ("exp2", (A,), {}), ("expm1", (A,), {}), ("log1p", (P,), {}),
    ("tan", (A,), {}), ("asin", (np.tanh(A) / 2,), {}), ("acos", (np.tanh(A) / 2,), {}),
    ("atan", (A,), {}), ("sinh", (A,), {}), ("cosh", (A,), {}), ("asinh", (A,), {}),
    ("acosh", (P + 1,), {}), ("atanh", (np.tanh(A) / 2,), {}), ("rsqrt", (P,), {}),
    ("atan2", (A, Bm), {}), ("rem", (I, J), {}), ("stop_gradient", (A,), {}),
    ("reduce_prod", (A,), {"axes": (1,)}), ("reduce_or", (MASK,), {"axes": (0,)}),
    ("reduce_and", (MASK,), {"axes": (0, 1)}),
    ("cumsum", (A,), {"axis": 1}), ("cumsum", (T3,), {"axis": 2, "reverse": True}),
    ("cumprod", (A,), {"axis": 0}), ("cumprod", (I,), {"axis": 1, "reverse": True}),
    ("pad", (A, np.float32(0.5)), {"padding_config": ((1, 2, 0), (0, 1, 1))}),
    ("pad", (I, np.int32(-3)), {"padding_config": ((-1, 1, 0), (2, -1, 2))}),
    ("shift_left", (WORDS, SHIFTS), {}), ("shift_right_logical", (WORDS, SHIFTS), {}),
    ("shift_right_arithmetic", (I, SHIFTS.astype(np.int32)), {}),
    ("bitcast_convert_type", (A,), {"new_dtype": np.int32}),
    ("real", (Z,), {}), ("imag", (Z,), {}), ("conj", (Z,), {}), ("conj", (A,), {}),
    ("complex", (A, Bm), {}), ("abs", (Z,), {}), ("sin", (Z,), {}), ("mul", (Z, Z), {}),
]
NO_OPERANDS = {"iota"}   # a primitive without operands is never batched: it has no rule
FUNCTIONS = {"and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor", "not": "bitwise_not"}


def test_every_primitive_has_a_batching_rule_and_a_case():
    prims = {v for k, v in vars(lax_core).items() if k.endswith("_p") and isinstance(v, core.Primitive)}
    assert {p.name for p in prims - set(batching_rules)} == NO_OPERANDS
    assert {p.name for p in prims} - NO_OPERANDS == {name for name, _, _ in CASES}


def example(x, k):
    """The k-th example of a batch built around `x`: different numbers, same shape and dtype."""
    x = np.asarray(x)
    if x.dtype == np.bool_:
        return x ^ bool(k % 2)
    if x.dtype.kind == "i" and x.ndim == 0:
        return np.int32(k % 2)                       # select_n's predicate: 0 or 1
    if x.dtype.kind == "i":
        return (x * (k + 1)).astype(x.dtype)        # never turns a divisor into 0
    return (x * (1 + 0.25 * k)).astype(x.dtype)     # keeps the sign of log's and pow's inputs


def batched(x, axis):
    """A batch of B examples built around `x`, stacked along `axis` (None: `x` itself)."""
    if axis is None:
        return np.asarray(x)
    stacked = np.stack([example(x, k) for k in range(B)])
    return np.moveaxis(stacked, 0, axis % stacked.ndim)


def axis_choices(x):
    """Every in_axes for an operand of `x`'s rank: unbatched, each axis, and a negative one."""
    n = np.ndim(x) + 1
    return [None, *range(n), -1]


def call(lib, name, params):
    fun = getattr(lib, FUNCTIONS.get(name, name))
    if name in ("concatenate", "stack"):
        return lambda *xs: fun(list(xs), **params)
    return lambda *xs: fun(*xs, **params)


def differential_cases():
    cases = []
    for ci, (name, operands, params) in enumerate(CASES):
        combos = [c for c in itertools.product(*map(axis_choices, operands))
                  if any(a is not None for a in c)]
        for k, in_axes in enumerate(combos):
            cases.append(pytest.param(ci, in_axes, [0, -1, 1][(k + ci) % 3],
                                      id=f"{ci}-{name}-{in_axes}"))
    return cases


@functools.cache
def out_rank(ci):
    """The rank of CASES[ci]'s batched output: computed once for all its in_axes (an eager
    call per test cost a tenth of this file's time)."""
    name, operands, params = CASES[ci]
    return np.ndim(call(lax, name, params)(*operands)) + 1


def assert_same(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape, f"shape {ours.shape}, jax says {theirs.shape}"
    assert ours.dtype == theirs.dtype, f"dtype {ours.dtype}, jax says {theirs.dtype}"
    np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("ci,in_axes,out_axes", differential_cases())
def test_vmap_of_every_primitive_agrees_with_jax(ci, in_axes, out_axes):
    name, operands, params = CASES[ci]
    args = [batched(x, a) for x, a in zip(operands, in_axes)]
    out_axes = out_axes if out_axes < out_rank(ci) else 0
    ours = vmap(call(lax, name, params), in_axes, out_axes)(*args)
    theirs = jax.vmap(call(jlax, name, params), in_axes, out_axes)(*args)
    assert_same(ours, theirs)


def test_numpy_programs_agree_with_jax():
    import jax.numpy as np_jax

    def program(np_, x, w, b):
        h = np_.tanh(x @ w + b)
        h = np_.where(h > 0, h, 0.1 * h)
        z = np_.concatenate([h, h[::-1] ** 2], axis=0).reshape(-1)
        return {"mean": z.mean(), "max": np_.max(h, axis=0), "t": h.T[1:, ::2],
                "n": np_.sqrt(np_.sum(np_.abs(x), axis=-1, keepdims=True))}

    x, w, b = normal(5, 2, 3), normal(3, 4), normal(4)
    for in_axes in [(0, None, None), (0, None, 0), (1, None, None)]:
        xs = np.moveaxis(x, 0, 1) if in_axes[0] == 1 else x
        bs = np.stack([b * k for k in range(5)]) if in_axes[2] == 0 else b
        ours = vmap(lambda *a: program(jnp, *a), in_axes)(xs, w, bs)
        theirs = jax.vmap(lambda *a: program(np_jax, *a), in_axes)(xs, w, bs)
        for key in ours:
            assert_same(ours[key], theirs[key])


# --- in_axes and out_axes as pytrees -----------------------------------------------------------

Pair = namedtuple("Pair", ["a", "b"])


@pytest.mark.parametrize("in_axes", [
    0, (0, None), [0, None], ({"w": 1, "b": 0}, None), ({"w": -1, "b": None}, 0),
    (Pair(0, 1), 0),
], ids=str)
def test_pytree_in_axes_agree_with_jax(in_axes):
    params = {"w": normal(4, 4), "b": normal(4, 4)}
    data = normal(4, 4)
    if isinstance(in_axes, tuple) and isinstance(in_axes[0], Pair):
        params, data = Pair(normal(4, 3), normal(3, 4)), normal(4, 3)
        f = lambda p, x: (p.a * x, p.b.T + x)
    else:
        f = lambda p, x: {"y": p["w"].T * p["b"] + x, "z": (p["b"] * 2.0, x.sum())}
    ours = vmap(f, in_axes)(params, data)
    theirs = jax.vmap(f, in_axes)(params, data)
    for o, t in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
        assert_same(o, t)


@pytest.mark.parametrize("out_axes", [1, -1, (0, 1), (None, 0), ({"p": 1, "q": -1}, 0)],
                         ids=str)
def test_out_axes_agree_with_jax(out_axes):
    x, c = normal(5, 3), normal(3)

    def g(np_):
        def h(x, c):
            if out_axes == (None, 0):
                return c * 2.0, np_.outer(x, x)
            if isinstance(out_axes, tuple) and isinstance(out_axes[0], dict):
                return {"p": x * c, "q": x + 1.0}, np_.outer(x, x)
            if isinstance(out_axes, tuple):
                return x * c, np_.outer(x, x)
            return np_.outer(x, c)
        return h

    ours = vmap(g(jnp), (0, None), out_axes)(x, c)
    theirs = jax.vmap(g(jax.numpy), (0, None), out_axes)(x, c)
    for o, t in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
        assert_same(o, t)


def test_unbatched_output_is_broadcast_and_python_scalars_work():
    out = vmap(lambda x: 1.0)(np.ones(3, np.float32))
    assert_same(out, jax.vmap(lambda x: 1.0)(np.ones(3, np.float32)))
    out = vmap(lambda x, c: c, (0, None), 1)(np.ones((3, 2), np.float32), A)
    assert_same(out, jax.vmap(lambda x, c: c, (0, None), 1)(np.ones((3, 2), np.float32), A))


# --- nested vmap --------------------------------------------------------------------------------

def test_nested_vmap_agrees_with_jax():
    x, y = normal(3, 4), normal(5, 4)

    def pairwise(vm, np_):
        return vm(lambda a: vm(lambda b: np_.sum((a - b) ** 2))(y))

    assert_same(pairwise(vmap, jnp)(x), pairwise(jax.vmap, jax.numpy)(x))

    def batched_matvec(vm, np_):
        inner = vm(lambda m, v: m @ v, in_axes=(None, 1), out_axes=1)
        return vm(inner, in_axes=(0, None), out_axes=-1)

    ms, vs = normal(2, 3, 4), normal(4, 6)
    assert_same(batched_matvec(vmap, jnp)(ms, vs), batched_matvec(jax.vmap, jax.numpy)(ms, vs))

    def closes_over(vm, np_):
        return lambda xs, ys: vm(lambda a: vm(lambda b: np_.sin(a) * b, in_axes=1)(ys))(xs)

    xs, ys = normal(3, 4), normal(4, 2)
    assert_same(closes_over(vmap, jnp)(xs, ys), closes_over(jax.vmap, jax.numpy)(xs, ys))
    triple = lambda vm: vm(vm(vm(lambda a: a * 2.0 + 1.0)))
    assert_same(triple(vmap)(T3), triple(jax.vmap)(T3))


# --- the trace itself ---------------------------------------------------------------------------

class CountingTrace(core.Trace):
    """The parent of a BatchTrace in these tests: evaluates, and counts what reaches it."""

    def __init__(self):
        self.counts = Counter()

    def process_primitive(self, primitive, args, params):
        self.counts[primitive.name] += 1
        with core.set_current_trace(core.eval_trace):
            return primitive.bind(*args, **params)


def count_primitives(f, *args):
    counter = CountingTrace()
    with core.set_current_trace(counter):
        out = f(*args)
    return out, counter.counts


def test_batch_dims_move_only_when_a_rule_needs_it():
    x, y = normal(3, 5, 2), normal(3, 5, 2)
    _, counts = count_primitives(vmap(lambda a, b: jnp.sin(a) * b + 1.0, in_axes=1, out_axes=1),
                                 x, y)
    assert "transpose" not in counts and "broadcast_in_dim" not in counts, counts
    _, counts = count_primitives(vmap(lambda a, m: (a @ m).sum(0), in_axes=(2, None)),
                                 x, normal(5, 4))
    assert "transpose" not in counts, counts
    _, counts = count_primitives(vmap(lambda a, b: a + b, in_axes=(1, 0), out_axes=1), x,
                                 y.transpose(1, 0, 2))
    assert counts["transpose"] == 2, counts     # JAX's: both batch axes to the front, then back


def test_unbatched_values_pass_through_untouched():
    seen = {}

    def f(x, c):
        seen["c"] = jnp.sin(c)
        seen["x"] = x
        return x * seen["c"]

    vmap(f, in_axes=(0, None))(np.ones((4, 3), np.float32), A[0])
    assert isinstance(seen["c"], core.Array) and not isinstance(seen["c"], core.Tracer), \
        "sin of an unbatched value should give a plain Array"
    assert isinstance(seen["x"], BatchTracer) and seen["x"].batch_dim == 0
    assert seen["x"].aval == core.ShapedArray((3,), np.float32)
    assert seen["x"].to_concrete_value() is None


def test_batch_tracer_aval_drops_the_batch_dim():
    trace = BatchTrace(core.eval_trace, object(), 4)
    t = BatchTracer(trace, core.Array(np.zeros((2, 4, 3), np.float32)), 1)
    assert t.aval.shape == (2, 3) and t.shape == (2, 3)
    assert trace.to_batch_info(t)[1] == 1
    other = BatchTrace(core.eval_trace, object(), 4)
    assert other.to_batch_info(t) == (t, not_mapped), "a tracer of another tag is unbatched"


# --- property tests: vmap(f)(xs) is a loop over f, stacked --------------------------------------

UNARY = {
    "sin": jnp.sin, "tanh-sum": lambda x: jnp.tanh(x).sum(axis=-1),
    "square-mean": lambda x: (x ** 2).mean(), "reverse": lambda x: x[::-1],
    "transpose": lambda x: x.T, "max0": lambda x: jnp.max(x, axis=0),
    "outer": lambda x: jnp.outer(x.ravel(), x.ravel()), "relu": lambda x: jnp.where(x > 0, x, 0.0),
    "stack": lambda x: jnp.stack([x, -x], axis=-1),
    "gram": lambda x: x.reshape(len(x), -1) @ x.reshape(len(x), -1).T,
    "clip": lambda x: jnp.clip(x, -0.5, 0.5) + x.reshape(-1)[0],
}
shapes = st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple)


@given(st.sampled_from(sorted(UNARY)), shapes, st.integers(1, 4), st.integers(0, 10**6),
       st.data())
def test_vmap_equals_a_loop(name, shape, size, seed, data):
    f = UNARY[name]
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)), label="in_axis")
    xs = np.random.default_rng(seed).standard_normal((size,) + shape).astype(np.float32)
    xs = np.moveaxis(xs, 0, axis)
    want = np.stack([np.asarray(f(jnp.asarray(np.take(xs, i, axis=axis))))
                     for i in range(size)])
    got = np.asarray(vmap(f, in_axes=axis)(xs))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@given(shapes, st.integers(1, 3), st.integers(0, 10**6), st.booleans())
def test_vmap_of_a_binary_function_equals_a_loop(shape, size, seed, batch_y):
    r = np.random.default_rng(seed)
    xs = r.standard_normal((size,) + shape).astype(np.float32)
    y = r.standard_normal((size,) + shape if batch_y else shape).astype(np.float32)
    f = lambda a, b: jnp.maximum(a * b, jnp.sin(b)).sum(axis=0) - a[..., :1]
    got = vmap(f, in_axes=(0, 0 if batch_y else None))(xs, y)
    want = np.stack([np.asarray(f(jnp.asarray(xs[i]), jnp.asarray(y[i] if batch_y else y)))
                     for i in range(size)])
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


# --- errors -------------------------------------------------------------------------------------

def error_of(f, *args):
    with pytest.raises((ValueError, TypeError)) as e:
        f(*args)
    return str(e.value)


def test_inconsistent_sizes_name_the_sizes_and_the_arguments():
    msg = error_of(vmap(lambda x, y: x + y), np.ones(3, np.float32), np.ones(4, np.float32))
    assert "different sizes" in msg and "argument x" in msg and "argument y" in msg
    assert "size 3" in msg and "size 4" in msg
    msg = error_of(vmap(lambda p: p["a"] + p["b"]),
                   {"a": np.ones(3, np.float32), "b": np.ones((2, 5), np.float32)})
    assert "argument p['a']" in msg and "argument p['b']" in msg and "f32[2,5]" in msg


def test_in_axes_that_does_not_match_the_arguments():
    msg = error_of(vmap(lambda x, y: x, in_axes=(0, 0, 0)), A, A)
    assert "3 entries" in msg and "2 positional arguments" in msg
    msg = error_of(vmap(lambda p: p, in_axes=({"a": 0},)), {"b": A})
    assert "tree prefix of the arguments" in msg and "['a']" in msg and "['b']" in msg
    msg = error_of(vmap(lambda p: p, in_axes=((0, 0),)), (A,))
    assert "tree prefix" in msg and "2 children" in msg
    assert "in_axes must be" in error_of(lambda: vmap(lambda x: x, in_axes=1.0))
    assert "in_axes must be" in error_of(lambda: vmap(lambda x: x, in_axes={"a": 0}))
    assert "in_axes must be" in error_of(lambda: vmap(lambda x: x, in_axes=(0, "a")))
    msg = error_of(vmap(lambda x: x, in_axes=None), A)
    assert "at least one argument with a mapped axis" in msg


def test_axis_out_of_range_is_named():
    msg = error_of(vmap(lambda x: x, in_axes=2), A)
    assert "argument x" in msg and "axis 2" in msg and "rank 2" in msg and "(2, 3)" in msg
    msg = error_of(vmap(lambda x: x, in_axes=-3), A)
    assert "axis -3" in msg
    msg = error_of(vmap(lambda x: x), 1.0)
    assert "axis 0" in msg and "rank 0" in msg


def test_out_axes_problems():
    msg = error_of(vmap(lambda x: x, out_axes=3), A)
    assert "out_axes 3" in msg and "the output" in msg and "rank 2" in msg
    msg = error_of(vmap(lambda x: (x, x), out_axes=(0, None)), A)
    assert "out_axes is None" in msg and "the output[1]" in msg and "batched" in msg
    msg = error_of(vmap(lambda x: (x, x), out_axes=(0, 0, 0)), A)
    assert "out_axes must be a tree prefix of the outputs" in msg
    assert "out_axes must be" in error_of(lambda: vmap(lambda x: x, out_axes=0.5))


def test_missing_rule_is_named():
    p = core.Primitive("mystery")
    core.impl_rules[p] = lambda x: x
    core.abstract_eval_rules[p] = lambda x: x
    with pytest.raises(NotImplementedError, match="mystery"):
        vmap(p.bind)(A)
    assert_same(vmap(lambda x, c: x + p.bind(c), (0, None))(A, V), A + V)


# --- composition with jvp, and jacfwd -----------------------------------------------------------

from autodidax.batching import jacfwd  # noqa: E402
from autodidax.jvp import jvp  # noqa: E402


def smooth(np_):
    def f(x, w):
        h = np_.tanh(x @ w) * np_.sin(x).sum()
        return np_.concatenate([h, np_.exp(-h ** 2)], axis=-1).reshape(-1)[::2] / (1.0 + x[0] ** 2)
    return f


# In the derivative tests below JAX's side runs under jit: one program, where eagerly JAX would
# compile each primitive alone (most of their time); its values agree with eager ones to far
# within assert_same's tolerance.
def test_vmap_of_jvp_and_jvp_of_vmap_agree_with_jax():
    xs, ts, w = normal(5, 3), normal(5, 3), normal(3, 4)
    ours = vmap(lambda x, t: jvp(smooth(jnp), (x, w), (t, w)))(xs, ts)
    theirs = jax.jit(jax.vmap(lambda x, t: jax.jvp(smooth(jax.numpy), (x, w), (t, w))))(xs, ts)
    assert_same(ours[0], theirs[0])
    assert_same(ours[1], theirs[1])
    for in_axes in [(0, None), (1, None), (None, 0)]:
        args = [np.moveaxis(xs, 0, 1) if in_axes[0] == 1 else (xs if in_axes[0] == 0 else xs[0]),
                w if in_axes[1] is None else np.stack([w] * 5)]
        tans = [a * 0.5 for a in args]
        ours = jvp(vmap(smooth(jnp), in_axes), args, tans)
        theirs = jax.jit(lambda a, t: jax.jvp(jax.vmap(smooth(jax.numpy), in_axes), a, t))(
            args, tans)
        assert_same(ours[0], theirs[0])
        assert_same(ours[1], theirs[1])


def test_vmap_of_jvp_with_unbatched_tangent():
    xs, t = normal(5, 3), normal(3)
    f = lambda x: jnp.sin(x) * x.sum()
    ours = vmap(lambda x: jvp(f, (x,), (t,))[1])(xs)
    theirs = jax.vmap(lambda x: jax.jvp(lambda x: jax.numpy.sin(x) * x.sum(), (x,), (t,))[1])(xs)
    assert_same(ours, theirs)


@pytest.mark.parametrize("argnums", [0, 1, (0, 1)], ids=str)
def test_jacfwd_agrees_with_jax(argnums):
    x, w = normal(3), normal(3, 4)
    ours = jacfwd(smooth(jnp), argnums)(x, w)
    theirs = jax.jit(jax.jacfwd(smooth(jax.numpy), argnums))(x, w)
    for o, t in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
        assert_same(o, t)


def test_jacfwd_of_pytrees_agrees_with_jax():
    def f(np_):
        return lambda p: {"y": np_.tanh(p["w"] @ p["x"]), "s": (p["x"] ** 2).sum()}
    p = {"w": normal(2, 3), "x": normal(3)}
    ours, theirs = jacfwd(f(jnp))(p), jax.jit(jax.jacfwd(f(jax.numpy)))(p)
    assert jax.tree_util.tree_structure(ours) == jax.tree_util.tree_structure(theirs)
    for o, t in zip(jax.tree_util.tree_leaves(ours), jax.tree_util.tree_leaves(theirs)):
        assert_same(o, t)


def test_hessian_and_per_example_jacobians_agree_with_jax():
    f = lambda np_: (lambda x: np_.sum(np_.sin(x) * x[::-1]) * np_.exp(x[0]))
    x = normal(3)
    assert_same(jacfwd(jacfwd(f(jnp)))(x), jax.jit(jax.jacfwd(jax.jacfwd(f(jax.numpy))))(x))
    xs = normal(4, 3)
    assert_same(vmap(jacfwd(f(jnp)))(xs), jax.jit(jax.vmap(jax.jacfwd(f(jax.numpy))))(xs))
    assert_same(jacfwd(vmap(f(jnp)))(xs), jax.jit(jax.jacfwd(jax.vmap(f(jax.numpy))))(xs))


def test_jacfwd_errors():
    with pytest.raises(TypeError, match="jacfwd requires real-valued inputs .* got int32"):
        jacfwd(lambda x: x)(np.arange(3))
    with pytest.raises(ValueError, match="argnums 2 is out of range"):
        jacfwd(lambda x: x, argnums=2)(A)


def test_jacfwd_of_an_integer_output_is_zeros_of_its_dtype_like_jax():
    x = np.float32([1.0, 2.0, 3.0])
    ours = jacfwd(lambda x: ((x * 2).astype(np.int32), jnp.sin(x)))(x)
    theirs = jax.jacfwd(lambda x: ((x * 2).astype(np.int32), jax.numpy.sin(x)))(x)
    for o, t in zip(ours, theirs):
        assert (np.asarray(o).dtype, np.shape(o)) == (t.dtype, t.shape)
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=1e-6)


# --- add_any, and matrix products folded into dot_general ----------------------------------------

@pytest.mark.parametrize("dx, dy", [(0, 0), (2, 2), (None, 0), (1, None), (0, 1), (2, 0)])
def test_add_any_batches_like_jaxs_add_batched(dx, dy):
    import jax.numpy as np_jax
    from autodidax.jaxpr import make_jaxpr
    from autodidax.jvp import add_any
    xs, ys = batched(A, dx), batched(Bm, dy)
    ours = vmap(add_any, in_axes=(dx, dy))(xs, ys)
    assert_same(ours, jax.vmap(np_jax.add, in_axes=(dx, dy))(xs, ys))
    names = [e.primitive.name for e in make_jaxpr(vmap(add_any, in_axes=(dx, dy)))(xs, ys).eqns]
    assert names.count("add_any") == 1 and "add" not in names


MATMULS = [
    ("a @ B", lambda m, j: j.vmap(lambda a: a @ M), [normal(5, 2, 3)], 0),
    ("A @ b", lambda m, j: j.vmap(lambda b: A @ b), [normal(5, 3, 4)], 0),
    ("a @ B, batch on axis 1", lambda m, j: j.vmap(lambda a: a @ M, in_axes=1),
     [normal(2, 5, 3)], 0),
    ("A @ b, batch on axis 2", lambda m, j: j.vmap(lambda b: A @ b, in_axes=2),
     [normal(3, 4, 5)], 0),
    ("a @ b", lambda m, j: j.vmap(lambda a, b: a @ b), [normal(5, 2, 3), normal(5, 3, 4)], 0),
    ("rank 3 @ B", lambda m, j: j.vmap(lambda a: a @ M), [normal(5, 6, 2, 3)], 0),
    ("A @ rank 3", lambda m, j: j.vmap(lambda b: T3.transpose(0, 2, 1) @ b), [normal(5, 2, 3, 4)],
     0),
    ("v @ B", lambda m, j: j.vmap(lambda v: v @ M), [normal(5, 3)], 0),
    ("A @ v", lambda m, j: j.vmap(lambda v: A @ v), [normal(5, 3)], 0),
    ("A @ v, batch on axis 1", lambda m, j: j.vmap(lambda v: A @ v, in_axes=1), [normal(3, 5)], 0),
]


@pytest.mark.parametrize("case", MATMULS, ids=[c[0] for c in MATMULS])
def test_vmap_folds_the_batch_into_dot_general_as_jax(case):
    """One operand unbatched: the batch becomes a free dimension of dot_general, no copy."""
    import jax.numpy as np_jax

    import autodidax
    from autodidax.jaxpr import make_jaxpr
    _, make, args, _ = case
    ours = make_jaxpr(make(jnp, autodidax))(*args)
    assert str(ours) == str(jax.make_jaxpr(make(np_jax, jax))(*args))
    assert "broadcast_in_dim" not in str(ours)      # the unbatched operand is not repeated
    assert_same(make(jnp, autodidax)(*args), make(np_jax, jax)(*args))


# --- named axes and collectives ------------------------------------------------------------------

from autodidax import jit as ad_jit  # noqa: E402
from autodidax.autodiff import grad as ad_grad  # noqa: E402
from autodidax.batching import AxisData, bound_axis_size, fancy_batching_rules, psum  # noqa: E402
from autodidax.collectives import all_gather, axis_index, pmax, pmax_p, pmean, pmin  # noqa: E402,F401
from autodidax.jaxpr import make_jaxpr  # noqa: E402

COLLECTIVES = {
    "psum": lambda m: lambda x: m.psum(x, "i"),
    "pmean": lambda m: lambda x: x - m.pmean(x, "i"),
    "pmax": lambda m: lambda x: m.pmax(x, "i"),
    "pmin": lambda m: lambda x: m.pmin(x, "i") * x,
    "all_gather": lambda m: lambda x: m.all_gather(x, "i", axis=-1),
    "all_gather tiled": lambda m: lambda x: m.all_gather(x, "i", tiled=True),
    "axis_index": lambda m: lambda x: x * m.axis_index("i"),
}
OURS = __import__("autodidax.collectives", fromlist=["psum"])


@pytest.mark.parametrize("name", COLLECTIVES)
@pytest.mark.parametrize("in_axes,out_axes", [(0, 0), (1, 0), (-1, 1), (0, -1)])
def test_collectives_agree_with_jax(name, in_axes, out_axes):
    x = normal(3, 4)
    ours = vmap(COLLECTIVES[name](OURS), in_axes, out_axes, axis_name="i")(x)
    theirs = jax.vmap(COLLECTIVES[name](jlax), in_axes, out_axes, axis_name="i")(x)
    assert_same(ours, theirs)


def test_an_axis_name_is_bound_only_while_the_function_runs():
    sizes = []
    vmap(lambda x: sizes.append(bound_axis_size("i")) or x, axis_name="i")(np.ones(5))
    assert sizes == [5]
    with pytest.raises(NameError, match="unbound axis name: i"):
        bound_axis_size("i")


def test_an_inner_name_hides_an_outer_one():
    f = vmap(vmap(lambda x: psum(x, "i"), axis_name="i"), axis_name="i")
    np.testing.assert_allclose(np.asarray(f(A)), np.broadcast_to(A.sum(1, keepdims=True), A.shape))


def test_unbound_names_raise_jaxs_name_error():
    with pytest.raises(NameError, match="unbound axis name: i"):
        psum(A, "i")
    with pytest.raises(NameError, match="Found an unbound axis name: j"):
        vmap(lambda x: pmax(x, "j"), axis_name="i")(A)
    with pytest.raises(NameError, match="Found an unbound axis name: k"):
        vmap(lambda x: axis_index("k"), axis_name="i")(A)
    with pytest.raises(NameError):
        ad_jit(lambda x: psum(x, "i"))(A)


def test_collective_rules_see_unbatched_values():
    """`pmax` of a value that is the same in every example still reaches its rule."""
    calls = []
    rule = fancy_batching_rules[pmax_p]
    try:
        fancy_batching_rules[pmax_p] = lambda *a, **k: calls.append(a[0]) or rule(*a, **k)
        out = vmap(lambda x, c: pmax(c, "i") + x, in_axes=(0, None), axis_name="i")(A, A[0])
    finally:
        fancy_batching_rules[pmax_p] = rule
    assert calls == [AxisData("i", 2)]
    np.testing.assert_allclose(np.asarray(out), A + A[0])


def test_a_rule_that_calls_batch_carries_on_the_named_axis():
    text = str(make_jaxpr(vmap(ad_jit(lambda x: psum(x, "i")), axis_name="i"))(A))
    assert "psum[axes=(0,) axis_index_groups=None]" in text
    np.testing.assert_allclose(np.asarray(vmap(ad_jit(lambda x: x / psum(x, "i")),
                                               axis_name="i")(P)), P / P.sum(0), rtol=1e-6)


def test_psum_shortcut_for_values_that_are_not_tracers():
    out = vmap(lambda x: psum(2.0, "i") + 0 * x, axis_name="i")(np.ones(3, np.float32))
    np.testing.assert_allclose(np.asarray(out), [6.0, 6.0, 6.0])
    assert vmap(lambda x: psum(1, "i"), axis_name="i")(np.ones(4)).tolist() == [4] * 4


def test_axis_index_under_grad_and_jit():
    xs = normal(3, 2)
    f = lambda w: vmap(lambda x: jnp.sum(x * w * axis_index("i")), axis_name="i")(xs).sum()
    g = lambda w: jax.vmap(lambda x: jax.numpy.sum(x * w * jlax.axis_index("i")),
                           axis_name="i")(xs).sum()
    assert_same(ad_grad(f)(np.float32(1.5)), jax.grad(g)(np.float32(1.5)))
    assert_same(ad_jit(vmap(lambda x: x + axis_index("i"), axis_name="i"))(xs),
                jax.jit(jax.vmap(lambda x: x + jlax.axis_index("i"), axis_name="i"))(xs))


def test_vmap_takes_keyword_arguments_batched_along_axis_0():
    ours = vmap(lambda x, y, z=1.0: x * y + z, in_axes=(1,))(A.T, y=Bm, z=V[:2])
    theirs = jax.vmap(lambda x, y, z=1.0: x * y + z, in_axes=(1,))(A.T, y=Bm, z=V[:2])
    assert_same(ours, theirs)
    with pytest.raises(ValueError, match="argument y"):
        vmap(lambda x, y: x + y)(A, y=V)


@pytest.mark.parametrize("axis_size,error", [(3, ValueError), (2.0, TypeError), (-1, TypeError)])
def test_axis_size_errors(axis_size, error):
    with pytest.raises(error):
        vmap(lambda x: x, in_axes=(0 if error is ValueError else None), axis_size=axis_size)(A)


def test_spmd_axis_name_is_accepted_and_ignored():
    assert_same(vmap(jnp.sin, spmd_axis_name="d")(A), jax.vmap(jax.numpy.sin)(A))
