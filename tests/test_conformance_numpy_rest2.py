"""Conformance cases for the second part of appendix A24 (autodidax/numpy_rest.py): sets and
`unique`, insertion and deletion, counting and histograms, and the rest, against JAX. Same
harness as tests/test_conformance.py."""
import numpy as np
import pytest

from test_conformance import (BOOL, C, E, EMPTY as EMPTY_F, F, F32, I32, J, NAN, T, U8, V3, V4,
                              _params, check)

R = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], np.int32)        # repeats
S = np.array([0, 2, 3, 7, 2], np.int32)
RF = np.array([1.5, np.nan, -1.0, 1.5, np.nan, 0.0], np.float32)
R2 = np.array([[1, 2], [3, 4], [1, 2], [0, 9]], np.int32)
EMPTY_I = np.zeros((0,), np.int32)

SETS = {
    "lexsort": C(lambda jax, jnp: (jnp.lexsort((R, R % 3)), jnp.lexsort((np.int32(2),)))),
    "lexsort no keys": E(lambda jax, jnp: jnp.lexsort(())),
    "lexsort shapes": E(lambda jax, jnp: jnp.lexsort((R, S))),
    "unique": C(lambda jax, jnp: (jnp.unique(R2, True, True, True, axis=0),
                                  jnp.unique(EMPTY_I, True, True, True))),
    "unique jit": C(lambda jax, jnp: jax.jit(lambda r, rf, r2: (
        jnp.unique(r, True, True, True, size=9, fill_value=-1), jnp.unique(r, size=4),
        jnp.unique_all(r, size=8), jnp.unique_counts(rf, size=4), jnp.unique_values(rf, size=5),
        jnp.unique(rf, size=5),
        jnp.unique_inverse(r2, size=6), jnp.lexsort(r2.T), jnp.isin(r, r2, method="sort"),
        jnp.isin(r2, r, invert=True, method="sort")))(R, RF, R2)),
    "unique jit without size": E(lambda jax, jnp: jax.jit(jnp.unique)(R)),
    "unique empty size": E(lambda jax, jnp: jnp.unique(EMPTY_I, size=2)),
    "unique list": E(lambda jax, jnp: jnp.unique([1, 2])),
    "set functions": C(lambda jax, jnp: (jnp.setdiff1d(R, S),
                                         jnp.intersect1d(R, S, return_indices=True))),
    "set functions with size": C(lambda jax, jnp: jax.jit(lambda a, b, ua, ub: (
        jnp.union1d(a, b, size=12), jnp.setdiff1d(a, b, size=6, fill_value=-1),
        jnp.setxor1d(a, b, size=6), jnp.intersect1d(a, b, size=4, return_indices=True),
        jnp.setdiff1d(ua, ub, True, size=6), jnp.setxor1d(ua, ub, True, size=6),
        jnp.intersect1d(ua, ub, True, True, size=3)))(R, S, np.unique(R), np.unique(S))),
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
    "delete": C(lambda jax, jnp: (jnp.delete(M34, np.array([0, 3]), 1), jnp.delete(X6, X6 > 3))),
    "delete float index": E(lambda jax, jnp: jnp.delete(X6, np.array([1.0]))),
    "insert float index": E(lambda jax, jnp: jnp.insert(X6, np.array([1.5]), 0)),
    "bincount trim_zeros": C(lambda jax, jnp: (jnp.bincount(S),
                                               jnp.trim_zeros(np.array([0, 0, 1, 0]), "b"))),
    "bincount float": E(lambda jax, jnp: jnp.bincount(F32)),
    "bincount jit without length": E(lambda jax, jnp: jax.jit(jnp.bincount)(S)),
    "under jit": C(lambda jax, jnp: jax.jit(lambda x6, m34, s, f32, samples, pts: (
        jnp.insert(m34, np.array([0, 2]), np.array([7.0, 8.0]), axis=1), jnp.delete(x6, 2),
        jnp.insert(x6, 2, np.array([-1, -2])), jnp.insert(m34, 1, 9.0, axis=1),
        jnp.delete(m34, np.array([1, -1]), 1, assume_unique_indices=True),
        jnp.delete(m34, slice(0, 2), 0), jnp.bincount(s, weights=f32, length=9),
        jnp.histogram(samples), jnp.histogram(samples, np.float32([0, 1, 4]), weights=samples,
                                              density=True),
        jnp.histogram_bin_edges(np.ones(3, np.float32), 2),
        jnp.histogramdd(pts, (2, 3), weights=pts[:, 0], density=True),
        jnp.histogram2d(pts[:, 0], pts[:, 1], 3, range=[(0, 1), (0, 1)]),
        jnp.compress(np.array([0, 1, 1, 0]), m34, axis=1, size=3, fill_value=-1),
        jnp.extract(m34 > 5, m34, size=8),
        jnp.place(m34, m34 > 7, np.float32([-1, -2]), inplace=False),
        jnp.put(m34, np.array([-1, 13]), np.float32([7, 8]), mode="clip", inplace=False),
        jnp.put(x6, np.array([0, 9]), np.array([7]), inplace=False),
        jnp.put_along_axis(m34, np.array([[1], [0], [3]]), 0.0, 1, inplace=False),
        jnp.resize(x6, (2, 4)), jnp.fill_diagonal(m34, np.float32([7, 8]), inplace=False),
        jnp.block([[m34, m34[:, :1]], [np.zeros((1, 5), np.float32)]]), jnp.block([f32, f32]),
        jnp.digitize(samples, np.float32([0, 1, 2])), jnp.digitize(samples, np.float32([3, 1, 0]),
                                                                   True),
    ))(X6, M34, S, F32, SAMPLES, PTS)),
    "compress extract": C(lambda jax, jnp: (jnp.compress(np.array([True, False, True]), M34, 0),
                                            jnp.extract(M34 > 5, M34))),
    "fill_diagonal inplace": E(lambda jax, jnp: jnp.fill_diagonal(M34, 1.0)),
    "put inplace": E(lambda jax, jnp: jnp.put(X6, 0, 1)),
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
    "gcd lcm hypot": C(lambda jax, jnp: (jnp.gcd(G1, G2), jnp.lcm(G1, G2), jnp.gcd(G1, 4),
                                         jnp.hypot(H, H[::-1]), jnp.hypot(3, 4))),
    "gcd float": E(lambda jax, jnp: jnp.gcd(F32, 2)),
    "hypot complex": E(lambda jax, jnp: jnp.hypot(1j, 2.0)),
    "cbrt nextafter spacing": C(lambda jax, jnp: (jnp.cbrt(H), jnp.cbrt(27), jnp.spacing(H),
                                                  jnp.nextafter(1.0, 2.0))),
    "cbrt nextafter spacing jit": C(lambda jax, jnp: jax.jit(lambda h: (
        jax.lax.cbrt(h), jax.grad(jnp.cbrt)(8.0), jax.vmap(jax.grad(jnp.cbrt))(h),
        jnp.nextafter(h, np.float32(0)), jnp.spacing(np.float16([1, -2, 0])),
        jax.lax.nextafter(h, h[::-1])))(H)),
    "nextafter grad": E(lambda jax, jnp: jax.grad(jax.lax.nextafter)(1.0, 2.0)),
    "nextafter dtypes": E(lambda jax, jnp: jax.lax.nextafter(F32, F32.astype(np.float16))),
    "bit counts": C(lambda jax, jnp: (
        jnp.bitwise_count(BITS), jnp.bitwise_count(G1), jnp.bitwise_count(U8),
        jax.lax.population_count(BITS), jax.lax.clz(BITS), jax.lax.clz(U8),
        jax.vmap(jax.lax.clz)(G1))),
    "clz float": E(lambda jax, jnp: jax.lax.clz(F32)),
    "copy": C(lambda jax, jnp: (jnp.copy(F32), jnp.copy(2.0), jnp.asarray(F32).copy(),
                                jax.grad(lambda x: (jnp.copy(x) ** 2).sum())(F32),
                                jax.vmap(jnp.copy)(M34))),
    "windows": C(lambda jax, jnp: jax.jit(lambda: [(f(0), f(1), f(6)) for f in (
        jnp.bartlett, jnp.blackman, jnp.hamming, jnp.hanning)])()),
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


PHASE = np.array([0.0, 3.0, 6.5, 0.2, -4.0, 9.5], np.float32)
XP = np.array([0.0, 1.0, 2.5, 4.0], np.float32)
FP = np.array([1.0, -1.0, 3.0, 0.5], np.float32)
NANS = np.array([[1.0, np.nan, 3.0, 0.5], [np.nan, np.nan, 2.0, 7.0],
                 [np.nan, np.nan, np.nan, np.nan]], np.float32)
MISC = {
    "partition": C(lambda jax, jnp: jax.jit(lambda r, m34, u8: (
        jnp.partition(r, 3), jnp.argpartition(r, 3), jnp.partition(m34, 1, axis=0),
        jnp.argpartition(m34, -1), jnp.partition(u8, 2)))(R, M34, U8)),
    "partition complex": E(lambda jax, jnp: jnp.partition(np.ones(3, np.complex64), 1)),
    "along axes": C(lambda jax, jnp: (
        jnp.apply_along_axis(jnp.cumsum, 1, M34), jnp.apply_along_axis(lambda v: v @ v, 0, M34),
        jnp.apply_over_axes(jnp.sum, M34, [0, 1]),
        jnp.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=jnp.int32))),
    "piecewise": C(lambda jax, jnp: (
        jnp.piecewise(F32, [F32 < 0, F32 > 1], [lambda v: -v, lambda v: v * 2, 7.0]),
        jnp.piecewise(F32, [F32 < 0], [lambda v: v ** 2]), jnp.piecewise(I32, [I32 > 0], [1.5]))),
    "piecewise count": E(lambda jax, jnp: jnp.piecewise(F32, [F32 < 0], [1, 2, 3])),
    "interp": C(lambda jax, jnp: jax.jit(lambda x, xp, fp: (
        jnp.interp(x, xp, fp), jnp.interp(x, xp, fp, left=-9.0, right=9.0),
        jnp.interp(x, xp, fp, "extrapolate", "extrapolate"),
        jnp.interp(x, xp, fp, period=3.0)))(PHASE, XP, FP)),
    "interp shapes": E(lambda jax, jnp: jnp.interp(PHASE, XP, FP[:3])),
    "unwrap": C(lambda jax, jnp: jax.jit(lambda p, i, m: (
        jnp.unwrap(p), jnp.unwrap(p, discont=2.0, period=4.0), jnp.unwrap(i, period=8),
        jnp.unwrap(m, axis=0)))(PHASE, np.array([0, 5, 9, 2]), M34)),
    "mask_indices": C(lambda jax, jnp: jnp.mask_indices(3, jnp.tril, -1, size=4)),
    "nan quantiles": C(lambda jax, jnp: jax.jit(lambda a: (
        jnp.nanmedian(a), jnp.nanmedian(a, axis=1), jnp.nanmedian(a, 0, keepdims=True),
        jnp.nanquantile(a, np.float32([0.1, 0.9]), axis=1),
        jnp.nanquantile(a, 0.3, axis=1, method="nearest"),
        jnp.nanquantile(a, 0.3, method="lower", keepdims=True),
        jnp.nanpercentile(a, 40, axis=1, method="higher"), jnp.nanpercentile(a[0], 50.0)))(NANS)),
    "nanquantile out": E(lambda jax, jnp: jnp.nanquantile(NANS, 0.5, out=NANS)),
    "numpy's names": C(lambda jax, jnp: (
        jnp.get_printoptions()["precision"], jnp.array_str(np.arange(3)), jnp.array_repr(F32),
        jnp.character is np.character, jnp.object_ is np.object_, jnp.flexible is np.flexible,
        issubclass(jnp.ComplexWarning, Warning), jnp.frombuffer(b"\x01\x02", jnp.uint8),
        jnp.fromstring("1 2 3", sep=" "))),
    "from_dlpack": C(lambda jax, jnp: (jnp.from_dlpack(np.arange(3)), jnp.from_dlpack(F32),
                                       jnp.from_dlpack(BOOL), jnp.from_dlpack(np.ones(2)))),
    "from_dlpack list": E(lambda jax, jnp: jnp.from_dlpack([1, 2])),
    "fromiter": E(lambda jax, jnp: jnp.fromiter(iter([1, 2]), float)),
}


@pytest.mark.parametrize("name", _params(MISC))
def test_misc(name):
    check(MISC[name])


SQ = np.array([1.0, 4.0, 9.0, 16.0, 25.0], np.float32)
COORDS = np.array([0.0, 1.0, 1.5, 3.0], np.float32)
MORE = {
    "gradient": C(lambda jax, jnp: (
        jnp.gradient(SQ), jnp.gradient(SQ, 0.5), jnp.gradient(M34), jnp.gradient(M34, axis=0),
        jnp.gradient(M34, 2.0, COORDS), jnp.gradient(M34, axis=-1), jnp.gradient(X6))),
    "gradient short": E(lambda jax, jnp: jnp.gradient(np.ones(1, np.float32))),
    "gradient spacing count": E(lambda jax, jnp: jnp.gradient(M34, 1.0, 2.0, 3.0)),
    "gradient jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jnp.gradient)(SQ)),
    "packbits unpackbits": C(lambda jax, jnp: jax.jit(lambda b, m, u: (
        jnp.packbits(b), jnp.packbits(m > 4, axis=1), jnp.packbits(m > 2, 0, "little"),
        jnp.unpackbits(u), jnp.unpackbits(u[None], axis=0, count=3),
        jnp.unpackbits(u, count=44, bitorder="little")))(BOOL, M34, U8)),
    "packbits float": E(lambda jax, jnp: jnp.packbits(F32)),
    "unpackbits int": E(lambda jax, jnp: jnp.unpackbits(I32)),
    "polydiv": C(lambda jax, jnp: jax.jit(lambda a, b, c: (
        jnp.polydiv(a, b), jnp.polydiv(c, V3)))(SQ, np.float32([1, -1]), np.float32([1, -3, 2]))),
    "vectorize": C(lambda jax, jnp: (
        jnp.vectorize(jnp.dot, signature="(n),(n)->()")(M34, V4),
        jnp.vectorize(lambda x, p: x ** p, excluded={1})(F32, 2),
        jnp.vectorize(lambda x, y: (x + y, x * y))(V3[:, None], V4),
        jnp.vectorize(lambda m: (m.sum(0), m.T), signature="(a,b)->(b),(b,a)")(T),
        jnp.vectorize(lambda x, y=None: x if y is None else x + y)(F32, None),
        jnp.vectorize(lambda x, *, k: x * k, excluded={"k"})(F32, k=3))),
    "vectorize core dims": E(lambda jax, jnp: jnp.vectorize(
        jnp.dot, signature="(n),(n)->()")(M34, V3)),
    "vectorize output dims": E(lambda jax, jnp: jnp.vectorize(
        lambda x: x, signature="(n)->()")(M34)),
    "vectorize signature": E(lambda jax, jnp: jnp.vectorize(lambda x: x, signature="n->n")(V3)),
    "vectorize jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jnp.vectorize(
        jnp.dot, signature="(n),(n)->()"))(M34, V4)),
    "frompyfunc": C(lambda jax, jnp: (lambda add, mx: (
        repr(add), add.nin, add.nout, add.identity, jax.jit(lambda x6, m34, f32: (
            add(x6, 10), add(m34, V4), add.reduce(m34), add.reduce(m34, None, keepdims=True),
            add.reduce(m34, 1, initial=5.0), add.reduce(m34, 1, where=m34 > 3), mx.reduce(f32),
            add.accumulate(m34, axis=1), add.outer(V3, x6),
            add.at(f32, np.array([0, 0, 4]), 1.0, inplace=False),
            add.reduceat(x6, np.array([0, 4, 1])), mx.reduce(EMPTY_F, initial=-1.0)))(
                X6, M34, F32)))(jnp.frompyfunc(lambda x, y: x + y, 2, 1, identity=0),
                                jnp.frompyfunc(jnp.maximum, 2, 1))),
    "frompyfunc reduce of nothing": E(lambda jax, jnp: jnp.frompyfunc(
        jnp.maximum, 2, 1).reduce(EMPTY_F)),
    "frompyfunc where without identity": E(lambda jax, jnp: jnp.frompyfunc(
        jnp.maximum, 2, 1).reduce(F32, where=F32 > 0)),
    "frompyfunc at inplace": E(lambda jax, jnp: jnp.frompyfunc(
        jnp.maximum, 2, 1).at(F32, 0, 1.0)),
    "ufunc is a class": J(lambda jax, jnp: (
        isinstance(jnp.ufunc, type), isinstance(jnp.frompyfunc(jnp.maximum, 2, 1), jnp.ufunc))),
    "polymul poly": C(lambda jax, jnp: jax.jit(lambda a, b: (
        jnp.polymul(a, b), jnp.polymul(b, a[:2]), jnp.polymul(np.array([1, 2]), np.array([3])),
        jnp.poly(b), jnp.poly(np.array([1, 2, 3])), jnp.poly(EMPTY_F)))(SQ, V3)),
    "polymul trimmed": C(lambda jax, jnp: jnp.polymul(np.float32([0, 0, 1, 2]), V3,
                                                      trim_leading_zeros=True)),
    "poly matrix": E(lambda jax, jnp: jnp.poly(np.ones((2, 3), np.float32))),
    "edge cases": C(lambda jax, jnp: (
        jnp.unique(np.array([0.0, -0.0, 1.0, np.nan, 1.0], np.float32), return_counts=True),
        jnp.unique(np.array([1 + 1j, 1 - 1j, 1 + 1j, np.nan], np.complex64)),
        jnp.insert(I32, -2, 9), jnp.bincount(I32), jnp.place(I32, I32 > 0, 7.9, inplace=False),
        jnp.piecewise(I32, [I32 > 0], [lambda v: v * 2.5, -1]), jnp.unwrap(I32))),
    "partition bool": E(lambda jax, jnp: jnp.partition(BOOL, 1)),
    "under transformations": C(lambda jax, jnp: jax.jit(lambda g1, g2, h, sq, nans: (
        jax.vmap(jnp.gcd)(g1, g2), jax.grad(lambda x: jnp.hypot(x, 2.0).sum())(sq),
        jax.grad(lambda x: jnp.interp(x, XP, FP).sum())(sq),
        jax.vmap(lambda v: jnp.partition(v, 1))(M34), jax.grad(jnp.nanmedian)(nans[0]),
        jax.vmap(jnp.bitwise_count)(R2), jax.grad(lambda x: jnp.gradient(x).sum())(sq),
        jax.vmap(lambda x: jnp.unique(x, size=3, fill_value=0))(R2),
        jax.grad(lambda x: jnp.cbrt(x).sum())(h[:1] + 2)))(G1, G2, H, SQ, NANS)),
}


@pytest.mark.parametrize("name", _params(MORE))
def test_more(name):
    check(MORE[name])


# Jaxprs of the new names that JAX stages (or traces) as the book does.
JAXPRS = {
    "lexsort": J(lambda jax, jnp: jax.make_jaxpr(lambda r: jnp.lexsort((r, r)))(R)),
    "partition": J(lambda jax, jnp: jax.make_jaxpr(lambda r: jnp.partition(r, 3))(R)),
    "argpartition": J(lambda jax, jnp: jax.make_jaxpr(lambda r: jnp.argpartition(r, 1))(R)),
    "packbits unpackbits": J(lambda jax, jnp: jax.make_jaxpr(
        lambda u: (jnp.packbits(u), jnp.unpackbits(u)))(U8)),
    "block": J(lambda jax, jnp: jax.make_jaxpr(lambda a, b: jnp.block([[a, b]]))(M34, M34)),
    "unwrap": J(lambda jax, jnp: jax.make_jaxpr(jnp.unwrap)(SQ)),
    "hanning": J(lambda jax, jnp: jax.make_jaxpr(lambda: jnp.hanning(4))()),
    "fill_diagonal": J(lambda jax, jnp: jax.make_jaxpr(
        lambda m: jnp.fill_diagonal(m, 1.0, inplace=False))(M34)),
    "delete": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jnp.delete(x, 2))(R)),
    "compress": J(lambda jax, jnp: jax.make_jaxpr(
        lambda m: jnp.compress(np.array([1, 0, 1]), m, 0, size=2))(M34)),
    "bincount": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jnp.bincount(x, length=10))(R)),
    "cbrt grad": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(jnp.cbrt))(np.float32(2))),
    "copy method": J(lambda jax, jnp: jax.make_jaxpr(lambda x: x.copy())(F32)),
    "clz vmap": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(jax.lax.clz))(R2)),
}


@pytest.mark.parametrize("name", _params(JAXPRS))
def test_jaxprs(name):
    check(JAXPRS[name])


PX = np.linspace(0.0, 1.0, 7, dtype=np.float32)
PY = np.sin(3 * PX).astype(np.float32)
PZ = np.array([0.0, 0.0, 1.0, -3.0, 2.0], np.float32)     # two leading zeros; roots 1 and 2

POLYNOMIALS = {
    "roots": C(lambda jax, jnp: (jnp.roots(PZ), jnp.roots(PZ[2:]), jnp.roots(np.float32(3)),
                                 jnp.roots(np.zeros(3, np.float32)))),
    "roots strip_zeros=False under jit": C(lambda jax, jnp: jax.jit(
        lambda p: (jnp.roots(p, strip_zeros=False), jnp.roots(p * 0, strip_zeros=False)))(PZ)),
    "roots under jit": E(lambda jax, jnp: jax.jit(jnp.roots)(PZ)),
    "roots rank 2": E(lambda jax, jnp: jnp.roots(np.ones((2, 2)))),
    "poly of a matrix": C(lambda jax, jnp: jnp.poly(np.array([[2.0, 1.0], [0.0, 3.0]],
                                                             np.float32))),
    "polyfit": C(lambda jax, jnp: (jnp.polyfit(PX, PY, 3), jnp.polyfit(PX, PY, 2, full=True),
                                   jnp.polyfit(PX, PY, 2, w=PX + 1),
                                   jnp.polyfit(PX, np.stack([PY, PX], 1), 1),
                                   jnp.polyfit(PX, PY, 1, rcond=1e-3))),
    "polyfit cov": C(lambda jax, jnp: (jnp.polyfit(PX, PY, 2, cov=True),
                                       jnp.polyfit(PX, PY, 2, cov="unscaled"),
                                       jnp.polyfit(PX, np.stack([PY, PX], 1), 1, cov=True)),
                     rtol=1e-5, atol=1e-6),
    "polyfit deg": E(lambda jax, jnp: jnp.polyfit(PX, PY, -1)),
    "polyfit x rank": E(lambda jax, jnp: jnp.polyfit(PY[None], PY[None], 1)),
    "polyfit lengths": E(lambda jax, jnp: jnp.polyfit(PX, PY[:3], 1)),
    "polyfit cov few points": E(lambda jax, jnp: jnp.polyfit(PX[:3], PY[:3], 2, cov=True)),
}


@pytest.mark.parametrize("name", _params(POLYNOMIALS))
def test_polynomials(name):
    check(POLYNOMIALS[name])


def _path(jnp, spec, *shapes, **kw):
    path, info = jnp.einsum_path(spec, *[np.ones(s, np.float32) for s in shapes], **kw)
    return str(path) + "\n" + repr(info)


EINSUM_PATH = {
    "einsum_path": J(lambda jax, jnp: "\n".join([
        _path(jnp, "ij,jk,kl->il", (2, 3), (3, 4), (4, 5)), _path(jnp, "ij,jk", (2, 3), (3, 4)),
        _path(jnp, "ii->i", (3, 3)), _path(jnp, "bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
        _path(jnp, "ij,kl,jk", (2, 3), (4, 5), (3, 4)), _path(jnp, "i,i", (3,), (3,)),
        _path(jnp, "i,j", (3,), (4,)), _path(jnp, "...ij,...jk->...ik", (2, 2, 3), (3, 4)),
        _path(jnp, "...i,...i", (2, 3), (3,)), _path(jnp, "ij,ji", (2, 3), (3, 2)),
        _path(jnp, "ij,jk,kl,lm", (2, 3), (3, 4), (4, 5), (5, 6)),
        _path(jnp, "abc,bcd,ab", (2, 3, 4), (3, 4, 5), (2, 3), optimize=True),
        _path(jnp, "ij,jk,kl", (2, 3), (3, 4), (4, 5), optimize=False),
        _path(jnp, "ea,fb,abcd,gc,hd->efgh", (5, 6), (5, 6), (6, 6, 6, 6), (5, 6), (5, 6),
              optimize=[(0, 2), (0, 3), (0, 2), (0, 1)]),
        repr(jnp.einsum_path(np.ones((2, 3)), [0, 1], np.ones((3, 4)), [1, 2], [0, 2])),
        _path(jnp, "ab,bc,cd,de->ae", (8, 2), (2, 9), (9, 3), (3, 7)),
        # opt_einsum prices a pair of letter sets once: here that changes the order it takes
        _path(jnp, "bad,fa,c,ac->", (6, 7, 7), (2, 7), (7,), (7, 7)),
        _path(jnp, "ai,ij,jk,kl,lb->ab", (2, 3), (3, 4), (4, 5), (5, 6), (6, 2),
              optimize="optimal")])),
    "einsum_path shapes": E(lambda jax, jnp: jnp.einsum_path("ij,jk", np.ones((2, 3)),
                                                             np.ones((4, 5)))),
}


@pytest.mark.parametrize("name", _params(EINSUM_PATH))
def test_einsum_path(name):
    check(EINSUM_PATH[name])
