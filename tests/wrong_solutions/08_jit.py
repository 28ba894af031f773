"""Wrong solutions to chapter 8's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. A jit that sees its globals"
E2 = "2. Fewer compiles for inputs of many lengths"
E3 = "3. Large constants as arguments"

WRONG = [
    Wrong(E1, "plain jit: the globals are read once, when f is traced",
          """
          return jit(f)
          """, reason="after gain = 5.0, a value not seen before, g\\(x\\) should be 6.0"),
    Wrong(E1, "a new jit at every call: jit's cache belongs to f, and still holds the old program",
          """
          def call(*args):
              return jit(f)(*args)
          return call
          """, reason="after gain = 5.0, a value not seen before, g\\(x\\) should be 6.0"),
    Wrong(E1, "the globals read once, when jit_reading is called",
          """
          values = tuple(f.__globals__[name] for name in names)
          jitted = jit(lambda values, *args: f(*args), static_argnums=0)
          return lambda *args: jitted(values, *args)
          """, reason="after gain = 5.0, a value not seen before, g\\(x\\) should be 6.0"),
    Wrong(E1, "the globals passed as traced arguments, which f does not read",
          """
          jitted = jit(lambda values, *args: f(*args))
          return lambda *args: jitted(tuple(f.__globals__[name] for name in names), *args)
          """, reason="after gain = 5.0, a value not seen before, g\\(x\\) should be 6.0"),
    Wrong(E1, "every cache emptied when a global changes: values seen before are traced again",
          """
          jitted, last = jit(f), [None]

          def call(*args):
              values = tuple(f.__globals__[name] for name in names)
              if values != last[0]:
                  runtime.clear_caches()
                  last[0] = values
              return jitted(*args)
          return call
          """, reason="with gain back to 2.0, .* should have been traced 2 times"),
    Wrong(E1, "no jit at all: f runs, and reads the globals, at every call",
          """
          return f
          """, reason="should run a compiled program"),

    Wrong(E2, "one bucket too far: the power of two above len(x), not the one at or above",
          """
          jitted = jit(f)

          def call(x):
              x = jnp.asarray(x)
              n = x.shape[0]
              size = 1 << n.bit_length()
              padded = jnp.concatenate([x, jnp.zeros((size - n,) + x.shape[1:], x.dtype)])
              return jitted(padded)[:n]
          return call
          """, reason="should trace for the buckets 1, 2, 4, 8, 16 and 32 only"),
    Wrong(E2, "buckets of multiples of 8, not powers of two",
          """
          jitted = jit(f)

          def call(x):
              x = jnp.asarray(x)
              n = x.shape[0]
              size = -(-n // 8) * 8
              padded = jnp.concatenate([x, jnp.zeros((size - n,) + x.shape[1:], x.dtype)])
              return jitted(padded)[:n]
          return call
          """, reason="should trace for the buckets 1, 2, 4, 8, 16 and 32 only"),
    Wrong(E2, "the padded rows returned too",
          """
          jitted = jit(f)

          def call(x):
              x = jnp.asarray(x)
              n = x.shape[0]
              size = 1 << max(n - 1, 0).bit_length()
              return jitted(jnp.concatenate([x, jnp.zeros((size - n,) + x.shape[1:], x.dtype)]))
          return call
          """, reason="length 3: expected shape \\(3, 3\\), got \\(4, 3\\)"),
    Wrong(E2, "padded, but not jitted: f runs at every call",
          """
          def call(x):
              x = jnp.asarray(x)
              n = x.shape[0]
              size = 1 << max(n - 1, 0).bit_length()
              return f(jnp.concatenate([x, jnp.zeros((size - n,) + x.shape[1:], x.dtype)]))[:n]
          return call
          """, reason="each bucket should trace once"),

    Wrong(E3, "every constant made an input, small ones too",
          ("""
          jaxpr = closed.jaxpr
          new = Jaxpr([], list(jaxpr.constvars) + jaxpr.invars, jaxpr.eqns, jaxpr.outvars)
          return ClosedJaxpr(new, []), list(closed.consts)
          """, None), reason="the constant of 16 bytes should stay a constant"),
    Wrong(E3, "a constant of max_bytes bytes made an input too (at least, not more than)",
          ("""
          jaxpr = closed.jaxpr
          large = [np.asarray(c).nbytes >= max_bytes for c in closed.consts]
          kept = [(v, c) for v, c, big in zip(jaxpr.constvars, closed.consts, large) if not big]
          moved = [(v, c) for v, c, big in zip(jaxpr.constvars, closed.consts, large) if big]
          new = Jaxpr([v for v, _ in kept], [v for v, _ in moved] + jaxpr.invars, jaxpr.eqns,
                      jaxpr.outvars)
          return ClosedJaxpr(new, [c for _, c in kept]), [c for _, c in moved]
          """, None), reason="64 bytes \\(32 float16s: max_bytes itself\\) should stay"),
    Wrong(E3, "the size counted in elements, not bytes",
          ("""
          jaxpr = closed.jaxpr
          large = [np.size(c) > max_bytes for c in closed.consts]
          kept = [(v, c) for v, c, big in zip(jaxpr.constvars, closed.consts, large) if not big]
          moved = [(v, c) for v, c, big in zip(jaxpr.constvars, closed.consts, large) if big]
          new = Jaxpr([v for v, _ in kept], [v for v, _ in moved] + jaxpr.invars, jaxpr.eqns,
                      jaxpr.outvars)
          return ClosedJaxpr(new, [c for _, c in kept]), [c for _, c in moved]
          """, None), reason="the constant of 128 bytes .* should be made an input"),
    Wrong(E3, "the constants made inputs put after the function's own inputs",
          ("""
          jaxpr = closed.jaxpr
          large = [np.asarray(c).nbytes > max_bytes for c in closed.consts]
          kept = [(v, c) for v, c, big in zip(jaxpr.constvars, closed.consts, large) if not big]
          moved = [(v, c) for v, c, big in zip(jaxpr.constvars, closed.consts, large) if big]
          new = Jaxpr([v for v, _ in kept], jaxpr.invars + [v for v, _ in moved], jaxpr.eqns,
                      jaxpr.outvars)
          return ClosedJaxpr(new, [c for _, c in kept]), [c for _, c in moved]
          """, None), reason="should be the constants made inputs, first"),
    Wrong(E3, "hoisting_jit that jits f as it is: the matrices stay embedded",
          (None, """
          return jit(f)
          """), reason="made XLA compile \\(or load\\) another program"),
    Wrong(E3, "hoisting_jit passes the arguments first, then the hoisted constants",
          (None, """
          def call(*args):
              closed, values = hoist_constants(jit(f).trace(*args).jaxpr, max_bytes)
              text = lower_to_text(closed, f.__name__)
              exe = compile_or_get_cached(text, default_device(), closed.out_avals)
              return exe(*args, *values)[0]
          return call
          """), reason="hoisting_jit\\(closing, 64\\)\\(v\\) raised .*Mismatch"),
]

_BUCKETED = """
jitted = jit(f)

def call(x):
    x = jnp.asarray(x)
    n = x.shape[0]
    size = 1 << max(n - 1, 0).bit_length()
    padded = jnp.concatenate([x, {zeros}])
    return jitted(padded)[:n]
return call
"""

WRONG += [
    Wrong(E1, "the globals' values keyed by id: an equal value, another object, traces again",
          """
          jitted = jit(lambda values, *args: f(*args), static_argnums=0)
          return lambda *args: jitted(tuple(id(f.__globals__[n]) for n in names), *args)
          """, reason="with gain back to 2.0, .* should have been traced 2 times in all, was "
                      "traced 3"),
    Wrong(E2, "the zeros made float32, whatever x's dtype",
          _BUCKETED.format(zeros="jnp.zeros((size - n,) + x.shape[1:])"),
          reason="should give an int32 vector of shape \\(3,\\), got float32"),
    Wrong(E2, "the padding made for a matrix: two dimensions only",
          _BUCKETED.format(zeros="jnp.zeros((size - n, x.shape[1]), x.dtype)"),
          reason="on an int32 vector of length 3 raised IndexError"),
    Wrong(E3, "the bytes counted as four per element, as if every constant were float32",
          ("""
          jaxpr = closed.jaxpr
          large = [np.size(c) * 4 > max_bytes for c in closed.consts]
          kept = [(v, c) for v, c, big in zip(jaxpr.constvars, closed.consts, large) if not big]
          moved = [(v, c) for v, c, big in zip(jaxpr.constvars, closed.consts, large) if big]
          new = Jaxpr([v for v, _ in kept], [v for v, _ in moved] + jaxpr.invars, jaxpr.eqns,
                      jaxpr.outvars)
          return ClosedJaxpr(new, [c for _, c in kept]), [c for _, c in moved]
          """, None), reason="32 float16s: max_bytes itself\\) should stay"),
    Wrong(E3, "hoisting_jit traces f once, at the types of its first call",
          (None, """
          cache = []

          def call(*args):
              if not cache:
                  closed, values = hoist_constants(jit(f).trace(*args).jaxpr, max_bytes)
                  text = lower_to_text(closed, f.__name__)
                  cache.append((compile_or_get_cached(text, default_device(), closed.out_avals),
                                values))
              exe, values = cache[0]
              return exe(*values, *args)[0]
          return call
          """), reason="should trace f again at the new type"),
    Wrong(E3, "the program named main, not after f",
          (None, """
          def call(*args):
              closed, values = hoist_constants(jit(f).trace(*args).jaxpr, max_bytes)
              text = lower_to_text(closed, "main")
              exe = compile_or_get_cached(text, default_device(), closed.out_avals)
              return exe(*values, *args)[0]
          return call
          """), reason="should be named after it"),
]

# found by the third round of adversarial review
WRONG += [
    Wrong(E2, "a jit made at every call",
          """
          def call(x):
              x = jnp.asarray(x)
              n = x.shape[0]
              size = 1 << max(n - 1, 0).bit_length()
              padded = jnp.concatenate([x, jnp.zeros((size - n,) + x.shape[1:], x.dtype)])
              return jit(f)(padded)[:n]
          return call
          """, reason="made a new jit"),
    Wrong(E3, "values returned in the order of their sizes, largest first",
          ("""
          jaxpr = closed.jaxpr
          pairs = list(zip(jaxpr.constvars, closed.consts))
          moved = sorted([p for p in pairs if np.asarray(p[1]).nbytes > max_bytes],
                         key=lambda p: -np.asarray(p[1]).nbytes)
          kept = [p for p in pairs if np.asarray(p[1]).nbytes <= max_bytes]
          new = Jaxpr([v for v, _ in kept], [v for v, _ in moved] + jaxpr.invars, jaxpr.eqns,
                      jaxpr.outvars)
          return ClosedJaxpr(new, [c for _, c in kept]), [c for _, c in moved]
          """, None), reason="in the order of closed.jaxpr.constvars"),
]
