"""Checks for the exercises at the end of each chapter.

A check cell wraps its assertions in `exercise(...)`: it prints one line, passed or failed and
why, and never stops the notebook, so a student's notebook runs to its end whatever they finish.

    with exercise("1. The tanh primitive"):
        assert ..., "what went wrong"
"""
from __future__ import annotations

import traceback
from contextlib import contextmanager

PASSED, FAILED = "✓", "✗"


@contextmanager
def exercise(name: str):
    try:
        yield
    except NotImplementedError:
        print(f"{FAILED} {name}: not done yet (the solution still raises NotImplementedError)")
    except AssertionError as e:
        print(f"{FAILED} {name}: {e or 'an assertion failed'}")
    except Exception as e:  # a student's bug is a failed check, not a stopped notebook
        where = traceback.extract_tb(e.__traceback__)[-1]
        print(f"{FAILED} {name}: {type(e).__name__}: {e} (line {where.lineno})")
    else:
        print(f"{PASSED} {name}: passed")
