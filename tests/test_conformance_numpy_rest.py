"""Conformance cases for appendix A24's part of `jax.numpy` (autodidax/numpy_rest.py): values,
dtypes and weak types, errors, and jaxprs, against JAX. Same harness as
tests/test_conformance.py."""
import numpy as np
import pytest

from test_conformance import C, E, F, F16, F32, I, I8, I32, J, NAN, T, V3, _params, check

X6 = np.array([-2.0, -0.0, 0.0, 0.5, np.nan, np.inf], np.float32)
Y6 = np.array([1.0, -1.0, np.nan, -0.25, 2.0, -np.inf], np.float32)
M23 = np.arange(6, dtype=np.int32).reshape(2, 3)
UNIT = np.linspace(-0.9, 0.9, 7).astype(np.float32)
BIG = np.linspace(1.1, 4.0, 7).astype(np.float32)

ALIASES = ["acos", "asin", "atan", "atanh", "asinh"]
REST = {
    **{f"{name}": C(lambda jax, jnp, name=name: getattr(jnp, name)(UNIT)) for name in ALIASES},
    "acosh": C(lambda jax, jnp: jnp.acosh(BIG)),
    "acos int": C(lambda jax, jnp: jnp.acos(np.array([0, 1], np.int32))),
    "atan2": C(lambda jax, jnp: jnp.atan2(X6, Y6)),
    "bitwise_invert": C(lambda jax, jnp: jnp.bitwise_invert(M23)),
    "bitwise_invert bool": C(lambda jax, jnp: jnp.bitwise_invert(np.array([True, False]))),
    "pow": C(lambda jax, jnp: jnp.pow(F32, 2)),
    "fabs": C(lambda jax, jnp: jnp.fabs(X6)),
    "fabs int": C(lambda jax, jnp: jnp.fabs(np.array([-3, 2], np.int8))),
    "fabs weak": C(lambda jax, jnp: jnp.fabs(-2.5)),
    "deg2rad rad2deg": C(lambda jax, jnp: (jnp.deg2rad(F32), jnp.rad2deg(F32), jnp.radians(90),
                                           jnp.degrees(np.float16(1.0)))),
    "signbit": C(lambda jax, jnp: jnp.signbit(X6)),
    "signbit int bool": C(lambda jax, jnp: (jnp.signbit(np.array([-1, 0, 3])),
                                            jnp.signbit(np.array([True, False])))),
    "signbit float16": C(lambda jax, jnp: jnp.signbit(np.array([-0.0, 1.0], np.float16))),
    "copysign": C(lambda jax, jnp: jnp.copysign(X6, Y6)),
    "copysign scalar": C(lambda jax, jnp: jnp.copysign(2.0, -0.0)),
    "copysign int": C(lambda jax, jnp: jnp.copysign(np.array([1, -2]), np.array([-1, 1]))),
    "fmax fmin": C(lambda jax, jnp: (jnp.fmax(X6, Y6), jnp.fmin(X6, Y6))),
    "fmax weak": C(lambda jax, jnp: jnp.fmax(1.0, 2)),
    "fmax int": C(lambda jax, jnp: jnp.fmin(M23, np.int8(3))),
    "fmod": C(lambda jax, jnp: jnp.fmod(np.array([-7.5, 7.5, -3.0], np.float32), 2.0)),
    "fmod int by zero": C(lambda jax, jnp: jnp.fmod(np.array([-7, 7, 5]), np.array([3, -3, 0]))),
    "float_power": C(lambda jax, jnp: jnp.float_power(np.array([2, 3]), np.array([0.5, -1.0]))),
    "real imag conj": C(lambda jax, jnp: (jnp.real(F32), jnp.imag(F32), jnp.conjugate(I32),
                                          jnp.conj(2.0), jnp.imag(3))),
    "isscalar": C(lambda jax, jnp: [jnp.isscalar(x) for x in
                                    (1.0, np.float32(2), jnp.asarray(3.0), F32, "s", [1], None)]),
    "iscomplexobj": C(lambda jax, jnp: [(jnp.iscomplexobj(x), jnp.isrealobj(x))
                                        for x in (1j, 1.0, F32, np.ones(2, np.complex64))]),
    "fliplr flipud": C(lambda jax, jnp: (jnp.fliplr(T), jnp.flipud(T), jnp.flipud(V3))),
    "fliplr vector": E(lambda jax, jnp: jnp.fliplr(V3)),
    **{f"rot90 k={k}": C(lambda jax, jnp, k=k: jnp.rot90(T, k)) for k in (-1, 0, 1, 2, 3, 5)},
    "rot90 axes": C(lambda jax, jnp: jnp.rot90(T, 1, (2, 0))),
    "rot90 vector": E(lambda jax, jnp: jnp.rot90(V3)),
    "rot90 same axes": E(lambda jax, jnp: jnp.rot90(T, 1, (1, -2))),
    "rot90 grad": C(lambda jax, jnp: jax.grad(lambda m: (jnp.rot90(m) * F).sum())(F.T)),
    "diff": C(lambda jax, jnp: (jnp.diff(F32), jnp.diff(T, 2), jnp.diff(T, 1, 0))),
    "diff prepend append": C(lambda jax, jnp: jnp.diff(M23, append=9, prepend=M23[:, :1])),
    "diff bool": C(lambda jax, jnp: jnp.diff(np.array([True, False, False, True]))),
    "diff n=0": C(lambda jax, jnp: jnp.diff(F32, 0)),
    "diff negative n": E(lambda jax, jnp: jnp.diff(F32, -1)),
    "diff scalar": E(lambda jax, jnp: jnp.diff(2.0)),
    "diff weak": C(lambda jax, jnp: jnp.diff(jnp.asarray([1.0, 2.0]) * 2.0)),
    "ediff1d": C(lambda jax, jnp: (jnp.ediff1d(T), jnp.ediff1d(M23, to_end=np.array([7, 8]),
                                                             to_begin=-1))),
    "ediff1d list": E(lambda jax, jnp: jnp.ediff1d(M23, to_end=[7, 8])),
    "append": C(lambda jax, jnp: (jnp.append(M23, [[1.5, 2.5, 3.5]], 0), jnp.append(V3, I8))),
    "atleast_3d": C(lambda jax, jnp: [jnp.atleast_3d(x).shape for x in (2.0, V3, F, T)]),
    "atleast_3d several": C(lambda jax, jnp: jnp.atleast_3d(1, V3)),
    "concat": C(lambda jax, jnp: (jnp.concat([F, F]), jnp.concat([F, F], axis=1))),
    "array_equal": C(lambda jax, jnp: (jnp.array_equal(F32, F32), jnp.array_equal(F32, V3),
                                       jnp.array_equal(NAN, NAN), jnp.array_equal(NAN, NAN, True))),
    "array_equiv": C(lambda jax, jnp: (jnp.array_equiv(M23, M23[0]),
                                       jnp.array_equiv(np.ones((2, 3)), np.ones(3)),
                                       jnp.array_equiv(np.ones((2, 3)), np.ones(2)))),
    "diag_indices": C(lambda jax, jnp: (jnp.diag_indices(3), jnp.diag_indices(2, 3),
                                        jnp.diag_indices(0))),
    "diag_indices negative": E(lambda jax, jnp: jnp.diag_indices(-1)),
    "indices": C(lambda jax, jnp: (jnp.indices((2, 3)), jnp.indices((2, 3), sparse=True),
                                   jnp.indices(()), jnp.indices((2,), jnp.int8))),
    "tril triu indices": C(lambda jax, jnp: (jnp.tril_indices(3), jnp.triu_indices(3),
                                             jnp.tril_indices(3, -1, 4), jnp.triu_indices(2, 1, 5),
                                             jnp.triu_indices(3, 5), jnp.tril_indices(4, -6))),
    # jaxprs: each staged as JAX stages it (a `jit` equation, or inlined)
    **{f"{name} jaxpr": J(lambda jax, jnp, name=name, args=args: jax.make_jaxpr(
        getattr(jnp, name))(*args)) for name, args in [
        ("fmax", (1.0, F32)), ("fmin", (F32, F32)), ("signbit", (F32,)), ("copysign", (F32, 2)),
        ("fmod", (I32, 3)), ("fabs", (I32,)), ("deg2rad", (F32,)), ("diff", (T,)),
        ("rot90", (T,)), ("ediff1d", (T,)), ("append", (F32, 1.0)), ("atleast_3d", (V3,)),
        ("float_power", (F32, 2)), ("acos", (F32,)), ("imag", (F32,)), ("array_equal", (F, F))]},
    "tril_indices traced n": E(lambda jax, jnp: jax.jit(jnp.tril_indices)(3)),
    "triu_indices traced m": E(lambda jax, jnp: jax.jit(lambda m: jnp.triu_indices(3, 0, m))(3)),
    "cumulative_sum": C(lambda jax, jnp: (jnp.cumulative_sum(I8), jnp.cumulative_sum(F, axis=1),
                                          jnp.cumulative_sum(M23, axis=0, include_initial=True),
                                          jnp.cumulative_sum(np.array([True, True])),
                                          jnp.cumulative_sum(I32, dtype=bool))),
    "cumulative_prod": C(lambda jax, jnp: (jnp.cumulative_prod(I8), jnp.cumulative_prod(
        T, axis=-1, include_initial=True), jnp.cumulative_prod(np.array([2, 3], np.uint8)))),
    "cumulative_sum axis needed": E(lambda jax, jnp: jnp.cumulative_sum(F)),
    "cumulative_prod scalar": E(lambda jax, jnp: jnp.cumulative_prod(2.0)),
    "cumulative_sum jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jnp.cumulative_sum(x, include_initial=True))(I8)),
    "cumulative_sum grad": C(lambda jax, jnp: jax.grad(
        lambda x: jnp.cumulative_sum(x, axis=1).sum())(F)),
    "argwhere": C(lambda jax, jnp: (jnp.argwhere(F > 0), jnp.argwhere(M23, size=7, fill_value=-1),
                                    jnp.argwhere(np.float32(2)), jnp.argwhere(0.0))),
    "argwhere jit": C(lambda jax, jnp: jax.jit(lambda x: jnp.argwhere(x, size=3))(V3)),
    "argwhere traced": E(lambda jax, jnp: jax.jit(jnp.argwhere)(V3)),
    "flatnonzero": C(lambda jax, jnp: (jnp.flatnonzero(M23), jnp.flatnonzero(F > 0, size=2))),
    "matrix_transpose": C(lambda jax, jnp: (jnp.matrix_transpose(T), jnp.matrix_transpose(F))),
    "matrix_transpose vector": E(lambda jax, jnp: jnp.matrix_transpose(V3)),
    "isreal iscomplex": C(lambda jax, jnp: (jnp.isreal(F), jnp.iscomplex(I32), jnp.isreal(2.0))),
    "isreal jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jnp.isreal)(F)),
    "inner": C(lambda jax, jnp: (jnp.inner(F, V3[:1].repeat(4)), jnp.inner(F, F), jnp.inner(2, F32),
                                 jnp.inner(I32, I32), jnp.inner(T, F))),
    "inner preferred": C(lambda jax, jnp: jnp.inner(3, I32, preferred_element_type=np.float32)),
    "inner jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jnp.inner)(F, F)),
    "inner shapes": E(lambda jax, jnp: jnp.inner(F, V3)),
    "column_stack": C(lambda jax, jnp: (jnp.column_stack([V3, V3]), jnp.column_stack([F.T, V3]),
                                        jnp.column_stack((I32, F32)))),
    "column_stack jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a, b: jnp.column_stack([a, b]))(V3, V3)),
    "dstack": C(lambda jax, jnp: (jnp.dstack([V3, V3]), jnp.dstack([F, F]), jnp.dstack([T, T]),
                                  jnp.dstack((1.0, 2)))),
    "copysign grad": C(lambda jax, jnp: jax.grad(lambda x: jnp.copysign(x, -1.0).sum())(F32)),
    "fmax grad": C(lambda jax, jnp: jax.grad(lambda x, y: jnp.fmax(x, y).sum(), (0, 1))(X6, Y6)),
    "float16": C(lambda jax, jnp: (jnp.fmax(F16, 1.0), jnp.copysign(F16, -1), jnp.diff(F16))),
}


@pytest.mark.parametrize("name", _params(REST))
def test_numpy_rest(name):
    check(REST[name])
