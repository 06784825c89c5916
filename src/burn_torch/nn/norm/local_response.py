"""Burn's ``LocalResponseNorm``: Burn's composition (an average pool over a window of channels),
including its window for an even ``size``.
"""
from __future__ import annotations

from ... import validate
from ...functional.module_ops.pool import avg_pool1d
from ...module import Config, Module, module_fields
from ...tensor import Tensor


class LocalResponseNormConfig(Config):
    """Configuration of [`LocalResponseNorm`][burn_torch.nn.norm.LocalResponseNorm] (Burn's fields
    and defaults; ``k`` is torch's ``k`` and ONNX's ``bias``)."""

    size: int
    alpha: float = 0.0001
    beta: float = 0.75
    k: float = 1.0

    def init(self) -> "LocalResponseNorm":
        """The layer; ValueError when ``size`` is 0. No device: it has no parameters."""
        validate.config_sizes(self, "size")
        return LocalResponseNorm(self.size, self.alpha, self.beta, self.k)


@module_fields
class LocalResponseNorm(Module):
    """``x / (k + alpha * mean(x^2 over a window of size channels))^beta`` over
    ``[batch, channels, ...]``. The window around channel ``c`` spans ``c - (size - 1) // 2`` to
    ``c + size // 2`` (zeros beyond the edges, counted in the mean): centred for an odd
    ``size``; for an even one it reaches one channel further up, where torch's reaches one
    further down."""

    size: int
    alpha: float
    beta: float
    k: float

    def forward(self, input: Tensor) -> Tensor:
        """Same shape as ``input``; ValueError for a rank below 3."""
        dims = input.dims()
        if len(dims) < 3:
            raise ValueError(f"LocalResponseNorm requires input rank >= 3, got {dims}")
        n, c = dims[0], dims[1]
        rows = input.square().reshape([n, c, -1]).swap_dims(1, 2).reshape([-1, 1, c])
        left, right = (self.size - 1) // 2, self.size // 2
        if left != right:  # Burn's asymmetric zero padding, then an unpadded pool
            parts = [rows]
            for at, width in ((0, left), (2, right)):
                if width:
                    zeros = Tensor.zeros([rows.dims()[0], 1, width], rows.device(),
                                         dtype=rows.dtype())
                    parts.insert(at, zeros)
            rows, left = Tensor.cat(parts, 2), 0
        avg = avg_pool1d(rows, self.size, 1, left, True)
        avg = avg.reshape([n, -1, c]).swap_dims(1, 2).reshape(dims)
        return input / (avg * self.alpha + self.k).powf_scalar(self.beta)

    def __repr__(self) -> str:
        return (f"LocalResponseNorm {{size: {self.size}, alpha: {self.alpha}, beta: {self.beta}, "
                f"k: {self.k}}}")
