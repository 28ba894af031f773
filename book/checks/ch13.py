"""Checks of chapter 13's exercises (chapters/13_custom.md): each takes the notebook's namespace."""
import numpy as np

from book.exercises import watch


def _r4(a):
    return np.round(np.asarray(a, np.float64), 4).tolist()


def _residuals(jax, f, *args):
    """The shapes of the residuals that the custom_vjp inside f saves for linearize."""
    _, f_jvp = jax.linearize(f, *args)
    lin = [e for e in jax.make_jaxpr(f_jvp)(*args).eqns if e.primitive.name == "custom_lin"]
    assert len(lin) == 1, f"expected one custom_vjp under linearize, found {len(lin)}"
    return [v.aval.shape for v in lin[0].invars[:lin[0].params["num_res"]]]


def check_bilinear(nb):
    """1. A rule that skips its zero tangents: `bilinear_jvp`'s tangents, and the work it does
    with a SymbolicZero, under jvp, grad and vmap."""
    jax, bilinear = nb["jax"], nb["bilinear"]
    x0, y0 = np.array([1.0, -2.0, 0.5], np.float32), np.array([0.5, 1.0, -1.0, 2.0], np.float32)
    A0 = np.arange(12.0, dtype=np.float32).reshape(3, 4) / 4
    tx, ty = np.array([2.0, 1.0, -1.0], np.float32), np.array([1.0, 0.0, 3.0, -2.0], np.float32)
    tA = np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(3, 4)
    primals = {"x": x0, "A": A0, "y": y0}
    tangents = {"x": tx, "A": tA, "y": ty}
    terms = {"x": tx @ A0 @ y0, "A": x0 @ tA @ y0, "y": x0 @ A0 @ ty}

    def along(names):
        """jvp of bilinear with tangents for `names` only (the other inputs are constants)."""
        def f(*args):
            full = dict(primals, **dict(zip(names, args)))
            return bilinear(full["x"], full["A"], full["y"])
        return f, tuple(primals[n] for n in names), tuple(tangents[n] for n in names)

    def size(names):
        f, p, t = along(names)
        return len(jax.make_jaxpr(lambda *p: jax.jvp(f, p, t))(*p).eqns)

    for names in [("x", "A", "y"), ("x",), ("A",), ("y",), ("x", "y")]:
        f, p, t = along(names)
        try:
            y, y_dot = jax.jvp(f, p, t)
        except NotImplementedError:
            raise
        except Exception as e:
            raise AssertionError(f"with tangents for {' and '.join(names)} only, the rule got a "
                                 f"SymbolicZero for the others and failed: {type(e).__name__}: "
                                 f"{e}")
        want = sum(terms[n] for n in names)
        assert np.isclose(float(y), x0 @ A0 @ y0, rtol=1e-5), "the primal output should be x A y"
        assert np.isclose(float(y_dot), want, rtol=1e-5), \
            f"with tangents for {' and '.join(names)}, the tangent should be " \
            f"{' + '.join({'x': 'dx A y', 'A': 'x dA y', 'y': 'x A dy'}[n] for n in names)} " \
            f"= {want:.4f}, got {float(y_dot):.4f}"
    full = size(("x", "A", "y"))
    for name in "xAy":
        assert size((name,)) < full, \
            f"with a tangent for {name} alone the jvp takes {size((name,))} equations, as many " \
            f"as with all three ({full}): a SymbolicZero tangent should cost nothing"
        f, p, t = along((name,))
        prims = [e.primitive.name for e in jax.make_jaxpr(lambda *p: jax.jvp(f, p, t))(*p).eqns]
        assert prims.count("dot_general") <= 2 and "broadcast_in_dim" not in prims, \
            f"with a tangent for {name} alone the jvp computes {prims}: a SymbolicZero tangent " \
            "should cost nothing, no array of zeros and no product with one"
    g = jax.grad(bilinear, argnums=1)(x0, A0, y0)
    assert np.allclose(np.asarray(g), np.outer(x0, y0)), \
        f"grad with respect to A should be outer(x, y), got {np.asarray(g).tolist()}"
    xs, txs = np.stack([x0, 2 * x0]), np.stack([tx, -tx])
    batched = jax.vmap(lambda x, t: jax.jvp(lambda x: bilinear(x, A0, y0), (x,), (t,))[1])(xs, txs)
    assert np.allclose(np.asarray(batched), [tx @ A0 @ y0, -tx @ A0 @ y0], rtol=1e-5), \
        f"under vmap, the tangents should be {[terms['x'], -terms['x']]}, got {batched}"


def check_layer(nb):
    """2. Residuals for the perturbed inputs only: `layer`'s gradients, and the numbers its
    `fwd` saves for each choice of perturbed inputs."""
    jax, layer = nb["jax"], nb["layer"]
    x0 = np.array([0.5, -1.0, 2.0], np.float32)
    W0 = np.arange(6.0, dtype=np.float32).reshape(2, 3) / 10 - 0.2
    c = np.array([2.0, -3.0], np.float32)
    y = np.tanh(W0 @ x0)
    g = c * (1 - y ** 2)
    want = {"x": g @ W0, "W": np.outer(g, x0)}
    cases = {"x": (lambda x: layer(x, W0) @ c, (x0,)), "W": (lambda W: layer(x0, W) @ c, (W0,)),
             "x and W": (lambda x, W: layer(x, W) @ c, (x0, W0))}
    budget = {"x": 8, "W": 5, "x and W": 11}
    for what, (f, args) in cases.items():
        try:
            grads = jax.grad(f, argnums=tuple(range(len(args))))(*args)
        except (TypeError, AttributeError) as e:
            raise AssertionError(f"grad with respect to {what} failed: {type(e).__name__}: {e}")
        for name, got in zip(what.split(" and "), grads):
            assert np.allclose(np.asarray(got), want[name], rtol=1e-5, atol=1e-6), \
                f"grad of layer(x, W) @ c with respect to {what}: the part for {name} should " \
                f"be {_r4(want[name])}, got {_r4(got)}"
        saved = _residuals(jax, f, *args)
        n = sum(int(np.prod(s)) for s in saved)
        assert n <= budget[what], \
            f"with {what} perturbed, fwd saved {n} numbers (shapes {saved}), where " \
            f"{budget[what]} are enough: save W only if x is perturbed, x only if W is"
    xs = np.stack([x0, -x0])
    gs = jax.vmap(jax.grad(cases["x"][0]))(xs)
    ys = np.tanh(xs @ W0.T)
    assert np.allclose(np.asarray(gs), (c * (1 - ys ** 2)) @ W0, rtol=1e-5, atol=1e-6), \
        "vmap of grad with respect to x disagrees with the gradient example by example"
    gx, gW = jax.jit(jax.grad(cases["x and W"][0], argnums=(0, 1)))(x0, W0)
    assert np.allclose(np.asarray(gx), want["x"], rtol=1e-5, atol=1e-6) and np.allclose(
        np.asarray(gW), want["W"], rtol=1e-5, atol=1e-6), \
        "under jit, grad with respect to x and W disagrees with the gradient computed eagerly"


def check_checkpointed(nb):
    """3. A decorator that recomputes: `checkpointed(f)` is a custom_vjp that computes f, saves
    only its arguments, and recomputes f's VJP in the backward pass, for any number of them."""
    jax, jnp, checkpointed = nb["jax"], nb["jnp"], nb["checkpointed"]

    def mlp(params, x):
        h = jnp.tanh(params["W1"] @ x + params["b1"])
        return jnp.sin(jnp.tanh(params["W2"] @ h)) * 2.0
    params = {"W1": np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3),
              "b1": np.array([0.1, -0.2, 0.3, 0.0], np.float32),
              "W2": np.linspace(1, -1, 8, dtype=np.float32).reshape(2, 4)}
    x0, ct = np.array([0.5, -1.0, 2.0], np.float32), np.array([1.5, -0.5], np.float32)
    g = checkpointed(mlp)
    jaxpr = str(jax.make_jaxpr(g)(params, x0))
    assert "custom_vjp_call" in jaxpr, "checkpointed(f) should be a custom_vjp function"
    assert np.allclose(np.asarray(g(params, x0)), np.asarray(mlp(params, x0))), \
        "checkpointed(f) should compute f"
    out, g_vjp = jax.vjp(g, params, x0)
    with watch(mlp) as seen:
        try:
            got = g_vjp(ct)
        except TypeError as e:
            raise AssertionError(f"the VJP failed: {e}")
    assert seen, "the backward pass never ran f: bwd should compute f's VJP anew"
    want = jax.vjp(mlp, params, x0)[1](ct)
    for path, a, b in [("params['W1']", got[0]["W1"], want[0]["W1"]),
                       ("params['W2']", got[0]["W2"], want[0]["W2"]), ("x", got[1], want[1])]:
        assert np.allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6), \
            f"the cotangent of {path} for the output cotangent {ct.tolist()} should be " \
            f"{_r4(b)}, got {_r4(a)}"
    saved = _residuals(jax, g, params, x0)
    n, n_in = sum(int(np.prod(s)) for s in saved), 12 + 4 + 8 + 3
    assert n == n_in, f"fwd saved {n} numbers (shapes {saved}), where the arguments are " \
        f"{n_in}: save the arguments, nothing else"
    one = checkpointed(lambda x: jnp.sin(x) * x)
    try:
        got = jax.grad(lambda x: one(x).sum())(x0)
    except TypeError as e:
        raise AssertionError(f"for an f of one argument, grad of checkpointed(f) failed: {e}: "
                             "fwd and bwd should take f's arguments, however many")
    assert np.allclose(np.asarray(got), np.sin(x0) + x0 * np.cos(x0), rtol=1e-5), \
        f"for f(x) = sin(x) x, grad of checkpointed(f) should be sin(x) + x cos(x), got {got}"
    three = checkpointed(lambda a, b, c: jnp.sin(a) * b + c)
    try:
        got = jax.grad(lambda *a: three(*a).sum(), argnums=(0, 1, 2))(x0, 2 * x0, -x0)
    except TypeError as e:
        raise AssertionError(f"for an f of three arguments, grad of checkpointed(f) failed: "
                             f"{e}: fwd and bwd should take f's arguments, however many")
    for name, a, b in [("a", got[0], np.cos(x0) * 2 * x0), ("b", got[1], np.sin(x0)),
                       ("c", got[2], np.ones(3))]:
        assert np.allclose(np.asarray(a), b, rtol=1e-5), f"for f(a, b, c) = sin(a) b + c, " \
            f"the gradient with respect to {name} should be {_r4(b)}, got {_r4(a)}"
    gx = jax.jit(jax.vmap(jax.grad(lambda x: g(params, x).sum())))(np.stack([x0, -x0]))
    want = [jax.grad(lambda x: mlp(params, x).sum())(x) for x in (x0, -x0)]
    assert np.allclose(np.asarray(gx), np.stack([np.asarray(w) for w in want]), rtol=1e-5,
                       atol=1e-6), "jit of vmap of grad disagrees with the gradients of f"
