"""Claims of chapter 18 (the capstone), checked against the real JAX (see tests/claims.py).
Small data, so that the file runs in a few seconds; tests/test_capstone.py runs the chapter's
whole program under both libraries."""
import contextlib
import io
import logging
import sys
from pathlib import Path

import numpy as np

import autodidax
import autodidax.numpy as anp
import jax
import jax.numpy as jnp

from claims import claim, claims_test

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import classifier  # noqa: E402  (the chapter's last version, written against either library)

CH = "18_capstone"
N = 16
X, Y = classifier.spirals(N)
PARAMS0 = {k: np.asarray(v) for k, v in
           classifier.init_params(classifier.SIZES, autodidax.random.key(1)).items()}
OURS = classifier.program(autodidax, anp, autodidax.lax, n=N)
THEIRS = classifier.program(jax, jnp, jax.lax, n=N)


def first_step(jax, jnp):
    """The chapter's `sgd_step`, written against either library."""
    def predict(params, x):
        h = jnp.tanh(x @ params["w0"] + params["b0"])
        h = jnp.tanh(h @ params["w1"] + params["b1"])
        return h @ params["w2"] + params["b2"]

    def log_softmax(z):
        shifted = z - jnp.max(z, axis=-1, keepdims=True)
        return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=-1, keepdims=True))

    def loss(params, x, y):
        return -jnp.mean(log_softmax(predict(params, x))[jnp.arange(x.shape[0]), y])

    def sgd_step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return value, jax.tree.map(lambda p, g: p - 0.3 * g, params, grads)
    return sgd_step


@claim(CH, "its step's jaxpr has the same 95 equations, primitive for primitive, as JAX's")
def the_step_has_jaxs_95_equations():
    ours, theirs = ([e.primitive.name for e in lib.make_jaxpr(first_step(lib, np_))(
        PARAMS0, X, Y).jaxpr.eqns] for lib, np_ in [(autodidax, anp), (jax, jnp)])
    assert len(ours) == 95 and ours == theirs, (ours, theirs)


@claim(CH, "the last version saves the same residuals and prints the same lines")
def the_last_version_saves_jaxs_residuals():
    from autodidax.ad_checkpoint import saved_residuals
    from jax._src.ad_checkpoint import saved_residuals as saved_ref
    kinds = lambda saved: [(a.shape, str(a.dtype), why.split(" from ")[0]) for a, why in saved]
    for name in ("plain_loss", "ckpt_loss"):
        ours = saved_residuals(getattr(OURS, name), PARAMS0, X, Y)
        theirs = saved_ref(getattr(THEIRS, name), PARAMS0, X, Y)
        assert kinds(ours) == kinds(theirs), name
    # ... and debug.print, in a loop under jit, prints the same line in both
    lines = []
    for lib in (autodidax, jax):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            f = lib.jit(lambda v: lib.lax.fori_loop(0, 3, lambda i, v: lib.lax.cond(
                i % 2 == 0, lambda: lib.debug.print("step {i:3d}  loss {v:.4f}", i=i, v=v),
                lambda: None) or v * 2, v))
            np.asarray(f(np.float32(0.25)))
            if lib is jax:
                jax.effects_barrier()
        lines.append(out.getvalue())
    assert lines[0] == lines[1] == "step   0  loss 0.2500\nstep   2  loss 1.0000\n", lines


@claim(CH, "JAX reports the same bytes.")
def checkpointing_grows_xlas_temp_memory_in_both():
    temps = {}
    for lib, last in [(autodidax, OURS), (jax, THEIRS)]:
        for name in ("plain_loss", "ckpt_loss"):
            compiled = lib.jit(lib.grad(getattr(last, name))).lower(PARAMS0, X, Y).compile()
            temps[lib.__name__, name] = compiled.memory_analysis().temp_size_in_bytes
    assert temps["autodidax", "plain_loss"] == temps["jax", "plain_loss"], temps
    assert temps["autodidax", "ckpt_loss"] == temps["jax", "ckpt_loss"], temps


@claim(CH, "`jax.nn.log_softmax` for the loss (appendix A2's, the chapter's function, jitted)")
def log_softmax_is_jitted_and_the_chapters_function():
    z = np.float32([[1000.0, 0.0], [0.5, -2.0]])
    for lib, np_ in [(autodidax, anp), (jax, jnp)]:
        eqns = lib.make_jaxpr(lib.nn.log_softmax)(z).jaxpr.eqns
        assert [e.primitive.name for e in eqns] == ["jit"], eqns
        shifted = z - z.max(-1, keepdims=True)
        want = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
        np.testing.assert_allclose(np.asarray(lib.nn.log_softmax(z)), want, rtol=1e-6)


@claim(CH, "The rule is not linear in the cotangent, so it is the derivative of no function")
def the_clipping_rule_is_not_linear():
    z = np.float32([1.0, 2.0])
    for lib, last, bound in [(autodidax, OURS, 0.5 / N), (jax, THEIRS, 0.5 / N)]:
        _, pullback = lib.vjp(last.clip_gradient, z)
        small, big = np.float32([bound / 2, 0]), np.float32([bound * 4, 0])
        assert np.asarray(pullback(small)[0])[0] == bound / 2            # under the bound: kept
        assert np.asarray(pullback(big)[0])[0] == np.float32(bound)      # 8 times more: clipped
        assert np.asarray(last.clip_gradient(z)).tolist() == z.tolist()  # forward: the identity


@claim(CH, "Our jitted functions count their traces; JAX's have no such attribute "
           "(`_cache_size()` they both have).")
def trace_count_is_ours_only():
    ours, theirs = autodidax.jit(lambda x: x + 1), jax.jit(lambda x: x + 1)
    ours(1.0), theirs(1.0)
    assert ours.trace_count == 1 and not hasattr(theirs, "trace_count")
    assert ours._cache_size() == theirs._cache_size() == 1


@claim(CH, "autodidax runs on the CPU unless the flag `jax_platforms` names another platform; "
           "JAX picks a GPU or TPU when it finds one.")
def the_cpu_by_default():
    from jax._src import xla_bridge
    assert autodidax.devices()[0].platform == "cpu"
    assert autodidax.config.jax_platforms in (None, "cpu")
    factories = xla_bridge._backend_factories      # JAX prefers the backend of highest priority
    assert factories["tpu"].priority > factories["cpu"].priority


@claim(CH, "evaluate `lax`'s primitives one at a time with NumPy on the host, copying device "
           "arrays there; only those whose bits NumPy cannot give (`gather`, `scatter`, `sort`, "
           "the random bits) run as a small XLA program each, as every primitive does in JAX.")
def eager_is_mostly_numpy():
    from autodidax import core, lax, prng
    assert core.impl_rules[lax.tanh_p] is np.tanh
    assert core.impl_rules[lax.dot_general_p].__module__ != "autodidax.indexing"
    for p in (lax.gather_p, lax.scatter_add_p, lax.sort_p, prng.threefry2x32_p):
        assert core.impl_rules[p].__qualname__.startswith("xla_impl"), p
    messages = []
    handler = logging.Handler()
    handler.emit = lambda record: messages.append(record.getMessage())
    logging.getLogger("jax").addHandler(handler)
    try:
        with jax.log_compiles():
            jax.lax.tanh(np.ones(13, np.float32))         # eager, one primitive: compiled
    finally:
        logging.getLogger("jax").removeHandler(handler)
    assert any(m.startswith("Compiling jit(tanh)") for m in messages), messages


@claim(CH, "JAX's cached calls take a C++ fast path")
def jaxs_jit_is_a_cpp_function():
    assert type(jax.jit(lambda x: x)).__name__ == "PjitFunction"
    assert type(jax.jit(lambda x: x)).__module__.startswith("jaxlib")
    assert type(autodidax.jit(lambda x: x)).__module__ == "autodidax.jit"


@claim(CH, "Pallas, for writing kernels by hand (a primitive, `pallas_call`, with rules in "
           "tables like ours)")
def pallas_is_a_primitive_with_rules_in_tables():
    from jax._src import core
    from jax._src.interpreters import ad, batching, mlir
    from jax._src.pallas.pallas_call import pallas_call_p
    assert isinstance(pallas_call_p, core.Primitive)
    assert pallas_call_p in ad.primitive_jvps and pallas_call_p in batching.fancy_primitive_batchers
    assert pallas_call_p in mlir._lowerings
    assert not hasattr(autodidax, "pallas") and "pallas_call" not in dir(autodidax.lax)


@claim(CH, "the lines come in step order (`ordered=True` would guarantee it)")
def ordered_prints_in_a_loop_under_cond():
    for lib in (autodidax, jax):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            f = lib.jit(lambda v: lib.lax.fori_loop(0, 4, lambda i, v: lib.lax.cond(
                i % 2 == 1, lambda: lib.debug.print("{i}", i=i, ordered=True),
                lambda: None) or v + 1, v))
            jaxpr = str(lib.make_jaxpr(f)(np.float32(0)))
            np.asarray(f(np.float32(0)))
            if lib is jax:
                jax.effects_barrier()
        assert out.getvalue() == "1\n3\n" and "ordered=True" in jaxpr, (out.getvalue(), jaxpr)


test_claims = claims_test(__name__)
