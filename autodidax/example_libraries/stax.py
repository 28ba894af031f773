# Generated from chapters/A28_example_libraries.md by `make export`: edit the chapter, not this file.


"""`jax.example_libraries.stax` (appendix A28): a neural network library of `(init_fun,
apply_fun)` pairs, written as JAX 0.10.2 writes it, on `jax.numpy`, `jax.nn`, `jax.random` and
appendix A27's convolutions and windows."""
import functools
import math

import numpy as np

from autodidax import lax_core
from autodidax import numpy as jnp
from autodidax.core import canonicalize_dtype
from autodidax.distributions import bernoulli, truncated_normal
from autodidax.lax_rest import (conv_general_dilated, conv_general_shape_tuple, conv_transpose,
                                conv_transpose_shape_tuple, padtype_to_pads, reduce_window,
                                reduce_window_shape_tuple)
from autodidax.nn import (elu, gelu, leaky_relu, log_softmax, relu, selu, sigmoid, softmax,
                          softplus, standardize)
from autodidax.prng import normal as random_normal, split


def _default_float():
    """float32, or float64 in 64-bit mode: JAX's `dtypes.default_float_dtype()`."""
    return canonicalize_dtype(np.float64)


def zeros(key, shape, dtype=None):
    """An initializer of zeros; the key is not used."""
    return jnp.zeros(shape, _default_float() if dtype is None else dtype)


def ones(key, shape, dtype=None):
    """An initializer of ones; the key is not used."""
    return jnp.ones(shape, _default_float() if dtype is None else dtype)


def normal(stddev=1e-2, dtype=None):
    """An initializer drawing from a normal distribution of mean 0 and deviation `stddev`."""
    def init(key, shape, dtype=dtype):
        dtype = _default_float() if dtype is None else dtype
        return random_normal(key, shape, dtype) * jnp.array(stddev, dtype)
    return init


def _fans(shape, in_axis, out_axis, batch_axis):
    """(fan_in, fan_out) of a weight: its input and output sizes times its receptive field,
    the axes that are neither input, output nor batch."""
    if len(shape) <= 1 and in_axis == -2:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional"
                         " weights tensor with default in_axis. Must be at least 2D or specify"
                         " in_axis explicitly.")
    size = lambda axes: (shape[axes] if isinstance(axes, int)            # noqa: E731
                         else math.prod(shape[a] for a in axes))
    field = math.prod(shape) / size(in_axis) / size(out_axis) / size(batch_axis)
    return size(in_axis) * field, size(out_axis) * field


def glorot_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """Glorot's initializer: a truncated normal of variance 2 / (fan_in + fan_out)."""
    def init(key, shape, dtype=dtype):
        shape = tuple(int(d) for d in shape)
        dtype = _default_float() if dtype is None else dtype
        fan_in, fan_out = _fans(shape, in_axis, out_axis, batch_axis)
        variance = jnp.array(1.0 / ((fan_in + fan_out) / 2), dtype=dtype)
        stddev = jnp.sqrt(variance) / jnp.array(.87962566103423978, dtype)
        return truncated_normal(key, -2, 2, shape, dtype) * stddev
    return init


glorot = glorot_normal
randn = normal
logsoftmax = log_softmax


def Dense(out_dim, W_init=glorot_normal(), b_init=normal()):
    """A fully connected layer: `inputs @ W + b`."""
    def init_fun(rng, input_shape):
        k1, k2 = split(rng)
        W = W_init(k1, (input_shape[-1], out_dim))
        return input_shape[:-1] + (out_dim,), (W, b_init(k2, (out_dim,)))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return jnp.dot(inputs, W) + b
    return init_fun, apply_fun


def _kernel_and_bias_shapes(dimension_numbers, out_chan, filter_shape, input_shape):
    """The kernel's shape, walking its spec; the bias's, with `out_chan` at the channel axis."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    sizes = iter(filter_shape)
    kernel = [out_chan if c == 'O' else input_shape[lhs_spec.index('C')] if c == 'I'
              else next(sizes) for c in rhs_spec]
    return kernel, [out_chan if c == 'C' else 1 for c in out_spec]


def GeneralConv(dimension_numbers, out_chan, filter_shape, strides=None, padding='VALID',
                W_init=None, b_init=normal(1e-6)):
    """A convolution with a bias, its axes named by `dimension_numbers`."""
    rhs_spec = dimension_numbers[1]
    one = (1,) * len(filter_shape)
    strides = strides or one
    W_init = W_init or glorot_normal(rhs_spec.index('I'), rhs_spec.index('O'))

    def init_fun(rng, input_shape):
        kernel_shape, bias_shape = _kernel_and_bias_shapes(dimension_numbers, out_chan,
                                                           filter_shape, input_shape)
        output_shape = conv_general_shape_tuple(input_shape, kernel_shape, strides, padding,
                                                dimension_numbers)
        k1, k2 = split(rng)
        return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return conv_general_dilated(inputs, W, strides, padding, one, one,
                                    dimension_numbers=dimension_numbers) + b
    return init_fun, apply_fun


Conv = functools.partial(GeneralConv, ('NHWC', 'HWIO', 'NHWC'))


def GeneralConvTranspose(dimension_numbers, out_chan, filter_shape, strides=None,
                         padding='VALID', W_init=None, b_init=normal(1e-6)):
    """A transposed convolution with a bias, its axes named by `dimension_numbers`."""
    rhs_spec = dimension_numbers[1]
    strides = strides or (1,) * len(filter_shape)
    W_init = W_init or glorot_normal(rhs_spec.index('I'), rhs_spec.index('O'))

    def init_fun(rng, input_shape):
        kernel_shape, bias_shape = _kernel_and_bias_shapes(dimension_numbers, out_chan,
                                                           filter_shape, input_shape)
        output_shape = conv_transpose_shape_tuple(input_shape, kernel_shape, strides, padding,
                                                  dimension_numbers)
        k1, k2 = split(rng)
        return output_shape, (W_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(params, inputs, **kwargs):
        W, b = params
        return conv_transpose(inputs, W, strides, padding,
                              dimension_numbers=dimension_numbers) + b
    return init_fun, apply_fun


Conv1DTranspose = functools.partial(GeneralConvTranspose, ('NHC', 'HIO', 'NHC'))
ConvTranspose = functools.partial(GeneralConvTranspose, ('NHWC', 'HWIO', 'NHWC'))


def BatchNorm(axis=(0, 1, 2), epsilon=1e-5, center=True, scale=True, beta_init=zeros,
              gamma_init=ones):
    """Batch normalisation over `axis`, then a scale `gamma` and a shift `beta`."""
    axis = (axis,) if jnp.isscalar(axis) else axis

    def init_fun(rng, input_shape):
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axis)
        k1, k2 = split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params, x, **kwargs):
        beta, gamma = params
        ed = tuple(None if i in axis else slice(None) for i in range(jnp.ndim(x)))
        z = standardize(x, axis, epsilon=epsilon)
        if center and scale:
            return gamma[ed] * z + beta[ed]
        if center:
            return z + beta[ed]
        if scale:
            return gamma[ed] * z
        return z
    return init_fun, apply_fun


def elementwise(fun, **fun_kwargs):
    """A layer that applies `fun` to its inputs, with no parameters."""
    init_fun = lambda rng, input_shape: (input_shape, ())                 # noqa: E731
    apply_fun = lambda params, inputs, **kwargs: fun(inputs, **fun_kwargs)  # noqa: E731
    return init_fun, apply_fun


Tanh = elementwise(jnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(jnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)


def _non_spatial_axes(spec, ndim):
    """The batch and channel axes: first and last, unless `spec` names them."""
    return (0, ndim - 1) if spec is None else (spec.index('N'), spec.index('C'))


def _pooling_layer(reducer, init_val, rescaler=None):
    """A pooling layer constructor: windows reduced with `reducer` from `init_val`."""
    def PoolingLayer(window_shape, strides=None, padding='VALID', spec=None):
        """A pooling layer over the spatial axes."""
        strides = strides or (1,) * len(window_shape)
        rescale = rescaler(window_shape, strides, padding) if rescaler else None
        for i in sorted(_non_spatial_axes(spec, len(window_shape) + 2)):
            window_shape = window_shape[:i] + (1,) + window_shape[i:]
            strides = strides[:i] + (1,) + strides[i:]

        def init_fun(rng, input_shape):
            pads = padtype_to_pads(input_shape, window_shape, strides, padding)
            ones_ = (1,) * len(window_shape)
            return reduce_window_shape_tuple(input_shape, window_shape, strides, pads, ones_,
                                             ones_), ()

        def apply_fun(params, inputs, **kwargs):
            out = reduce_window(inputs, init_val, reducer, window_shape, strides, padding)
            return rescale(out, inputs, spec) if rescale else out
        return init_fun, apply_fun
    return PoolingLayer


MaxPool = _pooling_layer(lax_core.max, -jnp.inf)
SumPool = _pooling_layer(lax_core.add, 0.)


def _normalize_by_window_size(dims, strides, padding):
    """A rescaler dividing each window's sum by the number of elements it covers."""
    def rescale(outputs, inputs, spec):
        non_spatial = _non_spatial_axes(spec, inputs.ndim)
        spatial_shape = tuple(d for i, d in enumerate(inputs.shape) if i not in non_spatial)
        one = jnp.ones(spatial_shape, dtype=inputs.dtype)
        window_sizes = reduce_window(one, 0., lax_core.add, dims, strides, padding)
        for i in sorted(non_spatial):
            window_sizes = jnp.expand_dims(window_sizes, i)
        return outputs / window_sizes
    return rescale


AvgPool = _pooling_layer(lax_core.add, 0., _normalize_by_window_size)


def Flatten():
    """A layer flattening all axes but the leading one."""
    def init_fun(rng, input_shape):
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.reshape(inputs, (inputs.shape[0], -1))
    return init_fun, apply_fun


Flatten = Flatten()


def Identity():
    """A layer returning its inputs."""
    init_fun = lambda rng, input_shape: (input_shape, ())                 # noqa: E731
    apply_fun = lambda params, inputs, **kwargs: inputs                   # noqa: E731
    return init_fun, apply_fun


Identity = Identity()


def Dropout(rate, mode='train'):
    """Dropout keeping each element with probability `rate`; needs `rng=` in `'train'` mode."""
    def init_fun(rng, input_shape):
        return input_shape, ()

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.get('rng', None)
        if rng is None:
            raise ValueError(
                "Dropout layer requires apply_fun to be called with a PRNG key argument. That "
                "is, instead of `apply_fun(params, inputs)`, call it like `apply_fun(params, "
                "inputs, rng)` where `rng` is a PRNG key (e.g. from `jax.random.key`).")
        if mode == 'train':
            keep = bernoulli(rng, rate, inputs.shape)
            return jnp.where(keep, inputs / rate, 0)
        return inputs
    return init_fun, apply_fun


def FanOut(num):
    """A layer returning `num` copies of its input, as a list."""
    init_fun = lambda rng, input_shape: ([input_shape] * num, ())         # noqa: E731
    apply_fun = lambda params, inputs, **kwargs: [inputs] * num           # noqa: E731
    return init_fun, apply_fun


def FanInSum():
    """A layer adding a list of inputs."""
    init_fun = lambda rng, input_shape: (input_shape[0], ())              # noqa: E731
    apply_fun = lambda params, inputs, **kwargs: sum(inputs)              # noqa: E731
    return init_fun, apply_fun


FanInSum = FanInSum()


def FanInConcat(axis=-1):
    """A layer concatenating a list of inputs along `axis`."""
    def init_fun(rng, input_shape):
        ax = axis % len(input_shape[0])
        size = sum(shape[ax] for shape in input_shape)
        return input_shape[0][:ax] + (size,) + input_shape[0][ax + 1:], ()

    def apply_fun(params, inputs, **kwargs):
        return jnp.concatenate(inputs, axis)
    return init_fun, apply_fun


def serial(*layers):
    """The layers in sequence, each applied to the output of the one before."""
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        params = []
        for init in init_funs:
            rng, layer_rng = split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop('rng', None)
        rngs = split(rng, nlayers) if rng is not None else (None,) * nlayers
        for fun, param, rng in zip(apply_funs, params, rngs):
            inputs = fun(param, inputs, rng=rng, **kwargs)
        return inputs
    return init_fun, apply_fun


def parallel(*layers):
    """The layers side by side: layer `i` on input `i`, a list of outputs."""
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers)

    def init_fun(rng, input_shape):
        rngs = split(rng, nlayers)
        return zip(*[init(r, shape) for init, r, shape in zip(init_funs, rngs, input_shape)])

    def apply_fun(params, inputs, **kwargs):
        rng = kwargs.pop('rng', None)
        rngs = split(rng, nlayers) if rng is not None else (None,) * nlayers
        return [f(p, x, rng=r, **kwargs) for f, p, x, r in zip(apply_funs, params, inputs, rngs)]
    return init_fun, apply_fun


def shape_dependent(make_layer):
    """A layer built by `make_layer(input_shape)` once the input's shape is known."""
    def init_fun(rng, input_shape):
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params, inputs, **kwargs):
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)
    return init_fun, apply_fun
