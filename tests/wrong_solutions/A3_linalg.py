"""Wrong solutions to appendix A3's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E3 = "3. A rule about results: the square root of a matrix"

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

_SQRTM = """
v, w = lax_eigh(a)
s = jnp.sqrt(w)
vt = jnp.swapaxes(v, -1, -2)
c = jnp.matmul(jnp.matmul(vt, instantiate_zeros(a_dot)), v)
x_dot = jnp.matmul(jnp.matmul(v, c / (s[..., :, None] + s[..., None, :])), vt)
return x, x_dot
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
    Wrong(E3, "eigh's factor 1 / (s_j - s_i), not 1 / (s_i + s_j)",
          _SQRTM.replace("(s[..., :, None] + s[..., None, :])",
                         "(s[..., None, :] - s[..., :, None] + jnp.eye(s.shape[-1]))"),
          reason="does not solve X x_dot"),
    Wrong(E3, "the eigenvalues w, not their roots s = sqrt(w)",
          _SQRTM.replace("s = jnp.sqrt(w)", "s = w"), reason="x_dot is off"),
    Wrong(E3, "no change of basis: a_dot / (s_i + s_j) in the standard basis",
          _SQRTM.replace("c = jnp.matmul(jnp.matmul(vt, instantiate_zeros(a_dot)), v)",
                         "c = instantiate_zeros(a_dot)")
                .replace("x_dot = jnp.matmul(jnp.matmul(v, c / (s[..., :, None] + "
                         "s[..., None, :])), vt)",
                         "x_dot = c / (s[..., :, None] + s[..., None, :])"),
          reason="does not solve X x_dot"),
    Wrong(E3, "the scalar rule d sqrt(a) = da / (2 sqrt(a)), entry by entry",
          """
          return x, instantiate_zeros(a_dot) / (2 * x)
          """, reason="x_dot is off"),
    Wrong(E3, "only the diagonal of V^T a_dot V kept",
          _SQRTM.replace("c / (s[..., :, None] + s[..., None, :])",
                         "c * jnp.eye(s.shape[-1]) / (2 * s[..., None, :])"),
          reason="x_dot is off"),
    Wrong(E3, "transposes with .T, which reverses a stack's axes too",
          _SQRTM.replace("vt = jnp.swapaxes(v, -1, -2)", "vt = v.T"), reason="jnp.swapaxes"),
    Wrong(E3, "the tangent computed in NumPy, which grad cannot transpose",
          """
          w, v = np.linalg.eigh(np.asarray(a, np.float64))
          s = np.sqrt(w)
          c = v.T @ np.asarray(instantiate_zeros(a_dot), np.float64) @ v
          return x, (v @ (c / (s[:, None] + s[None, :])) @ v.T).astype(np.float32)
          """, reason="grad through sqrtm failed"),
]
