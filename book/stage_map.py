"""Chapter 0's map, interactive on the site: the stages a JAX program goes through, the route of
each choice of mode (eager or `jit`) and device, and what the running example is at each stage.

`book.site` calls `write` while it stages chapter 0: it writes `stage_map_data.js`, which sets
`window.STAGE_MAP` for book/site/static/stage_map.js to draw. The artifacts (the jaxpr, the
StableHLO, XLA's HLO, LLVM IR, machine code...) are made then, by the `autodidax` package in a
process of their own: `python -m book.stage_map --artifacts` prints them as JSON.
`python -m book.stage_map OUT.js` writes the data file alone.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from book.manifest import ROOT, chapters

MODES = {"eager": "eager", "jit": "jit"}
DEVICES = {"cpu": "CPU", "gpu": "NVIDIA GPU", "tpu": "TPU"}
CHOICES = [(mode, device) for mode in MODES for device in DEVICES]
DEFAULT = {"mode": "jit", "device": "cpu", "stage": "jaxpr"}

CH19 = "19_all_the_way_down"

# The running example, as chapter 0 shows it, run with the package.
SOURCE = """\
import autodidax as jax
import autodidax.numpy as jnp

def f(x):
    return jnp.sin(x) * 2.0 + x

x = jnp.arange(3.0)
"""

LINES = 32          # an artifact longer than this many lines is trimmed


@dataclass(frozen=True)
class Stage:
    id: str
    title: str
    sub: str                     # a few words under the title
    layer: str                   # python, jax, cache, xla or device: the box's colour
    chapters: tuple[str, ...]    # the file stems of the chapters that build it
    x: int                       # the box's centre, in the figure's units
    y: int
    about: str                   # what the stage is, for the panel


# The figure is 860 units wide; its rows are ROW apart, its boxes BOX_W by BOX_H.
WIDTH, ROW, BOX_W, BOX_H, TOP = 860, 84, 176, 54, 58
R = [TOP + ROW * i for i in range(10)]

STAGES = [
    Stage("code", "Your code", "f(x): jnp.sin, *, +", "python", ("01_primitives", "A1_numpy"),
          430, R[0], "The program you write: Python that calls jax.numpy. Appendix A1 builds "
          "jax.numpy over lax's primitives, and chapter 1 the primitives themselves."),
    Stage("opcache", "One-op cache", "primitive, params, types", "cache", ("07_runtime",),
          150, R[1], "Eager evaluation compiles each primitive alone, and keeps the executable "
          "under the primitive, its parameters and its input types."),
    Stage("bind", "Tracing & dispatch", "Primitive.bind", "jax", ("01_primitives",), 430, R[1],
          "Every jnp function ends in `Primitive.bind`, which hands the primitive to the current "
          "trace: eagerly, one that runs it at once; under jit, one that records it."),
    Stage("jitcache", "jit cache", "function, input types", "cache", ("08_jit",), 710, R[1],
          "`jit` keeps what it traced and compiled under the function and the types of its "
          "arguments, not their values."),
    Stage("jaxpr", "jaxpr", "the program as data", "jax", ("05_jaxprs",), 430, R[2],
          "JAX's own program format: typed variables, and one equation per primitive."),
    Stage("stablehlo", "StableHLO", "XLA's input, in MLIR", "jax", ("06_lowering",), 430, R[3],
          "XLA's input language, a dialect of MLIR. The lowering rule of each primitive emits "
          "its operations."),
    Stage("xla", "XLA compiler", "optimise, fuse, emit code", "xla", ("07_runtime", CH19),
          430, R[4],
          "XLA optimises the program as a whole, fusing operations into kernels, lays out "
          "memory, and generates code for one kind of device."),
    Stage("triton", "Triton IR", "some GPU kernels", "xla", (CH19,), 124, R[5],
          "On NVIDIA GPUs, XLA generates some fusions, matrix products among them, through "
          "Triton, a compiler of GPU kernels, instead of its own emitters."),
    Stage("llvm", "LLVM IR", "each generated kernel", "xla", (CH19,), 324, R[5],
          "On CPUs and NVIDIA GPUs, XLA writes each kernel it generates in LLVM IR, which LLVM "
          "optimises and compiles for the machine."),
    Stage("cublas", "cuBLAS / cuDNN", "library calls (GPU)", "xla", (CH19,), 540, R[5],
          "On NVIDIA GPUs, some operations, matrix products and convolutions above all, call "
          "NVIDIA's libraries instead of code XLA generates."),
    Stage("tpu_backend", "XLA TPU backend", "not public", "xla", (CH19,), 736, R[5],
          "XLA's code generator for TPUs ships in libtpu and is not open source: nothing of "
          "what it makes below the optimised HLO can be read."),
    Stage("ptx", "PTX", "NVIDIA's virtual ISA", "xla", (CH19,), 215, R[6],
          "NVIDIA's virtual instruction set. LLVM and Triton write GPU kernels in PTX, which is "
          "then assembled into the GPU's own instructions."),
    Stage("executable", "Compiled executable", "machine code, ready to run", "xla",
          ("07_runtime", "08_jit"), 430, R[7],
          "The compiled program: its kernels in machine code and the order to run them in, "
          "for these input types on one kind of device."),
    Stage("pjrt", "PJRT runtime", "load, run, keep buffers", "xla", ("07_runtime",), 430, R[8],
          "The interface that every kind of device implements: a client, its devices, buffers "
          "in device memory, and executables loaded on a device."),
    Stage("cpu", "CPU", "jaxlib's own client", "device", ("07_runtime",), 230, R[9],
          "The CPU's PJRT client ships inside jaxlib."),
    Stage("gpu", "NVIDIA GPU", "the CUDA plugin", "device", ("A5_plugins",), 430, R[9],
          "An NVIDIA GPU is reached through a PJRT plugin, installed as a package of its own; "
          "appendix A5 finds and loads it."),
    Stage("tpu", "TPU", "libtpu's plugin", "device", ("07_runtime",), 630, R[9],
          "A TPU is reached through a PJRT plugin too, from libtpu; chapter 7's runtime talks "
          "to every device through PJRT."),
]
BY_ID = {s.id: s for s in STAGES}

# Bands behind the boxes: where each stage runs.
LAYERS = [("Python: your program", "python", 0, R[0] + 40),
          ("JAX, in Python", "jax", R[0] + 40, R[3] + 40),
          ("XLA and PJRT, in C++ (jaxlib and plugins)", "xla", R[3] + 40, R[8] + 40),
          ("Devices", "device", R[8] + 40, R[9] + 42)]
HEIGHT = R[9] + 42
# The frame around the stages that run only on a cache miss, and its label in each mode.
FRAME = {"x": 26, "y": R[2] - BOX_H // 2 - 22, "width": WIDTH - 52,
         "height": R[7] - R[2] + BOX_H + 30}
MISS = {"eager": "per primitive, on a one-op cache miss",
        "jit": "once per function and input types, on a jit cache miss"}
LANES = (12, WIDTH - 12)        # the x of the cache hits' arrows, left and right

MACHINE_CODE = {
    "cpu": [("xla", "llvm", "XLA's CPU backend writes {kernel} in LLVM IR."),
            ("llvm", "executable", "LLVM optimises the IR and compiles it to this CPU's machine "
             "code.")],
    "gpu": [("xla", "llvm", "XLA's GPU backend writes most kernels, {kernel} among them, in "
             "LLVM IR."),
            ("llvm", "ptx", "LLVM's NVPTX backend compiles the IR to PTX."),
            ("xla", "triton", "Some fusions, matrix products among them, go through Triton IR "
             "instead."),
            ("triton", "ptx", "Triton compiles its kernels to PTX too."),
            ("xla", "cublas", "Some operations, matrix products and convolutions above all, "
             "become calls of cuBLAS or cuDNN."),
            ("ptx", "executable", "The PTX is assembled into the GPU's own instructions (SASS), "
             "the executable's kernels."),
            ("cublas", "executable", "The library calls take their places among the "
             "executable's steps.")],
    "tpu": [("xla", "tpu_backend", "XLA's TPU backend, which is not public, generates TPU code "
             "for {kernel}."),
            ("tpu_backend", "executable", "The result is an executable for the TPU.")],
}
RUNS_ON = {"cpu": "on the CPU, through jaxlib's own PJRT client",
           "gpu": "on the GPU, through the CUDA PJRT plugin",
           "tpu": "on the TPU, through libtpu's PJRT plugin"}


def steps(mode: str, device: str) -> list[dict]:
    """The route of `mode` on `device`: its steps in order, each {from, to, what, hit}. A step
    starts where the previous one ended, or at a stage the route has already been through."""
    if mode == "jit":
        start = [("code", "jitcache", "`jit(f)(x)` looks `f` up with the type of `x`, "
                  "float32[3]. The first call misses."),
                 ("jitcache", "bind", "On a miss, `f` runs once on tracers: each jnp call binds "
                  "a primitive, which the trace records instead of computing."),
                 ("bind", "jaxpr", "The recorded equations make a jaxpr: sin, mul, add."),
                 ("jaxpr", "stablehlo", "The lowering rule of each primitive emits its "
                  "StableHLO operations, in one module."),
                 ("stablehlo", "xla", "XLA optimises the whole program, and fuses sin, mul and "
                  "add into one loop.")]
        kernel, cache = "the fused loop", "the jit cache, under `f` and float32[3],"
        back = "The result comes back to Python as a device array."
        hit = ("jitcache", "pjrt", "A later call with the same input types hits the jit cache "
               "and goes straight to PJRT: `f`'s Python does not run again.")
    elif mode == "eager":
        start = [("code", "bind", "Python reaches `jnp.sin(x)`, which binds the primitive sin "
                  "at once."),
                 ("bind", "opcache", "The eager trace looks up sin, its params and float32[3] "
                  "in the one-op cache. The first time, it misses."),
                 ("opcache", "jaxpr", "On a miss, the primitive alone is traced into a jaxpr of "
                  "one equation."),
                 ("jaxpr", "stablehlo", "Its lowering rule makes a StableHLO module of one "
                  "operation."),
                 ("stablehlo", "xla", "XLA compiles that operation alone: there is nothing to "
                  "fuse it with.")]
        kernel, cache = "the operation", "the one-op cache"
        back = ("The result, a device array, goes back to Python, which reaches the next "
                "primitive (mul, then add): each takes this route from step 1.")
        hit = ("opcache", "pjrt", "A primitive met again with the same params and input types "
               "(as in a second call of `f`) hits the one-op cache and goes straight to PJRT.")
    else:
        raise ValueError(f"the mode is eager or jit, not {mode!r}")
    if device not in DEVICES:
        raise ValueError(f"the device is one of {list(DEVICES)}, not {device!r}")
    route = [*start, *[(a, b, what.format(kernel=kernel)) for a, b, what in MACHINE_CODE[device]],
             ("executable", "pjrt", f"The executable is kept in {cache} and PJRT loads it on the "
              "device."),
             ("pjrt", device, f"It runs {RUNS_ON[device]}. {back}")]
    return [{"from": a, "to": b, "what": what, "hit": False} for a, b, what in route] + [
        {"from": hit[0], "to": hit[1], "what": hit[2], "hit": True}]


def stages_on(route: list[dict]) -> list[str]:
    """The stages of a route, in the order it reaches them."""
    return list(dict.fromkeys(s for step in route for s in (step["from"], step["to"])))


def chapter_links(built: list[str] | None = None) -> dict[str, dict]:
    """For each chapter a stage names: its label, title and link. A chapter not among `built`
    (the file stems of the pages the site has; None: those book.toml lists and that exist) has
    no link: the figure names it without one."""
    listed = {ch.notebook.stem: ch for ch in chapters()}
    if built is None:
        built = [stem for stem, ch in listed.items() if ch.notebook.exists()]
    links = {}
    for stem in dict.fromkeys(c for s in STAGES for c in s.chapters):
        number = stem.split("_", 1)[0]
        label = number if number[0].isalpha() else f"ch {int(number)}"
        title = listed[stem].title
        links[stem] = {"label": label, "title": title,
                       "href": f"{stem}.html" if stem in built else None}
    return links


# The artifacts, made in a process of their own (XLA's state stays out of the caller's).

def trimmed(text: str, lines: int = LINES) -> str:
    rows = text.strip("\n").splitlines()
    if len(rows) <= lines:
        return "\n".join(rows)
    return "\n".join(rows[:lines] + [f"... (trimmed: {len(rows) - lines} more lines)"])


def plain_hlo(text: str) -> str:
    """HLO text without its source-location metadata."""
    return re.sub(r", metadata=\{[^{}]*\}", "", text).strip()


def kernel_function(ir: str, name: str) -> str:
    """The function of kernel `name` that does its work, in XLA's LLVM IR: the one the entry
    point `@NAME` calls (`@NAME_wrapped`, `@NAME_impl`), or else the entry point itself."""
    functions = re.findall(r"^define [^\n]*?@([\w.$-]+)\(.*?^\}$", ir, re.M | re.S)
    bodies = re.findall(r"^define .*?^\}$", ir, re.M | re.S)
    inner = [body for fn, body in zip(functions, bodies) if fn != name]
    return (inner or bodies or [ir])[0]


def jit_binds(jaxpr: str) -> str:
    """What each bind records while jit traces: from a jaxpr's text, one line an equation."""
    lines = jaxpr.strip().splitlines()
    rows = [f"x is a tracer: {lines[0].split(';')[1].split('.')[0].strip()}"]
    for eqn in lines[1:-1]:
        rhs = eqn.strip().partition(" = ")[2]
        primitive, *operands = rhs.split()
        call = f"{primitive}_p.bind({', '.join(o.split(':')[0] for o in operands)})"
        rows.append(f"{call:22s} records  {eqn.strip()}")
    return "\n".join(rows)


def make_artifacts() -> dict:
    """The running example at each stage, made with the package: texts by name."""
    import autodidax
    from autodidax.jaxpr import trace_to_jaxpr
    from autodidax.lowering import lower_jaxpr_to_module, module_to_text
    from autodidax.runtime import backends, xla_primitive_executable

    env: dict = {}
    exec(compile(SOURCE, "the running example", "exec"), env)
    f, x, jnp = env["f"], env["x"], env["jnp"]
    # jit's cache, first (jit(f) shares it): two calls of one input type trace once.
    jf = autodidax.jit(f)
    jf(x), jf(x + 1.0)
    out = {"jitcache": f"jf = jax.jit(f)\njf(x); jf(x + 1.0)    # two calls, one input type\n"
                       f"print(jf.trace_count, jf._cache_size())\n"
                       f"{jf.trace_count} {jf._cache_size()}    # traced once, one entry"}
    closed = autodidax.make_jaxpr(f)(x)
    lowered = autodidax.jit(f).lower(x)
    out.update(jaxpr=str(closed), stablehlo=lowered.as_text(),
               hlo=plain_hlo(lowered.compile().as_text()))
    # Eagerly: each equation of f is a program of its own.
    eqns = closed.jaxpr.eqns
    device = autodidax.devices()[0]
    one_jaxprs, one_hlos, one_compiled, keys = [], [], [], []
    for e in eqns:
        avals = [v.aval for v in e.invars]
        one = trace_to_jaxpr(lambda *xs, e=e: [e.primitive.bind(*xs, **e.params)], avals)
        one_jaxprs.append(f"{e.primitive}:  {one}")
        one_hlos.append(f"// {e.primitive}\n{module_to_text(lower_jaxpr_to_module(one))}")
        exe = xla_primitive_executable(e.primitive, e.params, avals, device)
        hlo = [line for line in plain_hlo(exe.as_text()).splitlines()
               if line.strip() and not line.startswith("HloModule")]
        one_compiled.append("\n".join([f"// {e.primitive}", *hlo]))
        types = ", ".join(a.str_short() + (" (weak)" if a.weak_type else "") for a in avals)
        keys.append(f"({e.primitive}, {dict(e.params)}, ({types}))")
    out["eager_jaxpr"] = "\n".join(one_jaxprs)
    out["eager_stablehlo"] = "\n".join(one_hlos)
    out["eager_hlo"] = "\n\n".join(one_compiled)
    out["opcache"] = "\n".join(keys)
    out["jit_binds"] = jit_binds(str(closed))
    s = jnp.sin(x)
    m = s * 2.0
    out["eager_binds"] = "\n".join([f"x            = {x}", f"jnp.sin(x)   = {s}",
                                    f"  ... * 2.0  = {m}", f"  ... + x    = {m + x}"])
    out["eager_result"] = f"f(x)\n{f(x)}"
    out["jit_result"] = f"jax.jit(f)(x)\n{jf(x)}"
    others = {d.platform: client.devices() for name, client in backends().items()
              if name != "cpu" for d in client.devices()}      # every backend that starts here
    out["devices"] = "\n".join([f"jax.devices()\n{autodidax.devices()}",
                                *[f"jax.devices({p!r})\n{ds}" for p, ds in others.items()]])
    out["platforms"] = sorted({"cpu", *others})
    from autodidax.machine import below      # chapter 19
    for mode, program in [("jit", lowered), ("eager", autodidax.jit(jnp.sin).lower(x))]:
        name, kernel = next(iter(below(program).kernels.items()))
        out[f"{mode}_kernel"] = name
        out[f"{mode}_llvm"] = kernel_function(kernel.ir, name)
        out[f"{mode}_asm"] = kernel.asm()
    return out


def artifacts() -> dict:
    """`make_artifacts`, run by a Python of its own."""
    done = subprocess.run([sys.executable, "-m", "book.stage_map", "--artifacts"], cwd=ROOT,
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"book.stage_map could not make the map's artifacts:\n{done.stderr}")
    return json.loads(done.stdout)


# What the panel shows for each stage and choice.

NOT_PUBLIC = "XLA's TPU backend is not public: what it makes of a program cannot be read."


def artifact(stage: str, mode: str, device: str, raw: dict) -> dict:
    """The panel's text for a stage, under a choice: {caption, text, note} (text may be None)."""
    cpu_alone = "The site's build makes its artifacts on the CPU alone"
    absent = {"gpu": cpu_alone if "gpu" in raw["platforms"]
              else "No NVIDIA GPU was on the machine that built this book",
              "tpu": cpu_alone}
    nothing = f"{absent['gpu']}, so there is nothing of this stage to show."
    compare = device != "cpu" and f"{absent[device]}, so here is the CPU's, to compare."
    eager = mode == "eager"
    a = {"caption": None, "text": None, "note": None}
    if stage == "code":
        a.update(caption="The running example, as the site's build ran it:", text=SOURCE)
    elif stage == "bind":
        a.update(caption="Eagerly, each bind computes at once: `f`'s body, a primitive at a time:"
                 if eager else "Under `jit`, each bind records an equation, on tracers:",
                 text=raw["eager_binds" if eager else "jit_binds"])
    elif stage == "opcache":
        if eager:
            a.update(caption="The keys of `f`'s three one-primitive programs: (primitive, params, "
                     "input types):", text=raw["opcache"])
        else:
            a.update(note="`jit` does not use the one-op cache: all of `f` is one program.")
    elif stage == "jitcache":
        if eager:
            a.update(note="Eager calls do not go through `jit`'s cache.")
        else:
            a.update(caption="`jit`'s cache at work:", text=raw["jitcache"])
    elif stage in ("jaxpr", "stablehlo"):
        name = "jaxpr" if stage == "jaxpr" else "StableHLO"
        a.update(caption=f"Each primitive alone, as eager evaluation makes it: a {name} of one "
                 "operation each:" if eager else f"The {name} of `f`, at float32[3]:",
                 text=raw[f"eager_{stage}" if eager else stage])
    elif stage == "xla":
        a.update(caption="XLA's optimised HLO for the CPU, each primitive alone (without "
                 "metadata and module headers):" if eager else "XLA's optimised HLO for the "
                 "CPU, sin, mul and add fused into one loop (without metadata):",
                 text=raw["eager_hlo" if eager else "hlo"], note=compare or None)
    elif stage in ("llvm", "executable"):
        key = f"{mode}_{'llvm' if stage == 'llvm' else 'asm'}"
        kernel = raw[f"{mode}_kernel"]
        what = (f"The LLVM IR that XLA wrote for the CPU kernel {kernel}, before LLVM's "
                "passes (the function that does its work)" if stage == "llvm" else
                f"The machine code of the CPU kernel {kernel}, disassembled")
        a.update(caption=what + (": sin alone, as eager evaluation compiles it." if eager
                                 else ":"), text=raw[key])
        if device == "gpu":
            a["note"] = compare
        elif device == "tpu" and stage == "executable":
            a["note"] = f"{absent['tpu']}, and {NOT_PUBLIC} Here is the CPU's, to compare."
    elif stage in ("triton", "ptx"):
        a.update(note=f"Only on NVIDIA GPUs. {nothing}")
    elif stage == "cublas":
        a.update(note=f"Only on NVIDIA GPUs. {nothing} Nor does `f` call a library: it has no "
                 "matrix product or convolution.")
    elif stage == "tpu_backend":
        a.update(note=f"Only on TPUs. {NOT_PUBLIC}")
    elif stage == "pjrt":
        a.update(caption="The result, run by PJRT on the CPU:",
                 text=raw["eager_result" if eager else "jit_result"], note=compare or None)
    elif stage in ("cpu", "gpu", "tpu"):
        if stage == "cpu" or stage == "gpu" and "gpu" in raw["platforms"]:
            a.update(caption="The devices of the machine that built this book:",
                     text=raw["devices"])
        else:
            a.update(note=f"{absent[stage]}.")
    else:
        raise ValueError(f"no stage {stage!r}")
    if a["text"] is not None:
        a["text"] = trimmed(a["text"])
    return a


def data(built: list[str] | None = None, raw: dict | None = None) -> dict:
    """Everything the figure shows, as JSON-ready data; `raw`: the artifacts (default: made
    now, by `artifacts`)."""
    raw = artifacts() if raw is None else raw
    texts: list[str] = []
    table = {}
    for s in STAGES:
        table[s.id] = {}
        for mode, device in CHOICES:
            a = artifact(s.id, mode, device, raw)
            if a["text"] is not None:
                if a["text"] not in texts:
                    texts.append(a["text"])
                a["text"] = texts.index(a["text"])
            table[s.id][f"{mode}/{device}"] = a
    return {
        "modes": list(MODES.items()), "devices": list(DEVICES.items()), "default": DEFAULT,
        "width": WIDTH, "height": HEIGHT, "box": {"width": BOX_W, "height": BOX_H},
        "layers": [{"title": t, "kind": k, "y0": y0, "y1": y1} for t, k, y0, y1 in LAYERS],
        "frame": FRAME, "miss": MISS, "lanes": LANES,
        "stages": [asdict(s) for s in STAGES], "chapters": chapter_links(built),
        "routes": {f"{mode}/{device}": steps(mode, device) for mode, device in CHOICES},
        "artifacts": table, "texts": texts,
    }


def write(path: Path, built: list[str] | None = None, raw: dict | None = None) -> Path:
    """Write the figure's data as a script that sets `window.STAGE_MAP`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("// Chapter 0's interactive map: made by book/stage_map.py when the site was "
                    "built.\nwindow.STAGE_MAP = " + json.dumps(data(built, raw), indent=1)
                    + ";\n")
    return path


def main(argv: list[str]) -> int:
    if argv == ["--artifacts"]:
        print(json.dumps(make_artifacts()))
        return 0
    if len(argv) != 1:
        print("usage: python -m book.stage_map OUT.js | --artifacts", file=sys.stderr)
        return 2
    print(f"wrote {write(Path(argv[0]))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
