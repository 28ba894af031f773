# Generated from chapters/12_random.md by `make export`: edit the chapter, not this file.


"""`jax.random`: Threefry-2x32, PRNG keys, uniform and normal, bit for bit with JAX's."""
from __future__ import annotations

import math
import operator
from functools import partial

import numpy as np

from autodidax import lax_core as lax
from autodidax import numpy as jnp
from autodidax.batching import batching_rules, vmap
from autodidax.bit_primitives import elementwise_batching    # appendix A20's
from autodidax.core import (Array, LiteralArray, Primitive, ShapedArray, Tracer,
                            abstract_eval_rules, canonicalize_dtype, dtype_kind, get_aval,
                            impl_rules, wrap_public_functions)
from autodidax.indexing import xla_impl
from autodidax.jaxpr import trace_to_jaxpr
from autodidax.jit import jit
from autodidax.jvp import defjvp_zero
from autodidax.lowering import call_lowering, ir_constant, jaxpr_subcomp, lowering_rules
from autodidax.scipy.special import erf_inv     # appendix A2's primitive
from autodidax.tree_util import register_pytree_node

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA       # Threefish's key-schedule constant


def _u32(value):
    return LiteralArray(np.asarray(value, np.uint32))


def rotate_left(x, d):
    """The bits of uint32 `x` rotated left by `d` places."""
    return lax.bitwise_or(lax.shift_left(x, _u32(d)), lax.shift_right_logical(x, _u32(32 - d)))


def threefry2x32_reference(k1, k2, x1, x2):
    """Threefry-2x32, 20 rounds, in `lax`: the uint32 counters (x1, x2) under the key (k1, k2)."""
    ks = [k1, k2, lax.bitwise_xor(lax.bitwise_xor(k1, k2), _u32(_PARITY))]
    x = [lax.add(x1, ks[0]), lax.add(x2, ks[1])]
    for i in range(5):                          # 5 groups of 4 rounds, a key injection after each
        for r in _ROTATIONS[i % 2]:
            x[0] = lax.add(x[0], x[1])
            x[1] = lax.bitwise_xor(x[0], rotate_left(x[1], r))
        x[0] = lax.add(x[0], ks[(i + 1) % 3])
        x[1] = lax.add(lax.add(x[1], ks[(i + 2) % 3]), _u32(i + 1))
    return x


threefry2x32_p = Primitive("threefry2x32")
threefry2x32_p.multiple_results = True


def _threefry2x32_abstract(k1, k2, x1, x2):
    if any(a.dtype != np.uint32 for a in (k1, k2, x1, x2)):
        raise TypeError(f"Arguments to threefry2x32 must have uint32 type, got "
                        f"{[a.str_short() for a in (k1, k2, x1, x2)]}")
    shape = lax.broadcasting_shape("threefry2x32", k1.shape, k2.shape, x1.shape, x2.shape)
    return [ShapedArray(shape, np.uint32)] * 2


_algorithm_jaxprs: dict = {}      # input avals -> the jaxpr of the algorithm at those types


def threefry2x32_jaxpr(avals):
    """The algorithm traced to a jaxpr for inputs of types `avals`: the primitive's meaning."""
    avals = tuple(ShapedArray(a.shape, a.dtype) for a in avals)
    if avals not in _algorithm_jaxprs:
        _algorithm_jaxprs[avals] = trace_to_jaxpr(threefry2x32_reference, avals)
    return _algorithm_jaxprs[avals]


def _threefry2x32_lowering(ctx, k1, k2, x1, x2):
    return call_lowering(ctx, "threefry2x32", threefry2x32_jaxpr(ctx.avals_in), k1, k2, x1, x2)


impl_rules[threefry2x32_p] = xla_impl(threefry2x32_p)
abstract_eval_rules[threefry2x32_p] = _threefry2x32_abstract
batching_rules[threefry2x32_p] = elementwise_batching(threefry2x32_p)
lowering_rules[threefry2x32_p] = _threefry2x32_lowering
defjvp_zero(threefry2x32_p)


def threefry2x32(k1, k2, x1, x2):
    return threefry2x32_p.bind(k1, k2, x1, x2)


KEY_SHAPE = (2,)


def _key_halves(key):
    """The two uint32 words of a raw key, as scalars."""
    return [lax.reshape(lax.slice(key, [i], [i + 1]), ()) for i in range(2)]


def iota_2x32_shape(shape):
    """The counters 0, 1, 2, ... laid out in `shape`, as two uint32 arrays (high and low
    words of a 64-bit count). With fewer than 2**32 elements the high words are all 0."""
    size = math.prod(shape)
    if size >= 2 ** 32:
        raise NotImplementedError("random arrays of 2**32 or more elements")
    zeros = lax.full(shape, 0, np.uint32)
    if not shape:
        return zeros, zeros
    return zeros, lax.reshape(lax.iota(np.uint32, size), shape)


@partial(jit, static_argnums=(1,))
def _threefry_split(key, shape):
    k1, k2 = _key_halves(key)
    bits1, bits2 = threefry2x32(k1, k2, *iota_2x32_shape(shape))
    return lax.stack([bits1, bits2], axis=len(shape))


@jit
def _threefry_fold_in(key, data):
    k1, k2 = _key_halves(key)
    bits1, bits2 = threefry2x32(k1, k2, lax.full((1,), 0, np.uint32), lax.reshape(data, (1,)))
    return lax.concatenate([bits1, bits2], 0)


@partial(jit, static_argnums=(1, 2))
def _threefry_random_bits(key, bit_width, shape):
    k1, k2 = _key_halves(key)
    bits1, bits2 = threefry2x32(k1, k2, *iota_2x32_shape(shape))
    if bit_width == 64:                  # both words: the first one high (64-bit mode)
        hi, lo = (lax.convert_element_type(b, np.uint64) for b in (bits1, bits2))
        return lax.bitwise_or(lax.shift_left(hi, LiteralArray(np.uint64(32))), lo)
    bits = lax.bitwise_xor(bits1, bits2)
    return bits if bit_width == 32 else lax.convert_element_type(bits, f"uint{bit_width}")


class PRNGImpl:
    """The PRNG implementation a key type names: here only threefry2x32, tagged `fry`."""
    name, tag = "threefry2x32", "fry"

    def __repr__(self):
        return self.tag


threefry_prng_impl = PRNGImpl()
raw_key_checks: list = []      # appendix A25's checks of raw keys (below)


class KeyShapedArray(ShapedArray):
    """The type of an array of keys, `key<fry>[3]`, with the shape and dtype of its data."""
    __slots__ = ()

    def __init__(self, key_shape):
        super().__init__(tuple(key_shape) + KEY_SHAPE, np.uint32)

    key_shape = property(lambda self: self.shape[:-1])

    def str_short(self, short_dtypes=True):
        return f"key<fry>[{','.join(map(str, self.key_shape))}]"

    def update(self, shape=None, dtype=None, weak_type=None):
        return self if shape is None else KeyShapedArray(tuple(shape)[:-1])

    def __eq__(self, other):
        return type(other) is KeyShapedArray and self.shape == other.shape

    def __hash__(self):
        return hash(("key<fry>", self.shape))

    def __repr__(self):
        return f"ShapedArray({self.str_short()})"


def _key_shape(aval):
    """The shape of the keys of a key aval (or of raw key data, which eager values carry)."""
    if aval.dtype != np.uint32 or aval.shape[-1:] != KEY_SHAPE:
        raise TypeError(f"expected keys, got {aval.str_short()}")
    return aval.shape[:-1]


def _over_keys(raw_fun, keys, *args):
    """`raw_fun`, which takes one raw key, applied to each key of an array of raw keys."""
    key_shape = get_aval(keys).shape[:-1]
    if not key_shape:
        return raw_fun(keys, *args)
    flat = lax.reshape(keys, (math.prod(key_shape),) + KEY_SHAPE)
    in_axes = (0,) + tuple(0 if get_aval(a).shape else None for a in args)
    out = vmap(raw_fun, in_axes=in_axes)(flat, *(lax.reshape(a, (flat.shape[0],))
                                                 if get_aval(a).shape else a for a in args))
    return lax.reshape(out, key_shape + get_aval(out).shape[1:])


def _key_primitive(name, abstract_eval, raw_impl):
    """A key operation whose meaning is `raw_impl` on the raw data."""
    primitive = Primitive(name)
    abstract_eval_rules[primitive] = abstract_eval
    impl_rules[primitive] = lambda *args, **params: np.asarray(raw_impl(*args, **params))

    def lowering(ctx, *args, **params):
        physical = [ShapedArray(a.shape, a.dtype) for a in ctx.avals_in]
        closed = trace_to_jaxpr(lambda *xs: [raw_impl(*xs, **params)], physical)
        consts = [ir_constant(c, v.aval.dtype)
                  for c, v in zip(closed.consts, closed.jaxpr.constvars)]
        return jaxpr_subcomp(ctx.module_context, closed.jaxpr, consts, list(args))

    def batching(vals, dims, **params):
        size = next(get_aval(v).shape[d] for v, d in zip(vals, dims) if d is not None)
        moved = []
        for v, d in zip(vals, dims):
            if d is None:
                v = lax.broadcast_in_dim(v, (size,) + get_aval(v).shape,
                                         tuple(range(1, get_aval(v).ndim + 1)))
            elif d != 0:
                v = lax.transpose(v, [d] + [i for i in range(get_aval(v).ndim) if i != d])
            moved.append(v)
        return primitive.bind(*moved, **params), 0

    lowering_rules[primitive] = lowering
    batching_rules[primitive] = batching
    defjvp_zero(primitive)
    return primitive


def _seed_abstract(seeds, *, impl):
    if dtype_kind(seeds.dtype) not in "iu":
        raise TypeError(f"PRNG key seed must be an integer; got {seeds.str_short(False)}")
    return KeyShapedArray(seeds.shape)


def _wrap_abstract(data, *, impl):
    if data.dtype != np.uint32:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.dtype = "
                        f"uint32; got dtype={data.dtype.name}")
    if data.shape[-1:] != KEY_SHAPE:
        raise TypeError("JAX encountered invalid PRNG key data: expected key_data.shape to end "
                        f"with (2,); got shape={data.shape} for impl=threefry2x32")
    return KeyShapedArray(data.shape[:-1])


def _seed_raw(seeds, *, impl):
    word = lambda w: lax.reshape(lax.convert_element_type(w, np.uint32), (1,))
    seed_one = lambda s: lax.concatenate(   # the high word is 0 unless s is an int64 (x64)
        [word(lax.shift_right_logical(s, LiteralArray(np.asarray(32, s.dtype)))), word(s)], 0)
    shape = get_aval(seeds).shape
    if not shape:
        return seed_one(seeds)
    flat = vmap(seed_one)(lax.reshape(seeds, (math.prod(shape),)))
    return lax.reshape(flat, shape + KEY_SHAPE)


random_seed_p = _key_primitive("random_seed", _seed_abstract, _seed_raw)
random_wrap_p = _key_primitive("random_wrap", _wrap_abstract, lambda data, *, impl: data)
random_unwrap_p = _key_primitive(
    "random_unwrap", lambda keys: ShapedArray(keys.shape, np.uint32), lambda keys: keys)
random_split_p = _key_primitive(
    "random_split", lambda keys, *, shape: KeyShapedArray(_key_shape(keys) + shape),
    lambda keys, *, shape: _over_keys(lambda k: _threefry_split(k, shape), keys))
random_fold_in_p = _key_primitive(
    "random_fold_in", lambda keys, msgs: KeyShapedArray(_key_shape(keys)),
    lambda keys, msgs: _over_keys(_threefry_fold_in, keys, msgs))
random_bits_p = _key_primitive(
    "random_bits", lambda keys, *, bit_width, shape: ShapedArray(
        _key_shape(keys) + shape, f"uint{bit_width}"),
    lambda keys, *, bit_width, shape: _over_keys(
        lambda k: _threefry_random_bits(k, bit_width, shape), keys))


def _is_key_array(x):
    return isinstance(x, PRNGKeyArray)


def check_prng_key(name, key, allow_batched=False):
    """`(keys, was_typed)`: `keys` of a key type (`key<fry>`), from a typed key or from raw key
    data, checked as JAX checks them; one key unless `allow_batched`."""
    typed = _is_key_array(key)
    if typed:
        data = key._base
    elif isinstance(key, (Tracer, np.ndarray, np.generic)) or hasattr(key, "aval"):
        data = key
    else:
        raise TypeError(f"unexpected PRNG key type {type(key)}")
    if type(get_aval(data)) is KeyShapedArray:           # already keys: a typed key's data
        keys = data
    else:
        keys = random_wrap_p.bind(data, impl=threefry_prng_impl)  # checks dtype and shape
        for check in raw_key_checks:        # appendix A25's option `jax_legacy_prng_key`
            check()
    if not allow_batched and get_aval(data).ndim > 1:
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape "
                         f"{get_aval(data).shape[:-1] if typed else get_aval(data).shape} != (). "
                         "Use jax.vmap for batching.")
    return keys, typed


def _return_keys(keys, typed):
    return PRNGKeyArray(keys) if typed else random_unwrap_p.bind(keys)


def _seed(ctor_name, seed):
    if _is_key_array(seed):
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given a PRNG key.")
    if not isinstance(seed, (int, float, Tracer, np.ndarray, np.generic)) and not hasattr(
            seed, "aval"):
        seed = jnp.asarray(seed)
    if isinstance(seed, int) and not isinstance(seed, bool):
        # JAX takes a Python int as an int64 (an OverflowError past it), then keeps its low 32 bits
        seed = np.int64(seed).astype(canonicalize_dtype(np.int64))     # (all 64 in x64 mode)
    elif isinstance(seed, float):
        seed = LiteralArray(np.float32(seed), weak_type=True)
    shape = get_aval(seed).shape
    if shape:
        raise TypeError(f"{ctor_name} accepts a scalar seed, but was given an array of shape "
                        f"{shape} != (). Use jax.vmap for batching")
    return random_seed_p.bind(seed, impl=threefry_prng_impl)


def PRNGKey(seed):
    """A raw key, a `uint32[2]` array, from an integer seed."""
    return random_unwrap_p.bind(_seed("PRNGKey", seed))


def split(key, num=2):
    """`num` new keys (or an array of keys of shape `num`) from one key."""
    keys, typed = check_prng_key("split", key)
    shape = tuple(map(int, num)) if isinstance(num, (tuple, list)) else (int(num),)
    return _return_keys(random_split_p.bind(keys, shape=shape), typed)


def fold_in(key, data):
    """A new key, a function of `key` and the 32-bit integer `data`."""
    keys, typed = check_prng_key("fold_in", key)
    if get_aval(data).ndim if isinstance(data, (Tracer, np.ndarray)) or hasattr(data, "aval") \
            else np.ndim(data):
        raise TypeError("fold_in accepts a scalar, but was given an array of"
                        f"shape {np.shape(data)} != (). Use jax.vmap for batching.")
    if isinstance(data, int):
        data = LiteralArray(np.asarray(data).astype(np.uint32))
    else:
        data = lax.convert_element_type(data, np.uint32)
    return _return_keys(random_fold_in_p.bind(keys, data), typed)


def canonical_shape(shape):
    """`shape` as a tuple of ints, a float refused (JAX's `core.canonicalize_shape`)."""
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, "
                        f"got {shape}.") from None


def bits(key, shape=(), dtype=None):
    """Uniformly random unsigned integers: every bit equally likely 0 or 1."""
    keys, _ = check_prng_key("bits", key)
    dtype = canonicalize_dtype(np.uint64 if dtype is None else dtype)     # uint32 unless x64
    if dtype_kind(dtype) != "u":
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    return random_bits_p.bind(keys, bit_width=dtype.itemsize * 8, shape=canonical_shape(shape))


def random_bits(keys, bit_width, shape):
    return random_bits_p.bind(keys, bit_width=bit_width, shape=shape)


class KeyData(Array):
    """Concrete keys: `uint32` data (each key's two words on the last axis) of the key type."""
    __slots__ = ()

    @property
    def aval(self):
        return KeyShapedArray(self._value.shape[:-1])


class PRNGKeyArray:
    """Typed keys, of dtype `key<fry>`: a pytree whose leaf is a `KeyData` or a tracer."""
    __slots__ = ("_base",)

    def __init__(self, base):
        if not isinstance(base, (Tracer, KeyData)) and get_aval(base).dtype == np.uint32:
            base = KeyData(np.asarray(base))
        self._base = base       # (a float0 zero, the tangent of keys, stays as it is)

    shape = property(lambda self: tuple(get_aval(self._base).shape[:-1]))
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: math.prod(self.shape))
    dtype = property(lambda self: key_dtype)

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __getitem__(self, index):
        if not isinstance(index, (int, np.integer)):
            raise NotImplementedError("autodidax indexes key arrays by integers only")
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"index {index} is out of bounds for axis 0 with size {n}")
        index %= n
        if not isinstance(self._base, Tracer):
            return PRNGKeyArray(np.asarray(self._base)[index])
        data = random_unwrap_p.bind(self._base)
        rest = get_aval(data).shape[1:]
        piece = lax.slice(data, (index,) + (0,) * len(rest), (index + 1,) + rest)
        return PRNGKeyArray(random_wrap_p.bind(lax.reshape(piece, rest),
                                               impl=threefry_prng_impl))

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __repr__(self):
        data = self._base if isinstance(self._base, Tracer) else np.asarray(self._base)
        return f"Array({self.shape}, dtype=key<fry>) overlaying:\n{data}"

    __str__ = __repr__


class KeyDtype:
    """The dtype of typed threefry keys, printed `key<fry>`."""
    name = "key<fry>"

    def __repr__(self):
        return "key<fry>"

    __str__ = __repr__


key_dtype = KeyDtype()
register_pytree_node(PRNGKeyArray, lambda k: ((k._base,), None),
                     lambda _, children: PRNGKeyArray(children[0]))


def key(seed):
    """A typed key, a scalar array of dtype `key<fry>`, from an integer seed."""
    return PRNGKeyArray(_seed("key", seed))


def key_data(keys):
    """The `uint32` data under an array of keys (a raw key is returned as it is)."""
    keys, _ = check_prng_key("key_data", keys, allow_batched=True)
    return random_unwrap_p.bind(keys)


def wrap_key_data(key_bits_array, *, impl=None):
    """Typed keys over `uint32` data whose last axis has the 2 words of each key."""
    if impl not in (None, "threefry2x32"):
        raise ValueError(f"autodidax has only the threefry2x32 PRNG, got impl={impl!r}")
    keys, _ = check_prng_key("wrap_key_data", key_bits_array, allow_batched=True)
    return PRNGKeyArray(keys)


def key_impl(keys):
    check_prng_key("key_impl", keys, allow_batched=True)
    return "threefry2x32"


def float_dtype(name, dtype):
    """`dtype` (the default float if None) if it is a float dtype; JAX's error otherwise."""
    dtype = canonicalize_dtype(np.float64 if dtype is None else dtype)   # float32 unless x64
    if dtype_kind(dtype) != "f":
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dtype}")
    return dtype


def check_shape(name, shape, *param_shapes):
    """JAX's error unless the parameters' shapes broadcast to `shape`."""
    if param_shapes:
        shape_ = tuple(jnp.broadcast_shapes(shape, *param_shapes))
        if shape != shape_:
            raise ValueError(f"{name} parameter shapes must be broadcast-compatible with shape "
                             "argument, and the result of broadcasting the shapes must equal the "
                             f"shape argument, but got result {shape_} for shape argument {shape}.")


def broadcast_to_rank(x, rank):
    """`x` with leading axes of size 1 up to rank `rank` (JAX's `lax.broadcast_to_rank`)."""
    shape, lead = get_aval(x).shape, rank - get_aval(x).ndim
    return x if lead <= 0 else lax.broadcast_in_dim(x, (1,) * lead + shape, range(lead, rank))


@partial(jit, static_argnums=(3, 4))
def _uniform(key, minval, maxval, shape, dtype):
    check_shape("uniform", shape)
    minval, maxval = (lax.convert_element_type(v, dtype) for v in (minval, maxval))
    minval, maxval = (broadcast_to_rank(v, len(shape)) for v in (minval, maxval))
    finfo = jnp.finfo(dtype)          # ml_dtypes.finfo: bfloat16 too
    nbits, nmant = finfo.bits, finfo.nmant
    uint = np.dtype(f"uint{nbits}")
    rng_bits = 8 if nmant < 8 else nbits     # bfloat16 and the float8s: 8 random bits, as JAX
    raw = lax.convert_element_type(random_bits(key, rng_bits, shape), uint)   # (no-op: 32 bits)
    # Keep `nmant` random bits as the mantissa of a float in [1, 2), then subtract 1.
    mantissa = lax.shift_right_logical(raw, LiteralArray(np.asarray(rng_bits - nmant, uint)))
    one_bits = LiteralArray(np.asarray(1.0, dtype).view(uint))
    floats = lax.sub(lax.bitcast_convert_type(lax.bitwise_or(mantissa, one_bits), dtype),
                     LiteralArray(np.asarray(1.0, dtype)))
    return lax.max(minval, lax.reshape(jnp.add(jnp.multiply(floats, jnp.subtract(maxval, minval)),
                                               minval), shape))


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Floats uniformly distributed in [minval, maxval)."""
    key, _ = check_prng_key("uniform", key)
    return _uniform(key, minval, maxval, canonical_shape(shape), float_dtype("uniform", dtype))


@partial(jit, static_argnums=(1, 2))
def _normal(key, shape, dtype):
    return _normal_real(key, shape, dtype)    # JAX's `_normal` also draws complex normals


@partial(jit, static_argnums=(1, 2))
def _normal_real(key, shape, dtype):
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    u = _uniform(key, lo, np.array(1.0, dtype), shape, dtype)
    return lax.mul(np.array(np.sqrt(2), dtype), erf_inv(u))


def normal(key, shape=(), dtype=None):
    """Standard normal floats: sqrt(2) erfinv(u) for u uniform in (-1, 1)."""
    key, _ = check_prng_key("normal", key)
    return _normal(key, canonical_shape(shape), float_dtype("normal", dtype))


wrap_public_functions(globals(), __name__)   # every public function above: an API boundary
