"""Wrong solutions to chapter 0's exercises: each runs, and each check must reject it."""
from textwrap import dedent

from book.wrong import Wrong

_CANONICAL = """
dtype = np.asarray(x).dtype
dtype = {np.dtype("float64"): np.dtype("float32"), np.dtype("int64"): np.dtype("int32"),
         np.dtype("uint64"): np.dtype("uint32")}.get(dtype, dtype)
"""

_RULES = (
    """
    (x,), (t,) = primals, tangents
    return np.sin(x), np.cos(x) * t
    """,
    """
    (a, b), (a_dot, b_dot) = primals, tangents
    return a * b, a_dot * b + a * b_dot
    """,
    """
    (a, b), (a_dot, b_dot) = primals, tangents
    return a + b, a_dot + b_dot
    """,
)

WRONG = [
    Wrong("1. When jit traces again",
          "weak only for Python scalars: a weak array counted as strong",
          _CANONICAL + dedent("""
          return np.shape(x), dtype, type(x) in (int, float)
          """), reason=r"weak_type=True\)+ traced, but"),
    Wrong("1. When jit traces again", "a Python bool counted as weak (bool is a subclass of int)",
          _CANONICAL + dedent("""
          weak = isinstance(x, (int, float)) or bool(getattr(x, "weak_type", False))
          return np.shape(x), dtype, weak
          """), reason=r"False_?\) did not trace|float64\(3\.0\)\) traced"),
    Wrong("1. When jit traces again", "no canonicalization: a float64 array keyed as float64",
          """
          weak = type(x) in (int, float) or bool(getattr(x, "weak_type", False))
          return np.shape(x), np.asarray(x).dtype, weak
          """, reason=r"did not trace.*float64"),
    Wrong("1. When jit traces again", "the package asked for the abstract value",
          """
          from autodidax.core import get_aval
          aval = get_aval(x)
          return aval.shape, aval.dtype, aval.weak_type
          """, reason="called get_aval"),
    Wrong("2. A second interpreter", "the product rule without the second operand's tangent",
          (_RULES[0], """
          (a, b), (a_dot, b_dot) = primals, tangents
          return a * b, a_dot * b
          """, _RULES[2], None), reason=r"tangent of (x \* x|3\.0 \* x).* should be"),
    Wrong("2. A second interpreter", "a constant given the tangent 1, like the input",
          _RULES + ("""
          x_var, eqns, out = program
          values, tangents = {x_var.name: x}, {x_var.name: t}
          value = lambda a: values[a.name] if isinstance(a, Var) else a
          tangent = lambda a: tangents[a.name] if isinstance(a, Var) else np.ones_like(a)
          for var, op, args in eqns:
              values[var.name], tangents[var.name] = toy_jvp_rules[op](
                  [value(a) for a in args], [tangent(a) for a in args])
          return values[out.name], tangents[out.name]
          """,), reason=r"tangent of sin\(x\) \* 2\.0 \+ x .* should be"),
    Wrong("2. A second interpreter", "central finite differences of run, in float64",
          _RULES + ("""
          eps = 1e-3
          x64, t64 = x.astype(np.float64), t.astype(np.float64)
          y_dot = (run(program, x64 + eps * t64) - run(program, x64 - eps * t64)) / (2 * eps)
          return run(program, x), y_dot.astype(x.dtype)
          """,), reason="the rules, not the values"),
    Wrong("2. A second interpreter", "the three operations written into toy_jvp, not looked up",
          _RULES + ("""
          x_var, eqns, out = program
          values, tangents = {x_var.name: x}, {x_var.name: t}
          value = lambda a: values[a.name] if isinstance(a, Var) else a
          tangent = lambda a: tangents[a.name] if isinstance(a, Var) else 0 * a
          for var, op, args in eqns:
              rule = sin_jvp if op == "sin" else mul_jvp if op == "mul" else add_jvp
              values[var.name], tangents[var.name] = rule(
                  [value(a) for a in args], [tangent(a) for a in args])
          return values[out.name], tangents[out.name]
          """,), reason="look each rule up in the table|the rules, not the values"),
    Wrong('1. When jit traces again',
          'the size for the shape',
          """
          dtype = np.asarray(x).dtype
          dtype = {np.dtype("float64"): np.dtype("float32"), np.dtype("int64"): np.dtype("int32"),
                   np.dtype("uint64"): np.dtype("uint32")}.get(dtype, dtype)

          weak = type(x) in (int, float) or bool(getattr(x, "weak_type", False))
          return np.size(x), dtype, weak
          """,
          reason='array\\(\\[1\\.\\], dtype=float32\\)\\) traced, but'),
    Wrong('1. When jit traces again',
          'a NumPy float64 scalar counted weak (it subclasses float)',
          """
          dtype = np.asarray(x).dtype
          dtype = {np.dtype("float64"): np.dtype("float32"), np.dtype("int64"): np.dtype("int32"),
                   np.dtype("uint64"): np.dtype("uint32")}.get(dtype, dtype)

          weak = isinstance(x, float) or type(x) is int or bool(getattr(x, "weak_type", False))
          return np.shape(x), dtype, weak
          """,
          reason='float64\\(3\\.0\\)\\) traced, but'),
    Wrong('2. A second interpreter',
          "a constant's tangent a float64 zero: the tangent promoted",
          ("""
          (x,), (t,) = primals, tangents
          return np.sin(x), np.cos(x) * t
          """, """
          (a, b), (a_dot, b_dot) = primals, tangents
          return a * b, a_dot * b + a * b_dot
          """, """
          (a, b), (a_dot, b_dot) = primals, tangents
          return a + b, a_dot + b_dot
          """, """
          x_var, eqns, out = program
          values, tangents = {x_var.name: x}, {x_var.name: t}
          value = lambda a: values[a.name] if isinstance(a, Var) else a
          tangent = lambda a: tangents[a.name] if isinstance(a, Var) else np.zeros(np.shape(a))
          for var, op, args in eqns:
              values[var.name], tangents[var.name] = toy_jvp_rules[op](
                  [value(a) for a in args], [tangent(a) for a in args])
          return values[out.name], tangents[out.name]
          """),
          reason='should be float32'),
    Wrong('1. When jit traces again',
          'every float, int and uint dtype mapped to its 32-bit one',
          """
          weak = type(x) in (int, float) or bool(getattr(x, "weak_type", False))
          dtype = np.asarray(x).dtype
          dtype = {"f": np.dtype("float32"), "i": np.dtype("int32"),
                   "u": np.dtype("uint32")}.get(dtype.kind, dtype)
          return np.shape(x), dtype, weak
          """,
          reason='float16\\)\\) traced, but'),
]
# --- round 3: escapes closed by 2-D shapes and an unused equation
WRONG += [
    Wrong("1. When jit traces again", "the rank and the number of elements for the shape",
          _CANONICAL + dedent("""
          weak = type(x) in (int, float) or bool(getattr(x, "weak_type", False))
          return (np.ndim(x), np.size(x)), dtype, weak
          """), reason=r"\[\[1\., 1\.\], \[1\., 1\.\], \[1\., 1\.\]\].*traced, but"),
    Wrong("2. A second interpreter",
          "the last equation's value and tangent returned, not the output's",
          _RULES + ("""
          x_var, eqns, out = program
          values, tangents = {x_var.name: x}, {x_var.name: t}
          value = lambda a: values[a.name] if isinstance(a, Var) else a
          tangent = lambda a: tangents[a.name] if isinstance(a, Var) else 0 * a
          y, y_dot = x, t
          for var, op, args in eqns:
              y, y_dot = toy_jvp_rules[op]([value(a) for a in args], [tangent(a) for a in args])
              values[var.name], tangents[var.name] = y, y_dot
          return y, y_dot
          """,), reason=r"unused"),
]
