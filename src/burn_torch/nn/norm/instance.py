"""Burn's ``InstanceNorm``: group norm with one channel per group."""
from __future__ import annotations

from ... import validate
from ...device import Device
from ...functional.module_ops.norm import group_norm
from ...module import Config, Module, Param, module_fields
from ...tensor import Tensor
from ..checks import expect_input
from ..initializer import Initializer


class InstanceNormConfig(Config):
    """Configuration of [`InstanceNorm`][burn_torch.nn.norm.InstanceNorm] (Burn's fields and
    defaults)."""

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


@module_fields
class InstanceNorm(Module):
    """Normalizes ``[batch, num_channels, ...]`` per sample and channel over the positions
    (biased variance), then scales and shifts per channel when ``affine``."""

    gamma: Param | None
    beta: Param | None
    num_channels: int
    epsilon: float
    affine: bool

    def forward(self, input: Tensor) -> Tensor:
        """Same shape as ``input``; ValueError unless it is ``[batch, num_channels, ...]``, TypeError
        for a non-Tensor."""
        expect_input("InstanceNorm", input, f"[batch, {self.num_channels}, ...]", min_rank=2,
                     sizes={1: self.num_channels})
        gamma = None if self.gamma is None else self.gamma.val()
        beta = None if self.beta is None else self.beta.val()
        return group_norm(input, gamma, beta, self.num_channels, self.epsilon)

    def __repr__(self) -> str:
        return (f"InstanceNorm {{num_channels: {self.num_channels}, epsilon: {self.epsilon}, "
                f"affine: {self.affine}, params: {self.num_params()}}}")
