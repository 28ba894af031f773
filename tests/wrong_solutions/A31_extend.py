"""Wrong solutions to appendix A31's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1, E2 = "1. A primitive: cube", "2. An interpreter: counting primitives"


WRONG = [
    Wrong(E1, "the derivative of x ** 3 taken as 3 x", """
          cube_p.def_impl(lambda x: np.power(x, 3))
          cube_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype, x.weak_type))
          ad.defjvp(cube_p, lambda g, x: g * 3 * x)
          mlir.register_lowering(cube_p, mlir.lower_fun(lambda x: [x * x * x]))
          jbatching.primitive_batchers[cube_p] = lambda vals, dims: (cube_p.bind(*vals), dims[0])
          """, reason="3 \\* 2 \\*\\* 2 = 12"),
    Wrong(E1, "an abstract rule that makes every output float64's", """
          cube_p.def_impl(lambda x: np.power(x, 3))
          cube_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, np.float64))
          ad.defjvp(cube_p, lambda g, x: g * 3 * x * x)
          mlir.register_lowering(cube_p, mlir.lower_fun(lambda x: [x * x * x]))
          jbatching.primitive_batchers[cube_p] = lambda vals, dims: (cube_p.bind(*vals), dims[0])
          """, reason="the abstract rule"),
    Wrong(E1, "a batching rule that always answers batch dimension 0", """
          cube_p.def_impl(lambda x: np.power(x, 3))
          cube_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype, x.weak_type))
          mlir.register_lowering(cube_p, mlir.lower_fun(lambda x: [x * x * x]))
          ad.defjvp(cube_p, lambda g, x: g * 3 * x * x)
          jbatching.primitive_batchers[cube_p] = lambda vals, dims: (cube_p.bind(*vals), 0)
          """, reason="batch dimension of its operand"),
    Wrong(E1, "a lowering of x squared", """
          cube_p.def_impl(lambda x: np.power(x, 3))
          cube_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype, x.weak_type))
          mlir.register_lowering(cube_p, mlir.lower_fun(lambda x: [x * x]))
          ad.defjvp(cube_p, lambda g, x: g * 3 * x * x)
          jbatching.primitive_batchers[cube_p] = lambda vals, dims: (cube_p.bind(*vals), dims[0])
          """, reason="the lowering"),
    Wrong(E2, "the constants read from the jaxpr's invars' places", """
    counts = {}
    env = dict(zip(closed.jaxpr.invars, args))
    env.update(zip(closed.jaxpr.constvars, args))
    read = lambda v: v.val if type(v) is ext.Literal else env[v]
    for eqn in closed.eqns:
        counts[eqn.primitive.name] = counts.get(eqn.primitive.name, 0) + 1
        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(v) for v in closed.jaxpr.outvars], counts
    """, reason="the outputs are f's"),
    Wrong(E2, "counts by primitive object, not name", """
    counts = {}
    env = dict(zip(closed.jaxpr.constvars, closed.literals))
    env.update(zip(closed.jaxpr.invars, args))
    read = lambda v: v.val if type(v) is ext.Literal else env[v]
    for eqn in closed.eqns:
        counts[eqn.primitive] = counts.get(eqn.primitive, 0) + 1
        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(v) for v in closed.jaxpr.outvars], counts
    """, reason="by primitive name"),
    Wrong(E2, "only the first output returned", """
    counts = {}
    env = dict(zip(closed.jaxpr.constvars, closed.literals))
    env.update(zip(closed.jaxpr.invars, args))
    read = lambda v: v.val if type(v) is ext.Literal else env[v]
    for eqn in closed.eqns:
        counts[eqn.primitive.name] = counts.get(eqn.primitive.name, 0) + 1
        outs = eqn.primitive.bind(*map(read, eqn.invars), **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(closed.jaxpr.outvars[0])], counts
    """, reason="one per output"),
]
