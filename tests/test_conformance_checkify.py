"""Conformance cases for appendix A29 (autodidax/checkify.py, `jax.experimental.checkify`):
error messages from `Error.get`, the classes `Error.throw` and `check` raise, the values a
checkified function returns, and printed jaxprs (with the codes of the check sites, a global
counter, blanked), under `jit`, `vmap`, `grad` and the control flow, against
`jax.experimental.checkify`. Same harness as tests/test_conformance.py."""
import importlib
import re

import numpy as np
import pytest

from test_conformance import C, E, _params, check

X5 = np.ones((5,), np.float32)
XINF = np.array([np.inf, 1.0], np.float32)
X35 = np.ones((3, 5), np.float32)
I3 = np.array([-1, 2, 100], np.int32)


def _ck(jax):
    return importlib.import_module(jax.__name__ + ".experimental.checkify")


def _get(make, *args, errors="user_checks", jit=False):
    """`err.get()` and the output of `checkify(make(jax, jnp, ck), errors=...)(*args)`."""
    def run(jax, jnp):
        ck = _ck(jax)
        errs = ck.all_checks if errors == "all" else getattr(ck, errors)
        checked = ck.checkify(make(jax, jnp, ck), errors=errs)
        err, out = (jax.jit(checked) if jit else checked)(*args)
        return [err.get(), out]
    return run


def _throw(make, *args, errors="user_checks"):
    def run(jax, jnp):
        ck = _ck(jax)
        err, _ = ck.checkify(make(jax, jnp, ck), errors=getattr(ck, errors))(*args)
        err.throw()
    return run


def _jaxpr(make, *args, errors="user_checks"):
    def run(jax, jnp):
        ck = _ck(jax)
        text = str(jax.make_jaxpr(ck.checkify(make(jax, jnp, ck), errors=getattr(ck, errors)))(
            *args))
        return re.sub(r"select_n False:bool\[\] \d+:i32\[\]", "select_n False:bool[] N:i32[]",
                      text)
    return run


def _index_check(jax, jnp, ck):
    def f(x, i):
        ck.check(i >= 0, "index needs to be non-negative, got {i}", i=i)
        return jnp.sin(x[i])
    return f


def _plain_check(jax, jnp, ck):
    def f(x, i):
        ck.check(i >= 0, "index needs to be non-negative!")
        return x[i]
    return f


def _positive(jax, jnp, ck):
    def f(x):
        ck.check(x > 0.0, "{} must be positive!", x)
        return jnp.log(x)
    return f


def _loops(jax, jnp, ck):
    lax = jax.lax

    def f(x):
        def body(i, c):
            ck.check(c < 10.0, "overflow at step {i}: {c}", i=i, c=c)
            return c * 2.0
        c = lax.fori_loop(0, 6, body, x)
        y = lax.cond(c > 0, lambda: jnp.log(-c), lambda: c)
        return lax.while_loop(lambda v: jnp.abs(v) < 100.0, lambda v: v * 3.0, y)
    return f


def _scan_oob(jax, jnp, ck):
    def f(x, idx):
        x = jnp.asarray(x)      # (a NumPy array cannot be indexed by a tracer)

        def step(c, i):
            return c + x[i], x.at[i].set(c)
        return jax.lax.scan(step, 0.0, idx)
    return f


def _vmapped(jax, jnp):
    ck = _ck(jax)
    errs, out = jax.vmap(ck.checkify(_plain_check(jax, jnp, ck), errors=ck.all_checks))(
        jnp.asarray(X35), jnp.asarray(I3))
    return [errs.get(), out]


def _vmapped_throw(jax, jnp):
    ck = _ck(jax)
    errs, _ = jax.vmap(ck.checkify(_plain_check(jax, jnp, ck), errors=ck.all_checks))(
        jnp.asarray(X35), jnp.asarray(I3))
    errs.throw()


def _checkify_of_vmap(jax, jnp):
    ck = _ck(jax)
    err, out = ck.checkify(jax.vmap(_plain_check(jax, jnp, ck)), errors=ck.all_checks)(
        jnp.asarray(X35), jnp.asarray(I3))
    return [err.get(), out]


def _of_grad(jax, jnp):
    ck = _ck(jax)
    err, g = ck.checkify(jax.grad(lambda x: x / (1 + jnp.sqrt(x))), errors=ck.nan_checks)(0.0)
    return [err.get(), g]


def _gradient_check(jax, jnp):
    ck = _ck(jax)

    @jax.custom_vjp
    def negative_gradient(x):
        return x
    negative_gradient.defvjp(lambda x: (x, None),
                             lambda _, g: (ck.check(g < 0, "gradient needs to be negative!"),
                                           (g,))[1])
    return jax.grad(negative_gradient)(-1.0)


def _customs(jax, jnp):
    """A custom_jvp function, a custom_vjp function and a checkpointed one, each making a NaN
    inside."""
    @jax.custom_jvp
    def cj(x):
        return jnp.sin(x) * x
    cj.defjvp(lambda p, t: (cj(p[0]), t[0] * 3.0))

    @jax.custom_vjp
    def cv(x):
        return jnp.sin(x) * x
    cv.defvjp(lambda x: (cv(x), x), lambda r, g: (g * r,))
    return cj, cv, jax.checkpoint(jnp.log)


def _inside(k):
    def run(jax, jnp):
        ck = _ck(jax)
        fun = _customs(jax, jnp)[k]
        err, out = ck.checkify(fun, errors=ck.nan_checks)(jnp.float32(np.inf if k < 2 else -1))
        return [err.get(), out, jax.grad(lambda x: ck.checkify(fun)(x)[1])(2.0)]
    return run


def _nan_in_bwd(jax, jnp):
    """A NaN made by a custom_vjp's `bwd`, found by `checkify` of `grad`."""
    ck = _ck(jax)

    @jax.custom_vjp
    def cv(x):
        return x
    cv.defvjp(lambda x: (x, x), lambda r, g: (jnp.log(r) * g,))
    err, g = ck.checkify(jax.grad(cv), errors=ck.nan_checks)(-1.0)
    return [err.get(), g]


def _check_in_checkpoint(jax, jnp):
    ck = _ck(jax)
    err, out = ck.checkify(jax.checkpoint(lambda x: (ck.check(x > 0, "{x} must be positive",
                                                             x=x), x)[1]))(jnp.float32(-1.0))
    return [err.get(), out]


def _nested(jax, jnp):
    """`check_error` of an inner checkify's error, checkified again; a `debug_check`."""
    ck = _ck(jax)
    inner = ck.checkify(lambda y: (ck.check(y > 0, "neg"), y)[1])
    outer = ck.checkify(lambda x: (ck.check_error(inner(x)[0]), x)[1])
    dbg = ck.checkify(lambda x: (ck.debug_check(x > 0, "dbg"), x)[1])
    return [outer(jnp.float32(-1.0))[0].get(), dbg(jnp.float32(-1.0))[0].get(),
            ck.debug_check(False, "never"), str(ck.init_error)]


def _switch(jax, jnp):
    ck = _ck(jax)
    branches = [lambda x: x[7], lambda x: jnp.log(x[0]), lambda x: x[1]]
    f = ck.checkify(lambda i, x: jax.lax.switch(i, branches, x), errors=ck.all_checks)
    return [f(i, -jnp.ones(3))[0].get() for i in range(3)]


def _scan_check(jax, jnp):
    ck = _ck(jax)
    f = ck.checkify(lambda xs: jax.lax.scan(
        lambda c, x: ((ck.check(x < 3, "big {x}", x=x), c + x)[1], x * 2), 0.0, xs))
    return [f(jnp.arange(5.0))[0].get(), f(jnp.arange(3.0))[1]]


def _sets(jax, jnp):
    ck = _ck(jax)
    names = lambda s: sorted(c.__name__ for c in s)     # noqa: E731
    return [names(ck.float_checks), names(ck.all_checks - ck.user_checks),
            names(ck.automatic_checks), names(ck.index_checks | ck.div_checks)]


CHECKIFY = {
    "check under jit": C(_get(_index_check, X5, -2, jit=True)),
    "check passes": C(_get(_index_check, X5, 2, jit=True)),
    "index out of bounds": C(_get(_index_check, X5, 100, errors="all", jit=True)),
    "nan from sin": C(_get(_index_check, XINF, 0, errors="all", jit=True)),
    "nan not enabled": C(_get(_index_check, XINF, 0, errors="index_checks", jit=True)),
    "check a positional format argument": C(_get(_positive, -1.0, jit=True)),
    "division by zero": C(_get(lambda jax, jnp, ck: lambda x, y: x // y, np.int32(7),
                               np.array([1, 0], np.int32), errors="div_checks")),
    "checkify of jit": C(_get(lambda jax, jnp, ck: jax.jit(lambda x, i: x[i]), X5, 100,
                              errors="index_checks")),
    "scatter and gather in scan": C(_get(_scan_oob, X5, np.array([0, 3, 7], np.int32),
                                         errors="index_checks")),
    "fori_loop, cond, while: check": C(_get(_loops, 1.0, errors="all", jit=True)),
    "fori_loop, cond, while: nan": C(_get(_loops, 0.1, errors="all", jit=True)),
    "fori_loop, cond, while: none": C(_get(_loops, -0.1, errors="all", jit=True)),
    "vmap of checkify": C(_vmapped),
    "checkify of vmap": C(_checkify_of_vmap),
    "checkify of grad": C(_of_grad),
    "error sets": C(_sets),
    "custom_jvp: nan inside, grad": C(_inside(0)),
    "custom_vjp: nan inside, grad": C(_inside(1)),
    "checkpoint: nan inside, grad": C(_inside(2)),
    "custom_vjp: nan in bwd, checkify of grad": C(_nan_in_bwd),
    "check in checkpoint": C(_check_in_checkpoint),
    "check_error, debug_check": C(_nested),
    "switch": C(_switch),
    "check in scan": C(_scan_check),
    "throw": E(_throw(_index_check, X5, -1)),
    "throw an out-of-bounds index": E(_throw(_index_check, X5, 100, errors="all_checks")),
    "throw a batched error": E(_vmapped_throw),
    "check outside checkify raises": E(lambda jax, jnp: _positive(jax, jnp, _ck(jax))(
        jnp.float32(-1.0))),
    "check under jit without checkify": E(lambda jax, jnp: jax.jit(
        _positive(jax, jnp, _ck(jax)))(1.0)),
    "check in a custom_vjp's backward pass": E(_gradient_check),
    "format arguments must be arrays": E(_get(_index_check, X5, 100)),
    "pred must be a scalar": E(lambda jax, jnp: _ck(jax).check(jnp.ones(2) > 0, "x")),
    "check_error of a non-error": E(lambda jax, jnp: _ck(jax).check_error(3)),
    "jaxpr: nan check": C(_jaxpr(lambda jax, jnp, ck: jnp.sin, X5, errors="nan_checks")),
    "jaxpr: user check": C(_jaxpr(lambda jax, jnp, ck: _positive(jax, jnp, ck), 1.0)),
    "jaxpr: division": C(_jaxpr(lambda jax, jnp, ck: lambda x: 1 / x, 1.0,
                                errors="div_checks")),
    "jaxpr: checkify of jit": C(_jaxpr(lambda jax, jnp, ck: jax.jit(jnp.sin), X5,
                                       errors="nan_checks")),
}


@pytest.mark.parametrize("name", _params(CHECKIFY))
def test_checkify(name):
    check(CHECKIFY[name])
