# Generated from chapters/A31_extend.md by `make export`: edit the chapter, not this file.


"""jax.interpreters.ad: chapter 3's JVP rules and chapter 9's transposes, under JAX's names
(appendix A31)."""
from autodidax.autodiff import UndefinedPrimal, is_linear as is_undefined_primal  # noqa: F401
from autodidax.autodiff import transpose_rules as primitive_transposes
from autodidax.jvp import (JVPTrace, JVPTracer, Zero, add_any_p as add_jaxvals_p,  # noqa: F401
                           add_tangents, defjvp2, instantiate_zeros, jvp, zeros_like_aval)
from autodidax.jvp import deflinear as _deflinear, jvp_rules as primitive_jvps  # noqa: F401
from autodidax.autodiff import linearize  # noqa: F401


def defjvp(primitive, *jvprules):
    """One rule per input, `rule(g, *primals, **params)`: its tangent's part of the output's
    (None: that input has no derivative). Chapter 3's defjvp2 also passes the output."""
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


def get_primitive_transpose(primitive):
    try:
        return primitive_transposes[primitive]
    except KeyError:
        raise NotImplementedError(f"Transpose rule (for reverse-mode differentiation) for "
                                  f"'{primitive}' not implemented") from None
