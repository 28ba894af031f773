"""The checks of chapter 6's exercises (chapters/06_lowering.md): each reads the notebook."""
import numpy as np

import autodidax.nn
import autodidax.scipy.special
from autodidax.core import get_aval
from book.exercises import watch


def _lower_and_run(nb, what, fun, *args, package=()):
    """Trace `fun`, lower it, run it on `args`: the module's text and the outputs. Lowering may
    call nothing in the modules or functions `package`."""
    make_jaxpr, jnp, run_module = nb["make_jaxpr"], nb["jnp"], nb["run_module"]
    lower_jaxpr_to_module, module_to_text = nb["lower_jaxpr_to_module"], nb["module_to_text"]
    closed_f = make_jaxpr(fun)(*map(jnp.asarray, args))
    try:
        with watch(*package) as seen:
            module_f = lower_jaxpr_to_module(closed_f)
    except NotImplementedError:
        raise
    except Exception as e:
        why = " ".join(line.strip() for line in str(e).splitlines() if line.strip())
        raise AssertionError(f"lowering {what} failed: {type(e).__name__}: {why}") from None
    assert not seen, f"lowering {what} called {seen[0]}, the package's: emit the operations " \
        "yourself"
    return module_to_text(module_f), run_module(module_f, closed_f, *args)


def check_softplus(nb):
    """1. A lowering rule from smaller operations: softplus lowered, finite, for any float dtype."""
    softplus_p, jnp, lax = nb["softplus_p"], nb["jnp"], nb["lax"]
    for x in [np.array([[-100.0, -1.0], [0.0, 100.0]], np.float32), np.float32(2.5),
              np.array([-20.0, 0.5, 20.0], np.float16)]:
        what = f"softplus of {get_aval(x).str_short()}"
        text, (out,) = _lower_and_run(nb, what, lambda x: softplus_p.bind(x), x,
                                      package=[autodidax.nn, autodidax.scipy.special, jnp, lax])
        want = np.logaddexp(0, x.astype(np.float32)).astype(x.dtype)
        assert out.dtype == x.dtype, f"{what} should be of dtype {x.dtype}, got {out.dtype}"
        assert np.all(np.isfinite(out)), \
            f"{what} at {x.tolist()} gives {out.tolist()}: an exponential overflowed; use " \
            "the form that cannot"
        assert np.allclose(out, want, rtol=1e-3), \
            f"{what} at {x.tolist()} should be {want.tolist()}, got {out.tolist()}"


def check_fold(nb):
    """2. A body in a region: fold as one stablehlo.reduce whose region is the body's jaxpr."""
    fold, jnp = nb["fold"], nb["jnp"]
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 4)).astype(np.float32) * 3
    z = rng.standard_normal((2, 3, 4)).astype(np.float32) - 5      # every element negative
    temperature = jnp.asarray(np.float32(0.5))

    def soft_max(a, b):          # t * log(e^(a/t) + e^(b/t)): closes over t, a constant
        return temperature * jnp.logaddexp(a / temperature, b / temperature)

    use_max = jnp.asarray(True)

    def pick(a, b):              # max or min, as a flag says: closes over a bool constant
        return jnp.where(use_max, jnp.maximum(a, b), jnp.minimum(a, b))

    i = np.arange(24, dtype=np.int32).reshape(4, 6) - 7
    cases = [
        ("fold of maximum over axes (0, 2), from -inf",
         lambda z: fold(jnp.maximum, z, -np.inf, (0, 2)), z, z.max((0, 2))),
        ("fold of soft_max over axis 1, from -inf (its body has a constant, the temperature)",
         lambda x: fold(soft_max, x, -np.inf, (1,)), x, 0.5 * np.log(np.exp(x / 0.5).sum(1))),
        ("fold of pick over axis 0, from -inf (its body has a constant of its own dtype, bool)",
         lambda x: fold(pick, x, -np.inf, (0,)), x, x.max(0)),
        ("fold of + over axis 0 of an int32 array, from 0",
         lambda i: fold(lambda a, b: a + b, i, 0, (0,)), i, i.sum(0, dtype=np.int32)),
    ]
    for what, fun, arg, want in cases:
        text, (out,) = _lower_and_run(nb, what, fun, arg)
        assert text.count("stablehlo.reduce") == 1, \
            f"{what}: expected one stablehlo.reduce in the module:\n{text}"
        assert out.shape == want.shape and out.dtype == want.dtype, \
            f"{what} should be {get_aval(want).str_short()}, got {get_aval(out).str_short()}"
        assert np.allclose(out, want, rtol=1e-5), f"{what} should be {want}, got {out}\n{text}"
