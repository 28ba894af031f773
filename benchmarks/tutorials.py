"""The yardstick: JAX's own tutorials and example scripts, run under `jax` and under
`import autodidax as jax`, compared cell by cell (a script's cells are its printed lines).

    .venv/bin/python benchmarks/tutorials.py --docs PATH/TO/jax/docs [--show 3] [--devices N] \
        [NAME ...]

PATH/TO/jax/docs is the `docs/` folder of JAX's source at the pinned version (`fetch
github:jax-ml/jax`, tag jax-v0.10.2). Each tutorial's code cells run in order, in one fresh
process per library; a cell's result is what a notebook shows for it: what it prints, the value of
its last expression (IPython's pretty printer), or the class of the exception it raises. A cell
matches when the two results are the same text, after memory addresses are blanked. Cells that
time (`%timeit`) or shell out (`!pip`) are left out. Under autodidax, `jax` and every `jax.X` are
aliases of `autodidax` and `autodidax.X`; a module autodidax lacks fails to import, as it would
for a reader, and the cells after it fail in turn: that is part of the measure.
A line that imports from JAX's private `jax._src` is replaced, under autodidax, by the
public import of the same thing (PRIVATE_IMPORTS).

The multi-device tutorials run over simulated CPU devices: before the first cell, each fresh
process sets `jax.config.update("jax_num_cpu_devices", N)` in its library. N is `--devices N` when
given, else the tutorial's entry in DEVICES, else the library's default (one CPU device).

JAX's `examples/` scripts are measured the same way (`--examples PATH/TO/jax/examples`): each
runs as a program, unchanged (`runpy`, as `__main__`), in one fresh process per library, and its
"cells" are the lines it prints, compared line by line; a script that dies ends with the class of
its exception. Timings (`in 0.53 sec`, `(0.123 sec)`) and memory addresses are blanked. What the
scripts import that is not installed here and is not JAX (MNIST's download, matplotlib, absl,
dp_accounting) comes from `standins.py`, the same under both libraries. LEFT_OUT names the scripts
left out, with the reason. The SPMD script runs over 8 simulated CPU devices (DEVICES).

    .venv/bin/python benchmarks/tutorials.py --examples PATH/TO/jax/examples [--show 3] [NAME ...]

Nothing here is a test: it needs JAX's docs or examples, and it is a progress figure, not a
pass/fail line.
"""
from __future__ import annotations

import argparse
import contextlib
import doctest
import importlib
import importlib.abc
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

# The tutorials of issue 12 that are notebooks (advanced_autodiff.md is not), by path under docs/.
TUTORIALS = [
    "notebooks/thinking_in_jax.md", "key-concepts.md", "jit-compilation.md",
    "automatic-vectorization.md", "automatic-differentiation.md", "pytrees.md", "control-flow.md",
    "random-numbers.md", "stateful-computations.md", "jaxpr.md",
    "notebooks/Common_Gotchas_in_JAX.md", "notebooks/Neural_Network_and_Data_Loading.md",
    "notebooks/autodiff_cookbook.md", "notebooks/vmapped_log_probs.md",
]

# The tutorials of chapter 16 (meshes, shardings, shard_map), run over 8 simulated CPU devices.
# Chapter 17's: the export guide, written as doctests (each `>>>` example is a cell).
TUTORIALS += ["export/export.md", "export/shape_poly.md"]
SHARDING_TUTORIALS = ["parallel.md", "notebooks/shard_map.md"]
TUTORIALS += SHARDING_TUTORIALS
# Issue 37's: complex numbers and differentiation (complex64, `holomorphic`, conjugation).
TUTORIALS += ["complex-differentiation.md"]
# Issue 38's: extending JAX (primitives, interpreters), checkify, array refs, the debugging flags,
# type promotion, transfer guards and the AOT stages.
EXTENDING = [
    "jax-primitives.md", "notebooks/Writing_custom_interpreters_in_Jax.md",
    "debugging/checkify_guide.md", "array_refs.md", "debugging/flags.md", "type_promotion.rst",
    "transfer_guard.rst", "aot.md",
]
TUTORIALS += EXTENDING + ["gradient-checkpointing.md"]   # it prints the leaves of a `vjp`
# Issue 38's too: JAX's debugging pages (jax.debug.print and breakpoint, set_xla_metadata). A cell
# that stops at a breakpoint reads its commands from stdin, which is empty here: the prompt ends.
DEBUGGING = [
    "debugging.md", "debugging/print_breakpoint.md", "debugging/index.md",
    "debugging/xla_metadata.md",
]
TUTORIALS += DEBUGGING

# Issue 37's: the scripts of JAX's examples/ folder, run as programs (a cell is a printed line).
EXAMPLES = [
    "advi.py", "differentially_private_sgd.py", "mnist_classifier.py",
    "mnist_classifier_fromscratch.py", "mnist_vae.py", "spmd_mnist_classifier_fromscratch.py",
]
LEFT_OUT = {
    "onnx2xla.py": "it needs the onnx package, which is not installed, and downloads an ONNX model "
                   "from GitHub, checked by its MD5 hash: there is no network here, and no "
                   "stand-in can pass that check",
}

# How many simulated CPU devices a tutorial or script runs over, unless `--devices` says otherwise.
DEVICES = {name: 8 for name in SHARDING_TUTORIALS + ["spmd_mnist_classifier_fromscratch.py"]}

_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.S | re.M)
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,16}")
_SECONDS = re.compile(r"\d+(\.\d+)? sec\b")


_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_SHOWN = re.compile(r"^>> .*\n", re.M)    # an output a guide shows inside its code block
_RST_BLOCK = re.compile(r"^\.\. code-block:: python\n\n((?:[ \t]+[^\n]*\n|\n)+)", re.M)


# What a guide imports from JAX's private `jax._src` is not API: under autodidax each such line
# becomes the public name (or jaxlib module) that holds the same thing, so that the cells after it
# are measured. The cell that imports still counts; it prints nothing under either library.
PRIVATE_IMPORTS = {
    "from jax._src.lax import lax": "from jax import lax",
    "from jax._src import api": "import jax as api",
    "from jax._src.lib.mlir.dialects import hlo":
        "from jaxlib.mlir.dialects import stablehlo as hlo",
    "from jax._src.util import safe_map": "from jax.example_libraries.optimizers import safe_map",
}


def _public(source: str) -> str:
    return "\n".join(PRIVATE_IMPORTS.get(line.strip(), line) for line in source.split("\n"))


def cells(markdown: str) -> list[str]:
    """The code cells of a MyST notebook, without their `:tags:`-style option lines. A page that
    is not a notebook (a Markdown or reStructuredText guide) has code blocks instead: a block
    written as doctests (`docs/export/*.md`, `docs/aot.md`) gives a cell for each `>>>` example,
    any other Python block is one cell (less the lines, `>> ...`, that show what it prints)."""
    if not _CELL.search(markdown):
        blocks = _PYTHON_BLOCK.findall(markdown) + [
            textwrap.dedent(b) for b in _RST_BLOCK.findall(markdown)]
        parser = doctest.DocTestParser()
        return [source for block in blocks
                for source in ([e.source for e in parser.get_examples(block)]
                               if ">>>" in block else [_SHOWN.sub("", block)])]
    out = []
    for body in _CELL.findall(markdown):
        lines = body.split("\n")
        if lines and lines[0].strip() == "---":                 # a YAML options block
            end = lines.index("---", 1) if "---" in lines[1:] else 0
            lines = lines[end + 1:]
        out.append("\n".join(l for l in lines if not l.startswith(":")))
    return out


class _NoOtherJax(importlib.abc.MetaPathFinder):
    """A `jax.X` that autodidax lacks fails to import, as for a reader: the real jax must not
    be found instead. (The ones autodidax has are in `sys.modules` already, under both names.)"""

    def find_spec(self, name, path, target=None):
        if name == "jax" or name.startswith("jax."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def _alias_autodidax_as_jax():
    import pkgutil

    import autodidax
    for info in pkgutil.walk_packages(autodidax.__path__, "autodidax."):
        importlib.import_module(info.name)
    for name, module in list(sys.modules.items()):
        if name == "autodidax" or name.startswith("autodidax."):
            sys.modules["jax" + name[len("autodidax"):]] = module
    sys.meta_path.insert(0, _NoOtherJax())


def _run_cell(source: str, env: dict) -> str:
    import ast

    from IPython.lib.pretty import pretty
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return "<raised SyntaxError>"
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            exec(compile(tree, "<cell>", "exec"), env)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), env)
                if value is not None:
                    print(pretty(value))
    except BaseException as e:  # noqa: BLE001  (a notebook shows every exception)
        return out.getvalue() + f"<raised {type(e).__name__}>"
    return out.getvalue()


def _run_script(path: Path) -> list[str]:
    """Run one of JAX's example scripts as `__main__`, with the stand-ins; its printed lines,
    timings and addresses blanked, then `<raised E>` if it dies."""
    import runpy

    import standins
    standins.install()
    sys.argv = [str(path)]
    out, raised = io.StringIO(), []
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            runpy.run_path(str(path), run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            raised.append(f"<raised SystemExit({e.code!r})>")
    except BaseException as e:  # noqa: BLE001  (a program shows every exception)
        raised.append(f"<raised {type(e).__name__}>")
    lines = out.getvalue().splitlines()
    return [_SECONDS.sub("… sec", _ADDRESS.sub("0x…", line)) for line in lines] + raised


def run(lib: str, path: Path, devices: int = 0) -> list[str | None]:
    """Run one tutorial's cells, or one example script, under `lib`, over `devices` CPU devices
    (0: the library's default); None for a cell left out."""
    os.environ["JAX_PLATFORMS"] = "cpu"
    if lib == "autodidax":
        _alias_autodidax_as_jax()
    if devices:     # before any cell: the CPU client is made on first use, with this many devices
        importlib.import_module("jax").config.update("jax_num_cpu_devices", devices)
    import numpy as np
    np.random.seed(0)
    if path.suffix == ".py":
        return _run_script(path)
    env: dict = {"__name__": "__main__"}
    text = path.read_text()
    if not _CELL.search(text):      # a doctest page: the names JAX's conftest.py gives doctests
        exec("import jax, numpy as np\nfrom jax import lax, numpy as jnp", env)
    results = []
    for source in cells(text):
        if any(line.lstrip().startswith(("%", "!")) for line in source.split("\n")):
            results.append(None)
            continue
        source = _public(source) if lib == "autodidax" else source
        results.append(_ADDRESS.sub("0x…", _run_cell(source, env)))
    return results


def compare(root: Path, name: str, show: int, devices: int | None = None) -> tuple[int, int, int]:
    """Run a tutorial (or an example script) under both libraries and print how many of its
    cells (printed lines) match; return (cells, same, cells where only JAX raised or neither)."""
    devices = DEVICES.get(name, 0) if devices is None else devices
    got, took = {}, {}
    for lib in ("jax", "autodidax"):
        with tempfile.NamedTemporaryFile(suffix=".json") as f:
            start = time.perf_counter()
            done = subprocess.run([sys.executable, __file__, "--run", lib, str(root / name), f.name,
                                   str(devices)],
                                  capture_output=True, text=True, timeout=900,
                                  stdin=subprocess.DEVNULL)     # a breakpoint's prompt ends
            took[lib] = time.perf_counter() - start
            if done.returncode:
                print(f"{name}: the {lib} run failed\n{done.stderr[-2000:]}", file=sys.stderr)
                return 0, 0, 0
            got[lib] = json.loads(Path(f.name).read_text())
    theirs, ours = got["jax"], got["autodidax"]
    if name.endswith(".py"):        # lines: one run may print more of them than the other
        length = max(len(theirs), len(ours))
        theirs, ours = ([*lines, *["<no line>"] * (length - len(lines))]
                        for lines in (theirs, ours))
    pairs = [(i, a, b) for i, (a, b) in enumerate(zip(theirs, ours)) if a is not None]
    same = [i for i, a, b in pairs if a == b]
    clean = [i for i, a, b in pairs if "<raised" not in b or "<raised" in a]
    differ = [(i, a, b) for i, a, b in pairs if a != b]
    unit = "lines" if name.endswith(".py") else "cells"
    print(f"{name:50s} {len(pairs):4d} {unit}  {len(same):4d} same "
          f"({100 * len(same) / max(len(pairs), 1):3.0f}%)  "
          f"[{took['jax']:.0f} s jax, {took['autodidax']:.0f} s autodidax]")
    for i, a, b in differ[:show]:
        print(f"    {unit[:-1]} {i}:\n      jax:       {a.strip()[:300]!r}\n"
              f"      autodidax: {b.strip()[:300]!r}")
    return len(pairs), len(same), len(clean)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--run"]:
        lib, path, out, devices = argv[1:5]
        Path(out).write_text(json.dumps(run(lib, Path(path), int(devices))))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--docs", type=Path, help="the docs/ folder of JAX's source")
    where.add_argument("--examples", type=Path, help="the examples/ folder of JAX's source")
    parser.add_argument("--show", type=int, default=0, help="print the first N differing cells")
    parser.add_argument("--devices", type=int, default=None,
                        help="simulated CPU devices for every tutorial or script (default: its "
                             "DEVICES entry, else one)")
    parser.add_argument("names", nargs="*",
                        help="tutorials, as paths under docs/, or scripts under examples/ "
                             "(default: all)")
    args = parser.parse_args(argv)
    root, names = (args.docs, TUTORIALS) if args.docs else (args.examples, EXAMPLES)
    total = same = 0
    for name in args.names or names:
        n, s, _ = compare(root, name, args.show, args.devices)
        total, same = total + n, same + s
    unit = "cells" if args.docs else "lines"
    print(f"{'all':50s} {total:4d} {unit}  {same:4d} same ({100 * same / max(total, 1):3.0f}%)")
    if args.examples and not args.names:
        for name, why in LEFT_OUT.items():
            print(f"{name:50s} left out: {why}")
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
