"""Wrong solutions to chapter 2's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

WRONG = [
    Wrong("1. A node whose structure is its names", "the arrays in the dict's insertion order",
          """
          def flatten_with_keys(p):
              names = tuple(p.arrays)
              return tuple((DictKey(n), p.arrays[n]) for n in names), (names, p.frozen)

          def unflatten(aux_data, children):
              names, frozen = aux_data
              return Params(dict(zip(names, children)), frozen)

          register_pytree_with_keys(Params, flatten_with_keys, unflatten)
          """, reason="should be b, then w"),
    Wrong("1. A node whose structure is its names", "the dict of arrays itself kept as aux data",
          """
          def flatten_with_keys(p):
              names = sorted(p.arrays)
              return tuple((DictKey(n), p.arrays[n]) for n in names), (p.arrays, p.frozen)

          def unflatten(aux_data, children):
              arrays, frozen = aux_data
              return Params(dict(zip(sorted(arrays), children)), frozen)

          register_pytree_with_keys(Params, flatten_with_keys, unflatten)
          """, reason="keep the arrays out of the aux data"),
    Wrong("1. A node whose structure is its names", "the frozen set left out of the aux data",
          """
          def flatten_with_keys(p):
              names = tuple(sorted(p.arrays))
              return tuple((DictKey(n), p.arrays[n]) for n in names), names

          def unflatten(names, children):
              return Params(dict(zip(names, children)))

          register_pytree_with_keys(Params, flatten_with_keys, unflatten)
          """, reason="the frozen set is part of the structure"),
    Wrong("1. A node whose structure is its names", "registered without keys: flat indices",
          """
          def flatten(p):
              names = tuple(sorted(p.arrays))
              return [p.arrays[n] for n in names], (names, p.frozen)

          def unflatten(aux_data, children):
              names, frozen = aux_data
              return Params(dict(zip(names, children)), frozen)

          register_pytree_node(Params, flatten, unflatten)
          """, reason=r"key paths .* should be \['layer'\]\['b'\]"),
    Wrong("2. A tree definition, flat", "pre-order: each node before its children",
          """
          nodes = [(treedef.node_type, len(treedef.child_treedefs), treedef.node_data)]
          for child in treedef.child_treedefs:
              nodes += postorder(child)
          return nodes
          """, reason="the right entries in the wrong order"),
    Wrong("2. A tree definition, flat", "the arity counted in leaves beneath, not children",
          """
          nodes = []
          for child in treedef.child_treedefs:
              nodes += postorder(child)
          arity = 0 if treedef.node_type is None else treedef.num_leaves
          nodes.append((treedef.node_type, arity, treedef.node_data))
          return nodes
          """, reason=r"the nodes in post-order are .*\(NodeType\(list\), 2, None\)"),
    Wrong("2. A tree definition, flat", "the leaves left out, as they hold no structure",
          """
          nodes = []
          for child in treedef.child_treedefs:
              nodes += postorder(child)
          if treedef.node_type is not None:
              nodes.append((treedef.node_type, len(treedef.child_treedefs), treedef.node_data))
          return nodes
          """, reason="leaves included"),
    Wrong("3. Unflattening with a stack", "the children popped one by one, so last child first",
          """
          stack, leaves = [], iter(leaves)
          for node_type, arity, node_data in nodes:
              if node_type is None:
                  stack.append(next(leaves))
                  continue
              children = tuple(stack.pop() for _ in range(arity))
              stack.append(node_type.unflatten(node_data, children))
          return stack[-1]
          """, reason="with the leaves .* should give"),
    Wrong("3. Unflattening with a stack", "the leaves taken from the end of the list",
          """
          stack, leaves = [], list(leaves)
          for node_type, arity, node_data in nodes:
              if node_type is None:
                  stack.append(leaves.pop())
                  continue
              children = tuple(stack[len(stack) - arity:])
              del stack[len(stack) - arity:]
              stack.append(node_type.unflatten(node_data, children))
          return stack[-1]
          """, reason="with the leaves .* should give"),
    Wrong("3. Unflattening with a stack", "recursion from the root, the last node, backwards",
          """
          leaves = list(leaves)

          def build(i):  # the subtree whose root is nodes[i], and the index just before it
              node_type, arity, node_data = nodes[i]
              if node_type is None:
                  return leaves.pop(), i - 1
              children, i = [], i - 1
              for _ in range(arity):
                  child, i = build(i)
                  children.append(child)
              return node_type.unflatten(node_data, tuple(reversed(children))), i

          return build(len(nodes) - 1)[0]
          """, reason="recursion limit"),
    Wrong("3. Unflattening with a stack", "a PyTreeDef rebuilt with a stack, then tree_unflatten",
          """
          stack = []
          for node_type, arity, node_data in nodes:
              children = tuple(stack[len(stack) - arity:])
              del stack[len(stack) - arity:]
              stack.append(PyTreeDef(node_type, node_data, children))
          return tree_unflatten(stack[-1], leaves)
          """, reason="called tree_unflatten"),
    Wrong('3. Unflattening with a stack',
          "the caller's list of leaves consumed",
          """
          stack = []
          for node_type, arity, node_data in nodes:
              if node_type is None:
                  stack.append(leaves.pop(0))
                  continue
              children = tuple(stack[len(stack) - arity:])
              del stack[len(stack) - arity:]
              stack.append(node_type.unflatten(node_data, children))
          (tree,) = stack
          return tree
          """,
          reason='changed the list of leaves'),
]
# --- round 3
WRONG += [
    Wrong("3. Unflattening with a stack", "a node of arity 0 (None, ()) taken for a leaf",
          """
          stack, leaves = [], iter(leaves)
          for node_type, arity, node_data in nodes:
              if arity == 0:
                  stack.append(next(leaves))
                  continue
              children = tuple(stack[len(stack) - arity:])
              del stack[len(stack) - arity:]
              stack.append(node_type.unflatten(node_data, children))
          (tree,) = stack
          return tree
          """, reason=r"ran out of leaves.*node type is None"),
]
