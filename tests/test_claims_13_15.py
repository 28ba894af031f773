"""Claims of chapters 13 (custom rules), 14 (checkpoint), 15 (callbacks) and appendices A13
(custom checks) and A21 (error texts), checked against the real JAX (see tests/claims.py)."""
import contextlib
import inspect
import io
import re
import threading
import time

import numpy as np
import pytest

import autodidax
import autodidax.numpy as anp
import jax
import jax.numpy as jnp
from autodidax import ad_checkpoint as a_ckpt
from autodidax import custom as a_custom
from autodidax.experimental import io_callback as a_io_callback
from jax import ad_checkpoint as j_ckpt
from jax.experimental import io_callback as j_io_callback

import functools

from claims import claim as _claim, claims_test


def claim(chapter, quote):
    """`claims.claim`, with the check run once however many sentences it checks."""
    def register(check):
        once = _ONCE.setdefault(check, functools.cache(check))
        _claim(chapter, quote)(once)
        return check
    return register


_ONCE = {}

CH13, CH14, CH15 = "13_custom", "14_checkpoint", "15_callbacks"
A13, A21 = "A13_custom_checks", "A21_error_texts"
LIBS = [(autodidax, anp), (jax, jnp)]
IO = {autodidax: a_io_callback, jax: j_io_callback}
F32 = np.float32


def both(program):
    """`program(lib, np_)` for autodidax and for JAX: the two results."""
    return [program(lib, np_) for lib, np_ in LIBS]


def same(program):
    ours, theirs = both(program)
    assert ours == theirs, (ours, theirs)
    return ours


def text(jaxpr):
    return re.sub(r"0x[0-9a-fA-FX]+", "0x", str(jaxpr))


def error(f):
    try:
        f()
    except Exception as e:      # noqa: BLE001  (any error: its type and message compared)
        return type(e).__name__, str(e).split("\nSee https://docs.jax.dev")[0]
    return None


def printed(f, lib):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        f()
        if lib is jax:
            jax.effects_barrier()
    return buf.getvalue()


# ---- chapter 13: custom_jvp and custom_vjp -------------------------------------------------

def _log1pexp(lib, np_):
    f = lib.custom_jvp(lambda x: np_.log(1.0 + np_.exp(x)))
    f.__name__ = "log1pexp"
    f.defjvps(lambda t, ans, x: t / (1.0 + np_.exp(-x)))
    return f


def _g_vjp(lib, np_):
    @lib.custom_vjp
    def g(x, y):
        return np_.sin(x) * y
    g.defvjp(lambda x, y: (g(x, y), (np_.cos(x), x, y)),
             lambda r, ct: (r[0] * r[2] * ct, np_.sin(r[1]) * ct))
    return g


@claim(CH13, "Where JAX gives each trace a method (`process_custom_jvp_call`), we use the tables "
             "we have")
@claim(CH13, "JAX gives each trace the methods `process_custom_jvp_call` and "
             "`process_custom_vjp_call`; we register rules in the tables")
def trace_methods_against_tables():
    from jax._src import core
    from jax._src.interpreters import ad, batching, partial_eval as pe
    for trace in (core.EvalTrace, ad.JVPTrace, batching.BatchTrace, pe.DynamicJaxprTrace,
                  pe.JaxprTrace):
        assert {"process_custom_jvp_call", "process_custom_vjp_call"} <= set(vars(trace))
    from autodidax.batching import fancy_batching_rules
    from autodidax.jaxpr import custom_staging_rules
    from autodidax.jvp import jvp_rules
    for p in (a_custom.custom_jvp_call_p, a_custom.custom_vjp_call_p):
        assert p in jvp_rules and p in fancy_batching_rules and p in custom_staging_rules


@claim(CH13, "Its `bind` (JAX's class overrides `bind_with_trace` likewise) calls `fun` when "
             "nothing is traced, there being nothing to differentiate, as JAX's "
             "`EvalTrace.process_custom_jvp_call` does")
def eager_calls_run_fun_not_the_rule():
    from jax._src import custom_derivatives as cd
    assert "bind_with_trace" in vars(cd.CustomJVPCallPrimitive)
    assert "get_bind_params" in vars(cd.CustomJVPCallPrimitive)

    def program(lib, np_):
        calls = []
        f = lib.custom_jvp(lambda x: x * 2)
        f.defjvp(lambda p, t: (calls.append("rule"), (f(*p), t[0] * 2))[1])
        f(1.0)
        return calls
    assert same(program) == []


@claim(CH13, "an array passed there is cut off from differentiation with `stop_gradient`, as "
             "JAX does")
def nondiff_arrays_get_no_gradient():
    def program(lib, np_):
        h = lib.custom_jvp(lambda c, x: c * x, nondiff_argnums=(0,))
        h.defjvp(lambda c, p, t: (c * p[0], c * t[0]))
        return float(lib.grad(lambda c: h(c, 2.0))(3.0)), float(lib.grad(lambda x: h(3.0, x))(2.0))
    assert same(program) == (0.0, 3.0)


@claim(CH13, "Keyword arguments are first made positional by the function's signature, defaults "
             "filled in (A13's `resolve_call_kwargs`, JAX's `resolve_kwargs`), so the rule sees "
             "one primal per parameter")
def keywords_become_positions():
    from jax._src import api_util
    assert callable(api_util.resolve_kwargs)

    def program(lib, np_):
        seen = []
        m = lib.custom_jvp(lambda x, y=2.0: x * y)
        m.defjvp(lambda p, t: (seen.append(len(p)), (m(*p), t[0] * p[1]))[1])
        return tuple(map(float, lib.jvp(lambda x: m(x), (1.0,), (1.0,)))), seen
    assert same(program) == ((2.0, 2.0), [2])


@claim(CH13, "records an equation with JAX's params: `call_jaxpr`, the rule as `jvp_jaxpr_fun` (a "
             "Python callable: JAX too keeps a thunk there), `num_consts` and `symbolic_zeros`.")
@claim(CH13, "Appendix A13's `custom_jvp_call_pp` prints the equation as JAX does.")
@claim(CH13, "JAX's `make_jaxpr(grad(log1pexp))` prints the same text.")
def custom_jvp_call_params_and_text():
    from jax._src import linear_util as lu
    eqn = jax.make_jaxpr(_log1pexp(jax, jnp))(1.0).jaxpr.eqns[0]
    assert set(eqn.params) == {"call_jaxpr", "jvp_jaxpr_fun", "num_consts", "symbolic_zeros"}
    assert isinstance(eqn.params["jvp_jaxpr_fun"], lu.WrappedFun)
    ours = autodidax.make_jaxpr(_log1pexp(autodidax, anp))(1.0).jaxpr.eqns[0]
    assert callable(ours.params["jvp_jaxpr_fun"])
    same(lambda lib, np_: text(lib.make_jaxpr(_log1pexp(lib, np_))(1.0)))
    same(lambda lib, np_: text(lib.make_jaxpr(lib.grad(_log1pexp(lib, np_)))(1.0)))


@claim(CH13, "so the lowering forgets the rule and lowers the call jaxpr inline, as JAX does.")
def lowered_inline():
    def program(lib, np_):
        t = lib.jit(_log1pexp(lib, np_)).lower(F32(1.0)).as_text()
        return re.findall(r"stablehlo\.\w+|func\.call|custom_call", t)
    assert "stablehlo.exponential" in same(program)


@claim(CH13, "partial evaluation (chapter 9) runs `fun`, as JAX's "
             "`JaxprTrace.process_custom_jvp_call` does")
def partial_eval_runs_fun():
    from jax._src.interpreters import partial_eval as pe
    source = inspect.getsource(pe.JaxprTrace.process_custom_jvp_call)
    assert "del jvp" in source and "return fun.call_wrapped(*tracers)" in source


@claim(CH13, "under plain `jvp` nobody transposes, and evaluating `custom_lin` is an error, as in "
             "JAX.")
@claim(CH13, "lowering rules all raise JAX's error (A13's `custom_lin_error`)")
def forward_mode_of_custom_vjp_is_refused():
    def program(lib, np_):
        g = _g_vjp(lib, np_)
        return (error(lambda: lib.jvp(lambda x: g(x, 2.0), (1.0,), (1.0,))),
                error(lambda: lib.jacfwd(lambda x: g(x, 2.0))(np_.ones(2))),
                error(lambda: lib.jit(lambda x: lib.jvp(lambda x: g(x, 2.0), (x,), (x,)))(1.0)))
    msg = ("TypeError", "can't apply forward-mode autodiff (jvp) to a custom_vjp function.")
    assert same(program) == (msg, msg, msg)


@claim(CH13, "where a tracer of the forward pass means nothing: JAX raises "
             "`UnexpectedTracerError`, and so do we.")
def nondiff_tracers_of_custom_vjp():
    def program(lib, np_):
        k = lib.custom_vjp(lambda c, x: c * x, nondiff_argnums=(0,))
        k.defvjp(lambda c, x: (c * x, None), lambda c, r, ct: (c * ct,))
        return error(lambda: lib.grad(lambda c: k(c, 2.0))(3.0))
    name, msg = same(program)
    assert name == "UnexpectedTracerError" and "nondiff_argnums" in msg


@claim(CH13, "the equation keeps `fwd` (as `fwd_jaxpr_thunk`, JAX's name), `bwd` and "
             "`out_trees`.")
@claim(CH13, "summed over the batch if the argument was not batched (JAX's "
             "`_match_axes_and_sum`).")
def custom_vjp_call_params_and_batching():
    from jax._src.interpreters import batching
    eqn = jax.make_jaxpr(_g_vjp(jax, jnp))(1.0, 2.0).jaxpr.eqns[0]
    assert {"fwd_jaxpr_thunk", "bwd", "out_trees"} <= set(eqn.params)
    ours = autodidax.make_jaxpr(_g_vjp(autodidax, anp))(1.0, 2.0).jaxpr.eqns[0]
    assert {"fwd_jaxpr_thunk", "bwd", "out_trees"} <= set(ours.params)
    assert callable(batching._match_axes_and_sum)

    def program(lib, np_):
        g = _g_vjp(lib, np_)
        v = np_.arange(3.0)
        gx, gy = lib.grad(lambda x, y: lib.vmap(g, in_axes=(0, None))(x, y).sum(),
                          argnums=(0, 1))(v, 2.0)
        return np.asarray(gx).round(5).tolist(), round(float(gy), 5)
    same(program)


@claim(CH13, "JAX keeps `fun` and the rules as `lu.WrappedFun`s, with their debugging "
             "information, and stages a rule lazily, as a memoized thunk")
def rules_are_wrapped_funs():
    from jax._src import linear_util as lu
    from jax._src.interpreters import partial_eval as pe
    eqn = jax.make_jaxpr(_g_vjp(jax, jnp))(1.0, 2.0).jaxpr.eqns[0]
    assert isinstance(eqn.params["fwd_jaxpr_thunk"], lu.WrappedFun)
    assert isinstance(eqn.params["bwd"], lu.WrappedFun)
    assert "@_memoize" in inspect.getsource(pe.DynamicJaxprTrace.process_custom_jvp_call)
    ours = autodidax.make_jaxpr(_g_vjp(autodidax, anp))(1.0, 2.0).jaxpr.eqns[0]
    assert all(inspect.isfunction(ours.params[k]) for k in ("fwd_jaxpr_thunk", "bwd"))


@claim(CH13, "JAX keeps the batch dimensions `fun` produces, and unbatched outputs unbatched "
             "where it can. The values are the same, but `out_axes=None` for an unbatched "
             "output fails here.")
def unbatched_outputs():
    def program(lib, np_):
        f = lib.custom_jvp(lambda x, y: (x * 2, y))
        f.defjvp(lambda p, t: (f(*p), (t[0] * 2, t[1])))
        return (np.asarray(lib.vmap(f, in_axes=(0, None))(np_.ones(3), 1.0)[1]).tolist(),
                error(lambda: lib.vmap(f, in_axes=(0, None), out_axes=(0, None))(np_.ones(3),
                                                                                 1.0)))
    ours, theirs = both(program)
    assert ours[0] == theirs[0] == [1.0] * 3
    assert theirs[1] is None and ours[1][0] == "ValueError"


@claim(CH13, "JAX's flattened `fwd` does not return the residuals that are simply its inputs "
             "(`_filter_forwarded_inputs`): the JVP rule takes those from the primals. Ours "
             "returns every residual. `custom_lin` gets the same operands, and the jaxprs are "
             "the same.")
def forwarded_residuals():
    from jax._src import custom_derivatives as cd
    assert callable(cd._filter_forwarded_inputs)
    same(lambda lib, np_: text(lib.make_jaxpr(
        lambda x: lib.linearize(lambda x: _g_vjp(lib, np_)(x, 2.0), x)[1](x))(1.0)))
    same(lambda lib, np_: text(lib.make_jaxpr(lib.grad(lib.jit(_g_vjp(lib, np_))))(1.0, 2.0)))


@claim(CH13, "`custom_vjp` has no `optimize_remat` (it raises `NotImplementedError`), neither "
             "function takes `nondiff_argnames`, and JAX's experimental `jax_custom_vjp3` path "
             "is not built.")
def fewer_options():
    for cls in (jax.custom_jvp, jax.custom_vjp):
        assert "nondiff_argnames" in inspect.signature(cls.__init__).parameters
    for cls in (autodidax.custom_jvp, autodidax.custom_vjp):
        assert "nondiff_argnames" not in inspect.signature(cls.__init__).parameters
    assert "optimize_remat" in inspect.signature(jax.custom_vjp.defvjp).parameters
    assert hasattr(jax.config, "jax_custom_vjp3")
    f = autodidax.custom_vjp(lambda x: x)
    with pytest.raises(NotImplementedError):
        f.defvjp(lambda x: (x, None), lambda r, ct: (ct,), optimize_remat=True)


# ---- appendix A13: the checks of custom rules ----------------------------------------------

def _mistakes(lib, np_):
    v = np_.arange(3.0)
    bad_tangent = lib.custom_jvp(lambda x: np_.sin(x))
    bad_tangent.defjvp(lambda p, t: (bad_tangent(p[0]), np_.zeros(2)))
    bad_bwd = lib.custom_vjp(lambda x, y: x * y)
    bad_bwd.defvjp(lambda x, y: (bad_bwd(x, y), y), lambda y, ct: (ct * y,))
    bad_shape = lib.custom_vjp(lambda x: 2.0 * x)
    bad_shape.defvjp(lambda x: (bad_shape(x), None), lambda _, ct: (np_.ones(3),))

    def notpair(x):
        return x
    notpair = lib.custom_jvp(notpair)
    notpair.defjvp(lambda p, t: p[0])

    def fwdnotpair(x):
        return x
    fwdnotpair = lib.custom_vjp(fwdnotpair)
    fwdnotpair.defvjp(lambda x: x, lambda r, ct: (ct,))
    return [error(f) for f in [
        lambda: lib.jvp(bad_tangent, (v,), (v,)), lambda: lib.grad(bad_bwd)(1.0, 2.0),
        lambda: lib.grad(bad_shape)(1.0), lambda: lib.custom_jvp(lambda x: x)(1.0),
        lambda: lib.jvp(notpair, (1.0,), (1.0,)), lambda: lib.grad(fwdnotpair)(1.0)]]


@claim(A13, "JAX checks what they return, with its exception classes and messages, which ours "
            "match word for word")
@claim(A13, "None in the messages.")
def the_messages_are_jaxs():
    assert all(same(_mistakes))


@claim(A13, "JAX prints a `custom_jvp_call` equation with the function's name first, then the "
            "call jaxpr, the rule by its name, and `symbolic_zeros`; `num_consts` only when it is "
            "not zero.")
@claim(A13, "`num_consts` (again only when it is not zero)")
def num_consts_printed_when_nonzero():
    def program(lib, np_):
        def outer(c):
            f = lib.custom_jvp(lambda x: x * c)
            f.defjvp(lambda p, t: (f(*p), t[0] * c))
            g = lib.custom_vjp(lambda x: x * c)
            g.defvjp(lambda x: (g(x), None), lambda r, ct: (ct * c,))
            return f(2.0) + g(2.0)
        return text(lib.make_jaxpr(outer)(3.0)), text(lib.make_jaxpr(_g_vjp(lib, np_))(1.0, 2.0))
    closing, plain = same(program)
    assert closing.count("num_consts=1") == 2 and "num_consts" not in plain


# ---- chapter 14: checkpoint ----------------------------------------------------------------

def _f(np_):
    def f(x):
        y = np_.sin(x)
        z = np_.sin(y)
        return np_.sum(z * x)
    return f


def _saved(lib, f, *args):
    mod = a_ckpt if lib is autodidax else j_ckpt
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        mod.print_saved_residuals(f, *args)
    return buf.getvalue()


@claim(CH14, "JAX prints the same four lines, with the file's full path where ours prints its "
             "base name.")
@claim(CH14, "`print_saved_residuals` names the file by its base name, `file.py:LINE:COLUMN "
             "(function)`; JAX prints the file's full path.")
def saved_residuals_lines():
    ours, theirs = both(lambda lib, np_: _saved(lib, _f(np_), np_.ones(3)))
    assert len(ours.splitlines()) == 4 and __file__ in theirs and __file__ not in ours
    assert theirs.replace(__file__, __file__.rsplit("/", 1)[1]) == ours


@claim(CH14, "a new primitive, JAX's `remat2`")
@claim(CH14, "That is JAX's jaxpr, character for character.")
@claim(CH14, "and recomputes each sine and cosine just before the tangent arithmetic that needs "
             "it, as in JAX's jaxpr")
def remat2_jaxprs():
    same(lambda lib, np_: text(lib.make_jaxpr(lib.checkpoint(_f(np_)))(np_.ones(3))))
    assert "remat2[" in same(lambda lib, np_: text(
        lib.make_jaxpr(lib.grad(lib.checkpoint(_f(np_))))(np_.ones(3))))
    same(lambda lib, np_: text(lib.make_jaxpr(
        lambda x: lib.linearize(lib.checkpoint(_f(np_)), x)[1](x))(np_.ones(3))))


@claim(CH14, "As in JAX, the jaxpr's constants become leading inputs of the equation, so that its "
           "jaxpr is *open*")
def constants_become_inputs():
    def program(lib, np_):
        c = np_.arange(3.0)
        return text(lib.make_jaxpr(lib.checkpoint(lambda x: x * c))(np_.ones(3)))
    assert "] a b" in same(program)


@claim(CH14, "JAX's are functions or frozen dataclasses (so that equal policies compare equal "
             "and the primitive's parameters stay hashable)")
def policies_are_frozen_dataclasses():
    p = jax.checkpoint_policies
    assert inspect.isfunction(p.nothing_saveable) and inspect.isfunction(p.everything_saveable)
    for policy in (p.dots_saveable, p.save_only_these_names("a"), p.save_any_names_but_these("a")):
        assert policy.__dataclass_params__.frozen
    assert p.save_only_these_names("a") == p.save_only_these_names("a")
    q = a_ckpt.checkpoint_policies
    assert q.save_only_these_names("a") == q.save_only_these_names("a")


@claim(CH14, "`dots_with_no_batch_dims_saveable` only those without batch dimensions")
@claim(CH14, "`nothing_saveable`, the default: save only the inputs of the checkpointed function")
def dot_policies():
    def program(lib, np_):
        policies = a_ckpt.checkpoint_policies if lib is autodidax else jax.checkpoint_policies
        def mm(x, w):
            return np_.sum(np_.sin(np_.einsum("bij,bjk->bik", x, w)))
        x = np_.ones((2, 2, 2))
        return [len(_saved(lib, lib.checkpoint(mm, policy=p), x, x).splitlines())
                for p in (None, policies.dots_with_no_batch_dims_saveable,
                          policies.dots_saveable)]
    assert same(program) == [2, 2, 3]


@claim(CH14, "Its JVP names the primal, not the tangent")
@claim(CH14, "nothing to name outside a transformation: `x` itself, as JAX")
def checkpoint_name_rules():
    checkpoint_name = j_ckpt.checkpoint_name
    x, y = jnp.ones(3), anp.ones(3)
    assert checkpoint_name(x, "n") is x and a_ckpt.checkpoint_name(y, "n") is y

    def program(lib, np_):
        name = a_ckpt.checkpoint_name if lib is autodidax else checkpoint_name
        return text(lib.make_jaxpr(lambda x: lib.jvp(lambda x: name(np_.sin(x), "n"), (x,),
                                                     (x,)))(np_.ones(3)))
    assert same(program).count("name[name=n]") == 1


@claim(CH14, "so that the staged jaxpr reads as JAX's.")
@claim(CH14, "a saved residual that the forward pass also uses is passed through "
             "`reduce_precision` at its own precision")
def named_policy_jaxpr():
    def program(lib, np_):
        mod = a_ckpt if lib is autodidax else j_ckpt
        def g(x):
            y = mod.checkpoint_name(np_.sin(x), "y")
            return np_.sum(np_.sin(y) * x)
        policy = mod.checkpoint_policies.save_only_these_names("y")
        return text(lib.make_jaxpr(lib.grad(lib.checkpoint(g, policy=policy)))(np_.ones(3)))
    assert "reduce_precision" in same(program)


@claim(CH14, "an equation that is there for its effect (chapter 15's `debug.print`) is recomputed "
             "too: it happens in the forward pass and again in the backward pass")
def prints_are_recomputed():
    def program(lib, np_):
        def printer(x):
            lib.debug.print("p {}", x)
            return np_.sin(x)
        return printed(lambda: lib.grad(lib.checkpoint(printer))(1.0), lib)
    assert same(program) == "p 1.0\np 1.0\n"


@claim(CH14, "so, like JAX, the rule refuses to split a function with such an effect.")
@claim(CH14, "(JAX keeps the opposite list, `effects.remat_allowed_effects`, of the effect types "
             "it allows)")
@claim(CH15, "so the two tables above tell chapters 9 and 14, and `checkpoint` refuses, as in JAX")
def checkpoint_refuses_io_effects():
    from jax._src import effects
    assert isinstance(effects.remat_allowed_effects, effects.EffectTypeSet)

    def program(lib, np_):
        def logs(x):
            IO[lib](lambda: None, None, ordered=True)
            return np_.sin(x)
        name, msg = error(lambda: lib.grad(lib.checkpoint(logs))(1.0))
        return name, msg.split("[")[0], "OrderedIOEffect" in msg
    assert same(program)[0] == "NotImplementedError"


@claim(CH14, "As in JAX, cotangents known to be zero are neither passed in nor returned.")
def zero_cotangents_are_dropped():
    def program(lib, np_):
        def two(x):
            return np_.sin(x), np_.cos(x)
        return text(lib.make_jaxpr(lib.grad(lambda x: lib.checkpoint(two)(x)[0].sum()))(
            np_.ones(3)))
    assert "] a c" in same(program)


@claim(CH14, "The program is JAX's, line for line: the barrier on `x` and the cotangent `1.0`, "
             "then the recomputation from the barrier's results; the forward pass, whose output "
             "`grad` drops, is pruned.")
def checkpointed_gradient_program():
    same(lambda lib, np_: lib.jit(lib.grad(lib.checkpoint(_f(np_)))).lower(np_.ones(3)).as_text())


@claim(CH14, "for `differentiated=True` with `prevent_cse=True` (the default), JAX passes the "
             "inputs of the recomputation through a `stablehlo.optimization_barrier`")
def barriers_and_the_discarded_forward_pass():
    """...and the forward pass whose output `grad` drops is pruned before lowering by both."""
    def program(lib, np_, prevent_cse):
        t = lib.jit(lib.grad(lib.checkpoint(_f(np_), prevent_cse=prevent_cse))).lower(
            np_.ones(3)).as_text()
        return t.count("optimization_barrier"), t.count("stablehlo.sine")
    ours, theirs = both(lambda lib, np_: program(lib, np_, True))
    assert ours == theirs and ours[0] == 1
    assert [r[0] for r in both(lambda lib, np_: program(lib, np_, False))] == [0, 0]


@claim(CH14, "JAX's programs report the same sizes (`benchmarks/checkpoint.py` compares them)")
@claim(CH14, "the same network *grows* on XLA's CPU backend, with JAX as with us")
def memory_sizes():
    def program(lib, np_):
        rng = np.random.default_rng(0)
        ws = np_.asarray(rng.standard_normal((4, 16, 16), F32) / 4)
        h0 = np_.asarray(rng.standard_normal((16, 16), F32))
        lax = autodidax.lax if lib is autodidax else jax.lax

        def layer(h, w):
            return np_.tanh(h @ w), None

        def scanned(body):
            return lambda ws, h: np_.sum(lax.scan(body, h, ws)[0] ** 2)

        def looped(body):
            def loss(ws, h):
                for i in range(4):
                    h = body(h, ws[i])[0]
                return np_.sum(h ** 2)
            return loss
        return [lib.jit(lib.grad(make(body))).lower(ws, h0).compile().memory_analysis()
                .temp_size_in_bytes for make in (scanned, looped)
                for body in (layer, lib.checkpoint(layer))]
    scan_plain, scan_ckpt, loop_plain, loop_ckpt = same(program)
    assert scan_ckpt < scan_plain and loop_ckpt > loop_plain


@claim(CH14, "and has a rule for each higher-order primitive, so that it can save a "
             "`dot_general` *inside* a nested `jit` or `scan`.")
@claim(CH14, "a nested `jit` is one equation to it, saved or recomputed whole.")
def dots_inside_a_nested_jit():
    def program(lib, np_):
        policies = a_ckpt.checkpoint_policies if lib is autodidax else jax.checkpoint_policies
        def mm(x, w):
            return np_.sum(np_.sin(lib.jit(lambda a, b: a @ b)(x, w)))
        x = np_.ones((2, 2))
        return _saved(lib, lib.checkpoint(mm, policy=policies.dots_saveable), x, x)
    ours, theirs = both(program)
    assert "output of jitted function" in theirs and "output of" not in ours


@claim(CH14, "prunes inside `jit` and `remat2` equations, as JAX's `dce_rules` do, but keeps or "
             "drops a `cond` or a `scan` whole, where JAX prunes inside those too.")
def dce_rules():
    from jax._src import ad_checkpoint, pjit
    from jax._src.interpreters import partial_eval as pe
    from jax._src.lax.control_flow import conditionals, loops
    assert all(p in pe.dce_rules for p in (pjit.jit_p, ad_checkpoint.remat_p, loops.scan_p,
                                           conditionals.cond_p))
    from autodidax import control_flow
    from autodidax.autodiff import dce_rules as ours
    from autodidax.jit import jit_p
    assert jit_p in ours and a_ckpt.remat_p in ours
    assert control_flow.cond_p not in ours and control_flow.scan_p not in ours


@claim(CH14, "`static_argnames` is accepted and, as in JAX 0.10.2's default `checkpoint`, not "
             "used.")
def static_argnames_unused():
    from jax._src import ad_checkpoint
    source = inspect.getsource(ad_checkpoint.checkpoint)
    assert "static_argnames" not in source.split("def fun_remat")[1]   # only remat3's path
    for lib, _ in LIBS:
        f = lib.checkpoint(lambda x, n: x * 2 if n else x, static_argnames="n")
        with pytest.raises(Exception):
            f(1.0, n=True)              # `n` is traced all the same


@claim(CH14, "**Offloading policies** (`offload_dot_with_no_batch_dims`, "
             "`save_and_offload_only_these_names`)")
def offloading_policies():
    for name in ("offload_dot_with_no_batch_dims", "save_and_offload_only_these_names"):
        assert hasattr(jax.checkpoint_policies, name)
        assert not hasattr(a_ckpt.checkpoint_policies, name)


# ---- chapter 15: callbacks -----------------------------------------------------------------

def _np_sin(lib):
    return lambda x: lib.pure_callback(np.sin, lib.ShapeDtypeStruct(x.shape, x.dtype), x)


@claim(CH15, "in a jaxpr it is one equation whose parameters, printed as JAX's, hold the "
             "function")
@claim(CH15, "The others are the declared result avals, `sharding` (always `None` here) and "
             "`vmap_method`.")
def pure_callback_equation():
    from jax._src import callback
    assert callback._FlatCallback.__dataclass_params__.frozen
    x = np.arange(3, dtype=F32)
    eqn = jax.make_jaxpr(_np_sin(jax))(x).jaxpr.eqns[0]
    assert set(eqn.params) == {"callback", "result_avals", "sharding", "vmap_method"}
    same(lambda lib, np_: text(lib.make_jaxpr(_np_sin(lib))(x)))


@claim(CH15, "A wrong declaration is found when the callback returns, as XLA's runtime error, "
             "even eagerly, as in JAX")
@claim(A21, "the number of results, then each one's shape, then its dtype")
@claim(A21, "A callback that fails, these checks included, becomes XLA's runtime error, with the "
            "Python traceback in its message, whether it ran eagerly or in a compiled program")
def callback_results_are_checked():
    x = np.arange(3, dtype=F32)

    def program(lib, np_):
        s = lib.ShapeDtypeStruct((3,), F32)
        out = []
        for cb, sds in [(lambda v: v, lib.ShapeDtypeStruct((2,), F32)), (lambda v: (v, v), s),
                        (lambda v: v.astype(np.int32), s), (lambda v: 1 / 0, s)]:
            for run in (lambda f: f(x), lambda f: lib.jit(f)(x)):
                name, msg = error(lambda: run(lambda v: lib.pure_callback(cb, sds, v)))
                out.append(("RuntimeError" if "Runtime" in name else name,
                            msg.splitlines()[0], msg.splitlines()[-1]))
        return out
    results = same(program)
    assert results[0][1].startswith("INTERNAL: CpuCallback error calling callback: Traceback")
    assert [r[2].split(":")[0] for r in results[::2]] == ["RuntimeError"] * 3 + ["ZeroDivisionError"]


@claim(CH15, "refusing `float64` as JAX does with 64-bit mode off")
@claim(A21, "as in JAX with 64-bit mode off, a declared `float64` is refused.")
@claim(A21, "Only `vmap_method`s JAX knows are accepted (its message has its typo).")
def declarations_are_checked():
    x = np.arange(3, dtype=F32)

    def program(lib, np_):
        return [error(lambda: lib.pure_callback(lambda v: v, lib.ShapeDtypeStruct((3,), np.float64),
                                                x)),
                error(lambda: lib.pure_callback(lambda v: v, lib.ShapeDtypeStruct((3,), F32), x,
                                                vmap_method="bad"))]
    (e64, emethod) = same(program)
    assert "64-bit types" in e64[1] and "must be on of" in emethod[1]


@claim(CH15, "jaxlib registers one for Python callbacks, `xla_ffi_python_cpu_callback`")
@claim(CH15, "`emit_python_callback` builds the operation as JAX does")
@claim(CH15, "Next to JAX's, the `custom_call` lacks only the `sdy.sharding` that pins it to "
             "device 0.")
@claim(CH15, "**No sharding annotation** (`sdy.sharding`) on the `custom_call`")
def lowered_custom_call():
    x = np.arange(3, dtype=F32)
    ours, theirs = both(lambda lib, np_: lib.jit(_np_sin(lib)).lower(x).as_text())
    assert "@xla_ffi_python_cpu_callback" in theirs and "sdy.sharding" in theirs
    theirs = re.sub(r"  sdy\.mesh .*\n", "", theirs)
    theirs = re.sub(r", sdy\.sharding = #sdy\.sharding_per_value<\[<@maximal_mesh_0, \[\]>\]>",
                    "", theirs)
    assert ours == theirs


@claim(CH15, "as in JAX, a program with host callbacks never goes to or comes from the disk")
def callbacks_are_not_cached_on_disk():
    from jax._src import compiler
    assert "if host_callbacks:" in inspect.getsource(compiler._cache_write)
    from autodidax import compilation_cache
    assert 'None if getattr(text, "host_callbacks", ()) else get_cache_dir()' in \
        inspect.getsource(compilation_cache)


@claim(CH15, "so JAX asks for a `vmap_method` and refuses to guess")
@claim(CH15, "The declared result types gain the batch dimension in front (JAX's "
             "`ffi_batching_rule`).")
def vmap_methods():
    def program(lib, np_):
        shapes = []

        def add(x, y):
            shapes.append((x.shape, y.shape))
            return np.asarray(x) + np.asarray(y)
        xs, y = np_.ones((3, 2)), np_.full(2, 10.0)
        for m in ["sequential", "expand_dims", "broadcast_all"]:
            out = lib.vmap(lambda x: lib.pure_callback(add, lib.ShapeDtypeStruct(x.shape, x.dtype),
                                                       x, y, vmap_method=m))(xs)
            shapes.append(out.shape)
        shapes.append(error(lambda: lib.vmap(_np_sin(lib))(xs)))
        return shapes
    assert same(program)[-1][0] == "NotImplementedError"


@claim(CH15, "In JAX each equation carries a set of **effects**, computed by abstract "
             "evaluation")
@claim(CH15, "`jax.debug.callback` binds `debug_callback_p` with the effect `Debug`, or "
             "`OrderedDebug` with `ordered=True`.")
@claim(CH15, "JAX's equations and jaxprs carry their effects; ours are tables per primitive")
def effects_on_jaxprs():
    x = np.ones(2, F32)
    for ordered, name in [(False, "DebugEffect"), (True, "OrderedDebugEffect")]:
        j = jax.make_jaxpr(lambda v: jax.debug.callback(print, v, ordered=ordered))(x)
        assert [type(e).__name__ for e in j.jaxpr.eqns[0].effects] == [name]
        assert j.effects == j.jaxpr.eqns[0].effects
    ours = autodidax.make_jaxpr(lambda v: autodidax.debug.callback(print, v))(x)
    assert not hasattr(ours.jaxpr.eqns[0], "effects") and not hasattr(ours, "effects")


@claim(CH15, "(`!stablehlo.token {jax.token = true}`, as JAX writes them)")
@claim(CH15, "JAX threads them through every called function, loop and branch.")
def tokens():
    x = np.ones(3, F32)

    def program(lib, np_):
        def g(v):
            lib.debug.print("first {}", v, ordered=True)
            return v

        def nested(v):
            lib.jit(g)(v)
            lib.debug.print("second {}", v, ordered=True)
            return v
        return lib.jit(g).lower(x).as_text(), lib.jit(nested).lower(x).as_text()
    (ours, ours_nested), (theirs, theirs_nested) = both(program)
    assert ours == theirs and "!stablehlo.token {jax.token = true}" in ours
    assert "call @g(%arg0, %arg1)" in theirs_nested and "call @g(%arg1)" in ours_nested


@claim(CH15, "The flat function is a closure, so a jaxpr prints its address, as JAX's does.")
@claim(CH15, "(JAX's `_split_callback_args`)")
def debug_callback_jaxpr():
    from jax._src import debugging
    assert callable(debugging._split_callback_args)
    x = np.ones(3, F32)
    t = same(lambda lib, np_: text(lib.make_jaxpr(lambda v: lib.debug.callback(print, v))(x)))
    assert "_flat_callback at 0x" in t


@claim(CH15, "The format is checked up front for unused arguments, with JAX's messages")
@claim(A21, "complains, as JAX does, of arguments it never uses: positional ones first, then "
            "keywords, with a hint for the f-string passed by mistake.")
def unused_format_arguments():
    def program(lib, np_):
        return [error(lambda: lib.debug.print("{}", 1, 2)),
                error(lambda: lib.debug.print("no", 2, x=1)),
                error(lambda: lib.debug.print("no", x=1))]
    out = same(program)
    assert "positional" in out[1][1] and "f-string" in out[2][1]


@claim(CH15, "As in JAX, **`jvp` and `grad`** print the *primal* values")
@claim(CH15, "**`vmap`** prints once *per example*")
def prints_under_transformations():
    def program(lib, np_):
        def h(x):
            lib.debug.print("h sees {}", x)
            return (x ** 2).sum()
        x = np_.arange(3.0)
        return [printed(lambda: lib.vmap(h)(np_.arange(6.0).reshape(2, 3)), lib),
                printed(lambda: lib.grad(h)(x), lib), printed(lambda: lib.jvp(h, (x,), (x,)), lib)]
    assert same(program) == ["h sees [0. 1. 2.]\nh sees [3. 4. 5.]\n"] + ["h sees [0. 1. 2.]\n"] * 2


@claim(CH15, "It has no derivative; under `vmap` an unordered one runs once per example, in a "
             "loop, and an ordered one is refused.")
def io_callback_rules():
    def program(lib, np_):
        calls = []

        def double(v):
            calls.append(v.shape)
            return np.asarray(v) * 2

        def log(x, ordered):
            return IO[lib](double, lib.ShapeDtypeStruct((), F32), x, ordered=ordered)
        out = np.asarray(lib.vmap(lambda x: log(x, False))(np_.arange(3.0))).tolist()
        return (out, calls, error(lambda: lib.jvp(lambda x: log(x, False), (1.0,), (1.0,))),
                error(lambda: lib.vmap(lambda x: log(x, True))(np_.arange(3.0))))
    out, calls, jvp_error, vmap_error = same(program)
    assert calls == [()] * 3 and jvp_error[0] == vmap_error[0] == "ValueError"


@claim(CH15, "as JAX's is `jax/debug.py`: it names this module's `debug_callback` and "
             "`debug_print` as `callback` and `print`, appendix A11's "
             "`visualize_array_sharding`, and appendix A32's `breakpoint`")
def the_debug_module():
    for lib, _ in LIBS:
        for name in ("callback", "print", "visualize_array_sharding", "breakpoint"):
            assert callable(getattr(lib.debug, name))


@claim(CH15, "JAX's `jit` does not wait for a program's callbacks (it waits at "
             "`jax.effects_barrier()` and at exit)")
@claim(CH15, "JAX's does not wait for them: on the CPU, jaxlib runs the program on the calling "
             "thread, so it returns after them too")
def waiting_for_callbacks():
    from jax._src.interpreters import pxla
    source = inspect.getsource(pxla.ExecuteReplicated.__call__)
    assert "consume_token()" in source and "block_until_ready" not in source.split(
        "consume_token()")[1].split("handlers =")[0]
    for lib, np_ in LIBS:
        seen = []

        def slow(v):
            time.sleep(0.05)
            seen.append(threading.current_thread())
        f = lib.jit(lambda x: (lib.debug.callback(slow, x), x + 1)[1])
        f(1.0)
        seen.clear()
        f(2.0)
        assert len(seen) == 1, lib.__name__
        if lib is jax:
            assert seen == [threading.current_thread()]
        jax.effects_barrier()


@claim(CH15, "`NotImplementedError`; JAX still runs it, a legacy mode kept without a warning.")
def legacy_vectorized():
    import warnings

    def run(lib, np_):
        return lib.vmap(lambda v: lib.pure_callback(
            lambda a: np.asarray(a) * 2, lib.ShapeDtypeStruct((), F32), v,
            vmap_method="legacy_vectorized"))(np_.arange(3.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.asarray(run(jax, jnp)).tolist() == [0.0, 2.0, 4.0]
    with pytest.raises(NotImplementedError):
        run(autodidax, anp)


@claim(CH15, "Eagerly, JAX's `debug.callback` passes a weakly typed argument (a Python scalar) on "
             "as a weakly typed array; ours, like every `pure_callback` and `io_callback`, passes "
             "an array of its dtype, not weak")
def eager_weak_types():
    def program(lib, np_):
        seen = []

        def show(v):
            seen.append(bool(v.weak_type))
            return np.asarray(v, F32)
        s = lib.ShapeDtypeStruct((), F32)
        lib.debug.callback(show, 1.0)
        lib.pure_callback(show, s, 1.0)
        IO[lib](show, s, 1.0)
        lib.jit(lambda y: lib.debug.callback(show, y))(1.0)
        if lib is jax:
            jax.effects_barrier()
        return seen
    assert both(program) == [[False] * 4, [True, False, False, False]]


# ---- appendix A21: meshes -------------------------------------------------------------------

@claim(A21, "A `Mesh` needs one axis name per dimension of its devices and one axis type per "
            "name, with JAX's errors; it also needs names that differ, which JAX 0.10.2 does "
            "not check at all: that message is ours.")
def mesh_checks():
    def program(lib, np_):
        devices = np.array(lib.devices()[:2])
        return [error(lambda: lib.sharding.Mesh(devices, ("x", "y"))),
                error(lambda: lib.sharding.Mesh(devices.reshape(1, 2), ("x", "x")))]
    (ours_ndim, ours_unique), (theirs_ndim, theirs_unique) = both(program)
    assert ours_ndim == theirs_ndim and "Mesh requires the ndim" in ours_ndim[1]
    assert theirs_unique is None and ours_unique[0] == "ValueError"


test_claims = claims_test(__name__)
