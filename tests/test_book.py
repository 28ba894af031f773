"""The book's own checks: pairs in sync, package equal to its chapters, chapters executed."""
import json
import subprocess
import sys

import jupytext
import pytest

from book import export
from book.manifest import ROOT, chapters

CHAPTERS = chapters()


@pytest.mark.parametrize("ch", CHAPTERS, ids=lambda ch: ch.notebook.stem)
def test_markdown_and_notebook_hold_the_same_cells(ch):
    md = jupytext.read(ch.markdown)
    nb = json.loads(ch.notebook.read_text())
    want = [(c.cell_type, c.source) for c in md.cells]
    got = [(c["cell_type"], "".join(c["source"])) for c in nb["cells"]]
    assert got == want, f"{ch.notebook.name} differs from {ch.markdown.name}: run `make chapter CH={ch.number}`"


@pytest.mark.parametrize("ch", CHAPTERS, ids=lambda ch: ch.notebook.stem)
def test_every_code_cell_was_executed(ch):
    nb = json.loads(ch.notebook.read_text())
    unexecuted = [i for i, c in enumerate(nb["cells"])
                  if c["cell_type"] == "code" and "".join(c["source"]).strip()
                  and c["execution_count"] is None]
    assert not unexecuted, f"{ch.notebook.name}: cells {unexecuted} were never executed"


MAX_CODE_LINE = 100   # the site shows a line this long whole (book/site/static/book.css)


@pytest.mark.parametrize("ch", CHAPTERS, ids=lambda ch: ch.notebook.stem)
def test_code_lines_fit_the_page(ch):
    md = jupytext.read(ch.markdown)
    long = [line for c in md.cells if c.cell_type == "code" for line in c.source.splitlines()
            if len(line) > MAX_CODE_LINE]
    assert not long, (f"{ch.markdown.name}: {len(long)} code lines longer than {MAX_CODE_LINE} "
                      f"characters, which the site would cut off; the first: {long[0]!r}")


def test_package_is_what_the_chapters_export():
    stale = [str(p.relative_to(ROOT)) for p, text in export.render().items()
             if not p.exists() or p.read_text() != text]
    assert not stale, f"edited by hand or not re-exported (run `make export`): {stale}"


def test_every_listed_module_is_exported():
    exported = {module for ch in CHAPTERS if ch.notebook.exists()
                for module, _ in export._cells(ch.notebook)}
    listed = {m for ch in CHAPTERS for m in ch.modules}
    assert listed == exported, f"listed in book.toml but never exported: {listed - exported}"


def test_autodidax_never_imports_jax():
    code = ("import sys, autodidax, autodidax.numpy, autodidax.lax, autodidax.tree_util\n"
            "bad = sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.'))\n"
            "print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"importing autodidax imported: {out.stdout}"
    for path in (ROOT / "autodidax").rglob("*.py"):
        for line in path.read_text().splitlines():
            words = line.split()
            assert not (words[:2] in (["import", "jax"], ["from", "jax"])
                        or line.lstrip().startswith(("import jax.", "from jax."))), \
                f"{path.name} imports jax: {line.strip()}"
