# Generated from chapters/A21_error_texts.md by `make export`: edit the chapter, not this file.


"""JAX's checks and error texts for chapter 15's callbacks (declared result types, returned
results, failing callbacks, `debug.print`'s format), chapter 16's meshes, specs and calls, and
chapter 8's constants and compiled calls."""
from __future__ import annotations

import math
import string
import traceback
import warnings

import numpy as np
from jaxlib import xla_client as xc

from autodidax.core import ShapedArray, Tracer, canonicalize_dtype, get_aval
from autodidax.jit import compiled_checks, lowering_checks
from autodidax.runtime import config


VMAP_METHODS = ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all",
                "legacy_vectorized", None]


def check_vmap_method(vmap_method) -> None:
    if vmap_method not in VMAP_METHODS:
        raise ValueError(f"vmap_method must be on of the allowed methods {VMAP_METHODS}, "
                         f"but got: {vmap_method}")


def result_aval(x) -> ShapedArray:
    """The aval declared by `x`, anything with a `shape` and a `dtype`; no 64-bit types."""
    dtype = np.dtype(x.dtype)
    if canonicalize_dtype(dtype) != dtype:
        raise ValueError("result_shape_dtypes cannot specify 64-bit types when "
                         "`jax_enable_x64` is disabled")
    return ShapedArray(tuple(x.shape), dtype)


def check_callback_results(outs, result_avals) -> tuple:
    """The callback's results as NumPy arrays, checked against the declared avals (JAX's
    checks and messages, raised as RuntimeError when the callback returns)."""
    if len(outs) != len(result_avals):
        raise RuntimeError("Mismatched number of outputs from callback. "
                           f"Expected: {len(result_avals)}, Actual: {len(outs)}")
    outs = [np.asarray(o) for o in outs]
    outs = tuple(np.array(o, canonicalize_dtype(o.dtype), order="C", copy=None)  # no 64 bits
                 for o in outs)
    for i, (out, aval) in enumerate(zip(outs, result_avals)):
        if out.shape != aval.shape:
            raise RuntimeError(f"Incorrect output shape for return value #{i}: "
                               f"Expected: {aval.shape}, Actual: {out.shape}")
        if out.dtype != aval.dtype:
            raise RuntimeError(f"Incorrect output dtype for return value #{i}: "
                               f"Expected: {aval.dtype}, Actual: {out.dtype}")
    return outs


def callback_error(e: BaseException) -> Exception:
    """The error a failing callback becomes: XLA's runtime error, naming what went wrong, as
    JAX raises it whether the callback ran eagerly or in a compiled program."""
    text = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    return xc.XlaRuntimeError(f"INTERNAL: CpuCallback error calling callback: {text}")


class FormatChecker(string.Formatter):
    """Formats nothing; complains, as JAX does, of arguments the format string never uses."""

    def format_field(self, value, format_spec):
        return ""

    def check_unused_args(self, used_args, args, kwargs):
        unused_args = [arg for i, arg in enumerate(args) if i not in used_args]
        unused_kwargs = [k for k in kwargs if k not in used_args]
        if unused_args:
            raise ValueError(f"Unused positional arguments to `jax.debug.print`: {unused_args}")
        if unused_kwargs:
            raise ValueError(
                f"Unused keyword arguments to `jax.debug.print`: {unused_kwargs}. "
                "You may be passing an f-string (i.e, `f\"{x}\"`) into "
                "`jax.debug.print` and instead should pass in a regular string.")


check_format = FormatChecker().format    # check_format(fmt, *args, **kwargs)


def check_mesh_args(ndim: int, axis_names: tuple, axis_types: tuple) -> None:
    if ndim != len(axis_names):
        raise ValueError(f"Mesh requires the ndim of its first argument (`devices`) to equal "
                         f"the length of its second argument (`axis_names`), but got "
                         f"devices.ndim == {ndim} and len(axis_names) == "
                         f"{len(axis_names)}.")
    if len(set(axis_names)) != len(axis_names):
        raise ValueError(f"Mesh axis names must be unique, got {axis_names}")
    if len(axis_types) != len(axis_names):
        raise ValueError(f"Number of axis names should match the number of axis_types. Got "
                         f"axis_names={axis_names} and axis_types={axis_types}")


def check_partition_entry(p) -> None:
    if not (p is None or isinstance(p, str) or
            (isinstance(p, tuple) and all(isinstance(a, str) for a in p))):
        raise TypeError(f"A PartitionSpec entry must be None, a mesh axis name or a "
                        f"tuple of names, got {p!r}")


def spec_axes(mesh_shape, spec) -> set:
    """The mesh axes that `spec` uses, with JAX's errors for an unknown or a repeated one."""
    seen = set()
    for entry in spec:
        for axis in (entry,) if isinstance(entry, str) else entry or ():
            if axis not in mesh_shape:
                raise ValueError(f"Resource axis: {axis} of {spec} is not found in mesh: "
                                 f"{tuple(mesh_shape)}.")
            if axis in seen:
                raise ValueError(f"A single NamedSharding spec specification can map every "
                                 f"mesh axis to at most one positional dimension, but {spec}"
                                 f" has duplicate entries for `{axis}`")
            seen.add(axis)
    return seen


class IndivisibleError(ValueError):
    """An array's dimension that its sharding cannot cut into equal parts (JAX's, in
    jax/_src/sharding.py)."""


def indivisible_error(sharding, d: int, counts: list, shape) -> IndivisibleError:
    """`counts`: how many parts `sharding` cuts each dimension of `shape` into."""
    return IndivisibleError(f"Sharding {sharding} implies that array axis {d} is partitioned "
                            f"{counts[d]} times, but the dimension size is {shape[d]} (full "
                            f"shape: {tuple(shape)}, per-dimension tiling factors: "
                            f"{list(counts)} should evenly divide the shape)")


NON_ADDRESSABLE = (
    "Fetching value for `jax.Array` that spans non-addressable (non process local) devices is "
    "not possible. You can use `jax.experimental.multihost_utils.process_allgather` to print "
    "the global array or use `.addressable_shards` method of jax.Array to inspect the "
    "addressable (process local) shards.")

NUM_CPU_DEVICES_TOO_LATE = (
    "jax_num_cpu_devices config should be updated before backends are initialized i.e. before "
    "any JAX operation is executed. You should initialize this config immediately after "
    "`import jax`.")


def no_mesh_error(api_name: str) -> ValueError:
    return ValueError(f"Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to "
                      f"{api_name}")


EMPTY_CONTEXT_MESH = ("The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to enter into a "
                      "mesh context")
GET_MESH_UNDER_JIT = ("`get_mesh` can only be used outside of `jax.jit`. Maybe you want "
                      "`jax.sharding.get_abstract_mesh()`?")


def mesh_mismatch_error(context_mesh, mesh) -> ValueError:
    return ValueError(f"The context mesh {context_mesh} should match the mesh passed to "
                      f"shard_map {mesh}")


def too_few_devices_error(n: int, axis_shapes: tuple) -> ValueError:
    return ValueError(f"Number of devices {n} must be >= the product of mesh_shape {axis_shapes}")


def incompatible_devices_error(devices, sharding) -> ValueError:
    ids = sorted(d.id for d in sharding._device_assignment)
    return ValueError(f"Received incompatible devices for jitted computation: "
                      f"{sorted(d.id for d in devices)} and {ids} (from {sharding!r})")


DONATED_TWICE = {   # (first use donated, this use donated) -> jaxlib's words for one device
    (True, True): ("Attempt to donate the same buffer twice in Execute()",
                   "f(donate(a), donate(a))"),
    (True, False): ("Attempt to use a buffer that was previously donated in the same call to "
                    "Execute()", "f(donate(a), a)"),
    (False, True): ("Attempt to donate a buffer which is also used by the same call to Execute()",
                    "f(a, donate(a))")}


def donated_twice_error(i: int, j: int, first_donated: bool, this_donated: bool) -> str:
    what, toy = DONATED_TWICE[first_donated, this_donated]
    return (f"INVALID_ARGUMENT: {what} (flattened argument {j}, replica 0, partition 0, first "
            f"use: {i}). Toy example for this bug: `{toy}`.")


def check_donated_once(bufs, donated) -> None:
    """The error jaxlib gives on one device for a donated buffer passed twice in one call."""
    first: dict = {}
    for j, b in enumerate(bufs):
        i = first.setdefault(id(b), j)
        if i != j and (i in donated or j in donated):
            raise xc.XlaRuntimeError(donated_twice_error(i, j, i in donated, j in donated))


def mesh_str(mesh) -> str:
    if mesh.empty:
        return "Mesh()"
    axes = ", ".join(f"'{name}': {size}" for name, size in mesh.shape.items())
    return f"Mesh({axes}, axis_types={mesh.axis_types})"


def mesh_repr(mesh) -> str:
    if mesh.empty:
        return "Mesh(axis_sizes=(), axis_names=())"
    return (f"Mesh(axis_sizes={mesh.axis_sizes}, axis_names={mesh.axis_names!r}, "
            f"axis_types={mesh.axis_types})")


def named_sharding_repr(s) -> str:
    return f"NamedSharding(mesh={s.mesh}, spec={s.spec}, memory_kind={s.memory_kind or 'device'})"


def shard_repr(s) -> str:
    return (f"Shard(device={s.device!r}, index={s.index}, replica_id={s.replica_id}, "
            f"data={s.data})")


def check_constants(closed) -> None:
    """JAX's warning when the constants of a program add up to many bytes."""
    threshold = config.jax_captured_constants_warn_bytes
    total = sum(math.prod(v.aval.shape) * v.aval.dtype.itemsize for v in closed.jaxpr.constvars)
    if threshold == -1 or total < threshold:
        return
    exponent = min(int(math.log(total, 1000)), 4) if total > 0 else 0
    size = f"{total / 1000 ** exponent:.2f}{['', 'K', 'M', 'G', 'T'][exponent]}B"
    warnings.warn(f"A large amount of constants were captured during lowering ({size} total). "
                  "If this is intentional, disable this warning with "
                  "config.update('jax_captured_constants_warn_bytes', -1).")


config.define("jax_captured_constants_warn_bytes", 2 * 10 ** 9)
lowering_checks.append(check_constants)


def check_compiled_args(names, avals, flat) -> None:
    """Chapter 8's `Compiled.__call__`: `flat`, the arguments named `names`, are no tracers and
    have the shapes and dtypes of `avals`, the signature's (weak type aside)."""
    if (tracer := next((x for x in flat if isinstance(x, Tracer)), None)) is not None:
        raise TypeError("Cannot apply JAX transformations to a function lowered and compiled"
                        f" for a particular signature. Detected argument of Tracer type "
                        f"{type(tracer)}.")
    said = lambda a: f"{a.dtype.name}[{','.join(map(str, a.shape))}]"   # noqa: E731
    wrong = [f"Argument '{n}' compiled with {said(a)} and called with {said(b)}"
             for n, a, b in zip(names, avals, map(get_aval, flat))
             if (a.shape, a.dtype) != (b.shape, b.dtype)]
    if wrong:
        raise TypeError("Argument types differ from the types for which this computation "
                        "was compiled. Perhaps you are calling the compiled executable with "
                        "a different enable_x64 mode than when it was AOT compiled? "
                        f"{'The' if len(wrong) < 5 else f'The first 5 of {len(wrong)}'} "
                        "mismatches are:\n" + "\n".join(wrong[:5]))


compiled_checks.append(check_compiled_args)
