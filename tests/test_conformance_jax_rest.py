"""Conformance cases for appendix A25's part of `jax` (autodidax/jax_rest.py): eval_shape,
typeof, named_call, named_scope, ensure_compile_time_eval, custom_gradient and the process
functions, against JAX. Same harness as tests/test_conformance.py."""
import collections
import dataclasses
import functools
import warnings

import numpy as np
import pytest

from test_conformance import C, E, J, _params, check

X = np.array([0.5, -2.0, 3.0], np.float32)


def _types(jax, tree):
    """ShapeDtypeStructs as plain values: the harness compares leaves of one library only."""
    return jax.tree_util.tree_map(lambda s: (repr(s), s.shape, str(s.dtype), s.weak_type), tree)


def _sds(jax, jnp):
    return {"w": jax.ShapeDtypeStruct((4, 3), jnp.float32),
            "i": jax.ShapeDtypeStruct((2,), jnp.int8)}


def _clipped(jax, jnp):
    @jax.custom_gradient
    def f(x):
        return x ** 2, lambda t: (jnp.clip(t * 2 * x, -1.0, 1.0),)
    return f


def _two_args(jax, jnp):
    @jax.custom_gradient
    def f(x, y):
        return x * y["a"], lambda t: (t * y["a"] * 3, {"a": t * x})
    return lambda x, y: f(x, {"a": y})


def _compile_time(jax, jnp):
    @jax.jit
    def f(x):
        with jax.ensure_compile_time_eval():
            y = jnp.sin(3.0)
            positive = bool(y > 0)
        return jnp.sin(x) if positive else jnp.cos(x)
    return f


def _warned(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught]


REST = {
    "eval_shape": C(lambda jax, jnp: _types(jax, jax.eval_shape(
        lambda p, x: (x @ p["w"], {"n": p["i"].sum(), "b": x > 0}), _sds(jax, jnp),
        jax.ShapeDtypeStruct((5, 4), jnp.float32)))),
    "eval_shape of arrays and scalars": C(lambda jax, jnp: _types(jax, jax.eval_shape(
        lambda x, s: (x * s, s * 2, jnp.arange(3)), X, 1.0))),
    "eval_shape error": E(lambda jax, jnp: jax.eval_shape(lambda x: x @ x, np.ones((2, 3)))),
    "typeof": C(lambda jax, jnp: [str(jax.typeof(v)) for v in (X, 1.0, 2, True, 1j,
                                                                jnp.ones((2, 2), jnp.int8))]),
    "typeof repr": C(lambda jax, jnp: [repr(jax.typeof(v)) for v in (X, 1.0)]),
    "typeof of a tracer": C(lambda jax, jnp: jax.jit(lambda x: x * 0 + jnp.float32(
        len(str(jax.typeof(x)))))(X)),
    "typeof not a value": E(lambda jax, jnp: jax.typeof("abc")),
    "named_scope": C(lambda jax, jnp: jax.jit(lambda x: _scoped(jax, jnp, x))(X)),
    "named_scope decorator": C(lambda jax, jnp: jax.named_scope("d")(lambda x: x * 2)(X)),
    "named_scope not a string": E(lambda jax, jnp: jax.named_scope(3)),
    "named_call": C(lambda jax, jnp: jax.named_call(lambda x: x * 2, name="double")(X)),
    "named_call jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        jax.named_call(lambda x: jnp.sin(x) * 2, name="double"))(X)),
    "named_scope jaxpr": J(lambda jax, jnp: jax.make_jaxpr(lambda x: _scoped(jax, jnp, x))(X)),
    "ensure_compile_time_eval": C(lambda jax, jnp: _compile_time(jax, jnp)(X)),
    "ensure_compile_time_eval jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        _compile_time(jax, jnp))(X)),
    "ensure_compile_time_eval of a tracer": C(lambda jax, jnp: jax.jit(
        lambda x: _eval_traced(jax, x))(X)),
    "custom_gradient value and grad": C(lambda jax, jnp: (
        _clipped(jax, jnp)(3.0), jax.grad(_clipped(jax, jnp))(3.0),
        jax.grad(_clipped(jax, jnp))(0.25), jax.vmap(jax.grad(_clipped(jax, jnp)))(X))),
    "custom_gradient jaxpr": J(lambda jax, jnp: jax.make_jaxpr(
        jax.grad(_clipped(jax, jnp)))(3.0)),
    "custom_gradient two arguments": C(lambda jax, jnp: jax.grad(
        lambda x, y: _two_args(jax, jnp)(x, y), argnums=(0, 1))(2.0, 5.0)),
    "custom_gradient under jit": C(lambda jax, jnp: jax.jit(jax.grad(
        lambda x: _clipped(jax, jnp)(x).sum()))(X)),
    "dtypes": C(lambda jax, jnp: (
        jax.dtypes.canonicalize_dtype(np.float64), jax.dtypes.canonicalize_dtype(jnp.bfloat16),
        jax.dtypes.result_type(1.0, np.int8), jax.dtypes.result_type(1.0, np.int8, 2),
        jax.dtypes.issubdtype(jnp.bfloat16, jnp.floating),
        jax.dtypes.bfloat16 is jnp.bfloat16.dtype.type,
        jax.dtypes.float0, jax.dtypes.finfo(jnp.bfloat16).eps, jax.dtypes.iinfo(jnp.int4).max,
        issubclass(jax.dtypes.TypePromotionError, ValueError))),
    "dtypes weak flag": C(lambda jax, jnp: [jax.dtypes.result_type(*a, return_weak_type_flag=True)
                                            for a in [(1.0,), (1.0, 2), (X, 1.0),
                                                      (jnp.asarray(2.0), 3)]]),
    "dtypes scalar_type_of": C(lambda jax, jnp: [jax.dtypes.scalar_type_of(v).__name__ for v in (
        np.float32(1), jnp.ones(2, jnp.int8), True, jnp.ones(2, jnp.bfloat16), 1j, 2)]),
    "dtypes itemsize_bits": C(lambda jax, jnp: [jax.dtypes.itemsize_bits(d) for d in (
        jnp.int4, np.float32, jnp.bfloat16, np.bool_, jnp.float8_e4m3fn, np.complex64,
        jnp.uint2)]),
    "dtypes canonicalize passes through": C(lambda jax, jnp: jax.dtypes.canonicalize_dtype("S3")),
    "linear_transpose": C(lambda jax, jnp: _transposed(jax, jnp)),
    "linear_transpose of a pytree": C(lambda jax, jnp: jax.linear_transpose(
        lambda d: {"s": d["a"] * 2.0 + d["b"].sum(), "t": -d["a"]}, {"a": X, "b": M2})(
            {"s": X, "t": X * 3})),
    "linear_transpose of integers": C(lambda jax, jnp: jax.linear_transpose(
        lambda v: v * 3 + v, np.arange(3, dtype=np.int32))(np.ones(3, np.int32))),
    "linear_transpose of a constant output": C(lambda jax, jnp: jax.linear_transpose(
        lambda x: (x * 2, jnp.zeros(2)), X)((X, np.ones(2, np.float32)))),
    "linear_transpose under jit": C(lambda jax, jnp: jax.jit(jax.linear_transpose(
        lambda x: jnp.cumsum(x)[::-1], X))(X)),
    "linear_transpose mixed types": E(lambda jax, jnp: jax.linear_transpose(
        lambda x: x.astype(jnp.float32), np.arange(3, dtype=np.int32))),
    "linear_transpose cotangent tree": E(lambda jax, jnp: jax.linear_transpose(
        lambda x: x * 2, X)((X,))),
    "linear_transpose cotangent type": E(lambda jax, jnp: jax.linear_transpose(
        lambda x: x * 2, X)(np.ones(2, np.float32))),
    "linear_transpose reduce_axes": E(lambda jax, jnp: jax.linear_transpose(
        lambda x: x, X, reduce_axes=("i",))),
    "closure_convert alone": C(lambda jax, jnp: _converted(jax, jnp, 3.0)),
    "closure_convert under grad": C(lambda jax, jnp: jax.grad(
        lambda w: _converted(jax, jnp, w)[0])(3.0)),
    "closure_convert under jit": C(lambda jax, jnp: jax.jit(lambda w: _converted(jax, jnp, w))(
        3.0)),
    "closure_convert under vmap": C(lambda jax, jnp: jax.vmap(
        lambda w: _converted(jax, jnp, w)[0])(X)),
    "closure_convert in custom_vjp": C(lambda jax, jnp: jax.grad(
        lambda w: _scaled_root(jax, jnp, w))(3.0)),
    "closure_convert wrong structure": E(lambda jax, jnp: jax.closure_convert(
        lambda x: x * 2, 1.0)[0]((1.0, 2.0))),
    "vjp's function is a pytree of its residuals": C(lambda jax, jnp: _vjp_leaves(jax, jnp)),
    "vjp's function passed into jit": C(lambda jax, jnp: jax.jit(lambda f_vjp, ct: f_vjp(ct))(
        _sin_times(jax, jnp)[1], np.ones(3, np.float32))),
    "vjp's function rebuilt from its leaves": C(lambda jax, jnp: _vjp_rebuilt(jax, jnp)),
    "vjp has_aux, an integer output": C(lambda jax, jnp: _vjp_aux_int(jax, jnp)),
    "tree_util.Partial in jit": C(lambda jax, jnp: _partial(jax, jnp)),
    "tree_util.register_static": C(lambda jax, jnp: _static_class(jax)),
    "tree_util helpers": C(lambda jax, jnp: _tree_helpers(jax)),
    "tree.reduce_associative of nothing": E(lambda jax, jnp: jax.tree.reduce_associative(
        lambda a, b: a + b, [])),
    "flatten_one_level of each node type": C(lambda jax, jnp: _one_level(jax, False)),
    "flatten_one_level_with_keys of each node type": C(lambda jax, jnp: _one_level(jax, True)),
    "flatten_one_level_with_keys of a namedtuple": C(
        lambda jax, jnp: str(jax.tree_util.flatten_one_level_with_keys(_Pair(1, 2))),
        xfail="JAX 0.10.2's C++ gives every child of a namedtuple the first field's key"),
    "flatten_one_level of a leaf": E(lambda jax, jnp: jax.tree_util.flatten_one_level(1.0)),
    "tree.static in a dataclass": C(lambda jax, jnp: _static_field(jax, jnp)),
    "linear_transpose is a Partial": C(lambda jax, jnp: jax.jit(lambda t, c: t(c))(
        jax.linear_transpose(lambda v: M2 @ v, X), np.ones(2, np.float32))),
    "fwd_and_bwd": C(lambda jax, jnp: _fwd_bwd(jax, jnp, (0, 1))),
    "fwd_and_bwd one argnum": C(lambda jax, jnp: _fwd_bwd(jax, jnp, 1)),
    "fwd_and_bwd not jitted": C(lambda jax, jnp: _fwd_bwd(jax, jnp, 0, jitted=False)),
    "fwd_and_bwd has_aux": C(lambda jax, jnp: _fwd_bwd_aux(jax, jnp)),
    "fwd_and_bwd compiles once": C(lambda jax, jnp: _fwd_bwd_compiles(jax, jnp)),
    "fwd_and_bwd not callable": E(lambda jax, jnp: jax.fwd_and_bwd(3, 0)),
    "make_array_from_callback": C(lambda jax, jnp: _from_callback(jax, ("x", "y"), np.float32)),
    "make_array_from_callback partly replicated": C(lambda jax, jnp: _from_callback(
        jax, (None, "y"))),
    "make_array_from_callback replicated": C(lambda jax, jnp: _from_callback(jax, ())),
    "make_array_from_callback of float64": C(lambda jax, jnp: _from_callback(jax, ("x",),
                                                                            np.float64)),
    "make_array_from_callback one device": C(lambda jax, jnp: _laid(jax.make_array_from_callback(
        (3,), jax.sharding.SingleDeviceSharding(jax.devices()[1]), lambda i: X[i]))),
    "make_array_from_callback dtype": C(lambda jax, jnp: _from_callback(
        jax, ("x",), np.int32, dtype=np.int32)),
    "make_array_from_callback wrong dtype": E(lambda jax, jnp: _from_callback(
        jax, ("x",), np.int32, dtype=np.float32)),
    "make_array_from_callback wrong shape": E(lambda jax, jnp: jax.make_array_from_callback(
        (8, 4), jax.NamedSharding(_mesh(jax), jax.P("x")), lambda i: np.ones(3, np.float32))),
    "make_array_from_callback under jit": E(lambda jax, jnp: jax.jit(
        lambda x: jax.make_array_from_callback((3,), jax.sharding.SingleDeviceSharding(
            jax.devices()[0]), lambda i: x))(X)),
    "Device and Shard": C(lambda jax, jnp: (
        isinstance(jax.devices()[0], jax.Device), jax.Device.__name__,
        [(type(s) is jax.Shard, repr(s)) for s in (jnp.asarray(X) * 2).addressable_shards])),
    "copy_to_host_async": C(lambda jax, jnp: jax.copy_to_host_async(
        {"a": jnp.asarray(X) * 2, "b": 3, "c": [np.ones(2, np.float32)]})),
    "print_environment_info": C(lambda jax, jnp: [
        line.split(":")[0].replace("autodidax", "jax") for line in
        jax.print_environment_info(return_string=True).splitlines()[:7]]),
    "make_user_context": C(lambda jax, jnp: _user_context(jax, jnp)),
    "process_indices": C(lambda jax, jnp: jax.process_indices()),
    "host aliases": C(lambda jax, jnp: [_warned(f) for f in (jax.host_count, jax.host_id,
                                                             jax.host_ids)]),
}


def _partial(jax, jnp):
    add = jax.tree_util.Partial(jnp.add, X)
    nested = jax.tree_util.Partial(functools.partial(jnp.multiply, 2.0), X)
    return (jax.tree.leaves(add), jax.jit(lambda f, x: f(x))(add, 2.0),
            jax.tree.leaves(nested), jax.jit(lambda f: f())(nested))


def _static_class(jax):
    @jax.tree_util.register_static
    class Op(str):
        pass
    f = jax.jit(lambda x, op: x + 1 if op == "add" else x - 1)
    return f(1.0, Op("add")), f(1.0, Op("sub")), jax.tree.leaves([Op("add"), 2])


def _tree_helpers(jax):
    tu, tree = jax.tree_util, {"b": [1, (2, 3)], "a": 4}
    T = collections.namedtuple("T", "x y")
    return (tu.tree_broadcast((1, {"a": 2}, 3), (0, {"a": [1, 2]}, (4, 5))),
            jax.tree.broadcast([1, 2], [(0, 0), {"k": 5}]),
            jax.tree.reduce_associative(lambda a, b: a * 10 + b, [1, [2, 3], (4, 5, 6)]),
            tu.all_leaves([1, 2.0, X]), tu.all_leaves([1, [2]]), tu.all_leaves([None, 1]),
            tu.all_leaves([[1]], is_leaf=lambda x: isinstance(x, list)),
            [tu.is_tree_node(t) for t in (list, dict, int, type(None), T)],
            tu.flatten_one_level([1, [2]]), tu.flatten_one_level((1, 2)),
            tu.flatten_one_level(T(1, 2))[0],
            str(tu.flatten_one_level_with_keys((1, {"a": 2}))),
            str(tu.treedef_tuple([tu.tree_structure([1, 2]), tu.tree_structure({"a": 3})])),
            tu.treedef_tuple([tu.tree_structure(tree)]) == tu.tree_structure((tree,)),
            [str(t) for t in tu.treedef_children(tu.tree_structure(tree))],
            [tu.treedef_is_leaf(tu.tree_structure(t)) for t in (1, [1], None, [])],
            str(tu.default_registry.flatten([1, {"a": 2}])[1]))


_Pair = collections.namedtuple("_Pair", "x y")


def _one_level(jax, with_keys):
    """For each kind of node: the type of the container its children come in, and the whole."""
    tu = jax.tree_util
    f = tu.flatten_one_level_with_keys if with_keys else tu.flatten_one_level

    class Listed:
        pass
    tu.register_pytree_node(Listed, lambda c: ([1, 2], None), lambda a, ch: Listed())

    class Tupled:
        pass
    tu.register_pytree_node(Tupled, lambda c: ((1, 2), "aux"), lambda a, ch: Tupled())

    @dataclasses.dataclass
    class Data:
        a: int
        b: int
        s: int
    tu.register_dataclass(Data, ["a", "b"], ["s"])
    nodes = [[1, 2], (1, 2), None, {"b": 1, "a": 2}, {}, [], collections.OrderedDict(b=1, a=2),
             collections.defaultdict(list, b=1, a=2), Listed(), Tupled(), Data(1, 2, 3)]
    if not with_keys:
        nodes.append(_Pair(1, 2))
    return [(type(ch).__name__, str(ch), str(aux)) for ch, aux in map(f, nodes)]


def _static_field(jax, jnp):
    @functools.partial(jax.tree_util.register_dataclass)
    @dataclasses.dataclass
    class Op:
        x: object
        op: str = jax.tree.static(default="add")
    leaves, treedef = jax.tree.flatten(Op(X))
    return leaves, jax.tree.unflatten(treedef, leaves).op


def _sin_times(jax, jnp):
    return jax.vjp(lambda x, y: jnp.sin(x) * y, X, np.float32(2.0))


def _vjp_leaves(jax, jnp):
    """The leaves, in JAX's order: the residuals that are inputs (`y`), then the others."""
    return jax.tree.leaves(_sin_times(jax, jnp)[1])


def _vjp_rebuilt(jax, jnp):
    leaves, tree = jax.tree.flatten(_sin_times(jax, jnp)[1])
    return jax.tree.unflatten(tree, [l * 1 for l in leaves])(np.ones(3, np.float32))


def _vjp_aux_int(jax, jnp):
    out, f_vjp, aux = jax.vjp(lambda x: ((x * 2.0, jnp.arange(2)), jnp.sin(x)), X[0],
                              has_aux=True)
    return out, aux, f_vjp((np.float32(1.0), np.zeros(2, jax.dtypes.float0)))


M2 = np.arange(6, dtype=np.float32).reshape(2, 3)


def _transposed(jax, jnp):
    scalar = jax.ShapeDtypeStruct((), jnp.float32)
    t = jax.linear_transpose(lambda x, y: 0.5 * x - 0.5 * y, scalar, scalar)
    return t(1.0), jax.linear_transpose(lambda v: M2 @ v, X)(np.ones(2, np.float32))


def _converted(jax, jnp, w):
    """The value of a closure-converted function, and how many constants it took out."""
    g, consts = jax.closure_convert(lambda x: jnp.sin(x) * w + jnp.asarray(X).sum(), 1.0)
    return g(2.0, *consts), len(consts)


def _scaled_root(jax, jnp, w):
    """A custom_vjp that takes a function as a nondifferentiable argument, made able to
    differentiate what that function closes over by closure_convert."""
    import functools

    @functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
    def apply(f, x, *args):
        return f(x, *args)

    def fwd(f, x, *args):
        return f(x, *args), (x, args)

    def bwd(f, res, g):
        x, args = res
        _, vjp = jax.vjp(f, x, *args)
        return vjp(g)

    apply.defvjp(fwd, bwd)
    h, consts = jax.closure_convert(lambda x: jnp.sqrt(x) * w, 4.0)
    return apply(h, 4.0, *consts)


WHOLE = np.arange(32, dtype=np.float32).reshape(8, 4)


def _mesh(jax):
    return jax.make_mesh((4, 2), ("x", "y"))


def _laid(arr):
    return arr, str(arr.sharding), [(s.device.id, s.index) for s in arr.addressable_shards]


def _from_callback(jax, spec, values=np.float32, **kwargs):
    """An array made from `WHOLE`'s blocks as `values`; `kwargs` to make_array_from_callback."""
    asked = []
    arr = jax.make_array_from_callback((8, 4), jax.NamedSharding(_mesh(jax), jax.P(*spec)),
                                       lambda i: asked.append(i) or WHOLE[i].astype(values),
                                       **kwargs)
    return _laid(arr), asked


def _fwd_bwd(jax, jnp, argnums, jitted=True):
    fwd, bwd = jax.fwd_and_bwd(lambda x, w, n: (jnp.tanh(x @ w) * n, x.sum()), argnums=argnums,
                               jitted=jitted)
    y, res = fwd(M2, M2.T, 3)
    return y, bwd(res, (np.ones((2, 2), np.float32), np.float32(2.0)))


def _fwd_bwd_aux(jax, jnp):
    fwd, bwd = jax.fwd_and_bwd(lambda x: (jnp.sin(x).sum(), {"x2": x * 2}), 0, has_aux=True)
    y, res, aux = fwd(X)
    return y, aux, bwd(res, 1.0)


def _fwd_bwd_compiles(jax, jnp):
    fwd, bwd = jax.fwd_and_bwd(lambda x, w: x @ w, argnums=(0, 1))
    for i in range(3):
        y, res = fwd(M2 + i, M2.T)
        cts = bwd(res, np.ones((2, 2), np.float32))
    return cts, fwd._cache_size(), bwd._cache_size()


def _user_context(jax, jnp):
    mode = jax.make_user_context(default_value=None)
    seen = []
    f = jax.jit(lambda x: seen.append(mode.value) or x * 2)
    f(X)
    with mode("train"):
        f(X)
        inside = mode.value
    f(X)
    return seen, inside, mode.value


def _scoped(jax, jnp, x):
    with jax.named_scope("layer"):
        return jnp.tanh(x) * 2


def _eval_traced(jax, x):
    with jax.ensure_compile_time_eval():
        return x * 2


@pytest.mark.parametrize("name", _params(REST))
def test_jax_rest(name):
    check(REST[name])
