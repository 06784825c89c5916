"""TensorData: a tensor's values detached from any device or graph."""
from __future__ import annotations

import numpy as np
import torch

from .dtype import DType


class TensorData:
    """Values, shape and dtype of a tensor, held on the CPU.

    Built by ``Tensor.to_data()`` or from nested lists / numpy arrays; ``Tensor.from_data``
    accepts it back.
    """

    __slots__ = ("_values",)

    def __init__(self, values, shape=None, dtype: "DType | None" = None) -> None:
        t = as_torch(values, dtype.torch if dtype is not None else None)
        if shape is not None:
            t = t.reshape(list(shape))
        self._values = t

    @classmethod
    def _of(cls, values: torch.Tensor) -> "TensorData":
        d = object.__new__(cls)
        d._values = values
        return d

    @property
    def shape(self) -> list[int]:
        return list(self._values.shape)

    @property
    def dtype(self) -> DType:
        return DType.from_torch(self._values.dtype)

    def num_elements(self) -> int:
        return self._values.numel()

    def to_list(self) -> list:
        """The values as nested Python lists (a flat list for rank 1)."""
        return self._values.tolist()

    def to_numpy(self) -> np.ndarray:
        """The values as a numpy array (bf16 becomes float32, which numpy lacks)."""
        v = self._values
        if v.dtype is torch.bfloat16:
            v = v.float()
        return v.numpy().copy()

    def to_torch(self) -> torch.Tensor:
        """The values as a CPU torch tensor."""
        return self._values

    def convert(self, dtype: DType) -> "TensorData":
        """The same values converted to ``dtype``:
        [`try_cast`][burn_torch.tensor_data.TensorData.try_cast], and raises as it does (Burn's
        ``convert_dtype`` panics where ``try_cast`` fails)."""
        return self.try_cast(dtype)

    def try_cast(self, dtype: DType) -> "TensorData":
        """The same values converted to ``dtype`` with Burn's element conversion (its
        ``TensorData::try_cast``): floats to ints truncate towards zero, ints and floats to Bool
        are ``!= 0``, Bool to numbers is 0/1, floats narrow with rounding (saturating to ±inf).
        The same dtype returns this data unchanged.

        Raises ValueError, naming the first offending value and its position, when a value
        cannot be represented in an integer ``dtype`` (NaN, ±inf, or out of its range after
        truncation), where Burn panics and torch would wrap silently: clamp or round the tensor
        first, or read it as a float dtype. TypeError for a ``dtype`` that is not a DType.
        """
        if not isinstance(dtype, DType):
            raise TypeError(f"try_cast: expected a burn_torch.DType, got {dtype!r}")
        values = self._values
        if values.dtype is dtype.torch:
            return self
        bad = _unrepresentable(values, dtype.torch)
        if bad is not None and bool(bad.any()):
            at = [int(i) for i in bad.nonzero()[0]]
            raise ValueError(
                f"cannot convert {self.dtype.name} data to {dtype.name}: the value "
                f"{values[tuple(at)].item()!r} at index {at} cannot be represented in "
                f"{dtype.name}; clamp (.clamp(min, max)) or round the tensor first, or read it "
                f"as a float dtype")
        return TensorData._of(values.to(dtype.torch))

    def assert_eq(self, other: "TensorData", strict: bool = True) -> None:
        """Raises AssertionError unless shapes and values are equal (and dtypes, if ``strict``)."""
        other = other if isinstance(other, TensorData) else TensorData(other)
        a, b = self._values, other._values
        if list(a.shape) != list(b.shape):
            raise AssertionError(f"shapes differ: {list(a.shape)} vs {list(b.shape)}")
        if strict and a.dtype != b.dtype:
            raise AssertionError(f"dtypes differ: {self.dtype.name} vs {other.dtype.name}")
        if not torch.equal(a.to(torch.float64) if a.dtype != b.dtype else a,
                           b.to(torch.float64) if a.dtype != b.dtype else b):
            raise AssertionError(f"values differ:\n{a.tolist()}\nvs\n{b.tolist()}")

    def assert_approx_eq(self, other: "TensorData", tolerance: float = 1e-5) -> None:
        """Raises AssertionError unless shapes match and |a-b| <= tol * (1 + |b|) everywhere."""
        other = other if isinstance(other, TensorData) else TensorData(other)
        a = self._values.to(torch.float64)
        b = other._values.to(torch.float64)
        if list(a.shape) != list(b.shape):
            raise AssertionError(f"shapes differ: {list(a.shape)} vs {list(b.shape)}")
        if not torch.allclose(a, b, rtol=tolerance, atol=tolerance, equal_nan=True):
            worst = (a - b).abs().max().item()
            raise AssertionError(f"values differ by up to {worst:.3e} (tolerance {tolerance}):\n"
                                 f"{a.tolist()}\nvs\n{b.tolist()}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TensorData):
            return NotImplemented
        a, b = self._values, other._values
        return a.dtype == b.dtype and a.shape == b.shape and bool(torch.equal(a, b))

    def __repr__(self) -> str:
        return f"TensorData({self.to_list()}, shape={self.shape}, dtype={self.dtype.name})"

    def __reduce__(self):
        return (TensorData._of, (self._values,))


# the range of each integer storage dtype, as Burn's element conversion checks it
_INT_RANGE = {t: (torch.iinfo(t).min, torch.iinfo(t).max)
              for t in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)}


def _unrepresentable(values: torch.Tensor, target: torch.dtype) -> "torch.Tensor | None":
    """A Bool mask of the entries of ``values`` that Burn's element conversion refuses to
    convert to the integer dtype ``target`` (floats: not finite, or truncated out of range;
    ints: out of range), or None when every value converts."""
    bounds = _INT_RANGE.get(target)
    if bounds is None or values.dtype is torch.bool:
        return None
    lo, hi = bounds
    if values.is_floating_point():
        # float64 holds every float value exactly and every bound (hi + 1 is a power of two);
        # NaN fails both comparisons
        whole = values.to(torch.float64).trunc()
        return ~((whole >= lo) & (whole < hi + 1))
    if target is torch.int64:
        return None  # every stored int fits
    wide = values.to(torch.int64)
    return (wide < lo) | (wide > hi)


def as_torch(values, dtype: "torch.dtype | None" = None) -> torch.Tensor:
    """Converts nested lists, scalars, numpy arrays, TensorData or torch tensors to a CPU-or-same-device
    torch tensor that never requires grad.

    Python floats become float32 and ints int64 unless ``dtype`` says otherwise. Raises
    ValueError for ragged nested lists and for an integer the (integer) target dtype cannot hold
    (naming it and the dtype's range), TypeError for unsupported element types.
    """
    if isinstance(values, TensorData):
        t = values._values
    elif isinstance(values, torch.Tensor):
        t = values.detach()
    elif isinstance(values, np.ndarray):
        t = torch.from_numpy(np.ascontiguousarray(values))
    else:
        try:
            arr = np.asarray(values)
        except ValueError as e:
            raise ValueError(f"ragged nested data cannot form a tensor: {e}") from None
        if arr.dtype == object and dtype is not None and dtype.is_floating_point:
            arr = _as_floats(values, arr)  # integers beyond 64 bits, asked for as floats
        if arr.dtype == object:
            raise ValueError(_object_error(arr, dtype))
        if arr.dtype.kind == "f":
            arr = arr.astype(np.float32) if dtype is None else arr
        elif arr.dtype.kind in "iu":
            if dtype is None:  # numpy makes uint64 of ints in [2**63, 2**64)
                _check_int_range(arr, torch.int64)
                arr = arr.astype(np.int64)
        elif arr.dtype.kind != "b":
            raise TypeError(f"unsupported element type {arr.dtype} for a tensor")
        t = torch.from_numpy(np.ascontiguousarray(arr))
    if dtype is not None and t.dtype != dtype:
        if t.dtype is not torch.bool and not t.is_floating_point() and t.numel():
            _check_int_range(t.cpu().numpy(), dtype)
        t = t.to(dtype)
    return t


def _range_error(value: int, dtype: torch.dtype) -> str:
    info = torch.iinfo(dtype)
    name = str(dtype).removeprefix("torch.")
    return (f"the integer {value} is out of the range of {name} ({info.min}..{info.max}); give "
            f"a float dtype to keep it approximately (dtype=DType.F64), or smaller values")


def _as_floats(values, arr: np.ndarray) -> np.ndarray:
    """Nested numbers as float64 (Python ints of any size convert); ``arr`` as it is when they
    do not convert (ragged or non-numeric data)."""
    try:
        return np.asarray(values, dtype=np.float64)
    except (ValueError, TypeError, OverflowError):
        return arr


def _check_int_range(arr: np.ndarray, dtype: torch.dtype) -> None:
    """Raises ValueError naming the first integer of ``arr`` that ``dtype`` (an integer dtype)
    cannot hold; nothing for a float or Bool target or an empty array."""
    if dtype.is_floating_point or dtype is torch.bool or arr.size == 0:
        return
    info = torch.iinfo(dtype)
    low, high = arr.min(), arr.max()
    if low < info.min or high > info.max:
        bad = arr.flat[int(np.argmax((arr < info.min) | (arr > info.max)))]
        raise ValueError(_range_error(int(bad), dtype))


def _object_error(arr: np.ndarray, dtype: "torch.dtype | None") -> str:
    """Why nested data made a numpy object array: an integer too large for 64 bits (named with
    the range of the dtype asked for, int64 by default), else ragged or non-numeric data."""
    target = dtype if dtype is not None and not dtype.is_floating_point and dtype is not torch.bool \
        else torch.int64
    for value in arr.flat:
        if isinstance(value, int) and not isinstance(value, bool) and (
                value < torch.iinfo(target).min or value > torch.iinfo(target).max):
            return _range_error(value, target)
    return "ragged or non-numeric nested data cannot form a tensor"
