"""Conformance cases for eager evaluation op by op through XLA (chapter 7's default): JAX's bits,
bit for bit, for the transcendental functions, sums and matrix products, where NumPy's answers
differ from XLA's in the last digit; and computation following committed data (which device a
result is on, whether it is committed). Same harness and kinds as tests/test_conformance.py.

Each program starts from arrays put on the default device, so that each operation runs as
XLA's, not folded into a larger program."""
import numpy as np
import pytest

from test_conformance import B, C, E, F, G, POS, T, T2, _params, check

rng = np.random.default_rng(35)
WIDE = np.linspace(-6.0, 6.0, 257, dtype=np.float32)        # spans where the kernels branch
UNIT = np.linspace(0.01, 0.99, 97, dtype=np.float32)
POS2 = np.linspace(0.05, 40.0, 211, dtype=np.float32)
TEN = rng.standard_normal(10).astype(np.float32)
M16, N16 = (rng.standard_normal((16, 16)).astype(np.float32) for _ in range(2))
ROWS = rng.standard_normal((8, 33)).astype(np.float32)


def on(jax, *xs):
    """The inputs as device arrays, uncommitted, as `jnp.asarray` gives them in JAX."""
    out = tuple(jax.device_put(x) for x in xs)
    return out if len(out) > 1 else out[0]


def placed(jax, fn, *which):
    """`fn` of arrays committed to the devices numbered `which` (None: uncommitted): the
    result's device id and whether it is committed, then its value."""
    d = jax.devices()
    xs = [jax.device_put(F, None if i is None else d[i]) for i in which]
    y = fn(*xs)
    return y.device.id, y.committed, y


def message(fn):
    """The text of the ValueError that `fn()` raises."""
    try:
        fn()
    except ValueError as e:
        return str(e)
    return None


UNARY = "exp log sin cos tan tanh arctan sinh cosh expm1 log1p sqrt arcsinh".split()
EAGER = {
    **{f"{name} wide": B(lambda jax, jnp, name=name: getattr(jnp, name)(
        on(jax, POS2 if name in ("log", "sqrt", "log1p") else WIDE))) for name in UNARY},
    "arcsin unit": B(lambda jax, jnp: jnp.arcsin(on(jax, UNIT))),
    "arctanh unit": B(lambda jax, jnp: jnp.arctanh(on(jax, UNIT))),
    "arctan2": B(lambda jax, jnp: jnp.arctan2(*on(jax, WIDE, WIDE[::-1]))),
    "power": B(lambda jax, jnp: jnp.power(*on(jax, POS2, UNIT[:1] * 3))),
    "logistic": B(lambda jax, jnp: jax.nn.sigmoid(on(jax, WIDE))),
    "erf": B(lambda jax, jnp: jax.scipy.special.erf(on(jax, WIDE))),
    "x / 3.0": B(lambda jax, jnp: on(jax, WIDE) / 3.0),
    "x / y": B(lambda jax, jnp: jnp.divide(*on(jax, WIDE, WIDE + 7))),
    "sum of ten": B(lambda jax, jnp: jnp.sum(on(jax, TEN))),
    "sum of rows": B(lambda jax, jnp: on(jax, ROWS).sum(axis=1)),
    "sum of columns": B(lambda jax, jnp: on(jax, ROWS).sum(axis=0)),
    "mean": B(lambda jax, jnp: jnp.mean(on(jax, ROWS))),
    "cumsum": B(lambda jax, jnp: jnp.cumsum(on(jax, TEN))),
    # Under eager jvp, vmap and grad, JAX's NumPy functions bind `jit`: what the rules make of a
    # call runs as one program (chapter 8)
    "jvp of tanh": B(lambda jax, jnp: jax.jvp(jnp.tanh, (on(jax, WIDE),), (on(jax, WIDE[::-1]),))),
    "jvp of var": B(lambda jax, jnp: jax.jvp(jnp.var, (on(jax, ROWS),), (on(jax, ROWS[::-1]),))),
    "vmap of var": B(lambda jax, jnp: jax.vmap(jnp.var)(on(jax, ROWS))),
    "vmap of a chain": B(lambda jax, jnp: jax.vmap(lambda r: jnp.tanh(r / 2) * 0.5 + 1)(
        on(jax, ROWS))),
    "grad of a loss": B(lambda jax, jnp: jax.grad(lambda w: jnp.sum(jnp.tanh(
        on(jax, M16) @ w / 2) ** 2))(on(jax, N16))),
    "linearize": B(lambda jax, jnp: jax.linearize(lambda x: jnp.sin(x) * jnp.exp(x / 3.0),
                                                  on(jax, WIDE))[1](on(jax, WIDE[::-1]))),
    "hessian": B(lambda jax, jnp: jax.jacfwd(jax.jacrev(lambda w: 0.5 * (jnp.tanh(
        (jnp.dot(on(jax, ROWS[:4, :3]), w) + 0.3) / 2) + 1)))(on(jax, TEN[:3]))),
    "grad committed to 3": C(lambda jax, jnp: placed(
        jax, jax.grad(lambda x: jnp.sum(jnp.sin(x) * x)), 3)),
    "vmap uncommitted": C(lambda jax, jnp: placed(jax, jax.vmap(jnp.var), None)),
    "a device array put on 2": C(lambda jax, jnp: placed(jax, lambda x: jax.device_put(
        x, jax.devices()[2]), None)),
    "grad of a device array put on 2": C(lambda jax, jnp: placed(jax, lambda x: jax.grad(
        lambda a: jnp.sin(a).sum())(jax.device_put(x, jax.devices()[2])), None)),
    # JAX's NumPy functions are jitted: eagerly, each is one fused program (chapter 8)
    "var": B(lambda jax, jnp: jnp.var(on(jax, ROWS), axis=1)),
    "std, keepdims": B(lambda jax, jnp: jnp.std(on(jax, ROWS), axis=0, keepdims=True)),
    "sum, keepdims": B(lambda jax, jnp: jnp.sum(on(jax, ROWS), 1, keepdims=True)),
    "divmod": B(lambda jax, jnp: jnp.divmod(on(jax, WIDE), 3.0)),
    "logaddexp": B(lambda jax, jnp: jnp.logaddexp(*on(jax, WIDE, WIDE[::-1]))),
    "matmul 16x16": B(lambda jax, jnp: on(jax, M16) @ on(jax, N16)),
    "matmul 3x4 4x5": B(lambda jax, jnp: jnp.matmul(*on(jax, F, G))),
    "batched matmul": B(lambda jax, jnp: jnp.matmul(*on(jax, T, T2))),
    "dot of vectors": B(lambda jax, jnp: jnp.dot(*on(jax, TEN, TEN[::-1]))),
    "softmax": B(lambda jax, jnp: jax.nn.softmax(on(jax, ROWS), axis=1)),
    "logsumexp": B(lambda jax, jnp: jax.nn.logsumexp(on(jax, ROWS), axis=1)),
    "a chain": B(lambda jax, jnp: jnp.tanh(on(jax, M16) @ on(jax, N16)).sum(0) * 2.0 + 1.0),
    "printed": C(lambda jax, jnp: [f"{jnp.sin(1.0)}", str(jnp.exp(on(jax, POS)))]),
    # Computation follows data: committed inputs decide the device, and commit the result.
    "uncommitted": C(lambda jax, jnp: placed(jax, jnp.sin, None)),
    "committed to 3": C(lambda jax, jnp: placed(jax, jnp.sin, 3)),
    "committed and uncommitted": C(lambda jax, jnp: placed(jax, jnp.add, 5, None)),
    "uncommitted and committed": C(lambda jax, jnp: placed(jax, jnp.multiply, None, 2)),
    "committed with a scalar": C(lambda jax, jnp: placed(jax, lambda x: x * 2.0 + 1, 6)),
    "committed, reduced": C(lambda jax, jnp: placed(jax, lambda x: x.sum(0), 1)),
    "committed, indexed": C(lambda jax, jnp: placed(jax, lambda x: x[1:, ::2], 4)),
    "committed, two on one device": C(lambda jax, jnp: placed(jax, lambda a, b: a @ b.T, 2, 2)),
    "committed to two devices": E(lambda jax, jnp: placed(jax, jnp.add, 1, 2)),
    "lax, committed to two devices": E(lambda jax, jnp: placed(jax, jax.lax.add, 3, 0)),
    # `jit` too runs where its committed arguments are, and commits its results iff one was
    "jit, uncommitted": C(lambda jax, jnp: placed(jax, jax.jit(lambda a, b: a * b), None, None)),
    "jit, one committed": C(lambda jax, jnp: placed(jax, jax.jit(lambda a, b: a * b), None, 3)),
    "jit, committed to 1, twice": C(lambda jax, jnp: [placed(jax, jax.jit(jnp.sin), 1)
                                                      for _ in range(2)]),
    "jit of NumPy arrays": C(lambda jax, jnp: (lambda y: (y.device.id, y.committed, y))(
        jax.jit(jnp.cos)(F))),
    "jit, committed to two devices": C(lambda jax, jnp: message(
        lambda: placed(jax, jax.jit(lambda a, b: a + b), 1, 2))),
    "jit of a tree on two devices": C(lambda jax, jnp: message(lambda: jax.jit(
        lambda p, s: p["w"] * p["v"] + s)({"w": jax.device_put(F, jax.devices()[4]),
                                           "v": jax.device_put(F, jax.devices()[2])}, 1.0))),
}


@pytest.mark.parametrize("name", _params(EAGER))
def test_eager(name):
    check(EAGER[name])
