"""Render the book to a static HTML site: `python -m book.site [OUT]` (default `_build/html`).

The site shows the stored outputs of the chapters that book.toml lists, in its order; rendering
executes nothing (nbval has already checked those outputs). Sphinx, myst-nb and sphinx-book-theme
do the work, configured by book/site/conf.py. Sphinx reads a staged copy of the sources, in
`OUT/../site-src`: book/site/index.md with a table of contents from book.toml, the notebooks
(not their .md twins), and the data of chapter 0's interactive map (book/stage_map.py).
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from book import stage_map
from book.manifest import ROOT, Chapter, chapters
from book.student import site_notebook

SITE = Path(__file__).resolve().parent / "site"


BOOK_EXERCISES = ("ends with exercises, whose solutions are shown here: the student edition of the "
                  "book\n(`make student`) has them replaced by stubs.")
STUDENT_EXERCISES = ("ends with exercises, whose solutions are yours to write: this is the "
                     "student edition\nof the book, which shows none of them.")


def stage(src: Path, root: Path = ROOT, allow_missing: bool = False,
          only: list[Chapter] | None = None, student: bool = False) -> list[str]:
    """Copy the index and the chapters (all of book.toml's, or `only` these) into `src`; return the
    chapters' document names. The student edition stages each chapter without its solutions
    (`book.student.site_notebook`), so that neither its pages nor its downloads show them."""
    listed = chapters(root) if only is None else only
    missing = [ch for ch in listed if not ch.notebook.exists()]
    if missing and not allow_missing:
        raise SystemExit("book.toml lists chapters that are not written yet: "
                         + ", ".join(str(ch.notebook.relative_to(root)) for ch in missing))
    if src.exists():
        shutil.rmtree(src)
    (src / "chapters").mkdir(parents=True)
    docs, appendices = [], []
    for ch in listed:
        if ch.notebook.exists():
            if student:
                nbformat.write(site_notebook(nbformat.read(ch.notebook, as_version=4)),
                               src / "chapters" / ch.notebook.name)
            else:
                shutil.copy2(ch.notebook, src / "chapters" / ch.notebook.name)
            # Appendices are numbered A1, A2...: they get a table of contents of their own.
            (appendices if ch.number[0].isalpha() else docs).append(f"chapters/{ch.notebook.stem}")
    toc = "".join("\n".join(["", "```{toctree}", f":caption: {caption}", ":maxdepth: 1", "",
                              *names, "```", ""])
                  for caption, names in [("Chapters", docs), ("Appendices", appendices)] if names)
    index = (SITE / "index.md").read_text()
    assert BOOK_EXERCISES in index, "book/site/index.md should say where the solutions are"
    if student:
        index = index.replace(BOOK_EXERCISES, STUDENT_EXERCISES)
    (src / "index.md").write_text(index + toc)
    if any(ch.number == "00" and ch.notebook.exists() for ch in listed):
        # Chapter 0's interactive map: its data, and the running example's artifacts, made now.
        built = [ch.notebook.stem for ch in listed if ch.notebook.exists()]
        stage_map.write(src / "_static" / "stage_map_data.js", built)
    return docs + appendices


def build(out: Path, root: Path = ROOT, allow_missing: bool = False, quiet: bool = True,
          only: list[Chapter] | None = None, student: bool = False) -> Path:
    """Build the site into `out`; warnings (a broken reference, an unknown output) are errors."""
    out = Path(out).resolve()
    src = out.parent / f"{out.name}-src"
    stage(src, root, allow_missing, only, student)
    cmd = [sys.executable, "-m", "sphinx", "-b", "html", "-c", str(SITE), "-d", str(src / ".doctrees"),
           "-W", "--keep-going", "-n", *(["-q"] if quiet else []), str(src), str(out)]
    done = subprocess.run(cmd, cwd=root)
    if done.returncode:
        raise SystemExit(f"sphinx-build failed (exit {done.returncode}): {' '.join(cmd)}")
    return out / "index.html"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m book.site", description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", help="default: _build/html, or _build/html-student")
    parser.add_argument("--allow-missing", action="store_true",
                        help="leave out chapters whose notebook is not written yet")
    parser.add_argument("--student", action="store_true",
                        help="the student edition: no solutions on the pages or in the downloads")
    args = parser.parse_args(argv)
    out = args.out or str(ROOT / "_build" / ("html-student" if args.student else "html"))
    index = build(Path(out), allow_missing=args.allow_missing, quiet=False, student=args.student)
    print(f"the site is in {index.parent.relative_to(Path.cwd()) if index.is_relative_to(Path.cwd()) else index.parent}: open {index}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
