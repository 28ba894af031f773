"""Wrong solutions to chapter 13's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. A rule that skips its zero tangents"
E2 = "2. Residuals for the perturbed inputs only"
E3 = "3. A decorator that recomputes"

_BWD = """
slope, x, W = residuals
g = ct * slope
return (None if W is None else g @ W, None if x is None else jnp.outer(g, x))
"""

WRONG = [
    Wrong(E1, "all three terms, as if no tangent were a SymbolicZero",
          """
          return bilinear(x, A, y), x_dot @ A @ y + x @ A_dot @ y + x @ A @ y_dot
          """, reason="got a SymbolicZero for the others and failed"),
    Wrong(E1, "the zeros made into arrays first, then all three terms",
          """
          x_dot, A_dot, y_dot = [jnp.zeros(t.shape, t.dtype) if type(t) is SymbolicZero else t
                                 for t in (x_dot, A_dot, y_dot)]
          return bilinear(x, A, y), x_dot @ A @ y + x @ A_dot @ y + x @ A @ y_dot
          """, reason="should cost nothing"),
    Wrong(E1, "chapter 3's Zero tested, which a custom rule never gets",
          """
          from autodidax.jvp import Zero
          terms = [x_dot @ (A @ y) if type(x_dot) is not Zero else None,
                   x @ A_dot @ y if type(A_dot) is not Zero else None,
                   (x @ A) @ y_dot if type(y_dot) is not Zero else None]
          terms = [t for t in terms if t is not None]
          return bilinear(x, A, y), sum(terms[1:], terms[0])
          """, reason="got a SymbolicZero for the others and failed"),
    Wrong(E1, "the term of A forgotten",
          """
          terms = []
          if type(x_dot) is not SymbolicZero:
              terms.append(x_dot @ (A @ y))
          if type(y_dot) is not SymbolicZero:
              terms.append((x @ A) @ y_dot)
          if not terms:
              return bilinear(x, A, y), SymbolicZero.from_primal_value(bilinear(x, A, y))
          return bilinear(x, A, y), sum(terms[1:], terms[0])
          """, reason=r"dx A y \+ x dA y \+ x A dy"),
    Wrong(E2, "every residual saved, whatever is perturbed",
          ("""
          y = jnp.tanh(W.value @ x.value)
          return y, (1 - y ** 2, x.value, W.value)
          """, _BWD), reason="with x perturbed, fwd saved 11 numbers"),
    Wrong(E2, "each input saved when it is itself perturbed, not when the other is",
          ("""
          y = jnp.tanh(W.value @ x.value)
          saved_W = W.value if W.perturbed else None
          saved_x = x.value if x.perturbed else None
          return y, (1 - y ** 2, saved_x, saved_W)
          """, _BWD), reason="respect to x: the part for x should be"),
    Wrong(E2, "the output cotangent ignored in bwd",
          (None, """
          slope, x, W = residuals
          return (None if W is None else slope @ W, None if x is None else jnp.outer(slope, x))
          """), reason="the part for x should be"),
    Wrong(E2, "the inputs used as arrays, not through .value",
          ("""
          y = jnp.tanh(W @ x)
          saved_W = W if x.perturbed else None
          saved_x = x if W.perturbed else None
          return y, (1 - y ** 2, saved_x, saved_W)
          """, None), reason="failed: TypeError.*CustomVJPPrimal"),
    Wrong(E3, "the output saved too, with the arguments",
          """
          g = jax.custom_vjp(f)

          def fwd(*args):
              out = f(*args)
              return out, (args, out)

          def bwd(res, ct):
              args, _ = res
              return jax.vjp(f, *args)[1](ct)

          g.defvjp(fwd, bwd)
          return g
          """, reason="save the arguments, nothing else"),
    Wrong(E3, "the gradient of the sum, not the VJP of the cotangent",
          """
          g = jax.custom_vjp(f)

          def fwd(*args):
              return f(*args), args

          def bwd(args, ct):
              return jax.grad(lambda *a: f(*a).sum(), argnums=tuple(range(len(args))))(*args)

          g.defvjp(fwd, bwd)
          return g
          """, reason="for the output cotangent"),
    Wrong(E3, "the cotangent of the first argument only",
          """
          g = jax.custom_vjp(f)

          def fwd(*args):
              return f(*args), args

          def bwd(args, ct):
              return (jax.vjp(lambda a: f(a, *args[1:]), args[0])[1](ct)[0],)

          g.defvjp(fwd, bwd)
          return g
          """, reason="VJP failed.*tuple of length equal"),
    Wrong(E3, "the package's checkpoint (chapter 14), not custom_vjp",
          """
          return jax.checkpoint(f)
          """, reason="should be a custom_vjp function"),
    Wrong(E1, "the matrix's zero tangent made into an array, the vectors' skipped",
          """
if type(A_dot) is SymbolicZero:
    A_dot = jnp.zeros(A.shape, A.dtype)
terms = [x @ A_dot @ y]
if type(x_dot) is not SymbolicZero:
    terms.append(x_dot @ (A @ y))
if type(y_dot) is not SymbolicZero:
    terms.append((x @ A) @ y_dot)
return bilinear(x, A, y), sum(terms[1:], terms[0])
""", reason='no array of zeros'),
    Wrong(E1, "a second-order term dx A dy added when both vectors vary",
          """
terms = []
if type(x_dot) is not SymbolicZero:
    terms.append(x_dot @ (A @ y))
if type(A_dot) is not SymbolicZero:
    terms.append(x @ A_dot @ y)
if type(y_dot) is not SymbolicZero:
    terms.append((x @ A) @ y_dot)
if type(x_dot) is not SymbolicZero and type(y_dot) is not SymbolicZero:
    terms.append(x_dot @ A @ y_dot)
return bilinear(x, A, y), sum(terms[1:], terms[0])
""", reason='with tangents for x and A and y, the tangent should be'),
    Wrong(E2, "the cotangent of W transposed: outer(x, g)",
          (None, """
slope, x, W = residuals
g = ct * slope
return (None if W is None else g @ W, None if x is None else jnp.outer(x, g))
"""), reason='float32\\[3,2\\] corresponding to an input of type float32\\[2,3\\]'),
    Wrong(E2, "x saved always, W only when x is perturbed",
          ("""
y = jnp.tanh(W.value @ x.value)
saved_W = W.value if x.perturbed else None
return y, (1 - y ** 2, x.value, saved_W)
""", _BWD), reason='with x perturbed, fwd saved 11 numbers'),
    Wrong(E3, "fwd and bwd written for two arguments",
          """
g = jax.custom_vjp(f)

def fwd(a, b):
    return f(a, b), (a, b)

def bwd(args, ct):
    a, b = args
    return jax.vjp(f, a, b)[1](ct)

g.defvjp(fwd, bwd)
return g
""", reason='for an f of one argument'),
    Wrong(E3, "cotangents for the first argument only, None for the others",
          """
g = jax.custom_vjp(f)

def fwd(*args):
    return f(*args), args

def bwd(args, ct):
    first = jax.vjp(lambda a: f(a, *args[1:]), args[0])[1](ct)[0]
    return (first,) + (None,) * (len(args) - 1)

g.defvjp(fwd, bwd)
return g
""", reason='the cotangent of x for the output cotangent'),
]
WRONG += [
    Wrong(E2, "np.outer in bwd: right eagerly, not under jit",
          (None, """
          slope, x, W = residuals
          g = ct * slope
          return (None if W is None else g @ W, None if x is None else np.outer(g, x))
          """), reason="TracerArrayConversionError"),
    Wrong(E3, "fwd written for one or two arguments, the ones the check first tries",
          """
          g = jax.custom_vjp(f)

          def fwd(a, b=None):
              args = (a,) if b is None else (a, b)
              return f(*args), args

          def bwd(args, ct):
              return jax.vjp(f, *args)[1](ct)

          g.defvjp(fwd, bwd)
          return g
          """, reason="for an f of three arguments"),
    Wrong(E3, "the VJP function memoized across calls",
          """
          g = jax.custom_vjp(f)
          cache = {}

          def fwd(*args):
              return f(*args), args

          def bwd(args, ct):
              if "vjp" not in cache:
                  cache["vjp"] = jax.vjp(f, *args)[1]
              return cache["vjp"](ct)

          g.defvjp(fwd, bwd)
          return g
          """, reason="jit of vmap of grad disagrees"),
]
