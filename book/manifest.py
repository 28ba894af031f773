"""The chapter list of `book.toml`."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Chapter:
    notebook: Path          # the executed notebook, chapters/NN_slug.ipynb
    title: str
    modules: tuple[str, ...]

    @property
    def markdown(self) -> Path:
        return self.notebook.with_suffix(".md")

    @property
    def number(self) -> str:
        """`01` for a chapter, `A1` or `A10` for an appendix: the file name up to its `_`."""
        return self.notebook.name.split("_", 1)[0]


def chapters(root: Path = ROOT) -> list[Chapter]:
    data = tomllib.loads((root / "book.toml").read_text())
    return [Chapter(root / c["notebook"], c["title"], tuple(c.get("modules", ())))
            for c in data["chapters"]]


def find(number_or_name: str, root: Path = ROOT) -> Chapter:
    """The chapter whose number (`01`, `1`) or file name (`01_primitives`) is given."""
    for ch in chapters(root):
        if number_or_name in (ch.number, ch.number.lstrip("0") or "0", ch.notebook.stem):
            return ch
    names = ", ".join(ch.notebook.stem for ch in chapters(root))
    raise SystemExit(f"no chapter {number_or_name!r} in book.toml; the chapters are: {names}")


if __name__ == "__main__":
    # `python -m book.manifest` prints the notebooks, for the Makefile.
    print(" ".join(str(ch.notebook.relative_to(ROOT)) for ch in chapters()))
