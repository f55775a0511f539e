"""The shipped digits and the synthetic generators: sizes, values, splits, reproducibility."""

from importlib import resources

import numpy as np
import pytest

import vizgrad as vg
from vizgrad.datasets import Digits, load_digits, make_blobs, make_circles, make_moons, make_spirals
from vizgrad.utils.data import DataLoader


def test_load_digits_is_the_uci_test_set():
    data, target = load_digits()
    assert data.shape == (1797, 64) and data.dtype == vg.float32 and target.dtype == vg.int64
    values = data.numpy()
    assert values.min() == 0 and values.max() == 16 and np.all(values == np.round(values))
    counts = np.bincount(target.numpy(), minlength=10)
    assert counts.sum() == 1797 and counts.min() >= 174 and counts.max() <= 183
    images, _ = load_digits(images=True)
    assert images.shape == (1797, 8, 8)
    assert np.array_equal(images.numpy().reshape(1797, 64), values)
    # The first image is a zero: a ring of ink with an empty middle.
    zero = images[0].numpy()
    assert target[0].item() == 0 and zero[3:5, 3:5].sum() < zero[1:7, 1:7].sum() / 8


def test_digits_dataset_split_and_samples():
    train, test = Digits(train=True), Digits(train=False)
    assert (len(train), len(test)) == (1438, 359)
    all_rows = load_digits()[0].numpy()
    together = np.concatenate(
        [train.data.numpy().reshape(-1, 64), test.data.numpy().reshape(-1, 64)]
    )
    assert sorted(map(tuple, together * 16)) == sorted(map(tuple, all_rows))
    image, label = train[3]
    assert (
        image.shape == (1, 8, 8) and isinstance(label, int) and 0 <= image.min() <= image.max() <= 1
    )
    assert set(test.targets.tolist()) == set(range(10))
    shifted = Digits(train=False, transform=lambda x: x * 2, target_transform=str)
    assert shifted[0][0].max().item() == pytest.approx(2 * test[0][0].max().item())
    assert shifted[0][1] == str(test[0][1])
    images, labels = next(iter(DataLoader(train, batch_size=32)))
    assert images.shape == (32, 1, 8, 8) and labels.dtype == vg.int64
    assert repr(test) == "Dataset Digits\n    Number of datapoints: 359\n    Split: Test"


@pytest.mark.parametrize("make", [make_moons, make_circles, make_spirals, make_blobs])
@pytest.mark.parametrize("n", [3, 7, 100])
def test_generators_shapes_balance_and_reproducibility(make, n):
    x, y = make(n, generator=vg.Generator().manual_seed(5))
    classes = 3 if make is make_blobs else 2
    assert x.shape == (n, 2) and x.dtype == vg.float32 and y.dtype == vg.int64
    counts = np.bincount(y.numpy(), minlength=classes)
    assert counts.max() - counts.min() <= 1
    again = make(n, generator=vg.Generator().manual_seed(5))
    assert np.array_equal(x.numpy(), again[0].numpy()) and np.array_equal(
        y.numpy(), again[1].numpy()
    )


def test_noise_free_geometry():
    x, y = make_moons(40)
    upper = x.numpy()[y.numpy() == 0]
    lower = x.numpy()[y.numpy() == 1]
    assert np.allclose(np.hypot(*upper.T), 1, atol=1e-6)
    assert np.allclose(np.hypot(lower[:, 0] - 1, lower[:, 1] - 0.5), 1, atol=1e-6)
    x, y = make_circles(40, factor=0.5)
    radii = np.hypot(*x.numpy().T)
    assert np.allclose(radii[y.numpy() == 0], 1, atol=1e-6)
    assert np.allclose(radii[y.numpy() == 1], 0.5, atol=1e-6)
    x, y = make_spirals(60, n_classes=3)
    assert set(y.tolist()) == {0, 1, 2} and np.hypot(*x.numpy().T).max() <= 1 + 1e-6


def test_noise_and_blob_centres():
    x, y = make_moons(2000, noise=0.2, generator=vg.Generator().manual_seed(0))
    clean, clean_y = make_moons(2000, generator=vg.Generator().manual_seed(0))
    assert np.array_equal(y.numpy(), clean_y.numpy())
    offsets = x.numpy() - clean.numpy()
    assert np.allclose(offsets.std(0), 0.2, atol=0.02) and np.allclose(
        offsets.mean(0), 0, atol=0.02
    )
    x, y = make_blobs(3000, centers=[[0.0, 0.0], [10.0, 10.0]], cluster_std=0.5)
    means = [x.numpy()[y.numpy() == c].mean(0) for c in (0, 1)]
    assert np.allclose(means[0], 0, atol=0.1) and np.allclose(means[1], 10, atol=0.1)
    x, _ = make_blobs(10, n_features=5)
    assert x.shape == (10, 5)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: make_moons(1), "n_samples"),
        (lambda: make_moons(10, noise=-1), "noise"),
        (lambda: make_circles(10, factor=1.5), "factor"),
        (lambda: make_spirals(2, n_classes=3), "n_samples"),
    ],
)
def test_generator_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_licence_ships_with_the_data():
    text = resources.files("vizgrad.datasets").joinpath("data/DIGITS_LICENSE.txt").read_text()
    assert "CC BY 4.0" in text and "Alpaydin" in text
