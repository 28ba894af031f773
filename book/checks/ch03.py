"""Checks of chapter 3's exercises (chapters/03_jvp.md): each takes the notebook's namespace."""
import numpy as np

import autodidax.autodiff
from autodidax.core import Trace, eval_trace, set_current_trace
from book.exercises import watch


class CountingTrace(Trace):
    """Evaluates, and counts the primitives it evaluates and the elements they make."""
    def __init__(self):
        self.count, self.elements = 0, 0

    def process_primitive(self, primitive, args, params):
        self.count += 1
        with set_current_trace(eval_trace):
            out = primitive.bind(*args, **params)
        self.elements += sum(np.size(o) for o in (out if primitive.multiple_results else [out]))
        return out


def check_softplus_jvp(nb):
    """1. The JVP rule of a new primitive: `softplus_jvp`'s values, its second derivative, and
    no overflow at large |x|."""
    softplus, jvp, jnp = nb["softplus"], nb["jvp"], nb["jnp"]
    x0 = np.array([-2.0, 0.0, 3.0], np.float32)
    t0 = np.array([0.5, -3.0, 2.0], np.float32)
    y, y_dot = jvp(softplus, (jnp.asarray(x0),), (jnp.asarray(t0),))
    np.testing.assert_allclose(y, np.logaddexp(0, x0), rtol=1e-6,
                               err_msg="the primal output should be softplus(x)")
    want = t0 / (1 + np.exp(-x0))
    assert np.allclose(y_dot, want, rtol=1e-5), \
        f"the tangent for x={x0} and t={t0} should be logistic(x) * t = {want}, got {y_dot}"
    second = jvp(lambda x: jvp(softplus, (x,), (1.0,))[1], (0.0,), (1.0,))[1]
    assert abs(float(second) - 0.25) < 1e-5, \
        f"the second derivative at 0 should be 0.25, got {float(second)}: build the tangent " \
        "from jnp operations on x, so that an outer jvp can differentiate it"
    with np.errstate(over="ignore", invalid="ignore"):
        big_y, big = jvp(softplus, (jnp.asarray(np.float32([-100.0, 100.0])),), (jnp.ones(2),))
    assert np.allclose(big_y, [0.0, 100.0]), \
        f"the primal output at x = [-100, 100] should be softplus(x) = [0, 100], got {big_y}: " \
        "softplus_p computes it without the overflow of e^100 in float32"
    assert np.allclose(big, [0.0, 1.0]), \
        f"at x = [-100, 100] the tangent for t = 1 should be logistic(x) = [0, 1], got {big}: " \
        "an e^x that overflows float32 there makes inf / inf"


def check_hypot_jvp(nb):
    """2. Two inputs, and a tangent that is Zero: `hypot_jvp`'s values, and no work for a
    `Zero` tangent."""
    hypot, hypot_p, jvp = nb["hypot"], nb["hypot_p"], nb["jvp"]
    x0, y0 = np.float32([3.0, -1.0]), np.float32([4.0, 2.0])
    tx, ty = np.float32([1.0, 0.5]), np.float32([-2.0, 3.0])
    h0 = np.hypot(x0, y0)
    _, t = jvp(hypot, (x0, y0), (tx, ty))
    want = tx * x0 / h0 + ty * y0 / h0
    assert np.allclose(t, want, rtol=1e-5), \
        f"the tangent should be tx*x/h + ty*y/h = {want}, got {t}"

    class ReadingTrace(CountingTrace):
        """Counts, and notes the operands of each primitive."""
        def process_primitive(self, primitive, args, params):
            self.reads = getattr(self, "reads", []) + [(primitive, args)]
            return super().process_primitive(primitive, args, params)

    def work(f, *args, constant=None):
        counter = ReadingTrace()
        with set_current_trace(counter):
            out = jvp(f, args, tuple(np.ones_like(a) for a in args))[1]
        if constant is not None:        # no primitive but hypot should read the constant
            name, c = constant
            readers = [p.name for p, ops in counter.reads if p is not hypot_p and any(
                np.shape(o) == c.shape and np.array_equal(o, c) for o in ops)]
            assert not readers, \
                f"with {name} a constant, its tangent is Zero, yet the rule's {readers[0]} read " \
                f"{name}: a Zero tangent should cost nothing, not even its partial derivative"
        return counter.count, out
    try:
        n_x, t_x = work(lambda x: hypot(x, y0), x0, constant=("y", y0))   # y's tangent is Zero
        n_y, t_y = work(lambda y: hypot(x0, y), y0, constant=("x", x0))
    except TypeError as e:
        raise AssertionError(f"with y a constant, the rule got a Zero tangent and failed: {e}")
    assert np.allclose(t_x, x0 / h0, rtol=1e-5) and np.allclose(t_y, y0 / h0, rtol=1e-5), \
        f"the derivatives in x alone and in y alone should be x/h and y/h, got {t_x} and {t_y}"
    n_both, _ = work(hypot, x0, y0)
    assert n_x < n_both and n_y < n_both, \
        f"with one tangent Zero the rule evaluates {max(n_x, n_y)} primitives, with none Zero " \
        f"{n_both}: a Zero tangent should cost nothing (no array of zeros, no product with it)"


def check_hvp(nb):
    """3. Hessian-vector products: `hvp` against A v - sin(x) v, from forward mode only, in
    O(n^2) numbers."""
    hvp, jnp = nb["hvp"], nb["jnp"]
    A = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]], np.float32)
    f3 = lambda x: 0.5 * x @ (jnp.asarray(A) @ x) + jnp.sin(x).sum()
    x0 = np.array([0.5, -1.0, 2.0], np.float32)
    v = np.array([1.0, 2.0, -1.0], np.float32)
    with watch(autodidax.autodiff) as seen:
        got = hvp(f3, jnp.asarray(x0), jnp.asarray(v))
    assert not seen, f"hvp called {seen[0]}, from chapter 9's reverse mode: use jvp and jacfwd only"
    want = A @ v - np.sin(x0) * v            # H = A - diag(sin x)
    assert np.shape(got) == (3,), f"Hv should have x's shape (3,), got {np.shape(got)}"
    assert np.allclose(got, want, rtol=1e-5, atol=1e-5), f"Hv should be {want}, got {got}"

    def made(n):       # the elements that the primitives evaluated make, for an x of n elements
        counter = CountingTrace()
        with set_current_trace(counter):
            hvp(lambda x: (x * x * x).sum(), jnp.ones(n), jnp.ones(n))
        return counter.elements
    growth = made(32) / made(16)
    assert growth < 6, \
        f"an x twice as large makes {growth:.1f} times the numbers, as a Hessian's n * n * n " \
        "route does (8 times): differentiate the directional derivative, build no Hessian"
    X = np.float32([[0.5, -1.0, 2.0], [1.0, 0.0, -2.0]])
    V = np.float32([[1.0, 2.0, -1.0], [0.5, 1.0, 3.0]])
    want = 6 * X * V                         # f(x) = (x * x * x).sum(): H = diag(6 x)
    try:
        got = hvp(lambda x: (x * x * x).sum(), jnp.asarray(X), jnp.asarray(V))
    except Exception as e:
        raise AssertionError(f"hvp of (x * x * x).sum() at an x of shape (2, 3) raised "
                             f"{type(e).__name__}: {e}; x may have any shape") from None
    assert np.shape(got) == (2, 3) and np.allclose(got, want, rtol=1e-5, atol=1e-5), \
        f"for an x of shape (2, 3), Hv of (x * x * x).sum() is 6 * x * v = {want.tolist()}, " \
        f"of x's shape; got {np.asarray(got).tolist()}"
