"""Export the code cells of each chapter marked `#| export MODULE` to `autodidax/MODULE.py`.

A chapter is the source of its modules: `python -m book.export` writes them, and
`python -m book.export --check` fails when the package differs from what the chapters export.
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
        if not module.isidentifier():
            raise SystemExit(f"{notebook.name}, cell {i}: write `{MARK} MODULE`, got {first!r}")
        out.append((module, rest.strip("\n")))
    return out


def render(root: Path = ROOT) -> dict[Path, str]:
    """The text of every exported module, keyed by its path."""
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
            path = root / "autodidax" / f"{module}.py"
            if path not in texts:
                source = ch.markdown.relative_to(root)
                texts[path] = [f"# Generated from {source} by `make export`: edit the chapter, "
                               f"not this file.\n"]
            texts[path].append(code + "\n")
    return {path: "\n\n".join(parts) for path, parts in texts.items()}


def main(argv: list[str], only: tuple[str, ...] | None = None) -> int:
    """Write (or with `--check`, compare) the exported modules; `only` limits them by name."""
    check = "--check" in argv
    stale = []
    for path, text in render().items():
        if only is not None and path.stem not in only:
            continue
        current = path.read_text() if path.exists() else None
        if current == text:
            continue
        if check:
            stale.append(path.relative_to(ROOT))
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        print("out of date with their chapters (run `make export`): "
              + ", ".join(map(str, stale)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
