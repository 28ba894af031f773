# Generated from chapters/15_callbacks.md by `make export`: edit the chapter, not this file.


"""Host callbacks: `jax.pure_callback` and `io_callback`, their rules, and the lowering of a
Python function into a compiled program (`emit_python_callback`), with or without effects."""
from __future__ import annotations

import dataclasses
import math
import weakref
from typing import Any, Callable

import numpy as np
from jaxlib import xla_client as xc
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax.ad_checkpoint import remat_disallowed_effects
from autodidax.autodiff import effectful_primitives
from autodidax.batching import batching_rules, moveaxis
from autodidax.control_flow import scan
from autodidax.core import (Primitive, ShapedArray, abstract_eval_rules, aval_rules, get_aval,
                            impl_rules)
from autodidax.error_texts import (callback_error, check_callback_results, check_vmap_method,
                                   result_aval)
from autodidax.jvp import jvp_rules
from autodidax.lowering import aval_to_ir_type, lowering_rules, ordered_effect_rules
from autodidax.runtime import (Array, Executable, placement_of, device_put, evaluated_by_impl,
                               executable_kinds, local_devices)
from autodidax.tree_util import PyTreeDef, tree_flatten, tree_leaves, tree_map, tree_unflatten


class ShapeDtypeStruct:
    """A shape and a dtype, standing for an array that does not exist yet (JAX's)."""
    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape, dtype, *, weak_type=False):
        self.shape, self.dtype, self.weak_type = tuple(shape), np.dtype(dtype), weak_type

    size = property(lambda self: math.prod(self.shape))
    ndim = property(lambda self: len(self.shape))

    @classmethod
    def like(cls, x) -> ShapeDtypeStruct:
        """The shape and dtype of `x`: an array, a tracer or a Python number."""
        aval = get_aval(x)
        return cls(aval.shape, aval.dtype, weak_type=aval.weak_type)

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"

    def __eq__(self, other):
        return (type(other) is ShapeDtypeStruct and other.shape == self.shape
                and other.dtype == self.dtype and other.weak_type == self.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))


@dataclasses.dataclass(frozen=True)
class _FlatCallback:
    """The user's callback, called with flat arguments and returning flat results."""
    callback_func: Callable[..., Any]
    in_tree: PyTreeDef          # the structure of (args, kwargs)

    def __call__(self, *flat_args):
        args, kwargs = tree_unflatten(self.in_tree, flat_args)
        return tree_leaves(self.callback_func(*args, **kwargs))


pure_callback_p = Primitive("pure_callback")
pure_callback_p.multiple_results = True


def on_host(flat_args):
    """The operands as arrays on the CPU, as the callback is given them: copies, since XLA's
    NumPy views of its buffers are valid only while the callback runs."""
    cpu = local_devices(backend="cpu")[0]
    return [device_put(np.array(x), cpu) for x in flat_args]


def call_on_host(callback, args, result_avals) -> list:
    """Evaluation of a callback with results: called on host copies, its results checked."""
    try:
        return list(check_callback_results(callback(*on_host(args)), result_avals))
    except Exception as e:
        raise callback_error(e) from None


def _pure_callback_impl(*args, callback, result_avals, sharding, vmap_method):
    return call_on_host(callback, args, result_avals)


def _pure_callback_abstract_eval(*avals, callback, result_avals, sharding, vmap_method):
    return list(result_avals)


impl_rules[pure_callback_p] = _pure_callback_impl
evaluated_by_impl.add(pure_callback_p)
abstract_eval_rules[pure_callback_p] = _pure_callback_abstract_eval


# A ShapeDtypeStruct stands for an array when a function is only traced or lowered, as in
# `jit(f).lower(ShapeDtypeStruct((3,), np.float32))` (and chapter 17's export).
aval_rules[ShapeDtypeStruct] = lambda s: ShapedArray(s.shape, s.dtype, weak_type=s.weak_type)


def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None,
                  **kwargs):
    """Call the pure Python function `callback(*args, **kwargs)`, which returns arrays of the
    shapes and dtypes of `result_shape_dtypes`, eagerly or from a compiled program."""
    check_vmap_method(vmap_method)
    if sharding is not None:
        raise NotImplementedError("autodidax's pure_callback runs on one device: "
                                  "sharding must be None")
    flat_args, in_tree = tree_flatten((args, kwargs))
    result_avals = tree_map(result_aval, result_shape_dtypes)
    flat_avals, out_tree = tree_flatten(result_avals)
    outs = pure_callback_p.bind(*flat_args, callback=_FlatCallback(callback, in_tree),
                                result_avals=tuple(flat_avals), sharding=None,
                                vmap_method=vmap_method)
    return tree_unflatten(out_tree, outs)


def _layout(aval) -> ir.DenseElementsAttr:
    """Row-major: the dimensions in minor-to-major order (a token, `None`, has none)."""
    ndim = 0 if aval is None else len(aval.shape)
    dims = np.arange(ndim - 1, -1, -1, dtype=np.int64)
    return ir.DenseElementsAttr.get(dims, type=ir.RankedTensorType.get([ndim],
                                                                       ir.IndexType.get()))


def emit_python_callback(ctx, callback, token, operands, result_avals, *,
                         has_side_effect: bool):
    """Emit a `custom_call` to `callback` (flat arrays in, a tuple out), registered with the
    module; with a `token` (an ir.Value), ordered. Returns (results, new token)."""
    def wrapped(*args):
        if token is None:
            return tuple(check_callback_results(callback(*args), result_avals))
        tok, *args = args
        return (tok, *check_callback_results(callback(*args), result_avals))

    module_ctx = ctx.module_context
    module_ctx.host_callbacks.append(wrapped)
    index = len(module_ctx.host_callbacks) - 1
    operands = list(operands)
    in_avals = list(ctx.avals_in)
    result_types = [aval_to_ir_type(a) for a in result_avals]
    out_avals = list(result_avals)
    if token is not None:
        operands, in_avals = [token, *operands], [None, *in_avals]
        result_types, out_avals = [hlo.TokenType.get(), *result_types], [None, *out_avals]
    config = ir.DictAttr.get({"index": ir.IntegerAttr.get(ir.IntegerType.get_unsigned(64),
                                                           index)})
    attributes = {
        "call_target_name": ir.StringAttr.get("xla_ffi_python_cpu_callback"),
        "backend_config": ir.StringAttr.get(""),
        "mhlo.backend_config": config,
        "operand_layouts": ir.ArrayAttr.get([_layout(a) for a in in_avals]),
        "result_layouts": ir.ArrayAttr.get([_layout(a) for a in out_avals]),
    }
    if has_side_effect:
        attributes["has_side_effect"] = ir.BoolAttr.get(True)
    op = ir.Operation.create("stablehlo.custom_call", results=result_types, operands=operands,
                             attributes=attributes)
    results = list(op.results)
    if token is not None:
        token, *results = results
    return results, token


def _pure_callback_lowering(ctx, *args, callback, result_avals, sharding, vmap_method):
    def host(*flat_args):
        return callback(*on_host(flat_args))
    results, _ = emit_python_callback(ctx, host, None, args, result_avals,
                                      has_side_effect=False)
    return results


lowering_rules[pure_callback_p] = _pure_callback_lowering


_TOKEN_AVAL = ShapedArray((0,), np.dtype(np.bool_))   # a token, as a buffer: no bytes


class EffectfulExecutable(Executable):
    """A program with `num_tokens` tokens of ordered effects, or host callbacks to wait for."""

    def __init__(self, loaded, device, out_avals=None, text=None, **options):
        self.num_tokens, self.callbacks = text.num_tokens, bool(text.host_callbacks)
        super().__init__(loaded, device, out_avals, text, **options)

    @staticmethod
    def applies(text, options) -> bool:
        return bool(getattr(text, "num_tokens", 0) or getattr(text, "host_callbacks", ()))

    def _result_handlers(self) -> list:
        sharding = placement_of(self.device)[0]
        return [xc.array_result_handler(a, sharding, True, True)
                for a in [_TOKEN_AVAL] * self.num_tokens + self.out_avals]

    def _execute(self, bufs, args) -> list:
        if self.num_tokens:                   # tokens of ordered effects go first
            token = device_put(np.zeros(0, np.bool_), self.device)._buf
            bufs = [token] * self.num_tokens + bufs
        try:
            results = (self.loaded.execute_sharded(bufs, with_tokens=True) if self.callbacks
                       else self.loaded.execute_sharded(bufs))
        except xc.XlaRuntimeError as e:
            raise self._call_error(args, e) from None
        outs = list(map(Array, results.consume_with_handlers(self._handlers)))
        if self.callbacks:                    # let its callbacks finish before we return
            results.consume_token().block_until_ready()
        return outs[self.num_tokens:]


executable_kinds["effectful"] = EffectfulExecutable


def _pure_callback_jvp(primals, tangents, **params):
    raise ValueError("Pure callbacks do not support JVP. "
                     "Please use `jax.custom_jvp` to use callbacks while taking gradients.")


jvp_rules[pure_callback_p] = _pure_callback_jvp


def sequential_batching(prim, vals, dims, unroll=1, **params):
    """`prim` bound once per example, in a `scan` over the batch: outputs batched along 0."""
    vals = [x if d is None else moveaxis(x, d, 0) for x, d in zip(vals, dims)]
    batched = [d is not None for d in dims]

    def body(carry, xs):
        xs = iter(xs)
        return carry, prim.bind(*[next(xs) if b else v for v, b in zip(vals, batched)], **params)
    _, outs = scan(body, (), [v for v, b in zip(vals, batched) if b], unroll=unroll)
    return list(outs), [0] * len(outs)


def _pure_callback_batching(vals, dims, *, callback, result_avals, sharding, vmap_method):
    size = next(x.shape[d] for x, d in zip(vals, dims) if d is not None)
    params = dict(callback=callback, sharding=sharding, vmap_method=vmap_method)
    if vmap_method in ("sequential", "sequential_unrolled"):
        return sequential_batching(pure_callback_p, vals, dims, result_avals=result_avals,
                                   unroll=size if vmap_method == "sequential_unrolled" else 1,
                                   **params)
    vals = [x if d is None else moveaxis(x, d, 0) for x, d in zip(vals, dims)]
    batched_avals = tuple(a.update(shape=(size, *a.shape)) for a in result_avals)
    if vmap_method in ("expand_dims", "broadcast_all"):
        n = size if vmap_method == "broadcast_all" else 1
        vals = [lax.broadcast(x, (n,)) if d is None else x for x, d in zip(vals, dims)]
        outs = pure_callback_p.bind(*vals, result_avals=batched_avals, **params)
    else:
        raise NotImplementedError(
            "vmap is only supported for the pure_callback primitive when vmap_method is one of "
            "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            f"'legacy_vectorized'. Got {vmap_method=}.")
    return list(outs), [0] * len(outs)


batching_rules[pure_callback_p] = _pure_callback_batching


def effectful_callback_lowering(ctx, host, args, result_avals, ordered: bool) -> list:
    """Lower a callback `host` with a side effect; an `ordered` one is threaded with the
    current token. Returns the ir.Values of its results."""
    module_ctx = ctx.module_context
    if not ordered:
        return emit_python_callback(ctx, host, None, args, result_avals,
                                    has_side_effect=True)[0]
    token, here = module_ctx.token, ir.InsertionPoint.current.block
    if token is not None and _block_of(token) == here:
        results, module_ctx.token = emit_python_callback(ctx, host, token, args, result_avals,
                                                         has_side_effect=True)
        return results
    # A called function without a token, or a loop's or branch's body, which cannot use the outer
    # token: a token of the block's own, made at its first ordered callback, threaded on.
    local = _block_tokens.setdefault(module_ctx, [])
    i = next((i for i, (block, _) in enumerate(local) if block == here), None)
    token = hlo.create_token() if i is None else local.pop(i)[1]
    results, token = emit_python_callback(ctx, host, token, args, result_avals,
                                          has_side_effect=True)
    local.append((here, token))
    return results


_block_tokens = weakref.WeakKeyDictionary()   # ModuleContext -> [(block, its current token)]


def _block_of(value: ir.Value) -> ir.Block:
    owner = value.owner
    return owner if isinstance(owner, ir.Block) else owner.operation.block


io_callback_p = Primitive("io_callback")
io_callback_p.multiple_results = True


def _io_callback_jvp(primals, tangents, **params):
    raise ValueError("IO callbacks do not support JVP.")


def _io_callback_batching(vals, dims, *, callback, result_avals, sharding, ordered):
    if ordered:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    return sequential_batching(io_callback_p, vals, dims, callback=callback,
                               result_avals=result_avals, sharding=sharding, ordered=False)


def _io_callback_lowering(ctx, *args, callback, result_avals, sharding, ordered):
    def host(*flat_args):
        return callback(*on_host(flat_args))
    return effectful_callback_lowering(ctx, host, args, result_avals, ordered)


impl_rules[io_callback_p] = lambda *args, callback, result_avals, **_: call_on_host(
    callback, args, result_avals)
evaluated_by_impl.add(io_callback_p)
abstract_eval_rules[io_callback_p] = lambda *avals, result_avals, **params: list(result_avals)
jvp_rules[io_callback_p] = _io_callback_jvp
batching_rules[io_callback_p] = _io_callback_batching
lowering_rules[io_callback_p] = _io_callback_lowering
ordered_effect_rules[io_callback_p] = lambda *, ordered, **_: ordered
effectful_primitives.add(io_callback_p)     # chapter 9: dead code elimination keeps the call
remat_disallowed_effects[io_callback_p] = lambda params: (    # chapter 14: checkpoint refuses it
    "OrderedIOEffect" if params["ordered"] else "IOEffect")


def io_callback(callback, result_shape_dtypes, *args, sharding=None, ordered=False, **kwargs):
    """Call the impure Python function `callback(*args, **kwargs)`, which returns arrays of the
    shapes and dtypes of `result_shape_dtypes`, exactly when the program says."""
    if sharding is not None:
        raise NotImplementedError("autodidax's io_callback runs on one device: "
                                  "sharding must be None")
    flat_args, in_tree = tree_flatten((args, kwargs))
    flat_avals, out_tree = tree_flatten(tree_map(result_aval, result_shape_dtypes))
    outs = io_callback_p.bind(*flat_args, callback=_FlatCallback(callback, in_tree),
                              result_avals=tuple(flat_avals), sharding=None, ordered=ordered)
    return tree_unflatten(out_tree, outs)
