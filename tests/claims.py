"""What the chapters say about JAX, checked against the real JAX.

A claim is a sentence of a chapter that says how JAX behaves ("as in JAX", "JAX raises",
"JAX prints", an item of a "Differences from JAX" list). Each test file `test_claims_*.py`
lists claims with `@claim(chapter, quote)` on a function that checks it, running the real
`jax` (and `autodidax` where the sentence says we agree, or differ):

    @claim("01_primitives", "JAX raises a `TypeError` here")
    def float16_plus_a_python_float():
        with pytest.raises(TypeError):
            jax.lax.add(jnp.float16(1), 2.0)

    test_claims = claims_test(__name__)

The quote must appear in the chapter's source (`chapters/<chapter>.md`, compared with runs of
white space made one space), so a claim cannot outlive its sentence: edit the sentence and the
test asks for its check to be edited too. A quote names the sentence; the check tests what it
says.
"""
import functools
import pathlib
import re

import pytest

CHAPTERS = pathlib.Path(__file__).resolve().parent.parent / "chapters"


@functools.cache
def chapter_text(chapter):
    path = CHAPTERS / f"{chapter}.md"
    if not path.exists():
        raise FileNotFoundError(f"claim names chapter {chapter!r}, but there is no {path}")
    return re.sub(r"\s+", " ", path.read_text())


class Claim:
    def __init__(self, chapter, quote, check):
        self.chapter, self.quote, self.check = chapter, re.sub(r"\s+", " ", quote), check

    def __repr__(self):
        return f"{self.chapter}:{self.check.__name__}"

    def run(self):
        if self.quote not in chapter_text(self.chapter):
            raise AssertionError(
                f"chapter {self.chapter} no longer says {self.quote!r}: "
                f"edit the claim {self.check.__name__} to match its sentence")
        self.check()


_CLAIMS = {}  # test module name -> [Claim]


def claim(chapter, quote):
    """Register the decorated function as the check of `quote`, a sentence of `chapter`."""
    def register(check):
        _CLAIMS.setdefault(check.__module__, []).append(Claim(chapter, quote, check))
        return check
    return register


def claims_test(module):
    """The parametrized test of every claim registered in `module` (pass `__name__`)."""
    claims = _CLAIMS.get(module, [])
    assert claims, f"{module} registers no claims"

    @pytest.mark.parametrize("c", claims, ids=repr)
    def test_claim(c):
        c.run()
    return test_claim


def in_another_thread(read):
    """What `read()` returns when called in a new thread: for claims about per-thread state."""
    import threading
    seen = []
    t = threading.Thread(target=lambda: seen.append(read()))
    t.start()
    t.join()
    return seen[0]
