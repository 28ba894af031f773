"""Bad input gets JAX's error, not a silently wrong value (issue 34): Python ints beyond int32,
lists where arrays are wanted, invalid static arguments, NumPy-integer axes, empty matrices and
leaked tracers. Each case runs in autodidax and in JAX, and the outcomes are compared."""
import warnings

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import autodidax
import autodidax.numpy as jnp
import autodidax.numpy.linalg  # noqa: F401  (jnp.linalg)

B = 2**40


def _outcome(f):
    """("ok", value) or (exception class, message)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = f()
        return "ok", [np.asarray(o) for o in (out if isinstance(out, (tuple, list)) else [out])]
    except Exception as e:   # noqa: BLE001 (the class is what is compared)
        return type(e), str(e)


# 1. Python ints that int32 cannot hold. (m, jax-module) -> a call.
OVERFLOWS = {
    "jit argument": lambda m, j: j.jit(lambda x: x)(B),
    "jit argument 2**31": lambda m, j: j.jit(lambda x: x)(2**31),
    "jit argument -2**31-1": lambda m, j: j.jit(lambda x: x)(-2**31 - 1),
    "jit keyword": lambda m, j: j.jit(lambda x, y: x)(1, y={"a": B}),
    "jit nested": lambda m, j: j.jit(lambda x: x)((1, [2, B])),
    "jit varargs": lambda m, j: j.jit(lambda *a: a[0])(1, B),
    "array of a list": lambda m, j: m.array([2**31, 1]),
    "array of a tuple": lambda m, j: m.array((B,)),
    "asarray of an int": lambda m, j: m.asarray(B),
    "randint maxval": lambda m, j: j.random.randint(j.random.PRNGKey(0), (3,), 0, B),
    "randint minval": lambda m, j: j.random.randint(j.random.PRNGKey(0), (3,), -B, 5),
    "device_put": lambda m, j: j.device_put(B),
    "fori_loop carry": lambda m, j: j.lax.fori_loop(0, 2, lambda i, c: c, B),
    "add": lambda m, j: m.arange(3) + B,
    "lax.add": lambda m, j: j.lax.add(m.arange(3), B),
    "index": lambda m, j: m.arange(3)[B],
    "at set": lambda m, j: m.arange(3).at[0].set(B),
    "vmap": lambda m, j: j.vmap(lambda a, b: a + b, (0, None))(m.arange(3), B),
}
# JAX wraps these silently (to 0); autodidax raises, as appendix A1 says.
BETTER_THAN_JAX = {
    "full": lambda m, j: m.full((2,), B), "full_like": lambda m, j: m.full_like(m.arange(3), B),
    "arange": lambda m, j: m.arange(B, B + 2), "lax.full": lambda m, j: j.lax.full((2,), B),
    "power's base": lambda m, j: m.power(B, 1),
}


@pytest.mark.parametrize("name", OVERFLOWS)
def test_int_out_of_range_raises_as_in_jax(name):
    ours = _outcome(lambda: OVERFLOWS[name](jnp, autodidax))
    theirs = _outcome(lambda: OVERFLOWS[name](jnp_ref, jax))
    assert theirs[0] is OverflowError and ours[0] is OverflowError, (ours, theirs)
    if name.startswith("jit") or name.startswith("randint"):    # the path of the argument
        assert ours[1] == theirs[1]


@pytest.mark.parametrize("name", BETTER_THAN_JAX)
def test_int_out_of_range_raises_where_jax_wraps(name):
    assert _outcome(lambda: BETTER_THAN_JAX[name](jnp, autodidax))[0] is OverflowError
    assert _outcome(lambda: BETTER_THAN_JAX[name](jnp_ref, jax))[0] == "ok"     # JAX wraps it


# 2. Lists where arrays are wanted. Every public function that autodidax.numpy shares with
# jax.numpy (and jnp.linalg), called on arrays, then with each array argument made a list.
A = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
V = np.array([1.0, 2.0], np.float32)
I = np.array([1, 2], np.int32)
U8 = np.array([1, 7], np.uint8)
_GROUPS = [
    ((V,), "abs absolute all amax amin any arccos arccosh arcsin arcsinh arctan arctanh argmax "
           "argmin argsort around array asarray atleast_1d atleast_2d ceil clip corrcoef cos cosh "
           "count_nonzero cov cumprod cumsum diag empty_like exp exp2 expm1 flip floor hstack "
           "isfinite isinf isnan isneginf isposinf log log10 log1p log2 logical_not max mean "
           "median meshgrid min nan_to_num nanmax nanmean nanmin nansum ndim negative nonzero "
           "ones_like prod ravel round shape sign sin sinc sinh size sort sqrt square squeeze "
           "stack std sum tan tanh transpose trunc var vstack where zeros_like linalg.norm"),
    ((A,), "concatenate diagonal trace tril triu linalg.cholesky linalg.det linalg.eigh "
           "linalg.eigvalsh linalg.inv linalg.slogdet"),
    ((I,), "bitwise_not invert bitwise_invert"),
    ((V,), "acos asin atan atanh asinh fabs deg2rad rad2deg radians degrees signbit real imag "
           "conj conjugate diff ediff1d atleast_3d cumulative_sum cumulative_prod argwhere "
           "flatnonzero isreal iscomplex angle reciprocal"),
    ((A,), "fliplr flipud rot90 matrix_transpose"),
    ((V, V), "atan2 pow copysign fmax fmin fmod float_power append array_equal array_equiv inner"),
    (([V, V],), "column_stack dstack"),
    ((V,), "positive rint modf frexp ptp average trapezoid nanprod nancumsum nancumprod nanargmax "
           "nanargmin nanvar nanstd sort_complex vander polyder polyint diagflat unstack"),
    ((A,), "tril_indices_from triu_indices_from diag_indices_from"),
    ((V, V), "logaddexp2 vecdot isin polyval polyadd polysub broadcast_arrays ix_"),
    ((I, I), "left_shift right_shift bitwise_left_shift bitwise_right_shift"),
    ((V, I), "ldexp"), ((A, V), "matvec"), ((V, A), "vecmat"), ((A, (1, 0)), "permute_dims"),
    ((A, 1, 0), "rollaxis"), (([V > 1], [V]), "select"), ((I - 1, [V, V]), "choose"),
    (([I - 1, I - 1], (2, 2)), "ravel_multi_index"), ((I, (2, 2)), "unravel_index"),
    ((np.array([2.0, 3.0], np.float32),), "acosh"),
    ((V, V), "add allclose arctan2 cross divide divmod dot equal floor_divide full_like greater "
             "greater_equal heaviside isclose kron less less_equal logaddexp logical_and "
             "logical_or logical_xor matmul maximum minimum mod multiply not_equal outer "
             "percentile power quantile remainder searchsorted subtract true_divide vdot "
             "linspace"),
    ((A, A), "tensordot linalg.solve"),
    ((I, I), "bitwise_and bitwise_or bitwise_xor"),
    ((A, 0), "array_split expand_dims hsplit roll split take take_along_axis vsplit"),
    ((V, 1), "repeat tile"), ((A, 1, 0), "moveaxis swapaxes"), ((A, (4,)), "reshape"),
    ((A, (2, 2)), "broadcast_to"), ((2, V), "full"), ((V > 1, V, V), "where"), ((V, V), "meshgrid"),
    ((A, V), "clip"), ((V, I), "take"), ((1.0, 2.0), "arange"),
    (([V, V],), "concatenate stack hstack vstack"),
    ((A,), "linalg.cond linalg.diagonal linalg.eig linalg.eigvals linalg.matrix_norm "
           "linalg.matrix_rank linalg.matrix_transpose linalg.pinv linalg.qr linalg.svd "
           "linalg.svdvals linalg.trace linalg.vector_norm"),
    ((A, 2), "linalg.matrix_power"), ((A, 1), "linalg.tensorinv"),
    ((V, V), "linalg.outer linalg.vecdot"), ((A, V), "linalg.tensorsolve"),
    ((A, A), "linalg.matmul linalg.tensordot linalg.lstsq"),
    ((np.ones(3, np.float32), np.ones(3, np.float32)), "linalg.cross"),
    (([A, A],), "linalg.multi_dot"),
    ((V, 1), "argpartition delete partition resize"),
    ((V,), "array_repr array_str cbrt copy gradient histogram histogram_bin_edges i0 nanmedian "
           "poly spacing trim_zeros unique unique_all unique_counts unique_inverse unique_values "
           "unwrap"),
    ((I,), "bincount bitwise_count packbits"), ((U8,), "unpackbits"),
    ((V, V), "compress convolve correlate digitize extract histogram2d hypot intersect1d "
             "nanpercentile nanquantile nextafter polydiv polymul setdiff1d setxor1d union1d"),
    ((I, I), "gcd lcm"), ((A,), "histogramdd"), ((V, V, V), "interp"), ((V, 1, V), "insert"),
    ((V,), "roots"), ((V, V, 1), "polyfit"),
]
LIST_CASES = [(name, args, i) for args, names in _GROUPS for name in names.split()
              for i, a in enumerate(args) if isinstance(a, np.ndarray) or isinstance(a, list)]
# JAX's `jit` traces a list's elements, then NumPy asks their rank: a TracerArrayConversionError
# (a TypeError) where autodidax refuses the list with its plain TypeError (appendix A24).
TRACED_LISTS = {("average", 0)}


def _function(module, name):
    for part in name.split("."):
        module = getattr(module, part)
    return module


def _listed(args, i):
    """`args` with argument `i` (an array, or a list of arrays) made a list."""
    a = args[i]
    listed = a.tolist() if isinstance(a, np.ndarray) else [a[0].tolist(), *a[1:]]
    return args[:i] + (listed,) + args[i + 1:]


def test_every_shared_function_is_covered():
    covered = {name for _, names in _GROUPS for name in names.split()}
    shared = {n for n in dir(jnp) if not n.startswith("_") and callable(getattr(jnp, n))
              and hasattr(jnp_ref, n) and not isinstance(getattr(jnp, n), type)
              and not isinstance(getattr(jnp, n), type(jnp.float32))}     # the scalar types
    shared |= {f"linalg.{n}" for n in dir(jnp.linalg) if not n.startswith("_")
               and callable(getattr(jnp.linalg, n)) and hasattr(jnp_ref.linalg, n)}
    untested = shared - covered - {       # functions of dtypes, shapes and sizes, no array
        "astype", "bool_", "broadcast_shapes", "can_cast", "dsplit", "einsum", "empty", "eye",
        "finfo", "float16", "float32", "float64", "geomspace", "identity", "iinfo", "int16",
        "int32", "int64", "int8", "issubdtype", "logspace", "ones", "promote_types", "pad",
        "result_type", "uint16", "uint32", "uint8", "zeros",
        "isscalar", "iscomplexobj", "isrealobj", "diag_indices", "indices", "tril_indices",
        "triu_indices", "concat", "isdtype", "tri",
        "iterable",    # (A24: of objects, sizes, or a sequence; `iterable` is NumPy's own)
        "bartlett", "blackman", "hamming", "hanning", "kaiser", "mask_indices",   # (of sizes)
        "einsum_path",                                   # (A24: as einsum, a spec string first)
        "block", "lexsort",                              # (A24: a sequence is their argument)
        "apply_along_axis", "apply_over_axes", "fromfunction", "frompyfunc", "piecewise",
        "vectorize", "ufunc",                            # (A24: functions of functions)
        "printoptions", "get_printoptions", "set_printoptions", "load", "save", "savez",
        "frombuffer", "fromfile", "fromiter", "fromstring", "from_dlpack",   # (A24: I/O)
        "fill_diagonal", "place", "put", "put_along_axis"}   # (A24: need inplace=False)
    assert not untested


def test_lists_are_refused_as_in_jax():
    differ = []
    for name, args, i in LIST_CASES:
        arguments = _listed(args, i)
        ours = _outcome(lambda: _function(jnp, name)(*arguments))
        theirs = _outcome(lambda: _function(jnp_ref, name)(*arguments))
        same = ours[0] == theirs[0]
        if (name, i) in TRACED_LISTS:
            same = ours[0] is TypeError and theirs[0].__name__ == "TracerArrayConversionError"
        if "requires ndarray" in str(theirs[1]):
            same = same and ours[1] == theirs[1]
        if not same:
            differ.append((name, i, ours[0], theirs[0], ours[1][:80], theirs[1][:80]))
    assert not differ, "\n".join(map(str, differ))


# 3. Static arguments that name no parameter: refused when `jit` is called, as in JAX.
def _two(x, y):
    return x


def _varargs(*a):
    return a[0]


def _positional(x, /, y):
    return x


STATIC = [dict(static_argnums=2), dict(static_argnums=-3), dict(static_argnums=-2),
          dict(static_argnums=(0, 5)), dict(static_argnums=[1]), dict(static_argnums=1.5),
          dict(static_argnums="x"), dict(static_argnames="z"), dict(static_argnames=3),
          dict(static_argnames=["x", "zz"]), dict(static_argnames="y")]


@pytest.mark.parametrize("fun", [_two, _varargs, _positional], ids=lambda f: f.__name__)
def test_invalid_static_arguments_are_refused(fun):
    for options in STATIC:
        ours, theirs = _outcome(lambda: autodidax.jit(fun, **options)), _outcome(
            lambda: jax.jit(fun, **options))
        assert ours[0] == theirs[0], (options, ours, theirs)
        if ours[0] is ValueError and "{'x', 'zz'}" not in theirs[1]:   # (a set's order varies)
            assert ours[1] == theirs[1]


# 4-6. A NumPy integer as an axis, a float axis; the determinant of 0x0 matrices; device_put
# of a tracer that leaked out of `jit`.
X = np.arange(6.0, dtype=np.float32).reshape(2, 3)
MORE = {
    "expand_dims np.int64": lambda m: m.expand_dims(X, np.int64(1)),
    "flip np.int64": lambda m: m.flip(X, np.int64(1)),
    "squeeze np.int32": lambda m: m.squeeze(X[None], np.int32(0)),
    "roll np.int64": lambda m: m.roll(X, 1, np.int64(1)),
    "flip float": lambda m: m.flip(X, 1.0), "expand_dims float": lambda m: m.expand_dims(X, 1.0),
    "sort float": lambda m: m.sort(X, 1.5), "sum float": lambda m: m.sum(X, 1.0),
    "det 0x0": lambda m: m.linalg.det(np.zeros((0, 0), np.float32)),
    "det 2x0x0": lambda m: m.linalg.det(np.zeros((2, 0, 0), np.float32)),
    "slogdet 0x0": lambda m: m.linalg.slogdet(np.zeros((0, 0), np.float32)),
    "inv 0x0": lambda m: m.linalg.inv(np.zeros((0, 0), np.float32)),
}


@pytest.mark.parametrize("name", MORE)
def test_axes_and_empty_matrices_as_in_jax(name):
    ours, theirs = _outcome(lambda: MORE[name](jnp)), _outcome(lambda: MORE[name](jnp_ref))
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "ok":
        for a, b in zip(ours[1], theirs[1]):
            assert a.dtype == b.dtype and a.shape == b.shape and np.allclose(a, b)


def _leak(j):
    leaked = []
    j.jit(lambda x: leaked.append(x) or x)(1.0)
    return leaked[0]


def test_device_put_of_a_leaked_tracer_raises():
    with pytest.raises(TypeError):                  # JAX: "not a valid JAX type"
        jax.device_put(_leak(jax))
    with pytest.raises(autodidax.errors.UnexpectedTracerError, match="in device_put"):
        autodidax.device_put(_leak(autodidax))      # a TypeError too, that says what happened


def test_sign_keeps_the_sign_of_zero():
    x = np.float32([-0.0, 0.0, -2.0, np.nan])
    for ours in (jnp.sign(x), autodidax.jit(jnp.sign)(x)):
        theirs = jnp_ref.sign(x)
        assert np.array_equal(np.signbit(ours), np.signbit(theirs))
        assert np.array_equal(ours, theirs, equal_nan=True)
