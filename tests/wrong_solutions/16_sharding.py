"""Wrong solutions to chapter 16's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1, E2 = "1. One all-reduce for a two-layer network", "2. A logsumexp over split columns"

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
