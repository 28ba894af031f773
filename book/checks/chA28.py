"""Checks of appendix A28's exercises (chapters/A28_example_libraries.md): each takes the
notebook's namespace."""
import numpy as np

import autodidax as jax
import autodidax.numpy as jnp
from autodidax.example_libraries import optimizers, stax


def check_scale(nb):
    """1. `Scale`: a stax layer with one parameter, a vector of ones over the last axis."""
    Scale = nb["Scale"]
    init_fun, apply_fun = Scale()
    out_shape, params = init_fun(jax.random.key(0), (5, 3))
    assert tuple(out_shape) == (5, 3), \
        f"the output shape is the input's, (5, 3), got {out_shape}"
    leaves = jax.tree_util.tree_leaves(params)
    assert len(leaves) == 1 and np.shape(leaves[0]) == (3,), \
        f"the parameters are one vector of the last axis's size, (3,), got {params}"
    assert np.array_equal(np.asarray(leaves[0]), np.ones(3)), \
        f"the vector starts as ones, got {leaves[0]}"
    assert np.asarray(leaves[0]).dtype == np.float32, \
        f"the vector is float32 (jnp.ones's default dtype), so that grad can differentiate it, " \
        f"got {np.asarray(leaves[0]).dtype}"
    x = jnp.arange(6.0).reshape(2, 3)
    s = jax.tree_util.tree_unflatten(jax.tree_util.tree_structure(params),
                                     [jnp.array([1.0, 2.0, 3.0])])
    got = np.asarray(apply_fun(s, x))
    assert np.array_equal(got, [[0.0, 2.0, 6.0], [3.0, 8.0, 15.0]]), \
        f"inputs times s along the last axis: [[0, 2, 6], [3, 8, 15]], got {got.tolist()}"
    net_init, net_apply = stax.serial(stax.Dense(4), Scale(), stax.Relu)
    shape, net_params = net_init(jax.random.key(1), (-1, 3))
    assert tuple(shape) == (-1, 4), f"serial(Dense(4), Scale(), Relu) gives (-1, 4), got {shape}"
    try:
        out = net_apply(net_params, x, rng=jax.random.key(2))
    except TypeError as e:
        raise AssertionError(f"inside serial, apply_fun is called with rng=: give it **kwargs "
                             f"({e})") from None
    assert np.shape(out) == (2, 4), \
        f"inside serial with rng= the output is (2, 4), got {np.shape(out)}: apply_fun takes " \
        "**kwargs"
    g = jax.grad(lambda p: net_apply(p, x).sum())(net_params)
    assert np.shape(jax.tree_util.tree_leaves(g[1])[0]) == (4,), \
        "the gradient reaches the scale vector"


def check_signsgd(nb):
    """2. `signsgd`: steps of `step_size(i)` against the sign of each gradient element."""
    signsgd = nb["signsgd"]
    opt = signsgd(0.5)
    assert isinstance(opt, optimizers.Optimizer), \
        f"decorated with optimizers.optimizer, signsgd(0.5) is an Optimizer, got {type(opt)}"
    opt_init, opt_update, get_params = opt
    params = {"w": jnp.array([1.0, -2.0, 0.0]), "b": jnp.array(3.0)}
    grads = {"w": jnp.array([0.1, -40.0, 0.0]), "b": jnp.array(-1e-3)}
    state = opt_update(0, grads, opt_init(params))
    got = get_params(state)
    assert np.array_equal(np.asarray(got["w"]), [0.5, -1.5, 0.0]), \
        f"w moves by 0.5 against each gradient's sign (0 for a zero gradient): [0.5, -1.5, 0]," \
        f" got {np.asarray(got['w']).tolist()}"
    assert float(got["b"]) == 3.5, f"b = 3 - 0.5 * sign(-0.001) = 3.5, got {float(got['b'])}"
    opt_init, opt_update, get_params = signsgd(lambda i: 1.0 / (i + 1))
    state = opt_init(jnp.array([0.0]))
    for i in range(3):
        state = opt_update(i, jnp.array([1.0]), state)
    got = float(get_params(state)[0])
    assert np.isclose(got, -(1 + 1 / 2 + 1 / 3)), \
        f"with the schedule 1/(i+1), three steps move by 1 + 1/2 + 1/3, got {-got}: call " \
        "step_size(i) with the step number"
