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
least = [c for c in common if common <= above(c)]
if not least:
    raise TypePromotionError(f"{a} and {b} have no common type")
return least[0]
"""

_STRICT = """
dtypes = [t for t in _lattice(x64=False) if not isinstance(t, str)]
of = lambda kinds: [d for d in dtypes if dtype_kind(d) in kinds]
return {"i*": ["f*", *of("iu")], "f*": ["c*", *of("f")], "c*": of("c"),
        **{d: [] for d in dtypes}}
"""

_PROMOTE = """
arrays, standard = [jnp.asarray(a) for a in args], _lattice(x64=False)
types = [_WEAK[dtype_kind(a.dtype)] if get_aval(a).weak_type else a.dtype for a in arrays]
top = functools.reduce(lambda a, b: join(a, b, standard), types)
weak, dtype = isinstance(top, str), _default(top) if isinstance(top, str) else top
dtype = dtype if dtype_kind(dtype) in "fc" else np.dtype("float32")
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

E1 = "1. A join, and the strict lattice"
E2 = "2. Inexact promotion, and hypot"

WRONG = [
    Wrong(E1, "the standard lattice: promotion as usual", (None, "return _lattice(x64=False)"),
          reason="should have no common type"),
    Wrong(E1, "the weak types apart: i* not below f*",
          (None, _STRICT.replace('"i*": ["f*", *of("iu")]', '"i*": of("iu")')),
          reason=r"i\* with f\* should give f\*"),
    Wrong(E1, "f* below the floats only, not c*",
          (None, _STRICT.replace('"f*": ["c*", *of("f")]', '"f*": of("f")')),
          reason=r"with c\* should give c\*"),
    Wrong(E1, "bool below i*, as in the standard lattice",
          (None, _STRICT.replace("**{d: [] for d in dtypes}",
                                 '**{d: [] for d in dtypes}, np.dtype("bool"): ["i*"]')),
          reason=r"bool with i\* should have no common type"),
    Wrong(E1, "the weak complex below the float dtypes too",
          (None, _STRICT.replace('"c*": of("c")', '"c*": of("fc")')),
          reason=r"with c\* should have no common type"),
    Wrong(E1, "None where there is no join, not an error",
          (_JOIN.replace('    raise TypePromotionError(f"{a} and {b} have no common type")',
                         "    return None"), None), reason="raise TypePromotionError"),
    Wrong(E1, "the nearest common upper bound, breadth first from a",
          ("""
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
          raise TypePromotionError("none")
          """, None), reason="not the nearest"),
    Wrong(E1, "the direct edges only, not every type reachable",
          ("""
          common = ({a, *lattice[a]}) & ({b, *lattice[b]})
          least = [c for c in common if common <= {c, *lattice[c]}]
          if not least:
              raise TypePromotionError("none")
          return least[0]
          """, None), reason="every type reachable"),
    Wrong(E1, "a type left out of its own upper bounds",
          (_JOIN.replace("seen, todo = {t}, [t]", "seen, todo = set(), [t]"), None),
          reason="its own upper bounds"),
    Wrong(E1, "the common bound with fewest bounds above: the greatest",
          (_JOIN.replace("least = [c for c in common if common <= above(c)]",
                         "least = sorted(common, key=lambda c: len(above(c)))"), None),
          reason="the join is the least common one"),
    Wrong(E1, "the chapter's upper bounds, not computed",
          ("""
          upper = _upper_bounds(lattice)
          common = upper[a] & upper[b]
          least = [c for c in common if common <= upper[c]]
          if not least:
              raise TypePromotionError("none")
          return least[0]
          """, None), reason="compute the upper bounds yourself"),
    Wrong(E2, "converted with asarray's dtype, which makes it strong",
          (_PROMOTE.replace("[lax.convert_element_type(a, dtype, weak_type=weak) for a in "
                                  "arrays]", "[jnp.asarray(a, dtype) for a in arrays]"), None),
          reason=r"promote_inexact\(2, 2\) should be weakly typed"),
    Wrong(E2, "integers to the narrowest float that holds them, as NumPy",
          (_PROMOTE.replace('else np.dtype("float32")',
                                  'else np.dtype("float16" if dtype.itemsize == 1 else '
                                  '"float32")'), None),
          reason="should give float32, got float16"),
    Wrong(E2, "weakly typed when any argument is",
          (_PROMOTE.replace("weak, dtype = isinstance(top, str),",
                                  "weak, dtype = builtins.any(get_aval(a).weak_type for a in "
                                  "arrays),"), None),
          reason="should be strongly typed"),
    Wrong(E2, "weak only when the join is f*",
          (_PROMOTE.replace("weak, dtype = isinstance(top, str),",
                                  'weak, dtype = top == "f*",'), None),
          reason=r"promote_inexact\(2, 2\) should be weakly typed"),
    Wrong(E2, "an array's type read without its weak type",
          (_PROMOTE.replace(
              "types = [_WEAK[dtype_kind(a.dtype)] if get_aval(a).weak_type else a.dtype "
              "for a in arrays]",
              "types = [_WEAK[dtype_kind(a.dtype)] if isinstance(b, (int, float, complex)) and "
              "not isinstance(b, bool) else a.dtype for a, b in zip(arrays, args)]"), None),
          reason=r"promote_inexact\(2, weak f32\[\]\) should be weakly"),
    Wrong(E2, "converted with astype, which drops the weak type",
          (_PROMOTE.replace("lax.convert_element_type(a, dtype, weak_type=weak)",
                                  "a.astype(dtype)"), None),
          reason=r"promote_inexact\(2, 2\) should be weakly typed"),
    Wrong(E2, "two arguments only: the join of the first two",
          (_PROMOTE.replace("types), types)", "types)").replace(
              "join(a, b, standard), types)", "join(a, b, standard), types[:2])"), None),
          reason="however many"),
    Wrong(E2, "complex numbers made float32, as other non-floats",
          (_PROMOTE.replace('in "fc" else', 'in "f" else'), None),
          reason="complex64"),
    Wrong(E2, "the formula as written: sqrt(x*x + y*y)",
          (None, """
          x, y = promote_inexact(x, y)
          return jnp.sqrt(x * x + y * y)
          """), reason="overflows"),
    Wrong(E2, "no special case for an infinite leg",
          (None, """
          x, y = (jnp.abs(v) for v in promote_inexact(x, y))
          big, small = jnp.maximum(x, y), jnp.minimum(x, y)
          ratio = small / jnp.where(big == 0, 1, big)
          return jnp.where(big == 0, 0, big * jnp.sqrt(1 + ratio * ratio))
          """), reason="should be inf"),
    Wrong(E2, "no abs: the legs' signs kept",
          (None, _HYPOT.replace("(jnp.abs(v) for v in promote_inexact(x, y))",
                                "promote_inexact(x, y)")), reason='only their magnitudes'),
    Wrong(E2, "inf for an infinite x only",
          (None, _HYPOT.replace("jnp.logical_or(jnp.isinf(x), jnp.isinf(y))", "jnp.isinf(x)")),
          reason='should be inf'),
    Wrong(E2, "inf as a float32 array, which is strong",
          (None, _HYPOT.replace("np.inf, out", "jnp.float32(np.inf), out")),
          reason='float16 and a Python float gave float32'),
    Wrong(E2, "divided by x, not by the larger leg",
          (None, """
          x, y = (jnp.abs(v) for v in promote_inexact(x, y))
          infinite = jnp.logical_or(jnp.isinf(x), jnp.isinf(y))
          ratio = y / jnp.where(x == 0, 1, x)
          out = jnp.where(x == 0, y, x * jnp.sqrt(1 + ratio * ratio))
          return jnp.where(infinite, np.inf, out)
          """), reason="whichever of x and y"),
]
