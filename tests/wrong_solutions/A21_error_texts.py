"""Wrong solutions to appendix A21's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. The results of a callback"
E2 = "2. Arguments a format never uses"

WRONG = [
    Wrong(E1, "every shape checked before any dtype",
          """
          if len(outs) != len(result_avals):
              raise RuntimeError("Mismatched number of outputs from callback. "
                                 f"Expected: {len(result_avals)}, Actual: {len(outs)}")
          for i, (out, aval) in enumerate(zip(outs, result_avals)):
              if out.shape != aval.shape:
                  raise RuntimeError(f"Incorrect output shape for return value #{i}: "
                                     f"Expected: {aval.shape}, Actual: {out.shape}")
          for i, (out, aval) in enumerate(zip(outs, result_avals)):
              if out.dtype != aval.dtype:
                  raise RuntimeError(f"Incorrect output dtype for return value #{i}: "
                                     f"Expected: {aval.dtype}, Actual: {out.dtype}")
          """, reason="the first is named"),
    Wrong(E1, "the dtype checked before the shape",
          """
          if len(outs) != len(result_avals):
              raise RuntimeError("Mismatched number of outputs from callback. "
                                 f"Expected: {len(result_avals)}, Actual: {len(outs)}")
          for i, (out, aval) in enumerate(zip(outs, result_avals)):
              if out.dtype != aval.dtype:
                  raise RuntimeError(f"Incorrect output dtype for return value #{i}: "
                                     f"Expected: {aval.dtype}, Actual: {out.dtype}")
              if out.shape != aval.shape:
                  raise RuntimeError(f"Incorrect output shape for return value #{i}: "
                                     f"Expected: {aval.shape}, Actual: {out.shape}")
          """, reason="both wrong"),
    Wrong(E1, "the numbers of results not compared: zip stops at the shorter",
          """
          for i, (out, aval) in enumerate(zip(outs, result_avals)):
              if out.shape != aval.shape:
                  raise RuntimeError(f"Incorrect output shape for return value #{i}: "
                                     f"Expected: {aval.shape}, Actual: {out.shape}")
              if out.dtype != aval.dtype:
                  raise RuntimeError(f"Incorrect output dtype for return value #{i}: "
                                     f"Expected: {aval.dtype}, Actual: {out.dtype}")
          """, reason="no result where one was declared"),

    Wrong(E2, "keywords checked before positional arguments",
          """
          used, auto = set(), 0
          for _, name, _, _ in string.Formatter().parse(fmt):
              if name is None:
                  continue
              if name == "":
                  used.add(auto)
                  auto += 1
              else:
                  used.add(int(name) if name.isdigit() else name)
          unused_args = [a for i, a in enumerate(args) if i not in used]
          unused_kwargs = [k for k in kwargs if k not in used]
          if unused_kwargs:
              return (f"Unused keyword arguments to `jax.debug.print`: {unused_kwargs}. "
                      "You may be passing an f-string (i.e, `f\\"{x}\\"`) into "
                      "`jax.debug.print` and instead should pass in a regular string.")
          if unused_args:
              return f"Unused positional arguments to `jax.debug.print`: {unused_args}"
          return None
          """, reason="positional first"),
    Wrong(E2, "numbered fields ignored: only automatic ones counted",
          """
          n = sum(1 for _, name, _, _ in string.Formatter().parse(fmt) if name == "")
          names = {name for _, name, _, _ in string.Formatter().parse(fmt) if name}
          unused_args = list(args[n:])
          unused_kwargs = [k for k in kwargs if k not in names]
          if unused_args:
              return f"Unused positional arguments to `jax.debug.print`: {unused_args}"
          if unused_kwargs:
              return (f"Unused keyword arguments to `jax.debug.print`: {unused_kwargs}. "
                      "You may be passing an f-string (i.e, `f\\"{x}\\"`) into "
                      "`jax.debug.print` and instead should pass in a regular string.")
          return None
          """, reason="numbered field"),
]
