"""Conformance cases for JAX's options as `State`s (appendix A25, with the hooks of appendix A1,
chapter 8 and chapter 12 they act through): values, checks of new values, and the texts of the
warnings, errors and logs they set off, against JAX. Same harness as tests/test_conformance.py;
a case that catches a message returns its text, so the texts are compared word for word."""
import logging
import re
import warnings

import numpy as np
import pytest

from test_conformance import C, E, J, _params, check

A3, A23 = np.ones(3, np.float32), np.ones((2, 3), np.float32)
NAMES = ["enable_checks", "debug_key_reuse", "check_tracer_leaks", "enable_custom_prng",
         "softmax_custom_jvp", "log_compiles", "no_tracing", "no_execution",
         "explain_cache_misses", "default_device", "default_matmul_precision",
         "default_prng_impl", "numpy_rank_promotion", "allow_f16_reductions",
         "jax2tf_associative_scan_reductions", "legacy_prng_key", "threefry_partitionable",
         "array_garbage_collection_guard", "remove_size_one_mesh_axis_from_type", "thread_guard",
         "auto_pcast"]


def _said(fn):
    """What `fn()` raises or warns: (class name, text), or its result when it does neither."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn()
        except Exception as e:          # noqa: BLE001  (the class and text are compared)
            return type(e).__name__, str(e)
    return [(w.category.__name__, str(w.message)) for w in caught] or out


def _ranks(jax, jnp, mode):
    with jax.numpy_rank_promotion(mode):
        return [_said(lambda: jnp.ones(3) + jnp.ones((2, 3))),
                _said(lambda: jnp.multiply(A3, A23).shape),
                _said(lambda: (jnp.ones((2, 3)) + 1.0).shape),      # a scalar: no promotion
                _said(lambda: (A23 * np.ones((1, 3))).shape),       # equal ranks
                _said(lambda: jnp.where(A3 > 0, A23, 0.0).shape),   # where does not check
                _said(lambda: jnp.ones(3) + jnp.ones((2, 4)))]      # refused before the shapes


def _logged(jax, run):
    """The messages logged at WARNING while `run()` runs, from any logger."""
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())
    handler, root = Keep(logging.WARNING), logging.getLogger()
    root.addHandler(handler)
    try:
        run()
    finally:
        root.removeHandler(handler)
    return [re.sub(r"id=\d+", "id=N", r) for r in records if "CACHE MISS" in r]


def _explained(jax, jnp):
    def f(x, y):
        return x * y
    g = jax.jit(f)

    def run():
        with jax.explain_cache_misses(True):
            g(A3, 2.0)
            g(A3, 3.0)                                  # the same types: no miss
            g(A23, 2.0)
            g(A23.astype(np.int32), 2)
            g(A3, jnp.float32(2))                       # a strong scalar where it was weak
            g(*A23)                                     # two arguments more
    return _logged(jax, run)


def _no_tracing(jax, jnp):
    def h(x):
        return x + 1
    g = jax.jit(h)
    g(A3)
    with jax.no_tracing(True):
        return g(A3 * 2), _said(lambda: g(A23))


def _leak(jax, jnp):
    held = []

    def f(x):
        held.append(x * 2)
        return x
    with jax.checking_leaks():
        e = _said(lambda: jax.jit(f)(1.0))
    return e[0], e[1].splitlines()[2:4], jax.check_tracer_leaks.value


def _legacy(jax, jnp, mode):
    with jax.legacy_prng_key(mode):
        return (_said(lambda: jax.random.normal(jax.random.PRNGKey(0), (2,))),
                _said(lambda: jax.random.normal(jax.random.key(0), (2,)).shape))


def _checked(jax, jnp):
    with jax.enable_checks(True), jax.checking_leaks():
        return (jax.jit(lambda x: jnp.sin(x) * 2)(A3), jax.jit(jax.grad(lambda x: x ** 3))(2.0),
                jax.jit(lambda x: jax.lax.scan(lambda c, y: (c + y, c * y), 0.0, x))(A3),
                jax.jit(jax.vmap(jnp.sum))(A23))


def _live(jax, jnp):
    x, y = jnp.arange(5.0), jnp.ones(2)
    y.delete()
    live = jax.live_arrays()
    return any(a is x for a in live), any(a is y for a in live), type(live).__name__


def _smapped(jax, jnp):
    with jax.set_mesh(jax.make_mesh((8,), ("i",), (jax.sharding.AxisType.Auto,))):
        return (jax.smap(lambda x: x * jax.lax.axis_index("i"), in_axes=0, out_axes=0,
                         axis_name="i")(jnp.arange(16.0)),
                jax.smap(lambda x, y: x + y.sum(), in_axes=(0, None), out_axes=0,
                         axis_name="i")(jnp.arange(8.0), jnp.ones(3)))


OPTIONS = {
    "default values": C(lambda jax, jnp: [(getattr(jax, n).name, str(getattr(jax, n).value))
                                         for n in NAMES]),
    "checking_leaks is check_tracer_leaks(True)": C(lambda jax, jnp: (
        jax.checking_leaks.args, jax.checking_leaks.func is jax.check_tracer_leaks)),
    "a State is not a bool": E(lambda jax, jnp: bool(jax.numpy_rank_promotion)),
    "a State needs a value": E(lambda jax, jnp: jax.numpy_rank_promotion()),
    "a yes-or-no State's bare call is True": C(lambda jax, jnp: [
        jax.log_compiles()(lambda: jax.log_compiles.value)(),
        jax.enable_x64()(lambda: jnp.ones(1).dtype.name)()]),
    "bad enum value": C(lambda jax, jnp: [
        _said(lambda: jax.config.update("jax_numpy_rank_promotion", "never")),
        _said(lambda: jax.default_matmul_precision("fastest").__enter__()),
        _said(lambda: jax.config.update("jax_array_garbage_collection_guard", "x")),
        _said(lambda: jax.legacy_prng_key("sometimes").__enter__()),
        _said(lambda: jax.default_device(3).__enter__())]),
    "bool options take truthy values": C(lambda jax, jnp: [
        (jax.config.update("jax_log_compiles", v), jax.log_compiles.value,
         jax.config.update("jax_log_compiles", False))[1] for v in (1, "yes", 0)]),
    "the settings the book builds": C(lambda jax, jnp: [
        _said(lambda: [s.__enter__(), s.__exit__(None, None, None)] and None)
        for s in (jax.threefry_partitionable(True), jax.default_prng_impl("threefry2x32"),
                  jax.default_device(None), jax.default_matmul_precision("highest"),
                  jax.array_garbage_collection_guard("allow"), jax.auto_pcast(False))]),
    "rank promotion allowed": C(lambda jax, jnp: _ranks(jax, jnp, "allow")),
    "rank promotion warned about": C(lambda jax, jnp: _ranks(jax, jnp, "warn")),
    "rank promotion refused": C(lambda jax, jnp: _ranks(jax, jnp, "raise")),
    "rank promotion in a jitted function": C(lambda jax, jnp: (
        jax.jit(lambda x, y: x - y)(A3, A23),
        _said(lambda: jax.numpy_rank_promotion("raise")(
            lambda: jax.jit(lambda x, y: x - y)(A3, A23))()))),
    "cache misses explained": C(_explained),
    "no_tracing": C(lambda jax, jnp: _no_tracing(jax, jnp)[1][0]),
    "no_tracing lets the cache run": C(lambda jax, jnp: _no_tracing(jax, jnp)[0]),
    "leaked tracers": C(_leak),
    "checks and leak checks find nothing wrong": C(_checked),
    "legacy keys allowed": C(lambda jax, jnp: _legacy(jax, jnp, "allow")),
    "legacy keys warned about": C(lambda jax, jnp: _legacy(jax, jnp, "warn")),
    "legacy keys refused": C(lambda jax, jnp: _legacy(jax, jnp, "error")),
    "reduction initial before keepdims": J(lambda jax, jnp: jax.make_jaxpr(lambda x: (
        jnp.max(x, 1, keepdims=True, initial=0.0), jnp.sum(x, 0, keepdims=True, initial=1.0)))(
            A23)),
    "live_arrays": C(_live),
    "smap": C(_smapped),
    "smap's checks": C(lambda jax, jnp: [
        _said(lambda: jax.smap(lambda x: x, in_axes=[0], out_axes=0, axis_name="i")),
        _said(lambda: jax.smap(lambda x: x, in_axes=0, out_axes=0, axis_name=("i",))),
        _said(lambda: jax.smap(lambda x: x, in_axes=(0.5,), out_axes=0, axis_name="i")),
        _said(lambda: jax.smap(lambda x: x, in_axes=0, out_axes="a", axis_name="i"))]),
}


@pytest.mark.parametrize("name", _params(OPTIONS))
def test_options(name):
    check(OPTIONS[name])


def test_options_the_book_does_not_build_are_refused():
    import autodidax as jax
    for state, value in [(jax.threefry_partitionable, False), (jax.default_prng_impl, "rbg"),
                         (jax.debug_key_reuse, True), (jax.no_execution, True),
                         (jax.softmax_custom_jvp, True), (jax.allow_f16_reductions, False),
                         (jax.thread_guard, True), (jax.array_garbage_collection_guard, "log")]:
        with pytest.raises(NotImplementedError, match="autodidax"):
            with state(value):
                pass
        assert state.value == {"jax_default_prng_impl": "threefry2x32",
                               "jax_array_garbage_collection_guard": None}.get(
                                   state.name, not value)


def test_config_x64_enabled_reads_the_option():
    """`jax.config.x64_enabled` is `jax_enable_x64`'s value, as JAX's Config property is."""
    import jax as real_jax
    import autodidax
    for lib in (real_jax, autodidax):
        assert lib.config.x64_enabled is False
        with lib.enable_x64():
            assert lib.config.x64_enabled is True
        assert lib.config.x64_enabled is False
