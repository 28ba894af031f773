"""Wrong solutions to appendix A24's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. A ufunc: logaddexp2"
E2 = "2. A weighted average"

WRONG = [
    Wrong(E1, "the formula as written, which overflows",
          """
          f = lambda x, y: jnp.log2(jnp.exp2(x) + jnp.exp2(y))
          return jnp.frompyfunc(f, 2, 1, identity=-jnp.inf)
          """, reason="overflows"),
    Wrong(E1, "the larger input taken out, -inf left unguarded",
          """
          def f(x, y):
              top = jnp.maximum(x, y)
              return top + jnp.log2(1 + jnp.exp2(-jnp.abs(x - y)))
          return jnp.frompyfunc(f, 2, 1, identity=-jnp.inf)
          """, reason="-inf - \\(-inf\\) is NaN"),
    Wrong(E1, "identity 0, as addition's",
          """
          def f(x, y):
              top = jnp.maximum(x, y)
              return jnp.where(jnp.isneginf(top), top,
                               top + jnp.log2(1 + jnp.exp2(-jnp.abs(x - y))))
          return jnp.frompyfunc(f, 2, 1, identity=0.0)
          """, reason="starts from the identity"),
    Wrong(E1, "no identity",
          """
          def f(x, y):
              top = jnp.maximum(x, y)
              return jnp.where(jnp.isneginf(top), top,
                               top + jnp.log2(1 + jnp.exp2(-jnp.abs(x - y))))
          return jnp.frompyfunc(f, 2, 1)
          """, reason="give the ufunc its identity"),
    Wrong(E1, "jnp.logaddexp2 wrapped",
          """
          return jnp.frompyfunc(jnp.logaddexp2, 2, 1, identity=-jnp.inf)
          """, reason="calls jnp.logaddexp2"),
    Wrong(E1, "the plain function, not a ufunc",
          """
          return jnp.logaddexp2
          """, reason="jnp.ufunc"),
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
