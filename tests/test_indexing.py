"""Tests of autodidax/indexing.py (chapter 11) against JAX; most cases live in
test_conformance_indexing.py."""
import os
import sys

import numpy as np
import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jjnp  # noqa: E402

import autodidax  # noqa: E402
import autodidax.numpy as jnp  # noqa: E402
from autodidax import indexing, indexing_rest, lax  # noqa: E402

X = np.arange(12, dtype=np.float32).reshape(3, 4)


def test_registered_names():
    assert lax.gather is indexing.gather and lax.sort is indexing.sort
    assert lax.top_k is indexing_rest.top_k and lax.scatter_add is indexing.scatter_add
    assert lax.dynamic_slice_in_dim is indexing_rest.dynamic_slice_in_dim   # appendix A12
    assert jnp.sort.__module__ == jnp.take.__module__ == "autodidax.numpy"   # appendix A1
    assert issubclass(autodidax.core.NonConcreteBooleanIndexError, IndexError)


def test_gather_modes_match_jax():
    dn = (indexing.GatherDimensionNumbers, jax.lax.GatherDimensionNumbers)
    idx = np.array([[5], [-3], [1]], np.int32)
    for mode in ["clip", "fill", "promise_in_bounds"]:
        ours = indexing.gather(X, idx, dn[0]((1,), (0,), (0,)), (1, 4), mode=mode)
        theirs = jax.lax.gather(X, idx, dn[1]((1,), (0,), (0,)), (1, 4), mode=mode)
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


@pytest.mark.parametrize("mode", ["clip", "drop", "promise_in_bounds"])
def test_scatter_add_modes_match_jax(mode):
    idx = np.array([[5], [1], [1]], np.int32)
    upd = np.array([1.0, 2.0, 3.0], np.float32)
    ours = indexing.scatter_add(np.zeros(4, np.float32), idx, upd,
                                indexing.ScatterDimensionNumbers((), (0,), (0,)), mode=mode)
    theirs = jax.lax.scatter_add(np.zeros(4, np.float32), idx, upd,
                                 jax.lax.ScatterDimensionNumbers((), (0,), (0,)), mode=mode)
    if mode != "promise_in_bounds":
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def test_grad_of_jit_embedding_matches_jax():
    table = np.arange(20, dtype=np.float32).reshape(5, 4) / 7
    ids = np.array([0, 3, 3, 1], np.int32)
    f = lambda jnp_: (lambda t: (jnp_.sin(t[ids]) ** 2).sum())
    ours = autodidax.jit(autodidax.grad(f(jnp)))(table)
    theirs = jax.jit(jax.grad(f(jjnp)))(table)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6)


def test_sort_stable_multi_operand():
    k = np.array([2, 1, 2, 1, 0], np.int32)
    v = np.arange(5, dtype=np.float32)
    ours = indexing.sort((k, v), num_keys=1)
    theirs = jax.lax.sort((k, v), num_keys=1)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_no_jax_import():
    import subprocess
    code = ("import autodidax, autodidax.numpy as jnp, sys; x = jnp.arange(4.0);"
            "x[jnp.array([1])]; x.at[0].set(1.0); jnp.sort(x); assert 'jax' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


A = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)


def _i(*v):
    return np.array(v, np.int32)


INDICES = [
    (_i(1, 0),), (slice(None), _i(2, 0, 2)), (Ellipsis, _i(3, -1)), (_i(1), slice(None), _i(0, 3)),
    (_i(0, 1), _i(1, 2)), (_i(0, 1), slice(1, 3), _i(1, 2)), (None, _i(0, 1)), (_i(0, 1), None),
    (1, _i(0, 2)), (_i(1, 0), 2), (slice(None, None, -1), _i(0, 2)),
    (_i(0, 1), slice(None, None, 2)), (_i(0, 1)[:, None], _i(0, 1, 2)), (A[..., 0] > 5,),
    (A > 20,), (0, A[0, :, 0] > 3), (np.array([True, False]), 1),
    (slice(None), slice(1, None), _i(-4, 3)), (_i(5, -7),), (Ellipsis, None, _i(1)),
    (_i(1), Ellipsis, None), (np.int64(1), _i(0)), (_i(0, 1).astype(np.uint8),),
    (slice(None), _i(1, 1, 1)[:, None], slice(2, 3)), (_i(1), _i(2), _i(3)),
]
OPS = {
    "get": lambda J, x, i: x[i],
    "set": lambda J, x, i: x.at[i].set(-1.0),
    "add": lambda J, x, i: x.at[i].add(1.0),
    "grad": lambda J, x, i: J.grad(lambda x: (x[i] ** 2).sum())(x),
}


def _jit_with_traced_arrays(J, op, x, index):
    """`op(x, index)` under jit, the array entries of `index` passed as traced arguments."""
    arrays = [i for i in index if isinstance(i, np.ndarray) and i.dtype != np.bool_]

    def f(x, *arrs):
        it = iter(arrs)
        return op(J, x, tuple(next(it) if isinstance(i, np.ndarray) and i.dtype != np.bool_
                              else i for i in index))
    return J.jit(f)(x, *arrays)


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("k", range(len(INDICES)))
def test_numpy_indexing_matches_jax(op, k):
    index = INDICES[k]
    want = np.asarray(OPS[op](jax, jjnp.asarray(A), index))
    got = np.asarray(OPS[op](autodidax, jnp.asarray(A), index))
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want)
    if not any(isinstance(i, np.ndarray) and i.dtype == np.bool_ for i in index):
        want = np.asarray(_jit_with_traced_arrays(jax, OPS[op], A, index))
        got = np.asarray(_jit_with_traced_arrays(autodidax, OPS[op], A, index))
        np.testing.assert_allclose(got, want)


def _params_of(f):
    import inspect
    return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]


@pytest.mark.parametrize("name", ["dynamic_slice", "dynamic_update_slice", "dynamic_index_in_dim",
                                  "dynamic_slice_in_dim", "dynamic_update_slice_in_dim",
                                  "dynamic_update_index_in_dim"])
def test_dynamic_slice_signatures_match_jax(name):
    ours, theirs = _params_of(getattr(lax, name)), _params_of(getattr(jax.lax, name))
    assert [(n, k) for n, k, _ in ours] == [(n, k) for n, k, _ in theirs]
    assert ours[-1] == theirs[-1]          # allow_negative_indices=True, keyword-only


def test_take_along_axis_signature_matches_jax():
    assert _params_of(jnp.take_along_axis) == _params_of(jjnp.take_along_axis)


@pytest.mark.parametrize("method", ["get", "set", "add", "subtract", "multiply", "divide",
                                    "power", "min", "max", "apply"])
def test_at_methods_take_wrap_negative_indices(method):
    import inspect
    theirs = inspect.signature(getattr(jjnp.zeros(3).at[0], method)).parameters
    assert theirs["wrap_negative_indices"].default is True
    v = jnp.arange(4.0)
    args = {"get": (), "apply": (jnp.sin,)}.get(method, (2.0,))
    ours = getattr(v.at[np.array([-1])], method)(*args, wrap_negative_indices=False)
    jv = jjnp.arange(4.0)
    expected = getattr(jv.at[np.array([-1])], method)(
        *((jjnp.sin,) if method == "apply" else args), wrap_negative_indices=False)
    np.testing.assert_allclose(np.asarray(ours), np.asarray(expected))


def test_the_in_dim_exercises_expect_jaxs_slices():
    """Appendix A12's exercises hard-code the `slice` that JAX's lax.index_in_dim and
    slice_in_dim make (book/checks/chA12.py, whose checks may not import jax): they are JAX's."""
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

    def params(f):
        eqn = jax.make_jaxpr(f)(x).jaxpr.eqns[0]
        assert eqn.primitive.name == "slice"
        return tuple(tuple(eqn.params[k]) for k in ("start_indices", "limit_indices", "strides"))

    assert params(lambda x: jax.lax.index_in_dim(x, -1, 2)) == ((0, 0, 3), (2, 3, 4), (1, 1, 1))
    assert params(lambda x: jax.lax.index_in_dim(x, -3, 1, False)) == (
        (0, 0, 0), (2, 1, 4), (1, 1, 1))
    for (start, limit, stride, axis), want in [
            ((1, 3, 1, 2), ((0, 0, 1), (2, 3, 3), (1, 1, 1))),
            ((None, None, 2, 2), ((0, 0, 0), (2, 3, 4), (1, 1, 2))),
            ((-2, None, 1, 1), ((0, 1, 0), (2, 3, 4), (1, 1, 1))),
            ((0, -1, 2, 2), ((0, 0, 0), (2, 3, 3), (1, 1, 2))),
            ((0, 0, 1, 0), ((0, 0, 0), (0, 3, 4), (1, 1, 1)))]:
        assert params(lambda x: jax.lax.slice_in_dim(x, start, limit, stride, axis)) == want
