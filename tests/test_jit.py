"""autodidax/jit.py: jit agrees with JAX, caches as it should, stages, composes and errs clearly."""
import sys
from functools import partial

import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

import autodidax
import autodidax.numpy as jnp
from autodidax import runtime
from autodidax.core import ConcretizationTypeError, UnexpectedTracerError
from autodidax.jit import jit

from test_numpy import PROGRAMS, X, Y


@pytest.mark.parametrize("name", [n for n in PROGRAMS if n != "creation"])
def test_jit_agrees_with_jax_on_chapter_1_programs(name):
    f = PROGRAMS[name]
    ours = jit(lambda x, y: f(jnp, x, y))(jnp.asarray(X), jnp.asarray(Y))
    theirs = jax.jit(lambda x, y: f(jnp_ref, x, y))(X, Y)
    ours, theirs = (o if isinstance(o, tuple) else (o,) for o in (ours, theirs))
    for a, b in zip(ours, theirs):
        assert isinstance(a, runtime.Array), f"jit should return device arrays, got {type(a)}"
        assert (a.shape, a.dtype, a.weak_type) == (b.shape, b.dtype, b.aval.weak_type)
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=2e-6, atol=2e-6)


def test_pytrees_kwargs_and_static_arguments():
    def make(m):
        def f(params, x, *, scale, mode="tanh"):
            h = x @ params["w"] + params["b"]
            return {"out": (m.tanh(h) if mode == "tanh" else h) * scale, "n": x.shape[0]}
        return f
    jf = jit(make(jnp), static_argnames="mode")
    params = {"w": jnp.ones((3, 2)), "b": jnp.zeros(2)}
    out = jf(params, jnp.asarray(X), scale=2.0)
    ref = jax.jit(make(jnp_ref), static_argnames="mode")(
        {"w": np.ones((3, 2), np.float32), "b": np.zeros(2, np.float32)}, X, scale=2.0)
    np.testing.assert_allclose(np.asarray(out["out"]), np.asarray(ref["out"]), rtol=1e-6)
    assert int(out["n"]) == 4
    lin = jf(params, jnp.asarray(X), scale=2.0, mode="linear")
    np.testing.assert_allclose(np.asarray(lin["out"]), (X @ np.ones((3, 2))) * 2.0, rtol=1e-6)
    assert jf._cache_size() == 2
    g = jit(lambda x, n: x * n, static_argnums=1)
    assert float(g(2.0, 3)) == 6.0 and float(g(2.0, 4)) == 8.0 and g._cache_size() == 2


def test_cache_is_hit_when_it_should_be_and_missed_when_it_should_be():
    calls = []

    def make():
        def f(x, y):
            calls.append(1)
            return jnp.sin(x) * y + y
        return f
    f = jit(make())
    a, b = runtime.device_put(np.ones(3, np.float32)), runtime.device_put(np.zeros(3, np.float32))
    f(a, b)
    f(b, a)
    f(np.ones(3, np.float32), b)       # a NumPy array of the same type: same signature
    assert len(calls) == 1 and f.trace_count == 1
    f(np.ones(4, np.float32), np.ones(4, np.float32))     # new shape
    f(np.ones(3, np.int32), np.ones(3, np.int32))         # new dtype
    f(2.0, 3.0)                                           # weak scalars
    f(2.0, 5.0)
    assert len(calls) == 4 and f._cache_size() == 4
    before = dict(runtime.cache_stats)
    h = jit(make())               # another function, the same program text: a memory hit
    h(a, b)
    assert runtime.cache_stats["memory_hits"] == before["memory_hits"] + 1


def test_ahead_of_time_stages():
    f = lambda x, y: jnp.sin(x) * y + 1.0
    traced = jit(f).trace(1.0, 2.0)
    assert str(traced.jaxpr) == str(jax.make_jaxpr(lambda x, y: jnp_ref.sin(x) * y + 1.0)(1.0, 2.0))
    lowered = jit(f).lower(1.0, 2.0)
    text = lowered.as_text()
    assert text == jax.jit(lambda x, y: jnp_ref.sin(x) * y + 1.0).lower(1.0, 2.0).as_text()
    for op in ("stablehlo.sine", "stablehlo.multiply", "stablehlo.add", "func.func public @main"):
        assert op in text
    compiled = lowered.compile()
    hlo = compiled.as_text()
    assert "fusion" in hlo and "sine" in hlo
    cost = compiled.cost_analysis()
    assert cost["flops"] == 2.0 and cost["transcendentals"] == 1.0
    assert float(compiled(1.0, 2.0)) == pytest.approx(np.sin(1.0) * 2 + 1, rel=1e-6)
    with pytest.raises(TypeError, match=r"Argument 'x' compiled with float32\[\] and called with float32\[3\]"):
        compiled(np.ones(3, np.float32), 2.0)


def test_make_jaxpr_of_jit_prints_as_jax():
    c = np.arange(3.0, dtype=np.float32)
    f = lambda m, j: j(lambda x, y: m.sin(x) * y + m.asarray(c))
    x = np.ones(3, np.float32)
    ours = autodidax.make_jaxpr(f(jnp, jit))(x, 2.0)
    theirs = jax.make_jaxpr(f(jnp_ref, jax.jit))(x, 2.0)
    assert str(ours).replace("<lambda>", "f") == str(theirs).replace("<lambda>", "f")
    ours = autodidax.make_jaxpr(lambda x: f(jnp, jit)(x, x) * 2)(x)
    theirs = jax.make_jaxpr(lambda x: f(jnp_ref, jax.jit)(x, x) * 2)(x)
    assert str(ours) == str(theirs)


def _program(m):
    return lambda x, y: m.sum(m.tanh(x @ y) ** 2 + m.sin(x).mean())


@pytest.mark.parametrize("compose", [
    "jvp(jit)", "jit(jvp)", "vmap(jit)", "jit(vmap)", "grad(jit)", "jit(grad)",
    "vmap(grad(jit))", "grad(grad(jit))", "jit(vmap(jit))", "jacfwd(jit)", "jacrev(jit)"])
def test_compositions_agree_with_jax(compose):
    W = np.linspace(-1, 1, 6).astype(np.float32).reshape(3, 2)

    def build(lib, jit_, m):
        f = _program(m)
        return {
            "jvp(jit)": lambda x: lib.jvp(jit_(f), (x, W), (x, W))[1],
            "jit(jvp)": lambda x: jit_(lambda x: lib.jvp(f, (x, W), (x, W))[1])(x),
            "vmap(jit)": lambda x: lib.vmap(jit_(f), in_axes=(0, None))(x[:, None, :], W),
            "jit(vmap)": lambda x: jit_(lib.vmap(f, in_axes=(0, None)))(x[:, None, :], W),
            "grad(jit)": lambda x: lib.grad(jit_(f))(x, W),
            "jit(grad)": lambda x: jit_(lib.grad(f, argnums=1))(x, W),
            "vmap(grad(jit))": lambda x: lib.vmap(lib.grad(jit_(f), argnums=1),
                                                  in_axes=(0, None))(x[:, None, :], W),
            "grad(grad(jit))": lambda x: lib.grad(lambda s: lib.grad(jit_(
                lambda s: m.sum(m.sin(s * x))))(s))(0.5),
            "jit(vmap(jit))": lambda x: jit_(lib.vmap(jit_(f), in_axes=(0, None)))(
                x[:, None, :], W),
            "jacfwd(jit)": lambda x: lib.jacfwd(jit_(lambda x: m.sin(x) * x[0]))(x),
            "jacrev(jit)": lambda x: lib.jacrev(jit_(lambda x: m.sin(x) * x[0]))(x),
        }[compose]
    ours = build(autodidax, jit, jnp)(jnp.asarray(X))
    theirs = build(jax, jax.jit, jnp_ref)(X)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=2e-5, atol=1e-6)


def test_closure_over_an_outer_tracer():
    f = lambda lib, jit_: lambda x: jit_(lambda y: x * y)(2.0)
    ours = autodidax.jvp(f(autodidax, jit), (3.0,), (1.0,))
    theirs = jax.jvp(f(jax, jax.jit), (3.0,), (1.0,))
    assert [float(v) for v in ours] == [float(v) for v in theirs] == [6.0, 2.0]
    g = autodidax.grad(lambda x: jit(lambda y: jnp.sin(x * y))(2.0))(0.3)
    assert float(g) == pytest.approx(2 * np.cos(0.6), rel=1e-6)


def test_escaped_tracer_names_the_function():
    saved = []

    @jit
    def leaky(x):
        saved.append(x)
        return x * 2.0
    leaky(1.0)
    with pytest.raises(UnexpectedTracerError, match=r"jit\(leaky\) at test_jit.py:\d+, escaped"):
        jnp.sin(saved[0])


def test_python_control_flow_on_a_traced_value_explains_itself():
    @jit
    def f(x):
        return x if x > 0 else -x
    with pytest.raises(ConcretizationTypeError,
                       match=r"abstract tracer \(bool\[\]\) of jit\(f\).*static_argnums.*lax.cond"):
        f(1.0)


def test_unhashable_static_argument():
    g = jit(lambda x, opts: x * len(opts), static_argnums=1)
    with pytest.raises(ValueError, match=r"Non-hashable static arguments are not supported.*"
                                         r"<class 'dict'>, \{'a': 1\}"):
        g(1.0, {"a": 1})


def test_seeds_model_example_runs_unchanged():
    import autodidax as jax_
    import autodidax.numpy as jnp_
    key_w = np.array([0.3, -0.2, 0.5], np.float32)           # in place of jax.random.normal
    x_data = np.linspace(-1, 1, 64 * 3, dtype=np.float32).reshape(64, 3)

    def run(jax, jnp):
        params = {"w": jnp.asarray(key_w), "b": jnp.zeros(())}

        def loss(params, x, y):
            pred = x @ params["w"] + params["b"]
            return jnp.mean((pred - y) ** 2)
        x = jnp.asarray(x_data)
        y = jnp.ones((64,))
        grad_fn = jax.jit(jax.grad(loss))
        g = grad_fn(params, x, y)
        step = jax.tree.map(lambda p, e: p - 0.1 * e, params, g)
        return jax.jit(loss)(params, x, y), step
    ours, theirs = run(jax_, jnp_), run(jax, jnp_ref)
    np.testing.assert_allclose(float(ours[0]), float(theirs[0]), rtol=1e-6)
    for k in ("w", "b"):
        np.testing.assert_allclose(np.asarray(ours[1][k]), np.asarray(theirs[1][k]), rtol=1e-5)


def test_seeds_jit_examples_run_unchanged():
    import autodidax as jax_
    import autodidax.numpy as jnp_

    def run(jax, jnp):
        compute = lambda x: jnp.sin(x) + jnp.cos(x)
        fast_compute = jax.jit(compute)
        y = fast_compute(jnp.ones(1000000))
        compiled = jax.jit(lambda x: jnp.tanh(x * 3.0))
        func = jax.jit(jnp.sqrt)
        f = lambda x, y: jnp.sin(x) * y + 1.0
        lowered = jax.jit(f).lower(1.0, 2.0)
        prim = jax.make_jaxpr(jax.grad(f))(1.0, 2.0).eqns[0].primitive
        return (float(y[0]), float(compiled(jnp.ones(3))[1]), float(func(jnp.ones((1000, 1000)))[5, 5]),
                str(jax.make_jaxpr(f)(1.0, 2.0)), "stablehlo.sine" in lowered.as_text(), str(prim),
                str(jax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(jnp.zeros((3,)))))
    ours, theirs = run(jax_, jnp_), run(jax, jnp_ref)
    assert ours[:3] == pytest.approx(theirs[:3], rel=1e-6)
    assert ours[3:] == theirs[3:]


def test_jit_on_a_method_binds_self_like_jax():
    import functools
    import jax

    def make(lib):
        class Counter:
            def __init__(self, k):
                self.k = k

            def __hash__(self):
                return hash(self.k)

            def __eq__(self, other):
                return isinstance(other, Counter) and other.k == self.k

            @functools.partial(lib.jit, static_argnums=0)
            def apply(self, x):
                return x + self.k
        return Counter

    ours, theirs = make(autodidax), make(jax)
    assert type(ours.__dict__["apply"]).__name__ == "Jitted" and ours.apply is ours.__dict__["apply"]
    bound = ours(1.0).apply
    assert bound.__self__.k == 1.0 and bound.__name__ == theirs(1.0).apply.__name__ == "apply"
    np.testing.assert_allclose(bound(np.ones(2, np.float32)), theirs(1.0).apply(np.ones(2)))
    ours(1.0).apply(np.ones(2, np.float32))      # equal instances share the trace
    ours(2.0).apply(np.ones(2, np.float32))
    assert ours.apply.trace_count == 2


def test_donating_a_host_array_deletes_it():
    # Chapter 1's host arrays are copied, the copy donated, and then deleted, as JAX deletes a
    # donated array (tests/test_donation.py: the rest).
    x = autodidax.numpy.ones(3)
    y = autodidax.jit(lambda x: x * 2, donate_argnums=0)(x)
    np.testing.assert_allclose(y, np.full(3, 2.0, np.float32))
    assert x.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        np.asarray(x)
    with pytest.raises(ValueError, match="cannot intersect"):
        autodidax.jit(lambda x: x, static_argnames="x", donate_argnames="x")


def test_closed_over_constants_are_embedded_as_jax_embeds_them():
    c = np.arange(4.0, dtype=np.float32)
    d = jnp.arange(4.0)                        # a device array closed over, too
    x = np.ones(4, np.float32)
    text = jit(lambda x: x * d + c).lower(x).as_text()
    assert "func.func public @main(%arg0: tensor<4xf32>)" in text   # one argument: x
    assert text.count("stablehlo.constant dense<[0.000000e+00, 1.000000e+00") == 2
    d_ref = jnp_ref.arange(4.0)
    assert text == jax.jit(lambda x: x * d_ref + c).lower(x).as_text()


def test_a_new_constant_value_never_reuses_a_stale_program(tmp_path):
    previous = runtime.set_cache_dir(tmp_path)
    try:
        def make(value):
            c = np.full(3, value, np.float32)
            return jit(lambda x: x + c)
        x = jnp.ones(3)
        for value in (1.0, 2.0, 1.0):
            runtime.clear_caches()                 # the second 1.0 may come from the disk
            np.testing.assert_array_equal(np.asarray(make(value)(x)), 1.0 + value)
            np.testing.assert_array_equal(np.asarray(make(value).lower(x).compile()(x)),
                                          1.0 + value)
    finally:
        runtime.set_cache_dir(previous)


def test_result_info_names_the_output_pytree_as_jax_does():
    fs = [lambda x: x, lambda x: (x, [x * 2]), lambda x: {"b": x, "a": (x, None, x)}]
    for f in fs:
        assert jit(f).lower(1.0).as_text() == jax.jit(f).lower(1.0).as_text()


def test_module_named_after_a_partials_function_and_large_constants_warn():
    def scale(x, factor):
        return x * factor
    f = partial(scale, factor=2.0)
    assert jit(f).lower(1.0).as_text() == jax.jit(f).lower(1.0).as_text()
    big = np.ones(1000, np.float32)
    autodidax.config.update("jax_captured_constants_warn_bytes", 4000)
    try:
        with pytest.warns(UserWarning, match=r"constants were captured during lowering \(4.00KB"):
            jit(lambda x: x + big).lower(1.0)
    finally:
        autodidax.config.update("jax_captured_constants_warn_bytes", 2 * 10 ** 9)


def test_derived_programs_of_a_jitted_function_are_built_once():
    """grad, vmap and jvp of a jitted function, called again: no new jaxpr, no new program
    (JAX caches its jvp_jaxpr, batch_jaxpr, partial_eval and transpose the same way)."""
    jit_module = sys.modules["autodidax.jit"]   # `autodidax.jit` is the function
    f = autodidax.jit(lambda x: jnp.sin(x) * x)
    x, xs = np.ones(3, np.float32), np.ones((2, 3), np.float32)
    for call in [lambda: autodidax.grad(lambda x: f(x).sum())(x),
                 lambda: autodidax.vmap(f)(xs),
                 lambda: autodidax.jvp(f, (x,), (x,)),
                 lambda: autodidax.linearize(f, x)[1](x)]:
        first = call()
        n, before = len(jit_module._executables), dict(runtime.cache_stats)
        for _ in range(3):
            again = call()
        assert len(jit_module._executables) == n
        assert runtime.cache_stats["memory_hits"] == before["memory_hits"]   # no lowering
        np.testing.assert_allclose(np.asarray(jax.tree_util.tree_leaves(again)[0]),
                                   np.asarray(jax.tree_util.tree_leaves(first)[0]))


def test_the_fast_path_takes_numpy_arguments_of_any_strides_and_dtype():
    # A cache hit by shape and dtype puts a NumPy argument on the device as it is (jaxlib reads
    # any strides); float64 is made float32 first, as the signature says.
    import autodidax
    f = autodidax.jit(lambda x, y: x * 2 + y)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    views = [x, x[::-1], x[:, ::-1], np.asfortranarray(x), np.broadcast_to(x[0], (3, 4))]
    for a in views + [a.astype(np.float64) for a in views]:
        for _ in range(2):                                   # the second call is a cache hit
            out = f(a, a)
            assert out.dtype == np.float32
            np.testing.assert_array_equal(np.asarray(out), np.asarray(a, np.float32) * 3)
    assert f.trace_count == 1
