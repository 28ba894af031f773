# Generated from chapters/19_all_the_way_down.md by `make export`: edit the chapter, not this file.


"""Below StableHLO: what XLA makes of a program, as XLA itself writes it down with its debug
option `xla_dump_to`: optimised HLO, kernels, buffers, LLVM IR, machine code (chapter 19)."""
from __future__ import annotations

import re
import tempfile
from pathlib import Path

from autodidax.compilation_cache import backend_compile
from autodidax.jit import Compiled, Lowered
from autodidax.runtime import default_device
from autodidax.xla_files import disassemble


def dump(text: str, device=None) -> dict[str, bytes]:
    """Compile StableHLO `text` for `device` (default: the default device) with XLA's dump on:
    the files XLA wrote, by name without the `module_NNNN.name.` prefix."""
    device = default_device() if device is None else device
    with tempfile.TemporaryDirectory(prefix="xla-dump-") as folder:
        backend_compile(text, device, {"xla_dump_to": folder})
        return {re.sub(r"^module_\d+\.[^.]+\.", "", p.name): p.read_bytes()
                for p in sorted(Path(folder).rglob("*")) if p.is_file()}


class Kernel:
    """A kernel XLA generated code for: its LLVM IR before and after LLVM's passes, and the
    object file LLVM made of it (`asm()` disassembles it)."""

    def __init__(self, name, ir, ir_optimized, obj):
        self.name, self.ir, self.ir_optimized, self.obj = name, ir, ir_optimized, obj

    def asm(self) -> str:
        return disassemble(self.obj)

    def __repr__(self):
        return f"Kernel({self.name}: {len(self.obj)} bytes of object file)"


class Below:
    """The stages below StableHLO that XLA wrote for one program, each as text."""

    def __init__(self, files: dict[str, bytes]):
        self.files = files
        text = {k: v.decode() for k, v in files.items() if k.endswith((".txt", ".ll", ".ptx"))}
        ending = lambda end: next((v for k, v in text.items() if k.endswith(end)), None)
        self.hlo_before = text.get("before_optimizations.txt")
        self.hlo = ending("_after_optimizations.txt")    # cpu_..., or a GPU's sm_9.0_gpu_...
        self.buffer_assignment = ending("_after_optimizations-buffer-assignment.txt")
        self.memory_report = ending("-memory-usage-report.txt")
        self.kernels = {}
        for name, obj in files.items():        # obj-file.MODULE.o, and MODULE.ir-*.ll
            if m := re.fullmatch(r"obj-file\.(.+)\.o", name):
                k = re.sub(r"^__compute_module_|_kernel_module$", "", m[1])
                self.kernels[k] = Kernel(k, text.get(f"{m[1]}.ir-no-opt.ll"),
                                         text.get(f"{m[1]}.ir-with-opt.ll"), obj)
        self.ptx = {k.removesuffix(".ptx"): v for k, v in text.items() if k.endswith(".ptx")}


def below(program, device=None) -> Below:
    """What XLA writes below StableHLO for `program`: a `Lowered` or `Compiled` of chapter 8
    (compiled again, for its device), or StableHLO text (for `device`, default the default)."""
    if isinstance(program, Compiled):
        program = Lowered(program.traced)
    if isinstance(program, Lowered):      # its device, as `Lowered.compile` chooses it
        placement = program.traced.placement
        device = device or (default_device() if placement is None else placement.devices)
        program = program.as_text()
    if not isinstance(program, str):
        raise TypeError("below() takes jit(f).lower(...), jit(f).lower(...).compile() or "
                        f"StableHLO text, not {type(program).__name__}")
    return Below(dump(program, device))
