"""Checks of chapter 12's exercises (chapters/12_random.md): each takes the notebook's
namespace."""
import numpy as np

import autodidax as jax
import autodidax.numpy as jnp
from book.checks.common import equations



def hashes(f, *args):
    """The threefry2x32 equations of `f`'s jaxpr, and the key primitives it uses."""
    eqns = list(equations(jax.make_jaxpr(f)(*args)))
    keyed = sorted({e.primitive.name for e in eqns if e.primitive.name.startswith("random_")})
    return [e for e in eqns if e.primitive.name == "threefry2x32"], keyed


def check_bits_at(nb):
    """1. One word, without the others: `bits_at` is that word of `bits`, from one hash of one
    counter, eagerly and under `vmap`."""
    bits_at, threefry2x32 = nb["bits_at"], nb["threefry2x32"]
    shape = (3, 5, 7)
    for key in [jnp.array([123456789, 987654321], np.uint32), jax.random.PRNGKey(3)]:
        words = np.asarray(jax.random.bits(key, shape))
        k1, k2 = (np.uint32(k) for k in np.asarray(key))
        for index in [(0, 0, 0), (2, 4, 6), (1, 0, 3), (0, 3, 0)]:
            got, want = int(bits_at(key, shape, index)), int(words[index])
            i = np.ravel_multi_index(index, shape)
            word = lambda *x: [int(w) for w in threefry2x32(*x)]
            hint = ""
            if got == int(words.ravel()[np.ravel_multi_index(index, shape, order="F")]):
                hint = ": that is the word of the counter in column-major order; counters " \
                    "follow the row-major order, the last index fastest"
            elif got in word(k1, k2, np.uint32(0), np.uint32(i)):
                hint = ": that is one of the hash's two output words; bits XORs them"
            elif got == np.bitwise_xor(*word(k1, k2, np.uint32(i), np.uint32(0))):
                hint = ": the counter is a 64-bit count, its high word (always 0 here) first"
            assert got == want, \
                f"bits_at(key, {shape}, {index}) should be {want}, got {got}{hint}"
    many = jax.vmap(lambda i: bits_at(key, (1000,), (i,)))(jnp.arange(0, 1000, 111))
    assert np.array_equal(np.asarray(many), np.asarray(jax.random.bits(key, (1000,)))[::111]), \
        "under vmap over a traced index, bits_at should give every 111th word of bits(key, (1000,))"
    found, keyed = hashes(lambda k: bits_at(k, shape, (2, 4, 6)), key)
    assert not keyed, f"bits_at used {keyed[0]}: hash the one counter with threefry2x32"
    assert len(found) == 1, f"bits_at should hash with one threefry2x32, not {len(found)}"
    sizes = [v.aval.shape for v in found[0].invars]
    assert all(s == () for s in sizes), \
        f"threefry2x32 hashed operands of shapes {sizes}: one word needs its one counter only"


def check_split_original(nb):
    """2. JAX's other layout: `split`: `hash_counts` and `split_original` give JAX's words with
    `jax_threefry_partitionable` off, from one `threefry2x32`."""
    hash_counts, split_original = nb["hash_counts"], nb["split_original"]
    key = jnp.array([123456789, 987654321], np.uint32)
    jax_split = {       # jax.random.split(key, num) with jax_threefry_partitionable=False
        1: [[2929342523, 88350670]],
        2: [[2458506199, 3092442372], [2452681485, 2312150627]],
        3: [[2282810065, 1989616437], [3771920784, 1487223820], [2101427821, 643018354]],
        5: [[2452379771, 1165282147], [1567617754, 276311691], [3000959483, 4187257492],
            [3567078955, 992233119], [1550432976, 900447944]]}
    for num, want in jax_split.items():
        got = np.asarray(split_original(key, num))
        partitionable = np.asarray(jax.random.split(key, num))
        assert not np.array_equal(got, partitionable), \
            f"split_original(key, {num}) gives the package's keys, the partitionable layout: " \
            "hash the counters 0 .. 2 num - 1, the first half against the second"
        assert got.shape == (num, 2) and got.dtype == np.uint32, \
            f"split_original(key, {num}) should be uint32[{num},2], got {got.dtype}{got.shape}"
        assert np.array_equal(got, want), \
            f"split_original(key, {num}) should be {want}, got {got.tolist()}: key j is words " \
            "2j and 2j+1 of the concatenated outputs of the two halves"
    jax_hash = [([5, 0, 9], [3733042749, 1930033649, 1083293420]),     # an odd number: padded
                ([[3, 1], [4, 1]], [[147781453, 1563512532], [4010031700, 627497059]]),
                ([[5, 0], [9, 2], [7, 1]],                      # 3 rows, but 6 counters: even
                 [[2817773622, 2143600969], [2148409622, 2648892032], [1296818912, 2024409299]])]
    for counts, want in jax_hash:
        hint = (": an odd number of counters gets one 0 appended" if np.size(counts) % 2 else
                ": the number of counters is that of the flattened array, here even" if
                len(counts) % 2 else "")
        try:
            got = np.asarray(hash_counts(key, np.array(counts, np.uint32)))
        except NotImplementedError:
            raise
        except Exception as e:
            raise AssertionError(f"hash_counts(key, {counts}) failed: {type(e).__name__}: "
                                 f"{e}{hint}")
        assert np.array_equal(got, want), \
            f"hash_counts(key, {counts}) should be {want}, got {got.tolist()}{hint}"
    found, keyed = hashes(lambda k: split_original(k, 3), key)
    assert not keyed, f"split_original used {keyed[0]}: build it from threefry2x32"
    assert len(found) == 1, f"split_original should hash with one threefry2x32, not {len(found)}"


def check_bits_original(nb):
    """3. JAX's other layout: `bits`: `bits_original` gives JAX's bits of 8, 16 and 32 bits with
    `jax_threefry_partitionable` off, from one `threefry2x32`."""
    bits_original = nb["bits_original"]
    key = jnp.array([123456789, 987654321], np.uint32)
    jax_bits = [        # jax.random.bits(key, shape, dtype) with jax_threefry_partitionable=False
        (np.uint32, (), 1930033649),
        (np.uint32, (5,), [2282810065, 1989616437, 3246834655, 1487223820, 2101427821]),
        (np.uint32, (2, 3), [[2282810065, 1989616437, 3771920784],
                             [1487223820, 2101427821, 643018354]]),
        (np.uint8, (3,), [241, 249, 9]),
        (np.uint8, (4,), [241, 249, 9, 115]),
        (np.uint8, (2, 5), [[215, 211, 137, 146, 23], [128, 132, 194, 13, 243]]),
        (np.uint16, (3,), [14395, 44698, 8142]),
        (np.uint16, (4,), [14395, 44698, 8142, 1348])]
    for dtype, shape, want in jax_bits:
        what = f"bits_original(key, {shape}, {dtype.__name__})"
        width, size = np.dtype(dtype).itemsize * 8, int(np.prod(shape))
        c = -(-size * width // 32)
        how = f"the {c} word{'s' * (c > 1)} of hash_counts(key, arange({c}))" + (
            f", each cut into {32 // width} pieces of {width} bits, its lowest bits first"
            if width < 32 else "")
        try:
            got = np.asarray(bits_original(key, shape, dtype))
        except NotImplementedError:
            raise
        except Exception as e:
            raise AssertionError(f"{what} failed: {type(e).__name__}: {e}: it is {how}")
        assert got.shape == shape and got.dtype == dtype, \
            f"{what} should be {dtype.__name__}{list(shape)}, got {got.dtype}{list(got.shape)}"
        assert not np.array_equal(got, np.asarray(jax.random.bits(key, shape, dtype))), \
            f"{what} gives the package's bits, the partitionable layout"
        assert np.array_equal(got, want), f"{what} should be {want}, got {got.tolist()}: {how}"
    found, keyed = hashes(lambda k: bits_original(k, (2, 5), np.uint8), key)
    assert not keyed, f"bits_original used {keyed[0]}: build it from threefry2x32"
    assert len(found) == 1, f"bits_original should hash with one threefry2x32, not {len(found)}"
