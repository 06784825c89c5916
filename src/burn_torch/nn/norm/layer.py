"""Burn's ``LayerNorm`` (one op, torch's fused kernels both ways) and its config."""
from __future__ import annotations

from ... import validate
from ...device import Device
from ...functional.module_ops.norm import layer_norm
from ...module import Config, Module, Param, module_fields
from ...tensor import Tensor
from ..initializer import Initializer


class LayerNormConfig(Config):
    """Configuration of [`LayerNorm`][burn_torch.nn.norm.LayerNorm] (Burn's fields and defaults)."""

    d_model: int
    epsilon: float = 1e-5
    bias: bool = True

    def init(self, device: Device) -> "LayerNorm":
        """``gamma`` ones and ``beta`` zeros (None without ``bias``) of shape ``[d_model]``."""
        validate.config_sizes(self, "d_model")
        beta = Initializer.zeros().init([self.d_model], device) if self.bias else None
        return LayerNorm(Initializer.ones().init([self.d_model], device), beta, self.epsilon)


@module_fields
class LayerNorm(Module):
    """Normalizes the last dim: ``(x - mean) / sqrt(var + epsilon) * gamma + beta``."""

    gamma: Param
    beta: Param | None
    epsilon: float

    def forward(self, input: Tensor) -> Tensor:
        """``[..., d_model] -> [..., d_model]``; ValueError when the last dim is not d_model."""
        d_model = self.gamma.val().dims()[0]
        if input.rank() == 0 or input.dims()[-1] != d_model:
            raise ValueError(f"LayerNorm: expected input [..., {d_model}], got {input.dims()}")
        return layer_norm(input, self.gamma.val(), None if self.beta is None else self.beta.val(),
                          self.epsilon)

    def __repr__(self) -> str:
        return (f"LayerNorm {{d_model: {self.gamma.val().dims()[0]}, epsilon: {self.epsilon}, "
                f"bias: {self.beta is not None}, params: {self.num_params()}}}")
