"""Checks of chapter 17's exercises (chapters/17_export.md): each takes the notebook's namespace."""
import numpy as np

import autodidax.autodiff
import autodidax.export
import autodidax.jvp
from book.exercises import watch


def check_producer(nb):
    """1. Who can read this module?: `producer` and `can_read` on modules written for five
    StableHLO versions, and for five readers."""
    producer, can_read, exported, sines = nb["producer"], nb["can_read"], nb["exported"], nb["sines"]
    jax, jnp, hlo, ir = nb["jax"], nb["jnp"], nb["hlo"], nb["ir"]
    make_ir_context, target_version = nb["make_ir_context"], nb["target_version"]

    def module_for(version):
        """A small module as a portable artifact written for StableHLO `version`."""
        with make_ir_context(), ir.Location.unknown():
            module = ir.Module.parse(jax.jit(jnp.sin).lower(np.ones(3, np.float32)).as_text())
            return hlo.serialize_portable_artifact(module, version, True)

    modules = {v: module_for(v) for v in ("0.9.0", "1.4.0", "1.10.0", "1.12.10", "1.15.0")}
    for v, module in modules.items():
        bytecode = 0 if v == "0.9.0" else 6            # the bytecode format VHLO v picks
        got = producer(module)
        assert got[1] == v, f"the module written for StableHLO {v}: you read {got[1]!r}"
        assert got[0] == bytecode, \
            f"the module written for {v} is in MLIR bytecode version {bytecode} (its fifth " \
            f"byte is {module[4]:#04x}), you read {got[0]!r}: the number is in the upper 7 bits"
    ours, jaxs = producer(exported.mlir_module_serialized), producer(sines.mlir_module_serialized)
    assert ours == jaxs == (6, target_version()), \
        f"our artifacts and JAX's are written for {target_version()} in bytecode 6: " \
        f"you read {ours} and {jaxs}"
    consumers = {(hlo.get_current_version(), hlo.get_minimum_version()): set(modules),
                 ("1.9.3", "1.0.0"): {"1.4.0"}, ("1.10.0", "1.4.0"): {"1.4.0", "1.10.0"},
                 ("1.14.9", "1.4.1"): {"1.10.0", "1.12.10"},
                 ("1.12.3", "1.4.0"): {"1.4.0", "1.10.0"}}
    for (current, minimum), readable in consumers.items():
        for v, module in modules.items():
            got = can_read(module, current, minimum)
            assert got == (v in readable), \
                f"a StableHLO {current} that reads back to {minimum} " \
                f"{'reads' if v in readable else 'cannot read'} a module written for {v}; " \
                f"you said {got}" + (": compare versions as tuples of numbers, not as "
                                     "strings" if got == (minimum <= v <= current) else "")


def check_gradient(nb):
    """2. Gradients without tracing: `gradient` against `grad` of the exported `call`, for
    functions with outputs of other shapes than their inputs, and nothing traced."""
    gradient, jax, jnp = nb["gradient"], nb["jax"], nb["jnp"]
    f32 = lambda *shape: np.linspace(-1, 2, int(np.prod(shape)), dtype=np.float32).reshape(shape)
    cases = [
        ("sin(x) * y, x.sum()", lambda x, y: (jnp.sin(x) * y, x.sum()), (f32(3), np.float32(2))),
        ("w @ x, tanh(x).sum() for w f32[2,3], x f32[3]",
         lambda w, x: (w @ x, jnp.tanh(x).sum()), (f32(2, 3), f32(3))),
        ("{'loss': (x ** 2).sum(), 'y': exp(x)[:2]}",
         lambda x: {"loss": (x ** 2).sum(), "y": jnp.exp(x)[:2]}, (f32(4),)),
    ]
    for what, fun, args in cases:
        exp = jax.export.export(jax.jit(fun))(*args)
        blob = exp.serialize(vjp_order=1)

        def total(*xs):
            return sum(o.sum() for o in jax.tree_util.tree_leaves(exp.call(*xs)))
        want = jax.grad(total, argnums=tuple(range(len(args))))(*args)
        try:
            with watch(autodidax.autodiff, autodidax.jvp, autodidax.export) as seen:
                got = gradient(blob, *args)
        except NotImplementedError:
            raise
        except Exception as e:
            raise AssertionError(f"gradient of {what} raised {type(e).__name__}: {e}: the VJP "
                                 "takes the primal inputs, then one cotangent per output") from None
        assert not seen, f"gradient called {seen[0]}: use the runner, which traces nothing"
        assert len(got) == len(want), \
            f"{what}: one gradient per input, {len(want)}; you gave {len(got)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert np.shape(g) == np.shape(w) and np.allclose(g, w, rtol=1e-5, atol=1e-6), \
                f"{what}: the gradient of input {i} should be {np.asarray(w)}, you gave " \
                f"{np.asarray(g)}"
    plain = jax.export.export(jax.jit(jnp.sin))(f32(3)).serialize()
    try:
        gradient(plain, f32(3))
    except ValueError:
        pass
    except Exception as e:
        raise AssertionError(f"an artifact without its VJP should raise ValueError, not "
                             f"{type(e).__name__}: {e}") from None
    else:
        raise AssertionError("an artifact serialized without its VJP (vjp_order=0) should "
                             "raise ValueError")
