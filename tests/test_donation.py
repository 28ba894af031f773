"""Buffer donation in `jit` (chapter 8) and the memory statistics of compiled programs, against
JAX: the lowered attributes, the deleted arrays, the errors and warnings, `memory_analysis`."""
import subprocess
import sys
import textwrap
import warnings

import jax
import jax.experimental  # noqa: F401
import jax.numpy as jnp_ref
import numpy as np
import pytest

import autodidax
import autodidax.numpy as jnp
from autodidax import runtime
from autodidax.jit import jit
from autodidax.sharding import Mesh, NamedSharding, P

F3 = np.arange(3.0, dtype=np.float32)
F22 = np.arange(4.0, dtype=np.float32).reshape(2, 2)
MEMORY_FIELDS = ["generated_code_size_in_bytes", "argument_size_in_bytes", "output_size_in_bytes",
                 "alias_size_in_bytes", "temp_size_in_bytes", "host_generated_code_size_in_bytes",
                 "host_argument_size_in_bytes", "host_output_size_in_bytes",
                 "host_alias_size_in_bytes", "host_temp_size_in_bytes", "peak_memory_in_bytes"]


def lowered_both(make, args, **options):
    """The lowered text of `make(jnp)` under our jit and under JAX's, and the warnings each gave."""
    texts, caught = [], []
    for lib, np_lib in ((autodidax, jnp), (jax, jnp_ref)):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            texts.append(lib.jit(make(np_lib), **options).lower(*args).as_text())
        caught.append([str(m.message) for m in w if "donated" in str(m.message)])
    return texts, caught


CASES = {   # name: (function of jnp, arguments, jit options)
    "one output fits": (lambda np_: lambda x: x * 2.0, (F3,), dict(donate_argnums=0)),
    "scalar": (lambda np_: lambda x: x + 1.0, (np.float32(2.0),), dict(donate_argnums=0)),
    "weak scalar": (lambda np_: lambda x: x * 3.0, (2.0,), dict(donate_argnums=0)),
    "none fits: buffer donor": (lambda np_: lambda x: x.astype(np_.int32), (F3,),
                                dict(donate_argnums=0)),
    "reshape: buffer donor": (lambda np_: lambda x: x.reshape(3, 1), (F3,),
                              dict(donate_argnums=0)),
    "two donated, in order": (lambda np_: lambda a, b: (b * 2.0, a + 1.0, a.astype(np_.int32)),
                              (F3, F3), dict(donate_argnums=(0, 1))),
    "second donated takes first output": (lambda np_: lambda a, b: (a * b, a - b), (F3, F3),
                                          dict(donate_argnums=1)),
    "types in order of outputs": (lambda np_: lambda a, b: (b.sum(), a + 1.0, b * 2.0),
                                  (F3, F22), dict(donate_argnums=(0, 1))),
    "donate_argnames": (lambda np_: lambda a, b: (a + b, a - b), (F3, F3),
                        dict(donate_argnames="b")),
    "pytree argument": (lambda np_: lambda p: (p["w"] * 2.0, p["v"].sum()),
                        ({"w": F3, "v": F22},), dict(donate_argnums=0)),
    "static and donated": (lambda np_: lambda n, x: x * n, (3.0, F3),
                           dict(static_argnums=0, donate_argnums=1)),
    "nothing usable warns": (lambda np_: lambda x, y: (x.sum(), y.sum()), (F3, F22),
                             dict(donate_argnums=(0, 1))),
    "weak unusable warns": (lambda np_: lambda x, y: y * x, (2.0, F22), dict(donate_argnums=0)),
}


@pytest.mark.parametrize("name", CASES)
def test_lowered_text_and_warning_match_jax(name):
    make, args, options = CASES[name]
    (ours, theirs), (our_warnings, their_warnings) = lowered_both(make, args, **options)
    assert ours == theirs
    assert our_warnings == their_warnings


def test_the_rule_on_examples():
    texts, caught = lowered_both(CASES["two donated, in order"][0], (F3, F3),
                                 donate_argnums=(0, 1))
    assert "%arg0: tensor<3xf32> {tf.aliasing_output = 0 : i32}" in texts[0]
    assert "%arg1: tensor<3xf32> {tf.aliasing_output = 1 : i32}" in texts[0]
    texts, caught = lowered_both(CASES["none fits: buffer donor"][0], (F3,), donate_argnums=0)
    assert "{jax.buffer_donor = true}" in texts[0] and caught == [[], []]
    texts, caught = lowered_both(CASES["nothing usable warns"][0], (F3, F22),
                                 donate_argnums=(0, 1))
    assert caught[0] == ["Some donated buffers were not usable: float32[3], float32[2,2].\n"
                         "See an explanation at "
                         "https://docs.jax.dev/en/latest/faq.html#buffer-donation."]


def test_no_donation_no_attributes():
    text = jit(lambda x: x * 2.0).lower(F3).as_text()
    assert "aliasing" not in text and "donor" not in text


def test_the_alias_counts_the_token_of_ordered_effects():
    results = []
    for lib in (autodidax, jax):
        def f(x):
            lib.experimental.io_callback(lambda v: None, None, x, ordered=True)
            return x * 2.0
        x = lib.device_put(F3)
        text = lib.jit(f, donate_argnums=0).lower(x).as_text()
        main = next(line for line in text.splitlines() if "@main" in line)
        out = lib.jit(f, donate_argnums=0)(x)
        results.append((main, x.is_deleted(), np.asarray(out).tolist()))
    assert results[0] == results[1]
    assert "%arg1: tensor<3xf32> {tf.aliasing_output = 1 : i32}" in results[0][0]


def call_both(make, args, **options):
    """Put `args` on the device in each library, call the jitted function, return the device
    arguments and the results, ours first."""
    out = []
    for lib, np_lib in ((autodidax, jnp), (jax, jnp_ref)):
        dev_args = [lib.device_put(a) for a in args]
        out.append((dev_args, lib.jit(make(np_lib), **options)(*dev_args)))
    return out


@pytest.mark.parametrize("name", ["one output fits", "none fits: buffer donor",
                                  "two donated, in order", "second donated takes first output",
                                  "nothing usable warns", "scalar"])
def test_donated_arrays_are_deleted_as_in_jax(name):
    make, args, options = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (ours, our_out), (theirs, their_out) = call_both(make, args, **options)
    assert [a.is_deleted() for a in ours] == [a.is_deleted() for a in theirs]
    for a, b in zip(jax.tree.leaves(our_out), jax.tree.leaves(their_out)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b))


def test_reusing_a_donated_array_raises_jaxs_error():
    # JAX raises this RuntimeError from Python; its C++ fast path, for a signature it has seen,
    # raises a ValueError of PJRT's instead ("Invalid buffer passed to Execute()"), so the uses
    # compared here are fresh jits, which take the Python path. Ours always raises the former.
    errors = []
    for lib, np_lib in ((autodidax, jnp), (jax, jnp_ref)):
        x = lib.device_put(np.ones((2, 3), np.int32))
        lib.jit(lambda x: x + 1, donate_argnums=0)(x)
        for use in (lambda: np.asarray(x), lambda: lib.jit(lambda x: x * 2)(x),
                    lambda: lib.jit(lambda x: x * 2, donate_argnums=0)(x)):
            with pytest.raises(RuntimeError) as info:
                use()
            errors.append(f"{type(info.value).__name__}: {info.value}")
    assert errors[:3] == errors[3:]
    assert errors[0] == "RuntimeError: Array has been deleted with shape=int32[2,3]."
    x = autodidax.device_put(np.ones((2, 3), np.int32))
    donating = jit(lambda x: x + 1, donate_argnums=0)
    donating(x)
    for use in (lambda: x + 1, lambda: donating(x), lambda: x.block_until_ready()):
        with pytest.raises(RuntimeError, match=r"deleted with shape=int32\[2,3\]"):
            use()


def test_an_array_read_before_is_donated_too():
    for lib in (autodidax, jax):          # the NumPy view kept of it must not keep it alive
        x = lib.device_put(F3)
        np.asarray(x)
        lib.jit(lambda x: x * 2.0, donate_argnums=0)(x)
        assert x.is_deleted(), lib.__name__
        with pytest.raises(RuntimeError, match="Array has been deleted"):
            np.asarray(x)


def test_donating_numpy_copies_it_and_a_deleted_array_errs_cleanly():
    n = F3.copy()
    out = jit(lambda x: x * 2.0, donate_argnums=0)(n)
    np.testing.assert_allclose(out, F3 * 2) and np.testing.assert_allclose(n, F3)
    x = autodidax.device_put(F3)
    x.delete()
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[3\]\."):
        jit(lambda x: x * 2.0)(x)


@pytest.mark.parametrize("name", ["one output fits", "none fits: buffer donor",
                                  "nothing usable warns", "scalar"])
def test_eager_numpy_backed_arrays_are_deleted_as_in_jax(name):
    """Eager results (NumPy-backed here, device arrays in JAX) donated: deleted when XLA took
    them, left alone when it could not; any use of a deleted one raises JAX's error."""
    make, args, options = CASES[name]
    seen = []
    for lib, np_lib in ((autodidax, jnp), (jax, jnp_ref)):
        eager = [np_lib.asarray(a) * 1 for a in args]
        assert [a.is_deleted() for a in eager] == [False] * len(eager)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.jit(make(np_lib), **options)(*eager)
        errors = []
        for a in eager:
            for use in (lambda: np.asarray(a), lambda: a + 1, lambda: repr(a),   # noqa: B023
                        lambda: lib.jit(lambda v: v * 2)(a)):                      # noqa: B023
                try:
                    use()
                    errors.append(None)
                except RuntimeError as e:
                    errors.append(str(e))
                except ValueError as e:   # JAX's C++ path, for a signature it ran before
                    assert lib is jax and "deleted or donated" in str(e), e
                    errors.append(f"Array has been deleted with shape={a.dtype.name}"
                                  f"[{','.join(map(str, a.shape))}].")
        seen.append(([a.is_deleted() for a in eager], [(a.shape, a.dtype) for a in eager],
                     errors))
    assert seen[0] == seen[1]


def test_delete_and_is_deleted_of_eager_arrays_and_tracers():
    for lib, np_lib in ((autodidax, jnp), (jax, jnp_ref)):
        x = np_lib.arange(3.0)
        x.delete()
        assert x.is_deleted() and isinstance(x, lib.Array)
        with pytest.raises(RuntimeError, match=r"deleted with shape=float32\[3\]"):
            float(x.sum())
        for method in ("delete", "is_deleted"):
            with pytest.raises(lib.errors.ConcretizationTypeError,
                               match=f"The {method}\\(\\) method was called on"):
                lib.jit(lambda v: getattr(v, method)())(np.ones(2, np.float32))   # noqa: B023


def test_the_same_buffer_donated_twice_is_jaxlibs_error():
    msgs = []
    for lib in (autodidax, jax):
        x = lib.device_put(F3)
        with pytest.raises(RuntimeError) as info:
            lib.jit(lambda a, b: (a + b, a - b), donate_argnums=(0, 1))(x, x)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
    assert "Attempt to donate the same buffer twice" in msgs[0]


def test_argnums_and_argnames_resolve_as_in_jax():
    def k(a, b):
        return a + b
    for options, call in [(dict(donate_argnames="b"), lambda f, x, z: f(x, b=z)),
                          (dict(donate_argnums=1), lambda f, x, z: f(x, b=z)),
                          (dict(donate_argnames="b"), lambda f, x, z: f(x, z)),
                          (dict(donate_argnums=1, donate_argnames="a"),
                           lambda f, x, z: f(x, b=z)),
                          (dict(donate_argnums=-1), lambda f, x, z: f(x, z))]:
        deleted = []
        for lib in (autodidax, jax):
            x, z = lib.device_put(F3), lib.device_put(F3)
            call(lib.jit(k, **options), x, z)
            deleted.append((x.is_deleted(), z.is_deleted()))
        assert deleted[0] == deleted[1], options


@pytest.mark.parametrize("options", [dict(donate_argnums=3), dict(donate_argnames="c"),
                                     dict(donate_argnums=(0,), static_argnums=0)])
def test_bad_donation_errs_as_in_jax(options):
    def k(a, b):
        return a + b
    messages = []
    for lib in (autodidax, jax):
        with pytest.raises(ValueError) as info:
            lib.jit(k, **options)(F3, F3)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_donation_is_dropped_under_transformations():
    # JAX keeps donating under jvp and vmap; we do not (chapter 8, "Differences from JAX").
    f = jit(lambda x: x * 2.0, donate_argnums=0)
    x = autodidax.device_put(F3)
    autodidax.jvp(f, (x,), (autodidax.device_put(F3),))
    autodidax.vmap(f)(autodidax.device_put(F22))
    assert not x.is_deleted()
    y = f(x)
    assert x.is_deleted() and not y.is_deleted()


def memory_stats(lib, np_lib, make, args, **options):
    stats = lib.jit(make(np_lib), **options).lower(*args).compile().memory_analysis()
    return {k: getattr(stats, k) for k in MEMORY_FIELDS}


@pytest.mark.parametrize("name", ["one output fits", "none fits: buffer donor",
                                  "two donated, in order", "nothing usable warns"])
@pytest.mark.parametrize("donate", [True, False])
def test_memory_analysis_matches_jax(name, donate):
    make, args, options = CASES[name]
    options = options if donate else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = memory_stats(autodidax, jnp, make, args, **options)
        theirs = memory_stats(jax, jnp_ref, make, args, **options)
    assert ours == theirs


def test_memory_analysis_is_jaxlibs_object():
    ours = jit(lambda x: x * 2.0, donate_argnums=0).lower(F3).compile().memory_analysis()
    theirs = jax.jit(lambda x: x * 2.0, donate_argnums=0).lower(F3).compile().memory_analysis()
    assert type(ours) is type(theirs) and ours.alias_size_in_bytes == 12
    assert {a for a in dir(ours) if not a.startswith("_")} == \
        {a for a in dir(theirs) if not a.startswith("_")}


# ---------------------------------------------------------------- over 8 devices

def sharded_both():
    ours = NamedSharding(Mesh(np.array(autodidax.devices()), ("x",)), P("x"))
    theirs = jax.sharding.NamedSharding(jax.sharding.Mesh(np.array(jax.devices()), ("x",)),
                                        jax.sharding.PartitionSpec("x"))
    return ours, theirs


X16 = np.arange(16.0, dtype=np.float32)
SHARDED = {   # name: (function of jnp, whether out_shardings is given)
    "elementwise": (lambda np_: lambda x: x * 2.0, False),
    "elementwise, out_shardings": (lambda np_: lambda x: x * 2.0, True),
    "sum": (lambda np_: lambda x: x.sum(), False),
    "convert": (lambda np_: lambda x: x.astype(np_.int32), False),
    "convert, out_shardings": (lambda np_: lambda x: x.astype(np_.int32), True),
}


@pytest.mark.parametrize("name", SHARDED)
@pytest.mark.parametrize("donate", [True, False])
def test_sharded_donation_and_memory_match_jax(name, donate):
    make, with_out = SHARDED[name]
    results = []
    for lib, np_lib, s in zip((autodidax, jax), (jnp, jnp_ref), sharded_both()):
        options = dict(donate_argnums=0 if donate else None,
                       out_shardings=s if with_out else None)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            jitted = lib.jit(make(np_lib), **options)
            x = lib.device_put(X16, s)
            text = jitted.lower(x).as_text()
            stats = jitted.lower(x).compile().memory_analysis()
            out = jitted(x)
        results.append((text, [str(m.message) for m in w if "donated" in str(m.message)],
                        {k: getattr(stats, k) for k in MEMORY_FIELDS}, x.is_deleted(),
                        np.asarray(out).tolist()))
    assert results[0] == results[1]


def test_sharded_donated_array_reused_raises_not_crashes():
    errors = []
    for lib, s in zip((autodidax, jax), sharded_both()):
        x = lib.device_put(X16, s)
        lib.jit(lambda x: x * 2.0, donate_argnums=0, out_shardings=s)(x)
        assert x.is_deleted()
        for use in (lambda: lib.jit(lambda x: x.sum())(x), lambda: np.asarray(x),
                    lambda: lib.jit(lambda x: x * 2.0, donate_argnums=0, out_shardings=s)(x)):
            with pytest.raises(RuntimeError) as info:
                use()
            errors.append(str(info.value))
    assert errors[:3] == errors[3:] == ["Array has been deleted with shape=float32[16]."] * 3


def test_sharded_buffer_donated_twice_raises_in_a_subprocess():
    # JAX's process crashes on this; ours raises jaxlib's one-device error. A subprocess keeps a
    # crash, should one come back, from taking the test session with it.
    code = textwrap.dedent("""
        import numpy as np, autodidax
        from autodidax.sharding import Mesh, NamedSharding, P
        autodidax.config.update("jax_num_cpu_devices", 8)
        s = NamedSharding(Mesh(np.array(autodidax.devices()), ("x",)), P("x"))
        x = autodidax.device_put(np.arange(16.0, dtype=np.float32), s)
        f = autodidax.jit(lambda a, b: a + b, donate_argnums=0, out_shardings=s)
        try:
            f(x, x)
        except RuntimeError as e:
            print(type(e).__name__, e)
        print(x.is_deleted())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert ("INVALID_ARGUMENT: Attempt to use a buffer that was previously donated in the same "
            "call to Execute() (flattened argument 1, replica 0, partition 0, first use: 0). "
            "Toy example for this bug: `f(donate(a), a)`.") in out.stdout
    assert out.stdout.strip().endswith("False")

