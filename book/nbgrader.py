"""Make an nbgrader course from the book: `python -m book.nbgrader COURSE [CHAPTER ...]`.

nbgrader (https://nbgrader.readthedocs.io) reads what each cell is from its metadata, which the
book's notebooks do not carry. This writes `COURSE/source/NN_slug/NN_slug.ipynb` for each chapter
(default: every chapter of book.toml), the book's notebook with that metadata: each cell that holds
a solution (between `### BEGIN SOLUTION` and `### END SOLUTION`) is an "Autograded answer"; each
check cell is "Autograder tests", worth a point per exercise it checks, and starts by loading the
checking helpers afresh, so that a solution cell that replaced them gains nothing; every other
cell is read-only. Outputs are cleared. It also writes `COURSE/nbgrader_config.py`.

Then, in COURSE: `nbgrader generate_assignment NN_slug` makes the student version, and
`BOOK_EXERCISES_RAISE=1 nbgrader autograde NN_slug` grades the submissions (a failed check must
raise for nbgrader to score it 0; students, who run without that variable, see one line instead).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

from book.check import names_in
from book.manifest import ROOT, Chapter, chapters, find
from book.student import copy_data, has_solution

CONFIG = '''c = get_config()  # noqa: F821  (written by `python -m book.nbgrader`)
c.CourseDirectory.course_id = "autodidax"
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}
'''


def fresh_checker_source() -> str:
    """Lines that load `book.exercises` afresh from the book's file and bind `exercise` to it."""
    source = (Path(__file__).parent / "exercises.py").read_text()
    return (f"exec(compile({source!r}, 'book/exercises.py', 'exec'), "
            "(__book_exercises := __import__('types').ModuleType('book.exercises')).__dict__)\n"
            "__import__('sys').modules['book.exercises'] = __book_exercises\n"
            "exercise = __book_exercises.exercise")


def _metadata(grade_id: str, *, solution=False, grade=False, locked=False, points=None) -> dict:
    md = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
          "solution": solution, "task": False}
    if points is not None:
        md["points"] = points
    return md


def course_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of a chapter's notebook with nbgrader's metadata on every cell."""
    nb = nbformat.from_dict(nb)
    prologue = ("# Grading loads the checks' helpers afresh: a solution cannot replace them.\n"
                + fresh_checker_source() + "\n\n")
    for i, cell in enumerate(nb.cells):
        names = names_in(cell)
        if has_solution(cell):
            cell.metadata["nbgrader"] = _metadata(f"solution-{i:03d}", solution=True)
        elif names:
            cell.source = prologue + cell.source
            cell.metadata["nbgrader"] = _metadata(f"check-{i:03d}", grade=True, locked=True,
                                                  points=len(names))
        else:
            cell.metadata["nbgrader"] = _metadata(f"cell-{i:03d}", locked=True)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def write(course: Path, selected: list[Chapter] | None = None) -> list[Path]:
    """Write the course's config and source notebooks; return the notebooks written."""
    course.mkdir(parents=True, exist_ok=True)
    (course / "nbgrader_config.py").write_text(CONFIG)
    written = []
    for ch in selected if selected is not None else chapters():
        if not ch.notebook.exists():
            continue
        slug = ch.notebook.stem
        path = course / "source" / slug / f"{slug}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(course_notebook(nbformat.read(ch.notebook, as_version=4)), path)
        if "artifacts/" in ch.notebook.read_text():
            copy_data(path.parent)
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m book.nbgrader", description=__doc__.split("\n")[0])
    parser.add_argument("course", type=Path, help="the course directory to write into")
    parser.add_argument("chapters", nargs="*", help="chapters (03, 03_jvp...); default: all")
    args = parser.parse_args(argv)
    selected = [find(c) for c in args.chapters] if args.chapters else None
    for path in write(args.course, selected):
        print(f"wrote {path.relative_to(args.course)}")
    print(f"next, in {args.course}: nbgrader generate_assignment NN_slug, and to grade, "
          "BOOK_EXERCISES_RAISE=1 nbgrader autograde NN_slug")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
