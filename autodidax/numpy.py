# Generated from chapters/01_primitives.md by `make export`: edit the chapter, not this file.


"""NumPy's interface on top of `lax`: type promotion, broadcasting, reductions, indexing."""
from __future__ import annotations

import builtins
import operator

import numpy as np

from autodidax import lax
from autodidax.core import (Array, Tracer, api_boundary, canonicalize_dtype, get_aval,
                            wrap_public_functions)


_KIND_ORDER = {"b": 0, "u": 1, "i": 1, "f": 2}
_BOOL, _INT32, _FLOAT32 = np.dtype("bool"), np.dtype("int32"), np.dtype("float32")
_PYTHON_SCALARS = (bool, int, float)


def _promote_two(a: np.dtype, b: np.dtype) -> np.dtype:
    """The least common dtype of two strongly typed dtypes, on JAX's lattice (64-bit off)."""
    if a == b:
        return a
    ka, kb = _KIND_ORDER[a.kind], _KIND_ORDER[b.kind]
    if ka != kb:
        return a if ka > kb else b
    if a.kind == b.kind:
        return a if a.itemsize >= b.itemsize else b
    signed, unsigned = (a, b) if a.kind == "i" else (b, a)
    if signed.itemsize > unsigned.itemsize:
        return signed
    return np.dtype(f"int{builtins.min(2 * unsigned.itemsize * 8, 32)}")


def result_type(*avals) -> tuple[np.dtype, bool]:
    """The dtype of an elementwise result, and whether it is weakly typed."""
    strong = [a.dtype for a in avals if not a.weak_type]
    weak = [a.dtype for a in avals if a.weak_type]
    if not strong:
        return builtins.max(weak, key=lambda d: _KIND_ORDER[d.kind]), True
    dtype = strong[0]
    for d in strong[1:]:
        dtype = _promote_two(dtype, d)
    for d in weak:
        if _KIND_ORDER[d.kind] > _KIND_ORDER[dtype.kind]:
            return d, True
    return dtype, False


def _is_array(x):
    return isinstance(x, (Array, Tracer))


def asarray(a, dtype=None):
    """An array from an array, a NumPy array, a Python scalar or a (nested) list of them."""
    if _is_array(a):
        if dtype is not None and canonicalize_dtype(dtype) != a.dtype:
            return lax.convert_element_type(a, dtype)
        return a
    if type(a) in _PYTHON_SCALARS:
        aval = get_aval(a)
        if dtype is None:
            return Array(np.asarray(a, aval.dtype), weak_type=aval.weak_type)
        return Array(np.asarray(a, canonicalize_dtype(dtype)))
    if isinstance(a, (list, tuple)) and any(_is_array(e) or isinstance(e, (list, tuple))
                                            for e in a):
        return stack([asarray(e, dtype) for e in a])
    value = np.asarray(a)
    if value.dtype.kind in "OSUV":
        raise TypeError(f"Argument {a!r} of type {type(a)} is not a valid JAX type: pass arrays, "
                        "NumPy arrays, Python scalars, or lists of numbers")
    get_aval(value)   # rejects unsupported dtypes with a clear message
    return Array(np.array(value, dtype=canonicalize_dtype(dtype or value.dtype)))


def array(a, dtype=None):
    return asarray(a, dtype)


def _promote_dtypes(*args):
    """Convert the arguments to their common dtype (and weak type, as JAX does)."""
    args = [a if _is_array(a) else asarray(a) for a in args]
    avals = [a.aval for a in args]
    dtype, weak = result_type(*avals)
    return [a if (v.dtype, v.weak_type) == (dtype, weak) else _convert(a, dtype, weak)
            for a, v in zip(args, avals)]


def _convert(a, dtype, weak):
    """Convert a concrete array on the spot (it stays a constant); bind the primitive for a
    tracer, whose value is not known yet."""
    if isinstance(a, Array):
        return Array(a._value.astype(dtype), weak_type=weak)
    return lax.convert_element_type(a, dtype, weak_type=weak)


def _promote(name, *args):
    """Convert the arguments to their common dtype and make their ranks agree."""
    args = _promote_dtypes(*args)
    return _broadcast_ranks(name, args, [a.shape for a in args])


def _broadcast_ranks(name, args, shapes):
    """Give every non-scalar argument the same rank by adding leading dimensions of size 1."""
    ranks = {len(s) for s in shapes if s}
    if len(ranks) < 2:
        return args
    rank = builtins.max(ranks)
    padded = [(1,) * (rank - len(s)) + s if s else s for s in shapes]
    try:
        lax.broadcasting_shape(name, *padded)
    except TypeError:    # report the shapes the user wrote, not the padded ones
        raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                        f"{', '.join(map(str, shapes))}.") from None
    return [lax.broadcast_in_dim(a, p, range(rank - len(s), rank)) if s and len(s) < rank else a
            for a, s, p in zip(args, shapes, padded)]


def _to_float(x):
    x = x if _is_array(x) else asarray(x)
    if x.dtype.kind in "biu":
        return lax.convert_element_type(x, _FLOAT32, weak_type=x.aval.weak_type)
    return x


def sin(x): return lax.sin(_to_float(x))
def cos(x): return lax.cos(_to_float(x))
def exp(x): return lax.exp(_to_float(x))
def log(x): return lax.log(_to_float(x))
def tanh(x): return lax.tanh(_to_float(x))
def sqrt(x): return lax.sqrt(_to_float(x))
def negative(x): return lax.neg(asarray(x))
def abs(x): return lax.abs(asarray(x))
def sign(x): return lax.sign(asarray(x))
def square(x): return lax.square(asarray(x))
def add(x, y): return lax.add(*_promote("add", x, y))
def subtract(x, y): return lax.sub(*_promote("sub", x, y))
def multiply(x, y): return lax.mul(*_promote("mul", x, y))
def maximum(x, y): return lax.max(*_promote("max", x, y))
def minimum(x, y): return lax.min(*_promote("min", x, y))
def greater(x, y): return lax.gt(*_promote("gt", x, y))
def less(x, y): return lax.lt(*_promote("lt", x, y))
def greater_equal(x, y): return lax.ge(*_promote("ge", x, y))
def less_equal(x, y): return lax.le(*_promote("le", x, y))
def equal(x, y): return lax.eq(*_promote("eq", x, y))
def not_equal(x, y): return lax.ne(*_promote("ne", x, y))
absolute = abs


def true_divide(x, y):
    x, y = _promote("div", x, y)
    return lax.div(_to_float(x), _to_float(y))


divide = true_divide


def power(x, y):
    if type(y) is int:
        return lax.integer_pow(asarray(x), y)    # x ** 2 is a multiplication, not exp(2 log x)
    return lax.pow(*_promote("pow", x, y))


def where(condition, x, y):
    """Elementwise `x` where `condition` is true, else `y`."""
    condition = asarray(condition)
    if condition.dtype != _BOOL:
        condition = not_equal(condition, 0)
    x, y = _promote("select_n", x, y)
    condition, x, y = _broadcast_ranks("select_n", [condition, x, y],
                                       [condition.shape, x.shape, y.shape])
    shape = lax.broadcasting_shape("select_n", condition.shape, x.shape, y.shape)
    condition, x, y = [a if a.shape == shape else broadcast_to(a, shape) for a in (condition, x, y)]
    return lax.select_n(condition, y, x)


def clip(a, a_min=None, a_max=None):
    a = asarray(a)
    a = a if a_min is None else maximum(a, a_min)
    return a if a_max is None else minimum(a, a_max)


def shape(a): return asarray(a).shape
def ndim(a): return asarray(a).ndim
def size(a): return asarray(a).size


def broadcast_to(a, shape):
    a = asarray(a)
    shape = tuple(shape)
    lead = len(shape) - a.ndim
    if lead < 0 or any(d not in (1, s) for d, s in zip(a.shape, shape[lead:])):
        raise ValueError(f"cannot broadcast an array of shape {a.shape} to shape {shape}")
    if a.shape == shape:
        return a
    return lax.broadcast_in_dim(a, shape, range(lead, len(shape)))


def reshape(a, *shape):
    a = asarray(a)
    shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
    shape = tuple(operator.index(d) for d in shape)
    if shape.count(-1) > 1:
        raise ValueError(f"can only specify one unknown dimension (-1), got {shape}")
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1]))
        if known == 0 or a.size % known:
            raise TypeError(f"cannot reshape array of shape {a.shape} (size {a.size}) "
                            f"into shape {shape}")
        shape = tuple(a.size // known if d == -1 else d for d in shape)
    return a if shape == a.shape else lax.reshape(a, shape)


def ravel(a): return reshape(a, -1)


def _canonical_axis(axis, ndim):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def transpose(a, axes=None):
    a = asarray(a)
    axes = range(a.ndim)[::-1] if axes is None else [_canonical_axis(d, a.ndim) for d in axes]
    return lax.transpose(a, axes)


def swapaxes(a, axis1, axis2):
    a = asarray(a)
    perm = list(range(a.ndim))
    i, j = _canonical_axis(axis1, a.ndim), _canonical_axis(axis2, a.ndim)
    perm[i], perm[j] = perm[j], perm[i]
    return lax.transpose(a, perm)


def moveaxis(a, source, destination):
    a = asarray(a)
    perm = list(range(a.ndim))
    perm.insert(_canonical_axis(destination, a.ndim),
                perm.pop(_canonical_axis(source, a.ndim)))
    return a if perm == list(range(a.ndim)) else lax.transpose(a, perm)


def expand_dims(a, axis):
    a = asarray(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    ndim = a.ndim + len(axes)
    return lax.expand_dims(a, sorted(_canonical_axis(d, ndim) for d in axes))


def squeeze(a, axis=None):
    a = asarray(a)
    if axis is None:
        axes = [i for i, d in enumerate(a.shape) if d == 1]
    else:
        axes = [_canonical_axis(d, a.ndim) for d in ((axis,) if isinstance(axis, int) else axis)]
    return lax.squeeze(a, axes) if axes else a


def concatenate(arrays, axis=0):
    arrays = _promote_dtypes(*arrays)
    return lax.concatenate(arrays, _canonical_axis(axis, arrays[0].ndim))


def stack(arrays, axis=0):
    arrays = [asarray(a) for a in arrays]
    if len({a.shape for a in arrays}) != 1:
        raise ValueError("all input arrays must have the same shape, got "
                         + ", ".join(str(a.shape) for a in arrays))
    axis = _canonical_axis(axis, arrays[0].ndim + 1)
    return concatenate([expand_dims(a, axis) for a in arrays], axis)


def full(shape, fill_value, dtype=None):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return broadcast_to(asarray(fill_value, dtype), shape)


def zeros(shape, dtype=None): return full(shape, 0, dtype or _FLOAT32)
def ones(shape, dtype=None): return full(shape, 1, dtype or _FLOAT32)
def zeros_like(a, dtype=None): return full(shape(a), 0, dtype or asarray(a).dtype)
def ones_like(a, dtype=None): return full(shape(a), 1, dtype or asarray(a).dtype)
def full_like(a, fill_value, dtype=None): return full(shape(a), fill_value, dtype or asarray(a).dtype)


def arange(start, stop=None, step=None, dtype=None):
    value = np.arange(start, stop, step) if step is not None else (
        np.arange(start) if stop is None else np.arange(start, stop))
    return Array(value.astype(canonicalize_dtype(dtype or value.dtype)))


def linspace(start, stop, num=50, endpoint=True, dtype=None):
    value = np.linspace(float(start), float(stop), num, endpoint=endpoint)
    return Array(value.astype(canonicalize_dtype(dtype or _FLOAT32)))


def eye(N, M=None, k=0, dtype=None):
    return Array(np.eye(N, M, k, dtype=canonicalize_dtype(dtype or _FLOAT32)))


def astype(x, dtype):
    return lax.convert_element_type(asarray(x), dtype)


def _reduction_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if not isinstance(axis, (tuple, list)) else axis
    axes = tuple(_canonical_axis(a, ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"repeated axis in {axis}")
    return axes


def _reduce(reducer, a, axis, keepdims):
    axes = _reduction_axes(axis, a.ndim)
    out = reducer(a, axes)
    return lax.expand_dims(out, axes) if keepdims else out


def sum(a, axis=None, keepdims=False, dtype=None):
    a = asarray(a)
    if dtype is not None:
        a = astype(a, dtype)
    elif a.dtype.kind == "b" or a.dtype.kind in "iu" and a.dtype.itemsize < 4:
        a = astype(a, np.dtype("uint32") if a.dtype.kind == "u" else _INT32)
    return _reduce(lax.reduce_sum, a, axis, keepdims)


def mean(a, axis=None, keepdims=False):
    a = _to_float(a)
    axes = _reduction_axes(axis, a.ndim)
    count = int(np.prod([a.shape[i] for i in axes]))
    return true_divide(sum(a, axes, keepdims), float(count))


def var(a, axis=None, keepdims=False):
    a = _to_float(a)
    centred = a - mean(a, axis, keepdims=True)
    return mean(centred * centred, axis, keepdims)


def std(a, axis=None, keepdims=False):
    return sqrt(var(a, axis, keepdims))


def max(a, axis=None, keepdims=False):
    return _reduce(lax.reduce_max, asarray(a), axis, keepdims)


def min(a, axis=None, keepdims=False):
    return _reduce(lax.reduce_min, asarray(a), axis, keepdims)


amax, amin = max, min


def _arg_reduce(reducer, a, axis):
    """The first index along `axis` (or of the flattened array) where `reducer` is attained."""
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _canonical_axis(axis, a.ndim)
    n = a.shape[axis]
    index_shape = [1] * a.ndim
    index_shape[axis] = n
    index = Array(np.arange(n, dtype=np.int32).reshape(index_shape))
    hit = equal(a, reducer(a, axis=axis, keepdims=True))
    return min(where(hit, index, n), axis=axis)


def argmax(a, axis=None):
    return _arg_reduce(max, a, axis)


def argmin(a, axis=None):
    return _arg_reduce(min, a, axis)


def matmul(a, b):
    a, b = _promote_dtypes(a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: a scalar operand is not allowed; use * instead")
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    a = lax.expand_dims(a, (0,)) if a_vec else a
    b = lax.expand_dims(b, (1,)) if b_vec else b
    batch = builtins.max(a.ndim, b.ndim) - 2
    a = lax.expand_dims(a, range(batch - (a.ndim - 2))) if a.ndim - 2 < batch else a
    b = lax.expand_dims(b, range(batch - (b.ndim - 2))) if b.ndim - 2 < batch else b
    batch_shape = lax.broadcasting_shape("matmul", a.shape[:batch], b.shape[:batch])
    if a.shape[:batch] != batch_shape:
        a = broadcast_to(a, batch_shape + a.shape[batch:])
    if b.shape[:batch] != batch_shape:
        b = broadcast_to(b, batch_shape + b.shape[batch:])
    dims = (((a.ndim - 1,), (b.ndim - 2,)), (tuple(range(batch)), tuple(range(batch))))
    out = lax.dot_general(a, b, dims, preferred_element_type=a.dtype)
    if a_vec:
        out = lax.squeeze(out, (out.ndim - 2,))
    if b_vec:
        out = lax.squeeze(out, (out.ndim - 1,))
    return out


def dot(a, b):
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    if b.ndim > 2:
        raise NotImplementedError("dot with an operand of rank > 2: use matmul or einsum-style "
                                  "dot_general")
    return matmul(a, b)


def vdot(a, b):
    return dot(ravel(a), ravel(b))


def outer(a, b):
    return multiply(reshape(a, -1, 1), ravel(b))


def _getitem(a, index):
    index = index if isinstance(index, tuple) else (index,)
    for i in index:
        if not (i is None or i is Ellipsis or isinstance(i, builtins.slice)
                or (not isinstance(i, bool) and hasattr(i, "__index__"))):
            raise TypeError(f"autodidax supports basic indexing only (integers, slices, None "
                            f"and ...); got an index of type {type(i).__name__}")
    real = [i for i in index if i is not None and i is not Ellipsis]
    if len(real) > a.ndim:
        raise IndexError(f"too many indices for array: array is {a.ndim}-dimensional, but "
                         f"{len(real)} were indexed")
    if builtins.sum(i is Ellipsis for i in index) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    fill = (builtins.slice(None),) * (a.ndim - len(real))
    if any(i is Ellipsis for i in index):
        at = next(k for k, i in enumerate(index) if i is Ellipsis)
        index = index[:at] + fill + index[at + 1:]
    else:
        index = index + fill
    starts, limits, strides, reversed_, squeezed, new_axes = [], [], [], [], [], []
    dim = out_dim = 0
    for i in index:
        if i is None:
            new_axes.append(out_dim)
            out_dim += 1
            continue
        n = a.shape[dim]
        if isinstance(i, builtins.slice):
            start, stop, step = i.indices(n)
            if step < 0:                     # walk the reversed dimension forwards instead
                reversed_.append(dim)
                start, stop, step = n - 1 - start, n - 1 - stop, -step
            starts.append(start)
            limits.append(builtins.max(start, stop))
            strides.append(step)
            out_dim += 1
        else:
            k = operator.index(i)
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {dim} with size {n}")
            k %= n
            starts.append(k)
            limits.append(k + 1)
            strides.append(1)
            squeezed.append(dim)
        dim += 1
    out = lax.rev(a, reversed_) if reversed_ else a
    if starts != [0] * a.ndim or limits != list(a.shape) or strides != [1] * a.ndim:
        out = lax.slice(out, starts, limits, None if strides == [1] * a.ndim else strides)
    if squeezed:
        out = lax.squeeze(out, squeezed)
    if new_axes:
        out = lax.expand_dims(out, new_axes)
    return out


def _swap(f):
    return lambda x, y: f(y, x)


_METHODS = {
    "__add__": add, "__radd__": _swap(add), "__sub__": subtract, "__rsub__": _swap(subtract),
    "__mul__": multiply, "__rmul__": _swap(multiply),
    "__truediv__": true_divide, "__rtruediv__": _swap(true_divide),
    "__pow__": power, "__rpow__": _swap(power),
    "__matmul__": matmul, "__rmatmul__": _swap(matmul),
    "__neg__": negative, "__pos__": lambda x: x, "__abs__": abs,
    "__gt__": greater, "__lt__": less, "__ge__": greater_equal, "__le__": less_equal,
    "__eq__": equal, "__ne__": not_equal, "__getitem__": _getitem,
    "T": property(lambda x: transpose(x)), "reshape": reshape, "ravel": ravel,
    "flatten": ravel, "transpose": lambda x, *axes: transpose(
        x, axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else (axes or None)),
    "sum": sum, "mean": mean, "max": max, "min": min, "var": var, "std": std,
    "astype": astype, "squeeze": squeeze, "dot": dot, "clip": clip, "swapaxes": swapaxes,
}
wrap_public_functions(globals(), __name__)       # errors show the user's frames only
for _cls in (Array, Tracer):
    for _name, _method in _METHODS.items():
        if isinstance(_method, property):
            _method = property(api_boundary(_method.fget))
        setattr(_cls, _name, api_boundary(_method) if callable(_method) else _method)

ndarray = Array
pi, e, inf, nan = np.pi, np.e, np.inf, np.nan


class _ScalarType:
    """`jnp.float32` and friends: a dtype that also makes arrays when called."""

    def __init__(self, name):
        self.dtype = np.dtype(name)
        self.__name__ = name

    def __call__(self, x):
        return asarray(x, self.dtype)

    def __repr__(self):
        return f"<class 'autodidax.numpy.{self.__name__}'>"


float32, float16 = _ScalarType("float32"), _ScalarType("float16")
int32, int16, int8 = _ScalarType("int32"), _ScalarType("int16"), _ScalarType("int8")
uint32, uint8, bool_ = _ScalarType("uint32"), _ScalarType("uint8"), _ScalarType("bool")
