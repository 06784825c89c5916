"""Quantized float tensors: Burn's ``QuantScheme`` on plain int8 storage plus a scale.

Torch's own quantized dtypes are deprecated from torch 2.13, so values are stored as an int8
torch tensor with a per-tensor float scale. Ops on a quantized tensor see its dequantized
values. Quantized tensors cannot retain gradients: ``require_grad()`` and
``set_require_grad(...)`` return them unchanged.
"""
from __future__ import annotations

import enum

import torch

from .autodiff.recorder import wrap
from .device import GradientCheckpointingStrategy
from .methods.base import require_float
from . import tensor as _tensor
from .tensor import Tensor, _check_device


class QuantMode(enum.Enum):
    """How values map to integers (Burn's ``QuantMode``): symmetric around zero, the only mode
    implemented."""

    SYMMETRIC = "symmetric"


class QuantLevel(enum.Enum):
    """How many scales a tensor has (Burn's ``QuantLevel``): one per tensor, the only level
    implemented."""

    TENSOR = "tensor"


class QuantScheme:
    """How to quantize: value type, mode and granularity. Only Burn's default is implemented:
    signed int8, symmetric, one scale per tensor (``QuantScheme.default()``)."""

    __slots__ = ("mode", "level", "qmax")

    def __init__(self, mode: QuantMode = QuantMode.SYMMETRIC, level: QuantLevel = QuantLevel.TENSOR) -> None:
        if mode is not QuantMode.SYMMETRIC or level is not QuantLevel.TENSOR:
            raise NotImplementedError("only symmetric per-tensor int8 quantization is implemented")
        self.mode = mode
        self.level = level
        self.qmax = 127

    @classmethod
    def default(cls) -> "QuantScheme":
        return cls()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, QuantScheme) and (self.mode, self.level) == (other.mode, other.level)

    def __hash__(self) -> int:
        return hash((self.mode, self.level))

    def __repr__(self) -> str:
        return f"QuantScheme({self.mode.name}, {self.level.name}, int8)"


class QuantizedTensor(Tensor):
    """A quantized Float tensor. ``_data`` (what ops read) is the dequantized view."""

    __slots__ = ("_qvalues", "_scale", "_scheme", "_float_dtype")
    _qvalues: torch.Tensor  # the int8 values
    _scale: float
    _scheme: QuantScheme
    _float_dtype: torch.dtype  # the dtype the values dequantize to

    # shadows the storage slot (read-only here): every op sees float values
    @property
    def _data(self) -> torch.Tensor:  # type: ignore[override]
        return self._qvalues.to(self._float_dtype) * self._scale

    def is_quantized(self) -> bool:
        return True

    def dequantize(self) -> Tensor:
        """The float tensor these values stand for, with this tensor's autodiff association."""
        return wrap(self._data, self._ctx)

    def require_grad(self) -> Tensor:
        """Quantized tensors cannot retain gradients: returned unchanged."""
        return self

    def set_require_grad(self, require_grad: bool) -> Tensor:
        """Quantized tensors cannot retain gradients: returned unchanged."""
        return self

    def quantize_dynamic(self, scheme=None) -> Tensor:
        return self

    def scheme(self) -> QuantScheme:
        return self._scheme

    def quantized_values(self) -> torch.Tensor:
        """The int8 storage and, separately, ``scale`` give the exact quantized form."""
        return self._qvalues

    def scale(self) -> float:
        return float(self._scale)

    # Association changes and transfers keep the tensor quantized (Burn keeps the QFloat kind).
    def _with(self, ctx, qvalues=None) -> "QuantizedTensor":
        q = QuantizedTensor.__new__(QuantizedTensor)
        q._qvalues = self._qvalues if qvalues is None else qvalues
        q._scale = self._scale
        q._scheme = self._scheme
        q._float_dtype = self._float_dtype
        q._ctx = ctx
        q._node = None
        return q

    def autodiff(self) -> Tensor:
        return self if self._ctx is not None else self._with(GradientCheckpointingStrategy.DISABLED)

    def without_autodiff(self) -> Tensor:
        return self if self._ctx is None else self._with(None)

    def with_gradient_checkpointing_strategy(self, strategy) -> Tensor:
        Tensor.with_gradient_checkpointing_strategy(self, strategy)  # same checks and errors
        return self._with(strategy)

    def to_device(self, device) -> Tensor:
        return self._with(self._ctx, self._qvalues.to(_check_device(device)._torch))


class QuantizationParameters:
    """Burn's pre-computed quantization parameters: ``scales``, a one-element Float tensor (the
    per-tensor scale)."""

    __slots__ = ("scales",)

    def __init__(self, scales: Tensor) -> None:
        if not isinstance(scales, Tensor) or scales.num_elements() != 1:
            raise ValueError("QuantizationParameters: scales must be a one-element Float tensor "
                             "(one scale per tensor)")
        require_float(scales, "QuantizationParameters")
        self.scales = scales


def quantize(x: Tensor, scheme: "QuantScheme | None") -> QuantizedTensor:
    """Quantizes a Float tensor: ``q = round(x / s)`` clamped to ±127 with ``s = max|x| / 127``
    (``scheme`` None: the default scheme).

    The result keeps ``x``'s autodiff association but is never tracked.
    """
    scheme = scheme or QuantScheme.default()
    require_float(x, "quantize_dynamic")
    data = x._data
    amax = data.detach().abs().max() if data.numel() else torch.tensor(0.0)
    return _quantized(x, scheme, (amax / scheme.qmax).item() or 1.0)


def quantize_with_params(x: Tensor, scheme: QuantScheme, qparams: QuantizationParameters) -> QuantizedTensor:
    """Quantizes a Float tensor with the scale of ``qparams``: ``q = round(x / scale)`` clamped
    to ±127. TypeError for a wrong scheme or parameters type, ValueError for a scale <= 0."""
    if not isinstance(scheme, QuantScheme):
        raise TypeError(f"quantize: scheme must be a QuantScheme, got {type(scheme).__name__}")
    if not isinstance(qparams, QuantizationParameters):
        raise TypeError(f"quantize: qparams must be QuantizationParameters, got {type(qparams).__name__}")
    require_float(x, "quantize")
    scale = float(qparams.scales.into_scalar())
    if not scale > 0:
        raise ValueError(f"quantize: the scale must be positive, got {scale}")
    return _quantized(x, scheme, scale)


def _quantized(x: Tensor, scheme: QuantScheme, scale: float) -> QuantizedTensor:
    data = x._data
    q = QuantizedTensor.__new__(QuantizedTensor)
    q._qvalues = torch.clamp(torch.round(data / scale), -scheme.qmax, scheme.qmax).to(torch.int8)
    q._scale = scale
    q._scheme = scheme
    q._float_dtype = data.dtype
    q._ctx = x._ctx
    q._node = None
    return q


_tensor.bind_quantizer(quantize, quantize_with_params)
