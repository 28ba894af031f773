"""Wrong solutions to appendix A22's exercises: each runs, and each check must reject it."""
from book.wrong import Wrong

E1 = "1. The key of an eager call"
E2 = "2. How many programs?"

WRONG = [
    Wrong(E1, "a Python scalar keyed by its value: a program per constant",
          """
          return tuple((type(x), x) if i in static else (type(x), x)
                       if type(x) in (float, int, bool) else get_aval(x)
                       for i, x in enumerate(args))
          """, reason="x \\+ 1.0 and x \\+ 2.0 share"),
    Wrong(E1, "a static argument keyed by its value alone: 1 == 1.0 == True",
          """
          return tuple(x if i in static else type(x) if type(x) in (float, int, bool)
                       else get_aval(x) for i, x in enumerate(args))
          """, reason="by its type too"),
    Wrong(E1, "an array keyed by its shape alone",
          """
          return tuple((type(x), x) if i in static else type(x) if type(x) in (float, int, bool)
                       else np.shape(x) for i, x in enumerate(args))
          """, reason="dtypes differ"),
    Wrong(E1, "an array keyed by shape and dtype, not its weak type",
          """
          return tuple((type(x), x) if i in static else type(x) if type(x) in (float, int, bool)
                       else (np.shape(x), x.dtype) for i, x in enumerate(args))
          """, reason="weak type"),

    Wrong(E2, "a program per constant: x + 1.0 and x + 2.0 apart",
          """
          return {"var twice": 1, "x + 1.0, then x + 2.0": 2, "x + 1.0, then x + 1": 2,
                  "jvp of tanh": 1, "make_jaxpr of jvp of tanh": 0, "vmap of var": 1}
          """, reason="x \\+ 1.0, then x \\+ 2.0"),
    Wrong(E2, "jvp op by op: tanh, then the tangent's three primitives",
          """
          return {"var twice": 1, "x + 1.0, then x + 2.0": 1, "x + 1.0, then x + 1": 2,
                  "jvp of tanh": 4, "make_jaxpr of jvp of tanh": 0, "vmap of var": 1}
          """, reason="jvp of tanh"),
    Wrong(E2, "make_jaxpr compiles what it traces",
          """
          return {"var twice": 1, "x + 1.0, then x + 2.0": 1, "x + 1.0, then x + 1": 2,
                  "jvp of tanh": 1, "make_jaxpr of jvp of tanh": 1, "vmap of var": 1}
          """, reason="make_jaxpr of jvp"),
]
