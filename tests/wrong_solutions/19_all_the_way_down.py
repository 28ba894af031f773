"""Wrong solutions to chapter 19's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. Which values may share bytes?"
E2 = "2. Bytes through memory"

# The book's solutions in parts; each wrong one below changes one of their lines.
_LAST = """
position = {s.name: i for i, s in enumerate(steps)}
last = dict(position)
for i, s in enumerate(steps):
    for name in s.operands:
        last[name] = i
"""
_PAIRS = """
found = set()
for a in allocation.values:
    for b in allocation.values:
        if a.name < b.name and a.offset < b.offset + b.size and b.offset < a.offset + a.size:
            if max(position[a.name], position[b.name]) < min(last[a.name], last[b.name]):
                found.add(frozenset({a.name, b.name}))
return found
"""
_SIZES = """
size = {}
for a in allocations:
    for v in a.values:
        size[v.name] = size.get(v.name, 0) + v.size
"""
_TRAFFIC = """
return sum(size.get(s.name, 0) + sum(size.get(name, 0) for name in s.operands)
           for s in steps)
"""

WRONG = [
    Wrong(E1, "no writing in place: a value still live at the step that writes over it",
          _LAST + _PAIRS.replace("]) < min(last", "]) <= min(last"), reason="in place"),
    Wrong(E1, "bytes ignored: any two values live at once conflict",
          _LAST + """
          return {frozenset({a.name, b.name}) for a in allocation.values
                  for b in allocation.values
                  if a.name < b.name
                  and max(position[a.name], position[b.name]) < min(last[a.name], last[b.name])}
          """.replace("\n          ", "\n"), reason="different offsets"),
    Wrong(E1, "a value live until its FIRST reader, not its last",
          _LAST.replace("        last[name] = i", "        if name in position and last[name] == "
                        "position[name]:\n            last[name] = i") + _PAIRS,
          reason="LAST step that reads it"),
    Wrong(E1, "values that merely touch (one ends where the other starts) counted as sharing",
          _LAST + _PAIRS.replace("a.offset < b.offset + b.size and b.offset < a.offset + a.size",
                                 "a.offset <= b.offset + b.size and b.offset <= a.offset + a.size"),
          reason="different offsets"),

    Wrong(E2, "writes only: the results' bytes",
          _SIZES + "return sum(size.get(s.name, 0) for s in steps)", reason="reads p"),
    Wrong(E2, "an operand read twice by one step counted once",
          _SIZES + _TRAFFIC.replace("in s.operands", "in set(s.operands)"),
          reason="each time a step reads it"),
    Wrong(E2, "a tuple's values: the last one's size, not their sum",
          "size = {v.name: v.size for a in allocations for v in a.values}" + _TRAFFIC,
          reason="tuple's values add up"),
    Wrong(E2, "only the temporary allocation's values: the parameters read for free",
          """
          size = {}
          for a in allocations:
              if a.kind in ("preallocated-temp", "output"):
                  for v in a.values:
                      size[v.name] = size.get(v.name, 0) + v.size
          """.replace("\n          ", "\n") + _TRAFFIC, reason="reads p"),
]
