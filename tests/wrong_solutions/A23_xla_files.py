"""Wrong solutions to appendix A23's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. How many lanes?"
E2 = "2. Every operation of a computation"

# The book's walk over the computations, each wrong one below a change of one of its lines.
_WALK = r"""
comps, seen, todo, ops = computations(hlo), set(), [name], Counter()
while todo:
    current = todo.pop()
    if current in seen:
        continue
    seen.add(current)
    for _, opcode, rest in comps[current]:
        if opcode not in BOOKKEEPING:
            ops[opcode] += 1
        todo += re.findall(r"(?:calls|to_apply|condition|body)=%([\w.-]+)", rest)
return ops
"""

WRONG = [
    Wrong(E1, "any register counts, scalar instructions too",
          """
          most = 0
          for line in asm.splitlines():
              for r in re.findall(r"\\b([xyz])mm\\d+\\b", line):
                  most = max(most, {"x": 4, "y": 8, "z": 16}[r])
          return most
          """, reason="scalar single"),
    Wrong(E1, "ymmword ptr read as a ymm register",
          """
          most = 0
          for line in asm.splitlines():
              parts = line.split(None, 2)
              if len(parts) < 3 or parts[0].endswith(":"):
                  continue
              if parts[1].endswith("ps"):
                  for r in re.findall(r"\\b([xyz])mm", parts[2]):
                      most = max(most, {"x": 4, "y": 8, "z": 16}[r])
              elif parts[1].endswith("ss"):
                  most = max(most, 1)
          return most
          """, reason="memory operand"),
    Wrong(E1, "doubles counted as floats: any packed instruction",
          """
          most = 0
          for line in asm.splitlines():
              parts = line.split(None, 2)
              if len(parts) < 3 or parts[0].endswith(":"):
                  continue
              if parts[1].endswith(("ps", "pd")):
                  for r in re.findall(r"\\b([xyz])mm\\d+\\b", parts[2]):
                      most = max(most, {"x": 4, "y": 8, "z": 16}[r])
              elif parts[1].endswith(("ss", "sd")):
                  most = max(most, 1)
          return most
          """, reason="double precision"),
    Wrong(E1, "zmm forgotten: at most 8 lanes",
          """
          most = 0
          for line in asm.splitlines():
              parts = line.split(None, 2)
              if len(parts) < 3 or parts[0].endswith(":"):
                  continue
              if parts[1].endswith("ps"):
                  for r in re.findall(r"\\b([xy])mm\\d+\\b", parts[2]):
                      most = max(most, {"x": 4, "y": 8}[r])
              elif parts[1].endswith("ss"):
                  most = max(most, 1)
          return most
          """, reason="zmm"),

    Wrong(E2, "the computation's own operations only, not those it calls",
          """
          return Counter(opcode for _, opcode, _ in computations(hlo)[name]
                         if opcode not in BOOKKEEPING)
          """, reason="calls add_f32"),
    Wrong(E2, "a computation counted once per call",
          _WALK.replace("    if current in seen:\n        continue\n    seen.add(current)\n", ""),
          reason="counts once"),
    Wrong(E2, "only fusions followed: calls=, not to_apply=, condition= or body=",
          _WALK.replace("(?:calls|to_apply|condition|body)=", "calls="), reason="calls add_f32"),
    Wrong(E2, "parameters and constants counted as operations",
          _WALK.replace("        if opcode not in BOOKKEEPING:\n            ops[opcode] += 1",
                        "        ops[opcode] += 1"), reason="expected"),
]
