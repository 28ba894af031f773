"""Export the code cells of each chapter marked `#| export MODULE` to `autodidax/MODULE.py`.

A chapter is the source of its modules: `python -m book.export` writes them, and
`python -m book.export --check` fails when the package differs from what the chapters export.
A dotted name is a module of a package, as in JAX: `#| export scipy.special` writes
`autodidax/scipy/special.py`, and a module with submodules (`numpy`, when some chapter exports
`numpy.linalg`) is written as its package's `__init__.py`. A package that no chapter writes
itself gets an `__init__.py` that only says where its modules come from.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from book.manifest import ROOT, Chapter, chapters

MARK = "#| export"


def _cells(notebook: Path) -> list[tuple[str, str]]:
    """(module, code) for each exported cell of a notebook, in order."""
    out = []
    for i, cell in enumerate(json.loads(notebook.read_text())["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        first, _, rest = source.partition("\n")
        if not first.startswith(MARK):
            continue
        module = first[len(MARK):].strip()
        if not all(part.isidentifier() for part in module.split(".")):
            raise SystemExit(f"{notebook.name}, cell {i}: write `{MARK} MODULE`, got {first!r}")
        out.append((module, rest.strip("\n")))
    return out


def module_path(module: str, modules, root: Path = ROOT) -> Path:
    """Where `module` is written: `a.b` in `autodidax/a/b.py`, a package in its `__init__.py`."""
    parts = module.split(".")
    if any(m.startswith(module + ".") for m in modules):
        return root.joinpath("autodidax", *parts, "__init__.py")
    return root.joinpath("autodidax", *parts[:-1], parts[-1] + ".py")


def exported_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module some chapter exports (packages without cells of their own too), by path."""
    names = {module for ch in chapters(root) if ch.notebook.exists()
             for module, _ in _cells(ch.notebook)}
    names |= {".".join(m.split(".")[:i]) for m in names for i in range(1, m.count(".") + 1)}
    return {m: module_path(m, names, root) for m in sorted(names)}


def render(root: Path = ROOT) -> dict[Path, str]:
    """The text of every exported module, keyed by its path."""
    paths = exported_modules(root)
    texts: dict[Path, list[str]] = {}
    owner: dict[str, Chapter] = {}
    for ch in chapters(root):
        if not ch.notebook.exists():
            continue
        for module, code in _cells(ch.notebook):
            if module not in ch.modules:
                raise SystemExit(f"{ch.notebook.name} exports to {module!r}, which book.toml does "
                                 f"not list for it (it lists {list(ch.modules)})")
            if owner.setdefault(module, ch) is not ch:
                raise SystemExit(f"two chapters export {module!r}: {owner[module].notebook.name} "
                                 f"and {ch.notebook.name}")
            path = paths[module]
            if path not in texts:
                source = ch.markdown.relative_to(root)
                texts[path] = [f"# Generated from {source} by `make export`: edit the chapter, "
                               f"not this file.\n"]
            texts[path].append(code + "\n")
    for module, path in paths.items():              # packages that only hold submodules
        if path not in texts:
            source = owner[min(m for m in owner if m.startswith(module + "."))].markdown
            texts[path] = [f'"""autodidax.{module}: its modules are written by '
                           f'{source.relative_to(root)}."""\n']
    return {path: "\n\n".join(parts) for path, parts in texts.items()}


def main(argv: list[str], only: tuple[str, ...] | None = None) -> int:
    """Write (or with `--check`, compare) the exported modules; `only` limits them by name."""
    check = "--check" in argv
    stale = []
    names = {path: module for module, path in exported_modules().items()}
    for path, text in render().items():
        if only is not None and not any(m == names[path] or m.startswith(names[path] + ".")
                                        for m in only):
            continue                                # not these modules, nor their packages
        current = path.read_text() if path.exists() else None
        if current == text:
            continue
        if check:
            stale.append(path.relative_to(ROOT))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    for path in names:                              # a module that has become a package
        old = path.parent.with_suffix(".py")
        if path.name == "__init__.py" and old.exists():
            if check:
                stale.append(old.relative_to(ROOT))
            else:
                old.unlink()
                print(f"removed {old.relative_to(ROOT)}: it is now {path.relative_to(ROOT)}")
    if stale:
        print("out of date with their chapters (run `make export`): "
              + ", ".join(map(str, stale)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
