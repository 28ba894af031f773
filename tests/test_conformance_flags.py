"""Conformance cases for JAX's debugging and safety flags (appendix A25, through the hooks of
chapter 7, chapter 8's `call_checks` and appendix A1's `eager_rules` and
`set_dtype_promotion`): `debug_nans` and `debug_infs`, `numpy_dtype_promotion`, the transfer
guards and `effects_barrier`, against JAX. Same harness as tests/test_conformance.py; a case
that catches an error returns its class and text (and what was printed), compared word for
word, as the guides `debugging/flags.md`, `type_promotion.rst` and `transfer_guard.rst` show
them."""
import ast
import contextlib
import io
import re

import numpy as np
import pytest

from test_conformance import C, E, _params, check

A3 = np.ones(3, np.float32)


def _said(fn):
    """What `fn()` prints, and then the class and text of what it raises (but the name of the
    sharding a transfer was refused to, which differs), or its result."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            result = fn()
    except Exception as e:          # noqa: BLE001  (the class and text are compared)
        text = re.sub(r", dst_sharding=.*", "", str(e))
        return out.getvalue(), type(e).__name__, re.sub(       # (JAX's order is a set's)
            r"^Input dtypes (\(.*?\)) ", lambda m: f"Input dtypes {sorted(ast.literal_eval(m[1]))} ", text)
    return out.getvalue(), result


def _f(jnp):
    def f(x):                       # debugging/flags.md's example
        w = 3 * jnp.square(x)
        return jnp.log(-w)
    return f


def _nans(jax, jnp, option="debug_nans"):
    f = _f(jnp)
    with getattr(jax, option)(True):
        return [_said(lambda: f(5.0)),                              # eager: jnp.log, then log
                _said(lambda: jax.jit(f)(5.0)),                     # jit, then jnp.log, then log
                _said(lambda: jax.lax.log(-1.0)),                   # one primitive
                _said(lambda: jax.jit(lambda x: x + jnp.nan)(1.0)),     # not made op by op
                _said(lambda: jax.jit(lambda x: x / 0.0)(1.0)),     # re-run in Python: / 0.0
                _said(lambda: jax.jit(jax.jit(f))(5.0)),            # one level at a time
                _said(lambda: jax.jvp(jax.jit(jax.lax.log), (-1.0,), (1.0,))),   # an equation
                _said(lambda: jax.jit(f)(jnp.float32(-1.0))),       # no NaN: the value
                _said(lambda: jnp.sqrt(A3) * 2)]


def _infs(jax, jnp):
    with jax.debug_infs(True):
        return [_said(lambda: jax.lax.div(1.0, 0.0)),
                _said(lambda: jnp.exp(jnp.float32(100.0))),
                _said(lambda: jax.jit(lambda x: jnp.log(x))(0.0)),
                _said(lambda: jnp.log(-1.0)),                        # a NaN is not checked
                (jax.debug_infs.value, jax.debug_nans.value)]


def _off(jax, jnp):
    jax.config.update("jax_debug_nans", True)
    try:
        with jax.debug_nans(False):
            inside = jax.jit(_f(jnp))(5.0), jnp.log(-1.0)
        return inside, jax.debug_nans.value, jax.config.jax_debug_nans
    finally:
        jax.config.update("jax_debug_nans", False)


def _strict(jax, jnp):
    x, y = jnp.float32(1), jnp.int32(1)
    with jax.numpy_dtype_promotion("strict"):
        return [_said(lambda: x + y),                               # type_promotion.rst's
                _said(lambda: x + 1),
                _said(lambda: y + 2),
                _said(lambda: jnp.int8(1) + jnp.uint8(1)),
                _said(lambda: jnp.bool_(True) + 1),
                _said(lambda: jnp.promote_types("int32", "float32")),
                _said(lambda: (jnp.promote_types("int32", int), jnp.result_type(1, 1.0))),
                _said(lambda: jnp.add(1, 2.5)),                     # two weak types
                _said(lambda: jnp.float16(1) * jnp.float16(2)),     # one dtype
                _said(lambda: jax.jit(lambda a, b: a * b)(A3, 2)),
                _said(lambda: jax.jit(lambda a, b: a * b)(A3, A3.astype(np.int32))),
                str(jax.numpy_dtype_promotion.value), jax.config.jax_numpy_dtype_promotion]


def _strict_then_standard(jax, jnp):
    f = jax.jit(lambda a, b: a * b)
    b = A3.astype(np.int32)
    first = f(A3, b)                  # traced under standard promotion
    jax.config.update("jax_numpy_dtype_promotion", "strict")
    try:
        refused = _said(lambda: f(A3, b))
    finally:
        jax.config.update("jax_numpy_dtype_promotion", "standard")
    return first, refused, f(A3, b), str(jax.numpy_dtype_promotion.value)


def _guarded(jax, jnp, level):
    x, w = jnp.array(3), jnp.ones(3)
    w + 1, jax.jit(lambda v: v * 2)(1.0)        # scalars put on the device before the guard
    with jax.transfer_guard(level):
        return [_said(lambda: print("x", x)),                       # reading on the CPU
                _said(lambda: w + 1),                               # a scalar, each time
                _said(lambda: w + 1),
                _said(lambda: np.asarray(w)),
                _said(lambda: jax.device_get(w)),
                _said(lambda: jax.device_put(np.ones(2))),          # explicit
                _said(lambda: jax.device_put(w)),
                _said(lambda: jax.jit(lambda v: v * 2)(np.ones(3))),     # implicit
                _said(lambda: jax.jit(lambda v: v * 2)(1.0)),
                _said(lambda: jax.jit(lambda v: v * 2)(w)),
                _said(lambda: w + w),
                _said(lambda: jnp.sin(w))]


def _directions(jax, jnp):
    f = jax.jit(lambda v: v * 2)
    with jax.transfer_guard_host_to_device("disallow"):
        refused = _said(lambda: f(np.ones(3)))[1]
        inside = (jax.config.jax_transfer_guard, jax.config.jax_transfer_guard_host_to_device,
                  jax.transfer_guard_device_to_host.value)
    with jax.transfer_guard_device_to_host("disallow"):
        fetched = np.asarray(f(np.ones(2)))                 # the CPU's buffers: never refused
    jax.config.update("jax_transfer_guard", "disallow")
    try:
        everywhere = (jax.config.jax_transfer_guard,
                      jax.config.jax_transfer_guard_device_to_device,
                      _said(lambda: f(np.ones(4)))[1])
    finally:
        jax.config.update("jax_transfer_guard", None)
    return refused, inside, fetched, everywhere, jax.config.jax_transfer_guard_host_to_device


def _guide_text(jax, jnp, level):
    x = jnp.array(1)
    with jax.transfer_guard(level):
        try:
            jax.jit(lambda v: v + 1)(np.ones(2))
        except jax.errors.JaxRuntimeError as e:
            return re.sub(r", dst_sharding=.*", "", str(e))   # (the sharding's repr differs)


def _effects(jax, jnp):
    got = []
    jax.jit(lambda v: jax.debug.callback(got.append, v) or v)(jnp.float32(2.0))
    return jax.effects_barrier(), [float(v) for v in got]


FLAGS = {
    "debug_nans": C(_nans),
    "debug_nans off in a block": C(_off),
    "debug_infs": C(_infs),
    "debug_nans, the value": C(lambda jax, jnp: (jax.debug_nans.name, jax.debug_nans.value,
                                                 jax.debug_infs.name, jax.debug_infs.value)),
    "strict promotion": C(_strict),
    "strict promotion, after standard": C(_strict_then_standard),
    "dtype promotion, a bad value": E(lambda jax, jnp: jax.config.update(
        "jax_numpy_dtype_promotion", "loose")),
    "dtype promotion, a bad value's text": C(lambda jax, jnp: _said(
        lambda: jax.numpy_dtype_promotion("loose").__enter__())),
    "transfer guard disallow": C(lambda jax, jnp: _guarded(jax, jnp, "disallow")),
    "transfer guard disallow_explicit": C(lambda jax, jnp: _guarded(jax, jnp,
                                                                    "disallow_explicit")),
    "transfer guard allow": C(lambda jax, jnp: _guarded(jax, jnp, "allow")),
    "transfer guard directions": C(_directions),
    "transfer guard text": C(lambda jax, jnp: _guide_text(jax, jnp, "disallow")),
    "transfer guard, a bad level": C(lambda jax, jnp: [
        _said(lambda: jax.config.update("jax_transfer_guard", "nope")),
        _said(lambda: jax.transfer_guard("nope").__enter__()),
        _said(lambda: jax.transfer_guard_device_to_device(3).__enter__())]),
    "effects_barrier": C(_effects),
}


@pytest.mark.parametrize("name", _params(FLAGS))
def test_flags(name):
    check(FLAGS[name])
