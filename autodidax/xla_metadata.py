# Generated from chapters/A32_debugger.md by `make export`: edit the chapter, not this file.


"""`jax.experimental.xla_metadata.set_xla_metadata`: XLA's frontend attributes on the operations
of a block, of a function's calls, or of the one operation that made a value (appendix A32)."""
from __future__ import annotations

import functools

from jaxlib.mlir import ir

from autodidax.autodiff import transpose_rules
from autodidax.batching import batching_rules, vectorized
from autodidax.core import Primitive, abstract_eval_rules, impl_rules
from autodidax.jaxpr import eqn_context
from autodidax.jit import signature_context
from autodidax.jvp import Zero, jvp_rules
from autodidax.lowering import lowered_watchers, lowering_rules
from autodidax.tree_util import tree_map


def attach_metadata(metadata: dict, value: ir.Value) -> None:
    """Add `metadata` to the frontend attributes of the operation that made `value` (a
    function's argument has none); an attribute already there is kept. A bool is written as
    `true` or `false`, anything else as its `str`."""
    owner = value.owner
    if not metadata or owner is None or isinstance(owner, ir.Block):
        return
    op = owner.operation
    attrs = {k: ir.StringAttr.get(str(v).lower() if isinstance(v, bool) else str(v))
             for k, v in metadata.items()}
    if "mhlo.frontend_attributes" in op.attributes:
        attrs |= {a.name: a.attr for a in ir.DictAttr(op.attributes["mhlo.frontend_attributes"])}
    op.attributes["mhlo.frontend_attributes"] = ir.DictAttr.get(attrs)


xla_metadata_value_p = Primitive("xla_metadata_value")
impl_rules[xla_metadata_value_p] = lambda x, *, xla_metadata_kvs: x
abstract_eval_rules[xla_metadata_value_p] = lambda aval, *, xla_metadata_kvs: aval
batching_rules[xla_metadata_value_p] = vectorized(xla_metadata_value_p)
transpose_rules[xla_metadata_value_p] = lambda ct, x, *, xla_metadata_kvs: [ct]


def _value_jvp(primals, tangents, *, xla_metadata_kvs):
    (x,), (t,) = primals, tangents
    tag = functools.partial(xla_metadata_value_p.bind, xla_metadata_kvs=xla_metadata_kvs)
    return tag(x), t if type(t) is Zero else tag(t)


def _value_lowering(ctx, x, *, xla_metadata_kvs):
    attach_metadata(dict(xla_metadata_kvs), x)
    return [x]


jvp_rules[xla_metadata_value_p] = _value_jvp
lowering_rules[xla_metadata_value_p] = _value_lowering


def _tag_block_metadata(eqn, outs) -> None:
    metadata = getattr(eqn.source_info, "context", None)
    for out in outs if metadata else ():
        attach_metadata(dict(metadata), out)


lowered_watchers.append(_tag_block_metadata)


class XlaMetadataContextManager:
    """The metadata of a `with` block, merged into the enclosing block's (a key set to None is
    dropped); as a decorator, a `_XlaMetadataWrapper`."""

    def __init__(self, updates: dict):
        self.updates, self._undo = updates, []

    def __enter__(self):
        if not self.updates:
            return
        merged = dict(eqn_context.get() or ()) | self.updates
        value = tuple(sorted((k, v) for k, v in merged.items() if v is not None))
        self._undo.append((eqn_context.set(value), signature_context.get("xla_metadata")))
        signature_context["xla_metadata"] = value

    def __exit__(self, *exc):
        if not self.updates:
            return
        token, signature = self._undo.pop()
        eqn_context.reset(token)
        if signature is None:
            signature_context.pop("xla_metadata", None)
        else:
            signature_context["xla_metadata"] = signature

    def __call__(self, f):
        return _XlaMetadataWrapper(f, self)


class _XlaMetadataWrapper:
    """`f`, called within the metadata's block; so are its callable attributes (`.lower`)."""

    def __init__(self, f, manager):
        self._f, self._manager = f, manager
        functools.update_wrapper(self, f)

    def __call__(self, *args, **kwargs):
        with self._manager:
            return self._f(*args, **kwargs)

    def __getattr__(self, name):
        attr = getattr(self._f, name)
        if not callable(attr):
            return attr

        @functools.wraps(attr)
        def within(*args, **kwargs):
            with self._manager:
                return attr(*args, **kwargs)
        return within


def set_xla_metadata(x=None, **kwargs):
    """With a value `x`: `x` (a pytree), each leaf tagged where it is computed. Without: a
    context manager, and decorator, tagging the operations of its block."""
    if x is None:
        return XlaMetadataContextManager(kwargs)
    kvs = tuple(sorted(kwargs.items()))
    return tree_map(lambda v: xla_metadata_value_p.bind(v, xla_metadata_kvs=kvs), x)


from jaxlib import _hlo, _jax

from autodidax.jit import donation_rules, text_dialects
from autodidax.lowering import lower_jaxpr_to_module
from autodidax.serialization import main_function, module_bytecode


def hlo_text(lowered, debug_info: bool = False) -> str:
    """A lowered `jit` call as XLA's HLO text, its instructions named after their operations'
    locations and its parameters after the function's arguments."""
    t, program = lowered.traced, lowered.program           # (unused inputs dropped: A19)
    extra = {} if t.placement is None else t.placement.lowering_options(program)
    if any(lowered.donated):
        extra["input_output_aliases"], extra["buffer_donors"] = donation_rules["aliases"](
            program, lowered.donated, t.placement)
    module = lower_jaxpr_to_module(program, name=f"jit({t.jitted.name})",
                                   result_names=t.result_names, **extra)
    with module.context:
        args = list(main_function(module).regions[0].blocks[0].arguments)
        kept = lowered.kept_var_idx or range(len(t.arg_names))
        names = [t.arg_names[i] for i in kept]
        for arg, name in zip(args[len(args) - len(names):], names):
            arg.set_location(ir.Location.name(name))
    computation = _jax.mlir.mlir_module_to_xla_computation(module_bytecode(module),
                                                           use_tuple_args=False)
    options = _hlo.HloPrintOptions.short_parsable()
    options.print_metadata = debug_info
    return computation.as_hlo_module().to_string(options)


text_dialects["hlo"] = hlo_text
