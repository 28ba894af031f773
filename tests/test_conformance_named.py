"""Conformance cases for named axes: `vmap`'s `axis_name` and `axis_size`, the collectives
(`psum`, `pmean`, `pmax`, `pmin`, `all_gather`, `axis_index`) and keyword arguments of
transformed functions, run under JAX and autodidax as in tests/test_conformance.py."""
import numpy as np
import pytest

from test_conformance import B, C, E, J, F, T, V3, check, _params  # noqa: F401


def P(jax):
    """Where the collectives are: `jax.lax`, or autodidax's chapter 4 module until `lax`
    exposes them."""
    return jax.lax if hasattr(jax.lax, "psum") else jax.batching


R = np.arange(12.0, dtype=np.float32).reshape(3, 4) / 4       # 3 examples of f32[4]
I3 = np.arange(3, dtype=np.int32)
W = np.asarray([[0.5, -1.0], [1.5, 0.25]], np.float32)
XS = np.asarray([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]], np.float32)


def _vi(jax, f, **kw):
    return jax.vmap(f, axis_name="i", **kw)


def _centered(jax, jnp):
    def loss(w, x):
        y = jnp.tanh(x @ w)
        return jnp.sum((y - P(jax).pmean(y, "b")) ** 2)
    return loss


NAMED = {
    # vmap's axis_size and keyword arguments
    "axis_size with in_axes None": C(lambda jax, jnp: jax.vmap(lambda x: x * 2, in_axes=None,
                                                               axis_size=3)(V3)),
    "axis_size agreeing": C(lambda jax, jnp: jax.vmap(jnp.sum, axis_size=3)(F)),
    "axis_size with no arguments": C(lambda jax, jnp: jax.vmap(lambda: 1.0, axis_size=2)()),
    "axis_size zero": C(lambda jax, jnp: jax.vmap(lambda x: x, in_axes=None, axis_size=0)(V3)),
    "kwargs batched along 0": C(lambda jax, jnp: jax.vmap(lambda x, y: x + y)(F, y=F)),
    "kwargs with in_axes tuple": C(lambda jax, jnp: jax.vmap(lambda x, y: x * y, in_axes=(1,))(
        F.T, y=F)),
    "kwargs only batched": C(lambda jax, jnp: jax.vmap(lambda x, y: x - y, in_axes=(None,))(
        F[0], y=F)),
    "kwargs pytree": C(lambda jax, jnp: jax.vmap(lambda x, p: x + p["a"] * p["b"])(
        F, p={"a": F, "b": F})),
    "kwargs default": C(lambda jax, jnp: jax.vmap(lambda x, y=2.0: x * y)(F)),
    "spmd_axis_name no mesh": C(lambda jax, jnp: jax.vmap(jnp.sin, spmd_axis_name="k")(F)),
    # the collectives, batched
    "psum": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).psum(x, "i"))(R)),
    "psum int": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).psum(x, "i"))(I3)),
    "psum bool": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).psum(x > 1, "i"))(R)),
    "psum in_axes 1": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).psum(x, "i"), in_axes=1)(F)),
    "psum of a constant": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).psum(2.0, "i"))(R)),
    "psum of one": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).psum(1, "i"))(R)),
    "psum of an unbatched array": C(lambda jax, jnp: _vi(
        jax, lambda x, y: P(jax).psum(y, "i") + x, in_axes=(0, None))(R, V3[:1])),
    "psum unbatched axis_size": C(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).psum(x, "i"), in_axes=None, axis_size=4)(V3)),
    "psum positional axis": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).psum(x, 0))(F)),
    "psum named and positional": C(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).psum(x, ("i", 0)))(T)),
    "psum pytree": C(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).psum({"a": x, "b": (2 * x, x[0])}, "i"))(R)),
    "psum axis name list": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).psum(x, ["i"]))(R)),
    "psum out_axes None": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).psum(x, "i"),
                                                 out_axes=None)(R)),
    "pmax out_axes None batched elsewhere": E(lambda jax, jnp: _vi(
        jax, lambda x: (P(jax).pmax(x, "i"), x), out_axes=None)(R)),
    "normalise by psum": C(lambda jax, jnp: _vi(jax, lambda x: x / P(jax).psum(x, "i"))(R)),
    "pmean": C(lambda jax, jnp: _vi(jax, lambda x: x - P(jax).pmean(x, "i"))(R)),
    "pmean int": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).pmean(x, "i"))(I3)),
    "pmax": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).pmax(x, "i"))(R)),
    "pmin int": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).pmin(x, "i"))(I3)),
    "pmax of an unbatched array": C(lambda jax, jnp: _vi(
        jax, lambda x, y: P(jax).pmax(y, "i") * x, in_axes=(0, None))(R, V3[:1])),
    "pmin pytree": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).pmin((x, -x), "i"))(R)),
    "all_gather": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).all_gather(x, "i"))(R)),
    "all_gather axis 1": C(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).all_gather(x, "i", axis=1))(R)),
    "all_gather axis -1": C(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).all_gather(x, "i", axis=-1))(R)),
    "all_gather tiled": C(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).all_gather(x, "i", tiled=True))(R)),
    "all_gather tiled axis 1": C(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).all_gather(x, "i", axis=1, tiled=True))(T)),
    "all_gather of a constant": C(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).all_gather(2.0, "i"))(R)),
    "all_gather in_axes 1": C(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).all_gather(x, "i"), in_axes=1)(F)),
    "psum_scatter": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).psum_scatter(x, "i"))(F[:, :3])),
    "psum_scatter dimension 1": C(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).psum_scatter(x, "i", scatter_dimension=1))(T[:, :, :2])),
    "psum_scatter tiled": C(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).psum_scatter(x, "i", tiled=True))(R[:, :3])),
    "psum_scatter unbatched": C(lambda jax, jnp: _vi(
        jax, lambda x, y: P(jax).psum_scatter(y, "i") + x, in_axes=(0, None))(V3, V3)),
    "psum_scatter under jit": C(lambda jax, jnp: jax.jit(_vi(
        jax, lambda x: P(jax).psum_scatter(x, "i", tiled=True)))(R[:2])),
    "axis_index": C(lambda jax, jnp: _vi(jax, lambda x: P(jax).axis_index("i"))(R)),
    "axis_index times x": C(lambda jax, jnp: _vi(jax, lambda x: x * P(jax).axis_index("i"))(R)),
    "axis_size of a name": C(lambda jax, jnp: jax.vmap(jax.vmap(
        lambda x: x * P(jax).axis_size(("i", "j")), axis_name="j"), axis_name="i")(F)),
    "jit with unbatched arguments inside a named vmap": C(lambda jax, jnp: _vi(
        jax, lambda x: jax.jit(lambda y: P(jax).psum(y, "i"))(V3) + x)(F[:, :3])),
    "axis_index axis_size": C(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).axis_index("i"), in_axes=None, axis_size=5)(V3)),
    # two names
    "nested psum outer": C(lambda jax, jnp: jax.vmap(jax.vmap(
        lambda x: P(jax).psum(x, "i"), axis_name="j"), axis_name="i")(F)),
    "nested psum inner": C(lambda jax, jnp: jax.vmap(jax.vmap(
        lambda x: P(jax).psum(x, "j"), axis_name="j"), axis_name="i")(F)),
    "nested psum both": C(lambda jax, jnp: jax.vmap(jax.vmap(
        lambda x: P(jax).psum(x, ("i", "j")), axis_name="j"), axis_name="i")(F)),
    "nested pmax outer": C(lambda jax, jnp: jax.vmap(jax.vmap(
        lambda x: P(jax).pmax(x, "i"), axis_name="j"), axis_name="i")(T)),
    "nested all_gather outer": C(lambda jax, jnp: jax.vmap(jax.vmap(
        lambda x: P(jax).all_gather(x, "i"), axis_name="j"), axis_name="i")(F)),
    "nested axis_index pair": C(lambda jax, jnp: jax.vmap(jax.vmap(
        lambda x: P(jax).axis_index(("i", "j")), axis_name="j"), axis_name="i")(F)),
    "nested closure": C(lambda jax, jnp: jax.vmap(lambda x: jax.vmap(
        lambda y: P(jax).psum(x, "i") * y, axis_name="j")(V3), axis_name="i")(F32_4)),
    "shadowed name": C(lambda jax, jnp: jax.vmap(jax.vmap(
        lambda x: P(jax).psum(x, "i"), axis_name="i"), axis_name="i")(F)),
    # composition with jit, jvp, grad
    "jit inside vmap": C(lambda jax, jnp: _vi(jax, jax.jit(lambda x: P(jax).psum(x, "i")))(R)),
    "vmap inside jit": C(lambda jax, jnp: jax.jit(_vi(jax, lambda x: P(jax).psum(x, "i")))(R)),
    "pmax and axis_index under jit": C(lambda jax, jnp: jax.jit(_vi(
        jax, lambda x: P(jax).pmax(x, "i") + P(jax).axis_index("i")))(R)),
    "all_gather tiled under jit": C(lambda jax, jnp: jax.jit(_vi(
        jax, lambda x: P(jax).all_gather(x, "i", tiled=True)))(R)),
    "jvp of psum": C(lambda jax, jnp: _vi(jax, lambda x: jax.jvp(
        lambda y: P(jax).psum(y * y, "i"), (x,), (x,)))(R)),
    "jvp of vmap of pmean": C(lambda jax, jnp: jax.jvp(_vi(
        jax, lambda x: jnp.sin(x) - P(jax).pmean(x, "i")), (R,), (R,))),
    "grad of vmap of psum": C(lambda jax, jnp: jax.grad(lambda x: _vi(
        jax, lambda y: y * P(jax).psum(y, "i"))(x).sum())(R), rtol=1e-5),
    "vmap of grad of psum": C(lambda jax, jnp: _vi(jax, jax.grad(
        lambda y: (y * P(jax).psum(y, "i")).sum()))(R), rtol=1e-5),
    "per-example grads with pmean": C(lambda jax, jnp: jax.vmap(
        jax.grad(_centered(jax, jnp)), in_axes=(None, 0), axis_name="b")(W, XS), rtol=1e-5),
    "grad of the batch loss with pmean": C(lambda jax, jnp: jax.grad(lambda w: jax.vmap(
        _centered(jax, jnp), in_axes=(None, 0), axis_name="b")(w, XS).sum())(W), rtol=1e-5),
    "grad of vmap of all_gather": C(lambda jax, jnp: jax.grad(lambda x: _vi(
        jax, lambda y: P(jax).all_gather(y, "i") * y)(x).sum())(R)),
    "vmap of grad of all_gather": C(lambda jax, jnp: _vi(jax, jax.grad(
        lambda y: (P(jax).all_gather(y, "i") ** 2).sum()))(R)),
    "vmap of grad of psum_scatter": C(lambda jax, jnp: _vi(jax, jax.grad(
        lambda y: (P(jax).psum_scatter(y, "i", tiled=True) ** 2).sum()))(R[:, :3])),
    "jaxpr psum_scatter": J(lambda jax, jnp: jax.make_jaxpr(_vi(
        jax, lambda x: P(jax).psum_scatter(x, "i", tiled=True)))(R[:2])),
    "vmap of grad of pmean of scalar": C(lambda jax, jnp: _vi(jax, jax.grad(
        lambda y: P(jax).pmean(y * y, "i")))(V3)),
    "value_and_grad under vmap with psum": C(lambda jax, jnp: _vi(jax, jax.value_and_grad(
        lambda y: jnp.sum(y) * P(jax).psum(jnp.sum(y), "i")))(R), rtol=1e-5),
    "jit of vmap of grad with pmean": C(lambda jax, jnp: jax.jit(jax.vmap(
        jax.grad(_centered(jax, jnp)), in_axes=(None, 0), axis_name="b"))(W, XS), rtol=1e-5),
    "cond with psum": C(lambda jax, jnp: _vi(jax, lambda x: jax.lax.cond(
        x[0] > 1, lambda y: P(jax).psum(y, "i"), lambda y: y, x))(F)),
    "fori_loop with psum": C(lambda jax, jnp: _vi(jax, lambda x: jax.lax.fori_loop(
        0, 2, lambda i, y: y + P(jax).psum(y, "i"), x))(F)),
    "while_loop with psum": C(lambda jax, jnp: _vi(jax, lambda x: jax.lax.while_loop(
        lambda y: y.sum() < 100, lambda y: y + P(jax).psum(y, "i"), x))(R)),
    # keyword arguments of the differentiating transformations
    "grad kwargs": C(lambda jax, jnp: jax.grad(lambda x, y: x * y)(2.0, y=3.0)),
    "grad kwargs int": C(lambda jax, jnp: jax.grad(lambda x, y: x * y)(2.0, y=3)),
    "value_and_grad kwargs": C(lambda jax, jnp: jax.value_and_grad(
        lambda x, y: jnp.sum(x * y))(V3, y=V3)),
    "jacfwd kwargs": C(lambda jax, jnp: jax.jacfwd(lambda x, y: jnp.sin(x) * y)(V3, y=V3)),
    "jacrev kwargs": C(lambda jax, jnp: jax.jacrev(lambda x, y: jnp.sin(x) * y)(V3, y=V3)),
    "hessian kwargs": C(lambda jax, jnp: jax.hessian(lambda x, y: jnp.sum(x ** 3 * y))(
        V3, y=V3), rtol=1e-5),
    "jacfwd has_aux kwargs": C(lambda jax, jnp: jax.jacfwd(
        lambda x, y: (x * y, y), has_aux=True)(V3, y=2.0)),
    "vmap of grad kwargs": C(lambda jax, jnp: jax.vmap(jax.grad(lambda x, y: x * y))(V3, y=V3)),
    # printed jaxprs
    "jaxpr psum": J(lambda jax, jnp: jax.make_jaxpr(_vi(jax, lambda x: P(jax).psum(x, "i")))(F)),
    "jaxpr pmean": J(lambda jax, jnp: jax.make_jaxpr(_vi(
        jax, lambda x: x - P(jax).pmean(x, "i")))(F)),
    "jaxpr pmax": J(lambda jax, jnp: jax.make_jaxpr(_vi(jax, lambda x: P(jax).pmax(x, "i")))(F)),
    "jaxpr all_gather axis 1": J(lambda jax, jnp: jax.make_jaxpr(_vi(
        jax, lambda x: P(jax).all_gather(x, "i", axis=1)))(F)),
    "jaxpr all_gather tiled": J(lambda jax, jnp: jax.make_jaxpr(_vi(
        jax, lambda x: P(jax).all_gather(x, "i", tiled=True)))(F)),
    "jaxpr axis_index": J(lambda jax, jnp: jax.make_jaxpr(_vi(
        jax, lambda x: x * P(jax).axis_index("i")))(F)),
    "jaxpr psum of one": J(lambda jax, jnp: jax.make_jaxpr(_vi(
        jax, lambda x: P(jax).psum(1, "i")))(F)),
    "jaxpr psum unbatched": J(lambda jax, jnp: jax.make_jaxpr(_vi(
        jax, lambda x: P(jax).psum(x, "i"), in_axes=None, axis_size=4))(F)),
    "jaxpr jit inside vmap": J(lambda jax, jnp: jax.make_jaxpr(_vi(
        jax, jax.jit(lambda x: P(jax).psum(x, "i"))))(F)),
    "jaxpr vmap inside jit": J(lambda jax, jnp: jax.make_jaxpr(jax.jit(_vi(
        jax, lambda x: P(jax).psum(x, "i"))))(F)),
    "jaxpr two names": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(jax.vmap(
        lambda x: P(jax).psum(x, ("i", "j")), axis_name="j"), axis_name="i"))(F)),
    "jaxpr outer name": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(jax.vmap(
        lambda x: P(jax).psum(x, "i"), axis_name="j"), axis_name="i"))(F)),
    "jaxpr grad of vmap of psum": J(lambda jax, jnp: jax.make_jaxpr(jax.grad(lambda x: _vi(
        jax, lambda y: y * P(jax).psum(y, "i"))(x).sum()))(F)),
    "jaxpr vmap of grad of psum": J(lambda jax, jnp: jax.make_jaxpr(_vi(jax, jax.grad(
        lambda y: (y * P(jax).psum(y, "i")).sum())))(F)),
    "jaxpr unbatched output": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(
        lambda x: x, in_axes=None, axis_size=2))(F)),
    "jaxpr vmap add closure": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(
        lambda x: x + V3))(F.T[:, :3])),
    # errors
    "unbound psum eager": E(lambda jax, jnp: P(jax).psum(F, "i")),
    "unbound pmax eager": E(lambda jax, jnp: P(jax).pmax(F, "i")),
    "unbound psum under jit": E(lambda jax, jnp: jax.jit(lambda x: P(jax).psum(x, "i"))(F)),
    "unbound all_gather": E(lambda jax, jnp: P(jax).all_gather(F, "i")),
    "wrong name in vmap": E(lambda jax, jnp: _vi(jax, lambda x: P(jax).psum(x, "j"))(F)),
    "wrong name pmin": E(lambda jax, jnp: _vi(jax, lambda x: P(jax).pmin(x, "j"))(F)),
    "wrong name axis_index": E(lambda jax, jnp: _vi(jax, lambda x: P(jax).axis_index("j"))(F)),
    "name None": E(lambda jax, jnp: jax.vmap(lambda x: P(jax).psum(x, None))(F)),
    "unhashable axis_name": E(lambda jax, jnp: jax.vmap(jnp.sin, axis_name=["i"])(F)),
    "psum positional out of range": E(lambda jax, jnp: _vi(jax, lambda x: P(jax).psum(x, 3))(F)),
    "all_gather axis out of range": E(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).all_gather(x, "i", axis=2))(F)),
    "all_gather tiled scalar": E(lambda jax, jnp: _vi(
        jax, lambda x: P(jax).all_gather(x, "i", tiled=True))(V3)),
    "axis_size disagrees": E(lambda jax, jnp: jax.vmap(jnp.sin, axis_size=5)(F)),
    "axis_size float": E(lambda jax, jnp: jax.vmap(jnp.sin, axis_size=3.0)(F)),
    "axis_size float alone": E(lambda jax, jnp: jax.vmap(lambda x: x, in_axes=None,
                                                          axis_size=2.5)(V3)),
    "axis_size negative": E(lambda jax, jnp: jax.vmap(lambda x: x, in_axes=None,
                                                       axis_size=-1)(V3)),
    "no arguments and no axis_size": E(lambda jax, jnp: jax.vmap(lambda: 1.0)()),
    "kwargs of mismatched size": E(lambda jax, jnp: jax.vmap(lambda x, y: x + y)(F, y=V3[:2])),
    "kwargs scalar": E(lambda jax, jnp: jax.vmap(lambda x, y: x + y)(F, y=2.0)),
    "jvp kwargs": E(lambda jax, jnp: jax.jvp(lambda x, y: x * y, (2.0,), (1.0,), y=3.0)),
    "vjp kwargs": E(lambda jax, jnp: jax.vjp(lambda x, y: x * y, 2.0, y=3.0)),
    "psum axis_index_groups under vmap": E(lambda jax, jnp: _vi(jax, lambda x: P(jax).psum(
        x, "i", axis_index_groups=[[0, 1], [2]]))(F)),
    "grad of pmax under vmap": E(lambda jax, jnp: _vi(jax, jax.grad(
        lambda y: P(jax).pmax(y, "i")))(V3)),
}

F32_4 = np.linspace(-1.0, 1.0, 4, dtype=np.float32)


@pytest.mark.parametrize("name", _params(NAMED))
def test_named(name):
    check(NAMED[name])
