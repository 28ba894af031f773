"""Claims of chapters 02-05 (pytrees, jvp, vmap, jaxprs), checked against the real JAX (see
tests/claims.py)."""
import collections
import dataclasses
import importlib
import inspect

import numpy as np
import pytest

import autodidax
import autodidax.numpy as anp
import autodidax.tree_util as atu
import jax
import jax.numpy as jnp
from autodidax import lax as alax
from autodidax.core import get_aval
from jax import lax

from claims import claim, claims_test, in_another_thread

CH02, CH03, CH04, CH05 = "02_pytrees", "03_jvp", "04_vmap", "05_jaxprs"
BOTH = [(autodidax, anp, alax), (jax, jnp, lax)]
f32 = np.ones(3, np.float32)


def weak(x):
    return (get_aval(x) if isinstance(x, autodidax.Array) or not hasattr(x, "aval")
            else x.aval).weak_type


def jaxprs(build, *args):
    """`build(jax_module, np_module, lax_module)` is a function: its jaxpr in both, as text."""
    return [str(lib.make_jaxpr(build(lib, np_, lax_))(*args)) for lib, np_, lax_ in BOTH]


def registered_pair(tu):
    """Two custom node types of one arity, registered in `tu`, with dicts as aux data."""
    class C:
        def __init__(self, a, d):
            self.a, self.d = a, d

    class D(C):
        pass

    for cls in (C, D):
        tu.register_pytree_node(cls, lambda c: ((c.a,), c.d),
                                lambda d, ch, cls=cls: cls(ch[0], d))
    return C, D


# ---- chapter 02: pytrees -------------------------------------------------------------------

@claim(CH02, "jaxlib's C++ `PyTreeDef` hashes, node by node, the kind and the arity and, for a "
             "custom node, the pointers of its Python type and of its unflatten function "
             "(`AbslHashValue` in `jaxlib/pytree.h`), never the node data: aux data then needs "
             "only `==`, so a custom node may keep its static settings in a dict and still be "
             "a `jit` argument.")
def the_hash_skips_node_data_but_not_the_type():
    for tu in (jax.tree_util, atu):
        C, D = registered_pair(tu)
        s1, s2 = tu.tree_structure(C(1, {"k": 1})), tu.tree_structure(C(1, {"k": 2}))
        assert hash(s1) == hash(s2) and s1 != s2, tu           # a dict as aux data: unhashed
        assert hash(tu.tree_structure(D(1, {"k": 1}))) != hash(s1), tu    # the type counts
    C, _ = registered_pair(jax.tree_util)
    f = jax.jit(lambda c: c.a * c.d["k"])
    assert float(f(C(2.0, {"k": 3}))) == 6.0 and f._cache_size() == 1


@claim(CH02, "A namedtuple's class is node data there, so two namedtuple classes of one arity "
             "hash alike; ours hash apart.")
def namedtuple_classes_hash_alike_in_jaxlib():
    A, B = collections.namedtuple("A", "x y"), collections.namedtuple("B", "u v")
    jt, ours = jax.tree_util.tree_structure, atu.tree_structure
    assert jt(A(1, 2)) != jt(B(1, 2)) and hash(jt(A(1, 2))) == hash(jt(B(1, 2)))
    assert ours(A(1, 2)) != ours(B(1, 2)) and hash(ours(A(1, 2))) != hash(ours(B(1, 2)))


@claim(CH02, "A tree definition prints as JAX's, as the Python value would look, `*` for a leaf "
             "and `CustomNode(Name[aux_data], [children])` for registered types")
def treedefs_print_alike():
    P = collections.namedtuple("P", "a b")
    tree = {"w": (1, [2, None]), "p": P(3, 4)}
    assert str(atu.tree_structure(tree)) == str(jax.tree_util.tree_structure(tree))
    texts = [str(tu.tree_structure(registered_pair(tu)[0](1, "aux"))) for tu in
             (atu, jax.tree_util)]
    assert texts[0] == texts[1] and texts[1].startswith("PyTreeDef(CustomNode(C[aux], [*]")


@claim(CH02, "A round trip gives back an equal tree, its dicts' keys in sorted order, as in JAX")
def round_trip_sorts_dict_keys():
    tree = {"b": 1, "a": (2, 3)}
    for tu in (atu, jax.tree_util):
        back = tu.tree_unflatten(*reversed(tu.tree_flatten(tree)))
        assert back == tree and list(back) == ["a", "b"] and tu.tree_leaves(tree) == [2, 3, 1]


@claim(CH02, "as in JAX, `is_leaf` may take the path too (`is_leaf_takes_path=True`)")
def is_leaf_takes_the_path():
    tree = {"a": (1, 2), "b": 3}
    for tu in (atu, jax.tree_util):
        leaves, _ = tu.tree_flatten_with_path(
            tree, is_leaf=lambda path, x: tu.keystr(path) == "['a']", is_leaf_takes_path=True)
        assert [x for _, x in leaves] == [(1, 2), 3]


@claim(CH02, "used bare as a decorator it reads them from the class, as JAX does: every field is "
             "data unless declared with `dataclasses.field(metadata=dict(static=True))`")
def register_dataclass_reads_the_fields():
    for tu in (atu, jax.tree_util):
        @tu.register_dataclass
        @dataclasses.dataclass
        class Layer:
            w: float
            name: str = dataclasses.field(metadata=dict(static=True))
        leaves, treedef = tu.tree_flatten(Layer(1.0, "dense"))
        assert leaves == [1.0] and tu.tree_unflatten(treedef, [2.0]) == Layer(2.0, "dense")


@claim(CH02, "`FlattenedIndexKey(key)`: a child of any other registered node, known only by its "
           "position among the children, `[<flat index 1>]`.")
def flattened_index_key_prints():
    for tu in (atu, jax.tree_util):
        C, _ = registered_pair(tu)
        ((path, _),), _ = tu.tree_flatten_with_path(C(1, None))
        assert tu.keystr(path) == "[<flat index 0>]", tu
        assert str(tu.FlattenedIndexKey(1)) == "[<flat index 1>]"


@claim(CH02, "`DictKey(key)`: a child of a dict, an `OrderedDict` or a `defaultdict`, `['w']`;")
def dict_keys_of_the_three_dicts():
    for tu in (atu, jax.tree_util):
        for d in ({"w": 1}, collections.OrderedDict(w=1), collections.defaultdict(int, w=1)):
            ((path, _),), _ = tu.tree_flatten_with_path(d)
            assert isinstance(path[0], tu.DictKey) and tu.keystr(path) == "['w']"


@claim(CH02, "**One registry.** JAX keeps three more beside the default one, among them "
             "`none_leaf_registry` (where `None` is a leaf) and `dispatch_registry`")
def jax_has_four_registries():
    from jax._src import tree_util as jtu
    regs = {n for n, v in vars(jtu).items() if type(v).__name__ == "PyTreeRegistry"}
    assert {"default_registry", "none_leaf_registry", "dispatch_registry"} <= regs
    assert len(regs) == 4
    assert jtu.none_leaf_registry.flatten([None, 1])[0] == [None, 1]
    assert not hasattr(atu, "none_leaf_registry")


# ---- chapter 03: jvp -----------------------------------------------------------------------

@claim(CH03, "`to_concrete_value` hands over the primal's value, so that under `jvp` of concrete "
             "numbers `if x:` and `int(x)` work, as in JAX")
def python_control_flow_under_jvp():
    def f(x):
        return x * int(x) if x > 1 else -x
    for lib, _, _ in BOTH:
        assert [float(v) for v in lib.jvp(f, (3.0,), (1.0,))] == [9.0, 3.0]


@claim(CH03, "JAX gives it that type only at a `jit`: the JVP of a jitted function traces its "
             "jaxpr with tangents typed `to_tangent_aval()` of the primals, and `jax.numpy`'s "
             "functions and array operators are jitted, so `jvp(jnp.sin, (1.0,), "
             "(jnp.float32(1),))` has a weakly typed tangent where `jvp(lax.sin, ...)` has a "
             "strong one; ours are weak from the start.")
def weak_tangents_only_through_jit():
    t = jnp.float32(1)
    assert weak(jax.jvp(jnp.sin, (1.0,), (t,))[1]) and weak(jax.jvp(lambda x: x * 2, (1.0,), (t,))[1])
    assert weak(jax.jvp(jax.jit(lax.sin), (1.0,), (t,))[1])
    assert not weak(jax.jvp(lax.sin, (1.0,), (t,))[1])
    assert weak(autodidax.jvp(alax.sin, (1.0,), (anp.float32(1),))[1])


@claim(CH03, "**Weak tangents without `jit`.** Ours take the primal's weak type at `jvp`'s entry; "
             "JAX's only at a `jit` (so `jvp(lax.neg, (1.0,), (np.float32(1),))` has a strong "
             "tangent in JAX).")
def weak_tangent_difference():
    assert not weak(jax.jvp(lax.neg, (1.0,), (np.float32(1),))[1])
    assert weak(autodidax.jvp(alax.neg, (1.0,), (np.float32(1),))[1])


@claim(CH03, "Ours takes the primitive alone; JAX's `deflinear(primitive, transpose_rule)` and "
             "`deflinear2` also register the transpose rule")
def deflinear_signatures():
    ajvp = importlib.import_module("autodidax.jvp")
    from jax._src.interpreters import ad
    assert list(inspect.signature(ad.deflinear).parameters) == ["primitive", "transpose_rule"]
    assert list(inspect.signature(ad.deflinear2).parameters) == ["primitive", "transpose_rule"]
    assert list(inspect.signature(ajvp.deflinear).parameters) == ["primitive"]
    import jax.extend
    p = jax.extend.core.Primitive("twice_for_claims")
    ad.deflinear(p, lambda ct: [ct])
    assert p in ad.primitive_jvps and p in ad.primitive_transposes


@claim(CH03, "JAX builds many of them from one function per operand, with two helpers: "
             "`defjvp`, whose functions get `(g, *primals)`, and `defjvp2`, whose functions also "
             "get the output, `(g, ans, *primals)`. We have only `defjvp2`")
def two_helpers_in_jax_one_here():
    ajvp = importlib.import_module("autodidax.jvp")
    from jax._src.interpreters import ad
    assert callable(ad.defjvp) and callable(ad.defjvp2)
    assert hasattr(ajvp, "defjvp2") and not hasattr(ajvp, "defjvp")


@claim(CH03, "JAX's has methods for the custom-derivative primitives (`process_custom_jvp_call`, "
             "`process_custom_vjp_call`) and for the older call primitives (`process_call`). "
             "Ours has `process_primitive` only")
def a_smaller_jvp_trace():
    from autodidax.jvp import JVPTrace
    from jax._src.interpreters import ad
    methods = {"process_custom_jvp_call", "process_custom_vjp_call", "process_call"}
    assert methods <= set(vars(ad.JVPTrace)) and not methods & set(vars(JVPTrace))
    assert "process_primitive" in vars(JVPTrace)


@claim(CH03, "JAX's `TraceTag` also defines `==` and `hash` so that all tags compare equal")
def trace_tags_compare_equal_in_jax():
    from autodidax.jvp import TraceTag
    from jax._src.core import TraceTag as JTag
    assert JTag() == JTag() and hash(JTag()) == hash(JTag())
    assert TraceTag() != TraceTag()


@claim(CH03, "one current trace (`trace_ctx`, in JAX per-thread config state)")
def the_current_trace_is_per_thread():
    from jax._src import core
    with core.set_current_trace(core.EvalTrace()):
        mine = core.trace_ctx.trace
        theirs = in_another_thread(lambda: core.trace_ctx.trace)
    assert theirs is core.eval_trace and mine is not core.eval_trace


@claim(CH03, "The public `jvp` takes pytrees, as JAX's does")
def jvp_takes_pytrees():
    f = lambda p: {"y": p["a"] * p["b"][0]}
    for lib, np_, _ in BOTH:
        out, dot = lib.jvp(f, ({"a": 2.0, "b": [3.0]},), ({"a": 1.0, "b": [0.0]},))
        assert list(out) == ["y"] and float(out["y"]) == 6.0 and float(dot["y"]) == 3.0


@claim(CH03, "Mismatched structures are reported with both tree structures, as JAX does")
def mismatched_structures():
    for lib, _, _ in BOTH:
        with pytest.raises(TypeError, match="primal and tangent arguments to jax.jvp must have the "
                                            "same tree structure"):
            lib.jvp(lambda p: p["a"], ({"a": 1.0},), ([1.0],))


@claim(CH03, "Its public function takes a pytree, and called eagerly returns its argument itself, "
             "as JAX's does.")
def stop_gradient_eagerly():
    for lib, _, lax_ in BOTH:
        x = lib.numpy.ones(2)
        tree = {"x": x}
        assert lax_.stop_gradient(tree)["x"] is x and lax_.stop_gradient(x) is x


# ---- chapter 04: vmap ----------------------------------------------------------------------

@claim(CH04, "an unbound name is a `NameError`, as in JAX")
def unbound_axis_names():
    for lib, np_, lax_ in BOTH:
        with pytest.raises(NameError):
            lib.vmap(lambda x: lax_.psum(x, "j"), axis_name="i")(np_.ones(2))


@claim(CH04, "a name must be hashable, as in JAX: a TypeError otherwise")
def axis_names_are_hashable():
    for lib, _, _ in BOTH:
        with pytest.raises(TypeError):
            lib.vmap(lambda x: x, axis_name=["i"])(np.ones(2))       # JAX's, when called


@claim(CH04, "as in JAX, an entry may also be an int, a **positional** axis of the value: "
             "`psum(x, 0)` is `x.sum(0)`.")
def positional_psum():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    for _, _, lax_ in BOTH:
        np.testing.assert_array_equal(np.asarray(lax_.psum(x, 0)), x.sum(0))


@claim(CH04, "JAX's collectives also take `axis_index_groups` (sums within groups of the axis), "
             "which only `pmap` supports; JAX's `vmap` refuses them, and so do we.")
def vmap_refuses_axis_index_groups():
    for lib, np_, lax_ in BOTH:
        with pytest.raises(NotImplementedError):
            lib.vmap(lambda x: lax_.psum(x, "i", axis_index_groups=[[0], [1]]),
                     axis_name="i")(np_.ones(2))


@claim(CH04, "In JAX 0.10.2 every batching rule lives in `fancy_primitive_batchers` and receives "
             "the `AxisData`; `primitive_batchers` is a shim wrapping rules written without it.")
def batching_tables_in_jax():
    from jax._src.interpreters import batching
    assert lax.sin_p in batching.fancy_primitive_batchers
    assert type(batching.primitive_batchers) is not dict
    assert {"name", "size", "spmd_name"} <= set(batching.AxisData.__dataclass_fields__)


@claim(CH04, "As in JAX, `rev` and `slice` keep the batch where it is (`slice` keeps it whole); the "
             "others put it in front, as their output's axis 0")
def shape_rules_put_the_batch_in_front():
    x = np.ones((2, 3, 4), np.float32)
    kept = [lambda a, np_, lax_: a[::-1], lambda a, np_, lax_: a[1:]]
    moved = [lambda a, np_, lax_: a.T, lambda a, np_, lax_: a[None],
             lambda a, np_, lax_: a.reshape(-1), lambda a, np_, lax_: a[:1].squeeze(0),
             lambda a, np_, lax_: lax_.broadcast_in_dim(a, (2, 5, 4), (0, 2)),
             lambda a, np_, lax_: np_.concatenate([a, a])]
    for fn in kept + moved:
        for out_axes in (0, 1):
            ours, theirs = jaxprs(lambda lib, np_, lax_: lib.vmap(
                lambda a: fn(a, np_, lax_), in_axes=1, out_axes=out_axes), x)
            assert ours == theirs
            if out_axes == 1:      # a transpose where the batch moves, and only there
                assert ("transpose" in ours) == (fn in moved)


@claim(CH04, "Otherwise, as in JAX's `broadcast_batcher`, every batch axis moves to the front")
def elementwise_batch_axes_move_to_the_front():
    x, y, s = np.ones((3, 4), np.float32), np.ones((4, 3), np.float32), np.ones(4, np.float32)
    for fn, axes, args in [(lambda a, b: a + b, (1, 0), (x, y)),
                           (lambda a, b: a / b, (1, 0), (x, s)),
                           (lambda a, b: a * b, (0, 1), (y, x)),
                           (lambda a, b: a - b, (1, None), (x, s[:3]))]:
        ours, theirs = jaxprs(lambda lib, _, lax_: lib.vmap(fn, in_axes=axes), *args)
        assert ours == theirs


@claim(CH04, "**`spmd_axis_name` is ignored.** JAX's `vmap` keeps it in its `AxisData` (as "
             "`spmd_name`), and the batching rules of `jit`, sharding constraints and "
             "`shard_map` shard the batch axis over that mesh axis; ours accepts it and does "
             "nothing with it")
def spmd_axis_name_is_ignored():
    f = lambda x: x * 2
    out = autodidax.vmap(f, spmd_axis_name="x")(anp.ones(2))
    np.testing.assert_array_equal(np.asarray(out), [2.0, 2.0])
    mesh = jax.make_mesh((2,), ("x",), devices=jax.devices()[:2],
                         axis_types=(jax.sharding.AxisType.Auto,))
    g = lambda x: lax.with_sharding_constraint(x, jax.NamedSharding(mesh, jax.P()))
    xs = jax.numpy.ones(4)
    assert "spec=P('x',)" in str(jax.make_jaxpr(jax.vmap(g, spmd_axis_name="x"))(xs))
    assert "spec=P('x',)" not in str(jax.make_jaxpr(jax.vmap(g))(xs))


@claim(CH04, "A JAX `BatchTracer` may carry other types registered with `register_vmappable`, and "
             "`jax.custom_batching.custom_vmap` lets a user write a function's batching rule; "
             "ours carry arrays, and `custom_vmap` is not built.")
def only_arrays_are_batched():
    import jax.custom_batching
    from jax._src.interpreters import batching
    assert callable(batching.register_vmappable) and jax.custom_batching.custom_vmap
    assert not hasattr(autodidax, "custom_batching")


@claim(CH04, "Since JAX 0.8.0 `pmap` itself runs on `jit` and `shard_map`")
def pmap_runs_on_shard_map():
    text = str(jax.make_jaxpr(jax.pmap(lambda x: x + 1))(jnp.ones((1, 2))))
    assert "shard_map" in text


# ---- chapter 05: jaxprs --------------------------------------------------------------------

@claim(CH05, "A closed-over array is a constant variable even with no dimensions, as in JAX: "
             "`c = jnp.sin(1.0)` computed beforehand is an input `a:f32[]`, while `jnp.sin(1.0)` "
             "computed inside is an equation on the literal `1.0:f32[]`.")
def scalar_constants_and_literals():
    for lib, np_, _ in BOTH:
        c = np_.sin(1.0)
        outside = str(lib.make_jaxpr(lambda x: x + c)(1.0))
        inside = str(lib.make_jaxpr(lambda x: x + np_.sin(1.0))(1.0))
        assert outside.startswith("{ lambda a:f32[]; b:f32[]."), outside
        assert "sin 1.0:f32[]" in inside, inside


@claim(CH05, "That is JAX's output for the same function, character for character; short jaxprs "
             "print on one line, as in JAX.")
def jaxprs_print_alike():
    ours, theirs = jaxprs(lambda lib, np_, _: lambda x, y: np_.sin(x) * y + 1.0, 1.0, 2.0)
    assert ours == theirs
    ours, theirs = jaxprs(lambda lib, np_, _: lambda x: -x, 1.0)
    assert ours == theirs and "\n" not in theirs


@claim(CH05, "This is JAX's **omnistaging** (JAX 0.2, 2020): while a function is traced, the "
             "staging trace is the current trace for every `bind`.")
def omnistaging_records_constants():
    ours, theirs = jaxprs(lambda lib, np_, _: lambda x: x * (np_.sin(2.0) * np.float32(3.0)), 1.0)
    assert ours == theirs and "sin 2.0:f32[]" in theirs


@claim(CH05, "JAX's `JaxprEqn` also holds its effects and a context (`JaxprEqnContext`: mesh, "
             "compute type, XLA metadata), and a `Jaxpr` its effects and `DebugInfo`. Ours keep no "
             "effects (chapter 15 finds them) and, of the context, XLA metadata (in `SourceInfo`).")
def what_an_equation_records():
    from jax.experimental.xla_metadata import set_xla_metadata

    from autodidax.experimental.xla_metadata import set_xla_metadata as our_set
    from autodidax.jaxpr import Jaxpr, JaxprEqn
    eqn = jax.make_jaxpr(jnp.sin)(1.0).eqns[0]
    assert type(eqn.ctx).__name__ == "JaxprEqnContext" and eqn.effects == set()
    assert type(jax.make_jaxpr(jnp.sin)(1.0).jaxpr.debug_info).__name__ == "DebugInfo"
    with set_xla_metadata(k=1):
        assert jax.make_jaxpr(jnp.sin)(1.0).eqns[0].ctx.xla_metadata == {"k": 1}
    ours = autodidax.make_jaxpr(anp.sin)(1.0)
    assert not hasattr(ours.eqns[0], "ctx") and not hasattr(ours.eqns[0], "effects")
    assert JaxprEqn is not None and not hasattr(ours.jaxpr, "debug_info") and Jaxpr
    assert ours.eqns[0].source_info.context is None
    with our_set(k=1):
        assert autodidax.make_jaxpr(anp.sin)(1.0).eqns[0].source_info.context == (("k", 1),)


@claim(CH05, "*`make_jaxpr`*: ours takes `static_argnums` only; JAX's also takes `axis_env` and "
             "`return_shape`.")
def make_jaxpr_signatures():
    params = lambda f: list(inspect.signature(f).parameters)
    assert params(jax.make_jaxpr) == ["fun", "static_argnums", "axis_env", "return_shape"]
    assert params(autodidax.make_jaxpr) == ["fun", "static_argnums"]


@claim(CH05, "`jit`, `cond`, `while_loop` and `scan` bind primitives whose parameters hold "
             "jaxprs")
def initial_style_primitives_hold_jaxprs():
    from jax.extend.core import ClosedJaxpr
    progs = [jax.jit(jnp.sin), lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x),
             lambda x: lax.while_loop(lambda v: v < 3, lambda v: v + 1, x),
             lambda x: lax.scan(lambda c, _: (c + 1, None), x, length=2)[0]]
    for f in progs:
        (eqn,) = [e for e in jax.make_jaxpr(f)(1.0).eqns
                  if e.primitive.name in ("jit", "cond", "while", "scan")]
        values = [v for p in eqn.params.values() for v in (p if isinstance(p, tuple) else (p,))]
        assert any(isinstance(v, ClosedJaxpr) for v in values), eqn.primitive


test_claims = claims_test(__name__)
