"""Check a student's notebook: `python -m book.check 03 path/to/03_jvp.ipynb [more.ipynb ...]`.

Runs each notebook in a fresh kernel, reads the line that each exercise's check cell prints
(`✓ name: passed` or `✗ name: why`, from book/exercises.py) and prints a table: each exercise of the
chapter, passed or failed, and why. An exercise whose check never printed (its cell was deleted, or
never reached) fails too. Before running, the check cells are put back as the book has them, so that
an edited check cannot pass an exercise; `--keep-checks` runs the notebook as it is.

With `--csv FILE`, it also writes one row per notebook and exercise, for grading a class.
Exits 0 when every exercise of every notebook passed, 1 otherwise.
"""
from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from book.exercises import FAILED, PASSED
from book.manifest import ROOT, Chapter, find

_NAME = re.compile(r"""\bexercise\(\s*(?P<q>["'])(?P<name>.+?)(?P=q)""")


@dataclass(frozen=True)
class Result:
    exercise: str
    passed: bool
    why: str


def is_check(cell) -> bool:
    return cell.cell_type == "code" and _NAME.search(cell.source) is not None


def exercises(nb) -> list[str]:
    """The names of a notebook's exercises, in order, read from its check cells' sources."""
    return [m["name"] for cell in nb.cells if cell.cell_type == "code"
            for m in _NAME.finditer(cell.source)]


def restore_checks(nb, book_nb) -> int:
    """Put the book's check cells back into a student's notebook, matched by cell id; return how many
    cells were replaced. A check cell the student deleted stays deleted (and its exercise fails)."""
    by_id = {cell.get("id"): cell for cell in book_nb.cells if is_check(cell)}
    replaced = 0
    for cell in nb.cells:
        book_cell = by_id.get(cell.get("id"))
        if book_cell is not None and cell.source != book_cell.source:
            cell.source, cell.cell_type = book_cell.source, "code"
            replaced += 1
    return replaced


def execute(nb, cwd: Path, timeout: int = 600):
    """Run `nb` top to bottom in a fresh kernel, going on past errors; return it with its outputs."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                            record_timing=False, resources={"metadata": {"path": str(cwd)}})
    client.execute(stderr=subprocess.DEVNULL)  # the kernel's own log lines, not the notebook's
    return nb


def _printed(nb) -> list[str]:
    lines = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stdout":
                lines += out.get("text", "").splitlines()
    return lines


def errors(nb) -> list[str]:
    """'cell N: Name: message' for each cell that stopped with an error outside the checks."""
    return [f"cell {i}: {out.get('ename')}: {out.get('evalue')}"
            for i, cell in enumerate(nb.cells) for out in cell.get("outputs", [])
            if out.get("output_type") == "error"]


def results(nb, names: list[str]) -> list[Result]:
    """The result of each named exercise, read from what the notebook printed (the last report of
    an exercise wins)."""
    found: dict[str, Result] = {}
    for line in _printed(nb):
        mark, _, rest = line.partition(" ")
        if mark not in (PASSED, FAILED):
            continue
        name = next((n for n in names if rest.startswith(n + ": ")), None)
        if name is None:
            name, _, why = rest.partition(": ")
        else:
            why = rest[len(name) + 2:]
        found[name] = Result(name, mark == PASSED, why)
    never = "its check printed nothing: the check cell was deleted, or the notebook stopped before it"
    return [found.get(n, Result(n, False, never)) for n in names]


def check(ch: Chapter, notebook: Path, keep_checks: bool = False) -> tuple[list[Result], list[str]]:
    """Run a student's notebook of chapter `ch`; return each exercise's result and the errors.
    Where the book's own notebook is absent (a student's copy without solutions), the student's
    notebook says what the exercises and their checks are."""
    nb = nbformat.read(notebook, as_version=4)
    book_nb = nbformat.read(ch.notebook, as_version=4) if ch.notebook.exists() else nb
    if not keep_checks:
        restore_checks(nb, book_nb)
    names = exercises(book_nb)
    execute(nb, notebook.resolve().parent)
    return results(nb, names), errors(nb)


def table(rs: list[Result]) -> str:
    width = max([len("exercise"), *(len(r.exercise) for r in rs)])
    rows = [f"{'exercise':<{width}}  result", f"{'-' * width}  ------"]
    for r in rs:
        rows.append(f"{r.exercise:<{width}}  {PASSED + ' passed' if r.passed else FAILED + ' failed: ' + r.why}")
    rows.append(f"{sum(r.passed for r in rs)} of {len(rs)} exercises passed")
    return "\n".join(rows)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m book.check", description=__doc__.split("\n")[0])
    parser.add_argument("chapter", help="the chapter's number or name: 03, 3 or 03_jvp")
    parser.add_argument("notebooks", nargs="+", type=Path, help="the student's notebook(s)")
    parser.add_argument("--keep-checks", action="store_true",
                        help="run the check cells as the notebook has them, not as the book has them")
    parser.add_argument("--csv", type=Path, help="also write notebook,exercise,passed,why rows here")
    args = parser.parse_args(argv)
    ch = find(args.chapter)
    if not ch.notebook.exists():
        print(f"({ch.notebook.relative_to(ROOT)} is absent: the exercises and checks are the notebook's own)")
    rows, all_passed = [], True
    for notebook in args.notebooks:
        if not notebook.exists():
            raise SystemExit(f"no notebook at {notebook}")
        rs, errs = check(ch, notebook, args.keep_checks)
        print(f"{notebook}: chapter {ch.number}, {ch.title}")
        print(table(rs))
        for e in errs:
            print(f"  a cell stopped with an error, {e}")
        print()
        all_passed &= all(r.passed for r in rs)
        rows += [(str(notebook), r.exercise, int(r.passed), r.why) for r in rs]
    if args.csv:
        with args.csv.open("w", newline="") as f:
            csv.writer(f).writerows([("notebook", "exercise", "passed", "why"), *rows])
        print(f"wrote {args.csv}")
    return 0 if all_passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
