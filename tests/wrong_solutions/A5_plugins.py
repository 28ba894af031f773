"""Wrong solutions to appendix A5's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

# Exercise 1's book solution, with pieces changed.
START = """
if platforms:
    names = platforms.split(",")
    plan = PLAN
else:
    plan = [(name, priority, quietly)
            for name, (_, priority, quietly) in registrations.items()]
started, errors, default, best = {}, {}, None, None
for name, priority, quietly in plan:
    try:
        if name not in registrations:
            raise RuntimeError(f"Backend '{name}' is not in the list of known backends: "
                               f"{list(registrations)}.")
        client = registrations[name][0]()
        if client is None:
            raise RuntimeError(f"Could not initialize backend '{name}'")
    except Exception as e:
        if QUIETLY:
            errors[name] = str(e)
            continue
        raise RuntimeError(f"Unable to initialize backend '{name}': {e}") from e
    started[name] = client
    if best is None or BETTER:
        default, best = name, priority
return started, default, errors
"""


def start(plan="[(name, len(names) - i, False) for i, name in enumerate(names)]",
          quietly="quietly", better="priority > best"):
    return START.replace("PLAN", plan).replace("QUIETLY", quietly).replace("BETTER", better)


# Exercise 2: a depth-first walk, with pieces changed.
WALK = """
order, seen = [], set()

def visit(lib):
    if lib in seen:
        return
    seen.add(lib)
    for other in needs[lib]:
        if other in needs:
            visit(other)
    order.append(lib)

for lib in needs:
    visit(lib)
return order
"""

WRONG = [
    Wrong("1. Starting the backends, as JAX does", "the default chosen among all registered",
          """
          started, errors = {}, {}
          for name, (make, priority, quietly) in registrations.items():
              if platforms and name not in platforms.split(","):
                  continue
              try:
                  client = make()
                  if client is None:
                      raise RuntimeError(f"Could not initialize backend '{name}'")
              except Exception as e:
                  if quietly and not platforms:
                      errors[name] = str(e)
                      continue
                  raise RuntimeError(f"Unable to initialize backend '{name}': {e}") from e
              started[name] = client
          default = max(registrations, key=lambda name: registrations[name][1])
          return started, default, errors
          """, reason="where CUDA fails, the default is .* the CPU, not 'cuda'"),
    Wrong("1. Starting the backends, as JAX does", "JAX_PLATFORMS keeps the registered priorities",
          start(plan="[(name, registrations[name][1] if name in registrations else 0, False) "
                     "for name in names]"),
          reason="the first named is the default: got 'cuda'"),
    Wrong("1. Starting the backends, as JAX does", "JAX_PLATFORMS ignored",
          start(plan="[(name, priority, quietly) "
                     "for name, (_, priority, quietly) in registrations.items()]"),
          reason="only those are tried, in that order: you tried \\['cpu', 'tpu'"),
    Wrong("1. Starting the backends, as JAX does", "every failure quiet",
          start(quietly="True"), reason="should raise RuntimeError"),
    Wrong("1. Starting the backends, as JAX does", "between equal priorities, the last one",
          start(better="priority >= best"), reason="the backend tried first, 'a', not 'b'"),
    Wrong("2. The order to load them in", "the libraries in the order given",
          """
          return list(needs)
          """, reason="loading in your order failed: libcublas.so.12: cannot open .*libcusolver"),
    Wrong("2. The order to load them in", "the fewest needs first",
          """
          return sorted(needs, key=lambda lib: len(needs[lib]))
          """, reason="loading in your order failed: libcublasLt.so.12: cannot open .*libcublas"),
    Wrong("2. The order to load them in", "each library before the ones it needs",
          WALK.replace("""    seen.add(lib)
    for other in needs[lib]:
        if other in needs:
            visit(other)
    order.append(lib)""", """    seen.add(lib)
    order.append(lib)
    for other in needs[lib]:
        if other in needs:
            visit(other)"""), reason="loading in your order failed"),
    Wrong("2. The order to load them in", "no record of the libraries already placed",
          """
          order = []

          def visit(lib):
              for other in needs[lib]:
                  if other in needs:
                      visit(other)
              order.append(lib)

          for lib in needs:
              visit(lib)
          return order
          """, reason="more than once"),
    Wrong("2. The order to load them in", "a library marked seen on entry, so a cycle goes unseen",
          WALK, reason="need each other: no order loads them"),
    Wrong("1. Starting the backends, as JAX does", "the backends tried by priority, highest first",
          start().replace("started, errors, default, best = {}, {}, None, None",
                          "plan = sorted(plan, key=lambda p: -p[1])\n"
                          "started, errors, default, best = {}, {}, None, None"),
          reason="in the order registered, .*you tried \\['cuda', 'rocm', 'tpu', 'cpu'\\]"),
    Wrong("2. The order to load them in",
          "Kahn's algorithm, naming all that is left, the cycle and what needs it",
          """
          remaining = {lib: {n for n in deps if n in needs} for lib, deps in needs.items()}
          order = []
          while remaining:
              ready = [lib for lib, deps in remaining.items() if not deps]
              if not ready:
                  raise ValueError(f"these libraries need each other: {sorted(remaining)}")
              for lib in ready:
                  order.append(lib)
                  del remaining[lib]
              for deps in remaining.values():
                  deps.difference_update(ready)
          return order
          """, reason="libz.so needs liba.so but is not in the cycle"),
    Wrong("1. Starting the backends, as JAX does", "only a RuntimeError caught",
          start().replace("except Exception as e:", "except RuntimeError as e:"),
          reason="raised OSError.*let it through: a factory that raises any exception"),
    Wrong("1. Starting the backends, as JAX does", "a factory's None always taken quietly",
          start().replace("""        if client is None:
            raise RuntimeError(f"Could not initialize backend '{name}'")
""", """        if client is None:
            errors[name] = f"Could not initialize backend '{name}'"
            continue
"""), reason="does not fail quietly and whose factory returns None should raise"),
    Wrong("2. The order to load them in", "the whole path named, not only the cycle", """
          order, state = [], {}

          def visit(lib, path):
              if state.get(lib) == "done":
                  return
              if state.get(lib) == "visiting":
                  raise ValueError(f"these libraries need each other: {path + [lib]}")
              state[lib] = "visiting"
              for other in needs[lib]:
                  if other in needs:
                      visit(other, path + [lib])
              state[lib] = "done"
              order.append(lib)

          for lib in needs:
              visit(lib, [])
          return order
          """, reason="libz.so needs liba.so but is not in the cycle"),
]
