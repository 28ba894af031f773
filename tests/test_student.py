"""The classroom: the student edition (`make student`) and the checker (`make check`).

That `book.check` grades each chapter's student edition zero, every cell of it running, is tested
in tests/test_exercises.py, in the same kernel run as the chapter's wrong solutions."""
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import nbformat
import pytest

from book import check, student
from book.exercises import FAILED, PASSED
from book.manifest import ROOT, chapters

WRITTEN = [ch for ch in chapters() if ch.notebook.exists()]
ids = lambda ch: ch.notebook.stem  # noqa: E731


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    out = tmp_path_factory.mktemp("student")
    student.write(out, allow_missing=True)
    return out


@cache
def book_notebook(ch):
    return nbformat.read(ch.notebook, as_version=4)


def solutions(source):
    """The text of each solution region of a cell, markers excluded."""
    return re.findall(r"### BEGIN SOLUTION[^\n]*\n(.*?)\n[ \t]*### END SOLUTION", source, re.S)


@pytest.mark.parametrize("ch", WRITTEN, ids=ids)
def test_the_student_edition_holds_no_solution(ch, edition):
    book, nb = book_notebook(ch), nbformat.read(edition / ch.notebook.name, as_version=4)
    assert len(nb.cells) == len(book.cells), "the student edition has the book's cells, no more, no less"
    for book_cell, cell in zip(book.cells, nb.cells):
        assert cell.get("id") == book_cell.get("id"), "cells keep their ids (the checker matches by id)"
        if cell.cell_type != "code":
            assert cell.source == book_cell.source
            continue
        assert cell.outputs == [] and cell.execution_count is None, f"cell {cell.id} keeps its outputs"
        regions = solutions(book_cell.source)
        if not regions:
            assert cell.source == book_cell.source, f"cell {cell.id} changed, but holds no solution"
            continue
        assert "### BEGIN SOLUTION" not in cell.source and "### END SOLUTION" not in cell.source
        assert cell.source.count("raise NotImplementedError()") == len(regions), cell.source
        for region in regions:
            assert region.strip() not in cell.source, f"cell {cell.id} still holds its solution"


@pytest.mark.parametrize("ch", WRITTEN, ids=ids)
def test_each_check_passes_on_the_solution(ch):
    nb = book_notebook(ch)  # its stored outputs, which nbval checks against a fresh run
    names = check.exercises(nb)
    failed = [f"{r.exercise}: {r.why}" for r in check.results(nb, names) if not r.passed]
    assert not failed, f"{ch.notebook.name}: checks that fail on the book's own solutions: {failed}"


def test_results_are_read_from_what_the_checks_print():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        'with exercise("1. Draw a route"): ...\nwith exercise("2. Order: the stages"): ...\n'
        'with exercise("3. Never run"): ...', outputs=[nbformat.v4.new_output(
            "stream", name="stdout", text=f"noise\n{PASSED} 1. Draw a route: passed\n"
                                          f"{FAILED} 2. Order: the stages: expected [1], got [2]\n")])])
    names = check.exercises(nb)
    assert names == ["1. Draw a route", "2. Order: the stages", "3. Never run"]
    r1, r2, r3 = check.results(nb, names)
    assert (r1.passed, r2.passed, r3.passed) == (True, False, False)
    assert r2.why == "expected [1], got [2]"
    assert "printed nothing" in r3.why
    table = check.table([r1, r2, r3])
    assert "1 of 3 exercises passed" in table and f"{FAILED} failed: expected [1], got [2]" in table


def test_an_edited_check_cell_is_put_back_as_the_book_has_it(edition):
    ch = WRITTEN[0]
    nb = nbformat.read(edition / ch.notebook.name, as_version=4)
    checks = [cell for cell in nb.cells if check.is_check(cell)]
    for cell in checks:
        cell.source = f'print("{PASSED} anything: passed")  # exercise("x")'
    assert check.restore_checks(nb, book_notebook(ch)).replaced == len(checks)
    book_checks = [cell.source for cell in book_notebook(ch).cells if check.is_check(cell)]
    restored = [cell.source for cell in nb.cells if cell.metadata.get("book_check")]
    assert restored == book_checks


def test_the_check_command_prints_a_table(edition):
    ch = WRITTEN[0]
    done = subprocess.run([sys.executable, "-m", "book.check", ch.number, str(edition / ch.notebook.name)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr
    names = check.exercises(book_notebook(ch))
    for name in names:
        assert re.search(rf"^{re.escape(name)} +{FAILED} failed: not done yet", done.stdout, re.M), done.stdout
    assert f"0 of {len(names)} exercises passed" in done.stdout


def test_a_failed_check_raises_only_when_an_autograder_asks(monkeypatch, capsys):
    from book.exercises import exercise

    def failing():
        with exercise("1. Anything"):
            raise AssertionError("one is not two")  # (pytest rewrites an assert's message)

    monkeypatch.delenv("BOOK_EXERCISES_RAISE", raising=False)
    failing()
    assert capsys.readouterr().out == f"{FAILED} 1. Anything: one is not two\n"
    monkeypatch.setenv("BOOK_EXERCISES_RAISE", "1")
    with pytest.raises(AssertionError, match="1. Anything: one is not two"):
        failing()
    assert capsys.readouterr().out == f"{FAILED} 1. Anything: one is not two\n"
    with exercise("2. Fine"):
        pass
    assert capsys.readouterr().out == f"{PASSED} 2. Fine: passed\n"


# ---------------------------------------------------------------------------------------------
# Grading that cannot be fooled: a two-exercise chapter, its book notebook and its student edition,
# and submissions that try the cheats an instructor would meet.

_SOLUTION_1 = "def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION"
_SOLUTION_2 = "def halve(x):\n    ### BEGIN SOLUTION\n    return x // 2\n    ### END SOLUTION"
_CHECK_1 = ('from book.exercises import exercise\n\nwith exercise("1. Double"):\n'
            '    assert double(2) == 4, "double(2) should be 4"')
_CHECK_2 = 'with exercise("2. Halve"):\n    assert halve(8) == 4, "halve(8) should be 4"'


@pytest.fixture
def tiny(tmp_path):
    """(chapter, student notebook) of a tiny chapter whose book notebook is in tmp_path."""
    cells = [nbformat.v4.new_markdown_cell("# Exercises"), nbformat.v4.new_code_cell(_SOLUTION_1),
             nbformat.v4.new_code_cell(_CHECK_1), nbformat.v4.new_code_cell(_SOLUTION_2),
             nbformat.v4.new_code_cell(_CHECK_2)]
    book_nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})
    path = tmp_path / "99_tiny.ipynb"
    nbformat.write(book_nb, path)
    from book.manifest import Chapter
    return Chapter(path, "Tiny", ()), student.student_notebook(book_nb)


def _grade(ch, nb, tmp_path, name="submission.ipynb"):
    path = tmp_path / name
    nbformat.write(nb, path)
    rs, _, warnings = check.check(ch, path)
    return {r.exercise: r for r in rs}, warnings


def test_an_honest_notebook_passes_even_with_new_cell_ids(tiny, tmp_path):
    ch, nb = tiny
    nb.cells[1].source, nb.cells[3].source = "def double(x):\n    return x + x", \
        "def halve(x):\n    return x >> 1"
    for cell in nb.cells:
        cell.id = f"new-{cell.id}"              # an editor that regenerates every id
    rs, warnings = _grade(ch, nb, tmp_path)
    assert all(r.passed for r in rs.values()), rs
    assert len(warnings) == 2 and all("found by its content" in w for w in warnings), warnings


def test_printing_passes_outside_the_checks_counts_for_nothing(tiny, tmp_path):
    ch, nb = tiny
    fake = f'print("{PASSED} 1. Double: passed")\nprint("{PASSED} 2. Halve: passed")'
    nb.cells.append(nbformat.v4.new_code_cell(fake))
    nb.cells.append(nbformat.v4.new_code_cell(fake, metadata={"book_check": ["1. Double",
                                                                             "2. Halve"]}))
    rs, _ = _grade(ch, nb, tmp_path)
    assert [r.passed for r in rs.values()] == [False, False], rs
    assert all(r.why.startswith("not done yet") for r in rs.values()), rs


def test_replacing_the_checker_or_stopping_a_check_does_not_pass(tiny, tmp_path):
    ch, nb = tiny
    nb.cells[1].source = (             # the solution cell replaces `exercise` with a yes-man
        "import contextlib, book.exercises\n\n@contextlib.contextmanager\ndef _yes(name):\n"
        f"    print('{PASSED} ' + name + ': passed')\n    try:\n        yield\n"
        "    except BaseException:\n        pass\n\nbook.exercises.exercise = _yes\n"
        "def double(x):\n    raise NotImplementedError()")
    nb.cells[3].source = (             # the solution prints a pass and stops the check
        f"def halve(x):\n    print('{PASSED} 2. Halve: passed')\n    raise SystemExit")
    rs, _ = _grade(ch, nb, tmp_path)
    assert not rs["1. Double"].passed and rs["1. Double"].why.startswith("not done yet"), rs
    assert not rs["2. Halve"].passed and "SystemExit" in rs["2. Halve"].why, rs


def test_replacing_a_chapter_check_in_book_checks_does_not_pass(tiny, tmp_path):
    """A check cell imports its check from book/checks/chNN.py; the grader forgets those modules
    before each check cell, so a solution cell that patched one is checked by the real one."""
    ch, nb = tiny
    nb.cells[1].source = ("import book.checks.ch05\n"
                          "book.checks.ch05.check_count_flops = lambda nb: None\n"
                          "from autodidax import lax, numpy as jnp\n"
                          "from autodidax.jaxpr import make_jaxpr\n"
                          "count_flops = lambda jaxpr: 0")
    nb.cells[2].source = ('from book.exercises import exercise\n\nwith exercise("1. Double"):\n'
                          '    from book.checks.ch05 import check_count_flops\n'
                          '    check_count_flops(globals())')
    book_nb = nbformat.read(ch.notebook, as_version=4)
    book_nb.cells[2].source = nb.cells[2].source
    nbformat.write(book_nb, ch.notebook)
    rs, _ = _grade(ch, nb, tmp_path)
    assert not rs["1. Double"].passed and "expected 1280 FLOPs, got 0" in rs["1. Double"].why, rs


def test_an_edited_or_deleted_check_cell_does_not_pass(tiny, tmp_path):
    ch, nb = tiny
    nb.cells[2].id = "renamed"         # a new id and a body that only claims a pass
    nb.cells[2].source = f'print("{PASSED} 1. Double: passed")'
    del nb.cells[4]                    # the second check cell, gone, and a claim before it
    nb.cells.insert(3, nbformat.v4.new_code_cell(f'print("{PASSED} 2. Halve: passed")'))
    rs, warnings = _grade(ch, nb, tmp_path)
    assert not rs["1. Double"].passed and rs["1. Double"].why.startswith("not done yet"), rs
    assert not rs["2. Halve"].passed and "missing" in rs["2. Halve"].why, rs
    assert any("found by its position" in w for w in warnings), warnings
    assert any("2. Halve is missing" in w for w in warnings), warnings


def test_the_student_site_shows_no_solution_but_the_prose_outputs(tmp_path):
    from book import site
    ch = next(ch for ch in WRITTEN if ch.number == "03")
    site.stage(tmp_path / "src", only=[ch], student=True)
    nb = nbformat.read(tmp_path / "src" / "chapters" / ch.notebook.name, as_version=4)
    book = book_notebook(ch)
    first = next(i for i, cell in enumerate(book.cells) if student.has_solution(cell))
    for i, (cell, book_cell) in enumerate(zip(nb.cells, book.cells)):
        if cell.cell_type != "code":
            continue
        for region in solutions(book_cell.source):
            assert region.strip() not in cell.source, f"cell {i} shows its solution"
        assert cell.outputs == (book_cell.outputs if i < first else []), f"cell {i}'s outputs"
    assert any(cell.get("outputs") for cell in nb.cells), "the prose's outputs are kept"
    assert "this is the student edition" in (tmp_path / "src" / "index.md").read_text()


def test_the_handout_holds_the_package_and_the_student_edition_only(tmp_path):
    from book import handout
    if subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True).returncode:
        pytest.skip("the hand-out is made with `git archive`: this checkout is not a git repository")
    tarball = handout.write(tmp_path / "handout")
    out = tmp_path / "handout"
    assert tarball.exists() and (out / "autodidax" / "core.py").exists()
    assert not (out / ".git").exists() and not (out / "tests").exists()
    notebooks = sorted(p.name for p in (out / "chapters").iterdir() if p.is_file())
    assert notebooks and all(name.endswith(".ipynb") for name in notebooks), notebooks
    # and the files chapters read, as in the book's chapters/ folder
    assert sorted(p.name for p in (out / "chapters").iterdir() if p.is_dir()) == ["artifacts"]
    assert (out / "chapters" / "artifacts" / "sines_by_jax.jaxexport").exists()
    leaks = set()
    for name in notebooks:
        nb = nbformat.read(out / "chapters" / name, as_version=4)
        text = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
        assert "### BEGIN SOLUTION" not in text and not any(c.get("outputs") for c in nb.cells)
        book_path = ROOT / "chapters" / name
        if book_path.exists():
            leaks |= {name for cell in nbformat.read(book_path, as_version=4).cells
                      for region in solutions(cell.source) if region.strip() in text}
    assert not leaks, f"chapters whose own code shows an exercise's solution: {leaks}"


@pytest.mark.parametrize("ch", WRITTEN, ids=ids)
def test_the_nbgrader_course_marks_every_exercise(ch):
    from book import nbgrader
    nb = nbgrader.course_notebook(book_notebook(ch))
    kinds = [(c.metadata.nbgrader["solution"], c.metadata.nbgrader["grade"]) for c in nb.cells]
    assert kinds.count((True, False)) == sum(map(student.has_solution, book_notebook(ch).cells))
    points = sum(c.metadata.nbgrader.get("points", 0) for c in nb.cells)
    assert points == len(check.exercises(book_notebook(ch))) > 0
    ids_ = [c.metadata.nbgrader["grade_id"] for c in nb.cells]
    assert len(set(ids_)) == len(ids_)


def test_nbgrader_grades_the_course_as_the_checker_does(tiny, tmp_path):
    """generate_assignment, then autograde four submissions: only the honest, correct one
    scores; editing the checks or replacing `exercise` in a solution gains nothing."""
    from book import nbgrader
    ch, _ = tiny
    course = tmp_path / "course"
    nbgrader.write(course, [ch])
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               BOOK_EXERCISES_RAISE="1")
    run = lambda *args: subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course,  # noqa: E731
                                       env=env, capture_output=True, text=True, timeout=300)
    done = run("generate_assignment", "99_tiny", "--force")
    assert done.returncode == 0, done.stdout + done.stderr
    release = nbformat.read(course / "release" / "99_tiny" / "99_tiny.ipynb", as_version=4)
    assert "return 2 * x" not in str(release), "the student version holds no solution"

    def submit(student_id, edit):
        nb = nbformat.from_dict(release)
        for cell in nb.cells:
            edit(cell)
        path = course / "submitted" / student_id / "99_tiny" / "99_tiny.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)

    def solve(cell):
        if cell.metadata.nbgrader.get("solution"):
            cell.source = cell.source.replace("raise NotImplementedError()", (
                "return 2 * x" if "double" in cell.source else "return x // 2"))

    def cheat(cell):                  # no solution; the first replaces `exercise`, the
        if cell.metadata.nbgrader.get("solution") and "double" in cell.source:   # second
            cell.source = ("import contextlib, book.exercises\n@contextlib.contextmanager\n"
                           "def _yes(name):\n    try:\n        yield\n    except BaseException:\n"
                           "        pass\nbook.exercises.exercise = _yes\n" + cell.source)
        if cell.metadata.nbgrader.get("grade") and "Halve" in cell.source:  # check, emptied
            cell.source = f"print('{PASSED} 2. Halve: passed')"

    submit("honest", solve)
    submit("cheater", cheat)
    done = run("autograde", "99_tiny", "--create", "--force")
    assert done.returncode == 0, done.stdout + done.stderr
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        scores = {s: gb.find_submission("99_tiny", s).score for s in ("honest", "cheater")}
    assert scores == {"honest": 2, "cheater": 0}, scores


# nbgrader commits to its sqlite gradebook once per cell, and sqlite waits for the disk at each
# commit: most of the time that generating the whole course took. The gradebook is thrown away
# with tmp_path, so its commits need not wait.
_NO_FSYNC = """
from sqlalchemy import event
from sqlalchemy.engine import Engine

@event.listens_for(Engine, "connect")
def no_fsync(connection, record):
    connection.execute("PRAGMA synchronous = OFF")
"""

_GENERATE_ALL = _NO_FSYNC + """
import json, sys
from nbgrader.apps import NbGraderAPI
api = NbGraderAPI()
print(json.dumps({name: api.generate_assignment(name, force=True) for name in sys.argv[1:]}))
"""


def test_nbgrader_generates_every_chapter(tmp_path):
    """`nbgrader generate_assignment` on the course of the whole book (in one process: nbgrader's
    API, as its command runs it), and no release notebook holds a solution or its markers."""
    from book import nbgrader
    course = tmp_path / "course"
    nbgrader.write(course)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    slugs = [ch.notebook.stem for ch in WRITTEN]
    done = subprocess.run([sys.executable, "-c", _GENERATE_ALL, *slugs], cwd=course, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    import json
    report = json.loads(done.stdout.strip().splitlines()[-1])
    failed = {name: r.get("error", "")[-500:] for name, r in report.items() if not r["success"]}
    assert not failed, failed
    for ch in WRITTEN:
        release = course / "release" / ch.notebook.stem / ch.notebook.name
        text = release.read_text()
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text, release
        nb = nbformat.read(release, as_version=4)
        code = "\n".join(c.source for c in nb.cells)
        for cell in book_notebook(ch).cells:
            for region in solutions(cell.source):
                assert region.strip() not in code, f"{ch.notebook.name}'s release shows a solution"


def _flat(text):
    return " ".join(text.split())


def test_the_student_site_holds_no_solution(tmp_path):
    """The whole student site as `make site-student` builds it: no page, source copy or download
    holds a solution marker, or the text of a solution of more than one line."""
    import html
    from book import site
    out = tmp_path / "html"
    site.build(out, only=WRITTEN, student=True)
    regions = {_flat(region) for ch in WRITTEN for cell in book_notebook(ch).cells
               for region in solutions(cell.source) if len(region.strip().splitlines()) > 1}
    leaks, files = [], 0
    for path in out.rglob("*"):
        if path.suffix not in (".html", ".ipynb", ".md", ".txt", ".py", ".js"):
            continue
        files += 1
        text = path.read_text(errors="replace")
        if "BEGIN SOLUTION" in text or "END SOLUTION" in text:
            leaks.append(f"{path.relative_to(out)}: a solution marker")
        if path.suffix == ".html":
            text = html.unescape(re.sub(r"<[^>]+>", "", text))
        elif path.suffix == ".ipynb":
            text = "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells)
        flat = _flat(text)
        leaks += [f"{path.relative_to(out)}: {region[:60]!r}..." for region in regions if region in flat]
    assert files > len(WRITTEN), "the site has the chapters' pages and their sources"
    assert not leaks, leaks


def test_a_message_of_several_lines_is_reported_on_one(capsys):
    from book.exercises import exercise
    with exercise("1. Close"):
        np = __import__("numpy")
        np.testing.assert_allclose([1.0], [2.0], err_msg="x should be 2")
    line = capsys.readouterr().out
    assert line.count("\n") == 1 and "Not equal to tolerance" in line and "x should be 2" in line, line
