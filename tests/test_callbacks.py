"""Chapter 15 beyond value comparisons: what `jax.debug.print` and `jax.debug.callback` print,
character for character against JAX's, the lowered `custom_call` against JAX's line, the
caches, and jaxprs whose callback parameters print with addresses (masked)."""
import contextlib
import io
import re

import jax
import jax.experimental  # noqa: F401  (jax.experimental.io_callback)
import numpy as np
import pytest

import autodidax
from autodidax import runtime

X = np.arange(3, dtype=np.float32)
XS = np.arange(6, dtype=np.float32).reshape(2, 3)
LIBS = {"jax": jax, "autodidax": autodidax}


def _stdout(lib, program):
    """What `program(jax)` prints, run under `lib`; JAX's pending callbacks are waited for."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        program(LIBS[lib])
        if lib == "jax":
            jax.effects_barrier()
    return buffer.getvalue()


def _f(jax, x):
    jax.debug.print("x = {}", x)
    jax.debug.print("x={x} s={s:.3f} {n}", x=x, s=x.sum(), n=None)
    jax.debug.print("no placeholders", x[0], skip_format_check=True)
    return jax.numpy.sin(x).sum()


def _ordered(jax, x):
    jax.debug.print("a {}", x, ordered=True)
    jax.debug.print(ordered=True)("b {}", x * 2)
    jax.debug.callback(lambda v, tag: print("callback", tag, v), x.sum(), "t", ordered=True)
    return x


PROGRAMS = {
    "eager": lambda jax: _f(jax, X),
    "jit": lambda jax: (jax.jit(lambda x: _f(jax, x))(X), jax.jit(lambda x: _f(jax, x))(X + 1)),
    "vmap": lambda jax: jax.vmap(lambda x: _f(jax, x))(XS),
    "jit of vmap": lambda jax: jax.jit(jax.vmap(lambda x: _f(jax, x)))(XS),
    "vmap with an unbatched argument": lambda jax: jax.vmap(
        lambda x, y: jax.debug.print("{} {}", x, y), in_axes=(0, None))(XS, X),
    "grad": lambda jax: jax.grad(lambda x: _f(jax, x))(X),
    "jit of grad": lambda jax: jax.jit(jax.grad(lambda x: _f(jax, x)))(X),
    "value_and_grad, vjp and linearize": lambda jax: (
        jax.value_and_grad(lambda x: _f(jax, x))(X), jax.vjp(lambda x: _f(jax, x), X)[1](1.0),
        jax.linearize(lambda x: _f(jax, x), X)[1](X)),
    "grad of checkpoint (chapter 14)": lambda jax: jax.jit(jax.grad(jax.checkpoint(
        lambda x: _f(jax, x))))(X),
    "grad of custom_jvp (chapter 13)": lambda jax: jax.grad(_custom_sin(jax))(X),
    "grad of jit": lambda jax: jax.grad(jax.jit(lambda x: _f(jax, x)))(X),
    "ordered jit": lambda jax: jax.jit(lambda x: _ordered(jax, x))(X),
    "ints and scalars": lambda jax: jax.jit(lambda i: jax.debug.print("{} {} {:>5}", i, 2.5, 7))(
        np.arange(4, dtype=np.int32)),
    "print options": lambda jax: _with_precision(jax),
    "an unused pure callback is dropped under jit": lambda jax: jax.jit(_unused_result(jax))(X),
    "reprs, fields and pytrees": lambda jax: jax.jit(lambda x: jax.debug.print(
        "{a} {b!r} {x[1]} {x.shape} {c}", a={"k": x}, b=x, x=x, c=[x, (1, x[0])]))(X),
    "ordered in a scan body": lambda jax: jax.jit(lambda xs: jax.lax.scan(
        _ordered_step(jax), 0.0, xs))(X),
    "ordered in a nested jit": lambda jax: jax.jit(
        lambda x: jax.jit(lambda y: _ordered(jax, y))(x) * 2)(X),
    "in a cond branch": lambda jax: jax.jit(lambda p, x: jax.lax.cond(
        p, lambda v: _printing(jax, v), lambda v: v, x))(True, X),
    "callback with kwargs": lambda jax: jax.jit(lambda x: jax.debug.callback(
        lambda a, *, b: print("got", np.asarray(a), np.asarray(b)), x, b=x * 2))(X),
}


def _custom_sin(jax):
    """sin(x).sum() with a custom JVP rule; both the function and its rule print."""
    @jax.custom_jvp
    def f(x):
        jax.debug.print("primal {}", x)
        return jax.numpy.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        jax.debug.print("jvp rule {}", primals[0])
        return f(primals[0]), jax.numpy.cos(primals[0]) * tangents[0]
    return lambda x: f(x).sum()


def _ordered_step(jax):
    def step(carry, x):
        jax.debug.print("carry {} x {}", carry, x, ordered=True)
        jax.debug.print("then {}", carry + x, ordered=True)
        return carry + x, carry
    return step


def _printing(jax, x):
    jax.debug.print("branch {}", x)
    return x


def _unused_result(jax):
    def f(x):
        jax.pure_callback(lambda v: print("pure") or v, jax.ShapeDtypeStruct((3,), np.float32), x)
        jax.debug.callback(lambda v: print("debug"), x)
        return x * 2
    return f


def _with_precision(jax):
    with np.printoptions(precision=2):
        f = jax.jit(lambda x: jax.debug.print("{}", x / 3))
    f(X)           # the options of the call to debug.print, not of the run, apply


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_prints_as_jax(name):
    theirs = _stdout("jax", PROGRAMS[name])
    ours = _stdout("autodidax", PROGRAMS[name])
    assert theirs, "the case is wrong: JAX printed nothing"
    assert ours == theirs


def test_print_counts_under_vmap_and_jit():
    seen = []
    f = autodidax.jit(autodidax.vmap(lambda x: autodidax.debug.callback(seen.append, x)))
    f(XS)
    f(XS)
    assert len(seen) == 4 and all(np.shape(s) == (3,) for s in seen)


_SDY_SHARDING = r", sdy\.sharding = #sdy\.sharding_per_value<\[(<@\w+, \[\]>(, )?)+\]>"


def _custom_call_lines(text):
    """The custom_call lines of a module, without JAX's sharding annotation (one device)."""
    lines = [line.strip() for line in text.splitlines() if "custom_call" in line]
    return [re.sub(_SDY_SHARDING, "", line) for line in lines]


@pytest.mark.parametrize("name", ["pure", "print", "ordered", "io", "io ordered"])
def test_lowered_custom_call_as_jax(name):
    def program(jax, x):
        if name == "pure":
            return jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
        if name.startswith("io"):
            return jax.experimental.io_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype),
                                                x, ordered=name == "io ordered")
        jax.debug.print("{} {}", x, x.sum(), ordered=name == "ordered")
        return x
    texts = {lib: LIBS[lib].jit(lambda x: program(LIBS[lib], x)).lower(X).as_text()
             for lib in LIBS}
    ours, theirs = _custom_call_lines(texts["autodidax"]), _custom_call_lines(texts["jax"])
    assert ours and ours == theirs
    if name.endswith("ordered"):
        main = [line.strip() for line in texts["jax"].splitlines() if "func.func public" in line]
        ours_main = [line.strip() for line in texts["autodidax"].splitlines()
                     if "func.func public" in line]
        assert ours_main[0].split("->")[0] == main[0].split("->")[0]


def test_same_text_different_callbacks():
    """Two programs that lower to the same text must still call their own functions."""
    def make(fn):
        return autodidax.jit(lambda x: autodidax.pure_callback(
            fn, autodidax.ShapeDtypeStruct((3,), np.float32), x))
    f, g = make(np.sin), make(np.cos)
    assert f.lower(X).as_text() == g.lower(X).as_text()
    np.testing.assert_allclose(np.asarray(f(X)), np.sin(X), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(g(X)), np.cos(X), rtol=1e-6)


def test_programs_with_callbacks_skip_the_disk_cache(tmp_path):
    previous = runtime.set_cache_dir(tmp_path)
    try:
        f = autodidax.jit(lambda x: autodidax.pure_callback(
            np.tan, autodidax.ShapeDtypeStruct((3,), np.float32), x) * 2)
        np.testing.assert_allclose(np.asarray(f(X)), np.tan(X) * 2, rtol=1e-6)
        assert not list(tmp_path.glob("*.xla"))
        autodidax.jit(lambda x: x * 5)(X)            # a program without callbacks is kept
        assert len(list(tmp_path.glob("*.xla"))) == 1
    finally:
        runtime.set_cache_dir(previous)


def _masked(text):
    return re.sub(r"0x[0-9a-fA-FX]+", "0x…", text)


def test_jaxpr_with_callback_addresses_masked():
    def program(jax, x):
        jax.debug.callback(lambda a: None, x)
        return jax.pure_callback(lambda a: a, jax.ShapeDtypeStruct((3,), np.float32), x,
                                 vmap_method="broadcast_all")
    theirs = _masked(str(jax.make_jaxpr(lambda x: program(jax, x))(X)))
    ours = _masked(str(autodidax.make_jaxpr(lambda x: program(autodidax, x))(X)))
    # the two lambdas differ in their qualified names only by the test's own function
    assert ours == theirs


def test_callback_receives_arrays_on_the_host():
    seen = []
    autodidax.jit(lambda x: autodidax.debug.callback(seen.append, x))(X)
    assert isinstance(seen[0], autodidax.Array) and seen[0].shape == (3,)
    np.testing.assert_array_equal(np.asarray(seen[0]), X)


def test_module_text_only_for_programs_that_need_it():
    """Chapter 6's hook: a plain program lowers to a plain string; one with an ordered callback
    to a ModuleText that carries its callbacks and its one token."""
    plain = autodidax.jit(lambda x: x * 2).lower(X).as_text()
    assert type(plain) is str
    ordered = autodidax.jit(lambda x: autodidax.debug.print("{}", x, ordered=True)).lower(X)
    text = ordered.as_text()
    assert type(text).__name__ == "ModuleText"
    assert len(text.host_callbacks) == 1 and text.num_tokens == 1
