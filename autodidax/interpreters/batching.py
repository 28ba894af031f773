# Generated from chapters/A31_extend.md by `make export`: edit the chapter, not this file.


"""jax.interpreters.batching: chapter 4's batching rules under JAX's names (appendix A31)."""
from autodidax.batching import (BatchTrace, BatchTracer, bdim_at_front,  # noqa: F401
                                batching_rules as primitive_batchers, broadcast,
                                broadcasting, fancy_batching_rules as fancy_primitive_batchers,
                                moveaxis, not_mapped, reducer, vectorized)


def defvectorized(prim):
    """`prim` applies elementwise to its one operand: the batch dimension stays where it is."""
    primitive_batchers[prim] = vectorized(prim)


def defbroadcasting(prim):
    """`prim` broadcasts its operands, as `add` does."""
    primitive_batchers[prim] = broadcasting(prim)


def defreducer(prim, ident=None):
    """`prim` reduces over `axes`; the batch dimension is moved past them."""
    primitive_batchers[prim] = reducer(prim)
