"""Checks of appendix A4's exercises (chapters/A4_printing.md): each takes the notebook's
namespace."""
import numpy as np

from autodidax import lax


def check_pp_call(nb):
    """1. A call, on one line or many: pp_call flat, broken, nested and mid-line."""
    pp_call, Text = nb["pp_call"], nb["Text"]
    call = pp_call("f", [Text("x"), Text("y")])
    assert call.format() == "f(x, y)", f"flat: expected 'f(x, y)', got {call.format()!r}"
    got = call.format(width=6)
    assert "\n" in got, \
        f"at width 6, 'f(x, y)' (7 columns) does not fit, and should break; got {got!r}: the " \
        "group that decides is the whole call, its name and both parentheses included"
    inner = pp_call("g", [Text("alpha"), Text("beta")])
    outer = pp_call("f", [Text("x"), inner, Text("y")])
    want = "f(\n    x,\n    g(alpha, beta),\n    y\n)"
    got = outer.format(width=20)
    lines = got.split("\n")
    assert not any(line.endswith(" ") for line in lines), \
        f"at width 20, a broken line ends in a space, {got!r}: put the space in the break " \
        "(it is a space only when the break is not taken), not after the comma"
    assert lines[:2] == ["f(", "    x,"], \
        f"at width 20, the arguments should go one per line from the line after 'f(', four " \
        f"columns deeper than the line the call starts on; got {got!r}"
    assert lines[-1] == ")", \
        f"at width 20, the ')' should be on a line of its own, back at the indentation of the " \
        f"line the call starts on; got {got!r}"
    assert got == want, f"at width 20, where g(alpha, beta) fits but f(...) does not, " \
                        f"expected {want!r}, got {got!r}"
    want = "f(\n    x,\n    g(\n        alpha,\n        beta\n    ),\n    y\n)"
    got = outer.format(width=12)
    assert got == want, f"at width 12, where neither fits, expected {want!r}, got {got!r}"
    stmt = Text("out = ") + pp_call("h", [Text("first"), Text("second")])
    want = "out = h(\n    first,\n    second\n)"
    got = stmt.format(width=16)
    assert got == want, f"a call that starts mid-line, at width 16: expected {want!r}, got {got!r}"


def check_pp_python(nb):
    """2. A jaxpr as a Python function: pp_python's lines, case by case."""
    pp_python, make_jaxpr, jnp = nb["pp_python"], nb["make_jaxpr"], nb["jnp"]
    def printed(fun, *args, width=80):
        return pp_python(make_jaxpr(fun)(*args).jaxpr).format(width=width)
    cases = [
        (lambda x, y: jnp.sin(x) * y + 1.0, (1.0, 2.0), [
            "def f(a, b):", "    c = sin(a)", "    d = mul(c, b)", "    e = add(d, 1.0)",
            "    return e"],
         "sin(x) * y + 1.0: each statement on a line of its own, four columns in, and a "
         "literal as its value alone"),
        (lambda x: (jnp.exp(x), jnp.cos(x))[1], (1.0,), [
            "def f(a):", "    _ = exp(a)", "    b = cos(a)", "    return b"],
         "an exp that nothing reads: its output is _, and the names go on from there, as "
         "pp_jaxpr has them (names_for)"),
        (lambda x, w: jnp.broadcast_to(x @ w, (2, 4)) * 2.0, (jnp.ones((4, 3)), jnp.ones(3)), [
            "def f(a, b):", "    c = dot_general(", "        a,", "        b,",
            "        dimension_numbers=(([1], [0]), ([], [])),",
            "        preferred_element_type=float32", "    )",
            "    d = broadcast_in_dim(c, broadcast_dimensions=(1,))", "    e = mul(d, 2.0)",
            "    return e"],
         "a product, broadcast: the parameters after the inputs, sorted, as pp_param_rules "
         "shows them, and a statement too long for its line broken as pp_call breaks a call"),
        (lambda x: (lax.unstack(x)[1], 2.0), (jnp.ones((2, 3)),), [
            "def f(a):", "    _, b = unstack(a, axis=0)", "    return b, 2.0"],
         "two outputs, one of them unread, and a literal returned"),
        (lambda x: jnp.reshape(x * 2, (3, 2)), (jnp.ones((2, 3), jnp.int32),), [
            "def f(a):", "    b = mul(a, 2)",
            "    c = reshape(b, dimensions=None, new_sizes=(3, 2), sharding=None)", "    return c"],
         "an integer literal, and parameters that the equation does not keep sorted: sort "
         "them by key"),
        (lambda x: x + np.arange(3.0, dtype=np.float32), (jnp.ones(3),), [
            "def f(a, b):", "    c = add(b, a)", "    return c"],
         "a NumPy array the function closes over: the constants are the first parameters"),
    ]
    cases.append((lambda a, b, c, d, e, f, g, h: a + h, (1.0,) * 8, [
        "def f(", "    a,", "    b,", "    c,", "    d,", "    e,", "    f,", "    g,", "    h",
        "):", "    i = add(a, h)", "    return i"],
        "eight parameters, at width 20: the def line too long for its line broken as pp_call "
        "breaks a call", 20))
    for fun, args, lines, what, *width in cases:
        got = printed(fun, *args, width=width[0] if width else 80).split("\n")
        wrong = [k for k in range(max(len(lines), len(got)))
                 if k >= len(lines) or k >= len(got) or lines[k] != got[k]]
        if wrong:
            k = wrong[0]
            line = lambda text: repr(text[k]) if k < len(text) else "nothing"
            raise AssertionError(f"for {what}: line {k + 1} should be {line(lines)}, got "
                                 f"{line(got)} (the whole: {chr(10).join(got)!r})")
