"""Claims of chapters 9 (reverse mode) and 10 (control flow) and of appendices A10 (control flow,
the reference) and A19 (donation, the rest of reverse mode), checked against the real JAX (see
tests/claims.py)."""
import functools
import inspect
import re
import warnings

import numpy as np
import pytest

import autodidax
import autodidax.numpy as anp
import jax
import jax.numpy as jnp
from autodidax import lax as alax
from autodidax.jaxpr import make_jaxpr as amj
from jax import lax
from jax._src import core as jcore
from jax._src import pjit as jpjit
from jax._src.interpreters import ad as jad
from jax._src.interpreters import partial_eval as jpe
from jax._src.lax.control_flow import conditionals as jcond
from jax._src.lax.control_flow import loops as jloops

from claims import claim, claims_test

CH09, CH10 = "09_autodiff", "10_control_flow"
A10, A19 = "A10_control_flow_reference", "A19_donation_and_autodiff_rest"
LIBS = [(autodidax, anp, alax, amj), (jax, jnp, lax, jax.make_jaxpr)]   # ours, then JAX's
f32 = np.float32


def same_text(f, *args):
    """`f(lib, np_, lax_)` traced by both libraries prints the same jaxpr; returns the text."""
    texts = [str(mj(f(lib, np_, lx))(*args)) for lib, np_, lx, mj in LIBS]
    assert texts[0] == texts[1], "\n" + "\n".join(texts)
    return texts[0]


def message(f):
    try:
        f()
    except Exception as e:          # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    raise AssertionError("no error")


# ---- chapter 9: reverse mode ----------------------------------------------------------------

@claim(CH09, "# as JAX's tracers print under `grad`")
def grad_tracers_print_alike():
    for lib, *_ in LIBS:
        seen = []
        lib.grad(lambda x: seen.append(repr(x)) or x)(1.0)
        assert seen == ["GradTracer(primal=1.0, typeof(tangent)=f32[])"]


@claim(CH09, "Ours takes JAX's older route, the JVP of the whole function under partial "
             "evaluation")
def jax_linearizes_directly():
    assert jax.config.jax_use_direct_linearize is True
    assert jad.primitive_linearizations and callable(jad.fallback_linearize_rule)
    from autodidax import autodiff
    assert not hasattr(autodiff, "primitive_linearizations")


def with_dead_code(np_):
    def f(x):
        np_.cos(x) * x          # never used
        return np_.sin(x) * 2.0
    return f


@claim(CH09, "`linearize` returns the same program, and so does JAX's")
def linearize_prunes_like_jax():
    ours = str(autodidax.linearize(with_dead_code(anp), 2.0)[1].jaxpr)
    theirs = str(jax.make_jaxpr(jax.linearize(with_dead_code(jnp), 2.0)[1])(1.0))
    assert ours == theirs and "cos" not in theirs


@claim(CH09, "So `linearize` ends, as JAX's does, with **dead code elimination**")
def jax_linearize_ends_with_dce():
    assert "dce_jaxpr_consts" in inspect.getsource(jad.linearize)


@claim(CH09, "by a rule per primitive in `dce_rules`, as in JAX.")
def dce_rules_by_primitive():
    from autodidax.autodiff import dce_rules
    from autodidax.jit import jit_p
    assert jpjit.jit_p in jpe.dce_rules and jit_p in dce_rules


@claim(CH09, "The linear inputs have no values: they are `UndefinedPrimal`s, as in JAX")
def undefined_primals():
    from autodidax.autodiff import UndefinedPrimal, is_linear
    from autodidax.core import ShapedArray
    assert jad.is_undefined_primal(jad.UndefinedPrimal(jcore.ShapedArray((), np.float32)))
    assert is_linear(UndefinedPrimal(ShapedArray((), np.dtype(np.float32))))


W = np.linspace(-1, 1, 6).reshape(3, 2).astype(f32)
X = (np.arange(12.0).reshape(4, 3) / 10).astype(f32)


def loss(np_):
    return lambda w, x: np_.mean((np_.tanh(x @ w) - 1.0) ** 2)


@functools.cache
def loss_grads():
    """(eager ours, eager JAX's, jitted ours, jitted JAX's) gradients of `loss`."""
    eager = [np.asarray(lib.grad(loss(np_))(W, X)) for lib, np_, *_ in LIBS]
    jitted = [np.asarray(lib.jit(lib.grad(loss(np_)))(W, X)) for lib, np_, *_ in LIBS]
    return (*eager, *jitted)


@claim(CH09, "so that gradients come out with JAX's bits, eagerly and compiled.")
def compiled_gradients_have_jaxs_bits():
    ours, theirs, ours_jit, theirs_jit = loss_grads()
    assert np.array_equal(ours_jit, theirs_jit) and np.array_equal(ours, theirs)


@claim(CH09, "JAX's numbers, bit for bit, eagerly and under `jit` (the tests check it).")
def value_and_grad_numbers():
    ours, theirs, ours_jit, theirs_jit = loss_grads()
    assert np.array_equal(ours, theirs) and np.array_equal(ours_jit, theirs_jit)


@claim(CH09, "# NumPy ints, printed as JAX's")
def reduce_sum_transpose_prints_numpy_ints():
    text = same_text(lambda lib, np_, lx: lib.grad(lambda z: z.sum(0).sum()),
                     np.ones((2, 3), f32))
    assert "broadcast_dimensions=(np.int64(1),)" in text


@claim(CH09, "(as JAX does, whether or not they were stretched)")
def broadcast_transpose_puts_unit_dims_back():
    text = same_text(lambda lib, np_, lx: lib.grad(
        lambda z: lx.broadcast_in_dim(z, (1, 3), (0,)).sum()), np.ones(1, f32))
    assert "d:f32[] = reduce_sum[axes=(0, 1)" in text        # the unstretched 1 summed too


@claim(CH09, "# JAX's `transpose` skips the identity permutation")
def dot_general_transpose_skips_identity():
    text = same_text(lambda lib, np_, lx: lib.grad(lambda x, y: (x @ y).sum(), (0, 1)),
                     np.ones((2, 3), f32), np.ones((3, 4), f32))
    assert text.count("transpose[") == 1                     # for y's cotangent only


@claim(CH09, "`concatenate` into `split` (a primitive JAX has for it)")
def concatenate_transposes_into_split():
    text = same_text(lambda lib, np_, lx: lib.grad(lambda a: np_.concatenate([a, a * 2]).sum()),
                     np.ones(2, f32))
    assert "split[axis=0 sizes=(2, 2)]" in text


@claim(CH09, "fills the dict `grad_checks`, run in JAX's order: `argnums` must name arguments "
             "the caller passed; the inputs must be float or complex")
def grad_checks_inputs_before_outputs():
    for lib, *_ in LIBS:
        with pytest.raises(TypeError, match="argnums=1 requires at least 2 positional"):
            lib.grad(lambda x, y: x * 2, argnums=1)(np.ones(2, np.int32))
        with pytest.raises(TypeError, match="requires real- or complex-valued inputs"):
            lib.grad(lambda x: x * 2)(np.ones(2, np.int32))      # before the non-scalar output


@claim(CH09, "`f`, under `fun`'s name, as JAX's transformed functions are")
def transformed_functions_keep_names():
    def myf(x):
        return x * x
    for lib, *_ in LIBS:
        for t in (lib.grad, lib.value_and_grad, lib.jacrev, lib.hessian):
            assert t(myf).__name__ == "myf"


@claim(CH09, "keyword arguments are not differentiated, as in JAX")
def keyword_arguments_are_not_differentiated():
    for lib, *_ in LIBS:
        assert float(lib.grad(lambda x, y=1.0: x * y)(2.0, y=3.0)) == 3.0
        g = lib.grad(lambda x, y=1.0: x * y, argnums=(0,))(2.0, y=3.0)
        assert len(g) == 1


@claim(CH09, "a weakly typed gradient mixes with a `float16` array as a Python float would")
def weak_gradients():
    for lib, np_, *_ in LIBS:
        g = lib.grad(lambda x: x * x)(1.0)
        assert repr(g) == "Array(2., dtype=float32, weak_type=True)"
        assert (g * np_.ones(2, np.float16)).dtype == np.float16


@claim(CH09, "the three contributions added with `add_any` (`l`, `n`). JAX prints the same "
             "program.")
def gradient_program_prints_alike():
    text = same_text(lambda lib, np_, lx: lib.grad(lambda x: np_.sum(np_.tanh(x) * x ** 2)),
                     np.ones(3, f32))
    assert text.count("add_any") == 2


@claim(CH09, "JAX's program reports the same 0.")
def no_scratch_memory_for_sixteen_sines():
    def chain(np_):
        def f(x):
            for _ in range(16):
                x = np_.sin(x)
            return np_.sum(x)
        return f
    x = np.ones(1000, f32)
    for lib, np_, *_ in LIBS:
        memory = lib.jit(lib.grad(chain(np_))).lower(x).compile().memory_analysis()
        assert memory.temp_size_in_bytes == 0


@claim(CH09, "The Hessian of a scalar function: forward-mode over reverse-mode, as in JAX.")
def hessian_is_jacfwd_of_jacrev():
    assert "return jacfwd(jacrev(fun" in inspect.getsource(jax.hessian)
    f = lambda np_: lambda v: np_.sum(np_.sin(v) * v[::-1])    # noqa: E731
    v = f32([0.5, 1.0, 2.0])
    np.testing.assert_allclose(autodidax.hessian(f(anp))(v), jax.hessian(f(jnp))(v), rtol=1e-6)


def jit_loss(lib, np_, lx):
    @lib.jit
    def predict(w, x):
        return np_.tanh(x @ w)
    return lib.grad(lambda w, x: np_.mean((predict(w, x) - 1.0) ** 2))


@claim(CH09, "is passed on once, as in JAX.")
def a_residual_that_is_an_output_is_passed_once():
    text = same_text(jit_loss, W, X)
    assert "c:f32[4,2] d:f32[4,2] = jit[" in text          # tanh once, and 1 - tanh


@claim(CH09, "named as in JAX (the cotangent of `w`)")
def forward_and_backward_jits_are_named_alike():
    assert same_text(jit_loss, W, X).count("name=predict") == 2


@claim(CH09, "lets a nested `jit` apply its own rule at any depth (JAX's "
             "`partial_eval_jaxpr_nounits`)")
def jax_splits_jaxprs_by_tracing():
    source = inspect.getsource(jpe)
    body = source[source.index("def _partial_eval_jaxpr_nounits("):]
    assert "trace_to_subjaxpr_nounits" in body[:body.index("\ndef ")]


@claim(CH09, "(as JAX's `core.eval_jaxpr` does)")
def eval_jaxpr_keeps_source_lines():
    assert "source_info_util.user_context" in inspect.getsource(jcore.eval_jaxpr)


@claim(CH09, "(chapter 5's `weakref_lru_cache`, as in JAX)")
def splits_and_transposes_are_cached():
    for fn in (jpe._partial_eval_jaxpr_nounits, jpjit._transpose_jaxpr_fancy,
               jpe._cached_closed_call_dce):
        assert hasattr(fn, "cache_clear"), fn
    from autodidax import autodiff
    for fn in (autodiff._split_jaxpr, autodiff._transposed_jaxpr, autodiff._dced_jaxpr):
        assert fn.__code__.co_name == "cached", fn      # chapter 5's weakref_lru_cache


@claim(CH09, "(`pmax` and `pmin` have no derivative)")
def pmax_has_no_derivative():
    for lib, _, lx, _ in LIBS:
        for p in (lx.pmax, lx.pmin):
            with pytest.raises(NotImplementedError, match="not implemented"):
                lib.vmap(lib.grad(lambda x: p(x, "i")), axis_name="i")(np.ones(2, f32))


@claim(CH09, "JAX records each equation's effects (`eqn.effects`) and dead code elimination "
             "keeps those that cannot be dropped.")
def effects_are_recorded():
    def f(x):
        jax.debug.print("{}", x)
        return x * 2
    jaxpr = jax.make_jaxpr(f)(1.0).jaxpr
    assert jaxpr.eqns[0].effects and not jaxpr.eqns[1].effects
    pruned, _ = jpe.dce_jaxpr(jaxpr, [False])
    assert [e.primitive.name for e in pruned.eqns] == ["debug_print"]
    from autodidax.autodiff import has_effects
    assert not hasattr(amj(lambda x: x * 2)(1.0).jaxpr.eqns[0], "effects")
    assert has_effects(amj(lambda x: x * 2)(1.0).jaxpr.eqns[0]._replace(outvars=[]))


@claim(CH09, "JAX's `dce_rules` also prune inside `cond`, `scan`, `shard_map` and the "
             "custom-derivative primitives; ours has one, for `jit` and `remat2`")
def fewer_dead_code_rules():
    theirs = {p.name for p in jpe.dce_rules}
    assert {"cond", "scan", "shard_map", "custom_jvp_call", "custom_vjp_call", "jit"} <= theirs
    from autodidax.autodiff import call_dce_rule, dce_rules
    assert {p.name for p in dce_rules} == {"jit", "remat2"}
    assert set(dce_rules.values()) == {call_dce_rule}


@claim(CH09, "are transposed as in JAX; compiled, in chapter 16's `shard_map`.")
def pmap_compiles_collectives():
    text = jax.pmap(lambda x: lax.psum(x, "i"), axis_name="i").lower(np.ones((1, 2), f32)).as_text()
    assert "all_reduce" in text
    f = autodidax.pmap(lambda x: autodidax.lax.psum(x, "i"), axis_name="i")
    assert "shard_map" in str(autodidax.make_jaxpr(f)(np.ones((2, 2), f32)))
    assert np.array_equal(f(np.ones((2, 2), f32)), jax.pmap(lambda x: lax.psum(x, "i"),
                                                            axis_name="i")(np.ones((2, 2), f32)))


@claim(CH09, "a pytree whose leaves are the residuals, so that it can enter and leave a `jit` "
             "(JAX's `VJP`)")
def vjp_functions_are_pytrees():
    for lib in (jax, autodidax):
        _, f_vjp = lib.vjp(lambda x: lib.numpy.sin(x) * x, np.ones(3, f32))
        assert type(f_vjp).__name__ == "VJP"
        assert [np.asarray(l).shape for l in lib.tree.leaves(f_vjp)] == [(3,)] * 3  # x, cos, sin
        ct = lib.jit(lambda f, c: f(c))(f_vjp, np.ones(3, f32))[0]
        assert np.allclose(ct, np.cos(1.0) + np.sin(1.0))


@claim(CH09, "(JAX's returns a tuple, one cotangent per argument)")
def linear_transpose_returns_a_tuple():
    out = jax.linear_transpose(lambda x: x * 2.0, np.ones(2, f32))(np.ones(2, f32))
    assert type(out) is tuple and len(out) == 1


@claim(CH09, "A function that is not linear has no transpose: as in JAX, then "
             "`linear_transpose` or `f_t` raises.")
def linear_transpose_of_a_nonlinear_function_raises():
    x = np.ones(2, f32)
    with pytest.raises(NotImplementedError, match="Transpose rule"):
        jax.linear_transpose(jnp.sin, x)(x)
    with pytest.raises(Exception):
        jax.linear_transpose(lambda x: x * x, x)(x)


# ---- chapter 10: control flow ---------------------------------------------------------------

@claim(CH10, "Under `jit`, `if x > 0:` raises a `ConcretizationTypeError`")
def python_if_under_jit():
    for lib, *_ in LIBS:
        with pytest.raises(lib.errors.ConcretizationTypeError):
            lib.jit(lambda x: x if x > 0 else -x)(1.0)


@claim(CH10, 'so the jaxprs in the parameters have none and print as in JAX')
def branch_constants_become_inputs():
    w = np.arange(3.0, dtype=f32)
    text = same_text(lambda lib, np_, lx: lambda p, x: lx.cond(p, lambda x: x * w, lambda x: x, x),
                     3, np.ones(3, f32))
    assert "{ lambda ; g:f32[3] h:f32[3]." in text


@claim(CH10, "traces both branches (the true one first, as JAX does)")
def the_true_branch_is_traced_first():
    for _, _, lx, _ in LIBS:
        order = []
        lx.cond(True, lambda: order.append("t") or 1.0, lambda: order.append("f") or 0.0)
        assert order == ["t", "f"]


@claim(CH10, "a value both branches close over is passed once, as JAX's `_dedup_consts` does")
def shared_constants_are_passed_once():
    w = np.arange(3.0, dtype=f32)
    text = same_text(lambda lib, np_, lx: lambda p, x: lx.cond(
        p, lambda x: x * w, lambda x: x + w, x), True, np.ones(3, f32))
    assert text.startswith("{ lambda a:f32[3]; b:bool[]")
    from jax._src.lax.control_flow import common
    assert "_dedup_consts(" in inspect.getsource(common._merge_common_consts)


@claim(CH10, "A single operand may be passed by keyword, `operand=`, JAX's older convention.")
def cond_takes_operand_by_keyword():
    got = []
    for _, _, lx, _ in LIBS:
        assert float(lx.cond(True, lambda x: x + 1, lambda x: x, operand=1.0)) == 2.0
        got.append(message(lambda: lx.cond(True, lambda x: x, lambda x: x, 2.0, operand=1.0)))
    assert got[0] == got[1] and "if 'operand' keyword is passed" in got[0]


@claim(CH10, 'an output every branch returns unchanged from one input is that input')
def cond_forwards_unchanged_outputs():
    text = same_text(lambda lib, np_, lx: lambda p, x, y: lx.cond(
        p, lambda x, y: (x, y * 2), lambda x, y: (x, -y), x, y), True, 1.0, 2.0)
    assert text.endswith("in (b, e) }")


def three_branches(lib, mj):
    return tuple(mj(lambda x, k=k: x * k)(1.0) for k in (1.0, 2.0, 3.0))


@claim(CH10, "the last for an index out of range, as StableHLO's `case` does")
def an_index_out_of_range_runs_the_last_branch():
    from autodidax.control_flow import cond_p
    for lib, p, mj in [(autodidax, cond_p, amj), (jax, jcond.cond_p, jax.make_jaxpr)]:
        branches = three_branches(lib, mj)
        bind = lambda i: p.bind(i, 1.0, branches=branches)[0]     # noqa: B023, E731
        for i in (-1, 5):
            assert float(bind(np.int32(i))) == 3.0
            assert float(lib.jit(bind)(np.int32(i))) == 3.0


@claim(CH10, '(`switch` clamps its index first)')
def switch_clamps():
    for _, _, lx, _ in LIBS:
        fs = [lambda: 1.0, lambda: 2.0, lambda: 3.0]
        assert [float(lx.switch(i, fs)) for i in (-1, 1, 5)] == [1.0, 2.0, 3.0]


@claim(CH10, "giving branch 0's output types, as JAX's `_cond_abstract_eval` does.")
def cond_output_takes_branch_0s_weak_type():
    for _, np_, lx, _ in LIBS:
        assert lx.cond(True, lambda: np_.float32(1), lambda: 1.0).weak_type     # branch 0: weak
        assert not lx.cond(True, lambda: 1.0, lambda: np_.float32(1)).weak_type


@claim(CH10, "That is, character for character, what `jax.make_jaxpr` prints for "
             "`jax.lax.cond`.")
def cond_prints_as_jax():
    same_text(lambda lib, np_, lx: lambda p, x: lx.cond(
        p, lambda x: np_.sin(x), lambda x: np_.cos(x) * 2.0, x), True, 1.0)


def guarded(lib, np_, lx):
    return lib.vmap(lambda p, x: lx.cond(p, lambda x: 1.0 / x, lambda x: x, x))


@claim(CH10, "as in JAX, the branch not taken still runs (a division by zero it guarded computes "
             "an `inf`)")
def both_branches_run_under_vmap():
    ps, xs = np.array([True, False]), f32([2.0, 0.0])
    text = same_text(guarded, ps, xs)
    assert "cond" not in text and "div" in text and "select_n" in text


@claim(CH10, "so, as JAX does, it is converted to the dtype it and the body's output promote to")
def a_weak_initial_carry_is_promoted():
    loop = lambda lx: lx.while_loop(lambda x: x < 10, lambda x: x * 1.5 + 1, 0)   # noqa: E731
    for _, _, lx, _ in LIBS:
        assert repr(loop(lx)) == "Array(13.1875, dtype=float32)"
    assert "] 0.0:f32[]" in same_text(lambda lib, np_, lx: lambda: loop(lx))


@claim(CH10, "The jaxprs' constants ride in the carry unchanged, as in JAX.")
def while_constants_ride_in_the_carry():
    w = f32([0.5, 2.0, 1.0])
    texts = [lib.jit(lambda x: lx.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * w),
                                            (0, x))).lower(np.ones(3, f32)).as_text()
             for lib, _, lx, _ in LIBS]
    assert texts[0] == texts[1] and "stablehlo.return %iterArg, %1, %2" in texts[0]


def power_loop(lx):
    return lambda x: lx.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * x), (0, x))[1]


@claim(CH10, "JAX refuses, pointing to `lax.scan`. `linearize` and `jvp` of a loop work")
def no_reverse_mode_through_while():
    got = []
    for lib, _, lx, _ in LIBS:
        assert float(lib.jvp(power_loop(lx), (2.0,), (1.0,))[1]) == 32.0
        assert float(lib.linearize(power_loop(lx), 2.0)[1](1.0)) == 32.0
        got.append(message(lambda: lib.grad(power_loop(lx))(2.0)))   # noqa: B023
    assert got[0] == got[1] and "Try using lax.scan" in got[0]


def cumulative(lib, np_, lx):
    return lambda xs: lx.scan(lambda c, x: (c + x, c), 0.0, xs)


@claim(CH10, "and JAX 0.10.2's parameters: `length`, `reverse` (iterate from the last row to the "
             "first), `unroll`")
def scan_parameters():
    names = [set(mj(cumulative(lib, np_, lx))(np.arange(3.0, dtype=f32)).jaxpr.eqns[0].params)
             for lib, np_, lx, mj in LIBS]
    assert names[0] == names[1] == {"jaxpr", "length", "reverse", "unroll", "num_consts",
                                    "num_carry"}


@claim(CH10, "a carry the body returns unchanged becomes a constant, and a `y` that is the slice "
             "`x` is not stacked again")
def scan_forwarding():
    text = same_text(lambda lib, np_, lx: lambda c, xs: lx.scan(lambda c, x: (c, x), c, xs),
                     1.0, np.arange(3.0, dtype=f32))
    assert "num_carry=0" in text and "num_consts=1" in text and text.endswith("in (a, b) }")


@claim(CH10, 'under `disable_jit()`, a Python loop, as in JAX')
def scan_under_disable_jit():
    for lib, np_, lx, _ in LIBS:
        seen = []
        with lib.disable_jit():
            lx.scan(lambda c, x: (seen.append(x) or c + x, c), 0.0, np_.arange(3.0))   # noqa: B023
        assert [float(x) for x in seen] == [0.0, 1.0, 2.0]                            # values


@claim(CH10, "values computed from them alone (the `cos w` of a `sin w`) are computed once, "
             "before the loop, as JAX hoists them")
def invariant_residuals_are_hoisted():
    xs = np.arange(1.0, 4.0, dtype=f32)
    f = lambda np_, lx: lambda w, xs: lx.scan(                               # noqa: E731
        lambda c, x: (c + np_.sin(w) * x, c), 0.0, xs)[0]
    ours = autodidax.linearize(f(anp, alax), 0.5, anp.asarray(xs))[1].jaxpr
    theirs = jax.make_jaxpr(jax.linearize(f(jnp, lax), 0.5, jnp.asarray(xs))[1])(0.5, xs)
    for closed in (ours, theirs):
        assert [np.shape(c) for c in closed.consts] == [(), (), (3,)]      # cos w, sin w, xs
        assert closed.jaxpr.eqns[0].params["num_consts"] == 3


def sin_chain(lib, np_, lx):
    return lambda c, xs: lx.scan(lambda c, x: (np_.sin(c) * x, c), c, xs)[0]


@claim(CH10, "# JAX stacks a copy of `xs` given as a NumPy array rather than forward it; so do "
             "we, so")
def numpy_xs_are_stacked_again():
    xs = np.arange(1.0, 4.0, dtype=f32)
    outs = []
    for as_array in (False, True):
        f = lambda lib, np_, lx: lib.grad(                                   # noqa: E731
            lambda c: sin_chain(lib, np_, lx)(c, np_.asarray(xs) if as_array else xs))  # noqa
        same_text(f, 0.5)
        outs.append(len(amj(f(autodidax, anp, alax))(0.5).jaxpr.eqns[0].outvars))
    assert outs == [4, 3]           # the known scan's outputs: with the copy of xs, without


@claim(CH10, "transpose a body whose carry inputs have those types, as JAX does")
def the_backward_scan_prints_as_jax():
    text = same_text(lambda lib, np_, lx: lib.grad(sin_chain(lib, np_, lx)), 0.5,
                     np.arange(1.0, 4.0, dtype=f32))
    assert "reverse=True" in text


@claim(CH10, "JAX never interprets a loop body: an eager loop is dispatched like any eager "
             "primitive (`dispatch.apply_primitive`)")
def jax_compiles_eager_control_flow():
    from jax._src import dispatch
    for p in (jloops.while_p, jloops.scan_p, jcond.cond_p):
        assert isinstance(p.impl, functools.partial) and p.impl.func is dispatch.apply_primitive


@claim(CH10, "linearized program may compute, inside one, an output that JAX's prunes "
           "(`_scan_dce_rule`)")
def no_dead_code_rule_for_scan():
    xs = np.arange(1.0, 4.0, dtype=f32)
    f = lambda lx: lambda c: lx.scan(lambda c, x: (c * x, c), c, xs)[0]     # noqa: E731
    ours = autodidax.linearize(f(alax), 0.5)[1].jaxpr.jaxpr.eqns
    theirs = jax.make_jaxpr(jax.linearize(f(lax), 0.5)[1])(0.5).jaxpr.eqns
    assert [len(e.outvars) for e in ours if e.primitive.name == "scan"] == [2]
    assert [len(e.outvars) for e in theirs if e.primitive.name == "scan"] == [1]
    from autodidax.autodiff import dce_rules
    from autodidax.control_flow import cond_p, scan_p
    assert scan_p not in dce_rules and cond_p not in dce_rules


@claim(CH10, "`associative_scan`, the parallel prefix scan, is appendix A27's.")
def no_associative_scan():
    from autodidax import control_flow, control_flow_reference, lax_rest
    assert not hasattr(control_flow, "associative_scan")
    assert not hasattr(control_flow_reference, "associative_scan")
    assert alax.associative_scan is lax_rest.associative_scan


# ---- appendix A10: control flow, the reference ----------------------------------------------

@claim(A10, "This is what JAX does too: under `vmap`, a `cond` with a batched predicate costs "
            "both branches, for every example.")
def batched_cond_prints_as_jax():
    text = same_text(guarded, np.array([True, False]), f32([2.0, 0.0]))
    assert text.count("stop_gradient") == 2


@claim(A10, "a branch sees the examples it does not serve through `stop_gradient`, as in JAX")
def batched_cond_gradients_have_no_nan():
    ps, xs = np.array([True, False]), f32([2.0, 0.0])
    for lib, np_, lx, _ in LIBS:
        g = lib.grad(lambda x: guarded(lib, np_, lx)(ps, x).sum())(xs)   # noqa: B023
        assert np.asarray(g).tolist() == [-0.25, 1.0]


@claim(A10, "value). JAX's rule does the same.")
def while_jvp_fixed_point():
    f = lambda lx: lambda x: lx.while_loop(                                 # noqa: E731
        lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] + c[2], x), (0, 0.0, 1.0))[1]
    for lib, _, lx, _ in LIBS:
        assert float(lib.jvp(f(lx), (2.0,), (1.0,))[1]) == 2.0        # a zero tangent grows
    same_text(lambda lib, np_, lx: lambda x: lib.jvp(power_loop(lx), (x,), (1.0,)), 2.0)


def double_until(lib, np_, lx):
    return lib.vmap(lambda x, limit: lx.while_loop(lambda c: c < limit, lambda c: c * 2.0, x),
                    (0, None))


@claim(A10, "its `while_p` accepts a `cond_jaxpr` that returns a whole batch of booleans, and its "
            "lowering rule adds the `reduce_or` and the selects.")
def jax_batches_the_while_predicate():
    xs = f32([1.0, 3.0, 20.0, 0.5])
    preds = [str(mj(double_until(lib, np_, lx))(xs, 10.0).jaxpr.eqns[-1]
                 .params["cond_jaxpr"].out_avals) for lib, np_, lx, mj in LIBS]
    assert preds == ["[ShapedArray(bool[])]", "[ShapedArray(bool[4])]"]
    text = jax.jit(double_until(jax, jnp, lax)).lower(xs, 10.0).as_text()
    assert "stablehlo.or" in text and "stablehlo.select" in text


@claim(A10, "JAX's lowering builds the same loop (it lowers the scan's own implementation")
def jax_lowers_scan_through_its_impl():
    source = re.sub(r"\s+", "", inspect.getsource(jloops))
    assert "register_lowering(scan_p,mlir.lower_fun(_scan_impl" in source


@claim(A10, "# fully unrolled: no loop at all, as in JAX")
def fully_unrolled_scan_has_no_loop():
    for lib, np_, lx, _ in LIBS:
        f = lambda xs: lx.scan(lambda t, x: (t + x, t + x), 0.0, xs, unroll=3)  # noqa: B023,E731
        assert "stablehlo.while" not in lib.jit(f).lower(np.ones(3, f32)).as_text()


@claim(A10, "(JAX merges residuals of the same type to save memory, and fills the slots a branch "
            "does not use with `empty`, uninitialized; we keep them apart, and write zeros.)")
def cond_residuals_kept_apart():
    x = f32([1.0, -2.0, 0.5])
    known = []
    for lib, np_, lx, mj in LIBS:
        f = lambda x: lx.cond(x.sum() > 0, np_.sin, np_.cos, x).sum()   # noqa: B023, E731
        eqns = [e for e in mj(lib.grad(f))(x).jaxpr.eqns if e.primitive.name == "cond"]
        known.append((len(eqns[0].outvars), str(eqns[0].params["branches"])))
    (ours, ours_text), (theirs, theirs_text) = known
    assert (ours, theirs) == (3, 2)
    assert "empty" in theirs_text and "empty" not in ours_text and "0.0:f32[]" in ours_text


@claim(A10, "(strongly typed, where the branch saw a weakly typed operand), as in JAX")
def cond_cotangents_typed_like_the_operand():
    reprs = [repr(lib.grad(lambda x: lx.cond(True, lambda y: y * 3.0, lambda y: y, x))(1.0))
             for lib, _, lx, _ in LIBS]
    assert reprs[0] == reprs[1]
    same_text(lambda lib, np_, lx: lib.grad(
        lambda x: lx.cond(x.sum() > 0, lambda x: x * 2.0, lambda x: x, x).sum()), f32([1.0, 2.0]))


@claim(A10, "it evaluates, compiles, batches and `jvp`s, but `grad` through it fails, as in JAX.")
def fori_with_a_traced_bound():
    got = []
    for lib, np_, lx, _ in LIBS:
        f = lambda x, n: lx.fori_loop(0, n, lambda i, c: np_.sin(c), x)      # noqa: B023, E731
        got.append(message(lambda: lib.jit(lib.grad(f))(0.5, 3)))              # noqa: B023
    assert got[0] == got[1] and got[0].startswith("ValueError: Reverse-mode")


@claim(A10, "typed integer (a Python int), as in JAX.")
def fori_counter_dtype():
    got = []
    for _, np_, lx, mj in LIBS:
        t = mj(lambda x, n: lx.fori_loop(0, n, lambda i, c: c * 2.0, x))(1.0, np.int16(5))  # noqa
        assert t.jaxpr.eqns[-1].outvars[0].aval.dtype == np.int16
        got.append(message(lambda: lx.fori_loop(np.int16(0), np.int32(3), lambda i, c: c, 1.0)))
    assert got[0] == got[1] and "must have equal types, got int16 and int32" in got[0]


@claim(A10, "that Python integer counter too, in JAX as here: both call `int` on a concrete "
            "bound.")
def fori_concrete_bounds_are_python_ints():
    text = same_text(lambda lib, np_, lx: lambda x: lx.fori_loop(
        np.int16(0), np.int16(3), lambda i, c: c * 2.0, x), 1.0)
    assert "0:i32[]" in text and "i16" not in text
    assert "lower_ = int(lower)" in inspect.getsource(jloops.fori_loop)


@claim(A10, "# JAX's name for the carry, which its errors print")
def fori_carry_errors_name_loop_carry():
    got = [message(lambda: lx.fori_loop(0, 3, lambda i, c: c + 1.5, np_.int32(1)))  # noqa: B023
           for _, np_, lx, _ in LIBS]
    assert got[0] == got[1] and "loop_carry[1] has type int32[]" in got[0]


@claim(A10, "The first jaxpr is a scan, the second a while loop: JAX's, for static and for traced "
            "bounds.")
def fori_loops_print_as_jax():
    assert "scan[" in same_text(lambda lib, np_, lx: lambda x: lx.fori_loop(
        0, 3, lambda i, c: c * 2.0, x), 1.0)
    assert "while[" in same_text(lambda lib, np_, lx: lambda x, n: lx.fori_loop(
        0, n, lambda i, c: c * 2.0, x), 1.0, 5)


@claim(A10, "`cond` and `switch` also accept JAX's older convention of one operand passed by "
            "keyword, `operand=`.")
def switch_takes_operand_by_keyword():
    for _, _, lx, _ in LIBS:
        assert float(lx.switch(1, [lambda x: x, lambda x: x + 1], operand=1.0)) == 2.0


@claim(A10, "and the rows left over in one more `vmap`, as JAX's does.")
def map_with_batch_size_prints_as_jax():
    for n, size in [(5, 2), (4, 2), (3, 5)]:
        same_text(lambda lib, np_, lx: lambda xs: lx.map(lambda r: r * 2.0, xs, batch_size=size),
                  np.ones((n, 2), f32))


@claim(A10, "The three are `lax`'s, as in JAX")
def fori_switch_map_are_lax():
    for _, _, lx, _ in LIBS:
        assert all(callable(getattr(lx, name)) for name in ("fori_loop", "switch", "map"))


@claim(A10, "A NumPy input returned as an output becomes an array of the library, as in JAX.")
def forwarded_numpy_inputs_become_arrays():
    xs = np.arange(3.0, dtype=f32)
    for lib, _, lx, _ in LIBS:
        _, ys = lx.scan(lambda c, x: (c, x), 1.0, xs)
        out = lx.cond(True, lambda x: x, lambda x: x, xs)
        assert isinstance(ys, lib.Array) and isinstance(out, lib.Array)


@claim(CH10, "As JAX's `_initial_style_jaxpr`, a function is traced once per input types")
def control_flow_traces_once_per_types():
    jax_caches_loop_tracing()


@claim(A10, "chapter 10 also caches the tracing, by the identity of the Python function, as JAX "
            "does.")
def jax_caches_loop_tracing():
    counts = []
    for _, _, lx, _ in LIBS:
        calls = []

        def body(c):
            calls.append(1)         # noqa: B023
            return c + 1

        def cond_fun(c):
            return c < 3
        lx.while_loop(cond_fun, body, 0)
        lx.while_loop(cond_fun, body, 0)
        counts.append(len(calls))
    assert counts == [1, 1]


@claim(A10, "JAX's, word for word, for a predicate that is not a scalar boolean or number, a trip "
            "count that `scan` cannot find, and a `scan` body that does not return its carry's "
            "types")
def jax_error_messages():
    cases = [lambda np_, lx: lx.cond(np_.ones(2) > 0, lambda: 1.0, lambda: 0.0),
             lambda np_, lx: lx.cond(None, lambda: 1.0, lambda: 0.0),
             lambda np_, lx: lx.scan(lambda c, x: (c, x), 0.0, np_.arange(3.0), length=4),
             lambda np_, lx: lx.scan(lambda c, x: (c, x), 0.0, 3.0),
             lambda np_, lx: lx.scan(lambda c, x: (c, x), 0.0, None),
             lambda np_, lx: lx.scan(lambda count, x: (count + x, x), np_.int32(0),
                                     np_.arange(3.0)),
             lambda np_, lx: lx.scan(lambda c, x: (c + 1.5, x), np_.int32(0), np_.arange(3.0)),
             lambda np_, lx: lx.while_loop(lambda c: 1, lambda c: c, 0),
             lambda np_, lx: lx.while_loop(lambda c: (c < 3, c < 3), lambda c: c, 0)]
    for case in cases:
        ours, theirs = [message(lambda: case(np_, lx)) for _, np_, lx, _ in LIBS]  # noqa: B023
        assert ours == theirs, (ours, theirs)


@claim(A10, "- **Some carry errors are ours.**")
def some_carry_errors_are_ours():
    for case in [lambda np_, lx: lx.while_loop(lambda c: c < 3, lambda c: 1.5, np_.int32(1)),
                 lambda np_, lx: lx.while_loop(lambda c: True, lambda c: (c, c), 0.0),
                 lambda np_, lx: lx.scan(lambda c, x: ((c, c), x), 0.0, np_.arange(3.0))]:
        ours, theirs = [message(lambda: case(np_, lx)) for _, np_, lx, _ in LIBS]  # noqa: B023
        assert ours != theirs and ours.split(":")[0] == theirs.split(":")[0] == "TypeError"


@claim(A10, "JAX compiles the whole `cond`, as it does any eager primitive, and runs it as one "
            "program.")
def an_eager_cond_runs_in_python_here():
    from autodidax.control_flow import _cond_impl, compiled_impls, cond_p
    from autodidax.core import impl_rules
    assert impl_rules[cond_p] is _cond_impl and cond_p not in compiled_impls
    assert jcond.cond_p.impl.func.__name__ == "apply_primitive"


@claim(A10, "exercise 2 writes JAX's `_cond_dce_rule`, which the package does not include.")
def no_dead_code_rule_for_cond():
    from autodidax.autodiff import dce_rules
    from autodidax.control_flow import cond_p
    assert jpe.dce_rules[jcond.cond_p] is jcond._cond_dce_rule and cond_p not in dce_rules


# ---- appendix A19: donation, and the rest of reverse mode -----------------------------------

def sgd(w, g):
    return w - 0.1 * g


@claim(A19, "refuses those that do not fit it, with JAX's words, as JAX's `resolve_argnums` "
            "does.")
def donation_arguments_checked_as_jax():
    for kw in (dict(donate_argnums=3), dict(donate_argnames="z")):
        ours, theirs = [message(lambda: lib.jit(sgd, **kw)) for lib, *_ in LIBS]  # noqa: B023
        assert ours == theirs and ours.startswith("ValueError: Jitted function has")


@claim(A19, "(`donation_vector`, JAX's name)")
def donation_vector_is_jaxs_name():
    from jax._src import api_util
    assert callable(api_util.donation_vector)


@functools.cache
def donated_and_reused():
    """Per library: whether the donated array was deleted, the errors of using it again in the
    same jitted function and in another, and whether a donated NumPy array stays usable."""
    out = []
    for lib, *_ in LIBS:
        x, g = lib.device_put(np.ones(4, f32)), lib.device_put(np.full(4, 0.5, f32))
        f = lib.jit(sgd, donate_argnums=0)
        f(x, g)
        same, other = message(lambda: f(x, g)), message(lambda: lib.jit(lambda a: a * 2)(x))  # noqa
        host = np.ones(4, f32)
        f(host, g)
        out.append((x.is_deleted(), same.split(":")[0], other.split(":")[0], host.sum() == 4))
    return out


@claim(A19, "JAX holds the caller to the promise: a donated array is deleted by the call, and "
            "using it afterwards is an error.")
def a_donated_array_is_deleted():
    for deleted, same, other, _ in donated_and_reused():
        assert deleted and same in ("RuntimeError", "ValueError") and other == "RuntimeError"


@claim(A19, "A NumPy array passed for a donated argument is copied to the device first, and the "
            "copy is donated, as in JAX.")
def a_donated_numpy_array_is_copied():
    assert all(host_intact for *_, host_intact in donated_and_reused())


@claim(A19, "deleted, its type is `DeletedArray`, where a deleted JAX array is still an "
            "`ArrayImpl` (`isinstance(x, jax.Array)` holds for both).")
def a_deleted_eager_array_keeps_being_an_array():
    names = []
    for lib, np_ in ((autodidax, anp), (jax, jnp)):
        x = np_.asarray(np.full(3, 2.0, np.float32))     # ours: on the host, NumPy-backed
        lib.jit(lambda v: v + 1, donate_argnums=0)(x)
        assert x.is_deleted() and isinstance(x, lib.Array)
        names.append(type(x).__name__)
    assert names == ["DeletedArray", "ArrayImpl"]


@claim(A19, "JAX raises it from Python, but its C++ fast path, for a signature it has run "
            "before, raises PJRT's `ValueError`")
def one_error_for_a_deleted_array():
    (_, ours_same, ours_other, _), (_, theirs_same, theirs_other, _) = donated_and_reused()
    assert (ours_same, ours_other) == ("RuntimeError", "RuntimeError")
    assert (theirs_same, theirs_other) == ("ValueError", "RuntimeError")


@claim(A19, "by the rule of JAX's `_set_up_aliases`")
def aliases_and_donors_as_jax():
    w, g = np.ones(4, f32), np.full(4, 0.5, f32)
    for lib, *_ in LIBS:
        assert "{tf.aliasing_output = 0 : i32}, %arg1: tensor<4xf32>)" in \
            lib.jit(sgd, donate_argnums=0).lower(w, g).as_text()
        assert "{jax.buffer_donor = true}" in \
            lib.jit(lambda w: w.reshape(2, 2), donate_argnums=0).lower(w).as_text()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.jit(lambda w: w.sum(), donate_argnums=0).lower(w)
        assert [str(c.message).split("\n")[0] for c in caught] == [
            "Some donated buffers were not usable: float32[4]."]


@claim(A19, "JAX's `jit_p` carries `donated_invars` through them. Under an enclosing `jit`, "
            "neither donates.")
def donation_at_the_top_only():
    w, g = np.ones(4, f32), np.full(4, 0.5, f32)
    inner = jax.make_jaxpr(lambda w, g: jax.jit(sgd, donate_argnums=0)(w, g))(w, g)
    assert inner.jaxpr.eqns[0].params["donated_invars"] == (True, False)
    ours = amj(lambda w, g: autodidax.jit(sgd, donate_argnums=0)(w, g))(w, g)
    assert set(ours.jaxpr.eqns[0].params) == {"jaxpr", "name", "inline"}
    for lib, *_ in LIBS:
        text = lib.jit(lambda w, g: lib.jit(sgd, donate_argnums=0)(w, g)).lower(w, g).as_text()
        assert "aliasing" not in text and "buffer_donor" not in text


@claim(A19, "A donated input that is dropped is neither aliased nor warned about, as in JAX.")
def unused_donated_inputs():
    w, g = np.ones(4, f32), np.full(4, 0.5, f32)
    texts = []
    for lib, *_ in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("error")      # no warning either
            texts.append(lib.jit(lambda w, g: g * 2, donate_argnums=0).lower(w, g).as_text())
    assert texts[0] == texts[1] and "%arg1" not in texts[1] and "aliasing" not in texts[1]


@claim(A19, "JAX's order: `grad`'s `argnums` must name positional arguments the caller passed "
            "(`argnums`); the inputs must be floats or complex numbers unless `allow_int`, and "
            "complex ones if `holomorphic` (`inputs`), checked before the function runs; then "
            "`grad`'s output must be a scalar (`scalar`), then a float, or a complex number if "
            "`holomorphic` (`outputs`; `jacrev` checks this too). These raise JAX's messages.")
def grad_errors_in_jaxs_order_and_words():
    cases = [lambda lib: lib.grad(lambda x, y: x * y, argnums=1)(np.int32(1)),
             lambda lib: lib.grad(lambda x: x * 2)(np.ones(2, np.int32)),
             lambda lib: lib.grad(lambda x: x * 2.0)(np.ones(2, f32)),
             lambda lib: lib.grad(lambda x: x > 0)(1.0),
             lambda lib: lib.grad(lambda x: x * 1j)(1.0),
             lambda lib: lib.grad(lambda x: x, holomorphic=True)(1.0),
             lambda lib: lib.grad(lambda x: x.real, holomorphic=True)(1j),
             lambda lib: lib.jacrev(lambda x: x * 1j)(np.ones(2, f32)),
             lambda lib: lib.jacfwd(lambda x: x)(np.ones(2, np.complex64)),
             lambda lib: lib.jacfwd(lambda x: x.real, holomorphic=True)(np.ones(2, np.complex64))]
    for case in cases:
        ours, theirs = [message(lambda: case(lib)) for lib, *_ in LIBS]   # noqa: B023
        assert ours == theirs, (ours, theirs)


@claim(A19, "for an integer output, whose tangent is `float0`, JAX accepts any dtype of the "
            "right shape, and so do we. That error is worded our way, shorter than JAX's.")
def cotangents_of_integer_outputs():
    for lib, *_ in LIBS:
        f_vjp = lib.vjp(lambda x: (x * 2, 1), 1.0)[1]
        assert float(f_vjp((1.0, 0))[0]) == 2.0
        with pytest.raises(ValueError):
            f_vjp((1.0, np.zeros(2)))
    ours, theirs = [message(lambda: lib.vjp(np_.sin, 1.0)[1](np.ones(2, f32)))  # noqa: B023
                    for lib, np_, *_ in LIBS]
    assert ours != theirs
    assert theirs.startswith("ValueError: unexpected JAX type (e.g. shape/dtype) for argument to "
                             "VJP function")


@claim(A19, "because each input is added into every sum from its own position on (JAX's rule)")
def cumsum_transposes_into_a_reverse_cumsum():
    for lib, np_, lx, mj in LIBS:
        text = str(mj(lib.grad(lambda x: np_.cumsum(x).sum()))(np.ones(3, f32)))   # noqa: B023
        assert "cumsum[axis=0 reverse=True]" in text


@claim(A19, "This is JAX's `_pad_transpose`, except when only the padding value is "
            "differentiated, where JAX's rule fails.")
def pad_transpose():
    x = np.ones(3, f32)
    pad = lambda lx: lambda v: lx.pad(x, v, [(1, 1, 1)]).sum()     # noqa: E731
    assert float(autodidax.grad(pad(alax))(f32(2.0))) == 4.0
    with pytest.raises(TypeError):
        jax.grad(pad(lax))(f32(2.0))
    both = [lib.grad(lambda x, v: lx.pad(x, v, [(1, 1, 1)]).sum(), (0, 1))(x, f32(2.0))  # noqa
            for lib, _, lx, _ in LIBS]
    assert [np.asarray(a).tolist() for a in both[0]] == [np.asarray(a).tolist() for a in both[1]]


@claim(CH09, "returns the complex derivative $f'(z)$ ($6+8i$ for $z^2$ at $3+4i$)")
def holomorphic_derivative():
    for lib in (autodidax, jax):
        assert complex(lib.grad(lambda z: z ** 2, holomorphic=True)(3.0 + 4j)) == 6 + 8j


@claim(CH09, "the conjugate of the usual gradient: $6-8i$ for $|z|^2$ at $3+4i$ (JAX's convention)")
def complex_gradient_is_the_conjugate():
    for lib, np_ in [(autodidax, anp), (jax, jnp)]:
        assert complex(lib.grad(lambda z: np_.abs(z) ** 2)(3.0 + 4j)) == 6 - 8j


@claim(A19, "The complex parts transpose as JAX's do, adding no conjugation")
def complex_transposes():
    def f(np_):
        return lambda z, w: np_.real(z) * np_.imag(w) + np_.real(np_.conj(z) * w)
    args = (np.complex64(1 + 2j), np.complex64(3 - 1j))
    ours, theirs = (str(lib.make_jaxpr(lib.grad(f(np_), argnums=(0, 1)))(*args))
                    for lib, np_ in [(autodidax, anp), (jax, jnp)])
    assert ours == theirs, (ours, theirs)


test_claims = claims_test(__name__)
