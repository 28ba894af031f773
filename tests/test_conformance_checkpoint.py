"""Conformance cases for `jax.checkpoint` / `jax.remat` and `jax.ad_checkpoint` (chapter 14):
the same programs under JAX and autodidax, compared by the harness of `test_conformance.py`
(read its docstring for the case kinds C, B, E and J)."""
import jax.ad_checkpoint  # noqa: F401  (JAX does not import it with `jax`)
import numpy as np
import pytest

import autodidax.ad_checkpoint  # noqa: F401

from test_conformance import F, G, V3, C, E, J, check, _params  # noqa: F401

X = np.array([0.5, -1.0, 2.0], np.float32)
W = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0) / 10.0
WS = (np.arange(3 * 4 * 4, dtype=np.float32).reshape(3, 4, 4) % 7 - 3.0) / 8.0
H = np.linspace(-1.0, 1.0, 8, dtype=np.float32).reshape(2, 4)
CONST = np.array([1.0, 2.0, 3.0], np.float32)


def _f(jax, jnp):
    def f(x):
        y = jnp.sin(x)
        z = jnp.sin(y)
        return jnp.sum(z * x)
    return f


def _named(jax, jnp):
    from_ = jax.ad_checkpoint

    def g(x):
        y = from_.checkpoint_name(jnp.sin(x), "y")
        return jnp.sum(jnp.sin(y) * x)
    return g


def _mlp(jax, jnp):
    def layer(w, h):
        return jnp.tanh(h @ w)

    def loss(w, h):
        return jnp.sum(layer(w, layer(w.T, h)) ** 2)        # h (2, 4) -> (2, 3) -> (2, 4)
    return loss


def _pol(jax, name, *args):
    p = getattr(jax.checkpoint_policies, name)
    return p(*args) if args else p


def _scan_loss(jax, jnp, checkpointed, **kw):
    body = lambda h, w: (jnp.tanh(h @ w), None)       # noqa: E731
    body = jax.checkpoint(body, **kw) if checkpointed else body
    return lambda ws, h: jnp.sum(jax.lax.scan(body, h, ws)[0] ** 2)


CHECKPOINT = {
    # values and gradients under each composition
    "eager": C(lambda jax, jnp: jax.checkpoint(_f(jax, jnp))(X)),
    "jit": C(lambda jax, jnp: jax.jit(jax.checkpoint(_f(jax, jnp)))(X)),
    "grad": C(lambda jax, jnp: jax.grad(jax.checkpoint(_f(jax, jnp)))(X)),
    "remat grad": C(lambda jax, jnp: jax.grad(jax.remat(_f(jax, jnp)))(X)),
    "jit grad": C(lambda jax, jnp: jax.jit(jax.grad(jax.checkpoint(_f(jax, jnp))))(X)),
    "grad jit": C(lambda jax, jnp: jax.grad(jax.jit(jax.checkpoint(_f(jax, jnp))))(X)),
    "value_and_grad": C(lambda jax, jnp: jax.value_and_grad(jax.checkpoint(_f(jax, jnp)))(X)),
    "jvp": C(lambda jax, jnp: jax.jvp(jax.checkpoint(_f(jax, jnp)), (X,), (CONST,))),
    "linearize": C(lambda jax, jnp: jax.linearize(jax.checkpoint(_f(jax, jnp)), X)[1](CONST)),
    "vjp": C(lambda jax, jnp: jax.vjp(jax.checkpoint(lambda x: jnp.sin(x) * x), X)[1](CONST)),
    "vmap": C(lambda jax, jnp: jax.vmap(jax.checkpoint(_f(jax, jnp)))(F)),
    "vmap grad": C(lambda jax, jnp: jax.vmap(jax.grad(jax.checkpoint(_f(jax, jnp))))(F)),
    "grad vmap": C(lambda jax, jnp: jax.grad(
        lambda x: jnp.sum(jax.vmap(jax.checkpoint(_f(jax, jnp)))(x)))(F)),
    "grad grad": C(lambda jax, jnp: jax.grad(jax.grad(
        jax.checkpoint(lambda s: jnp.sin(s) * s * s)))(0.7)),
    "nested checkpoint": C(lambda jax, jnp: jax.grad(jax.checkpoint(
        lambda x: jnp.sum(jax.checkpoint(jnp.sin)(x) * jnp.cos(x))))(X)),
    "jit inside checkpoint": C(lambda jax, jnp: jax.grad(jax.checkpoint(
        lambda x: jnp.sum(jax.jit(lambda a, b: jnp.sin(a) * b)(x, x))))(X)),
    "closure constant": C(lambda jax, jnp: jax.grad(
        lambda x: jnp.sum(jax.checkpoint(lambda x: x * CONST + jnp.sin(x))(x)))(X)),
    "pytrees": C(lambda jax, jnp: jax.grad(lambda p: jax.checkpoint(
        lambda p: {"s": jnp.sum(jnp.tanh(p["a"]) * p["b"][0])})(p)["s"])(
            {"a": X, "b": (CONST,)})),
    "static_argnums": C(lambda jax, jnp: jax.grad(jax.checkpoint(
        lambda x, n: jnp.sum(x ** n), static_argnums=1), argnums=0)(X, 3)),
    "two arguments": C(lambda jax, jnp: jax.grad(jax.checkpoint(_mlp(jax, jnp)),
                                                 argnums=(0, 1))(W, H)),
    "integer input": C(lambda jax, jnp: jax.grad(jax.checkpoint(
        lambda x, i: jnp.sum(x * i)))(X, np.arange(3, dtype=np.int32))),
    "unused output": C(lambda jax, jnp: jax.grad(lambda x: jax.checkpoint(
        lambda x: (jnp.sum(jnp.sin(x)), jnp.cos(x)))(x)[0])(X)),
    "prevent_cse False": C(lambda jax, jnp: jax.jit(jax.grad(jax.checkpoint(
        _f(jax, jnp), prevent_cse=False)))(X)),
    "checkpoint_name eager": C(lambda jax, jnp: jax.ad_checkpoint.checkpoint_name(
        {"a": jnp.asarray(X), "b": jnp.ones(2)}, "n")),
    "checkpoint_name grad": C(lambda jax, jnp: jax.grad(_named(jax, jnp))(X)),
    # policies
    "policy everything": C(lambda jax, jnp: jax.grad(jax.checkpoint(
        _f(jax, jnp), policy=_pol(jax, "everything_saveable")))(X)),
    "policy nothing": C(lambda jax, jnp: jax.grad(jax.checkpoint(
        _f(jax, jnp), policy=_pol(jax, "nothing_saveable")))(X)),
    "policy dots": C(lambda jax, jnp: jax.grad(jax.checkpoint(
        _mlp(jax, jnp), policy=_pol(jax, "dots_saveable")))(W, H)),
    "policy checkpoint_dots jit": C(lambda jax, jnp: jax.jit(jax.grad(jax.checkpoint(
        _mlp(jax, jnp), policy=_pol(jax, "checkpoint_dots"))))(W, H)),
    "policy dots no batch": C(lambda jax, jnp: jax.grad(jax.checkpoint(
        lambda a: jnp.sum(jnp.tanh(jnp.einsum("bij,bjk->bik", a, a))),
        policy=_pol(jax, "dots_with_no_batch_dims_saveable")))(WS)),
    "policy names": C(lambda jax, jnp: jax.grad(jax.checkpoint(
        _named(jax, jnp), policy=_pol(jax, "save_only_these_names", "y")))(X)),
    "policy names but": C(lambda jax, jnp: jax.grad(jax.checkpoint(
        _named(jax, jnp), policy=_pol(jax, "save_any_names_but_these", "z")))(X)),
    "policy both": C(lambda jax, jnp: jax.grad(jax.checkpoint(
        _named(jax, jnp), policy=_pol(jax, "save_from_both_policies", _pol(
            jax, "dots_saveable"), _pol(jax, "save_only_these_names", "y"))))(X)),
    "policy repr": C(lambda jax, jnp: [repr(_pol(jax, "dots_saveable")),
                                       repr(_pol(jax, "dots_with_no_batch_dims_saveable")),
                                       repr(_pol(jax, "save_only_these_names", "a"))]),
    # scan bodies
    "scan body jit grad": C(lambda jax, jnp: jax.jit(jax.grad(_scan_loss(jax, jnp, True)))(
        WS, H), rtol=1e-5),
    "scan body dots jit grad": C(lambda jax, jnp: jax.jit(jax.grad(_scan_loss(
        jax, jnp, True, policy=_pol(jax, "dots_saveable"))))(WS, H), rtol=1e-5),
    # printed jaxprs
    "jaxpr checkpoint": J(lambda jax, jnp: jax.make_jaxpr(jax.checkpoint(_f(jax, jnp)))(X)),
    "jaxpr grad": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(jax.checkpoint(_f(jax, jnp))))(X)),
    "jaxpr policy and cse": J(lambda jax, jnp: jax.make_jaxpr(jax.checkpoint(
        _f(jax, jnp), policy=_pol(jax, "dots_saveable"), prevent_cse=False))(X)),
    "jaxpr name": J(lambda jax, jnp: jax.make_jaxpr(_named(jax, jnp))(X)),
    "jaxpr grad names policy": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(jax.checkpoint(
        _named(jax, jnp), policy=_pol(jax, "save_only_these_names", "y"))))(X)),
    "jaxpr vmap": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(jax.checkpoint(_f(jax, jnp))))(F)),
    "jaxpr jvp": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.jvp(jax.checkpoint(_f(jax, jnp)), (x,), (x,)))(X)),
    "jaxpr closure constant": J(lambda jax, jnp: jax.make_jaxpr(
        jax.checkpoint(lambda x: x * CONST))(X)),
    "jaxpr grad closure constant": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(
        lambda x: jnp.sum(jax.checkpoint(lambda x: x * CONST + jnp.sin(x))(x))))(X)),
    "jaxpr two outputs": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.checkpoint(lambda x: (x, 2 * x))(x))(1.0)),
    "jaxpr linearize": J(lambda jax, jnp: jax.make_jaxpr(
        lambda x: jax.linearize(jax.checkpoint(_f(jax, jnp)), x)[1](x))(X)),
    "jaxpr grad dots policy": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(jax.checkpoint(
        lambda w, h: jnp.sum(jnp.tanh(h @ w)), policy=_pol(jax, "dots_saveable"))))(W, H[:, :3])),
    "jaxpr grad debug.print": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(jax.checkpoint(
        lambda x: (jax.debug.print("x = {}", x), jnp.sin(x) * 2.0)[1])))(1.0)),
    # errors
    "static_argnums out of range": E(lambda jax, jnp: jax.checkpoint(
        lambda x: x, static_argnums=3)(X)),
    "prevent_cse not a bool": E(lambda jax, jnp: jax.checkpoint(lambda x: x, prevent_cse=3)),
    "static_argnames is not used": E(lambda jax, jnp: jax.checkpoint(
        lambda x, mode: x, static_argnames="mode")(X, mode="a")),
    "string argument": E(lambda jax, jnp: jax.checkpoint(lambda x, s: x)(X, "a")),
    "python if on traced value": E(lambda jax, jnp: jax.checkpoint(
        lambda x: x if x > 0 else -x)(1.0)),
    "grad of non-scalar": E(lambda jax, jnp: jax.grad(jax.checkpoint(jnp.sin))(X)),
}


@pytest.mark.parametrize("name", _params(CHECKPOINT))
def test_checkpoint(name):
    check(CHECKPOINT[name])


def _dead(jax, jnp):
    def f(x):
        y = jnp.cos(x) * x      # noqa: F841  (dead code: linearize prunes its tangent)
        return jnp.sin(x) * 2.0
    return f


def _dead_array(jax, jnp):
    def f(x):
        y = jnp.cos(x) * x      # noqa: F841
        return jnp.sin(x) * x   # (a constant 0-d array is a literal to us, a constant to JAX)
    return f


# The linear function of `linearize`, pruned of dead code (chapter 9's `dce_jaxpr` and its rules
# for `jit` and, from chapter 14, `remat2`), printed as JAX prints it.
LINEARIZE_DCE = {
    "jaxpr linearize dead tangent": J(lambda jax, jnp: jax.make_jaxpr(
        jax.linearize(_dead(jax, jnp), 2.0)[1])(1.0)),
    "jaxpr linearize dead tangent array": J(lambda jax, jnp: jax.make_jaxpr(
        jax.linearize(_dead_array(jax, jnp), X)[1])(X)),
    "jaxpr linearize unused output of jit": J(lambda jax, jnp: jax.make_jaxpr(
        jax.linearize(lambda x: jax.jit(lambda x: (jnp.sin(x), jnp.cos(x) * x))(x)[0], X)[1])(X)),
    "jaxpr linearize unused output of checkpoint": J(lambda jax, jnp: jax.make_jaxpr(
        jax.linearize(lambda x: jax.checkpoint(lambda x: (jnp.sin(x), jnp.cos(x) * x))(x)[0],
                      X)[1])(X)),
    "jaxpr linearize checkpoint of dead code": J(lambda jax, jnp: jax.make_jaxpr(
        jax.linearize(jax.checkpoint(_dead_array(jax, jnp)), X)[1])(X)),
    "linearize dead tangent values": C(lambda jax, jnp: jax.linearize(
        _dead(jax, jnp), X)[1](CONST)),
}


@pytest.mark.parametrize("name", _params(LINEARIZE_DCE))
def test_linearize_dce(name):
    check(LINEARIZE_DCE[name])
