"""Checks of chapter 16's exercises (chapters/16_sharding.md): each takes the notebook's
namespace."""
import re

import numpy as np

import autodidax as jax
from book.checks.common import equations

def _sharding_names(nb):
    """The notebook's own Mesh, NamedSharding, P and shard_map (its export cells ran again)."""
    return nb["Mesh"], nb["NamedSharding"], nb["P"], nb["shard_map"]


COLLECTIVES = ("all-reduce", "all-gather", "all-to-all", "reduce-scatter", "collective-permute")


def collectives_in(hlo_text: str) -> dict:
    """How many of each collective a compiled program's HLO has."""
    found = re.findall(r"\b(" + "|".join(COLLECTIVES) + r")(?:-start)?\(", hlo_text)
    return {op: found.count(op) for op in COLLECTIVES if op in found}



def check_mlp_specs(nb):
    """1. One all-reduce for a two-layer network: the specs, by the collectives XLA makes."""
    Mesh, NamedSharding, P, shard_map = _sharding_names(nb)
    mlp_specs, mlp, mesh8 = nb["mlp_specs"], nb["mlp"], nb["mesh8"]
    spec_x, spec_w1, spec_w2 = mlp_specs()
    for name, spec in [("w1", spec_w1), ("w2", spec_w2)]:
        assert not NamedSharding(mesh8, spec).is_fully_replicated, \
            f"{name} should be split over the 8 devices, an eighth on each; its spec is {spec}"
    rng = np.random.default_rng(0)
    x_w1_w2 = [rng.standard_normal(s).astype(np.float32) for s in [(16, 32), (32, 64), (64, 32)]]
    sharded = jax.jit(mlp, in_shardings=tuple(NamedSharding(mesh8, s) for s in mlp_specs()),
                      out_shardings=NamedSharding(mesh8, P()))
    found = collectives_in(sharded.lower(*x_w1_w2).compile().as_text())
    assert found == {"all-reduce": 1}, f"with the specs {mlp_specs()} the partitioned program " \
        f"has the collectives {found}; it should have one all-reduce and nothing else"
    np.testing.assert_allclose(sharded(*x_w1_w2), mlp(*x_w1_w2), rtol=1e-4, atol=1e-4)


def check_sharded_logsumexp(nb):
    """2. A logsumexp over split columns: values, stability, and the collectives it uses."""
    Mesh, NamedSharding, P, shard_map = _sharding_names(nb)
    sharded_logsumexp, mesh8 = nb["sharded_logsumexp"], nb["mesh8"]
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 32)).astype(np.float32) * 3
    a += np.float32([[0.0], [50.0], [-1000.0], [1000.0]])         # some rows far from 0
    want = np.logaddexp.reduce(a.astype(np.float64), axis=1)
    lse = shard_map(lambda b: sharded_logsumexp(b, "x"), mesh=mesh8, in_specs=P(None, "x"),
                    out_specs=P())
    got = np.asarray(jax.jit(lse)(a))
    assert got.shape == (4,), f"one value per row: the result should have shape (4,), got " \
        f"{got.shape}"
    assert np.allclose(got, want, rtol=1e-5), \
        f"over columns split on 8 devices, the logsumexp of the rows should be {want}, got {got}"
    eqns = list(equations(jax.make_jaxpr(lse)(a).jaxpr))
    assert not {"all_gather", "all_to_all"} & {e.primitive.name for e in eqns}, \
        "sharded_logsumexp moves the matrix between devices: reduce with pmax and psum"
    blocks = [(e.primitive.name, v.aval.shape) for e in eqns if e.primitive.name in ("psum", "pmax")
              for v in e.invars if v.aval.shape != (4,)]
    assert not blocks, f"sharded_logsumexp applies {blocks[0][0]} to an array of shape " \
        f"{blocks[0][1]}: reduce per-row values, of shape (4,) here, not the block"
    mesh42 = Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))   # rows over x, columns y
    rows = shard_map(lambda b: sharded_logsumexp(b, "y"), mesh=mesh42, in_specs=P("x", "y"),
                     out_specs=P("x"))
    a8 = rng.standard_normal((8, 6)).astype(np.float32)
    got = np.asarray(jax.jit(rows)(a8))
    assert np.allclose(got, np.logaddexp.reduce(a8.astype(np.float64), axis=1), rtol=1e-5), \
        "on a 4 by 2 mesh, rows split over 'x' and columns over 'y', sharded_logsumexp(b, " \
        f"'y') should reduce over 'y' only; got {got}"
