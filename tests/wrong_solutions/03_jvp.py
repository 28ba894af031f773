"""Wrong solutions to chapter 3's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

WRONG = [
    Wrong("1. The JVP rule of a new primitive", "the derivative alone, the tangent ignored",
          """
          logistic = 1 / (1 + jnp.exp(-x))
          return softplus(x), logistic
          """, reason="should be logistic"),
    Wrong("1. The JVP rule of a new primitive", "the sign of the exponent flipped",
          """
          return softplus(x), t / (1 + jnp.exp(x))
          """, reason="should be logistic"),
    Wrong("1. The JVP rule of a new primitive", "the derivative computed in NumPy, a constant to an outer jvp",
          """
          logistic = 1 / (1 + np.exp(-np.asarray(x)))
          return softplus(x), t * logistic
          """, reason="second derivative|NumPy"),
    Wrong("2. Two inputs, and a tangent that is Zero", "both terms summed as if neither were Zero",
          """
          h = hypot(x, y)
          return h, tx * (x / h) + ty * (y / h)
          """, reason="got a Zero tangent"),
    Wrong("2. Two inputs, and a tangent that is Zero", "zeros instantiated first, then both terms",
          """
          h = hypot(x, y)
          tx, ty = instantiate_zeros(tx), instantiate_zeros(ty)
          return h, tx * (x / h) + ty * (y / h)
          """, reason="should cost nothing"),
    Wrong("2. Two inputs, and a tangent that is Zero", "one partial derivative for both inputs",
          """
          h = hypot(x, y)
          t = Zero.from_primal_value(h)
          for tangent in (tx, ty):
              if type(tangent) is not Zero:
                  t = add_tangents(t, tangent * (x / h))
          return h, t
          """, reason="tangent should be"),
    Wrong("3. Hessian-vector products", "the whole Hessian, then a product",
          """
          return jacfwd(jacfwd(f))(x) @ v
          """, reason="build no Hessian"),
    Wrong("3. Hessian-vector products", "reverse mode, from the package's chapter 9",
          """
          from autodidax import grad
          return jvp(grad(f), (x,), (v,))[1]
          """, reason="chapter 9"),
    Wrong("3. Hessian-vector products", "the directional derivative times v, not differentiated",
          """
          return jvp(f, (x,), (v,))[1] * v
          """, reason="Hv should be"),
    Wrong('1. The JVP rule of a new primitive',
          'e^x / (1 + e^x): inf / inf for a large x',
          """
          e = jnp.exp(x)
          return softplus(x), t * (e / (1 + e))
          """,
          reason='overflows float32'),
    Wrong('2. Two inputs, and a tangent that is Zero',
          'both partials computed, then the Zero skipped',
          """
          h = hypot(x, y)
          dx, dy = x / h, y / h
          t = Zero.from_primal_value(h)
          if type(tx) is not Zero:
              t = add_tangents(t, tx * dx)
          if type(ty) is not Zero:
              t = add_tangents(t, ty * dy)
          return h, t
          """,
          reason='read y: a Zero tangent'),
]
# --- round 3
WRONG += [
    Wrong("1. The JVP rule of a new primitive", "the primal as log(1 + e^x), which overflows",
          """
          logistic = 1 / (1 + jnp.exp(-x))
          return jnp.log(1 + jnp.exp(x)), t * logistic
          """, reason=r"primal.*100"),
    Wrong("3. Hessian-vector products", "one jvp per row of x: an x of one axis assumed",
          """
          g = lambda x: jvp(f, (x,), (v,))[1]
          n = x.shape[0]
          basis = jnp.eye(n, dtype=x.dtype)
          return jnp.stack([jvp(g, (x,), (basis[i],))[1] for i in range(n)])
          """, reason=r"2, 3|\(2, 3\)"),
]
