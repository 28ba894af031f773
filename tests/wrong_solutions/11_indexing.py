"""Wrong solutions to chapter 11's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. Columns by one gather"
E2 = "2. A new indexing primitive: its JVP and its transpose"
E3 = "3. Its batching rule: the batch folded in"

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
          n = np.shape(table)[1 if b_table == 0 else 0]
          read = lambda t, i: t[jnp.clip(i, 0, np.shape(t)[0] - 1)]
          return autodidax.batching.vmap(read, in_axes=(b_table, b_ids))(table, ids), 0
          """, reason="rows_batch called"),
]
