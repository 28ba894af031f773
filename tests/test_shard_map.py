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


# all_to_all: (split_axis, concat_axis, tiled) -> the global input; blocks are cut along dim 0.
A2A_CASES = {
    (0, 0, False): np.arange(64 * 3, dtype=np.float32).reshape(64, 3),
    (0, 1, False): np.arange(64 * 3, dtype=np.float32).reshape(64, 3),
    (1, 0, False): np.arange(16 * 8, dtype=np.float32).reshape(16, 8),
    (0, 0, True): np.arange(128 * 3, dtype=np.float32).reshape(128, 3),
    (0, 1, True): np.arange(128 * 3, dtype=np.float32).reshape(128, 3),
    (1, 0, True): np.arange(16 * 24, dtype=np.float32).reshape(16, 24),
    (1, 1, True): np.arange(16 * 24, dtype=np.float32).reshape(16, 24),
}


@pytest.mark.parametrize("case", list(A2A_CASES), ids=str)
def test_all_to_all_matches_jax(case):
    s, c, tiled = case
    x = A2A_CASES[case]
    run_both(lambda b: autodidax.lax.all_to_all(b, "x", s, c, tiled=tiled),
             lambda b: jax.lax.all_to_all(b, "x", s, c, tiled=tiled),
             (8,), ("x",), ("x",), ("x",), x, True, True)
    ours, _ = pair((8,), ("x",))
    text = str(autodidax.make_jaxpr(autodidax.jit(shard_map(
        lambda b: autodidax.lax.all_to_all(b, "x", s, c, tiled=tiled), mesh=ours,
        in_specs=P("x"), out_specs=P("x"))))(x))
    assert "all_to_all[" in text and "axis_name=x" in text and f"tiled={tiled}" in text


def test_all_to_all_over_one_axis_of_two():
    x = np.arange(16 * 16, dtype=np.float32).reshape(16, 16)     # blocks of f32[4,8]
    for names in ("y", "x", ("x", "y"), ("y", "x")):
        run_both(lambda b: autodidax.lax.all_to_all(b, names, 1, 0, tiled=True),
                 lambda b: jax.lax.all_to_all(b, names, 1, 0, tiled=True),
                 (4, 2), ("x", "y"), ("x", "y"), ("x", "y"), x, True, True)


def test_all_to_all_errors_match_jax():
    ours, theirs = pair((8,), ("x",))
    x = np.ones((8, 12), np.float32)
    for s, c, tiled, message in [(1, 0, False, "requires the size of the mapped axis"),
                                 (1, 0, True, "has to be divisible by the size of the named")]:
        with pytest.raises(ValueError, match=message):
            shard_map(lambda b: autodidax.lax.all_to_all(b, "x", s, c, tiled=tiled), mesh=ours,
                      in_specs=P("x"), out_specs=P("x"))(x)
        with pytest.raises(ValueError, match=message):
            jax.shard_map(lambda b: jax.lax.all_to_all(b, "x", s, c, tiled=tiled), mesh=theirs,
                          in_specs=JP("x"), out_specs=JP("x"))(x)
    with pytest.raises(NameError, match="unbound axis name"):
        shard_map(lambda b: autodidax.lax.all_to_all(b, "y", 0, 0), mesh=ours,
                  in_specs=P("x"), out_specs=P("x"))(x)


def _a2a_loss(lib, f, x):
    y = f(x)
    w = np.linspace(-1, 2, y.size, dtype=np.float32).reshape(y.shape)
    return (y * w).sum()


@pytest.mark.parametrize("case", [(0, 0, False), (0, 0, True), (0, 1, True), (1, 0, True)],
                         ids=str)
def test_grad_of_all_to_all_matches_jax(case):
    s, c, tiled = case
    x = A2A_CASES[case]
    x = x / x.size
    ours, theirs = pair((8,), ("x",))
    f = shard_map(lambda b: autodidax.lax.all_to_all(ajnp.sin(b), "x", s, c, tiled=tiled),
                  mesh=ours, in_specs=P("x"), out_specs=P("x"))
    g = jax.shard_map(lambda b: jax.lax.all_to_all(jax.numpy.sin(b), "x", s, c, tiled=tiled),
                      mesh=theirs, in_specs=JP("x"), out_specs=JP("x"), check_vma=False)
    want = jax.grad(lambda v: _a2a_loss(jax, g, v))(x)
    got = autodidax.grad(lambda v: _a2a_loss(autodidax, f, v))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)
    got = autodidax.jit(autodidax.grad(lambda v: _a2a_loss(autodidax, f, v)))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", [(0, 1), (1, 0)], ids=str)
def test_grad_of_untiled_all_to_all_with_two_axes(case):
    # JAX 0.10.2 fails here ("Expected cotangent type float32[8,3,1] but got float32[8,1,3]"):
    # its transpose re-applies the untiled wrapper to the primitive's operand. The same
    # computation, written with the tiled all_to_all on the block with the new axis inserted,
    # is JAX's reference.
    s, c = case
    x = A2A_CASES[(s, c, False)]
    x = np.linspace(-1, 1, x.size, dtype=np.float32).reshape(x.shape)
    ours, theirs = pair((8,), ("x",))
    if case == (0, 1):
        ref = lambda b: jax.lax.all_to_all(b[:, :, None], "x", 0, 2, tiled=True)[0]  # noqa
    else:
        ref = lambda b: jax.lax.all_to_all(b[None], "x", 2, 0, tiled=True)[:, :, 0]  # noqa
    f = shard_map(lambda b: autodidax.lax.all_to_all(b * b, "x", s, c), mesh=ours,
                  in_specs=P("x"), out_specs=P("x"))
    g = jax.shard_map(lambda b: ref(b * b), mesh=theirs, in_specs=JP("x"), out_specs=JP("x"),
                      check_vma=False)
    np.testing.assert_array_equal(np.asarray(f(x)), np.asarray(g(x)))
    want = jax.grad(lambda v: _a2a_loss(jax, g, v))(x)
    got = autodidax.grad(lambda v: _a2a_loss(autodidax, f, v))(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


@pytest.mark.parametrize("case", [(0, 0, False), (0, 1, False), (1, 0, False), (0, 0, True),
                                  (0, 1, True), (1, 0, True), (1, 1, True)], ids=str)
def test_all_to_all_under_vmap_matches_jax(case):
    s, c, tiled = case
    x = np.arange(4 * 8 * 4, dtype=np.float32).reshape(4, 8, 4)
    if not tiled:
        x = x[:, :4] if s == 0 else x[:, :3]
    for in_axes in (0, 1):
        xi = np.moveaxis(x, 0, in_axes)
        mine = autodidax.vmap(lambda v: autodidax.lax.all_to_all(v, "i", s, c, tiled=tiled),
                              in_axes=in_axes, axis_name="i")(xi)
        want = jax.vmap(lambda v: jax.lax.all_to_all(v, "i", s, c, tiled=tiled),
                        in_axes=in_axes, axis_name="i")(xi)
        np.testing.assert_array_equal(np.asarray(mine), np.asarray(want))
    # Not mapped along the axis: every example holds the same value. JAX 0.10.2 broadcasts it
    # wrongly here (to shape (4, 8, 4, 8, 4)); the reference maps the repeated value instead.
    mine = autodidax.vmap(lambda v: autodidax.lax.all_to_all(x[0], "i", s, c, tiled=tiled),
                          axis_name="i")(x)
    want = jax.vmap(lambda v: jax.lax.all_to_all(v, "i", s, c, tiled=tiled),
                    axis_name="i")(np.broadcast_to(x[0], x.shape))
    np.testing.assert_array_equal(np.asarray(mine), np.asarray(want))


def test_vmap_of_shard_map_with_all_to_all_matches_jax():
    ours, theirs = pair((8,), ("x",))
    f = shard_map(lambda b: autodidax.lax.all_to_all(b, "x", 0, 1, tiled=True), mesh=ours,
                  in_specs=P("x"), out_specs=P("x"))
    g = jax.shard_map(lambda b: jax.lax.all_to_all(b, "x", 0, 1, tiled=True), mesh=theirs,
                      in_specs=JP("x"), out_specs=JP("x"), check_vma=False)
    xs = np.arange(2 * 64 * 3, dtype=np.float32).reshape(2, 64, 3)
    np.testing.assert_array_equal(np.asarray(autodidax.vmap(f)(xs)), np.asarray(jax.vmap(g)(xs)))
    np.testing.assert_array_equal(np.asarray(autodidax.vmap(f, in_axes=2)(xs.transpose(1, 2, 0))),
                                  np.asarray(jax.vmap(g, in_axes=2)(xs.transpose(1, 2, 0))))


def test_all_to_all_negative_axes_count_from_the_end():
    # JAX 0.10.2 does not canonicalize them (it fails, or reshapes wrongly); we do.
    x = np.arange(4 * 8 * 4, dtype=np.float32).reshape(4, 8, 4)
    mine = autodidax.vmap(lambda v: autodidax.lax.all_to_all(v, "i", -1, -2, tiled=True),
                          axis_name="i")(x)
    want = jax.vmap(lambda v: jax.lax.all_to_all(v, "i", 1, 0, tiled=True), axis_name="i")(x)
    np.testing.assert_array_equal(np.asarray(mine), np.asarray(want))
    with pytest.raises(ValueError, match="split_axis 2 is out of bounds"):
        autodidax.vmap(lambda v: autodidax.lax.all_to_all(v, "i", 2, 0), axis_name="i")(x)
    for lib in (autodidax, jax):                   # outside any mapping, the name is unbound
        with pytest.raises(NameError, match="unbound axis name"):
            lib.lax.all_to_all(x, "i", 0, 0, tiled=True)
