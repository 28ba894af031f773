"""Wrong solutions to appendix A20's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. Rotating right"
E2 = "2. A float's exponent"

WRONG = [
    Wrong(E1, "rotate left instead",
          """
          return lax.bitwise_or(lax.shift_left(x, np.uint32(d)),
                                lax.shift_right_logical(x, np.uint32(32 - d)))
          """, reason="rotates left"),
    Wrong(E1, "an arithmetic shift, which fills with the sign bit",
          """
          return lax.bitwise_or(lax.shift_right_arithmetic(x, np.uint32(d)),
                                lax.shift_left(x, np.uint32(32 - d)))
          """, reason="differs at|should agree"),
    Wrong(E1, "a plain shift: the bits shifted out are lost",
          """
          return lax.shift_right_logical(x, np.uint32(d))
          """, reason="differs at"),
    Wrong(E2, "the sign bit kept: no mask",
          """
          word = lax.bitcast_convert_type(x, np.uint32)
          return lax.shift_right_logical(word, np.uint32(23))
          """, reason="should be"),
    Wrong(E2, "shifted by 24, one bit too many",
          """
          word = lax.bitcast_convert_type(x, np.uint32)
          return lax.bitwise_and(lax.shift_right_logical(word, np.uint32(24)), np.uint32(0xFF))
          """, reason="should be"),
    Wrong(E2, "the value converted, not its bits read",
          """
          word = lax.convert_element_type(jnp.abs(jnp.nan_to_num(x)), np.uint32)
          return lax.bitwise_and(lax.shift_right_logical(word, np.uint32(23)), np.uint32(0xFF))
          """, reason="should be"),
]
