"""The graders graded: each exercise's check passes the book's solution, fails the student
edition's stub as not done yet, and rejects each of its wrong solutions (tests/wrong_solutions/)
for the reason that solution names. See book/wrong.py."""
import nbformat
import pytest

from book import wrong
from book.check import exercises
from book.manifest import chapters

GRADED = [ch for ch in chapters() if ch.notebook.exists()
          and exercises(nbformat.read(ch.notebook, as_version=4))]
ids = lambda ch: ch.notebook.stem  # noqa: E731


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
def test_each_check_passes_the_solution_and_rejects_the_stub_and_the_wrong_ones(ch):
    wrongs = wrong.load(ch)
    bad = [wrong.describe(f, wrongs) for f in wrong.run(ch, wrongs) if not f.ok]
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
