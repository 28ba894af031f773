"""Wrong solutions to chapter 16's exercises: each runs, and each check must reject it."""
from textwrap import dedent

from book.wrong import Wrong

E1, E2, E3 = ("1. One all-reduce for a two-layer network", "2. A logsumexp over split columns",
              "3. An all-reduce from ppermute")

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
    Wrong(E1, "data parallelism: the batch split, the weights whole on every device",
          'return P("x"), P(), P()', reason="w1 should be split over the 8 devices"),
    Wrong(E1, "w1 split by rows and w2 by columns, the other way round",
          'return P(), P("x"), P(None, "x")', reason="collectives .*all-gather"),
    Wrong(E1, "both weights split by rows",
          'return P(), P("x"), P("x")', reason="collectives .*all-to-all"),
    Wrong(E1, "the weights split well, and the batch split too",
          'return P("x"), P(None, "x"), P("x")', reason="collectives .*all-gather"),
    Wrong(E2, "no maximum subtracted: exp overflows",
          """
          return jnp.log(jax.lax.psum(jnp.exp(block).sum(axis=-1), axis_name))
          """, reason="over columns split on 8 devices, the logsumexp of the rows should be"),
    Wrong(E2, "each device's own maximum subtracted, not the row's",
          """
          top = block.max(axis=-1)
          total = jax.lax.psum(jnp.exp(block - top[:, None]).sum(axis=-1), axis_name)
          return top + jnp.log(total)
          """, reason="over columns split on 8 devices, the logsumexp of the rows should be"),
    Wrong(E2, "the devices' logsumexps added up",
          """
          top = block.max(axis=-1)
          return jax.lax.psum(top + jnp.log(jnp.exp(block - top[:, None]).sum(axis=-1)),
                              axis_name)
          """, reason="over columns split on 8 devices, the logsumexp of the rows should be"),
    Wrong(E2, "the whole rows gathered onto every device first",
          """
          a = jax.lax.all_gather(block, axis_name, axis=1, tiled=True)
          top = a.max(axis=-1)
          return top + jnp.log(jnp.exp(a - top[:, None]).sum(axis=-1))
          """, reason="moves the matrix between devices"),
    Wrong(E2, "the mesh axis written as 'x', not axis_name",
          """
          top = jax.lax.pmax(block.max(axis=-1), "x")
          return top + jnp.log(jax.lax.psum(jnp.exp(block - top[:, None]).sum(axis=-1), "x"))
          """, reason="should reduce over 'y' only"),
    Wrong(E3, "the whole of x passed around the ring, n - 1 times",
          """
          n = jax.lax.psum(1, axis_name)
          ring = [(j, (j + 1) % n) for j in range(n)]
          total, passing = x, x
          for _ in range(n - 1):
              passing = jax.lax.ppermute(passing, axis_name, ring)
              total = total + passing
          return total
          """, reason="a ring sends"),
    Wrong(E3, "recursive doubling: x sent 1, 2, 4... positions away",
          """
          n = jax.lax.psum(1, axis_name)
          shift = 1
          while shift < n:
              x = x + jax.lax.ppermute(x, axis_name, [(j, (j + shift) % n) for j in range(n)])
              shift *= 2
          return x
          """, reason="is not one step around the ring"),
    Wrong(E3, "psum itself", "return jax.lax.psum(x, axis_name)", reason="uses \\['psum'\\]"),
    Wrong(E3, "the reduce-scatter alone: each device has one complete chunk",
          REDUCE_SCATTER + dedent("""
          return jnp.zeros_like(chunks).at[(i + 1) % n].set(part).reshape(x.shape)
          """), reason="should equal psum"),
    Wrong(E3, "the complete chunks stored one place off",
          REDUCE_SCATTER + dedent("""
          out = jnp.zeros_like(chunks).at[(i + 1) % n].set(part)
          for s in range(1, n):
              part = jax.lax.ppermute(part, axis_name, ring)
              out = out.at[(i - s) % n].set(part)
          return out.reshape(x.shape)
          """), reason="should equal psum"),
    Wrong(E3, "a ring reduce-scatter, then all_gather",
          REDUCE_SCATTER + dedent("""
          gathered = jax.lax.all_gather(part, axis_name)      # device j has chunk (j + 1) % n
          return jnp.roll(gathered, 1, axis=0).reshape(x.shape)
          """), reason="uses \\['all_gather'\\]"),
    Wrong(E2, "the exponentials psummed whole, the blocks summed after: the matrix moves",
          """
          top = jax.lax.pmax(block.max(axis=-1), axis_name)
          total = jax.lax.psum(jnp.exp(block - top[:, None]), axis_name).sum(axis=-1)
          return top + jnp.log(total)
          """, reason="applies psum to an array of shape \\(4, 4\\)"),
    Wrong(E2, "the block pmaxed whole, its row maxima taken after: the matrix moves",
          """
          top = jax.lax.pmax(block, axis_name).max(axis=-1)
          total = jax.lax.psum(jnp.exp(block - top[:, None]).sum(axis=-1), axis_name)
          return top + jnp.log(total)
          """, reason="applies pmax to an array of shape \\(4, 4\\)"),
]
