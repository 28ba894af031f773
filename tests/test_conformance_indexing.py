"""Conformance cases for chapter 11 (indexing): gather, scatter, dynamic slices, sort and
`x.at[...]`, the same programs under JAX and autodidax, compared by the harness of
`test_conformance.py` (read its docstring for the case kinds C, B, E and J)."""
import numpy as np
import pytest

from test_conformance import F, B, C, E, J, check, _params  # noqa: F401

X = np.arange(12, dtype=np.float32).reshape(3, 4)


def _jits(jaxpr):
    """The primitives of a jaxpr, a `jit` equation as its name and what it holds (not
    `quantile`'s: its clamps are a primitive in JAX, a composition here)."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    return [(e.params["name"], [] if e.params["name"] == "quantile" else _jits(e.params["jaxpr"]))
            if e.primitive.name == "jit" else e.primitive.name for e in jaxpr.eqns]
IDX = np.array([2, 0, -1, 2], np.int32)
LABELS = np.array([0, 3, 1], np.int32)
V = np.array([3.0, -1.0, 2.0, 0.5, 2.0], np.float32)
MASK = X > 5


def _ds(jax, jnp):
    return lambda x, i: jax.lax.dynamic_slice(x, (i, 1), (2, 2))


INDEXING = {
    "int array": C(lambda jax, jnp: jnp.asarray(X)[IDX]),
    "int array 2d": C(lambda jax, jnp: jnp.asarray(X)[IDX.reshape(2, 2)]),
    "two int arrays": C(lambda jax, jnp: jnp.asarray(X)[jnp.arange(3), LABELS]),
    "int array and slice": C(lambda jax, jnp: jnp.asarray(X)[IDX, 1:3]),
    "slice and int array": C(lambda jax, jnp: jnp.asarray(X)[:, np.array([3, 0])]),
    "arrays apart": C(lambda jax, jnp: jnp.asarray(X)[np.array([0, 1]), None, np.array([1, 2])]),
    "array with ellipsis": C(lambda jax, jnp: jnp.asarray(X)[..., np.array([1, 1])]),
    "array negative step": C(lambda jax, jnp: jnp.asarray(X)[IDX, ::-2]),
    "array out of bounds clamps": C(lambda jax, jnp: jnp.asarray(X)[np.array([5, -9])]),
    "static out of bounds": C(lambda jax, jnp: jnp.asarray(X)[3]),
    "static negative out of bounds": C(lambda jax, jnp: jnp.asarray(X)[0, -5]),
    "mask": C(lambda jax, jnp: jnp.asarray(X)[MASK]),
    "mask rows": C(lambda jax, jnp: jnp.asarray(X)[np.array([True, False, True])]),
    "traced index jit": C(lambda jax, jnp: jax.jit(lambda x, i: x[i])(X, 2)),
    "traced index negative jit": C(lambda jax, jnp: jax.jit(lambda x, i: x[i, 1:])(X, -1)),
    "scalar true": C(lambda jax, jnp: jnp.asarray(X)[True]),
    "scalar false": C(lambda jax, jnp: jnp.asarray(X)[False]),
    "scalar true mixed": C(lambda jax, jnp: jnp.asarray(X)[1, True, np.array([0, 2])]),
    "0-d mask": C(lambda jax, jnp: jnp.asarray(X)[np.array(True)]),
    "ellipsis false": C(lambda jax, jnp: jnp.asarray(X)[..., False]),
    "dynamic_slice": C(lambda jax, jnp: _ds(jax, jnp)(X, 1)),
    "dynamic_slice clamps": C(lambda jax, jnp: _ds(jax, jnp)(X, 7)),
    "dynamic_slice_in_dim jit": C(lambda jax, jnp: jax.jit(
        lambda x, i: jax.lax.dynamic_slice_in_dim(x, i, 2, axis=1))(X, 1)),
    "dynamic_update_slice_in_dim": C(lambda jax, jnp: jax.lax.dynamic_update_slice_in_dim(
        X, np.ones((3, 1), np.float32), 2, axis=1)),
    "dynamic_index_in_dim": C(lambda jax, jnp: jax.lax.dynamic_index_in_dim(X, 2, 0, False)),
    "dynamic_update_slice": C(lambda jax, jnp: jax.lax.dynamic_update_slice(
        jnp.asarray(X), jnp.ones((2, 2)), (2, 3))),
    "at set": C(lambda jax, jnp: jnp.asarray(X).at[1].set(7.0)),
    "at set array": C(lambda jax, jnp: jnp.asarray(X).at[IDX[:2], 2].set(np.array([1.0, 2.0]))),
    "at add repeated": C(lambda jax, jnp: jnp.asarray(X).at[IDX].add(1.0)),
    "at multiply": C(lambda jax, jnp: jnp.asarray(X).at[:, 1].multiply(3.0)),
    "at min": C(lambda jax, jnp: jnp.asarray(X).at[1].min(5.5)),
    "at max": C(lambda jax, jnp: jnp.asarray(X).at[np.array([0, 0])].max(2.0)),
    "at get fill": C(lambda jax, jnp: jnp.asarray(V).at[np.array([1, 9])].get(mode="fill")),
    "at set drop": C(lambda jax, jnp: jnp.asarray(V).at[9].set(1.0)),
    "at set clip": C(lambda jax, jnp: jnp.asarray(V).at[9].set(1.0, mode="clip")),
    "at apply": C(lambda jax, jnp: jnp.asarray(V).at[np.array([0, 2])].apply(jnp.sin)),
    "at apply repeated": C(lambda jax, jnp: jnp.asarray(V).at[np.array([0, 0, 2])].apply(
        lambda v: v * 2.0)),
    "jaxpr at apply": J(lambda jax, jnp: jax.make_jaxpr(lambda x: x.at[1].apply(jnp.sin))(V)),
    "grad at apply": E(lambda jax, jnp: jax.grad(lambda x: x.at[1].apply(jnp.sin).sum())(V)),
    "at int array": C(lambda jax, jnp: jnp.arange(5).at[2].add(3)),
    "sort": C(lambda jax, jnp: jnp.sort(X[::-1], axis=0)),
    "sort nan": C(lambda jax, jnp: jnp.sort(np.array([2.0, np.nan, -0.0, 0.0, -1.0], np.float32))),
    "argsort": C(lambda jax, jnp: jnp.argsort(V)),
    "argsort descending": C(lambda jax, jnp: jnp.argsort(V, descending=True)),
    "argsort descending ties": C(lambda jax, jnp: jnp.argsort(np.array([1, 3, 1, 3, 2]),
                                                          descending=True)),
    "argsort axis none": C(lambda jax, jnp: jnp.argsort(X[::-1], axis=None)),
    "sort kind": E(lambda jax, jnp: jnp.sort(V, kind="quicksort")),
    "sort descending": C(lambda jax, jnp: jnp.sort(V, descending=True)),
    "lax sort two keys": C(lambda jax, jnp: jax.lax.sort(
        (np.array([1, 0, 1, 0], np.int32), np.array([3.0, 2.0, 1.0, 0.0], np.float32)),
        num_keys=2)),
    "lax sort carry": C(lambda jax, jnp: jax.lax.sort(
        (np.array([1, 0, 1, 0], np.int32), np.array([3.0, 2.0, 1.0, 0.0], np.float32)))),
    "take": C(lambda jax, jnp: jnp.take(V, np.array([4, 0, 7]))),
    "take axis": C(lambda jax, jnp: jnp.take(X, np.array([3, 0]), axis=1)),
    "take_along_axis": C(lambda jax, jnp: jnp.take_along_axis(X, np.argsort(-X, axis=1), axis=1)),
    "nonzero size": C(lambda jax, jnp: jax.jit(lambda m: jnp.nonzero(m, size=4))(MASK)),
    "nonzero size fill": C(lambda jax, jnp: jnp.nonzero(np.array([0, 3, 0]), size=3,
                                                         fill_value=-1)),
    "where size": C(lambda jax, jnp: jnp.where(np.array([0, 3, 0, 1]), size=3)),
    "median": C(lambda jax, jnp: jnp.median(X[::-1], axis=0)),
    "median all": C(lambda jax, jnp: jnp.median(V)),
    "median keepdims": C(lambda jax, jnp: jnp.median(X, axis=1, keepdims=True)),
    "median none keepdims": C(lambda jax, jnp: jnp.median(X, keepdims=True)),
    "quantile vector": C(lambda jax, jnp: jnp.quantile(X, np.array([0.1, 0.5, 0.9]), axis=1)),
    "quantile methods": C(lambda jax, jnp: [jnp.quantile(V, 0.3, method=m) for m in
                                            ("linear", "lower", "higher", "nearest", "midpoint")]),
    "quantile nan": C(lambda jax, jnp: jnp.quantile(np.array([1.0, np.nan, 2.0], np.float32), 0.5)),
    "quantile int": C(lambda jax, jnp: jnp.quantile(np.arange(7), 0.4)),
    "percentile": C(lambda jax, jnp: jnp.percentile(X, 75.0, axis=0)),
    "grad median": C(lambda jax, jnp: jax.grad(lambda v: jnp.median(v))(V)),
    "quantile out": E(lambda jax, jnp: jnp.quantile(V, 0.5, overwrite_input=True)),
    "quantile of an int q": E(lambda jax, jnp: jnp.quantile(V, 1)),
    "percentile bits": B(lambda jax, jnp: [jnp.percentile(V, 30), jnp.percentile(X, 30, axis=1)]),
    # median, percentile and quantile are jit equations, as in JAX: median's holds quantile's
    "jits of median": C(lambda jax, jnp: _jits(jax.make_jaxpr(jnp.median)(V))),
    "jits of median keywords": C(lambda jax, jnp: _jits(jax.make_jaxpr(
        lambda x: jnp.median(x, axis=1, keepdims=True))(X))),
    "jits of percentile": C(lambda jax, jnp: _jits(jax.make_jaxpr(
        lambda x: jnp.percentile(x, 30, method="nearest"))(V))),
    "jits of pad median": C(lambda jax, jnp: _jits(jax.make_jaxpr(
        lambda x: jnp.pad(x, 2, mode="median"))(V))),
    "jaxpr median": J(lambda jax, jnp: jax.make_jaxpr(jnp.median)(V),
                      xfail="lax.clamp is a primitive in JAX, a composition here (A6)"),
    "top_k": C(lambda jax, jnp: jax.lax.top_k(np.array([9.0, 3.0, 9.0, 4.0, 10.0], np.float32), 3)),
    "top_k axis": C(lambda jax, jnp: jax.lax.top_k(X[::-1], 2, axis=0)),
    "top_k int": C(lambda jax, jnp: jax.lax.top_k(np.array([[3, 1, 2], [0, 5, 4]], np.int32), 2)),
    "grad top_k": C(lambda jax, jnp: jax.grad(
        lambda x: (jax.lax.top_k(x, 2)[0] * np.array([[1.0, 2.0]] * 3, np.float32)).sum())(X)),
    "vmap top_k": C(lambda jax, jnp: jax.vmap(lambda r: jax.lax.top_k(r, 2), in_axes=1)(X)),
    "top_k too big": E(lambda jax, jnp: jax.lax.top_k(V, 9)),
    "searchsorted": C(lambda jax, jnp: jnp.searchsorted(np.array([1.0, 2.0, 2.0, 5.0], np.float32),
                                                        np.array([2.0, 0.0, 9.0, np.nan], np.float32))),
    "searchsorted right": C(lambda jax, jnp: jnp.searchsorted(
        np.array([1, 2, 2, 5], np.int32), np.array([[2, 0], [9, 5]], np.int32), side="right")),
    "searchsorted scalar": C(lambda jax, jnp: jnp.searchsorted(np.array([1.0, 2.0, 3.0]), 2.5)),
    "searchsorted sorter": C(lambda jax, jnp: jnp.searchsorted(V, 1.0, sorter=np.argsort(V))),
    "searchsorted jit": C(lambda jax, jnp: jax.jit(jnp.searchsorted)(np.cumsum(np.abs(V)), 3.0)),
    # transformations
    "grad gather": C(lambda jax, jnp: jax.grad(lambda x: (x[IDX] ** 2).sum())(X)),
    "grad logp labels": C(lambda jax, jnp: jax.grad(
        lambda l: -l[jnp.arange(3), LABELS].mean())(X)),
    "grad at set": C(lambda jax, jnp: jax.grad(
        lambda x, v: (x.at[1].set(v) ** 2).sum(), argnums=(0, 1))(X, 2.0)),
    "grad at add": C(lambda jax, jnp: jax.grad(
        lambda x, v: jnp.sin(x.at[IDX].add(v)).sum(), argnums=(0, 1))(X, 2.0)),
    "grad at set repeated": C(lambda jax, jnp: jax.grad(
        lambda x, v: (x.at[np.array([1, 3, 1])].set(v) ** 2).sum(), argnums=(0, 1))(
            V, np.array([1.0, 2.0, 3.0], np.float32))),
    "jvp at set repeated": C(lambda jax, jnp: jax.jvp(
        lambda x, v: x.at[np.array([1, 3, 1])].set(v), (V, np.array([1.0, 2.0, 3.0], np.float32)),
        (np.ones(5, np.float32), np.array([10.0, 20.0, 30.0], np.float32)))),
    "jaxpr grad at set repeated": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(
        lambda x, v, i: (x.at[i].set(v) ** 2).sum(), argnums=(0, 1)))(
            V, np.array([1.0, 2.0, 3.0], np.float32), np.array([1, 3, 1], np.int32))),
    "grad at min ties": C(lambda jax, jnp: jax.grad(
        lambda x, v: (x.at[np.array([0, 0, 2])].min(v) * np.arange(5.0)).sum(), argnums=(0, 1))(
            np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32), np.array([1.0, 0.5, 3.0], np.float32))),
    "grad at max": C(lambda jax, jnp: jax.grad(
        lambda x, v: (x.at[np.array([1, 1, 3])].max(v) ** 2).sum(), argnums=(0, 1))(
            V, np.array([4.0, 4.0, 0.0], np.float32))),
    "grad at multiply": C(lambda jax, jnp: jax.grad(
        lambda x, v: (x.at[np.array([1, 3])].multiply(v, unique_indices=True) ** 2).sum(),
        argnums=(0, 1))(V, np.array([2.0, -1.0], np.float32))),
    "grad dynamic_slice": C(lambda jax, jnp: jax.grad(lambda x: _ds(jax, jnp)(x, 1).sum())(X)),
    "grad dynamic_update_slice": C(lambda jax, jnp: jax.grad(
        lambda x, u: (jax.lax.dynamic_update_slice(x, u, (1, 1)) ** 2).sum(),
        argnums=(0, 1))(X, np.ones((2, 2), np.float32))),
    "grad sort": C(lambda jax, jnp: jax.grad(lambda v: (jnp.sort(v) * jnp.arange(5.0)).sum())(V)),
    "grad jit traced index": C(lambda jax, jnp: jax.jit(jax.grad(lambda x, i: x[i].sum()))(X, 1)),
    "vmap gather": C(lambda jax, jnp: jax.vmap(lambda x, i: x[i])(X, np.array([0, 3, 1]))),
    "vmap gather operand": C(lambda jax, jnp: jax.vmap(lambda x: x[np.array([0, 2])])(X)),
    "vmap gather indices": C(lambda jax, jnp: jax.vmap(lambda i: jnp.asarray(X)[i])(IDX)),
    "vmap dynamic_slice": C(lambda jax, jnp: jax.vmap(
        lambda i: jax.lax.dynamic_slice(X, (i, 0), (2, 2)))(np.array([0, 1, 2]))),
    "vmap dynamic_update_slice": C(lambda jax, jnp: jax.vmap(
        lambda x, i: jax.lax.dynamic_update_slice(x, np.ones(2, np.float32), (i,)))(
            X, np.array([0, 3, 1]))),
    "vmap at set": C(lambda jax, jnp: jax.vmap(lambda x, i: x.at[i].set(-1.0))(
        X, np.array([0, 3, 1]))),
    "vmap at add": C(lambda jax, jnp: jax.vmap(lambda x: x.at[np.array([0, 0])].add(1.0))(X)),
    "vmap sort": C(lambda jax, jnp: jax.vmap(jnp.sort, in_axes=1)(X[::-1])),
    "vmap grad gather": C(lambda jax, jnp: jax.vmap(jax.grad(lambda x, i: x[i] ** 2))(
        X, np.array([0, 3, 1]))),
    "jit gather": C(lambda jax, jnp: jax.jit(lambda x, i: x[i, 1:])(X, IDX)),
    "jit at add": C(lambda jax, jnp: jax.jit(lambda x, i: x.at[i].add(1.0))(X, IDX)),
    "jit embedding": C(lambda jax, jnp: jax.jit(lambda t, i: t[i])(X, np.array([[0, 2], [1, 1]]))),
    # printed jaxprs
    # vmap's gather and scatter rules: NumPy ints where JAX's np.add makes them
    "jaxpr vmap dynamic_slice": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(
        lambda x: jax.lax.dynamic_slice(x, (1,), (2,)), in_axes=1))(X)),
    "jaxpr vmap dynamic_slice batched start": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(
        lambda x, i: jax.lax.dynamic_slice(x, (i, 0), (1, 2))))(np.ones((2, 3, 4), np.float32),
                                                                np.array([0, 1], np.int32))),
    "jaxpr vmap int array index": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(
        lambda x: x[jnp.array([0, 2])], in_axes=1))(X)),
    "jaxpr vmap at set": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(
        lambda x: x.at[0].set(1.0), in_axes=1))(X)),
    "jaxpr vmap dynamic_update_slice": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(
        lambda x: jax.lax.dynamic_update_slice(x, jnp.zeros(2), (1,)), in_axes=1))(X)),
    "jaxpr traced index": J(lambda jax, jnp: jax.make_jaxpr(lambda x, i: x[i])(X, 1)),
    "jaxpr int array": J(lambda jax, jnp: jax.make_jaxpr(lambda x, i: x[i])(X, IDX)),
    "jaxpr logp labels": J(lambda jax, jnp: jax.make_jaxpr(
        lambda l, y: l[jnp.arange(3), y])(X, LABELS)),
    "jaxpr at set": J(lambda jax, jnp: jax.make_jaxpr(lambda x, v: x.at[1].set(v))(X, 1.0)),
    "jaxpr at add": J(lambda jax, jnp: jax.make_jaxpr(lambda x, v: x.at[1].add(v))(X, 1.0)),
    "jaxpr grad gather": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(
        lambda x, i: x[i].sum()))(X, IDX)),
    "jaxpr sort": J(lambda jax, jnp: jax.make_jaxpr(jnp.sort)(X)),
    "jaxpr argsort": J(lambda jax, jnp: jax.make_jaxpr(jnp.argsort)(X)),
    "jaxpr sort two operands": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.lax.sort((x, x, x), num_keys=1)[1])(V)),
    "dynamic_slice float start": E(lambda jax, jnp: jax.lax.dynamic_slice(X, (0, 0.0), (2, 2))),
    "scatter updates of the wrong batch": E(lambda jax, jnp: jax.lax.scatter_add(
        V, np.array([[1], [1], [3]]), np.ones(2, np.float32),
        jax.lax.ScatterDimensionNumbers((), (0,), (0,)))),
    "scatter float indices": E(lambda jax, jnp: jax.lax.scatter_add(
        V, np.array([[1.0]]), np.ones(1, np.float32),
        jax.lax.ScatterDimensionNumbers((), (0,), (0,)))),
    "jaxpr dynamic_update_slice": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, i: jax.lax.dynamic_update_slice(x, jnp.ones((2, 2)), (i, 0)))(X, 1)),
    # errors
    "list index": E(lambda jax, jnp: jnp.asarray(X)[[1, 2]]),
    "mask under jit": E(lambda jax, jnp: jax.jit(lambda x: x[x > 3])(X)),
    "float array index": E(lambda jax, jnp: jnp.asarray(X)[np.array([1.0])]),
    "mask wrong shape": E(lambda jax, jnp: jnp.asarray(X)[np.array([True, False])]),
    "dynamic_slice too big": E(lambda jax, jnp: jax.lax.dynamic_slice(X, (0, 0), (4, 4))),
    "dynamic_slice wrong rank": E(lambda jax, jnp: jax.lax.dynamic_slice(X, (0,), (1,))),
    "take_along_axis rank": E(lambda jax, jnp: jnp.take_along_axis(X, IDX, axis=0)),
    # take_along_axis's default axis and wrap_negative_indices
    "take_along_axis default axis": C(lambda jax, jnp: jnp.take_along_axis(
        X, np.argsort(-X, axis=1))),
    "take_along_axis axis none": C(lambda jax, jnp: jnp.take_along_axis(
        X, np.array([1, -1, 20]), axis=None)),
    "take_along_axis broadcast": C(lambda jax, jnp: jnp.take_along_axis(
        X, np.array([[1], [-1], [0]]))),
    "take_along_axis int": C(lambda jax, jnp: jnp.take_along_axis(
        np.arange(12, dtype=np.int16).reshape(3, 4), np.array([[2, -1, 0, 9]]), axis=0)),
    **{f"take_along_axis {mode} wrap {wrap}": C(
        lambda jax, jnp, mode=mode, wrap=wrap: jnp.take_along_axis(
            X, np.array([[0, -1, 2, -4]]), axis=0, mode=mode, wrap_negative_indices=wrap))
       for mode in (None, "clip", "promise_in_bounds") for wrap in (None, True, False)},
    "take_along_axis jit no wrap": C(lambda jax, jnp: jax.jit(lambda x, i: jnp.take_along_axis(
        x, i, axis=1, wrap_negative_indices=False))(X, np.array([[-1], [1], [3]]))),
    "take_along_axis empty axis": C(lambda jax, jnp: jnp.take_along_axis(
        np.zeros((0, 3), np.float32), np.zeros((2, 3), np.int32), axis=0)),
    "take_along_axis float indices": E(lambda jax, jnp: jnp.take_along_axis(
        X, np.array([[1.0]]), axis=0)),
    "take_along_axis axis none 2d": E(lambda jax, jnp: jnp.take_along_axis(
        X, np.array([[1]]), axis=None)),
    # allow_negative_indices
    "dynamic_slice negative": C(lambda jax, jnp: jax.lax.dynamic_slice(X, (-1, 1), (2, 2))),
    "dynamic_slice no negative jit": C(lambda jax, jnp: jax.jit(
        lambda x, i: jax.lax.dynamic_slice(x, (i, 1), (2, 2), allow_negative_indices=False))(
            X, -1)),
    "dynamic_slice no negative static": E(lambda jax, jnp: jax.lax.dynamic_slice(
        X, (-1, 1), (2, 2), allow_negative_indices=False)),
    "dynamic_slice per dimension": C(lambda jax, jnp: jax.jit(
        lambda x, i: jax.lax.dynamic_slice(x, (i, -2), (2, 2),
                                           allow_negative_indices=(False, True)))(X, -1)),
    "dynamic_update_slice no negative jit": C(lambda jax, jnp: jax.jit(
        lambda x, i: jax.lax.dynamic_update_slice(x, jnp.ones((2, 2)), (i, 2),
                                                  allow_negative_indices=False))(X, -1)),
    "dynamic_slice_in_dim no negative": C(lambda jax, jnp: jax.jit(
        lambda x, i: jax.lax.dynamic_slice_in_dim(x, i, 2, axis=1,
                                                  allow_negative_indices=False))(X, -1)),
    "dynamic_index_in_dim negative": C(lambda jax, jnp: jax.lax.dynamic_index_in_dim(
        X, -1, 1, False)),
    "dynamic_index_in_dim no negative": C(lambda jax, jnp: jax.lax.dynamic_index_in_dim(
        X, -1, 1, allow_negative_indices=False)),
    "jaxpr dynamic_index_in_dim": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.lax.dynamic_index_in_dim(x, 2))(X)),
    "jaxpr dynamic_index_in_dim no negative": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, i: jax.lax.dynamic_index_in_dim(x, i, 1, False,
                                                  allow_negative_indices=False))(X, 1)),
    "jaxpr dynamic_update_index_in_dim": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, u: jax.lax.dynamic_update_index_in_dim(x, u, -1, 0))(X, np.ones(4, np.float32))),
    "dynamic_update_index_in_dim no negative": C(lambda jax, jnp: jax.jit(
        lambda x, i: jax.lax.dynamic_update_index_in_dim(
            x, jnp.zeros(4), i, 0, allow_negative_indices=False))(X, -2)),
    "dynamic_update_slice_in_dim negative": C(lambda jax, jnp: jax.lax.dynamic_update_slice_in_dim(
        X, np.ones((3, 1), np.float32), -1, axis=1)),
    "jaxpr dynamic_slice no negative": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, i: jax.lax.dynamic_slice(x, (i, 1), (2, 2), allow_negative_indices=False))(
            X, 1)),
    "jaxpr dynamic_slice per dimension": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, i, j: jax.lax.dynamic_slice(x, (i, j), (2, 2),
                                              allow_negative_indices=[True, False]))(X, 1, 2)),
    "jaxpr dynamic_update_slice no negative": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, i: jax.lax.dynamic_update_slice(x, jnp.ones((2, 2)), (i, 0),
                                                  allow_negative_indices=False))(X, 1)),
    # x.at[...].power
    "at power": C(lambda jax, jnp: jnp.asarray(V).at[1].power(3.0)),
    "at power repeated": C(lambda jax, jnp: jnp.asarray(V).at[np.array([0, 0, 2])].power(2.0)),
    "at power array values": C(lambda jax, jnp: jnp.asarray(X).at[:, 1].power(
        np.array([0.5, 2.0, -1.0], np.float32))),
    "at power int": C(lambda jax, jnp: jnp.arange(5).at[np.array([2, 2, 3])].power(2)),
    "at power int float values": C(lambda jax, jnp: jnp.arange(5).at[1:].power(2.7)),
    "at power drop": C(lambda jax, jnp: jnp.asarray(V).at[9].power(2.0)),
    "at power jit": C(lambda jax, jnp: jax.jit(lambda x, i, v: x.at[i].power(v))(V, 3, 2.0)),
    "grad at power": E(lambda jax, jnp: jax.grad(       # (scatter_mul: unique indices only)
        lambda x, v: x.at[np.array([0, 2])].power(v).sum(), argnums=(0, 1))(
            np.abs(V), np.float32(2.0))),
    "at get no wrap": C(lambda jax, jnp: [jnp.asarray(V).at[-1].get(
        wrap_negative_indices=False, mode=m) for m in (None, "fill", "clip")]),
    "at set no wrap": C(lambda jax, jnp: jnp.asarray(X).at[-1, np.array([-1, 0])].set(
        0.0, mode="clip", wrap_negative_indices=False)),
    "at add no wrap": C(lambda jax, jnp: jnp.asarray(V).at[np.array([-1, 2])].add(
        9.0, wrap_negative_indices=False)),
    "at power no wrap": C(lambda jax, jnp: jnp.asarray(V).at[np.array([-1, 2])].power(
        2.0, wrap_negative_indices=False)),
    "at apply no wrap": C(lambda jax, jnp: jnp.asarray(V).at[-1].apply(
        jnp.sin, wrap_negative_indices=False)),
    "at get no wrap jit": C(lambda jax, jnp: jax.jit(
        lambda x, i: x.at[i, 1:].get(wrap_negative_indices=False))(X, -1)),
    "jaxpr at get no wrap": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, i: x.at[i].get(wrap_negative_indices=False))(V, np.array([1, 2]))),
    "jaxpr at set traced scalar": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, i: x.at[i].set(2.0))(V, 1)),
    "jaxpr at set no wrap": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, i: x.at[i, 1].set(2.0, wrap_negative_indices=False))(X, 1)),
    "at subtract repeated": C(lambda jax, jnp: jnp.asarray(V).at[np.array([0, 0, 2])].subtract(
        1.5)),
    "at subtract int": C(lambda jax, jnp: jnp.arange(5).at[np.array([0, 0, 2])].subtract(2)),
    "jaxpr at subtract": J(lambda jax, jnp: jax.make_jaxpr(lambda x: x.at[1].subtract(2.0))(V)),
    "grad at subtract": C(lambda jax, jnp: jax.grad(
        lambda x, v: (x.at[np.array([1, 1, 3])].subtract(v) ** 2).sum(), argnums=(0, 1))(
            V, np.array([1.0, 2.0, 3.0], np.float32))),
    "jaxpr grad at subtract": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(
        lambda x, v, i: (x.at[i].subtract(v) ** 2).sum(), argnums=(0, 1)))(
            V, np.array([1.0, 2.0, 3.0], np.float32), np.array([1, 3, 1], np.int32))),
    "vmap at subtract": C(lambda jax, jnp: jax.vmap(lambda x, i: x.at[i].subtract(1.0))(
        X, np.array([0, 3, 1]))),
    "lax scatter_sub": C(lambda jax, jnp: jax.lax.scatter_sub(
        V, np.array([[1], [1]]), np.array([1.0, 2.0], np.float32),
        jax.lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                        scatter_dims_to_operand_dims=(0,)))),
    "jaxpr at power": J(lambda jax, jnp: jax.make_jaxpr(lambda x, v: x.at[1].power(v))(V, 2.0)),
    "jaxpr at power array": J(lambda jax, jnp: jax.make_jaxpr(lambda x, i: x.at[i].power(3.0))(
        X, IDX)),
}


@pytest.mark.parametrize("name", _params(INDEXING))
def test_indexing(name):
    check(INDEXING[name])
