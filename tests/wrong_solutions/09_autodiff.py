"""Wrong solutions to chapter 9's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

WRONG = [
    Wrong("1. A value known from its type", "staged as the default rule stages it",
          """
          return JaxprTrace.process_primitive(trace, zeros_like_p, args, params)
          """, reason="unknown outputs should be"),
    Wrong("1. A value known from its type", "zeros of a float dtype, not the operand's",
          """
          (x,) = args
          with set_current_trace(trace.parent_trace):
              return lax.full(x.aval.shape, 0.0)
          """, reason="zeros of b's type"),
    Wrong("1. A value known from its type", "the primitive bound on the parent, with the unknown operand",
          """
          with set_current_trace(trace.parent_trace):
              return zeros_like_p.bind(*args)
          """, reason="does not run"),
    Wrong("2. linear_transpose", "vjp at x: the derivative's transpose, for any function",
          """
          _, f_vjp = vjp(f, x)
          return lambda ct: f_vjp(ct)[0]
          """, reason="not linear"),
    Wrong("2. linear_transpose", "the Jacobian, built and transposed",
          """
          J = jacfwd(f)(x)
          return lambda ct: jnp.tensordot(ct, J, np.ndim(ct))
          """, reason="not linear"),
    Wrong("1. A value known from its type", "the zeros made eagerly, not on the parent trace",
          """
          (x,) = args
          return lax.full(x.aval.shape, 0, x.aval.dtype)
          """, reason="constant of the known jaxpr"),
    Wrong("1. A value known from its type", "the zeros made with NumPy, a constant of the jaxpr",
          """
          (x,) = args
          return np.zeros(x.aval.shape, x.aval.dtype)
          """, reason="constant of the known jaxpr"),
    Wrong("2. linear_transpose", "backward_pass's symbolic Zero returned as it is",
          """
          aval = get_aval(x)
          closed = trace_to_jaxpr(lambda x: [f(x)], [aval])
          return lambda ct: backward_pass(closed.jaxpr, closed.consts, [UndefinedPrimal(aval)],
                                          [ct])[0]
          """, reason="as an array"),
    Wrong("2. linear_transpose", "f traced again for every cotangent",
          """
          aval = get_aval(x)

          def f_t(ct):
              closed = trace_to_jaxpr(lambda x: [f(x)], [aval])
              (x_bar,) = backward_pass(closed.jaxpr, closed.consts, [UndefinedPrimal(aval)], [ct])
              return instantiate_zeros(x_bar)
          return f_t
          """, reason="trace it once"),
    Wrong("3. The transpose of a gather", "rows put back by assignment: a repeated row keeps one",
          """
          x_bar = np.zeros(x.aval.shape, x.aval.dtype)
          x_bar[np.asarray(idx)] = np.asarray(ct)
          return [x_bar, None]
          """, reason="add up"),
    Wrong("3. The transpose of a gather", "np.add.at: right eagerly, but NumPy cannot take tracers",
          """
          x_bar = np.zeros(x.aval.shape, x.aval.dtype)
          np.add.at(x_bar, np.asarray(idx), np.asarray(ct))
          return [x_bar, None]
          """, reason="must bind primitives"),
    Wrong("3. The transpose of a gather", "chapter 11's scatter-add",
          """
          return [jnp.zeros(x.aval.shape, x.aval.dtype).at[idx].add(ct), None]
          """, reason="scatter-add"),
]

_ONEHOT = """
n, k = x.aval.shape[0], get_aval(idx).shape[0]
rows = lax.broadcast_in_dim(idx, (k, n), [0])
cols = lax.broadcast_in_dim(lax.iota(get_aval(idx).dtype, n), (k, n), [1])
onehot = lax.convert_element_type(lax.eq(rows, cols), {dtype})    # [k, n]
return [{out}, None]
"""

WRONG += [
    Wrong("3. The transpose of a gather", "the one-hot matrix made float32, whatever ct's dtype",
          _ONEHOT.format(dtype="np.float32",
                         out="lax.dot_general(onehot, ct, (([0], [0]), ([], [])))"),
          reason=r"on f16\[5,2,3\] raised .*same dtype"),
    Wrong("3. The transpose of a gather", "the one-hot matrix transposed and multiplied with @",
          _ONEHOT.format(dtype="get_aval(ct).dtype", out="jnp.transpose(onehot) @ ct"),
          reason=r"the vjp of take_rows on f16\[5,2,3\] raised"),
    Wrong("3. The transpose of a gather", "the one-hot rows gathered from an identity matrix",
          """
          n = x.aval.shape[0]
          onehot = take_rows(jnp.eye(n, dtype=get_aval(ct).dtype), idx)
          return [lax.dot_general(onehot, ct, (([0], [0]), ([], []))), None]
          """, reason=r"the rule binds \['take_rows'\]"),
]
