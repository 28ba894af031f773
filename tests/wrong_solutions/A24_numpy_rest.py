"""Wrong solutions to appendix A24's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. Staged, or inlined?"
E2 = "2. A weighted average"

WRONG = [
    Wrong(E1, "every jitted function staged: fabs and acos too",
          """
          return {"fmax": True, "fabs": True, "radians": False, "diff": True, "copysign": True,
                  "acos": True, "append": True, "concat": False}
          """, reason="fabs"),
    Wrong(E1, "nothing staged: make_jaxpr shows primitives only",
          """
          return {name: False for name in ["fmax", "fabs", "radians", "diff", "copysign", "acos",
                                           "append", "concat"]}
          """, reason="fmax"),
    Wrong(E1, "a plain function that calls a jitted one counts as jitted",
          """
          return {"fmax": True, "fabs": False, "radians": False, "diff": True, "copysign": True,
                  "acos": False, "append": True, "concat": True}
          """, reason="concat"),

    Wrong(E2, "weights lined up with the last axis",
          """
          return jnp.sum(jnp.asarray(a) * jnp.asarray(weights), axis=axis) / jnp.sum(weights)
          """, reason="line up"),
    Wrong(E2, "divided by the count, not the sum of the weights",
          """
          a, weights = jnp.asarray(a), jnp.asarray(weights)
          axis = axis % a.ndim
          w = jnp.reshape(weights, (-1,) + (1,) * (a.ndim - axis - 1))
          return jnp.mean(a * w, axis=axis)
          """, reason="sum of the weights"),
    Wrong(E2, "computed by NumPy: float64, and no tracing",
          """
          return np.average(np.asarray(a), axis=axis, weights=np.asarray(weights))
          """, reason="jnp array"),
]

E3 = "3. Unique values, a static number of them"

WRONG += [
    Wrong(E3, "the padding left as nonzero's, the smallest value",
          """
          s = jnp.sort(x)
          first = jnp.concatenate([jnp.array([True]), s[1:] != s[:-1]])
          idx, = jnp.nonzero(first, size=size, fill_value=0)
          return s[idx]
          """, reason="fill_value"),
    Wrong(E3, "neighbours compared before sorting",
          """
          first = jnp.concatenate([jnp.array([True]), x[1:] != x[:-1]])
          idx, = jnp.nonzero(first, size=size, fill_value=0)
          return jnp.where(jnp.arange(size) < first.sum(), jnp.sort(x[idx]), fill_value)
          """, reason="sort first"),
    Wrong(E3, "jnp.unique itself",
          """
          return jnp.unique(x, size=size, fill_value=fill_value)
          """, reason="without jnp.unique"),
    Wrong(E3, "the padding asked of nonzero, which then indexes the sorted values with it",
          """
          s = jnp.sort(x)
          first = jnp.concatenate([jnp.array([True]), s[1:] != s[:-1]])
          idx, = jnp.nonzero(first, size=size, fill_value=fill_value)
          return s[idx]
          """, reason="fill_value"),
    Wrong(E3, "one slot too many kept (<= the count)",
          """
          s = jnp.sort(x)
          first = jnp.concatenate([jnp.array([True]), s[1:] != s[:-1]])
          idx, = jnp.nonzero(first, size=size, fill_value=0)
          return jnp.where(jnp.arange(size) <= first.sum(), s[idx], fill_value)
          """, reason="fill_value"),
]

WRONG += [
    Wrong(E2, "jnp.average itself",
          """
          return jnp.average(a, axis=axis, weights=weights)
          """, reason="calls jnp.average"),
    Wrong(E2, "a negative axis not brought into range",
          """
          a, weights = jnp.asarray(a), jnp.asarray(weights)
          w = jnp.reshape(weights, (-1,) + (1,) * (a.ndim - axis - 1))
          return jnp.sum(a * w, axis=axis) / jnp.sum(weights)
          """, reason="axis -1"),
    Wrong(E2, "the weights given leading ones, not trailing ones",
          """
          a, weights = jnp.asarray(a), jnp.asarray(weights)
          axis = axis % a.ndim
          w = jnp.reshape(weights, (1,) * axis + (-1,))
          return jnp.sum(a * w, axis=axis) / jnp.sum(weights)
          """, reason="line"),
]
