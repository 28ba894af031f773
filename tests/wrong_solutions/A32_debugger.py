"""Wrong solutions to appendix A32's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1, E2 = "1. A debugger that records", "2. A breakpoint only where a value is not finite"


WRONG = [
    Wrong(E1, "the outermost frame recorded, not the innermost", """
    log.append({name: np.asarray(value) for name, value in frames[-1].locals.items()
                if isinstance(value, jax.Array)})
    """, reason="innermost frame"),
    Wrong(E1, "the values kept as the debugger gets them, not as NumPy arrays", """
    log.append({name: value for name, value in frames[0].locals.items()
                if isinstance(value, jax.Array)})
    """, reason="NumPy array"),
    Wrong(E1, "every frame's arrays merged into one entry", """
    entry = {}
    for frame in frames:
        entry.update({name: np.asarray(value) for name, value in frame.locals.items()
                      if isinstance(value, jax.Array)})
    log.append(entry)
    """, reason="not n, an int, nor outer's w"),
    Wrong(E2, "a breakpoint whatever the values", """
    jax.debug.breakpoint(**kwargs)
    """, reason="no stop where every value is finite"),
    Wrong(E2, "NaN looked for, infinities forgotten", """
    def stop(x):
        jax.debug.breakpoint(**kwargs)
    jax.lax.cond(jnp.isnan(x).any(), stop, lambda x: None, x)
    """, reason="infinite value"),
    Wrong(E2, "a Python `if` on a traced value", """
    if not jnp.isfinite(x).all():
        jax.debug.breakpoint(**kwargs)
    """, reason="TracerBoolConversionError|concrete"),
]
