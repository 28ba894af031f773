"""Checks of appendix A16's exercises (chapters/A16_tree_util_text.md): each takes the notebook's
namespace."""
from autodidax.tree_util import NodeType, node_types, tree_structure


def check_structure_str(nb):
    """1. `structure_str`: a structure of tuples, lists, dicts and None, as JAX prints it."""
    structure_str = nb["structure_str"]
    cases = [(1, "a leaf"), (None, "None"), ((), "an empty tuple"), ((1,), "a one-element tuple"),
             ((1, [2, None]), "a tuple and a list"),
             ({"b": 1, "a": (2, 3)}, "a dict's keys, in repr"),
             ({1: [], 2: {}}, "a dict's keys, in repr, not strings"),
             ([[(1,)], {"k": None}], "nested containers")]
    for tree, what in cases:
        t = tree_structure(tree)
        want = repr(t)[len("PyTreeDef("):-1]
        got = structure_str(t)
        assert got == want, f"the structure of {tree!r} ({what}): expected {want!r}, got {got!r}"


class Box:
    pass


def check_describe_node(nb):
    """2. `describe_node`: a node as a mismatch names it."""
    describe_node = nb["describe_node"]
    box = NodeType(Box, lambda b: ((), None), lambda aux, children: Box())
    cases = [(node_types[dict], ("a", "b"), 2, "a dict with keys ['a', 'b']", "a dict's keys"),
             (node_types[type(None)], None, 0, "None", "None"),
             (node_types[tuple], None, 1, "a tuple of 1 child", "a tuple of one child"),
             (node_types[list], None, 3, "a list of 3 children", "a list, with no aux data"),
             (node_types[tuple], None, 0, "a tuple of 0 children", "no children"),
             (box, "x", 2, "a Box of 2 children and aux data 'x'", "a custom node's aux data"),
             (box, ("y", 1), 1, "a Box of 1 child and aux data ('y', 1)",
              "a custom node of one child")]
    for node_type, data, n, want, what in cases:
        got = describe_node(node_type, data, n)
        assert got == want, (f"describe_node({node_type.type.__name__}, {data!r}, {n}) ({what}): "
                             f"expected {want!r}, got {got!r}")
