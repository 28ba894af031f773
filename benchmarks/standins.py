"""Stand-ins for what JAX's `examples/` scripts import and this machine lacks, for the yardstick
(`tutorials.py --examples`). `install()` puts them in `sys.modules`; both libraries get the same
ones, so the scripts' outputs stay comparable. None of them is JAX:

- `examples.datasets` (and plain `datasets`, which the SPMD script imports): MNIST without the
  network. `mnist_raw()` gives a synthetic set with MNIST's shapes and dtypes (28x28 uint8 images,
  uint8 labels), small and fixed (N_TRAIN and N_TEST images, from a NumPy seed): ten random
  class templates, each image one of them with a fifth of its pixels replaced by noise, so that
  the networks have something to learn. `mnist()` processes it as `datasets.py` does: images
  flattened to 784 and scaled to [0, 1] in float32, labels one-hot in float32.
- `matplotlib.pyplot`: every function and method is a no-op that, as matplotlib does, reads its
  array arguments with `np.asarray` (so the arrays a script plots are computed).
- `absl.app` and `absl.flags`: flags keep their defaults; `app.run(main)` exits with `main`'s
  return value, as absl's does.
- `dp_accounting`: the RDP accountant of differentially_private_sgd.py. The Poisson-subsampled
  Gaussian's Renyi divergence is summed exactly at the integer orders it is given (Mironov, Talwar
  and Zhang, 2019, section 3.3); fractional orders give no bound here, and epsilon is the classic
  conversion, min over orders of rdp + log(1/delta) / (order - 1). So the epsilon printed is an
  upper bound on dp_accounting's, not its figure; it is the same under both libraries.
"""
from __future__ import annotations

import math
import sys
import types

import numpy as np

N_TRAIN, N_TEST, SEED = 600, 200, 0     # each divisible by the SPMD script's 8 devices


# ---- examples/datasets.py -----------------------------------------------------------------------

def mnist_raw():
    """Synthetic MNIST: train images, train labels, test images, test labels (uint8)."""
    rng = np.random.RandomState(SEED)
    templates = rng.randint(0, 256, size=(10, 28, 28))

    def draw(n):
        labels = rng.randint(0, 10, size=n)
        noise = rng.randint(0, 256, size=(n, 28, 28))
        images = np.where(rng.rand(n, 28, 28) < 0.2, noise, templates[labels])
        return images.astype(np.uint8), labels.astype(np.uint8)

    train_images, train_labels = draw(N_TRAIN)
    test_images, test_labels = draw(N_TEST)
    return train_images, train_labels, test_images, test_labels


def mnist(permute_train=False):
    """The synthetic set processed as `datasets.mnist` processes MNIST."""
    train_images, train_labels, test_images, test_labels = mnist_raw()
    flat = lambda images: images.reshape(images.shape[0], -1) / np.float32(255.)
    one_hot = lambda labels: np.array(labels[:, None] == np.arange(10), np.float32)
    train_images, test_images = flat(train_images), flat(test_images)
    train_labels, test_labels = one_hot(train_labels), one_hot(test_labels)
    if permute_train:
        perm = np.random.RandomState(0).permutation(train_images.shape[0])
        train_images, train_labels = train_images[perm], train_labels[perm]
    return train_images, train_labels, test_images, test_labels


# ---- matplotlib.pyplot --------------------------------------------------------------------------

class _Plot:
    """A figure, axes, colour map or function of matplotlib's: calling it reads its arrays."""

    def __call__(self, *args, **kwargs):
        for value in (*args, *kwargs.values()):
            if hasattr(value, "__array__"):
                np.asarray(value)
        return self

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __iter__(self):
        return iter(())


# ---- absl ---------------------------------------------------------------------------------------

class _Flag:
    def __init__(self, name, default, help=None, **kwargs):
        self.name, self.default, self.value, self.help = name, default, default, help


def _define(name, default, help=None, **kwargs):
    flag = _Flag(name, default, help)
    setattr(_FLAG_VALUES, name, default)
    return flag


_FLAG_VALUES = types.SimpleNamespace()


def _app_run(main, argv=None):
    sys.exit(main(list(argv or sys.argv[:1])))


# ---- dp_accounting ------------------------------------------------------------------------------

class GaussianDpEvent:
    def __init__(self, noise_multiplier):
        self.noise_multiplier = noise_multiplier


class PoissonSampledDpEvent:
    def __init__(self, sampling_probability, event):
        self.sampling_probability, self.event = sampling_probability, event


def _subsampled_gaussian_rdp(q: float, sigma: float, order: float) -> float:
    """Renyi divergence of one Poisson-subsampled Gaussian step, at an integer order."""
    if not order.is_integer():
        return math.inf
    a = int(order)
    terms = [math.lgamma(a + 1) - math.lgamma(k + 1) - math.lgamma(a - k + 1)
             + k * math.log(q) + (a - k) * math.log1p(-q) + (k * k - k) / (2 * sigma ** 2)
             for k in range(a + 1)]
    top = max(terms)
    return (top + math.log(sum(math.exp(t - top) for t in terms))) / (a - 1)


class RdpAccountant:
    def __init__(self, orders):
        self.orders = [float(order) for order in orders]
        self.rdp = [0.0] * len(self.orders)

    def compose(self, event, count=1):
        q, sigma = event.sampling_probability, event.event.noise_multiplier
        self.rdp = [r + count * _subsampled_gaussian_rdp(q, sigma, a)
                    for r, a in zip(self.rdp, self.orders)]
        return self

    def get_epsilon(self, target_delta):
        return min(r + math.log(1 / target_delta) / (a - 1)
                   for r, a in zip(self.rdp, self.orders) if a > 1)


# ---- installing them ----------------------------------------------------------------------------

def _module(name, **attributes):
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    sys.modules[name] = module
    return module


def install():
    """Put the stand-ins in `sys.modules` under the names the scripts import."""
    datasets = _module("datasets", mnist_raw=mnist_raw, mnist=mnist, N_TRAIN=N_TRAIN, N_TEST=N_TEST)
    sys.modules["examples.datasets"] = datasets
    _module("examples", __path__=[], datasets=datasets)

    plot = _Plot()
    pyplot = _module("matplotlib.pyplot", __getattr__=lambda name: plot)
    _module("matplotlib", __path__=[], pyplot=pyplot)

    flags = _module("absl.flags", FLAGS=_FLAG_VALUES, **{
        f"DEFINE_{kind}": _define for kind in ("bool", "boolean", "float", "integer", "string",
                                                "enum", "list")})
    app = _module("absl.app", run=_app_run)
    _module("absl", __path__=[], app=app, flags=flags)

    dp_event = _module("dp_accounting.dp_event", GaussianDpEvent=GaussianDpEvent,
                       PoissonSampledDpEvent=PoissonSampledDpEvent)
    accountant = _module("dp_accounting.rdp.rdp_privacy_accountant", RdpAccountant=RdpAccountant)
    rdp = _module("dp_accounting.rdp", __path__=[], rdp_privacy_accountant=accountant)
    _module("dp_accounting", __path__=[], dp_event=dp_event, rdp=rdp)
