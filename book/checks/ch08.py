"""Checks of chapter 8's exercises (chapters/08_jit.md): each takes the notebook's namespace."""
import numpy as np

import autodidax.numpy as jnp
from autodidax import runtime
from autodidax.jaxpr import jaxpr_as_fun
from autodidax.jit import jit as package_jit
from book.exercises import watch

traced = []


def affine(x):
    """Reads the globals `gain` and `shift` of this module, which the check sets."""
    traced.append(x.shape)           # runs only when jit traces
    return x * gain + shift


def check_jit_reading(nb):
    """1. A jit that sees its globals: the checks of `jit_reading`."""
    global gain, shift
    jit_reading, Array = nb["jit_reading"], nb["Array"]
    gain, shift = 2.0, 1.0
    traced.clear()
    g = jit_reading(affine, "gain", "shift")
    x3 = jnp.ones(3)

    def expect(x, value, traces, when):
        got = g(x)
        assert np.allclose(np.asarray(got), value), \
            f"{when}, g(x) should be {value}, got {np.asarray(got)}"
        assert len(traced) == traces, \
            f"{when}, f should have been traced {traces} times in all, was traced {len(traced)}"

    expect(x3, 3.0, 1, "at the first call")
    with runtime.eager_mode("numpy"):    # f's primitives, evaluated, would give host arrays
        assert isinstance(g(x3), Array), "g should run a compiled program and give a device array"
    expect(x3, 3.0, 1, "called again with the same globals and types")
    gain = 5.0
    expect(x3, 6.0, 2, "after gain = 5.0, a value not seen before")
    gain -= 3.0                      # 2.0 again, equal to the first value, not the same object
    expect(x3, 3.0, 2, "with gain back to 2.0, a value it was traced for")
    shift = -1.0
    expect(x3, 1.0, 3, "after shift = -1.0")
    expect(jnp.ones(4), 1.0, 4, "for an f32[4], a new type")


def check_bucketed(nb):
    """2. Fewer compiles for inputs of many lengths: the checks of `bucketed`."""
    bucketed, jit = nb["bucketed"], nb["jit"]
    traces = []

    def rowwise(x):
        traces.append(x.shape)          # runs only when jit traces
        return jnp.tanh(x) * 2.0 + 1.0

    fast = bucketed(rowwise)
    for n in range(1, 21):
        x = np.linspace(-1.0, 1.0, 3 * n, dtype=np.float32).reshape(n, 3)
        with watch(jit, package_jit) as made:
            got = fast(x)
        assert not made, f"length {n}: the call made a new jit: make one, once, in bucketed"
        assert np.shape(got) == (n, 3), f"length {n}: expected shape {(n, 3)}, got {np.shape(got)}"
        np.testing.assert_allclose(np.asarray(got), np.tanh(x) * 2.0 + 1.0, rtol=1e-5, atol=1e-6,
                                   err_msg=f"length {n}: wrong rows")
    shapes = sorted({s[0] for s in traces})
    assert shapes == [1, 2, 4, 8, 16, 32], (
        f"lengths 1 to 20 should trace for the buckets 1, 2, 4, 8, 16 and 32 only, once each; "
        f"traced for {[s[0] for s in traces]}")
    assert len(traces) == 6, f"each bucket should trace once; traced {len(traces)} times"

    counts = bucketed(lambda c: c * 3 + 1)       # on vectors of integers
    for n in (3, 5):
        c = np.arange(n, dtype=np.int32)
        try:
            got = counts(c)
        except Exception as e:
            raise AssertionError(f"bucketed(f) on an int32 vector of length {n} raised "
                                 f"{type(e).__name__}: {e}: pad along axis 0, whatever x's rank"
                                 ) from None
        assert np.shape(got) == (n,) and np.asarray(got).dtype == np.int32, (
            f"on an int32 vector of length {n}, c -> c * 3 + 1 should give an int32 vector of "
            f"shape {(n,)}, got {np.asarray(got).dtype} of shape {np.shape(got)}: pad with zeros "
            "of x's dtype, along axis 0 whatever x's rank")
        np.testing.assert_array_equal(np.asarray(got), c * 3 + 1, err_msg=f"length {n}: wrong")


rng = np.random.default_rng(1)
A, B = (rng.standard_normal((256, 256)).astype(np.float32) for _ in range(2))   # 256 KiB each
small = np.float32([1, 2, 3, 4])                          # 16 bytes
edge = np.full(32, 0.5, np.float16)                       # 64 bytes, of float16s
mid = np.linspace(0, 1, 32, dtype=np.float32)             # 128 bytes


def closing(v):                                           # closes over all five
    head = v[:32] * edge + jnp.concatenate([small] * 8)
    return (A @ v)[:32] + mid - 2.0 * (B @ v)[:32] + head  # A, mid, B: not in order of size


def matvec_with(M):
    def matvec(v):
        return M @ v
    return matvec


def check_hoisting_jit(nb):
    """3. Large constants as arguments: the checks of `hoist_constants` and `hoisting_jit`."""
    hoist_constants, hoisting_jit, jit, Array = (nb["hoist_constants"], nb["hoisting_jit"],
                                                 nb["jit"], nb["Array"])
    v = jnp.asarray(np.linspace(-1, 1, 256, dtype=np.float32))
    vn = np.asarray(v)
    head = vn[:32] * edge + np.tile(small, 8)
    want = (A @ vn)[:32] + mid - 2.0 * (B @ vn)[:32] + head
    closed = jit(closing).trace(v).jaxpr
    size = lambda c: f"{np.asarray(c).nbytes} bytes"

    def same(a, b):                  # the same constant, perhaps converted: by type and value
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    new, values = hoist_constants(closed, 64)
    for c, what in [(small, "16 bytes"), (edge, "64 bytes (32 float16s: max_bytes itself)")]:
        assert any(same(k, c) for k in new.consts), \
            f"the constant of {what} should stay a constant of the program (max_bytes=64)"
    for c, what in [(mid, "128 bytes (32 float32s)"), (A, "256 KiB"), (B, "256 KiB")]:
        assert not any(same(k, c) for k in new.consts), \
            f"the constant of {what} should be made an input: it has more than max_bytes=64 bytes"
    order = [c for c in closed.consts if np.asarray(c).nbytes > 64]
    assert len(values) == 3 and all(same(a, b) for a, b in zip(values, order)), \
        "values should be the three large constants, in the order of closed.jaxpr.constvars " \
        f"({', '.join(map(size, order))}); got {', '.join(map(size, values))}"
    types = [x.aval.str_short() for x in new.jaxpr.invars]
    assert types == ["f32[256,256]", "f32[32]", "f32[256,256]", "f32[256]"], \
        "the inputs of hoisted_closed should be the constants made inputs, first, in the order " \
        f"of closed.jaxpr.constvars, then v: f32[256,256] f32[32] f32[256,256] f32[256]; got " \
        f"{' '.join(types)}"
    np.testing.assert_allclose(np.asarray(jaxpr_as_fun(new)(*values, v)[0]), want, rtol=1e-4,
                               atol=1e-3, err_msg="hoisted_closed computes something else")
    try:
        with runtime.eager_mode("numpy"):    # evaluated op by op, a host array
            got = hoisting_jit(closing, 64)(v)
    except Exception as e:
        why = " ".join(str(e).split())[:150]
        raise AssertionError(f"hoisting_jit(closing, 64)(v) raised {type(e).__name__}: {why}... "
                             "(the program takes the values of the hoisted constants first, "
                             "then the arguments)") from None
    assert isinstance(got, Array), f"hoisting_jit should run a compiled program, got {type(got)}"
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-3,
                               err_msg="hoisting_jit(closing, 64)(v) computes something else")

    def programs_loaded():
        return runtime.cache_stats["compiles"] + runtime.cache_stats["disk_hits"]
    runtime.clear_caches()             # the programs in memory forgotten: the next call loads
    hoisting_jit(matvec_with(A), 1024)(v)
    before = programs_loaded()
    got = hoisting_jit(matvec_with(B), 1024)(v)
    np.testing.assert_allclose(np.asarray(got), B @ vn, rtol=1e-4, atol=1e-3,
                               err_msg="v -> B @ v, through hoisting_jit, computes something else")
    assert programs_loaded() == before, \
        "v -> B @ v, after v -> A @ v, made XLA compile (or load) another program: with the " \
        "matrix an argument, the two lower to the same text, and the second finds the first's " \
        "executable in memory"
    texts = [key[0] for key in runtime._executables]
    assert texts and all("@jit_matvec" in t for t in texts), \
        "the program of matvec, through hoisting_jit, should be named after it (f.__name__): " \
        "lower_to_text(closed, f.__name__)"
    m = np.float32(np.linspace(-1, 1, 512)).reshape(256, 2)
    matmul = hoisting_jit(matvec_with(A), 1024)
    try:
        got = [np.asarray(matmul(a)) for a in (v, m)]
    except Exception:
        got = [None, None]
    assert got[1] is not None and got[1].shape == (256, 2) and \
        np.allclose(got[1], A @ m, rtol=1e-4, atol=1e-3), \
        "a function made by hoisting_jit, called on a f32[256] then on a f32[256,2], should " \
        "trace f again at the new type, as jit does"
