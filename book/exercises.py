"""Checks for the exercises at the end of each chapter.

A check cell wraps its assertions in `exercise(...)`: it prints one line, passed or failed and
why, and never stops the notebook, so a student's notebook runs to its end whatever they finish.

    with exercise("1. The tanh primitive"):
        assert ..., "what went wrong"

A check can also ask what a solution called, with `watch(...)`: to count the calls of a function
the exercise asks for, or to catch a solution that hands the work to the package's own version.

    with watch(autodidax.autodiff) as seen:   # any function of chapter 9's module
        got = hvp(f, x, v)
    assert not seen, f"hvp called {seen[0]}, chapter 9's: build it from jvp and jacfwd"

A chapter that runs its own `#| export` cells has a second copy of each exported function in the
kernel (and may rebind the package's tables and names to it): watch the copy the reader would call,
or both.

For an autograder that scores a cell by whether it raises (nbgrader's), set BOOK_EXERCISES_RAISE=1
in its environment: a failed check then raises an AssertionError after printing its line.

`book.check` grades through `_grading` (at the end of this module): each result is also printed
signed, on a line of its own, and a check whose tools the notebook changed fails.
"""
from __future__ import annotations

import inspect
import os
import sys
import traceback
import types
from contextlib import contextmanager

PASSED, FAILED = "✓", "✗"


_sink = None     # where an `exercise` reports; the grader's `_grading` sets it during a check


class exercise:
    """`with exercise(name):` runs a check: it prints one line, passed or failed and why, and
    stops nothing but a KeyboardInterrupt (and, with BOOK_EXERCISES_RAISE set, a failed check).
    A class and not a `contextmanager`, so that neither a replaced `contextlib` nor a rebound
    name of this module changes what a check it has begun reports: `with` looks `__exit__` up on
    entry, and where to report is chosen here."""

    def __init__(self, name: str):
        self.name, self._report = name, _sink or _print

    def __enter__(self):
        return None

    def __exit__(self, kind, e, tb):
        passed = kind is None
        why = "passed"
        if not passed:
            try:
                why = "interrupted" if issubclass(kind, KeyboardInterrupt) else _why(e)
            except BaseException:   # a message that cannot be read is still a failure
                why = f"{getattr(kind, '__name__', 'an exception')} raised"
        self._report(self.name, passed, why)
        if not passed and issubclass(kind, KeyboardInterrupt):
            return False
        if not passed and os.environ.get("BOOK_EXERCISES_RAISE"):
            raise AssertionError(f"{self.name}: {why}") from None
        return True      # SystemExit too: a check that stops early has not passed


def _print(name: str, passed: bool, why: str):
    print(f"{PASSED if passed else FAILED} {name}: {why}")


def _why(e: BaseException) -> str:
    """Why a check failed, in one line."""
    if type(e) is NotImplementedError and not e.args:   # the stub's; the package's say what
        return "not done yet (the solution still raises NotImplementedError)"
    if isinstance(e, AssertionError):
        return _one_line(e) or "an assertion failed"
    if not isinstance(e, Exception):
        return f"{type(e).__name__} raised: a check must run to its end"
    # a student's bug is a failed check, not a stopped notebook
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if f"{os.sep}autodidax{os.sep}" not in f.filename] or [None]
    where = f" (line {frames[-1].lineno})" if frames[-1] else ""
    return f"{type(e).__name__}: {_one_line(e)}{where}"


def _one_line(e: BaseException) -> str:
    """An exception's message on one line (NumPy's assert_allclose starts with a newline)."""
    return " ".join(line.strip() for line in str(e).splitlines() if line.strip())


@contextmanager
def watch(*targets):
    """Record the Python calls that the block makes of `targets`: functions (unwrapped of their
    decorators), or modules, for any function whose code is in one. Yields a list that gets the
    qualified name of each call, in order (a module's `__getattr__`, which only finds a name,
    is not a call of the package's to report)."""
    codes, files = set(), set()
    for t in targets:
        if isinstance(t, types.ModuleType):
            files.add(t.__file__)
        else:
            codes.add(inspect.unwrap(t).__code__)
    seen = []

    def hook(frame, event, arg):
        if (event == "call" and (frame.f_code in codes or frame.f_code.co_filename in files)
                and frame.f_code.co_name != "__getattr__"):
            seen.append(frame.f_code.co_qualname)

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        yield seen
    finally:
        sys.setprofile(previous)


# ---------------------------------------------------------------------------------------------
# Grading (book/check.py): the grader runs `_grading(key_file, globals())` as the notebook's first
# cell, before any of the student's code, and each check cell as `__book_check__(nonce, source)`.

_GUARDED = ("builtins", "numpy", "ml_dtypes", "contextlib", "functools", "inspect", "traceback",
            "types", "operator", "math", "cmath", "book.exercises")
TAG = "book.check:"         # the start of a line that carries a check's signed result


def _guarded(name: str) -> bool:
    return any(name == g or name.startswith(g + ".") for g in _GUARDED)


def _snapshot(modules, everything=False) -> list:
    """(owner, key, value, label) for what the checks rely on: each guarded module in `modules`,
    its functions, classes and submodules (`everything`: all its names), and the code, defaults
    and closures of its functions and of its classes' methods; of `sys`, its functions."""
    out, seen = [], set()

    def deep(v, label):
        if id(v) in seen:
            return
        seen.add(id(v))
        if isinstance(v, (staticmethod, classmethod)):
            deep(v.__func__, label)
        elif isinstance(v, property):
            for part in (v.fget, v.fset, v.fdel):
                if part is not None:
                    deep(part, label)
        elif isinstance(v, types.FunctionType):
            for key in ("__code__", "__defaults__", "__kwdefaults__"):
                out.append((v, key, getattr(v, key), f"{label}.{key}"))
            for cell in v.__closure__ or ():
                try:
                    out.append((cell, "cell_contents", cell.cell_contents, f"{label}'s closure"))
                except ValueError:
                    pass
            if isinstance(getattr(v, "__wrapped__", None), types.FunctionType):
                deep(v.__wrapped__, label)
        elif isinstance(v, type) and _guarded(getattr(v, "__module__", None) or ""):
            for key, member in list(vars(v).items()):
                if callable(member) or isinstance(member, (staticmethod, classmethod, property)):
                    out.append((v, key, member, f"{label}.{key}"))
                    deep(member, f"{label}.{key}")
        elif isinstance(getattr(v, "_implementation", None), types.FunctionType):
            deep(v._implementation, label)      # NumPy's array-function dispatchers

    for name, m in list(modules.items()):
        if m is None or not (_guarded(name) or name == "sys"):
            continue
        if name != "sys":
            out.append((modules, name, m, name))
        for key, v in list(vars(m).items()):
            if name == "sys" and (key.endswith("hook")
                                  or not isinstance(v, types.BuiltinFunctionType)):
                continue
            if key == "_sink" or not (everything or callable(v) or isinstance(v, types.ModuleType)):
                continue
            out.append((m, key, v, f"{name}.{key}"))
            deep(v, f"{name}.{key}")
    return out


def _grading(key_file: str, user_ns: dict):
    """Set up a graded run in the notebook whose namespace is `user_ns`; return
    `run_check(nonce, source)`, which runs a check cell's source there and prints each result it
    reports twice: as the student sees it, and on a line that starts with `TAG`, signed with the
    grader's key (read here from `key_file`, which is then deleted: the student's code never sees
    it) over the nonce, the source, the exercise, the result and why.

    Saved here, before the student's code runs: this module, the checks (`book.checks.*`, as
    source text, loaded afresh for each check), and a snapshot of `_GUARDED`'s modules. Before
    each check, this module is put back as it was. If anything else of the snapshot was changed
    before the check, or anything at all during it, or a trace or profile function was set, each
    result of the check is a failure that says so; and during the check, rebinding a name of a
    guarded module raises. The helpers below use only names bound here, so that rebinding a
    builtin or this module's names cannot change what they find."""
    import hashlib
    from importlib.machinery import ModuleSpec
    from pathlib import Path

    import _hashlib
    import numpy.testing  # noqa: F401  (NumPy loads it lazily: load it before the snapshot)
    hmac_digest, sha256, hexlify = _hashlib.hmac_digest, hashlib.sha256, bytes.hex
    with open(key_file, "rb") as f:
        key = f.read()
    os.unlink(key_file)
    modules, me = sys.modules, sys.modules[__name__]
    folder = Path(me.__file__).parent / "checks"
    sources = {"book.checks": (folder / "__init__.py").read_text()}
    for path in sorted(folder.glob("*.py")):
        if path.stem != "__init__":
            sources[f"book.checks.{path.stem}"] = path.read_text()
    files = {name: str(folder / ("__init__.py" if name == "book.checks"
                                 else name.split(".")[-1] + ".py")) for name in sources}

    class Checks:   # a finder first on sys.meta_path: book.checks.* from `sources`, not the disk
        @staticmethod
        def find_spec(name, path=None, target=None):
            if name not in sources:
                return None
            spec = ModuleSpec(name, Checks, origin=files[name], is_package=name == "book.checks")
            spec.has_location = True
            return spec

        @staticmethod
        def create_module(spec):
            return None

        @staticmethod
        def exec_module(module):
            exec(compile(sources[module.__name__], files[module.__name__], "exec"), module.__dict__)

    mine, guarded = _snapshot({__name__: me}, everything=True), _snapshot(modules)
    trace, profile = sys.gettrace(), sys.getprofile()
    gettrace, getprofile, meta_path = sys.gettrace, sys.getprofile, sys.meta_path
    real_exercise, printer, marks, tag_ = me.exercise, print, (FAILED, PASSED), TAG
    isinstance_, vars_, getattr_, setattr_, type_, list_, str_, exec_, compile_ = (
        isinstance, vars, getattr, setattr, type, list, str, exec, compile)
    dict_, type_type, module_type, method_type = dict, type, types.ModuleType, types.MethodType
    missing, lookup_errors = object(), (AttributeError, ValueError)

    def current(owner, key):
        if isinstance_(owner, dict_):
            return owner.get(key, missing)
        if isinstance_(owner, (type_type, module_type)):
            return vars_(owner).get(key, missing)
        try:
            return getattr_(owner, key)
        except lookup_errors:
            return missing

    def same(now, then):
        return now is then or (type_(now) is method_type and type_(then) is method_type and
                               now.__func__ is then.__func__ and now.__self__ is then.__self__)

    def changed(snapshot):
        return [label for owner, key, value, label in snapshot
                if not same(current(owner, key), value)]

    module_setattr, get_dict = types.ModuleType.__setattr__, object.__getattribute__

    class Frozen(types.ModuleType):   # a guarded module during a check: no name rebound
        def __setattr__(self, k, v):
            if k in get_dict(self, "__dict__") and get_dict(self, "__dict__")[k] is not v:
                raise AttributeError(f"{self.__name__}.{k} cannot be rebound during a check")
            module_setattr(self, k, v)

        def __delattr__(self, k):
            raise AttributeError(f"{self.__name__}.{k} cannot be deleted during a check")

    frozen = [m for owner, _, m, _ in guarded if owner is modules and type_(m) is module_type]

    def freeze(cls):
        for m in frozen:
            m.__class__ = cls

    def tampered():
        return ["sys.settrace or sys.setprofile"] if (gettrace() is not trace
                                                      or getprofile() is not profile) else []

    def run_check(nonce: str, source: str):
        for owner, k, v, _ in mine:          # this module, as it was loaded
            if not same(current(owner, k), v):
                if isinstance_(owner, dict_):
                    owner[k] = v
                else:
                    setattr_(owner, k, v)
        modules["book.exercises"] = me
        before = changed(guarded) + tampered()
        for name in list_(modules):
            if name == "book.checks" or name.startswith("book.checks."):
                del modules[name]
        if not meta_path or meta_path[0] is not Checks:
            meta_path.insert(0, Checks)
        reports = []
        vars_(me)["_sink"] = lambda name, passed, why: reports.append((name, passed, why))
        user_ns["exercise"] = real_exercise
        freeze(Frozen)
        try:
            exec_(compile_(source, "<check>", "exec"), user_ns)
        finally:
            freeze(module_type)
            vars_(me)["_sink"] = None
            during = changed(guarded) + changed(mine) + tampered()
            why = (f"the notebook changed {', '.join(before[:3])}, which the checks rely on"
                   if before else f"{', '.join(during[:3])} changed during the check"
                   if during else None)
            digest = sha256(source.encode()).hexdigest()
            for name, passed, said in reports:
                name, passed, said = str_(name), passed is True, str_(said)
                if why:
                    passed, said = False, why
                printer(f"{marks[passed]} {name}: {said}")
                fields = [nonce, digest, "1" if passed else "0", hexlify(name.encode()),
                          hexlify(said.encode())]
                tag = hexlify(hmac_digest(key, "\0".join(fields).encode(), "sha256"))
                printer(" ".join([tag_, tag, *fields[2:]]))

    return run_check
