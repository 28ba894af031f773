"""Wrong solutions to appendix A25's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1, E2 = "1. Bytes, without the arrays", "2. A gradient clipped where it passes"

WRONG = [
    Wrong(E1, "the function run, its outputs measured", """
          outs = jax.tree_util.tree_leaves(fun(*args))
          return sum(o.size * o.dtype.itemsize for o in outs)
          """, reason="cannot be|ran the function|ShapeDtypeStruct|not a valid"),
    Wrong(E1, "every output counted as float32", """
          outs = jax.tree_util.tree_leaves(eval_shape(fun, *args))
          return sum(int(np.prod(o.shape)) * 4 for o in outs)
          """, reason="each with its own dtype's itemsize"),
    Wrong(E1, "the first output only", """
          out = jax.tree_util.tree_leaves(eval_shape(fun, *args))[0]
          return int(np.prod(out.shape)) * np.dtype(out.dtype).itemsize
          """, reason="every leaf"),
    Wrong(E1, "elements counted, not bytes", """
          outs = jax.tree_util.tree_leaves(eval_shape(fun, *args))
          return sum(int(np.prod(o.shape)) for o in outs)
          """, reason="holds 48 bytes"),
    Wrong(E2, "the value clipped, not the cotangent", """
          @custom_gradient
          def clip(x):
              return jnp.clip(x, lo, hi), lambda t: (t,)
          return clip
          """, reason="should be x itself"),
    Wrong(E2, "the cotangent scaled into range, not clipped", """
          @custom_gradient
          def clip(x):
              return x, lambda t: (t / jnp.maximum(1.0, jnp.abs(t)),)
          return clip
          """, reason="the bounds are the arguments|clipped to"),
    Wrong(E2, "bounds fixed at -1 and 1", """
          @custom_gradient
          def clip(x):
              return x, lambda t: (jnp.clip(t, -1.0, 1.0),)
          return clip
          """, reason="the bounds are the arguments lo and hi"),
]
