"""Wrong solutions to appendix A6's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

_REPEAT_ABSTRACT = """
if type(axis) is not int or not 0 <= axis < x.ndim:
    raise ValueError(f"repeat: axis {axis!r} is not an axis of an array of rank {x.ndim}")
if type(repeats) is not int or repeats < 0:
    raise ValueError(f"repeat: repeats must be an int of at least 0, got {repeats!r}")
shape = list(x.shape)
shape[axis] *= repeats
"""

WRONG = [
    Wrong("1. A primitive with parameters", "np.tile, which repeats the whole array, for np.repeat",
          ("""
          reps = [1] * x.ndim
          reps[axis] = repeats
          return np.tile(x, reps)
          """, None), reason=r"repeat\(x, 2, axis=1\) .* should be"),
    Wrong("1. A primitive with parameters", "the abstract rule returns the input's aval unchanged",
          (None, _REPEAT_ABSTRACT + "return x\n"), reason="should have the type f32\\[4,15\\]"),
    Wrong("1. A primitive with parameters", "a new aval of shape and dtype, the weak type dropped",
          (None, _REPEAT_ABSTRACT + "return ShapedArray(tuple(shape), x.dtype)\n"),
          reason="weak type"),
    Wrong("1. A primitive with parameters", "no checks: the parameters left for NumPy to reject",
          (None, """
          return x.update(shape=x.shape[:axis] + (x.shape[axis] * repeats,) + x.shape[axis + 1:])
          """), reason="should raise a ValueError"),
    Wrong('1. A primitive with parameters',
          'zero repeats rejected',
          ("""
          return np.repeat(x, repeats, axis)
          """, """
          if type(axis) is not int or not 0 <= axis < x.ndim:
              raise ValueError(f"repeat: axis {axis!r} is not an axis of an array of rank {x.ndim}")
          if type(repeats) is not int or repeats < 1:
              raise ValueError(f"repeat: repeats must be an int of at least 0, got {repeats!r}")
          shape = list(x.shape)
          shape[axis] *= repeats
          return x.update(shape=tuple(shape))
          """),
          reason='are valid'),
    Wrong("1. A primitive with parameters", "the result always weakly typed",
          (None, """
          if type(axis) is not int or not 0 <= axis < x.ndim:
              raise ValueError(f"repeat: axis {axis!r} is not an axis of an array of rank {x.ndim}")
          if type(repeats) is not int or repeats < 0:
              raise ValueError(f"repeat: repeats must be an int of at least 0, got {repeats!r}")
          shape = list(x.shape)
          shape[axis] *= repeats
          return ShapedArray(tuple(shape), x.dtype, weak_type=True)
          """), reason=r"weak"),
    Wrong("2. Floor division from lax.div", "lax.div alone, which rounds toward zero",
          """
          return lax.div(x, y)
          """, reason=r"-7 // 2 should be -4"),
    Wrong("2. Floor division from lax.div", "one less wherever the signs differ, exact or not",
          """
          differ = lax.ne(lax.lt(x, 0), lax.lt(y, 0))
          quotient = lax.div(x, y)
          return lax.select_n(differ, quotient, lax.sub(quotient, 1))
          """, reason=r"-6 // 3 should be -2"),
    Wrong("2. Floor division from lax.div", "through float32, which holds 24 bits of an integer",
          """
          to_float = lambda a: lax.convert_element_type(a, np.float32)
          return lax.convert_element_type(lax.floor(lax.div(to_float(x), to_float(y))), x.dtype)
          """, reason=r"16777217 // 1 should be 16777217"),
    Wrong("2. Floor division from lax.div", "autodidax.numpy's floor_divide, called",
          """
          import autodidax.numpy as jnp
          return jnp.floor_divide(x, y)
          """, reason=r"compose it from lax"),
]
