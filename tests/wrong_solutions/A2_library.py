"""Wrong solutions to appendix A2's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

_ABSTRACT = """
shape = x.shape[:-1] + (k,)
return [ShapedArray(shape, x.dtype), ShapedArray(shape, np.dtype("int32"))]
"""

_LCSE = """
x = jnp.moveaxis(jnp.asarray(x), axis, 0)

def step(total, xi):
    total = jnp.logaddexp(total, xi)
    return total, total
_, out = jax.lax.scan(step, jnp.full(x.shape[1:], -np.inf, x.dtype), x)
return jnp.moveaxis(out, 0, axis)
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
          m = jax.lax.stop_gradient(jnp.max(x, axis=axis, keepdims=True))
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
          _, out = jax.lax.scan(step, start, x)
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
    Wrong("1. log(1 - exp(-x)), stable on both sides", "only the near branch guarded",
          """
          small = x < np.log(2.0)
          near_zero = jnp.log(-jnp.expm1(-jnp.where(small, x, 1.0)))
          far = jnp.log1p(-jnp.exp(-x))
          return jnp.where(small, near_zero, far)
          """, reason='the gradient at x'),
    Wrong("1. log(1 - exp(-x)), stable on both sides", "the branches swapped at log 2",
          """
          small = x < np.log(2.0)
          near_zero = jnp.log(-jnp.expm1(-jnp.where(small, 1.0, x)))
          far = jnp.log1p(-jnp.exp(-jnp.where(small, x, 1.0)))
          return jnp.where(small, far, near_zero)
          """, reason=r'log1mexp\(1e-30\) should be'),
    Wrong("1. log(1 - exp(-x)), stable on both sides", "JAX's own, called",
          """
          return jax.nn.log1mexp(x)
          """, reason="calls jax.nn.log1mexp"),
    Wrong("2. A cumulative logsumexp", "lax's own, called",
          """
          return jax.lax.cumlogsumexp(x, axis=axis % jnp.ndim(x))
          """, reason="cumlogsumexp"),
    Wrong("2. A cumulative logsumexp", "the carry started at 0, not at log 0",
          _LCSE.replace("jnp.full(x.shape[1:], -np.inf, x.dtype)",
                        "jnp.zeros(x.shape[1:], x.dtype)"),
          reason='x_0 alone'),
    Wrong("2. A cumulative logsumexp", "moved back to the last axis, whatever axis was",
          _LCSE.replace("jnp.moveaxis(out, 0, axis)", "jnp.moveaxis(out, 0, -1)"),
          reason='move the axis back'),
    Wrong("2. A cumulative logsumexp", "the first entry left out of its own prefix",
          """
          x = jnp.moveaxis(jnp.asarray(x), axis, 0)

          def step(total, xi):
              return jnp.logaddexp(total, xi), total
          _, out = jax.lax.scan(step, jnp.full(x.shape[1:], -np.inf, x.dtype), x)
          return jnp.moveaxis(out, 0, axis)
          """, reason='x_0 alone'),
    Wrong("3. A new primitive: top_k", "the shape with k at the front",
          ("""
          shape = (k,) + x.shape[:-1]
          return [ShapedArray(shape, x.dtype), ShapedArray(shape, np.dtype("int32"))]
          """, None, None), reason=r'should give f32\[2,5,3\]'),
    Wrong("3. A new primitive: top_k", "the shape of a matrix: rows and k",
          ("""
          shape = (x.shape[0], k)
          return [ShapedArray(shape, x.dtype), ShapedArray(shape, np.dtype("int32"))]
          """, None, None), reason=r'should give f32\[2,5,3\]'),
    Wrong("3. A new primitive: top_k", "the indices in x's dtype",
          ("""
          shape = x.shape[:-1] + (k,)
          return [ShapedArray(shape, x.dtype), ShapedArray(shape, x.dtype)]
          """, None, None), reason=r'i32\[2,2\]'),
    Wrong("3. A new primitive: top_k", "the batch axis moved to the end",
          (None, None, "return top_k_p.bind(moveaxis(x, d, x.ndim - 1), k=k), [x.ndim - 1] * 2"),
          reason='vmap over axis 0'),
    Wrong("3. A new primitive: top_k", "the indices' tangent as int32 zeros, not a Zero",
          (None, """
          values, indices = top_k_p.bind(x, k=k)
          t_values = jnp.take_along_axis(t, indices, axis=-1)
          return [values, indices], [t_values, jnp.zeros_like(indices)]
          """, None), reason="float0"),
    Wrong("3. A new primitive: top_k", "the values' dtype written as float32, not x's",
          ("""
          shape = x.shape[:-1] + (k,)
          return [ShapedArray(shape, np.dtype("float32")), ShapedArray(shape, np.dtype("int32"))]
          """, None, None), reason="the values have x's dtype"),
    Wrong("3. A new primitive: top_k", "the rules delegated to appendix A12's lax.top_k",
          (None, """
          values, indices = jax.lax.top_k(x, k)
          t_values = (Zero.from_primal_value(values) if type(t) is Zero
                      else jnp.take_along_axis(t, indices, axis=-1))
          return [values, indices], [t_values, Zero.from_primal_value(indices)]
          """, """
          return jax.lax.top_k(x, k, axis=-1 if d < x.ndim - 1 else -2), [d, d]
          """), reason="appendix A12's"),
    Wrong("2. A cumulative logsumexp", "the axis moved with a transpose, right for matrices only",
          """
          x = jnp.asarray(x)
          x = x.T if axis in (0, -2) else x
          def step(total, xi):
              total = jnp.logaddexp(total, xi)
              return total, total
          xs = jnp.moveaxis(x, -1, 0)
          _, out = jax.lax.scan(step, jnp.full(xs.shape[1:], -np.inf, x.dtype), xs)
          out = jnp.moveaxis(out, 0, -1)
          return out.T if axis in (0, -2) else out
          """, reason="any axis of any rank"),
]
