"""autodidax.tree_util against the real jax.tree_util: leaves, structures, reprs, maps, errors."""
import collections
import typing

import jax
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from autodidax import tree_util as tu

jtu = jax.tree_util

Point = collections.namedtuple("Point", ["x", "y"])


class Typed(typing.NamedTuple):
    a: int
    b: typing.Any


class Box:
    """A custom node registered in both libraries: children and a hashable label."""

    def __init__(self, children, label):
        self.children, self.label = tuple(children), label

    def __eq__(self, other):
        return isinstance(other, Box) and (self.children, self.label) == (other.children, other.label)

    def __repr__(self):
        return f"Box({self.children!r}, {self.label!r})"


def _box_flatten(b):
    return b.children, b.label


def _box_unflatten(label, children):
    return Box(children, label)


tu.register_pytree_node(Box, _box_flatten, _box_unflatten)
jtu.register_pytree_node(Box, _box_flatten, _box_unflatten)


EXAMPLES = [
    1,
    None,
    (),
    [],
    {},
    (1,),
    [None],
    (1, {"a": 2, "b": [3, None]}),
    {"b": 1, "a": (2, 3), "c": {}},
    [Point(1, (2, 3)), Typed(4, [5])],
    Box([1, (2, 3)], "hi"),
    Box([], None),
    Box([1], ("x", 2)),
    [Box([None, {"k": 1}], [1, 2])],
    collections.OrderedDict(b=1, a=[2, 3]),
    collections.defaultdict(list, b=1, a=2),
    {1: "one", 2: "two"},
    ["abc", b"xy", {3, 4}, np.arange(3), 2.5],
    (tuple.__new__(type("T", (tuple,), {}), (1, 2)), [[[]]]),
]


def _same_leaves(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a is b


@pytest.mark.parametrize("tree", EXAMPLES, ids=repr)
def test_flatten_matches_jax(tree):
    leaves, treedef = tu.tree_flatten(tree)
    jleaves, jtreedef = jtu.tree_flatten(tree)
    _same_leaves(leaves, jleaves)
    assert repr(treedef) == repr(jtreedef)
    assert str(treedef) == str(jtreedef)
    assert treedef.num_leaves == jtreedef.num_leaves
    assert treedef.num_nodes == jtreedef.num_nodes
    assert [repr(c) for c in treedef.children()] == [repr(c) for c in jtreedef.children()]
    assert repr(tu.tree_structure(tree)) == repr(jtu.tree_structure(tree))
    _same_leaves(tu.tree_leaves(tree), jtu.tree_leaves(tree))


@pytest.mark.parametrize("tree", EXAMPLES, ids=repr)
def test_round_trip_and_map_match_jax(tree):
    leaves, treedef = tu.tree_flatten(tree)
    rebuilt = tu.tree_unflatten(treedef, leaves)
    jrebuilt = jtu.tree_unflatten(jtu.tree_structure(tree), leaves)
    assert type(rebuilt) is type(jrebuilt)
    assert repr(rebuilt) == repr(jrebuilt)
    assert repr(treedef.unflatten(iter(leaves))) == repr(jrebuilt)
    f = lambda x: ("leaf", repr(x))
    assert repr(tu.tree_map(f, tree)) == repr(jtu.tree_map(f, tree))


def test_dict_order_and_kinds_of_rebuilt_nodes():
    tree = {"b": [1, 2], "a": (Point(3, 4),)}
    out = tu.tree_map(lambda x: x * 10, tree)
    assert out == {"a": (Point(30, 40),), "b": [10, 20]}
    assert list(out) == ["a", "b"]  # sorted, as in JAX
    assert type(out["a"][0]) is Point
    od = tu.tree_map(lambda x: x, collections.OrderedDict(b=1, a=2))
    assert type(od) is collections.OrderedDict and list(od) == ["b", "a"]
    dd = tu.tree_map(lambda x: x, collections.defaultdict(list, b=1))
    assert type(dd) is collections.defaultdict and dd.default_factory is list


def test_unregistered_types_and_subclasses_are_leaves():
    class MyList(list):
        pass

    for x in [MyList([1, 2]), "abc", np.ones(2), {1, 2}, object, 3 + 4j]:
        leaves, treedef = tu.tree_flatten(x)
        assert leaves == [x] or leaves[0] is x
        assert repr(treedef) == "PyTreeDef(*)"
        assert treedef == tu.tree_structure(0)


@pytest.mark.parametrize("is_leaf", [lambda x: x is None, lambda x: isinstance(x, Point),
                                     lambda x: isinstance(x, list) and len(x) == 2])
def test_is_leaf_matches_jax(is_leaf):
    tree = [None, Point(1, [2, 3]), {"a": [4, None], "b": (5, [6, 7])}]
    leaves, treedef = tu.tree_flatten(tree, is_leaf=is_leaf)
    jleaves, jtreedef = jtu.tree_flatten(tree, is_leaf=is_leaf)
    _same_leaves(leaves, jleaves)
    assert repr(treedef) == repr(jtreedef)
    assert tu.tree_unflatten(treedef, leaves) == tree
    f = lambda x: [x]
    assert tu.tree_map(f, tree, is_leaf=is_leaf) == jtu.tree_map(f, tree, is_leaf=is_leaf)


# Random trees, built with nodes both libraries know.

LEAVES = st.one_of(st.integers(-5, 5), st.sampled_from(["u", "v"]))
KEYS = st.sampled_from(["a", "b", "c", "d"])


def _extend(children):
    return st.one_of(
        st.lists(children, max_size=3).map(tuple),
        st.lists(children, max_size=3),
        st.dictionaries(KEYS, children, max_size=3),
        st.builds(Point, children, children),
        st.builds(Box, st.lists(children, max_size=2), st.sampled_from(["p", "q", None])),
    )


TREES = st.recursive(st.one_of(LEAVES, st.none()), _extend, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(TREES)
def test_random_trees_match_jax(tree):
    leaves, treedef = tu.tree_flatten(tree)
    jleaves, jtreedef = jtu.tree_flatten(tree)
    assert leaves == jleaves
    assert repr(treedef) == repr(jtreedef)
    assert (treedef.num_leaves, treedef.num_nodes) == (jtreedef.num_leaves, jtreedef.num_nodes)
    assert tu.tree_unflatten(treedef, leaves) == tree
    new = [("new", i) for i in range(len(leaves))]
    assert tu.tree_unflatten(treedef, new) == jtu.tree_unflatten(jtreedef, new)
    f = lambda x: (x, x)
    assert tu.tree_map(f, tree) == jtu.tree_map(f, tree)
    assert tu.tree_map(lambda x, y: (x, y), tree, tree) == jtu.tree_map(lambda x, y: (x, y), tree, tree)


@settings(max_examples=300, deadline=None)
@given(TREES, TREES)
def test_equality_and_hash_match_jax(a, b):
    ta, tb = tu.tree_structure(a), tu.tree_structure(b)
    ja, jb = jtu.tree_structure(a), jtu.tree_structure(b)
    assert (ta == tb) == (ja == jb)
    assert (ta != tb) == (ja != jb)
    if ta == tb:
        assert hash(ta) == hash(tb)
    assert ta == tu.tree_structure(a) and hash(ta) == hash(tu.tree_structure(a))


@settings(max_examples=200, deadline=None)
@given(TREES, st.data())
def test_prefix_tree_map_matches_jax(tree, data):
    # Replace some subtrees of `tree` by leaves to get a prefix of it.
    def prefix(t):
        if data.draw(st.booleans()):
            return "cut"
        if tu.tree_structure(t) == tu.tree_structure(0):
            return t
        children, one_level = tu.tree_flatten(t, is_leaf=lambda y: y is not t)
        return tu.tree_unflatten(one_level, [prefix(c) for c in children])
    p = prefix(tree)
    f = lambda x, y: (x, y)
    assert tu.tree_map(f, p, tree) == jtu.tree_map(f, p, tree)
    assert tu.tree_structure(p).flatten_up_to(tree) == jtu.tree_structure(p).flatten_up_to(tree)


def test_equality_details():
    s = tu.tree_structure
    assert s((1, [2, 3])) == s(("a", [np.ones(2), "b"]))
    assert s((1, 2)) != s([1, 2])
    assert s({"a": 1}) != s({"b": 1})
    assert s(Box([1], "x")) != s(Box([1], "y"))
    assert s([1, None]) != s([1, 2])
    assert s(Point(1, 2)) != s((1, 2))
    assert (s((1,)) == "not a treedef") is False
    cache = {s((1, {"a": 2})): "hit"}
    assert cache[s((np.ones(3), {"a": "x"}))] == "hit"


def test_flatten_up_to_matches_jax_and_prefix_leaves_get_subtrees():
    treedef = tu.tree_structure((1, {"a": 2, "b": 3}))
    jtreedef = jtu.tree_structure((1, {"a": 2, "b": 3}))
    full = ([1, 2], {"a": (3,), "b": None})
    assert treedef.flatten_up_to(full) == jtreedef.flatten_up_to(full)
    assert tu.tree_map(lambda x, y: (x, y), (1, 2), ([10, 20], 30)) == ((1, [10, 20]), (2, 30))


def test_tree_all_and_reduce_match_jax():
    for tree in [(True, [1, 2.0]), [1, (0, 2)], [], {"a": None}]:
        assert tu.tree_all(tree) == jtu.tree_all(tree)
    add = lambda a, b: a + b
    assert tu.tree_reduce(add, {"x": 1, "y": [2, 3]}) == jtu.tree_reduce(add, {"x": 1, "y": [2, 3]})
    assert tu.tree_reduce(add, [], 7) == jtu.tree_reduce(add, [], 7) == 7
    assert tu.tree_reduce(add, [None], 0) == 0
    assert tu.tree_all([None, 0], is_leaf=lambda x: x is None) is False
    with pytest.raises(TypeError):
        tu.tree_reduce(add, [])


def test_register_pytree_node_class_matches_jax():
    def make():
        class Interval:
            def __init__(self, lo, hi):
                self.lo, self.hi = lo, hi

            def tree_flatten(self):
                return (self.lo, self.hi), "closed"

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(*children)
        return Interval

    Ours, Theirs = tu.register_pytree_node_class(make()), jtu.register_pytree_node_class(make())
    leaves, treedef = tu.tree_flatten({"r": Ours(0, 1)})
    jleaves, jtreedef = jtu.tree_flatten({"r": Theirs(0, 1)})
    assert leaves == jleaves == [0, 1]
    assert repr(treedef) == repr(jtreedef) == "PyTreeDef({'r': CustomNode(Interval[closed], [*, *])})"
    out = tu.tree_unflatten(treedef, [5, 6])["r"]
    assert isinstance(out, Ours) and (out.lo, out.hi) == (5, 6)


def test_custom_node_children_arrive_as_a_tuple():
    seen = []

    class C:
        pass

    tu.register_pytree_node(C, lambda c: ([1, 2], None), lambda aux, ch: seen.append(ch) or C())
    tu.tree_map(lambda x: x, C())
    assert seen == [(1, 2)]


def test_deep_trees():
    tree = 0
    for i in range(150):
        tree = [tree, {"k": (i,)}]
    leaves, treedef = tu.tree_flatten(tree)
    assert len(leaves) == 151 and tu.tree_unflatten(treedef, leaves) == tree
    assert repr(treedef) == repr(jtu.tree_structure(tree))


def test_treedef_is_reusable_and_hash_is_cached():
    treedef = tu.tree_structure(({"a": 1}, [2]))
    h = hash(treedef)
    assert treedef._hash == h and hash(treedef) == h
    assert treedef.unflatten([1, 2]) == ({"a": 1}, [2])
    assert treedef.unflatten((3, 4)) == ({"a": 3}, [4])


# Errors a reader can hit.

def test_unflatten_with_the_wrong_number_of_leaves_says_both_counts():
    treedef = tu.tree_structure((1, {"a": 2, "b": [3, None]}))
    for n in (2, 4):
        with pytest.raises(ValueError) as e:
            tu.tree_unflatten(treedef, list(range(n)))
        msg = str(e.value)
        assert f"got {n} leaves" in msg and "with 3" in msg, msg
        assert "PyTreeDef((*, {'a': *, 'b': [*, None]}))" in msg


def test_tree_map_mismatch_names_both_structures_and_where():
    with pytest.raises(ValueError) as e:
        tu.tree_map(lambda x, y: x, (1, {"a": 2, "b": [3, 4]}), (1, {"a": 2, "b": (3, 4, 5)}))
    msg = str(e.value)
    assert "[1]['b']" in msg, msg
    assert "a list of 2 children" in msg and "a tuple of 3 children" in msg, msg
    assert "PyTreeDef((*, {'a': *, 'b': [*, *]}))" in msg, msg
    assert "PyTreeDef((*, {'a': *, 'b': (*, *, *)}))" in msg, msg
    assert "tree 2" in msg


@pytest.mark.parametrize("first, other, words", [
    ((1, 2), [1, 2], ["the root", "a tuple of 2 children", "a list of 2 children"]),
    ({"a": 1}, {"b": 1}, ["['a']", "['b']", "the root"]),
    ([None], [1], ["[0]", "None", "a leaf of type int"]),
    ([Point(1, [2])], [Point(1, 2)], ["[0].y", "a list of 1 child", "a leaf of type int"]),
    (Box([1], "x"), Box([1], "y"), ["aux data 'x'", "aux data 'y'"]),
    (Box([(1, 2)], "x"), Box([(1,)], "x"), ["[<flat index 0>]"]),
])
def test_tree_map_mismatch_messages(first, other, words):
    with pytest.raises(ValueError) as e:
        tu.tree_map(lambda *xs: xs, first, first, other)
    msg = str(e.value)
    assert "tree 3 does not match the first tree" in msg, msg
    for w in words:
        assert w in msg, (w, msg)
    # jax agrees that these do not match
    with pytest.raises(ValueError):
        jtu.tree_map(lambda *xs: xs, first, other)


def test_flatten_up_to_error():
    with pytest.raises(ValueError, match="the tree does not match the structure at"):
        tu.tree_structure((1, 2)).flatten_up_to((1, 2, 3))


def test_registering_twice_names_the_type():
    class Twice:
        pass

    tu.register_pytree_node(Twice, lambda t: ((), None), lambda a, c: Twice())
    with pytest.raises(ValueError, match="Twice is already registered"):
        tu.register_pytree_node(Twice, lambda t: ((), None), lambda a, c: Twice())
    with pytest.raises(ValueError, match="tuple is already registered"):
        tu.register_pytree_node(tuple, lambda t: (t, None), lambda a, c: tuple(c))


@pytest.mark.parametrize("flatten", [lambda x: 5, lambda x: (1, 2), lambda x: (1, 2, 3),
                                     lambda x: [(1, 2)]])
def test_bad_flatten_function_is_named(flatten):
    class Bad:
        pass

    tu.register_pytree_node(Bad, flatten, lambda a, c: Bad())
    with pytest.raises(ValueError) as e:
        tu.tree_flatten([Bad()])
    msg = str(e.value)
    assert "flatten function registered for" in msg and "Bad" in msg, msg
    assert "(children, aux_data)" in msg and repr(flatten(None)) in msg, msg


def test_unsortable_dict_keys():
    with pytest.raises(ValueError, match="keys that can be sorted"):
        tu.tree_flatten({1: 2, "a": 3})


# flatten_fun

def test_flatten_fun_returning_a_dict():
    def f(params, scale):
        return {"loss": scale * params["w"], "aux": [params["b"], None]}

    args = ({"w": 3.0, "b": 1.0}, 2.0)
    flat_args, in_tree = tu.tree_flatten(args)
    flat_f, out_tree = tu.flatten_fun(f, in_tree)
    assert flat_args == [1.0, 3.0, 2.0]
    out = flat_f(*flat_args)
    assert out == [1.0, 6.0]
    assert repr(out_tree()) == repr(jtu.tree_structure(f(*args)))
    assert tu.tree_unflatten(out_tree(), out) == f(*args)
    out = flat_f(10.0, 20.0, 30.0)
    assert out == [10.0, 600.0]


def test_flatten_fun_out_tree_before_the_call():
    flat_f, out_tree = tu.flatten_fun(lambda x: x, tu.tree_structure((1,)))
    with pytest.raises(RuntimeError, match="not known yet"):
        out_tree()
    assert flat_f(5) == [5]
    assert out_tree() == tu.tree_structure(0)


def test_flatten_fun_checks_the_number_of_arguments():
    flat_f, _ = tu.flatten_fun(lambda x, y: x, tu.tree_structure((1, 2)))
    with pytest.raises(ValueError, match="got 3 leaves for a structure with 2"):
        flat_f(1, 2, 3)


def test_flatten_fun_output_structure_follows_the_last_call():
    flat_f, out_tree = tu.flatten_fun(lambda x: [x] * int(x), tu.tree_structure((1,)))
    flat_f(2)
    assert repr(out_tree()) == "PyTreeDef([*, *])"
    flat_f(3)
    assert repr(out_tree()) == "PyTreeDef([*, *, *])"


# ----------------------------------------------------------------------------------------------
# Key paths, dataclasses and transpose, against JAX.
@pytest.mark.parametrize("tree", EXAMPLES, ids=repr)
def test_flatten_with_path_matches_jax(tree):
    pairs, treedef = tu.tree_flatten_with_path(tree)
    jpairs, jtreedef = jtu.tree_flatten_with_path(tree)
    assert repr(treedef) == repr(jtreedef)
    assert [repr(p) for p, _ in pairs] == [repr(p) for p, _ in jpairs]
    assert [tu.keystr(p) for p, _ in pairs] == [jtu.keystr(p) for p, _ in jpairs]
    assert ([tu.keystr(p, simple=True, separator="/") for p, _ in pairs]
            == [jtu.keystr(p, simple=True, separator="/") for p, _ in jpairs])
    _same_leaves([x for _, x in pairs], [x for _, x in jpairs])
    _same_leaves([x for _, x in tu.tree_leaves_with_path(tree)], [x for _, x in jpairs])
    f = lambda p, x: (tu.keystr(p), repr(x))
    jf = lambda p, x: (jtu.keystr(p), repr(x))
    assert repr(tu.tree_map_with_path(f, tree)) == repr(jtu.tree_map_with_path(jf, tree))


def test_keys_compare_hash_and_print_as_jax():
    pairs = [(tu.SequenceKey(1), jtu.SequenceKey(1)), (tu.DictKey("a"), jtu.DictKey("a")),
             (tu.DictKey(2), jtu.DictKey(2)), (tu.GetAttrKey("x"), jtu.GetAttrKey("x")),
             (tu.FlattenedIndexKey(3), jtu.FlattenedIndexKey(3))]
    for ours, theirs in pairs:
        assert (repr(ours), str(ours)) == (repr(theirs), str(theirs))
        twin = type(ours)(getattr(ours, ours.__match_args__[0]))
        assert ours == twin and hash(ours) == hash(twin)
    assert tu.SequenceKey(1) != tu.FlattenedIndexKey(1) and tu.DictKey(1) == tu.DictKey(1.0)
    with pytest.raises(AttributeError):
        tu.SequenceKey(1).idx = 2
    assert tu.keystr(("a", 3)) == jtu.keystr(("a", 3))


def test_is_leaf_with_and_without_path():
    tree = (1, {"a": [2, 3]}, [4])
    for kwargs, jkwargs in [
            (dict(is_leaf=lambda x: isinstance(x, list)),) * 2,
            (dict(is_leaf=lambda p, x: len(p) == 2, is_leaf_takes_path=True),) * 2]:
        pairs, treedef = tu.tree_flatten_with_path(tree, **kwargs)
        jpairs, jtreedef = jtu.tree_flatten_with_path(tree, **jkwargs)
        assert repr(treedef) == repr(jtreedef)
        assert repr(pairs) == repr(jpairs)


def test_map_with_path_of_several_trees():
    f = lambda p, x, y: (len(p), x + y)
    assert tu.tree_map_with_path(f, [1, (2,)], [10, (20,)]) == \
        jtu.tree_map_with_path(f, [1, (2,)], [10, (20,)])


def _dataclasses(lib):
    import dataclasses
    import functools

    @lib.register_dataclass
    @dataclasses.dataclass
    class Inferred:
        w: typing.Any
        b: typing.Any = None
        name: str = dataclasses.field(default="n", metadata=dict(static=True))

    @functools.partial(lib.register_dataclass, data_fields=["y", "x"], meta_fields=["k"])
    @dataclasses.dataclass
    class Given:
        x: typing.Any
        y: typing.Any
        k: int

    return Inferred, Given


def test_register_dataclass_matches_jax():
    (Inferred, Given), (JInferred, JGiven) = _dataclasses(tu), _dataclasses(jtu)
    for ours, theirs in [(Inferred(1.0, [2.0]), JInferred(1.0, [2.0])),
                         ([Given(1, 2, 3), Inferred(4, name="m")],
                          [JGiven(1, 2, 3), JInferred(4, name="m")])]:
        pairs, treedef = tu.tree_flatten_with_path(ours)
        jpairs, jtreedef = jtu.tree_flatten_with_path(theirs)
        assert repr(treedef) == repr(jtreedef)
        assert repr(pairs) == repr(jpairs)
        assert repr(tu.tree_map(lambda x: x, ours)).replace("JInferred", "Inferred") == \
            repr(jtu.tree_map(lambda x: x, theirs)).replace("JInferred", "Inferred")


def test_register_dataclass_errors_match_jax():
    import dataclasses

    def fresh():
        @dataclasses.dataclass
        class Q:
            a: int
            b: int
        return Q

    bad = [dict(nodetype=int), dict(nodetype=fresh(), data_fields=["a"]),
           dict(nodetype=fresh(), data_fields=["a"], meta_fields=[]),
           dict(nodetype=fresh(), data_fields=["a", "b"], meta_fields=["a"]),
           dict(nodetype=fresh(), data_fields=["a", "b", "c"], meta_fields=[])]
    for kwargs in bad:
        with pytest.raises(Exception) as theirs:
            jtu.register_dataclass(**kwargs)
        with pytest.raises(type(theirs.value)):
            tu.register_dataclass(**{**kwargs, "nodetype": fresh()
                                     if kwargs["nodetype"] is not int else int})
    Q = fresh()
    tu.register_dataclass(Q, data_fields=["a"], meta_fields=[], drop_fields=["b"])


@pytest.mark.parametrize("outer, inner, tree", [
    ([0, 0], (0, 0, 0), [(1, 2, 3), (4, 5, 6)]),
    ([0, 0, 0], None, [(0.5, {"w": 1}), (0.25, {"w": 2}), (0.1, {"w": 3})]),
    ({"a": 0, "b": 0}, [0, None], {"a": [1, None], "b": [2, None]}),
    ((0,), None, ([1, 2],)),
])
def test_tree_transpose_matches_jax(outer, inner, tree):
    ours = tu.tree_transpose(tu.tree_structure(outer),
                             None if inner is None else tu.tree_structure(inner), tree)
    theirs = jtu.tree_transpose(jtu.tree_structure(outer),
                                None if inner is None else jtu.tree_structure(inner), tree)
    assert repr(ours) == repr(theirs)


def test_tree_transpose_wrong_count_is_a_type_error():
    with pytest.raises(TypeError, match="tree_transpose expected"):
        tu.tree_transpose(tu.tree_structure([0, 0]), tu.tree_structure((0, 0)),
                          [(1, 2, 3), (4, 5, 6)])


def test_jax_tree_short_names():
    import autodidax
    import jax.tree as jtree
    for name in ["flatten_with_path", "leaves_with_path", "map_with_path", "transpose"]:
        assert hasattr(jtree, name)
        assert getattr(autodidax.tree, name) is getattr(tu, "tree_" + name)


def _keyed_pair(lib):
    """The same class registered with keys in `lib` (JAX's tree_util or ours)."""
    class KeyedPair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    lib.register_pytree_with_keys(
        KeyedPair, lambda p: (((lib.GetAttrKey("a"), p.a), (lib.DictKey("bee"), p.b)), "aux"),
        lambda aux, children: KeyedPair(*children))
    return KeyedPair


def test_register_pytree_with_keys_matches_jax():
    ours, theirs = _keyed_pair(tu), _keyed_pair(jtu)
    tree = lambda cls: [cls(1.0, (2.0, {"z": 3.0})), cls(None, 4.0)]
    leaves, treedef = tu.tree_flatten_with_path(tree(ours))
    j_leaves, j_treedef = jtu.tree_flatten_with_path(tree(theirs))
    assert repr(leaves) == repr(j_leaves)
    assert str(treedef).replace("KeyedPair", "K") == str(j_treedef).replace("KeyedPair", "K")
    assert [tu.keystr(p) for p, _ in leaves] == [jtu.keystr(p) for p, _ in j_leaves]
    assert tu.tree_leaves(tree(ours)) == jtu.tree_leaves(tree(theirs))
    mapped = tu.tree_map_with_path(lambda p, x: tu.keystr(p), ours(1, 2))
    assert (mapped.a, mapped.b) == (".a", "['bee']")
    rebuilt = tu.tree_unflatten(treedef, [x for _, x in leaves])
    assert isinstance(rebuilt[0], ours) and rebuilt[0].b[1] == {"z": 3.0}
    with pytest.raises(ValueError):
        tu.register_pytree_with_keys(ours, lambda p: ((), None), lambda a, c: None)


def test_register_pytree_with_keys_class_matches_jax():
    def make(lib, with_flatten):
        class Box:
            def __init__(self, x):
                self.x = x

            def tree_flatten_with_keys(self):
                return ((lib.SequenceKey(5), self.x),), "meta"

            @classmethod
            def tree_unflatten(cls, aux, children):
                return cls(*children)
        if with_flatten:
            Box.tree_flatten = lambda self: ((self.x,), "meta")
        return lib.register_pytree_with_keys_class(Box)
    for with_flatten in (False, True):
        ours, theirs = make(tu, with_flatten)(3.0), make(jtu, with_flatten)(3.0)
        assert (repr(tu.tree_flatten_with_path(ours)[0])
                == repr(jtu.tree_flatten_with_path(theirs)[0]))
        assert str(tu.tree_structure(ours)) == str(jtu.tree_structure(theirs))
        assert tu.tree_map(lambda v: v * 2, ours).x == 6.0


def test_flatten_with_keys_must_return_pairs():
    class Bad:
        pass
    tu.register_pytree_with_keys(Bad, lambda b: (5, None), lambda aux, c: Bad())
    with pytest.raises(ValueError, match="flatten_with_keys"):
        tu.tree_flatten_with_path(Bad())


def _span(lib, with_keys):
    """The same class registered in `lib` by `register_pytree_node`, with or without keys."""
    class Span:
        def __init__(self, lo, hi):
            self.lo, self.hi = lo, hi
    keys = ((lambda s: (((lib.GetAttrKey("lo"), s.lo), (lib.DictKey(7), s.hi)), "aux"))
            if with_keys else None)
    lib.register_pytree_node(Span, lambda s: ((s.lo, s.hi), "aux"), lambda aux, c: Span(*c),
                             keys)
    return Span


@pytest.mark.parametrize("with_keys", [False, True])
def test_register_pytree_node_with_keys_matches_jax(with_keys):
    ours, theirs = _span(tu, with_keys), _span(jtu, with_keys)
    tree = lambda cls: {"s": cls(1.0, [2.0, cls(3.0, None)])}
    leaves, treedef = tu.tree_flatten_with_path(tree(ours))
    j_leaves, j_treedef = jtu.tree_flatten_with_path(tree(theirs))
    assert repr(leaves) == repr(j_leaves)
    assert str(treedef) == str(j_treedef)
    assert ([tu.keystr(p, simple=True, separator="/") for p, _ in leaves]
            == [jtu.keystr(p, simple=True, separator="/") for p, _ in j_leaves])
    mapped = tu.tree_map_with_path(lambda p, x: tu.keystr(p), tree(ours))
    j_mapped = jtu.tree_map_with_path(lambda p, x: jtu.keystr(p), tree(theirs))
    assert (mapped["s"].lo, mapped["s"].hi[0]) == (j_mapped["s"].lo, j_mapped["s"].hi[0])
    assert tu.tree_leaves(tree(ours)) == jtu.tree_leaves(tree(theirs))


def test_register_pytree_node_keyword_names_match_jax():
    import inspect
    assert (list(inspect.signature(tu.register_pytree_node).parameters)
            == list(inspect.signature(jtu.register_pytree_node).parameters))
    assert (inspect.signature(tu.register_pytree_node).parameters["flatten_with_keys_func"]
            .default is None)
