"""Wrong solutions to appendix A9's exercises: each runs, and each check must reject it."""
from textwrap import dedent

from book.wrong import Wrong

_PSHIFT_OWN = """
n = axis_data.size
if d is None:
    x, d = broadcast(x, n, 0), 0
k = max(-n, min(n, shift))
config = [(0, 0, 0)] * len(x.shape)
config[d] = (k, -k, 0)
return lax.pad(x, np.zeros((), x.dtype), config), d
"""

WRONG = [
    Wrong("1. A collective of your own: shifting along the batch",
          "an unbatched x returned as it is, as psum's rule does for pmax",
          """
          if axis_name != axis_data.name:
              return pshift_p.bind(x, axis_name=axis_name, shift=shift), d
          if d is None:
              return x, None
          n = axis_data.size
          k = max(-n, min(n, shift))
          config = [(0, 0, 0)] * len(x.shape)
          config[d] = (k, -k, 0)
          return lax.pad(x, np.zeros((), x.dtype), config), d
          """, reason="the same for every example"),
    Wrong("1. A collective of your own: shifting along the batch", "shifted the other way",
          """
          if axis_name != axis_data.name:
              return pshift_p.bind(x, axis_name=axis_name, shift=shift), d
          n = axis_data.size
          if d is None:
              x, d = broadcast(x, n, 0), 0
          k = max(-n, min(n, shift))
          config = [(0, 0, 0)] * len(x.shape)
          config[d] = (-k, k, 0)
          return lax.pad(x, np.zeros((), x.dtype), config), d
          """, reason=r"example k gets example k - 2"),
    Wrong("1. A collective of your own: shifting along the batch", "a roll: the examples wrap around",
          """
          if axis_name != axis_data.name:
              return pshift_p.bind(x, axis_name=axis_name, shift=shift), d
          if d is None:
              x, d = broadcast(x, axis_data.size, 0), 0
          return jnp.roll(x, shift, axis=d), d
          """, reason=r"or zeros"),
    Wrong("1. A collective of your own: shifting along the batch", "the shift along axis 0, wherever the batch is",
          """
          if axis_name != axis_data.name:
              return pshift_p.bind(x, axis_name=axis_name, shift=shift), d
          n = axis_data.size
          if d is None:
              x, d = broadcast(x, n, 0), 0
          k = max(-n, min(n, shift))
          config = [(0, 0, 0)] * len(x.shape)
          config[0] = (k, -k, 0)
          return lax.pad(x, np.zeros((), x.dtype), config), d
          """, reason="examples along axis 1"),
    Wrong("1. A collective of your own: shifting along the batch", "every axis name taken as the trace's own",
          """
          n = axis_data.size
          if d is None:
              x, d = broadcast(x, n, 0), 0
          k = max(-n, min(n, shift))
          config = [(0, 0, 0)] * len(x.shape)
          config[d] = (k, -k, 0)
          return lax.pad(x, np.zeros((), x.dtype), config), d
          """, reason="along the axis of 'i'"),
    Wrong("1. A collective of your own: shifting along the batch",
          "another axis's pshift bound again, its batch said to be on axis 0",
          dedent("""
          if axis_name != axis_data.name:
              return pshift_p.bind(x, axis_name=axis_name, shift=shift), 0
          """) + _PSHIFT_OWN, reason=r"in_axes=1"),
    Wrong("2. Normalising over the batch", "each example normalised by its own mean and variance",
          """
          mean = jnp.mean(x)
          var = jnp.mean((x - mean) ** 2)
          return (x - mean) / jnp.sqrt(var + 1e-5)
          """, reason="values off by up to"),
    Wrong("2. Normalising over the batch", "psum for the mean: the sum over the batch",
          """
          mean = psum(x, axis_name)
          var = psum((x - mean) ** 2, axis_name)
          return (x - mean) / jnp.sqrt(var + 1e-5)
          """, reason="values off by up to"),
    Wrong("2. Normalising over the batch", "only the first name of a tuple of names",
          """
          name = axis_name[0] if isinstance(axis_name, tuple) else axis_name
          mean = pmean(x, name)
          var = pmean((x - mean) ** 2, name)
          return (x - mean) / jnp.sqrt(var + 1e-5)
          """, reason=r"over \('i', 'j'\)"),
]
