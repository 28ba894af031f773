"""Conformance cases for the dtypes beyond the nine of the first chapters: complex64 (and Python
complex scalars), bfloat16, the 8-bit floats of `jax.numpy` (float8_e4m3fn, float8_e5m2,
float8_e4m3fnuz, float8_e5m2fnuz, float8_e4m3b11fnuz, float8_e3m4, float8_e4m3, float8_e8m0fnu),
float4_e2m1fn and the sub-byte integers int4, uint4, int2, uint2: creation, promotion,
arithmetic, jaxprs and round trips through `jit`, and differentiation (complex autodiff as in
JAX's "Complex numbers and differentiation" tutorial, and bfloat16 gradients). Same harness as
tests/test_conformance.py, whose `_compare_values` compares the ml_dtypes floats (bfloat16,
float8, float4) as float32 (they are float32 values), the sub-byte integers as int32, and complex
values with the case's tolerance.

Programs of several operations run under `jax.jit` (one compilation instead of one per
operation), which keeps the file fast; the single operations, the tutorial's cells and the error
cases run eagerly. A `C` case whose JAX side raises (some of the generated promotion cases) is
checked as an `E` case is: ours must raise the same class."""
import ml_dtypes
import numpy as np
import pytest

from test_conformance import B, C, E, F, F32, I32, J, V, _params, check

# ----------------------------------------------------------------------------------------------
# Inputs.
rng = np.random.default_rng(7)
Z = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j, 0j, -2 - 3j], np.complex64)        # (5,) complex64
ZW = np.array([0.5 - 1j, 2 + 0j, -1 + 1j, 1.5 + 0.5j, 0.25j], np.complex64)    # no zeros
ZR = ZW[::-1].copy()
Z128 = Z.astype(np.complex128)
ZA = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(np.complex64)
ZB = (rng.standard_normal((4, 2)) + 1j * rng.standard_normal((4, 2))).astype(np.complex64)
ZODD = np.array([1 + 1j, complex(np.nan, 0), complex(0, np.inf), complex(np.inf, np.nan),
                 complex(-np.inf, 1)], np.complex64)
Z0 = 3.0 + 4j                                               # the tutorial's point
BF16, F8E4, F8E5 = ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2
BF = np.array([-2.5, -0.5, 0.0, 1.5, 4.0], BF16)            # the values of F32, in bfloat16
BF2 = np.array([0.75, -3.0, 2.0, 0.5, -1.25], BF16)
BFU = np.array([3.0, -1.0, 7.5, 0.25, 7.5, -8.0], BF16)     # unsorted, a tie
BFODD = np.array([1.0, np.nan, np.inf, -np.inf, 0.0], BF16)
BFA = ((np.arange(12) % 5) - 2).reshape(3, 4).astype(BF16)  # small integers: exact products
BFB = ((np.arange(20) % 3) - 1).reshape(4, 5).astype(BF16)
BF_TENTHS = np.full(1000, 0.1, BF16)                        # sums differently in bf16 and f32
F8 = BF.astype(F8E4)
F8B = BF2.astype(F8E4)
F16 = np.array([-2.5, -0.5, 0.0, 1.5, 4.0], np.float16)
I4 = np.array([-8, -1, 0, 3, 7], ml_dtypes.int4)
U4 = np.array([0, 1, 7, 8, 15], ml_dtypes.uint4)
I2 = np.array([-2, -1, 0, 1], ml_dtypes.int2)
U2 = np.array([0, 1, 2, 3], ml_dtypes.uint2)
# The tutorial's Hermitian positive definite matrix, for the gradient through cholesky.
HERM = np.array([[5., 2. + 3j, 5j], [2. - 3j, 7., 1. + 7j], [-5j, 1. - 7j, 12.]], np.complex64)
# The tutorial's linear u, v of its JVP and VJP checks, with fixed coefficients.
CA, CB, CC, CD = 0.3, -1.2, 0.7, 2.0

FLOAT8 = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
          "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu"]
SMALL_FLOATS = ["bfloat16", *FLOAT8, "float4_e2m1fn"]
SUB_BYTE_INTS = ["int4", "uint4", "int2", "uint2"]
NEW = ["complex64", *SMALL_FLOATS, *SUB_BYTE_INTS]
# One array per new dtype, of values each represents exactly (float8_e8m0fnu: powers of two).
ARRS = {**{name: np.array([-2.0, -0.5, 0.0, 1.5, 4.0], np.float32).astype(getattr(ml_dtypes, name))
           for name in SMALL_FLOATS if name not in ("float8_e8m0fnu", "float4_e2m1fn")},
        "float8_e8m0fnu": np.array([0.25, 1.0, 2.0, 64.0], ml_dtypes.float8_e8m0fnu),
        "float4_e2m1fn": np.array([-6.0, -0.5, 0.0, 1.5, 4.0], ml_dtypes.float4_e2m1fn),
        "complex64": Z, "int4": I4, "uint4": U4, "int2": I2, "uint2": U2}
PROMOTE = ["bool", "uint8", "int8", "int32", "uint32", "float16", "bfloat16", "float32",
           "complex64", "float8_e4m3fn", "float8_e5m2"]
UNARY = ["sin", "cos", "exp", "log", "sqrt", "tanh", "abs", "sign", "square", "reciprocal"]


def _tutorial_fun(jnp):
    """The tutorial's `fun(z) = u(x, y) + v(x, y) i`, u and v linear."""
    def fun(z):
        x, y = jnp.real(z), jnp.imag(z)
        return (CA * x + CB * y) + (CC * x + CD * y) * 1j
    return fun


def _cholesky_loss(jnp):
    def f(X):
        L = jnp.linalg.cholesky(X)
        return jnp.sum((L - jnp.sin(L)) ** 2)
    return f


# ----------------------------------------------------------------------------------------------
# Creation, dtype objects, finfo and iinfo.
CREATION = {
    "array of a complex list": C(lambda jax, jnp: jnp.array([1 + 2j])),
    "array of mixed scalars": C(lambda jax, jnp: jnp.array([1, 2.0, 1j])),
    "asarray 1j is weak": C(lambda jax, jnp: jnp.asarray(1j)),
    "array 1j is weak": C(lambda jax, jnp: (jnp.array(1j), jnp.array(1j) * 2)),
    "zeros complex64": C(lambda jax, jnp: jnp.zeros(3, jnp.complex64)),
    "zeros of builtin complex": C(lambda jax, jnp: jnp.zeros(2, complex)),
    "full complex": C(lambda jax, jnp: jnp.full((2,), 1 - 1j)),
    "asarray numpy complex64": C(lambda jax, jnp: jnp.asarray(Z)),
    "asarray numpy complex128": C(lambda jax, jnp: jnp.asarray(Z128)),
    "asarray numpy complex scalar": C(lambda jax, jnp: jnp.asarray(np.complex64(1 - 2j))),
    "array float32 to bfloat16": C(lambda jax, jnp: jnp.array(F32, jnp.bfloat16)),
    "asarray numpy bfloat16": C(lambda jax, jnp: jnp.asarray(BF)),
    "asarray numpy float8 int4": C(lambda jax, jnp: (jnp.asarray(F8), jnp.asarray(I4))),
    "arange bfloat16": C(lambda jax, jnp: jnp.arange(3, dtype=jnp.bfloat16)),
    "arange complex64": C(lambda jax, jnp: jnp.arange(0, 1, 0.25, dtype=jnp.complex64)),
    "linspace bfloat16": C(lambda jax, jnp: jnp.linspace(0, 1, 3, dtype=jnp.bfloat16)),
    "zeros_like ones_like": C(lambda jax, jnp: (jnp.zeros_like(BF), jnp.ones_like(Z),
                                                jnp.full_like(F8, 2))),
    **{f"ones zeros {name}": C(lambda jax, jnp, name=name: (jnp.ones(2, getattr(jnp, name)),
                                                            jnp.zeros(2, getattr(jnp, name))))
       for name in NEW},
    **{f"scalar type call {name}": C(lambda jax, jnp, name=name: getattr(jnp, name)(1))
       for name in NEW},
    "scalar type call bfloat16 2.5": C(lambda jax, jnp: jnp.bfloat16(2.5)),
    "scalar type call complex64 1j": C(lambda jax, jnp: jnp.complex64(1j)),
    "scalar type call of an array": C(lambda jax, jnp: jnp.bfloat16(F32)),
    # astype round trips
    "float32 to bfloat16 and back": C(lambda jax, jnp: jnp.asarray(F).astype(jnp.bfloat16)
                                      .astype(jnp.float32)),
    "int32 to bfloat16 and back": C(lambda jax, jnp: jnp.asarray(I32).astype(jnp.bfloat16)
                                    .astype(jnp.int32)),
    "float32 to complex64 and back": C(lambda jax, jnp: jnp.asarray(F32).astype(jnp.complex64)
                                       .astype(jnp.float32)),
    "complex64 to float32 drops imag": C(lambda jax, jnp: jnp.asarray(Z).astype(jnp.float32)),
    "complex64 to int32": C(lambda jax, jnp: jnp.asarray(ZW * 3).astype(jnp.int32)),
    "bfloat16 to complex64": C(lambda jax, jnp: jnp.asarray(BF).astype(jnp.complex64)),
    "bfloat16 to float16": C(lambda jax, jnp: jnp.asarray(BF).astype(jnp.float16)),
    **{f"float32 to {name} and back": C(lambda jax, jnp, name=name: (
        lambda y: (y, y.astype(jnp.float32)))(jnp.asarray(ARRS[name].astype(np.float32))
                                             .astype(name))) for name in SMALL_FLOATS},
    **{f"int32 to {name} and back": C(lambda jax, jnp, name=name: (
        lambda y: (y, y.astype(jnp.int32)))(jnp.asarray(ARRS[name].astype(np.int32))
                                           .astype(name))) for name in SUB_BYTE_INTS},
    "rounding to bfloat16": C(lambda jax, jnp: jnp.asarray(
        np.float32([1.00390625, 1.01171875, 3.14159, 1e-40, 3.4e38])).astype(jnp.bfloat16)),
    "rounding to float8_e4m3fn saturates to nan": C(lambda jax, jnp: jnp.asarray(
        np.float32([0.3, 500.0, -1000.0, 1e-3])).astype(jnp.float8_e4m3fn)),
    "lax.convert_element_type to float8": C(lambda jax, jnp: jax.lax.convert_element_type(
        F32, jnp.float8_e5m2)),
    "lax.convert_element_type complex": C(lambda jax, jnp: (
        jax.lax.convert_element_type(1 + 2j, np.complex64),
        jax.lax.convert_element_type(Z, np.float32), jax.lax.convert_element_type(BF, Z.dtype))),
    "lax.convert_element_type of 1+2j to float32": E(
        lambda jax, jnp: jax.lax.convert_element_type(1 + 2j, np.float32)),
    # dtype objects
    "dtype by name": C(lambda jax, jnp: [jnp.dtype(name) for name in NEW]),
    "dtype of the scalar types": C(lambda jax, jnp: [jnp.dtype(getattr(jnp, name))
                                                     for name in NEW]),
    "dtype c8 and complex": C(lambda jax, jnp: (jnp.dtype("c8"), jnp.dtype(jnp.complex_))),
    "dtype of arrays": C(lambda jax, jnp: [jnp.asarray(a).dtype for a in ARRS.values()]),
    "dtype names and itemsize": C(lambda jax, jnp: [(jnp.dtype(n).name, jnp.dtype(n).itemsize)
                                                    for n in NEW]),
    "issubdtype": C(lambda jax, jnp: [
        (jnp.issubdtype(getattr(jnp, n), jnp.floating),
         jnp.issubdtype(getattr(jnp, n), jnp.complexfloating),
         jnp.issubdtype(getattr(jnp, n), jnp.inexact),
         jnp.issubdtype(getattr(jnp, n), jnp.signedinteger),
         jnp.issubdtype(getattr(jnp, n), jnp.unsignedinteger)) for n in NEW]),
    "isdtype": C(lambda jax, jnp: [(jnp.isdtype(getattr(jnp, n), "real floating"),
                                    jnp.isdtype(getattr(jnp, n), "complex floating"),
                                    jnp.isdtype(getattr(jnp, n), "integral")) for n in NEW]),
    "iscomplexobj": C(lambda jax, jnp: [jnp.iscomplexobj(x) for x in (Z, BF, 1j, jnp.asarray(Z))]),
    "finfo bfloat16": C(lambda jax, jnp: (
        lambda fi: (fi.eps, fi.max, fi.min, fi.tiny, fi.smallest_normal, fi.bits,
                    fi.resolution, fi.dtype))(jnp.finfo(jnp.bfloat16))),
    **{f"finfo {name}": C(lambda jax, jnp, name=name: (
        lambda fi: (fi.eps, fi.max, fi.tiny, fi.bits, fi.dtype))(jnp.finfo(getattr(jnp, name))))
       for name in [*FLOAT8, "float4_e2m1fn"]},
    "finfo complex64": C(lambda jax, jnp: (
        lambda fi: (fi.eps, fi.max, fi.bits, fi.dtype))(jnp.finfo(jnp.complex64))),
    **{f"iinfo {name}": C(lambda jax, jnp, name=name: (
        lambda ii: (ii.min, ii.max, ii.bits, ii.dtype))(jnp.iinfo(getattr(jnp, name))))
       for name in SUB_BYTE_INTS},
    "iinfo of bfloat16": E(lambda jax, jnp: jnp.iinfo(jnp.bfloat16)),
}

# ----------------------------------------------------------------------------------------------
# Promotion.
PROMOTION = {
    # every pair both ways, and each dtype with a Python int, float and complex: a dtype, or
    # JAX's TypePromotionError where there is no implicit promotion (8-bit floats, 4-bit floats,
    # sub-byte integers)
    **{f"promote_types {a} {b}": V(lambda jax, jnp, a=a, b=b: (jnp.promote_types(a, b),
                                                               jnp.promote_types(b, a)))
       for i, a in enumerate(PROMOTE) for b in PROMOTE[i:]},
    **{f"result_type {s!r} {name}": V(lambda jax, jnp, s=s, name=name: jnp.result_type(
        s, getattr(jnp, name))) for name in dict.fromkeys([*PROMOTE, *NEW]) for s in (1, 1.0, 1j)},
    "result_type of arrays": C(lambda jax, jnp: (jnp.result_type(BF, F16), jnp.result_type(Z, BF),
                                                 jnp.result_type(BF, 2.0), jnp.result_type(F8))),
    "promote float8 with float32": E(lambda jax, jnp: jnp.promote_types(jnp.float8_e4m3fn,
                                                                        jnp.float32)),
    "promote two float8": E(lambda jax, jnp: jnp.promote_types("float8_e4m3fn", "float8_e5m2")),
    "promote int4 with int8": E(lambda jax, jnp: jnp.promote_types(jnp.int4, jnp.int8)),
    "promote int4 with float32": E(lambda jax, jnp: jnp.promote_types(jnp.int4, jnp.float32)),
    "promote float4 with float8": E(lambda jax, jnp: jnp.promote_types(jnp.float4_e2m1fn,
                                                                       jnp.float8_e4m3fn)),
    # arrays with Python scalars: the array's dtype wins unless the scalar's kind is higher
    **{f"{name} + 1.0": C(lambda jax, jnp, name=name: jnp.asarray(ARRS[name]) + 1.0)
       for name in ["bfloat16", "float8_e4m3fn", "float8_e5m2", "complex64"]},
    "bfloat16 + 1j": C(lambda jax, jnp: jnp.asarray(BF) + 1j),
    **{f"{name} + 1j": E(lambda jax, jnp, name=name: jnp.asarray(ARRS[name]) + 1j)
       for name in ["float8_e4m3fn", "float8_e5m2", "int4"]},
    **{f"{name} * 2": C(lambda jax, jnp, name=name: jnp.asarray(ARRS[name]) * 2)
       for name in ["bfloat16", "float8_e4m3fn", "complex64", "int4", "uint4"]},
    "float16 + 1j": C(lambda jax, jnp: jnp.asarray(F16) + 1j),
    "float16 + 1.0": C(lambda jax, jnp: jnp.asarray(F16) + 1.0),
    "int4 + 1.0": E(lambda jax, jnp: jnp.asarray(I4) + 1.0),
    "weak float + 1j": C(lambda jax, jnp: jnp.asarray(2.0) + 1j),
    "int32 array + 1j": C(lambda jax, jnp: jnp.asarray(I32) + 1j),
    "1j * float32 array": C(lambda jax, jnp: 1j * jnp.asarray(F32)),
    "bfloat16 + float16": C(lambda jax, jnp: jnp.asarray(BF) + F16),
    "bfloat16 + float32": C(lambda jax, jnp: jnp.asarray(BF) + F32),
    "bfloat16 + int32": C(lambda jax, jnp: jnp.asarray(BF) + I32),
    "bfloat16 + complex64": C(lambda jax, jnp: jnp.asarray(BF) + Z),
    "complex64 + float32": C(lambda jax, jnp: jnp.asarray(Z) + F32),
    "complex64 + int32": C(lambda jax, jnp: jnp.asarray(Z) + I32),
    "float8 + float32": E(lambda jax, jnp: jnp.asarray(F8) + F32),
    "float8 + bfloat16": E(lambda jax, jnp: jnp.asarray(F8) + BF),
    "float8 + complex64": E(lambda jax, jnp: jnp.add(F8, Z)),
    "float8 + float8_e5m2": E(lambda jax, jnp: jnp.asarray(F8) + BF.astype(F8E5)),
    "int4 + int8": E(lambda jax, jnp: jnp.asarray(I4) + np.int8(1)),
    "float8 + int32": C(lambda jax, jnp: jnp.asarray(F8) + I32),
    "where bfloat16 and 0.0": C(lambda jax, jnp: jnp.where(BF > 0, BF, 0.0)),
    "concatenate bfloat16 float16": C(lambda jax, jnp: jnp.concatenate([BF, F16])),
    "lax.add bfloat16 float32": E(lambda jax, jnp: jax.lax.add(BF, F32)),
}

# ----------------------------------------------------------------------------------------------
# Arithmetic, elementwise functions and reductions.
ARITHMETIC = {
    # one operation each, eagerly (op by op, as the user calls them)
    **{f"complex {op}": C(lambda jax, jnp, op=op: getattr(jnp, op)(Z, ZW))
       for op in ["add", "subtract", "multiply", "divide"]},
    **{f"bfloat16 {op}": C(lambda jax, jnp, op=op: getattr(jnp, op)(BF, BF2))
       for op in ["add", "subtract", "multiply", "divide"]},
    **{f"complex {name}": C(lambda jax, jnp, name=name: getattr(jnp, name)(ZW))
       for name in UNARY},
    **{f"bfloat16 {name}": C(lambda jax, jnp, name=name: getattr(jnp, name)(BF))
       for name in UNARY},
    "float8 add multiply": C(lambda jax, jnp: (jnp.add(F8, F8B), jnp.multiply(F8, F8B))),
    "float8 sin abs": C(lambda jax, jnp: (jnp.sin(F8), jnp.abs(F8))),
    "complex divide by zero": C(lambda jax, jnp: jnp.asarray(Z) / 0),
    "complex log of zero": C(lambda jax, jnp: jnp.log(Z)),
    "complex abs is float32": C(lambda jax, jnp: jnp.abs(jnp.asarray(ZA))),
    "angle deg": C(lambda jax, jnp: jnp.angle(Z, deg=True)),
    "lax.complex": C(lambda jax, jnp: jax.lax.complex(F32, F32[::-1].copy())),
    "lax.real of float": E(lambda jax, jnp: jax.lax.real(F32)),
    "sort complex": C(lambda jax, jnp: jnp.sort(Z)),
    "argmax complex": E(lambda jax, jnp: jnp.argmax(Z)),
    "clip bfloat16": C(lambda jax, jnp: jnp.clip(BF, -1, 2)),
    "power complex float": C(lambda jax, jnp: jnp.asarray(ZW) ** 0.5, rtol=1e-5, atol=1e-6),
    "power complex complex": C(lambda jax, jnp: jnp.power(ZW, ZR), rtol=1e-5, atol=1e-6),
    "power float to complex": C(lambda jax, jnp: 2.0 ** jnp.asarray(ZW), rtol=1e-5, atol=1e-6),
    "matmul complex": C(lambda jax, jnp: jnp.asarray(ZA) @ ZB, rtol=1e-5, atol=1e-5),
    "vdot complex": C(lambda jax, jnp: jnp.vdot(Z, ZW), rtol=1e-5, atol=1e-5),
    "matmul complex float32": C(lambda jax, jnp: jnp.matmul(ZA, F.T), rtol=1e-5, atol=1e-5),
    "matmul bfloat16": C(lambda jax, jnp: jnp.asarray(BFA) @ BFB),
    "dot bfloat16 vectors": C(lambda jax, jnp: jnp.dot(BF, BF2)),
    "matmul bfloat16 float32": C(lambda jax, jnp: jnp.matmul(BFA, F.T), rtol=1e-5, atol=1e-5),
    "sum mean of many bfloat16": C(lambda jax, jnp: (jnp.sum(BF_TENTHS), jnp.mean(BF_TENTHS))),
    "sum dtype float32 of bfloat16": C(lambda jax, jnp: jnp.sum(BF_TENTHS, dtype=jnp.float32)),
    "sum bfloat16 axis": C(lambda jax, jnp: jnp.sum(BFA, axis=0)),
    "cumsum bfloat16": C(lambda jax, jnp: jnp.cumsum(BF)),
    "cumsum complex": C(lambda jax, jnp: jnp.cumsum(Z)),
    "sum float8": C(lambda jax, jnp: jnp.sum(F8)),
    "mean int4": C(lambda jax, jnp: jnp.mean(I4)),
    "sqrt int4": C(lambda jax, jnp: jnp.sqrt(I4)),
    "where complex": C(lambda jax, jnp: jnp.where(F32 > 0, Z, 1j)),
    # several operations, staged by `jit` (one compilation each; values as eagerly)
    "complex operators": C(lambda jax, jnp: jax.jit(lambda z: (
        z + 1, z - 1.5, 2 * z, z / 2, -z, 1 / z))(ZW)),
    "bfloat16 operators": C(lambda jax, jnp: jax.jit(lambda x: (
        x + 1, x - 1.5, 2 * x, x / 3, -x, x // 2, x % 2))(BF)),
    "complex real imag conj angle abs": C(lambda jax, jnp: jax.jit(lambda z: (
        jnp.real(z), jnp.imag(z), jnp.conj(z), jnp.conjugate(z), jnp.angle(z), jnp.abs(z),
        z.real, z.imag, z.conj()))(Z)),
    "real imag abs conj of python complex": C(lambda jax, jnp: (
        jnp.real(1 + 2j), jnp.imag(1 + 2j), jnp.abs(1j), jnp.conj(1j))),
    "real imag conj of bfloat16": C(lambda jax, jnp: jax.jit(lambda x: (
        jnp.real(x), jnp.imag(x), jnp.conj(x)))(BF)),
    "lax.real lax.imag lax.conj": C(lambda jax, jnp: jax.jit(lambda z: (
        jax.lax.real(z), jax.lax.imag(z), jax.lax.conj(z)))(Z)),
    "isnan isfinite isinf": C(lambda jax, jnp: jax.jit(lambda z, x: (
        jnp.isnan(z), jnp.isfinite(z), jnp.isinf(z), jnp.isnan(x), jnp.isfinite(x),
        jnp.isinf(x)))(ZODD, BFODD)),
    "nan arithmetic": C(lambda jax, jnp: jax.jit(lambda z, x: (z * 2, x * 0, jnp.sqrt(x)))(
        ZODD, BFODD)),
    "sort argsort argmax argmin bfloat16": C(lambda jax, jnp: jax.jit(lambda x: (
        jnp.sort(x), jnp.argsort(x), jnp.argmax(x), jnp.argmin(x)))(BFU)),
    "comparisons bfloat16": C(lambda jax, jnp: jax.jit(lambda x, y: (
        x < 1.0, x >= y, x == 0, x != y, jnp.maximum(x, y), jnp.minimum(x, 0.0)))(BF, BF2)),
    "comparisons complex": C(lambda jax, jnp: jax.jit(lambda z, w: (
        z == w, z != z, z == 0, jnp.less(z, w), jnp.greater_equal(z, w)))(Z, ZW)),
    "power complex int": C(lambda jax, jnp: jax.jit(lambda z: (
        z ** 2, jnp.power(z, 3), z ** -1))(ZW), rtol=1e-5, atol=1e-6),
    "power bfloat16": C(lambda jax, jnp: jax.jit(lambda x: (x ** 2, jnp.power(x, 0.5)))(BF)),
    "reductions bfloat16": C(lambda jax, jnp: jax.jit(lambda x, y: (
        jnp.sum(x), jnp.mean(x), jnp.prod(y), jnp.max(x), jnp.min(x), jnp.var(x)))(BF, BF2)),
    "reductions complex": C(lambda jax, jnp: jax.jit(lambda z, w: (
        jnp.sum(z), jnp.mean(z), jnp.prod(w), jnp.max(z), jnp.min(z), jnp.var(z),
        jnp.std(z)))(Z, ZW), rtol=1e-5, atol=1e-6),
    "int4 uint4 arithmetic wraps": C(lambda jax, jnp: jax.jit(lambda i, u: (
        i + 1, i + i, u * 3))(I4, U4)),
    "reshape index concatenate": C(lambda jax, jnp: (
        jnp.asarray(ZA)[1], jnp.asarray(BFA)[:, 2], jnp.concatenate([Z, ZW]),
        jnp.stack([BF, BF2]))),
}

# ----------------------------------------------------------------------------------------------
# Printed jaxprs, jit, device transfer.
STAGING = {
    "jaxpr complex sin times 1j": J(lambda jax, jnp: jax.make_jaxpr(
        lambda z: jnp.sin(z) * 1j)(Z)),
    "jaxpr real imag abs": J(lambda jax, jnp: jax.make_jaxpr(
        lambda z: (jnp.real(z), jnp.imag(z), jnp.abs(z)))(Z)),
    "jaxpr float times 1j": J(lambda jax, jnp: jax.make_jaxpr(lambda x: x * 1j)(F32)),
    "jaxpr python complex scalar": J(lambda jax, jnp: jax.make_jaxpr(lambda z: z * z)(Z0)),
    "jaxpr complex constant": J(lambda jax, jnp: jax.make_jaxpr(lambda z: z + ZW)(Z)),
    "jaxpr bfloat16": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jnp.sin(x) * 2 + x)(BF)),
    "jaxpr bfloat16 mean": J(lambda jax, jnp: jax.make_jaxpr(jnp.mean)(BF)),
    "jaxpr bfloat16 sum": J(lambda jax, jnp: jax.make_jaxpr(jnp.sum)(BF)),
    "jaxpr bfloat16 matmul": J(lambda jax, jnp: jax.make_jaxpr(jnp.matmul)(BFA, BFB)),
    "jaxpr astype float8_e4m3fn": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: x.astype(jnp.float8_e4m3fn))(F32)),
    "jaxpr convert_element_type to float8": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.lax.convert_element_type(x, jnp.float8_e4m3fn))(F32)),
    "jaxpr short names of every new dtype": J(lambda jax, jnp: jax.make_jaxpr(
        lambda *xs: [x.astype(jnp.float32) for x in xs])(*ARRS.values())),
    "jaxpr complex grad": J(lambda jax, jnp: jax.make_jaxpr(
        jax.grad(lambda z: jnp.abs(z) ** 2))(Z0)),
    "jaxpr holomorphic grad": J(lambda jax, jnp: jax.make_jaxpr(
        jax.grad(jnp.sin, holomorphic=True))(Z0)),
    "jaxpr bfloat16 grad": J(lambda jax, jnp: jax.make_jaxpr(
        jax.grad(lambda x: jnp.sum(jnp.sin(x) * x)))(BF)),
    # values survive the trips to and from the device bit for bit: each result as an array, and
    # as the bytes of `np.asarray` of it
    **{f"jit round trip {name}": B(lambda jax, jnp, name=name: (
        lambda y: (y, np.asarray(y).dtype, np.asarray(y).view(np.uint8)))(
            jax.jit(jnp.flip)(ARRS[name]))) for name in NEW},
    **{f"device_put and np.asarray {name}": C(lambda jax, jnp, name=name: (
        lambda a: (a.dtype, a.view(np.uint8)))(np.asarray(jax.device_put(ARRS[name]))))
       for name in NEW},
    "jit complex arithmetic": C(lambda jax, jnp: jax.jit(lambda z, w: z * w + 1j)(Z, ZW)),
    "jit python complex argument": C(lambda jax, jnp: jax.jit(lambda z: z * 2)(Z0)),
    "jit bfloat16 weak scalar": C(lambda jax, jnp: jax.jit(lambda x: x + 1.0)(BF)),
    "jit bfloat16 scalar argument": C(lambda jax, jnp: jax.jit(lambda x: x * 3)(BF[3])),
    "jit float8 astype": C(lambda jax, jnp: jax.jit(lambda x: x.astype(jnp.float8_e5m2))(F32)),
    "jit complex static output": C(lambda jax, jnp: jax.jit(lambda: jnp.asarray(1j) * 2)()),
    "array repr": C(lambda jax, jnp: [repr(jnp.asarray(a)) for a in (Z, BF, F8, I4)]),
    "item and tolist": C(lambda jax, jnp: (jnp.asarray(Z)[0].item(), jnp.asarray(Z).tolist(),
                                           complex(jnp.asarray(Z)[2]))),
    "float of bfloat16": C(lambda jax, jnp: (float(jnp.asarray(BF)[0]),
                                             jnp.asarray(BF).tolist())),
}

# ----------------------------------------------------------------------------------------------
# Complex differentiation (the tutorial's examples), and bfloat16 gradients.
AUTODIFF = {
    # eagerly: the tutorial's cells
    "grad tutorial x**2 + y**2": C(lambda jax, jnp: jax.grad(
        lambda z: jnp.real(z) ** 2 + jnp.imag(z) ** 2)(Z0)),
    "grad holomorphic sin": C(lambda jax, jnp: jax.grad(jnp.sin, holomorphic=True)(Z0),
                              rtol=1e-5),
    "grad holomorphic conjugate": C(lambda jax, jnp: jax.grad(jnp.conjugate,
                                                              holomorphic=True)(Z0)),
    "jvp tutorial fun": C(lambda jax, jnp: jax.jvp(_tutorial_fun(jnp), (Z0,), (0.25 - 0.5j,)),
                          rtol=1e-5),
    "vjp tutorial fun": C(lambda jax, jnp: jax.vjp(_tutorial_fun(jnp), Z0)[1](
        jnp.array(0.25 + 0.5j)), rtol=1e-5),
    "grad holomorphic z**2": C(lambda jax, jnp: jax.grad(lambda z: z ** 2, holomorphic=True)(Z0)),
    "grad of complex output": E(lambda jax, jnp: jax.grad(jnp.sin)(Z0)),
    "grad of complex output, real input": E(lambda jax, jnp: jax.grad(lambda x: x * 1j)(1.0)),
    "grad holomorphic of real input": E(lambda jax, jnp: jax.grad(jnp.sin, holomorphic=True)(1.0)),
    "grad holomorphic of real output": E(lambda jax, jnp: jax.grad(
        lambda z: jnp.abs(z), holomorphic=True)(Z0)),
    "jvp complex tangent of real input": E(lambda jax, jnp: jax.jvp(jnp.sin, (1.0,), (1j,))),
    "vjp wrong cotangent dtype": E(lambda jax, jnp: jax.vjp(jnp.sin, ZW)[1](
        np.ones(5, np.float32))),
    "jacfwd of complex input": E(lambda jax, jnp: jax.jacfwd(jnp.sin)(ZW)),
    "jacrev of complex output": E(lambda jax, jnp: jax.jacrev(jnp.sin)(ZW)),
    # staged by `jit` (one compilation each)
    "grad abs squared": C(lambda jax, jnp: jax.jit(jax.grad(lambda z: jnp.abs(z) ** 2))(Z0),
                          rtol=1e-5),
    "grad real z conj z": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda z: jnp.real(z * jnp.conj(z))))(Z0)),
    "grad of complex array input": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda z: jnp.sum(jnp.abs(z) ** 2)))(ZW), rtol=1e-5),
    "grad of numpy complex64 scalar": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda z: jnp.real(z) * jnp.imag(z)))(np.complex64(Z0))),
    "grad real to real through complex": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda x: jnp.real(jnp.exp(1j * x))))(0.7), rtol=1e-5),
    "grad real to real through complex array": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda x: jnp.sum(jnp.abs(x * (1 + 1j)) ** 2)))(F32), rtol=1e-5),
    "value_and_grad complex": C(lambda jax, jnp: jax.jit(jax.value_and_grad(
        lambda z: jnp.abs(jnp.sin(z))))(Z0), rtol=1e-5),
    "grad holomorphic z*z*z": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda z: z * z * z, holomorphic=True))(Z0)),
    "grad holomorphic exp log": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda z: jnp.exp(z) * jnp.log(z), holomorphic=True))(1.0 + 0.5j), rtol=1e-5),
    "grad holomorphic of complex64": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda z: jnp.sin(z) * z, holomorphic=True))(np.complex64(0.5 - 1j)), rtol=1e-5),
    "jvp tutorial fun of arrays": C(lambda jax, jnp: jax.jit(lambda z, t: jax.jvp(
        _tutorial_fun(jnp), (z,), (t,)))(Z, ZW), rtol=1e-5),
    "jvp sin abs real imag conj": C(lambda jax, jnp: jax.jit(lambda z, t: (
        jax.jvp(jnp.sin, (z,), (t,)), jax.jvp(jnp.abs, (z,), (t,)),
        jax.jvp(lambda z: (jnp.real(z), jnp.imag(z), jnp.conj(z)), (z,), (t,))))(ZW, ZR),
        rtol=1e-5),
    "jvp real to complex": C(lambda jax, jnp: jax.jit(lambda x: jax.jvp(
        lambda x: x * (2 - 1j), (x,), (x,)))(F32)),
    "vjp sin abs": C(lambda jax, jnp: jax.jit(lambda z, c, r: (
        jax.vjp(jnp.sin, z)[1](c), jax.vjp(jnp.abs, z)[1](r)))(ZW, ZR, F32), rtol=1e-5),
    "vjp real to complex, complex to real": C(lambda jax, jnp: jax.jit(lambda x, z: (
        jax.vjp(lambda x: x * (2 - 1j), x)[1](z), jax.vjp(jnp.real, z)[1](x)))(F32, Z)),
    "jacfwd holomorphic": C(lambda jax, jnp: jax.jit(jax.jacfwd(
        lambda z: jnp.sin(z) * z, holomorphic=True))(ZW), rtol=1e-5),
    "jacrev holomorphic": C(lambda jax, jnp: jax.jit(jax.jacrev(
        lambda z: jnp.sin(z) * z, holomorphic=True))(ZW), rtol=1e-5),
    "jacrev complex to real": C(lambda jax, jnp: jax.jit(jax.jacrev(jnp.abs))(ZW), rtol=1e-5),
    "hessian holomorphic": C(lambda jax, jnp: jax.jit(jax.hessian(
        lambda z: jnp.sum(z ** 3), holomorphic=True))(ZW), rtol=1e-5),
    "vmap complex function": C(lambda jax, jnp: jax.jit(jax.vmap(
        lambda z: jnp.sin(z) * jnp.conj(z)))(ZA), rtol=1e-5, atol=1e-6),
    "vmap complex matvec": C(lambda jax, jnp: jax.vmap(lambda z: z @ ZB)(ZA), rtol=1e-5,
                             atol=1e-5),
    "vmap of holomorphic grad": C(lambda jax, jnp: jax.jit(jax.vmap(jax.grad(
        jnp.sin, holomorphic=True)))(ZW), rtol=1e-5),
    "grad of jit complex": C(lambda jax, jnp: jax.grad(jax.jit(
        lambda z: jnp.abs(z * z)))(Z0), rtol=1e-5),
    "cholesky of the tutorial's matrix": C(lambda jax, jnp: jnp.linalg.cholesky(HERM),
                                           rtol=1e-5, atol=1e-5),
    "grad through cholesky": C(lambda jax, jnp: jax.jit(jax.grad(
        _cholesky_loss(jnp), holomorphic=True))(HERM), rtol=1e-4, atol=1e-4),
    # bfloat16, float8, int4
    "grad bfloat16 of squares": C(lambda jax, jnp: jax.grad(lambda x: jnp.sum(x * x))(BF)),
    "jvp bfloat16": C(lambda jax, jnp: jax.jvp(jnp.tanh, (BF,), (BF2,))),
    "grad bfloat16": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda x: jnp.sum(jnp.sin(x) * x)))(BF)),
    "grad bfloat16 scalar": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda x: x * x + 1.0))(BF[3])),
    "grad bfloat16 mean": C(lambda jax, jnp: jax.jit(jax.grad(jnp.mean))(BF)),
    "grad through astype bfloat16": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda x: jnp.sum(x.astype(jnp.bfloat16) ** 2).astype(jnp.float32)))(F32)),
    "grad bfloat16 matmul": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda a: jnp.sum(a @ BFB)))(BFA)),
    "value_and_grad bfloat16": C(lambda jax, jnp: jax.jit(jax.value_and_grad(
        lambda x: jnp.sum(jnp.exp(x))))(BF)),
    "vmap grad bfloat16": C(lambda jax, jnp: jax.jit(jax.vmap(jax.grad(
        lambda x: jnp.sin(x) * x)))(BF)),
    "grad float8": C(lambda jax, jnp: jax.jit(jax.grad(lambda x: jnp.sum(x * x)))(F8)),
    "jvp bfloat16 float32 tangent": E(lambda jax, jnp: jax.jvp(jnp.tanh, (BF,), (F32,))),
    "grad int4": E(lambda jax, jnp: jax.grad(lambda x: jnp.sum(x * x))(I4)),
}


@pytest.mark.parametrize("name", _params(CREATION))
def test_creation(name):
    check(CREATION[name])


@pytest.mark.parametrize("name", _params(PROMOTION))
def test_promotion(name):
    check(PROMOTION[name])


@pytest.mark.parametrize("name", _params(ARITHMETIC))
def test_arithmetic(name):
    check(ARITHMETIC[name])


@pytest.mark.parametrize("name", _params(STAGING))
def test_staging(name):
    check(STAGING[name])


@pytest.mark.parametrize("name", _params(AUTODIFF))
def test_autodiff(name):
    check(AUTODIFF[name])


def test_the_strict_promotion_of_exercise_A1_is_jaxs():
    """Appendix A1's exercise 1 checks `strict_lattice()` against a rule written out in its check
    (book/checks/chA1.py); here that rule is checked against JAX's strict promotion."""
    import jax
    import jax.numpy as jnp_ref

    from autodidax.numpy import _lattice
    from book.checks.chA1 import strict_promotion
    weak = {"i*": int, "f*": float, "c*": complex}
    as_weak = {np.dtype("int64"): "i*", np.dtype("float64"): "f*", np.dtype("complex128"): "c*"}
    types = list(_lattice(x64=False))
    with jax.numpy_dtype_promotion("strict"):
        for a in types:
            for b in types:
                try:
                    got = jnp_ref.promote_types(weak.get(a, a), weak.get(b, b))
                except jax.errors.JaxRuntimeError:
                    raise
                except Exception:
                    got = None
                if got is not None and got not in (a, b):      # a weak type's 64-bit dtype
                    got = as_weak.get(got, got)
                assert strict_promotion(a, b) == got, (a, b, got)
