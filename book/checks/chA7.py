"""Checks of appendix A7's exercises (chapters/A7_processes.md): each takes the notebook's
namespace."""
import numpy as np


def _process_of(device) -> int:
    """Devices 0 to 3 are process 0's, devices 4 to 7 process 1's."""
    return device.id // 4


def _meshes(nb):
    jax, Mesh = nb["jax"], nb["Mesh"]
    devices = np.array(jax.devices()[:8])
    return Mesh(devices, ("x",)), Mesh(devices.reshape(4, 2), ("x", "y"))


def check_process_rows(nb):
    """1. Which rows does each process hold?: the checks of `process_rows`."""
    process_rows, NamedSharding, P = nb["process_rows"], nb["NamedSharding"], nb["P"]
    line, grid = _meshes(nb)
    cases = [
        ("P('x') over 8 devices in a line, 16 rows", NamedSharding(line, P("x")), 16,
         {0: [(0, 2), (2, 4), (4, 6), (6, 8)], 1: [(8, 10), (10, 12), (12, 14), (14, 16)]}),
        ("P() (replicated), 16 rows", NamedSharding(line, P()), 16, {0: [(0, 16)], 1: [(0, 16)]}),
        ("P('x') over a 4 by 2 mesh (each part on two devices of one process), 16 rows",
         NamedSharding(grid, P("x")), 16, {0: [(0, 4), (4, 8)], 1: [(8, 12), (12, 16)]}),
        ("P('y') over a 4 by 2 mesh (each process holds both halves), 8 rows",
         NamedSharding(grid, P("y")), 8, {0: [(0, 4), (4, 8)], 1: [(0, 4), (4, 8)]}),
    ]
    for what, sharding, n, want in cases:
        got = process_rows(sharding, n, _process_of)
        assert isinstance(got, dict) and sorted(got) == [0, 1], \
            f"{what}: expected a dict with the processes 0 and 1 as keys, got {got!r}"
        assert {p: list(map(tuple, rows)) for p, rows in got.items()} == want, \
            f"{what}: expected {want}, got {got}"


def check_global_shape(nb):
    """2. The global shape from the local one: the checks of `global_shape`."""
    global_shape, NamedSharding, P = nb["global_shape"], nb["NamedSharding"], nb["P"]
    line, grid = _meshes(nb)
    cases = [
        ("P('x') over 8 devices, each process holding 8 of the rows", NamedSharding(line, P("x")),
         (8, 3), (16, 3)),
        ("P() (replicated): each process holds all of it", NamedSharding(line, P()),
         (16, 3), (16, 3)),
        ("P('y', 'x') over a 4 by 2 mesh: both processes hold both halves of dimension 0, and "
         "half of dimension 1", NamedSharding(grid, P("y", "x")), (16, 4), (16, 8)),
        ("P(('x', 'y')) over a 4 by 2 mesh, a vector of 4 per process",
         NamedSharding(grid, P(("x", "y"))), (4,), (8,)),
    ]
    for what, sharding, local, want in cases:
        got = global_shape(sharding, local, _process_of)
        assert tuple(got) == want, f"{what}: the local shape {local} should give the global " \
                                   f"shape {want}, got {tuple(got)}"
