"""autodidax/lowering.py: every primitive lowers to StableHLO that XLA compiles and runs to the
numbers NumPy evaluation gives, in the readable form, with the operations JAX emits."""
import re
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from jaxlib import xla_client
from jaxlib.mlir import ir

import autodidax.numpy as jnp
from autodidax import core, lax, lax_core
from autodidax.jaxpr import make_jaxpr
from autodidax.lowering import (LoweringRuleContext, ModuleContext, aval_to_ir_type,
                                call_lowering, ir_constant, lower_jaxpr_to_fun,
                                lower_jaxpr_to_module, lowering_rules, make_ir_context,
                                module_to_text)

from test_lax import A, B, BATCH, EXTREME, HALVES, I, J, M, NANS, P, UNIT  # noqa: E402  (the same inputs as lax's tests)
from test_lax import SHIFTS, WORDS  # noqa: E402

U = np.array([[0, 3, 250], [7, 0, 1]], np.uint8)
V = np.array([[1, 3, 200], [9, 0, 1]], np.uint8)
H = A.astype(np.float16)
I8 = np.array([[1, -2, 3], [4, 5, -6]], np.int8)
MASK = A > 0
WHICH = np.array([[0, 1, 2], [2, 1, 0]], np.int32)

# (name, args, params): lax.NAME(*args, **params) is lowered, compiled and run.
CASES = [
    ("neg", (A,), {}), ("sin", (A,), {}), ("cos", (A,), {}), ("exp", (A,), {}),
    ("log", (P,), {}), ("tanh", (A,), {}), ("sqrt", (P,), {}), ("abs", (A,), {}),
    ("sign", (A,), {}), ("square", (A,), {}), ("neg", (I,), {}), ("abs", (I,), {}),
    ("sign", (I,), {}), ("square", (I,), {}), ("sin", (H,), {}),
    ("abs", (U,), {}), ("sign", (U,), {}),
    ("add", (A, B), {}), ("sub", (A, B), {}), ("mul", (A, B), {}), ("div", (A, B), {}),
    ("div", (I, J), {}), ("max", (A, B), {}), ("min", (A, B), {}), ("pow", (P, B), {}),
    ("max", (MASK, B > 0), {}), ("min", (U, V), {}), ("add", (U, V), {}),
    ("add", (A, np.float32(2.0)), {}), ("mul", (A, A[:1]), {}), ("sub", (A[:, :1], A), {}),
    ("mul", (np.float32(3.0), A), {}),
    ("gt", (A, B), {}), ("lt", (A, B), {}), ("ge", (I, J), {}), ("le", (I, J), {}),
    ("eq", (I, J), {}), ("ne", (A, B), {}), ("gt", (U, V), {}), ("lt", (I, np.int32(0)), {}),
    ("integer_pow", (A,), {"y": 3}), ("integer_pow", (P,), {"y": -2}),
    ("integer_pow", (A,), {"y": 0}), ("integer_pow", (I,), {"y": 7}),
    ("integer_pow", (P,), {"y": 1}),
    ("select_n", (MASK, A, B), {}), ("select_n", (np.bool_(True), A, B), {}),
    ("select_n", (WHICH, A, B, P), {}), ("select_n", (MASK.astype(np.int32), I, J), {}),
    ("convert_element_type", (A,), {"new_dtype": np.int32}),
    ("convert_element_type", (I,), {"new_dtype": np.float32}),
    ("convert_element_type", (A,), {"new_dtype": np.bool_}),
    ("convert_element_type", (I,), {"new_dtype": np.bool_}),
    ("convert_element_type", (MASK,), {"new_dtype": np.float32}),
    ("convert_element_type", (A,), {"new_dtype": np.float16}),
    ("convert_element_type", (A,), {"new_dtype": np.float32, "weak_type": True}),
    ("reduce_sum", (A,), {"axes": (1,)}), ("reduce_sum", (BATCH,), {"axes": (0, 2)}),
    ("reduce_sum", (I,), {"axes": (0, 1)}),
    ("reduce_max", (A,), {"axes": (0,)}), ("reduce_min", (I,), {"axes": (0, 1)}),
    ("reduce_max", (MASK,), {"axes": (1,)}), ("reduce_min", (U,), {"axes": (1,)}),
    ("reduce_min", (A,), {"axes": (1,)}), ("reduce_max", (I,), {"axes": ()}),
    ("broadcast_in_dim", (A[0],), {"shape": (4, 3), "broadcast_dimensions": (1,)}),
    ("broadcast_in_dim", (np.float32(1.5),), {"shape": (2, 2), "broadcast_dimensions": ()}),
    ("broadcast_in_dim", (A[:1],), {"shape": (2, 5, 3), "broadcast_dimensions": (0, 2)}),
    ("reshape", (BATCH,), {"new_sizes": (6, 5)}),
    ("reshape", (A,), {"new_sizes": (3, 2), "dimensions": (1, 0)}),
    ("transpose", (BATCH,), {"permutation": (2, 0, 1)}),
    ("squeeze", (A[:1],), {"dimensions": (0,)}),
    ("expand_dims", (A,), {"dimensions": (0, 3)}),
    ("slice", (BATCH,), {"start_indices": (1, 0, 1), "limit_indices": (5, 2, 3),
                         "strides": (2, 1, 1)}),
    ("slice", (A,), {"start_indices": (0, 1), "limit_indices": (2, 3)}),
    ("rev", (A,), {"dimensions": (1,)}), ("rev", (BATCH,), {"dimensions": (0, 2)}),
    ("concatenate", ([A, B],), {"dimension": 0}), ("concatenate", ([I, J, I],), {"dimension": 1}),
    ("dot_general", (A, M), {"dimension_numbers": (((1,), (0,)), ((), ()))}),
    ("dot_general", (BATCH, BATCH), {"dimension_numbers": (((2,), (2,)), ((0,), (0,)))}),
    ("dot_general", (A, B), {"dimension_numbers": (((), ()), ((), ()))}),
    ("dot_general", (I, J), {"dimension_numbers": (((1,), (1,)), ((), ()))}),
    ("dot_general", (A, M), {"dimension_numbers": (((1,), (0,)), ((), ())),
                             "preferred_element_type": np.float32}),
    ("dot_general", (H, H), {"dimension_numbers": (((1,), (1,)), ((), ())),
                             "preferred_element_type": np.float32}),
    ("dot_general", (I8, I8), {"dimension_numbers": (((1,), (1,)), ((), ())),
                               "preferred_element_type": np.int32}),
    ("dot_general", (MASK, MASK), {"dimension_numbers": (((1,), (1,)), ((), ()))}),
    ("bitwise_and", (MASK, B > 0), {}), ("bitwise_or", (I, J), {}),
    ("bitwise_xor", (U, V), {}), ("bitwise_not", (MASK,), {}), ("bitwise_not", (I8,), {}),
    ("argmax", (A,), {"axis": 1, "index_dtype": np.int32}),
    ("argmin", (A,), {"axis": 0, "index_dtype": np.int32}),
    ("argmax", (NANS,), {"axis": 1, "index_dtype": np.int32}),
    ("argmin", (NANS,), {"axis": 0, "index_dtype": np.int32}),
    ("argmax", (MASK,), {"axis": 1, "index_dtype": np.int32}),
    ("argmin", (U,), {"axis": 1, "index_dtype": np.int32}),
    ("stack", ([A, B],), {"axis": 0}), ("stack", ([I, J, I],), {"axis": 2}),
    ("unstack", (BATCH,), {"axis": 2}),
    ("convert_element_type", (EXTREME,), {"new_dtype": np.uint8}),
    ("convert_element_type", (EXTREME,), {"new_dtype": np.int32}),
    ("div", (np.array([7, -7, 0], np.int32), np.array([0, 0, 0], np.int32)), {}),
    ("reduce_max", (np.zeros((0, 2), np.float32),), {"axes": (0,)}),
    ("floor", (A,), {}), ("ceil", (H,), {}), ("round", (HALVES,), {}),
    ("round", (HALVES,), {"rounding_method": 1}), ("is_finite", (EXTREME,), {}),
    ("exp2", (A,), {}), ("expm1", (A,), {}), ("log1p", (P,), {}), ("tan", (A,), {}),
    ("asin", (UNIT,), {}), ("acos", (UNIT,), {}), ("atan", (A,), {}), ("sinh", (A,), {}),
    ("cosh", (A,), {}), ("asinh", (A,), {}), ("acosh", (P + 1,), {}), ("atanh", (UNIT,), {}),
    ("rsqrt", (P,), {}), ("atan2", (A, B), {}), ("rem", (A, B), {}), ("rem", (I, J), {}),
    ("rem", (np.array([7, -7, 0], np.int32), np.array([0, 0, 0], np.int32)), {}),
    ("stop_gradient", (A,), {}), ("stop_gradient", (MASK,), {}),
    ("reduce_prod", (A,), {"axes": (1,)}), ("reduce_prod", (I,), {"axes": (0, 1)}),
    ("reduce_or", (MASK,), {"axes": (1,)}), ("reduce_and", (MASK,), {"axes": (0,)}),
    ("reduce_or", (I,), {"axes": (0,)}), ("reduce_and", (U,), {"axes": (1,)}),
    ("reduce_and", (I,), {"axes": (0, 1)}),
    ("cumsum", (A,), {"axis": 1}), ("cumsum", (BATCH,), {"axis": 0, "reverse": True}),
    ("cumsum", (I,), {"axis": 1}), ("cumprod", (A,), {"axis": 1}),
    ("cumprod", (I,), {"axis": 0, "reverse": True}),
    ("cumsum", (np.zeros((0, 2), np.float32),), {"axis": 0}),
    ("pad", (A, np.float32(-1.0)), {"padding_config": ((1, 2, 1), (-1, 0, 2))}),
    ("pad", (I, np.int32(7)), {"padding_config": ((0, -2, 0), (2, -1, 1))}),
    ("pad", (U, np.uint8(9)), {"padding_config": ((0, 0, 0), (0, 0, 0))}),
    ("broadcasted_iota", (), {"dtype": np.int32, "shape": (2, 3), "dimension": 1}),
    ("broadcasted_iota", (), {"dtype": np.float32, "shape": (4,), "dimension": 0}),
    ("broadcasted_iota", (), {"dtype": np.uint8, "shape": (2, 0), "dimension": 0}),
    ("shift_left", (WORDS, SHIFTS), {}), ("shift_right_logical", (WORDS, SHIFTS), {}),
    ("shift_right_arithmetic", (I, SHIFTS.astype(np.int32)), {}),
    ("bitcast_convert_type", (A,), {"new_dtype": np.uint32}),
    ("bitcast_convert_type", (H,), {"new_dtype": np.int16}),
    ("complex", (A, B), {}), ("real", (A + 1j * B,), {}), ("imag", (A + 1j * B,), {}),
    ("conj", (A + 1j * B,), {}), ("conj", (A,), {}), ("abs", (A + 1j * B,), {}),
]
PRIMITIVE_OF = {"bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor",
                "bitwise_not": "not", "broadcasted_iota": "iota"}
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


def flat_fun(name, args, params):
    """The case as a function of a flat list of arrays, and that list."""
    if name in ("concatenate", "stack"):
        return (lambda *xs: getattr(lax, name)(list(xs), **params)), list(args[0])
    return (lambda *xs: getattr(lax, name)(*xs, **params)), list(args)


CLIENT = xla_client.make_cpu_client()
DEVICE = CLIENT.local_devices()[0]


def compile_text(text):
    return CLIENT.compile_and_load(text, xla_client.DeviceList((DEVICE,)),
                                   xla_client.CompileOptions())


def run(closed, *args):
    """Lower `closed`, compile it with XLA on the CPU and run it on `args`: NumPy outputs."""
    exe = compile_text(module_to_text(lower_jaxpr_to_module(closed)))
    sharding = xla_client.GSPMDSharding((DEVICE,), xla_client.OpSharding())
    bufs = [xla_client.batched_device_put(aval, sharding, [np.asarray(x, aval.dtype)], [DEVICE],
                                          True, enable_x64=True)
            for x, aval in zip(args, closed.in_avals)]
    outs = exe.execute_sharded(bufs).disassemble_into_single_device_arrays()
    return [np.asarray(o[0]) for o in outs]


@pytest.mark.parametrize("name,args,params", CASES, ids=IDS)
def test_lowered_primitive_runs_and_agrees_with_numpy_evaluation(name, args, params):
    f, flat = flat_fun(name, args, params)
    closed = make_jaxpr(f)(*flat)
    outs, expected = run(closed, *flat), f(*flat)
    out = np.stack(outs) if isinstance(expected, tuple) else outs[0]
    expected = np.stack(expected) if isinstance(expected, tuple) else np.asarray(expected)
    assert out.shape == expected.shape and out.dtype == expected.dtype, \
        f"{out.dtype}{out.shape} != {expected.dtype}{expected.shape}"
    # float16 anywhere: NumPy's evaluation computes in float16, where XLA may accumulate wider.
    dtypes = {np.asarray(x).dtype.name for x in flat} | {out.dtype.name}
    tol = 1e-3 if "float16" in dtypes else 1e-6 if out.dtype.kind == "f" else 0
    np.testing.assert_allclose(out, expected, rtol=tol, atol=tol)


def test_every_primitive_has_a_rule_and_a_case():
    prims = {v for v in vars(lax_core).values() if isinstance(v, core.Primitive)}
    assert prims <= set(lowering_rules), {p.name for p in prims - set(lowering_rules)}
    covered = {PRIMITIVE_OF.get(name, name) for name, _, _ in CASES}
    assert {p.name for p in prims} <= covered, {p.name for p in prims} - covered


OPS = re.compile(r"\b(?:stablehlo|chlo)\.\w+|\bcall\b")


def body(text):
    """The lines of the functions' bodies, stripped."""
    return [line.strip() for line in text.splitlines() if line.startswith("    ")]


@pytest.mark.parametrize("name,args,params", CASES, ids=IDS)
def test_same_operations_as_jax(name, args, params):
    jax = pytest.importorskip("jax")
    if (name == "abs" and args[0].dtype.kind == "u") or "weak_type" in params:
        pytest.skip("JAX's lax does not accept this case (abs of unsigned, or weak_type)")
    f, flat = flat_fun(name, args, params)
    ours = module_to_text(lower_jaxpr_to_module(make_jaxpr(f)(*flat)))
    jlax = jax.lax
    g = ((lambda *xs: getattr(jlax, name)(list(xs), **params)) if name in ("concatenate", "stack")
         else (lambda *xs: getattr(jlax, name)(*xs, **params)))
    theirs = jax.jit(g).lower(*flat).as_text()
    ours_ops, their_ops = Counter(OPS.findall(ours)), Counter(OPS.findall(theirs))
    # Where we differ from JAX, on purpose: a conversion to bool is a comparison, without JAX's
    # no-op convert after it; one that keeps the dtype emits nothing, where JAX converts.
    if name == "convert_element_type":
        their_ops.pop("stablehlo.convert", None)
        ours_ops.pop("stablehlo.convert", None)
    # JAX lowers argmax and cumsum through a private function that it calls; ours is inline.
    if name in ("argmax", "argmin", "cumsum", "cumprod"):
        their_ops.pop("call", None)
    if name == "cumsum":             # JAX's cumsum broadcasts its scalar init to a scalar: a no-op
        their_ops.pop("stablehlo.broadcast_in_dim", None)
    assert ours_ops == their_ops, f"ours:\n{ours}\nJAX's:\n{theirs}"
    if name not in ("integer_pow", "convert_element_type", "argmax", "argmin", "cumsum",
                    "cumprod"):
        assert body(ours) == body(theirs), f"ours:\n{ours}\nJAX's:\n{theirs}"


def test_module_prints_in_the_readable_form():
    closed = make_jaxpr(lambda x: jnp.sin(x) * 2.0)(jnp.ones(3))
    text = module_to_text(lower_jaxpr_to_module(closed, name="jit_f"))
    assert text == """\
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.sine %arg0 : tensor<3xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<3xf32>
    return %2 : tensor<3xf32>
  }
}
"""
    assert '"stablehlo.' not in text and "loc(" not in text


def test_reductions_use_a_region_printed_compactly():
    closed = make_jaxpr(lambda x: (lax.reduce_max(x, (0,)), lax.reduce_sum(x, (1,))))(A)
    text = module_to_text(lower_jaxpr_to_module(closed))
    assert "stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [0]" \
        in text
    assert "applies stablehlo.add across dimensions = [1]" in text
    assert "dense<0xFF800000>" in text    # -inf, the identity of max


def test_constants_closed_over_become_dense_constants():
    w = jnp.asarray(M)
    closed = make_jaxpr(lambda x: jnp.tanh(x @ w).sum(axis=0))(jnp.ones((2, 3)))
    text = module_to_text(lower_jaxpr_to_module(closed))
    assert "stablehlo.constant dense<[[" in text and "tensor<3x4xf32>" in text
    out, = run(closed, A)
    np.testing.assert_allclose(out, np.tanh(A @ M).sum(0), rtol=1e-5)


def test_several_outputs_and_pytrees():
    closed = make_jaxpr(lambda d: {"s": d["x"] + d["y"], "p": d["x"] * d["y"]})(
        {"x": jnp.asarray(A), "y": jnp.asarray(B)})
    outs = run(closed, A, B)
    np.testing.assert_allclose(outs[0], A * B, rtol=1e-6)   # "p" sorts first
    np.testing.assert_allclose(outs[1], A + B, rtol=1e-6)


def test_an_output_that_is_an_input_or_a_literal():
    closed = make_jaxpr(lambda x: (x, 1.0, x + 1.0))(jnp.asarray(A))
    a, one, b = run(closed, A)
    np.testing.assert_array_equal(a, A)
    assert one.shape == () and one == 1.0
    np.testing.assert_allclose(b, A + 1, rtol=1e-6)


def test_nested_jaxpr_lowered_as_a_private_function_called_twice():
    call_p = core.Primitive("test_call")
    call_p.multiple_results = True
    core.abstract_eval_rules[call_p] = lambda *avals, jaxpr: jaxpr.out_avals
    lowering_rules[call_p] = lambda ctx, *args, jaxpr: call_lowering(ctx, "inner", jaxpr, *args)
    inner = make_jaxpr(lambda x, y: (jnp.sin(x) * y, y - x))(jnp.ones(3), jnp.ones(3))

    def outer(x):
        a, b = call_p.bind(x, x, jaxpr=inner)
        c, _ = call_p.bind(a, b, jaxpr=inner)
        return c + 1.0

    closed = make_jaxpr(outer)(jnp.ones(3))
    text = module_to_text(lower_jaxpr_to_module(closed, name="jit_outer"))
    assert text.count("func.func private @inner(") == 1, text
    assert text.count("call @inner(") == 2, text
    assert "func.func public @main(" in text
    x = np.array([0.5, 1.0, 2.0], np.float32)
    a, b = np.sin(x) * x, x - x
    np.testing.assert_allclose(run(closed, x)[0], np.sin(a) * b + 1.0, rtol=1e-6)


def test_lower_jaxpr_to_fun_names_distinct_jaxprs_apart_and_caches_one():
    first = make_jaxpr(lambda x: jnp.sin(x))(jnp.ones(2))
    second = make_jaxpr(lambda x: jnp.cos(x))(jnp.ones(2))
    context = make_ir_context()
    with context, ir.Location.unknown():
        module = ir.Module.create()
        ctx = ModuleContext(context, module)
        names = [lower_jaxpr_to_fun(ctx, "f", j) for j in (first, second, first)]
        assert names[0] == names[2] != names[1], names
        assert str(aval_to_ir_type(core.ShapedArray((2, 3), np.uint8))) == "tensor<2x3xui8>"
        assert str(ir_constant(np.array([True, False])).type) == "tensor<2xi1>"
        module.operation.verify()
    text = module_to_text(module)
    assert text.count("func.func private") == 2


@pytest.mark.parametrize("fun_name", ["<lambda>", "f", "a.b-c", "f_", "x y"])
def test_module_names_are_sanitized_then_stripped_as_in_jax(fun_name):
    jax = pytest.importorskip("jax")
    from jax._src.interpreters import mlir
    from autodidax.lowering import sanitize_name
    name = f"jit({fun_name})"
    assert sanitize_name(name) == mlir.sanitize_name(name)      # trailing underscores kept

    def f(x):
        return x
    f.__name__ = fun_name
    theirs = jax.jit(f).lower(np.float32(1)).as_text().split(" attributes")[0]
    closed = make_jaxpr(f)(np.float32(1))
    ours = module_to_text(lower_jaxpr_to_module(closed, name=name)).split(" attributes")[0]
    assert ours == theirs and ours.strip('"').endswith(mlir.sanitize_name(name).rstrip("_"))


def test_rules_see_avals_through_their_context():
    seen = []
    prim = core.Primitive("test_identity")
    core.abstract_eval_rules[prim] = lambda x: x

    def rule(ctx, x):
        seen.append(ctx)
        return [x]
    lowering_rules[prim] = rule
    lower_jaxpr_to_module(make_jaxpr(lambda x: prim.bind(x))(jnp.ones((2, 2), jnp.int32)))
    ctx, = seen
    assert isinstance(ctx, LoweringRuleContext) and ctx.primitive is prim
    assert [a.str_short() for a in ctx.avals_in + ctx.avals_out] == ["i32[2,2]", "i32[2,2]"]
    assert isinstance(ctx.module_context, ModuleContext)


def test_a_primitive_without_a_rule_is_named_with_the_users_line():
    prim = core.Primitive("test_unlowerable")
    core.abstract_eval_rules[prim] = lambda x: x

    def user_function(x):
        return prim.bind(x)
    with pytest.raises(NotImplementedError,
                       match=r"no lowering rule for the primitive test_unlowerable \(from "
                             r"test_lowering\.py:\d+:\d+ \(\S*\.user_function\)\)"):
        lower_jaxpr_to_module(make_jaxpr(user_function)(1.0))


def test_a_rule_returning_a_bare_value_gets_a_sentence():
    prim = core.Primitive("test_bare")
    core.abstract_eval_rules[prim] = lambda x: x
    lowering_rules[prim] = lambda ctx, x: x
    with pytest.raises(TypeError, match="must return a list of 1 ir.Value"):
        lower_jaxpr_to_module(make_jaxpr(lambda x: prim.bind(x))(1.0))


def test_lowering_imports_no_jax():
    code = ("import sys, autodidax, autodidax.lowering\n"
            "bad = sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.'))\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True)
