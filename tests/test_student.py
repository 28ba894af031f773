"""The classroom: the student edition (`make student`) and the checker (`make check`)."""
import re
import subprocess
import sys
from functools import cache

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


_runs = {}


def executed(ch, edition):
    """The student edition of a chapter, run top to bottom once per session."""
    if ch not in _runs:
        path = edition / ch.notebook.name
        _runs[ch] = check.execute(nbformat.read(path, as_version=4), edition)
    return _runs[ch]


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
def test_the_student_edition_runs_top_to_bottom(ch, edition):
    nb = executed(ch, edition)
    assert not check.errors(nb), f"{ch.notebook.name}, student edition: {check.errors(nb)}"


@pytest.mark.parametrize("ch", WRITTEN, ids=ids)
def test_each_check_fails_on_the_stub_with_a_readable_message(ch, edition):
    names = check.exercises(book_notebook(ch))
    for r in check.results(executed(ch, edition), names):
        assert not r.passed, f"{r.exercise} passes with its solution removed"
        assert r.why.startswith("not done yet"), f"{r.exercise}: the stub should fail as not done yet, got: {r.why}"


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
    assert check.restore_checks(nb, book_notebook(ch)) == len(checks)
    book_checks = [cell.source for cell in book_notebook(ch).cells if check.is_check(cell)]
    assert [cell.source for cell in checks] == book_checks


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
