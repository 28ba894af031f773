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
