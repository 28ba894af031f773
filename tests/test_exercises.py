"""The graders graded: each exercise's check passes the book's solution, fails the student
edition's stub as not done yet, and rejects each of its wrong solutions (tests/wrong_solutions/)
for the reason that solution names. See book/wrong.py. And `book.check` grades the student
edition (`make student`) zero, every cell of it running.

Each chapter runs once for all of these, in one kernel (`wrong.run_with_student`): the student
edition first, whole, as `book.check` runs it, then the wrong solutions and the book's."""
import nbformat
import pytest

from book import student, wrong
from book.check import exercises
from book.manifest import chapters

WRITTEN = [ch for ch in chapters() if ch.notebook.exists()]
GRADED = [ch for ch in WRITTEN if exercises(nbformat.read(ch.notebook, as_version=4))]
ids = lambda ch: ch.notebook.stem  # noqa: E731


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    out = tmp_path_factory.mktemp("student")
    student.write(out, allow_missing=True)
    return out


_runs = {}


def graded(ch, edition):
    """Chapter `ch` run once per session, in one kernel: (its wrong solutions, the findings of
    `book.wrong`, and `book.check`'s grading of its student edition: results, errors, warnings)."""
    if ch not in _runs:
        wrongs = wrong.load(ch)
        _runs[ch] = (wrongs, *wrong.run_with_student(ch, edition / ch.notebook.name, wrongs))
    return _runs[ch]


@pytest.mark.parametrize("ch", WRITTEN, ids=ids)
def test_the_student_edition_runs_top_to_bottom(ch, edition):
    _, _, (_, errors, warnings) = graded(ch, edition)
    assert not errors, f"{ch.notebook.name}, student edition: {errors}"
    assert not warnings, warnings


@pytest.mark.parametrize("ch", WRITTEN, ids=ids)
def test_book_check_grades_the_student_edition_zero(ch, edition):
    _, _, (results, _, _) = graded(ch, edition)
    assert len(results) == len(exercises(nbformat.read(ch.notebook, as_version=4))) > 0
    for r in results:
        assert not r.passed, f"{r.exercise} passes with its solution removed"
        assert r.why.startswith("not done yet"), \
            f"{r.exercise}: the stub should fail as not done yet, got: {r.why}"


@pytest.mark.parametrize("ch", GRADED, ids=ids)
def test_the_exercises_say_what_the_reader_will_have_built(ch):
    """Two to four exercises a chapter, under a section that opens by saying what they build."""
    text = ch.markdown.read_text()
    assert "\n## Exercises\n" in text, "the exercises are a section of their own"
    opening = text.split("\n## Exercises\n", 1)[1].lstrip("\n+")
    assert opening.startswith("You will have "), \
        f"the Exercises section should open with 'You will have ...', not {opening[:60]!r}"
    assert 2 <= len(exercises(nbformat.read(ch.notebook, as_version=4))) <= 4


@pytest.mark.parametrize("ch", GRADED, ids=ids)
def test_every_exercise_has_two_wrong_solutions(ch):
    nb = nbformat.read(ch.notebook, as_version=4)
    wrongs = wrong.load(ch)
    wrong.graded_notebook(nb, wrongs)           # every wrong solution fits its exercise
    few = {ex.name: n for ex in wrong.exercises_of(nb)
           if (n := sum(w.exercise == ex.name for w in wrongs)) < 2}
    assert not few, f"exercises with fewer than two wrong solutions: {few}"
    assert all(w.mistake and w.reason for w in wrongs)


@pytest.mark.parametrize("ch", GRADED, ids=ids)
def test_each_check_passes_the_solution_and_rejects_the_stub_and_the_wrong_ones(ch, edition):
    wrongs, found, _ = graded(ch, edition)
    bad = [wrong.describe(f, wrongs) for f in found if not f.ok]
    assert not bad, "\n".join(bad)


def test_the_harness_reports_a_check_that_is_too_weak(tmp_path):
    """A tiny chapter whose check tests one input only: the wrong solutions that slip through, that
    fail for another reason than they name, or that do not run are each reported; the others and
    the book's solution are not."""
    from book import student
    from book.manifest import Chapter
    cells = [nbformat.v4.new_code_cell("def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n"
                                       "    ### END SOLUTION"),
             nbformat.v4.new_code_cell('from book.exercises import exercise\n\n'
                                       'with exercise("1. Double"):\n'
                                       '    assert double(2) == 4, f"double(2) should be 4, got {double(2)}"')]
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})
    path = tmp_path / "99_tiny.ipynb"
    nbformat.write(nb, path)
    ch = Chapter(path, "Tiny", ())
    wrongs = [wrong.Wrong("1. Double", "squares", "return x * x", reason="should be 4"),
              wrong.Wrong("1. Double", "adds one", "return x + 1", reason="should be 4"),
              wrong.Wrong("1. Double", "adds one", "return x + 1", reason="overflow"),
              wrong.Wrong("1. Double", "does not run", "return 2 *", reason="")]
    assert student.student_notebook(nb)    # the stub is the student edition's
    found = {(f.variant if isinstance(f.variant, str) else wrongs[f.variant].code,
              wrongs[f.variant].reason if isinstance(f.variant, int) else None): f
             for f in wrong.run(ch, wrongs)}
    assert found[("reference", None)].ok and found[("stub", None)].ok
    assert not found[("return x * x", "should be 4")].ok        # 2 * 2 == 2 ** 2: it passes
    assert "PASSED" in found[("return x * x", "should be 4")].says
    assert found[("return x + 1", "should be 4")].ok
    assert not found[("return x + 1", "overflow")].ok
    assert "not for the reason" in found[("return x + 1", "overflow")].says
    assert not found[("return 2 *", "")].ok and "SyntaxError" in found[("return 2 *", "")].says


def test_a_wrong_solution_must_name_an_exercise_and_fit_its_regions():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("### BEGIN SOLUTION\nx = 1\n### END SOLUTION\n"
                                  "### BEGIN SOLUTION\ny = 2\n### END SOLUTION"),
        nbformat.v4.new_code_cell('with exercise("1. Two regions"):\n    pass')])
    with pytest.raises(ValueError, match="not an exercise"):
        wrong.graded_notebook(nb, [wrong.Wrong("1. Other", "?", "x = 2", "")])
    with pytest.raises(ValueError, match="gives 1 regions, the exercise has 2"):
        wrong.graded_notebook(nb, [wrong.Wrong("1. Two regions", "?", "x = 2", "")])
    graded = wrong.graded_notebook(nb, [wrong.Wrong("1. Two regions", "?", (None, "y = 3"), "")])
    sources = [c.source for c in graded.cells]
    assert "### BEGIN SOLUTION\nx = 1\n### END SOLUTION\ny = 3" in sources
    assert wrong.replace_regions("def f():\n    ### BEGIN SOLUTION\n    pass\n    ### END SOLUTION",
                                 ["a = 1\nreturn a"])[0] == "def f():\n    a = 1\n    return a"


def test_one_kernel_grades_a_students_notebook_and_the_wrong_solutions(tmp_path):
    """`run_with_student` grades the student's notebook as `book.check` does (their solution of
    the first exercise passes, the stub of the second does not), then the variants, whose
    findings are those of a run of their own."""
    from book.manifest import Chapter
    cells = [nbformat.v4.new_code_cell("from book.exercises import exercise\nthree = 3"),
             nbformat.v4.new_code_cell("def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n"
                                       "    ### END SOLUTION"),
             nbformat.v4.new_code_cell('with exercise("1. Double"):\n    assert double(three) == 6, '
                                       '"double(3) should be 6"'),
             nbformat.v4.new_code_cell("def halve(x):\n    ### BEGIN SOLUTION\n    return x // 2\n"
                                       "    ### END SOLUTION"),
             nbformat.v4.new_code_cell('with exercise("2. Halve"):\n    assert halve(8) == 4, '
                                       '"halve(8) should be 4"')]
    nb = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})
    nbformat.write(nb, tmp_path / "99_tiny.ipynb")
    ch = Chapter(tmp_path / "99_tiny.ipynb", "Tiny", ())
    theirs = student.student_notebook(nb)
    theirs.cells[1].source = "def double(x):\n    return x + x"
    nbformat.write(theirs, tmp_path / "theirs.ipynb")
    wrongs = [wrong.Wrong("1. Double", "adds one", "return x + 1", reason="should be 6"),
              wrong.Wrong("2. Halve", "divides by 4", "return x // 4", reason="should be 4")]
    found, (results, errors, warnings) = wrong.run_with_student(ch, tmp_path / "theirs.ipynb",
                                                                wrongs)
    assert [(r.exercise, r.passed) for r in results] == [("1. Double", True), ("2. Halve", False)]
    assert results[1].why.startswith("not done yet") and not errors and not warnings
    assert [(f.exercise, f.variant, f.ok) for f in found] == [
        ("1. Double", "stub", True), ("1. Double", 0, True), ("1. Double", "reference", True),
        ("2. Halve", "stub", True), ("2. Halve", 1, True), ("2. Halve", "reference", True)]
    theirs.cells[0].source = "three = 4"        # not the book's cells before the exercises
    with pytest.raises(ValueError, match="differs from the book's before the exercises"):
        wrong.graded_notebook(nb, wrongs, first=theirs)
