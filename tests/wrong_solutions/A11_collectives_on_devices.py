"""Wrong solutions to appendix A11's exercises: each runs, and each check must reject it."""
from textwrap import dedent

from book.wrong import Wrong

E1, E2 = "1. An all-reduce from ppermute", "2. A transpose over the devices"

REDUCE_SCATTER = """
n = jax.lax.psum(1, axis_name)
i = jax.lax.axis_index(axis_name)
ring = [(j, (j + 1) % n) for j in range(n)]
chunks = x.reshape((n, x.shape[0] // n) + x.shape[1:])
part = chunks[i]
for s in range(1, n):
    part = jax.lax.ppermute(part, axis_name, ring) + chunks[(i - s) % n]
"""

WRONG = [
    Wrong(E1, "the whole of x passed around the ring, n - 1 times",
          """
          n = jax.lax.psum(1, axis_name)
          ring = [(j, (j + 1) % n) for j in range(n)]
          total, passing = x, x
          for _ in range(n - 1):
              passing = jax.lax.ppermute(passing, axis_name, ring)
              total = total + passing
          return total
          """, reason="a ring sends"),
    Wrong(E1, "recursive doubling: x sent 1, 2, 4... positions away",
          """
          n = jax.lax.psum(1, axis_name)
          shift = 1
          while shift < n:
              x = x + jax.lax.ppermute(x, axis_name, [(j, (j + shift) % n) for j in range(n)])
              shift *= 2
          return x
          """, reason="is not one step around the ring"),
    Wrong(E1, "psum itself", "return jax.lax.psum(x, axis_name)", reason="uses \\['psum'\\]"),
    Wrong(E1, "the reduce-scatter alone: each device has one complete chunk",
          REDUCE_SCATTER + dedent("""
          return jnp.zeros_like(chunks).at[(i + 1) % n].set(part).reshape(x.shape)
          """), reason="should equal psum"),
    Wrong(E1, "the complete chunks stored one place off",
          REDUCE_SCATTER + dedent("""
          out = jnp.zeros_like(chunks).at[(i + 1) % n].set(part)
          for s in range(1, n):
              part = jax.lax.ppermute(part, axis_name, ring)
              out = out.at[(i - s) % n].set(part)
          return out.reshape(x.shape)
          """), reason="should equal psum"),
    Wrong(E1, "a ring reduce-scatter, then all_gather",
          REDUCE_SCATTER + dedent("""
          gathered = jax.lax.all_gather(part, axis_name)      # device j has chunk (j + 1) % n
          return jnp.roll(gathered, 1, axis=0).reshape(x.shape)
          """), reason="uses \\['all_gather'\\]"),
    Wrong(E2, "the pieces concatenated along the columns: right for one row per device only",
          "return jax.lax.all_to_all(block, axis_name, 1, 1, tiled=True)",
          reason="is not the transpose"),
    Wrong(E2, "the block of columns received, not transposed",
          "return jax.lax.all_to_all(block, axis_name, 1, 0, tiled=True)",
          reason="should have that shape"),
    Wrong(E2, "the whole matrix gathered, then this device's rows of its transpose",
          """
          a = jax.lax.all_gather(block, axis_name, axis=0, tiled=True)
          return a.T.reshape((-1,) + block.shape)[jax.lax.axis_index(axis_name)]
          """, reason="gathers the matrix"),
]
