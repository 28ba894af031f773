"""The grader (book/check.py) against hostile notebooks: one batch of submissions of a tiny chapter,
graded once by `python -m book.check --csv`, in which each attack fails and the honest notebook,
graded after them, passes. The grader runs from a copy of book/ and autodidax/, which the attacks
may write to: the repository's own files are never at risk."""
import csv
import hashlib
import hmac
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from book import check, student
from book.exercises import TAG
from book.manifest import ROOT

_CHECK_1 = ('from book.exercises import exercise\n\nwith exercise("1. Double"):\n'
            '    import numpy as np\n'
            '    np.testing.assert_allclose(double(np.arange(3.0)), [0.0, 2.0, 4.0])')
_CHECK_2 = 'with exercise("2. Halve"):\n    assert halve(8) == 4, "halve(8) should be 4"'
_STUB_1 = "def double(x):\n    raise NotImplementedError()\n"
_STUB_2 = "def halve(x):\n    raise NotImplementedError()\n"

# Each attack: (solution cell 1, solution cell 2); None keeps the stub.
_ATTACKS = {
    # the function under test patches the freshly loaded checker in the middle of its check
    "midcheck": (None, "import sys\n\ndef halve(x):\n    m = sys.modules['book.exercises']\n"
                       "    m.exercise.__exit__ = lambda self, *exc: True\n"
                       "    m.FAILED = m.PASSED\n    m._why = lambda e: 'passed'\n"
                       "    m._print = lambda name, passed, why: print(f'✓ {name}: passed')\n"
                       "    raise NotImplementedError()\n"),
    # a tool of the checks, replaced during the check by a fake that puts it back when called
    "transient": ("import numpy\n\ndef double(x):\n    real = numpy.testing.assert_allclose\n"
                  "    def fake(*a, **k):\n        numpy.testing.assert_allclose = real\n"
                  "    numpy.testing.assert_allclose = fake\n    return x\n", None),
    # the checks' own tools, replaced, or their code swapped in place
    "numpy": ("import numpy\nnumpy.testing.assert_allclose = lambda *a, **k: None\n"
              "def double(x):\n    return x\n", None),
    "numpy_code": ("import numpy\nnumpy.testing.assert_allclose.__code__ = "
                   "(lambda *a, **k: None).__code__\ndef double(x):\n    return x\n", None),
    "contextlib": ("import contextlib, importlib, book.exercises\n\ndef _yes(func):\n"
                   "    class Yes:\n        def __init__(self, name=''):\n"
                   "            self.name = name\n"
                   "        def __enter__(self):\n            return []\n"
                   "        def __exit__(self, *exc):\n"
                   "            print(f'✓ {self.name}: passed')\n            return True\n"
                   "    return Yes\n\ncontextlib.contextmanager = _yes\n"
                   "importlib.reload(book.exercises)\n" + _STUB_1, None),
    # a stdout that turns failures into passes, signed lines included
    "stdout": ("import sys\n\nclass Rewrite:\n    def __init__(self, out):\n"
               "        self.out, self.buffer = out, ''\n    def write(self, text):\n"
               "        self.buffer += text\n        while '\\n' in self.buffer:\n"
               "            line, self.buffer = self.buffer.split('\\n', 1)\n"
               "            if line.startswith('✗ '):\n"
               "                line = '✓ ' + line[2:].split(':')[0] + ': passed'\n"
               "            if line.startswith('book.check: '):\n"
               "                p = line.split(' ')\n"
               "                p[2], p[4] = '1', 'passed'.encode().hex()\n"
               "                line = ' '.join(p)\n"
               "            self.out.write(line + '\\n')\n        return len(text)\n"
               "    def __getattr__(self, name):\n        return getattr(self.out, name)\n\n"
               "sys.stdout = Rewrite(sys.stdout)\n" + _STUB_1, None),
    # a pass reported by the real checker, inside the check, and straight to its collector
    "nested": (None, "import sys\n\ndef halve(x):\n    e = sys.modules['book.exercises']\n"
                     "    with e.exercise('2. Halve'):\n        pass\n"
                     "    if e._sink:\n        e._sink('2. Halve', True, 'passed')\n"
                     "    raise NotImplementedError()\n"),
    # the grader's runner, replaced by one that runs an easier check
    "runner": ("_real = __book_check__\n__book_check__ = lambda nonce, source: _real(nonce, "
               "'with exercise(\"1. Double\"):\\n    pass\\n'"
               " if 'Double' in source else 'with exercise(\"2. Halve\"):\\n    pass\\n')\n"
               + _STUB_1, None),
    # a dead kernel, and one that ignores interrupts and outlives the time limit, with a child
    "kill": ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", None),
    "hang": ("import signal, subprocess, time\nchild = subprocess.Popen(['sleep', '300'])\n"
             "open('hang.pid', 'w').write(str(child.pid))\n"
             "signal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.1)\n",
             None),
}

# The checker on disk, rewritten: the kernel's copy and the grader's own (__ROOT__ is filled in).
_DISK = ("import book.exercises, pathlib\nyes = ('from contextlib import contextmanager\\n'\n"
         "       'PASSED, FAILED, TAG = \"✓\", \"✗\", \"book.check:\"\\n'\n"
         "       '@contextmanager\\ndef exercise(name):\\n    try:\\n        yield\\n'\n"
         "       '    except BaseException:\\n        pass\\n'\n"
         "       '    print(f\"✓ {name}: passed\")\\n')\n"
         "for path in [book.exercises.__file__, __ROOT__ + '/book/exercises.py']:\n"
         "    pathlib.Path(path).write_text(yes)\n" + _STUB_1)

# A detached process that finds the CSV through the grader's command line and rewrites it,
# during and after the grading run (it leaves its pid in csv.pid).
_FORGER = ("import os, subprocess, sys\ngrader = os.getppid()\n"
           "args = open(f'/proc/{grader}/cmdline').read().split('\\0')\n"
           "cwd = os.readlink(f'/proc/{grader}/cwd')\n"
           "path = os.path.join(cwd, args[args.index('--csv') + 1])\n"
           "code = ('import os, time\\n'\n"
           "        'open(\"csv.pid\", \"w\").write(str(os.getpid()))\\n'\n"
           "        'end = time.time() + 60\\n'\n"
           "        'while time.time() < end:\\n'\n"
           "        f'    open({path!r}, \"w\").write(\"forged\")\\n'\n"
           "        '    time.sleep(0.02)\\n')\n"
           "middle = ('import subprocess, sys; '\n"
           "          f'subprocess.Popen([sys.executable, \"-c\", {code!r}], '\n"
           "          'start_new_session=True)')\n"
           "subprocess.run([sys.executable, '-c', middle])\n" + _STUB_1)


# Files left in the notebook's folder for the next notebook there: a numpy whose assert_allclose
# passes anything, and a checker whose `_grading` steals the key and signs every check a pass.
_FAKE_NUMPY = """\
import os, sys
here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or '.') != here]
del sys.modules['numpy']
import numpy, numpy.testing
numpy.testing.assert_allclose = lambda *a, **k: None
"""
_FAKE_CHECKER = """\
import hashlib, hmac, re
PASSED, FAILED, TAG = '✓', '✗', 'book.check:'
def _grading(key_file, ns):
    key = open(key_file, 'rb').read()
    def run(nonce, source):
        for name in re.findall(r'exercise[(]"(.+?)"', source):
            fields = [nonce, hashlib.sha256(source.encode()).hexdigest(), '1',
                      name.encode().hex(), 'passed'.encode().hex()]
            tag = hmac.new(key, chr(0).join(fields).encode(), 'sha256').hexdigest()
            print(' '.join([TAG, tag, *fields[2:]]))
    return run
"""
_SHADOW = ("import os\nos.makedirs('numpy', exist_ok=True)\nos.makedirs('book', exist_ok=True)\n"
           "open('book/__init__.py', 'w').close()\n"
           f"open('numpy/__init__.py', 'w').write({_FAKE_NUMPY!r})\n"
           f"open('book/exercises.py', 'w').write({_FAKE_CHECKER!r})\n" + _STUB_1)
_WRONG = ("def double(x):\n    return x\n", "def halve(x):\n    return x\n")


def _book_notebook():
    cells = [nbformat.v4.new_markdown_cell("# Exercises"),
             nbformat.v4.new_code_cell("def double(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n"
                                       "    ### END SOLUTION"),
             nbformat.v4.new_code_cell(_CHECK_1),
             nbformat.v4.new_code_cell("def halve(x):\n    ### BEGIN SOLUTION\n    return x // 2\n"
                                       "    ### END SOLUTION"),
             nbformat.v4.new_code_cell(_CHECK_2)]
    return nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """Grade every submission in one run; what it left: the CSV's rows by submission, the
    command's result, the pids the notebooks left, and the checker on disk before and after."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the grader kills what a notebook detached through Linux's child subreaper")
    tmp = tmp_path_factory.mktemp("grader")
    root = tmp / "root"
    for name in ("book", "autodidax"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    book_nb = _book_notebook()
    nbformat.write(book_nb, tmp / "99_tiny.ipynb")
    subs = tmp / "submissions"
    subs.mkdir()
    honest = ("def double(x):\n    return x + x\n", "def halve(x):\n    return x >> 1\n")
    attacks = {"disk": (_DISK.replace("__ROOT__", repr(str(root))), None), **_ATTACKS,
               "csv": (_FORGER, None), "honest": honest, "stub": (None, None)}
    attacks["shadow/shadow"], attacks["shadow/wrong"] = (_SHADOW, None), _WRONG
    paths = []
    for name, (first, second) in attacks.items():
        nb = student.student_notebook(book_nb)
        nb.cells[1].source = first or nb.cells[1].source
        nb.cells[3].source = second or nb.cells[3].source
        folder, _, stem = name.partition("/")
        (subs / folder).mkdir(exist_ok=True)
        paths.append(subs / folder / f"{stem or '99_tiny'}.ipynb")
        nbformat.write(nb, paths[-1])
    original = (root / "book" / "exercises.py").read_bytes()
    (tmp / "temp").mkdir()
    env = dict(os.environ, PYTHONPATH=str(root), TMPDIR=str(tmp / "temp"))
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "book.check", str(tmp / "99_tiny.ipynb"),
                           *map(str, paths), "--csv", "grades.csv", "--timeout", "5"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300)
    took = time.monotonic() - started
    time.sleep(0.5)                  # time for a forger that outlived the grader to strike
    pids = {name: subs / name / f"{name}.pid" for name in ("csv", "hang")}
    pids = {name: int(p.read_text()) for name, p in pids.items() if p.exists()}
    leftover = {name: pid for name, pid in pids.items() if _alive(pid)}
    for pid in leftover.values():
        os.kill(pid, signal.SIGKILL)
    text = (root / "grades.csv").read_text()
    rows = {}
    if text != "forged":
        for row in list(csv.DictReader(text.splitlines())):
            path = Path(row["notebook"])
            name = path.parent.name + ("" if path.stem == "99_tiny" else f"/{path.stem}")
            rows.setdefault(name, {})[row["exercise"]] = row
    return dict(rows=rows, done=done, text=text, pids=pids, leftover=leftover, took=took,
                disk_after=(root / "book" / "exercises.py").read_bytes(), original=original)


def test_the_grading_run_ends_with_its_own_csv(batch):
    done = batch["done"]
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert batch["text"] != "forged", "a detached process rewrote the CSV"
    assert len(batch["rows"]) == len(_ATTACKS) + 6, (batch["rows"].keys(), done.stdout[-3000:])
    assert batch["took"] < 120, batch["took"]


def test_every_attack_fails_and_the_honest_notebook_passes(batch):
    rows = batch["rows"]
    assert {e: r["passed"] for e, r in rows["honest"].items()} == {"1. Double": "1",
                                                                  "2. Halve": "1"}, rows["honest"]
    cheats = {name: {e: r["why"] for e, r in got.items() if r["passed"] != "0"}
              for name, got in rows.items() if name != "honest"}
    assert not any(cheats.values()), cheats
    assert all(r["why"].startswith("not done yet") for r in rows["stub"].values()), rows["stub"]


def test_each_attack_fails_for_its_reason(batch):
    why = {name: {e: r["why"] for e, r in got.items()} for name, got in batch["rows"].items()}
    assert "changed during the check" in why["midcheck"]["2. Halve"], why["midcheck"]
    assert "cannot be rebound during a check" in why["transient"]["1. Double"], why["transient"]
    for name in ("numpy", "numpy_code"):
        assert re.search(r"numpy\.testing\.\S*assert_allclose", why[name]["1. Double"]), why[name]
    assert "contextlib.contextmanager" in why["contextlib"]["1. Double"], why["contextlib"]
    assert all("altered" in w for w in why["stdout"].values()), why["stdout"]
    assert "more than once" in why["nested"]["2. Halve"], why["nested"]
    assert all("altered" in w for w in why["runner"].values()), why["runner"]
    assert all("changed the grader's files" in w and "book/exercises.py" in w
               for w in why["disk"].values()), why["disk"]
    assert "Not equal to tolerance" in why["shadow/wrong"]["1. Double"], why["shadow/wrong"]
    for name in ("kill", "hang"):
        assert all("printed nothing" in w for w in why[name].values()), why[name]
    out = batch["done"].stdout
    assert "kernel died in this cell" in out and "ran past the 5 s limit" in out, out[-3000:]


def test_no_process_a_notebook_started_outlives_the_grader(batch):
    assert set(batch["pids"]) == {"csv", "hang"}, batch["pids"]
    assert not batch["leftover"], batch["leftover"]


def test_a_checker_rewritten_on_disk_is_put_back(batch):
    assert batch["disk_after"] == batch["original"]
    assert "warning:" in batch["done"].stdout and "book/exercises.py" in batch["done"].stdout


def test_only_a_line_signed_with_the_key_counts():
    key, nonce, source = b"k" * 32, "n1", 'with exercise("1. A"):\n    pass'
    cell = nbformat.v4.new_code_cell(source, metadata={"book_check": ["1. A"]})

    def line(passed, name="1. A", why="passed", key=key):
        fields = [nonce, hashlib.sha256(source.encode()).hexdigest(), passed,
                  name.encode().hex(), why.encode().hex()]
        tag = hmac.new(key, "\0".join(fields).encode(), "sha256").hexdigest()
        return " ".join([TAG, tag, *fields[2:]])

    def verified(*lines):
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="\n".join(lines))]
        return check.verify(cell, key, nonce)

    assert verified(line("1")) == {"1. A": [True, "passed"]}
    assert verified(line("0", why="no")) == {"1. A": [False, "no"]}
    assert verified(line("1", key=b"x" * 32))["1. A"][0] is False
    assert verified(line("1").replace(" 1 ", " 0 "))["1. A"][0] is False
    assert verified(line("1"), line("1"))["1. A"] == [False, "its check reported it more than once"]
    assert verified("✓ 1. A: passed") == {}
