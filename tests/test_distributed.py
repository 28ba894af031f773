"""Chapter 16, more than one process: `distributed.initialize` joins two processes of 4 CPU
devices each into one computation, each process passes only its own parts of the arrays, and a
`jit` all-reduces across the processes. The same worker program runs under the real JAX, and
the two must print the same. Single-process behaviour is checked against JAX in this process
(8 devices, conftest)."""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax
import numpy as np
import pytest

import autodidax
from autodidax.sharding import Mesh, NamedSharding, P

ROOT = Path(__file__).resolve().parent.parent
JP = jax.sharding.PartitionSpec

# One program for both libraries: `python worker.py autodidax|jax PORT PROCESS_ID`. It prints
# one line, "RESULT " and a JSON object of everything it saw.
WORKER = r'''
import json
import sys

import numpy as np

lib, port, me = sys.argv[1], sys.argv[2], int(sys.argv[3])
if lib == "jax":
    import jax
else:
    import autodidax as jax
Mesh, NamedSharding, P = jax.sharding.Mesh, jax.sharding.NamedSharding, jax.sharding.PartitionSpec
out = {}


def error_of(f, *args, **kwargs):
    try:
        f(*args, **kwargs)
    except Exception as e:
        return [type(e).__name__, str(e)]
    return None


init = jax.distributed.initialize
out["argument errors"] = [error_of(init, cluster_detection_method="deactivate", **kw) for kw in [
    dict(num_processes=2, process_id=0),
    dict(coordinator_address="127.0.0.1:1", process_id=0),
    dict(coordinator_address="127.0.0.1:1", num_processes=2),
    dict(coordinator_address="127.0.0.1:1", num_processes=2, process_id="0"),
    dict(coordinator_address="127.0.0.1:1", num_processes=2.0, process_id=0),
    dict(coordinator_address="127.0.0.1:1", num_processes=2, process_id=2),
    dict(coordinator_address="127.0.0.1:1", num_processes=2, process_id=-1)]]
out["initialized before"] = jax.distributed.is_initialized()

jax.config.update("jax_num_cpu_devices", 4)
out["initialize returns"] = repr(init(f"127.0.0.1:{port}", num_processes=2, process_id=me,
                                      initialization_timeout=30))
out["second initialize"] = error_of(init, f"127.0.0.1:{port}", num_processes=2, process_id=me)


def listening(port):
    """The addresses at which a socket of this machine listens at `port` (/proc/net/tcp{,6})."""
    found = []
    for name in ("tcp", "tcp6"):
        with open(f"/proc/net/{name}") as f:
            for line in f.readlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                addr, at = local.split(":")
                if state == "0A" and int(at, 16) == int(port):          # 0A: LISTEN
                    found.append("127.0.0.1" if addr.endswith("0100007F")   # (or IPv4 in 6)
                                 else "::" if not int(addr, 16) else addr)
    return sorted(found)


out["listening at"] = listening(port) if me == 0 else None
out["initialized"] = jax.distributed.is_initialized()
out["process_index"] = jax.process_index()
out["process_count"] = jax.process_count()
out["devices"] = [[d.id, d.process_index] for d in jax.devices()]
out["local_devices"] = [d.id for d in jax.local_devices()]
out["other's devices"] = [d.id for d in jax.local_devices(process_index=1 - me)]
out["counts"] = [jax.device_count(), jax.local_device_count()]
out["unknown process"] = error_of(jax.local_devices, process_index=2)


def mine(sharding, shape):
    """This process's devices and their parts, in the sharding's order."""
    return [(d, index) for d, index in sharding.devices_indices_map(shape).items()
            if d.process_index == jax.process_index()]


def shards(x):
    return sorted([s.device.id, [list(i.indices(n)[:2]) for i, n in zip(s.index, x.shape)],
                   s.replica_id, np.asarray(s.data).tolist()] for s in x.addressable_shards)


full = np.arange(16, dtype=np.float32)[:, None] * np.float32([1, 10, 100])   # x[i] = [i, 10i, 100i]
mesh = Mesh(np.array(jax.devices()), ("x",))
rows, whole = NamedSharding(mesh, P("x")), NamedSharding(mesh, P())
parts = [jax.device_put(full[index], d) for d, index in mine(rows, full.shape)]
x = jax.make_array_from_single_device_arrays(full.shape, rows, parts)
out["from single-device arrays"] = [list(x.shape), str(x.dtype), shards(x)]
out["too few arrays"] = error_of(jax.make_array_from_single_device_arrays, full.shape, rows,
                                 parts[:3])
out["wrong shard shape"] = error_of(jax.make_array_from_single_device_arrays, (32, 3), rows,
                                    parts)[0]
f = jax.jit(lambda a: (a.sum(0), a * 2), out_shardings=(whole, rows))
total, twice = f(x)
out["all-reduce"] = "all-reduce(" in f.lower(x).compile().as_text()
out["total"] = np.asarray(total).tolist()
out["total shards"] = shards(total)
out["twice"] = shards(twice)
out["np.asarray(twice)"] = error_of(np.asarray, twice)
local = jax.make_array_from_process_local_data(rows, full[8 * me:8 * me + 8])
out["from local data"] = [list(local.shape), shards(local)]
out["local data sum"] = np.asarray(jax.jit(lambda a: a.sum(0), out_shardings=whole)(local)).tolist()

# A 2 by 4 mesh: along "x" the processes, along "y" each process's 4 devices.
grid = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
data = np.arange(16 * 8, dtype=np.float32).reshape(16, 8)
cases = {"P('x')": (P("x"), data[8 * me:8 * me + 8]), "P('y')": (P("y"), data),
         "P(None, 'x')": (P(None, "x"), data[:, 4 * me:4 * me + 4]),
         "P('y', 'x')": (P("y", "x"), data[:, 4 * me:4 * me + 4]),
         "P(('x', 'y'))": (P(("x", "y")), data[8 * me:8 * me + 8])}
for name, (spec, block) in cases.items():
    s = NamedSharding(grid, spec)
    a = jax.make_array_from_process_local_data(s, block)
    g = jax.jit(lambda a: (a.sum(0), (a * a).sum(1)), out_shardings=(NamedSharding(grid, P()),) * 2)
    out[name] = [list(a.shape), shards(a), [np.asarray(r).tolist() for r in g(a)]]
out["wrong local data"] = error_of(jax.make_array_from_process_local_data,
                                   NamedSharding(grid, P("x")), data[:4], (16, 8))
# Process 0 holds columns 0, 1, 2 of this mesh and process 1 columns 1, 2, 3: uneven.
d = jax.devices()
uneven = Mesh(np.array([d[0], d[1], d[2], d[4], d[3], d[5], d[6], d[7]]).reshape(2, 4), ("x", "y"))
out["uneven"] = error_of(jax.make_array_from_process_local_data, NamedSharding(uneven, P("y")),
                         data[:12])

del x, parts, total, twice, local, a
jax.distributed.shutdown()
out["initialized after"] = jax.distributed.is_initialized()
out["jax imported"] = "jax" in sys.modules
sys.stdout.write("RESULT " + json.dumps(out) + "\n")
'''


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_two(lib: str, timeout: float = 120) -> list[dict]:
    """What each of the two processes of WORKER printed, in process order. Both are killed as
    soon as one fails, or at `timeout`."""
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="1", JAX_PLATFORMS="cpu")
    env.pop("JAX_COORDINATOR_ADDRESS", None)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "worker.py")
        Path(path).write_text(WORKER)
        files = [tuple(open(os.path.join(tmp, f"{kind}{i}"), "w+") for kind in ("out", "err"))
                 for i in range(2)]
        procs = [subprocess.Popen([sys.executable, path, lib, str(port), str(i)], env=env,
                                  stdout=o, stderr=e, cwd=tmp) for i, (o, e) in enumerate(files)]
        deadline = time.monotonic() + timeout
        try:
            while any(p.poll() is None for p in procs) and time.monotonic() < deadline:
                if any(p.poll() for p in procs):
                    break
                time.sleep(0.05)
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                p.wait()
        texts = []
        for pair in files:
            for f in pair:
                f.seek(0)
            texts.append(tuple(f.read() for f in pair))
            for f in pair:
                f.close()
    results = []
    for i, (p, (text, error)) in enumerate(zip(procs, texts)):
        assert p.returncode == 0, f"{lib} process {i} ended with {p.returncode}:\n{text}\n{error}"
        lines = [line for line in text.splitlines() if line.startswith("RESULT ")]
        assert len(lines) == 1, text
        results.append(json.loads(lines[0][7:]))
    return results


@pytest.fixture(scope="module")
def ours():
    return run_two("autodidax")


def _index_of(d: int) -> int:                      # global position of a device, by id
    return d if d < 2048 else 4 + d - 2048


def test_processes_and_devices(ours):
    for me, out in enumerate(ours):
        assert out["initialize returns"] == "None"
        assert out["initialized before"] is False and out["initialized"] is True
        assert out["initialized after"] is False
        assert out["process_index"] == me and out["process_count"] == 2
        assert out["devices"] == [[i, 0] for i in range(4)] + [[2048 + i, 1] for i in range(4)]
        assert out["local_devices"] == [2048 * me + i for i in range(4)]
        assert out["other's devices"] == [2048 * (1 - me) + i for i in range(4)]
        assert out["counts"] == [8, 4]
        assert out["unknown process"] == ["ValueError", "Unknown process_index 2"]
        assert out["second initialize"] == ["RuntimeError",
                                            "distributed.initialize should only be called once."]


def test_all_reduce_crosses_processes(ours):
    full = np.arange(16, dtype=np.float32)[:, None] * np.float32([1, 10, 100])
    for me, out in enumerate(ours):
        assert out["all-reduce"] is True
        assert out["total"] == full.sum(0).tolist() == [120.0, 1200.0, 12000.0]
        assert out["local data sum"] == full.sum(0).tolist()
        ids = [2048 * me + i for i in range(4)]
        assert out["total shards"] == [[d, [[0, 3]], i, full.sum(0).tolist()]
                                       for i, d in enumerate(ids, start=4 * me)]
        want = [[d, [[2 * _index_of(d), 2 * _index_of(d) + 2], [0, 3]], 0,
                 full[2 * _index_of(d):2 * _index_of(d) + 2].tolist()] for d in ids]
        assert out["from single-device arrays"] == [[16, 3], "float32", want]
        assert out["from local data"] == [[16, 3], want]
        assert out["twice"] == [[d, ix, 0, (2 * np.array(v, np.float32)).tolist()]
                                for d, ix, _, v in want]


def test_value_of_an_array_over_two_processes_is_refused(ours):
    for out in ours:
        kind, message = out["np.asarray(twice)"]
        assert kind == "RuntimeError"
        assert message.startswith("Fetching value for `jax.Array` that spans non-addressable")


def test_process_local_data_over_a_grid(ours):
    data = np.arange(16 * 8, dtype=np.float32).reshape(16, 8)
    for out in ours:
        for name in ["P('x')", "P('y')", "P(None, 'x')", "P('y', 'x')", "P(('x', 'y'))"]:
            shape, _, (sums, squares) = out[name]
            assert shape == [16, 8], name
            assert sums == data.sum(0).tolist() and squares == (data * data).sum(1).tolist(), name


def test_no_jax_in_the_workers(ours):
    assert [out["jax imported"] for out in ours] == [False, False]


@pytest.fixture(scope="module")
def theirs():
    return run_two("jax")


def test_two_processes_print_what_jax_prints(ours, theirs):
    for me, (mine, want) in enumerate(zip(ours, theirs)):
        assert want["jax imported"] is True
        for key in want:
            if key not in ("jax imported", "listening at"):
                assert mine[key] == want[key], (me, key)


def test_the_coordinator_listens_only_where_asked(ours, theirs):
    """Asked for 127.0.0.1:port, the coordination service listens there; JAX's on every
    address of the machine (appendix A7's Differences)."""
    assert ours[0]["listening at"] == ["127.0.0.1"]
    assert theirs[0]["listening at"] == ["::"]


# In this process: one process, 8 devices.

def test_initialize_after_the_backend_started_is_refused():
    autodidax.devices(), jax.devices()
    with pytest.raises(RuntimeError) as theirs:
        jax.distributed.initialize("127.0.0.1:1", num_processes=2, process_id=0)
    with pytest.raises(RuntimeError) as mine:
        autodidax.distributed.initialize("127.0.0.1:1", num_processes=2, process_id=0)
    assert str(mine.value) == str(theirs.value)
    assert autodidax.distributed.is_initialized() is jax.distributed.is_initialized() is False
    autodidax.distributed.shutdown()                    # nothing to shut down: does nothing
    import autodidax.distributed as d
    assert d is autodidax.distributed


def test_make_array_from_single_device_arrays_in_one_process():
    data = np.arange(64.0, dtype=np.float32).reshape(8, 8)
    ours_mesh = Mesh(np.array(autodidax.devices()).reshape(4, 2), ("x", "y"))
    their_mesh = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))
    for spec in [P("x"), P("x", "y"), P(None, "y"), P()]:
        s, t = NamedSharding(ours_mesh, spec), jax.sharding.NamedSharding(their_mesh, JP(*spec))
        parts = [autodidax.device_put(data[i], d) for d, i in s.devices_indices_map((8, 8)).items()]
        theirs = [jax.device_put(data[i], d) for d, i in t.devices_indices_map((8, 8)).items()]
        a = autodidax.make_array_from_single_device_arrays((8, 8), s, parts[::-1])
        b = jax.make_array_from_single_device_arrays((8, 8), t, theirs[::-1])
        np.testing.assert_array_equal(a, b)
        assert a.sharding == s and a.dtype == b.dtype
        assert [(x.device.id, x.index, x.replica_id) for x in a.addressable_shards] == \
            [(x.device.id, x.index, x.replica_id) for x in b.addressable_shards]
        for x, y in zip(a.addressable_shards, b.addressable_shards):
            np.testing.assert_array_equal(x.data, y.data)
    # the errors, in JAX's words
    rows = NamedSharding(Mesh(np.array(autodidax.devices()), ("x",)), P("x"))
    their_rows = jax.sharding.NamedSharding(jax.sharding.Mesh(np.array(jax.devices()), ("x",)),
                                            JP("x"))
    parts = [autodidax.device_put(data[i], d) for d, i in rows.devices_indices_map((8, 8)).items()]
    theirs = [jax.device_put(data[i], d) for d, i in their_rows.devices_indices_map((8, 8)).items()]
    for args_ours, args_theirs in [
            (((8, 8), rows, parts[:7]), ((8, 8), their_rows, theirs[:7])),
            (((8, 8), rows, parts[:7] + parts[:1]), ((8, 8), their_rows, theirs[:7] + theirs[:1])),
            (((8, 8), rows, []), ((8, 8), their_rows, [])),
            (((16, 8), rows, parts), ((16, 8), their_rows, theirs))]:
        with pytest.raises(ValueError) as want:
            jax.make_array_from_single_device_arrays(*args_theirs)
        with pytest.raises(ValueError) as got:
            autodidax.make_array_from_single_device_arrays(*args_ours)
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError) as want:
        jax.make_array_from_single_device_arrays((8, 8), their_rows, theirs, dtype=np.int32)
    with pytest.raises(ValueError) as got:
        autodidax.make_array_from_single_device_arrays((8, 8), rows, parts, dtype=np.int32)
    assert str(got.value) == str(want.value)
    with pytest.raises(TypeError, match="takes arrays each on one device"):
        autodidax.make_array_from_single_device_arrays((8, 8), rows, [data[i] for i in range(8)])


def test_make_array_from_process_local_data_in_one_process():
    data = np.arange(64.0, dtype=np.float32).reshape(8, 8)
    rows = NamedSharding(Mesh(np.array(autodidax.devices()), ("x",)), P("x"))
    their_rows = jax.sharding.NamedSharding(jax.sharding.Mesh(np.array(jax.devices()), ("x",)),
                                            JP("x"))
    a = autodidax.make_array_from_process_local_data(rows, data)
    b = jax.make_array_from_process_local_data(their_rows, data)
    np.testing.assert_array_equal(a, b)
    assert a.sharding == rows
    tree = autodidax.make_array_from_process_local_data(rows, {"a": data, "b": data + 1}, (8, 8))
    np.testing.assert_array_equal(tree["b"], data + 1)
    with pytest.raises(ValueError) as want:
        jax.make_array_from_process_local_data(their_rows, data, (16, 8))
    with pytest.raises(ValueError) as got:
        autodidax.make_array_from_process_local_data(rows, data, (16, 8))
    assert str(got.value) == str(want.value)
