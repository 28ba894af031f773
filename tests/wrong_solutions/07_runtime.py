"""Wrong solutions to chapter 7's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. NumPy or XLA, by size and by place"
E2 = "2. Compile what runs often"

WRONG = [
    Wrong(E1, "size alone: a small device array is evaluated with NumPy, back on the host",
          """
          if any(get_aval(x).size >= self.threshold for x in args):
              return super().process_primitive(primitive, args, params)
          return _numpy_eval_trace.process_primitive(primitive, args, params)
          """, reason="a device array of 3 numbers .* should run with XLA"),
    Wrong(E1, "every argument must be large: one small argument sends the call to NumPy",
          """
          if all(type(x) is Array or get_aval(x).size >= self.threshold for x in args):
              return super().process_primitive(primitive, args, params)
          return _numpy_eval_trace.process_primitive(primitive, args, params)
          """, reason="concatenate of 10 host numbers and 1000 .* should run with XLA"),
    Wrong(E1, "the threshold itself counted as small",
          """
          if any(type(x) is Array or get_aval(x).size > self.threshold for x in args):
              return super().process_primitive(primitive, args, params)
          return _numpy_eval_trace.process_primitive(primitive, args, params)
          """, reason="sin of 100 numbers .* should run with XLA"),
    Wrong(E1, "isinstance of chapter 1's Array: every array counts as on the device",
          """
          if any(isinstance(x, autodidax.core.Array) or get_aval(x).size >= self.threshold
                 for x in args):
              return super().process_primitive(primitive, args, params)
          return _numpy_eval_trace.process_primitive(primitive, args, params)
          """, reason="sin of 10 numbers on the host: should run with NumPy"),

    Wrong(E2, "compiles on the warmup-th call, not after it",
          (None, """
          key = (primitive, tuple(sorted(params.items())), tuple(map(get_aval, args)))
          self.seen[key] = n = self.seen.get(key, 0) + 1
          if n < self.warmup:
              return _numpy_eval_trace.process_primitive(primitive, args, params)
          return super().process_primitive(primitive, args, params)
          """), reason="should run with NumPy, NumPy, XLA, XLA"),
    Wrong(E2, "one count per primitive",
          (None, """
          self.seen[primitive] = n = self.seen.get(primitive, 0) + 1
          if n <= self.warmup:
              return _numpy_eval_trace.process_primitive(primitive, args, params)
          return super().process_primitive(primitive, args, params)
          """), reason="another shape"),
    Wrong(E2, "the parameters left out of the kind of call",
          (None, """
          key = (primitive, tuple(map(get_aval, args)))
          self.seen[key] = n = self.seen.get(key, 0) + 1
          if n <= self.warmup:
              return _numpy_eval_trace.process_primitive(primitive, args, params)
          return super().process_primitive(primitive, args, params)
          """), reason="other parameters"),
    Wrong(E2, "types as shape and dtype: the weak type forgotten",
          (None, """
          types = tuple((get_aval(x).shape, get_aval(x).dtype) for x in args)
          key = (primitive, tuple(sorted(params.items())), types)
          self.seen[key] = n = self.seen.get(key, 0) + 1
          if n <= self.warmup:
              return _numpy_eval_trace.process_primitive(primitive, args, params)
          return super().process_primitive(primitive, args, params)
          """), reason="the weak type is part of it"),
    Wrong(E2, "the arguments themselves in the key: every new array is a new kind of call",
          (None, """
          key = (primitive, tuple(sorted(params.items())), tuple(map(id, args)))
          self.seen[key] = n = self.seen.get(key, 0) + 1
          if n <= self.warmup:
              return _numpy_eval_trace.process_primitive(primitive, args, params)
          return super().process_primitive(primitive, args, params)
          """), reason="should run with NumPy, NumPy, XLA, XLA; ran NumPy, NumPy, NumPy, NumPy"),

]

_TIERED = """
key = (primitive, tuple(sorted(params.items())), {types})
self.seen[key] = n = self.seen.get(key, 0) + 1
if n <= self.warmup:
    return _numpy_eval_trace.process_primitive(primitive, args, params)
return super().process_primitive(primitive, args, params)
"""

WRONG += [
    Wrong(E1, "the sizes of all the arguments added up, not each argument's",
          """
          if any(type(x) is Array for x in args) or \\
                  sum(get_aval(x).size for x in args) >= self.threshold:
              return super().process_primitive(primitive, args, params)
          return _numpy_eval_trace.process_primitive(primitive, args, params)
          """, reason="99 host numbers plus 99 host numbers .* should run with NumPy"),
    Wrong(E2, "where the arguments are (host or device) made part of the kind of call",
          (None, _TIERED.format(types="tuple((type(x), get_aval(x)) for x in args)")),
          reason="sin on a device array of type f32\\[3\\].* should run with XLA"),
    Wrong(E2, "the primitive left out of the kind of call: sin and cos counted together",
          (None, """
          key = (tuple(sorted(params.items())), tuple(map(get_aval, args)))
          self.seen[key] = n = self.seen.get(key, 0) + 1
          if n <= self.warmup:
              return _numpy_eval_trace.process_primitive(primitive, args, params)
          return super().process_primitive(primitive, args, params)
          """), reason="another primitive"),
]

# found by the third round of adversarial review
WRONG += [
    Wrong(E1, "decided by the size of the result, not of the arguments",
          """
          from autodidax.core import abstract_eval_rules
          out = abstract_eval_rules[primitive](*map(get_aval, args), **params)
          outs = out if isinstance(out, (list, tuple)) else [out]
          if any(type(x) is Array for x in args) or max(o.size for o in outs) >= self.threshold:
              return super().process_primitive(primitive, args, params)
          return _numpy_eval_trace.process_primitive(primitive, args, params)
          """, reason="the sum of 1000 host numbers.*should run with XLA"),
]
