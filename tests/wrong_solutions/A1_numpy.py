"""Wrong solutions to appendix A1's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

_JOIN = """
def above(t):
    seen, todo = {t}, [t]
    while todo:
        for u in lattice[todo.pop()]:
            if u not in seen:
                seen.add(u)
                todo.append(u)
    return seen
common = above(a) & above(b)
return next(c for c in common if common <= above(c))
"""

_PROMOTE = """
arrays = [jnp.asarray(a) for a in args]
top = functools.reduce(join, [label(a.dtype, get_aval(a).weak_type) for a in arrays])
floats = {"f16": np.dtype("float16"), "f32": np.dtype("float32"), "f*": np.dtype("float32")}
dtype, weak = floats.get(top, np.dtype("float32")), top in ("i*", "f*")
return [lax.convert_element_type(a, dtype, weak_type=weak) for a in arrays]
"""

_HYPOT = """
x, y = (jnp.abs(v) for v in promote_inexact(x, y))
infinite = jnp.logical_or(jnp.isinf(x), jnp.isinf(y))
big, small = jnp.maximum(x, y), jnp.minimum(x, y)
ratio = small / jnp.where(big == 0, 1, big)
out = jnp.where(big == 0, 0, big * jnp.sqrt(1 + ratio * ratio))
return jnp.where(infinite, np.inf, out)
"""

WRONG = [
    Wrong("1. The lattice as a graph", "JAX's edges with the 64-bit types cut off: u32 to f*",
          ("""
          return {"bool": ["i*"], "i*": ["u8", "i8"], "u8": ["u16", "i16"], "u16": ["u32", "i32"],
                  "u32": ["f*"], "i8": ["i16"], "i16": ["i32"], "i32": ["f*"], "f*": ["f16"],
                  "f16": ["f32"], "f32": []}
          """, None), reason=r"join\('u32', 'i8'\) should be 'i32'"),
    Wrong("1. The lattice as a graph", "the weak integer below the unsigned types only",
          ("""
          return {"bool": ["i*"], "i*": ["u8"], "u8": ["u16", "i16", "i8"], "u16": ["u32", "i32"],
                  "u32": ["i32"], "i8": ["i16"], "i16": ["i32"], "i32": ["f*"], "f*": ["f16"],
                  "f16": ["f32"], "f32": []}
          """, None), reason=r"join\('u8', 'i8'\) should be 'i16'"),
    Wrong("1. The lattice as a graph", "the nearest common upper bound, breadth first from a",
          (None, """
          frontier, seen = [a], {a}
          while frontier:
              for t in frontier:
                  todo, reach = [b], {b}
                  while todo:
                      for u in lattice[todo.pop()]:
                          if u not in reach:
                              reach.add(u)
                              todo.append(u)
                  if t in reach:
                      return t
              frontier = [u for t in frontier for u in lattice[t] if u not in seen]
              seen.update(frontier)
          """), reason="not the nearest"),
    Wrong("1. The lattice as a graph", "the direct edges only, not every type reachable",
          (None, """
          common = ({a, *lattice[a]}) & ({b, *lattice[b]})
          return next((c for c in common if common <= {c, *lattice[c]}), None)
          """), reason="every type reachable"),
    Wrong("1. The lattice as a graph", "a type left out of its own upper bounds",
          (None, _JOIN.replace("seen, todo = {t}, [t]", "seen, todo = set(), [t]")),
          reason="its own upper bounds"),
    Wrong("2. Inexact promotion, and hypot",
          "converted with asarray's dtype, which makes it strong",
          ("""
          arrays = [jnp.asarray(a) for a in args]
          top = functools.reduce(join, [label(a.dtype, get_aval(a).weak_type) for a in arrays])
          dtype = {"f16": np.float16}.get(top, np.float32)
          return [jnp.asarray(a, dtype) for a in arrays]
          """, None), reason=r"promote_inexact\(2, 2\) should be weakly typed"),
    Wrong("2. Inexact promotion, and hypot",
          "integers to the narrowest float that holds them, as NumPy",
          (_PROMOTE.replace('floats.get(top, np.dtype("float32"))',
                            'floats.get(top, np.dtype("float16" if top in ("bool", "u8", "i8") '
                            'else "float32"))'), None),
          reason="should give float32, got float16"),
    Wrong("2. Inexact promotion, and hypot", "weakly typed when any argument is",
          (_PROMOTE.replace('top in ("i*", "f*")',
                            'builtins.any(get_aval(a).weak_type for a in arrays)'), None),
          reason="should be strongly typed"),
    Wrong("2. Inexact promotion, and hypot", "the formula as written: sqrt(x*x + y*y)",
          (None, """
          x, y = promote_inexact(x, y)
          return jnp.sqrt(x * x + y * y)
          """), reason="overflows"),
    Wrong("2. Inexact promotion, and hypot", "no special case for an infinite leg",
          (None, """
          x, y = (jnp.abs(v) for v in promote_inexact(x, y))
          big, small = jnp.maximum(x, y), jnp.minimum(x, y)
          ratio = small / jnp.where(big == 0, 1, big)
          return jnp.where(big == 0, 0, big * jnp.sqrt(1 + ratio * ratio))
          """), reason="should be inf"),
    Wrong("1. The lattice as a graph", "the common bound with fewest bounds above: the greatest",
          (None, _JOIN.replace("return next(c for c in common if common <= above(c))",
                               "return builtins.min(common, key=lambda c: len(above(c)))")),
          reason='the join is the least common one'),
    Wrong("1. The lattice as a graph", "f* above i* and below f32, not above i32",
          ("""
          return {"bool": ["i*"], "i*": ["u8", "i8", "f*"], "u8": ["u16", "i16"],
                  "u16": ["u32", "i32"], "u32": ["i32"], "i8": ["i16"], "i16": ["i32"],
                  "i32": ["f32"], "f*": ["f16"], "f16": ["f32"], "f32": []}
          """, None), reason=r"join\('u8', 'f16'\) should be 'f16'"),
    Wrong("1. The lattice as a graph", "the argument lattice ignored: always ours",
          (None, "lattice = our_lattice()\n" + _JOIN), reason="KeyError: 'a'"),
    Wrong("2. Inexact promotion, and hypot", "weak only when the join is f*",
          (_PROMOTE.replace('top in ("i*", "f*")', 'top == "f*"'), None),
          reason=r'promote_inexact\(2, 2\) should be weakly typed'),
    Wrong("2. Inexact promotion, and hypot", "an array's label read without its weak type",
          (_PROMOTE.replace("label(a.dtype, get_aval(a).weak_type) for a in arrays",
                            "label(a.dtype, isinstance(b, (bool, int, float))) "
                            "for a, b in zip(arrays, args)"), None),
          reason=r'promote_inexact\(2, weak f32\[\]\) should be weakly'),
    Wrong("2. Inexact promotion, and hypot", "converted with astype, which drops the weak type",
          (_PROMOTE.replace("lax.convert_element_type(a, dtype, weak_type=weak)",
                            "a.astype(dtype)"), None),
          reason=r'promote_inexact\(2, 2\) should be weakly typed'),
    Wrong("2. Inexact promotion, and hypot", "no abs: the legs' signs kept",
          (None, _HYPOT.replace("(jnp.abs(v) for v in promote_inexact(x, y))",
                                "promote_inexact(x, y)")), reason='only their magnitudes'),
    Wrong("2. Inexact promotion, and hypot", "inf for an infinite x only",
          (None, _HYPOT.replace("jnp.logical_or(jnp.isinf(x), jnp.isinf(y))", "jnp.isinf(x)")),
          reason='should be inf'),
    Wrong("2. Inexact promotion, and hypot", "inf as a float32 array, which is strong",
          (None, _HYPOT.replace("np.inf, out", "jnp.float32(np.inf), out")),
          reason='float16 and a Python float gave float32'),
    Wrong("2. Inexact promotion, and hypot", "two arguments only: the join of the first two",
          (_PROMOTE.replace("functools.reduce(join, [label(a.dtype, get_aval(a).weak_type) "
                            "for a in arrays])",
                            "functools.reduce(join, [label(a.dtype, get_aval(a).weak_type) "
                            "for a in arrays][:2])"),
           None), reason="however many"),
    Wrong("2. Inexact promotion, and hypot", "divided by x, not by the larger leg",
          (None, """
          x, y = (jnp.abs(v) for v in promote_inexact(x, y))
          infinite = jnp.logical_or(jnp.isinf(x), jnp.isinf(y))
          ratio = y / jnp.where(x == 0, 1, x)
          out = jnp.where(x == 0, y, x * jnp.sqrt(1 + ratio * ratio))
          return jnp.where(infinite, np.inf, out)
          """), reason="whichever of x and y"),
]
