"""Wrong solutions to chapter 14's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1, E2, E3 = ("1. A policy that weighs the cost", "2. What the backward pass recomputes",
              "3. A loop checkpointed in blocks")

_POL = """
def policy(prim, *avals, **params):
    if prim is not lax.dot_general_p:
        return False
    lhs, rhs = avals
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    b = BBB
    k = KKK
    m = int(np.prod([d for i, d in enumerate(lhs.shape) if i not in lc and i not in lb]))
    n = int(np.prod([d for i, d in enumerate(rhs.shape) if i not in rc and i not in rb]))
    return 2 * b * m * n * k >= min_flops
return policy
"""
_B = "int(np.prod([lhs.shape[i] for i in lb]))"
_K = "int(np.prod([lhs.shape[i] for i in lc]))"

_REC = """
found = []
for eqn in jax.make_jaxpr(jax.grad(f))(*args).jaxpr.eqns:
    if eqn.primitive.name != "remat2" or not eqn.params["differentiated"]:
        continue
    inner = eqn.params["jaxpr"]
    tainted, names = {inner.invars[-1]}, []
    for e in inner.eqns:
        if any(type(v) is Var and v in tainted for v in e.invars):
            tainted.update(e.outvars)
        else:
            names.append(e.primitive.name)
    found.append(names)
return found
"""


WRONG = [
    Wrong(E1, "the batch dimensions left out of the count",
          """
          def policy(prim, *avals, **params):
              if prim is not lax.dot_general_p:
                  return False
              lhs, rhs = avals
              (lc, rc), (lb, rb) = params["dimension_numbers"]
              k = int(np.prod([lhs.shape[i] for i in lc]))
              m = int(np.prod([d for i, d in enumerate(lhs.shape) if i not in lc and i not in lb]))
              n = int(np.prod([d for i, d in enumerate(rhs.shape) if i not in rc and i not in rb]))
              return 2 * m * n * k >= min_flops
          return policy
          """, reason="with min_flops=320"),
    Wrong(E1, "the batch dimensions counted twice, once in M and once in N",
          """
          def policy(prim, *avals, **params):
              if prim is not lax.dot_general_p:
                  return False
              lhs, rhs = avals
              (lc, rc), _ = params["dimension_numbers"]
              k = int(np.prod([lhs.shape[i] for i in lc]))
              m = int(np.prod([d for i, d in enumerate(lhs.shape) if i not in lc]))
              n = int(np.prod([d for i, d in enumerate(rhs.shape) if i not in rc]))
              return 2 * m * n * k >= min_flops
          return policy
          """, reason="with min_flops=385"),
    Wrong(E1, "the size of the result taken for the work, the contraction forgotten",
          """
          def policy(prim, *avals, **params):
              if prim is not lax.dot_general_p:
                  return False
              lhs, rhs = avals
              (lc, rc), (lb, rb) = params["dimension_numbers"]
              b = int(np.prod([lhs.shape[i] for i in lb]))
              m = int(np.prod([d for i, d in enumerate(lhs.shape) if i not in lc and i not in lb]))
              n = int(np.prod([d for i, d in enumerate(rhs.shape) if i not in rc and i not in rb]))
              return 2 * b * m * n >= min_flops
          return policy
          """, reason="with min_flops=24"),
    Wrong(E1, "an (m, k) by (k, n) product assumed: the contraction is the last dimension of lhs",
          """
          def policy(prim, *avals, **params):
              if prim is not lax.dot_general_p:
                  return False
              lhs, rhs = avals
              m, k, n = int(np.prod(lhs.shape[:-1])), lhs.shape[-1], rhs.shape[-1]
              return 2 * m * n * k >= min_flops
          return policy
          """, reason="with min_flops=384"),
    Wrong(E1, "every product saved, whatever it costs",
          """
          return policies.dots_saveable
          """, reason="with min_flops=25"),
    Wrong(E2, "every equation of the backward pass, the cotangent arithmetic too",
          """
          return [[e.primitive.name for e in eqn.params["jaxpr"].eqns]
                  for eqn in jax.make_jaxpr(jax.grad(f))(*args).jaxpr.eqns
                  if eqn.primitive.name == "remat2" and eqn.params["differentiated"]]
          """, reason="recomputed equations should be"),
    Wrong(E2, "only the equations that read the residuals directly",
          """
          found = []
          for eqn in jax.make_jaxpr(jax.grad(f))(*args).jaxpr.eqns:
              if eqn.primitive.name == "remat2" and eqn.params["differentiated"]:
                  inner = eqn.params["jaxpr"]
                  residuals = set(inner.invars[:-1])
                  found.append([e.primitive.name for e in inner.eqns
                                if all(type(v) is not Var or v in residuals for v in e.invars)])
          return found
          """, reason="recomputed equations should be"),
    Wrong(E2, "dependence on the cotangent not followed through the equations that use it",
          """
          found = []
          for eqn in jax.make_jaxpr(jax.grad(f))(*args).jaxpr.eqns:
              if eqn.primitive.name == "remat2" and eqn.params["differentiated"]:
                  inner = eqn.params["jaxpr"]
                  ct = inner.invars[-1]
                  found.append([e.primitive.name for e in inner.eqns if ct not in e.invars])
          return found
          """, reason="recomputed equations should be"),
    Wrong(E2, "the cotangent taken to be the first input",
          """
          found = []
          for eqn in jax.make_jaxpr(jax.grad(f))(*args).jaxpr.eqns:
              if eqn.primitive.name == "remat2" and eqn.params["differentiated"]:
                  inner = eqn.params["jaxpr"]
                  tainted, names = {inner.invars[0]}, []
                  for e in inner.eqns:
                      if any(type(v) is Var and v in tainted for v in e.invars):
                          tainted.update(e.outvars)
                      else:
                          names.append(e.primitive.name)
                  found.append(names)
          return found
          """, reason="recomputed equations should be"),
    Wrong(E3, "each step checkpointed, as the chapter's deep network is",
          """
          return lax.scan(jax.checkpoint(body), carry, xs)
          """, reason="should save the carry at the start of each block"),
    Wrong(E3, "the steps cut into blocks, the blocks not checkpointed",
          """
          n = xs.shape[0]
          blocks = xs.reshape((n // k, k) + xs.shape[1:])
          carry, ys = lax.scan(lambda c, xb: lax.scan(body, c, xb), carry, blocks)
          return carry, ys.reshape((n,) + ys.shape[2:])
          """, reason="should save the carry at the start of each block"),
    Wrong(E3, "the whole loop checkpointed as one block",
          """
          return jax.checkpoint(lambda c, xs: lax.scan(body, c, xs))(carry, xs)
          """, reason="should save the carry at the start of each block"),
    Wrong(E3, "k blocks of n / k steps, not n / k blocks of k",
          """
          n = xs.shape[0]
          blocks = xs.reshape((k, n // k) + xs.shape[1:])
          block = jax.checkpoint(lambda c, xb: lax.scan(body, c, xb))
          carry, ys = lax.scan(block, carry, blocks)
          return carry, ys.reshape((n,) + ys.shape[2:])
          """, reason="should save the carry at the start of each block"),
    Wrong(E3, "the outputs left stacked by block",
          """
          n = xs.shape[0]
          blocks = xs.reshape((n // k, k) + xs.shape[1:])
          block = jax.checkpoint(lambda c, xb: lax.scan(body, c, xb))
          return lax.scan(block, carry, blocks)
          """, reason="ys should have shape"),
    Wrong(E1, "only the first contracted dimension counted",
          _POL.replace("BBB", _B).replace("KKK", "lhs.shape[lc[0]]"),
          reason='with two contracted dimensions.*min_flops=120'),
    Wrong(E1, "only the first batch dimension counted",
          _POL.replace("BBB", "lhs.shape[lb[0]] if lb else 1").replace("KKK", _K),
          reason='with two contracted dimensions.*min_flops=120'),
    Wrong(E2, "every remat2, the forward ones too",
          _REC.replace('if eqn.primitive.name != "remat2" or not eqn.params["differentiated"]:',
                       'if eqn.primitive.name != "remat2":'),
          reason='for a block applied to a constant too'),
    Wrong(E3, "a Python loop over the blocks, each a checkpointed scan",
          """
n = xs.shape[0]
block = jax.checkpoint(lambda c, xb: lax.scan(body, c, xb))
ys = []
for j in range(n // k):
    carry, y = block(carry, xs[j * k:(j + 1) * k])
    ys.append(y)
return carry, jnp.concatenate(ys)
""", reason='should save the carry at the start of each block'),
    Wrong(E3, "the outputs flattened to (n, -1)",
          """
n = xs.shape[0]
blocks = xs.reshape((n // k, k) + xs.shape[1:])
block = jax.checkpoint(lambda c, xb: lax.scan(body, c, xb))
carry, ys = lax.scan(block, carry, blocks)
return carry, ys.reshape(n, -1)
""", reason='ys should have shape \\(12, 4, 8\\)'),
]
WRONG += [
    Wrong(E1, "the rhs's batch dimensions taken to be at lhs_batch's positions",
          _POL.replace("BBB", _B).replace("KKK", _K).replace(
              "i not in rc and i not in rb", "i not in rc and i not in lb"),
          reason="a batch dimension at 0 in lhs but 2 in rhs.*min_flops=241"),
    Wrong(E1, "a strict comparison: at least min_flops read as more than",
          _POL.replace("BBB", _B).replace("KKK", _K).replace(">= min_flops", "> min_flops"),
          reason="with min_flops=24 "),
    Wrong(E2, "only the first output of an equation that reads the cotangent followed",
          _REC.replace("tainted.update(e.outvars)", "tainted.add(e.outvars[0])"),
          reason="for a block calling a jitted function of two arguments"),
]
