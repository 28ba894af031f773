"""Check a student's notebook: `python -m book.check 03 path/to/03_jvp.ipynb [more.ipynb ...]`.

Runs each notebook in a fresh kernel, reads the line that each exercise's check cell prints
(`✓ name: passed` or `✗ name: why`, from book/exercises.py) and prints a table: each exercise of the
chapter, passed or failed, and why. Before running, the check cells are put back as the book has
them (found by cell id, else by content or position, with a warning), so that an edited check
cannot pass an exercise, and each is preceded by a cell that loads the checking helpers afresh, so
that a solution cell that replaced them cannot either. Only what a check cell itself prints counts;
an exercise whose check cell is missing, never ran, or stopped with an error fails.
`--keep-checks` runs the notebook as it is.

What this cannot stop: the notebook runs in one Python process, so a student who rewrites Python's
own builtins or IPython's hooks could still forge a pass. Read the code of a surprising submission.

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


def names_in(cell) -> list[str]:
    """The exercises a cell checks, read from its source."""
    return [m["name"] for m in _NAME.finditer(cell.source)] if cell.cell_type == "code" else []


def exercises(nb) -> list[str]:
    """The names of a notebook's exercises, in order, read from its check cells' sources."""
    return [name for cell in nb.cells for name in names_in(cell)]


@dataclass
class Restored:
    """What `restore_checks` did: how many check cells it rewrote, what it could not find, and
    the warnings to show (a check cell found by its content or position, not its id)."""
    replaced: int
    missing: list[str]
    warnings: list[str]


def restore_checks(nb, book_nb) -> Restored:
    """Put the book's check cells back into a student's notebook, and mark each with the names
    it checks (`metadata.book_check`), which is where `results` then reads them.

    A book check cell is found in the student's notebook by its cell id; failing that (an editor
    that regenerates ids), by content (a code cell that names the same exercises), then by
    position (the cell after the one that follows the same book cell, or the same index in a
    notebook with the book's number of cells), with a warning. A check cell found nowhere stays
    missing, and its exercises fail."""
    for cell in nb.cells:            # only the cells marked here are read as checks
        cell.get("metadata", {}).pop("book_check", None)
    ids = {cell.get("id"): i for i, cell in enumerate(nb.cells) if cell.get("id")}
    by_id = {b: ids[cell["id"]] for b, cell in enumerate(book_nb.cells) if cell.get("id") in ids}
    taken = set(by_id.values())      # a student cell that is a book cell's, by id, is that cell

    def free(i):
        return i is not None and 0 <= i < len(nb.cells) and i not in taken

    result = Restored(0, [], [])
    for b, book_cell in enumerate(book_nb.cells):
        names = names_in(book_cell)
        if not names:
            continue
        i, how = by_id.get(b), None
        if i is None:
            i = next((j for j, cell in enumerate(nb.cells)
                      if free(j) and set(names) & set(names_in(cell))), None)
            how = "its content"
        if i is None and b - 1 in by_id and free(by_id[b - 1] + 1):
            i, how = by_id[b - 1] + 1, "its position after the cell before it"
        if i is None and len(nb.cells) == len(book_nb.cells) and free(b):
            i, how = b, "its position"
        if i is None:
            result.missing += names
            result.warnings.append(f"the check cell of {', '.join(names)} is missing")
            continue
        taken.add(i)
        if how:
            result.warnings.append(f"the check cell of {', '.join(names)} was found by {how}, "
                                   "not by its id (were the notebook's cell ids changed?)")
        cell = nb.cells[i]
        if cell.source != book_cell.source or cell.cell_type != "code":
            result.replaced += 1
        nb.cells[i] = nbformat.v4.new_code_cell(book_cell.source, metadata={"book_check": names},
                                                **({"id": cell["id"]} if cell.get("id") else {}))
    return result


def _fresh_checker_cell():
    """A cell the grader runs just before each check cell: it loads `book.exercises` afresh from
    the book's own file, and forgets the chapters' check modules (`book.checks.chNN`, which the
    check cell imports), so that a solution cell that replaced `exercise`, a check, or anything
    in those modules has no effect on the check."""
    source = (Path(__file__).parent / "exercises.py").read_text()
    return nbformat.v4.new_code_cell(
        f"exec(compile({source!r}, 'book/exercises.py', 'exec'), "
        "(__book_exercises := __import__('types').ModuleType('book.exercises')).__dict__)\n"
        "__import__('sys').modules['book.exercises'] = __book_exercises\n"
        "[__import__('sys').modules.pop(m) for m in list(__import__('sys').modules)\n"
        " if m.startswith('book.checks.')]\n"
        "exercise = __book_exercises.exercise", metadata={"book_grader": True})


def execute(nb, cwd: Path, timeout: int = 600, fresh_checker: bool = False):
    """Run `nb` top to bottom in a fresh kernel, going on past errors; return it with its outputs.
    With `fresh_checker`, each marked check cell is preceded by `_fresh_checker_cell()`. A cell
    that runs longer than `timeout` seconds is interrupted, and its check fails."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    if fresh_checker:
        cells = []
        for cell in nb.cells:
            if cell.metadata.get("book_check"):
                cells.append(_fresh_checker_cell())
            cells.append(cell)
        nb.cells = cells
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                            interrupt_on_timeout=True, record_timing=False, resources={"metadata": {"path": str(cwd)}})
    client.execute(stderr=subprocess.DEVNULL)  # the kernel's own log lines, not the notebook's
    return nb


def _printed(cell) -> list[str]:
    return [line for out in cell.get("outputs", [])
            if out.get("output_type") == "stream" and out.get("name") == "stdout"
            for line in out.get("text", "").splitlines()]


def errors(nb) -> list[str]:
    """'cell N: Name: message' for each cell that stopped with an error outside the checks."""
    return [f"cell {i}: {out.get('ename')}: {out.get('evalue')}"
            for i, cell in enumerate(nb.cells) for out in cell.get("outputs", [])
            if out.get("output_type") == "error"]


def report(cell, name: str) -> tuple[bool | None, str]:
    """What a check cell printed for exercise `name`, the last report winning: (True, ""),
    (False, why), or (None, "") when it printed nothing for it."""
    found = (None, "")
    for line in _printed(cell):
        mark, _, rest = line.partition(" ")
        if mark in (PASSED, FAILED) and rest.startswith(name + ": "):
            found = (mark == PASSED, rest[len(name) + 2:])
    return found


def stopped(cell) -> dict | None:
    """The error output of a cell that stopped with one."""
    return next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)


def results(nb, names: list[str], missing: list[str] = ()) -> list[Result]:
    """The result of each named exercise, read only from what its own check cell printed (the
    last report wins): lines printed by any other cell do not count, and nor does a pass
    printed by a check cell that then stopped with an error. The check cells are those that
    `restore_checks` marked, or, in a notebook it did not touch, those that name the exercise."""
    marked = [cell for cell in nb.cells if cell.get("metadata", {}).get("book_check")]
    checks = {}
    for cell in marked or nb.cells:
        for name in (cell.metadata["book_check"] if marked else names_in(cell)):
            checks.setdefault(name, cell)
    never = "its check printed nothing: the notebook stopped before its check cell"
    out = []
    for name in names:
        cell = checks.get(name)
        if name in missing or cell is None:
            out.append(Result(name, False, "its check cell is missing from the notebook"))
            continue
        passed, why = report(cell, name)
        if passed is None:
            out.append(Result(name, False, never))
        elif passed and stopped(cell):
            out.append(Result(name, False, "its check cell stopped with an error"))
        else:
            out.append(Result(name, passed, why))
    return out


def check(ch: Chapter, notebook: Path, keep_checks: bool = False
          ) -> tuple[list[Result], list[str], list[str]]:
    """Run a student's notebook of chapter `ch`; return each exercise's result, the errors and
    the warnings. Where the book's own notebook is absent (a student's copy without solutions),
    the student's notebook says what the exercises and their checks are."""
    nb = nbformat.read(notebook, as_version=4)
    book_nb = nbformat.read(ch.notebook, as_version=4) if ch.notebook.exists() else nb
    names = exercises(book_nb)
    restored = Restored(0, [], [])
    if not keep_checks:
        restored = restore_checks(nb, book_nb)
    execute(nb, notebook.resolve().parent, fresh_checker=not keep_checks)
    return results(nb, names, restored.missing), errors(nb), restored.warnings


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
        rs, errs, warnings = check(ch, notebook, args.keep_checks)
        print(f"{notebook}: chapter {ch.number}, {ch.title}")
        for w in warnings:
            print(f"  warning: {w}")
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
