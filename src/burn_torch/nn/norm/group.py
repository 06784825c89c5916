"""Burn's ``GroupNorm`` (one op, torch's fused kernels both ways) and its config."""
from __future__ import annotations

from ... import validate
from ...device import Device
from ...functional.module_ops.norm import group_norm
from ...module import Config, Module, Param, module_fields
from ...tensor import Tensor
from ..checks import expect_input
from ..initializer import Initializer


class GroupNormConfig(Config):
    """Configuration of [`GroupNorm`][burn_torch.nn.norm.GroupNorm] (Burn's fields and defaults)."""

    num_groups: int
    num_channels: int
    epsilon: float = 1e-5
    affine: bool = True

    def init(self, device: Device) -> "GroupNorm":
        """ValueError unless ``num_channels`` is divisible by ``num_groups``; ``gamma``/``beta``
        (ones/zeros ``[num_channels]``) only when ``affine``."""
        validate.config_sizes(self, "num_groups", "num_channels")
        if self.num_channels % self.num_groups:
            raise ValueError(f"The number of channels must be divisible by the number of groups, "
                             f"got {self.num_channels} channels and {self.num_groups} groups")
        gamma = beta = None
        if self.affine:
            gamma = Initializer.ones().init([self.num_channels], device)
            beta = Initializer.zeros().init([self.num_channels], device)
        return GroupNorm(gamma, beta, self.num_groups, self.num_channels, self.epsilon,
                         self.affine)


@module_fields
class GroupNorm(Module):
    """Normalizes ``[batch, num_channels, ...]`` over each group of ``num_channels /
    num_groups`` channels (and all positions), then scales and shifts per channel."""

    gamma: Param | None
    beta: Param | None
    num_groups: int
    num_channels: int
    epsilon: float
    affine: bool

    def forward(self, input: Tensor) -> Tensor:
        """Same shape as ``input``; ValueError unless it is ``[batch, num_channels, ...]``, TypeError
        for a non-Tensor."""
        expect_input("GroupNorm", input, f"[batch, {self.num_channels}, ...]", min_rank=2,
                     sizes={1: self.num_channels})
        if not self.affine:
            return group_norm(input, None, None, self.num_groups, self.epsilon)
        # affine: gamma and beta are set
        return group_norm(input, self.gamma.val(), self.beta.val(), self.num_groups, self.epsilon)  # type: ignore[union-attr]
