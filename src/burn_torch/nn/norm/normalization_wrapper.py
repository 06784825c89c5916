"""Burn's ``NormalizationConfig``: a choice of normalisation layer (identity, batch, group,
instance, layer or RMS norm) that blocks are configured with.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ...device import Device
from ...module import Config, Module
from ..identity import Identity
from .batch import BatchNormConfig
from .group import GroupNormConfig
from .instance import InstanceNormConfig
from .layer import LayerNormConfig
from .rms import RmsNormConfig


# kind -> the config class and the name of its feature-count field
_FEATURES = {"batch": (BatchNormConfig, "num_features"), "group": (GroupNormConfig, "num_channels"),
             "instance": (InstanceNormConfig, "num_channels"), "layer": (LayerNormConfig, "d_model"),
             "rms": (RmsNormConfig, "d_model")}


@dataclass(frozen=True)
class NormalizationConfig:
    """Build with the class methods (``NormalizationConfig.layer(LayerNormConfig(0))``,
    ``.identity()``...); ``init(device)`` returns the layer itself."""

    kind: str
    config: Config | None = None

    @classmethod
    def identity(cls) -> "NormalizationConfig":
        return cls("identity")

    @classmethod
    def batch(cls, config: BatchNormConfig) -> "NormalizationConfig":
        return cls._of("batch", config)

    @classmethod
    def group(cls, config: GroupNormConfig) -> "NormalizationConfig":
        return cls._of("group", config)

    @classmethod
    def instance(cls, config: InstanceNormConfig) -> "NormalizationConfig":
        return cls._of("instance", config)

    @classmethod
    def layer(cls, config: LayerNormConfig) -> "NormalizationConfig":
        return cls._of("layer", config)

    @classmethod
    def rms(cls, config: RmsNormConfig) -> "NormalizationConfig":
        return cls._of("rms", config)

    @classmethod
    def _of(cls, kind: str, config: Config) -> "NormalizationConfig":
        """TypeError unless ``config`` is the config class of ``kind``."""
        if not isinstance(config, _FEATURES[kind][0]):
            raise TypeError(f"NormalizationConfig.{kind} expects a {_FEATURES[kind][0].__name__}, "
                            f"got {type(config).__name__}")
        return cls(kind, config)

    def init(self, device: Device) -> Module:
        """The normalisation layer (``Identity`` for ``identity()``)."""
        # config is one of _FEATURES' configs (checked by _of), each with init(device); Config
        # itself declares no init (their signatures differ)
        return Identity() if self.config is None else self.config.init(device)  # type: ignore[return-value]

    def with_num_features(self, num_features: int) -> "NormalizationConfig":
        """A copy whose layer normalises ``num_features`` features (identity: unchanged)."""
        if self.config is None:
            return self
        field = _FEATURES[self.kind][1]
        return NormalizationConfig(self.kind, dataclasses.replace(self.config, **{field: num_features}))

    def num_features(self) -> int:
        """The configured feature count (0 for identity)."""
        return 0 if self.config is None else getattr(self.config, _FEATURES[self.kind][1])
