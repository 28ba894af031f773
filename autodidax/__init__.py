"""autodidax: JAX's core, rebuilt from scratch in the chapters of the book.

`import autodidax as jax` and `import autodidax.numpy as jnp` run JAX programs of the covered
subset. This file is the public API, with the namespaces `lax.py`, `random.py` and `debug.py`,
which gather names from the modules that define them, as JAX's `jax/lax/__init__.py` does. Every
other module is generated from a chapter.
"""
import os

# jaxlib's C++ logging prints to stderr when a client is made; keep it to warnings and errors.
# This must happen before jaxlib is first imported.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")

import sys as _sys  # noqa: E402
import types as _types  # noqa: E402

# `python -m autodidax.runner` runs a program exported to a file (chapter 17). It needs PJRT and
# the artifact's reader, none of the tracing machinery this file loads, so for it (Python says
# "-m" in argv[0] while it imports the package of a `-m` module) the API is not loaded.
_RUNNER = _sys.argv[:1] == ["-m"] and "autodidax.runner" in getattr(_sys, "orig_argv", ())

if not _RUNNER:
    from autodidax import core, lax  # noqa: F401  (chapter 01; lax: the public names, lax.py)
    from autodidax import numpy  # noqa: F401  (appendix A1: jax.numpy)
    from autodidax import tree_util_text  # noqa: F401  (appendix A16: pytrees in words)
    from autodidax import tree_util  # (chapter 02)
    from autodidax.core import Array  # noqa: F401
    from autodidax.jvp import jvp  # noqa: F401  (chapter 03)
    from autodidax.batching import jacfwd, vmap  # noqa: F401  (chapter 04: jacfwd as vmap of jvp)
    from autodidax import catalogue_rules  # noqa: F401  (appendix A17: the rest of lax's rules)
    from autodidax import collectives  # noqa: F401  (appendix A9: lax.pmean, lax.all_gather...)
    from autodidax import jaxpr as _jaxpr  # (chapter 05)
    from autodidax.jaxpr import make_jaxpr  # noqa: F401
    from autodidax import lowering_rest  # noqa: F401  (appendix A18: more lowering rules)
    from autodidax.runtime import (block_until_ready, clear_caches, config,  # noqa: F401
                                   default_backend, device_count, device_get, device_put,
                                   devices, get_backend,
                                   local_device_count, local_devices, process_count,
                                   process_index)  # (chapter 07)
    from autodidax.jit import disable_jit, jit  # noqa: F401  (chapter 08)
    from autodidax import library_jit  # noqa: F401  (appendix A22: jnp's functions, jitted)
    from autodidax.autodiff import (grad, hessian, jacrev, linearize,  # noqa: F401  (chapter 09)
                                    value_and_grad, vjp)
    from autodidax import autodiff_rest, donation  # noqa: F401  (appendix A19: donate_argnums...)
    from autodidax import control_flow  # noqa: F401  (chapter 10: also lax.cond and friends)
    from autodidax import control_flow_reference  # noqa: F401  (appendix A10: lax.switch...)
    from autodidax import indexing  # noqa: F401  (chapter 11: x[...] with arrays, x.at, sort)
    from autodidax import indexing_rest  # noqa: F401  (appendix A12: the _in_dim variants...)
    from autodidax import bit_primitives, checkpoint_checks  # noqa: F401  (appendix A20)
    from autodidax import random  # noqa: F401  (chapter 12 and appendix A14, random.py)
    from autodidax.custom import custom_jvp, custom_vjp  # noqa: F401  (chapter 13)
    from autodidax import custom as custom_derivatives  # (chapter 13: SymbolicZero...)
    from autodidax import ad_checkpoint  # noqa: F401  (chapter 14: jax.ad_checkpoint)
    from autodidax.ad_checkpoint import (checkpoint, checkpoint_policies,  # noqa: F401
                                         remat)  # (chapter 14)
    from autodidax import error_texts as _error_texts  # (appendix A21: JAX's error texts)
    from autodidax import callbacks as _callbacks  # (chapter 15)
    from autodidax.callbacks import ShapeDtypeStruct, pure_callback  # noqa: F401
    from autodidax import debug  # noqa: F401  (chapter 15 and appendix A11, debug.py)
    from autodidax import sharding  # noqa: F401  (chapter 16: jax.sharding)
    from autodidax import export  # noqa: F401  (chapter 17: jax.export)
    from autodidax.sharding import (make_mesh, NamedSharding, P, set_mesh,  # noqa: F401
                                    shard_map)  # (chapter 16)
    from autodidax import collectives_on_devices  # noqa: F401  (appendix A11: lax.ppermute...)
    from autodidax.collectives_on_devices import reshard  # noqa: F401  (appendix A11)
    from autodidax.processes import (distributed, make_array_from_process_local_data,  # noqa: F401
                                     make_array_from_single_device_arrays)  # (appendix A7)

    from autodidax import nn  # noqa: F401  (appendix A2: jax.nn)
    import autodidax.scipy.special  # noqa: F401  (appendix A2: jax.scipy.special)
    import autodidax.scipy.stats.norm  # noqa: F401  (appendix A2: jax.scipy.stats.norm)
    import autodidax.numpy.linalg  # noqa: F401  (appendix A3: jnp.linalg)
    from autodidax import numpy_rest  # noqa: F401  (appendix A24: more of jax.numpy)
    from autodidax.jax_rest import (Device, closure_convert, copy_to_host_async,  # noqa: F401
                                    custom_gradient, enable_x64, ensure_compile_time_eval,
                                    eval_shape, fwd_and_bwd, host_count, host_id, host_ids,
                                    linear_transpose, make_array_from_callback, make_user_context,
                                    named_call, named_scope,
                                    pmap, print_environment_info, process_indices,
                                    typeof)  # (appendix A25)
    from autodidax.jax_rest import (  # noqa: F401  (appendix A25: JAX's options, as `State`s)
        allow_f16_reductions, array_garbage_collection_guard, auto_pcast, check_tracer_leaks,
        checking_leaks, debug_key_reuse, default_device, default_matmul_precision,
        default_prng_impl, enable_checks, enable_custom_prng, explain_cache_misses,
        jax2tf_associative_scan_reductions, legacy_prng_key, live_arrays, log_compiles,
        no_execution, no_tracing, numpy_rank_promotion, remove_size_one_mesh_axis_from_type,
        debug_nans, debug_infs, numpy_dtype_promotion, transfer_guard, effects_barrier,
        transfer_guard_host_to_device, transfer_guard_device_to_host,
        transfer_guard_device_to_device,
        smap, softmax_custom_jvp, thread_guard, threefry_partitionable)
    from autodidax.sharding import Shard  # noqa: F401  (chapter 16: jax.Shard)
    from autodidax import dtypes  # noqa: F401  (appendix A25: jax.dtypes)
    from autodidax import lax_rest  # noqa: F401  (appendix A27: convolutions, jnp.convolve)
    from autodidax import special_functions  # noqa: F401  (appendix A26: special functions)
    # Appendix A26: more of jax.scipy.stats's distributions, as its submodules.
    from autodidax.scipy.stats import (bernoulli, beta, cauchy, chi2, expon,  # noqa: F401
                                       gamma, laplace, logistic, poisson, t, uniform)
    del bernoulli, beta, cauchy, chi2, expon, gamma, laplace, logistic, poisson, t, uniform
    import autodidax.example_libraries.optimizers  # noqa: F401  (appendix A28)
    import autodidax.example_libraries.stax  # noqa: F401  (appendix A28)
    import autodidax.extend.core  # noqa: F401  (appendix A31: jax.extend)
    import autodidax.interpreters.ad  # noqa: F401  (appendix A31: jax.interpreters)
    import autodidax.interpreters.batching  # noqa: F401  (appendix A31)
    import autodidax.interpreters.mlir  # noqa: F401  (appendix A31)
    from autodidax import extend, interpreters  # noqa: F401  (appendix A31)
    from autodidax.refs import (Ref, ds, empty_ref, free_ref, freeze,  # noqa: F401
                                new_ref)  # (appendix A30: array refs)
    from autodidax import refs as _refs  # (appendix A30)
    ref = _types.ModuleType("autodidax.ref", "As jax.ref: refs, and reading and writing them.")
    for _name, _value in [("Ref", Ref), ("new_ref", new_ref), ("empty_ref", empty_ref),
                          ("free_ref", free_ref), ("freeze", freeze), ("get", _refs.ref_get),
                          ("swap", _refs.ref_swap), ("set", _refs.ref_set),
                          ("addupdate", _refs.ref_addupdate), ("AbstractRef", _refs.AbstractRef)]:
        setattr(ref, _name, _value)
    _sys.modules["autodidax.ref"] = ref

    jacobian = jacrev   # JAX's jax.jacobian is jacrev under another name

    # `jax.tree` is a second, shorter spelling of `jax.tree_util`: jax.tree.map, jax.tree.leaves...
    tree = _types.ModuleType("autodidax.tree", "Short names for autodidax.tree_util, as jax.tree.")
    for _short, _long in [("map", "tree_map"), ("leaves", "tree_leaves"),
                          ("structure", "tree_structure"), ("flatten", "tree_flatten"),
                          ("unflatten", "tree_unflatten"), ("all", "tree_all"),
                          ("reduce", "tree_reduce"),
                          ("flatten_with_path", "tree_flatten_with_path"),
                          ("leaves_with_path", "tree_leaves_with_path"),
                          ("map_with_path", "tree_map_with_path"), ("transpose", "tree_transpose"),
                          ("broadcast", "tree_broadcast"),
                          ("reduce_associative", "tree_reduce_associative")]:
        setattr(tree, _short, getattr(tree_util, _long))
    from autodidax.jax_rest import static as _static
    tree.static = _static    # (appendix A25: a dataclass field marked static)
    _sys.modules["autodidax.tree"] = tree
    _sys.modules["autodidax.custom_derivatives"] = custom_derivatives   # `import jax.custom_...`
    _sys.modules["autodidax.distributed"] = distributed   # `import jax.distributed` (app. A7)

    # `jax.errors`: the exception classes of JAX's that autodidax raises, under JAX's names.
    errors = _types.ModuleType("autodidax.errors", "JAX's exception classes, as jax.errors.")
    for _error in [core.ConcretizationTypeError, core.NonConcreteBooleanIndexError,
                   core.TracerBoolConversionError,
                   core.TracerIntegerConversionError, core.TracerArrayConversionError,
                   core.UnexpectedTracerError, _jaxpr.JaxprTypeError]:
        setattr(errors, _error.__name__, _error)
    from jaxlib.xla_client import XlaRuntimeError as _JaxRuntimeError
    errors.JaxRuntimeError = _JaxRuntimeError   # jaxlib's, as JAX's is: a transfer refused, ...
    _sys.modules["autodidax.errors"] = errors

    # `jax.experimental`: of JAX's experimental APIs, those the book builds: io_callback (chapter
    # 15), checkify (appendix A29, the module `jax.experimental.checkify`) and set_xla_metadata
    # (appendix A32, the module `jax.experimental.xla_metadata`).
    from autodidax import checkify as _checkify
    experimental = _types.ModuleType("autodidax.experimental",
                                     "As jax.experimental: io_callback, checkify, xla_metadata.")
    experimental.io_callback = _callbacks.io_callback
    experimental.checkify = _types.ModuleType("autodidax.experimental.checkify",
                                              "As jax.experimental.checkify (appendix A29).")
    for _name in ["Error", "ErrorCategory", "JaxRuntimeError", "all_checks", "automatic_checks",
                  "check", "check_error", "checkify", "debug_check", "div_checks",
                  "float_checks", "index_checks", "init_error", "nan_checks", "user_checks"]:
        setattr(experimental.checkify, _name, getattr(_checkify, _name))
    _sys.modules["autodidax.experimental"] = experimental
    _sys.modules["autodidax.experimental.checkify"] = experimental.checkify
    from autodidax import xla_metadata as _xla_metadata  # (appendix A32)
    experimental.xla_metadata = _types.ModuleType(
        "autodidax.experimental.xla_metadata", "As jax.experimental.xla_metadata (appendix A32).")
    experimental.xla_metadata.set_xla_metadata = _xla_metadata.set_xla_metadata
    _sys.modules["autodidax.experimental.xla_metadata"] = experimental.xla_metadata
