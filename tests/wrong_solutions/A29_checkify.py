"""Wrong solutions to appendix A29's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1, E2 = "1. Integer overflow", "2. A payload: the negative square root"

_FLAT = "return [self.value], self.traceback_info\n"
_UNFLAT = "return cls(aux, children[0])\n"
_EFFECT = """aval = get_aval(self.value)
return ErrorEffect(NegativeSqrtError, ((aval.shape, str(aval.dtype)),))
"""
_RULE = """if NegativeSqrtError in enabled_errors:
    flat = jnp.ravel(x)
    first = flat[jnp.argmax(flat < 0)]
    error = assert_func(error, jnp.any(flat < 0), NegativeSqrtError(get_traceback(), first))
return nan_error_check(lax.sqrt_p, error, enabled_errors, x)
"""

WRONG = [
    Wrong(E1, "a sum smaller than x taken for an overflow", """
          error, out = nan_error_check(lax.add_p, error, enabled_errors, x, y)
          if IntegerOverflowError in enabled_errors:
              error = assert_func(error, jnp.any(out < x), IntegerOverflowError(get_traceback()))
          return error, out
          """, reason="does not overflow"),
    Wrong(E1, "only the positive overflow", """
          error, out = nan_error_check(lax.add_p, error, enabled_errors, x, y)
          if IntegerOverflowError in enabled_errors:
              error = assert_func(error, jnp.any((x > 0) & (y > 0) & (out < 0)),
                                  IntegerOverflowError(get_traceback()))
          return error, out
          """, reason="negative overflow"),
    Wrong(E1, "the sum compared with the largest int32, in int32", """
          error, out = nan_error_check(lax.add_p, error, enabled_errors, x, y)
          if IntegerOverflowError in enabled_errors:
              error = assert_func(error, jnp.any(x + y > np.iinfo(np.int32).max),
                                  IntegerOverflowError(get_traceback()))
          return error, out
          """, reason="overflows: 'integer overflow'"),
    Wrong(E1, "the check whatever is enabled", """
          error, out = nan_error_check(lax.add_p, error, enabled_errors, x, y)
          same_sign = (x >= 0) == (y >= 0)
          flipped = (out >= 0) != (x >= 0)
          error = assert_func(error, jnp.any(same_sign & flipped),
                              IntegerOverflowError(get_traceback()))
          return error, out
          """, reason="not enabled"),
    Wrong(E1, "add's NaN check dropped", """
          out = lax.add_p.bind(x, y)
          if IntegerOverflowError in enabled_errors:
              same_sign = (x >= 0) == (y >= 0)
              flipped = (out >= 0) != (x >= 0)
              error = assert_func(error, jnp.any(same_sign & flipped),
                                  IntegerOverflowError(get_traceback()))
          return error, out
          """, reason="NaN check"),
    Wrong(E1, "a Python test of the values", """
          error, out = nan_error_check(lax.add_p, error, enabled_errors, x, y)
          if IntegerOverflowError in enabled_errors:
              if np.any(((x >= 0) == (y >= 0)) & ((out >= 0) != (x >= 0))):
                  error = assert_func(error, jnp.array(True),
                                      IntegerOverflowError(get_traceback()))
          return error, out
          """, reason="under jit"),
    Wrong(E2, "the most negative input, not the first", (_FLAT, _UNFLAT, _EFFECT, """
          if NegativeSqrtError in enabled_errors:
              error = assert_func(error, jnp.any(x < 0),
                                  NegativeSqrtError(get_traceback(), jnp.min(x)))
          return nan_error_check(lax.sqrt_p, error, enabled_errors, x)
          """), reason="first negative input"),
    Wrong(E2, "the index of the first negative input, not its value", (_FLAT, _UNFLAT, _EFFECT, """
          if NegativeSqrtError in enabled_errors:
              flat = jnp.ravel(x)
              error = assert_func(error, jnp.any(flat < 0),
                                  NegativeSqrtError(get_traceback(), jnp.argmax(flat < 0)))
          return nan_error_check(lax.sqrt_p, error, enabled_errors, x)
          """), reason="first negative input"),
    Wrong(E2, "the first negative element of each row", (_FLAT, _UNFLAT, _EFFECT, """
          if NegativeSqrtError in enabled_errors:
              first = x[..., jnp.argmax(x < 0, axis=-1)] if x.ndim > 1 else x[jnp.argmax(x < 0)]
              first = jnp.ravel(first)[0]
              error = assert_func(error, jnp.any(x < 0), NegativeSqrtError(get_traceback(), first))
          return nan_error_check(lax.sqrt_p, error, enabled_errors, x)
          """), reason="ravel's order"),
    Wrong(E2, "the payload in the static part", (
          "return [], (self.traceback_info, self.value)\n",
          "return cls(*aux)\n", _EFFECT, _RULE), reason="under jit"),
    Wrong(E2, "an ErrorEffect without the payload's type", (
          _FLAT, _UNFLAT, "return ErrorEffect(NegativeSqrtError)\n", _RULE),
          reason="shape and dtype"),
    Wrong(E2, "the payload's dtype taken to be float32", (
          _FLAT, _UNFLAT,
          "return ErrorEffect(NegativeSqrtError, ((np.shape(self.value), 'float32'),))\n",
          _RULE), reason="shape and dtype"),
    Wrong(E2, "sqrt's NaN check dropped", (_FLAT, _UNFLAT, _EFFECT, """
          if NegativeSqrtError in enabled_errors:
              flat = jnp.ravel(x)
              first = flat[jnp.argmax(flat < 0)]
              error = assert_func(error, jnp.any(flat < 0),
                                  NegativeSqrtError(get_traceback(), first))
          return error, lax.sqrt_p.bind(x)
          """), reason="NaN check"),
]
