"""Precision settings (Burn's ``PrecisionSettings``): the element types a recorder stores
floats and ints in. Loading converts back to the loaded module's dtypes."""
from __future__ import annotations

import torch


class PrecisionSettings:
    """Base: ``float_dtype`` / ``int_dtype`` are the torch dtypes stored; ``float_name`` /
    ``int_name`` the Rust type names Burn writes in a record's metadata."""

    float_dtype: torch.dtype
    int_dtype: torch.dtype
    float_name: str
    int_name: str

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __hash__(self) -> int:
        return hash(type(self))


class FullPrecisionSettings(PrecisionSettings):
    """f32 floats, i32 ints (Burn's default)."""

    float_dtype, int_dtype, float_name, int_name = torch.float32, torch.int32, "f32", "i32"


class HalfPrecisionSettings(PrecisionSettings):
    """f16 floats, i16 ints (``CompactRecorder``): half the size, about 3 decimal digits."""

    float_dtype, int_dtype, float_name, int_name = torch.float16, torch.int16, "half::binary16::f16", "i16"


class DoublePrecisionSettings(PrecisionSettings):
    """f64 floats, i64 ints."""

    float_dtype, int_dtype, float_name, int_name = torch.float64, torch.int64, "f64", "i64"
