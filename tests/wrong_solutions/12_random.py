"""Wrong solutions to chapter 12's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. One word, without the others"
E2 = "2. JAX's other layout: split"
E3 = "3. JAX's other layout: bits"

_HASH = """
flat = jnp.ravel(counts)
odd = flat.shape[0] % 2
if odd:
    flat = jnp.concatenate([flat, jnp.zeros(1, np.uint32)])
half = flat.shape[0] // 2
x1, x2 = threefry2x32(key[0], key[1], flat[:half], flat[half:])
words = jnp.concatenate([x1, x2])
return jnp.reshape(words[:words.shape[0] - odd], np.shape(counts))
"""

_SPLIT = """
return jnp.reshape(hash_counts(key, lax.iota(np.uint32, 2 * num)), (num, 2))
"""

WRONG = [
    Wrong(E1, "the counter in column-major order, the first index fastest",
          """
          counter = 0
          for i, n in reversed(list(zip(index, shape))):
              counter = counter * n + i
          counter = lax.convert_element_type(counter, np.uint32)
          high, low = threefry2x32(key[0], key[1], np.uint32(0), counter)
          return lax.bitwise_xor(high, low)
          """, reason="column-major"),
    Wrong(E1, "one of the hash's two words, not their XOR",
          """
          counter = 0
          for i, n in zip(index, shape):
              counter = counter * n + i
          counter = lax.convert_element_type(counter, np.uint32)
          return threefry2x32(key[0], key[1], np.uint32(0), counter)[1]
          """, reason="XORs them"),
    Wrong(E1, "the counter put in the high word",
          """
          counter = 0
          for i, n in zip(index, shape):
              counter = counter * n + i
          counter = lax.convert_element_type(counter, np.uint32)
          high, low = threefry2x32(key[0], key[1], counter, np.uint32(0))
          return lax.bitwise_xor(high, low)
          """, reason="high word"),
    Wrong(E1, "the package's bits, indexed",
          """
          return jax.random.bits(key, shape)[index]
          """, reason="used random_bits"),
    Wrong(E1, "every counter of the shape hashed, then one word read",
          """
          size = int(np.prod(shape))
          counters = jnp.reshape(lax.iota(np.uint32, size), shape)
          high, low = threefry2x32(key[0], key[1], jnp.zeros(shape, np.uint32), counters)
          return lax.bitwise_xor(high, low)[index]
          """, reason="hashed operands of shapes"),
    Wrong(E2, "the package's split: the partitionable layout",
          (_HASH, """
          return jax.random.split(key, num)
          """), reason="partitionable layout"),
    Wrong(E2, "the two output arrays paired up, not concatenated: key j is (x1[j], x2[j])",
          (_HASH, """
          counts = lax.iota(np.uint32, 2 * num)
          x1, x2 = threefry2x32(key[0], key[1], counts[:num], counts[num:])
          return jnp.stack([x1, x2], axis=1)
          """), reason="words 2j and 2j\\+1"),
    Wrong(E2, "the counters taken in pairs (2i, 2i + 1), not in halves",
          ("""
          flat = jnp.ravel(counts)
          odd = flat.shape[0] % 2
          if odd:
              flat = jnp.concatenate([flat, jnp.zeros(1, np.uint32)])
          x1, x2 = threefry2x32(key[0], key[1], flat[0::2], flat[1::2])
          words = jnp.concatenate([x1, x2])
          return jnp.reshape(words[:words.shape[0] - odd], np.shape(counts))
          """, None), reason="split_original\\(key, 2\\) should be.*words 2j"),
    Wrong(E2, "an odd number of counters padded with the next counter, not with 0",
          ("""
          flat = jnp.ravel(counts)
          odd = flat.shape[0] % 2
          if odd:
              flat = jnp.concatenate([flat, jnp.full(1, flat.shape[0], np.uint32)])
          half = flat.shape[0] // 2
          x1, x2 = threefry2x32(key[0], key[1], flat[:half], flat[half:])
          words = jnp.concatenate([x1, x2])
          return jnp.reshape(words[:words.shape[0] - odd], np.shape(counts))
          """, None), reason="one 0 appended"),
    Wrong(E3, "one word per element, cut down to the dtype (the partitionable way)",
          """
          size = int(np.prod(shape))
          words = hash_counts(key, lax.iota(np.uint32, size))
          return jnp.reshape(words.astype(dtype), shape)
          """, reason=r"\(3,\), uint8\) should be.*lowest bits first"),
    Wrong(E3, "the pieces of a word taken highest bits first",
          """
          width = np.dtype(dtype).itemsize * 8
          size = int(np.prod(shape))
          words = hash_counts(key, lax.iota(np.uint32, -(-size * width // 32)))
          if width < 32:
              shifts = jnp.arange(32 - width, -1, -width, dtype=np.uint32)
              pieces = lax.shift_right_logical(words[:, None], shifts[None, :])
              words = jnp.ravel(pieces)[:size].astype(dtype)
          return jnp.reshape(words, shape)
          """, reason=r"\(3,\), uint8\) should be.*lowest bits first"),
    Wrong(E3, "one word too many: size * w // 32 + 1 words, not the ceiling",
          """
          width = np.dtype(dtype).itemsize * 8
          size = int(np.prod(shape))
          words = hash_counts(key, lax.iota(np.uint32, size * width // 32 + 1))
          if width < 32:
              shifts = jnp.arange(0, 32, width, dtype=np.uint32)
              pieces = lax.shift_right_logical(words[:, None], shifts[None, :])
              words = jnp.ravel(pieces)
          return jnp.reshape(words[:size].astype(dtype), shape)
          """, reason=r"\(\), uint32\) should be.*the 1 word of hash_counts"),
    Wrong(E3, "the package's bits: the partitionable layout",
          """
          return jax.random.bits(key, shape, dtype)
          """, reason="partitionable layout"),
    Wrong(E1, "the counter computed with NumPy's ravel_multi_index",
          """
counter = np.uint32(np.ravel_multi_index(index, shape))
high, low = threefry2x32(key[0], key[1], np.uint32(0), counter)
return lax.bitwise_xor(high, low)
""", reason='NumPy functions cannot see inside a traced function'),
    Wrong(E1, "the counter made a Python int first",
          """
counter = 0
for i, n in zip(index, shape):
    counter = counter * n + int(i)
high, low = threefry2x32(key[0], key[1], np.uint32(0), np.uint32(counter))
return lax.bitwise_xor(high, low)
""", reason='needs a concrete value'),
    Wrong(E2, "the parity taken from the leading dimension, not the number of counters",
          (_HASH.replace("odd = flat.shape[0] % 2", "odd = len(counts) % 2"), _SPLIT),
          reason='the number of counters is that of the flattened array'),
    Wrong(E2, "the pad dropped from the first half's words, not from the end",
          ("""
flat = jnp.ravel(counts)
odd = flat.shape[0] % 2
if odd:
    flat = jnp.concatenate([flat, jnp.zeros(1, np.uint32)])
half = flat.shape[0] // 2
x1, x2 = threefry2x32(key[0], key[1], flat[:half], flat[half:])
words = jnp.concatenate([x1[:half - odd], x2])
return jnp.reshape(words, np.shape(counts))
""", _SPLIT), reason='hash_counts\\(key, \\[5, 0, 9\\]\\) should be'),
    Wrong(E3, "the number of words rounded down, at least one",
          """
width = np.dtype(dtype).itemsize * 8
size = int(np.prod(shape))
words = hash_counts(key, lax.iota(np.uint32, max(1, size * width // 32)))
if width < 32:
    shifts = jnp.arange(0, 32, width, dtype=np.uint32)
    pieces = lax.shift_right_logical(words[:, None], shifts[None, :])
    words = jnp.ravel(pieces)[:size].astype(dtype)
return jnp.reshape(words, shape)
""", reason='\\(2, 5\\), uint8\\) failed.*it is the 3 words of hash_counts'),
    Wrong(E3, "pieces cut 8 bits at a time, whatever the width",
          """
width = np.dtype(dtype).itemsize * 8
size = int(np.prod(shape))
words = hash_counts(key, lax.iota(np.uint32, -(-size * width // 32)))
if width < 32:
    shifts = jnp.arange(0, 32, 8, dtype=np.uint32)
    pieces = lax.shift_right_logical(words[:, None], shifts[None, :])
    words = jnp.ravel(pieces)[:size].astype(dtype)
return jnp.reshape(words, shape)
""", reason='\\(3,\\), uint16\\) should be.*pieces of 16 bits'),
]
