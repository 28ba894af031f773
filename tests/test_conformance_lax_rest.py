"""Conformance cases for appendix A27 (autodidax/lax_rest.py): `conv_general_dilated` and its
rules (values bit for bit, gradients, vmap, jaxprs, errors), its wrappers, `jnp.convolve` and
`jnp.correlate`, the windowed reductions, `associative_scan` and the cumulative reductions, and
the small names of `jax.lax`, against JAX. Same harness as tests/test_conformance.py.
Gradients run under `jit`: eagerly, each of their many small operations is compiled alone."""
import numpy as np
import pytest

from test_conformance import B, C, E, J, _params, check

rng = np.random.default_rng(3)
X = rng.standard_normal((2, 4, 6, 5)).astype(np.float32)       # N, C, H, W
W = rng.standard_normal((6, 4, 3, 2)).astype(np.float32)       # O, I, H, W
WG = rng.standard_normal((6, 2, 3, 2)).astype(np.float32)      # two feature groups
WB = rng.standard_normal((6, 4, 2, 2)).astype(np.float32)      # two batch groups
XS = np.stack([X, -2 * X])                                     # a batch of lhs
WS = np.stack([W, 0.5 * W])                                    # a batch of rhs
NHWC = X.transpose(0, 2, 3, 1)
HWIO = W.transpose(2, 3, 1, 0)
A = np.array([1.0, 2.0, -3.0, 4.0, 0.5], np.float32)
V = np.array([0.5, 1.0, -1.0], np.float32)
ZA = (A + 1j * A[::-1]).astype(np.complex64)
ZV = np.array([1, 2 - 3j, 4 + 5j], np.complex64)
I4 = np.arange(4, dtype=np.int32)
RBG_KEY = np.array([0, 42, 0, 7], np.uint32)
FZ = (X[0] + 1j * X[1]).astype(np.complex64)                  # (4, 6, 5) complex


def FFTS(jax):
    t = jax.lax.FftType
    return [(FZ, t.FFT, (6, 5)), (FZ, t.IFFT, (5,)), (X[0], t.RFFT, (6, 5)),
            (FZ[..., :3], t.IRFFT, (6, 5)), (X[0, :, :, :4], t.RFFT, (4,))]
SCORES = np.array([[3.0, 1.0, 3.0, -0.0, 0.0, np.nan, 2.0], [1, 2, 3, 4, 5, 6, 7]], np.float32)
I32 = np.array([-7, -1, 0, 5, 9], np.int32)
U32 = np.array([0, 1, 7, 0x80000001, 0xFFFFFFFF], np.uint32)
U8 = np.array([0, 1, 7, 200, 255], np.uint8)

GENERAL = dict(window_strides=(2, 1), padding=((1, 0), (2, 1)), lhs_dilation=(1, 2),
               rhs_dilation=(2, 1))
LAYOUT = dict(window_strides=(1, 2), padding="SAME", dimension_numbers=("NCHW", "OIHW", "NHWC"))


def _conv(jax, w=W, **kw):
    kw = {"window_strides": (1, 1), "padding": "SAME", **kw}
    return lambda x, w=w: jax.lax.conv_general_dilated(x, w, **kw)


def _grads(jax, w, **kw):
    f = _conv(jax, w, **kw)
    return jax.jit(jax.grad(lambda x, w: (f(x, w) ** 2).sum() + f(x, w)[0, 0, 0, 0], (0, 1)))(
        X, w)


CONV = {
    "conv SAME": B(lambda jax, jnp: _conv(jax)(X)),
    "conv general": B(lambda jax, jnp: (_conv(jax, **GENERAL)(X), jax.jit(_conv(
        jax, window_strides=(2, 2), padding="SAME_LOWER"))(X))),
    "conv layouts": B(lambda jax, jnp: _conv(jax, **LAYOUT)(X)),
    "conv feature groups": B(lambda jax, jnp: _conv(jax, WG, feature_group_count=2)(X)),
    "conv batch groups": B(lambda jax, jnp: _conv(jax, WB, padding="VALID",
                                                  batch_group_count=2)(X)),
    "conv int32": B(lambda jax, jnp: _conv(jax, W.astype(np.int32))(X.astype(np.int32))),
    "conv preferred f32 of f16": C(lambda jax, jnp: _conv(
        jax, W.astype(np.float16), preferred_element_type=np.float32)(X.astype(np.float16)),
        rtol=1e-3),
    "conv weak type": C(lambda jax, jnp: jax.jit(lambda s: _conv(jax, jnp.ones((1, 1, 1, 1)))(
        jnp.ones((1, 1, 2, 2)) * s))(2.0)),
    "conv complex": C(lambda jax, jnp: _conv(jax, (W + 1j).astype(np.complex64))(
        (X - 2j).astype(np.complex64)), rtol=1e-5),
    "conv grad": C(lambda jax, jnp: _grads(jax, W, **GENERAL), rtol=1e-5, atol=1e-5),
    "conv grad feature groups": C(lambda jax, jnp: _grads(jax, WG, feature_group_count=2,
                                                          **LAYOUT), rtol=1e-5, atol=1e-5),
    "conv grad batch groups": C(lambda jax, jnp: _grads(jax, WB, padding="VALID",
                                                        batch_group_count=2),
                                rtol=1e-5, atol=1e-5),
    "conv vmap lhs": B(lambda jax, jnp: jax.vmap(_conv(jax, **GENERAL), in_axes=1)(
        XS.transpose(1, 0, 2, 3, 4))),
    "conv vmap rhs": B(lambda jax, jnp: jax.vmap(lambda w: _conv(jax, **LAYOUT)(X, w))(WS)),
    "conv vmap both": B(lambda jax, jnp: jax.vmap(_conv(jax, **GENERAL))(XS, WS)),
    "conv vmap both, groups": B(lambda jax, jnp: jax.vmap(_conv(
        jax, feature_group_count=2))(XS, np.stack([WG, -WG]))),
    "conv vmap rhs, groups": B(lambda jax, jnp: jax.vmap(lambda w: _conv(
        jax, feature_group_count=2)(X, w), in_axes=3)(np.stack([WG, -WG], 3))),
    "conv vmap lhs, batch groups": B(lambda jax, jnp: jax.vmap(_conv(
        jax, WB, padding="VALID", batch_group_count=2))(XS)),
    "conv jaxpr": J(lambda jax, jnp: jax.make_jaxpr(_conv(jax, **LAYOUT))(X)),
    "conv grad jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(
        lambda w: _conv(jax, **GENERAL)(X, w).sum()))(W)),
    "conv precision jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jax.lax.conv(
        x, W, (1, 1), "VALID", precision=jax.lax.Precision.HIGHEST))(X)),
    "conv dtype mismatch": E(lambda jax, jnp: _conv(jax, W.astype(np.int32))(X)),
    "conv feature mismatch": E(lambda jax, jnp: _conv(jax, WG)(X)),
    "conv bad group count": E(lambda jax, jnp: _conv(jax, WG, feature_group_count=3)(X)),
    "conv both group counts": E(lambda jax, jnp: _conv(jax, WG, feature_group_count=2,
                                                       batch_group_count=2)(X)),
    "conv bad padding string": E(lambda jax, jnp: _conv(jax, padding="FULL")(X)),
    "conv rank mismatch": E(lambda jax, jnp: jax.lax.conv(X, W[0], (1, 1), "SAME")),
    "conv bad dimension numbers": E(lambda jax, jnp: _conv(
        jax, dimension_numbers=("NCHW", "OIHW", "NCHX"))(X)),
    "conv string padding with lhs dilation": E(lambda jax, jnp: _conv(jax, lhs_dilation=(2, 2))(X)),
    "conv": B(lambda jax, jnp: jax.lax.conv(X, W, (2, 1), "VALID")),
    "conv_with_general_padding": B(lambda jax, jnp: jax.lax.conv_with_general_padding(
        X, W, (1, 2), ((2, 1), (0, 1)), (2, 1), (1, 2))),
    "conv_transpose SAME": B(lambda jax, jnp: jax.lax.conv_transpose(NHWC, HWIO, (2, 2),
                                                                     "SAME")),
    "conv_transpose VALID kernel": B(lambda jax, jnp: jax.lax.conv_transpose(
        X, W.transpose(1, 0, 2, 3), (2, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"),
        transpose_kernel=True)),
    "conv_transpose explicit": B(lambda jax, jnp: jax.lax.conv_transpose(
        NHWC, HWIO, (1, 2), ((1, 1), (0, 2)), rhs_dilation=(2, 1))),
    "conv_general_dilated_patches": B(lambda jax, jnp: jax.lax.conv_general_dilated_patches(
        X, (3, 2), (1, 2), "SAME")),
    "conv_general_dilated_local": C(lambda jax, jnp: jax.lax.conv_general_dilated_local(
        X, rng_local, (1, 1), "VALID", (3, 2)), rtol=1e-5, atol=1e-5),
    "shape tuples": C(lambda jax, jnp: (
        jax.lax.conv_shape_tuple((2, 4, 6, 5), (6, 4, 3, 2), (2, 1), "SAME"),
        jax.lax.conv_general_shape_tuple((2, 6, 5, 4), (3, 2, 4, 6), (1, 2), "VALID",
                                         ("NHWC", "HWIO", "NHWC")),
        jax.lax.conv_transpose_shape_tuple((2, 6, 5, 4), (3, 2, 4, 6), (2, 2), "SAME",
                                           ("NHWC", "HWIO", "NHWC")),
        jax.lax.conv_general_permutations(("NHWC", "HWIO", "NCHW")),
        jax.lax.conv_dimension_numbers((1, 2, 3), (4, 5, 6), None),
        jax.lax.conv_dimension_numbers((1, 2, 3), (4, 5, 6), ("NWC", "WIO", "NCW")),
        jax.lax.padtype_to_pads((5, 6), (3, 3), (2, 2), "SAME"),
        jax.lax.padtype_to_pads((5, 6), (3, 4), (2, 3), "same_lower"),
        jax.lax.padtype_to_pads((5, 6), (3, 4), (2, 3), "VALID"))),
    "ConvDimensionNumbers": C(lambda jax, jnp: repr(jax.lax.ConvDimensionNumbers(
        (0, 1, 2), (0, 1, 2), (0, 1, 2)))),
    "convolve modes": B(lambda jax, jnp: [jnp.convolve(A, V, m) for m in ("full", "same",
                                                                        "valid")]),
    "correlate modes": B(lambda jax, jnp: [jnp.correlate(V, A, m) for m in ("full", "same")]),
    "convolve ints": B(lambda jax, jnp: (jnp.convolve(I4, I4[:3]), jnp.convolve(
        I4, I4[:3], preferred_element_type=jnp.int32))),
    "correlate complex": B(lambda jax, jnp: jnp.correlate(ZA, ZV, "same")),
    "convolve grad": C(lambda jax, jnp: jax.grad(lambda a, v: jnp.convolve(a, v).sum() ** 2,
                                                 (0, 1))(A, V), rtol=1e-5),
    "convolve jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jnp.convolve)(A, V)),
    "correlate jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jnp.correlate)(V, A)),
    "convolve 2-D": E(lambda jax, jnp: jnp.convolve(X[0, 0], V)),
    "convolve empty": E(lambda jax, jnp: jnp.convolve(A[:0], V)),
    "convolve bad mode": E(lambda jax, jnp: jnp.convolve(A, V, "wide")),
    "batch_matmul": C(lambda jax, jnp: jax.lax.batch_matmul(X[:, :, :, :3], X[:, :, :3, :]),
                      rtol=1e-5),
    "batch_matmul ranks": E(lambda jax, jnp: jax.lax.batch_matmul(A, A)),
    "index_take": C(lambda jax, jnp: jax.lax.index_take(
        X, (np.array([1, -1, 0]), np.array([3, 2, -6])), (1, 2))),
    "reduce_precision": B(lambda jax, jnp: jax.lax.reduce_precision(X[0, 0], 5, 10)),
    "small names": C(lambda jax, jnp: (
        jax.lax.broadcast_shapes((3, 1), (1, 4), (2, 1, 1)),
        jax.lax.broadcast_like(V, X[:, 0, :3, :3]), str(jax.lax.dtype(1.0)),
        str(jax.lax.dtype(np.int8(3))), str(jax.lax.dtype(True)))),
    "tile": B(lambda jax, jnp: (jax.lax.tile(R, (2, 1)), jax.jit(lambda x: jax.lax.tile(
        x, (1, 3)))(R[:2]), jax.vmap(lambda x: jax.lax.tile(x, (2,)), in_axes=1)(R))),
    "tile grad and jaxpr": C(lambda jax, jnp: (jax.jit(jax.grad(lambda x: (jax.lax.tile(
        x, (2, 3)) ** 2 * R[:4, :6]).sum()))(R[:2, :2]), str(jax.make_jaxpr(
            lambda x: jax.lax.tile(x, (2, 1)))(R)))),
    "tile bad reps": E(lambda jax, jnp: jax.lax.tile(R, (2,))),
    "mulhi": B(lambda jax, jnp: (
        jax.lax.mulhi(I32 * 100003, I32 * -300007), jax.vmap(jax.lax.mulhi)(U32, U32[::-1]),
        jax.lax.mulhi(U8, U8[::-1]))),
    "mulhi float": E(lambda jax, jnp: jax.lax.mulhi(A, A)),
    "reduce_xor": B(lambda jax, jnp: (jax.lax.reduce_xor(I32.reshape(5, 1) * U32.astype(
        np.int32), (0,)), jax.jit(lambda x: jax.lax.reduce_xor(x, (0, 1)))(U32.reshape(1, 5)),
        jax.vmap(lambda x: jax.lax.reduce_xor(x, (0,)), in_axes=1)(
            np.array([[True, False], [True, True]])))),
    "reduce_xor float": E(lambda jax, jnp: jax.lax.reduce_xor(A, (0,))),
    "optimization_barrier": C(lambda jax, jnp: (
        jax.lax.optimization_barrier((A, {"v": V})), jax.jit(jax.grad(
            lambda x: (jax.lax.optimization_barrier(x) ** 2).sum()))(A),
        jax.vmap(jax.lax.optimization_barrier)(R))),
    "optimization_barrier jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(
        lambda x: jax.lax.optimization_barrier(x).sum()))(A)),
    "reduce monoids": B(lambda jax, jnp: [jax.lax.reduce(x, init, op, (1,)) for x, init, op in [
        (R, 0.0, jax.lax.add), (R, 1.0, jax.lax.mul), (R, -np.inf, jax.lax.max),
        (R, np.inf, jax.lax.min), (U32.reshape(1, 5), np.uint32(0), jax.lax.bitwise_xor),
        (U32.reshape(5, 1), np.uint32(0), jax.lax.bitwise_or)]]),
    "reduce weak": C(lambda jax, jnp: jax.jit(lambda s: jax.lax.reduce(
        jnp.ones((2, 2)) * s, 0.0, jax.lax.add, (0,)))(2.0)),
    "reduce jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jax.lax.reduce(
        x, -np.inf, jax.lax.max, (0,)))(R)),
    "approx_max_k and approx_min_k": B(lambda jax, jnp: (
        jax.lax.approx_max_k(SCORES, 3), jax.lax.approx_min_k(SCORES, 3),
        jax.lax.approx_max_k(SCORES.T, 2, reduction_dimension=0),
        jax.jit(lambda x: jax.lax.approx_min_k(x, 2))(R))),
    "approx_max_k of ints": E(lambda jax, jnp: jax.lax.approx_max_k(I32, 2)),
    "pshuffle and pswapaxes": B(lambda jax, jnp: (
        jax.vmap(lambda v: jax.lax.pshuffle(v, "i", [1, 2, 0]), axis_name="i")(
            jnp.asarray(A[:3])),
        jax.vmap(lambda v: jax.lax.pswapaxes(v, "i", 0), axis_name="i")(jnp.asarray(R[:, :4])))),
    "pshuffle not a permutation": E(lambda jax, jnp: jax.vmap(
        lambda v: jax.lax.pshuffle(v, "i", [1, 1, 0]), axis_name="i")(A[:3])),
    "empty, stage, shape_as_value": C(lambda jax, jnp: (
        jax.lax.empty((2, 3), np.float32), jax.jit(lambda: jax.lax.empty((2,), np.int8))(),
        jax.lax.stage(3), jax.lax.stage(np.float64(2.5)), jax.lax.stage(V),
        jax.lax.shape_as_value((2, 3)), jax.lax.shape_as_value(()))),
    "empty and stage jaxprs": J(lambda jax, jnp: [jax.make_jaxpr(f)(A) for f in (
        lambda x: jax.lax.empty((2, 3), np.float32), lambda x: jax.lax.stage(2.0) + x,
        lambda x: jax.lax.stage(x))]),
    "fft kinds": B(lambda jax, jnp: [jax.lax.fft(x, t, n) for x, t, n in FFTS(jax)]),
    "fft strings and ints": B(lambda jax, jnp: (jax.lax.fft(R, "fft", (6,)), jax.lax.fft(
        I4, "rfft", (4,)), jax.lax.fft(R, "RFFT", ()))),
    "fft grads": C(lambda jax, jnp: jax.jit(lambda *xs: [jax.grad(lambda v, t=t, n=n: (abs(
        jax.lax.fft(v, t, n)) ** 2 * 0.5).sum())(x) for x, (_, t, n) in zip(xs, FFTS(jax))])(
            *(x for x, _, _ in FFTS(jax))), rtol=1e-5, atol=1e-4),
    "fft vmap": B(lambda jax, jnp: jax.vmap(lambda v: jax.lax.fft(v, "irfft", (4, 6)))(
        FZ[:, :4, :4])),
    "fft jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda v: jax.lax.fft(
        v, jax.lax.FftType.RFFT, (4, 6)))(X[0].transpose(2, 0, 1))),
    "fft bad type": E(lambda jax, jnp: jax.lax.fft(R, "dct", (6,))),
    "fft bad lengths": E(lambda jax, jnp: jax.lax.fft(FZ, "fft", (4,))),
    "rng_bit_generator": B(lambda jax, jnp: [jax.lax.rng_bit_generator(
        RBG_KEY, (2, 3), dtype, jax.lax.RandomAlgorithm(a)) for dtype, a in [
            (np.uint32, 0), (np.uint8, 1), (np.uint64, 2)]]),
    "rng_bit_generator jit and jaxpr": C(lambda jax, jnp: (
        jax.jit(lambda k: jax.lax.rng_bit_generator(k, (5,)))(RBG_KEY),
        str(jax.make_jaxpr(lambda k: jax.lax.rng_bit_generator(k, (2,)))(RBG_KEY)))),
    "rng_bit_generator float": E(lambda jax, jnp: jax.lax.rng_bit_generator(RBG_KEY, (2,),
                                                                            np.float32)),
    "ragged_dot": C(lambda jax, jnp: (
        jax.lax.ragged_dot(R[:, :3], W[:3, :3, :, 0], np.array([2, 0, 4], np.int32)),
        jax.jit(jax.grad(lambda x, w: (jax.lax.ragged_dot(x, w, np.array([1, 3, 2], np.int32))
                                       ** 2).sum(), (0, 1)))(R[:, :3], W[:3, :3, :, 0])),
        rtol=1e-5, atol=1e-5),
    "platform_dependent": C(lambda jax, jnp: (
        jax.lax.platform_dependent(A, cpu=jnp.sin, default=jnp.cos),
        jax.jit(lambda x: jax.lax.platform_dependent(x, tpu=jnp.sin, default=jnp.cos))(A),
        jax.grad(lambda x: jax.lax.platform_dependent(x, cpu=jnp.sin, cuda=jnp.cos))(1.0))),
    "platform_dependent gpu": E(lambda jax, jnp: jax.lax.platform_dependent(A, gpu=jnp.sin)),
    "rng_uniform": C(lambda jax, jnp: [(v.shape, v.dtype, bool(((v >= 0) & (v < 10)).all()))
                                       for v in (jax.lax.rng_uniform(0.0, 10.0, (3, 2)),)]),
    "rng_uniform jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda a: jax.lax.rng_uniform(
        a, 1.0, (3,)))(0.0)),
    "dce_sink jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jax.lax.dce_sink(
        {"a": x, "b": x * 2}))(A)),
    "dot algorithms": C(lambda jax, jnp: (
        jax.lax.DotAlgorithm(np.float32, np.float32, np.float32)[3:],
        jax.lax.DotAlgorithm._fields, [(m.name, m.value, repr(m), str(m))
                                      for m in jax.lax.DotAlgorithmPreset],
        [(m.name, m.value) for m in jax.lax.AccuracyMode],
        vars(jax.lax.Tolerance(atol=1e-3, ulps=2)))),
    "Tolerance of zeros": E(lambda jax, jnp: jax.lax.Tolerance()),
    "conv with a preset": C(lambda jax, jnp: jax.lax.conv(
        X, W, (1, 1), "VALID", precision=jax.lax.DotAlgorithmPreset.F32_F32_F32)),
    "composite": C(lambda jax, jnp: (
        _sin_times(jax, jnp)(A, V[:1]), jax.jit(_sin_times(jax, jnp))(A, A),
        jax.jit(lambda x: jax.lax.composite(lambda x, *, k: x * k, "my.scale", 2)(x, k=3))(A),
        jax.jit(_sin_times(jax, jnp)).lower(A, A).as_text())),
    "composite jaxprs": J(lambda jax, jnp: [jax.make_jaxpr(_sin_times(jax, jnp))(A, A),
                                            jax.make_jaxpr(lambda x: jax.lax.composite(
                                                lambda x, *, k: x * k, "my.scale", 2)(x, k=3))(A)]),
    "composite grad": E(lambda jax, jnp: jax.grad(lambda x: _sin_times(jax, jnp)(x, x).sum())(A)),
    "custom_linear_solve": C(lambda jax, jnp: (
        _spd(jax, jnp)(SPD, SPD[0]), jax.grad(lambda A, b: (_spd(jax, jnp)(A, b) ** 2).sum(),
                                              (0, 1))(SPD, SPD[0]),
        jax.jit(jax.grad(lambda A, b: _general(jax, jnp)(A, b)["x"].sum(), (0, 1)))(
            SPD + np.triu(SPD), SPD[1])),
        rtol=1e-5, atol=1e-5),
    "custom_linear_solve without transpose_solve": E(lambda jax, jnp: jax.grad(
        lambda b: jax.lax.custom_linear_solve(lambda x: SPD @ x, b, lambda mv, y: jnp.linalg.solve(
            SPD, y)).sum())(SPD[0])),
    "custom_linear_solve's jaxpr, without transposes": J(lambda jax, jnp: jax.make_jaxpr(
        lambda b: jax.lax.custom_linear_solve(lambda x: 2.0 * x, b, lambda mv, y: y / 2.0))(
            SPD[0])),
    "custom_root": C(lambda jax, jnp: (
        _sqrt(jax, jnp)(2.0), jax.grad(_sqrt(jax, jnp))(2.0)), rtol=1e-5, atol=1e-6),
    "enums": C(lambda jax, jnp: (
        [repr(p) for p in jax.lax.Precision], [str(p) for p in jax.lax.Precision],
        jax.lax.Precision("tensorfloat32").name, jax.lax.Precision("fastest").value,
        [(f.name, int(f)) for f in jax.lax.FftType],
        [(r.name, int(r), str(r)) for r in jax.lax.RandomAlgorithm])),
}

R = rng.standard_normal((4, 6)).astype(np.float32)
SPD = (np.eye(3) * 4 + np.ones((3, 3))).astype(np.float32)


def _spd(jax, jnp):
    return lambda A, b: jax.lax.custom_linear_solve(
        lambda x: A @ x, b, lambda mv, y: jnp.linalg.solve(A, y), symmetric=True)


def _sqrt(jax, jnp):
    """The positive root of x**2 - a, by Newton's method in a while_loop."""
    def newton(f, x0):
        return jax.lax.while_loop(lambda x: abs(f(x)) > 1e-6,
                                  lambda x: x - f(x) / jax.grad(f)(x), x0)
    return lambda a: jax.lax.custom_root(lambda x: x ** 2 - a, 1.0, newton,
                                         lambda g, y: y / g(1.0))


def _general(jax, jnp):
    """A pytree right-hand side, and a transposed solver of its own."""
    return lambda A, b: jax.lax.custom_linear_solve(
        lambda x: {"x": A @ x["x"]}, {"x": b}, lambda mv, y: {"x": jnp.linalg.solve(A, y["x"])},
        lambda vm, y: {"x": jnp.linalg.solve(A.T, y["x"])})


def _sin_times(jax, jnp):
    return jax.lax.composite(lambda x, y: jnp.sin(x) * y, name="my.sin_times")

POOL = ((2, 3), (1, 2), "SAME")
DILATED = ((2, 2), (2, 1), ((1, 0), (0, 2)), (1, 2), (2, 1))


def _window(jax, op, init, args=POOL):
    return lambda x: jax.lax.reduce_window(x, init, getattr(jax.lax, op), *args)


WINDOWS = {
    "reduce_window sum": B(lambda jax, jnp: _window(jax, "add", 0.0)(R)),
    "reduce_window max dilated": B(lambda jax, jnp: _window(jax, "max", -np.inf, DILATED)(R)),
    "reduce_window int max": B(lambda jax, jnp: _window(
        jax, "max", np.iinfo(np.int32).min)(I4.reshape(2, 2) * 3)),
    "reduce_window generic": B(lambda jax, jnp: (_window(jax, "mul", 1.0, DILATED)(R),
                                                 jax.jit(_window(jax, "mul", 1.0))(R))),
    "reduce_window pytree": B(lambda jax, jnp: jax.lax.reduce_window(
        (R, -R), (0.0, -np.inf), lambda a, b: (a[0] + b[0], jax.lax.max(a[1], b[1])), *POOL)),
    "reduce_window grads": C(lambda jax, jnp: jax.jit(lambda x: [jax.grad(lambda x: (_window(
        jax, op, init, args)(x) ** 2).sum())(x) for op, init, args in [
            ("add", 0.0, DILATED), ("max", -np.inf, POOL), ("min", np.inf, POOL)]])(R),
        rtol=1e-5),
    "reduce_window generic jvp": C(lambda jax, jnp: jax.jvp(_window(jax, "mul", 1.0), (R,),
                                                            (R * 0.5,)), rtol=1e-5),
    "reduce_window vmap": B(lambda jax, jnp: [jax.vmap(_window(jax, op, init), in_axes=1)(
        np.stack([R, -R], 1)) for op, init in [("add", 0.0), ("max", -np.inf),
                                               ("mul", 1.0)]]),
    "reduce_window jaxprs": J(lambda jax, jnp: [jax.make_jaxpr(_window(jax, op, init))(R)
                                                for op, init in [("add", 0.0), ("mul", 1.0)]]),
    "reduce_window bad dims": E(lambda jax, jnp: jax.lax.reduce_window(R, 0.0, jax.lax.add,
                                                                       (2,), (1,), "VALID")),
    "reduce_window_shape_tuple": C(lambda jax, jnp: jax.lax.reduce_window_shape_tuple(
        (4, 6), (2, 3), (1, 2), ((1, 1), (0, 2)), (2, 1), (1, 2))),
    "cumulative": B(lambda jax, jnp: [f(R, axis, rev) for f in (
        jax.lax.cummax, jax.lax.cummin, jax.lax.cumlogsumexp) for axis, rev in ((0, False),
                                                                                 (1, True))]),
    "cumulative jit and vmap": B(lambda jax, jnp: [
        (jax.jit(lambda x: f(x, 1))(R), jax.vmap(lambda x: f(x, 0, True), in_axes=1)(R))
        for f in (jax.lax.cummax, jax.lax.cumlogsumexp)]),
    "cumulative grads": C(lambda jax, jnp: jax.jit(lambda x: [jax.grad(
        lambda x: (f(x, 1, True) ** 2).sum())(x) for f in (
            jax.lax.cummax, jax.lax.cumlogsumexp)])(R), rtol=1e-5),
    "cumulative jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jax.lax.cummin(x, 1, True))(
        R)),
    "cumulative bad axis": E(lambda jax, jnp: jax.lax.cummax(R, 2)),
    "associative_scan": B(lambda jax, jnp: jax.jit(lambda R: (
        jax.lax.associative_scan(jax.lax.add, R, axis=1),
        jax.lax.associative_scan(lambda a, b: (a[0] * b[0], jax.lax.max(a[1], b[1])),
                                 (R[:, :5], R[:, 1:]), reverse=True),
        jax.lax.associative_scan(jnp.logical_or, R > 0)))(R)),
}

rng_local = rng.standard_normal((3, 4 * 6, 4, 4)).astype(np.float32)


@pytest.mark.parametrize("name", _params(CONV))
def test_lax_rest(name):
    check(CONV[name])


@pytest.mark.parametrize("name", _params(WINDOWS))
def test_windows(name):
    check(WINDOWS[name])
