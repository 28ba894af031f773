# Generated from chapters/06_lowering.md by `make export`: edit the chapter, not this file.


"""Lowering jaxprs to StableHLO with the MLIR bindings in jaxlib: a rule per primitive, an
interpreter over the equations, and a module whose `main` function is the jaxpr."""
from __future__ import annotations

import re
import weakref
from typing import NamedTuple

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir._mlir_libs import _jax_mlir_ext
from jaxlib.mlir.dialects import chlo, func, sdy
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import lax_core as lax
from autodidax.core import (Primitive, ShapedArray, canonicalize_dtype, dtype_kind)
from autodidax.jaxpr import ClosedJaxpr, Jaxpr, Literal
from autodidax.jvp import add_any_p


def make_ir_context() -> ir.Context:
    """An MLIR context that knows the dialects we emit, so that modules print readably."""
    context = ir.Context()
    registry = ir.DialectRegistry()
    _jax_mlir_ext.register_dialects(registry)   # builtin, func and MLIR's other dialects
    context.append_dialect_registry(registry)
    context.load_all_available_dialects()
    hlo.register_dialect(context)                # stablehlo and chlo register themselves
    chlo.register_dialect(context)
    sdy.register_dialect(context)                # Shardy's shardings: chapter 16
    return context


_IR_TYPES = {"bool": lambda: ir.IntegerType.get_signless(1), "bfloat16": ir.BF16Type.get,
             "float16": ir.F16Type.get, "float32": ir.F32Type.get, "float64": ir.F64Type.get,
             "complex64": lambda: ir.ComplexType.get(ir.F32Type.get()),
             "complex128": lambda: ir.ComplexType.get(ir.F64Type.get())}


def dtype_to_ir_type(dtype) -> ir.Type:
    """The MLIR element type of a dtype. Needs a current context (`with context:`)."""
    name = np.dtype(dtype).name.replace("void", "bool")     # chapter 3's float0 too is i1
    if name in _IR_TYPES:
        return _IR_TYPES[name]()
    if name.startswith("float"):          # float8_e4m3fn is Float8E4M3FNType, and so on
        return getattr(ir, f"Float{name[5:].replace('_', '').upper()}Type").get()
    signed = name.startswith("int")       # int8, int4, uint32: by their width in bits
    get = ir.IntegerType.get_signless if signed else ir.IntegerType.get_unsigned
    return get(int(name[3 if signed else 4:]))


def aval_to_ir_type(aval: ShapedArray) -> ir.RankedTensorType:
    """The tensor type of an aval: `f32[2,3]` is `tensor<2x3xf32>`. Needs a current context."""
    return ir.RankedTensorType.get(aval.shape, dtype_to_ir_type(aval.dtype))


def ir_constant(value, dtype=None) -> ir.Value:
    """A `stablehlo.constant` holding `value` (an array or a scalar) as `dtype`."""
    value = np.asarray(value)
    dtype = canonicalize_dtype(value.dtype if dtype is None else dtype)
    value = np.array(value, dtype, order="C") if not dtype.names else np.zeros(value.shape, bool)
    return hlo.constant(ir.DenseElementsAttr.get(value, type=dtype_to_ir_type(dtype)))


class ModuleContext:
    """What the lowering of one module shares: the MLIR context, the module and its symbols."""

    def __init__(self, context: ir.Context, module: ir.Module):
        self.context, self.module = context, module
        self.symbol_table = ir.SymbolTable(module.operation)
        self.functions = {}      # (name, jaxpr, ids of constants) -> (symbol, closed jaxpr)
        self.host_callbacks = []  # Python functions the program calls back, by index (below)
        self.token = None         # the function's current token of ordered effects, if any
        self.manual_meshes = []   # the meshes of the shard_map bodies being lowered (ch. 16)


class LoweringRuleContext(NamedTuple):
    """What a lowering rule knows besides its operands and params."""
    module_context: ModuleContext
    primitive: Primitive
    avals_in: tuple
    avals_out: tuple


lowering_rules: dict = {}   # primitive -> rule(ctx, *operands, **params) -> list of ir.Values
lowered_watchers: list = []  # watch(eqn, outs), after each rule: appendix A32's XLA metadata


def _broadcast(x: ir.Value, aval: ShapedArray, shape) -> ir.Value:
    """`x`, of type `aval`, at `shape`: a scalar everywhere, dimensions of size 1 stretched."""
    shape = tuple(shape)
    if aval.shape == shape:
        return x
    dims = range(len(shape) - aval.ndim, len(shape))
    return hlo.broadcast_in_dim(aval_to_ir_type(aval.update(shape=shape)), x,
                                ir.DenseI64ArrayAttr.get(list(dims)))


def full_like_aval(value, aval: ShapedArray) -> ir.Value:
    """An array of type `aval` filled with `value`: a scalar constant, broadcast."""
    scalar = aval.update(shape=())
    return _broadcast(ir_constant(value, aval.dtype), scalar, aval.shape)


def nary_lowering(op):
    """The lowering rule of an elementwise primitive computed by the StableHLO builder `op`."""
    def rule(ctx: LoweringRuleContext, *args):
        shape = ctx.avals_out[0].shape
        return [op(*(_broadcast(x, aval, shape) for x, aval in zip(args, ctx.avals_in)))]
    return rule


for _prim, _op in [
        (lax.neg_p, hlo.negate), (lax.sin_p, hlo.sine), (lax.cos_p, hlo.cosine),
        (lax.exp_p, hlo.exponential), (lax.log_p, hlo.log), (lax.tanh_p, hlo.tanh),
        (lax.sqrt_p, hlo.sqrt), (lax.add_p, hlo.add), (lax.sub_p, hlo.subtract),
        (lax.mul_p, hlo.multiply), (lax.div_p, hlo.divide), (lax.max_p, hlo.maximum),
        (lax.min_p, hlo.minimum)]:
    lowering_rules[_prim] = nary_lowering(_op)


def jaxpr_subcomp(ctx: ModuleContext, jaxpr: Jaxpr, consts, args) -> list:
    """Emit the operations of `jaxpr` at the current insertion point, given the ir.Values of its
    constants and arguments; returns the ir.Values of its outputs."""
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))

    def read(v):
        return ir_constant(v.val, v.aval.dtype) if type(v) is Literal else env[v]

    for eqn in jaxpr.eqns:
        rule = lowering_rules.get(eqn.primitive)
        if rule is None:
            where = f" (from {eqn.source_info})" if eqn.source_info else ""
            raise NotImplementedError(f"no lowering rule for the primitive {eqn.primitive}{where}")
        rule_ctx = LoweringRuleContext(ctx, eqn.primitive, tuple(v.aval for v in eqn.invars),
                                       tuple(v.aval for v in eqn.outvars))
        ins = [read(v) for v in eqn.invars]
        with ir.Location.name(eqn.primitive.name):     # XLA's HLO names operations after it
            outs = rule(rule_ctx, *ins, **eqn.params)
        if not isinstance(outs, (list, tuple)) or len(outs) != len(eqn.outvars):
            raise TypeError(f"the lowering rule of {eqn.primitive} must return a list of "
                            f"{len(eqn.outvars)} ir.Value(s), got {outs!r}")
        env.update(zip(eqn.outvars, outs))
        for watch in lowered_watchers:
            watch(eqn, outs)
    return [read(v) for v in jaxpr.outvars]


def lower_jaxpr_to_fun(ctx: ModuleContext, name: str, closed_jaxpr: ClosedJaxpr,
                       public: bool = False, tokens: bool = False, result_names=None,
                       arg_attrs=None, result_attrs=None) -> str:
    """Lower `closed_jaxpr` to a `func.func` of the module, once; returns its symbol name.
    `result_names`: the outputs' `jax.result_info`. For later chapters: `tokens` (a token of
    ordered effects taken and returned first) and `arg_attrs`/`result_attrs` (a dict each)."""
    jaxpr = closed_jaxpr.jaxpr
    key = (name, jaxpr, tuple(map(id, closed_jaxpr.consts)))
    if key in ctx.functions:
        return ctx.functions[key][0]
    token_types = [hlo.TokenType.get()] if tokens else []
    in_types = token_types + [aval_to_ir_type(v.aval) for v in jaxpr.invars]
    out_types = token_types + [aval_to_ir_type(v.aval) for v in jaxpr.outvars]
    with ir.InsertionPoint(ctx.module.body):
        fun = func.FuncOp(name, ir.FunctionType.get(in_types, out_types))
    fun.attributes["sym_visibility"] = ir.StringAttr.get("public" if public else "private")
    token_attrs = [{"jax.token": ir.BoolAttr.get(True)}] if tokens else []
    out_attrs = [{} for _ in jaxpr.outvars]
    for attrs, result_name in zip(out_attrs, result_names or ()):
        attrs["jax.result_info"] = ir.StringAttr.get(result_name)
    for attrs, more in zip(out_attrs, result_attrs or ()):
        attrs.update(more)
    if tokens or arg_attrs:
        fun.arg_attrs = ir.ArrayAttr.get([ir.DictAttr.get(a) for a in token_attrs + list(
            arg_attrs or [{} for _ in jaxpr.invars])])
    if tokens or result_names or result_attrs:
        fun.result_attrs = ir.ArrayAttr.get([ir.DictAttr.get(a) for a in token_attrs + out_attrs])
    symbol = ir.StringAttr(ctx.symbol_table.insert(fun)).value
    entry = fun.add_entry_block()
    args = list(entry.arguments)
    outer_token, ctx.token = ctx.token, (args.pop(0) if tokens else None)
    with ir.InsertionPoint(entry):
        unique = {}             # a value closed over twice is one constant, as in JAX
        for c, v in zip(closed_jaxpr.consts, jaxpr.constvars):
            if id(c) not in unique:
                unique[id(c)] = ir_constant(c, v.aval.dtype)
        consts = [unique[id(c)] for c in closed_jaxpr.consts]
        outs = jaxpr_subcomp(ctx, jaxpr, consts, args)
        func.return_(([ctx.token] if tokens else []) + outs)
    ctx.token = outer_token
    ctx.functions[key] = (symbol, closed_jaxpr)
    return symbol


def lower_jaxpr_to_module(closed_jaxpr: ClosedJaxpr, name: str = "main",
                          result_names=None, num_partitions: int = 1, arg_attrs=None,
                          result_attrs=None, input_output_aliases=None,
                          buffer_donors=None) -> ir.Module:
    """A StableHLO module `@name` whose public function `main` computes `closed_jaxpr`, its
    outputs named by `result_names`. Chapter 16: `num_partitions`, and `arg_attrs` and
    `result_attrs`, per input and output None or a function of the ModuleContext returning
    attributes. Chapter 8: `input_output_aliases`, per input None or the output that may take
    its buffer; `buffer_donors`, per input whether its buffer may serve any output."""
    context = make_ir_context()
    with context, ir.Location.unknown():
        module = ir.Module.create()
        i32 = ir.IntegerType.get_signless(32)
        module.operation.attributes["sym_name"] = ir.StringAttr.get(
            sanitize_name(name).rstrip("_"))      # as JAX does: XLA would alter these
        module.operation.attributes["mhlo.num_partitions"] = ir.IntegerAttr.get(
            i32, num_partitions)
        module.operation.attributes["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, 1)
        ctx = ModuleContext(context, module)
        tokens = has_ordered_effects(closed_jaxpr.jaxpr)
        arg_attrs = arg_attrs and [f(ctx) if f else {} for f in arg_attrs]
        aliases = input_output_aliases or [None] * len(closed_jaxpr.jaxpr.invars)
        donors = buffer_donors or [False] * len(aliases)
        donated = tuple(i for i, (a, d) in enumerate(zip(aliases, donors)) if a is not None or d)
        if donated:
            arg_attrs = arg_attrs or [{} for _ in aliases]
            for attrs, out, donor in zip(arg_attrs, aliases, donors):
                if out is not None:           # the output's index counts the token, if any
                    attrs["tf.aliasing_output"] = ir.IntegerAttr.get(i32, out + tokens)
                if donor:
                    attrs["jax.buffer_donor"] = ir.BoolAttr.get(True)
        result_attrs = result_attrs and [f(ctx) if f else {} for f in result_attrs]
        lower_jaxpr_to_fun(ctx, "main", closed_jaxpr, public=True, tokens=tokens,
                           result_names=result_names, arg_attrs=arg_attrs,
                           result_attrs=result_attrs)
        module.operation.verify()      # raises, saying what is wrong, if a rule erred
    if ctx.host_callbacks or tokens or donated:
        _compile_extras[module] = (tuple(ctx.host_callbacks), int(tokens), donated)
    return module


def sanitize_name(name: str) -> str:
    """`name` made safe for a symbol, as JAX's: `jit(<lambda>)` is `jit__lambda__`."""
    return re.sub(r"[^\w.-]", "_", name)


def module_to_text(module: ir.Module) -> str:
    """The module as StableHLO text, in the readable form, which XLA compiles."""
    text = module.operation.get_asm(enable_debug_info=False)
    extras = _compile_extras.get(module)
    return text if extras is None else ModuleText(text, *extras)


# Two hooks that chapter 15 (callbacks) explains and uses; a program without callbacks or
# ordered effects never meets them.
ordered_effect_rules: dict = {}   # primitive -> rule(**params) -> whether it is ordered
_compile_extras = weakref.WeakKeyDictionary()   # ir.Module -> (callbacks, tokens, donated)


def has_ordered_effects(jaxpr: Jaxpr) -> bool:
    """Whether an equation of `jaxpr`, or of a jaxpr in its parameters, has an ordered effect."""
    for eqn in jaxpr.eqns:
        rule = ordered_effect_rules.get(eqn.primitive)
        if rule is not None and rule(**eqn.params):
            return True
        for p in eqn.params.values():
            for j in (p if type(p) is tuple else (p,)):
                if isinstance(j, (Jaxpr, ClosedJaxpr)) and has_ordered_effects(
                        j.jaxpr if isinstance(j, ClosedJaxpr) else j):
                    return True
    return False


class ModuleText(str):
    """StableHLO text, with what compiling and running it need besides the text: the Python
    functions of its host callbacks, by index, how many tokens of ordered effects `main`
    threads, and which of `main`'s arguments are donated (chapter 8)."""

    def __new__(cls, text: str, host_callbacks=(), num_tokens: int = 0, donated=()):
        self = super().__new__(cls, text)
        self.host_callbacks, self.num_tokens = tuple(host_callbacks), num_tokens
        self.donated = tuple(donated)
        return self


def compare(x: ir.Value, y: ir.Value, direction: str, aval: ShapedArray) -> ir.Value:
    """`stablehlo.compare` of two values of dtype `aval.dtype`, read by kind."""
    kind = {"f": "FLOAT", "c": "FLOAT", "i": "SIGNED"}.get(dtype_kind(aval.dtype), "UNSIGNED")
    return hlo.compare(x, y, hlo.ComparisonDirectionAttr.get(direction),
                       compare_type=hlo.ComparisonTypeAttr.get(kind))


def _compare_lowering(direction):
    def rule(ctx, x, y):
        shape = ctx.avals_out[0].shape
        x, y = (_broadcast(v, aval, shape) for v, aval in zip((x, y), ctx.avals_in))
        return [compare(x, y, direction, ctx.avals_in[0])]
    return rule


for _prim, _direction in [(lax.gt_p, "GT"), (lax.lt_p, "LT"), (lax.ge_p, "GE"),
                          (lax.le_p, "LE"), (lax.eq_p, "EQ"), (lax.ne_p, "NE")]:
    lowering_rules[_prim] = _compare_lowering(_direction)


def _abs_lowering(ctx, x):
    return [x if dtype_kind(ctx.avals_in[0].dtype) == "u" else hlo.abs(x)]


def _sign_lowering(ctx, x):
    aval, = ctx.avals_in
    if dtype_kind(aval.dtype) != "u":
        return [hlo.sign(x)]
    is_zero = compare(x, full_like_aval(0, aval), "EQ", aval)
    return [hlo.select(is_zero, full_like_aval(0, aval), full_like_aval(1, aval))]


def _square_lowering(ctx, x):
    return [chlo.square(x) if dtype_kind(ctx.avals_in[0].dtype) == "f" else hlo.multiply(x, x)]


lowering_rules[lax.abs_p] = _abs_lowering
lowering_rules[lax.sign_p] = _sign_lowering
lowering_rules[lax.square_p] = _square_lowering


def _convert_element_type_lowering(ctx, x, *, new_dtype, weak_type, sharding=None):
    aval_in, aval_out = ctx.avals_in[0], ctx.avals_out[0]
    if dtype_kind(aval_in.dtype) == "c" and dtype_kind(new_dtype) != "c":   # the real part
        x, aval_in = hlo.real(x), aval_in.update(dtype=lax.real_dtype(aval_in.dtype))
    if aval_out.dtype == np.bool_:
        x = compare(x, full_like_aval(0, aval_in), "NE", aval_in)
    return [hlo.convert(aval_to_ir_type(aval_out), x)]


lowering_rules[lax.convert_element_type_p] = _convert_element_type_lowering


for _prim, _op in [(lax.and_p, hlo.and_), (lax.or_p, hlo.or_), (lax.xor_p, hlo.xor),
                   (add_any_p, hlo.add)]:
    lowering_rules[_prim] = nary_lowering(_op)
lowering_rules[lax.not_p] = lambda ctx, x: [hlo.not_(x)]


def dense_int_array(xs) -> ir.DenseI64ArrayAttr:
    return ir.DenseI64ArrayAttr.get([int(x) for x in xs])


def _broadcast_in_dim_lowering(ctx, x, *, shape, broadcast_dimensions, sharding=None):
    return [hlo.broadcast_in_dim(aval_to_ir_type(ctx.avals_out[0]), x,
                                 dense_int_array(broadcast_dimensions))]


def _reshape_lowering(ctx, x, *, new_sizes, dimensions, sharding=None):
    if dimensions is not None:
        x = hlo.transpose(x, dense_int_array(dimensions))
    return [hlo.reshape(aval_to_ir_type(ctx.avals_out[0]), x)]


def _squeeze_lowering(ctx, x, *, dimensions):
    return [hlo.reshape(aval_to_ir_type(ctx.avals_out[0]), x)]


def _slice_lowering(ctx, x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * len(start_indices)
    return [hlo.slice(x, *map(dense_int_array, (start_indices, limit_indices, strides)))]


lowering_rules[lax.broadcast_in_dim_p] = _broadcast_in_dim_lowering
lowering_rules[lax.reshape_p] = _reshape_lowering
lowering_rules[lax.squeeze_p] = _squeeze_lowering
lowering_rules[lax.slice_p] = _slice_lowering
lowering_rules[lax.transpose_p] = lambda ctx, x, *, permutation: [
    hlo.transpose(x, dense_int_array(permutation))]
lowering_rules[lax.rev_p] = lambda ctx, x, *, dimensions: [
    hlo.reverse(x, dense_int_array(dimensions))]
lowering_rules[lax.concatenate_p] = lambda ctx, *xs, dimension: [
    hlo.concatenate(list(xs), dimension)]


def _pad_lowering(ctx, x, padding_value, *, padding_config):
    low, high, interior = zip(*padding_config) if padding_config else ((), (), ())
    return [hlo.pad(x, padding_value, *map(dense_int_array, (low, high, interior)))]


lowering_rules[lax.pad_p] = _pad_lowering
lowering_rules[lax.iota_p] = lambda ctx, *, dtype, shape, dimension, sharding=None: [
    hlo.iota(aval_to_ir_type(ctx.avals_out[0]), dimension)]


def _dot_general_lowering(ctx, x, y, *, dimension_numbers, preferred_element_type, **params):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    dims = hlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=list(x_batch), rhs_batching_dimensions=list(y_batch),
        lhs_contracting_dimensions=list(x_contract), rhs_contracting_dimensions=list(y_contract))
    names = params.get("precision")       # None, or a pair of `lax.Precision`s (appendix A27)
    names = names if isinstance(names, tuple) else ("DEFAULT", "DEFAULT")
    precision = ir.ArrayAttr.get([hlo.PrecisionAttr.get(str(p)) for p in names])
    return [hlo.dot_general(aval_to_ir_type(ctx.avals_out[0]), x, y, dims,
                            precision_config=precision)]


lowering_rules[lax.dot_general_p] = _dot_general_lowering


def reducer_region(op, dtype, combine) -> None:
    """Give `op`, an operation that reduces (`reduce`, `reduce_window`, chapter 16's
    collectives), its region: a block of two scalars of `dtype` returning `combine` of them."""
    scalar = aval_to_ir_type(ShapedArray((), dtype))
    block = op.regions[0].blocks.append(scalar, scalar)
    with ir.InsertionPoint(block):
        hlo.return_([combine(*block.arguments)])


def reduce_lowering(op, identity):
    """The rule of a reduction that combines elements with the StableHLO builder `op`."""
    def rule(ctx, x, *, axes, out_sharding=None):
        aval_out, = ctx.avals_out
        init = ir_constant(identity(aval_out.dtype), aval_out.dtype)
        reduce = hlo.ReduceOp([aval_to_ir_type(aval_out)], [x], [init], dense_int_array(axes))
        reducer_region(reduce, aval_out.dtype, op)
        return [reduce.result]
    return rule


lowering_rules[lax.reduce_sum_p] = reduce_lowering(hlo.add, lambda dtype: 0)
lowering_rules[lax.reduce_max_p] = reduce_lowering(hlo.maximum, lax.lowest)   # -inf, or INT_MIN
lowering_rules[lax.reduce_min_p] = reduce_lowering(hlo.minimum, lax.highest)


def call_lowering(ctx: LoweringRuleContext, name: str, closed_jaxpr: ClosedJaxpr, *args) -> list:
    """Lower `closed_jaxpr` as a private function `@name` of the module (once) and emit a
    `func.call` of it on `args`; returns the call's results."""
    symbol = lower_jaxpr_to_fun(ctx.module_context, name, closed_jaxpr)
    out_types = [aval_to_ir_type(aval) for aval in closed_jaxpr.out_avals]
    call = func.CallOp(out_types, ir.FlatSymbolRefAttr.get(symbol), list(args))
    return list(call.results)
