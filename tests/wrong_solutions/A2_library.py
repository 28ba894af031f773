"""Wrong solutions to appendix A2's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

_ABSTRACT = """
shape = x.shape[:-1] + (k,)
return [ShapedArray(shape, x.dtype), ShapedArray(shape, np.dtype("int32"))]
"""

WRONG = [
    Wrong("1. log(1 - exp(-x)), stable on both sides", "the formula as written",
          """
          return jnp.log(1 - jnp.exp(-x))
          """, reason="near 0"),
    Wrong("1. log(1 - exp(-x)), stable on both sides", "expm1 everywhere",
          """
          return jnp.log(-jnp.expm1(-x))
          """, reason="for large x"),
    Wrong("1. log(1 - exp(-x)), stable on both sides", "log1p everywhere",
          """
          return jnp.log1p(-jnp.exp(-x))
          """, reason="near 0"),
    Wrong("1. log(1 - exp(-x)), stable on both sides", "both branches fed x, then where",
          """
          return jnp.where(x < np.log(2.0), jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))
          """, reason="branch that where does not take"),
    Wrong("2. A cumulative logsumexp", "the formula as written",
          """
          return jnp.log(jnp.cumsum(jnp.exp(x), axis=axis))
          """, reason="must not underflow, nor a large entry overflow"),
    Wrong("2. A cumulative logsumexp", "one maximum for the whole axis, as logsumexp has it",
          """
          m = lax.stop_gradient(jnp.max(x, axis=axis, keepdims=True))
          return m + jnp.log(jnp.cumsum(jnp.exp(x - m), axis=axis))
          """, reason="prefix far below"),
    Wrong("2. A cumulative logsumexp", "a running maximum, the sum not rescaled when it grows",
          """
          x = jnp.moveaxis(jnp.asarray(x), axis, 0)

          def step(carry, xi):
              m, s = carry
              m = jnp.maximum(m, xi)
              s = s + jnp.exp(xi - m)
              return (m, s), m + jnp.log(s)
          start = jnp.full(x.shape[1:], -np.inf, x.dtype), jnp.zeros(x.shape[1:], x.dtype)
          _, out = lax.scan(step, start, x)
          return jnp.moveaxis(out, 0, axis)
          """, reason="should be"),
    Wrong("3. A new primitive: top_k", "the values given x's shape, k forgotten",
          ("""
          return [ShapedArray(x.shape, x.dtype), ShapedArray(x.shape, np.dtype("int32"))]
          """, None, None), reason="should give f32\\[2,2\\] and i32\\[2,2\\]"),
    Wrong("3. A new primitive: top_k", "the tangent's first k entries, not those at the indices",
          (None, """
          values, indices = top_k_p.bind(x, k=k)
          t_values = Zero.from_primal_value(values) if type(t) is Zero else t[..., :k]
          return [values, indices], [t_values, Zero.from_primal_value(indices)]
          """, None), reason="x's tangent at the chosen indices"),
    Wrong("3. A new primitive: top_k", "the tangent gathered in NumPy, which grad cannot trace",
          (None, """
          values, indices = top_k_p.bind(x, k=k)
          t_values = (Zero.from_primal_value(values) if type(t) is Zero else
                      np.take_along_axis(np.asarray(t), np.asarray(indices), -1))
          return [values, indices], [t_values, Zero.from_primal_value(indices)]
          """, None), reason="grad through top_k failed"),
    Wrong("3. A new primitive: top_k", "the batch axis left where it is",
          (None, None, """
          return top_k_p.bind(x, k=k), [d, d]
          """), reason="vmap over axis 2"),
    Wrong("3. A new primitive: top_k", "the indices said to be unbatched",
          (None, None, """
          return top_k_p.bind(moveaxis(x, d, 0), k=k), [0, not_mapped]
          """), reason="vmap over axis 0"),
]
