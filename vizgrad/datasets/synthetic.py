"""Synthetic 2-D classification data for the lessons: moons, circles, spirals, blobs.

Each generator returns ``(X, y)``: ``X`` float32 of shape ``(n_samples, 2)`` (blobs:
``(n_samples, n_features)``), ``y`` int64 class labels, in a shuffled order. They draw
from vizgrad's random number generators (``generator=`` or the default one), so
``vizgrad.manual_seed(0)`` makes them reproducible; the shapes of the data follow
scikit-learn's generators of the same names.
"""

from __future__ import annotations

import math

from ..dtypes import float32, int64
from ..ops.creation import full, tensor
from ..ops.joining import cat, stack
from ..ops.ranges import linspace
from ..ops.sampling import rand, randn, randperm
from ..tensor import Tensor

__all__ = ["make_blobs", "make_circles", "make_moons", "make_spirals"]


def _split(n_samples: int, n_classes: int) -> list[int]:
    """``n_samples`` shared among classes as evenly as possible, the first ones larger."""
    if not isinstance(n_samples, int) or n_samples < n_classes:
        raise ValueError(f"n_samples must be an int of at least {n_classes}, got {n_samples!r}")
    return [n_samples // n_classes + (c < n_samples % n_classes) for c in range(n_classes)]


def _labels(counts: list[int]) -> Tensor:
    return cat([full((count,), label, dtype=int64) for label, count in enumerate(counts)])


def _finish(points: Tensor, labels: Tensor, noise: float, generator) -> tuple[Tensor, Tensor]:
    """Shuffle the samples, then add Gaussian noise of standard deviation ``noise``.

    The permutation is drawn first, so the same generator seed gives the same order
    with and without noise: a lesson can show the clean and the noisy set side by side.
    """
    if noise < 0:
        raise ValueError(f"noise must be non-negative, got {noise}")
    order = randperm(points.shape[0], generator=generator)
    points, labels = points[order], labels[order]
    if noise:
        points = points + noise * randn(points.shape, generator=generator)
    return points.to(float32), labels


def make_moons(n_samples: int = 100, noise: float = 0.0, generator=None):
    """Two interleaving half circles: the upper centred at (0, 0), the lower at (1, 0.5)."""
    n_upper, n_lower = _split(n_samples, 2)[::-1]
    upper = linspace(0, math.pi, n_upper, dtype=float32)
    lower = linspace(0, math.pi, n_lower, dtype=float32)
    points = cat(
        [
            stack([upper.cos(), upper.sin()], 1),
            stack([1 - lower.cos(), 0.5 - lower.sin()], 1),
        ]
    )
    return _finish(points, _labels([n_upper, n_lower]), noise, generator)


def make_circles(n_samples: int = 100, noise: float = 0.0, factor: float = 0.8, generator=None):
    """Two concentric circles: class 0 of radius 1, class 1 of radius ``factor``."""
    if not 0 <= factor < 1:
        raise ValueError(f"'factor' has to be between 0 and 1, got {factor}")
    n_outer, n_inner = _split(n_samples, 2)[::-1]
    rings = []
    for count, radius in ((n_outer, 1.0), (n_inner, factor)):
        angle = linspace(0, 2 * math.pi, count + 1, dtype=float32)[:-1]  # no repeated point
        rings.append(radius * stack([angle.cos(), angle.sin()], 1))
    return _finish(cat(rings), _labels([n_outer, n_inner]), noise, generator)


def make_spirals(n_samples: int = 100, n_classes: int = 2, noise: float = 0.0, generator=None):
    """``n_classes`` spiral arms around the origin, each turning once and a half outwards."""
    counts = _split(n_samples, n_classes)
    arms = []
    for label, count in enumerate(counts):
        radius = linspace(0.05, 1.0, count, dtype=float32)
        angle = radius * 3 * math.pi + label * 2 * math.pi / n_classes
        arms.append(stack([radius * angle.cos(), radius * angle.sin()], 1))
    return _finish(cat(arms), _labels(counts), noise, generator)


def make_blobs(
    n_samples: int = 100,
    centers: int = 3,
    n_features: int = 2,
    cluster_std: float = 1.0,
    center_box: tuple[float, float] = (-10.0, 10.0),
    generator=None,
):
    """Isotropic Gaussian clusters, one per class, around centres drawn uniformly from
    ``center_box`` in each coordinate (or the given ``centers``, a list of points)."""
    if isinstance(centers, int):
        low, high = center_box
        centres = low + (high - low) * rand(centers, n_features, generator=generator)
    else:
        centres = tensor(centers, dtype=float32)
        n_features = centres.shape[1]
    counts = _split(n_samples, centres.shape[0])
    points = cat(
        [
            centres[c] + cluster_std * randn(count, n_features, generator=generator)
            for c, count in enumerate(counts)
        ]
    )
    return _finish(points, _labels(counts), 0.0, generator)
