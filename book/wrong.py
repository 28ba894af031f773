"""Grade the graders: `python -m book.wrong 03` runs chapter 3's exercise checks against wrong solutions.

A check is only as good as the wrong solutions it rejects. For every exercise the book ships at
least two honest wrong solutions (code a student could write, that runs and is simply wrong) in
`tests/wrong_solutions/NN_slug.py`, a list `WRONG` of `Wrong(...)`. This runs each chapter's
notebook once, in a fresh kernel, with each exercise's cells repeated: from its first solution cell
to its check cell, once with the student edition's stubs, once per wrong solution, then as the
book has them. Every check cell runs after the checking helpers are loaded afresh, as `book.check`
runs them. Then:

- the book's own solution must pass (what `book.check` gives the book's notebook: full marks);
- the stub must fail as "not done yet" (the student edition: zero);
- each wrong solution must fail, and the check's reason must match the `reason` it names: a
  wrong solution that passes, or that fails for another reason, is a check that needs work.

The cells of a stub or a wrong solution other than its check must run without an error: a wrong
solution is code that runs. An exercise's later cells see the book's solutions of the exercises
before it.

`run_with_student` also grades a student's notebook of the chapter in the same kernel, as
`book.check` grades it: the student's notebook runs first, whole, in the fresh kernel, and the
variants then run from the book's first solution cell on. The chapter's prose before its
exercises, the slow part, runs once for both gradings (the tests grade the student edition so).
"""
from __future__ import annotations

import argparse
import importlib.util
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import nbformat

from book import check, student
from book.exercises import FAILED, PASSED
from book.manifest import ROOT, Chapter, chapters, find

WRONG_DIR = ROOT / "tests" / "wrong_solutions"

_REGION = re.compile(r"^(?P<indent>[ \t]*)### BEGIN SOLUTION[^\n]*\n(?P<body>.*?)^[ \t]*### END SOLUTION[^\n]*$",
                     re.M | re.S)


@dataclass(frozen=True)
class Wrong:
    """A wrong solution to one exercise.

    `code` replaces the exercise's solution regions (the lines between `### BEGIN SOLUTION` and
    `### END SOLUTION`, markers included), in the order the chapter has them, written without
    the region's indentation: one string for an exercise with one region, else a tuple with one
    string per region (`None` keeps the book's). `reason` is a regular expression that the
    check's one-line failure must match (searched, case-insensitively)."""
    exercise: str
    mistake: str
    code: str | tuple[str | None, ...]
    reason: str


@dataclass(frozen=True)
class Exercise:
    name: str
    first: int          # the index of its first solution cell
    check: int          # the index of its check cell

    def regions(self, nb) -> int:
        return sum(len(_REGION.findall(nb.cells[i].source)) for i in range(self.first, self.check))


def exercises_of(nb) -> list[Exercise]:
    """Each exercise of a notebook: its name, its first solution cell and its check cell. The
    solution cells of an exercise are those between the check cell before it and its own."""
    found, previous = [], -1
    for i, cell in enumerate(nb.cells):
        names = check.names_in(cell)
        if not names:
            continue
        if len(names) != 1:
            raise ValueError(f"cell {i} checks {names}: a check cell checks one exercise")
        sols = [j for j in range(previous + 1, i) if student.has_solution(nb.cells[j])]
        if not sols:
            raise ValueError(f"exercise {names[0]!r} has no solution cell before its check")
        found.append(Exercise(names[0], sols[0], i))
        previous = i
    return found


def load(ch: Chapter, folder: Path = WRONG_DIR) -> list[Wrong]:
    """The wrong solutions of a chapter (none when it has no file)."""
    path = folder / f"{ch.notebook.stem}.py"
    if not path.exists():
        return []
    spec = importlib.util.spec_from_file_location(f"wrong_solutions_{ch.notebook.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(module.WRONG)


def replace_regions(source: str, codes: list[str | None]) -> tuple[str, list[str | None]]:
    """`source` with its solution regions replaced by `codes`, in order (None keeps one);
    returns the new source and the codes it did not use."""
    codes = list(codes)

    def sub(m):
        code = codes.pop(0) if codes else None
        if code is None:
            return m.group(0)
        return textwrap.indent(textwrap.dedent(code).strip("\n"), m["indent"], lambda line: True)

    return _REGION.sub(sub, source), codes


def _variant(cells, codes) -> list:
    out = []
    for cell in cells:
        cell = nbformat.from_dict(cell)
        if student.has_solution(cell):
            cell.source, codes = replace_regions(cell.source, codes)
        out.append(cell)
    return out


def graded_notebook(nb, wrongs: list[Wrong], first: nbformat.NotebookNode | None = None
                    ) -> nbformat.NotebookNode:
    """The notebook that `run` executes: each exercise's cells repeated for the stub and each
    wrong solution, then the book's; each check cell marked `book_wrong` (the exercise and the
    variant: "stub", "reference", or a wrong solution's index in `wrongs`).

    With `first`, a notebook of the chapter whose cells before the book's first solution cell
    are the book's (a student's), the graded notebook is `first`'s cells, unchanged, then the
    book's from its first solution cell on, repeated as above."""
    stubs = student.student_notebook(nb)
    plan = {ex.first: ex for ex in exercises_of(nb)}
    known = {ex.name: ex for ex in plan.values()}
    for w in wrongs:
        if w.exercise not in known:
            raise ValueError(f"a wrong solution names {w.exercise!r}, which is not an exercise of "
                             f"the chapter (its exercises: {sorted(known)})")
        codes = (w.code,) if isinstance(w.code, str) else w.code
        if len(codes) != known[w.exercise].regions(nb):
            raise ValueError(f"{w.exercise}: a wrong solution gives {len(codes)} regions, the "
                             f"exercise has {known[w.exercise].regions(nb)}")
    out, i = [], 0
    if first is not None:
        i = min(plan, default=len(nb.cells))
        theirs, ours = first.cells[:i], nb.cells[:i]
        if [(c.cell_type, c.source) for c in theirs] != [(c.cell_type, c.source) for c in ours]:
            raise ValueError("the notebook to run first differs from the book's before the "
                             "exercises: grade it on its own, with book.check")
        out = list(first.cells)
    while i < len(nb.cells):
        ex = plan.get(i)
        if ex is None:
            out.append(nb.cells[i])
            i += 1
            continue
        span = range(ex.first, ex.check + 1)
        variants = [("stub", [stubs.cells[j] for j in span])]
        for k, w in enumerate(wrongs):
            if w.exercise == ex.name:
                codes = [w.code] if isinstance(w.code, str) else list(w.code)
                variants.append((k, _variant([nb.cells[j] for j in span], codes)))
        variants.append(("reference", [nb.cells[j] for j in span]))
        for variant, cells in variants:
            cells = [nbformat.from_dict(c) for c in cells]
            for c in cells[:-1]:
                c.metadata["book_variant"] = {"exercise": ex.name, "variant": variant}
            cells[-1].metadata["book_wrong"] = {"exercise": ex.name, "variant": variant}
            cells[-1].metadata["book_check"] = [ex.name]   # for check.execute's fresh checker
            out += cells
        i = ex.check + 1
    graded = nbformat.from_dict(nb)
    graded.cells = [nbformat.from_dict(c) for c in out]
    for k, c in enumerate(graded.cells):
        c.id = f"g{k:04d}"
        if c.cell_type == "code":
            c.outputs, c.execution_count = [], None
    return graded


@dataclass(frozen=True)
class Finding:
    exercise: str
    variant: str | int
    ok: bool
    says: str           # what the check printed, or what went wrong


def findings(ran, wrongs: list[Wrong]) -> list[Finding]:
    """What each variant of each exercise did, judged: see the module's docstring."""
    out, broken = [], {}
    for i, cell in enumerate(ran.cells):
        mark = cell.metadata.get("book_variant")
        if mark and (o := check.stopped(cell)):
            broken.setdefault((mark["exercise"], mark["variant"]),
                              f"its cell {i} raised {o.get('ename')}: {o.get('evalue')}")
        mark = cell.metadata.get("book_wrong")
        if not mark:
            continue
        name, variant = mark["exercise"], mark["variant"]
        passed, says = check.report(cell, name)
        if (o := check.stopped(cell)):
            passed, says = False, f"the check cell stopped with {o.get('ename')}: {o.get('evalue')}"
        elif passed is None:
            says = "its check printed nothing"
        if (name, variant) in broken:
            out.append(Finding(name, variant, False, broken[(name, variant)]))
        elif variant == "reference":
            out.append(Finding(name, variant, bool(passed), says))
        elif variant == "stub":
            out.append(Finding(name, variant, passed is False and says.startswith("not done yet"), says))
        else:
            w = wrongs[variant]
            ok = passed is False and re.search(w.reason, says, re.I) is not None
            if passed is False and not ok:
                says = f"failed, but not for the reason /{w.reason}/: {says}"
            elif passed:
                says = "PASSED: the check accepts this wrong solution"
            out.append(Finding(name, variant, ok, says))
    return out


def run(ch: Chapter, wrongs: list[Wrong] | None = None, timeout: int = 300) -> list[Finding]:
    """Run chapter `ch`'s graded notebook; return the findings."""
    wrongs = load(ch) if wrongs is None else wrongs
    nb = graded_notebook(nbformat.read(ch.notebook, as_version=4), wrongs)
    ran = check.execute(nb, ch.notebook.parent, timeout=timeout, fresh_checker=True)
    return findings(ran, wrongs)


def run_with_student(ch: Chapter, notebook: Path, wrongs: list[Wrong] | None = None,
                     timeout: int = 600):
    """`run`, and `book.check`'s grading of `notebook` (a student's notebook of chapter `ch`), in
    one kernel: the student's notebook, its checks put back as the book has them, runs first,
    whole, as `book.check` runs it (in the notebook's folder); the variants follow, from the
    book's first solution cell on. Returns the findings, and what `book.check.check` returns:
    (results, errors, warnings)."""
    wrongs = load(ch) if wrongs is None else wrongs
    book_nb = nbformat.read(ch.notebook, as_version=4)
    theirs = nbformat.read(notebook, as_version=4)
    restored = check.restore_checks(theirs, book_nb)
    nb = graded_notebook(book_nb, wrongs, first=theirs)
    ran = check.execute(nb, notebook.resolve().parent, timeout=timeout, fresh_checker=True)
    theirs.cells = ran.cells[:len(theirs.cells)]       # as they ran, and as graded
    graded = (check.results(theirs, check.exercises(book_nb), restored.missing),
              check.errors(theirs), restored.warnings)
    return findings(ran, wrongs), graded


def describe(f: Finding, wrongs: list[Wrong]) -> str:
    what = f.variant if isinstance(f.variant, str) else f"wrong: {wrongs[f.variant].mistake}"
    return f"{PASSED if f.ok else FAILED} {f.exercise} [{what}]: {f.says}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m book.wrong", description=__doc__.split("\n")[0])
    parser.add_argument("chapters", nargs="*", help="chapters (03, 03_jvp...); default: all")
    parser.add_argument("--folder", type=Path, default=WRONG_DIR,
                        help="where the NN_slug.py files of wrong solutions are (default: %(default)s)")
    args = parser.parse_args(argv)
    selected = [find(c) for c in args.chapters] if args.chapters else chapters()
    good = True
    for ch in selected:
        wrongs = load(ch, args.folder)
        print(f"chapter {ch.number}, {ch.title}: {len(wrongs)} wrong solutions")
        for f in run(ch, wrongs):
            print("  " + describe(f, wrongs))
            good &= f.ok
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
