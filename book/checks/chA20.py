"""Checks of appendix A20's exercises (chapters/A20_bit_primitives.md): each takes the notebook's
namespace."""
import numpy as np

import autodidax as jax

_WORDS = np.array([0, 1, 7, 0x80000000, 0xFFFFFFFF, 0x12345678, 0xDEADBEEF], np.uint32)


def _rotr(x, d):
    x = np.asarray(x, np.uint32)
    return (x >> np.uint32(d)) | (x << np.uint32(32 - d))


def check_rotate_right(nb):
    """1. Rotating right: `rotate_right` gives NumPy's rotation for every distance, eagerly, under
    `jit` and under `vmap`."""
    rotate_right = nb["rotate_right"]
    for d in range(1, 32):
        got = np.asarray(rotate_right(_WORDS, d))
        want = _rotr(_WORDS, d)
        assert got.dtype == np.uint32, f"rotate_right should give uint32 words, got {got.dtype}"
        if d != 16 and np.array_equal(got, (_WORDS << np.uint32(d)) | (_WORDS >> np.uint32(32 - d))):
            raise AssertionError(f"rotate_right(x, {d}) rotates left: the bits should move right")
        assert np.array_equal(got, want), (
            f"rotate_right(x, {d}) differs at {[hex(int(w)) for w in _WORDS[got != want]]}: "
            "shift right with zeros (shift_right_logical), and bring the bits shifted out back "
            "in on the left")
    jitted = np.asarray(jax.jit(lambda x: rotate_right(x, 5))(_WORDS))
    assert np.array_equal(jitted, _rotr(_WORDS, 5)), "under jit, rotate_right should agree"
    batched = np.asarray(jax.vmap(lambda x: rotate_right(x, 9))(_WORDS.reshape(7, 1)))
    assert np.array_equal(batched.ravel(), _rotr(_WORDS, 9)), "under vmap, rotate_right should agree"


def check_exponent_bits(nb):
    """2. A float's exponent: `exponent_bits` gives the 8 biased exponent bits of each float32,
    for positive and negative numbers, zeros, subnormals, infinities and NaNs."""
    exponent_bits = nb["exponent_bits"]
    x = np.array([1.0, -2.0, 0.5, 3.0e38, -1e-40, 0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30],
                 np.float32)
    want = (x.view(np.uint32) >> np.uint32(23)) & np.uint32(0xFF)
    got = np.asarray(exponent_bits(x))
    assert got.shape == x.shape, f"exponent_bits should keep the shape {x.shape}, got {got.shape}"
    assert np.array_equal(got.astype(np.int64), want.astype(np.int64)), (
        f"exponent_bits({x[got != want].tolist()}) should be {want[got != want].tolist()}, got "
        f"{got[got != want].tolist()}: read the bits with bitcast_convert_type, shift right by 23 "
        "(the mantissa) and keep 8 bits (not the sign)")
    assert got.dtype == np.uint32, f"exponent_bits should give uint32, got {got.dtype}"
    jitted = np.asarray(jax.jit(exponent_bits)(x))
    assert np.array_equal(jitted, want), "under jit, exponent_bits should agree"
