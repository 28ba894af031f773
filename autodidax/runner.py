# Generated from chapters/17_export.md by `make export`: edit the chapter, not this file.


"""A runner: an exported artifact compiled and run through PJRT, and its command line,
`python -m autodidax.runner`. No tracing code (chapter 17)."""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from jaxlib import xla_client as xc
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo as hlo

from autodidax.compilation_cache import hlo_shardings, jax_hidden, load_or_compile
from autodidax.plugins import make_cuda_client
from autodidax.serialization import (  # noqa: F401 (InputError: what the runner raises)
    Artifact, Aval, InputError, check_artifact, check_dimension_variables, check_inputs,
    check_module, check_output, has_constant_shapes, load_array, mlir_context, module_bytecode,
    part_indices, read_artifact, read_file, read_module_isolated, refine_shapes, result_names,
    save_results)

MAX_CPU_DEVICES = 1024    # the most devices a CPU client is made with


def program_for(artifact: Artifact, arg_shapes=None, module=None) -> tuple[bytes, list]:
    """The StableHLO module XLA compiles for `artifact`, as MLIR bytecode, and the shapes of
    its results. An artifact with symbolic dimensions is refined for inputs of `arg_shapes`
    (one shape per input the module takes), with appendix A8's `refine_shapes`. The module is
    checked against `artifact` (A8's `check_module`), unless given: the bytecode that A8's
    `read_module_isolated` read, and checked, in a child process."""
    with mlir_context() as context, ir.Location.unknown():
        if module is None:
            module = hlo.deserialize_portable_artifact(context, artifact.mlir_module_serialized)
            check_module(artifact, module)
        else:
            module = ir.Module.parse(module)
        if has_constant_shapes(artifact.in_avals):
            return module_bytecode(module), [tuple(a.shape) for a in artifact.out_avals]
        return refine_shapes(module, arg_shapes)


def make_client(platform: str, num_devices: int = 1):
    """A PJRT client for `platform` ("cpu" or "cuda") with at least `num_devices` devices."""
    if platform == "cpu":
        if num_devices > MAX_CPU_DEVICES:
            raise ValueError(f"{num_devices} CPU devices asked for; the runner makes at most "
                             f"{MAX_CPU_DEVICES}")
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

    def __init__(self, artifact: Artifact, client, arg_shapes=None, module=None):
        check_artifact(artifact)            # its fields agree, before any is used (appendix A8)
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
        bytecode, out_shapes = program_for(artifact, in_shapes if symbolic else None, module)
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
        return aval, sharding, part_indices(hlo_sharding, aval.shape, len(self.devices))

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
    parser.add_argument("--timeout", type=float, default=60, metavar="S",
                        help="the most seconds that reading the module may take")
    args = parser.parse_args(argv)
    try:
        start = time.perf_counter()
        artifact = read_artifact(read_file(args.artifact))        # files from anywhere: A8
        arrays = [load_array(path) for path in args.input]
        check_inputs(artifact, arrays)
        check_output(args.output)
        module = read_module_isolated(artifact, args.timeout)
        loaded = time.perf_counter()
        program = Program(artifact, make_client(args.device, artifact.nr_devices),
                          [x.shape for x in arrays], module)
        compiled = time.perf_counter()
        times = []
        for _ in range(max(args.repeat, 1)):
            t = time.perf_counter()
            outs = program(*arrays)
            times.append(time.perf_counter() - t)
        names = result_names(artifact.out_tree)
        if args.output:
            save_results(args.output, dict(zip(names, outs)))
    except (OSError, ValueError, RuntimeError) as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 2
    if not args.output:
        for name, out in zip(names, outs):
            print(f"{name} = {np.array2string(out, separator=', ')}")
    ms = lambda s: f"{s * 1e3:.1f} ms"                                   # noqa: E731
    print(f"'{artifact.function_name}' on {len(program.devices)} {args.device} device(s): "
          f"loaded in {ms(loaded - start)}, compiled in {ms(compiled - loaded)}, ran in "
          f"{ms(sorted(times)[len(times) // 2])} (median of {len(times)})", file=sys.stderr)
    return 0


if __name__ == "__main__" and sys.argv[0].endswith("runner.py"):   # not in this notebook
    sys.exit(main())
