"""Wrong solutions to appendix A14's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. Laplace, by inversion"
E2 = "2. Rademacher signs"

WRONG = [
    Wrong(E1, "u uniform in [-1, 1), which can be -1: log(0)",
          """
          u = jax.random.uniform(key, shape, dtype, minval=-1.0, maxval=1.0)
          return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))
          """, reason="differs from JAX's"),
    Wrong(E1, "the sign of u dropped: -log(1 - |u|)",
          """
          u = jax.random.uniform(key, shape, dtype, minval=-1.0 + np.finfo(dtype).epsneg,
                                 maxval=1.0)
          return lax.neg(lax.log1p(lax.neg(lax.abs(u))))
          """, reason="differs from JAX's"),
    Wrong(E1, "an exponential times an independent sign, from a split key",
          """
          k1, k2 = jax.random.split(key)
          sign = jnp.where(jax.random.bernoulli(k1, 0.5, shape), 1.0, -1.0).astype(dtype)
          return sign * jax.random.exponential(k2, shape, dtype)
          """, reason="differs from JAX's"),
    Wrong(E1, "sign(u) -log(1 - |u|): the opposite sign",
          """
          u = jax.random.uniform(key, shape, dtype, minval=-1.0 + np.finfo(dtype).epsneg,
                                 maxval=1.0)
          return lax.neg(lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u)))))
          """, reason="opposite sign"),
    Wrong(E1, "always float32, whatever the dtype",
          """
          u = jax.random.uniform(key, shape, np.float32,
                                 minval=-1.0 + np.finfo(np.float32).epsneg, maxval=1.0)
          return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))
          """, reason="should be float16"),
    Wrong(E2, "randint's 0 and 1, which draws other bits",
          """
          return (2 * jax.random.randint(key, shape, 0, 2) - 1).astype(dtype)
          """, reason="differs from JAX's"),
    Wrong(E2, "False as +1: 1 - 2b",
          """
          b = jax.random.bernoulli(key, 0.5, shape).astype(dtype)
          return (1 - 2 * b).astype(dtype)
          """, reason="opposite signs"),
    Wrong(E2, "the booleans' 0 and 1, not -1 and +1",
          """
          return jax.random.bernoulli(key, 0.5, shape).astype(dtype)
          """, reason="only -1 and \\+1"),
    Wrong(E2, "int32 whatever the dtype",
          """
          b = jax.random.bernoulli(key, 0.5, shape).astype(np.int32)
          return 2 * b - 1
          """, reason="should be float32"),
]
