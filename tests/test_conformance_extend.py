"""Conformance cases for `jax.extend` and `jax.interpreters` (appendix A31): a primitive defined
and given its rules through the public faces, as JAX's guide `docs/jax-primitives.md` does, under
every transformation; what JAX's guide to custom interpreters reads from a jaxpr (`literals`,
`Literal.val`, `eqn.params`). Same harness as tests/test_conformance.py."""
import importlib
import re

import numpy as np
import pytest
from jaxlib.mlir.dialects import stablehlo as hlo

from test_conformance import C, E, J, _params, check

X2 = np.array([2.0, 3.0], np.float32)
Y2 = np.array([10.0, 20.0], np.float32)
M = np.arange(6.0, dtype=np.float32).reshape(2, 3)
_MADE = {}


def _faces(jax):
    return [importlib.import_module(f"{jax.__name__}.{m}") for m in
            ("extend.core", "interpreters.ad", "interpreters.batching", "interpreters.mlir")]


def _prims(jax):
    """The guide's multiply_add, and a few more, defined once per library through its faces."""
    if jax.__name__ in _MADE:
        return _MADE[jax.__name__]
    core, ad, batching, mlir = _faces(jax)
    shaped = importlib.import_module(f"{jax.__name__}.core").ShapedArray
    lax = jax.lax

    ma = core.Primitive("multiply_add")
    ma.def_impl(lambda x, y, z: np.add(np.multiply(x, y), z))
    ma.def_abstract_eval(lambda x, y, z: shaped(x.shape, x.dtype))
    mlir.register_lowering(ma, lambda ctx, x, y, z: [hlo.AddOp(hlo.MulOp(x, y), z).result],
                           platform="cpu")

    def ma_jvp(primals, tangents):
        (x, y, z), (xt, yt, zt) = primals, tangents
        zero = lambda t: lax.full_like(x, 0) if type(t) is ad.Zero else t    # noqa: E731
        return ma.bind(x, y, z), ma.bind(zero(xt), y, ma.bind(x, zero(yt), zero(zt)))

    def ma_transpose(ct, x, y, z):
        if not ad.is_undefined_primal(x):
            ct_y = ad.Zero(y.aval) if type(ct) is ad.Zero else ma.bind(x, ct, lax.full_like(x, 0))
            return None, ct_y, ct
        ct_x = ad.Zero(x.aval) if type(ct) is ad.Zero else ma.bind(ct, y, lax.full_like(y, 0))
        return ct_x, None, ct

    ad.primitive_jvps[ma] = ma_jvp
    ad.primitive_transposes[ma] = ma_transpose
    batching.primitive_batchers[ma] = lambda vals, dims: (ma.bind(*vals), dims[0])

    cube = core.Primitive("cube")       # defjvp, defvectorized, lower_fun
    cube.def_impl(lambda x: np.power(x, 3))
    cube.def_abstract_eval(lambda x: shaped(x.shape, x.dtype, weak_type=x.weak_type))
    mlir.register_lowering(cube, mlir.lower_fun(lambda x: x * x * x, multiple_results=False))
    ad.defjvp(cube, lambda g, x: g * 3 * x * x)
    batching.defvectorized(cube)

    double = core.Primitive("double")   # deflinear, defbroadcasting
    double.def_impl(lambda x, y: np.multiply(2, np.add(x, y)))
    double.def_abstract_eval(lambda x, y: shaped(x.shape, x.dtype))
    mlir.register_lowering(double, mlir.lower_fun(lambda x, y: [2 * (x + y)]))
    ad.deflinear(double, lambda ct: [2 * ct, 2 * ct])
    batching.defbroadcasting(double)

    bmul = core.Primitive("bmul")       # defbilinear
    bmul.def_impl(np.multiply)
    bmul.def_abstract_eval(lambda x, y: shaped(x.shape, x.dtype))
    mlir.register_lowering(bmul, mlir.lower_fun(lambda x, y: x * y, multiple_results=False))
    ad.defbilinear(bmul, lambda ct, x, y: bmul.bind(ct, y), lambda ct, x, y: bmul.bind(x, ct))

    neg = core.Primitive("neg2")        # deflinear2, mlir.ir_constants, flatten_ir_values
    neg.def_impl(np.negative)
    neg.def_abstract_eval(lambda x: shaped(x.shape, x.dtype))
    mlir.register_lowering(neg, lambda ctx, x: mlir.flatten_ir_values(
        [[hlo.MulOp(x, mlir.ir_constants(np.float32(-1))[0]).result]]))
    ad.deflinear2(neg, lambda ct, x: [neg.bind(ct)])

    bare = core.Primitive("bare")
    bare_impl = core.Primitive("bare_impl")
    bare_impl.def_impl(lambda x: x)
    bare_abstract = core.Primitive("bare_abstract")
    bare_abstract.def_impl(lambda x: x)
    bare_abstract.def_abstract_eval(lambda x: x)
    args = core.Primitive("args")      # what an impl rule is given eagerly
    args.def_impl(lambda *xs: xs)
    args.multiple_results = True

    twice = core.Primitive("twice")    # a rule for the CPU, then a common one: the CPU's is kept
    twice.def_impl(lambda x: 2 * x)
    twice.def_abstract_eval(lambda x: x)
    mlir.register_lowering(twice, lambda ctx, x: [hlo.AddOp(x, x).result], platform="cpu",
                           inline=False, cacheable=False)
    mlir.register_lowering(twice, lambda ctx, x: [hlo.MulOp(x, x).result])
    _MADE[jax.__name__] = out = {"ma": ma, "cube": cube, "double": double, "bmul": bmul,
                                 "neg": neg, "bare": bare, "args": args, "twice": twice,
                                 "bare_impl": bare_impl, "bare_abstract": bare_abstract}
    return out


def _sq(jax):
    ma = _prims(jax)["ma"]
    return lambda a, b: ma.bind(a, a, b)


def _f(x):
    return x ** 2 * 3.0 + 1.0


def _inverse_interpreter(jax, jnp):
    """The custom-interpreter guide's inverse of exp(tanh(x)), run under jit(vmap(grad))."""
    core = _faces(jax)[0]
    inverse = {jax.lax.exp_p: jnp.log, jax.lax.tanh_p: jnp.arctanh}

    def inverse_jaxpr(jaxpr, consts, *args):
        env = {}
        read = lambda v: v.val if type(v) is core.Literal else env[v]   # noqa: E731
        env.update(zip(jaxpr.outvars, args))
        env.update(zip(jaxpr.constvars, consts))
        for eqn in jaxpr.eqns[::-1]:
            env[eqn.invars[0]] = inverse[eqn.primitive](*map(read, eqn.outvars))
        return [read(v) for v in jaxpr.invars]

    def inv(fun):
        def wrapped(x):
            closed = jax.make_jaxpr(fun)(x)
            return inverse_jaxpr(closed.jaxpr, closed.literals, x)[0]
        return wrapped

    f = lambda x: jnp.exp(jnp.tanh(x))     # noqa: E731
    return jax.jit(jax.vmap(jax.grad(inv(f))))((jnp.arange(5) + 1.0) / 5.0)


def _eval_with_literals(jax, jnp):
    core = _faces(jax)[0]
    c = np.array([1.0, 2.0], np.float32)
    closed = jax.make_jaxpr(lambda x: jnp.exp(x) * 2.0 + c)(X2)
    env = dict(zip(closed.jaxpr.constvars, closed.literals))
    env.update(zip(closed.jaxpr.invars, [X2]))
    lits = []
    for eqn in closed.jaxpr.eqns:
        vals = []
        for v in eqn.invars:
            if type(v) is core.Literal:
                lits.append((float(v.val), str(v.aval)))
                vals.append(v.val)
            else:
                vals.append(env[v])
        out = eqn.primitive.bind(*vals, **eqn.params)
        env.update(zip(eqn.outvars, out if eqn.primitive.multiple_results else [out]))
    return [env[v] for v in closed.jaxpr.outvars], lits


def _attributes(jax, values):
    mlir = _faces(jax)[3]
    with mlir.make_ir_context(), mlir.ir.Location.unknown():
        return [str(mlir.ir_attribute(v)) for v in values]


def _trace_questions(jax, jnp):
    """What `jax.extend.core`'s unsafe_*_DO_NOT_USE functions answer under each transformation."""
    core, seen = _faces(jax)[0], []

    def probe(x):
        seen.append((core.unsafe_am_i_under_a_jit_DO_NOT_USE(),
                     core.unsafe_am_i_under_a_vmap_DO_NOT_USE(),
                     core.unsafe_get_axis_names_DO_NOT_USE(), core.nonempty_axis_env_DO_NOT_USE()))
        return x
    ones = np.ones(2, np.float32)
    probe(1.0)
    jax.jit(probe)(1.0)
    jax.vmap(probe)(ones)
    jax.vmap(probe, axis_name="i")(ones)
    jax.grad(probe)(1.0)
    jax.jvp(probe, (1.0,), (1.0,))
    jax.make_jaxpr(lambda x: probe(x))(1.0)         # a new function: JAX's jit cached probe's
    jax.vmap(jax.jit(probe), axis_name="k")(ones)
    jax.jit(jax.vmap(probe))(ones)
    jax.vmap(jax.grad(probe))(ones)
    jax.lax.scan(lambda c, x: (probe(c), x), 0.0, ones)
    jax.vmap(jax.vmap(probe, axis_name="a"), axis_name="b")(np.ones((2, 3), np.float32))
    return seen

EXTEND = {
    "eager: the impl rule": C(lambda jax, jnp: _sq(jax)(2.0, 10.0)),
    "jit": C(lambda jax, jnp: jax.jit(_sq(jax))(2.0, 10.0)),
    "jit with a static argument": C(lambda jax, jnp: jax.jit(_sq(jax), static_argnums=1)(
        2.0, 10.0)),
    "jvp": C(lambda jax, jnp: jax.jvp(_sq(jax), (2.0, 10.0), (1.0, 1.0))),
    "jit of jvp": C(lambda jax, jnp: jax.jit(lambda p, t: jax.jvp(_sq(jax), p, t))(
        (2.0, 10.0), (1.0, 1.0))),
    "grad": C(lambda jax, jnp: jax.grad(_sq(jax))(2.0, 10.0)),
    "jit of grad": C(lambda jax, jnp: jax.jit(jax.grad(_sq(jax)))(2.0, 10.0)),
    "grad of both arguments": C(lambda jax, jnp: jax.grad(_sq(jax), argnums=(0, 1))(2.0, 10.0)),
    "vmap": C(lambda jax, jnp: jax.vmap(_sq(jax))(X2, Y2)),
    "jit of vmap": C(lambda jax, jnp: jax.jit(jax.vmap(_sq(jax)))(X2, Y2)),
    "make_jaxpr": J(lambda jax, jnp: jax.make_jaxpr(_sq(jax))(2.0, 10.0)),
    "make_jaxpr of grad": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(_sq(jax)))(2.0, 10.0)),
    "make_jaxpr of jvp": J(lambda jax, jnp: jax.make_jaxpr(
        lambda p, t: jax.jvp(_sq(jax), p, t))((2.0, 10.0), (1.0, 1.0))),
    "make_jaxpr of vmap": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(_sq(jax)))(X2, Y2)),
    "defjvp, defvectorized, lower_fun": C(lambda jax, jnp: (
        jax.jit(_prims(jax)["cube"].bind)(X2), jax.grad(_prims(jax)["cube"].bind)(2.0),
        jnp.asarray(jax.vmap(_prims(jax)["cube"].bind, in_axes=1)(M)),
        jax.jit(jax.vmap(jax.grad(_prims(jax)["cube"].bind)))(X2))),
    "deflinear, defbroadcasting": C(lambda jax, jnp: (
        jax.jit(_prims(jax)["double"].bind)(X2, Y2),
        jax.grad(lambda x, y: _prims(jax)["double"].bind(x, y).sum(), argnums=(0, 1))(X2, Y2),
        jax.vmap(_prims(jax)["double"].bind, in_axes=(0, None))(M, Y2[:1].repeat(3)),
        jax.jvp(_prims(jax)["double"].bind, (X2, Y2), (Y2, X2)))),
    "defbilinear": C(lambda jax, jnp: (
        jax.jit(jax.grad(lambda x, y: _prims(jax)["bmul"].bind(x, y).sum(), argnums=(0, 1)))(
            X2, Y2), jax.jvp(_prims(jax)["bmul"].bind, (X2, Y2), (Y2, X2)))),
    "deflinear2, ir_constants, flatten_ir_values": C(lambda jax, jnp: (
        jax.jit(_prims(jax)["neg"].bind)(np.float32(3.0)),
        jax.jit(jax.grad(_prims(jax)["neg"].bind))(np.float32(3.0)))),
    "mapped_aval and unmapped_aval": C(lambda jax, jnp: (lambda core: [
        str(core.mapped_aval(2, 0, jax.core.ShapedArray((2, 3), np.float32))),
        str(core.unmapped_aval(4, 1, jax.core.ShapedArray((2, 3), np.float32))),
        str(core.mapped_aval(2, None, jax.core.ShapedArray((2, 3), np.float32)))])(
            _faces(jax)[0])),
    "subjaxprs and jaxprs_in_params": C(lambda jax, jnp: (lambda core, c: [
        len(list(core.subjaxprs(c.jaxpr))), str(list(core.subjaxprs(c.jaxpr))[0]),
        [len(list(core.jaxprs_in_params(e.params))) for e in c.eqns]])(
            _faces(jax)[0], jax.make_jaxpr(lambda x: jax.jit(jnp.sin)(x) * 2)(X2))),
    "concrete_or_error": E(lambda jax, jnp: jax.jit(
        lambda x: _faces(jax)[0].concrete_or_error(int, x, "here"))(3)),
    "concrete_or_error, concrete": C(lambda jax, jnp: (
        _faces(jax)[0].concrete_or_error(None, 3), _faces(jax)[0].concrete_or_error(float, 3))),
    "no impl rule": E(lambda jax, jnp: _prims(jax)["bare"].bind(1.0)),
    "no abstract rule, under jit": E(lambda jax, jnp: jax.jit(_prims(jax)["bare_impl"].bind)(1.0)),
    "no JVP rule": E(lambda jax, jnp: jax.jvp(_prims(jax)["bare_abstract"].bind, (1.0,), (1.0,))),
    "no batching rule": E(lambda jax, jnp: jax.vmap(_prims(jax)["bare_abstract"].bind)(X2)),
    "no lowering rule": E(lambda jax, jnp: jax.jit(_prims(jax)["bare_abstract"].bind)(1.0)),
    "eager: the impl rule sees NumPy values in canonical dtypes": C(lambda jax, jnp: [
        (np.asarray(a).dtype, np.ndim(a)) for a in _prims(jax)["args"].bind(
            np.arange(3.0), np.float64(2), np.int64(3), np.arange(2, dtype=np.uint64), 1.5, 2)]),
    "eager: a string is not a JAX value": E(lambda jax, jnp: _prims(jax)["args"].bind("a")),
    "eager: a Python int too large for int32": E(lambda jax, jnp: _prims(jax)["args"].bind(
        2 ** 40)),
    "Primitive.impl and .abstract_eval": C(lambda jax, jnp: (
        _prims(jax)["cube"].impl(np.float32(2.0)),
        str(_prims(jax)["cube"].abstract_eval(jax.core.ShapedArray((2,), np.float32))))),
    "Primitive.impl of a primitive without one": E(lambda jax, jnp: _prims(jax)["bare"].impl(
        1.0)),
    "register_lowering: a rule for the platform wins over a common one": C(
        lambda jax, jnp: jax.jit(_prims(jax)["twice"].bind)(np.float32(3.0))),
    "register_lowering: an unknown platform": E(lambda jax, jnp: _faces(jax)[3].register_lowering(
        _prims(jax)["twice"], lambda ctx, x: [x], platform="cpux")),
    "mlir.ir_attribute": C(lambda jax, jnp: _attributes(jax, [
        3, 2.5, True, np.float32(1.5), np.int8(-2), np.bool_(False), np.arange(3, dtype=np.int32),
        np.ones((2, 2), np.float16), "abc", b"x", [1, 2.0], (np.int32(1),), {"a": 1, "b": "c"},
        np.dtype("float32"), np.dtype("int64")])),
    "mlir.ir_attribute of a complex scalar": E(lambda jax, jnp: _attributes(jax, [1j])),
    "mlir.ir_attribute of None": E(lambda jax, jnp: _attributes(jax, [None])),
    "mlir.Value, Token and LoweringRule": C(lambda jax, jnp: (
        _faces(jax)[3].Value is _faces(jax)[3].ir.Value, _faces(jax)[3].Token is
        _faces(jax)[3].ir.Value, str(_faces(jax)[3].LoweringRule))),
    "DropVar, gensym, InconclusiveDimensionOperation, AbstractToken": C(lambda jax, jnp: (
        lambda core, a: (repr(core.DropVar(a)), core.DropVar(a).aval == a,
                         core.gensym() is core.Var, repr(core.gensym()(a)).split(":")[1],
                         issubclass(core.InconclusiveDimensionOperation, Exception),
                         repr(core.AbstractToken()), str(core.AbstractToken())))(
            _faces(jax)[0], jax.core.ShapedArray((2,), np.float32))),
    "the unsafe questions about the current traces": C(_trace_questions),
    "get_opaque_trace_state": C(lambda jax, jnp: (lambda core: (
        core.get_opaque_trace_state() == core.get_opaque_trace_state(),
        jax.jit(lambda x, s=core.get_opaque_trace_state(): (
            x, core.get_opaque_trace_state() == s))(1.0)[1]))(_faces(jax)[0])),
    "the lowering rule's ir": C(lambda jax, jnp: (
        _faces(jax)[3].ir is importlib.import_module("jaxlib.mlir.ir"))),
    "closed_jaxpr.literals and its fields": C(lambda jax, jnp: (lambda c: (
        len(c.literals), np.asarray(c.literals[0]), str(c.in_avals), str(c.out_avals), len(c.eqns),
        c.literals[0] is c.consts[0]))(jax.make_jaxpr(lambda x: x + np.arange(2.0))(X2))),
    "Literal .val and .aval": C(_eval_with_literals),
    "a Var's repr": C(lambda jax, jnp: [re.sub(r"id=\d+", "id=N", repr(v)) for v in (lambda j: (
        j.invars + j.outvars))(jax.make_jaxpr(lambda x, n: (x * 2.0, n))(1.0, X2).jaxpr)]),
    "jaxpr_as_fun": C(lambda jax, jnp: _faces(jax)[0].jaxpr_as_fun(
        jax.make_jaxpr(_f)(X2))(X2)),
    "the guide's inverse, under jit(vmap(grad))": C(_inverse_interpreter),
    "the params of dot_general and broadcast_in_dim": C(lambda jax, jnp: [
        (e.primitive.name, str(e.params)) for e in jax.make_jaxpr(
            lambda w, b, x: (jnp.dot(w, x) + b + jnp.ones(5), x))(
                jnp.ones((5, 10)), jnp.ones(5), jnp.ones(10)).eqns]),
    "precision, printed": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.lax.dot(x, x, precision="highest")
        + jax.lax.dot_general(x, x, (((1,), (0,)), ((), ())),
                              precision=("high", "default")))(M[:, :2])),
    "precision, lowered": C(lambda jax, jnp: [
        line.split("precision = ")[1].split("]")[0] + "]" for line in jax.jit(
            lambda x: jax.lax.dot(x, x, precision=jax.lax.Precision.HIGHEST)).lower(
                M[:, :2]).as_text().splitlines() if "precision" in line]),
    "default_matmul_precision": J(lambda jax, jnp: _with_default_precision(jax, jnp)),
    "precision under grad and vmap": J(lambda jax, jnp: (jax.make_jaxpr(jax.grad(
        lambda x: jax.lax.dot(x, x, precision="highest").sum()))(M[:, :2]), jax.make_jaxpr(
            jax.vmap(lambda x: jax.lax.dot(x, x, precision="highest")))(np.ones((3, 2, 2))))),
    "what JVP and transpose rules are given": C(lambda jax, jnp: _what_rules_see(jax)),
}


def _what_rules_see(jax):
    """JVP rules get tuples, and `Zero` and `UndefinedPrimal` print as JAX's (`~float32[]`)."""
    core, ad = _faces(jax)[:2]
    shaped = importlib.import_module(f"{jax.__name__}.core").ShapedArray
    seen, p = [], core.Primitive("probe")
    p.def_impl(np.multiply)
    p.def_abstract_eval(lambda x, y: shaped(x.shape, x.dtype, weak_type=x.weak_type))

    def jvp(primals, tangents):
        seen.append((type(primals).__name__, type(tangents).__name__, repr(tangents[1])))
        return p.bind(*primals), p.bind(tangents[0], primals[1])

    def transpose(ct, x, y):
        seen.append(repr(x))
        return p.bind(ct, y), None

    ad.primitive_jvps[p], ad.primitive_transposes[p] = jvp, transpose
    jax.jvp(lambda x: p.bind(x, 3.0), (2.0,), (1.0,))
    jax.grad(lambda x: p.bind(x, 3.0))(2.0)
    return seen


def _with_default_precision(jax, jnp):
    with jax.default_matmul_precision("float32"):
        return jax.make_jaxpr(lambda x: x @ x)(M[:, :2])


@pytest.mark.parametrize("name", _params(EXTEND))
def test_extend(name):
    check(EXTEND[name])


def test_the_faces_have_only_jax_public_names():
    """What a face exports is a public name of JAX's module of that name: nothing of ours leaks."""
    import autodidax
    import jax
    for ours, theirs in zip(_faces(autodidax), _faces(jax)):
        extra = [n for n in dir(ours) if not n.startswith("_") and not hasattr(theirs, n)
                 and not isinstance(getattr(ours, n), type(importlib))]
        assert not extra, f"{ours.__name__} exports names JAX's {theirs.__name__} lacks: {extra}"
