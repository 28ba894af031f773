"""Wrong solutions to chapter 17's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

WRONG = [
    Wrong("1. Who can read this module?", "the version this jaxlib writes, not the module's",
          ("""
           return 6, jax.export.target_version()
           """, None), reason="module written for StableHLO 0.9.0"),
    Wrong("1. Who can read this module?", "the version byte as it is, not decoded",
          ("""
           end = module.index(b"\\0", 5)
           return module[4], module[5:end].decode().removeprefix("StableHLO_v")
           """, None), reason="bytecode version 0 .*upper 7 bits"),
    Wrong("1. Who can read this module?", "versions compared as strings",
          (None, """
           return minimum <= producer(module)[1] <= current
           """), reason="as tuples of numbers"),
    Wrong("1. Who can read this module?", "only the newest version checked, not the oldest",
          (None, """
           def number(v):
               return tuple(int(p) for p in v.split("."))
           return number(producer(module)[1]) <= number(current)
           """), reason="cannot read a module written for 0.9.0"),
    Wrong("1. Who can read this module?", "versions compared by major and minor only",
          (None, """
           def number(v):
               return tuple(int(p) for p in v.split(".")[:2])
           return number(minimum) <= number(producer(module)[1]) <= number(current)
           """), reason="1.14.9 that reads back to 1.4.1 cannot read a module written for 1.4.0"),
    Wrong("1. Who can read this module?", "the newest version compared by major.minor only",
          (None, """
           def number(v):
               return tuple(int(p) for p in v.split("."))
           v = number(producer(module)[1])
           return number(minimum) <= v and v[:2] <= number(current)[:2]
           """), reason="1.12.3 .* cannot read a module written for 1.12.10; you said True"),
    Wrong("1. Who can read this module?", "the target version read as 6 characters at most",
          ("""
           return module[4] >> 1, module[16:22].decode().rstrip("\\0")
           """, None), reason="written for StableHLO 1.12.10: you read '1.12.1'"),
    Wrong("2. Gradients without tracing", "cotangents of zeros, not ones",
          """
          artifact = read_artifact(bytes(blob))
          if artifact.vjp is None:
              raise ValueError("no VJP")
          cotangents = [np.zeros(a.shape, a.dtype) for a in artifact.out_avals]
          return Program(artifact.vjp, make_client("cpu"))(*inputs, *cotangents)
          """, reason="the gradient of input 0 should be"),
    Wrong("2. Gradients without tracing", "one cotangent per input, not per output",
          """
          artifact = read_artifact(bytes(blob))
          if artifact.vjp is None:
              raise ValueError("no VJP")
          cotangents = [np.ones(a.shape, a.dtype) for a in artifact.in_avals]
          return Program(artifact.vjp, make_client("cpu"))(*inputs, *cotangents)
          """, reason="w @ x.*raised InputError.*one cotangent per output"),
    Wrong("2. Gradients without tracing", "the cotangents only, without the primal inputs",
          """
          artifact = read_artifact(bytes(blob))
          if artifact.vjp is None:
              raise ValueError("no VJP")
          cotangents = [np.ones(a.shape, a.dtype) for a in artifact.out_avals]
          return Program(artifact.vjp, make_client("cpu"))(*cotangents)
          """, reason="raised InputError.*takes the primal inputs"),
    Wrong("2. Gradients without tracing", "jax.grad of the deserialized call, which traces",
          """
          exp = jax.export.deserialize(blob)
          total = lambda *xs: sum(o.sum() for o in jax.tree_util.tree_leaves(exp.call(*xs)))
          return list(jax.grad(total, argnums=tuple(range(len(inputs))))(*inputs))
          """, reason="use the runner, which traces nothing"),
    Wrong("2. Gradients without tracing", "no check for an artifact without its VJP",
          """
          artifact = read_artifact(bytes(blob))
          cotangents = [np.ones(a.shape, a.dtype) for a in artifact.out_avals]
          return Program(artifact.vjp, make_client("cpu"))(*inputs, *cotangents)
          """, reason="without its VJP should raise ValueError"),
]
