# Generated from chapters/A31_extend.md by `make export`: edit the chapter, not this file.


"""jax.interpreters.ad: chapter 3's JVP rules and chapter 9's transposes, under JAX's names
(appendix A31)."""
from autodidax.autodiff import UndefinedPrimal, is_linear as is_undefined_primal  # noqa: F401
from autodidax.autodiff import transpose_rules as primitive_transposes
from autodidax.jvp import (JVPTrace, JVPTracer, Zero, add_any as add_jaxvals,  # noqa: F401
                           add_any_p as add_jaxvals_p, add_tangents, defjvp2, instantiate_zeros,
                           zeros_like_aval)
from autodidax.jvp import deflinear as _deflinear, jvp_rules as primitive_jvps  # noqa: F401


def defjvp(primitive, *jvprules):
    """One rule per input, `rule(g, *primals, **params)`: the part of the output's tangent
    due to that input's tangent `g` (None: no part). Chapter 3's defjvp2 also passes the output."""
    defjvp2(primitive, *[None if rule is None else
                         (lambda g, ans, *primals, rule=rule, **params:
                          rule(g, *primals, **params)) for rule in jvprules])


def deflinear(primitive, transpose_rule):
    """A primitive linear in all its inputs: its JVP is itself on the tangents; its transpose
    is `transpose_rule(ct, **params)`, a cotangent per input."""
    _deflinear(primitive)

    def transpose(ct, *args, **params):
        if type(ct) is Zero:
            return [None] * len(args)
        return transpose_rule(ct, **params)
    primitive_transposes[primitive] = transpose


def defbilinear(prim, lhs_rule, rhs_rule):
    """A primitive linear in each of its two operands: the JVP binds it with each tangent in
    turn; the transpose is `lhs_rule(ct, x, y)` for a linear x, `rhs_rule(ct, x, y)` for y."""
    defjvp(prim, lambda g, x, y, **params: prim.bind(g, y, **params),
           lambda g, x, y, **params: prim.bind(x, g, **params))

    def transpose(ct, x, y, **params):
        if type(ct) is Zero:
            return [None, None]
        if is_undefined_primal(x):
            return [lhs_rule(ct, x, y, **params), None]
        return [None, rhs_rule(ct, x, y, **params)]
    primitive_transposes[prim] = transpose


def deflinear2(primitive, transpose_rule):
    """As `deflinear`, with a transpose that also takes the inputs (UndefinedPrimals among them):
    `transpose_rule(ct, *args, **params)`."""
    _deflinear(primitive)

    def transpose(ct, *args, **params):
        if type(ct) is Zero:
            return [None] * len(args)
        return transpose_rule(ct, *args, **params)
    primitive_transposes[primitive] = transpose


def get_primitive_transpose(primitive):
    try:
        return primitive_transposes[primitive]
    except KeyError:
        raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for "
                                  f"'{primitive}' not implemented") from None
