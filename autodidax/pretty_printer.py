# Generated from chapters/A4_printing.md by `make export`: edit the chapter, not this file.


"""Printing jaxprs as JAX prints them: a pretty printer of documents with optional line breaks,
and the rules that make a jaxpr into a document (names, types, parameters, nested jaxprs).

It reads jaxprs through their attributes only, and imports nothing from `autodidax.jaxpr`."""
from __future__ import annotations

import numpy as np

from autodidax import lax_core as lax


class Doc:
    """A document for the pretty printer."""
    __slots__ = ()

    def __add__(self, other):
        return Concat((self, other))

    def format(self, width: int = 80, use_color: bool = False) -> str:
        return _format(self, width, use_color)


class Text(Doc):
    __slots__ = ("s",)
    def __init__(self, s): self.s = s


class Brk(Doc):
    __slots__ = ("s",)
    def __init__(self, s=" "): self.s = s


class Concat(Doc):
    __slots__ = ("parts",)
    def __init__(self, parts): self.parts = tuple(parts)


class Nest(Doc):
    __slots__ = ("n", "child")
    def __init__(self, n, child): self.n, self.child = n, child


class Group(Doc):
    __slots__ = ("child",)
    def __init__(self, child): self.child = child


class Color(Doc):
    """`child` in an ANSI colour and intensity; None keeps the surrounding one."""
    __slots__ = ("child", "foreground", "intensity")
    def __init__(self, child, foreground=None, intensity=None):
        self.child, self.foreground, self.intensity = child, foreground, intensity


BLUE, MAGENTA, BRIGHT, NORMAL = 34, 35, 1, 22         # ANSI codes
_DEFAULT = (39, NORMAL)                               # the terminal's colour, normal intensity


def keyword(doc: Doc) -> Doc:
    return Color(doc, BLUE, BRIGHT)


def type_annotation(doc: Doc) -> Doc:
    return Color(doc, MAGENTA, NORMAL)


def join(sep: Doc, docs) -> Doc:
    parts = []
    for i, d in enumerate(docs):
        if i:
            parts.append(sep)
        parts.append(d)
    return Concat(parts)


def _fits(doc: Doc, room: int) -> bool:
    """Whether `doc`, printed flat, takes at most `room` characters."""
    stack = [doc]
    while stack and room >= 0:
        d = stack.pop()
        if type(d) in (Text, Brk):
            room -= len(d.s)
        elif type(d) is Concat:
            stack.extend(d.parts)
        else:
            stack.append(d.child)
    return room >= 0


def _recolor(shown, wanted) -> str:
    """The ANSI escape from colour `shown` to `wanted`: only the codes that change."""
    codes = [str(w) for s, w in zip(shown, wanted) if s != w]
    return f"\x1b[{';'.join(codes)}m" if codes else ""


def _format(doc: Doc, width: int, use_color: bool = False) -> str:
    out, column, shown = [], 0, _DEFAULT
    stack = [(0, False, doc, _DEFAULT)]   # (indentation, flat?, document, colour): no recursion
    while stack:
        indent, flat, d, color = stack.pop()
        kind = type(d)
        if kind is Text or (kind is Brk and flat):
            if use_color and color != shown:  # change colour only where visible text needs it
                out.append(_recolor(shown, color))
                shown = color
            out.append(d.s)
            column += len(d.s)
        elif kind is Brk:
            out.append("\n" + " " * indent)
            column = indent
        elif kind is Concat:
            stack.extend((indent, flat, p, color) for p in reversed(d.parts))
        elif kind is Nest:
            stack.append((indent + d.n, flat, d.child, color))
        elif kind is Color:
            inner = (d.foreground or color[0], d.intensity or color[1])
            stack.append((indent, flat, d.child, inner))
        else:
            stack.append((indent, flat or _fits(d.child, width - column), d.child, color))
    if use_color:
        out.append(_recolor(shown, _DEFAULT))
    return "".join(out)


def _var_name(i: int) -> str:
    name = ""
    while not name or i:
        i, digit = divmod(i, 26)
        name = chr(ord("a") + digit) + name
    return name


class Names(dict):
    """Names for the variables of one printing, given on first use."""
    def __init__(self, taken=()):
        super().__init__()
        self.count, self.taken, self.shared = 0, set(taken), {}

    def __missing__(self, var):
        name = _var_name(self.count)
        self.count += 1
        while name in self.taken:
            name = _var_name(self.count)
            self.count += 1
        self[var] = name
        return name


def _is_literal(atom) -> bool:
    return hasattr(atom, "val")        # a Literal carries its value; a Var does not


def _is_jaxpr(value) -> bool:
    return hasattr(value, "eqns")      # a Jaxpr or a ClosedJaxpr


def _open(j):
    return getattr(j, "jaxpr", j)      # a ClosedJaxpr's jaxpr, or the Jaxpr itself


def names_for(jaxprs, taken=()) -> Names:
    names = Names(taken)
    for jaxpr in jaxprs:                   # outputs nothing reads are printed as `_`
        used = {v for v in jaxpr.outvars if not _is_literal(v)}
        for eqn in reversed(jaxpr.eqns):
            for v in eqn.outvars:
                if v not in used:
                    names[v] = "_"
            used.update(v for v in eqn.invars if not _is_literal(v))
    return names


def literal_str(lit) -> str:
    # An f-string formats a NumPy float32 through Python's float: a float32 0.1 prints as
    # 0.10000000149011612, its value's float64 digits, as JAX's printer prints it too. A
    # literal made from a Python number prints that number, `0.1`, as JAX's keeps it.
    python = getattr(lit, "python", None)
    value = python if python is not None else np.asarray(lit.val)[()]
    return f"{value}:{lit.aval.str_short()}"


def pp_vars(vs, names, *, separator="", print_shapes=False) -> Doc:
    docs = [Text(literal_str(v)) if _is_literal(v) else
            Text(names[v]) + type_annotation(Text(":" + v.aval.str_short())) if print_shapes
            else Text(names[v]) for v in vs]
    return Nest(2, Group(join(Text(separator) + Group(Brk()), docs)))


pp_param_rules: dict = {}     # primitive -> function(params) -> the params to print


def _pp_param(key, value, names) -> Doc:
    if _is_jaxpr(value):
        return Text(f"{key}=") + _pp_jaxpr(_open(value), names)
    if type(value) is tuple and value and all(_is_jaxpr(j) for j in value):
        docs = [_pp_jaxpr(_open(j), names) for j in value]
        return Text(f"{key}=") + Group(Nest(2, Text("(") + Brk("") + join(Brk(), docs))
                                       + Brk("") + Text(")"))
    return Text(f"{key}={value}")


pp_eqn_rules: dict = {}       # primitive -> function(eqn, names) -> Doc, to print it specially


def pp_eqn(eqn, names) -> Doc:
    return pp_eqn_rules.get(eqn.primitive, pp_eqn_plain)(eqn, names)


def pp_eqn_plain(eqn, names, params=None) -> Doc:
    if params is None:
        shown = pp_param_rules.get(eqn.primitive, lambda p: p)(eqn.params)
        params = [(k, shown[k]) for k in sorted(shown)]
    lhs = pp_vars(eqn.outvars, names, print_shapes=True)     # names are given in this order
    rhs = [Text(eqn.primitive.name)]
    if params:
        pairs = [_pp_param(k, v, names) for k, v in params]
        rhs.append(Group(Nest(2, Text("[") + Brk("") + join(Brk(), pairs)) + Brk("") + Text("]")))
    rhs.append(Text(" ") + pp_vars(eqn.invars, names))
    return Concat([lhs, Text(" = "), *rhs]) if eqn.outvars else Concat(rhs)


def suggest_same_names(names, for_vars, like_vars) -> None:
    """Name the variables `for_vars` (of a nested jaxpr) like `like_vars` (the equation's)."""
    if len(for_vars) != len(like_vars):
        return
    used = set()
    for v, like in zip(for_vars, like_vars):
        if not _is_literal(like) and like not in used and not _is_literal(v) and v not in names:
            used.add(like)
            names[v] = names[like]


def _pp_jaxpr(jaxpr, names, by_name=True) -> Doc:
    if by_name and jaxpr in names.shared:
        return Text(names.shared[jaxpr])
    head = [Text("{ "), keyword(Text("lambda ")),
            pp_vars(jaxpr.constvars, names, print_shapes=True), Text("; "),
            pp_vars(jaxpr.invars, names, print_shapes=True), Text(". "), keyword(Text("let"))]
    eqns = Nest(2, Brk() + join(Brk("; "), [pp_eqn(e, names) for e in jaxpr.eqns]))
    outs = pp_vars(jaxpr.outvars, names, separator=",")
    end = Text(",)" if len(jaxpr.outvars) == 1 else ")")
    return Group(Nest(2, Concat([*head, eqns, Brk(), keyword(Text("in ")), Text("("), outs, end]))
                 + Text(" }"))


def _subjaxprs(jaxpr):
    """(name, jaxpr) for the jaxprs in the parameters of `jaxpr`'s equations."""
    for eqn in jaxpr.eqns:
        name = eqn.params.get("name")
        name = None if name is None else str(name).strip("<>")
        for value in eqn.params.values():
            for j in (value if type(value) is tuple else (value,)):
                if _is_jaxpr(j):
                    yield name, _open(j)


def pp_jaxpr(jaxpr) -> Doc:
    """The document for a whole jaxpr, naming its variables (and its nested jaxprs') afresh.

    As in JAX, a nested jaxpr used more than once, or longer than ten equations, is printed
    once, first, as `let NAME = { lambda ... } in`, and referred to by its name."""
    counts, first_names, order, todo = {}, {}, [], [jaxpr]
    while todo:
        j = todo.pop(0)
        if j not in counts:
            order.append(j)
        counts[j] = counts.get(j, 0) + (2 if j is not jaxpr and len(j.eqns) > 10 else 1)
        for name, sub in _subjaxprs(j):
            if name is not None:            # named by the first equation with a `name`
                first_names.setdefault(sub, name)
            todo.append(sub)
    shared, used = {}, {}
    for j in order:
        if counts[j] > 1 and j is not jaxpr:
            name = first_names.get(j, "jaxpr")
            if used.get(name):              # a second `f` is `f1`, and `f1` is taken too
                used[name] += 1
                name += str(used[name] - 1)
            used[name] = used.get(name, 0) + 1
            shared[j] = name
    names = names_for([jaxpr], taken=shared.values())   # `_` at the top only, as in JAX
    names.shared.update(shared)     # all known before any is printed: one may use another
    docs = []
    for j, name in shared.items():
        docs += [Text(f"let {name} = "), _pp_jaxpr(j, names, by_name=False), Text(" in"), Brk()]
    return Concat(docs + [_pp_jaxpr(jaxpr, names)])


def var_names(jaxpr) -> Names:
    """The names printing gives the variables of `jaxpr` (every output named, none `_`): for
    messages about a jaxpr, such as chapter 5's type checker's, and drawings of it."""
    names = Names()
    _pp_jaxpr(jaxpr, names)
    return names


def _broadcast_in_dim_params(params):       # shape and sharding: the binder's type says them
    shown = {k: v for k, v in params.items() if k not in ("shape", "sharding")}
    if not shown["broadcast_dimensions"]:
        del shown["broadcast_dimensions"]
    return shown


def _dot_general_params(params):
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    shown = {k: v for k, v in params.items() if v is not None}
    shown["dimension_numbers"] = ((list(lc), list(rc)), (list(lb), list(rb)))
    shown.pop("out_sharding", None)          # the binder's type says it
    return shown


pp_param_rules[lax.broadcast_in_dim_p] = _broadcast_in_dim_params
pp_param_rules[lax.dot_general_p] = _dot_general_params
pp_param_rules[lax.convert_element_type_p] = lambda params: {   # its sharding: as the binder's
    k: v for k, v in params.items() if k != "sharding"}


def jaxpr_graph(jaxpr, *, rankdir="LR"):
    """A graphviz.Digraph of the data flow in a (closed) jaxpr."""
    import graphviz    # a book dependency, not the package's: imported only when drawing

    jaxpr = _open(jaxpr)
    names = var_names(jaxpr)
    g = graphviz.Digraph(graph_attr={"rankdir": rankdir, "fontsize": "11"},
                         node_attr={"fontname": "Helvetica", "fontsize": "11"},
                         edge_attr={"fontname": "Helvetica", "fontsize": "9"})
    source = {}
    for v in jaxpr.constvars:
        source[v] = f"v_{names[v]}"
        g.node(source[v], names[v], shape="box", style="filled", fillcolor="#dddddd")
    for v in jaxpr.invars:
        source[v] = f"v_{names[v]}"
        g.node(source[v], names[v], shape="ellipse", style="filled", fillcolor="#cfe2f3")
    for i, eqn in enumerate(jaxpr.eqns):
        node = f"eqn{i}"
        params = pp_param_rules.get(eqn.primitive, lambda p: p)(eqn.params)
        detail = "\n".join(f"{k}={v}" for k, v in sorted(params.items()) if not _is_jaxpr(v))
        g.node(node, f"{eqn.primitive}" + (f"\n{detail}" if detail else ""),
               shape="box", style="rounded,filled", fillcolor="#fff2cc")
        for j, v in enumerate(eqn.invars):
            if _is_literal(v):
                g.node(f"{node}_lit{j}", str(np.asarray(v.val).item()), shape="plaintext")
                g.edge(f"{node}_lit{j}", node)
            else:
                g.edge(source[v], node, label=v.aval.str_short())
        for v in eqn.outvars:
            source[v] = node
    for i, v in enumerate(jaxpr.outvars):
        g.node(f"out{i}", f"out {i}", shape="doubleoctagon", style="filled", fillcolor="#d9ead3")
        if _is_literal(v):
            g.node(f"out{i}_lit", str(np.asarray(v.val).item()), shape="plaintext")
            g.edge(f"out{i}_lit", f"out{i}")
        else:
            g.edge(source[v], f"out{i}", label=v.aval.str_short())
    return g
