"""Checks of chapter 15's exercises (chapters/15_callbacks.md): each takes the notebook's
namespace."""
import contextlib
import io

import numpy as np

import autodidax as jax
import autodidax.numpy as jnp
import autodidax.numpy.linalg
from book.exercises import watch


def check_predicted_lines(nb):
    """1. How many lines?: `predicted_lines()` against what each program prints."""
    predicted_lines, programs = nb["predicted_lines"], nb["programs"]
    said = predicted_lines()
    assert set(said) == set(programs), f"predict every program: {sorted(programs)}"
    wrong = []
    for name, program in programs.items():
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            program()
        printed = len(buffer.getvalue().splitlines())
        if said[name] != printed:
            wrong.append(f"'{name}' (you said {said[name]}, it printed {printed})")
    assert not wrong, "mispredicted: " + "; ".join(wrong)


def check_det(nb):
    """2. A NumPy function with a derivative: `det`, its values, JVP, gradient and batching."""
    det = nb["det"]
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3)).astype(np.float32)
    da = rng.standard_normal((3, 3)).astype(np.float32)
    stack = rng.standard_normal((4, 3, 3)).astype(np.float32)
    jax.clear_caches()      # traced jaxprs forgotten: a call of the package's det runs its code
    with watch(autodidax.numpy.linalg) as seen:
        value = det(a)
        tangent = jax.jvp(det, (a,), (da,))[1]
    want = np.linalg.det(a) * np.trace(np.linalg.solve(a, da))
    assert np.allclose(tangent, want, rtol=1e-4), \
        f"the tangent along da should be det(a) tr(a⁻¹ da) = {want}, got {tangent}"
    with watch(autodidax.numpy.linalg) as more:
        gradient = jax.grad(det)(a)
        batched = jax.vmap(det)(stack)
        try:
            batched_grad = jax.vmap(jax.grad(det))(stack)
        except NotImplementedError as e:
            raise AssertionError(f"vmap of grad of det failed: {e}") from None
    dets = [name for name in seen + more if "det" in name]
    assert not dets, f"det called the package's {dets[0]}: let NumPy compute the determinant"
    for name, fun, arg in [("det", det, a), ("vmap(det)", jax.vmap(det), stack),
                           ("vmap(grad(det))", jax.vmap(jax.grad(det)), stack)]:
        jaxpr = str(jax.make_jaxpr(fun)(arg))
        assert "pure_callback" in jaxpr, \
            f"the jaxpr of {name} has no pure_callback: NumPy should compute the determinant"
        assert "scan" not in jaxpr, f"{name} calls NumPy once per matrix, in a loop: choose " \
            "the vmap_method that hands NumPy the whole batch"
    np.testing.assert_allclose(value, np.linalg.det(a), rtol=1e-5,
                               err_msg="det(a) should be np.linalg.det(a)")
    np.testing.assert_allclose(gradient, np.linalg.det(a) * np.linalg.inv(a).T, rtol=1e-4,
                               err_msg="grad(det)(a) should be det(a) a⁻ᵀ")
    np.testing.assert_allclose(batched, np.linalg.det(stack), rtol=1e-5,
                               err_msg="vmap(det) should be np.linalg.det of the stack")
    np.testing.assert_allclose(
        batched_grad, np.linalg.det(stack)[:, None, None] * np.linalg.inv(stack).transpose(0, 2, 1),
        rtol=1e-4, err_msg="vmap(grad(det)) should be det(a) a⁻ᵀ for each matrix")


def check_tap(nb):
    """3. A callback that sees the whole batch: `tap` eagerly, under jit, vmap, grad and jvp."""
    tap = nb["tap"]
    seen, kinds = [], []

    def record(v):
        seen.append(np.array(v))       # a copy: under jit, v is XLA's buffer for the call only
        kinds.append(type(v))

    def tapped(x):
        tap(record, x)
        return x

    def two_taps(x):
        tap(record, jnp.sin(x).sum() * 2)      # waits for a sum
        tap(record, x)
        return x * 2

    x34 = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    tapped(x34)
    assert len(seen) == 1 and np.array_equal(seen[0], x34), \
        f"eagerly, f should be called once, with x; it was called {len(seen)} times"
    assert kinds[0] is np.ndarray, f"eagerly f was given a {kinds[0].__name__}: give it a NumPy " \
        "array, as under jit"
    seen.clear()
    run_twice = jax.jit(two_taps)
    run_twice(x34[0])
    run_twice(x34[1])
    shapes = [s.shape for s in seen]
    assert len(shapes) == 4, f"a jitted function with two taps, run twice, called f " \
        f"{len(shapes)} times, not 4"
    assert shapes == [(), (4,)] * 2, f"under jit the taps ran in the order {shapes}, not the " \
        "program's order [(), (4,), (), (4,)]: make the callback ordered"
    seen.clear()
    jax.vmap(tapped, in_axes=1)(x34)
    assert len(seen) == 1, f"under vmap over 4 examples, f ran {len(seen)} times: it should " \
        "run once, with the whole batch"
    assert seen[0].shape == (4, 3) and np.array_equal(seen[0], x34.T), \
        f"vmap over axis 1 of a (3, 4) array should give f the batch, of shape (4, 3), its " \
        f"batch dimension first; f got shape {seen[0].shape}"
    seen.clear()
    x234 = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    jax.vmap(tapped, in_axes=2)(x234)
    assert len(seen) == 1 and np.array_equal(seen[0], np.moveaxis(x234, 2, 0)), \
        f"vmap over axis 2 of a (2, 3, 4) array should give f the batch, of shape (4, 2, 3), " \
        f"axis 2 moved to the front; f got shapes {[s.shape for s in seen]}"
    seen.clear()
    jax.jit(jax.vmap(jax.vmap(tapped), in_axes=1))(x234)
    assert len(seen) == 1 and np.array_equal(seen[0], x234.transpose(1, 0, 2)), \
        f"under jit of two vmaps f should run once, with shape (3, 2, 4), the outer batch " \
        f"first; it ran {len(seen)} times, with shapes {[s.shape for s in seen]}"
    seen.clear()
    jax.jit(jax.grad(lambda x: jnp.sin(tapped(x)).sum()))(x34[1])
    assert len(seen) == 1 and np.array_equal(seen[0], x34[1]), \
        f"under grad f should run once, with the primal x; it ran {len(seen)} times"
    seen.clear()
    jax.jvp(tapped, (x34[1],), (np.full(4, 7.0, np.float32),))
    assert len(seen) == 1 and np.array_equal(seen[0], x34[1]), \
        f"under jvp f should run once, with the primal x and not the tangent; it ran " \
        f"{len(seen)} times, with {[s.tolist() for s in seen]}"
