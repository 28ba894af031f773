"""Check a student's notebook: `python -m book.check 03 path/to/03_jvp.ipynb [more.ipynb ...]`.

Runs each notebook in a fresh kernel and prints a table: each exercise of the chapter, passed or
failed, and why. Before running, the check cells are put back as the book has them (found by cell
id, else by content or position, with a warning), so that an edited check cannot pass an
exercise. Only what a check cell itself reports counts; an exercise whose check cell is missing,
never ran, or stopped with an error fails. `--keep-checks` runs the notebook as it is, and trusts
what its check cells print.

With `--csv FILE`, it also writes one row per notebook and exercise, for grading a class.
Exits 0 when every exercise of every notebook passed, 1 otherwise.
"""
# How grading stands up to a hostile notebook. The student's code runs in the kernel, as the
# same user as the grader, so the grader trusts nothing the kernel can write:
# - What it reads (book/, autodidax/ and the chapter's book notebook) is read once, when grading
#   starts (`Tooling`). Each notebook runs with a private copy of the packages, first on the
#   kernel's sys.path (the notebook's folder last), with a fresh IPYTHONDIR and a kernelspec of
#   its own. After each notebook, book/ and the chapter's notebook are compared with what was
#   read: a change fails that notebook and is named in a warning, and book/'s files are put
#   back (what replaced them is kept in a temporary folder), so a later run is not forged.
# - Each check cell runs as `__book_check__(nonce, source)`: the book's source, a fresh random
#   nonce. A first cell, before any student code, set that function up (`book.exercises.
#   _grading`): it read the notebook's secret key from a file and deleted the file, and saved the
#   checks and a snapshot of the modules they rely on (numpy, builtins, contextlib...): a check
#   that finds them changed fails, and during a check their names cannot be rebound. A result
#   counts only on a line signed with the key over the nonce, the source's hash, the exercise and
#   the result (`verify`), once per exercise: one altered, forged or repeated is a failure.
# - A kernel that dies, or a cell that runs past `--timeout`, ends that notebook there: its
#   kernel's process group is killed, and the grader, a child subreaper (Linux), kills each
#   process the notebook detached. No notebook stops the others from being graded.
# - The CSV is written by the grader alone, after every kernel and its processes are dead: to a
#   temporary file renamed over it, then read back and compared.
# What remains: code in the kernel can dig the key out of the checker's objects in its own
# memory, patch a tool and put it back before the check looks, signal the grader, or write any
# file the user can (the venv, the home directory). Only an OS sandbox (a container, a throwaway
# user) stops all that; the README says so.
from __future__ import annotations

import argparse
import csv
import hashlib
import hmac
import importlib.util
import io
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_core.utils import run_sync
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from book.exercises import FAILED, PASSED, TAG
from book.manifest import Chapter, find

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
        cell.get("metadata", {}).pop("book_verified", None)
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


class Tooling:
    """The files of book/ and autodidax/, and the book's notebook of the chapter (`extra`), read
    once, when grading starts. Each notebook runs with a private copy of the packages, and
    `changed` compares with what was read the files on disk that a later run would trust: book/
    (the grader and its checks) and the chapter's notebook (the checks' cells). autodidax/ is
    left out: the chapters' exports rewrite it, and a changed package only does what a notebook
    can do to it in memory."""

    def __init__(self, extra: list[Path] = ()):
        spec = importlib.util.find_spec("autodidax")
        self.roots = {"book": Path(__file__).resolve().parent,
                      "autodidax": Path(spec.submodule_search_locations[0]).resolve()}
        self.extra = [Path(p).resolve() for p in extra if Path(p).exists()]
        self.files = {path: path.read_bytes() for path in self._walk()}

    def _walk(self):
        for root in self.roots.values():
            for path in sorted(root.rglob("*")):
                if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                    yield path
        yield from (p for p in self.extra if p.exists())

    def write(self, lib: Path):
        """The packages under `lib`, and beside them a link to the book's chapters/ (whose
        artifacts a check may read, as the book's `chapters/artifacts/...`)."""
        for path, data in self.files.items():
            for name, root in self.roots.items():
                if path.is_relative_to(root):
                    (lib / name / path.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
                    (lib / name / path.relative_to(root)).write_bytes(data)
        chapters = self.roots["book"].parent / "chapters"
        if chapters.is_dir():
            (lib / "chapters").symlink_to(chapters, target_is_directory=True)

    def changed(self) -> list[Path]:
        """Each file of book/, or the chapter's notebook, that differs from what was read, is
        gone, or is new."""
        now = {p for p in self._walk() if not p.is_relative_to(self.roots["autodidax"])}
        read = {p for p in self.files if not p.is_relative_to(self.roots["autodidax"])}
        out = [path for path in sorted(read)
               if path not in now or _digest(path.read_bytes()) != _digest(self.files[path])]
        return out + sorted(now - read)

    def restore(self, paths) -> Path:
        """Put back the files of book/ as they were read (not the chapter's notebook, which
        `book.run` rewrites: the warning names it). What was found in their place is kept in a
        new temporary folder, returned: a change of your own made meanwhile is not lost."""
        kept = Path(tempfile.mkdtemp(prefix="book-check-changed-"))
        for path in paths:
            if not path.is_relative_to(self.roots["book"]):
                continue
            if path.exists():
                (kept / self.name(path)).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, kept / self.name(path))
            if path in self.files:
                path.write_bytes(self.files[path])
            else:
                path.unlink(missing_ok=True)
        return kept

    def name(self, path: Path) -> str:
        root = next((r.parent for r in self.roots.values() if path.is_relative_to(r)), path.parent)
        return str(path.relative_to(root))


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_KERNEL = {"argv": [sys.executable, "-s", *(["-P"] if sys.version_info >= (3, 11) else []),
                    "-m", "ipykernel_launcher", "-f", "{connection_file}"],
           "display_name": "Python 3 (book.check)", "language": "python"}


def _start_cell(key_file: Path, lib: Path, cwd: Path):
    """The first cell of a graded run: the private tooling first on sys.path, and the notebook's
    folder last (so that files a notebook leaves there cannot stand in for numpy or the checker
    in the next notebook), then `_grading`."""
    return nbformat.v4.new_code_cell(
        "import sys as __book_sys\n"
        f"__book_sys.path[:] = [{str(lib)!r}, *(p for p in __book_sys.path\n"
        f"                      if p not in ('', {str(lib)!r}, {str(cwd)!r})), {str(cwd)!r}]\n"
        "import book.exercises as __book_exercises\n"
        f"__book_check__ = __book_exercises._grading({str(key_file)!r}, globals())\n"
        "del __book_exercises, __book_sys")


def _kill_group(km):
    """Kill the kernel's process group (it leads a session of its own)."""
    pid = getattr(getattr(km, "provisioner", None), "pid", None)
    if pid:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _subreaper() -> bool:
    """Make this process the child subreaper of its descendants (Linux): a process a notebook
    detached is then re-parented to it, not to init, and `_sweep` can kill it."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes
    return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0   # PR_SET_CHILD_SUBREAPER


def _sweep():
    """Kill and reap every child of this process, until none is left (what a child leaves
    behind becomes a child in its turn)."""
    for _ in range(100):
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == os.getpid():
                children.append(int(stat.parent.name))
        if not children:
            return
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in children:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        time.sleep(0.05)


def execute(nb, cwd: Path, timeout: int = 600, fresh_checker: bool = False,
            tooling: Tooling | None = None):
    """Run `nb` top to bottom in a fresh kernel, going on past errors; return it with its outputs.
    A cell that runs longer than `timeout` seconds, or a kernel that dies, ends the run: the
    kernel's process group is killed, and that cell gets an error output that says why.

    With `fresh_checker`, the run is graded (see the comment at the top of this module): each
    cell marked `book_check` runs as `__book_check__(nonce, source)` in a kernel that imports the
    private copy of `tooling` (read now if not given), and gets `metadata.book_verified`, the
    results that `verify` accepts."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    private = Path(tempfile.mkdtemp(prefix="book-check-"))
    try:
        env = dict(os.environ, IPYTHONDIR=str(private / "ipython"), PYTHONNOUSERSITE="1")
        key = secrets.token_bytes(32)
        runs, plan = list(nb.cells), {}   # what the kernel runs; plan: {index in runs: nonce}
        if fresh_checker:
            (tooling or Tooling()).write(private / "lib")
            env["PYTHONPATH"] = os.pathsep.join([str(private / "lib"), env.get("PYTHONPATH", "")])
            key_file = private / "key"
            key_file.touch(0o600)
            key_file.write_bytes(key)
            for i, cell in enumerate(nb.cells):
                if cell.get("metadata", {}).get("book_check"):
                    plan[i + 1] = secrets.token_hex(16)
                    runs[i] = nbformat.v4.new_code_cell(f"__book_check__({plan[i + 1]!r}, "
                                                        f"{cell.source!r})")
            runs.insert(0, _start_cell(key_file, private / "lib", Path(cwd).resolve()))
        (private / "kernels" / "python3").mkdir(parents=True)
        (private / "kernels" / "python3" / "kernel.json").write_text(json.dumps(_KERNEL))
        km = AsyncKernelManager(kernel_name="python3", kernel_spec_manager=KernelSpecManager(
            kernel_dirs=[str(private / "kernels")], ensure_native_kernel=False))
        client = NotebookClient(nbformat.v4.new_notebook(cells=runs, metadata=nb.metadata),
                                km=km, timeout=timeout, allow_errors=True, record_timing=False,
                                resources={"metadata": {"path": str(cwd)}})
        try:
            with client.setup_kernel(env=env, cwd=str(cwd), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     cleanup_kc=True):
                for i, run in enumerate(runs):
                    try:
                        client.execute_cell(run, i)
                    except (CellTimeoutError, DeadKernelError, RuntimeError, OSError) as e:
                        why = ("the kernel died in this cell" if not isinstance(
                            e, CellTimeoutError) else f"this cell ran past the {timeout} s limit")
                        run.setdefault("outputs", []).append(nbformat.v4.new_output(
                            "error", ename=type(e).__name__, traceback=[],
                            evalue=f"{why}: its kernel was stopped, and the rest did not run"))
                        break
                    finally:
                        if fresh_checker and i == 0 and stopped(run):
                            raise RuntimeError(f"the grader's first cell failed: {errors_of(run)}")
                _kill_group(km)
        finally:
            _kill_group(km)
            try:
                run_sync(km.shutdown_kernel)(now=True)
            except Exception:   # already dead, or never started
                pass
        for i, nonce in plan.items():
            cell = nb.cells[i - 1]
            cell.outputs = runs[i].get("outputs", [])
            cell.execution_count = runs[i].get("execution_count")
            cell.metadata["book_verified"] = verify(cell, key, nonce)
        return nb
    finally:
        shutil.rmtree(private, ignore_errors=True)


def errors_of(cell) -> list[str]:
    return [f"{o.get('ename')}: {o.get('evalue')}" for o in cell.get("outputs", [])
            if o.get("output_type") == "error"]


def verify(cell, key: bytes, nonce: str) -> dict:
    """{exercise: [passed, why]} from the signed lines of a graded check cell's output: those
    whose signature is the key's over the nonce, the hash of the cell's source, the exercise and
    the result. An exercise signed for more than once fails; any line that starts with `TAG` but
    does not verify fails them all."""
    digest, found, forged = hashlib.sha256(cell.source.encode()).hexdigest(), {}, False
    for line in _printed(cell):
        if not line.startswith(TAG + " "):
            continue
        parts = line.split(" ")
        try:
            tag, passed, name, why = parts[1:]
            fields = [nonce, digest, passed, name, why]
            good = hmac.compare_digest(tag, hmac.new(key, "\0".join(fields).encode(),
                                                     "sha256").hexdigest())
            name, why = bytes.fromhex(name).decode(), bytes.fromhex(why).decode()
        except ValueError:
            good = False
        if not good:
            forged = True
            continue
        found.setdefault(name, []).append([passed == "1", why])
    out = {}
    for name, got in found.items():
        if forged:
            out[name] = [False, "its check's report was altered"]
        elif len(got) > 1:
            out[name] = [False, "its check reported it more than once"]
        else:
            out[name] = got[0]
    if forged:
        for name in cell.metadata.get("book_check", []):
            out[name] = [False, "its check's report was altered"]
    return out


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
    """The result of each named exercise, read only from what its own check cell reported: in a
    graded run, the results `verify` accepted (`metadata.book_verified`), else what it printed
    (the last report wins). Lines printed by any other cell do not count, and nor does a pass
    reported by a check cell that then stopped with an error. The check cells are those that
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
        if "book_verified" in cell.metadata:
            passed, why = cell.metadata["book_verified"].get(name, (None, ""))
        else:
            passed, why = report(cell, name)
        if passed is None:
            out.append(Result(name, False, never))
        elif passed and stopped(cell):
            out.append(Result(name, False, "its check cell stopped with an error"))
        else:
            out.append(Result(name, passed, why))
    return out


def check(ch: Chapter, notebook: Path, keep_checks: bool = False, timeout: int = 600,
          tooling: Tooling | None = None) -> tuple[list[Result], list[str], list[str]]:
    """Run a student's notebook of chapter `ch`; return each exercise's result, the errors and
    the warnings. Where the book's own notebook is absent (a student's copy without solutions),
    the student's notebook says what the exercises and their checks are."""
    nb = nbformat.read(notebook, as_version=4)
    book_nb = nbformat.read(ch.notebook, as_version=4) if ch.notebook.exists() else nb
    if tooling and ch.notebook.resolve() in tooling.files:   # as it was when grading started
        book_nb = nbformat.reads(tooling.files[ch.notebook.resolve()].decode(), as_version=4)
    names = exercises(book_nb)
    restored = Restored(0, [], [])
    if not keep_checks:
        restored = restore_checks(nb, book_nb)
    execute(nb, notebook.resolve().parent, timeout, fresh_checker=not keep_checks, tooling=tooling)
    return results(nb, names, restored.missing), errors(nb), restored.warnings


def table(rs: list[Result]) -> str:
    width = max([len("exercise"), *(len(r.exercise) for r in rs)])
    rows = [f"{'exercise':<{width}}  result", f"{'-' * width}  ------"]
    for r in rs:
        said = f"{PASSED} passed" if r.passed else f"{FAILED} failed: {r.why}"
        rows.append(f"{r.exercise:<{width}}  {said}")
    rows.append(f"{sum(r.passed for r in rs)} of {len(rs)} exercises passed")
    return "\n".join(rows)


def write_csv(path: Path, rows) -> None:
    """Write the CSV atomically (a temporary file in its folder, renamed over it), then read it
    back: what is there must be what was written."""
    text = io.StringIO(newline="")
    csv.writer(text).writerows([("notebook", "exercise", "passed", "why"), *rows])
    data = text.getvalue().encode()
    fd, tmp = tempfile.mkstemp(dir=path.resolve().parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
    if path.read_bytes() != data:
        raise SystemExit(f"{path} changed after it was written: grade again, in a sandbox")


def grade(ch: Chapter, notebook: Path, keep_checks: bool, timeout: int, tooling: Tooling
          ) -> tuple[list[Result], list[str], list[str]]:
    """`check`, made safe for a batch: whatever the notebook does, it gets a result per
    exercise, the processes it left are killed, and a file of the tooling it changed fails it
    (and, in book/, is put back)."""
    try:
        rs, errs, warnings = check(ch, notebook, keep_checks, timeout, tooling)
    except Exception as e:      # a notebook that nbformat cannot read, say
        book_nb = ch.notebook if ch.notebook.exists() else None
        names = exercises(nbformat.read(book_nb, as_version=4)) if book_nb else ["(all)"]
        rs, errs, warnings = [Result(n, False, f"the grader could not run it: {e}")
                              for n in names], [], []
    _sweep()
    if changed := tooling.changed():
        kept = tooling.restore(changed)
        files = ", ".join(tooling.name(path) for path in changed[:3])
        print(f"warning: {notebook} changed {files}: book/'s files are put back as grading "
              f"found them (what replaced them is in {kept}); check the rest with git status")
        rs = [Result(r.exercise, False, f"it changed the grader's files on disk: {files}")
              for r in rs]
    return rs, errs, warnings


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m book.check",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("chapter", help="the chapter's number or name: 03, 3 or 03_jvp "
                                        "(or the path of a chapter's notebook, NN_slug.ipynb)")
    parser.add_argument("notebooks", nargs="+", type=Path, help="the student's notebook(s)")
    parser.add_argument("--keep-checks", action="store_true",
                        help="run the check cells as the notebook has them, not as the book "
                             "has them")
    parser.add_argument("--csv", type=Path,
                        help="also write notebook,exercise,passed,why rows here")
    parser.add_argument("--timeout", type=int, default=600,
                        help="seconds a cell may run before its notebook is stopped "
                             "(default: %(default)s)")
    args = parser.parse_args(argv)
    path = Path(args.chapter)
    ch = Chapter(path.resolve(), path.stem, ()) if path.suffix == ".ipynb" else find(args.chapter)
    tooling = Tooling([ch.notebook])          # read before any notebook runs
    _subreaper()
    if not ch.notebook.exists():
        print(f"({ch.notebook} is absent: the exercises and checks are the notebook's own)")
    if absent := [str(n) for n in args.notebooks if not n.exists()]:
        raise SystemExit(f"no notebook at {', '.join(absent)}")
    rows, all_passed = [], True
    for notebook in args.notebooks:
        rs, errs, warnings = grade(ch, notebook, args.keep_checks, args.timeout, tooling)
        print(f"{notebook}: chapter {ch.number}, {ch.title}")
        for w in warnings:
            print(f"  warning: {w}")
        print(table(rs))
        for e in errs:
            print(f"  a cell stopped with an error, {e}")
        print()
        all_passed &= all(r.passed for r in rs)
        rows += [(str(notebook), r.exercise, int(r.passed), r.why) for r in rs]
    _sweep()
    if args.csv:
        write_csv(args.csv, rows)
        print(f"wrote {args.csv}")
    return 0 if all_passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
