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
- `dp_accounting`: the RDP accountant of differentially_private_sgd.py, by dp_accounting's method
  (written here from the papers; not checked against dp_accounting itself): the Poisson-subsampled
  Gaussian's Renyi divergence at each order, integer or not (Mironov, Talwar and Zhang, 2019,
  section 3.3), composed over the steps, and converted to epsilon by Canonne, Kamath and
  Steinke's bound (2020), the least over the orders. It takes the orders the script builds with
  `jnp.linspace`, so their values show in the epsilon it prints.
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


def _log_add(a: float, b: float) -> float:
    top = max(a, b)
    return top if top == -math.inf else top + math.log1p(math.exp(-abs(a - b)))


def _log_sub(a: float, b: float) -> float:
    """log(exp(a) - exp(b)), for a >= b."""
    return a if b == -math.inf else a + math.log(-math.expm1(b - a))


def _subsampled_gaussian_rdp(q: float, sigma: float, order: float) -> float:
    """Renyi divergence, at `order`, of one step of the Gaussian mechanism (noise `sigma`) on a
    Poisson sample (rate `q`): log A / (order - 1), with A summed as a series split where the two
    densities cross (Mironov, Talwar and Zhang, 2019, section 3.3). For an integer order the
    binomial coefficients vanish past the order and the series is finite."""
    from scipy.special import binom, log_ndtr
    if q == 1:                          # not subsampled: the Gaussian's own divergence
        return order / (2 * sigma ** 2)
    log_erfc_half = lambda x: log_ndtr(-x * math.sqrt(2))     # log(erfc(x) / 2)
    z = sigma ** 2 * math.log(1 / q - 1) + 0.5
    sums = [[-math.inf, -math.inf], [-math.inf, -math.inf]]     # [+ terms, - terms] per half
    for i in range(10_000):
        coef = binom(order, i)
        if coef == 0:
            break
        j = order - i
        log_coef = math.log(abs(coef))
        s0 = (log_coef + i * math.log(q) + j * math.log1p(-q) + (i * i - i) / (2 * sigma ** 2)
              + log_erfc_half((i - z) / (math.sqrt(2) * sigma)))
        s1 = (log_coef + j * math.log(q) + i * math.log1p(-q) + (j * j - j) / (2 * sigma ** 2)
              + log_erfc_half((z - j) / (math.sqrt(2) * sigma)))
        sign = int(coef < 0)
        sums[0][sign], sums[1][sign] = _log_add(sums[0][sign], s0), _log_add(sums[1][sign], s1)
        if i > order and max(s0, s1) < -30:
            break
    log_a = _log_add(*(_log_sub(*half) for half in sums))
    return log_a / (order - 1)


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
        """The smallest epsilon over the orders, by the conversion of Canonne, Kamath and
        Steinke (2020, proposition 12), as dp_accounting converts."""
        return min(r - (math.log(target_delta) + math.log(a)) / (a - 1) + math.log1p(-1 / a)
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
