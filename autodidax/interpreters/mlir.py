# Generated from chapters/A31_extend.md by `make export`: edit the chapter, not this file.


"""jax.interpreters.mlir: chapter 6's lowering rules under JAX's names (appendix A31)."""
import io as _io
from collections.abc import Callable as _Callable, Sequence as _Sequence

import numpy as _np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as _hlo

from autodidax.jaxpr import trace_to_jaxpr as _trace_to_jaxpr
from autodidax.lowering import (LoweringRuleContext, ModuleContext,  # noqa: F401
                                aval_to_ir_type, dense_int_array, dtype_to_ir_type, ir_constant,
                                make_ir_context, module_to_text as module_to_string)
from autodidax.lowering import jaxpr_subcomp as _jaxpr_subcomp, lowering_rules as _lowering_rules

_PLATFORMS = ("cpu", "cuda", "gpu", "oneapi", "rocm", "tpu")
_for_this_platform = set()     # primitives whose rule names the platform: a common one waits


def register_lowering(prim, rule, platform: str | None = None, inline: bool = True,
                      cacheable: bool = True):
    """Lower `prim` with `rule(ctx, *operands, **params)` on `platform` (None: on every one
    that has no rule of its own). `inline` and `cacheable` are JAX's hints: not used here."""
    from autodidax.runtime import default_backend
    if platform is not None and platform not in _PLATFORMS:
        raise NotImplementedError(
            f"Registering an MLIR lowering rule for primitive {prim} for an unknown platform "
            f"{platform}. Known platforms are: {', '.join(_PLATFORMS)}.")
    if platform is None and prim not in _for_this_platform:
        _lowering_rules[prim] = rule
    elif platform in (default_backend(), "gpu" if default_backend() in ("cuda", "rocm") else 0):
        _lowering_rules[prim] = rule
        _for_this_platform.add(prim)


def lower_fun(fun, multiple_results: bool = True):
    """A lowering rule that emits the operations `fun` binds, traced at the operands' types."""
    def rule(ctx, *operands, **params):
        def flat(*xs):
            outs = fun(*xs, **params)
            return outs if multiple_results else [outs]
        closed = _trace_to_jaxpr(flat, list(ctx.avals_in))
        consts = [ir_constant(c) for c in closed.consts]
        return _jaxpr_subcomp(ctx.module_context, closed.jaxpr, consts, list(operands))
    return rule


Value = Token = ir.Value
LoweringRule = _Callable[..., _Sequence[ir.Value | _Sequence[ir.Value]]]


def ir_attribute(val) -> ir.Attribute:
    """A Python value as an MLIR attribute: a number or NumPy value (typed, or a dense array),
    a dtype (its type), a string, and dicts and sequences of these."""
    if isinstance(val, (ir.Attribute, ir.Type)):
        return val
    if isinstance(val, (str, bytes)):
        return ir.StringAttr.get(val)
    if isinstance(val, dict):
        return ir.DictAttr.get({k: ir_attribute(v) for k, v in val.items()})
    if isinstance(val, (list, tuple)):
        return ir.ArrayAttr.get([ir_attribute(v) for v in val])
    if isinstance(val, _np.dtype):
        return ir.TypeAttr.get(dtype_to_ir_type(val))
    if type(val) in (bool, int, float, complex):
        val = _np.array(val, {bool: _np.bool_, int: _np.int64, float: _np.float64,
                              complex: _np.complex128}[type(val)])
    if not isinstance(val, (_np.ndarray, _np.generic)):
        raise TypeError(f"No attribute handler defined for type: {type(val)}")
    kind = dtype_to_ir_type(val.dtype)
    if _np.ndim(val):
        return ir.DenseElementsAttr.get(_np.ascontiguousarray(val), type=kind, shape=val.shape)
    if not isinstance(kind, (ir.IntegerType, ir.FloatType)):
        raise TypeError(f"Unsupported scalar attribute type: {type(val)}")
    return (ir.IntegerAttr if isinstance(kind, ir.IntegerType) else ir.FloatAttr).get(
        kind, val.item())


def aval_to_ir_types(aval) -> tuple:
    return (aval_to_ir_type(aval),)


def ir_constants(val) -> tuple:
    return (ir_constant(val),)


def i32_attr(i):
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), i)


def i64_attr(i):
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), i)


def dense_int_elements(xs) -> ir.DenseIntElementsAttr:
    return ir.DenseIntElementsAttr.get(_np.asarray(xs, _np.int64))


def flatten_ir_values(xs) -> list:
    """Values and sequences of values, one level flattened."""
    return [y for x in xs for y in (x if isinstance(x, (list, tuple)) else (x,))]


flatten_ir_types = flatten_ir_values


def token_type() -> ir.Type:
    return _hlo.TokenType.get()


def module_to_bytecode(module: ir.Module) -> bytes:
    out = _io.BytesIO()
    module.operation.write_bytecode(out)
    return out.getvalue()
