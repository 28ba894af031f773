"""`jax.debug.breakpoint` (appendix A32) against JAX's: one program, run in a fresh process under
`jax` and under `import autodidax as jax`, is fed the same commands on stdin, and the two
transcripts (what the prompt printed, and the program) must be the same, memory addresses and
the program's path blanked. The program stops eagerly, under `jit`, `vmap` (once per element),
`grad`, with `ordered=True`, with `token=`, inside `lax.cond`, and with `num_frames`; at the end
of the input the prompt quits, which under `jit` is XLA's runtime error."""
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

PROGRAM = textwrap.dedent('''
    import sys
    if sys.argv[1] == "jax":
        import jax
        import jax.numpy as jnp
    else:
        import autodidax as jax
        import autodidax.numpy as jnp


    def inner(y):
        z = y * 2
        jax.debug.breakpoint()
        return z


    def f(x):
        y = jnp.sin(x)
        return inner(y) + 1


    def with_token(x):
        y = jnp.cos(x)
        y = jax.debug.breakpoint(token=y)
        return y * 2


    def ordered(x):
        jax.debug.print("before {}", x, ordered=True)
        jax.debug.breakpoint(ordered=True, num_frames=1)
        jax.debug.print("after {}", x, ordered=True)
        return x


    def stop_if_nonfinite(x):
        def stop(x):
            jax.debug.breakpoint()
        jax.lax.cond(jnp.isfinite(x).all(), lambda x: None, stop, x)


    @jax.jit
    def divide(x, y):
        z = x / y
        stop_if_nonfinite(z)
        return z


    def main(x):
        y = x + 1
        return f(y)


    for name, run in [("eager", lambda: f(2.0)), ("jit", lambda: jax.jit(f)(2.0)),
                      ("vmap", lambda: jax.vmap(f)(jnp.arange(2.0))),
                      ("grad", lambda: jax.grad(f)(2.0)), ("jit of main", lambda: jax.jit(main)(1.0)),
                      ("token, jit", lambda: jax.jit(with_token)(1.0)),
                      ("token, grad", lambda: jax.grad(with_token)(1.0)),
                      ("ordered", lambda: jax.jit(ordered)(3.0)),
                      ("cond, finite", lambda: divide(2.0, 1.0)),
                      ("cond, inf", lambda: divide(2.0, 0.0))]:
        print("==", name)
        print("result:", run())
    print("== at the end of the input")
    try:
        jax.jit(f)(2.0)
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
''')

# Per stop: an error (no x in `inner`), up a frame and its source, values, the frames, a
# pytree, an expression, the bottom, help, and on.
STOP = "p x\nu\np y\nw\nd\nd\npp {'y': y, 'n': 3}\nz + 1\nll\nl\nhelp\nc\n"
STOPS = 10


def transcript(lib: str, tmp_path) -> str:
    program = tmp_path / "program.py"
    program.write_text(PROGRAM)
    done = subprocess.run([sys.executable, str(program), lib], input=STOP * STOPS,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "JAX_PLATFORMS": "cpu"})
    assert done.returncode == 0, done.stderr[-3000:]
    text = done.stdout.replace(str(program), "PROGRAM")
    return re.sub(r"0x[0-9a-fA-F]{6,16}", "0x...", text)


def test_the_prompts_print_what_jaxs_print(tmp_path):
    theirs, ours = transcript("jax", tmp_path), transcript("autodidax", tmp_path)
    assert theirs.count("Entering jdb:") == STOPS + 1      # the last: its input has ended
    assert ours == theirs


@pytest.mark.parametrize("bad", [dict(ordered=True, token=1.0)])
def test_ordered_and_token_exclude_each_other(bad):
    import jax

    import autodidax
    for lib in (jax, autodidax):
        with pytest.raises(ValueError, match="`ordered` and `token` are mutually exclusive"):
            lib.debug.breakpoint(**bad)


# `jax.experimental.xla_metadata.set_xla_metadata` (appendix A32): the lowered StableHLO text,
# character for character, and the jaxpr of the value form.
def _meta(jax):
    import importlib
    return importlib.import_module(f"{jax.__name__}.experimental.xla_metadata").set_xla_metadata


def _value_tagging(jax, jnp):
    def f(x):
        y, z = jnp.sin(x), jnp.cos(x)
        return _meta(jax)(y * z, breakpoint=True)
    return f


def _context_tagging(jax, jnp, **metadata):
    def f(x):
        with _meta(jax)(**metadata or {"_xla_log": True}):
            y = jnp.sin(x)
            return y * jnp.cos(y)
    return f


def _nested(jax, jnp):
    def f(x):
        with _meta(jax)(a=1, b="outer"):
            y = jnp.sin(x)
            with _meta(jax)(b="inner", c=2.5, a=None):
                y = y * 2
            return _meta(jax)(y + 1, b="value", d=True)
    return f


def _decorated(jax, jnp):
    @_meta(jax)(_xla_log=True, level=2)
    @jax.jit
    def f(x):
        return jnp.sin(x) * 2
    return f


def _traced_before(jax, jnp):
    f = jax.jit(lambda x: jnp.exp(x) - 1)
    f.lower(1.0)                                    # traced outside any block
    with _meta(jax)(late=True):
        return f.lower(1.0).as_text()


def _jit_inside(jax, jnp):
    inner = jax.jit(lambda y: jnp.cos(y) * 3)

    def f(x):
        with _meta(jax)(scope="outer"):
            return inner(jnp.sin(x)) + 1
    return f


def _pytree(jax, jnp):
    def f(x):
        return _meta(jax)((jnp.sin(x), {"c": jnp.cos(x)}), k="v")
    return f


LOWERED = {
    "value": lambda jax, jnp: jax.jit(_value_tagging(jax, jnp)).lower(1.0),
    "block": lambda jax, jnp: jax.jit(_context_tagging(jax, jnp)).lower(1.0),
    "block, several keys": lambda jax, jnp: jax.jit(
        _context_tagging(jax, jnp, z=1, a="x", flag=False)).lower(np.float32(1.0)),
    "nested blocks and a value": lambda jax, jnp: jax.jit(_nested(jax, jnp)).lower(1.0),
    "decorator": lambda jax, jnp: _decorated(jax, jnp).lower(1.0),
    "a pytree value": lambda jax, jnp: jax.jit(_pytree(jax, jnp)).lower(1.0),
    "no metadata": lambda jax, jnp: jax.jit(
        lambda x: _meta(jax)(jnp.sin(x)) + _meta(jax)()(jnp.cos)(x)).lower(1.0),
    "vmap of a block": lambda jax, jnp: jax.jit(jax.vmap(_context_tagging(jax, jnp))).lower(
        np.arange(3.0, dtype=np.float32)),
    "vmap of a value": lambda jax, jnp: jax.jit(jax.vmap(_value_tagging(jax, jnp))).lower(
        np.arange(3.0, dtype=np.float32)),
    "jit inside a block": lambda jax, jnp: jax.jit(_jit_inside(jax, jnp)).lower(1.0),
}


@pytest.mark.parametrize("name", list(LOWERED))
def test_set_xla_metadata_lowers_as_jaxs(name):
    import jax
    import jax.numpy

    import autodidax
    import autodidax.numpy
    theirs = LOWERED[name](jax, jax.numpy).as_text()
    ours = LOWERED[name](autodidax, autodidax.numpy).as_text()
    assert ours == theirs


def test_set_xla_metadata_retraces_a_function_traced_outside_the_block():
    import jax
    import jax.numpy

    import autodidax
    import autodidax.numpy
    assert _traced_before(autodidax, autodidax.numpy) == _traced_before(jax, jax.numpy)


def test_the_value_form_is_an_equation_and_an_identity():
    import jax
    import jax.numpy

    import autodidax
    import autodidax.numpy
    for make in (lambda j, n: j.make_jaxpr(_value_tagging(j, n))(1.0),
                 lambda j, n: j.make_jaxpr(jax_grad(j, _value_tagging(j, n)))(1.0)):
        assert str(make(autodidax, autodidax.numpy)) == str(make(jax, jax.numpy))
    x = np.array([1.0, 2.0], np.float32)
    for lib in (jax, autodidax):
        got = _meta(lib)(lib.numpy.asarray(x), k=1)
        np.testing.assert_array_equal(np.asarray(got), x)


def jax_grad(jax, f):
    return jax.grad(f)


HLO = {   # XLA's HLO text: instructions named after their operations' locations, as JAX's
    "value": LOWERED["value"],
    "block": LOWERED["block"],
    "decorator": LOWERED["decorator"],
    "pytree arguments and results": lambda jax, jnp: jax.jit(
        lambda x, p: (jnp.maximum(jnp.sin(x) * 2.0 + p["b"].sum(), 0.0), {"k": x[0]})).lower(
        np.ones(3, np.float32), {"b": np.ones(2, np.float32)}),
}


@pytest.mark.parametrize("name", list(HLO))
def test_hlo_text_is_jaxs(name):
    import jax
    import jax.numpy

    import autodidax
    import autodidax.numpy
    theirs = HLO[name](jax, jax.numpy).as_text("hlo")
    assert HLO[name](autodidax, autodidax.numpy).as_text("hlo") == theirs


def test_an_unknown_dialect_is_a_value_error():
    import jax

    import autodidax
    for lib in (jax, autodidax):
        with pytest.raises(ValueError, match="unknown dialect: mhlo"):
            lib.jit(lambda x: x).lower(1.0).as_text("mhlo")
