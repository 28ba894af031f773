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
