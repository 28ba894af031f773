"""Wrong solutions to appendix A18's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. A rule that reads its params: roll"
E2 = "2. The last maximum"

_ROLL = """
aval, = ctx.avals_in
n = aval.shape[{n_axis}]
k = {k}
{zero}
def piece(start, limit):
    starts, limits = [0] * aval.ndim, list(aval.shape)
    starts[axis], limits[axis] = start, limit
    return hlo.slice(x, *map(dense_int_array, (starts, limits, [1] * aval.ndim)))
return [hlo.concatenate([{pieces}], axis)]
"""


def _roll(n_axis="axis", k="shift % n if n else 0", zero="if k == 0:\n    return [x]",
          pieces="piece(n - k, n), piece(0, n - k)"):
    return _ROLL.format(n_axis=n_axis, k=k, zero=zero, pieces=pieces)


_LAST = """
(aval,), (out_aval,) = ctx.avals_in, ctx.avals_out
value, index = aval.update(shape=()), out_aval.update(shape=())
indices = hlo.iota(aval_to_ir_type(aval.update(dtype=out_aval.dtype)), axis)
init = [ir_constant({init}, aval.dtype), ir_constant(0, out_aval.dtype)]
reduce = hlo.ReduceOp([aval_to_ir_type(out_aval.update(dtype=aval.dtype)),
                       aval_to_ir_type(out_aval)], [x, indices], init, dense_int_array([axis]))
body = reduce.regions[0].blocks.append(*[aval_to_ir_type(value), aval_to_ir_type(index)] * 2)
with ir.InsertionPoint(body):
    a, i, b, j = body.arguments
    take_a = {take_a}
    hlo.return_([hlo.select(take_a, a, b), hlo.select({take_i}, i, j)])
return [reduce.results[1]]
"""

_BEST = ('hlo.or_(compare(a, b, "GT", value), hlo.and_(compare(a, b, "EQ", value), '
         'compare(i, j, "GT", index)))')


def _last(init="lax.lowest(aval.dtype)", take_a=_BEST, take_i="take_a"):
    return _LAST.format(init=init, take_a=take_a, take_i=take_i)


WRONG = [
    Wrong(E1, "the two pieces in the other order",
          _roll(pieces="piece(0, n - k), piece(n - k, n)"),
          reason=r"roll of f32\[3,4\] by 1 along axis 0 is wrong"),
    Wrong(E1, "the shift used as it is, not modulo the axis",
          _roll(k="shift"), reason=r"roll of f32\[3,4\] by -1 along axis 1 failed"),
    Wrong(E1, "a roll by 0 emitted as two slices all the same",
          _roll(zero=""), reason="emit no operation"),
    Wrong(E1, "the package's jnp.roll, traced and lowered",
          """
          aval, = ctx.avals_in
          closed = make_jaxpr(lambda a: jnp.roll(a, shift, axis))(np.zeros(aval.shape, aval.dtype))
          return jaxpr_subcomp(ctx.module_context, closed.jaxpr, [], [x])
          """, reason="called .*roll, the package's"),
    Wrong(E1, "the axis length read from axis 0",
          _roll(n_axis="0"), reason=r"along axis 1 (failed|is wrong)"),
    Wrong(E2, "of equal values, the smaller index wins, as in argmax",
          _last(take_a=_BEST.replace('compare(i, j, "GT", index)', 'compare(i, j, "LT", index)')),
          reason="^ties: "),
    Wrong(E2, "the initial value 0, which a row of negative numbers never beats",
          _last(init="0"), reason="^all negative: "),
    Wrong(E2, "the initial value the dtype's most negative finite number: -inf never beats it",
          _last(init="np.finfo(aval.dtype).min if aval.dtype.kind == 'f' else lax.lowest(aval.dtype)"),
          reason="^all -inf: "),
    Wrong(E2, "the index taken only on ties, the value by comparison alone",
          _last(take_a='compare(a, b, "GT", value)',
                take_i='hlo.and_(compare(a, b, "EQ", value), compare(i, j, "GT", index))'),
          reason="should be"),
    Wrong(E2, "the operand reversed, its first maximum, the index counted back",
          """
          (aval,), (out_aval,) = ctx.avals_in, ctx.avals_out
          n = aval.shape[axis]
          closed = make_jaxpr(lambda v: n - 1 - lax.argmax(lax.rev(v, (axis,)), axis, np.int32))(
              np.zeros(aval.shape, aval.dtype))
          return jaxpr_subcomp(ctx.module_context, closed.jaxpr, closed.consts, [x])
          """, reason="one stablehlo.reduce|the package's"),
]
