# Generated from chapters/A16_tree_util_text.md by `make export`: edit the chapter, not this file.


"""What chapter 2's `tree_util` says: tree definitions printed as JAX prints them, its error
messages, and `register_dataclass`'s fields read and checked as JAX checks them."""
from __future__ import annotations

import dataclasses
from typing import Any


def treedef_str(t, namedtuples: dict, leaf: str = "*") -> str:
    """The tree definition `t` as JAX prints it, inside `PyTreeDef(...)`."""
    if t.node_type is None:
        return leaf
    kids = [treedef_str(c, namedtuples, leaf) for c in t.child_treedefs]
    kind = t.node_type.type
    if kind is tuple:
        return f"({kids[0]},)" if len(kids) == 1 else f"({', '.join(kids)})"
    if kind is list:
        return f"[{', '.join(kids)}]"
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {s}" for k, s in zip(t.node_data, kids)) + "}"
    if kind is type(None):
        return "None"
    if t.node_type is namedtuples.get(kind):
        return f"CustomNode(namedtuple[{kind.__name__}], [{', '.join(kids)}])"
    return f"CustomNode({kind.__name__}[{t.node_data}], [{', '.join(kids)}])"


def transpose_error(outer, inner, treedef, namedtuples: dict) -> TypeError:
    composed = treedef_str(outer, namedtuples, leaf=treedef_str(inner, namedtuples))
    return TypeError(f"tree_transpose expected a tree of structure PyTreeDef({composed}) "
                     f"({outer.num_leaves} x {inner.num_leaves} leaves), got {treedef} "
                     f"({treedef.num_leaves} leaves)")


def describe(node_type, node_data: Any, n: int, namedtuples: dict) -> str:
    """A node as a mismatch names it: `a dict with keys [...]`, `a list of 2 children`..."""
    kind = node_type.type
    if kind is dict:
        return f"a dict with keys {list(node_data)}"
    if kind is type(None):
        return "None"
    children = f"{n} child" if n == 1 else f"{n} children"
    if node_type is namedtuples.get(kind):
        return f"a namedtuple {kind.__name__} of {children}"
    data = "" if kind in (tuple, list) else f" and aux data {node_data!r}"
    return f"a {kind.__name__} of {children}{data}"


def key_str(treedef, i: int, namedtuples: dict) -> str:
    """The key of the `i`th child of `treedef`'s node, as a key path writes it."""
    kind = treedef.node_type.type
    if kind in (tuple, list):
        return f"[{i}]"
    if kind is dict:
        return f"[{treedef.node_data[i]!r}]"
    if treedef.node_type is namedtuples.get(kind):
        return f".{kind._fields[i]}"
    return f"[<flat index {i}>]"


def mismatch_error(e, treedef, tree_treedef, theirs: str, ours: str,
                   namedtuples: dict) -> ValueError:
    """The error for the `_Mismatch` `e` of a tree of structure `tree_treedef` (called
    `theirs`) against `treedef` (called `ours`)."""
    where = "".join(key_str(t, i, namedtuples) for t, i in reversed(e.path)) or "the root"
    node = e.treedef
    mine = describe(node.node_type, node.node_data, len(node.child_treedefs), namedtuples)
    other = (f"a leaf of type {type(e.x).__name__}" if e.node is None
             else describe(*e.node, namedtuples))
    width = max(len(ours), len(theirs)) + 1
    return ValueError(f"{theirs} does not match {ours} at {where}: {ours} has {mine} "
                      f"there, {theirs} has {other}.\n"
                      f"  {ours + ':':{width}} {treedef}\n"
                      f"  {theirs + ':':{width}} {tree_treedef}")


def flatten_error(node_type, result, with_keys: bool = False) -> ValueError:
    if with_keys:
        return ValueError(f"the flatten_with_keys function registered for "
                          f"{node_type.type.__qualname__} must return a pair (((key, child), "
                          f"...), aux_data); it returned {result!r}")
    return ValueError(f"the flatten function registered for {node_type.type.__qualname__} "
                      f"must return a pair (children, aux_data) whose children can be "
                      f"iterated; it returned {result!r}")


def registered_twice_error(nodetype: type) -> ValueError:
    return ValueError(f"{nodetype.__qualname__} is already registered as a pytree node; "
                      f"a type can be registered only once.")


def unsortable_keys_error(d: dict) -> ValueError:
    return ValueError(f"a dict in a pytree needs keys that can be sorted, as its children are "
                      f"its values in sorted key order; these cannot be: {list(d)}")


def leaf_count_error(treedef, n: int) -> ValueError:
    return ValueError(f"tree_unflatten got {n} leaves for a structure with "
                      f"{treedef.num_leaves}: {treedef}")


def store_empty_error(what: str) -> RuntimeError:
    return RuntimeError(f"{what} is not known yet: it is stored when the flattened "
                        f"function runs, so call that function first.")


def dataclass_fields(nodetype: type, data_fields, meta_fields, drop_fields) -> tuple:
    """`register_dataclass`'s data and meta fields, read from the class if not given, checked
    as JAX checks them: every field of the constructor named exactly once."""
    if data_fields is None or meta_fields is None:
        if (data_fields is None) != (meta_fields is None):
            raise TypeError(f"register_dataclass needs both data_fields and meta_fields, or "
                            f"neither; got {data_fields=} {meta_fields=}.")
        if not dataclasses.is_dataclass(nodetype):
            raise TypeError(f"register_dataclass needs data_fields and meta_fields when the "
                            f"type is not a dataclass; {nodetype.__qualname__} is not one.")
        fields = dataclasses.fields(nodetype)
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    if dataclasses.is_dataclass(nodetype):
        init = {f.name for f in dataclasses.fields(nodetype) if f.init} - set(drop_fields)
        named = {*data_fields, *meta_fields}
        missing, unexpected = init - named, named - init
        if missing or unexpected:
            raise ValueError(f"data_fields and meta_fields must name every field of "
                             f"{nodetype.__qualname__} that its constructor takes, and only "
                             f"those; missing: {sorted(missing)}, unexpected: "
                             f"{sorted(unexpected)}. "
                             f"Name a field in drop_fields to leave it out.")
    if overlap := set(data_fields) & set(meta_fields):
        raise ValueError(f"a field is either data or meta, not both: {sorted(overlap)}")
    return data_fields, meta_fields


more_names: dict = {}   # name -> object: the rest of jax.tree_util (appendix A25)


def late_names(namespace: dict):
    """A module's `__getattr__` and `__dir__` that find and list the names in `more_names`."""
    module = namespace["__name__"]

    def __getattr__(name):
        if name in more_names:
            return more_names[name]
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    def __dir__():
        return sorted({*namespace, *more_names})
    return __getattr__, __dir__
