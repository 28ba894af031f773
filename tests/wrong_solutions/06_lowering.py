"""Wrong solutions to chapter 6's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

_FOLD = """
aval_out, = ctx.avals_out
scalar = {scalar}
reduce = hlo.ReduceOp([aval_to_ir_type(aval_out)], [x], [{init}], dense_int_array({axes}))
region = reduce.regions[0].blocks.append(scalar, scalar)
with ir.InsertionPoint(region):
    consts = {consts}
    hlo.return_({body})
return [reduce.result]
"""


def _fold(scalar="aval_to_ir_type(aval_out.update(shape=()))", init="init", axes="axes",
          consts="[ir_constant(c, v.aval.dtype) for c, v in zip(body.consts, "
                 "body.jaxpr.constvars)]",
          body="jaxpr_subcomp(ctx.module_context, body.jaxpr, consts, list(region.arguments))"):
    return _FOLD.format(scalar=scalar, init=init, axes=axes, consts=consts, body=body)


WRONG = [
    Wrong("1. A lowering rule from smaller operations", "the formula as written: e^x overflows",
          """
          one = full_like_aval(1, ctx.avals_in[0])
          return [hlo.log(hlo.add(one, hlo.exponential(x)))]
          """, reason="overflowed"),
    Wrong("1. A lowering rule from smaller operations", "the absolute value forgotten: e^-x overflows",
          """
          aval, = ctx.avals_in
          positive = hlo.maximum(x, full_like_aval(0, aval))
          return [hlo.add(positive, hlo.log_plus_one(hlo.exponential(hlo.negate(x))))]
          """, reason="overflowed"),
    Wrong("1. A lowering rule from smaller operations", "the zeros made as float32, whatever the dtype",
          """
          aval, = ctx.avals_in
          positive = hlo.maximum(x, full_like_aval(0, aval.update(dtype=np.dtype(np.float32))))
          return [hlo.add(positive, hlo.log_plus_one(hlo.exponential(hlo.negate(hlo.abs(x)))))]
          """, reason=r"lowering softplus of f16\[3\] failed"),
    Wrong("1. A lowering rule from smaller operations", "the package's softplus, traced and lowered",
          """
          aval, = ctx.avals_in
          closed = make_jaxpr(autodidax.nn.softplus)(np.zeros(aval.shape, aval.dtype))
          return jaxpr_subcomp(ctx.module_context, closed.jaxpr, [], [x])
          """, reason="the package's"),
    Wrong("2. A body in a region: fold", "the body ignored: always a sum",
          _fold(consts="[]", body="[hlo.add(*region.arguments)]"),
          reason="maximum over axes .* should be"),
    Wrong("2. A body in a region: fold", "the body's constants not passed to jaxpr_subcomp",
          _fold(consts="[]"), reason=r"lowering fold of soft_max .*its body has a constant.* failed"),
    Wrong("2. A body in a region: fold", "the region's arguments typed float32, whatever the dtype",
          _fold(scalar="ir.RankedTensorType.get((), ir.F32Type.get())"),
          reason="lowering fold of . over axis 0 of an int32 array, from 0 failed"),
    Wrong("2. A body in a region: fold", "the region's arguments typed as the whole operand",
          _fold(scalar="aval_to_ir_type(ctx.avals_in[0])"),
          reason="lowering fold of maximum .* failed"),
    Wrong("2. A body in a region: fold", "the init value replaced by a zero",
          _fold(init="ir_constant(0, aval_out.dtype)"), reason="maximum over axes .* should be"),
]

WRONG += [
    Wrong("1. A lowering rule from smaller operations",
          "jnp.logaddexp(0, x), the package's softplus by another name, traced and lowered",
          """
          aval, = ctx.avals_in
          closed = make_jaxpr(lambda v: jnp.logaddexp(0.0, v))(np.zeros(aval.shape, aval.dtype))
          return jaxpr_subcomp(ctx.module_context, closed.jaxpr, closed.consts, [x])
          """, reason="the package's"),
    Wrong("1. A lowering rule from smaller operations",
          "lax's max, exp and log1p traced and lowered, not StableHLO operations",
          """
          aval, = ctx.avals_in
          f = lambda v: lax.add(lax.max(v, lax.full((), 0, aval.dtype)),
                                lax.log1p(lax.exp(lax.neg(lax.abs(v)))))
          closed = make_jaxpr(f)(np.zeros(aval.shape, aval.dtype))
          return jaxpr_subcomp(ctx.module_context, closed.jaxpr, closed.consts, [x])
          """, reason="called .*, the package's"),
]

# found by the third round of adversarial review
WRONG += [
    Wrong("2. A body in a region: fold", "the body's constants made of the folded array's dtype",
          """
          aval_out, = ctx.avals_out
          scalar = aval_to_ir_type(aval_out.update(shape=()))
          reduce = hlo.ReduceOp([aval_to_ir_type(aval_out)], [x], [init], dense_int_array(axes))
          region = reduce.regions[0].blocks.append(scalar, scalar)
          with ir.InsertionPoint(region):
              consts = [ir_constant(c, aval_out.dtype) for c in body.consts]
              hlo.return_(jaxpr_subcomp(ctx.module_context, body.jaxpr, consts, list(region.arguments)))
          return [reduce.result]
          """, reason=r"its own dtype, bool\) failed"),
]
