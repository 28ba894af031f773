# Generated from chapters/17_export.md by `make export`: edit the chapter, not this file.


"""A runner: an exported artifact compiled and run through PJRT, and its command line,
`python -m autodidax.runner`. No tracing code (chapter 17)."""
from __future__ import annotations

import argparse
import io
import sys
import time

import numpy as np
from jaxlib import _jax
from jaxlib import xla_client as xc
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import func, sdy
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax.compilation_cache import hlo_shardings, jax_hidden, load_or_compile
from autodidax.plugins import make_cuda_client
from autodidax.serialization import (  # noqa: F401 (InputError: what the runner raises)
    Artifact, Aval, InputError, check_dimension_variables, check_inputs, has_constant_shapes,
    read_artifact, result_names)


def program_for(artifact: Artifact, arg_shapes=None) -> tuple[bytes, list]:
    """The StableHLO module XLA compiles for `artifact`, as MLIR bytecode, and the shapes of
    its results. An artifact with symbolic dimensions is refined for inputs of `arg_shapes`
    (one shape per input the module takes)."""
    with ir.Context() as context, ir.Location.unknown():
        hlo.register_dialect(context)
        sdy.register_dialect(context)
        module = hlo.deserialize_portable_artifact(context, artifact.mlir_module_serialized)
        if has_constant_shapes(artifact.in_avals):
            return _bytecode(module), [tuple(a.shape) for a in artifact.out_avals]
        _call_with_shapes(module, arg_shapes)
        try:
            refined = _jax.mlir.refine_polymorphic_shapes(
                _bytecode(module), enable_shape_assertions=True, validate_static_shapes=True)
        except xc.XlaRuntimeError as e:   # a failed shape assertion carries JAX's message
            message = str(e).split('loc("shape_assertion"): ', 1)[-1].split("\n", 1)[0]
            raise ValueError(message) from None
        results = function_type(main_function(ir.Module.parse(refined))).results
        return refined, [tuple(ir.RankedTensorType(t).shape) for t in results]


def _bytecode(module) -> bytes:
    out = io.BytesIO()
    module.operation.write_bytecode(out)
    return out.getvalue()


def main_function(module):
    """The `main` function of a module."""
    return next(op for op in module.body.operations
                if ir.StringAttr(op.attributes["sym_name"]).value == "main")


def function_type(op) -> ir.FunctionType:
    return ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)


def wrap_main(module, old_name: str, inputs, arguments):
    """Rename `main` to a private `old_name`, and add a public `main` that takes inputs of
    types `inputs` and returns what the old one returns for `arguments(its inputs)`. JAX wraps
    an exported `main` so to give it other types (below) or more inputs (the platform's index,
    in `export`). Returns the new `main`."""
    old = main_function(module)
    old_type = function_type(old)
    ir.SymbolTable.set_symbol_name(old, old_name)
    old.attributes["sym_visibility"] = ir.StringAttr.get("private")
    with ir.InsertionPoint.at_block_begin(module.body):
        new = func.FuncOp("main", ir.FunctionType.get(list(inputs), old_type.results))
    new.attributes["sym_visibility"] = ir.StringAttr.get("public")
    block = new.add_entry_block()
    with ir.InsertionPoint(block):
        call = func.CallOp(list(old_type.results), ir.FlatSymbolRefAttr.get(old_name),
                           arguments(list(block.arguments)))
        func.return_(list(call.results))
    return new


def _call_with_shapes(module, arg_shapes) -> None:
    """A `main` for inputs of `arg_shapes` that casts them to the old one's symbolic types
    (`tensor<?x4xf32>`) and calls it: what JAX's `call` emits, and what shape refinement then
    propagates through the module."""
    old = function_type(main_function(module))
    types = [ir.RankedTensorType.get(shape, ir.RankedTensorType(t).element_type)
             for shape, t in zip(arg_shapes, old.inputs)]
    wrap_main(module, "_exported_main", types,
              lambda args: [hlo.convert(t, a) for a, t in zip(args, old.inputs)])


def make_client(platform: str, num_devices: int = 1):
    """A PJRT client for `platform` ("cpu" or "cuda") with at least `num_devices` devices."""
    if platform == "cpu":
        return xc.make_cpu_client(num_devices=max(num_devices, 1))
    if platform in ("cuda", "gpu"):
        client = make_cuda_client()
        if client is None:
            raise RuntimeError("no CUDA PJRT plugin is installed: `pip install "
                               "jax-cuda12-pjrt` on a machine with an NVIDIA GPU")
        return client
    raise ValueError(f"unknown platform {platform!r}: the runner knows 'cpu' and 'cuda'")


class Program:
    """An artifact compiled for the devices of a PJRT client: call it with NumPy arrays."""

    def __init__(self, artifact: Artifact, client, arg_shapes=None):
        platform = "cuda" if client.platform in ("cuda", "gpu") else client.platform
        if platform not in artifact.platforms and "platform" not in artifact.disabled_checks:
            raise ValueError(f"Function '{artifact.function_name}' was exported for platforms "
                             f"'{tuple(artifact.platforms)}' but it is used on '{(platform,)}'.")
        # A module for several platforms takes the index of the one it runs on first.
        self.index = [] if len(artifact.platforms) == 1 else [np.int32(
            artifact.platforms.index(platform) if platform in artifact.platforms else 0)]
        n = artifact.nr_devices
        if len(client.devices()) < n:
            raise ValueError(f"'{artifact.function_name}' was exported for {n} devices; "
                             f"this {platform} client has {len(client.devices())}")
        symbolic = not has_constant_shapes(artifact.in_avals)
        if symbolic and (arg_shapes is None or n > 1):
            raise ValueError(f"'{artifact.function_name}' has symbolic shapes: the runner needs "
                             "the shapes of its inputs, on one device")
        self.artifact, self.devices = artifact, tuple(client.devices()[:n])
        self.kept = artifact.module_kept_var_idx
        in_shapes = [()] * len(self.index) + (
            [tuple(arg_shapes[i]) for i in self.kept] if symbolic else
            [tuple(artifact.in_avals[i].shape) for i in self.kept])
        if symbolic:
            check_dimension_variables(artifact, arg_shapes)
        bytecode, out_shapes = program_for(artifact, in_shapes if symbolic else None)
        self.loaded = load_or_compile(bytecode, self.devices if n > 1 else self.devices[0])
        in_dtypes = [np.int32] * len(self.index) + [artifact.in_avals[i].dtype for i in self.kept]
        out_dtypes = [a.dtype for a in artifact.out_avals]
        self.in_layouts = [self._layout(*a, s) for a, s in zip(
            zip(in_shapes, in_dtypes), hlo_shardings(self.loaded.get_parameter_shardings(),
                                                  len(in_shapes)))]
        self.out_layouts = [self._layout(*a, s) for a, s in zip(
            zip(out_shapes, out_dtypes), hlo_shardings(self.loaded.get_output_shardings(),
                                                    len(out_shapes)))]

    def _layout(self, shape, dtype, hlo_sharding):
        """(jaxlib's aval, jaxlib's sharding, the index of each device's part)."""
        aval = Aval(shape, dtype)
        sharding = xc.GSPMDSharding(self.devices, hlo_sharding)
        return aval, sharding, _part_indices(hlo_sharding, aval.shape, len(self.devices))

    def __call__(self, *arrays) -> list:
        check_inputs(self.artifact, arrays)
        bufs = []
        inputs = self.index + [arrays[i] for i in self.kept]
        for (aval, sharding, index), x in zip(self.in_layouts, inputs):
            parts = [np.ascontiguousarray(x[i]) for i in index]
            bufs.append(xc.batched_device_put(aval, sharding, parts, list(self.devices), True,
                                              False, enable_x64=True))
        results = self.loaded.execute_sharded(bufs)
        if len(self.devices) == 1:
            handlers = [xc.array_result_handler(aval, sharding, True, True)
                        for aval, sharding, _ in self.out_layouts]
            return [np.asarray(r) for r in results.consume_with_handlers(handlers)]
        with jax_hidden():            # jaxlib's C++ would `import jax` here (chapter 7)
            pieces = results.disassemble_into_single_device_arrays()
        outs = []
        for (aval, _, index), parts in zip(self.out_layouts, pieces):
            out = np.empty(aval.shape, aval.dtype)
            for i, part in zip(index, parts):
                out[i] = np.asarray(part)
            outs.append(out)
        return outs


def _part_indices(hlo_sharding, shape: tuple, n: int) -> list:
    """The index (a tuple of slices) of the part of an array of `shape` that each of `n`
    devices holds under `hlo_sharding`: XLA's tile assignment, read as JAX reads it."""
    if hlo_sharding.is_replicated() or n == 1:
        return [tuple(slice(None) for _ in shape)] * n
    dims = list(hlo_sharding.tile_assignment_dimensions())
    tiles = np.array(hlo_sharding.tile_assignment_devices()).reshape(dims)
    index = [None] * n
    for position in np.ndindex(*dims):
        slices = tuple(slice(p * (size // t), (p + 1) * (size // t))
                       for p, size, t in zip(position, shape, dims))
        index[tiles[position]] = slices        # trailing dims (replicas) are not array dims
    return index


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autodidax.runner",
        description="Run a program exported with jax.export (by JAX or autodidax).")
    parser.add_argument("artifact", help="the file Exported.serialize() wrote")
    parser.add_argument("--input", action="append", default=[], metavar="X.npy",
                        help="an input, in the order of the flat inputs (repeat the option)")
    parser.add_argument("--output", metavar="OUT.npz", help="write the results there")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run N times and report the median time")
    args = parser.parse_args(argv)
    try:
        start = time.perf_counter()
        with open(args.artifact, "rb") as f:
            artifact = read_artifact(f.read())
        arrays = [np.load(path, allow_pickle=False) for path in args.input]
        check_inputs(artifact, arrays)
        loaded = time.perf_counter()
        program = Program(artifact, make_client(args.device, artifact.nr_devices),
                          [x.shape for x in arrays])
        compiled = time.perf_counter()
        times = []
        for _ in range(max(args.repeat, 1)):
            t = time.perf_counter()
            outs = program(*arrays)
            times.append(time.perf_counter() - t)
    except (OSError, ValueError, RuntimeError) as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 2
    names = result_names(artifact.out_tree)
    if args.output:
        np.savez(args.output, **dict(zip(names, outs)))
    else:
        for name, out in zip(names, outs):
            print(f"{name} = {np.array2string(out, separator=', ')}")
    ms = lambda s: f"{s * 1e3:.1f} ms"                                   # noqa: E731
    print(f"'{artifact.function_name}' on {len(program.devices)} {args.device} device(s): "
          f"loaded in {ms(loaded - start)}, compiled in {ms(compiled - loaded)}, ran in "
          f"{ms(sorted(times)[len(times) // 2])} (median of {len(times)})", file=sys.stderr)
    return 0


if __name__ == "__main__" and sys.argv[0].endswith("runner.py"):   # not in this notebook
    sys.exit(main())
