# Generated from chapters/17_export.md by `make export`: edit the chapter, not this file.


"""`jax.export`: a jitted function lowered to a portable StableHLO artifact, with what a caller
needs to know; serialized in JAX's own format (chapter 17)."""
from __future__ import annotations

import dataclasses
import weakref

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax import runner, serialization
from autodidax.serialization import DisabledSafetyCheck  # noqa: F401 (jax.export's, appendix A8)
from autodidax.autodiff import vjp
from autodidax.callbacks import ShapeDtypeStruct
from autodidax.core import (Primitive, ShapedArray, abstract_eval_rules, api_boundary,
                            impl_rules)
from autodidax.custom import custom_vjp
from autodidax.jaxpr import jaxpr_as_fun
from autodidax.jit import Jitted, jit
from autodidax.lowering import (aval_to_ir_type, ir_constant, lowering_rules, make_ir_context,
                                module_to_text, sanitize_name)
from autodidax.runtime import compile_or_get_cached, default_backend, devices, evaluated_by_impl
from autodidax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec
from autodidax.tree_util import (PyTreeDef, keystr, tree_flatten, tree_flatten_with_path,
                                 tree_unflatten)

# The calling conventions JAX 0.10.2 can export (`jax_export_calling_convention_version`); we
# write the newest, 10, which JAX writes by default.
minimum_supported_calling_convention_version = 9
maximum_supported_calling_convention_version = 10


@dataclasses.dataclass(frozen=True, eq=False)
class Exported:
    """A jitted function lowered to StableHLO, as JAX's `jax.export.Exported`."""
    fun_name: str
    in_tree: PyTreeDef
    in_avals: tuple
    out_tree: PyTreeDef
    out_avals: tuple
    in_shardings_hlo: tuple
    out_shardings_hlo: tuple
    nr_devices: int
    platforms: tuple
    ordered_effects: tuple
    unordered_effects: tuple
    disabled_safety_checks: tuple
    mlir_module_serialized: bytes
    calling_convention_version: int
    module_kept_var_idx: tuple
    uses_global_constants: bool
    _in_named_shardings: tuple     # per input: a serialization.AbstractSharding, or None
    _out_named_shardings: tuple
    _get_vjp: object = None        # a function of this Exported that gives its VJP's

    def __str__(self):
        return f"Exported(fun_name={self.fun_name}, ...)"

    __repr__ = __str__

    def mlir_module(self) -> str:
        """The StableHLO text of the artifact."""
        with make_ir_context() as context:
            return module_to_text(hlo.deserialize_portable_artifact(
                context, self.mlir_module_serialized))

    def in_shardings_jax(self, mesh: Mesh) -> tuple:
        """The input shardings over `mesh`, a concrete mesh like the exported one."""
        return tuple(None if s is None else _named_sharding(s, mesh)
                     for s in self._in_named_shardings)

    def out_shardings_jax(self, mesh: Mesh) -> tuple:
        return tuple(None if s is None else _named_sharding(s, mesh)
                     for s in self._out_named_shardings)

    def has_vjp(self) -> bool:
        return self._get_vjp is not None

    def vjp(self) -> Exported:
        """The exported VJP: takes the flat primal inputs, then one cotangent per output, and
        returns one cotangent per input."""
        if self._get_vjp is None:
            raise ValueError("No VJP is available")
        return self._get_vjp(self)

    def serialize(self, vjp_order: int = 0) -> bytearray:
        """JAX's serialized form: the flatbuffer `jax.export.deserialize` reads; with
        `vjp_order` = k, the VJPs of the first k orders too."""
        return bytearray(serialization.write_artifact(_to_artifact(self, vjp_order)))

    @api_boundary
    def call(self, *args, **kwargs):
        """Run the exported function on `args` and `kwargs`, of the exported structure."""
        flat, tree = tree_flatten((args, kwargs))
        if tree != self.in_tree:
            raise ValueError(
                "The invocation args and kwargs must have the same pytree structure as when the "
                f"function '{self.fun_name}' was exported, but they have the following "
                f"structural differences:\n   - called with {tree}, exported with "
                f"{self.in_tree}.")
        return tree_unflatten(self.out_tree, _flat_call(self)(*flat))


def default_export_platform() -> str:
    return default_backend()


def export(fun_jit, *, platforms=None, disabled_checks=()):
    """`fun_jit`, the result of `jit`, exported: a function of argument specs (arrays, or
    ShapeDtypeStructs) that returns an `Exported`."""
    if not isinstance(fun_jit, Jitted):
        raise ValueError(f"Function to be exported must be the result of `jit` but is: "
                         f"{fun_jit}")
    platforms = (default_backend(),) if platforms is None else tuple(platforms)

    @api_boundary
    def do_export(*args, **kwargs) -> Exported:
        traced = fun_jit.trace(*args, **kwargs)
        lowered = traced.lower()
        text = lowered.as_text()
        if getattr(text, "host_callbacks", ()) or getattr(text, "num_tokens", 0):
            raise NotImplementedError("serialization of host_callbacks is not yet implemented")
        placement = traced.placement
        in_avals, out_avals = tuple(traced.key[4]), tuple(traced.jaxpr.out_avals)
        ins, outs = (((None,) * len(in_avals), (None,) * len(out_avals)) if placement is None
                     else (placement.in_shardings, placement.out_shardings))
        return Exported(
            fun_name=fun_jit.name, in_tree=_in_tree(traced.key), in_avals=in_avals,
            out_tree=traced.out_tree, out_avals=out_avals,
            in_shardings_hlo=(None,) * len(in_avals), out_shardings_hlo=(None,) * len(out_avals),
            nr_devices=1 if placement is None else len(placement.devices),
            platforms=platforms, ordered_effects=(), unordered_effects=(),
            disabled_safety_checks=tuple(disabled_checks),
            mlir_module_serialized=portable_artifact(text, len(platforms) > 1),
            calling_convention_version=maximum_supported_calling_convention_version,
            module_kept_var_idx=lowered.kept_var_idx or tuple(range(len(in_avals))),
            uses_global_constants=len(platforms) > 1,
            _in_named_shardings=_saved_shardings(ins), _out_named_shardings=_saved_shardings(outs),
            _get_vjp=lambda exp: _export_vjp(traced.jaxpr, exp))
    return do_export


def symbolic_shape(shape_spec, **_):
    """JAX's symbolic dimensions (`"b, 4"`) for shape polymorphism: not built here."""
    raise NotImplementedError(
        f"autodidax's export has no shape polymorphism (asked for {shape_spec!r}): export once "
        "per shape, with ShapeDtypeStructs of constant shapes")


def _in_tree(key) -> PyTreeDef:
    """The structure of `(args, kwargs)` of a jit signature, static arguments left out."""
    _, _, tree, has_kwargs, avals = key[:5]
    dynamic = tree_unflatten(tree, [0] * len(avals))
    args, kwargs = dynamic if has_kwargs else (dynamic, {})
    return tree_flatten((tuple(args), kwargs))[1]


def target_version() -> str:
    """The StableHLO version JAX 0.10.2 writes artifacts for: four weeks behind its jaxlib."""
    return hlo.get_version_from_compatibility_requirement(
        hlo.StablehloCompatibilityRequirement.WEEK_4)


def portable_artifact(text: str, platform_index: bool = False) -> bytes:
    """The module of StableHLO `text`, marked as JAX marks exported modules, as a portable
    artifact (VHLO bytecode) at JAX's target version. With `platform_index`, its `main` first
    takes the index of the platform it runs on, as JAX's modules for several platforms do."""
    with make_ir_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        if platform_index:
            serialization.take_platform_index(module)
        module.operation.attributes["jax.uses_shape_polymorphism"] = ir.BoolAttr.get(
            platform_index)
        return hlo.serialize_portable_artifact(module, target_version(), True)


call_exported_p = Primitive("call_exported")
call_exported_p.multiple_results = True


def _arg_names(exported: Exported) -> list:
    """JAX's names of the flat inputs of `exported`: `args[0]`, `kwargs['y']`, `args[1][0]`."""
    leaves = tree_unflatten(exported.in_tree, range(len(exported.in_avals)))
    return [("args" if p[0].idx == 0 else "kwargs") + keystr(p[1:])
            for p, _ in tree_flatten_with_path(leaves)[0]]


def _call_exported_abstract_eval(*avals, exported: Exported):
    """Each input checked against the exported types (appendix A8, in JAX's words)."""
    serialization.check_call_avals(exported.fun_name, lambda: _arg_names(exported),
                                   exported.in_avals, avals)
    return _program(exported, tuple(a.shape for a in avals))[1]


_programs = weakref.WeakKeyDictionary()     # Exported -> {input shapes: (text, output avals)}


def _program(exported: Exported, shapes: tuple) -> tuple:
    """The StableHLO text to compile for inputs of `shapes`, and the output avals: the module
    as it is, or, where it has symbolic dimensions, refined for those shapes (by the runner)."""
    programs = _programs.setdefault(exported, {})
    if shapes not in programs:
        artifact = _to_artifact(exported, 0)
        serialization.check_artifact(artifact)          # its fields agree (appendix A8)
        constant = serialization.has_constant_shapes(exported.in_avals)
        if not constant:
            if exported.nr_devices != 1:
                raise NotImplementedError(f"'{exported.fun_name}' has symbolic shapes over "
                                          f"{exported.nr_devices} devices")
            serialization.check_dimension_variables(artifact, shapes)
        bytecode, out_shapes = runner.program_for(artifact, None if constant else [()] * len(
            _platform_args(exported)) + [shapes[i] for i in artifact.module_kept_var_idx])
        with make_ir_context():
            text = module_to_text(ir.Module.parse(bytecode))
        programs[shapes] = (text, list(exported.out_avals) if constant else [
            ShapedArray(shape, a.dtype) for shape, a in zip(out_shapes, exported.out_avals)])
    return programs[shapes]


abstract_eval_rules[call_exported_p] = _call_exported_abstract_eval


_executables = weakref.WeakKeyDictionary()     # Exported -> {input shapes: Executable}


def _platform_args(exported: Exported) -> list:
    """What the module takes before its inputs: the index of this platform among several
    (nothing for one), after checking that the artifact was exported for it."""
    platform = default_backend()
    if (platform not in exported.platforms
            and DisabledSafetyCheck.platform() not in exported.disabled_safety_checks):
        raise ValueError(f"Function '{exported.fun_name}' was exported for platforms "
                         f"'{exported.platforms}' but it is used on '{(platform,)}'.")
    if len(exported.platforms) == 1:
        return []
    index = exported.platforms.index(platform) if platform in exported.platforms else 0
    return [np.int32(index)]


def _executable(exported: Exported, shapes: tuple):
    executables = _executables.setdefault(exported, {})
    exe = executables.get(shapes)
    if exe is None:
        text, out_avals = _program(exported, shapes)
        if exported.nr_devices == 1:
            exe = compile_or_get_cached(text, None, out_avals)
        else:
            mesh = _mesh_for(exported)
            ins = [NamedSharding(mesh, PartitionSpec()) if s is None else s
                   for s in exported.in_shardings_jax(mesh)]
            outs = exported.out_shardings_jax(mesh)
            exe = compile_or_get_cached(text, mesh._device_assignment, out_avals,
                                        in_shardings=ins, out_shardings=outs,
                                        sharding_from_hlo=mesh._sharding_from_hlo)
        executables[shapes] = exe
    return exe


def _call_exported_impl(*args, exported: Exported):
    kept = [args[i] for i in exported.module_kept_var_idx]
    exe = _executable(exported, tuple(np.shape(x) for x in args))
    return exe(*_platform_args(exported), *kept)


impl_rules[call_exported_p] = _call_exported_impl
evaluated_by_impl.add(call_exported_p)


def _call_exported_lowering(ctx, *args, exported: Exported):
    if exported.nr_devices != 1:
        raise NotImplementedError(f"'{exported.fun_name}' was exported for "
                                  f"{exported.nr_devices} devices: autodidax calls such an "
                                  "Exported eagerly only, not inside jit")
    platform_args = [ir_constant(x) for x in _platform_args(exported)]
    module_context = ctx.module_context
    text, _ = _program(exported, tuple(a.shape for a in ctx.avals_in))
    sub = ir.Module.parse(text, module_context.context)
    prefix = _fresh_prefix(module_context.symbol_table, sanitize_name(exported.fun_name))
    functions = list(sub.body.operations)
    for op in functions:                  # rename inside the exported module first
        name = ir.StringAttr(op.attributes["sym_name"]).value
        ir.SymbolTable.replace_all_symbol_uses(name, f"{prefix}_{name}", sub.operation)
        ir.SymbolTable.set_symbol_name(op, f"{prefix}_{name}")
        op.attributes["sym_visibility"] = ir.StringAttr.get("private")
    body = module_context.module.body
    for op in functions:                  # then move its functions over
        op.operation.move_before(body.operations[0])
        module_context.symbol_table.insert(op)
    kept = platform_args + [args[i] for i in exported.module_kept_var_idx]
    out_types = [aval_to_ir_type(a) for a in ctx.avals_out]
    return list(func.CallOp(out_types, ir.FlatSymbolRefAttr.get(f"{prefix}_main"), kept).results)


def _fresh_prefix(symbol_table, name: str) -> str:
    """`call_exported_NAME`, numbered if the module already has functions of that name."""
    prefix, k = f"call_exported_{name}", 0
    while f"{prefix}_main" in symbol_table:
        k += 1
        prefix = f"call_exported_{name}_{k}"
    return prefix


lowering_rules[call_exported_p] = _call_exported_lowering


_flat_calls = weakref.WeakKeyDictionary()     # Exported -> its custom_vjp function


def _flat_call(exported: Exported):
    """The flat function that `call` runs: `call_exported`, differentiated through the VJP."""
    f_flat = _flat_calls.get(exported)
    if f_flat is None:
        def f_flat(*args):
            return call_exported_p.bind(*args, exported=exported)

        def f_flat_vjp_fwd(*args):
            return f_flat(*args), args        # the residuals are the primal inputs

        def f_flat_vjp_bwd(residual, ct_res):
            return tuple(exported.vjp().call(*residual, *ct_res))
        f_flat = _flat_calls[exported] = custom_vjp(f_flat)
        f_flat.defvjp(f_flat_vjp_fwd, f_flat_vjp_bwd)
    return f_flat


def _export_vjp(closed, exp: Exported) -> Exported:
    """The exported VJP of `closed`, the jaxpr `exp` was exported from."""
    if not all(np.issubdtype(a.dtype, np.inexact) for a in exp.in_avals):
        raise NotImplementedError(f"the VJP of '{exp.fun_name}' has integer inputs, whose "
                                  "cotangents (float0) autodidax does not export")
    n = len(exp.in_avals)

    def fun_vjp_jax(*primals_and_cts):
        _, pullback = vjp(jaxpr_as_fun(closed), *primals_and_cts[:n])
        return tuple(pullback(list(primals_and_cts[n:])))
    specs = [ShapeDtypeStruct(a.shape, a.dtype) for a in exp.in_avals + exp.out_avals]
    return export(jit(fun_vjp_jax), platforms=exp.platforms)(*specs)


def _tree_record(tree: PyTreeDef) -> serialization.TreeDef:
    """`tree` as the format's record: only None, tuples, lists and dicts with string keys."""
    leaf = object()

    def record(node):
        if node is leaf:
            return serialization.TreeDef("leaf")
        if node is None:
            return serialization.TreeDef("none")
        if type(node) in (tuple, list):
            return serialization.TreeDef(type(node).__name__, tuple(map(record, node)))
        if type(node) is dict and all(isinstance(k, str) for k in node):
            keys = sorted(node)
            children = tuple(record(node[k]) for k in keys)
            return serialization.TreeDef("dict", children, tuple(keys))
        raise ValueError(f"Cannot serialize a pytree with a node of type {type(node)}: JAX's "
                         "format holds tuples, lists, dicts with string keys and None")
    return record(tree_unflatten(tree, [leaf] * tree.num_leaves))


def _pytreedef(record: serialization.TreeDef) -> PyTreeDef:
    def build(r):
        if r.kind == "leaf":
            return 0
        if r.kind == "none":
            return None
        if r.kind in ("tuple", "list"):
            return (tuple if r.kind == "tuple" else list)(map(build, r.children))
        if r.kind == "dict":
            return {k: build(c) for k, c in zip(r.names, r.children)}
        raise ValueError(f"this artifact has a custom pytree node '{r.custom_name}', which "
                         "autodidax cannot rebuild")
    return tree_flatten(build(record))[1]


def _saved_shardings(shardings) -> tuple:
    """Each sharding of a `Placement` as the format saves it: over an abstract mesh."""
    out = []
    for s in shardings:
        if s is None:
            out.append(None)
        elif isinstance(s, NamedSharding):
            m = s.mesh
            d = m._device_assignment[0]
            mesh = serialization.AbstractMesh(tuple(m.axis_sizes), tuple(m.axis_names),
                                       tuple(t.name for t in m.axis_types), d.device_kind,
                                       None, d.platform)
            spec = tuple(p if p is None or isinstance(p, str) else tuple(p) for p in s.spec)
            out.append(serialization.AbstractSharding(mesh, spec, s.memory_kind or "device"))
        else:
            raise TypeError(f"Cannot convert {s} into NamedSharding.")
    return tuple(out)


def _named_sharding(saved: serialization.AbstractSharding, mesh: Mesh) -> NamedSharding:
    if dict(mesh.shape) != dict(zip(saved.mesh.axis_names, saved.mesh.axis_sizes)):
        raise ValueError(f"NamedSharding new mesh {mesh} does not match the mesh used for "
                         f"export {saved.mesh}.")
    return NamedSharding(mesh, PartitionSpec(*saved.spec))


def _mesh_for(exported: Exported) -> Mesh:
    """The exported mesh, on the first devices of this process."""
    saved = next((s.mesh for s in exported._in_named_shardings + exported._out_named_shardings
                  if s is not None), None)
    n = exported.nr_devices
    if len(devices()) < n or saved is None:      # with no shardings, no mesh to arrange them
        n_here = len(devices()) if saved else 1
        raise ValueError(f"Function {exported.fun_name} was exported for {n} devices and is "
                         f"called in a context with {n_here} devices, which is not allowed.")
    grid = np.array(devices()[:n], dtype=object).reshape(saved.axis_sizes)
    types = tuple(AxisType[t] for t in saved.axis_types)
    return Mesh(grid, saved.axis_names, types)


def _saved_aval(a) -> serialization.Aval:
    return serialization.Aval(tuple(a.shape), np.dtype(a.dtype))


def _to_artifact(exp: Exported, vjp_order: int) -> serialization.Artifact:
    if vjp_order > 0 and not exp.has_vjp():
        raise ValueError("serialization of an Exported that does not have vjps of high-enough "
                         "order")
    return serialization.Artifact(
        serialization_version=serialization.WRITTEN_VERSION, function_name=exp.fun_name,
        in_tree=_tree_record(exp.in_tree), out_tree=_tree_record(exp.out_tree),
        in_avals=tuple(_saved_aval(a) for a in exp.in_avals),
        out_avals=tuple(_saved_aval(a) for a in exp.out_avals),
        in_shardings=exp._in_named_shardings, out_shardings=exp._out_named_shardings,
        nr_devices=exp.nr_devices, platforms=exp.platforms,
        ordered_effects=exp.ordered_effects, unordered_effects=exp.unordered_effects,
        disabled_checks=tuple(map(str, exp.disabled_safety_checks)),
        mlir_module_serialized=exp.mlir_module_serialized,
        calling_convention_version=exp.calling_convention_version,
        module_kept_var_idx=exp.module_kept_var_idx,
        uses_global_constants=exp.uses_global_constants,
        vjp=_to_artifact(exp.vjp(), vjp_order - 1) if vjp_order > 0 else None)


def _from_artifact(a: serialization.Artifact) -> Exported:
    return Exported(
        fun_name=a.function_name, in_tree=_pytreedef(a.in_tree),
        in_avals=tuple(ShapedArray(v.shape, v.dtype) for v in a.in_avals),
        out_tree=_pytreedef(a.out_tree),
        out_avals=tuple(ShapedArray(v.shape, v.dtype) for v in a.out_avals),
        in_shardings_hlo=(None,) * len(a.in_avals), out_shardings_hlo=(None,) * len(a.out_avals),
        nr_devices=a.nr_devices, platforms=tuple(a.platforms),
        ordered_effects=tuple(a.ordered_effects), unordered_effects=tuple(a.unordered_effects),
        disabled_safety_checks=tuple(map(DisabledSafetyCheck, a.disabled_checks)),
        mlir_module_serialized=a.mlir_module_serialized,
        calling_convention_version=a.calling_convention_version,
        module_kept_var_idx=tuple(a.module_kept_var_idx),
        uses_global_constants=a.uses_global_constants,
        _in_named_shardings=tuple(a.in_shardings), _out_named_shardings=tuple(a.out_shardings),
        _get_vjp=None if a.vjp is None else (lambda _, v=a.vjp: _from_artifact(v)))


def deserialize(blob) -> Exported:
    """An `Exported` from the bytes `Exported.serialize` (ours or JAX's) wrote."""
    return _from_artifact(serialization.read_artifact(bytes(blob)))
