"""autodidax/pretty_printer.py: the document printer agrees with JAX's, and jaxprs print from
their attributes alone."""
import ast

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from jax._src import pretty_printer as jax_pp

import autodidax.numpy as jnp
from autodidax import jaxpr as jaxpr_module
from autodidax import lax, pretty_printer
from autodidax.core import ShapedArray
from autodidax.jaxpr import make_jaxpr
from autodidax.pretty_printer import Brk, Concat, Group, Nest, Text, pp_jaxpr, var_names


def _jax_doc(doc):
    kind = type(doc)
    if kind is Text:
        return jax_pp.text(doc.s)
    if kind is Brk:
        return jax_pp.brk(doc.s)
    if kind is Concat:
        return jax_pp.concat([_jax_doc(p) for p in doc.parts])
    if kind is Nest:
        return jax_pp.nest(doc.n, _jax_doc(doc.child))
    return jax_pp.group(_jax_doc(doc.child))


docs = st.recursive(
    st.one_of(st.text("abcxyz", min_size=1, max_size=6).map(Text),
              st.sampled_from([" ", "", "; "]).map(Brk)),
    lambda children: st.one_of(
        st.lists(children, min_size=1, max_size=4).map(Concat),
        children.map(Group),
        st.tuples(st.integers(0, 4), children).map(lambda t: Nest(*t))),
    max_leaves=25)


@given(docs, st.integers(1, 30))
def test_pretty_printer_agrees_with_jaxs(doc, width):
    assert doc.format(width) == _jax_doc(doc).format(width=width, use_color=False)


def test_the_printer_imports_nothing_from_the_jaxpr_module():
    tree = ast.parse(open(pretty_printer.__file__).read())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for a in node.names}
    assert not any(m and m.startswith(("autodidax.jaxpr", "autodidax.jit")) for m in imported)


def test_the_tables_are_the_ones_chapters_8_and_13_register_into():
    assert jaxpr_module.pp_eqn_rules is pretty_printer.pp_eqn_rules
    assert jaxpr_module.pp_eqn_plain is pretty_printer.pp_eqn_plain
    assert jaxpr_module.suggest_same_names is pretty_printer.suggest_same_names


class Thing:
    """An object with the given attributes, hashed by identity: a jaxpr's parts, duck-typed."""
    def __init__(self, **attributes):
        self.__dict__.update(attributes)


def test_any_object_with_a_jaxprs_attributes_prints():
    f32 = ShapedArray((), np.float32)
    a, b, one = Thing(aval=f32), Thing(aval=f32), Thing(val=np.float32(1.0), aval=f32)
    eqn = Thing(primitive=lax.add_p, invars=[a, one], outvars=[b], params={})
    j = Thing(constvars=[], invars=[a], eqns=[eqn], outvars=[b])
    assert pp_jaxpr(j).format() == "{ lambda ; a:f32[]. let b:f32[] = add a 1.0:f32[] in (b,) }"


def test_printing_leaves_the_params_alone_and_var_names_name_every_output():
    closed = make_jaxpr(lambda x: (jnp.exp(x), x * jnp.ones((2, 3)))[1])(jnp.ones(3))
    params = [dict(e.params) for e in closed.eqns]
    assert str(closed) == ("{ lambda ; a:f32[3]. let\n    _:f32[3] = exp a\n"
                           "    b:f32[2,3] = broadcast_in_dim 1.0:f32[]\n"
                           "    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n"
                           "    d:f32[2,3] = mul c b\n  in (d,) }")
    assert [dict(e.params) for e in closed.eqns] == params
    names = var_names(closed.jaxpr)
    assert [names[v] for e in closed.eqns for v in e.outvars] == ["b", "c", "d", "e"]
