"""Wrong solutions to appendix A4's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

_PY = """
names = names_for([jaxpr])

def atom(v):
    return Text(f"{np.asarray(v.val)[()]}") if _is_literal(v) else Text(names[v])
head = pp_call("def f", [atom(v) for v in [*jaxpr.constvars, *jaxpr.invars]]) + Text(":")
lines = []
for eqn in jaxpr.eqns:
    shown = pp_param_rules.get(eqn.primitive, lambda p: p)(eqn.params)
    args = [atom(v) for v in eqn.invars] + [Text(f"{k}={shown[k]}") for k in sorted(shown)]
    lhs = ", ".join(names[v] for v in eqn.outvars)
    lines.append(Text(f"{lhs} = ") + pp_call(eqn.primitive.name, args))
lines.append(Text("return ") + join(Text(", "), [atom(v) for v in jaxpr.outvars]))
return head + Nest(4, Concat([Brk() + line for line in lines]))
"""

WRONG = [
    Wrong("1. A call, on one line or many", "the comma's space put in the text, not in the break",
          """
          return Group(Nest(4, Text(f"{name}(") + Brk("") + join(Text(", ") + Brk(""), args))
                       + Brk("") + Text(")"))
          """, reason="ends in a space"),
    Wrong("1. A call, on one line or many", "the closing break nested with the arguments",
          """
          return Group(Nest(4, Text(f"{name}(") + Brk("") + join(Text(",") + Brk(), args)
                            + Brk("") + Text(")")))
          """, reason="the '\\)' should be on a line of its own"),
    Wrong("1. A call, on one line or many", "no group, so the breaks are always taken",
          """
          return Nest(4, Text(f"{name}(") + Brk("") + join(Text(",") + Brk(), args)) \\
              + Brk("") + Text(")")
          """, reason="flat: expected 'f\\(x, y\\)'"),
    Wrong("1. A call, on one line or many", "the arguments aligned under the parenthesis",
          """
          return Group(Nest(len(name) + 1, Text(f"{name}(") + join(Text(",") + Brk(), args))
                       + Text(")"))
          """, reason="four columns deeper"),
    Wrong("2. A jaxpr as a Python function", "literals printed with their type, as pp_vars does",
          _PY.replace('Text(f"{np.asarray(v.val)[()]}")', "Text(literal_str(v))"),
          reason="a literal as its value alone"),
    Wrong("2. A jaxpr as a Python function", "fresh names, with no _ for an unread output",
          _PY.replace("names = names_for([jaxpr])", "names = Names()"),
          reason="its output is _"),
    Wrong("2. A jaxpr as a Python function", "the body in a group, so a short one fits on one line",
          _PY.replace("return head + Nest(4, Concat([Brk() + line for line in lines]))",
                      "return head + Group(Nest(4, Concat([Brk() + line for line in lines])))"),
          reason="on a line of its own"),
    Wrong("2. A jaxpr as a Python function", "the equation's parameters as they are",
          _PY.replace("shown = pp_param_rules.get(eqn.primitive, lambda p: p)(eqn.params)",
                      "shown = eqn.params"),
          reason="as pp_param_rules shows them"),
    Wrong("2. A jaxpr as a Python function", "the inputs only, the constants left out",
          _PY.replace("[*jaxpr.constvars, *jaxpr.invars]", "jaxpr.invars"),
          reason="the constants are the first parameters"),
    Wrong("1. A call, on one line or many", "the ')' left out of the group, so not measured",
          """
          return Text(f"{name}(") + Group(Nest(4, Brk("") + join(Text(",") + Brk(), args))
                                          + Brk("")) + Text(")")
          """, reason='does not fit, and should break'),
    Wrong("1. A call, on one line or many", "the arguments two columns in",
          """
          return Group(Nest(2, Text(f"{name}(") + Brk("") + join(Text(",") + Brk(), args))
                       + Brk("") + Text(")"))
          """, reason='four columns deeper'),
    Wrong("2. A jaxpr as a Python function", "the parameters in the equation's order, unsorted",
          _PY.replace("for k in sorted(shown)", "for k in shown"), reason='sort them by key'),
    Wrong("2. A jaxpr as a Python function", "the def line as one text, never broken",
          _PY.replace('head = pp_call("def f", [atom(v) for v in '
                      '[*jaxpr.constvars, *jaxpr.invars]]) + Text(":")',
                      'head = Text("def f(" + ", ".join(names[v] for v in [*jaxpr.constvars, '
                      '*jaxpr.invars]) + "):")'),
          reason='the def line'),
    Wrong("2. A jaxpr as a Python function", "literals as Python floats",
          _PY.replace('Text(f"{np.asarray(v.val)[()]}")', 'Text(f"{float(v.val)}")'),
          reason=r"mul\(a, 2\)'"),
    Wrong("2. A jaxpr as a Python function", "the outputs returned as a tuple in parentheses",
          _PY.replace('Text("return ") + join(Text(", "), [atom(v) for v in jaxpr.outvars])',
                      'Text("return ") + pp_call("", [atom(v) for v in jaxpr.outvars])'),
          reason="return e'"),
    Wrong("1. A call, on one line or many", "the first argument kept on the line of 'f('",
          """
          return Group(Nest(4, Text(f"{name}(") + join(Text(",") + Brk(), args))
                       + Brk("") + Text(")"))
          """, reason="from the line after 'f\\('"),
]
