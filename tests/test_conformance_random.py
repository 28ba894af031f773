"""Conformance cases for `jax.random` (chapter 12): the same programs under JAX and autodidax,
compared by the harness of `test_conformance.py` (read its docstring for the case kinds C, B,
E and J). Random numbers are compared bit for bit (B), floats included."""
import numpy as np
import pytest

from test_conformance import F32, B, E, J, check, _params  # noqa: F401

M34 = np.arange(12, dtype=np.float32).reshape(3, 4)
LOGITS = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))
P4 = np.array([0.1, 0.0, 0.6, 0.3], np.float32)


def _k(jax, seed=0):
    return jax.random.PRNGKey(seed)


def _keys(jax, n=3, seed=0):
    return jax.random.split(jax.random.PRNGKey(seed), n)


# (name, program of a key) for the samplers: each runs eagerly, under jit and under vmap.
_SAMPLERS = {
    "bits": lambda jax, k: jax.random.bits(k, (3, 4)),
    "bits uint8": lambda jax, k: jax.random.bits(k, (5,), np.uint8),
    "bits uint16": lambda jax, k: jax.random.bits(k, (5,), np.uint16),
    "uniform": lambda jax, k: jax.random.uniform(k, (2, 5)),
    "uniform scalar": lambda jax, k: jax.random.uniform(k),
    "uniform bounds": lambda jax, k: jax.random.uniform(k, (5,), minval=-2.0, maxval=F32[:5]),
    "uniform float16": lambda jax, k: jax.random.uniform(k, (7,), np.float16),
    "normal": lambda jax, k: jax.random.normal(k, (3, 3)),
    "normal odd size": lambda jax, k: jax.random.normal(k, (7,)),
    "split": lambda jax, k: jax.random.split(k),
    "split num": lambda jax, k: jax.random.split(k, 5),
    "split shape": lambda jax, k: jax.random.split(k, (2, 3)),
    "fold_in": lambda jax, k: jax.random.fold_in(k, 12345),
    "bernoulli": lambda jax, k: jax.random.bernoulli(k, 0.3, (10,)),
    "bernoulli p array": lambda jax, k: jax.random.bernoulli(k, np.array([0.1, 0.5, 0.9],
                                                                         np.float32)),
    "randint": lambda jax, k: jax.random.randint(k, (10,), 0, 10),
    "randint negative": lambda jax, k: jax.random.randint(k, (2, 3), -100, 7),
    "randint uint8 full": lambda jax, k: jax.random.randint(k, (8,), 0, 256, np.uint8),
    "truncated_normal": lambda jax, k: jax.random.truncated_normal(k, -1.0, 2.0, (6,)),
    "truncated_normal narrow": lambda jax, k: jax.random.truncated_normal(k, 0.5, 0.6, (6,)),
    "exponential": lambda jax, k: jax.random.exponential(k, (6,)),
    "gumbel": lambda jax, k: jax.random.gumbel(k, (2, 3)),
    "gumbel high": lambda jax, k: jax.random.gumbel(k, (5,), mode="high"),
    "bernoulli high": lambda jax, k: jax.random.bernoulli(k, 0.3, (6,), mode="high"),
    "categorical high": lambda jax, k: jax.random.categorical(k, LOGITS, mode="high"),
    "categorical": lambda jax, k: jax.random.categorical(k, LOGITS),
    "categorical shape": lambda jax, k: jax.random.categorical(k, LOGITS, shape=(4, 2)),
    "categorical axis 0": lambda jax, k: jax.random.categorical(k, LOGITS, axis=0),
    "permutation int": lambda jax, k: jax.random.permutation(k, 10),
    "permutation two rounds": lambda jax, k: jax.random.permutation(k, 2000),
    "permutation rows": lambda jax, k: jax.random.permutation(k, M34),
    "permutation axis 1": lambda jax, k: jax.random.permutation(k, M34, axis=1),
    "permutation independent": lambda jax, k: jax.random.permutation(k, M34, 1, True),
    "choice int": lambda jax, k: jax.random.choice(k, 5, (3,)),
    "choice no replace": lambda jax, k: jax.random.choice(k, 5, (2, 2), replace=False),
    "choice array axis 1": lambda jax, k: jax.random.choice(k, M34, (2,), axis=1),
    "choice array no replace": lambda jax, k: jax.random.choice(k, M34, (1, 2), replace=False),
    "choice p": lambda jax, k: jax.random.choice(k, 3, (2, 4), p=LOGITS[1] + 1.5),
    "choice p no replace": lambda jax, k: jax.random.choice(k, M34, (2,), False, P4, axis=1),
    "categorical no replace": lambda jax, k: jax.random.categorical(k, LOGITS, axis=0,
                                                                     shape=(2, 3), replace=False),
}

RANDOM = {}
for _name, _f in _SAMPLERS.items():
    RANDOM[_name] = B(lambda jax, jnp, f=_f: [f(jax, _k(jax, s)) for s in (0, 1, 42)])
    RANDOM[f"{_name} jit"] = B(lambda jax, jnp, f=_f: jax.jit(lambda k: f(jax, k))(_k(jax, 7)))
    RANDOM[f"{_name} vmap"] = B(lambda jax, jnp, f=_f: jax.vmap(lambda k: f(jax, k))(
        _keys(jax, 3, 5)))

RANDOM.update({
    "PRNGKey seeds": B(lambda jax, jnp: [jax.random.PRNGKey(s) for s in
                                         (0, 42, -1, 2 ** 31 - 1, 2 ** 32 + 5, -2 ** 40)]),
    "PRNGKey numpy seeds": B(lambda jax, jnp: [jax.random.PRNGKey(np.int32(7)),
                                               jax.random.PRNGKey(np.uint32(4000000000))]),
    "PRNGKey jit": B(lambda jax, jnp: jax.jit(jax.random.PRNGKey)(5)),
    "PRNGKey vmap": B(lambda jax, jnp: jax.vmap(jax.random.PRNGKey)(np.arange(4))),
    "fold_in vmap data": B(lambda jax, jnp: jax.vmap(jax.random.fold_in, in_axes=(None, 0))(
        _k(jax), np.arange(4))),
    "split of split": B(lambda jax, jnp: jax.random.split(jax.random.split(_k(jax, 3))[1], 4)),
    "key data": B(lambda jax, jnp: jax.random.key_data(jax.random.key(42))),
    "key split data": B(lambda jax, jnp: jax.random.key_data(
        jax.random.split(jax.random.key(3), 4))),
    "key normal": B(lambda jax, jnp: jax.random.normal(jax.random.key(3), (4,))),
    "key unpack": B(lambda jax, jnp: [jax.random.uniform(k, (2,)) for k in
                                      jax.random.split(jax.random.key(1))]),
    "key vmap": B(lambda jax, jnp: jax.vmap(lambda k: jax.random.normal(k, (2,)))(
        jax.random.split(jax.random.key(1), 3))),
    "key jit": B(lambda jax, jnp: jax.jit(lambda k: jax.random.uniform(k, (3,)))(
        jax.random.key(9))),
    "wrap key data": B(lambda jax, jnp: jax.random.normal(
        jax.random.wrap_key_data(jax.random.PRNGKey(4)), (3,))),
    "keys out of jit": J(lambda jax, jnp: repr(jax.jit(lambda k: jax.random.split(k, 3))(
        jax.random.key(9)))),
    "keys through jit twice": B(lambda jax, jnp: jax.random.key_data(jax.jit(
        jax.random.split)(jax.jit(lambda k: jax.random.fold_in(k, 2))(jax.random.key(9))))),
    "key carried by scan": B(lambda jax, jnp: jax.jit(lambda k: jax.lax.scan(
        lambda k, _: (lambda ks: (ks[0], jax.random.uniform(ks[1])))(jax.random.split(k)),
        k, None, length=3))(jax.random.key(0))[1]),
    "key carried by eager scan": B(lambda jax, jnp: jax.random.key_data(jax.lax.scan(
        lambda k, _: (jax.random.fold_in(k, 1), 0), jax.random.key(5), None, length=2)[0])),
    "key vmap of jit": B(lambda jax, jnp: jax.vmap(jax.jit(lambda k: jax.random.bits(k, (2,))))(
        jax.random.split(jax.random.key(8), 3))),
    "key repr": J(lambda jax, jnp: repr(jax.random.key(42))),
    "keys repr": J(lambda jax, jnp: repr(jax.random.split(jax.random.key(42), 3))),
    "reused key gives equal draws": B(lambda jax, jnp: jax.random.normal(_k(jax), (3,))
                                      - jax.random.normal(_k(jax), (3,))),
    "shift_right_logical": B(lambda jax, jnp: jax.lax.shift_right_logical(
        np.array([0xFFFFFFFF, 8, 1], np.uint32), np.array([4, 33, 0], np.uint32))),
    "shift_left": B(lambda jax, jnp: jax.lax.shift_left(
        np.array([0xFFFFFFFF, 8, 1], np.uint32), np.array([4, 32, 31], np.uint32))),
    "shift_right_logical int32": B(lambda jax, jnp: jax.lax.shift_right_logical(
        np.array([-8, 8], np.int32), np.array([1, 1], np.int32))),
    "shift_right_arithmetic": B(lambda jax, jnp: jax.lax.shift_right_arithmetic(
        np.array([-8, 8, -1], np.int32), np.array([1, 1, 40], np.int32))),
    "shift jit vmap": B(lambda jax, jnp: jax.jit(jax.vmap(jax.lax.shift_left))(
        np.array([1, 2, 3], np.uint32), np.array([1, 2, 3], np.uint32))),
    "bitcast f32 to u32": B(lambda jax, jnp: jax.lax.bitcast_convert_type(F32, np.uint32)),
    "bitcast u32 to f32 jit": B(lambda jax, jnp: jax.jit(lambda x: jax.lax.bitcast_convert_type(
        x, np.float32))(np.array([0x3F800000, 0x7F800000, 1], np.uint32))),
    "bitcast i32 to f32 vmap": B(lambda jax, jnp: jax.vmap(lambda x: jax.lax.bitcast_convert_type(
        x, np.float32))(np.array([[0x3F800000], [0x40000000]], np.int32))),
    # printed jaxprs
    "jaxpr split": J(lambda jax, jnp: jax.make_jaxpr(lambda k: jax.random.split(k))(_k(jax))),
    "jaxpr split shape": J(lambda jax, jnp: jax.make_jaxpr(
        lambda k: jax.random.split(k, (2, 3)))(_k(jax))),
    "jaxpr fold_in": J(lambda jax, jnp: jax.make_jaxpr(lambda k: jax.random.fold_in(k, 3))(
        _k(jax))),
    "jaxpr bits": J(lambda jax, jnp: jax.make_jaxpr(lambda k: jax.random.bits(k, (3,)))(_k(jax))),
    "jaxpr bits uint8": J(lambda jax, jnp: jax.make_jaxpr(
        lambda k: jax.random.bits(k, (3,), np.uint8))(_k(jax))),
    "jaxpr key": J(lambda jax, jnp: jax.make_jaxpr(lambda: jax.random.key(1))()),
    "jaxpr PRNGKey": J(lambda jax, jnp: jax.make_jaxpr(lambda: jax.random.PRNGKey(1))()),
    "jaxpr vmap bits": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(
        lambda k: jax.random.bits(k, (2,))))(_keys(jax))),
    "jaxpr typed bits": J(lambda jax, jnp: jax.make_jaxpr(jax.random.bits)(jax.random.key(0))),
    "jaxpr typed split": J(lambda jax, jnp: jax.make_jaxpr(jax.random.split)(jax.random.key(0))),
    "jaxpr typed fold_in": J(lambda jax, jnp: jax.make_jaxpr(
        lambda k: jax.random.fold_in(k, 3))(jax.random.key(2))),
    "jaxpr key_data": J(lambda jax, jnp: jax.make_jaxpr(jax.random.key_data)(jax.random.key(0))),
    "jaxpr wrap_key_data": J(lambda jax, jnp: jax.make_jaxpr(jax.random.wrap_key_data)(_k(jax))),
    "jaxpr vmap typed normal": J(lambda jax, jnp: jax.make_jaxpr(jax.vmap(jax.random.normal))(
        jax.random.split(jax.random.key(0), 3))),
    "jaxpr typed key under jit": J(lambda jax, jnp: jax.make_jaxpr(jax.jit(
        lambda k: jax.random.uniform(jax.random.fold_in(k, 1))))(jax.random.key(4))),
    # errors
    "float key": E(lambda jax, jnp: jax.random.normal(np.zeros(2, np.float32))),
    "int32 key": E(lambda jax, jnp: jax.random.uniform(np.zeros(2, np.int32))),
    "key of wrong shape": E(lambda jax, jnp: jax.random.normal(np.zeros(3, np.uint32))),
    "split batched key": E(lambda jax, jnp: jax.random.split(_keys(jax))),
    "normal batched key": E(lambda jax, jnp: jax.random.normal(_keys(jax), (2,))),
    "bits batched typed key": E(lambda jax, jnp: jax.random.bits(
        jax.random.split(jax.random.key(0)))),
    "float seed": E(lambda jax, jnp: jax.random.PRNGKey(1.5)),
    "array seed": E(lambda jax, jnp: jax.random.key(np.arange(2))),
    "key as seed": E(lambda jax, jnp: jax.random.key(jax.random.key(0))),
    "fold_in array data": E(lambda jax, jnp: jax.random.fold_in(_k(jax), np.arange(2))),
    "bits int dtype": E(lambda jax, jnp: jax.random.bits(_k(jax), (2,), np.int32)),
    "uniform int dtype": E(lambda jax, jnp: jax.random.uniform(_k(jax), (2,), np.int32)),
    "randint float dtype": E(lambda jax, jnp: jax.random.randint(_k(jax), (2,), 0, 3,
                                                                 np.float32)),
    "bernoulli int p": E(lambda jax, jnp: jax.random.bernoulli(_k(jax), 1, (2,))),
    "uniform bad bounds shape": E(lambda jax, jnp: jax.random.uniform(
        _k(jax), (2,), minval=np.zeros(3, np.float32))),
    "choice more than population": E(lambda jax, jnp: jax.random.choice(_k(jax), 3, (5,),
                                                                        replace=False)),
    "choice p of the wrong shape": E(lambda jax, jnp: jax.random.choice(_k(jax), 3, (2,),
                                                                        p=P4)),
    "categorical no replace too many": E(lambda jax, jnp: jax.random.categorical(
        _k(jax), LOGITS, shape=(4, 2), replace=False)),
    "choice shape not a sequence": E(lambda jax, jnp: jax.random.choice(_k(jax), 3, 5)),
    "permutation float scalar": E(lambda jax, jnp: jax.random.permutation(_k(jax), 3.0)),
    "permutation bad axis": E(lambda jax, jnp: jax.random.permutation(_k(jax), M34, axis=2)),
    "gumbel bad mode": E(lambda jax, jnp: jax.random.gumbel(_k(jax), mode="middle")),
    "bernoulli bad mode": E(lambda jax, jnp: jax.random.bernoulli(_k(jax), mode="middle")),
    "shift of floats": E(lambda jax, jnp: jax.lax.shift_left(F32, F32)),
    "seed past int64": E(lambda jax, jnp: jax.random.PRNGKey(2 ** 63)),
    "seed cut to 32 bits": B(lambda jax, jnp: [jax.random.PRNGKey(s) for s in (
        2 ** 32 + 5, 2 ** 63 - 1, -2 ** 63, -1)]),
})


@pytest.mark.parametrize("name", _params(RANDOM))
def test_random(name):
    check(RANDOM[name])
