"""Wrong solutions to appendix A16's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. A structure as JAX prints it"
E2 = "2. A node, named"

WRONG = [
    Wrong(E1, "a one-element tuple without its comma",
          """
          if t.node_type is None:
              return "*"
          kids = [structure_str(c) for c in t.child_treedefs]
          kind = t.node_type.type
          if kind is tuple:
              return f"({', '.join(kids)})"
          if kind is list:
              return f"[{', '.join(kids)}]"
          if kind is dict:
              return "{" + ", ".join(f"{k!r}: {s}" for k, s in zip(t.node_data, kids)) + "}"
          return "None"
          """, reason="a one-element tuple"),
    Wrong(E1, "a dict's keys by str, not repr",
          """
          if t.node_type is None:
              return "*"
          kids = [structure_str(c) for c in t.child_treedefs]
          kind = t.node_type.type
          if kind is tuple:
              return f"({kids[0]},)" if len(kids) == 1 else f"({', '.join(kids)})"
          if kind is list:
              return f"[{', '.join(kids)}]"
          if kind is dict:
              return "{" + ", ".join(f"{k}: {s}" for k, s in zip(t.node_data, kids)) + "}"
          return "None"
          """, reason="a dict's keys, in repr"),
    Wrong(E1, "None printed as a leaf",
          """
          if t.node_type is None or t.node_type.type is type(None):
              return "*"
          kids = [structure_str(c) for c in t.child_treedefs]
          kind = t.node_type.type
          if kind is tuple:
              return f"({kids[0]},)" if len(kids) == 1 else f"({', '.join(kids)})"
          if kind is list:
              return f"[{', '.join(kids)}]"
          return "{" + ", ".join(f"{k!r}: {s}" for k, s in zip(t.node_data, kids)) + "}"
          """, reason=r"\(None\)"),

    Wrong(E2, "always 'children', even for one",
          """
          kind = node_type.type
          if kind is dict:
              return f"a dict with keys {list(node_data)}"
          if kind is type(None):
              return "None"
          data = "" if kind in (tuple, list) else f" and aux data {node_data!r}"
          return f"a {kind.__name__} of {n} children{data}"
          """, reason="a tuple of one child"),
    Wrong(E2, "aux data named for tuples and lists too",
          """
          kind = node_type.type
          if kind is dict:
              return f"a dict with keys {list(node_data)}"
          if kind is type(None):
              return "None"
          children = f"{n} child" if n == 1 else f"{n} children"
          return f"a {kind.__name__} of {children} and aux data {node_data!r}"
          """, reason="a tuple of one child"),
    Wrong(E2, "the aux data by str, not repr",
          """
          kind = node_type.type
          if kind is dict:
              return f"a dict with keys {list(node_data)}"
          if kind is type(None):
              return "None"
          children = f"{n} child" if n == 1 else f"{n} children"
          data = "" if kind in (tuple, list) else f" and aux data {node_data}"
          return f"a {kind.__name__} of {children}{data}"
          """, reason="a custom node's aux data"),
]
