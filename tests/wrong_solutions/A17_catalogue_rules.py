"""Wrong solutions to appendix A17's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. A JVP rule from a calculus table"
E2 = "2. The batching rule of a cumulative primitive"

WRONG = [
    Wrong(E1, "the partials from e^x and e^y: inf / inf for large inputs",
          ("""
           e_x, e_y = lax.exp(x), lax.exp(y)
           return lax.mul(t, lax.div(e_x, lax.add(e_x, e_y)))
           """, """
           e_x, e_y = lax.exp(x), lax.exp(y)
           return lax.mul(t, lax.div(e_y, lax.add(e_x, e_y)))
           """), reason="overflows float32"),
    Wrong(E1, "the two partials swapped",
          ("""
           return lax.mul(t, lax.exp(lax.sub(y, ans)))
           """, """
           return lax.mul(t, lax.exp(lax.sub(x, ans)))
           """), reason="tangent should be"),
    Wrong(E1, "the partial computed in NumPy, a constant to an outer jvp",
          ("""
           return lax.mul(t, np.exp(np.asarray(x) - np.asarray(ans)))
           """, """
           return lax.mul(t, np.exp(np.asarray(y) - np.asarray(ans)))
           """), reason="second derivative"),
    Wrong(E2, "the axis left as it is",
          """
          return cummax_p.bind(x, axis=axis), d
          """, reason="running maximum"),
    Wrong(E2, "the axis always shifted by one",
          """
          return cummax_p.bind(x, axis=axis + 1), d
          """, reason="running maximum"),
    Wrong(E2, "the batch moved to the front first",
          """
          x = moveaxis(x, d, 0)
          return cummax_p.bind(x, axis=axis + 1), 0
          """, reason="no transpose"),
]
