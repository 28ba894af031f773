"""Wrong solutions to chapter 4's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

WRONG = [
    Wrong("1. A primitive that cannot take the batch", "the batch assumed to be on axis 0",
          """
          x = lax.expand_dims(x, [0]) if dx is None else x
          y = lax.expand_dims(y, [0]) if dy is None else y
          return lax.mul(lax.expand_dims(x, [2]), lax.expand_dims(y, [1])), 0
          """, reason=r"in_axes=\(1, 1\)"),
    Wrong("1. A primitive that cannot take the batch", "x and y swapped: the outer product of y and x",
          """
          x = lax.expand_dims(x, [0]) if dx is None else moveaxis(x, dx, 0)
          y = lax.expand_dims(y, [0]) if dy is None else moveaxis(y, dy, 0)
          return lax.mul(lax.expand_dims(y, [2]), lax.expand_dims(x, [1])), 0
          """, reason=r"outer product of each example's x and y, shape \(4, 3, 2\); got shape \(4, 2, 3\)"),
    Wrong("1. A primitive that cannot take the batch", "a loop binding outer_p once per example",
          """
          size = next(np.shape(v)[d] for v, d in zip(vals, dims) if d is not None)
          x = broadcast(x, size, 0) if dx is None else moveaxis(x, dx, 0)
          y = broadcast(y, size, 0) if dy is None else moveaxis(y, dy, 0)
          return jnp.stack([outer_p.bind(x[i], y[i]) for i in range(size)]), 0
          """, reason="no loop over the examples"),
    Wrong("1. A primitive that cannot take the batch", "computed in NumPy, which jvp cannot follow",
          """
          x = np.asarray(x)[None] if dx is None else np.moveaxis(np.asarray(x), dx, 0)
          y = np.asarray(y)[None] if dy is None else np.moveaxis(np.asarray(y), dy, 0)
          return jnp.asarray(x[:, :, None] * y[:, None, :]), 0
          """, reason="not with NumPy"),
    Wrong("1. A primitive that cannot take the batch", "chapter 4's rule for dot_general, with nothing contracted",
          """
          return batching_rules[lax.dot_general_p](
              vals, dims, dimension_numbers=(((), ()), ((), ())), preferred_element_type=None)
          """, reason="the rule of another primitive"),
    Wrong("2. Jacobians a few columns at a time", "the package's jacfwd, every column at once",
          """
          return jacfwd(f)(x)
          """, reason="called jacfwd"),
    Wrong("2. Jacobians a few columns at a time", "one jvp per column, as in chapter 3: no vmap",
          """
          x = jnp.asarray(x)
          basis = np.eye(x.size, dtype=x.dtype).reshape((x.size,) + x.shape)
          jac = jnp.stack([jvp(f, (x,), (t,))[1] for t in basis], axis=-1)
          return jnp.reshape(jac, jac.shape[:-1] + x.shape)
          """, reason="one vmap per chunk"),
    Wrong("2. Jacobians a few columns at a time", "the columns left over forgotten",
          """
          x = jnp.asarray(x)
          n = x.size
          basis = np.eye(n, dtype=x.dtype).reshape((n,) + x.shape)
          pushfwd = vmap(lambda t: jvp(f, (x,), (t,))[1], out_axes=-1)
          jac = jnp.concatenate([pushfwd(basis[i:i + chunk])
                                 for i in range(0, n - chunk + 1, chunk)], axis=-1)
          return jnp.reshape(jac, jac.shape[:-1] + (n // chunk * chunk,))
          """, reason="should have shape"),
    Wrong("2. Jacobians a few columns at a time", "the chunks stacked along axis 0: the Jacobian transposed",
          """
          x = jnp.asarray(x)
          n = x.size
          basis = np.eye(n, dtype=x.dtype).reshape((n,) + x.shape)
          pushfwd = vmap(lambda t: jvp(f, (x,), (t,))[1])
          jac = jnp.concatenate([pushfwd(basis[i:i + chunk]) for i in range(0, n, chunk)])
          return jnp.reshape(jac, x.shape + jac.shape[1:])
          """, reason="should have shape"),
    Wrong('2. Jacobians a few columns at a time',
          "the basis in float64, x's dtype dropped",
          """
          x = jnp.asarray(x)
          n = x.size
          basis = np.eye(n).reshape((n,) + x.shape)
          pushfwd = vmap(lambda t: jvp(f, (x,), (t,))[1], out_axes=-1)
          jac = jnp.concatenate([pushfwd(basis[i:i + chunk]) for i in range(0, n, chunk)], axis=-1)
          return jnp.reshape(jac, jac.shape[:-1] + x.shape)
          """,
          reason='its tangent must be f16'),
]
# --- round 3
WRONG += [
    Wrong("2. Jacobians a few columns at a time", "the number of columns taken from x.shape[0]",
          """
          x = jnp.asarray(x)
          n = x.shape[0]
          basis = np.eye(n, dtype=x.dtype).reshape((n,) + x.shape)
          pushfwd = vmap(lambda t: jvp(f, (x,), (t,))[1], out_axes=-1)
          jac = jnp.concatenate([pushfwd(basis[i:i + chunk]) for i in range(0, n, chunk)], axis=-1)
          return jnp.reshape(jac, jac.shape[:-1] + x.shape)
          """, reason=r"\(1, 7\)"),
]
