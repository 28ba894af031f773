"""Wrong solutions to chapter 10's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

WRONG = [
    Wrong("1. Dead code in a scan", "one round of propagation instead of a fixed point",
          """
          if not any(used_outputs) and not has_effects(eqn):
              return [False] * len(eqn.invars), None
          p = eqn.params
          body, nc, nk = p["jaxpr"], p["num_consts"], p["num_carry"]
          used_ys = list(used_outputs[nk:])
          _, used_in = dce_jaxpr(body.jaxpr, list(used_outputs), prune_inputs=False)
          used_carry = [a or b for a, b in zip(used_outputs[:nk], used_in[nc:nc + nk])]
          j, used_in = dce_jaxpr(body.jaxpr, used_carry + used_ys, prune_inputs=False)
          keep = used_in[:nc] + used_carry + used_in[nc + nk:]
          j = Jaxpr(j.constvars, [v for v, k in zip(j.invars, keep) if k], j.eqns, j.outvars)
          new_eqn = eqn._replace(
              invars=[v for v, k in zip(eqn.invars, keep) if k],
              outvars=[v for v, u in zip(eqn.outvars, used_carry + used_ys) if u],
              params=dict(p, jaxpr=ClosedJaxpr(j, body.consts), num_consts=sum(used_in[:nc]),
                          num_carry=sum(used_carry)))
          return keep, new_eqn
          """, reason=r"only a used.*should be \(4, 5, 4\)"),
    Wrong("1. Dead code in a scan", "carry inputs pruned by what the body reads, apart from outputs",
          """
          if not any(used_outputs) and not has_effects(eqn):
              return [False] * len(eqn.invars), None
          p = eqn.params
          body, nc, nk = p["jaxpr"], p["num_consts"], p["num_carry"]
          j, used_in = dce_jaxpr(body.jaxpr, list(used_outputs))
          new_eqn = eqn._replace(
              invars=[v for v, u in zip(eqn.invars, used_in) if u],
              outvars=[v for v, u in zip(eqn.outvars, used_outputs) if u],
              params=dict(p, jaxpr=ClosedJaxpr(j, body.consts), num_consts=sum(used_in[:nc]),
                          num_carry=sum(used_outputs[:nk])))
          return used_in, new_eqn
          """, reason=r"never reads.*should be \(1, 2, 1\), they are \(1, 1, 1\)"),
    Wrong("1. Dead code in a scan", "every carry kept, only ys and inputs pruned",
          """
          if not any(used_outputs) and not has_effects(eqn):
              return [False] * len(eqn.invars), None
          p = eqn.params
          body, nc, nk = p["jaxpr"], p["num_consts"], p["num_carry"]
          used = [True] * nk + list(used_outputs[nk:])
          j, used_in = dce_jaxpr(body.jaxpr, used, prune_inputs=False)
          keep = used_in[:nc] + [True] * nk + used_in[nc + nk:]
          j = Jaxpr(j.constvars, [v for v, k in zip(j.invars, keep) if k], j.eqns, j.outvars)
          new_eqn = eqn._replace(
              invars=[v for v, k in zip(eqn.invars, keep) if k],
              outvars=[v for v, u in zip(eqn.outvars, used) if u],
              params=dict(p, jaxpr=ClosedJaxpr(j, body.consts), num_consts=sum(used_in[:nc])))
          return keep, new_eqn
          """, reason=r"which nothing uses.*should be \(1, 2, 1\)"),
    Wrong("1. Dead code in a scan", "a scan with no output used dropped, effects or not",
          """
          if not any(used_outputs):
              return [False] * len(eqn.invars), None
          p = eqn.params
          body, nc, nk = p["jaxpr"], p["num_consts"], p["num_carry"]
          used_carry, used_ys = list(used_outputs[:nk]), list(used_outputs[nk:])
          while True:
              j, used_in = dce_jaxpr(body.jaxpr, used_carry + used_ys, prune_inputs=False)
              needed = [a or b for a, b in zip(used_carry, used_in[nc:nc + nk])]
              if needed == used_carry:
                  break
              used_carry = needed
          keep = used_in[:nc] + used_carry + used_in[nc + nk:]
          j = Jaxpr(j.constvars, [v for v, k in zip(j.invars, keep) if k], j.eqns, j.outvars)
          new_eqn = eqn._replace(
              invars=[v for v, k in zip(eqn.invars, keep) if k],
              outvars=[v for v, u in zip(eqn.outvars, used_carry + used_ys) if u],
              params=dict(p, jaxpr=ClosedJaxpr(j, body.consts), num_consts=sum(used_in[:nc]),
                          num_carry=sum(used_carry)))
          return keep, new_eqn
          """, reason="effect"),
]

E3 = "1. Dead code in a scan"
_S =  """
if not any(used_outputs) and not has_effects(eqn):
    return [False] * len(eqn.invars), None
p = eqn.params
body, nc, nk = p["jaxpr"], p["num_consts"], p["num_carry"]
used_carry, used_ys = list(used_outputs[:nk]), list(used_outputs[nk:])
while True:
    j, used_in = dce_jaxpr(body.jaxpr, used_carry + used_ys, prune_inputs=False)
    needed = [a or b for a, b in zip(used_carry, used_in[nc:nc + nk])]
    if needed == used_carry:
        break
    used_carry = needed
keep = used_in[:nc] + used_carry + used_in[nc + nk:]
j = Jaxpr(j.constvars, [v for v, k in zip(j.invars, keep) if k], j.eqns, j.outvars)
new_eqn = eqn._replace(
    invars=[v for v, k in zip(eqn.invars, keep) if k],
    outvars=[v for v, u in zip(eqn.outvars, used_carry + used_ys) if u],
    params=dict(p, jaxpr=ClosedJaxpr(j, body.consts), num_consts={nconsts},
                num_carry=sum(used_carry)))
return keep, new_eqn
"""

WRONG += [
    Wrong(E3, "the equation's params updated in place", _S.format(nconsts="sum(used_in[:nc])")
          .replace("params=dict(p, jaxpr=", "params=p.update(jaxpr=").replace(
              "num_carry=sum(used_carry)))", "num_carry=sum(used_carry)) or p)"),
          reason="changed the params of the scan"),
    Wrong(E3, "two rounds of propagation, then the body pruned once more",
          """
          if not any(used_outputs) and not has_effects(eqn):
              return [False] * len(eqn.invars), None
          p = eqn.params
          body, nc, nk = p["jaxpr"], p["num_consts"], p["num_carry"]
          used_carry, used_ys = list(used_outputs[:nk]), list(used_outputs[nk:])
          for _ in range(2):      # a carry read by one read by a used one
              j, used_in = dce_jaxpr(body.jaxpr, used_carry + used_ys, prune_inputs=False)
              used_carry = [a or b for a, b in zip(used_carry, used_in[nc:nc + nk])]
          j, used_in = dce_jaxpr(body.jaxpr, used_carry + used_ys, prune_inputs=False)
          keep = used_in[:nc] + used_carry + used_in[nc + nk:]
          j = Jaxpr(j.constvars, [v for v, k in zip(j.invars, keep) if k], j.eqns, j.outvars)
          new_eqn = eqn._replace(
              invars=[v for v, k in zip(eqn.invars, keep) if k],
              outvars=[v for v, u in zip(eqn.outvars, used_carry + used_ys) if u],
              params=dict(p, jaxpr=ClosedJaxpr(j, body.consts), num_consts=sum(used_in[:nc]),
                          num_carry=sum(used_carry)))
          return keep, new_eqn
          """, reason=r"d' = d \* x.*should be \(4, 5, 4\)"),
]

E4 = "2. A recurrent loop that grad goes through"
WRONG += [
    Wrong(E4, "a Python loop over the rows: unrolled, one copy of the body per row",
          """
          for i in range(xs.shape[0]):
              h = jnp.tanh(W @ h + xs[i])
          return h
          """, reason="should be one scan, whatever the number of rows"),
    Wrong(E4, "the body reads the initial h, not its carry",
          """
          h_last, _ = scan(lambda c, x: (jnp.tanh(W @ h + x), None), h, xs)
          return h_last
          """, reason="rnn gives"),
    Wrong(E4, "the stacked hs returned instead of the final h",
          """
          _, hs = scan(lambda h, x: (jnp.tanh(W @ h + x),) * 2, h, xs)
          return hs
          """, reason="returns an array of shape"),
]
