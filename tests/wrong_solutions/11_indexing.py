"""Wrong solutions to chapter 11's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. Columns by one gather"
E2 = "2. A new indexing primitive: its JVP and its transpose"
E3 = "3. Its batching rule: the batch folded in"

_DN = """dnums = indexing.GatherDimensionNumbers(offset_dims=(0,), collapsed_slice_dims=(1,),
                                        start_index_map=(1,))
"""

_BATCH = """
if b_ids is not_mapped:
    return rows(moveaxis(table, b_table, 1), ids), np.ndim(ids)
if b_table is not_mapped:
    return rows(table, ids), b_ids
table, ids = moveaxis(table, b_table, 0), moveaxis(ids, b_ids, 0)
size, n = np.shape(table)[:2]
flat = jnp.reshape(table, (size * n,) + np.shape(table)[2:])
offsets = jnp.reshape(jnp.arange(size) * n, (size,) + (1,) * (np.ndim(ids) - 1))
return rows(flat, jnp.clip(ids, 0, n - 1) + offsets), 0
"""


WRONG = [
    Wrong(E1, "the default mode, which clamps an index out of range",
          """
          n, m = x.shape
          idx = jnp.where(idx < 0, idx + m, idx)
          dnums = indexing.GatherDimensionNumbers(offset_dims=(0,), collapsed_slice_dims=(1,),
                                                  start_index_map=(1,))
          return indexing.gather(x, idx[:, None], dnums, (n, 1))
          """, reason=r"index 4\).*out of range: mode='fill' gives NaN"),
    Wrong(E1, "negative indices not counted from the end",
          """
          n, m = x.shape
          dnums = indexing.GatherDimensionNumbers(offset_dims=(0,), collapsed_slice_dims=(1,),
                                                  start_index_map=(1,))
          return indexing.gather(x, idx[:, None], dnums, (n, 1), mode="fill")
          """, reason=r"index -1\).*counts from the end"),
    Wrong(E1, "indices wrapped modulo m, so that -5 and 4 are in range",
          """
          n, m = x.shape
          dnums = indexing.GatherDimensionNumbers(offset_dims=(0,), collapsed_slice_dims=(1,),
                                                  start_index_map=(1,))
          return indexing.gather(x, (idx % m)[:, None], dnums, (n, 1), mode="fill")
          """, reason=r"out of range: mode='fill' gives NaN"),
    Wrong(E1, "the window put in output dimension 1: the transpose of x[:, idx]",
          """
          n, m = x.shape
          idx = jnp.where(idx < 0, idx + m, idx)
          dnums = indexing.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(1,),
                                                  start_index_map=(1,))
          return indexing.gather(x, idx[:, None], dnums, (n, 1), mode="fill")
          """, reason=r"shape \(3, 6\).*output dimension 0"),
    Wrong(E1, "the package's jnp.take",
          """
          return jnp.take(x, idx, axis=1)
          """, reason="called take"),
    Wrong(E2, "the transpose writes with .set: a row read twice keeps one cotangent",
          (None, """
          n = table.aval.shape[0]
          zeros = jnp.zeros(table.aval.shape, table.aval.dtype)
          return [zeros.at[jnp.clip(ids, 0, n - 1)].set(ct), None]
          """), reason="row 1 is read twice"),
    Wrong(E2, "the transpose scatters at the raw ids: 9 is dropped, -1 counts from the end",
          (None, """
          zeros = jnp.zeros(table.aval.shape, table.aval.dtype)
          return [zeros.at[ids].add(ct), None]
          """), reason="clamps them to rows 0 and 3"),
    Wrong(E2, "the transpose clips with mode='clip', which still wraps -1 to the last row",
          (None, """
          zeros = jnp.zeros(table.aval.shape, table.aval.dtype)
          return [zeros.at[ids].add(ct, mode="clip"), None]
          """), reason="clamps them to rows 0 and 3"),
    Wrong(E2, "the JVP reads the tangent with the package's x[...], so grad never transposes rows",
          ("""
          n = np.shape(t_table)[0]
          return rows(table, ids), t_table[jnp.clip(ids, 0, n - 1)]
          """, None), reason="never called rows_transpose"),
    Wrong(E2, "the JVP returns the rows of the table, not of its tangent",
          ("""
          return rows(table, ids), rows(table, ids)
          """, None), reason="tangent should be the rows of the table's tangent"),
    Wrong(E3, "a loop over the examples, stacked",
          """
          size = np.shape(table)[b_table] if b_table is not not_mapped else np.shape(ids)[b_ids]
          outs = []
          for b in range(size):
              t = table if b_table is not_mapped else jnp.take(table, b, axis=b_table)
              i = ids if b_ids is not_mapped else jnp.take(ids, b, axis=b_ids)
              outs.append(rows(t, i))
          return jnp.stack(outs), 0
          """, reason=r"made \d+ rows or gather equations"),
    Wrong(E3, "both batched: the ids offset into the flattened tables, but not clamped first",
          """
          if b_ids is not_mapped:
              return rows(moveaxis(table, b_table, 1), ids), np.ndim(ids)
          if b_table is not_mapped:
              return rows(table, ids), b_ids
          table, ids = moveaxis(table, b_table, 0), moveaxis(ids, b_ids, 0)
          size, n = np.shape(table)[:2]
          flat = jnp.reshape(table, (size * n,) + np.shape(table)[2:])
          offsets = jnp.reshape(jnp.arange(size) * n, (size,) + (1,) * (np.ndim(ids) - 1))
          return rows(flat, ids + offsets), 0
          """, reason="reads its own table"),
    Wrong(E3, "the batch dimensions taken to be 0, not moved",
          """
          if b_ids is not_mapped:
              return rows(moveaxis(table, 0, 1), ids), np.ndim(ids)
          if b_table is not_mapped:
              return rows(table, ids), 0
          size, n = np.shape(table)[:2]
          flat = jnp.reshape(table, (size * n,) + np.shape(table)[2:])
          offsets = jnp.reshape(jnp.arange(size) * n, (size,) + (1,) * (np.ndim(ids) - 1))
          return rows(flat, jnp.clip(ids, 0, n - 1) + offsets), 0
          """, reason="table batched along axis 1.*(should give|should have shape)"),
    Wrong(E3, "the package's gather batching, through vmap",
          """
          import autodidax.batching
          n = np.shape(table)[1 if b_table == 0 else 0]
          read = lambda t, i: t[jnp.clip(i, 0, np.shape(t)[0] - 1)]
          return autodidax.batching.vmap(read, in_axes=(b_table, b_ids))(table, ids), 0
          """, reason="rows_batch called"),
    Wrong(E1, "the shape of the check's matrix hard-coded: 4 columns, windows of 3 rows",
          _DN + """
idx = jnp.where(idx < 0, idx + 4, idx)
return indexing.gather(x, idx[:, None], dnums, (3, 1), mode="fill")
""", reason="for x of shape \\(2, 5\\).*read n and m from x's shape"),
    Wrong(E1, "the negative indices fixed up in NumPy, on the concrete values",
          "n, m = x.shape\n" + _DN + """
i = np.asarray(idx)
i = np.where(i < 0, i + m, i)
return indexing.gather(x, jnp.asarray(i)[:, None], dnums, (n, 1), mode="fill")
""", reason='NumPy functions cannot see inside a traced function'),
    Wrong(E2, "the transpose clamps to the check's 4 rows",
          (None, """
zeros = jnp.zeros(table.aval.shape, table.aval.dtype)
return [zeros.at[jnp.clip(ids, 0, 3)].add(ct), None]
"""), reason='table of shape \\(5, 2, 2\\).*clamped to rows 0 \\.\\. 4'),
    Wrong(E2, "the transpose's cotangent made in the default dtype, not the table's",
          (None, """
n = table.aval.shape[0]
zeros = jnp.zeros(table.aval.shape)
return [zeros.at[jnp.clip(ids, 0, n - 1)].add(ct), None]
"""), reason='should be float16, got float32'),
    Wrong(E2, "the transpose written for a matrix and a vector of ids",
          (None, """
n, m = table.aval.shape[0], table.aval.shape[-1]
zeros = jnp.zeros((n, m), table.aval.dtype)
return [zeros.at[jnp.clip(jnp.ravel(ids), 0, n - 1)].add(jnp.reshape(ct, (-1, m))), None]
"""), reason='table of shape \\(5, 2, 2\\).*failed'),
    Wrong(E2, "the transpose scatters in NumPy, on concrete values",
          (None, """
n = table.aval.shape[0]
out = np.zeros(table.aval.shape, table.aval.dtype)
np.add.at(out, np.clip(np.asarray(ids), 0, n - 1), np.asarray(ct))
return [jnp.asarray(out), None]
"""), reason='traced by make_jaxpr.*NumPy functions cannot see'),
    Wrong(E3, "the output's batch dimension hard-coded for a vector of ids",
          _BATCH.replace("np.ndim(ids)\nif b_table", "1\nif b_table"),
          reason='ids of shape \\(2, 2\\), the output should have shape'),
    Wrong(E3, "the offsets shaped for a vector of ids per example",
          _BATCH.replace("jnp.reshape(jnp.arange(size) * n, (size,) + (1,) * (np.ndim(ids) - 1))",
                         "(jnp.arange(size) * n)[:, None]"),
          reason='both batched, the table along axis 1.*failed'),
    Wrong(E3, "both batched: the batch taken to be axis 0 of each",
          _BATCH.replace("table, ids = moveaxis(table, b_table, 0), moveaxis(ids, b_ids, 0)\n", ""),
          reason='both batched, the table along axis 1.*failed'),
    Wrong(E3, "the clamp hard-coded for tables of 4 rows",
          _BATCH.replace("jnp.clip(ids, 0, n - 1)", "jnp.clip(ids, 0, 3)"),
          reason=r"along axis 2, vmap\(rows\) should give.*its own table's first or last row"),
    Wrong(E3, "the table flattened for rows that are vectors",
          _BATCH.replace("(size * n,) + np.shape(table)[2:]", "(size * n, np.shape(table)[-1])"),
          reason='both batched, the table along axis 1.*failed'),
]

WRONG += [
    Wrong(E2, "the transpose delegated to the vjp of the package's own gather",
          (None, """
          n = table.aval.shape[0]
          zeros = jnp.zeros(table.aval.shape, table.aval.dtype)
          _, f_vjp = jax.vjp(lambda t: t[jnp.clip(ids, 0, n - 1)], zeros)
          return [f_vjp(ct)[0], None]
          """), reason="transpose rule of the package's gather"),
    Wrong(E3, "the table's batch dimension left where it is, among the window's",
          _BATCH.replace("return rows(moveaxis(table, b_table, 1), ids), np.ndim(ids)",
                         "return rows(table, ids), np.ndim(ids) + b_table - 1"),
          reason=r"batched along axis 0, the output should have shape \(3, 2, 3\)"),
]
