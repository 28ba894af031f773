"""autodidax/numpy/__init__.py (appendix A1): eager programs give JAX's results and dtypes."""
import jax.numpy as jnp_ref
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import autodidax.numpy as jnp

rng = np.random.default_rng(1)
X = rng.standard_normal((4, 3)).astype(np.float32)
Y = rng.standard_normal((3,)).astype(np.float32)
W = rng.standard_normal((3, 5)).astype(np.float32)
T = rng.standard_normal((2, 4, 3)).astype(np.float32)
K = np.arange(12, dtype=np.int32).reshape(4, 3)

PROGRAMS = {
    "operators": lambda m, x, y: (x + y) * 2.0 - y / 3.0 + (-x) ** 2,
    "reverse operators": lambda m, x, y: 1.0 - x, "rdiv": lambda m, x, y: 2.0 / (m.abs(x) + 1),
    "broadcast ranks": lambda m, x, y: x * y[None, :] + m.ones((1, 3)),
    "transcendental": lambda m, x, y: m.tanh(x) + m.log(m.abs(x) + 1.0) + m.sqrt(m.exp(y)),
    "sum axis": lambda m, x, y: m.sum(x, axis=0) + x.sum(axis=-1, keepdims=True).T[0, :3],
    "mean/max/min": lambda m, x, y: (x.mean(), m.max(x, axis=1), m.min(x, axis=(0, 1)),
                                     x.max(keepdims=True)),
    "var/std": lambda m, x, y: (m.var(x, axis=0), x.std()),
    "matmul": lambda m, x, y: (x @ m.asarray(W), m.dot(x, y), y @ y, m.matmul(x, W)),
    "batched matmul": lambda m, x, y: m.matmul(m.asarray(T), W) + m.asarray(T) @ y[:, None],
    "reshape/transpose": lambda m, x, y: (x.reshape(3, 4), x.reshape(-1), m.transpose(x),
                                          m.reshape(x, (2, -1)).T, m.asarray(T).transpose(1, 2, 0)),
    "where/maximum/minimum": lambda m, x, y: (m.where(x > 0, x, 0.0), m.maximum(x, y),
                                              m.minimum(x, 0.5), m.where(x < y, 1, 2)),
    "comparisons": lambda m, x, y: (x > y, x <= 0.0, x == x, x != y),
    "creation": lambda m, x, y: (m.zeros((2, 3)), m.ones(3, m.int32), m.full((2,), 7.0),
                                 m.zeros_like(x), m.ones_like(y), m.arange(5), m.arange(1, 7, 2),
                                 m.arange(0.0, 1.0, 0.25), m.eye(3), m.linspace(0, 1, 5)),
    "shape functions": lambda m, x, y: (m.expand_dims(x, 0), m.squeeze(x[None]),
                                        m.swapaxes(m.asarray(T), 0, 2),
                                        m.moveaxis(m.asarray(T), 0, -1), m.stack([x, x], axis=1),
                                        m.concatenate([x, x], axis=1), m.broadcast_to(y, (2, 3))),
    "indexing": lambda m, x, y: (x[1], x[-1, 2], x[1:3], x[::2, ::-1], x[..., 1], x[None, :, 0],
                                 x[:, None], x[3:1:-1, -2:], x[5:], x[...]),
    "argmax/argmin": lambda m, x, y: (m.argmax(x), m.argmax(x, axis=0), m.argmin(x, axis=-1),
                                      m.argmax(m.asarray([1.0, 3.0, 3.0])), m.argmin(y)),
    "clip/square/sign": lambda m, x, y: (m.clip(x, -0.5, 0.5), m.square(x), m.sign(x)),
    "integer math": lambda m, x, y: (m.asarray(K) // 1 if False else m.asarray(K) * 2 + 1,
                                     m.asarray(K) / 4, m.sum(m.asarray(K) > 4),
                                     m.mean(m.asarray(K)), m.asarray(K) ** 2),
    "dtypes": lambda m, x, y: (x.astype(m.int32), m.asarray(K).astype(m.float16) + 1.5,
                               m.float32(3), m.asarray(np.float64(2.0)), m.asarray([1, 2, 3]),
                               m.asarray([[1.0], [2.0]]), m.sin(2), m.arange(3) * 2.5,
                               m.asarray(2) + 2.0, m.asarray(True) + 1),
}


def _leaves(x):
    return list(x) if isinstance(x, tuple) else [x]


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_agrees_with_jax(name):
    f = PROGRAMS[name]
    ours = _leaves(f(jnp, jnp.asarray(X), jnp.asarray(Y)))
    theirs = _leaves(f(jnp_ref, jnp_ref.asarray(X), jnp_ref.asarray(Y)))
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert isinstance(a, jnp.ndarray), f"output {i} is a {type(a).__name__}, not an Array"
        assert (a.shape, a.dtype, a.weak_type) == (b.shape, b.dtype, b.aval.weak_type), \
            f"output {i}: {a.aval} vs JAX's {b.aval}"
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-6, atol=2e-6,
                                   err_msg=f"output {i}")


shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)


@st.composite
def broadcastable_pair(draw):
    out = draw(shapes)
    def operand():
        rank = draw(st.integers(0, len(out)))
        return tuple(d if draw(st.booleans()) else 1 for d in out[len(out) - rank:])
    return operand(), operand()


OPS = ["add", "subtract", "multiply", "maximum", "minimum", "greater", "equal", "true_divide"]


@given(broadcastable_pair(), st.sampled_from(OPS), st.integers(0, 2**31 - 1))
def test_binary_broadcasting_agrees_with_jax(pair, op, seed):
    r = np.random.default_rng(seed)
    a, b = (r.standard_normal(s).astype(np.float32) + 2.0 for s in pair)
    ours = getattr(jnp, op)(jnp.asarray(a), jnp.asarray(b))
    theirs = getattr(jnp_ref, op)(a, b)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6)


@given(st.sampled_from([np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32,
                        np.float16, np.float32]),
       st.sampled_from([np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32,
                        np.float16, np.float32]),
       st.sampled_from([None, True, 2, 2.5]))
def test_type_promotion_agrees_with_jax(t1, t2, scalar):
    a, b = np.ones(2, t1), np.ones(2, t2)
    args = (a, b) if scalar is None else (a, scalar)
    theirs = jnp_ref.add(*args)
    ours = jnp.add(*(jnp.asarray(v) if isinstance(v, np.ndarray) else v for v in args))
    assert (ours.dtype, ours.weak_type) == (theirs.dtype, theirs.aval.weak_type)


@pytest.mark.parametrize("call,error,message", [
    (lambda: jnp.ones(3) * jnp.ones(4), TypeError,
     r"mul got incompatible shapes for broadcasting: \(3,\), \(4,\)\."),
    (lambda: jnp.ones((2, 3)) + jnp.ones(4), ValueError,
     r"Incompatible shapes for broadcasting: shapes=\[\(2, 3\), \(4,\)\]"),
    (lambda: jnp.sum(jnp.ones(3), axis=2), ValueError,
     "axis 2 is out of bounds for array of dimension 1"),
    (lambda: jnp.ones(6).reshape(4, 2), ValueError, r"cannot reshape array of size 6 into shape \(4, 2\)"),
    (lambda: jnp.ones(3)[1, 2], IndexError, "too many indices"),
    (lambda: jnp.ones(3)[[0, 1]], TypeError, "Using a non-tuple sequence for multidimensional"),
    (lambda: jnp.sin("zero"), TypeError, "is not a valid JAX type"),
    (lambda: jnp.asarray(np.zeros(2, "datetime64[s]")), TypeError, "does not support dtype datetime"),
    (lambda: jnp.ones(3) @ jnp.ones(4), TypeError, "contracting dimensions"),
])
def test_bad_input_names_the_problem(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_numpy_interoperates():
    x = jnp.arange(3.0)
    assert isinstance(np.asarray(x), np.ndarray)
    assert isinstance(np.ones(3) * x, jnp.ndarray), "NumPy arrays defer to our operators"
    assert float(x.sum()) == 3.0 and int(x[2]) == 2 and bool(x[1] > 0)
    assert [float(v) for v in x] == [0.0, 1.0, 2.0] and len(x) == 3
    assert x.dtype == jnp.float32 and jnp.zeros(2, jnp.int8).dtype == np.int8


@pytest.mark.parametrize("call,error,message", [
    (lambda: jnp.pad(jnp.ones(3), 1, mode=lambda row, w, i, kw: row), NotImplementedError,
     "function as its mode"),
    (lambda: jnp.pad(jnp.ones(3), 1, mode="linear_ramp", stat_length=2), ValueError,
     "unsupported keyword arguments for mode 'linear_ramp'"),
    (lambda: jnp.pad(jnp.ones(3), 1, mode="nonsense"), NotImplementedError,
     "Unimplemented padding mode 'nonsense'"),
    (lambda: jnp.pad(jnp.ones(3), 1, reflect_type="odd"), ValueError, "unsupported keyword"),
    (lambda: jnp.pad(jnp.ones(3), 1, mode="reflect", reflect_type="other"), ValueError,
     "reflect_type"),
    (lambda: jnp.split(jnp.ones(6), [4, 2]), ValueError, "split points"),
    (lambda: jnp.split(jnp.ones(6), 0), ValueError, "larger than 0"),
    (lambda: jnp.cov(jnp.ones((2, 3)), fweights=jnp.ones(3)), TypeError, "fweights must be"),
    (lambda: jnp.einsum("ij,jk", jnp.ones((2, 3))), ValueError, "2 subscripts for 1 operands"),
    (lambda: jnp.einsum("ij->kk", jnp.ones((2, 3))), ValueError, "output subscript"),
    (lambda: jnp.round(jnp.arange(3), -1), NotImplementedError, "decimals < 0"),
    (lambda: jnp.promote_types(jnp.float32, "datetime64[s]"), ValueError, "not a valid dtype"),
])
def test_bad_input_to_the_newer_functions_names_the_problem(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_pad_width_under_jit_must_be_concrete():
    import autodidax
    from autodidax.core import ConcretizationTypeError
    with pytest.raises(ConcretizationTypeError, match="pad_width"):
        autodidax.jit(lambda x, n: jnp.pad(x, n))(jnp.ones(3), 2)


def test_einsum_of_five_operands_contracts_left_to_right():
    import autodidax
    shapes = [(2, 3), (3, 4), (4, 5), (5, 2), (2, 3)]
    ops = [np.arange(np.prod(s), dtype=np.float32).reshape(s) / 10 for s in shapes]
    f = lambda *xs: jnp.einsum("ab,bc,cd,de,ef->af", *xs)
    assert str(autodidax.make_jaxpr(f)(*ops)).count("dot_general") == 4
    np.testing.assert_allclose(f(*ops), ops[0] @ ops[1] @ ops[2] @ ops[3] @ ops[4], rtol=1e-5)


def test_dtype_names_and_hierarchy():
    assert jnp.uint16(300).dtype == np.uint16 and jnp.zeros(2, jnp.uint16).dtype == np.uint16
    assert jnp.issubdtype(jnp.uint16, jnp.unsignedinteger)
    assert not jnp.issubdtype(jnp.int8, jnp.floating)
    assert jnp.iinfo(jnp.uint16).max == 65535 and jnp.finfo(jnp.float16).bits == 16
    assert jnp.promote_types(jnp.uint32, jnp.int32) == np.int32
    assert jnp.promote_types("float64", "float32") == np.float64
    assert jnp.can_cast(jnp.int8, jnp.int16) and not jnp.can_cast(jnp.float32, jnp.int32)
    assert jnp.newaxis is None and jnp.dtype("int8") == np.int8


def test_the_promotion_table_of_appendix_a1_is_jaxs():
    """Every cell of the lattice table that appendix A1 prints: strong dtypes, `i*` and `f*`."""
    import jax
    from autodidax.core import ShapedArray
    names = ["bool", "uint8", "uint16", "uint32", "int8", "int16", "int32", "float16", "float32"]
    ours = {n: ShapedArray((), np.dtype(n)) for n in names}
    ours.update({int: ShapedArray((), np.dtype("int32"), weak_type=True),
                 float: ShapedArray((), np.dtype("float32"), weak_type=True)})
    theirs = {n: np.dtype(n) for n in names} | {int: int, float: float}
    for a in ours:
        for b in ours:
            want = jax.dtypes.result_type(theirs[a], theirs[b], return_weak_type_flag=True)
            assert jnp.promote_avals(ours[a], ours[b]) == want, (a, b)
            if a not in (int, float) and b not in (int, float):
                assert jnp.promote_types(a, b) == want[0], (a, b)
