"""Wrong solutions to chapter 15's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1, E2, E3 = ("1. How many lines?", "2. A NumPy function with a derivative",
              "3. A callback that sees the whole batch")

RIGHT = {"jit, called twice": 2, "vmap over 3": 3, "grad": 1, "grad of checkpoint": 2,
         "vmap of cond": 3, "vmap of while_loop": 6, "grad of a scan of checkpointed steps": 6,
         "unused pure_callback, under jit": 0}


def predicts(**changes) -> str:
    """A predicted_lines body: the right answers but for `changes` (names with _ for spaces)."""
    said = dict(RIGHT)
    for key, value in changes.items():
        said[next(k for k in said if k.replace(",", "").replace(" ", "_") == key)] = value
    return f"return {said!r}"


TAP = """
    def host(value):
        callback(value)
        return ()
    return effectful_callback_lowering(ctx, host, [x], [], ordered={ordered})
    """

WRONG = [
    Wrong(E1, "jit prints when it traces, once", predicts(jit_called_twice=1),
          reason="'jit, called twice' \\(you said 1, it printed 2\\)"),
    Wrong(E1, "vmap prints the whole batch at once",
          predicts(vmap_over_3=1, vmap_of_cond=1, vmap_of_while_loop=2),
          reason="'vmap over 3' \\(you said 1"),
    Wrong(E1, "the recomputation of a checkpoint prints nothing",
          predicts(grad_of_checkpoint=1, grad_of_a_scan_of_checkpointed_steps=3),
          reason="'grad of checkpoint' \\(you said 1"),
    Wrong(E1, "under vmap each example runs only its own branch, and only its own iterations",
          predicts(vmap_of_cond=1, vmap_of_while_loop=3),
          reason="'vmap of cond' \\(you said 1.*'vmap of while_loop' \\(you said 3"),
    Wrong(E1, "a callback always runs, its result used or not",
          predicts(unused_pure_callback_under_jit=1),
          reason="'unused pure_callback, under jit' \\(you said 1, it printed 0\\)"),
    Wrong(E2, "the package's determinant, no callback",
          ("return jnp.linalg.det(m)", None), reason="called the package's"),
    Wrong(E2, "a vmap_method that loops over the batch",
          ("""
           return jax.pure_callback(lambda a: np.linalg.det(a).astype(a.dtype),
                                    jax.ShapeDtypeStruct(m.shape[:-2], m.dtype), m,
                                    vmap_method="sequential")
           """, None), reason="once per matrix"),
    Wrong(E2, "the trace of the tangent, without the inverse",
          (None, """
           d = det(m)
           return d, d * jnp.trace(dm)
           """), reason="the tangent along da should be"),
    Wrong(E2, "the inverse multiplied elementwise: tr(A⁻ᵀ dA), not tr(A⁻¹ dA)",
          (None, """
           d = det(m)
           return d, d * jnp.sum(jnp.linalg.inv(m) * dm)
           """), reason="the tangent along da should be"),
    Wrong(E2, "the inverse in the rule computed by a callback that cannot be batched",
          (None, """
           d = det(m)
           inv = jax.pure_callback(np.linalg.inv, jax.ShapeDtypeStruct(m.shape, m.dtype), m)
           return d, d * jnp.trace(inv @ dm)
           """), reason="vmap of grad of det failed"),
    Wrong(E3, "batched as debug.callback is, once per example",
          (None, None, """
           x = moveaxis(x, d, 0)
           for i in range(x.shape[0]):
               tap_p.bind(x[i], callback=callback)
           return [], []
           """, None), reason="f ran 4 times: it should run once"),
    Wrong(E3, "the batch handed over where it lies, not moved to the front",
          (None, None, """
           tap_p.bind(x, callback=callback)
           return [], []
           """, None), reason="batch dimension first; f got shape \\(3, 4\\)"),
    Wrong(E3, "an effect, but not ordered", (None, None, None, TAP.format(ordered=False)),
          reason="not the program's order"),
    Wrong(E3, "lowered as a pure callback, with no side effect",
          (None, None, None, """
           from autodidax.callbacks import emit_python_callback

           def host(value):
               callback(value)
               return ()
           return emit_python_callback(ctx, host, None, [x], [], has_side_effect=False)[0]
           """), reason="called f 0 times, not 4"),
    Wrong(E3, "no tap in the JVP rule: an effect has no derivative",
          (None, "return [], []", None, None), reason="under grad f should run once"),
    Wrong(E2, "a finite difference in the rule, not Jacobi's formula",
          (None, """
           d = det(m)
           eps = 1e-3
           return d, (det(m + eps * dm) - d) / eps
           """), reason="the tangent along da should be"),
    Wrong(E3, "moveaxis with its axes swapped: right only for batch axes 0 and 1",
          (None, None, """
           tap_p.bind(moveaxis(x, 0, d), callback=callback)
           return [], []
           """, None), reason="vmap over axis 2 .* f got shapes \\[\\(3, 4, 2\\)\\]"),
    Wrong(E3, "swapaxes, not moveaxis: right only for batch axes 0 and 1",
          (None, None, """
           tap_p.bind(jnp.swapaxes(x, 0, d), callback=callback)
           return [], []
           """, None), reason="vmap over axis 2 .* f got shapes \\[\\(4, 3, 2\\)\\]"),
    Wrong(E3, "the callback given the package's array eagerly, a NumPy one under jit",
          ("""
           callback(jnp.asarray(x))
           return []
           """, None, None, None), reason="eagerly f was given a .*: give it a NumPy array"),
]
WRONG += [
    Wrong(E3, "the JVP rule taps the primal and the tangent",
          (None, """
           tap_p.bind(primals[0], callback=callback)
           tap_p.bind(tangents[0], callback=callback)
           return [], []
           """, None, None), reason="under jvp f should run once, with the primal x"),
    Wrong(E3, "the batching rule calls f itself rather than binding tap_p: right eagerly only",
          (None, None, """
           callback(np.asarray(moveaxis(x, d, 0)))
           return [], []
           """, None), reason="TracerArrayConversionError"),
    Wrong(E2, "the package's determinant in the rule, NumPy's in the value",
          (None, """
           d = jnp.linalg.det(m)
           return d, d * jnp.trace(jnp.linalg.solve(m, dm))
           """), reason="det called the package's"),
]
