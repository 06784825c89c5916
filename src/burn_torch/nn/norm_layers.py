"""Burn's ``InstanceNorm``, ``RmsNorm`` and ``LocalResponseNorm``.

``InstanceNorm`` is group norm with one channel per group and ``RmsNorm`` one op (both with
torch's fused kernels); ``LocalResponseNorm`` follows Burn's composition (an average pool over a
window of channels), including its window for an even ``size``.
"""
from __future__ import annotations

from .. import validate
from ..device import Device
from ..functional.module_ops import avg_pool1d
from ..functional.norm_ops import group_norm, rms_norm
from ..module import Config, Module, Param
from ..tensor import Tensor
from .initializer import Initializer


class InstanceNormConfig(Config):
    """Configuration of :class:`InstanceNorm` (Burn's fields and defaults)."""

    num_channels: int
    epsilon: float = 1e-5
    affine: bool = True

    def init(self, device: Device) -> "InstanceNorm":
        """``gamma`` ones and ``beta`` zeros of shape ``[num_channels]`` when ``affine``."""
        validate.config_sizes(self, "num_channels")
        gamma = beta = None
        if self.affine:
            gamma = Initializer.ones().init([self.num_channels], device)
            beta = Initializer.zeros().init([self.num_channels], device)
        return InstanceNorm(gamma, beta, self.num_channels, self.epsilon, self.affine)


class InstanceNorm(Module):
    """Normalizes ``[batch, num_channels, ...]`` per sample and channel over the positions
    (biased variance), then scales and shifts per channel when ``affine``."""

    def __init__(self, gamma: Param | None, beta: Param | None, num_channels: int,
                 epsilon: float, affine: bool) -> None:
        super().__init__()
        self.gamma = gamma
        self.beta = beta
        self.num_channels = num_channels
        self.epsilon = epsilon
        self.affine = affine

    def forward(self, input: Tensor) -> Tensor:
        """Same shape as ``input``; ValueError unless it is ``[batch, num_channels, ...]``."""
        dims = input.dims()
        if len(dims) < 2 or dims[1] != self.num_channels:
            raise ValueError(f"InstanceNorm: expected input [batch, {self.num_channels}, ...], "
                             f"got {dims}")
        gamma = None if self.gamma is None else self.gamma.val()
        beta = None if self.beta is None else self.beta.val()
        return group_norm(input, gamma, beta, self.num_channels, self.epsilon)

    def __repr__(self) -> str:
        return (f"InstanceNorm {{num_channels: {self.num_channels}, epsilon: {self.epsilon}, "
                f"affine: {self.affine}, params: {self.num_params()}}}")


class RmsNormConfig(Config):
    """Configuration of :class:`RmsNorm` (Burn's fields and defaults)."""

    d_model: int
    epsilon: float = 1e-5

    def init(self, device: Device) -> "RmsNorm":
        """``gamma`` ones of shape ``[d_model]``; ValueError unless ``epsilon > 0``."""
        validate.config_sizes(self, "d_model")
        if not self.epsilon > 0.0:
            raise ValueError("epsilon must be positive.")
        return RmsNorm(Initializer.ones().init([self.d_model], device), self.epsilon)


class RmsNorm(Module):
    """``x / sqrt(mean(x^2) + epsilon) * gamma`` over the last dim.

    Burn computes the mean square in float32 whatever the input's dtype; here it is computed in
    float32 for half-precision inputs (torch's kernel) and in float64 for float64 inputs."""

    def __init__(self, gamma: Param, epsilon: float) -> None:
        super().__init__()
        self.gamma = gamma
        self.epsilon = epsilon

    def forward(self, input: Tensor) -> Tensor:
        """``[..., d_model] -> [..., d_model]``; ValueError when the last dim is not d_model."""
        d_model = self.gamma.val().dims()[0]
        if input.rank() == 0 or input.dims()[-1] != d_model:
            raise ValueError(f"RmsNorm: expected input [..., {d_model}], got {input.dims()}")
        return rms_norm(input, self.gamma.val(), self.epsilon)

    def __repr__(self) -> str:
        return (f"RmsNorm {{d_model: {self.gamma.val().dims()[0]}, epsilon: {self.epsilon}, "
                f"params: {self.num_params()}}}")


class LocalResponseNormConfig(Config):
    """Configuration of :class:`LocalResponseNorm` (Burn's fields and defaults; ``k`` is
    torch's ``k`` and ONNX's ``bias``)."""

    size: int
    alpha: float = 0.0001
    beta: float = 0.75
    k: float = 1.0

    def init(self) -> "LocalResponseNorm":
        """The layer; ValueError when ``size`` is 0. No device: it has no parameters."""
        validate.config_sizes(self, "size")
        return LocalResponseNorm(self.size, self.alpha, self.beta, self.k)


class LocalResponseNorm(Module):
    """``x / (k + alpha * mean(x^2 over a window of size channels))^beta`` over
    ``[batch, channels, ...]``. The window around channel ``c`` spans ``c - (size - 1) // 2`` to
    ``c + size // 2`` (zeros beyond the edges, counted in the mean): centred for an odd
    ``size``; for an even one it reaches one channel further up, where torch's reaches one
    further down."""

    def __init__(self, size: int, alpha: float, beta: float, k: float) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

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


__all__ = ["InstanceNorm", "InstanceNormConfig", "RmsNorm", "RmsNormConfig", "LocalResponseNorm",
           "LocalResponseNormConfig"]
