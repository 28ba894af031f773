"""Checks of appendix A11's exercises (chapters/A11_collectives_on_devices.md): each takes the
notebook's namespace."""
import numpy as np

import autodidax as jax
from autodidax.jaxpr import ClosedJaxpr, Jaxpr
from book.checks.common import equations



def primitives_in(jaxpr) -> list:
    """The names of the primitives of a jaxpr and of the jaxprs in its equations' parameters."""
    return [eqn.primitive.name for eqn in equations(jaxpr)]


def ppermutes_in(jaxpr, times=1) -> list:
    """(perm, numbers sent per device) for each ppermute a jaxpr runs, loops unrolled."""
    found = []
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "ppermute":
            found += [(eqn.params["perm"], int(np.prod(eqn.invars[0].aval.shape)))] * times
        if eqn.primitive.name == "while":
            assert "ppermute" not in primitives_in(eqn.params["body_jaxpr"].jaxpr), \
                "write the steps as a Python loop or a scan, not a while_loop"
        n = eqn.params.get("length", 1) if eqn.primitive.name == "scan" else 1
        for p in eqn.params.values():
            for inner in p if isinstance(p, (tuple, list)) else [p]:
                if isinstance(inner, (ClosedJaxpr, Jaxpr)):
                    found += ppermutes_in(getattr(inner, "jaxpr", inner), times * n)
    return found


def check_ring_psum(nb):
    """3. An all-reduce from ppermute: values, and a ring's ppermutes alone."""
    Mesh, P, shard_map = nb["Mesh"], nb["P"], nb["shard_map"]
    ring_psum, mesh8 = nb["ring_psum"], nb["mesh8"]
    rng = np.random.default_rng(0)
    cases = [(mesh8, "x", P("x"), (8 * 16, 3)),                    # 8 devices, blocks (16, 3)
             (Mesh(np.array(jax.devices()[:4]), ("x",)), "x", P("x"), (4 * 4, 2)),
             (Mesh(np.array(jax.devices()).reshape(2, 4), ("a", "b")), "b", P(("a", "b")),
              (8 * 8,))]
    for mesh, name, spec, shape in cases:
        xs = rng.standard_normal(shape).astype(np.float32)
        ring = shard_map(lambda b: ring_psum(b, name), mesh=mesh, in_specs=spec, out_specs=spec)
        n, others = mesh.shape[name], mesh.size // mesh.shape[name]
        blocks = xs.reshape((others, n, -1) + xs.shape[1:])          # [a, b]: device (a, b)'s
        want = np.broadcast_to(blocks.sum(1, keepdims=True), blocks.shape).reshape(xs.shape)
        got = np.asarray(jax.jit(ring)(xs))
        assert np.allclose(got, want, rtol=1e-5, atol=1e-5), \
            f"on {mesh}, ring_psum over {name!r} should equal psum over {name!r}: it differs " \
            f"in {np.sum(~np.isclose(got, want, rtol=1e-5, atol=1e-5))} of {got.size} numbers"
        jaxpr = jax.make_jaxpr(ring)(xs).jaxpr
        used = {p for p in primitives_in(jaxpr) if p in ("psum", "pmax", "pmin", "all_gather",
                                                          "reduce_scatter", "all_to_all")}
        assert not used, f"ring_psum uses {sorted(used)}: send with ppermute alone"
        sends = ppermutes_in(jaxpr)
        step = {(j, (j + 1) % n) for j in range(n)}
        for perm, _ in sends:
            assert set(perm) == step, \
                f"a ppermute with perm={perm} is not one step around the ring of {n}"
        sent, block = sum(size for _, size in sends), xs.size // mesh.size
        assert len(sends) == 2 * (n - 1) and sent == 2 * (n - 1) * block // n, \
            f"over {n} devices, each device sends {sent} numbers in {len(sends)} ppermutes; " \
            f"a ring sends {2 * (n - 1) * block // n}, one chunk of {block // n} in each " \
            f"of {2 * (n - 1)} steps"


def check_transpose_rows(nb):
    """2. A transpose over the devices: values, and one all_to_all, no all_gather."""
    Mesh, P, shard_map = nb["Mesh"], nb["P"], nb["shard_map"]
    transpose_rows = nb["transpose_rows"]
    rng = np.random.default_rng(0)
    for n, size in [(8, 16), (4, 4), (8, 8)]:
        mesh = Mesh(np.array(jax.devices()[:n]), ("x",))
        a = rng.standard_normal((size, size)).astype(np.float32)
        f = shard_map(lambda b: transpose_rows(b, "x"), mesh=mesh, in_specs=P("x"),
                      out_specs=P("x"))
        got = np.asarray(jax.jit(f)(a))
        assert got.shape == a.shape, f"over {n} devices, the result for a matrix of shape " \
            f"{a.shape} should have that shape, got {got.shape}"
        assert np.array_equal(got, a.T), f"over {n} devices, rows of {size // n} each, the " \
            f"result is not the transpose: it differs in {np.sum(got != a.T)} of {a.size} numbers"
        used = primitives_in(jax.make_jaxpr(f)(a).jaxpr)
        assert "all_gather" not in used, "transpose_rows gathers the matrix: use all_to_all"
        assert used.count("all_to_all") == 1, \
            f"transpose_rows uses all_to_all {used.count('all_to_all')} times: once is enough"
