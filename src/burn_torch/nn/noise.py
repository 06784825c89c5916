"""Burn's ``GaussianNoise`` layer."""
from __future__ import annotations

from ..distribution import Distribution
from ..module import Config, Module, module_fields
from ..tensor import Tensor


class GaussianNoiseConfig(Config):
    """Configuration of [`GaussianNoise`][burn_torch.nn.noise.GaussianNoise]: ``std``, the noise's
    standard deviation."""

    std: float

    def init(self) -> "GaussianNoise":
        """The layer; ValueError for a negative ``std``."""
        if not self.std >= 0.0:
            raise ValueError(f"Standard deviation is required to be non-negative, but got "
                             f"{self.std}")
        return GaussianNoise(self.std)


@module_fields
class GaussianNoise(Module):
    """Adds ``N(0, std)`` noise (drawn with the device's generator: see ``Device.seed``) to its
    input on an autodiff device (Burn's test of training) when ``std`` is not 0; returns the
    input unchanged otherwise. The gradient passes through unchanged."""

    std: float

    def forward(self, input: Tensor) -> Tensor:
        if input.device().is_autodiff() and self.std != 0.0:
            return input + input.random_like(Distribution.normal(0.0, self.std))
        return input

    def __repr__(self) -> str:
        return f"GaussianNoise {{std: {self.std}}}"


__all__ = ["GaussianNoise", "GaussianNoiseConfig"]
