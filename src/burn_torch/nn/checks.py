"""The input check of a layer's ``forward``: the input's rank and the sizes its config fixes
(features, channels, model width), compared once per forward call (not per op), raising a
ValueError that names the layer, the input it expects and the shape it got, before anything is
recorded."""
from __future__ import annotations

from typing import Mapping

from ..tensor import Tensor

_NO_SIZES: Mapping[int, int] = {}


def expect_input(layer: str, input, layout: str, rank: int | None = None,
                 sizes: Mapping[int, int] = _NO_SIZES, min_rank: int = 1) -> None:
    """Checks ``input`` against what ``layer`` expects: rank ``rank`` (any rank of at least
    ``min_rank`` when None) and ``shape[axis] == size`` for each entry of ``sizes`` (negative axes count from
    the end). ``layout`` describes the expected input (``"[..., 4] (d_input 4)"``). Raises
    TypeError for a non-Tensor and ``ValueError("<layer>: expected input <layout>, got
    <shape>")`` otherwise."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{layer}: expected a Tensor input, got {type(input).__name__}")
    shape = input._data.shape
    n = len(shape)
    if (n != rank if rank is not None else n < min_rank) or any(
            shape[axis] != size for axis, size in sizes.items()):
        raise ValueError(f"{layer}: expected input {layout}, got {list(shape)}")
