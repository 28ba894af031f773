"""Write the student edition of the book: `python -m book.student [OUT]` (default `_build/student`).

Every chapter that book.toml lists, with each solution (the lines between `### BEGIN SOLUTION` and
`### END SOLUTION`) replaced by a stub that raises NotImplementedError, and every output cleared.
nbgrader's ClearSolutions preprocessor does the replacing, standalone: the book's cells follow
nbgrader's conventions but carry no nbgrader metadata, hence `enforce_metadata=False`. Each check
cell still runs and prints that its exercise is not done yet, so a student's notebook runs to its end.
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import nbformat
from nbconvert.preprocessors import ClearOutputPreprocessor
from nbgrader.preprocessors import ClearSolutions

from book.manifest import ROOT, chapters

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = "# YOUR CODE HERE\nraise NotImplementedError()"


def student_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of `nb` with its solutions replaced by stubs and its outputs cleared."""
    nb = nbformat.from_dict(nb)  # a deep copy
    language = nb.metadata.get("kernelspec", {}).get("language", "python")
    clear = ClearSolutions(enforce_metadata=False, code_stub={language: STUB})
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":  # prose may name the delimiters, as chapter 00 does
            clear.preprocess_cell(cell, {"language": language}, i)
    nb, _ = ClearOutputPreprocessor().preprocess(nb, {})
    return nb


def has_solution(cell) -> bool:
    return cell.cell_type == "code" and BEGIN in cell.source


def site_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The student site's copy of a chapter: the student edition's cells, with the book's stored
    outputs up to the first solution cell (the prose's demos) and none from it on, where an
    output could show what a solution computes."""
    stub = student_notebook(nb)
    first = next((i for i, cell in enumerate(nb.cells) if has_solution(cell)), len(nb.cells))
    for cell, book_cell in zip(stub.cells[:first], nb.cells[:first]):
        if cell.cell_type == "code":
            cell.outputs = book_cell.outputs
            cell.execution_count = book_cell.execution_count
    return stub


def copy_data(folder: Path, root: Path = ROOT) -> None:
    """Put the files the chapters read (`chapters/artifacts/`: chapter 17's exported program)
    next to notebooks that run in `folder`."""
    data = root / "chapters" / "artifacts"
    if data.is_dir():
        shutil.copytree(data, folder / "artifacts", dirs_exist_ok=True)


def write(out: Path, root: Path = ROOT, allow_missing: bool = False) -> list[Path]:
    """Write the student edition of every chapter to `out`; return the notebooks written."""
    missing = [ch for ch in chapters(root) if not ch.notebook.exists()]
    if missing and not allow_missing:
        raise SystemExit("book.toml lists chapters that are not written yet: "
                         + ", ".join(str(ch.notebook.relative_to(root)) for ch in missing))
    out.mkdir(parents=True, exist_ok=True)
    copy_data(out, root)
    written = []
    for ch in chapters(root):
        if ch.notebook.exists():
            path = out / ch.notebook.name
            nbformat.write(student_notebook(nbformat.read(ch.notebook, as_version=4)), path)
            written.append(path)
    return written


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m book.student", description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", default=str(ROOT / "_build" / "student"))
    parser.add_argument("--allow-missing", action="store_true",
                        help="leave out chapters whose notebook is not written yet")
    args = parser.parse_args(argv)
    for path in write(Path(args.out), allow_missing=args.allow_missing):
        print(f"wrote {path}")
    print("students check a chapter with: make check CHAPTER=NN NOTEBOOK=path/to/NN_slug.ipynb")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
