"""The stand-ins the yardstick gives JAX's examples/ scripts (benchmarks/standins.py): the
synthetic MNIST has what `examples/datasets.py` returns, shapes, dtypes, scaling and one-hot
labels, without the network; the other stand-ins answer what the scripts ask of them."""
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import standins  # noqa: E402


@pytest.fixture
def installed():
    """`standins.install()`, undone afterwards: the names it takes leave `sys.modules` as found."""
    before = dict(sys.modules)
    standins.install()
    yield
    for name in [name for name in sys.modules if name not in before]:
        del sys.modules[name]
    sys.modules.update(before)


def test_mnist_raw_has_mnists_shapes_and_dtypes():
    train_images, train_labels, test_images, test_labels = standins.mnist_raw()
    assert train_images.shape == (standins.N_TRAIN, 28, 28) and train_images.dtype == np.uint8
    assert test_images.shape == (standins.N_TEST, 28, 28) and test_images.dtype == np.uint8
    assert train_labels.shape == (standins.N_TRAIN,) and train_labels.dtype == np.uint8
    assert test_labels.shape == (standins.N_TEST,) and test_labels.dtype == np.uint8
    assert set(np.unique(train_labels)) == set(range(10))
    again = standins.mnist_raw()
    assert all(np.array_equal(a, b) for a, b in zip(again, (train_images, train_labels,
                                                              test_images, test_labels)))


@pytest.mark.parametrize("permute_train", [False, True])
def test_mnist_is_processed_as_datasets_py_processes_it(permute_train):
    raw = standins.mnist_raw()
    train_images, train_labels, test_images, test_labels = standins.mnist(permute_train)
    assert train_images.shape == (standins.N_TRAIN, 784) and train_images.dtype == np.float32
    assert test_images.shape == (standins.N_TEST, 784) and test_images.dtype == np.float32
    assert train_labels.shape == (standins.N_TRAIN, 10) and train_labels.dtype == np.float32
    assert test_labels.shape == (standins.N_TEST, 10) and test_labels.dtype == np.float32
    perm = (np.random.RandomState(0).permutation(standins.N_TRAIN) if permute_train
            else np.arange(standins.N_TRAIN))
    np.testing.assert_array_equal(train_images, raw[0].reshape(-1, 784)[perm] / np.float32(255))
    np.testing.assert_array_equal(test_labels, np.eye(10, dtype=np.float32)[raw[3]])
    np.testing.assert_array_equal(train_labels.argmax(1), raw[1][perm])


def test_the_scripts_imports_are_answered(installed):
    from absl import app, flags
    from examples import datasets

    import dp_accounting
    import matplotlib.pyplot as plt
    assert sys.modules["datasets"] is datasets and datasets.mnist is standins.mnist
    flag = flags.DEFINE_integer("epochs", 60, "Number of epochs")
    assert flag.value == 60
    fig = plt.figure(figsize=(8, 8))
    fig.add_subplot(111).contour(np.zeros((2, 2)), cmap="summer")
    plt.imsave("unused.png", np.zeros((2, 2)), cmap=plt.cm.gray)
    with pytest.raises(SystemExit) as exit:
        app.run(lambda argv: None)
    assert exit.value.code is None
    accountant = dp_accounting.rdp.rdp_privacy_accountant.RdpAccountant([1.5, 2.0, 8, 32])
    event = dp_accounting.dp_event.GaussianDpEvent(1.1)
    accountant.compose(dp_accounting.dp_event.PoissonSampledDpEvent(256 / 60000, event), 234)
    assert 0 < accountant.get_epsilon(1e-5) < 2


@pytest.mark.parametrize("q, sigma", [(256 / 60000, 1.1), (0.1, 2.0)])
def test_the_accountants_series_is_the_binomial_sum_at_integer_orders(q, sigma):
    """At an integer order a, A = sum over k of C(a, k) q^k (1-q)^(a-k) exp((k^2 - k) / 2s^2);
    the series for any order must agree there, and change little between orders."""
    from math import comb, exp, log
    for a in (2, 3, 10, 40):
        exact = log(sum(comb(a, k) * q ** k * (1 - q) ** (a - k)
                        * exp((k * k - k) / (2 * sigma ** 2)) for k in range(a + 1))) / (a - 1)
        assert standins._subsampled_gaussian_rdp(q, sigma, float(a)) == pytest.approx(exact, 1e-9)
    near = [standins._subsampled_gaussian_rdp(q, sigma, a) for a in (2 - 1e-6, 2.0, 2 + 1e-6)]
    assert near == pytest.approx([near[1]] * 3, 1e-5)
