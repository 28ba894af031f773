"""Checks of chapter 2's exercises (chapters/02_pytrees.md): each takes the notebook's namespace."""
import sys

import numpy as np

from book.exercises import watch


def check_register_params(nb):
    """1. A node whose structure is its names: `register_params` registers `Params` with keys."""
    Params, node_types, register_params = nb["Params"], nb["node_types"], nb["register_params"]
    tree_flatten, tree_structure, tree_unflatten = (nb["tree_flatten"], nb["tree_structure"],
                                                    nb["tree_unflatten"])
    keystr, tree_leaves_with_path = nb["keystr"], nb["tree_leaves_with_path"]
    if Params not in node_types:  # a type can be registered only once
        register_params()
    w, b = np.ones((2, 3)), np.zeros(3)
    p = Params({"w": w, "b": b}, frozen={"b"})
    leaves, treedef = tree_flatten(p)
    assert len(leaves) == 2 and leaves[0] is b and leaves[1] is w, \
        "the leaves of Params({'w': w, 'b': b}) should be b, then w: the arrays in the sorted " \
        "order of their names"
    try:
        same = tree_structure(Params({"b": b + 1, "w": w + 1}, frozen={"b"})) == treedef
    except Exception as e:
        raise AssertionError(f"comparing the structures of two Params raised "
                             f"{type(e).__name__}: {e}. Keep the arrays out of the aux data")
    assert same, "Params with the same names and frozen set, but other arrays in a dict built " \
        "in another order, should have the same structure"
    assert tree_structure(Params({"w": w, "b": b})) != treedef, \
        "the frozen set is part of the structure: Params frozen={'b'} and frozen=() should differ"
    q = tree_unflatten(treedef, [10, 20])
    assert isinstance(q, Params) and q.arrays == {"b": 10, "w": 20} and q.frozen == {"b"}, \
        f"unflattening that structure with the leaves 10, 20 should give " \
        f"Params({{'b': 10, 'w': 20}}, frozen=['b']), got {q!r}"
    paths = [keystr(path) for path, _ in tree_leaves_with_path({"layer": p})]
    assert paths == ["['layer']['b']", "['layer']['w']"], \
        f"the key paths of {{'layer': p}} should be ['layer']['b'] and ['layer']['w'], got {paths}"


def check_postorder(nb):
    """2. A tree definition, flat: `postorder` lists the nodes, each after its children."""
    postorder, tree_structure, node_types = nb["postorder"], nb["tree_structure"], nb["node_types"]
    Point, Dense = nb["Point"], nb["Dense"]
    leaf = (None, 0, None)
    point = tree_structure(Point(0, 0)).node_type
    cases = [((1, {"a": 2, "b": [3, None]}),
              [leaf, leaf, leaf, (node_types[type(None)], 0, None), (node_types[list], 2, None),
               (node_types[dict], 2, ("a", "b")), (node_types[tuple], 2, None)]),
             ([Dense(1.0, 2.0, "tanh"), Point(3, (4,))],
              [leaf, leaf, (node_types[Dense], 2, "tanh"), leaf, leaf, (node_types[tuple], 1, None),
               (point, 2, None), (node_types[list], 2, None)]),
             ((), [(node_types[tuple], 0, None)]),
             (5.0, [leaf])]
    for tree, want in cases:
        treedef = tree_structure(tree)
        got = postorder(treedef)
        assert isinstance(got, list), f"postorder should return a list, got {type(got).__name__}"
        assert len(got) == treedef.num_nodes, \
            f"{tree} has {treedef.num_nodes} nodes, leaves included, so {treedef.num_nodes} " \
            f"entries; got {len(got)}: {got}"
        if got != want and sorted(map(repr, got)) == sorted(map(repr, want)):
            raise AssertionError(f"for {tree}, the right entries in the wrong order: {got}; "
                                 f"post-order is {want}, each node after its children")
        assert got == want, f"for {tree}, the nodes in post-order are {want}, got {got}"


def check_unflatten_postorder(nb):
    """3. Unflattening with a stack: `unflatten_postorder` rebuilds a tree in a loop."""
    unflatten_postorder, postorder = nb["unflatten_postorder"], nb["postorder"]
    tree_structure, tree_unflatten, tree_flatten = (nb["tree_structure"], nb["tree_unflatten"],
                                                    nb["tree_flatten"])
    _unflatten, node_types, Point, Dense = (nb["_unflatten"], nb["node_types"], nb["Point"],
                                            nb["Dense"])
    trees = [(1, {"a": 2, "b": [3, None]}), [Dense(1.0, 2.0, "tanh"), Point(3, (4,))],
             {"x": (), "y": [[5], 6]}, 7]
    for tree in trees:
        treedef = tree_structure(tree)
        new = [f"leaf{i}" for i in range(treedef.num_leaves)]
        want = tree_unflatten(treedef, new)
        given = list(new)
        with watch(tree_unflatten, _unflatten) as seen:
            try:
                got = unflatten_postorder(postorder(treedef), given)
            except StopIteration:
                raise AssertionError(
                    f"unflatten_postorder ran out of leaves on the nodes of {tree}, which has "
                    f"{len(new)}: only an entry whose node type is None is a leaf") from None
        assert not seen, f"unflatten_postorder called {seen[0]}: build the tree from the nodes"
        assert given == new, \
            f"unflatten_postorder changed the list of leaves it was given, {new}, to {given}"
        assert tree_flatten(got) == (new, treedef), \
            f"the nodes of {tree} with the leaves {new} should give {want!r}, got {got!r}"
    depth = sys.getrecursionlimit() + 100
    nodes = [(None, 0, None)] + [(node_types[list], 1, None)] * depth
    try:
        got = unflatten_postorder(nodes, ["deep"])
    except RecursionError:
        raise AssertionError(f"a list nested {depth} deep hit Python's recursion limit: "
                             "replay the nodes in a loop, with a stack") from None
    for _ in range(depth):
        assert type(got) is list and len(got) == 1, \
            f"a list nested {depth} deep should be a list of one list, ... of 'deep'"
        got = got[0]
    assert got == "deep", f"the leaf at the bottom of the nested list should be 'deep', got {got!r}"
