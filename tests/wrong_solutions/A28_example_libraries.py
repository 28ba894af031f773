"""Wrong solutions to appendix A28's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1, E2 = "1. A layer: Scale", "2. An optimizer: sign descent"

WRONG = [
    Wrong(E1, "the scale over the first axis", """
          def init_fun(rng, input_shape):
              return input_shape, jnp.ones(input_shape[:1])

          def apply_fun(params, inputs, **kwargs):
              return inputs * params[:, None]
          return init_fun, apply_fun
          """, reason="last axis"),
    Wrong(E1, "the scale started at zeros", """
          def init_fun(rng, input_shape):
              return input_shape, jnp.zeros(input_shape[-1:])

          def apply_fun(params, inputs, **kwargs):
              return inputs * params
          return init_fun, apply_fun
          """, reason="starts as ones"),
    Wrong(E1, "an apply_fun without **kwargs", """
          def init_fun(rng, input_shape):
              return input_shape, jnp.ones(input_shape[-1:])

          def apply_fun(params, inputs):
              return inputs * params
          return init_fun, apply_fun
          """, reason=r"give it \*\*kwargs"),
    Wrong(E2, "the gradient, not its sign", """
          step_size = optimizers.make_schedule(step_size)
          return (lambda x0: x0), (lambda i, g, x: x - step_size(i) * g), (lambda x: x)
          """, reason="against each gradient's sign"),
    Wrong(E2, "the step size read at step 0", """
          step_size = optimizers.make_schedule(step_size)
          return (lambda x0: x0), (lambda i, g, x: x - step_size(0) * jnp.sign(g)), (lambda x: x)
          """, reason="step number"),
    Wrong(E2, "along the sign, not against it", """
          step_size = optimizers.make_schedule(step_size)
          return (lambda x0: x0), (lambda i, g, x: x + step_size(i) * jnp.sign(g)), (lambda x: x)
          """, reason="against each gradient's sign"),
    Wrong(E1, "the scale as integer ones, which grad cannot differentiate", """
          def init_fun(rng, input_shape):
              return input_shape, jnp.ones(input_shape[-1:], dtype=jnp.int32)

          def apply_fun(params, inputs, **kwargs):
              return inputs * params
          return init_fun, apply_fun
          """, reason="is float32"),
    Wrong(E1, "the whole input's shape of ones", """
          def init_fun(rng, input_shape):
              return input_shape, jnp.ones(input_shape)

          def apply_fun(params, inputs, **kwargs):
              return inputs * params
          return init_fun, apply_fun
          """, reason="one vector of the last axis's size"),
    Wrong(E2, "the schedule one step ahead", """
          step_size = optimizers.make_schedule(step_size)
          update = lambda i, g, x: x - step_size(i + 1) * jnp.sign(g)
          return (lambda x0: x0), update, (lambda x: x)
          """, reason="step number"),
    Wrong(E2, "the sign as g / |g|, NaN where g is 0", """
          step_size = optimizers.make_schedule(step_size)
          update = lambda i, g, x: x - step_size(i) * g / jnp.abs(g)
          return (lambda x0: x0), update, (lambda x: x)
          """, reason="0 for a zero gradient"),
]
