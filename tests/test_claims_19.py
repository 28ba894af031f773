"""Claims of chapter 19 (below HLO) and appendix A23, checked against the real JAX (see
tests/claims.py)."""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

import autodidax
import autodidax.numpy as anp
import jax
import jax.numpy as jnp
from autodidax.machine import below

from claims import claim, claims_test

CH = "19_all_the_way_down"
X = np.arange(8.0, dtype=np.float32)


def f(np_):
    return lambda x: np_.sin(x) * 2 + x.sum()


def jax_dump():
    with tempfile.TemporaryDirectory() as d:
        compiled = jax.jit(f(jnp)).lower(X).compile(compiler_options={"xla_dump_to": d})
        return compiled, {re.sub(r"^module_\d+\.[^.]+\.", "", n): open(os.path.join(d, n)).read()
                          if n.endswith(".txt") else None
                          for n in os.listdir(d) if os.path.isfile(os.path.join(d, n))}


@claim(CH, "JAX's `compile(compiler_options=...)` sets its options the same way")
def compiler_options_dump_the_same_files():
    _, theirs = jax_dump()
    ours = below(autodidax.jit(f(anp)).lower(X)).files
    assert set(theirs) == set(ours), set(theirs) ^ set(ours)


@claim(CH, "`cpu_after_optimizations.txt`: the HLO after XLA's passes, what `compiled.as_text()` shows")
def the_optimised_file_is_as_text():
    compiled, files = jax_dump()
    assert compiled.as_text() == files["cpu_after_optimizations.txt"]


@claim(CH, 'environment variable `XLA_FLAGS=--xla_dump_to=folder`')
def xla_flags_dump_too():
    with tempfile.TemporaryDirectory() as d:
        code = ("import jax, jax.numpy as jnp; "
                "jax.jit(lambda x: jnp.sin(x) * 2).lower(jnp.ones(4)).compile()")
        env = {**os.environ, "XLA_FLAGS": f"--xla_dump_to={d}", "JAX_PLATFORMS": "cpu"}
        subprocess.run([sys.executable, "-c", code], env=env, check=True)
        names = os.listdir(d)
    assert any(n.endswith(".cpu_after_optimizations.txt") for n in names), names
    assert any(".obj-file." in n for n in names), names


test_claims = claims_test(__name__)
