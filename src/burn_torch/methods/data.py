"""Reading a tensor's values to the host: Burn's ``to_data`` / ``into_data`` family, with the
converting forms (``*_as``, ``*_dtype``, ``try_*_vec_as``) and scalars.

A torch storage is read eagerly, so none of these can fail lazily: Burn's ``try_*`` forms,
which return a ``Result``, return the value here and raise where the plain form panics; the
consuming ``into_*`` forms leave the tensor usable (Python has no moves). Reading never records
a step and never changes the tensor.
"""
from __future__ import annotations

from ..dtype import DType
from ..tensor_data import TensorData
from .base import TensorBase


def _dtype(op: str, dtype) -> DType:
    if not isinstance(dtype, DType):
        raise TypeError(f"{op}: expected a burn_torch.DType naming the element type "
                        f"(DType.F32, DType.I64, ...), got {dtype!r}")
    return dtype


class DataMethods(TensorBase):
    __slots__ = ()

    def to_data(self) -> TensorData:
        """The values as a CPU TensorData (a copy; no autodiff association)."""
        return TensorData._of(self._data.detach().to("cpu", copy=True))

    def into_data(self) -> TensorData:
        """Same as [`to_data`][burn_torch.tensor.Tensor.to_data] (Burn's consuming form; the tensor
        stays usable here)."""
        return self.to_data()

    def try_to_data(self) -> TensorData:
        """Same as [`to_data`][burn_torch.tensor.Tensor.to_data]: where Burn returns a ``Result``,
        this returns the data."""
        return self.to_data()

    def try_into_data(self) -> TensorData:
        """Same as [`to_data`][burn_torch.tensor.Tensor.to_data]: reading a torch storage cannot
        fail lazily, so where Burn returns a ``Result`` this returns the data (errors are raised, as
        everywhere)."""
        return self.to_data()

    def to_data_dtype(self, dtype: DType) -> TensorData:
        """The values as a CPU TensorData of ``dtype``, converted with Burn's element
        conversion (``TensorData.try_cast``: floats to ints truncate, anything to Bool is
        ``!= 0``); no conversion when ``dtype`` is the tensor's own. The tensor is unchanged.

        Raises TypeError when ``dtype`` is not a DType, and ValueError, naming the value, when
        a value cannot be represented in an integer ``dtype`` (NaN, ±inf, out of range), where
        Burn panics: clamp or round first, or read as a float dtype.
        """
        return self.to_data().try_cast(_dtype("to_data_dtype", dtype))

    def into_data_dtype(self, dtype: DType) -> TensorData:
        """Same as [`to_data_dtype`][burn_torch.tensor.Tensor.to_data_dtype] (Burn's consuming form;
        the tensor stays usable)."""
        return self.to_data_dtype(dtype)

    def try_to_data_dtype(self, dtype: DType) -> TensorData:
        """Same as [`to_data_dtype`][burn_torch.tensor.Tensor.to_data_dtype], and raises as it does
        where Burn returns an error."""
        return self.to_data_dtype(dtype)

    def try_into_data_dtype(self, dtype: DType) -> TensorData:
        """Same as [`to_data_dtype`][burn_torch.tensor.Tensor.to_data_dtype], and raises as it does
        where Burn returns an error."""
        return self.to_data_dtype(dtype)

    def to_data_as(self, element: DType) -> TensorData:
        """Burn's ``to_data_as::<E>()``: the values converted to the element type ``E``, which
        Python names with its DType (``to_data_as(DType.F64)``); same as
        [`to_data_dtype`][burn_torch.tensor.Tensor.to_data_dtype], and raises as it does."""
        return self.to_data().try_cast(_dtype("to_data_as", element))

    def into_data_as(self, element: DType) -> TensorData:
        """Same as [`to_data_as`][burn_torch.tensor.Tensor.to_data_as] (Burn's consuming form; the
        tensor stays usable)."""
        return self.to_data_as(element)

    def try_to_data_as(self, element: DType) -> TensorData:
        """Same as [`to_data_as`][burn_torch.tensor.Tensor.to_data_as], and raises as it does where
        Burn returns an error."""
        return self.to_data_as(element)

    def try_into_data_as(self, element: DType) -> TensorData:
        """Same as [`to_data_as`][burn_torch.tensor.Tensor.to_data_as], and raises as it does where
        Burn returns an error."""
        return self.to_data_as(element)

    def try_to_vec_as(self, element: DType) -> list:
        """The values converted to ``element`` (see
        [`to_data_as`][burn_torch.tensor.Tensor.to_data_as], which raises the same errors) as a flat
        Python list in row-major order: ``float``, ``int`` or ``bool`` items."""
        return self.to_data_as(element).to_torch().reshape(-1).tolist()

    def try_into_vec_as(self, element: DType) -> list:
        """Same as [`try_to_vec_as`][burn_torch.tensor.Tensor.try_to_vec_as] (Burn's consuming form;
        the tensor stays usable)."""
        return self.try_to_vec_as(element)

    def into_scalar(self):
        """The single value of a one-element tensor as a Python number; ValueError otherwise."""
        if self._data.numel() != 1:
            raise ValueError(f"into_scalar needs a tensor with one element, got shape {self.dims()}")
        return self._data.item()

    def try_into_scalar(self):
        """Same as [`into_scalar`][burn_torch.tensor.Tensor.into_scalar] (errors are raised, not
        returned)."""
        return self.into_scalar()
