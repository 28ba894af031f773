"""`jax.debug`: printing and callbacks from inside transformed functions.

Written by hand, as JAX's `jax/debug.py` is: chapter 15's `debug_callback` and `debug_print`
(module `debugging`) under their public names `callback` and `print`, and appendix A11's
`visualize_array_sharding`, and appendix A32's `breakpoint`.
"""
# ruff: noqa: F401

# Chapter 15.
from autodidax.debugging import (DebugEffect, OrderedDebugEffect, debug_callback as callback,
                                 debug_print as print)

# Appendix A11.
from autodidax.collectives_on_devices import visualize_array_sharding

# Appendix A32.
from autodidax.debugger import breakpoint
