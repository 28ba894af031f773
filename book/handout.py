"""Write the students' hand-out: `python -m book.handout [OUT]` (default `_build/handout`).

A folder, and the same as `OUT.tar.gz`, that holds what a student needs and no solution: the
package and its tooling as committed (`git archive HEAD`, so no history, in which every solution
sits, and nothing uncommitted), without the chapters' sources (`chapters/*.md`, `*.ipynb`), the
tests and the CI, and with the student edition of every chapter (`book.student`) in `chapters/`.
In it, `make venv` sets up, `make lab` opens the chapters, and `make check` checks a chapter
against the checks of the student's own notebook.
"""
from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from book.manifest import ROOT
from book.student import write as write_student

LEFT_OUT = ("chapters", "tests", ".ci", ".github")


def write(out: Path, root: Path = ROOT) -> Path:
    """Write the hand-out folder `out` and `out.tar.gz`; return the archive's path."""
    out = Path(out).resolve()
    try:
        archive = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=root,
                                 capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(f"the hand-out is made from the repository's last commit "
                         f"(`git archive HEAD`), which failed: {e}") from None
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(out, filter="data")
    student = out.parent / f"{out.name}-student"
    write_student(student, root=out)        # from the committed chapters, as the rest
    for name in LEFT_OUT:
        shutil.rmtree(out / name, ignore_errors=True)
    student.rename(out / "chapters")
    tarball = out.parent / f"{out.name}.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(out, arcname=out.name)
    return tarball


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m book.handout", description=__doc__.split("\n")[0])
    parser.add_argument("out", nargs="?", default=str(ROOT / "_build" / "handout"))
    args = parser.parse_args(argv)
    tarball = write(Path(args.out))
    print(f"wrote {tarball.with_suffix('').with_suffix('')}/ and {tarball}: give students either")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
