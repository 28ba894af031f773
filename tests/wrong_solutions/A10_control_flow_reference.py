"""Wrong solutions to appendix A10's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

WRONG = [
    Wrong("1. A loop that grad can go through", "fori_loop itself: a while_loop when a bound is traced",
          """
          return fori_loop(lower, upper, body_fun, init_val)
          """, reason="grad with traced bounds failed.*while_loop"),
    Wrong("1. A loop that grad can go through", "every one of the max_steps steps taken",
          """
          def step(carry, _):
              i, val = carry
              return (i + 1, body_fun(i, val)), None

          (_, val), _ = scan(step, (lower, init_val), None, length=max_steps)
          return val
          """, reason="with lower=0, upper=3"),
    Wrong("1. A loop that grad can go through", "the steps counted from 0, and passed as the index",
          """
          def step(carry, _):
              i, val = carry
              val = cond(i < upper - lower, lambda v: body_fun(i, v), lambda v: v, val)
              return (i + 1, val), None

          (_, val), _ = scan(step, (0, init_val), None, length=max_steps)
          return val
          """, reason="with lower=2, upper=5"),
    Wrong("1. A loop that grad can go through", "a Python loop that tests the bound with if",
          """
          val = init_val
          for k in range(max_steps):
              if lower + k < upper:
                  val = body_fun(lower + k, val)
          return val
          """, reason="Python cannot branch"),
    Wrong("2. Dead code in a cond", "each branch pruned of the inputs it does not read",
          """
          if not any(used_outputs) and not has_effects(eqn):
              return [False] * len(eqn.invars), None
          branches, used_ops = [], [False] * (len(eqn.invars) - 1)
          for branch in eqn.params["branches"]:
              j, used = dce_jaxpr(branch.jaxpr, used_outputs)
              branches.append(ClosedJaxpr(j, branch.consts))
              used_ops = [a or b for a, b in zip(used_ops, used)]
          new_eqn = eqn._replace(
              invars=[eqn.invars[0]] + [v for v, u in zip(eqn.invars[1:], used_ops) if u],
              outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
              params=dict(eqn.params, branches=tuple(branches)))
          return [True] + used_ops, new_eqn
          """, reason="ill-typed.*branch 0 takes"),
    Wrong("2. Dead code in a cond", "the outputs pruned, every operand kept",
          """
          if not any(used_outputs) and not has_effects(eqn):
              return [False] * len(eqn.invars), None
          branches = tuple(ClosedJaxpr(dce_jaxpr(b.jaxpr, used_outputs, prune_inputs=False)[0],
                                       b.consts) for b in eqn.params["branches"])
          return [True] * len(eqn.invars), eqn._replace(
              outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
              params=dict(eqn.params, branches=branches))
          """, reason="should take 2 operands.*it takes 3"),
    Wrong("2. Dead code in a cond", "the operands read by the first branch, taken for all",
          """
          if not any(used_outputs) and not has_effects(eqn):
              return [False] * len(eqn.invars), None
          _, used_ops = dce_jaxpr(eqn.params["branches"][0].jaxpr, used_outputs)
          branches = []
          for branch in eqn.params["branches"]:
              j, _ = dce_jaxpr(branch.jaxpr, used_outputs, prune_inputs=False)
              branches.append(ClosedJaxpr(Jaxpr(j.constvars,
                                                [v for v, u in zip(j.invars, used_ops) if u],
                                                j.eqns, j.outvars), branch.consts))
          new_eqn = eqn._replace(
              invars=[eqn.invars[0]] + [v for v, u in zip(eqn.invars[1:], used_ops) if u],
              outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
              params=dict(eqn.params, branches=tuple(branches)))
          return [True] + used_ops, new_eqn
          """, reason="should take 2 operands.*it takes 1"),
    Wrong("2. Dead code in a cond", "a cond with no output used dropped, effects or not",
          """
          if not any(used_outputs):
              return [False] * len(eqn.invars), None
          pruned, used_ops = [], [False] * (len(eqn.invars) - 1)
          for branch in eqn.params["branches"]:
              j, used = dce_jaxpr(branch.jaxpr, used_outputs, prune_inputs=False)
              pruned.append((j, branch.consts))
              used_ops = [a or b for a, b in zip(used_ops, used)]
          branches = tuple(ClosedJaxpr(Jaxpr(j.constvars,
                                             [v for v, u in zip(j.invars, used_ops) if u],
                                             j.eqns, j.outvars), consts) for j, consts in pruned)
          new_eqn = eqn._replace(
              invars=[eqn.invars[0]] + [v for v, u in zip(eqn.invars[1:], used_ops) if u],
              outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
              params=dict(eqn.params, branches=branches))
          return [True] + used_ops, new_eqn
          """, reason="effect"),
    Wrong("2. Dead code in a cond", "the flags of the operands returned, without the index's",
          """
          if not any(used_outputs) and not has_effects(eqn):
              return [False] * len(eqn.invars), None
          pruned, used_ops = [], [False] * (len(eqn.invars) - 1)
          for branch in eqn.params["branches"]:
              j, used = dce_jaxpr(branch.jaxpr, used_outputs, prune_inputs=False)
              pruned.append((j, branch.consts))
              used_ops = [a or b for a, b in zip(used_ops, used)]
          branches = tuple(ClosedJaxpr(Jaxpr(j.constvars,
                                             [v for v, u in zip(j.invars, used_ops) if u],
                                             j.eqns, j.outvars), consts) for j, consts in pruned)
          new_eqn = eqn._replace(
              invars=[eqn.invars[0]] + [v for v, u in zip(eqn.invars[1:], used_ops) if u],
              outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
              params=dict(eqn.params, branches=branches))
          return used_ops, new_eqn
          """, reason="the index first"),
]

WRONG += [
    Wrong("2. Dead code in a cond", "the operands read by the last branch, taken for all",
          """
          if not any(used_outputs) and not has_effects(eqn):
              return [False] * len(eqn.invars), None
          pruned = []
          for branch in eqn.params["branches"]:
              j, used_ops = dce_jaxpr(branch.jaxpr, used_outputs, prune_inputs=False)
              pruned.append((j, branch.consts))
          branches = tuple(ClosedJaxpr(Jaxpr(j.constvars,
                                             [v for v, u in zip(j.invars, used_ops) if u],
                                             j.eqns, j.outvars), consts) for j, consts in pruned)
          new_eqn = eqn._replace(
              invars=[eqn.invars[0]] + [v for v, u in zip(eqn.invars[1:], used_ops) if u],
              outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
              params=dict(eqn.params, branches=branches))
          return [True] + used_ops, new_eqn
          """, reason="whichever branch reads y .* it takes 1"),
]

E2 = "2. Dead code in a cond"
_C = """
if not any(used_outputs) and not has_effects(eqn):
    return [False] * len(eqn.invars), None
{loop}
branches = tuple(ClosedJaxpr(Jaxpr(j.constvars, [v for v, u in zip(j.invars, used_ops) if u],
                                   j.eqns, j.outvars), consts) for j, consts in pruned)
{params}
new_eqn = eqn._replace(
    invars=[eqn.invars[0]] + [v for v, u in zip(eqn.invars[1:], used_ops) if u],
    outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
    params=params)
return [True] + used_ops, new_eqn
"""
_LOOP = """
pruned, used_ops = [], [False] * (len(eqn.invars) - 1)
for branch in eqn.params["branches"]:
    j, used = dce_jaxpr(branch.jaxpr, used_outputs, prune_inputs=False)
    pruned.append((j, branch.consts))
    used_ops = [a or b for a, b in zip(used_ops, used)]
"""
_TWO = """
true_b, false_b = eqn.params["branches"]
jt, ut = dce_jaxpr(true_b.jaxpr, used_outputs, prune_inputs=False)
jf, uf = dce_jaxpr(false_b.jaxpr, used_outputs, prune_inputs=False)
pruned = [(jt, true_b.consts), (jf, false_b.consts)]
used_ops = [a or b for a, b in zip(ut, uf)]
"""
WRONG += [
    Wrong(E2, "the branches unpacked as two, true and false: a switch has more",
          _C.format(loop=_TWO, params="params = dict(eqn.params, branches=branches)"),
          reason="switch of three branches"),
    Wrong(E2, "the equation's params updated in place",
          _C.format(loop=_LOOP, params='params = eqn.params\nparams["branches"] = branches'),
          reason="changed the params of the cond"),
]
