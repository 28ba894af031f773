"""`jax.lax`: the primitives and the functions built on them, under their public names.

Written by hand, as JAX's `jax/lax/__init__.py` is: each name is imported from the module that
defines it, so `dir(lax)` lists them all. The package's own modules import `autodidax.lax_core`
(appendix A6), never this file, which imports from all of them.
"""
# ruff: noqa: F401

# Appendix A6: the catalogue of primitives and their public functions.
from autodidax.lax_core import (
    RoundingMethod, abs, abs_p, acos, acos_p, acosh, acosh_p, add, add_p, and_p, argmax, argmax_p,
    argmin, argmin_p, asin, asin_p, asinh, asinh_p, atan, atan2, atan2_p, atan_p, atanh, atanh_p,
    bitcast_convert_type, bitcast_convert_type_p, bitwise_and, bitwise_not, bitwise_or, bitwise_xor,
    broadcast, broadcast_in_dim, broadcast_in_dim_p, broadcast_to_rank, broadcasted_iota, ceil,
    ceil_p, clamp, collapse, complex, complex_p, concatenate, concatenate_p, convert_element_type,
    convert_element_type_p, conj, conj_p, cos, cos_p, cosh, cosh_p, cumprod, cumprod_p, cumsum, cumsum_p, div,
    div_p, dot_general, dot_general_p, eq, dot, eq_p, exp, exp2, exp2_p, exp_p, expand_dims, expm1,
    expm1_p, floor, floor_p, full, full_like, ge, ge_p, gt, gt_p, index_in_dim, integer_pow,
    imag, imag_p, integer_pow_p, iota, iota_p, is_finite, is_finite_p, le, le_p, log, log1p, log1p_p, log_p, lt,
    lt_p, max, max_p, min, min_p, mul, mul_p, ne, ne_p, neg, neg_p, not_p, or_p, pad, pad_p, pow,
    pow_p, reciprocal, reduce_and, reduce_and_p, reduce_max, reduce_max_p, reduce_min, reduce_min_p,
    reduce_or, reduce_or_p, reduce_prod, reduce_prod_p, reduce_sum, reduce_sum_p, rem, rem_p,
    real, real_p, reshape, reshape_p, rev, rev_p, round, round_p, rsqrt, rsqrt_p, select, select_n, select_n_p,
    shift_left, shift_left_p, shift_right_arithmetic, shift_right_arithmetic_p, shift_right_logical,
    shift_right_logical_p, sign, sign_p, sin, sin_p, sinh, sinh_p, slice, slice_in_dim, slice_p,
    sqrt, sqrt_p, square, square_p, squeeze, squeeze_p, stack, stack_p, stop_gradient_p, sub, sub_p,
    tan, tan_p, tanh, tanh_p, transpose, transpose_p, unstack, unstack_p, xor_p,
)

# Appendix A2: the special functions' primitives, under their lax names.
from autodidax.scipy.special import (
    LAX_FUNCTIONS as _special, digamma_p, erf_inv_p, erf_p, erfc_p, lgamma_p, logistic_p,
    polygamma_p,
)
erf, erfc, erf_inv, lgamma, digamma, logistic, polygamma = (_special[n] for n in (
    "erf", "erfc", "erf_inv", "lgamma", "digamma", "logistic", "polygamma"))

# Chapter 3: `stop_gradient` over a pytree.
from autodidax.jvp import (
    stop_gradient,
)

# Chapter 4: the first collective.
from autodidax.batching import (
    psum, psum_p,
)

# Appendix A9: the other collectives.
from autodidax.collectives import (
    all_gather, all_gather_p, axis_index, axis_index_p, axis_size, pmax, pmax_p, pmean, pmin,
    pmin_p, psum_scatter,
)

# Appendix A19: `split`, which the transpose of `concatenate` emits.
from autodidax.autodiff_rest import (
    split, split_p,
)

# Appendix A20: the primitive through which chapter 14 passes saved residuals.
from autodidax.bit_primitives import (
    reduce_precision_p,
)

# Chapter 10: control flow.
from autodidax.control_flow import (
    cond, cond_p, scan, scan_p, while_loop, while_p,
)

# Appendix A10: the rest of control flow.
from autodidax.control_flow_reference import (
    fori_loop, map, switch,
)

# Chapter 11: indexing and sorting.
from autodidax.indexing import (
    dynamic_slice, dynamic_slice_p, dynamic_update_slice, dynamic_update_slice_p, gather, gather_p,
    GatherDimensionNumbers, GatherScatterMode, scatter, scatter_add, scatter_add_p, scatter_max,
    scatter_max_p, scatter_min, scatter_min_p, scatter_mul, scatter_mul_p, scatter_p, scatter_sub,
    scatter_sub_p, ScatterDimensionNumbers, sort, sort_key_val, sort_p,
)

# Appendix A12: the rest of indexing.
from autodidax.indexing_rest import (
    dynamic_index_in_dim, dynamic_slice_in_dim, dynamic_update_index_in_dim,
    dynamic_update_slice_in_dim, scatter_apply, top_k, top_k_p,
)

# Chapter 16: sharding.
from autodidax.sharding import (
    sharding_constraint_p, with_sharding_constraint,
)

# Appendix A11: collectives on devices.
from autodidax.collectives_on_devices import (
    all_to_all, all_to_all_p, pcast, ppermute, ppermute_p,
)

# Appendix A14: the derivative of a Gamma draw in its parameter (a composition, as in JAX).
from autodidax.distributions import (
    random_gamma_grad,
)

# Appendix A3: jax.lax.linalg, the linear-algebra primitives and their functions.
from autodidax import lax_linalg as linalg

# Appendix A27: convolutions, windows and the rest of lax.
from autodidax.lax_rest import (
    AccuracyMode, ConvDimensionNumbers, ConvGeneralDilatedDimensionNumbers, DotAlgorithm,
    DotAlgorithmPreset, DotDimensionNumbers, FftType, Precision, PrecisionLike,
    RaggedDotDimensionNumbers, RandomAlgorithm, Tolerance, after_all, after_all_p, approx_max_k,
    approx_min_k, associative_scan, batch_matmul, broadcast_like, broadcast_shapes, composite, conv,
    conv_dimension_numbers, conv_general_dilated, conv_general_dilated_local,
    conv_general_dilated_p, conv_general_dilated_patches, conv_general_permutations,
    conv_general_shape_tuple, conv_shape_tuple, conv_transpose, conv_transpose_shape_tuple,
    conv_with_general_padding, create_token, create_token_p, cumlogsumexp, cumlogsumexp_p, cummax,
    cummax_p, cummin, cummin_p, custom_linear_solve, custom_root, dce_sink, dce_sink_p, dtype,
    empty, fft, fft_p, index_take, linear_solve_p, mulhi, mulhi_p, optimization_barrier,
    optimization_barrier_p, padtype_to_pads, platform_dependent, pshuffle, pswapaxes, ragged_dot,
    ragged_dot_general, reduce, reduce_precision, reduce_window, reduce_window_max_p,
    reduce_window_min_p, reduce_window_p, reduce_window_shape_tuple, reduce_window_sum_p,
    reduce_xor, reduce_xor_p, rng_bit_generator, rng_bit_generator_p, rng_uniform, rng_uniform_p,
    scaled_dot, shape_as_value, stage, tile, tile_p,
)

# Appendix A24: the primitives that jax.numpy's cbrt, nextafter, bitwise_count and copy bind.
from autodidax.numpy_rest import (
    cbrt_lax as cbrt, cbrt_p, clz, clz_p, copy_p, nextafter_lax as nextafter, nextafter_p,
    population_count, population_count_p,
)

# Appendix A26: the special functions' primitives of jax/_src/lax/special.py, under their lax names.
from autodidax.special_functions import (
    bessel_i0e, bessel_i0e_p, bessel_i1e, bessel_i1e_p, igamma, igamma_grad_a, igamma_grad_a_p,
    igamma_p, igammac, igammac_p, regularized_incomplete_beta_p, zeta_p,
    lax_betainc as betainc, lax_zeta as zeta,
)
