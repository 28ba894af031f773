"""Wrong solutions to appendix A14's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. A distribution JAX lacks, by inversion"
E2 = "2. An implicit gradient"

WRONG = [
    Wrong(E1, "F^-1(1 - u): a Kumaraswamy draw too, but not the one asked for",
          """
          u = jax.random.uniform(key, shape, dtype)
          return (1 - u ** (1 / b)) ** (1 / a)
          """, reason="F\\^-1\\(1 - u\\)"),
    Wrong(E1, "a and b swapped",
          """
          u = jax.random.uniform(key, shape, dtype)
          return (1 - (1 - u) ** (1 / a)) ** (1 / b)
          """, reason="swapped"),
    Wrong(E1, "F itself, not its inverse",
          """
          u = jax.random.uniform(key, shape, dtype)
          return 1 - (1 - u ** a) ** b
          """, reason="differs from F\\^-1"),
    Wrong(E1, "the powers a and b where 1/a and 1/b belong",
          """
          u = jax.random.uniform(key, shape, dtype)
          return (1 - (1 - u) ** b) ** a
          """, reason="differs from F\\^-1"),
    Wrong(E1, "the uniform drawn in float32 whatever the dtype",
          """
          u = jax.random.uniform(key, shape)
          return (1 - (1 - u) ** (1 / b)) ** (1 / a)
          """, reason="should be float16"),
    Wrong(E1, "a NumPy computation, which cannot run under jit",
          """
          u = np.asarray(jax.random.uniform(key, shape, dtype))
          return ((1 - (1 - u) ** (1 / b)) ** (1 / a)).astype(dtype)
          """, reason="TracerArrayConversionError|concrete|jit"),
    Wrong(E1, "a float32 uniform cast to the dtype: other random bits",
          """
          u = jax.random.uniform(key, shape).astype(dtype)
          return (1 - (1 - u) ** (1 / b)) ** (1 / a)
          """, reason="differs from F\\^-1|F\\^-1\\(1 - u\\)"),
    Wrong(E2, "times k where it divides by k",
          """
          return -x * jnp.log(x) * k
          """, reason="differs from d\\(weibull_min draw\\)/dk|factor of k"),
    Wrong(E2, "the ratio without its minus sign",
          """
          return x * jnp.log(x) / k
          """, reason="opposite sign"),
    Wrong(E2, "k x^(k-1) forgotten in dF/dx: off by k",
          """
          return -x * jnp.log(x)
          """, reason="factor of k"),
    Wrong(E2, "the derivative of log x instead of x",
          """
          return -jnp.log(x) / k
          """, reason="differs from d\\(weibull_min draw\\)/dk"),
    Wrong(E2, "dx/dk of x = E^(1/k), written with log(1 - x) for log E",
          """
          return x * jnp.log1p(-x) / k ** 2
          """, reason="differs from d\\(weibull_min draw\\)/dk"),
    Wrong(E2, "zero: a draw whose loop has no derivative",
          """
          return jnp.zeros_like(x)
          """, reason="differs from d\\(weibull_min draw\\)/dk"),
]
