# Generated from chapters/A31_extend.md by `make export`: edit the chapter, not this file.


"""jax.interpreters.batching: chapter 4's batching rules under JAX's names (appendix A31)."""
from autodidax import batching as _batching
from autodidax.batching import batching_rules as primitive_batchers  # noqa: F401
from autodidax.batching import fancy_batching_rules as fancy_primitive_batchers  # noqa: F401


def broadcast(x, sz, axis, mesh_axis=None):
    """`x` repeated `sz` times along a new axis at `axis` (JAX's `mesh_axis`: not used here)."""
    return _batching.broadcast(x, sz, axis)


def bdim_at_front(x, bdim, size, mesh_axis=None):
    """`x` with its batch axis first; an unbatched `x` (bdim None) repeated `size` times."""
    return _batching.bdim_at_front(x, bdim, size)


def defvectorized(prim):
    """`prim` applies elementwise to its one operand: the batch dimension stays where it is."""
    primitive_batchers[prim] = _batching.vectorized(prim)


def defbroadcasting(prim):
    """`prim` broadcasts its operands, as `add` does."""
    primitive_batchers[prim] = _batching.broadcasting(prim)


def defreducer(prim):
    """`prim` reduces over `axes`; the batch dimension is moved past them."""
    primitive_batchers[prim] = _batching.reducer(prim)
