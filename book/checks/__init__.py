"""The checks of the chapters' exercises, one module a chapter: `book/checks/ch05.py` for chapter 5,
`book/checks/chA1.py` for appendix A1.

A chapter's check cell stays in the notebook, two lines inside `exercise(...)`:

    with exercise("1. Counting FLOPs"):
        from book.checks.ch05 import check_count_flops
        check_count_flops(globals())

The check reads what it needs (the student's solution, the chapter's own copies of its classes)
from the notebook's namespace, and asserts as a check cell would: each failure says what went
wrong in one line. Keeping the checks here keeps the chapter's reading path to the exercise
itself; an instructor reads them here, and `python -m book.wrong NN` grades them against wrong
solutions. The import sits inside the check cell because the grader (book/check.py) forgets
these modules before each check cell, so a solution cell that replaced a check has no effect.
"""
