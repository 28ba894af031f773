"""Wrong solutions to chapter 18's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

WRONG = [
    Wrong("1. Momentum", "the parameters moved by the old velocity",
          """
          value, grads = jax.value_and_grad(loss)(params, x, y)
          new_velocity = jax.tree.map(lambda v, g: BETA * v + g, velocity, grads)
          params = jax.tree.map(lambda p, v: p - LR * v, params, velocity)
          return value, params, new_velocity
          """, reason="params\\['.*'\\] is off .*new velocity"),
    Wrong("1. Momentum", "the velocity as a moving average, (1 - BETA) * grad",
          """
          value, grads = jax.value_and_grad(loss)(params, x, y)
          velocity = jax.tree.map(lambda v, g: BETA * v + (1 - BETA) * g, velocity, grads)
          params = jax.tree.map(lambda p, v: p - LR * v, params, velocity)
          return value, params, velocity
          """, reason="velocity\\[.*BETA \\* velocity \\+ grad"),
    Wrong("1. Momentum", "the learning rate folded into the velocity",
          """
          value, grads = jax.value_and_grad(loss)(params, x, y)
          velocity = jax.tree.map(lambda v, g: BETA * v + LR * g, velocity, grads)
          params = jax.tree.map(lambda p, v: p - v, params, velocity)
          return value, params, velocity
          """, reason="velocity\\[.*BETA \\* velocity \\+ grad"),
    Wrong("1. Momentum", "the loss of the new parameters returned",
          """
          grads = jax.grad(loss)(params, x, y)
          velocity = jax.tree.map(lambda v, g: BETA * v + g, velocity, grads)
          params = jax.tree.map(lambda p, v: p - LR * v, params, velocity)
          return loss(params, x, y), params, velocity
          """, reason="loss should be that of the parameters before the step"),
    Wrong("2. Stopping inside the program", "the test on the loss sgd_step saw, before its update",
          """
          def going(carry):
              _, value, steps = carry
              return (value >= target) & (steps < max_steps)

          def one_step(carry):
              params, _, steps = carry
              value, params = sgd_step(params, x, y)
              return params, value, steps + 1

          params, _, steps = lax.while_loop(going, one_step, (params, jnp.inf, jnp.int32(0)))
          return params, steps
          """, reason="you took 76: .*test the loss of the parameters you would return"),
    Wrong("2. Stopping inside the program", "one step past max_steps",
          """
          def going(carry):
              _, value, steps = carry
              return (value >= target) & (steps <= max_steps)

          def one_step(carry):
              params, _, steps = carry
              _, params = sgd_step(params, x, y)
              return params, loss(params, x, y), steps + 1

          start = (params, loss(params, x, y), jnp.int32(0))
          params, _, steps = lax.while_loop(going, one_step, start)
          return params, steps
          """, reason="you took 41: stop at 40 steps"),
    Wrong("2. Stopping inside the program", "a Python loop, testing the loss as a float",
          """
          steps = 0
          while float(loss(params, x, y)) >= target and steps < max_steps:
              _, params = sgd_step(params, x, y)
              steps += 1
          return params, jnp.int32(steps)
          """, reason="raised .*lax.while_loop"),
    Wrong("2. Stopping inside the program", "the chapter's jitted step, called in a Python loop",
          """
          steps = 0
          while float(loss(params, x, y)) >= float(target) and steps < int(max_steps):
              _, params = step(params, x, y)
              steps += 1
          return params, jnp.int32(steps)
          """, reason="raised .*tracer.*lax.while_loop"),
    Wrong("3. The model split over eight devices", "both hidden layers split by their units",
          """
          split = lambda *spec: NamedSharding(mesh, P(*spec))
          return {"w0": split(None, "model"), "b0": split("model"),
                  "w1": split(None, "model"), "b1": split("model"),
                  "w2": split(), "b2": split()}
          """, reason="communicates with .*all-gather"),
    Wrong("3. The model split over eight devices", "the last layer split by rows too",
          """
          split = lambda *spec: NamedSharding(mesh, P(*spec))
          return {"w0": split(None, "model"), "b0": split("model"),
                  "w1": split("model", None), "b1": split(),
                  "w2": split("model", None), "b2": split()}
          """, reason="communicates with .*'all-reduce': 2"),
    Wrong("3. The model split over eight devices", "the first layer's bias kept whole",
          """
          split = lambda *spec: NamedSharding(mesh, P(*spec))
          return {"w0": split(None, "model"), "b0": split(),
                  "w1": split("model", None), "b1": split(),
                  "w2": split(), "b2": split()}
          """, reason="b0 came in split as .* and leaves"),
    Wrong("3. The model split over eight devices", "every parameter on every device",
          """
          return {k: NamedSharding(mesh, P()) for k in ("w0", "b0", "w1", "b1", "w2", "b2")}
          """, reason="of w0, of shape .* should hold an eighth"),
    Wrong("1. Momentum", "a dict comprehension: right for the chapter's dict, not for a pytree",
          """
          value, grads = jax.value_and_grad(loss)(params, x, y)
          velocity = {k: BETA * velocity[k] + grads[k] for k in grads}
          params = {k: params[k] - LR * velocity[k] for k in grads}
          return value, params, velocity
          """, reason="on nested parameters .*momentum_step raised TypeError.*any pytree"),
    Wrong("2. Stopping inside the program", "the steps counted in a float",
          """
          def going(carry):
              _, value, steps = carry
              return (value >= target) & (steps < max_steps)

          def one_step(carry):
              params, _, steps = carry
              _, params = sgd_step(params, x, y)
              return params, loss(params, x, y), steps + 1

          start = (params, loss(params, x, y), jnp.float32(0))
          params, _, steps = lax.while_loop(going, one_step, start)
          return params, steps
          """, reason="should be an integer array, got one of float32"),
    Wrong("2. Stopping inside the program", "one step taken before the first test",
          """
          def going(carry):
              _, value, steps = carry
              return (value >= target) & (steps < max_steps)

          def one_step(carry):
              params, _, steps = carry
              _, params = sgd_step(params, x, y)
              return params, loss(params, x, y), steps + 1

          first = one_step((params, None, jnp.int32(0)))
          params, _, steps = lax.while_loop(going, one_step, first)
          return params, steps
          """, reason="takes 0 steps, you took 1: .*test it before the first step"),
    Wrong("1. Momentum", "tree.map under a top-level dict comprehension: a dict at the top only",
          """
          value, grads = jax.value_and_grad(loss)(params, x, y)
          velocity = {k: jax.tree.map(lambda v, g: BETA * v + g, velocity[k], grads[k])
                      for k in grads}
          params = {k: jax.tree.map(lambda p, v: p - LR * v, params[k], velocity[k])
                    for k in grads}
          return value, params, velocity
          """, reason="on nested parameters .*momentum_step raised TypeError.*any pytree"),
    Wrong("2. Stopping inside the program", "fori_loop to max_steps, the updates masked",
          """
          def body(i, carry):
              params, steps = carry
              going = loss(params, x, y) >= target
              _, new = sgd_step(params, x, y)
              params = jax.tree.map(lambda a, b: jnp.where(going, a, b), new, params)
              return params, steps + going.astype(jnp.int32)
          return lax.fori_loop(0, max_steps, body, (params, jnp.int32(0)))
          """, reason="tests only its count, and runs max_steps times"),
    Wrong("2. Stopping inside the program", "a while_loop on a counter, a cond to stop updating",
          """
          def body(carry):
              params, i, steps = carry
              going = loss(params, x, y) >= target
              params = lax.cond(going, lambda p: sgd_step(p, x, y)[1], lambda p: p, params)
              return params, i + 1, steps + going.astype(jnp.int32)
          params, _, steps = lax.while_loop(lambda c: c[1] < max_steps, body,
                                            (params, jnp.int32(0), jnp.int32(0)))
          return params, steps
          """, reason="tests only its count, and runs max_steps times"),
    Wrong("3. The model split over eight devices", "w0 split by rows, of which it has 2",
          """
          split = lambda *spec: NamedSharding(mesh, P(*spec))
          return {"w0": split("model", None), "b0": split(),
                  "w1": split("model", None), "b1": split(),
                  "w2": split(), "b2": split()}
          """, reason="placing the parameters so raised.*must be divisible by 8"),
]
