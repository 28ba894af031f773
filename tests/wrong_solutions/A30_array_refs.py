"""Wrong solutions to appendix A30's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1, E2 = "1. The discharge rule of addupdate", "2. The JVP rule of get"

WRONG = [
    Wrong(E1, "a set, not an add", """
          ref, value, *operands = args
          store[ref] = refs.write(store[ref], value, params["indexer"], operands)
          return []
          """, reason="add the value at the index"),
    Wrong(E1, "the new value computed but not stored", """
          ref, value, *operands = args
          refs.write(store[ref], value, params["indexer"], operands, add=True)
          return []
          """, reason="add the value at the index"),
    Wrong(E1, "the whole value increased, the index ignored", """
          ref, value, *operands = args
          store[ref] = store[ref] + value.sum()
          return []
          """, reason="add the value at the index"),
    Wrong(E2, "the whole tangent, not read at the index", """
          ref, *operands = primals
          out = refs.get_p.bind(ref, *operands, indexer=indexer)
          if type(tangents[0]) is Zero:
              return out, Zero(refs._tangent_aval(out))
          t = tangents[0].value
          return out, jnp.broadcast_to(t.sum(), out.shape)
          """, reason="read at the same index"),
    Wrong(E2, "a zero tangent always", """
          ref, *operands = primals
          out = refs.get_p.bind(ref, *operands, indexer=indexer)
          return out, Zero(refs._tangent_aval(out))
          """, reason="read at the same index"),
]
