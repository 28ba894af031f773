"""Chapter 16's shard_map and collectives, against JAX's over the same 8 simulated devices."""
import functools

import jax
import numpy as np
import pytest

import autodidax
import autodidax.numpy as ajnp
from autodidax.sharding import Mesh, P, shard_map

JP = jax.sharding.PartitionSpec


def pair(shape, names):
    ours = Mesh(np.array(autodidax.devices()).reshape(shape), names)
    theirs = jax.sharding.Mesh(np.array(jax.devices()).reshape(shape), names)
    return ours, theirs


def run_both(body_ours, body_theirs, mesh_shape, names, in_spec, out_spec, x,
             check_vma=True, compare_text=True):
    ours, theirs = pair(mesh_shape, names)
    f = autodidax.jit(shard_map(body_ours, mesh=ours, in_specs=P(*in_spec),
                                out_specs=P(*out_spec)))
    g = jax.jit(jax.shard_map(body_theirs, mesh=theirs, in_specs=JP(*in_spec),
                              out_specs=JP(*out_spec), check_vma=check_vma))
    a, b = f(x), g(x)
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
    assert a.shape == b.shape and a.dtype == b.dtype
    if compare_text:       # the same module, up to the name of the function
        assert f.lower(x).as_text() == g.lower(x).as_text()
    return a, b


X8 = np.arange(32, dtype=np.float32).reshape(8, 4)
X64 = np.arange(64, dtype=np.float32).reshape(8, 8)
RING = [(i, (i + 1) % 8) for i in range(8)]

CASES = {
    # name: (ours, theirs, in_spec, out_spec, x, check_vma, compare_text)
    "psum": (lambda b: autodidax.lax.psum(b, "x"), lambda b: jax.lax.psum(b, "x"),
             ("x",), (), X8, False, True),
    "pmean": (lambda b: autodidax.lax.pmean(b, "x"), lambda b: jax.lax.pmean(b, "x"),
              ("x",), (), X8, False, False),
    "pmax": (lambda b: autodidax.lax.pmax(b, "x"), lambda b: jax.lax.pmax(b, "x"),
             ("x",), (), X8, False, True),
    "pmin": (lambda b: autodidax.lax.pmin(b, "x"), lambda b: jax.lax.pmin(b, "x"),
             ("x",), (), X8, False, True),
    "all_gather": (lambda b: autodidax.lax.all_gather(b, "x"),
                   lambda b: jax.lax.all_gather(b, "x"), ("x",), (), X8, False, True),
    "all_gather_tiled": (lambda b: autodidax.lax.all_gather(b, "x", tiled=True),
                         lambda b: jax.lax.all_gather(b, "x", tiled=True), ("x",), (), X8,
                         False, True),
    "psum_scatter": (lambda b: autodidax.lax.psum_scatter(b, "x"),
                     lambda b: jax.lax.psum_scatter(b, "x"), (None,), ("x",), X64, False,
                     True),
    "psum_scatter_tiled": (lambda b: autodidax.lax.psum_scatter(b, "x", tiled=True),
                           lambda b: jax.lax.psum_scatter(b, "x", tiled=True), (None,),
                           ("x",), X64, False, True),
    "ppermute": (lambda b: autodidax.lax.ppermute(b, "x", RING),
                 lambda b: jax.lax.ppermute(b, "x", RING), ("x",), ("x",), X8, True, True),
    "axis_index": (lambda b: b + autodidax.lax.axis_index("x"),
                   lambda b: b + jax.lax.axis_index("x"), ("x",), ("x",), X8, True, False),
}


@pytest.mark.parametrize("name", list(CASES))
def test_collectives_match_jax(name):
    ours, theirs, ins, outs, x, check_vma, text = CASES[name]
    run_both(ours, theirs, (8,), ("x",), ins, outs, x, check_vma, text)


def test_two_dimensional_mesh():
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    run_both(lambda b: autodidax.lax.psum(b, ("x", "y")), lambda b: jax.lax.psum(b, ("x", "y")),
             (4, 2), ("x", "y"), ("x", "y"), (), x, False, True)
    run_both(lambda b: autodidax.lax.psum(b, "y"), lambda b: jax.lax.psum(b, "y"),
             (4, 2), ("x", "y"), ("x", "y"), ("x",), x, False, True)
    run_both(lambda b: b + autodidax.lax.axis_index(("x", "y")),
             lambda b: b + jax.lax.axis_index(("x", "y")),
             (4, 2), ("x", "y"), (("x", "y"),), (("x", "y"),), x, True, False)


def test_replica_groups_match_jax():
    from autodidax.sharding import replica_groups
    ours, _ = pair((4, 2), ("x", "y"))
    assert replica_groups(ours, ("y",)).tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert replica_groups(ours, ("x",)).tolist() == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert replica_groups(ours, ("x", "y")).tolist() == [list(range(8))]


def test_shard_map_eager_pytrees_and_out_sharding():
    ours, theirs = pair((8,), ("x",))
    f = shard_map(lambda d: {"s": autodidax.lax.psum(d["a"], "x"), "b": d["b"] * 2},
                  mesh=ours, in_specs=({"a": P("x"), "b": P()},), out_specs={"s": P(), "b": P()})
    out = f({"a": X8, "b": np.ones(3, np.float32)})
    np.testing.assert_array_equal(np.asarray(out["s"]), X8.sum(0, keepdims=True))
    np.testing.assert_array_equal(np.asarray(out["b"]), np.full(3, 2, np.float32))
    g = shard_map(lambda b: b * 2, mesh=ours, in_specs=P("x"), out_specs=P("x"))
    y = g(X8)
    assert tuple(y.sharding.spec) == ("x",) and y.sharding.mesh == ours


def test_shard_map_jaxpr_params_print_as_jax():
    ours, theirs = pair((8,), ("x",))
    text = str(autodidax.make_jaxpr(autodidax.jit(shard_map(
        lambda b: b * 2, mesh=ours, in_specs=P("x"), out_specs=P("x"))))(X8))
    for line in ["check_vma=True", "in_specs=(P('x',),)", "mesh=Mesh('x': 8, axis_types=(Auto,))",
                 "newly_manual_axes=frozenset({'x'})", "out_specs=(P('x',),)"]:
        assert line in text


def test_shard_map_jvp_matches_jax():
    ours, theirs = pair((8,), ("x",))
    f = shard_map(lambda b: autodidax.lax.psum(ajnp.sin(b) * b, "x"), mesh=ours,
                  in_specs=P("x"), out_specs=P())
    g = jax.shard_map(lambda b: jax.lax.psum(jax.numpy.sin(b) * b, "x"), mesh=theirs,
                      in_specs=JP("x"), out_specs=JP())
    t = np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4)
    (y1, t1), (y2, t2) = autodidax.jvp(f, (X8,), (t,)), jax.jvp(g, (X8,), (t,))
    np.testing.assert_allclose(np.asarray(y1), np.asarray(y2), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(t1), np.asarray(t2), rtol=1e-5)


def test_errors():
    ours, _ = pair((8,), ("x",))
    with pytest.raises(ValueError, match="not evenly divisible"):
        shard_map(lambda b: b, mesh=ours, in_specs=P("x"), out_specs=P("x"))(np.ones(6))
    with pytest.raises(ValueError, match="unique"):
        shard_map(lambda b: autodidax.lax.ppermute(b, "x", [(0, 1), (1, 1)]), mesh=ours,
                  in_specs=P("x"), out_specs=P("x"))(X8)
    with pytest.raises(NameError, match="unbound axis name: y|Found an unbound axis name: y"):
        shard_map(lambda b: autodidax.lax.psum(b, "y"), mesh=ours, in_specs=P("x"),
                  out_specs=P())(X8)


def test_ppermute_under_vmap_matches_jax():
    perm = [(0, 2), (2, 1), (1, 0)]
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    mine = autodidax.vmap(lambda v: autodidax.lax.ppermute(v, "i", perm), axis_name="i")(x)
    want = jax.vmap(lambda v: jax.lax.ppermute(v, "i", perm), axis_name="i")(x)
    np.testing.assert_array_equal(np.asarray(mine), np.asarray(want))
    g1 = autodidax.grad(lambda v: (autodidax.vmap(
        lambda u: autodidax.lax.ppermute(u, "i", perm), axis_name="i")(v) * x).sum())(x)
    g2 = jax.grad(lambda v: (jax.vmap(
        lambda u: jax.lax.ppermute(u, "i", perm), axis_name="i")(v) * x).sum())(x)
    np.testing.assert_array_equal(np.asarray(g1), np.asarray(g2))


GRAD_CASES = {
    # name: (body ours, body theirs, in_spec, out_spec)
    "psum": (lambda b: autodidax.lax.psum(ajnp.sin(b) * b, "x"),
             lambda b: jax.lax.psum(jax.numpy.sin(b) * b, "x"), ("x",), ()),
    "ppermute": (lambda b: autodidax.lax.ppermute(b * b, "x", RING),
                 lambda b: jax.lax.ppermute(b * b, "x", RING), ("x",), ("x",)),
    "all_gather": (lambda b: autodidax.lax.all_gather(ajnp.exp(b / 30), "x", tiled=True),
                   lambda b: jax.lax.all_gather(jax.numpy.exp(b / 30), "x", tiled=True),
                   ("x",), ("x",)),
    "psum_scatter": (lambda b: autodidax.lax.psum_scatter(b * b, "x", tiled=True),
                     lambda b: jax.lax.psum_scatter(b * b, "x", tiled=True), (), ("x",)),
    "replicated_in": (lambda b: b * autodidax.lax.axis_index("x"),
                      lambda b: b * jax.lax.axis_index("x"), (), ("x",)),
    "pmean_out_replicated": (lambda b: autodidax.lax.pmean(b * b, "x"),
                             lambda b: jax.lax.pmean(b * b, "x"), ("x",), ()),
}


@pytest.mark.parametrize("name", list(GRAD_CASES))
def test_grad_of_shard_map_matches_jax(name):
    body_ours, body_theirs, ins, outs = GRAD_CASES[name]
    ours, theirs = pair((8,), ("x",))
    f = shard_map(body_ours, mesh=ours, in_specs=P(*ins), out_specs=P(*outs))
    g = jax.shard_map(body_theirs, mesh=theirs, in_specs=JP(*ins), out_specs=JP(*outs),
                      check_vma=False)
    w = np.linspace(-1, 2, 64 * 8, dtype=np.float32).reshape(64, 8)
    weights = lambda y: w[:y.shape[0], :y.shape[1]]                    # noqa: E731
    loss_a = lambda x: (f(x) * weights(f(x))).sum()                    # noqa: E731
    loss_b = lambda x: (g(x) * weights(g(x))).sum()                    # noqa: E731
    x = np.arange(64, dtype=np.float32).reshape(8, 8) / 10
    want = jax.grad(loss_b)(x)
    np.testing.assert_allclose(np.asarray(autodidax.grad(loss_a)(x)), np.asarray(want),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(autodidax.jit(autodidax.grad(loss_a))(x)),
                               np.asarray(want), rtol=1e-5, atol=1e-6)


def test_vmap_of_shard_map_matches_jax():
    ours, theirs = pair((8,), ("x",))
    f = shard_map(lambda b: autodidax.lax.psum(b * b, "x") + autodidax.lax.axis_index("x"),
                  mesh=ours, in_specs=P("x"), out_specs=P("x"))
    g = jax.shard_map(lambda b: jax.lax.psum(b * b, "x") + jax.lax.axis_index("x"),
                      mesh=theirs, in_specs=JP("x"), out_specs=JP("x"), check_vma=False)
    xs = np.arange(2 * 32, dtype=np.float32).reshape(2, 8, 4)
    np.testing.assert_allclose(np.asarray(autodidax.vmap(f)(xs)), np.asarray(jax.vmap(g)(xs)))
    np.testing.assert_allclose(np.asarray(autodidax.jit(autodidax.vmap(f, in_axes=2))(xs.transpose(1, 2, 0))),
                               np.asarray(jax.jit(jax.vmap(g, in_axes=2))(xs.transpose(1, 2, 0))))


def test_shard_map_uses_the_mesh_in_context():
    ours, theirs = pair((4, 2), ("i", "j"))
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    body = lambda b: autodidax.lax.psum(b, "j")                         # noqa: E731
    tbody = lambda b: jax.lax.psum(b, "j")                              # noqa: E731
    with autodidax.set_mesh(ours), jax.set_mesh(theirs):
        f = autodidax.shard_map(body, in_specs=P("i", "j"), out_specs=P("i", None))
        g = jax.shard_map(tbody, in_specs=JP("i", "j"), out_specs=JP("i", None), check_vma=False)
        a, b = f(x), g(x)
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        assert a.shape == b.shape == (8, 4)
        assert repr(a.sharding) == repr(b.sharding)
        fj, gj = autodidax.jit(f), jax.jit(g)
        assert fj.lower(x).as_text() == gj.lower(x).as_text()
        # A mesh given that differs from the one in context is an error in both.
        other, tother = pair((2, 4), ("i", "j"))
        with pytest.raises(ValueError, match="should match the mesh passed to shard_map"):
            autodidax.shard_map(body, mesh=other, in_specs=P("i", "j"), out_specs=P("i"))(x)
        with pytest.raises(ValueError, match="should match the mesh passed to shard_map"):
            jax.shard_map(tbody, mesh=tother, in_specs=JP("i", "j"), out_specs=JP("i"))(x)
    for lib, spec in ((autodidax, P), (jax, JP)):       # no mesh at all
        with pytest.raises(ValueError, match="The context mesh cannot be empty"):
            lib.shard_map(lambda b: b, in_specs=spec("i"), out_specs=spec("i"))(x)


def test_pcast_to_varying_matches_jax():
    ours, theirs = pair((8,), ("i",))
    x = np.arange(8, dtype=np.float32)

    def body(lib):
        def f(b, c):                     # c is the same on every device, b is not
            return b * lib.lax.pcast(c, "i", to="varying")
        return f
    a = shard_map(body(autodidax), mesh=ours, in_specs=(P("i"), P()), out_specs=P("i"))(x, x)
    b = jax.shard_map(body(jax), mesh=theirs, in_specs=(JP("i"), JP()), out_specs=JP("i"))(x, x)
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert autodidax.lax.pcast(x, (), to="varying") is x
    for lib in (autodidax, jax):
        with pytest.raises(TypeError, match="must be a tuple or a str"):
            lib.lax.pcast(x, {"i"}, to="varying")
        with pytest.raises(ValueError, match="Got unexpected `to` value"):
            lib.lax.pcast(x, "i", to="sideways")
