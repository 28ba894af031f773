"""Conformance cases for the rest of the everyday `jax.numpy` and `jax.lax` surface: `pad`,
`einsum`, `round` with decimals, dtypes, splitting, statistics and the `nan` reductions, `iota`,
`full`, `broadcast`, `clamp`. Same harness and kinds as tests/test_conformance.py (C, B, E, J)."""
import numpy as np
import pytest

from test_conformance import (B, BOOL, C, D0, E, EMPTY, F, F16, F32, G, I, I8, I32, J, NAN, NAN2,
                              POS, T, T2, U8, V3, V4, XS, _params, check)

M3 = np.array([[1.0, 2.0, 0.5], [0.5, -1.0, 3.0], [2.0, 0.0, 1.5], [1.0, 1.0, -2.0]],
              np.float32)                                   # (4, 3): 3 variables, 4 samples
VEC3 = np.array([[1.0, 0.0, 2.0], [-1.0, 3.0, 0.5]], np.float32)
VEC2 = np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)
INF = np.array([1.0, np.inf, -np.inf, np.nan, -2.0], np.float32)
HALF = np.array([0.125, 1.005, -2.675, 12.5, 1234.5678], np.float32)
ALLNAN = np.array([[np.nan, np.nan], [1.0, np.nan]], np.float32)
I8M = np.arange(6, dtype=np.int8).reshape(2, 3)
I8N = np.arange(12, dtype=np.int8).reshape(3, 4)
SQ = np.arange(9, dtype=np.float32).reshape(3, 3)

NUMPY2 = {
    # lax.pad
    "lax.pad low high": C(lambda jax, jnp: jax.lax.pad(F32, 0.0, [(2, 1, 0)])),
    "lax.pad interior": C(lambda jax, jnp: jax.lax.pad(F, -1.0, [(1, 0, 1), (0, 2, 2)])),
    "lax.pad negative": C(lambda jax, jnp: jax.lax.pad(F32, 0.0, [(-1, -2, 1)])),
    "lax.pad int": C(lambda jax, jnp: jax.lax.pad(I32, 7, [(1, -1, 0)])),
    "lax.pad empty": C(lambda jax, jnp: jax.lax.pad(EMPTY, 1.0, [(1, 2, 3)])),
    "lax.pad weak": C(lambda jax, jnp: jax.lax.pad(jnp.full((2,), 3.0), 0.0, [(1, 1, 0)])),
    "lax.pad jit": C(lambda jax, jnp: jax.jit(
        lambda x: jax.lax.pad(x, 0.0, [(-1, 2, 1), (1, 1, 0)]))(F)),
    "lax.pad jit value": C(lambda jax, jnp: jax.jit(
        lambda x, v: jax.lax.pad(x, v, [(1, 2, 1)]))(F32, np.float32(9))),
    "lax.pad grad": C(lambda jax, jnp: jax.grad(
        lambda x, v: (jax.lax.pad(x, v, [(1, -1, 2)]) ** 2).sum(), (0, 1))(F32, 3.0)),
    "lax.pad jvp": C(lambda jax, jnp: jax.jvp(
        lambda x, v: jax.lax.pad(x, v, [(2, 1, 1)]), (F32, 1.0), (POS, 2.0))),
    "lax.pad jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.lax.pad(x, 0.0, [(1, 2, 1)]))(F32)),
    "lax.pad jvp jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.jvp(lambda x: jax.lax.pad(x, 0.0, [(1, 2, 1)]), (x,), (x,)))(F32)),
    "lax.pad dtype mismatch": E(lambda jax, jnp: jax.lax.pad(F32, 0, [(1, 1, 0)])),
    "lax.pad float16 python float": E(lambda jax, jnp: jax.lax.pad(F16, 0.0, [(1, 1, 0)])),
    "lax.pad too negative": E(lambda jax, jnp: jax.lax.pad(F32, 0.0, [(-6, 0, 0)])),
    "lax.pad value not scalar": E(lambda jax, jnp: jax.lax.pad(F32, V3[:2], [(1, 1, 0)])),
    "lax.pad negative interior": E(lambda jax, jnp: jax.lax.pad(F32, 0.0, [(1, 1, -1)])),
    "lax.pad config length": E(lambda jax, jnp: jax.lax.pad(F32, 0.0, [(1, 1, 0), (0, 0, 0)])),
    # jnp.pad
    "pad int": C(lambda jax, jnp: jnp.pad(F, 2)),
    "pad linear_ramp": C(lambda jax, jnp: [jnp.pad(F, w, mode="linear_ramp", **kw) for w, kw in [
        (2, {}), (((1, 2), (0, 3)), {"end_values": ((5, -1), (2, 7))}), (1, {"end_values": 4.5})]]
        + [jnp.pad(I, 3, mode="linear_ramp", end_values=(10, -2))]),
    "pad linear_ramp's jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda v: jnp.pad(v, 1, mode="linear_ramp", end_values=2.0))(F32)),
    "pad median": C(lambda jax, jnp: [jnp.pad(F, 2, mode="median"), jnp.pad(I, 1, mode="median"),
                                      jnp.pad(F, ((1, 0), (2, 1)), mode="median", stat_length=2)]),
    "pad pair": C(lambda jax, jnp: jnp.pad(I, (1, 2))),
    "pad per axis": C(lambda jax, jnp: jnp.pad(T, ((0, 1), (2, 0), (1, 1)))),
    "pad (1,2) form": C(lambda jax, jnp: jnp.pad(F, ((1, 2),))),
    "pad constant_values": C(lambda jax, jnp: jnp.pad(F32, 2, constant_values=9.5)),
    "pad constant_values pairs": C(lambda jax, jnp: jnp.pad(F, ((1, 2), (3, 1)),
                                                            constant_values=((1, 2), (3, 4)))),
    "pad constant_values int into float": C(lambda jax, jnp: jnp.pad(F, 1, constant_values=7)),
    "pad uint8": C(lambda jax, jnp: jnp.pad(U8, 1, constant_values=3)),
    "pad bool": C(lambda jax, jnp: jnp.pad(BOOL, 1, constant_values=True)),
    "pad scalar": C(lambda jax, jnp: jnp.pad(D0, 3)),
    "pad edge": C(lambda jax, jnp: jnp.pad(F, ((1, 2), (0, 3)), mode="edge")),
    "pad wrap": C(lambda jax, jnp: jnp.pad(F, ((1, 5), (6, 2)), mode="wrap")),
    "pad reflect": C(lambda jax, jnp: jnp.pad(F32, (3, 2), mode="reflect")),
    "pad reflect long": C(lambda jax, jnp: jnp.pad(F32, (9, 11), mode="reflect")),
    "pad symmetric": C(lambda jax, jnp: jnp.pad(F, ((4, 1), (2, 5)), mode="symmetric")),
    "pad reflect odd": C(lambda jax, jnp: jnp.pad(F32, (3, 6), mode="reflect",
                                                  reflect_type="odd")),
    "pad symmetric odd": C(lambda jax, jnp: jnp.pad(I, 2, mode="symmetric", reflect_type="odd")),
    "pad maximum": C(lambda jax, jnp: jnp.pad(F, ((1, 2), (0, 3)), mode="maximum")),
    "pad minimum stat_length": C(lambda jax, jnp: jnp.pad(F, 2, mode="minimum", stat_length=2)),
    "pad mean": C(lambda jax, jnp: jnp.pad(F32, (2, 1), mode="mean")),
    "pad mean int stat_length": C(lambda jax, jnp: jnp.pad(I, ((1, 1), (2, 0)), mode="mean",
                                                           stat_length=((1, 2), (3, 1)))),
    "pad mean grad": C(lambda jax, jnp: jax.grad(
        lambda x: (jnp.pad(x, 2, mode="mean", stat_length=2) ** 2).sum())(F32)),
    "pad stat_length zero": E(lambda jax, jnp: jnp.pad(F32, 1, mode="maximum", stat_length=0)),
    "pad empty mode": C(lambda jax, jnp: jnp.pad(F, 1, mode="empty")),
    "pad jit": C(lambda jax, jnp: jax.jit(lambda x: jnp.pad(x, ((1, 0), (2, 1)), mode="edge"))(F)),
    "pad grad constant": C(lambda jax, jnp: jax.grad(
        lambda x: (jnp.pad(x, 2, constant_values=1.0) ** 2).sum())(F32)),
    "pad grad reflect": C(lambda jax, jnp: jax.grad(
        lambda x: (jnp.pad(x, (3, 2), mode="reflect") * jnp.arange(10.0)).sum())(F32)),
    "pad vmap": C(lambda jax, jnp: jax.vmap(lambda x: jnp.pad(x, 1, mode="wrap"))(F)),
    "pad jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jnp.pad(x, 2))(F32)),
    "pad jaxpr edge": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jnp.pad(x, 2, mode="edge"))(F32)),
    "pad jaxpr reflect": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jnp.pad(x, 2, mode="reflect"))(F32)),
    "pad jit constant pairs": C(lambda jax, jnp: jax.jit(
        lambda x: jnp.pad(x, 1, constant_values=((1, 2), (3, 4))))(F)),
    "pad jit traced constant": C(lambda jax, jnp: jax.jit(
        lambda x, c: jnp.pad(x, (2, 1), constant_values=c))(F32, 5.0)),
    "pad width from array": C(lambda jax, jnp: jnp.pad(F32, jnp.array([1, 2]))),
    "pad vmap reflect": C(lambda jax, jnp: jax.vmap(lambda x: jnp.pad(x, 2, mode="symmetric"))(F)),
    "pad negative width": E(lambda jax, jnp: jnp.pad(F32, -1)),
    "pad float width": E(lambda jax, jnp: jnp.pad(F32, 1.5)),
    "pad bad shape": E(lambda jax, jnp: jnp.pad(F32, ((1, 2, 3),))),
    "pad unknown mode": E(lambda jax, jnp: jnp.pad(F32, 1, mode="nonsense")),
    "pad bad keyword": E(lambda jax, jnp: jnp.pad(F32, 1, mode="edge", constant_values=1)),
    "pad reflect empty axis": E(lambda jax, jnp: jnp.pad(EMPTY, 1, mode="reflect")),
    "pad list": E(lambda jax, jnp: jnp.pad([1.0, 2.0], 1)),
    # einsum
    "einsum matmul": C(lambda jax, jnp: jnp.einsum("ij,jk->ik", F, G)),
    "einsum implicit": C(lambda jax, jnp: jnp.einsum("ij,jk", F, G)),
    "einsum transposed out": C(lambda jax, jnp: jnp.einsum("ij,jk->ki", F, G)),
    "einsum batch": C(lambda jax, jnp: jnp.einsum("bij,bjk->bik", T, T2)),
    "einsum batch out of order": C(lambda jax, jnp: jnp.einsum("bij,bjk->kbi", T, T2)),
    "einsum outer": C(lambda jax, jnp: jnp.einsum("i,j->ij", V3, V4)),
    "einsum inner": C(lambda jax, jnp: jnp.einsum("i,i", V4, V4)),
    "einsum trace": C(lambda jax, jnp: jnp.einsum("ii", SQ)),
    "einsum diagonal": C(lambda jax, jnp: jnp.einsum("ii->i", SQ)),
    "einsum sum": C(lambda jax, jnp: jnp.einsum("ij->", F)),
    "einsum sum axis": C(lambda jax, jnp: jnp.einsum("ijk->j", T)),
    "einsum transpose": C(lambda jax, jnp: jnp.einsum("ijk->kij", T)),
    "einsum identity": C(lambda jax, jnp: jnp.einsum("ij", F)),
    "einsum ellipsis": C(lambda jax, jnp: jnp.einsum("...j,jk", T, G)),
    "einsum ellipsis out": C(lambda jax, jnp: jnp.einsum("...ij->...ji", T)),
    "einsum ellipsis broadcast": C(lambda jax, jnp: jnp.einsum(
        "...ij,...jk->...ik", np.ones((1, 3, 4), np.float32), T2)),
    "einsum summed unique": C(lambda jax, jnp: jnp.einsum("ij,k->i", F, V3)),
    "einsum repeated with other": C(lambda jax, jnp: jnp.einsum("ii,i->i", SQ, V3)),
    "einsum three": C(lambda jax, jnp: jnp.einsum("ij,jk,kl->il", F, G, G.T), rtol=1e-5),
    "einsum three implicit": C(lambda jax, jnp: jnp.einsum("ij,j,jk", F, V4, G), rtol=1e-5),
    "einsum sublists": C(lambda jax, jnp: jnp.einsum(F, [0, 1], G, [1, 2], [2, 0])),
    "einsum int": C(lambda jax, jnp: jnp.einsum("ij,jk->ik", I8M, I8N)),
    "einsum int preferred": C(lambda jax, jnp: jnp.einsum("ij,jk->ik", I8M, I8N,
                                                          preferred_element_type=jnp.int32)),
    "einsum mixed dtypes": C(lambda jax, jnp: jnp.einsum("ij,jk->ik", F, I.T)),
    "einsum bool": C(lambda jax, jnp: jnp.einsum("i,i->", BOOL, BOOL)),
    "einsum scalar operand": C(lambda jax, jnp: jnp.einsum(",i->i", 2.0, V3)),
    "einsum jit": C(lambda jax, jnp: jax.jit(lambda a, b: jnp.einsum("bij,bjk->bik", a, b))(T, T2)),
    "einsum grad": C(lambda jax, jnp: jax.grad(
        lambda a, b: jnp.einsum("ij,jk->", a, b), (0, 1))(F, G)),
    "einsum grad diagonal": C(lambda jax, jnp: jax.grad(lambda a: jnp.einsum("ii->", a))(SQ)),
    "einsum vmap": C(lambda jax, jnp: jax.vmap(lambda a: jnp.einsum("ij,jk->ik", a, G))(T)),
    "einsum vmap ellipsis": C(lambda jax, jnp: jax.vmap(
        lambda a, b: jnp.einsum("...j,jk->...k", a, b), (0, None))(T, G)),
    "einsum jvp": C(lambda jax, jnp: jax.jvp(lambda a: jnp.einsum("ij,kj->ik", a, a), (F,), (F,)),
                    rtol=1e-5),
    "einsum weak": C(lambda jax, jnp: jnp.einsum("i,->i", V3, 2.0)),
    "einsum jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a, b: jnp.einsum("ij,jk->ik", a, b))(F, G)),
    "einsum jaxpr transposed": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a, b: jnp.einsum("ij,jk->ki", a, b))(F, G)),
    "einsum jaxpr preferred": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a, b: jnp.einsum("ij,jk->ik", a, b, preferred_element_type=jnp.int32))(I8M, I8N)),
    "einsum jaxpr diagonal": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a: jnp.einsum("ii->i", a))(SQ)),
    "einsum jaxpr sum": J(lambda jax, jnp: jax.make_jaxpr(lambda a: jnp.einsum("ij->", a))(F)),
    "einsum jaxpr three": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a, b, c: jnp.einsum("ij,jk,kl->il", a, b, c))(F, G, G.T)),
    "einsum jaxpr three vectors": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a, b, c: jnp.einsum("i,j,k->ijk", a, b, c))(V3, V4, F32)),
    "einsum jaxpr four": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a, b, c, d: jnp.einsum("bij,jk,bkl,l->bi", a, b, c, d))(
            T, G, T2.transpose(0, 2, 1), F32[:4])),
    "einsum four": C(lambda jax, jnp: jnp.einsum("bij,jk,bkl,l->bi", T, G, T2.transpose(0, 2, 1),
                                                   F32[:4]), rtol=1e-5),
    "einsum five": C(lambda jax, jnp: jnp.einsum("ij,jk,kl,lm,m", F, G, G.T, F.T, V3),
                     rtol=1e-5),
    "einsum wrong rank": E(lambda jax, jnp: jnp.einsum("ijk,jk", F, G)),
    "einsum size mismatch": E(lambda jax, jnp: jnp.einsum("ij,ij->", F, G)),
    "einsum operand count": E(lambda jax, jnp: jnp.einsum("ij,jk", F)),
    "einsum digit as letter": C(lambda jax, jnp: jnp.einsum("i1,jk", F, G)),
    "einsum repeated output": E(lambda jax, jnp: jnp.einsum("ij->ii", F)),
    "einsum out": E(lambda jax, jnp: jnp.einsum("ij", F, out=F)),
    # opt_einsum prices a pair of letter sets once, which sets the order of these contractions
    "einsum order of four": J(lambda jax, jnp: jax.make_jaxpr(
        lambda *o: jnp.einsum("bad,fa,c,ac->", *o))(
            *[np.ones(s, np.float32) for s in [(6, 7, 7), (2, 7), (7,), (7, 7)]])),
    # round
    "round decimals": C(lambda jax, jnp: jnp.round(HALF, 2)),
    "round negative decimals": C(lambda jax, jnp: jnp.round(HALF, -1)),
    "round decimals float16": C(lambda jax, jnp: jnp.round(F16, 1)),
    "round decimals int": C(lambda jax, jnp: jnp.round(I32, 2)),
    "round huge decimals": C(lambda jax, jnp: jnp.round(HALF, 40)),
    "around": C(lambda jax, jnp: jnp.around(HALF, 1)),
    "round method": C(lambda jax, jnp: jnp.asarray(HALF).round(3)),
    "round jit": C(lambda jax, jnp: jax.jit(lambda x: jnp.round(x, 2))(HALF)),
    "round grad": C(lambda jax, jnp: jax.grad(lambda x: jnp.round(x, 2).sum())(HALF)),
    "round jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jnp.round(x, 2))(HALF)),
    "round jaxpr int": J(lambda jax, jnp: jax.make_jaxpr(jnp.round)(I32)),
    "around jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jnp.around(x, 1))(HALF)),
    "round int negative decimals": E(lambda jax, jnp: jnp.round(I32, -1)),
    # dtypes
    "dtype names": C(lambda jax, jnp: [jnp.asarray(F32, t) for t in (
        jnp.uint16, jnp.uint32, jnp.int16, jnp.int8, jnp.uint8, jnp.bool_, jnp.float16)]),
    "uint16 arithmetic": C(lambda jax, jnp: (jnp.asarray(U8, jnp.uint16) * 300,
                                             jnp.asarray(U8, jnp.uint16) + I8)),
    "uint16 scalar": C(lambda jax, jnp: jnp.uint16(7)),
    "iinfo": C(lambda jax, jnp: [(jnp.iinfo(t).min, jnp.iinfo(t).max, jnp.iinfo(t).bits) for t in (
        jnp.int8, jnp.uint8, jnp.int16, jnp.uint16, jnp.int32, jnp.uint32)]),
    "iinfo of array": C(lambda jax, jnp: int(jnp.iinfo(jnp.asarray(I8)).max)),
    "finfo": C(lambda jax, jnp: [(float(jnp.finfo(t).eps), float(jnp.finfo(t).max),
                                  float(jnp.finfo(t).tiny), jnp.finfo(t).bits)
                                 for t in (jnp.float16, jnp.float32)]),
    "finfo of array": C(lambda jax, jnp: float(jnp.finfo(jnp.asarray(F16)).eps)),
    "issubdtype": C(lambda jax, jnp: [jnp.issubdtype(a, b) for a in (
        jnp.float32, jnp.float16, jnp.int8, jnp.uint32, jnp.bool_, np.float32, "int16")
        for b in (jnp.floating, jnp.integer, jnp.inexact, jnp.number, jnp.signedinteger,
                  jnp.unsignedinteger, jnp.bool_, jnp.float32, jnp.generic)]),
    "dtype": C(lambda jax, jnp: [str(jnp.dtype(t)) for t in ("float32", jnp.int8, np.uint16)]),
    "promote_types": C(lambda jax, jnp: [str(jnp.promote_types(a, b)) for a in (
        jnp.int8, jnp.uint8, jnp.int16, jnp.uint16, jnp.int32, jnp.uint32, jnp.float16,
        jnp.float32, jnp.bool_) for b in (jnp.int8, jnp.uint8, jnp.uint16, jnp.uint32,
                                          jnp.float16, jnp.bool_, jnp.int32)]),
    "can_cast": C(lambda jax, jnp: [jnp.can_cast(a, b) for a, b in (
        (jnp.int8, jnp.int32), (jnp.int32, jnp.float32), (jnp.float16, jnp.float32),
        (jnp.float32, jnp.int32), (jnp.uint8, jnp.int8))]),
    "newaxis": C(lambda jax, jnp: jnp.asarray(F32)[jnp.newaxis, :, jnp.newaxis]),
    # splitting
    "split sections": C(lambda jax, jnp: jnp.split(jnp.arange(12.0), 3)),
    "split indices": C(lambda jax, jnp: jnp.split(F, [1, 3], axis=1)),
    "split indices array": C(lambda jax, jnp: jnp.split(F32, np.array([2]))),
    "split negative axis": C(lambda jax, jnp: jnp.split(T, 2, axis=-1)),
    "array_split": C(lambda jax, jnp: jnp.array_split(jnp.arange(10), 3)),
    "array_split axis": C(lambda jax, jnp: jnp.array_split(F, 3, axis=1)),
    "hsplit": C(lambda jax, jnp: jnp.hsplit(F, 2)),
    "hsplit vector": C(lambda jax, jnp: jnp.hsplit(jnp.arange(6), 3)),
    "vsplit": C(lambda jax, jnp: jnp.vsplit(T, [1])),
    "dsplit": C(lambda jax, jnp: jnp.dsplit(T, 2)),
    "split jit": C(lambda jax, jnp: jax.jit(lambda x: jnp.split(x, 2, axis=1))(F)),
    "split grad": C(lambda jax, jnp: jax.grad(
        lambda x: (lambda a, b: (a * 2).sum() + (b ** 2).sum())(*jnp.split(x, [3])))(F32)),
    "split vmap": C(lambda jax, jnp: jax.vmap(lambda x: jnp.split(x, 2))(F)),
    "split unequal": E(lambda jax, jnp: jnp.split(jnp.arange(10), 3)),
    # creation
    "identity": C(lambda jax, jnp: (jnp.identity(3), jnp.identity(2, jnp.int32))),
    "empty": C(lambda jax, jnp: (jnp.empty((2, 3)), jnp.empty(3, jnp.int8))),
    "empty_like": C(lambda jax, jnp: (jnp.empty_like(F), jnp.empty_like(I8),
                                      jnp.empty_like(F, dtype=jnp.int32))),
    "logspace": C(lambda jax, jnp: jnp.logspace(0, 2, 5), rtol=1e-5),
    "logspace base endpoint": C(lambda jax, jnp: jnp.logspace(0.0, 3.0, 4, endpoint=False,
                                                              base=2.0), rtol=1e-5),
    "logspace int": C(lambda jax, jnp: jnp.logspace(0, 2, 3, dtype=jnp.int32)),
    "geomspace": C(lambda jax, jnp: jnp.geomspace(1, 1000, 4), rtol=1e-5),
    "geomspace negative": C(lambda jax, jnp: jnp.geomspace(-2.0, -32.0, 5), rtol=1e-5),
    # elementwise
    "cross": C(lambda jax, jnp: jnp.cross(VEC3, VEC3[::-1])),
    "cross 2 and 3": C(lambda jax, jnp: jnp.cross(VEC2, VEC3)),
    "cross 2d": C(lambda jax, jnp: jnp.cross(VEC2, VEC2[::-1])),
    "cross axis": C(lambda jax, jnp: jnp.cross(VEC3.T, VEC3.T[:, ::-1], axis=0)),
    "cross grad": C(lambda jax, jnp: jax.grad(lambda a: jnp.cross(a, VEC3[::-1]).sum())(VEC3)),
    "cross bad": E(lambda jax, jnp: jnp.cross(F, F)),
    "heaviside": C(lambda jax, jnp: jnp.heaviside(np.array([-1.5, 0.0, 2.0, np.nan], np.float32),
                                                  0.5)),
    "heaviside int": C(lambda jax, jnp: jnp.heaviside(I32, I32)),
    "sinc": C(lambda jax, jnp: jnp.sinc(np.array([-1.0, -0.5, 0.0, 0.25, 3.0], np.float32))),
    "sinc int": C(lambda jax, jnp: jnp.sinc(I32)),
    "sinc grad": C(lambda jax, jnp: jax.vmap(jax.grad(jnp.sinc))(
        np.array([-1.0, -0.5, 0.0, 0.25, 3.0], np.float32))),
    "heaviside jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jnp.heaviside)(F32, 0.5)),
    "nan_to_num": C(lambda jax, jnp: jnp.nan_to_num(INF)),
    "nan_to_num values": C(lambda jax, jnp: jnp.nan_to_num(INF, nan=-1.0, posinf=9.0,
                                                           neginf=-9.0)),
    "nan_to_num float16": C(lambda jax, jnp: jnp.nan_to_num(jnp.asarray(INF, jnp.float16))),
    "jaxpr nan_to_num posinf only": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jnp.nan_to_num(x, posinf=7.0))(INF)),
    "jaxpr nan_to_num neginf and nan": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jnp.nan_to_num(x, neginf=-7.0, nan=1.0))(INF)),
    "jaxpr asarray of a weak value, dtype given": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: (jnp.asarray(x, jnp.float32) * 2, jnp.asarray(x)))(1.0)),
    "asarray of a weak array, dtype given, is strong": C(lambda jax, jnp: jnp.asarray(
        jnp.sin(2.0), jnp.float32) + jnp.float16(1)),
    "nan_to_num jit grad": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda x: jnp.nan_to_num(x * 2.0).sum()))(INF)),
    "heaviside grad vmap": C(lambda jax, jnp: jax.vmap(jax.grad(jnp.heaviside, (0, 1)))(XS, XS)),
    "cross vmap jit": C(lambda jax, jnp: jax.vmap(jax.jit(jnp.cross))(VEC3, VEC3[::-1])),
    "count_nonzero jit vmap": C(lambda jax, jnp: jax.jit(jax.vmap(jnp.count_nonzero))(I)),
    "sinc vmap jit": C(lambda jax, jnp: jax.jit(jax.vmap(jnp.sinc))(XS)),
    "nan_to_num int": C(lambda jax, jnp: jnp.nan_to_num(I32)),
    "nan_to_num jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jnp.nan_to_num)(INF)),
    "isposinf isneginf": C(lambda jax, jnp: (jnp.isposinf(INF), jnp.isneginf(INF),
                                             jnp.isposinf(I32))),
    # reductions
    "count_nonzero": C(lambda jax, jnp: (jnp.count_nonzero(I), jnp.count_nonzero(I, axis=0),
                                         jnp.count_nonzero(BOOL), jnp.count_nonzero(F32),
                                         jnp.count_nonzero(I, 1, keepdims=True))),
    "count_nonzero jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jnp.count_nonzero(x, axis=1))(I)),
    "nansum": C(lambda jax, jnp: (jnp.nansum(NAN), jnp.nansum(NAN2, axis=0),
                                  jnp.nansum(NAN2, 1, keepdims=True), jnp.nansum(I))),
    "nansum dtype": C(lambda jax, jnp: jnp.nansum(NAN2, dtype=jnp.float16)),
    "nanmax nanmin": C(lambda jax, jnp: (jnp.nanmax(NAN), jnp.nanmin(NAN2, axis=1),
                                         jnp.nanmax(ALLNAN, axis=1), jnp.nanmin(ALLNAN, 0),
                                         jnp.nanmax(I, axis=0))),
    "nanmax initial": C(lambda jax, jnp: jnp.nanmax(ALLNAN, axis=1, initial=5.0)),
    "nanmean": C(lambda jax, jnp: (jnp.nanmean(NAN), jnp.nanmean(NAN2, axis=0),
                                   jnp.nanmean(ALLNAN, axis=1), jnp.nanmean(I, axis=1))),
    "nanmean keepdims": C(lambda jax, jnp: jnp.nanmean(NAN2, axis=1, keepdims=True)),
    "nan reductions jit": C(lambda jax, jnp: jax.jit(
        lambda x: (jnp.nansum(x, 0), jnp.nanmax(x), jnp.nanmean(x, 1)))(NAN2)),
    "nan reductions grad": C(lambda jax, jnp: jax.grad(
        lambda x: jnp.nansum(x) + jnp.nanmean(x) + jnp.nanmax(x))(NAN2)),
    "nan reductions vmap": C(lambda jax, jnp: jax.vmap(
        lambda x: (jnp.nansum(x), jnp.nanmin(x)))(NAN2)),
    "nansum jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jnp.nansum(x, axis=0))(NAN2)),
    "nanmax jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jnp.nanmax)(NAN2)),
    "nanmax empty": E(lambda jax, jnp: jnp.nanmax(EMPTY)),
    # statistics
    "cov": C(lambda jax, jnp: jnp.cov(M3), rtol=1e-5),
    "cov rowvar": C(lambda jax, jnp: jnp.cov(M3, rowvar=False), rtol=1e-5),
    "cov vector": C(lambda jax, jnp: jnp.cov(F32)),
    "cov y": C(lambda jax, jnp: jnp.cov(F32, POS), rtol=1e-5),
    "cov bias ddof": C(lambda jax, jnp: (jnp.cov(M3, bias=True), jnp.cov(M3, ddof=0)), rtol=1e-5),
    "cov int": C(lambda jax, jnp: jnp.cov(I), rtol=1e-5),
    "corrcoef": C(lambda jax, jnp: jnp.corrcoef(M3), rtol=1e-5),
    "corrcoef rowvar": C(lambda jax, jnp: jnp.corrcoef(M3, rowvar=False), rtol=1e-5),
    "corrcoef y": C(lambda jax, jnp: jnp.corrcoef(F32, POS), rtol=1e-5),
    "corrcoef scalar": C(lambda jax, jnp: jnp.corrcoef(F32[:1])),
    "cov jit grad": C(lambda jax, jnp: jax.jit(jax.grad(lambda m: jnp.cov(m).sum()))(M3),
                      rtol=1e-5),
    "cov fweights": C(lambda jax, jnp: jnp.cov(M3.T, fweights=np.array([1, 2, 0, 3])), rtol=1e-5),
    "cov aweights": C(lambda jax, jnp: jnp.cov(M3.T, aweights=POS[:4]), rtol=1e-5),
    "cov both weights ddof": C(lambda jax, jnp: (
        jnp.cov(M3.T, fweights=np.array([1, 2, 1, 3]), aweights=POS[:4]),
        jnp.cov(M3.T, ddof=0, aweights=POS[:4]), jnp.cov(M3.T, bias=True,
                                                         fweights=np.array([1, 2, 1, 3]))),
        rtol=1e-5),
    "cov aweights grad": C(lambda jax, jnp: jax.grad(
        lambda w: jnp.cov(M3.T, aweights=w).sum())(POS[:4]), rtol=1e-4),
    "cov float fweights": E(lambda jax, jnp: jnp.cov(M3.T, fweights=POS[:4])),
    "cov wrong weights length": E(lambda jax, jnp: jnp.cov(M3.T, aweights=POS)),
    "cov 3d": E(lambda jax, jnp: jnp.cov(T)),
    # arange, an iota
    "arange jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda: (
        jnp.arange(4), jnp.arange(2, 5), jnp.arange(1, 7, 2), jnp.arange(0.0, 1.0, 0.25),
        jnp.arange(3, dtype=jnp.float16)))()),
    "arange values": B(lambda jax, jnp: (jnp.arange(0.0, 1.0, 0.1), jnp.arange(10, 2, -3),
                                         jnp.arange(2.5), jnp.arange(0, 1, 0.1, dtype=jnp.float16),
                                         jnp.arange(np.float32(1.5), 4))),
    "arange traced": E(lambda jax, jnp: jax.jit(lambda n: jnp.arange(n))(3)),
    "arange not scalar": E(lambda jax, jnp: jnp.arange(np.ones(2))),
    # lax
    "lax.iota": C(lambda jax, jnp: (jax.lax.iota(jnp.int32, 4), jax.lax.iota(jnp.float32, 3),
                                    jax.lax.iota(jnp.uint8, 0))),
    "lax.broadcasted_iota": C(lambda jax, jnp: jax.lax.broadcasted_iota(jnp.int32, (2, 3), 1)),
    "lax.iota jit": C(lambda jax, jnp: jax.jit(lambda: jax.lax.iota(jnp.int16, 5))()),
    "lax.iota jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda: jax.lax.broadcasted_iota(jnp.uint32, (2, 3), 0))()),
    "lax.full": C(lambda jax, jnp: (jax.lax.full((2, 3), 1.5), jax.lax.full(3, 2),
                                    jax.lax.full((2,), 3, jnp.float16),
                                    jax.lax.full((2,), np.float32(1.0)))),
    "lax.full jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda x: jax.lax.full((3,), 2.0) + x)(V3)),
    "lax.full of traced": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.lax.full((3,), x, jnp.int32))(1.0)),
    "lax.full not scalar": E(lambda jax, jnp: jax.lax.full((2,), V3)),
    "lax.broadcast": C(lambda jax, jnp: (jax.lax.broadcast(F32, (2, 3)),
                                         jax.lax.broadcast(2.0, (2,)))),
    "lax.broadcast jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.lax.broadcast(x, (2,)))(F32)),
    "lax.expand_dims": C(lambda jax, jnp: (jax.lax.expand_dims(F, (0, 3)),
                                           jax.lax.expand_dims(F32, (1,)))),
    "lax.expand_dims jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.lax.expand_dims(x, (0, 2)))(F)),
    "lax.clamp": C(lambda jax, jnp: (jax.lax.clamp(0.0, XS, 2.0), jax.lax.clamp(-1, I32, 5),
                                     jax.lax.clamp(F32 - 1, XS, F32 + 1))),
    "lax.clamp jit": C(lambda jax, jnp: jax.jit(lambda x: jax.lax.clamp(0.0, x, 2.0))(XS)),
    "lax.clamp grad": C(lambda jax, jnp: jax.grad(
        lambda lo, x, hi: jax.lax.clamp(lo, x, hi).sum(), (0, 1, 2))(
            np.array([0.0, -1.0, 1.0, 2.5, 0.0], np.float32), XS,
            np.array([2.0, 0.0, 1.1, 3.0, -1.0], np.float32))),
    "lax.clamp grad ties": C(lambda jax, jnp: jax.grad(
        lambda x: jax.lax.clamp(-0.7, x, 1.1).sum())(XS)),
    "lax.clamp vmap": C(lambda jax, jnp: jax.vmap(lambda x: jax.lax.clamp(0.0, x, 1.0))(F)),
    "lax.clamp dtypes": E(lambda jax, jnp: jax.lax.clamp(0, XS, 2.0)),
    "lax.clamp shapes": E(lambda jax, jnp: jax.lax.clamp(V3[:2], XS, 2.0)),
    # `initial` converted as lax converts it (-inf for an int is its minimum), first operand
    "max of ints with initial -inf": C(lambda jax, jnp: (jnp.max(I32, initial=-jnp.inf),
                                                         jnp.min(I8, initial=jnp.inf),
                                                         jax.nn.softmax(I32))),
    "initial in jaxprs": J(lambda jax, jnp: jax.make_jaxpr(lambda x: (
        jnp.max(x, initial=-jnp.inf), jnp.sum(x, initial=2.0),
        jnp.min(x, initial=0, where=x > 1)))(F32)),
    "logsumexp jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jax.nn.logsumexp)(F32)),
    # a literal made from a Python number prints that number, not its float32 digits
    "Python floats print as written": J(lambda jax, jnp: jax.make_jaxpr(lambda x, h: (
        x * 0.1, x + 1e-8, jax.lax.mul(x, 0.1), jnp.where(x > 0.5, x, 0.2), jnp.clip(x, 0.1, 0.7),
        jnp.sin(x) * (2 / 3), x * 3, h * 0.1, x * np.float32(0.1), jnp.deg2rad(x)))(F32, F16)),
    # issue 37's details: take's clip mode, reshape's order, dot of any rank, str of an aval
    "take clip negative": C(lambda jax, jnp: jnp.take(F32, np.array([0, 12, -1, -9]),
                                                       mode="clip")),
    "take fill negative": C(lambda jax, jnp: jnp.take(F32, np.array([0, 12, -1]))),
    "reshape order F": C(lambda jax, jnp: jnp.reshape(jnp.arange(24), (4, 6), order="F")),
    "reshape method order F": C(lambda jax, jnp: jnp.arange(24.0).reshape(2, -1, 4, order="F")),
    "reshape order F jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jnp.reshape(x, (2, 6), order="F"))(F)),
    "reshape order A": E(lambda jax, jnp: jnp.reshape(jnp.asarray(F), (2, 6), order="A")),
    "reshape order K": E(lambda jax, jnp: jnp.reshape(jnp.asarray(F), (2, 6), order="K")),
    "dot rank 3 by rank 3": C(lambda jax, jnp: jnp.dot(T, np.ones((2, 4, 3), np.float32))),
    "dot rank 3 by vector": C(lambda jax, jnp: jnp.dot(T, np.ones(4, np.float32))),
    "dot vector by rank 3": C(lambda jax, jnp: jnp.dot(np.ones(3, np.float32), T)),
    "dot scalars weak": C(lambda jax, jnp: jnp.dot(2, 3.0)),
    "dot rank 3 jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jnp.dot)(T, T.transpose(0, 2, 1))),
    "dot scalar jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jnp.dot)(2.0, F32)),
    "dot grad rank 3": C(lambda jax, jnp: jax.grad(
        lambda a, b: jnp.dot(a, b).sum(), (0, 1))(T, np.ones((2, 4, 3), np.float32))),
    "matmul error text": J(lambda jax, jnp: _message(lambda: jnp.matmul(
        np.ones((2, 4, 5), np.float32), np.ones((3, 5, 2), np.float32)))),
    # the rest of lax's functions, composed in appendix A6
    "lax.dot matrix vector": C(lambda jax, jnp: (jax.lax.dot(F, np.ones(4, np.float32)),
                                                 jax.lax.dot(V3, F), jax.lax.dot(V3, V3))),
    "lax.dot dimension_numbers": C(lambda jax, jnp: jax.lax.dot(
        T, T, dimension_numbers=(((2,), (2,)), ((0,), (0,))))),
    "lax.dot rank 3": E(lambda jax, jnp: jax.lax.dot(T, F.T)),
    "lax.dot preferred": C(lambda jax, jnp: jax.lax.dot(I8M, I8N, preferred_element_type=np.int32)),
    "lax.dot jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jax.lax.dot)(F.T, F)),
    "lax.select": C(lambda jax, jnp: jax.lax.select(F > 0, F, -F)),
    "lax.select jaxpr": J(lambda jax, jnp: jax.make_jaxpr(jax.lax.select)(F > 0, F, F)),
    "lax.reciprocal": C(lambda jax, jnp: (jax.lax.reciprocal(POS), jax.lax.reciprocal(2.0))),
    "lax.full_like": C(lambda jax, jnp: (jax.lax.full_like(F, 2.0), jax.lax.full_like(I, 1.5),
                                         jax.lax.full_like(jnp.asarray(3.0), 7),
                                         jax.lax.full_like(F, 1, np.int8, (2,)))),
    "lax.full_like jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.lax.full_like(x, 0.5))(F)),
    "lax.broadcast_to_rank": C(lambda jax, jnp: (jax.lax.broadcast_to_rank(V3, 3).shape,
                                                 jax.lax.broadcast_to_rank(F, 2))),
    "lax.collapse": C(lambda jax, jnp: (jax.lax.collapse(T, 1), jax.lax.collapse(T, 0, 2),
                                        jax.lax.collapse(T, -2, -1))),
    "lax.collapse bad range": E(lambda jax, jnp: jax.lax.collapse(T, 2, 1)),
    "lax.slice_in_dim": C(lambda jax, jnp: (jax.lax.slice_in_dim(F, 1, None, axis=1),
                                            jax.lax.slice_in_dim(F, -2, -1),
                                            jax.lax.slice_in_dim(T, 0, 4, 2, axis=2))),
    "lax.index_in_dim": C(lambda jax, jnp: (jax.lax.index_in_dim(F, -1),
                                            jax.lax.index_in_dim(T, 2, 2, keepdims=False))),
    "lax.index_in_dim out of bounds": E(lambda jax, jnp: jax.lax.index_in_dim(F, 3)),
    "lax.index_in_dim jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.lax.index_in_dim(x, 1, 1, False))(F)),
    "weak bools promote to strong jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        lambda a, b: (a > b) | (b > a))(1.0, 2.0)),
    "weak bools promote to strong": C(lambda jax, jnp: (jnp.asarray(1.0) > 0.5) | (jnp.asarray(2.0)
                                                                                 < 1.0)),
    "str of avals": J(lambda jax, jnp: [str(jax.core.ShapedArray(s, d, weak_type=w)) for s, d, w in
                                        [((3,), np.float32, False), ((), np.float32, True),
                                         ((2, 0), np.int8, False)]]),
}


def _message(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    return None


@pytest.mark.parametrize("name", _params(NUMPY2))
def test_numpy2(name):
    check(NUMPY2[name])
