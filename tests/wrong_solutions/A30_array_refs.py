"""Wrong solutions to appendix A30's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1, E2 = "1. run_state", "2. A ref's value as a carry"

WRONG = [
    Wrong(E1, "a ref made and frozen, not discharged", """
          def pure(x):
              x_ref = jax.new_ref(x)
              result = f(x_ref)
              return result, jax.freeze(x_ref)
          return pure
          """, reason="must be pure"),
    Wrong(E1, "traced on a ref made from the argument", """
          def pure(x):
              closed = jax.make_jaxpr(f)(jax.new_ref(x))
              discharged, _ = refs.discharge(closed)
              result, last = eval_jaxpr(discharged.jaxpr, discharged.consts, x)
              return result, last
          return pure
          """, reason="must be pure"),
    Wrong(E1, "the first value returned, not the last", """
          def pure(x):
              closed = trace_to_jaxpr(lambda r: [f(r)], [refs.AbstractRef(jax.typeof(x))])
              discharged, _ = refs.discharge(closed)
              result, last = eval_jaxpr(discharged.jaxpr, discharged.consts, x)
              return result, x
          return pure
          """, reason="last value"),
    Wrong(E1, "the outputs taken in the wrong order", """
          def pure(x):
              closed = trace_to_jaxpr(lambda r: [f(r)], [refs.AbstractRef(jax.typeof(x))])
              discharged, _ = refs.discharge(closed)
              last, result = eval_jaxpr(discharged.jaxpr, discharged.consts, x)
              return result, last
          return pure
          """, reason="last value"),
    Wrong(E2, "one ref outside the loop, closed over by the body", """
          x_ref = jax.new_ref(init)
          def step(c, x):
              return c, body(x_ref, x)
          _, ys = jax.lax.scan(step, None, xs)
          return jax.freeze(x_ref), ys
          """, reason="outside the loop"),
    Wrong(E2, "a Python loop", """
          x_ref = jax.new_ref(init)
          ys = [body(x_ref, x) for x in xs]
          return jax.freeze(x_ref), jnp.stack(ys)
          """, reason="outside the loop"),
    Wrong(E2, "the value carried unchanged", """
          def step(value, x):
              x_ref = jax.new_ref(value)
              return value, body(x_ref, x)
          return jax.lax.scan(step, init, xs)
          """, reason="last value and the ys"),
    Wrong(E2, "frozen before the body runs", """
          def step(value, x):
              x_ref = jax.new_ref(value)
              new = jax.freeze(x_ref)
              return new, body(x_ref, x)
          return jax.lax.scan(step, init, xs)
          """, reason="last value and the ys"),
]
