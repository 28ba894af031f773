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


def _foreign_assignments(path):
    """`(line, target)` for each statement of a module that assigns an attribute of a name it
    imported from another autodidax module (`core.eval_trace = ...`, `Array.device = ...`,
    `setattr(core, ...)`): the one thing a later chapter must not do to an earlier one."""
    import ast
    tree = ast.parse(path.read_text())
    own = path.relative_to(ROOT).with_suffix("").as_posix().replace("/", ".")
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("autodidax"):
            if node.module != own:
                imported |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.Import):
            imported |= {a.asname or a.name.split(".")[0] for a in node.names
                         if a.name.startswith("autodidax") and a.name != own}

    def root(target):
        while isinstance(target, (ast.Attribute, ast.Subscript)):
            target = target.value
        return target.id if isinstance(target, ast.Name) else None

    found = []
    for node in ast.walk(tree):
        targets = (node.targets if isinstance(node, ast.Assign) else
                   [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        for t in targets:
            if isinstance(t, ast.Attribute) and root(t) in imported:
                found.append((node.lineno, ast.unparse(t)))
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "delattr") and node.args
                and root(node.args[0]) in imported):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_module_assigns_attributes_of_another():
    package = ROOT / "autodidax"
    offenders = {str(p.relative_to(ROOT)): found for p in sorted(package.rglob("*.py"))
                 if p.name != "__init__.py" or p.parent != package
                 for found in [_foreign_assignments(p)] if found}
    assert not offenders, ("modules that change another module's attributes; register into a "
                           f"table or call a function that module provides instead: {offenders}")


ENDINGS = ["## Differences from JAX", "## Where this lives in JAX", "## Exercises"]


@pytest.mark.parametrize("ch", [ch for ch in CHAPTERS if ch.number != "00"],
                         ids=lambda ch: ch.notebook.stem)
def test_every_chapter_ends_with_its_differences_from_jax(ch):
    """Every chapter says where it departs from JAX and why, then where each idea lives in
    JAX's source (the capstone has no such table), then gives exercises, in that order. The
    map, chapter 0, is a survey and has none of them but the exercises."""
    headings = [line.strip() for c in jupytext.read(ch.markdown).cells if c.cell_type == "markdown"
                for line in c.source.splitlines() if line.startswith("## ")]
    want = [h for h in ENDINGS if h in headings]
    assert "## Differences from JAX" in want and "## Exercises" in want, (
        f"{ch.markdown.name} needs the sections {ENDINGS[0]!r} and {ENDINGS[2]!r}")
    assert [h for h in headings if h in ENDINGS] == want, (
        f"{ch.markdown.name}: the sections {want} should come once each, in that order")
