"""Checks of appendix A23's exercises (chapters/A23_xla_files.md): each takes the notebook's
namespace."""
import platform
import re
from collections import Counter

import numpy as np

import autodidax as jax
import autodidax.numpy as jnp
from autodidax.machine import dump
from autodidax.xla_files import disassemble

_SYNTHETIC = [
    ("  0  vmovss      xmm0, dword ptr [rcx]\n  4  vaddss      xmm0, xmm0, dword ptr [rdx]", 1,
     "scalar single (`ss`) instructions compute one lane, whatever register they name"),
    ("  0  vbroadcastss ymm1, dword ptr [rax]\n  5  vfmadd213ss xmm0, xmm1, dword ptr [rbp]", 1,
     "`vbroadcastss` ends in `ss`: by the rule, a scalar instruction, one lane"),
    ("  0  vmulps      xmm0, xmm1, xmm2", 4, "packed single on xmm: 4 lanes"),
    ("  0  vmovups     ymmword ptr [r14], ymm0\n  5  vaddss      xmm0, xmm0, xmm1", 8,
     "packed single on ymm: 8 lanes"),
    ("  0  vaddps      zmm0, zmm1, zmm2\n  6  vmulps      ymm3, ymm3, ymm4", 16,
     "packed single on zmm: 16 lanes"),
    ("  0  vmovaps     xmm1, xmmword ptr [rsp + 0x10]\n  6  vmovss      xmm0, dword ptr [rbx]", 4,
     "an `xmmword ptr` memory operand is not a wider register: 4 lanes"),
    ("  0  vaddps      xmm0, xmm0, ymmword ptr [rax]", 4,
     "`ymmword ptr` is a memory operand, not a register: the widest register is xmm"),
    ("  0  vaddpd      ymm0, ymm1, ymm2\n  4  vmulsd      xmm0, xmm0, xmm1", 0,
     "`pd` and `sd` are double precision: no float32 lane"),
    ("  0  push        rbp\n  1  mov         rbp, rsp\n  4  call        r15   ; sinf", 0,
     "no floating-point instruction at all: 0"),
]


def check_lanes(nb):
    """1. `lanes`: the widest float32 instruction of assembly text, in lanes."""
    lanes = nb["lanes"]
    for asm, want, why in _SYNTHETIC:
        got = lanes("kernel:\n" + asm)
        assert got == want, f"{why}: expected {want}, got {got} for\n{asm}"
    if platform.machine() not in ("x86_64", "AMD64"):
        return
    # Real machine code: a kernel of a vectorized loop, with its relocation notes
    x = jnp.asarray(np.linspace(0.0, 1.0, 1024, dtype=np.float32))
    objects = _dumped_objects(jax.jit(lambda x: jnp.exp(x) * 3.0 + 1.0).lower(x).as_text())
    for name, obj in objects.items():
        asm = disassemble(obj)
        want, got = _reference_lanes(asm), lanes(asm)
        assert got == want, f"kernel {name}: expected {want} lanes, got {got}"


def _reference_lanes(asm):
    most = 0
    for line in asm.splitlines():
        if line.endswith(":"):
            continue
        mnemonic, _, operands = line.split(None, 1)[1].partition(" ")
        operands = operands.split(";")[0]
        if mnemonic.endswith("ps"):
            most = max([most] + [{"x": 4, "y": 8, "z": 16}[r]
                                 for r in re.findall(r"\b([xyz])mm\d+\b", operands)])
        elif mnemonic.endswith("ss"):
            most = max(most, 1)
    return most


def _dumped_objects(text):
    """The object files of XLA's dump of `text`, by name."""
    return {name: data for name, data in dump(text).items() if name.endswith(".o")}


_NESTED = """HloModule m, is_scheduled=true

%add_f32 (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add.0 = f32[] add(%a, %b)
}

%fused_sum (p: f32[8]) -> f32[] {
  %p = f32[8]{0} parameter(0)
  %e = f32[8]{0} exponential(%p)
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(%e, %z), dimensions={0}, to_apply=%add_f32
}

%fused_max (p: f32[8]) -> f32[] {
  %p = f32[8]{0} parameter(0)
  %n = f32[8]{0} negate(%p)
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(%n, %z), dimensions={0}, to_apply=%add_f32
}

%cond (c: (s32[], f32[8])) -> pred[] {
  %c = (s32[], f32[8]{0}) parameter(0)
  %i = s32[] get-tuple-element(%c), index=0
  %k = s32[] constant(3)
  ROOT %lt = pred[] compare(%i, %k), direction=LT
}

%body (c: (s32[], f32[8])) -> (s32[], f32[8]) {
  %c = (s32[], f32[8]{0}) parameter(0)
  %i = s32[] get-tuple-element(%c), index=0
  %x = f32[8]{0} get-tuple-element(%c), index=1
  %one = s32[] constant(1)
  %j = s32[] add(%i, %one)
  %y = f32[8]{0} sine(%x)
  ROOT %t = (s32[], f32[8]{0}) tuple(%j, %y)
}

ENTRY %main (x: f32[8]) -> f32[] {
  %x = f32[8]{0} parameter(0)
  %zero = s32[] constant(0)
  %init = (s32[], f32[8]{0}) tuple(%zero, %x)
  %loop = (s32[], f32[8]{0}) while(%init), condition=%cond, body=%body
  %y = f32[8]{0} get-tuple-element(%loop), index=1
  %s = f32[] fusion(%y), kind=kLoop, calls=%fused_sum
  %m = f32[] fusion(%y), kind=kLoop, calls=%fused_max
  ROOT %out = f32[] add(%s, %m)
}
"""


def check_called_ops(nb):
    """2. `called_ops`: every operation of a computation and of the computations it calls."""
    called_ops = nb["called_ops"]
    got = called_ops(_NESTED, "fused_sum")
    want = Counter({"exponential": 1, "reduce": 1, "add": 1})
    assert got == want, (f"fused_sum runs exponential and reduce, and its reduction calls add_f32: "
                         f"expected {dict(want)}, got {dict(got)}")
    got = called_ops(_NESTED, "ENTRY")
    want = Counter({"while": 1, "fusion": 2, "add": 3, "compare": 1, "sine": 1, "exponential": 1,
                    "reduce": 2, "negate": 1})
    assert got == want, (
        "the entry calls the while's condition and body and both fusions, and both fusions' "
        "reductions call add_f32, which counts once; parameters, constants, tuples and "
        f"get-tuple-elements count not at all: expected {dict(want)}, got {dict(got)}")
    hlo = jax.jit(lambda x: jnp.max(jnp.exp(x)) + jnp.sum(x)).lower(
        jnp.ones(16)).compile().as_text()
    got = called_ops(hlo, "ENTRY")
    assert got["exponential"] == 1 and got["maximum"] >= 1 and got["add"] >= 1, (
        f"a real program's exp, max and sum should all be found: got {dict(got)}")
