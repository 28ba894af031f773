# Generated from chapters/A23_xla_files.md by `make export`: edit the chapter, not this file.


"""Readers of the files XLA's dump writes (appendix A23, for chapter 19): optimised HLO text,
buffer assignments, LLVM IR and ELF object files."""
from __future__ import annotations

import re


class Step:
    """One step of the optimised program's entry computation: its `name`, `opcode`, fusion
    `kind`, the `operands` it reads (by name), `ops`, the operations it runs (a fusion's, or its
    own opcode), and `library`, the library that runs it, if its text names one."""

    def __init__(self, name, opcode, kind, ops, operands, library):
        self.name, self.opcode, self.kind, self.ops = name, opcode, kind, ops
        self.operands, self.library = operands, library


_INSTRUCTION = re.compile(r"^\s*(?:ROOT )?%([\w.-]+) = (?:\([^=]*?\)|\S+) ([\w-]+)\((.*)$")
BOOKKEEPING = {"parameter", "constant", "tuple", "get-tuple-element", "bitcast"}


def computations(hlo: str) -> dict[str, list[tuple[str, str, str]]]:
    """HLO text's computations, by name ("ENTRY" for the entry): their instructions, as
    (name, opcode, the rest of the line)."""
    found, current = {}, None
    for line in hlo.splitlines():
        if m := re.match(r"^(ENTRY )?%([\w.-]+) .*\{$", line):
            current = found["ENTRY" if m[1] else m[2]] = []
        elif line.startswith("}"):
            current = None
        elif current is not None and (m := _INSTRUCTION.match(line)):
            current.append((m[1], m[2], m[3]))
    return found


def library_of(opcode: str, rest: str) -> str | None:
    """The library that runs an instruction, where its text names one: a custom call's target
    (`__cublas$gemm` on a GPU), or a custom fusion's kind (YNNPACK's `__ynn_fusion` on a CPU,
    `__triton_gemm` on a GPU). None: XLA generates its code, or its runtime runs it."""
    if opcode == "custom-call":
        return re.search(r'custom_call_target="([^"]+)"', rest)[1]
    if opcode == "fusion" and "kind=kCustom" in rest:
        kind = re.search(r'"kind":"([^"]+)"', rest)
        return kind[1] if kind else "a custom fusion"
    return None


def steps(hlo: str) -> list[Step]:
    """The steps of optimised HLO's entry computation, in the order they run."""
    comps = computations(hlo)
    out = []
    for name, opcode, rest in comps["ENTRY"]:
        if opcode in BOOKKEEPING:
            continue
        operands = tuple(re.findall(r"%([\w.-]+)", rest.split(")")[0]))
        called = re.search(r"calls=%([\w.-]+)", rest)
        ops = tuple(op for _, op, _ in comps[called[1]] if op not in BOOKKEEPING) \
            if opcode == "fusion" and called else (opcode,)
        kind = re.search(r"kind=(k\w+)", rest)
        out.append(Step(name, opcode, kind and kind[1], ops, operands, library_of(opcode, rest)))
    return out


class Value:
    """A value of the program (named after the instruction that makes it) at bytes
    `offset` to `offset + size` of its allocation."""

    def __init__(self, name, offset, size):
        self.name, self.offset, self.size = name, offset, size


class Allocation:
    """A block of memory of XLA's buffer assignment: its `size`, its `kind` (`parameter`,
    `output`, `constant`, `thread-local`, `preallocated-temp`) and the values it holds."""

    def __init__(self, index, size, kind, values):
        self.index, self.size, self.kind, self.values = index, size, kind, values


def allocations(buffer_assignment: str) -> list[Allocation]:
    """The allocations of a `*-buffer-assignment.txt` file, with their values."""
    out = []
    for line in buffer_assignment.splitlines():
        if m := re.match(r"allocation (\d+): size (\d+), (.*):$", line):
            kind = re.match(r"[\w-]+", m[3])[0]
            out.append(Allocation(int(m[1]), int(m[2]), kind, []))
        elif m := re.match(r"\s*value: <\d+ ([\w.-]+)(?: \{[\d,]*\})? @\d+> "
                           r"\(size=(\d+),offset=(\d+)\)", line):
            out[-1].values.append(Value(m[1], int(m[3]), int(m[2])))
    return out


def function_of(ir: str, name: str) -> str:
    """The definition of function `@name` in LLVM IR text."""
    m = re.search(rf"^define [^\n]*@{re.escape(name)}\(.*?^\}}$", ir, re.M | re.S)
    return m[0]


def disassemble(obj: bytes) -> str:
    """The functions of an ELF object file as assembly text, each instruction that a
    relocation patches annotated with the symbol it refers to (a called function, a constant)."""
    import io

    import capstone
    from elftools.elf.elffile import ELFFile
    from elftools.elf.relocation import RelocationSection

    elf = ELFFile(io.BytesIO(obj))
    arch = {"EM_X86_64": (capstone.CS_ARCH_X86, capstone.CS_MODE_64),
            "EM_AARCH64": (capstone.CS_ARCH_ARM64, capstone.CS_MODE_ARM)}.get(elf["e_machine"])
    if arch is None:
        raise NotImplementedError(f"no disassembler here for the machine {elf['e_machine']}")
    symbols = elf.get_section_by_name(".symtab")
    refers = {}                       # section index -> {offset patched: the symbol's name}
    for section in elf.iter_sections():
        if isinstance(section, RelocationSection):
            patched = refers.setdefault(section["sh_info"], {})
            for r in section.iter_relocations():
                symbol = symbols.get_symbol(r["r_info_sym"])
                patched[r["r_offset"]] = symbol.name or elf.get_section(symbol["st_shndx"]).name
    decoder, lines = capstone.Cs(*arch), []
    for fn in symbols.iter_symbols():
        if fn["st_info"]["type"] != "STT_FUNC":
            continue
        start, where = fn["st_value"], refers.get(fn["st_shndx"], {})
        code = elf.get_section(fn["st_shndx"]).data()[start:start + fn["st_size"]]
        lines.append(f"{fn.name}:")
        for i in decoder.disasm(code, start):
            notes = [name for at, name in where.items() if i.address <= at < i.address + i.size]
            note = f"   ; {', '.join(notes)}" if notes else ""
            lines.append(f"{i.address:6x}  {i.mnemonic:12s}{i.op_str}{note}".rstrip())
    return "\n".join(lines)
