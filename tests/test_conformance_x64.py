"""Conformance cases for 64-bit mode (`jax_enable_x64`; chapters 1, 6, 7 and 12, appendices A1
and A25): each program runs inside `with jax.enable_x64(True):`, in JAX and in ours, and the
harness of tests/test_conformance.py compares them. Values of float64 results are compared bit
for bit where XLA computes them the same way in both."""
import os
import warnings
import subprocess
import sys

import numpy as np
import pytest

from test_conformance import B, C, E, J, _params, check

F = np.array([0.5, -2.0, 3.0])                      # float64: kept in 64-bit mode
I = np.array([1, -2, 3])                            # int64
M = np.arange(6.0).reshape(2, 3)
I32, U32 = np.int32(3), np.uint32(2)


def x64(case):
    """The case, run inside `jax.enable_x64(True)`."""
    fn = case.fn

    def in_x64(jax, jnp):
        with jax.enable_x64(True):
            return fn(jax, jnp)
    case.fn = in_x64
    return case


X64 = {name: x64(case) for name, case in {
    # Creation: the default dtypes are 64-bit.
    "array of floats and ints": B(lambda jax, jnp: (jnp.array([1.0, 2.0]), jnp.array([1, 2]))),
    "asarray keeps float64": B(lambda jax, jnp: jnp.asarray(F)),
    "zeros ones eye": B(lambda jax, jnp: (jnp.zeros(3), jnp.ones(2, int), jnp.eye(2))),
    "arange linspace": B(lambda jax, jnp: (jnp.arange(5), jnp.arange(0.0, 1.0, 0.25),
                                           jnp.linspace(0, 1, 5))),
    "full of an int is weak": B(lambda jax, jnp: jnp.full((2,), 7)),
    "empty list": B(lambda jax, jnp: jnp.asarray([])),
    "scalar constructors": B(lambda jax, jnp: (jnp.float64(1.5), jnp.int64(2**40),
                                               jnp.zeros(2, jnp.float_).dtype.name)),
    "Python scalars are weak 64-bit": B(lambda jax, jnp: (jnp.asarray(2.0) + 1,
                                                          jnp.asarray(2**40) + 1,
                                                          jnp.asarray(1 + 2j) * jnp.ones(2))),
    # Promotion: the lattice's uint32 edge, and the weak types at 64 bits.
    "u32 with i32 is i64": B(lambda jax, jnp: jnp.asarray(U32) + jnp.asarray(I32)),
    "u64 with i64 is a weak float": B(lambda jax, jnp: jnp.asarray(np.uint64(2))
                                      + jnp.asarray(np.int64(3))),
    "f32 stays f32": B(lambda jax, jnp: jnp.asarray(F.astype(np.float32)) * 2.0),
    "i32 with a big Python int": B(lambda jax, jnp: jnp.asarray(I32) + 2**40),
    "result_type and promote_types": C(lambda jax, jnp: (
        str(jnp.result_type(1.0, 2)), str(jnp.promote_types(jnp.uint32, jnp.int32)),
        str(jnp.promote_types(int, float)))),
    "concatenate f32 and f64": B(lambda jax, jnp: jnp.concatenate([jnp.ones(2, jnp.float32),
                                                                   jnp.ones(2)])),
    # Inexact results: int32 gives float32 in either mode, int64 float64.
    "sin of int32 and int64": B(lambda jax, jnp: (jnp.sin(np.arange(3, dtype=np.int32)),
                                                  jnp.sin(I), jnp.sin(1), jnp.sqrt(I))),
    "true divide of ints": B(lambda jax, jnp: (jnp.asarray(I) / 2,
                                               jnp.arange(3, dtype=jnp.int32) / 2)),
    "mean var std": C(lambda jax, jnp: (jnp.mean(I), jnp.var(I), jnp.std(I32 * I.astype(np.int32)),
                                        jnp.mean(jnp.array([True, False]))), rtol=1e-15),
    # Reductions and indices: the accumulator and index dtypes are 64-bit.
    "sums of small ints": B(lambda jax, jnp: (jnp.sum(I.astype(np.int8)), jnp.sum(I.astype(
        np.uint8)), jnp.sum(jnp.array([True, False])), jnp.sum(np.arange(3, dtype=np.int32)))),
    "cumsum": B(lambda jax, jnp: (jnp.cumsum(jnp.array([True, True])),
                                  jnp.cumsum(np.arange(3, dtype=np.int32)))),
    "argmax argsort nonzero": B(lambda jax, jnp: (jnp.argmax(F), jnp.argsort(F), jnp.nonzero(I),
                                                  jnp.count_nonzero(I))),
    "sort where clip round": B(lambda jax, jnp: (jnp.sort(F), jnp.where(F > 0, F, 0),
                                                 jnp.clip(I, 0, 2), jnp.round(F))),
    "indexing and at": B(lambda jax, jnp: (jnp.asarray(F)[jnp.array([0, 2])],
                                           jnp.asarray(F).at[1].set(7))),
    "astype and convert": B(lambda jax, jnp: (jnp.ones(2).astype(jnp.int64),
                                              jax.lax.convert_element_type(F, jnp.int64),
                                              jax.lax.iota(int, 3))),
    "repr": C(lambda jax, jnp: (repr(jnp.arange(3.0)), repr(jnp.arange(3)))),
    # Transformations and compilation.
    "jit with a scalar": B(lambda jax, jnp: jax.jit(lambda x, y: x * y + 1.0)(F, 2.0)),
    "jit with an int64 constant": B(lambda jax, jnp: jax.jit(lambda x: x + 2**40)(I)),
    "grad": B(lambda jax, jnp: jax.grad(lambda x: jnp.sum(jnp.sin(x) * x))(F)),
    "hessian": B(lambda jax, jnp: jax.hessian(lambda x: jnp.sum(x ** 3))(F)),
    "vmap": B(lambda jax, jnp: jax.vmap(lambda x: x * 2.0)(F)),
    "scan and fori_loop": B(lambda jax, jnp: (
        jax.lax.scan(lambda c, x: (c + x, c * 2.0), 0.0, F),
        jax.lax.fori_loop(0, 3, lambda i, c: c + i, 0))),
    "softmax": C(lambda jax, jnp: jax.nn.softmax(F), rtol=1e-15),
    "dynamic_slice with an int64 index": B(lambda jax, jnp: jax.jit(
        lambda x, i: jax.lax.dynamic_slice(x, (i, 0), (1, 2)))(M, 1)),
    "device_put and eval_shape": C(lambda jax, jnp: (jax.device_put(F), str(jax.eval_shape(
        lambda x: x * 2, F).dtype))),
    "linalg in float64": C(lambda jax, jnp: (
        jnp.linalg.inv(M[:, :2] + np.eye(2)), jnp.linalg.solve(M[:, :2] + np.eye(2), F[:2]),
        jnp.linalg.det(M[:, :2] + np.eye(2)), jnp.linalg.eigh(np.eye(2) * F[:2]),
        jnp.linalg.cholesky(np.eye(2) * 2), jnp.linalg.qr(M)), rtol=1e-12, atol=1e-12),
    "complex of float64 parts": B(lambda jax, jnp: (jax.lax.complex(F, F),
                                                    jax.jit(jax.lax.complex)(F, F))),
    # Random: 64-bit bits, float64 draws, 64-bit seeds.
    "random draws": B(lambda jax, jnp: (jax.random.uniform(jax.random.key(0), (3,)),
                                        jax.random.normal(jax.random.key(0), (3,)),
                                        jax.random.uniform(jax.random.key(0), (3,),
                                                           jnp.float32))),
    "random bits": B(lambda jax, jnp: (jax.random.bits(jax.random.key(0), (3,)),
                                       jax.random.bits(jax.random.key(0), (3,), jnp.uint32))),
    "random 64-bit seeds": B(lambda jax, jnp: [jax.random.key_data(k) for k in (
        jax.random.key(2**40 + 5), jax.random.key(-3), jax.random.key(jnp.int32(-3)))]
        + [jax.random.PRNGKey(7), jax.random.key_data(jax.vmap(jax.random.key)(jnp.arange(3)))]),
    "random draws of A14": B(lambda jax, jnp: (
        jax.random.randint(jax.random.key(0), (3,), 0, 10),
        jax.random.bernoulli(jax.random.key(1), 0.3, (4,)),
        jax.random.exponential(jax.random.key(2), (2,)),
        jax.random.permutation(jax.random.key(3), 5),
        jax.random.choice(jax.random.key(4), 5, (2,)),
        jax.random.categorical(jax.random.key(5), jnp.zeros(4)),
        jax.random.gamma(jax.random.key(6), 2.0, (2,)))),
    "random under jit": B(lambda jax, jnp: jax.jit(lambda k: jax.random.normal(k, (2,)))(
        jax.random.key(3))),
    # Printed jaxprs.
    "jaxpr of floats": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jnp.sin(x) * 2.0 + 1)(F)),
    "jaxpr of a Python int": J(lambda jax, jnp: jax.make_jaxpr(lambda x: x + 1)(1)),
    "jaxpr of grad": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(lambda x: x * x * 3.0))(1.0)),
    "jaxpr of indexing": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, i: (x[jnp.array([0, 1])], x[1], x[:, 1:], x[i], x.at[0, 1].set(2.0)))(M, 1)),
    "jaxpr of reductions": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: (jnp.sum(x, 0), jnp.mean(x), jnp.argmax(x), jnp.cumsum(x)))(M)),
    "jaxpr of control flow": J(lambda jax, jnp: jax.make_jaxpr(lambda x: (
        jax.lax.scan(lambda c, y: (c + y, c), 0.0, x),
        jax.lax.cond(x[0] > 0, jnp.sin, jnp.cos, x)))(F)),
    "jaxpr of jit, vmap and pow": J(lambda jax, jnp: jax.make_jaxpr(lambda x: (
        jax.jit(lambda y: y * 2)(x), jax.vmap(lambda y: jnp.dot(y, y))(x), x ** 3 + 2 ** x,
        x.astype(jnp.int32), jnp.concatenate([x, x]), jnp.clip(x, 0, 1), jnp.sort(x)))(M)),
    "jaxpr of dynamic_slice": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x, i: jax.lax.dynamic_slice(x, (i, 0), (1, 2)))(M, 1)),
    # Errors.
    "int beyond int64": E(lambda jax, jnp: jnp.asarray(2**64)),
}.items()}


@pytest.mark.parametrize("name", _params(X64))
def test_x64(name):
    check(X64[name])


def test_the_mode_ends_with_the_block():
    import autodidax as jax
    import autodidax.numpy as jnp
    with jax.enable_x64(True):
        assert jnp.ones(1).dtype == np.float64 and jax.enable_x64.value
    assert jnp.ones(1).dtype == np.float32 and not jax.enable_x64.value
    assert jax.jit(lambda x: x * 2.0)(1.0).dtype == np.float32    # no program of the mode kept


def test_the_environment_variable_turns_it_on():
    """`JAX_ENABLE_X64=1` before the import, as JAX reads it; a word that is no truth value is
    refused."""
    run = lambda value: subprocess.run(
        [sys.executable, "-c", "import autodidax.numpy as jnp; print(jnp.ones(1).dtype)"],
        capture_output=True, text=True, env={**os.environ, "JAX_ENABLE_X64": value})
    assert run("1").stdout.strip() == "float64"
    bad = run("maybe")
    assert bad.returncode != 0 and "invalid truth value 'maybe'" in bad.stderr


def _warnings(jnp, jax):
    """The warnings of calls that ask for 64-bit dtypes, with 64-bit mode off."""
    calls = [lambda: jnp.zeros(2, np.float64), lambda: jnp.ones(2, "int64"),
             lambda: jnp.asarray([1.0], np.float64), lambda: jnp.array(1.0, dtype=jnp.float64),
             lambda: jnp.full(2, 1, np.uint64), lambda: jnp.arange(3, dtype=np.int64),
             lambda: jnp.linspace(0, 1, 3, dtype=np.float64),
             lambda: jnp.ones(2).astype(np.float64), lambda: jnp.astype(jnp.ones(2), np.complex128),
             lambda: jnp.empty(2, np.float64), lambda: jnp.identity(2, np.float64),
             lambda: jnp.full_like(jnp.ones(2), 1, np.int64),
             lambda: jnp.zeros_like(jnp.ones(2), np.float64), lambda: jnp.ones_like(I, np.int64),
             lambda: jnp.zeros(2, float), lambda: jnp.zeros(2, np.float32)]
    seen = []
    for call in calls:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        seen.append([(w.category.__name__, str(w.message)) for w in caught])
    return seen


def test_a_64_bit_dtype_asked_for_warns_as_in_jax():
    """With 64-bit mode off, `dtype=np.float64` is truncated to float32 with JAX's warning, in
    JAX's words and naming the same function; a Python type or a 32-bit dtype does not warn."""
    import jax
    import jax.numpy as jnp_ref
    import autodidax
    import autodidax.numpy as jnp
    ours, theirs = _warnings(jnp, autodidax), _warnings(jnp_ref, jax)
    assert ours == theirs
    assert sum(map(len, ours)) == 14
    with autodidax.enable_x64(True):
        assert not any(_warnings(jnp, autodidax))
