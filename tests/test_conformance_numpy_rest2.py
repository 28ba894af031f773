"""Conformance cases for the second part of appendix A24 (autodidax/numpy_rest.py): sets and
`unique`, insertion and deletion, counting and histograms, and the rest, against JAX. Same
harness as tests/test_conformance.py."""
import numpy as np
import pytest

from test_conformance import (BOOL, C, E, EMPTY as EMPTY_F, F, F32, I32, J, NAN, U8, V3, V4,
                              _params, check)

R = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], np.int32)        # repeats
S = np.array([0, 2, 3, 7, 2], np.int32)
RF = np.array([1.5, np.nan, -1.0, 1.5, np.nan, 0.0], np.float32)
R2 = np.array([[1, 2], [3, 4], [1, 2], [0, 9]], np.int32)
EMPTY_I = np.zeros((0,), np.int32)

SETS = {
    "lexsort": C(lambda jax, jnp: (jnp.lexsort((R, R % 3)), jnp.lexsort(R2.T),
                                   jnp.lexsort([R2], axis=0), jnp.lexsort((np.int32(2),)))),
    "lexsort no keys": E(lambda jax, jnp: jnp.lexsort(())),
    "lexsort shapes": E(lambda jax, jnp: jnp.lexsort((R, S))),
    "unique": C(lambda jax, jnp: (jnp.unique(R), jnp.unique(RF), jnp.unique(RF, equal_nan=False),
                                  jnp.unique(R2), jnp.unique(R2, axis=0), jnp.unique(R2, axis=1),
                                  jnp.unique(EMPTY_I), jnp.unique(BOOL), jnp.unique(3.0))),
    "unique returns": C(lambda jax, jnp: (
        jnp.unique(R, True, True, True), jnp.unique(R2, True, True, True, axis=0),
        jnp.unique(R2, return_inverse=True), jnp.unique(EMPTY_I, True, True, True),
        jnp.unique(RF, return_counts=True))),
    "unique size": C(lambda jax, jnp: (
        jnp.unique(R, size=3), jnp.unique(R, size=9), jnp.unique(R, size=9, fill_value=-1),
        jnp.unique(R, True, True, True, size=9), jnp.unique(R2, axis=0, size=5, fill_value=7),
        jnp.unique(EMPTY_I, size=2, fill_value=0), jnp.unique(R, return_counts=True, size=4))),
    "unique jit": C(lambda jax, jnp: jax.jit(lambda x: jnp.unique(x, size=8, fill_value=0))(R)),
    "unique jit without size": E(lambda jax, jnp: jax.jit(jnp.unique)(R)),
    "unique empty size": E(lambda jax, jnp: jnp.unique(EMPTY_I, size=2)),
    "unique list": E(lambda jax, jnp: jnp.unique([1, 2])),
    "unique_all and co": C(lambda jax, jnp: (
        jnp.unique_all(R), jnp.unique_counts(RF), jnp.unique_inverse(R2),
        jnp.unique_values(RF), jnp.unique_all(R, size=8, fill_value=0))),
    "union1d": C(lambda jax, jnp: (jnp.union1d(R, S), jnp.union1d(R2, F32),
                                   jnp.union1d(R, S, size=12), jnp.union1d(R, S, size=3))),
    "setdiff1d": C(lambda jax, jnp: (
        jnp.setdiff1d(R, S), jnp.setdiff1d(S, R), jnp.setdiff1d(R, S, size=8),
        jnp.setdiff1d(R, S, size=8, fill_value=-1), jnp.setdiff1d(EMPTY_I, S),
        jnp.setdiff1d(np.unique(R), S, assume_unique=True),
        jnp.setdiff1d(np.unique(R), S, True, size=5))),
    "setxor1d": C(lambda jax, jnp: (
        jnp.setxor1d(R, S), jnp.setxor1d(R, S, size=9), jnp.setxor1d(R, S, size=9, fill_value=0),
        jnp.setxor1d(np.unique(R), np.unique(S), True), jnp.setxor1d(EMPTY_I, EMPTY_I),
        jnp.setxor1d(np.unique(R), np.unique(S), True, size=6), jnp.setxor1d(R, F32))),
    "intersect1d": C(lambda jax, jnp: (
        jnp.intersect1d(R, S), jnp.intersect1d(R, S, return_indices=True),
        jnp.intersect1d(np.unique(R), np.unique(S), True, True),
        jnp.intersect1d(R, S, size=4), jnp.intersect1d(R, S, size=4, fill_value=-1),
        jnp.intersect1d(R, S, return_indices=True, size=4),
        jnp.intersect1d(np.unique(R), np.unique(S), True, True, size=3),
        jnp.intersect1d(R2, F32))),
    "set functions under jit": C(lambda jax, jnp: jax.jit(lambda a, b: (
        jnp.union1d(a, b, size=12), jnp.setdiff1d(a, b, size=6), jnp.setxor1d(a, b, size=6),
        jnp.intersect1d(a, b, size=3, return_indices=True)))(R, S)),
    "setdiff1d jit without size": E(lambda jax, jnp: jax.jit(jnp.setdiff1d)(R, S)),
}


@pytest.mark.parametrize("name", _params(SETS))
def test_sets(name):
    check(SETS[name])

X6 = np.arange(6, dtype=np.int32)
M34 = np.arange(12, dtype=np.float32).reshape(3, 4)
SAMPLES = np.array([0.5, 1.5, 1.7, 3.0, -1.0, 2.2, 3.0], np.float32)
PTS = np.array([[0.1, 0.2], [0.5, 0.9], [0.3, 0.3], [0.9, 0.1]], np.float32)
EDIT = {
    "delete": C(lambda jax, jnp: (
        jnp.delete(X6, 2), jnp.delete(M34, -1, axis=1), jnp.delete(X6, np.array([0, 3])),
        jnp.delete(M34, slice(0, 2), 0), jnp.delete(X6, X6 > 3),
        jnp.delete(M34, np.array([1, -1]), 1, assume_unique_indices=True))),
    "delete float index": E(lambda jax, jnp: jnp.delete(X6, np.array([1.0]))),
    "delete jit": C(lambda jax, jnp: jax.jit(lambda x, i: jnp.delete(
        x, i, assume_unique_indices=True))(X6, np.array([4, 1], np.int32))),
    "insert": C(lambda jax, jnp: (
        jnp.insert(X6, 2, np.array([-1, -2])), jnp.insert(M34, 1, 9.0, axis=1),
        jnp.insert(M34, np.array([0, 2]), np.array([7.0, 8.0]), axis=0),
        jnp.insert(X6, slice(1, 3), 5), jnp.insert(X6, -1, 2.7))),
    "insert float index": E(lambda jax, jnp: jnp.insert(X6, np.array([1.5]), 0)),
    "bincount": C(lambda jax, jnp: (
        jnp.bincount(S), jnp.bincount(S, minlength=10), jnp.bincount(S, length=4),
        jnp.bincount(S, weights=F32), jnp.bincount(BOOL))),
    "bincount float": E(lambda jax, jnp: jnp.bincount(F32)),
    "bincount jit": C(lambda jax, jnp: jax.jit(lambda x: jnp.bincount(x, length=9))(S)),
    "bincount jit without length": E(lambda jax, jnp: jax.jit(jnp.bincount)(S)),
    "digitize": C(lambda jax, jnp: (
        jnp.digitize(SAMPLES, np.float32([0, 1, 2])), jnp.digitize(SAMPLES, np.float32([3, 1, 0])),
        jnp.digitize(SAMPLES, np.float32([0, 1, 2]), True), jnp.digitize(SAMPLES, EMPTY_F))),
    "histogram": C(lambda jax, jnp: (
        jnp.histogram(SAMPLES), jnp.histogram(SAMPLES, 3, (0.0, 2.0)),
        jnp.histogram(SAMPLES, np.float32([0, 1, 4]), weights=SAMPLES, density=True),
        jnp.histogram(X6, 4), jnp.histogram_bin_edges(SAMPLES, 4),
        jnp.histogram_bin_edges(np.ones(3, np.float32), 2))),
    "histogramdd": C(lambda jax, jnp: (
        jnp.histogramdd(PTS, 2), jnp.histogramdd(PTS, (2, 3), weights=PTS[:, 0], density=True),
        jnp.histogram2d(PTS[:, 0], PTS[:, 1], 3, range=[(0, 1), (0, 1)]))),
    "fill_diagonal": C(lambda jax, jnp: (
        jnp.fill_diagonal(M34, 1.0, inplace=False),
        jnp.fill_diagonal(M34, np.float32([7, 8]), inplace=False))),
    "fill_diagonal inplace": E(lambda jax, jnp: jnp.fill_diagonal(M34, 1.0)),
    "compress extract": C(lambda jax, jnp: (
        jnp.compress(np.array([True, False, True]), M34, axis=0),
        jnp.compress(np.array([0, 1, 1, 0]), M34, axis=1, size=3, fill_value=-1),
        jnp.extract(M34 > 5, M34), jnp.extract(M34 > 5, M34, size=8))),
    "place put": C(lambda jax, jnp: (
        jnp.place(M34, M34 > 7, np.float32([-1, -2]), inplace=False),
        jnp.put(X6, np.array([0, 9]), np.array([7]), inplace=False),
        jnp.put(X6, np.array([-1, 9]), np.array([7, 8]), mode="clip", inplace=False),
        jnp.put(M34, np.array([13]), 1.0, mode="wrap", inplace=False))),
    "put_along_axis": C(lambda jax, jnp: (
        jnp.put_along_axis(M34, np.array([[1], [0], [3]]), 0.0, 1, inplace=False),
        jnp.put_along_axis(X6, np.array([5, 0]), np.array([9, 9]), None, inplace=False))),
    "resize trim_zeros": C(lambda jax, jnp: (
        jnp.resize(X6, (2, 4)), jnp.resize(M34, 5), jnp.resize(EMPTY_I, 3),
        jnp.trim_zeros(np.array([0, 0, 1, 2, 0])), jnp.trim_zeros(np.array([0, 0, 1, 0]), "b"),
        jnp.trim_zeros(np.zeros(3)))),
    "block": C(lambda jax, jnp: (
        jnp.block([[M34, M34[:, :1]], [np.zeros((1, 5), np.float32)]]), jnp.block([V3, V4]),
        jnp.block(2.0))),
    "block tuple": E(lambda jax, jnp: jnp.block((V3, V4))),
    "block depths": E(lambda jax, jnp: jnp.block([V3, [V4]])),
}


@pytest.mark.parametrize("name", _params(EDIT))
def test_edit(name):
    check(EDIT[name])

G1 = np.array([12, -18, 0, 7, 0, 100], np.int32)
G2 = np.array([8, 12, 5, 0, 0, -75], np.int32)
H = np.array([3.0, -0.0, np.inf, 1e30, np.nan, 5e-39], np.float32)
BITS = np.array([0, 1, -1, 127, -128, 85], np.int8)
NUMBERS = {
    "gcd lcm": C(lambda jax, jnp: (jnp.gcd(G1, G2), jnp.lcm(G1, G2), jnp.gcd(G1, 4),
                                   jnp.lcm(np.uint8(12), np.uint8(18)))),
    "gcd float": E(lambda jax, jnp: jnp.gcd(F32, 2)),
    "hypot": C(lambda jax, jnp: (jnp.hypot(H, H[::-1]), jnp.hypot(3, 4), jnp.hypot(F32, 2.0))),
    "hypot complex": E(lambda jax, jnp: jnp.hypot(1j, 2.0)),
    "cbrt": C(lambda jax, jnp: (jnp.cbrt(H), jnp.cbrt(27), jnp.cbrt(F32), jax.lax.cbrt(F32))),
    "cbrt grad vmap": C(lambda jax, jnp: (jax.grad(jnp.cbrt)(8.0),
                                          jax.vmap(jax.grad(jnp.cbrt))(F32[3:]))),
    "nextafter spacing": C(lambda jax, jnp: (
        jnp.nextafter(H, np.float32(0)), jnp.nextafter(1.0, 2.0), jnp.spacing(H),
        jnp.spacing(np.float16([1, -2, 0])), jax.lax.nextafter(F32, F32[::-1]))),
    "nextafter grad": E(lambda jax, jnp: jax.grad(jax.lax.nextafter)(1.0, 2.0)),
    "nextafter dtypes": E(lambda jax, jnp: jax.lax.nextafter(F32, F32.astype(np.float16))),
    "bit counts": C(lambda jax, jnp: (
        jnp.bitwise_count(BITS), jnp.bitwise_count(G1), jnp.bitwise_count(U8),
        jnp.bitwise_count(True), jax.lax.population_count(BITS), jax.lax.clz(BITS),
        jax.lax.clz(U8), jax.vmap(jax.lax.clz)(G1))),
    "clz float": E(lambda jax, jnp: jax.lax.clz(F32)),
    "copy": C(lambda jax, jnp: (jnp.copy(F32), jnp.copy(2.0), jnp.copy(BITS),
                                jax.grad(lambda x: (jnp.copy(x) ** 2).sum())(F32),
                                jax.vmap(jnp.copy)(M34))),
    "windows": C(lambda jax, jnp: [(f(0), f(1), f(6)) for f in (
        jnp.bartlett, jnp.blackman, jnp.hamming, jnp.hanning)]),
    "windows jit": E(lambda jax, jnp: jax.jit(jnp.hanning)(4)),
    **{f"{name} jaxpr": J(lambda jax, jnp, name=name, args=args: jax.make_jaxpr(
        getattr(jnp, name))(*args)) for name, args in [
        ("cbrt", (F32,)), ("nextafter", (F32, 2.0)), ("copy", (F32,)), ("bitwise_count", (BITS,)),
        ("gcd", (G1, 2)), ("lcm", (G1, G2))]},
    "copy grad jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(
        lambda x: jnp.copy(x).sum()))(F32)),
}


@pytest.mark.parametrize("name", _params(NUMBERS))
def test_numbers(name):
    check(NUMBERS[name])
