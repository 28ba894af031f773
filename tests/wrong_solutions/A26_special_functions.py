"""Wrong solutions to appendix A26's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1, E2 = "1. The chi-squared CDF", "2. Student's t CDF"

WRONG = [
    Wrong(E1, "the upper incomplete gamma function", """
          return jax.scipy.special.gammaincc(df / 2, x / 2)
          """, reason="the shape is df/2"),
    Wrong(E1, "the scale forgotten", """
          return jax.scipy.special.gammainc(df / 2, x)
          """, reason="the shape is df/2"),
    Wrong(E1, "the shape not halved", """
          return jax.scipy.special.gammainc(df, x / 2)
          """, reason="the shape is df/2"),
    Wrong(E2, "the tail on both sides", """
          return 0.5 * jax.scipy.special.betainc(df / 2, 0.5, df / (df + t * t))
          """, reason="one minus the tail"),
    Wrong(E2, "the parameters of the beta function swapped", """
          tail = 0.5 * jax.scipy.special.betainc(0.5, df / 2, df / (df + t * t))
          return jnp.where(t < 0, tail, 1 - tail)
          """, reason="below 0"),
    Wrong(E2, "the complement of the argument", """
          tail = 0.5 * jax.scipy.special.betainc(df / 2, 0.5, t * t / (df + t * t))
          return jnp.where(t < 0, tail, 1 - tail)
          """, reason="below 0"),
]
