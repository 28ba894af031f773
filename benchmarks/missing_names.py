"""Where `import autodidax as jax` stands against JAX 0.10.2's public API: for each namespace, the
public callables (functions and classes) that JAX defines and autodidax lacks.

    .venv/bin/python benchmarks/missing_names.py            # counts, and the missing names
    .venv/bin/python benchmarks/missing_names.py --counts   # counts only

A name counts when JAX's module has it without a leading underscore and it is callable; names
that only re-export a module (`jax.numpy.linalg` in `jax.numpy`) do not. EXCEPTIONS lists the
names we leave out on purpose, each with the reason (hardware or a runtime we cannot have here);
tests/test_missing_names.py keeps the counts from growing and the exceptions honest.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

# (JAX's module, ours): the namespaces issue 37 asks for, in that order.
NAMESPACES = [
    ("jax", "autodidax"),
    ("jax.numpy", "autodidax.numpy"),
    ("jax.numpy.linalg", "autodidax.numpy.linalg"),
    ("jax.lax", "autodidax.lax"),
    ("jax.lax.linalg", "autodidax.lax_linalg"),
    ("jax.random", "autodidax.random"),
    ("jax.nn", "autodidax.nn"),
    ("jax.scipy.special", "autodidax.scipy.special"),
    ("jax.scipy.stats", "autodidax.scipy.stats"),
    ("jax.example_libraries.stax", "autodidax.example_libraries.stax"),
    ("jax.example_libraries.optimizers", "autodidax.example_libraries.optimizers"),
    ("jax.tree_util", "autodidax.tree_util"),
    ("jax.tree", "autodidax.tree"),
    # Issue 38's faces of the rule tables (appendix A31).
    ("jax.extend.core", "autodidax.extend.core"),
    ("jax.interpreters.ad", "autodidax.interpreters.ad"),
    ("jax.interpreters.batching", "autodidax.interpreters.batching"),
    ("jax.interpreters.mlir", "autodidax.interpreters.mlir"),
]

# Names JAX has that we leave out on purpose: {namespace: {name: why}}.
EXCEPTIONS: dict[str, dict[str, str]] = {
    "jax.lax": {   # appendix A27: collectives that JAX 0.10.2 runs on GPUs and TPUs only
        "pbroadcast": "JAX has no CPU lowering for it ('MLIR translation rule for primitive "
                      "pbroadcast not found for platform cpu'), and the book runs on the CPU",
        "psend": "JAX implements it on GPUs only ('psend is currently only implemented on "
                 "GPU')",
        "precv": "the receiving half of psend: implemented by JAX on GPUs only",
        "ragged_all_to_all": "XLA's CPU backend refuses the operation ('HLO opcode "
                             "ragged-all-to-all is not supported by XLA:CPU')",
    },
    "jax.nn": {
        "scaled_matmul": "cuDNN's block-scaled matmul: an NVIDIA GPU (Blackwell); JAX's own call "
                         "has no CPU lowering",
        "scaled_dot_general": "block-scaled dot_general through scaled_matmul: an NVIDIA GPU",
    },
}


def public_callables(module) -> set[str]:
    """The public callables of `module`: functions, classes and other callable objects, not
    submodules."""
    return {name for name in dir(module) if not name.startswith("_")
            and callable(getattr(module, name, None))
            and not isinstance(getattr(module, name), types.ModuleType)}


def missing(theirs: str, ours: str) -> tuple[set[str], set[str]]:
    """(JAX's public callables of `theirs`, those that `ours` lacks, exceptions aside)."""
    jax_module = importlib.import_module(theirs)
    try:
        our_module = importlib.import_module(ours)
    except ImportError:
        our_module = None
    names = public_callables(jax_module)
    have = set(dir(our_module)) if our_module is not None else set()
    return names, names - have - set(EXCEPTIONS.get(theirs, {}))


def report() -> dict[str, tuple[int, list[str]]]:
    """{namespace: (how many public callables JAX has, the ones we lack)}."""
    import autodidax  # noqa: F401  (the package, before its submodules are looked up)
    out = {}
    for theirs, ours in NAMESPACES:
        names, lacking = missing(theirs, ours)
        out[theirs] = (len(names), sorted(lacking))
    return out


def main(argv) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--counts", action="store_true", help="counts only")
    args = parser.parse_args(argv)
    for namespace, (total, lacking) in report().items():
        print(f"{namespace}: {len(lacking)} of {total} missing")
        if lacking and not args.counts:
            print("  " + ", ".join(lacking))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
