"""A small MNIST-like dataset made at run time (no download): 28x28 grey digits drawn as
seven-segment glyphs with a random stroke width, position, slant and noise.

Items are [`MnistItem`][burn_torch.data.synthetic.MnistItem] as Burn's ``MnistDataset`` gives them:
``image`` a 28x28 float32 numpy array with values in [0, 255], ``label`` the digit.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .dataset import InMemDataset

# segments lit per digit: top, top-left, top-right, middle, bottom-left, bottom-right, bottom
_SEGMENTS = {
    0: "1110111", 1: "0010010", 2: "1011101", 3: "1011011", 4: "0111010",
    5: "1101011", 6: "1101111", 7: "1010010", 8: "1111111", 9: "1111011",
}
# each segment as a line (x0, y0) -> (x1, y1) in a unit box
_LINES = [((0, 0), (1, 0)), ((0, 0), (0, 1)), ((1, 0), (1, 1)), ((0, 1), (1, 1)),
          ((0, 1), (0, 2)), ((1, 1), (1, 2)), ((0, 2), (1, 2))]


class MnistItem(NamedTuple):
    """One image (28x28 float32, values 0..255) and its label."""

    image: np.ndarray
    label: int


def _draw(digit: int, rng: np.random.Generator) -> np.ndarray:
    yy, xx = np.mgrid[0:28, 0:28].astype(np.float32)
    width, height = rng.uniform(7, 11), rng.uniform(7, 10)     # half-glyph box
    x0, y0 = rng.uniform(6, 22 - width), rng.uniform(4, 24 - 2 * height)
    slant, stroke = rng.uniform(-0.25, 0.25), rng.uniform(1.0, 2.0)
    image = np.zeros((28, 28), np.float32)
    for lit, ((ax, ay), (bx, by)) in zip(_SEGMENTS[digit], _LINES):
        if lit == "0":
            continue
        a = np.array([x0 + ax * width - slant * ay * height, y0 + ay * height])
        b = np.array([x0 + bx * width - slant * by * height, y0 + by * height])
        d = b - a
        t = np.clip(((xx - a[0]) * d[0] + (yy - a[1]) * d[1]) / (d @ d), 0, 1)
        dist = np.hypot(xx - a[0] - t * d[0], yy - a[1] - t * d[1])
        image = np.maximum(image, np.clip(1.5 - dist / stroke, 0, 1))
    image += rng.normal(0, 0.1, image.shape).astype(np.float32)
    return (np.clip(image, 0, 1) * 255).astype(np.float32)


def mnist_like(num_items: int, seed: int = 0) -> InMemDataset[MnistItem]:
    """``num_items`` digits (labels cycling 0..9 in a random order), the same for a seed."""
    rng = np.random.default_rng(seed)
    labels = rng.permutation(np.arange(num_items) % 10)
    return InMemDataset([MnistItem(_draw(int(label), rng), int(label)) for label in labels])
