"""Wrong solutions to chapter 19's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. Which values may share bytes?"
E2 = "2. Bytes through memory"

WRONG = [
    Wrong(E1, "no writing in place: a value still live at the step that writes over it",
          """
          position = {s.name: i for i, s in enumerate(steps)}
          last = dict(position)
          for i, s in enumerate(steps):
              for name in s.operands:
                  last[name] = i
          found = set()
          for a in allocation.values:
              for b in allocation.values:
                  if a.name < b.name and a.offset < b.offset + b.size \\
                          and b.offset < a.offset + a.size \\
                          and max(position[a.name], position[b.name]) \\
                          <= min(last[a.name], last[b.name]):
                      found.add(frozenset({a.name, b.name}))
          return found
          """, reason="in place"),
    Wrong(E1, "bytes ignored: any two values live at once conflict",
          """
          position = {s.name: i for i, s in enumerate(steps)}
          last = dict(position)
          for i, s in enumerate(steps):
              for name in s.operands:
                  last[name] = i
          return {frozenset({a.name, b.name}) for a in allocation.values
                  for b in allocation.values
                  if a.name < b.name
                  and max(position[a.name], position[b.name]) < min(last[a.name], last[b.name])}
          """, reason="different offsets"),
    Wrong(E1, "a value live until its FIRST reader, not its last",
          """
          position = {s.name: i for i, s in enumerate(steps)}
          last = dict(position)
          for i, s in enumerate(steps):
              for name in s.operands:
                  if name in position and last[name] == position[name]:
                      last[name] = i
          found = set()
          for a in allocation.values:
              for b in allocation.values:
                  if a.name < b.name and a.offset < b.offset + b.size \\
                          and b.offset < a.offset + a.size \\
                          and max(position[a.name], position[b.name]) \\
                          < min(last[a.name], last[b.name]):
                      found.add(frozenset({a.name, b.name}))
          return found
          """, reason="LAST step that reads it"),
    Wrong(E1, "values that merely touch (one ends where the other starts) counted as sharing",
          """
          position = {s.name: i for i, s in enumerate(steps)}
          last = dict(position)
          for i, s in enumerate(steps):
              for name in s.operands:
                  last[name] = i
          found = set()
          for a in allocation.values:
              for b in allocation.values:
                  if a.name < b.name and a.offset <= b.offset + b.size \\
                          and b.offset <= a.offset + a.size \\
                          and max(position[a.name], position[b.name]) \\
                          < min(last[a.name], last[b.name]):
                      found.add(frozenset({a.name, b.name}))
          return found
          """, reason="different offsets"),

    Wrong(E2, "writes only: the results' bytes",
          """
          size = {}
          for a in allocations:
              for v in a.values:
                  size[v.name] = size.get(v.name, 0) + v.size
          return sum(size.get(s.name, 0) for s in steps)
          """, reason="reads p"),
    Wrong(E2, "an operand read twice by one step counted once",
          """
          size = {}
          for a in allocations:
              for v in a.values:
                  size[v.name] = size.get(v.name, 0) + v.size
          return sum(size.get(s.name, 0) + sum(size.get(name, 0) for name in set(s.operands))
                     for s in steps)
          """, reason="each time a step reads it"),
    Wrong(E2, "a tuple's values: the last one's size, not their sum",
          """
          size = {v.name: v.size for a in allocations for v in a.values}
          return sum(size.get(s.name, 0) + sum(size.get(name, 0) for name in s.operands)
                     for s in steps)
          """, reason="tuple's values add up"),
    Wrong(E2, "only the temporary allocation's values: the parameters read for free",
          """
          size = {}
          for a in allocations:
              if a.kind in ("preallocated-temp", "output"):
                  for v in a.values:
                      size[v.name] = size.get(v.name, 0) + v.size
          return sum(size.get(s.name, 0) + sum(size.get(name, 0) for name in s.operands)
                     for s in steps)
          """, reason="reads p"),
]
