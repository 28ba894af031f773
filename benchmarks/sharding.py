"""Chapter 16 against JAX, in one run, each with 8 simulated CPU devices: a cache-hit call of a
`jit` whose arguments are split over the devices (laid out by the arrays themselves, and by
`in_shardings` and `out_shardings`), and `device_put` of a host array over the 8 devices (split
by rows over a mesh of 8, and over a 4 by 2 mesh, where each part has two replicas), for a large
array (the copying counts) and a small one (the Python around it counts).

Both libraries run the same partitioned XLA program, so the call measures the Python around
`execute_sharded`; the floor row is that raw call on our executable, nothing around it. On a
small machine the 8 simulated devices take most of the time, even for small arrays. The host
arrays of `device_put` are NumPy's own (not 64-byte aligned), so JAX copies them as we do:
neither shares memory with the caller. Each figure is the median of several runs, the two
libraries taking turns so that both see the same load on the machine.
"""
import os
import statistics
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh as JMesh  # noqa: E402
from jax.sharding import NamedSharding as JNamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as JP  # noqa: E402

import autodidax  # noqa: E402
from autodidax.sharding import Mesh, NamedSharding, P  # noqa: E402
from turns import per_call  # noqa: E402

# Before either library makes its CPU client.
jax.config.update("jax_num_cpu_devices", 8)
autodidax.config.update("jax_num_cpu_devices", 8)


def compare(runs: dict, calls: int, repeats=9) -> dict:
    """The median seconds per call of each of `runs`, taking turns, `repeats` times."""
    for run in runs.values():
        per_call(run, 2, warm=False)                            # compile, warm up
    times = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            times[name].append(per_call(run, calls, warm=False))
    return {name: statistics.median(t) for name, t in times.items()}


def jit_calls(lib, mesh_cls, sharding_cls, spec):
    """Two cache-hit calls of `x * y + 1` on f32[8192,128] split by rows over 8 devices (by
    the arrays' layouts; by in_shardings and out_shardings), and what the floor needs."""
    mesh = mesh_cls(np.array(lib.devices()), ("x",))
    s = sharding_cls(mesh, spec)
    rng = np.random.default_rng(0)
    x = lib.device_put(rng.random((8192, 128), dtype=np.float32), s)
    y = lib.device_put(rng.random((8192, 128), dtype=np.float32), s)
    by_arrays = lib.jit(lambda x, y: x * y + 1)
    given = lib.jit(lambda x, y: x * y + 1, in_shardings=(s, s), out_shardings=s)
    assert by_arrays(x, y).sharding == s and given(x, y).sharding == s
    return lambda: by_arrays(x, y), lambda: given(x, y), (by_arrays, x, y)


def floor(by_arrays, x, y):
    """The raw PJRT call of our compiled program: no checks, no wrapping of the results."""
    exe = next(iter(by_arrays._cache.values())).executable
    loaded, handlers, bufs = exe.loaded, exe._handlers, [x._buf, y._buf]
    return lambda: loaded.execute_sharded(bufs).consume_with_handlers(handlers)


def main():
    rows = []
    ours_plain, ours_given, (f, x, y) = jit_calls(autodidax, Mesh, NamedSharding, P("x"))
    jax_plain, jax_given, _ = jit_calls(jax, JMesh, JNamedSharding, JP("x"))
    t = compare({"ours": ours_plain, "jax": jax_plain, "floor": floor(f, x, y),
                 "ours given": ours_given, "jax given": jax_given}, calls=500)
    rows.append(("jit call, the arrays' layouts", t["ours"], t["jax"], 1.5))
    rows.append(("jit call, in/out_shardings given", t["ours given"], t["jax given"], 1.5))
    rows.append(("  floor: raw execute_sharded", t["floor"], t["jax"], None))

    for shape, calls in [((8192, 1024), 10), ((64, 128), 500)]:     # 32 MiB, and 32 KiB
        host = np.random.default_rng(0).random(shape, dtype=np.float32)
        kind = f"f32[{shape[0]},{shape[1]}]"
        for label, mesh_shape, names in [("P('x') on 8", (8,), ("x",)),
                                         ("P('x') on 4x2, replicas", (4, 2), ("x", "y"))]:
            ours_s = NamedSharding(Mesh(np.array(autodidax.devices()).reshape(mesh_shape), names),
                                   P("x"))
            jax_s = JNamedSharding(JMesh(np.array(jax.devices()).reshape(mesh_shape), names),
                                   JP("x"))
            runs = {"ours": lambda: autodidax.device_put(host, ours_s),
                    "jax": lambda: jax.device_put(host, jax_s)}
            if len(mesh_shape) == 1:
                runs["copy"] = host.copy
            t = compare(runs, calls)
            rows.append((f"device_put {kind}, {label}", t["ours"], t["jax"], 1.2))
            if "copy" in t:
                rows.append(("  for scale: NumPy copies it once", t["copy"], t["jax"], None))

    print(f"{'':52} {'autodidax':>10} {'JAX':>10} {'ratio':>6} {'target':>7}")
    for name, ours, theirs, target in rows:
        ratio = ours / theirs
        verdict = "" if target is None else \
            f"{'<=' + str(target):>7} {'met' if ratio <= target else 'NOT met'}"
        print(f"{name:52} {_fmt(ours):>10} {_fmt(theirs):>10} {ratio:>6.2f} {verdict}")


def _fmt(seconds):
    return f"{seconds * 1e6:.1f}us" if seconds < 1e-3 else f"{seconds * 1e3:.2f}ms"


if __name__ == "__main__":
    sys.exit(main())
