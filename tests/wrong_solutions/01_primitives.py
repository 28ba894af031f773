"""Wrong solutions to chapter 1's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

_PROCESS = """
values, deps = [], set()
for a in args:
    if isinstance(a, DepTracer) and a._trace is self:
        values.append(a.value)
        deps |= a.deps
    else:
        values.append(a)
with set_current_trace(eval_trace):
    out = primitive.bind(*values, **params)
"""

WRONG = [
    Wrong("1. A trace that stops at the first NaN", "the inputs checked, not the outputs",
          """
          for a in args:
              if np.isnan(np.asarray(a)).any():
                  raise FloatingPointError(f"invalid value (nan) encountered in {primitive}")
          with set_current_trace(eval_trace):
              return primitive.bind(*args, **params)
          """, reason="first NaN comes out of log, but the error says .*add"),
    Wrong("1. A trace that stops at the first NaN", "an infinity taken for a NaN",
          """
          with set_current_trace(eval_trace):
              out = primitive.bind(*args, **params)
          for o in out if primitive.multiple_results else [out]:
              if not np.isfinite(np.asarray(o)).all():
                  raise FloatingPointError(f"invalid value (nan) encountered in {primitive}")
          return out
          """, reason="an infinity, not a NaN"),
    Wrong("1. A trace that stops at the first NaN", "float32 outputs checked alone",
          """
          with set_current_trace(eval_trace):
              out = primitive.bind(*args, **params)
          for o in out if primitive.multiple_results else [out]:
              if o.dtype == np.float32 and np.isnan(np.asarray(o)).any():
                  raise FloatingPointError(f"invalid value (nan) encountered in {primitive}")
          return out
          """, reason="float16 zero makes a NaN in div"),
    Wrong("2. A trace with tracers of its own", "the set of the first tracer operand alone",
          ("""
          values, deps = [], None
          for a in args:
              if isinstance(a, DepTracer) and a._trace is self:
                  values.append(a.value)
                  deps = a.deps if deps is None else deps
              else:
                  values.append(a)
          deps = deps or set()
          with set_current_trace(eval_trace):
              out = primitive.bind(*values, **params)
          if primitive.multiple_results:
              return [DepTracer(self, o, deps) for o in out]
          return DepTracer(self, out, deps)
          """, None), reason=r"2\.0 \* x \+ y depends on the arguments at \{0, 1\}"),
    Wrong("2. A trace with tracers of its own", "no trace: each argument nudged, outputs compared",
          (None, """
          outs = f(*args)
          deps = tuple(set() for _ in outs)
          for i in range(len(args)):
              nudged = list(args)
              nudged[i] = args[i] + 1.0
              for out, moved, d in zip(outs, f(*nudged), deps):
                  if not np.array_equal(out, moved):
                      d.add(i)
          return tuple(outs), deps
          """), reason=r"x \* 0\.0 depends on the arguments at \{0\}"),
    Wrong("2. A trace with tracers of its own", "several results wrapped in one tracer",
          (_PROCESS + "return DepTracer(self, out, deps)\n", None),
          reason="two results, failed.*tracer of its own"),
    Wrong("2. A trace with tracers of its own", "the trace never invalidated",
          (None, """
          trace = DepTrace()
          tracers = [DepTracer(trace, jnp.asarray(a), {i}) for i, a in enumerate(args)]
          with set_current_trace(trace):
              outs = f(*tracers)
          mine = lambda o: isinstance(o, DepTracer) and o._trace is trace
          return (tuple(o.value if mine(o) else o for o in outs),
                  tuple(set(o.deps) if mine(o) else set() for o in outs))
          """), reason="invalidate the trace"),
    Wrong('1. A trace that stops at the first NaN',
          'only the first of several results checked',
          """
          with set_current_trace(eval_trace):
              out = primitive.bind(*args, **params)
          for o in out[:1] if primitive.multiple_results else [out]:
              if np.isnan(np.asarray(o)).any():
                  raise FloatingPointError(f"invalid value (nan) encountered in {primitive}")
          return out
          """,
          reason='comes out of unstack'),
    Wrong('2. A trace with tracers of its own',
          'the tracers returned, not their values',
          ("""
          values, deps = [], set()
          for a in args:
              if isinstance(a, DepTracer) and a._trace is self:
                  values.append(a.value)
                  deps |= a.deps
              else:
                  values.append(a)
          with set_current_trace(eval_trace):
              out = primitive.bind(*values, **params)
          if primitive.multiple_results:
              return [DepTracer(self, o, deps) for o in out]
          return DepTracer(self, out, deps)
          """, """
          trace = DepTrace()
          tracers = [DepTracer(trace, jnp.asarray(a), {i}) for i, a in enumerate(args)]
          with set_current_trace(trace):
              outs = f(*tracers)
          trace.invalidate()
          mine = lambda o: isinstance(o, DepTracer) and o._trace is trace
          return (tuple(outs), tuple(set(o.deps) if mine(o) else set() for o in outs))
          """),
          reason='not the tracers'),
    Wrong('2. A trace with tracers of its own',
          'a constant output taken to depend on every argument',
          ("""
          values, deps = [], set()
          for a in args:
              if isinstance(a, DepTracer) and a._trace is self:
                  values.append(a.value)
                  deps |= a.deps
              else:
                  values.append(a)
          with set_current_trace(eval_trace):
              out = primitive.bind(*values, **params)
          if primitive.multiple_results:
              return [DepTracer(self, o, deps) for o in out]
          return DepTracer(self, out, deps)
          """, """
          trace = DepTrace()
          tracers = [DepTracer(trace, jnp.asarray(a), {i}) for i, a in enumerate(args)]
          with set_current_trace(trace):
              outs = f(*tracers)
          trace.invalidate()
          mine = lambda o: isinstance(o, DepTracer) and o._trace is trace
          return (tuple(o.value if mine(o) else o for o in outs),
                  tuple(set(o.deps) if mine(o) else set(range(len(args))) for o in outs))
          """),
          reason='made outside f depends on'),
]
# --- round 3
WRONG += [
    Wrong("1. A trace that stops at the first NaN", "the NaN test by the sum: +inf + -inf is NaN",
          """
          with set_current_trace(eval_trace):
              out = primitive.bind(*args, **params)
          for o in out if primitive.multiple_results else [out]:
              if np.isnan(np.sum(np.asarray(o))):
                  raise FloatingPointError(f"invalid value (nan) encountered in {primitive}")
          return out
          """, reason=r"inf"),
    Wrong("1. A trace that stops at the first NaN", "the operands checked as well as the outputs",
          """
          with set_current_trace(eval_trace):
              out = primitive.bind(*args, **params)
          for o in list(args) + list(out if primitive.multiple_results else [out]):
              if np.isnan(np.asarray(o)).any():
                  raise FloatingPointError(f"invalid value (nan) encountered in {primitive}")
          return out
          """, reason=r"operand|input"),
]
