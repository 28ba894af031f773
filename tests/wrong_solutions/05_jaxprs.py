"""Wrong solutions to chapter 5's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

_DCE_KEEP = """
jaxpr = closed.jaxpr
needed = {v for v in jaxpr.outvars if isinstance(v, Var)}
kept = []
for eqn in reversed(jaxpr.eqns):
    if any(v in needed for v in eqn.outvars):
        kept.append(eqn)
        needed.update(v for v in eqn.invars if isinstance(v, Var))
"""

_CSE = """
replaced, seen, eqns = {{}}, {{}}, []
for eqn in jaxpr.eqns:
    invars = {invars}
    k = {key}
    earlier = next((outs for params, outs in seen.get(k, []) if {same}), None)
    if earlier is None:
        seen.setdefault(k, []).append((eqn.params, eqn.outvars))
        eqns.append(eqn._replace(invars=invars))
    else:
        {replace}
return Jaxpr(jaxpr.constvars, jaxpr.invars, eqns, {outvars})
"""


def _cse(invars="[replaced.get(v, v) for v in eqn.invars]",
         key="(eqn.primitive, tuple((v.aval.dtype, np.asarray(v.val).tobytes()) "
             "if isinstance(v, Literal) else v for v in invars))",
         same="params == eqn.params", replace="replaced.update(zip(eqn.outvars, earlier))",
         outvars="[replaced.get(v, v) for v in jaxpr.outvars]"):
    return _CSE.format(invars=invars, key=key, same=same, replace=replace, outvars=outvars)


WRONG = [
    Wrong("1. Counting FLOPs", "the contracted size read as the left operand's last dimension",
          """
          total = 0
          for eqn in jaxpr.eqns:
              name = eqn.primitive.name
              if name in ELEMENTWISE:
                  total += eqn.outvars[0].aval.size
              elif name == "reduce_sum":
                  total += eqn.invars[0].aval.size
              elif name == "dot_general":
                  total += 2 * eqn.outvars[0].aval.size * eqn.invars[0].aval.shape[-1]
          return total
          """, reason="contracting their axes 0"),
    Wrong("1. Counting FLOPs", "elementwise operations counted by their first operand's size",
          """
          total = 0
          for eqn in jaxpr.eqns:
              name = eqn.primitive.name
              if name in ELEMENTWISE:
                  total += eqn.invars[0].aval.size
              elif name == "reduce_sum":
                  total += eqn.invars[0].aval.size
              elif name == "dot_general":
                  (x_contract, _), _ = eqn.params["dimension_numbers"]
                  k = int(np.prod([eqn.invars[0].aval.shape[d] for d in x_contract]))
                  total += 2 * eqn.outvars[0].aval.size * k
          return total
          """, reason=r"the scalars come first"),
    Wrong("1. Counting FLOPs", "a multiply-add counted as one operation, and sums by their output",
          """
          total = 0
          for eqn in jaxpr.eqns:
              name = eqn.primitive.name
              if name in ELEMENTWISE or name == "reduce_sum":
                  total += eqn.outvars[0].aval.size
              elif name == "dot_general":
                  (x_contract, _), _ = eqn.params["dimension_numbers"]
                  k = int(np.prod([eqn.invars[0].aval.shape[d] for d in x_contract]))
                  total += eqn.outvars[0].aval.size * k
          return total
          """, reason=r"tanh\(x @ w\)\.sum\(\).*expected 1280 FLOPs"),
    Wrong("1. Counting FLOPs", "every equation counted, data movement included",
          """
          total = 0
          for eqn in jaxpr.eqns:
              if eqn.primitive.name == "dot_general":
                  (x_contract, _), _ = eqn.params["dimension_numbers"]
                  k = int(np.prod([eqn.invars[0].aval.shape[d] for d in x_contract]))
                  total += 2 * eqn.outvars[0].aval.size * k
              elif eqn.primitive.name == "reduce_sum":
                  total += eqn.invars[0].aval.size
              else:
                  total += sum(v.aval.size for v in eqn.outvars)
          return total
          """, reason="a transpose, a reshape.*expected 0 FLOPs"),
    Wrong("2. Dead code elimination", "one forward pass: kept if any later equation reads it",
          """
          jaxpr = closed.jaxpr
          read = {v for e in jaxpr.eqns for v in e.invars} | set(jaxpr.outvars)
          kept = [e for e in jaxpr.eqns if any(v in read for v in e.outvars)]
          needed = {v for e in kept for v in e.invars} | set(jaxpr.outvars)
          consts = [(v, c) for v, c in zip(jaxpr.constvars, closed.consts) if v in needed]
          return ClosedJaxpr(Jaxpr([v for v, _ in consts], jaxpr.invars, kept, jaxpr.outvars),
                             [c for _, c in consts])
          """, reason=r"expected the equations \['mul', 'sin', 'stack', 'unstack', 'cos'"),
    Wrong("2. Dead code elimination", "an equation kept only if all its outputs are needed",
          """
          jaxpr = closed.jaxpr
          needed = {v for v in jaxpr.outvars if isinstance(v, Var)}
          kept = []
          for eqn in reversed(jaxpr.eqns):
              if all(v in needed for v in eqn.outvars):
                  kept.append(eqn)
                  needed.update(v for v in eqn.invars if isinstance(v, Var))
          consts = [(v, c) for v, c in zip(jaxpr.constvars, closed.consts) if v in needed]
          jaxpr = Jaxpr([v for v, _ in consts], jaxpr.invars, kept[::-1], jaxpr.outvars)
          return ClosedJaxpr(jaxpr, [c for _, c in consts])
          """, reason="not well formed"),
    Wrong("2. Dead code elimination", "the equations pruned, the constants all kept",
          _DCE_KEEP + """
          return ClosedJaxpr(Jaxpr(jaxpr.constvars, jaxpr.invars, kept[::-1], jaxpr.outvars),
                             closed.consts)
          """.replace("\n          ", "\n"), reason=r"the constants should be v and u"),
    Wrong("2. Dead code elimination", "the constant variables pruned, but not their values",
          _DCE_KEEP + """
          constvars = [v for v in jaxpr.constvars if v in needed]
          return ClosedJaxpr(Jaxpr(constvars, jaxpr.invars, kept[::-1], jaxpr.outvars),
                             closed.consts)
          """.replace("\n          ", "\n"), reason="drop a constant's value with its variable"),
    Wrong("2. Dead code elimination", "the unused inputs dropped too",
          _DCE_KEEP + """
          consts = [(v, c) for v, c in zip(jaxpr.constvars, closed.consts) if v in needed]
          invars = [v for v in jaxpr.invars if v in needed]
          return ClosedJaxpr(Jaxpr([v for v, _ in consts], invars, kept[::-1], jaxpr.outvars),
                             [c for _, c in consts])
          """.replace("\n          ", "\n"), reason="keep the inputs"),
    Wrong("2. Dead code elimination", "the given jaxpr pruned in place",
          _DCE_KEEP + """
          jaxpr.eqns[:] = kept[::-1]
          keep = [i for i, v in enumerate(jaxpr.constvars) if v in needed]
          closed.consts[:] = [closed.consts[i] for i in keep]
          jaxpr.constvars[:] = [jaxpr.constvars[i] for i in keep]
          return closed
          """.replace("\n          ", "\n"), reason="changed the jaxpr it was given"),
    Wrong("2. Dead code elimination", "chapter 9's dce, from the package",
          """
          from autodidax.autodiff import dce_closed_jaxpr
          return dce_closed_jaxpr(closed)
          """, reason="chapter 9's"),
    Wrong("3. Common subexpressions", "the params left out of the comparison",
          _cse(same="True"), reason="output 0 of distinct"),
    Wrong("3. Common subexpressions", "literals compared as objects, not by value",
          _cse(key="(eqn.primitive, tuple(invars))"), reason=r"'mul': 1.*it keeps.*'mul': 2"),
    Wrong("3. Common subexpressions", "inputs compared before the replacements",
          _cse(key="(eqn.primitive, tuple((v.aval.dtype, np.asarray(v.val).tobytes()) "
                   "if isinstance(v, Literal) else v for v in eqn.invars))"),
          reason=r"'cos': 1.*it keeps.*'cos': 2"),
    Wrong("3. Common subexpressions", "the jaxpr's outputs not replaced",
          _cse(outvars="jaxpr.outvars"), reason="not well formed"),
    Wrong("3. Common subexpressions", "every operation taken as commutative: inputs as a set",
          _cse(key="(eqn.primitive, frozenset((v.aval.dtype, np.asarray(v.val).tobytes()) "
                   "if isinstance(v, Literal) else v for v in invars))"),
          reason="output 3 of twice"),
    Wrong("3. Common subexpressions", "only the first output of an equation replaced",
          _cse(replace="replaced[eqn.outvars[0]] = earlier[0]"), reason="not well formed"),
    Wrong('2. Dead code elimination',
          'kept if its first output is needed',
          """
          jaxpr = closed.jaxpr
          needed = {v for v in jaxpr.outvars if isinstance(v, Var)}
          kept = []
          for eqn in reversed(jaxpr.eqns):
              if eqn.outvars[0] in needed:
                  kept.append(eqn)
                  needed.update(v for v in eqn.invars if isinstance(v, Var))
          consts = [(v, c) for v, c in zip(jaxpr.constvars, closed.consts) if v in needed]
          jaxpr = Jaxpr([v for v, _ in consts], jaxpr.invars, kept[::-1], jaxpr.outvars)
          return ClosedJaxpr(jaxpr, [c for _, c in consts])
          """,
          reason='not well formed'),
    Wrong('2. Dead code elimination',
          'constants kept if a kept equation reads them, not an output',
          """
          jaxpr = closed.jaxpr
          needed = {v for v in jaxpr.outvars if isinstance(v, Var)}
          kept = []
          for eqn in reversed(jaxpr.eqns):
              if any(v in needed for v in eqn.outvars):
                  kept.append(eqn)
                  needed.update(v for v in eqn.invars if isinstance(v, Var))
          read = {v for e in kept for v in e.invars}
          consts = [(v, c) for v, c in zip(jaxpr.constvars, closed.consts) if v in read]
          jaxpr = Jaxpr([v for v, _ in consts], jaxpr.invars, kept[::-1], jaxpr.outvars)
          return ClosedJaxpr(jaxpr, [c for _, c in consts])
          """,
          reason='not well formed'),
    Wrong('3. Common subexpressions',
          'literals compared by value, not dtype',
          """
          replaced, seen, eqns = {}, {}, []
          key = lambda v: ("literal", float(np.asarray(v.val))) if isinstance(v, Literal) else v
          for eqn in jaxpr.eqns:
              invars = [replaced.get(v, v) for v in eqn.invars]
              k = (eqn.primitive, tuple(map(key, invars)))
              earlier = next((outs for params, outs in seen.get(k, []) if params == eqn.params), None)
              if earlier is None:
                  seen.setdefault(k, []).append((eqn.params, eqn.outvars))
                  eqns.append(eqn._replace(invars=invars))
              else:
                  replaced.update(zip(eqn.outvars, earlier))
          return Jaxpr(jaxpr.constvars, jaxpr.invars, eqns, [replaced.get(v, v) for v in jaxpr.outvars])
          """,
          reason='should keep the equations'),
]

# found by the third round of adversarial review
WRONG += [
    Wrong("1. Counting FLOPs", "only the first contracted dimension multiplied in",
          """
          total = 0
          for eqn in jaxpr.eqns:
              name = eqn.primitive.name
              if name in ELEMENTWISE:
                  total += eqn.outvars[0].aval.size
              elif name == "reduce_sum":
                  total += eqn.invars[0].aval.size
              elif name == "dot_general":
                  (x_contract, _), _ = eqn.params["dimension_numbers"]
                  total += 2 * eqn.outvars[0].aval.size * eqn.invars[0].aval.shape[x_contract[0]]
          return total
          """, reason="contracting two axes: expected 240 FLOPs"),
    Wrong("2. Dead code elimination", "kept if its last output is needed",
          _DCE_KEEP.replace("any(v in needed for v in eqn.outvars)", "eqn.outvars[-1] in needed")
          + """
          consts = [(v, c) for v, c in zip(jaxpr.constvars, closed.consts) if v in needed]
          jaxpr = Jaxpr([v for v, _ in consts], jaxpr.invars, kept[::-1], jaxpr.outvars)
          return ClosedJaxpr(jaxpr, [c for _, c in consts])
          """.replace("\n          ", "\n"), reason="not well formed"),
    Wrong("3. Common subexpressions", "literals compared by their bytes, not their dtype",
          """
          replaced, seen, eqns = {}, {}, []
          key = lambda v: ("literal", np.asarray(v.val).tobytes()) if isinstance(v, Literal) else v
          for eqn in jaxpr.eqns:
              invars = [replaced.get(v, v) for v in eqn.invars]
              k = (eqn.primitive, tuple(map(key, invars)))
              earlier = next((outs for params, outs in seen.get(k, []) if params == eqn.params), None)
              if earlier is None:
                  seen.setdefault(k, []).append((eqn.params, eqn.outvars))
                  eqns.append(eqn._replace(invars=invars))
              else:
                  replaced.update(zip(eqn.outvars, earlier))
          return Jaxpr(jaxpr.constvars, jaxpr.invars, eqns, [replaced.get(v, v) for v in jaxpr.outvars])
          """, reason="should keep the equations"),
]
