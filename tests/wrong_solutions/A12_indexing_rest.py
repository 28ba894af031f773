"""Wrong solutions to appendix A12's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. One index, known when tracing"
E2 = "2. A strided slice of one axis"

WRONG = [
    Wrong(E1, "a dynamic_slice, as if the index were traced",
          """
          out = lax.dynamic_slice_in_dim(operand, index % operand.shape[axis], 1, axis)
          return out if keepdims else lax.squeeze(out, (axis,))
          """, reason="needs no dynamic_slice"),
    Wrong(E1, "a negative index not counted from the end",
          """
          start = [0] * operand.ndim
          limit = list(operand.shape)
          start[axis], limit[axis] = max(index, 0), max(index, 0) + 1
          out = lax.slice(operand, start, limit, [1] * operand.ndim)
          return out if keepdims else lax.squeeze(out, (axis,))
          """, reason="index_in_dim\\(x, -1"),
    Wrong(E1, "keepdims ignored",
          """
          index = index % operand.shape[axis]
          start = [0] * operand.ndim
          limit = list(operand.shape)
          start[axis], limit[axis] = index, index + 1
          return lax.slice(operand, start, limit, [1] * operand.ndim)
          """, reason="keepdims=False drops the axis"),
    Wrong(E1, "an index out of range wrapped around",
          """
          index = index % operand.shape[axis]
          start = [0] * operand.ndim
          limit = list(operand.shape)
          start[axis], limit[axis] = index, index + 1
          out = lax.slice(operand, start, limit, [1] * operand.ndim)
          return out if keepdims else lax.squeeze(out, (axis,))
          """, reason="should raise IndexError"),
    Wrong(E2, "the stride left out",
          """
          size = operand.shape[axis]
          start_index = 0 if start_index is None else start_index
          limit_index = size if limit_index is None else limit_index
          start_index += size if start_index < 0 else 0
          limit_index += size if limit_index < 0 else 0
          start, limit = [0] * operand.ndim, list(operand.shape)
          start[axis], limit[axis] = start_index, limit_index
          return lax.slice(operand, start, limit)
          """, reason="strides should be"),
    Wrong(E2, "a limit of None taken as 0",
          """
          size = operand.shape[axis]
          start_index = start_index or 0
          limit_index = limit_index or 0
          start_index += size if start_index < 0 else 0
          limit_index += size if limit_index <= 0 else 0
          start, limit, strides = [0] * operand.ndim, list(operand.shape), [1] * operand.ndim
          start[axis], limit[axis], strides[axis] = start_index, limit_index, stride
          return lax.slice(operand, start, limit, strides)
          """, reason="slice_in_dim\\(x, 0, 0,"),
    Wrong(E2, "a gather, from x[...]",
          """
          index = [slice(None)] * operand.ndim
          index[axis] = slice(start_index, limit_index, stride)
          return jnp.asarray(operand)[tuple(index)]
          """, reason="as JAX's"),
]
