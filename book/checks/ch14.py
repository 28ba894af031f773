"""Checks of chapter 14's exercises (chapters/14_checkpoint.md): each takes the notebook's namespace."""
import numpy as np


def check_save_dots_over(nb):
    """1. A policy that weighs the cost: `save_dots_over(t)` saves the products of at least t
    flops, and nothing else, whatever the contracted and batch dimensions."""
    jax, jnp, lax = nb["jax"], nb["jnp"], nb["lax"]
    save_dots_over, saved_residuals = nb["save_dots_over"], nb["saved_residuals"]

    def four_products(a, b, p, q, c, d):
        u = jnp.tanh(a @ b)                     # (8, 4), contracting 3: 192 flops
        v = jnp.tanh(jnp.matmul(p, q))          # (2, 8, 4), batch 2, contracting 3: 384
        w = jnp.tanh(lax.dot_general(c, d, (((0,), (1,)), ((), ()))))   # (2, 5), 16: 320
        z = jnp.tanh(a[:1] @ b)                 # (1, 4), contracting 3: 24
        return u.sum() + v.sum() + w.sum() + z.sum()
    shapes = [(8, 3), (3, 4), (2, 8, 3), (2, 3, 4), (16, 2), (5, 16)]
    args = [jnp.asarray(np.random.default_rng(i).standard_normal(s, np.float32))
            for i, s in enumerate(shapes)]
    flops = {(8, 4): 192, (2, 8, 4): 384, (2, 5): 320, (1, 4): 24}
    for t in [24, 25, 192, 320, 384, 385]:
        found = saved_residuals(jax.checkpoint(four_products, policy=save_dots_over(t)), *args)
        others = [where for _, where in found
                  if not where.startswith("from the argument") and "dot_general" not in where]
        assert not others, f"the policy saved the {others[0].split(' from')[0]}: save the " \
            "results of dot_general only"
        got = sorted(aval.shape for aval, where in found if "dot_general" in where)
        want = sorted(s for s, n in flops.items() if n >= t)
        assert got == want, f"with min_flops={t} the policy saves the products of shapes " \
            f"{got}; those that take at least {t} flops are {want}"

    def three_more(e, f, g, h, p, q):
        u = jnp.tanh(lax.dot_general(e, f, (((1, 2), (0, 1)), ((), ()))))  # (3, 6), 8: 288
        v = jnp.tanh(lax.dot_general(g, h, (((3,), (2,)), ((0, 1), (0, 1)))))  # batch 6: 120
        w = jnp.tanh(lax.dot_general(p, q, (((2,), (0,)), ((0,), (2,)))))  # (2, 5, 4), 3: 240
        return u.sum() + v.sum() + w.sum()
    shapes = [(3, 2, 4), (2, 4, 6), (2, 3, 5, 2), (2, 3, 2, 1), (2, 5, 3), (3, 4, 2)]
    more = [jnp.asarray(np.random.default_rng(i).standard_normal(s, np.float32))
            for i, s in enumerate(shapes)]
    flops = {(3, 6): 288, (2, 3, 5, 1): 120, (2, 5, 4): 240}
    for t in [120, 121, 240, 241, 288, 289]:
        found = saved_residuals(jax.checkpoint(three_more, policy=save_dots_over(t)), *more)
        got = sorted(aval.shape for aval, where in found if "dot_general" in where)
        want = sorted(s for s, n in flops.items() if n >= t)
        assert got == want, f"with two contracted dimensions, (3, 2, 4) by (2, 4, 6), two " \
            f"batch dimensions, (2, 3, 5, 2) by (2, 3, 2, 1), and a batch dimension at 0 in lhs " \
            f"but 2 in rhs, (2, 5, 3) by (3, 4, 2), min_flops={t} saves the products of shapes " \
            f"{got}; those that take at least {t} flops are {want}: K and B are products over " \
            "all the contracted and all the batch dimensions, each operand's own"
    np.testing.assert_allclose(
        jax.grad(jax.checkpoint(four_products, policy=save_dots_over(300)))(*args),
        jax.grad(four_products)(*args), rtol=1e-5, err_msg="the gradient should not change")


def check_recomputed(nb):
    """2. What the backward pass recomputes: `recomputed` on checkpointed functions with and
    without policies, chains of blocks and a nested jit."""
    jax, jnp, policies = nb["jax"], nb["jnp"], nb["policies"]
    recomputed, f, g = nb["recomputed"], nb["f"], nb["g"]
    x3 = jnp.asarray(np.float32([0.5, -1.0, 2.0]))
    w33 = jnp.asarray(np.random.default_rng(0).standard_normal((3, 3), np.float32))
    block1 = jax.checkpoint(lambda x: jnp.tanh(x @ w33) * 2.0, policy=policies.dots_saveable)
    block2 = jax.checkpoint(lambda h: jnp.sin(h) * jnp.exp(h))
    save_y = policies.save_only_these_names("y")
    cases = [("checkpoint(f)", jax.checkpoint(f), [["sin", "cos", "sin", "cos"]]),
             ("g saving the name 'y'", jax.checkpoint(g, policy=save_y), [["cos", "sin", "cos"]]),
             ("two blocks in a chain", lambda x: jnp.sum(block2(block1(x))),
              [["sin", "cos", "exp"], ["tanh", "sub"]]),
             ("a block applied to a constant too", lambda x: jnp.sum(block2(x) * block2(w33[0])),
              [["sin", "cos", "exp"]]),
             ("a block calling a jitted function of two arguments",
              jax.checkpoint(lambda x: jnp.sum(jax.jit(lambda a, b: a * b)(jnp.sin(x),
                                                                           jnp.cos(x)))),
              [["sin", "cos", "cos", "sin"]]),
             ("f without checkpoint", f, [])]
    for name, fun, want in cases:
        got = recomputed(fun, x3)
        assert got == want, f"for {name}, the recomputed equations should be {want}, one " \
            f"list per backward pass; got {got}"


def check_scan_in_blocks(nb):
    """3. A loop checkpointed in blocks: `scan_in_blocks` computes `lax.scan`'s results and
    gradient, and saves one carry per block."""
    jax, jnp, lax = nb["jax"], nb["jnp"], nb["lax"]
    scan_in_blocks, saved_residuals = nb["scan_in_blocks"], nb["saved_residuals"]

    def tanh_layer(h, w):
        h = jnp.tanh(h @ w)
        return h, h[:, 0]

    rng = np.random.default_rng(1)
    ws12 = jnp.asarray(rng.standard_normal((12, 8, 8), np.float32) / 3)   # n = 12 steps
    h48 = jnp.asarray(rng.standard_normal((4, 8), np.float32))            # the carry
    want_carry, want_ys = lax.scan(tanh_layer, h48, ws12)

    def loss(k):
        def blocked_loss(ws, h):
            carry, ys = scan_in_blocks(tanh_layer, h, ws, k)
            return jnp.sum(carry) + jnp.sum(ys)
        return blocked_loss

    for k in (3, 4):
        carry, ys = scan_in_blocks(tanh_layer, h48, ws12, k)
        assert np.shape(ys) == (12, 4), f"ys should have shape (12, 4), got {np.shape(ys)}"
        assert np.allclose(carry, want_carry, rtol=1e-5, atol=1e-6) and \
            np.allclose(ys, want_ys, rtol=1e-5, atol=1e-6), \
            f"with k={k}, the carry and ys should be those of lax.scan(body, carry, xs)"
        saved = [aval.shape for aval, where in saved_residuals(loss(k), ws12, h48)
                 if aval.shape[-2:] == (4, 8) and not where.startswith("from the argument")]
        carries = sum(int(np.prod(s[:-2])) for s in saved)
        assert carries == 12 // k, \
            f"with 12 steps in blocks of k={k}, reverse mode should save the carry at the " \
            f"start of each block, {12 // k} of them; it saves {carries} carries ({saved})"
    carry, ys = scan_in_blocks(lambda h, w: (jnp.tanh(h @ w), h), h48, ws12, 3)
    assert np.shape(ys) == (12, 4, 8) and np.allclose(ys, lax.scan(
        lambda h, w: (jnp.tanh(h @ w), h), h48, ws12)[1], rtol=1e-5, atol=1e-6), \
        f"for a body whose y is the (4, 8) carry, ys should have shape (12, 4, 8) and be those " \
        f"of lax.scan, got shape {np.shape(ys)}"
    np.testing.assert_allclose(
        jax.grad(loss(4))(ws12, h48),
        jax.grad(lambda ws, h: jnp.sum(lax.scan(tanh_layer, h, ws)[0]) +
                 jnp.sum(lax.scan(tanh_layer, h, ws)[1]))(ws12, h48),
        rtol=1e-4, atol=1e-5, err_msg="the gradient should be that of lax.scan")
