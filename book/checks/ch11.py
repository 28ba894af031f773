"""Checks of chapter 11's exercises (chapters/11_indexing.md): each takes the notebook's
namespace."""
import numpy as np

import autodidax.batching
import autodidax.indexing
import autodidax.indexing_rest
import autodidax.numpy
from book.exercises import watch


def check_take_columns(nb):
    """1. Columns by one gather: `take_columns` against `jnp.take(x, idx, axis=1)`, read with one
    gather and no indexing."""
    take_columns, jax, jnp = nb["take_columns"], nb["jax"], nb["jnp"]
    indexing, front = autodidax.indexing, autodidax.numpy
    x0 = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    idx0 = np.array([2, -1, 0, 4, -5, 1], np.int32)
    reads = [front._rewriting_take, front.take, front.take_along_axis, indexing.dynamic_slice,
             autodidax.indexing_rest.dynamic_slice_in_dim, nb["dynamic_slice"]]
    with watch(*reads) as seen:
        got = np.asarray(take_columns(jnp.asarray(x0), jnp.asarray(idx0)))
    assert not seen, f"take_columns called {seen[0]}: read the columns with indexing.gather"
    assert got.shape == (3, 6), \
        f"x[:, idx] has shape (3, 6), one column per index, got {got.shape}: the window " \
        "(a column of x) goes to output dimension 0"
    for k, i in enumerate(idx0):
        want = x0[:, i] if -4 <= i < 4 else np.full(3, np.nan, np.float32)
        why = ("it counts from the end" if -4 <= i < 0 else
               "it is out of range: mode='fill' gives NaN" if not -4 <= i < 4 else "")
        assert np.array_equal(got[:, k], want, equal_nan=True), \
            f"column {k} (index {i}) should be {want.tolist()}{', as ' + why if why else ''}; " \
            f"got {got[:, k].tolist()}"
    x1 = np.arange(10.0, dtype=np.float32).reshape(2, 5)        # 2 rows, 5 columns
    idx1 = np.array([-5, 4, 5, -6, -1], np.int32)
    try:
        got = np.asarray(take_columns(jnp.asarray(x1), jnp.asarray(idx1)))
    except Exception as e:
        raise AssertionError(f"for x of shape (2, 5), take_columns failed: {type(e).__name__}: "
                             f"{e}: read n and m from x's shape")
    want = np.stack([x1[:, 0], x1[:, 4], [np.nan] * 2, [np.nan] * 2, x1[:, 4]], axis=1)
    assert np.array_equal(got, want, equal_nan=True), \
        f"for x of shape (2, 5) and idx {idx1.tolist()}, take_columns should give " \
        f"{want.tolist()}, got {got.tolist()}: read n and m from x's shape"
    eqns = jax.make_jaxpr(take_columns)(x0, idx0).eqns
    gathers = [e for e in eqns if e.primitive.name == "gather"]
    assert len(gathers) == 1, f"use one gather, not {len(gathers)}"


def check_rows_jvp_transpose(nb):
    """2. A new indexing primitive: `rows_jvp` and `rows_transpose`, through jvp and grad,
    with repeated and clamped ids, in float16 and of higher rank."""
    rows, rows_transpose, jax, jnp = nb["rows"], nb["rows_transpose"], nb["jax"], nb["jnp"]
    table0 = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    ids0 = np.array([1, 2, 1, 9, -1], np.int32)      # row 1 twice; 9 and -1 are clamped
    read = np.clip(ids0, 0, 3)
    tan0 = (np.arange(12.0, dtype=np.float32).reshape(4, 3) - 6) / 2
    y, y_dot = jax.jvp(lambda t: rows(t, ids0), (jnp.asarray(table0),), (jnp.asarray(tan0),))
    assert np.array_equal(np.asarray(y), table0[read]), \
        "the primal output should be rows(table, ids)"
    assert np.allclose(np.asarray(y_dot), tan0[read]), \
        f"the tangent should be the rows of the table's tangent, {tan0[read].tolist()}, got " \
        f"{np.asarray(y_dot).tolist()}"
    w = np.arange(1.0, 16.0, dtype=np.float32).reshape(5, 3)
    loss = lambda t: (rows(t, ids0) * w).sum()
    with watch(rows_transpose, nb["_gather_transpose"],
               autodidax.indexing._gather_transpose) as seen:
        g = np.asarray(jax.grad(loss)(jnp.asarray(table0)))
    assert "rows_transpose" in seen, "grad never called rows_transpose: rows_jvp's tangent " \
        "should be rows of the tangent (rows_p), so that grad transposes it with your rule"
    assert "_gather_transpose" not in seen, "rows_transpose hands the work to the transpose " \
        "rule of the package's gather (through vjp or grad): build the cotangent with .at[...]"
    want = np.zeros((4, 3), np.float32)
    np.add.at(want, read, w)
    assert np.allclose(g[1], want[1]), \
        f"row 1 is read twice: its cotangent is the sum of both, {want[1].tolist()}, got " \
        f"{g[1].tolist()}"
    assert np.allclose(g[[0, 3]], want[[0, 3]]), \
        f"ids -1 and 9 are out of range, and rows clamps them to rows 0 and 3: their cotangents " \
        f"belong there, rows 0 and 3 should be {want[[0, 3]].tolist()}, got {g[[0, 3]].tolist()}"
    assert np.allclose(g, want), f"the gradient should be {want.tolist()}, got {g.tolist()}"
    table1 = np.arange(20.0, dtype=np.float16).reshape(5, 2, 2)     # rank 3, in float16
    ids1 = np.array([[4, -3, 7], [2, 4, 0]], np.int32)              # ids of rank 2
    w1 = np.arange(1.0, 25.0, dtype=np.float16).reshape(2, 3, 2, 2)
    want = np.zeros((5, 2, 2), np.float32)
    np.add.at(want, np.clip(ids1, 0, 4), w1.astype(np.float32))
    loss1 = lambda t: (rows(t, ids1) * w1).sum()
    try:
        jax.make_jaxpr(jax.grad(loss1))(jnp.asarray(table1))     # traced: no NumPy on ct
        g = jax.grad(loss1)(jnp.asarray(table1))
    except NotImplementedError:
        raise
    except Exception as e:
        raise AssertionError(f"grad (traced by make_jaxpr, then run), for a table of shape "
                             f"(5, 2, 2) and ids of shape (2, 3), failed: {type(e).__name__}: {e}")
    assert g.dtype == np.float16, \
        f"the cotangent of a float16 table should be float16, got {g.dtype}: build it in the " \
        "table's dtype"
    assert np.allclose(np.asarray(g, np.float32), want), \
        f"for a table of shape (5, 2, 2) and ids {ids1.tolist()} (clamped to rows 0 .. 4), " \
        f"grad should be {want.tolist()}, got {np.asarray(g).tolist()}"


def check_rows_batch(nb):
    """3. Its batching rule: `rows_batch` under vmap in each of the three cases, folded into one
    equation, with each example's ids clamped to its own table."""
    rows, jax, jnp = nb["rows"], nb["jax"], nb["jnp"]
    tables = np.arange(36.0, dtype=np.float32).reshape(3, 4, 3)      # 3 tables of 4 rows
    ids_b = np.array([[1, 9], [3, -2], [0, 2]], np.int32)           # 2 ids per example
    tables3 = np.arange(60.0, dtype=np.float32).reshape(3, 5, 2, 2)  # 3 tables of 5 rows of 2x2
    ids3 = np.array([[[0, 6], [-1, 4]], [[2, 2], [5, 1]], [[3, -4], [0, 4]]], np.int32)
    per_example = lambda t, i: t[np.clip(i, 0, t.shape[0] - 1)]
    cases = [
        ("the table batched along axis 0", (0, None), (tables, ids_b[0]),
         np.stack([per_example(t, ids_b[0]) for t in tables])),
        ("the table batched along axis 1", (1, None), (np.moveaxis(tables, 0, 1), ids_b[0]),
         np.stack([per_example(t, ids_b[0]) for t in tables])),
        ("the ids batched along axis 1", (None, 1), (tables[0], ids_b.T),
         np.stack([per_example(tables[0], i) for i in ids_b])),
        ("both batched", (0, 0), (tables, ids_b),
         np.stack([per_example(t, i) for t, i in zip(tables, ids_b)])),
        ("the table batched along axis 1, ids of shape (2, 2)", (1, None),
         (np.moveaxis(tables3, 0, 1), ids3[0]),
         np.stack([per_example(t, ids3[0]) for t in tables3])),
        ("the ids, of shape (2, 2), batched along axis 2", (None, 2),
         (tables3[0], np.moveaxis(ids3, 0, 2)),
         np.stack([per_example(tables3[0], i) for i in ids3])),
        ("both batched, the table along axis 1 and the ids, of shape (2, 2), along axis 2", (1, 2),
         (np.moveaxis(tables3, 0, 1), np.moveaxis(ids3, 0, 2)),
         np.stack([per_example(t, i) for t, i in zip(tables3, ids3)])),
    ]
    for what, in_axes, args, want in cases:
        try:
            with watch(nb["gather_batching"], autodidax.indexing.gather_batching,
                       autodidax.batching.vmap) as seen:
                got = np.asarray(jax.vmap(rows, in_axes=in_axes)(*args))
        except NotImplementedError:
            raise
        except Exception as e:
            raise AssertionError(f"vmap with {what} failed: {type(e).__name__}: {e}")
        inner = [f for f in seen if f != "vmap"] + ["vmap"] * (seen.count("vmap") - 1)
        assert not inner, f"with {what}, rows_batch called {inner[0]}: fold the batch yourself"
        assert got.shape == want.shape, f"with {what}, the output should have shape " \
            f"{want.shape}, got {got.shape}: check the batch dimension you return"
        clamped = "; an id out of range reads its own table's first or last row" \
            if None not in in_axes else ""
        assert np.array_equal(got, want), \
            f"with {what}, vmap(rows) should give {want.tolist()}{clamped}, got {got.tolist()}"
        eqns = jax.make_jaxpr(jax.vmap(rows, in_axes=in_axes))(*args).eqns
        reads = [e for e in eqns if e.primitive.name in ("rows", "gather")]
        assert len(reads) == 1, f"with {what}, a batch of 3 made {len(reads)} rows or gather " \
            "equations: fold the batch into one, no loop over the examples"
    w = np.arange(6.0, dtype=np.float32).reshape(3, 2, 1)
    g = np.asarray(jax.grad(lambda t: (jax.vmap(rows)(t, ids_b) * w).sum())(jnp.asarray(tables)))
    want = np.zeros_like(tables)
    for b in range(3):
        np.add.at(want[b], np.clip(ids_b[b], 0, 3), np.broadcast_to(w[b], (2, 3)))
    assert np.allclose(g, want), f"grad through vmap(rows) should be {want.tolist()}, " \
        f"got {g.tolist()}"
