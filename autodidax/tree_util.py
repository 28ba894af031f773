# Generated from chapters/02_pytrees.md by `make export`: edit the chapter, not this file.


"""Pytrees: nested containers flattened to a list of leaves and a tree definition, and back."""
from __future__ import annotations

import collections
import dataclasses
import functools
from typing import Any, Callable, Iterable

from autodidax.core import api_boundary
from autodidax import tree_util_text as _text   # appendix A16: printed structures, messages
__getattr__, __dir__ = _text.late_names(globals())   # PEP 562: the rest of tree_util (A16, A25)


class NodeType:
    """How to take one type of pytree node apart (optionally with keys), and build it again."""
    __slots__ = ("type", "flatten", "unflatten", "flatten_with_keys")

    def __init__(self, type_: type, flatten: Callable, unflatten: Callable,
                 flatten_with_keys: Callable | None = None):
        self.type, self.flatten, self.unflatten = type_, flatten, unflatten
        self.flatten_with_keys = flatten_with_keys

    def __repr__(self):
        return f"NodeType({self.type.__name__})"


node_types: dict[type, NodeType] = {}


@api_boundary
def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable,
                         flatten_with_keys_func: Callable | None = None) -> None:
    """Make `nodetype` a pytree node: `flatten_func(x) -> (children, aux_data)` (aux data `==`-
    comparable, best hashable, as `jit`'s static arguments need), `unflatten_func(aux_data,
    children)`, and optionally `flatten_with_keys_func(x) -> (((key, child), ...), aux_data)`."""
    if nodetype in node_types:
        raise _text.registered_twice_error(nodetype)
    node_types[nodetype] = NodeType(nodetype, flatten_func, unflatten_func,
                                    flatten_with_keys_func)


def _sorted_keys(d: dict) -> tuple:
    try:
        return tuple(sorted(d))
    except TypeError:
        raise _text.unsortable_keys_error(d) from None


def _flatten_dict(d):
    keys = _sorted_keys(d)
    return tuple(d[k] for k in keys), keys      # a tuple, as JAX's C++ gives a dict's


register_pytree_node(tuple, lambda t: (t, None), lambda _, children: children)
register_pytree_node(list, lambda l: (l, None), lambda _, children: list(children))
register_pytree_node(dict, _flatten_dict, lambda keys, children: dict(zip(keys, children)))
register_pytree_node(type(None), lambda _: ((), None), lambda _, __: None)


_namedtuple_node_types: dict[type, NodeType] = {}


def _namedtuple_node_type(cls: type) -> NodeType:
    node_type = _namedtuple_node_types.get(cls)
    if node_type is None:
        node_type = NodeType(cls, lambda t: (t, None), lambda _, children: cls(*children))
        _namedtuple_node_types[cls] = node_type
    return node_type


def _node_type_of(x) -> NodeType | None:
    """The node type of `x`, or None when `x` is a leaf."""
    node_type = node_types.get(type(x))
    if node_type is None and isinstance(x, tuple) and hasattr(x, "_fields"):
        return _namedtuple_node_type(type(x))
    return node_type


class PyTreeDef:
    """A pytree's structure: a node type (None for a leaf), its aux data, its children's."""
    __slots__ = ("node_type", "node_data", "child_treedefs", "num_leaves", "num_nodes", "_hash")

    def __init__(self, node_type: NodeType | None, node_data: Any,
                 child_treedefs: tuple[PyTreeDef, ...]):
        self.node_type, self.node_data, self.child_treedefs = node_type, node_data, child_treedefs
        num_leaves, num_nodes = (1, 1) if node_type is None else (0, 1)
        for t in child_treedefs:
            num_leaves, num_nodes = num_leaves + t.num_leaves, num_nodes + t.num_nodes
        self.num_leaves, self.num_nodes, self._hash = num_leaves, num_nodes, None

    def children(self) -> list[PyTreeDef]:
        return list(self.child_treedefs)

    def unflatten(self, leaves: Iterable) -> Any:
        return tree_unflatten(self, leaves)

    def flatten_up_to(self, tree: Any) -> list:
        return _flatten_up_to(self, tree, "the tree", "the structure")

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, PyTreeDef):
            return NotImplemented
        return (self.node_type is other.node_type and self.num_nodes == other.num_nodes
                and self.node_data == other.node_data
                and self.child_treedefs == other.child_treedefs)

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((self.node_type, self.child_treedefs))   # not the aux data
        return self._hash

    def __repr__(self):
        return f"PyTreeDef({_text.treedef_str(self, _namedtuple_node_types)})"


LEAF = PyTreeDef(None, None, ())


@api_boundary
def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list, PyTreeDef]:
    """The leaves of `tree`, left to right, and its structure."""
    leaves = []
    return leaves, _flatten(tree, is_leaf, leaves)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list:
    """The leaves of `tree`, left to right."""
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The structure of `tree`."""
    return tree_flatten(tree, is_leaf)[1]


def _flatten(x, is_leaf, leaves: list) -> PyTreeDef:
    node_type = _node_type_of(x)
    if node_type is None or (is_leaf is not None and is_leaf(x)):
        leaves.append(x)
        return LEAF
    children, node_data = _take_apart(node_type, x)
    return PyTreeDef(node_type, node_data, tuple([_flatten(c, is_leaf, leaves) for c in children]))


def _take_apart(node_type: NodeType, x) -> tuple[tuple | list, Any]:
    result = node_type.flatten(x)
    try:
        children, node_data = result
        if not isinstance(children, (tuple, list)):
            children = tuple(children)
    except (TypeError, ValueError):
        raise _text.flatten_error(node_type, result) from None
    return children, node_data


@api_boundary
def tree_unflatten(treedef: PyTreeDef, leaves: Iterable) -> Any:
    """The pytree of structure `treedef` whose leaves, left to right, are `leaves`."""
    if not isinstance(leaves, (list, tuple)):
        leaves = list(leaves)
    if len(leaves) != treedef.num_leaves:
        raise _text.leaf_count_error(treedef, len(leaves))
    return _unflatten(treedef, iter(leaves))


def _unflatten(treedef: PyTreeDef, leaves) -> Any:
    if treedef.node_type is None:
        return next(leaves)
    children = tuple([_unflatten(t, leaves) for t in treedef.child_treedefs])
    return treedef.node_type.unflatten(treedef.node_data, children)


def register_pytree_node_class(cls: type) -> type:
    """Register `cls` by its `tree_flatten` method and `tree_unflatten` class method."""
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def _flatten_defaultdict(d):
    keys = _sorted_keys(d)
    return [d[k] for k in keys], (d.default_factory, keys)


register_pytree_node(
    collections.OrderedDict, lambda d: (list(d.values()), tuple(d)),
    lambda keys, children: collections.OrderedDict(zip(keys, children)))
register_pytree_node(
    collections.defaultdict, _flatten_defaultdict,
    lambda aux, children: collections.defaultdict(aux[0], zip(aux[1], children)))


class _Mismatch(Exception):
    """At `treedef`'s node, `x` is a leaf (`node` None) or another `(node_type, aux, arity)`."""
    def __init__(self, treedef: PyTreeDef, x: Any, node: tuple | None = None):
        self.treedef, self.x, self.node, self.path = treedef, x, node, []   # path: (treedef, i)


def _flatten_up_to(treedef: PyTreeDef, tree: Any, theirs: str, ours: str) -> list:
    leaves = []
    try:
        _match(treedef, tree, leaves)
    except _Mismatch as e:
        raise _text.mismatch_error(e, treedef, tree_structure(tree), theirs, ours,
                                   _namedtuple_node_types) from None
    return leaves


def _match(treedef: PyTreeDef, x: Any, leaves: list) -> None:
    if treedef.node_type is None:
        leaves.append(x)
        return
    node_type = _node_type_of(x)
    if node_type is None:
        raise _Mismatch(treedef, x)
    children, node_data = _take_apart(node_type, x)
    if (node_type is not treedef.node_type or node_data != treedef.node_data
            or len(children) != len(treedef.child_treedefs)):
        raise _Mismatch(treedef, x, (node_type, node_data, len(children)))
    for i, (t, child) in enumerate(zip(treedef.child_treedefs, children)):
        try:
            _match(t, child, leaves)
        except _Mismatch as e:
            e.path.append((treedef, i))
            raise


@api_boundary
def tree_map(f: Callable, tree: Any, *rest: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Apply `f` to the leaves of `tree` (and to the matching subtrees of `rest`)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten([f(x) for x in leaves])
    columns = [leaves] + [_flatten_up_to(treedef, r, f"tree {i}", "the first tree")
                          for i, r in enumerate(rest, start=2)]
    return treedef.unflatten([f(*xs) for xs in zip(*columns)])


def broadcast_prefix(prefix_tree: Any, full_tree: Any,
                     is_leaf: Callable[[Any], bool] | None = None) -> list:
    """Each leaf of `prefix_tree`, once per leaf of the subtree of `full_tree` it stands for."""
    leaves, prefix = tree_flatten(prefix_tree, is_leaf)
    return [leaf for leaf, sub in zip(leaves, prefix.flatten_up_to(full_tree))
            for _ in range(tree_structure(sub).num_leaves)]


_NO_INITIALIZER = object()


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """Whether every leaf of `tree` is true."""
    return all(tree_leaves(tree, is_leaf))


def tree_reduce(function: Callable, tree: Any, initializer: Any = _NO_INITIALIZER,
                is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Fold the leaves of `tree`, left to right, with `function(accumulated, leaf)`."""
    if initializer is _NO_INITIALIZER:
        return functools.reduce(function, tree_leaves(tree, is_leaf))
    return functools.reduce(function, tree_leaves(tree, is_leaf), initializer)


class Store:
    """A box for a value known only after a function has run, like the output's structure."""
    __slots__ = ("what", "_value")
    _EMPTY = object()

    def __init__(self, what: str):
        self.what, self._value = what, Store._EMPTY

    def store(self, value: Any) -> None:
        self._value = value

    def filled(self) -> bool:
        return self._value is not Store._EMPTY

    def __call__(self) -> Any:
        if self._value is Store._EMPTY:
            raise _text.store_empty_error(self.what)
        return self._value


def flatten_fun(f: Callable, in_tree: PyTreeDef) -> tuple[Callable, Store]:
    """`f` on flat arguments (`in_tree`: the structure of the tuple of `f`'s positional ones),
    returning its output's leaves; `out_tree()` gives their structure once `flat_f` has run."""
    out_tree = Store(f"the output structure of {getattr(f, '__name__', 'the function')}")

    def flat_f(*flat_args):
        out_leaves, tree = tree_flatten(f(*tree_unflatten(in_tree, flat_args)))
        out_tree.store(tree)
        return out_leaves

    return flat_f, out_tree


@dataclasses.dataclass(frozen=True)
class SequenceKey:
    idx: int

    def __str__(self):
        return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True)
class DictKey:
    key: Any

    def __str__(self):
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True)
class GetAttrKey:
    name: str

    def __str__(self):
        return f".{self.name}"


@dataclasses.dataclass(frozen=True)
class FlattenedIndexKey:
    key: int

    def __str__(self):
        return f"[<flat index {self.key}>]"


def keystr(keys: tuple, *, simple: bool = False, separator: str = "") -> str:
    """A key path as a string: `['a'][0].x`, or `a/0/x` with `simple=True, separator='/'`."""
    return separator.join(_simple_key_str(k) if simple else str(k) for k in keys)


_KEY_FIELDS = {SequenceKey: "idx", DictKey: "key", GetAttrKey: "name", FlattenedIndexKey: "key"}


def _simple_key_str(key) -> str:
    field = _KEY_FIELDS.get(type(key))
    return str(key) if field is None else str(getattr(key, field))


def _sequence_keys(_, n: int) -> list:
    return [SequenceKey(i) for i in range(n)]


child_key_rules: dict[type, Callable[[Any, int], list]] = {
    tuple: _sequence_keys, list: _sequence_keys,
    dict: lambda keys, _: [DictKey(k) for k in keys],
    collections.OrderedDict: lambda keys, _: [DictKey(k) for k in keys],
    collections.defaultdict: lambda aux, _: [DictKey(k) for k in aux[1]],
}


def _child_keys(node_type: NodeType, node_data: Any, n: int) -> list:
    rule = child_key_rules.get(node_type.type)
    if rule is not None:
        return rule(node_data, n)
    if node_type is _namedtuple_node_types.get(node_type.type):
        return [GetAttrKey(name) for name in node_type.type._fields]
    return [FlattenedIndexKey(i) for i in range(n)]


def _take_apart_with_keys(node_type: NodeType, x):
    result = node_type.flatten_with_keys(x)
    try:
        pairs, node_data = result
        keys, children = zip(*pairs) if pairs else ((), ())
    except (TypeError, ValueError):
        raise _text.flatten_error(node_type, result, with_keys=True) from None
    return keys, children, node_data


@api_boundary
def tree_flatten_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                           is_leaf_takes_path: bool = False) -> tuple[list, PyTreeDef]:
    """The `(key_path, leaf)` pairs of `tree`, left to right, and its structure."""
    leaves = []
    return leaves, _flatten_with_path(tree, (), is_leaf, is_leaf_takes_path, leaves)


def _flatten_with_path(x, path: tuple, is_leaf, takes_path: bool, leaves: list) -> PyTreeDef:
    node_type = _node_type_of(x)
    if node_type is None or (is_leaf is not None
                             and (is_leaf(path, x) if takes_path else is_leaf(x))):
        leaves.append((path, x))
        return LEAF
    if node_type.flatten_with_keys is None:
        children, node_data = _take_apart(node_type, x)
        keys = _child_keys(node_type, node_data, len(children))
    else:
        keys, children, node_data = _take_apart_with_keys(node_type, x)
    return PyTreeDef(node_type, node_data, tuple([
        _flatten_with_path(c, path + (k,), is_leaf, takes_path, leaves)
        for k, c in zip(keys, children)]))


def tree_leaves_with_path(tree: Any, is_leaf: Callable[..., bool] | None = None,
                          is_leaf_takes_path: bool = False) -> list:
    """The `(key_path, leaf)` pairs of `tree`, left to right."""
    return tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)[0]


@api_boundary
def tree_map_with_path(f: Callable, tree: Any, *rest: Any,
                       is_leaf: Callable[..., bool] | None = None,
                       is_leaf_takes_path: bool = False) -> Any:
    """`tree_map`, but `f` receives each leaf's key path first: `f(path, leaf, *others)`."""
    pairs, treedef = tree_flatten_with_path(tree, is_leaf, is_leaf_takes_path)
    paths, leaves = [p for p, _ in pairs], [x for _, x in pairs]
    columns = [leaves] + [_flatten_up_to(treedef, r, f"tree {i}", "the first tree")
                          for i, r in enumerate(rest, start=2)]
    return treedef.unflatten([f(p, *xs) for p, *xs in zip(paths, *columns)])


@api_boundary
def register_dataclass(nodetype: type, data_fields=None, meta_fields=None,
                       drop_fields=()) -> type:
    """Register a dataclass (or a class built by keyword arguments): `data_fields` children,
    `meta_fields` aux data; without them, fields marked `static` are meta, the others data."""
    data_fields, meta_fields = _text.dataclass_fields(nodetype, data_fields, meta_fields,
                                                       drop_fields)

    def flatten(x):         # the children in a list, the aux data a tuple, as in JAX
        return ([getattr(x, name) for name in data_fields],
                tuple(getattr(x, name) for name in meta_fields))

    def flatten_with_keys(x):
        return (tuple((GetAttrKey(name), getattr(x, name)) for name in data_fields),
                tuple(getattr(x, name) for name in meta_fields))

    def unflatten(meta, data):
        return nodetype(**dict(zip(meta_fields, meta)), **dict(zip(data_fields, data)))

    register_pytree_node(nodetype, flatten, unflatten, flatten_with_keys)
    return nodetype


@api_boundary
def register_pytree_with_keys(nodetype: type, flatten_with_keys: Callable,
                              unflatten_func: Callable, flatten_func: Callable | None = None
                              ) -> None:
    """Make `nodetype` a pytree node whose children have keys: `flatten_with_keys(x)` returns
    `(((key, child), ...), aux_data)`; `unflatten_func(aux_data, children)` builds it again."""
    if flatten_func is None:
        def flatten_func(x):
            pairs, aux_data = flatten_with_keys(x)
            return [child for _, child in pairs], aux_data
    register_pytree_node(nodetype, flatten_func, unflatten_func, flatten_with_keys)


def register_pytree_with_keys_class(cls: type) -> type:
    """Register `cls` by its `tree_flatten_with_keys`, `tree_unflatten` (and `tree_flatten`)."""
    flatten = (lambda x: x.tree_flatten()) if hasattr(cls, "tree_flatten") else None
    register_pytree_with_keys(cls, lambda x: x.tree_flatten_with_keys(), cls.tree_unflatten,
                              flatten)
    return cls


@api_boundary
def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None,
                   pytree_to_transpose: Any) -> Any:
    """A tree of structure `outer` of trees `inner`, as a tree `inner` of trees `outer`."""
    flat, treedef = tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        inner_treedef = tree_structure(outer_treedef.flatten_up_to(pytree_to_transpose)[0])
    n_inner, n_outer = inner_treedef.num_leaves, outer_treedef.num_leaves
    if treedef.num_leaves != n_inner * n_outer:
        raise _text.transpose_error(outer_treedef, inner_treedef, treedef, _namedtuple_node_types)
    rows = [flat[i * n_inner:(i + 1) * n_inner] for i in range(n_outer)]
    return inner_treedef.unflatten([outer_treedef.unflatten(column) for column in zip(*rows)])


steps = [(0.5, {"w": 1.0}), (0.25, {"w": 2.0}), (0.125, {"w": 3.0})]
tree_transpose(tree_structure([0, 0, 0]), None, steps)
