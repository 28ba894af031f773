"""Wrong solutions to appendix A31's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1, E2 = "1. A primitive: cube", "2. An interpreter: replacing primitives"


WRONG = [
    Wrong(E1, "the derivative of x ** 3 taken as 3 x", """
          cube_p.def_impl(lambda x: np.power(x, 3))
          cube_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype, x.weak_type))
          ad.defjvp(cube_p, lambda g, x: g * 3 * x)
          mlir.register_lowering(cube_p, mlir.lower_fun(lambda x: [x * x * x]))
          jbatching.primitive_batchers[cube_p] = lambda vals, dims: (cube_p.bind(*vals), dims[0])
          """, reason="tangent in times the derivative"),
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
    Wrong(E1, "a JVP that leaves out the input tangent", """
          cube_p.def_impl(lambda x: np.power(x, 3))
          cube_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype, x.weak_type))
          mlir.register_lowering(cube_p, mlir.lower_fun(lambda x: [x * x * x]))
          ad.defjvp(cube_p, lambda g, x: 3 * x * x)
          jbatching.primitive_batchers[cube_p] = lambda vals, dims: (cube_p.bind(*vals), dims[0])
          """, reason="tangent in times the derivative"),
    Wrong(E1, "an impl rule of x ** 2 (jit, through the lowering, is right)", """
          cube_p.def_impl(lambda x: np.power(x, 2))
          cube_p.def_abstract_eval(lambda x: core.ShapedArray(x.shape, x.dtype, x.weak_type))
          mlir.register_lowering(cube_p, mlir.lower_fun(lambda x: [x * x * x]))
          ad.defjvp(cube_p, lambda g, x: g * 3 * x * x)
          jbatching.primitive_batchers[cube_p] = lambda vals, dims: (cube_p.bind(*vals), dims[0])
          """, reason="the impl rule"),
    Wrong(E2, "a jit equation bound as it is: replacements miss its body", """
    env = dict(zip(closed.jaxpr.constvars, closed.literals))
    env.update(zip(closed.jaxpr.invars, args))
    read = lambda v: v.val if type(v) is ext.Literal else env[v]
    for eqn in closed.eqns:
        ins = list(map(read, eqn.invars))
        if eqn.primitive in replace:
            outs = replace[eqn.primitive](*ins, **eqn.params)
        else:
            outs = eqn.primitive.bind(*ins, **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(v) for v in closed.jaxpr.outvars]
    """, reason="once inside"),
    Wrong(E2, "a jit taken to return one output, not a list of them", """
    env = dict(zip(closed.jaxpr.constvars, closed.literals))
    env.update(zip(closed.jaxpr.invars, args))
    read = lambda v: v.val if type(v) is ext.Literal else env[v]
    for eqn in closed.eqns:
        ins = list(map(read, eqn.invars))
        if eqn.primitive in replace:
            outs = replace[eqn.primitive](*ins, **eqn.params)
        elif eqn.primitive.name == "jit":
            outs = eval_replacing(eqn.params["jaxpr"], replace, *ins)[0]
        else:
            outs = eqn.primitive.bind(*ins, **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(v) for v in closed.jaxpr.outvars]
    """, reason="the outputs are f's"),
    Wrong(E2, "the replacement called without the equation's params", """
    env = dict(zip(closed.jaxpr.constvars, closed.literals))
    env.update(zip(closed.jaxpr.invars, args))
    read = lambda v: v.val if type(v) is ext.Literal else env[v]
    for eqn in closed.eqns:
        ins = list(map(read, eqn.invars))
        if eqn.primitive in replace:
            outs = replace[eqn.primitive](*ins)
        elif eqn.primitive.name == "jit":
            outs = eval_replacing(eqn.params["jaxpr"], replace, *ins)
        else:
            outs = eqn.primitive.bind(*ins, **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(v) for v in closed.jaxpr.outvars]
    """, reason="missing 1 required keyword-only argument: .y."),
    Wrong(E2, "evaluated in NumPy: right values, but not traceable", """
    env = dict(zip(closed.jaxpr.constvars, closed.literals))
    env.update(zip(closed.jaxpr.invars, args))
    read = lambda v: v.val if type(v) is ext.Literal else env[v]
    for eqn in closed.eqns:
        ins = [np.asarray(x) for x in map(read, eqn.invars)]
        if eqn.primitive in replace:
            outs = replace[eqn.primitive](*ins, **eqn.params)
        elif eqn.primitive.name == "jit":
            outs = eval_replacing(eqn.params["jaxpr"], replace, *ins)
        else:
            outs = eqn.primitive.bind(*ins, **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs]))
    return [read(v) for v in closed.jaxpr.outvars]
    """, reason="TracerArrayConversionError"),
]
