"""Wrong solutions to appendix A3's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

_BATCH = """
if da is not not_mapped:
    return batch_at_front(triangular_solve_p)(vals, dims, **params)
r = a.ndim
fold = r - 1 if params["left_side"] else r - 2
b = moveaxis(b, db, fold)
shape = b.shape
merged = shape[:fold] + (shape[fold] * shape[fold + 1],) + shape[fold + 2:]
x = triangular_solve_p.bind(a, jnp.reshape(b, merged), **params)
return jnp.reshape(x, shape), fold
"""

_QR = """
a_dot = instantiate_zeros(a_dot)
a_dot_rinv = triangular_solve(r, a_dot, left_side=False, lower=False)
x = jnp.matmul(jnp.swapaxes(q, -1, -2), a_dot_rinv)
below = jnp.tril(x, -1)
omega = below - jnp.swapaxes(below, -1, -2)
q_dot = jnp.matmul(q, omega - x) + a_dot_rinv
r_dot = jnp.matmul(x - omega, r)
return [q, r], [q_dot, r_dot]
"""

_MVN = """
L = cholesky(cov)
d = jnp.asarray(x) - mean
y = triangular_solve(L, d, left_side=False, lower=True, transpose_a=True)
logdet = 2 * jnp.sum(jnp.log(jnp.diagonal(L)))
n = cov.shape[-1]
return -0.5 * (n * np.log(2 * np.pi) + logdet + jnp.sum(y * y, axis=-1))
"""

WRONG = [
    Wrong("1. A normal log density from one factor", "solve and slogdet, which factor with lu",
          """
          d = jnp.asarray(x) - mean
          quad = jnp.sum(d * jnp.linalg.solve(cov, d.T).T, axis=-1)
          n = cov.shape[-1]
          return -0.5 * (n * np.log(2 * np.pi) + jnp.linalg.slogdet(cov)[1] + quad)
          """, reason="factors cov with lu"),
    Wrong("1. A normal log density from one factor", "the solve with L on the wrong side: d L^-1",
          """
          L = cholesky(cov)
          d = jnp.asarray(x) - mean
          y = triangular_solve(L, d, left_side=False, lower=True)
          logdet = 2 * jnp.sum(jnp.log(jnp.diagonal(L)))
          n = cov.shape[-1]
          return -0.5 * (n * np.log(2 * np.pi) + logdet + jnp.sum(y * y, axis=-1))
          """, reason="squared norm of L\\^-1 \\(x - mean\\)"),
    Wrong("1. A normal log density from one factor",
          "log det cov taken as the sum of the logs of L's diagonal",
          """
          L = cholesky(cov)
          d = jnp.asarray(x) - mean
          y = triangular_solve(L, d, left_side=False, lower=True, transpose_a=True)
          logdet = jnp.sum(jnp.log(jnp.diagonal(L)))
          n = cov.shape[-1]
          return -0.5 * (n * np.log(2 * np.pi) + logdet + jnp.sum(y * y, axis=-1))
          """, reason="twice the sum of the logs"),
    Wrong("1. A normal log density from one factor", "the log of the product of the diagonal",
          """
          L = cholesky(cov)
          d = jnp.asarray(x) - mean
          y = triangular_solve(L, d, left_side=False, lower=True, transpose_a=True)
          logdet = 2 * jnp.log(jnp.prod(jnp.diagonal(L)))
          n = cov.shape[-1]
          return -0.5 * (n * np.log(2 * np.pi) + logdet + jnp.sum(y * y, axis=-1))
          """, reason="never take the log of their product"),
    Wrong("2. Batching a solve without copying the matrix", "batch_at_front, which copies a",
          """
          return batch_at_front(triangular_solve_p)(vals, dims, **params)
          """, reason="instead of copying a"),
    Wrong("2. Batching a solve without copying the matrix",
          "reshaped without moving the batch axis first",
          _BATCH.replace("b = moveaxis(b, db, fold)\nshape = b.shape",
                         "shape = moveaxis(b, db, fold).shape"),
          reason="come out wrong"),
    Wrong("2. Batching a solve without copying the matrix",
          "folded into the columns on either side",
          _BATCH.replace('fold = r - 1 if params["left_side"] else r - 2', "fold = r - 1"),
          reason="left_side': False"),
    Wrong("2. Batching a solve without copying the matrix", "a assumed never batched",
          _BATCH.replace("if da is not not_mapped:\n    return batch_at_front(triangular_solve_p)"
                         "(vals, dims, **params)\n", ""),
          reason="a batched"),
    Wrong("3. The derivative of QR", "omega taken as X's lower part, not made antisymmetric",
          _QR.replace("omega = below - jnp.swapaxes(below, -1, -2)", "omega = below"),
          reason="for a square .* antisymmetric"),
    Wrong("3. The derivative of QR", "q_dot as Q omega alone",
          _QR.replace("q_dot = jnp.matmul(q, omega - x) + a_dot_rinv",
                      "q_dot = jnp.matmul(q, omega)"),
          reason="outside Q's columns"),
    Wrong("3. The derivative of QR", "r_dot as X R, omega forgotten",
          _QR.replace("r_dot = jnp.matmul(x - omega, r)", "r_dot = jnp.matmul(x, r)"),
          reason="r_dot should be"),
    Wrong("3. The derivative of QR", "R inverted with jnp.linalg.inv",
          _QR.replace("a_dot_rinv = triangular_solve(r, a_dot, left_side=False, lower=False)",
                      "a_dot_rinv = jnp.matmul(a_dot, jnp.linalg.inv(r))"),
          reason="use triangular_solve"),
    Wrong("3. The derivative of QR", "the tangents computed in NumPy",
          """
          a_dot = np.asarray(instantiate_zeros(a_dot), np.float64)
          q64, r64 = np.asarray(q, np.float64), np.asarray(r, np.float64)
          x = q64.T @ a_dot @ np.linalg.inv(r64)
          below = np.tril(x, -1)
          omega = below - below.T
          q_dot = q64 @ (omega - x) + a_dot @ np.linalg.inv(r64)
          r_dot = (x - omega) @ r64
          return [q, r], [q_dot.astype(np.float32), r_dot.astype(np.float32)]
          """, reason="from jnp operations and triangular_solve"),
    Wrong("1. A normal log density from one factor", "log det as the sum of the logs, not twice",
          _MVN.replace("2 * jnp.sum", "jnp.sum"), reason='twice the sum'),
    Wrong("1. A normal log density from one factor", "n read off x, the number of rows for [k, n]",
          _MVN.replace("n = cov.shape[-1]", "n = len(x)"), reason='mvn_logpdf should be'),
    Wrong("1. A normal log density from one factor", "the quadratic form summed over everything",
          _MVN.replace("jnp.sum(y * y, axis=-1)", "jnp.sum(y * y)"), reason='expected 3 densities'),
    Wrong("2. Batching a solve without copying the matrix",
          "the folding axis of a 2-D a, hard-coded",
          _BATCH.replace("r = a.ndim", "r = 2"), reason='a stack of matrices'),
    Wrong("2. Batching a solve without copying the matrix", "the examples folded after the columns",
          _BATCH.replace("fold = r - 1 if params[\"left_side\"] else r - 2",
                         "fold = r - 2 if params[\"left_side\"] else r - 1")
                 .replace("b = moveaxis(b, db, fold)", "b = moveaxis(b, db, fold + 1)")
                 .replace("(shape[fold] * shape[fold + 1],)", "(shape[fold] * shape[fold + 1],)"),
          reason='vmap over axis 0 of b'),
    Wrong("2. Batching a solve without copying the matrix", "a batched only when b is too",
          _BATCH.replace("if da is not not_mapped:",
                         "if da is not not_mapped and db is not not_mapped:"),
          reason=r'in_axes=\(0, None\), a batched'),
    Wrong("3. The derivative of QR", "transposes with .T, which reverses a stack's axes too",
          _QR.replace("jnp.swapaxes(q, -1, -2)", "q.T")
             .replace("jnp.swapaxes(below, -1, -2)", "below.T"),
          reason='jnp.swapaxes'),
    Wrong("3. The derivative of QR", "omega as X - X^T",
          _QR.replace("omega = below - jnp.swapaxes(below, -1, -2)",
                      "omega = x - jnp.swapaxes(x, -1, -2)"),
          reason='antisymmetric'),
    Wrong("3. The derivative of QR", "R^-1 applied on the left",
          _QR.replace("left_side=False, lower=False", "left_side=True, lower=False"),
          reason='r_dot should be'),
    Wrong("1. A normal log density from one factor", "one x made a row: a density of shape (1,)",
          """
          L = cholesky(cov)
          d = jnp.atleast_2d(jnp.asarray(x) - mean)
          y = triangular_solve(L, jnp.swapaxes(d, -1, -2), left_side=True, lower=True)
          logdet = 2 * jnp.sum(jnp.log(jnp.diagonal(L)))
          n = cov.shape[-1]
          return -0.5 * (n * np.log(2 * np.pi) + logdet + jnp.sum(y * y, axis=0))
          """, reason=r"for one x of shape \(4,\), expected one density.*got shape \(1,\)"),
    Wrong("1. A normal log density from one factor", "the quadratic form with two solves",
          """
          L = cholesky(cov)
          d = jnp.asarray(x) - mean
          z = triangular_solve(L, d, left_side=False, lower=True, transpose_a=True)
          w = triangular_solve(L, z, left_side=False, lower=True)
          logdet = 2 * jnp.sum(jnp.log(jnp.diagonal(L)))
          n = cov.shape[-1]
          return -0.5 * (n * np.log(2 * np.pi) + logdet + jnp.sum(d * w, axis=-1))
          """, reason="should make one triangular solve.*its program has 2"),
    Wrong("3. The derivative of QR", "R^-1 made by solving against the identity",
          _QR.replace("a_dot_rinv = triangular_solve(r, a_dot, left_side=False, lower=False)",
                      "eye = jnp.broadcast_to(jnp.eye(r.shape[-1], dtype=r.dtype), r.shape)\n"
                      "rinv = triangular_solve(r, eye, left_side=False, lower=False)\n"
                      "a_dot_rinv = jnp.matmul(a_dot, rinv)"),
          reason="does not depend on a_dot .*inverting R"),
]
