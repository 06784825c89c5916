"""Burn's ``RmsNorm`` (one op, torch's fused kernels both ways) and its config."""
from __future__ import annotations

from ... import validate
from ...device import Device
from ...functional.module_ops.norm import rms_norm
from ...module import Config, Module, Param, module_fields
from ...tensor import Tensor
from ..initializer import Initializer


class RmsNormConfig(Config):
    """Configuration of [`RmsNorm`][burn_torch.nn.norm.RmsNorm] (Burn's fields and defaults)."""

    d_model: int
    epsilon: float = 1e-5

    def init(self, device: Device) -> "RmsNorm":
        """``gamma`` ones of shape ``[d_model]``; ValueError unless ``epsilon > 0``."""
        validate.config_sizes(self, "d_model")
        if not self.epsilon > 0.0:
            raise ValueError("epsilon must be positive.")
        return RmsNorm(Initializer.ones().init([self.d_model], device), self.epsilon)


@module_fields
class RmsNorm(Module):
    """``x / sqrt(mean(x^2) + epsilon) * gamma`` over the last dim.

    Burn computes the mean square in float32 whatever the input's dtype; here it is computed in
    float32 for half-precision inputs (torch's kernel) and in float64 for float64 inputs."""

    gamma: Param
    epsilon: float

    def forward(self, input: Tensor) -> Tensor:
        """``[..., d_model] -> [..., d_model]``; ValueError when the last dim is not d_model."""
        d_model = self.gamma.val().dims()[0]
        if input.rank() == 0 or input.dims()[-1] != d_model:
            raise ValueError(f"RmsNorm: expected input [..., {d_model}], got {input.dims()}")
        return rms_norm(input, self.gamma.val(), self.epsilon)

    def __repr__(self) -> str:
        return (f"RmsNorm {{d_model: {self.gamma.val().dims()[0]}, epsilon: {self.epsilon}, "
                f"params: {self.num_params()}}}")
