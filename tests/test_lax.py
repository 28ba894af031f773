"""autodidax/lax.py: every primitive evaluates as JAX's does, and as its abstract rule says."""
import jax
import jax.lax as jlax
import numpy as np
import pytest

from autodidax import core, lax, lax_core

rng = np.random.default_rng(0)
A = rng.standard_normal((2, 3)).astype(np.float32)
B = rng.standard_normal((2, 3)).astype(np.float32)
P = (np.abs(A) + 0.5).astype(np.float32)
M = rng.standard_normal((3, 4)).astype(np.float32)
BATCH = rng.standard_normal((5, 2, 3)).astype(np.float32)
I = np.array([[-7, 3, 0], [5, -2, 9]], np.int32)
J = np.array([[2, -2, 4], [3, 3, -4]], np.int32)
MASK = A > 0
NANS = np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, np.nan]], np.float32)
EXTREME = np.array([300.0, -5.0, np.nan, np.inf, -np.inf, 3e10, -129.7, 2.9], np.float32)
UNIT = np.tanh(A)                                       # in (-1, 1): asin, acos, atanh
HALVES = np.array([[0.5, -0.5, 1.5], [2.5, -2.5, 0.49999997]], np.float32)
WORDS = np.array([[0xFFFFFFFF, 7, 1], [0x80000000, 12345, 0]], np.uint32)
SHIFTS = np.array([[0, 4, 31], [32, 1, 40]], np.uint32)     # 32 and more: every bit shifted out

# (name, args, params): each is called as lax.NAME(*args, **params) in both libraries.
CASES = [
    ("neg", (A,), {}), ("sin", (A,), {}), ("cos", (A,), {}), ("exp", (A,), {}),
    ("log", (P,), {}), ("tanh", (A,), {}), ("sqrt", (P,), {}), ("abs", (A,), {}),
    ("sign", (A,), {}), ("square", (A,), {}), ("neg", (I,), {}), ("abs", (I,), {}),
    ("add", (A, B), {}), ("sub", (A, B), {}), ("mul", (A, B), {}), ("div", (A, B), {}),
    ("div", (I, J), {}), ("max", (A, B), {}), ("min", (A, B), {}), ("pow", (P, B), {}),
    ("add", (A, np.float32(2.0)), {}), ("mul", (A, A[:1]), {}),
    ("gt", (A, B), {}), ("lt", (A, B), {}), ("ge", (I, J), {}), ("le", (I, J), {}),
    ("eq", (I, J), {}), ("ne", (A, B), {}),
    ("integer_pow", (A,), {"y": 3}), ("integer_pow", (P,), {"y": -2}),
    ("select_n", (MASK, A, B), {}),
    ("convert_element_type", (A,), {"new_dtype": np.int32}),
    ("convert_element_type", (I,), {"new_dtype": np.float32}),
    ("reduce_sum", (A,), {"axes": (1,)}), ("reduce_sum", (BATCH,), {"axes": (0, 2)}),
    ("reduce_max", (A,), {"axes": (0,)}), ("reduce_min", (I,), {"axes": (0, 1)}),
    ("broadcast_in_dim", (A[0],), {"shape": (4, 3), "broadcast_dimensions": (1,)}),
    ("broadcast_in_dim", (np.float32(1.5),), {"shape": (2, 2), "broadcast_dimensions": ()}),
    ("reshape", (BATCH,), {"new_sizes": (6, 5)}),
    ("transpose", (BATCH,), {"permutation": (2, 0, 1)}),
    ("squeeze", (A[:1],), {"dimensions": (0,)}),
    ("expand_dims", (A,), {"dimensions": (0, 3)}),
    ("slice", (BATCH,), {"start_indices": (1, 0, 1), "limit_indices": (5, 2, 3),
                         "strides": (2, 1, 1)}),
    ("rev", (A,), {"dimensions": (1,)}),
    ("concatenate", ([A, B],), {"dimension": 0}),
    ("dot_general", (A, M), {"dimension_numbers": (((1,), (0,)), ((), ()))}),
    ("dot_general", (BATCH, BATCH), {"dimension_numbers": (((2,), (2,)), ((0,), (0,)))}),
    ("dot_general", (A, B), {"dimension_numbers": (((), ()), ((), ()))}),
    ("dot_general", (MASK, MASK.T), {"dimension_numbers": (((1,), (0,)), ((), ()))}),
    ("bitwise_and", (MASK, A < 0.5), {}), ("bitwise_or", (I, J), {}),
    ("bitwise_xor", (MASK, A < 0.5), {}), ("bitwise_not", (I,), {}),
    ("argmax", (A,), {"axis": 1, "index_dtype": np.int32}),
    ("argmin", (I,), {"axis": 0, "index_dtype": np.int32}),
    ("argmax", (NANS,), {"axis": 1, "index_dtype": np.int32}),
    ("argmin", (NANS,), {"axis": 0, "index_dtype": np.int32}),
    ("stack", ([A, B],), {"axis": 1}), ("unstack", (BATCH,), {"axis": 1}),
    ("floor", (A,), {}), ("ceil", (A,), {}), ("round", (HALVES,), {}),
    ("round", (HALVES,), {"rounding_method": jlax.RoundingMethod.TO_NEAREST_EVEN}),
    ("is_finite", (EXTREME,), {}), ("exp2", (A,), {}), ("expm1", (A,), {}), ("log1p", (P,), {}),
    ("tan", (A,), {}), ("asin", (UNIT,), {}), ("acos", (UNIT,), {}), ("atan", (A,), {}),
    ("sinh", (A,), {}), ("cosh", (A,), {}), ("asinh", (A,), {}), ("acosh", (P + 1,), {}),
    ("atanh", (UNIT,), {}), ("rsqrt", (P,), {}), ("atan2", (A, B), {}),
    ("rem", (A, B), {}), ("rem", (I, J), {}), ("stop_gradient", (A,), {}),
    ("stop_gradient", (I,), {}),
    ("reduce_prod", (A,), {"axes": (1,)}), ("reduce_prod", (I,), {"axes": (0, 1)}),
    ("reduce_or", (MASK,), {"axes": (1,)}), ("reduce_and", (MASK,), {"axes": (0,)}),
    ("reduce_or", (I,), {"axes": (0,)}), ("reduce_and", (I,), {"axes": (0, 1)}),
    ("cumsum", (A,), {"axis": 1}), ("cumsum", (BATCH,), {"axis": 0, "reverse": True}),
    ("cumsum", (I,), {"axis": 1}), ("cumprod", (A,), {"axis": 1}),
    ("cumprod", (I,), {"axis": 0, "reverse": True}),
    # Where NumPy and XLA differ, eager evaluation follows XLA.
    ("convert_element_type", (EXTREME,), {"new_dtype": np.uint8}),
    ("convert_element_type", (EXTREME,), {"new_dtype": np.int32}),
    ("convert_element_type", (EXTREME,), {"new_dtype": np.int8}),
    ("div", (np.array([7, -7, 0, -2**31], np.int32), np.array([0, 0, 0, -1], np.int32)), {}),
    ("div", (np.array([7, 0], np.uint32), np.array([0, 0], np.uint32)), {}),
    ("rem", (np.array([7, -7, 0, -2**31], np.int32), np.array([0, 0, 0, -1], np.int32)), {}),
    ("rem", (np.array([7, 0], np.uint32), np.array([0, 0], np.uint32)), {}),
    ("rem", (np.array([7.0, -7.0, np.inf], np.float32), np.array([0.0, 2.0, 2.0], np.float32)), {}),
    ("reduce_prod", (np.zeros((0, 2), np.float32),), {"axes": (0,)}),
    ("reduce_max", (np.zeros((0, 2), np.float32),), {"axes": (0,)}),
    ("reduce_min", (np.zeros((2, 0), np.int32),), {"axes": (1,)}),
    ("pad", (A, np.float32(-1.0)), {"padding_config": ((1, 2, 1), (-1, 0, 2))}),
    ("pad", (I, np.int32(7)), {"padding_config": ((0, -2, 0), (2, -1, 1))}),
    ("pad", (np.zeros((0, 2), np.float32), np.float32(1)),
     {"padding_config": ((1, 1, 3), (0, 0, 0))}),
    ("iota", (np.int32, 5), {}), ("iota", (np.uint8, 0), {}), ("iota", (np.float32, 3), {}),
    ("broadcasted_iota", (np.int16, (2, 3), 1), {}),
    ("full", ((2, 3), 1.5), {}), ("full", (3, 2, np.float16), {}),
    ("broadcast", (A, (2,)), {}),
    ("clamp", (np.float32(0.2), A, np.float32(0.7)), {}), ("clamp", (I - 1, I, J), {}),
    ("shift_left", (WORDS, SHIFTS), {}), ("shift_right_logical", (WORDS, SHIFTS), {}),
    ("shift_right_arithmetic", (I, SHIFTS.astype(np.int32)), {}),
    ("shift_right_arithmetic", (WORDS, SHIFTS), {}),   # unsigned: the top bit still fills
    ("shift_right_logical", (I, SHIFTS.astype(np.int32)), {}),
    ("shift_left", (WORDS, np.uint32(3)), {}),
    ("bitcast_convert_type", (A,), {"new_dtype": np.uint32}),
    ("bitcast_convert_type", (WORDS,), {"new_dtype": np.int32}),
    ("complex", (A, B), {}), ("real", (A + 1j * B,), {}), ("imag", (A + 1j * B,), {}),
    ("conj", (A + 1j * B,), {}), ("conj", (A,), {}), ("abs", (A + 1j * B,), {}),
    # appendix A2's primitives, under their lax names
    ("erf", (A,), {}), ("erfc", (A,), {}), ("erf_inv", (np.tanh(A),), {}), ("lgamma", (P,), {}),
    ("digamma", (P,), {}), ("logistic", (A,), {}), ("polygamma", (np.float32(2), P), {}),
]
NOT_PRIMITIVES = ("expand_dims", "iota", "broadcasted_iota", "full", "broadcast", "clamp")
PRIMITIVE_OF = {"bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor",
                "bitwise_not": "not", "broadcasted_iota": "iota"}


@pytest.mark.parametrize("name,args,params", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_primitive_agrees_with_jax(name, args, params):
    ours = getattr(lax, name)(*args, **params)
    theirs = getattr(jlax, name)(*args, **params)
    if isinstance(theirs, tuple):
        assert len(ours) == len(theirs)
        ours, theirs = np.stack(ours), np.stack(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    tol = 1e-6 if ours.dtype.kind == "f" else 0
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=tol, atol=tol)


PRIMITIVES = [(name, args, params) for name, args, params in CASES if name not in NOT_PRIMITIVES]


@pytest.mark.parametrize("name,args,params", PRIMITIVES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(PRIMITIVES)])
def test_evaluation_agrees_with_abstract_evaluation(name, args, params):
    prim = getattr(lax, f"{PRIMITIVE_OF.get(name, name)}_p")
    flat = list(args[0]) if name in ("concatenate", "stack") else list(args)
    out = getattr(lax, name)(*args, **params)
    bound = {k: v for k, v in out_params(name, params, args).items()}
    avals = core.abstract_eval_rules[prim](*map(core.get_aval, flat), **bound)
    raws = core.run_quietly(core.impl_rules[prim], list(map(core.to_numpy, flat)), bound)
    outs, avals, raws = ((out, avals, raws) if prim.multiple_results
                         else ([out], [avals], [raws]))
    for out, aval, raw in zip(outs, avals, raws):
        assert (out.shape, out.dtype) == (aval.shape, aval.dtype)
        assert np.shape(raw) == aval.shape and np.asarray(raw).dtype == aval.dtype, \
            f"the NumPy rule of {name} gives {np.asarray(raw).dtype}{np.shape(raw)}, " \
            f"its abstract rule {aval.str_short()}"


def out_params(name, params, args=()):
    """The params as the lax wrapper binds them."""
    if name == "conj":
        return {"input_dtype": np.asarray(args[0]).dtype}
    defaults = {"reshape": {"dimensions": None, "sharding": None}, "slice": {"strides": None},
                "reduce_sum": {"out_sharding": None}, "round": {"rounding_method": 0},
                "cumsum": {"reverse": False}, "cumprod": {"reverse": False},
                "dot_general": {"preferred_element_type": None},
                "convert_element_type": {"weak_type": False}}
    bound = {**defaults.get(name, {}), **params}
    if name in ("convert_element_type", "bitcast_convert_type"):
        bound["new_dtype"] = np.dtype(bound["new_dtype"])
    if name in ("argmax", "argmin"):
        bound = {"axes": (params["axis"],), "index_dtype": np.dtype(params["index_dtype"])}
    return bound


def test_every_primitive_of_the_chapter_is_covered():
    prims = {v.name for v in vars(lax_core).values() if isinstance(v, core.Primitive)}
    covered = {PRIMITIVE_OF.get(name, name) for name, _, _ in CASES}
    assert prims <= covered, prims - covered


@pytest.mark.parametrize("call,message", [
    (lambda: lax.add(np.ones(3, np.float32), np.ones(4, np.float32)),
     r"add got incompatible shapes for broadcasting: \(3,\), \(4,\)\."),
    (lambda: lax.mul(np.ones(3, np.float32), np.ones(3, np.int32)),
     "lax.mul requires arguments to have the same dtypes, got float32, int32"),
    (lambda: lax.sin(np.arange(3)), "sin does not accept dtype int32"),
    (lambda: lax.reduce_sum(np.ones((2, 3)), axes=(2,)), r"axes \(2,\).*rank 2"),
    (lambda: lax.reshape(np.ones(6), (4,)), r"cannot reshape array of shape \(6,\)"),
    (lambda: lax.transpose(np.ones((2, 3)), (0,)), "isn't a permutation"),
    (lambda: lax.dot_general(np.ones(3), np.ones(4), (((0,), (0,)), ((), ()))),
     r"contracting dimensions to have the same shape, got \(3,\) and \(4,\)"),
    (lambda: lax.squeeze(np.ones((2, 3)), (0,)), "cannot squeeze dimensions"),
    (lambda: lax.broadcast_in_dim(np.ones(3), (4, 2), (1,)), "cannot place an operand"),
    (lambda: lax.select_n(np.ones(3), np.ones(3)), "bool or int32"),
])
def test_bad_input_gets_a_sentence(call, message):
    with pytest.raises((TypeError, ValueError), match=message):
        call()


@pytest.mark.parametrize("x,y", [
    (np.ones(3, np.float16), 2.0), (np.int32([1, -2, 3]), 2.5), (np.int8([1]), 2),
    (np.ones(3, np.float32), 2.0), (1.0, 2.0), (2, np.int32(3)), (True, np.bool_(False)),
    (np.uint8([3]), 1)])
@pytest.mark.parametrize("name", ["add", "mul", "div", "max", "ge", "rem"])
def test_python_scalars_take_their_default_dtype_as_in_jax(name, x, y):
    """A Python scalar is a weak int32, float32 or bool, and then the dtypes must be equal."""
    def outcome(lx):
        try:
            return repr(getattr(lx, name)(x, y))
        except TypeError as e:      # JAX's message where it names the dtypes
            return f"TypeError: {str(e).split(' (')[0] if 'same dtypes' in str(e) else ''}"
    assert outcome(lax) == outcome(jlax)


@pytest.mark.parametrize("shape,dimension", [((5,), 0), ((2, 3), 1), ((0, 4), 0)])
def test_iota_evaluation_agrees_with_abstract_evaluation(shape, dimension):
    params = dict(dtype=np.dtype("int32"), shape=shape, dimension=dimension, sharding=None)
    aval = core.abstract_eval_rules[lax.iota_p](**params)
    raw = core.impl_rules[lax.iota_p](**params)
    assert raw.shape == aval.shape == shape and raw.dtype == aval.dtype
    np.testing.assert_array_equal(raw, jlax.broadcasted_iota(np.int32, shape, dimension))


@pytest.mark.parametrize("call", [
    lambda l: l.pad(np.ones(3, np.float32), 0, [(1, 1, 0)]),
    lambda l: l.pad(np.ones(3, np.float32), np.zeros(2, np.float32), [(1, 1, 0)]),
    lambda l: l.pad(np.ones(3, np.float32), 0.0, [(1, 1, -1)]),
    lambda l: l.pad(np.ones(3, np.float32), 0.0, [(-3, -1, 0)]),
    lambda l: l.pad(np.ones(3, np.float32), 0.0, []),
    lambda l: l.iota(np.bool_, 3),
    lambda l: l.full((2,), np.ones(2)),
    lambda l: l.clamp(0, np.ones(3, np.float32), 1.0),
    lambda l: l.clamp(np.zeros(2, np.float32), np.ones(3, np.float32), 1.0),
])
def test_bad_input_raises_jaxs_error_class(call):
    with pytest.raises(Exception) as theirs:
        call(jlax)
    with pytest.raises(type(theirs.value).__mro__[1] if type(theirs.value).__module__ != "builtins"
                       else type(theirs.value)):
        call(lax)
