"""Tensor kinds (Float, Int, Bool) and element types (DType), mapped onto torch dtypes."""
from __future__ import annotations

import enum

import torch
import torch as _torch  # for annotations inside DType, whose ``torch`` method shadows the name


class Kind:
    """A tensor kind: ``burn_torch.Float``, ``burn_torch.Int`` or ``burn_torch.Bool``.

    The kind of a tensor is a function of its storage dtype; kinds are singletons compared with
    ``is``.
    """

    __slots__ = ("name", "default_dtype")

    def __init__(self, name: str, default_dtype: torch.dtype) -> None:
        self.name = name
        self.default_dtype = default_dtype

    def __repr__(self) -> str:
        return self.name


Float = Kind("Float", torch.float32)
Int = Kind("Int", torch.int64)
Bool = Kind("Bool", torch.bool)
_KINDS = {"float": Float, "int": Int, "bool": Bool}


def resolve_kind(kind: "Kind | str") -> Kind:
    """``kind`` itself, or the kind Burn's name ``"Float"``, ``"Int"`` or ``"Bool"`` (any case)
    names; raises TypeError listing them for anything else."""
    if kind.__class__ is Kind:
        return kind
    found = _KINDS.get(kind.lower()) if isinstance(kind, str) else None
    if found is None:
        raise TypeError(f"expected a tensor kind: burn_torch.Float, burn_torch.Int or burn_torch.Bool "
                        f"(or the name 'Float', 'Int' or 'Bool'), got {kind!r}")
    return found


class DType(enum.Enum):
    """Element types, named as Burn's ``DType``; ``.torch`` is the storage dtype."""

    F64 = torch.float64
    F32 = torch.float32
    F16 = torch.float16
    BF16 = torch.bfloat16
    I64 = torch.int64
    I32 = torch.int32
    I16 = torch.int16
    I8 = torch.int8
    U8 = torch.uint8
    BOOL = torch.bool

    @property
    def torch(self) -> torch.dtype:
        return self.value

    @property
    def kind(self) -> Kind:
        return kind_of(self.value)

    def is_float(self) -> bool:
        return self.value.is_floating_point

    @classmethod
    def from_torch(cls, dtype: _torch.dtype) -> "DType":
        """Returns the DType of a torch dtype; raises TypeError for dtypes Burn has no name for."""
        try:
            return _FROM_TORCH[dtype]
        except KeyError:
            raise TypeError(f"torch dtype {dtype} has no burn_torch DType") from None


_FROM_TORCH = {d.value: d for d in DType}


def kind_of(dtype: torch.dtype) -> Kind:
    """Returns the kind of a storage dtype: Float, Int or Bool."""
    if dtype.is_floating_point:
        return Float
    if dtype is torch.bool:
        return Bool
    return Int


def resolve_dtype(dtype: "DType | torch.dtype | None", kind: Kind) -> torch.dtype:
    """Returns the torch dtype for an optional DType/torch dtype, defaulting to the kind's (a
    Kind or its name, see [`resolve_kind`][burn_torch.dtype.resolve_kind])."""
    if dtype is None:
        return resolve_kind(kind).default_dtype
    if isinstance(dtype, DType):
        return dtype.value
    if isinstance(dtype, torch.dtype):
        return dtype
    raise TypeError(f"expected a burn_torch.DType, got {dtype!r}")
