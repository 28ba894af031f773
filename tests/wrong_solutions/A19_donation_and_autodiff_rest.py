"""Wrong solutions to appendix A19's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. Which output takes each donated buffer"
E2 = "2. concatenate's transpose, with slices"

WRONG = [
    Wrong(E1, "matches the shape only, not the dtype",
          """
          aliases, taken = [None] * len(in_avals), set()
          for j, out in enumerate(out_avals):
              for i, (aval, d) in enumerate(zip(in_avals, donated)):
                  if d and i not in taken and aval.shape == out.shape:
                      aliases[i] = j
                      taken.add(i)
                      break
          return aliases
          """, reason="the dtype must match"),
    Wrong(E1, "lets one input serve several outputs: the last one wins",
          """
          aliases = [None] * len(in_avals)
          for j, out in enumerate(out_avals):
              for i, (aval, d) in enumerate(zip(in_avals, donated)):
                  if d and (aval.shape, aval.dtype) == (out.shape, out.dtype):
                      aliases[i] = j
                      break
          return aliases
          """, reason="an input serves one output at most"),
    Wrong(E1, "forgets that only donated inputs can be aliased",
          """
          aliases, taken = [None] * len(in_avals), set()
          for j, out in enumerate(out_avals):
              for i, aval in enumerate(in_avals):
                  if i not in taken and (aval.shape, aval.dtype) == (out.shape, out.dtype):
                      aliases[i] = j
                      taken.add(i)
                      break
          return aliases
          """, reason="not donated is never aliased"),
    Wrong(E2, "cuts every piece from the start of the dimension",
          """
          shape, out = get_aval(ct).shape, []
          for x in xs:
              n = (x.aval if is_linear(x) else get_aval(x)).shape[dimension]
              starts, limits = [0] * len(shape), list(shape)
              limits[dimension] = n
              out.append(lax.slice(ct, starts, limits) if is_linear(x) else None)
          return out
          """, reason="the piece of ct where it was"),
    Wrong(E2, "gives a cotangent to the constant operands too",
          """
          shape, out, start = get_aval(ct).shape, [], 0
          for x in xs:
              n = (x.aval if is_linear(x) else get_aval(x)).shape[dimension]
              starts, limits = [0] * len(shape), list(shape)
              starts[dimension], limits[dimension] = start, start + n
              out.append(lax.slice(ct, starts, limits))
              start += n
          return out
          """, reason="is not linear, its cotangent should be None"),
    Wrong(E2, "skips the constant operands' room, so the later pieces shift",
          """
          shape, out, start = get_aval(ct).shape, [], 0
          for x in xs:
              if not is_linear(x):
                  out.append(None)
                  continue
              n = x.aval.shape[dimension]
              starts, limits = [0] * len(shape), list(shape)
              starts[dimension], limits[dimension] = start, start + n
              out.append(lax.slice(ct, starts, limits))
              start += n
          return out
          """, reason="the piece of ct where it was"),
]
