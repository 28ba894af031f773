"""Chapter 19's stages below HLO, and appendix A23's readers of XLA's files, on the CPU: what
`below` finds for programs of each kind, compared with what the real JAX's XLA writes."""
import os
import platform
import re
import tempfile

import numpy as np
import pytest

import autodidax
import autodidax.numpy as anp
import jax
import jax.numpy as jnp
from autodidax.machine import Below, below, dump
from autodidax.xla_files import allocations, computations, disassemble, function_of, steps

X = np.linspace(-1.0, 1.0, 8, dtype=np.float32)


def f(np_):
    return lambda x: np_.sin(x) * 2 + x.sum()


@pytest.fixture(scope="module")
def down():
    return below(autodidax.jit(f(anp)).lower(X))


def _mlp(np_):
    def loss(w, b, x):
        h = np_.tanh(x @ w + b)
        return np_.mean(np_.exp(h) * h)
    return loss


MLP_ARGS = (np.ones((16, 32), np.float32) / 16, np.zeros(32, np.float32),
            np.linspace(0, 1, 64 * 16, dtype=np.float32).reshape(64, 16))


def test_every_stage_is_there(down):
    assert {"before_optimizations.txt", "cpu_after_optimizations.txt"} <= set(down.files)
    assert down.hlo.startswith("HloModule jit_") and "fusion(" in down.hlo
    assert sorted(down.kernels) == ["broadcast_add_fusion", "wrapped_reduce"]
    for k in down.kernels.values():
        assert k.ir.startswith("; ModuleID") and k.ir_optimized.startswith("; ModuleID")
        assert k.obj[:4] == b"\x7fELF", "the object file is an ELF object"
    assert "BufferAssignment:" in down.buffer_assignment and "Total bytes" in down.memory_report
    assert down.ptx == {}, "no PTX on a CPU"


def test_lowered_compiled_and_text_give_the_same_program(down):
    lowered = autodidax.jit(f(anp)).lower(X)
    for program in (lowered.compile(), lowered.as_text()):
        other = below(program)
        assert other.hlo == down.hlo and sorted(other.kernels) == sorted(down.kernels)


def test_compiling_again_makes_the_same_machine_code(down):
    again = below(autodidax.jit(f(anp)).lower(X))
    assert {k: v.obj for k, v in again.kernels.items()} == {k: v.obj for k, v in down.kernels.items()}


def test_below_refuses_what_is_not_a_program():
    with pytest.raises(TypeError, match=r"below\(\) takes jit\(f\)\.lower.*not function"):
        below(f(anp))


def test_the_dump_folder_is_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))   # this test's folders alone
    files = dump(autodidax.jit(f(anp)).lower(X).as_text())
    assert files and not list(tmp_path.iterdir()), "dump left its folder behind"


def test_the_optimised_hlo_is_what_jax_compiles_and_its_as_text():
    """The steps XLA makes of our lowering are the ones it makes of JAX's, for a small MLP loss;
    and the dumped HLO is `Compiled.as_text()`, in JAX as here."""
    ours = below(autodidax.jit(_mlp(anp)).lower(*MLP_ARGS))
    with tempfile.TemporaryDirectory() as d:
        compiled = jax.jit(_mlp(jnp)).lower(*MLP_ARGS).compile(compiler_options={"xla_dump_to": d})
        [path] = [os.path.join(d, n) for n in os.listdir(d)
                  if n.endswith(".cpu_after_optimizations.txt")]
        theirs = open(path).read()
    # the same text, but for the order of the keys of backend_config's JSON
    plain = lambda hlo: [re.sub(r", backend_config=.*", "", line) for line in hlo.splitlines()]
    assert plain(compiled.as_text()) == plain(theirs)
    shape = lambda hlo: [(s.opcode, s.kind, s.ops, s.library) for s in steps(hlo)]
    assert shape(ours.hlo) == shape(theirs)
    ours_compiled = autodidax.jit(_mlp(anp)).lower(*MLP_ARGS).compile()
    assert shape(ours_compiled.as_text()) == shape(ours.hlo)


def test_buffers_match_memory_analysis_in_both_libraries():
    ours = below(autodidax.jit(_mlp(anp)).lower(*MLP_ARGS))
    [temp] = [a for a in allocations(ours.buffer_assignment) if a.kind == "preallocated-temp"]
    mine = autodidax.jit(_mlp(anp)).lower(*MLP_ARGS).compile().memory_analysis()
    theirs = jax.jit(_mlp(jnp)).lower(*MLP_ARGS).compile().memory_analysis()
    assert temp.size == mine.temp_size_in_bytes == theirs.temp_size_in_bytes
    assert sum(v.size for v in temp.values) > temp.size, "values share the temporary bytes"


def test_library_steps_and_loops():
    """A matrix product goes to YNNPACK; a loop stays a `while` (in a computation the entry
    calls); a callback's program, with its Python function, can be dumped too."""
    m = np.ones((64, 64), np.float32)
    [s] = steps(below(autodidax.jit(lambda a: a @ a).lower(m)).hlo)
    assert s.library == "__ynn_fusion" and s.ops == ("dot",)
    loop = below(autodidax.jit(lambda x: autodidax.lax.fori_loop(0, 3, lambda i, c: c * 2, x))
                 .lower(X))
    assert "while" in [op for comp in computations(loop.hlo).values() for _, op, _ in comp]
    called = below(autodidax.jit(lambda x: autodidax.pure_callback(
        np.sin, autodidax.ShapeDtypeStruct(x.shape, x.dtype), x)).lower(X))
    assert any(s.library for s in steps(called.hlo)), "the callback is a custom call"


GPU_HLO = """HloModule jit_f, is_scheduled=true

%triton_gemm_computation (p0: f32[64,64], p1: f32[64,64]) -> f32[64,64] {
  %p0 = f32[64,64]{1,0} parameter(0)
  %p1 = f32[64,64]{1,0} parameter(1)
  ROOT %dot.1 = f32[64,64]{1,0} dot(%p0, %p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

ENTRY %main.3 (a: f32[64,64], b: f32[64,64]) -> (f32[64,64], f32[64,64]) {
  %a = f32[64,64]{1,0} parameter(0)
  %b = f32[64,64]{1,0} parameter(1)
  %custom-call.1 = (f32[64,64]{1,0}, s8[0]{0}) custom-call(%a, %b), custom_call_target="__cublas$gemm", backend_config={}
  %get-tuple-element.1 = f32[64,64]{1,0} get-tuple-element(%custom-call.1), index=0
  %triton_gemm = f32[64,64]{1,0} fusion(%a, %b), kind=kCustom, calls=%triton_gemm_computation, backend_config={"fusion_backend_config":{"kind":"__triton_gemm"}}
  ROOT %tuple = (f32[64,64]{1,0}, f32[64,64]{1,0}) tuple(%get-tuple-element.1, %triton_gemm)
}
"""


def test_a_gpu_dump_is_read_the_same_way():
    """What a GPU's dump holds (its files named as XLA names them there): cuBLAS and Triton
    steps, and the PTX of each kernel."""
    files = {"sm_9.0_gpu_after_optimizations.txt": GPU_HLO.encode(),
             "sm_9.0_gpu_after_optimizations-buffer-assignment.txt": b"BufferAssignment:\n",
             "fusion.ptx": b"//\n.version 8.0\n.target sm_90\n"}
    b = Below(files)
    assert b.hlo == GPU_HLO and b.ptx == {"fusion": "//\n.version 8.0\n.target sm_90\n"}
    assert [(s.name, s.library) for s in steps(b.hlo)] == [
        ("custom-call.1", "__cublas$gemm"), ("triton_gemm", "__triton_gemm")]
    assert steps(b.hlo)[1].ops == ("dot",)


def test_tuple_values_and_computations():
    text = """BufferAssignment:
allocation 0: size 24, output shape is |(f32[2], f32[4])|, maybe-live-out:
 value: <3 tuple.1 {} @0> (size=16,offset=0): (f32[2]{0}, f32[4]{0})
 value: <4 fusion {0} @0> (size=8,offset=0): f32[2]{0}
allocation 1: size 8, parameter 0, shape |f32[2]| at ShapeIndex {}:
 value: <0 p @0> (size=8,offset=0): f32[2]{0}
"""
    [out, param] = allocations(text)
    assert (out.kind, param.kind, out.size) == ("output", "parameter", 24)
    assert [(v.name, v.offset, v.size) for v in out.values] == [("tuple.1", 0, 16), ("fusion", 0, 8)]
    comps = computations(GPU_HLO)
    assert set(comps) == {"triton_gemm_computation", "ENTRY"}
    assert [op for _, op, _ in comps["ENTRY"]][:3] == ["parameter", "parameter", "custom-call"]


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86-64 machine code")
def test_the_machine_code_calls_sinf_and_fuses_the_multiply_add(down):
    asm = down.kernels["broadcast_add_fusion"].asm()
    assert asm.startswith("broadcast_add_fusion:")
    assert re.search(r"movabs\s+\w+, 0\s+; sinf", asm), "the address of sinf, patched at load"
    assert re.search(r"\bcall\b", asm)
    assert "; .rodata" in asm, "the constant 2.0 is read from a section of constants"
    ir = down.kernels["broadcast_add_fusion"].ir
    assert "@llvm.sin.f32" in function_of(ir, "broadcast_add_fusion_wrapped")
    with pytest.raises(Exception):
        disassemble(b"not an ELF file")
