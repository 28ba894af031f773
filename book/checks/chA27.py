"""Checks of appendix A27's exercises (chapters/A27_convolutions_and_windows.md): each takes the
notebook's namespace."""
import numpy as np

import autodidax as jax


def _blur_reference(images, k):
    """The mean over each k-by-k window, zeros outside the image, channel by channel (NumPy)."""
    n, h, w, c = images.shape
    lo = (k - 1) // 2
    padded = np.zeros((n, h + k - 1, w + k - 1, c), np.float64)
    padded[:, lo:lo + h, lo:lo + w] = images
    out = sum(padded[:, i:i + h, j:j + w] for i in range(k) for j in range(k))
    return out / k ** 2


def check_box_blur(nb):
    """1. `box_blur`: the window mean per channel, 'SAME' padding, under jit and grad too."""
    box_blur = nb["box_blur"]
    rng = np.random.default_rng(1)
    images = rng.standard_normal((2, 5, 6, 3)).astype(np.float32)
    for k in (3, 2):
        got = np.asarray(box_blur(images, k))
        assert got.shape == images.shape, \
            f"box_blur(images of shape {images.shape}, {k}) should keep the shape, got " \
            f"{got.shape}: 'SAME' padding, one output channel per input channel"
        assert got.dtype == np.float32, f"the blur of float32 images is float32, got {got.dtype}"
        want = _blur_reference(images.astype(np.float64), k)
        assert np.allclose(got, want, atol=1e-5), \
            f"box_blur(images, {k}) differs from the mean over each {k}x{k} window by up to " \
            f"{np.abs(got - want).max():.3g}: each channel is blurred on its own " \
            "(feature_group_count), and the kernel is all 1/k**2"
    one = np.zeros((1, 5, 5, 2), np.float32)
    one[0, 2, 2, 1] = 9.0
    got = np.asarray(jax.jit(lambda x: box_blur(x, 3))(one))
    assert np.allclose(got[0, 1:4, 1:4, 1], 1.0) and np.allclose(got[..., 0], 0.0), \
        "a single 9 in channel 1 should spread to 1.0 over its 3x3 neighbourhood in channel 1, " \
        "and channel 0 should stay zero"
    g = np.asarray(jax.grad(lambda x: box_blur(x, 3)[0, 2, 2, 0])(one))
    assert np.allclose(g[0, 1:4, 1:4, 0], 1 / 9) and np.isclose(g.sum(), 1.0), \
        "the gradient of one output pixel is 1/9 on each of the 9 input pixels it averages"


def check_convolve_same(nb):
    """2. `convolve_same`: np.convolve(a, v, 'same'), kernels of odd and even length."""
    convolve_same = nb["convolve_same"]
    a = np.array([1.0, -2.0, 3.0, 0.5, 4.0, -1.0, 2.0], np.float32)
    for v in (np.array([1.0, 2.0, -0.5], np.float32), np.array([3.0, 1.0], np.float32),
              np.array([0.5, -1.0, 2.0, 1.0], np.float32)):
        got = np.asarray(convolve_same(a, v))
        want = np.convolve(a, v, "same")
        assert got.shape == want.shape, \
            f"convolve_same of lengths {len(a)} and {len(v)} should have length {len(a)}, " \
            f"got shape {got.shape}"
        assert np.allclose(got, want, atol=1e-5), \
            f"convolve_same(a, {v.tolist()}) gave {got.round(3).tolist()}, NumPy " \
            f"{want.round(3).tolist()}: flip the kernel (conv_general_dilated does not), and " \
            "pad len(v) // 2 before and the rest after"
    got = np.asarray(jax.jit(convolve_same)(a, v))
    assert np.allclose(got, np.convolve(a, v, "same"), atol=1e-5), \
        "under jit, convolve_same should give the same values"
