"""Tests of autodidax.random (chapter 12) against the real JAX: the same bits for the same key,
eagerly, under jit and under vmap, for many keys and shapes."""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from jax import random as jr  # noqa: E402

import autodidax  # noqa: E402
import autodidax.numpy as anp  # noqa: E402
from autodidax import lax  # noqa: E402
from autodidax import random as ar  # noqa: E402
from autodidax.prng import PRNGKeyArray, threefry2x32, threefry2x32_reference  # noqa: E402

SEEDS = [0, 1, 7, 42, 12345, 2 ** 31 - 1, -3]
SHAPES = [(), (1,), (2,), (3,), (5, 7), (2, 3, 4), (0,), (1000,)]


def same_bits(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, (ours.dtype, ours.shape,
                                                                       theirs.dtype, theirs.shape)
    assert ours.tobytes() == theirs.tobytes(), f"\nours {ours}\nJAX  {theirs}"


def test_threefry_known_answers():
    """The known-answer tests of Salmon et al. (Random123's kat_vectors), 20 rounds."""
    cases = [((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
             ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
             ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0))]
    for key, count, want in cases:
        u = [np.uint32(v) for v in key + count]
        assert [int(v) for v in threefry2x32_reference(*u)] == list(want)
        assert [int(v) for v in threefry2x32(*u)] == list(want)
        assert [int(v) for v in autodidax.jit(threefry2x32)(*u)] == list(want)


def test_threefry_primitive_matches_jax():
    from jax._src.random.threefry2x32 import threefry2x32_p
    k1, k2 = np.uint32(3), np.uint32(0xDEADBEEF)
    x1 = np.arange(10, dtype=np.uint32)
    x2 = np.arange(10, 20, dtype=np.uint32)
    want = threefry2x32_p.bind(k1, k2, x1, x2)
    for got in [threefry2x32(k1, k2, x1, x2), autodidax.jit(threefry2x32)(k1, k2, x1, x2)]:
        for g, w in zip(got, want):
            same_bits(g, w)
    keys = np.array([[1, 2], [3, 4], [5, 6]], np.uint32)
    got = autodidax.vmap(lambda k, x: threefry2x32(k[0], k[1], x, x))(keys, np.ones((3, 4),
                                                                                  np.uint32))
    for i in range(3):
        w = threefry2x32_p.bind(keys[i, 0], keys[i, 1], np.ones(4, np.uint32),
                                np.ones(4, np.uint32))
        same_bits(got[0][i], w[0])
        same_bits(got[1][i], w[1])


def test_threefry_lowered_as_private_function():
    text = autodidax.jit(lambda k: ar.bits(k, (3,))).lower(ar.PRNGKey(0)).as_text()
    assert "func.func private @threefry2x32" in text
    assert "call @threefry2x32" in text
    jaxpr = str(autodidax.make_jaxpr(lambda k: ar.bits(k, (3,)))(ar.PRNGKey(0)))
    assert "random_bits[bit_width=32 shape=(3,)]" in jaxpr and "key<fry>[]" in jaxpr


@pytest.mark.parametrize("seed", SEEDS)
def test_keys_match(seed):
    k, jk = ar.PRNGKey(seed), jr.PRNGKey(seed)
    same_bits(k, jk)
    same_bits(ar.split(k), jr.split(jk))
    same_bits(ar.split(k, 7), jr.split(jk, 7))
    same_bits(ar.split(k, (3, 2)), jr.split(jk, (3, 2)))
    for data in [0, 1, 99, 2 ** 31 - 1]:
        same_bits(ar.fold_in(k, data), jr.fold_in(jk, data))
    same_bits(ar.key_data(ar.key(seed)), jr.key_data(jr.key(seed)))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_samplers_match_eager_and_jit(shape):
    pairs = [(ar.bits, jr.bits), (ar.uniform, jr.uniform), (ar.normal, jr.normal),
             (ar.exponential, jr.exponential), (ar.gumbel, jr.gumbel)]
    # one jit of each sampler, compiled once and called with each seed's key
    jitted = [autodidax.jit(lambda k, ours=ours: ours(k, shape)) for ours, _ in pairs]
    for seed in [0, 99]:         # more seeds: test_keys_match and the conformance table
        k, jk = ar.PRNGKey(seed), jr.PRNGKey(seed)
        for (ours, theirs), ours_jit in zip(pairs, jitted):
            want = theirs(jk, shape)
            same_bits(ours(k, shape), want)
            same_bits(ours_jit(k), want)
        same_bits(ar.bernoulli(k, 0.25, shape), jr.bernoulli(jk, 0.25, shape))
        same_bits(ar.randint(k, shape, -3, 1000), jr.randint(jk, shape, -3, 1000))
        same_bits(ar.truncated_normal(k, -0.3, 1.5, shape), jr.truncated_normal(jk, -0.3, 1.5,
                                                                                shape))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_float_dtypes(dtype):
    k, jk = ar.PRNGKey(3), jr.PRNGKey(3)
    same_bits(ar.uniform(k, (50,), dtype), jr.uniform(jk, (50,), dtype))
    same_bits(ar.normal(k, (50,), dtype), jr.normal(jk, (50,), dtype))


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.uint8, np.int16, np.uint32])
def test_randint_dtypes(dtype):
    k, jk = ar.PRNGKey(11), jr.PRNGKey(11)
    for lo, hi in [(0, 10), (0, 256), (-200, 200), (5, 5), (7, 3)]:
        same_bits(ar.randint(k, (20,), lo, hi, dtype), jr.randint(jk, (20,), lo, hi, dtype))


def test_vmap_over_keys():
    keys, jkeys = ar.split(ar.PRNGKey(8), 6), jr.split(jr.PRNGKey(8), 6)
    for ours, theirs in [(ar.normal, jr.normal), (ar.uniform, jr.uniform), (ar.bits, jr.bits)]:
        same_bits(autodidax.vmap(lambda k: ours(k, (4,)))(keys),
                  jax.vmap(lambda k: theirs(k, (4,)))(jkeys))
    same_bits(autodidax.vmap(ar.split)(keys), jax.vmap(jr.split)(jkeys))
    same_bits(autodidax.vmap(lambda k: ar.normal(k, (3,)), in_axes=1)(keys.T),
              jax.vmap(lambda k: jr.normal(k, (3,)), in_axes=1)(jkeys.T))
    same_bits(autodidax.jit(autodidax.vmap(lambda k: ar.randint(k, (2,), 0, 5)))(keys),
              jax.jit(jax.vmap(lambda k: jr.randint(k, (2,), 0, 5)))(jkeys))
    nested = ar.split(ar.PRNGKey(1), (2, 3))
    jnested = jr.split(jr.PRNGKey(1), (2, 3))
    same_bits(autodidax.vmap(autodidax.vmap(lambda k: ar.normal(k, (2,))))(nested),
              jax.vmap(jax.vmap(lambda k: jr.normal(k, (2,))))(jnested))


@pytest.mark.parametrize("n", [1, 2, 10, 1625, 1626, 5000])
def test_permutation_rounds(n):
    """One sort below 1626 elements, two from there: the same permutation as JAX's."""
    for seed in [0, 1]:
        same_bits(ar.permutation(ar.PRNGKey(seed), n), jr.permutation(jr.PRNGKey(seed), n))


def test_choice():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    k, jk = ar.PRNGKey(4), jr.PRNGKey(4)
    for args in [(7, (4,)), (7, (2, 3), False), (x, (2,), True, None, 2),
                 (x, (2,), False, None, 1), (x, (0,))]:
        same_bits(ar.choice(k, *args), jr.choice(jk, *args))
    same_bits(autodidax.vmap(lambda k: ar.choice(k, x, (3,), False, None, 2))(ar.split(k, 2)),
              jax.vmap(lambda k: jr.choice(k, x, (3,), False, None, 2))(jr.split(jk, 2)))


def test_typed_keys():
    key = ar.key(42)
    assert repr(key) == repr(jr.key(42)) == "Array((), dtype=key<fry>) overlaying:\n[ 0 42]"
    keys = ar.split(key, 3)
    assert keys.shape == (3,) and str(keys.dtype) == "key<fry>"
    assert repr(keys) == repr(jr.split(jr.key(42), 3))
    a, b, c = keys
    ja, jb, jc = jr.split(jr.key(42), 3)
    same_bits(ar.normal(b, (4,)), jr.normal(jb, (4,)))
    same_bits(ar.key_data(ar.fold_in(c, 5)), jr.key_data(jr.fold_in(jc, 5)))
    same_bits(autodidax.vmap(lambda k: ar.uniform(k))(keys),
              jax.vmap(lambda k: jr.uniform(k))(jr.split(jr.key(42), 3)))
    out = autodidax.jit(lambda k: ar.split(k))(key)
    assert isinstance(out, PRNGKeyArray)
    same_bits(ar.key_data(out), jr.key_data(jr.split(jr.key(42))))
    wrapped = ar.wrap_key_data(ar.key_data(keys))
    same_bits(ar.key_data(wrapped), ar.key_data(keys))


def test_bit_primitives_rules():
    x = np.array([1, 0x80000000, 0xFFFFFFFF], np.uint32)
    s = np.array([31, 1, 32], np.uint32)
    same_bits(lax.shift_left(x, s), jax.lax.shift_left(x, s))
    same_bits(lax.shift_right_logical(x, s), jax.lax.shift_right_logical(x, s))
    i = np.array([-5, 5, -1], np.int32)
    n = np.array([1, 40, 31], np.int32)
    same_bits(lax.shift_right_arithmetic(i, n), jax.lax.shift_right_arithmetic(i, n))
    same_bits(lax.shift_right_logical(i, n), jax.lax.shift_right_logical(i, n))
    for f in [lax.shift_left, lax.shift_right_logical]:
        same_bits(autodidax.jit(f)(x, s), f(x, s))
        same_bits(autodidax.vmap(f, in_axes=(0, None))(x, np.uint32(3)),
                  f(x, np.uint32(3)))
    # a bitcast inside a differentiated function: its output carries no tangent
    g = autodidax.grad(lambda y: y * lax.bitcast_convert_type(
        lax.bitcast_convert_type(y, np.uint32), np.float32))(np.float32(3.0))
    assert float(g) == 3.0
    assert "bitcast_convert_type[new_dtype=uint32]" in str(
        autodidax.make_jaxpr(lambda y: lax.bitcast_convert_type(y, np.uint32))(np.float32(1)))


def test_grad_with_closed_over_key():
    """Dropout-style noise inside a differentiated function."""
    key, jkey = ar.PRNGKey(2), jr.PRNGKey(2)
    x = np.linspace(-1, 1, 6).astype(np.float32)
    ours = autodidax.grad(lambda x: anp.sum(x * ar.bernoulli(key, 0.5, x.shape) * 2.0))(x)
    theirs = jax.grad(lambda x: jax.numpy.sum(x * jr.bernoulli(jkey, 0.5, x.shape) * 2.0))(x)
    same_bits(ours, theirs)


@pytest.mark.parametrize("bad, cls, message", [
    (lambda: ar.normal(np.zeros(2, np.float32)), TypeError,
     "expected key_data.dtype = uint32; got dtype=float32"),
    (lambda: ar.normal(np.zeros(3, np.uint32)), TypeError,
     "expected key_data.shape to end with (2,); got shape=(3,)"),
    (lambda: ar.split(ar.split(ar.PRNGKey(0))), ValueError,
     "split accepts a single key, but was given a key array of shape (2, 2) != ()."),
    (lambda: ar.uniform(ar.split(ar.key(0))), ValueError,
     "uniform accepts a single key, but was given a key array of shape (2,) != ()."),
    (lambda: ar.PRNGKey(1.5), TypeError, "PRNG key seed must be an integer"),
    (lambda: ar.choice(ar.PRNGKey(0), 3, (5,), replace=False), ValueError,
     "Cannot take a larger sample (size 5) than population (size 3) when 'replace=False'"),
    (lambda: ar.key(np.arange(2)), TypeError, "key accepts a scalar seed"),
    (lambda: ar.categorical(ar.PRNGKey(0), np.zeros(3, np.float32), shape=(4,),
                            replace=False),
     ValueError, "Number of samples without replacement (4) cannot exceed number of categories"),
])
def test_errors(bad, cls, message):
    with pytest.raises(cls) as info:
        bad()
    assert message in str(info.value)


@pytest.mark.parametrize("bad", [
    lambda: ar.normal(ar.PRNGKey(0), dtype=np.int32),
    lambda: ar.uniform(ar.PRNGKey(0), dtype=np.int32),
    lambda: ar.bits(ar.PRNGKey(0), dtype=np.int32),
    lambda: ar.bernoulli(ar.PRNGKey(0), p=anp.arange(3)),
    lambda: ar.randint(ar.PRNGKey(0), (2,), 0, 3, dtype=np.float32),
    lambda: ar.choice(ar.PRNGKey(0), 3, (5,), replace=False),
], ids=["normal", "uniform", "bits", "bernoulli (appendix A14)", "randint (A14)", "choice (A14)"])
def test_an_error_in_the_arguments_shows_the_callers_line(bad):
    """Every public function of jax.random, chapter 12's and appendix A14's, is an API boundary:
    its errors keep the caller's frames and at most the boundary's own, in core.py."""
    import traceback
    package = os.path.dirname(autodidax.__file__)
    with pytest.raises((TypeError, ValueError)) as info:
        bad()
    frames = [f.filename for f in traceback.extract_tb(info.value.__traceback__)]
    internal = [f for f in frames if f.startswith(package)]
    assert len(internal) <= 1 and all(f.endswith("core.py") for f in internal), internal
    assert frames[-2 if internal else -1] == __file__
