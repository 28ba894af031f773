"""autodidax/core.py: avals, bind and the current trace, tracers, concrete arrays."""
import jax
import jax.numpy as jnp_ref
import numpy as np
import pytest

from autodidax import core
from autodidax.core import (Array, ConcretizationTypeError, EvalTrace, ShapedArray, Trace,
                            Tracer, TracerArrayConversionError, UnexpectedTracerError, get_aval,
                            set_current_trace, take_current_trace, trace_ctx)
from autodidax import lax


def test_avals_print_like_jax():
    assert ShapedArray((3, 4), np.float32).str_short() == "f32[3,4]"
    assert ShapedArray((), np.int32).str_short() == "i32[]"
    assert ShapedArray((2,), np.bool_).str_short() == "bool[2]"
    assert ShapedArray((), np.float32, True) == ShapedArray((), np.float32, True)
    assert ShapedArray((), np.float32, True) != ShapedArray((), np.float32)
    assert hash(ShapedArray((2,), np.float32)) == hash(ShapedArray((2,), np.float32))


@pytest.mark.parametrize("value", [1.0, 3, True, np.float64(2.0), np.arange(3),
                                   np.ones((2, 2)), np.ones(2, np.float16), np.uint8(3)])
def test_get_aval_matches_jax_typeof(value):
    want = jax.typeof(jnp_ref.asarray(value)) if not isinstance(value, (bool, int, float)) \
        else jax.typeof(value)
    got = get_aval(value)
    assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)


def test_get_aval_rejects_non_arrays_by_name():
    with pytest.raises(TypeError, match="of type <class 'str'> is not a valid JAX type"):
        get_aval("abc")
    with pytest.raises(TypeError, match="does not support dtype datetime64"):
        get_aval(np.zeros(2, "datetime64[s]"))


@pytest.mark.parametrize("make", [
    lambda m: m.arange(3.0), lambda m: m.arange(30.0) * 1.1, lambda m: m.ones((2, 3)),
    lambda m: m.arange(3), lambda m: m.sin(2.0), lambda m: m.asarray(True),
    lambda m: m.arange(12.0).reshape(3, 4) * 1.5, lambda m: m.arange(3) * 2.5,
    lambda m: m.zeros((2, 0)), lambda m: m.asarray(np.float16(1.5)),
])
def test_array_repr_matches_jax(make):
    import autodidax.numpy as jnp
    assert repr(make(jnp)) == repr(make(jnp_ref))
    assert str(make(jnp)) == str(make(jnp_ref))


def test_arrays_are_read_only_values():
    import autodidax.numpy as jnp
    source = np.arange(3.0)
    x = jnp.asarray(source)
    source[0] = 100.0
    assert np.asarray(x)[0] == 0.0, "asarray must copy the user's NumPy array"
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(x)[0] = 1.0
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)
    assert x.block_until_ready() is x
    assert x.tolist() == [0.0, 1.0, 2.0] and jnp.asarray(2.5).item() == 2.5


class _Tracer(Tracer):
    __slots__ = ("_aval",)

    def __init__(self, trace, aval):
        self._trace, self._aval = trace, aval

    aval = property(lambda self: self._aval)


class _RecordTrace(Trace):
    def __init__(self):
        self.seen = []

    def process_primitive(self, primitive, args, params):
        self.seen.append((primitive.name, trace_ctx.trace))
        out = core.abstract_eval_rules[primitive](*map(get_aval, args), **params)
        return _Tracer(self, out)


def test_bind_goes_to_the_current_trace_and_restores_it():
    trace = _RecordTrace()
    assert isinstance(trace_ctx.trace, EvalTrace)
    with set_current_trace(trace):
        x = _Tracer(trace, ShapedArray((3,), np.float32))
        y = lax.sin(lax.mul(x, 2.0))
    assert [name for name, _ in trace.seen] == ["mul", "sin"]
    # While a trace processes a primitive, the current trace is the evaluation trace.
    assert all(cur is core.eval_trace for _, cur in trace.seen)
    assert trace_ctx.trace is core.eval_trace
    assert y.aval == ShapedArray((3,), np.float32)


def test_the_front_end_gives_arrays_and_tracers_one_set_of_operators():
    import autodidax.numpy  # noqa: F401  (its import calls core.set_array_methods)
    for name in ("__add__", "__matmul__", "__getitem__", "sum", "reshape", "astype"):
        assert getattr(Array, name) is getattr(Tracer, name), name
    assert Array.T is Tracer.T and isinstance(Array.T, property)


def test_current_trace_is_restored_after_an_error():
    trace = _RecordTrace()
    with pytest.raises(TypeError):
        with set_current_trace(trace):
            lax.add(_Tracer(trace, ShapedArray((3,), np.float32)),
                    _Tracer(trace, ShapedArray((4,), np.float32)))
    assert trace_ctx.trace is core.eval_trace
    with take_current_trace() as t:
        assert t is core.eval_trace


def test_escaped_tracer_and_concretization_errors_say_what_happened():
    trace = _RecordTrace()
    x = _Tracer(trace, ShapedArray((3,), np.float32))
    with pytest.raises(UnexpectedTracerError, match="escaped"):
        lax.sin(x)
    with pytest.raises(ConcretizationTypeError, match=r"if x > 0.*static_argnums.*lax.cond"):
        bool(x)
    with pytest.raises(ConcretizationTypeError):
        int(x)
    with pytest.raises(TracerArrayConversionError, match="autodidax.numpy"):
        np.asarray(x)
    with pytest.raises(TypeError, match="unhashable"):
        hash(x)
    assert repr(x) == f"{type(x).__name__}(float32[3])"


def _frames(exc):
    import traceback
    return [f.filename for f in traceback.extract_tb(exc.__traceback__)]


def test_errors_show_the_users_frames_not_autodidax_internals(monkeypatch):
    import os
    import autodidax
    import autodidax.numpy as jnp
    package = os.path.dirname(autodidax.__file__)
    calls = [lambda: jnp.ones(3) * jnp.ones(4),
             lambda: autodidax.grad(lambda x: x * 2.0)(jnp.ones(3)),
             lambda: autodidax.vmap(jnp.sin)(jnp.ones(2), jnp.ones(3)),
             lambda: autodidax.jit(lambda x: x if x > 0 else -x)(1.0),
             lambda: autodidax.tree_util.tree_map(lambda a, b: a, (1, 2), [1, 2]),
             lambda: autodidax.jit(lambda x: x if x > 0 else -x).lower(1.0)]
    for call in calls:
        try:
            call()
        except Exception as e:       # as JAX's: not one frame of the package, the wrapper's neither
            internal = [f for f in _frames(e) if f.startswith(package)]
            assert not internal, f"{type(e).__name__}: internal frames remain: {internal}"
            assert _frames(e)[0] == __file__
        else:
            raise AssertionError("expected an error")
    monkeypatch.setenv("JAX_TRACEBACK_FILTERING", "off")
    with pytest.raises(TypeError) as info:
        jnp.ones(3) * jnp.ones(4)
    assert any(f.endswith("lax_core.py") for f in _frames(info.value)), "with filtering off, all frames"


def test_a_filtered_traceback_carries_jax_note_outside_ipython(monkeypatch):
    """Outside IPython JAX notes, once, under an exception whose frames it removed; so do we.
    With JAX_TRACEBACK_FILTERING=off, neither removes frames nor adds the note."""
    import traceback

    import autodidax
    import autodidax.numpy as anp
    notes = {}
    for name, lib, np_ in (("jax", jax, jnp_ref), ("autodidax", autodidax, anp)):
        try:
            lib.jit(lambda x: np_.ones(3) * x)(np_.ones(4))
        except TypeError as e:
            notes[name] = getattr(e, "__notes__", [])
            assert traceback.format_exc().rstrip().endswith(notes[name][-1])
    assert notes["jax"] == notes["autodidax"] and len(notes["jax"]) == 1, notes
    monkeypatch.setenv("JAX_TRACEBACK_FILTERING", "off")
    with pytest.raises(TypeError) as info:
        anp.ones(3) * anp.ones(4)
    assert not getattr(info.value, "__notes__", None)
