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
"""
from __future__ import annotations

import inspect
import os
import sys
import traceback
import types
from contextlib import contextmanager

PASSED, FAILED = "✓", "✗"


@contextmanager
def exercise(name: str):
    try:
        yield
    except KeyboardInterrupt:
        print(f"{FAILED} {name}: interrupted")
        raise
    except BaseException as e:  # SystemExit too: a check that stops early has not passed
        why = _why(e)
    else:
        print(f"{PASSED} {name}: passed")
        return
    print(f"{FAILED} {name}: {why}")
    if os.environ.get("BOOK_EXERCISES_RAISE"):
        raise AssertionError(f"{name}: {why}") from None


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
    qualified name of each call, in order."""
    codes, files = set(), set()
    for t in targets:
        if isinstance(t, types.ModuleType):
            files.add(t.__file__)
        else:
            codes.add(inspect.unwrap(t).__code__)
    seen = []

    def hook(frame, event, arg):
        if event == "call" and (frame.f_code in codes or frame.f_code.co_filename in files):
            seen.append(frame.f_code.co_qualname)

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        yield seen
    finally:
        sys.setprofile(previous)
