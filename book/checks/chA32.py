"""Checks of appendix A32's exercises (chapters/A32_debugger.md): each takes the notebook's
namespace."""
import numpy as np


def _with_debugger(name, fn, run):
    """Run `run()` with `fn` in the package's table of debuggers as `name`, then remove it."""
    from autodidax import debugger
    debugger.debuggers.pop(name, None)
    debugger.register_debugger(name, fn, -2)
    try:
        return run()
    finally:
        debugger.debuggers.pop(name, None)


def check_recording_debugger(nb):
    """1. `recording_debugger`: the array locals of the innermost frame, as NumPy arrays, once
    per stop, under jit and vmap."""
    from autodidax.debugger import DebuggerFrame
    jax, jnp, record = nb["jax"], nb["jnp"], nb["recording_debugger"]
    log = []
    frame = DebuggerFrame("f.py", {"a": jnp.ones(2), "k": 1}, {}, None, [], 1, None)
    record([frame], None, log=log)      # called by hand first, on one frame
    assert len(log) == 1 and isinstance(log[0], dict) and set(log[0]) == {"a"}, \
        f"on one frame with locals a (an array) and k (an int), the log gets {{'a': ...}}; " \
        f"got {log!r}"
    log.clear()

    def f(x):
        y = jnp.sin(x)
        n = 3
        jax.debug.breakpoint(backend="record", log=log)
        return y * n

    def outer(x):
        w = x + 1
        return f(w)

    def run():
        jax.jit(outer)(np.float32(2.0))
        assert len(log) == 1, f"jit(outer) stops once: one entry in the log, got {len(log)}"
        entry = log[0]
        assert isinstance(entry, dict) and set(entry) == {"x", "y"}, \
            "the entry holds the locals of the innermost frame (f's, where the breakpoint is) " \
            f"that are arrays: x and y (not n, an int, nor outer's w); got {entry!r}"
        assert all(type(v) is np.ndarray for v in entry.values()), \
            "each value is a NumPy array (np.asarray), got " \
            f"{sorted(type(v).__name__ for v in entry.values())}"
        assert np.allclose([entry["x"], entry["y"]], [3.0, np.sin(3.0)]), \
            f"under jit(outer)(2.0), x is 3.0 and y sin(3.0); got {entry}"
        log.clear()
        jax.vmap(outer)(np.arange(3.0, dtype=np.float32))
        assert len(log) == 3, f"vmap over 3 elements stops 3 times: got {len(log)} entries"
        got = [float(e["y"]) for e in log]
        assert np.allclose(got, np.sin([1.0, 2.0, 3.0])), \
            f"under vmap each entry holds its element: y = sin(1), sin(2), sin(3); got {got}"
    _with_debugger("record", record, run)


def check_breakpoint_if_nonfinite(nb):
    """2. `breakpoint_if_nonfinite`: stops where a value is NaN or infinite, not elsewhere,
    under jit and eagerly, with the keyword arguments passed on."""
    jax, jnp, stop_if = nb["jax"], nb["jnp"], nb["breakpoint_if_nonfinite"]
    stops = []

    def count(frames, thread_id, *, seen):
        seen.append(len(frames))

    def f(x):
        z = x * 2
        stop_if(z, backend="count", seen=stops)
        return z

    def run():
        jf = jax.jit(f)
        jf(np.array([1.0, 2.0], np.float32))
        assert not stops, "no stop where every value is finite (jit of [1., 2.])"
        jf(np.array([1.0, np.nan], np.float32))
        assert len(stops) == 1, f"one stop for a NaN under jit, got {len(stops)}"
        jf(np.array([np.inf, 1.0], np.float32))
        assert len(stops) == 2, f"one stop for an infinite value under jit, got {len(stops) - 1}"
        f(np.array([1.0, -np.inf], np.float32))
        assert len(stops) == 3, f"one stop for an infinite value eagerly, got {len(stops) - 2}"
        f(np.array([3.0], np.float32))
        assert len(stops) == 3, "no stop where every value is finite (eagerly, [3.])"
    _with_debugger("count", count, run)
