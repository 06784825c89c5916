"""The root of the public Tensor's method families, and the checks they share.

``Tensor`` (``burn_torch.tensor``) is assembled from one mixin per op family
(``arithmetic``, ``reduce``, ``shape``, ``index``, ``compare``); each mixin's methods go through
the op table (``burn_torch.ops``) and the recorder (``burn_torch.autodiff.recorder``). The helpers
here raise TypeError/ValueError before anything is recorded.
"""
from __future__ import annotations

import numbers
import sys
from typing import TYPE_CHECKING, Sequence

import numpy as np
import torch

from .. import validate

from ..autodiff.recorder import apply1, apply2
from ..dtype import kind_of

if TYPE_CHECKING:
    from types import FrameType

    from ..autodiff.graph import Node
    from ..autodiff.strategy import GradientCheckpointingStrategy
    from ..device import Device
    from ..dtype import DType, Kind
    from ..tensor import Tensor

Number = numbers.Number


class TensorBase:
    """Common base of the method mixins: what every family may assume about ``self``."""

    __slots__ = ()
    # The slots ``Tensor`` declares (see ``tensor.py``), for type checkers: the torch storage, the
    # autodiff context (None without autodiff) and the node (None when untracked).
    _data: torch.Tensor
    _ctx: GradientCheckpointingStrategy | None
    _node: Node | None

    if TYPE_CHECKING:
        # The part of ``Tensor``'s surface that one family calls on ``self`` but another family
        # (or ``tensor.py``) defines, declared for type checkers only (nothing exists at run
        # time). A mixin's ``self`` cannot be annotated as its subclass ``Tensor`` (mypy requires
        # an explicit self type to be a supertype of the class), so the families see each other
        # through these; mypy checks each real definition against its declaration here.
        @property
        def kind(self) -> Kind: ...
        def dims(self) -> list[int]: ...
        def dtype(self) -> DType: ...
        def device(self) -> Device: ...
        @classmethod
        def from_data(cls, data, device: Device, kind: Kind | None = None,
                      dtype: DType | None = None) -> Tensor: ...
        @classmethod
        def full(cls, shape: Sequence[int], value, device: Device, kind: Kind = ...,
                 dtype: DType | None = None) -> Tensor: ...
        @classmethod
        def arange(cls, start: int, end: int, device: Device, step: int = 1) -> Tensor: ...
        @staticmethod
        def cat(tensors: Sequence[Tensor], dim: int) -> Tensor: ...
        def reshape(self, dims: Sequence[int]) -> Tensor: ...
        def transpose(self) -> Tensor: ...
        def narrow(self, dim: int, start: int, length: int) -> Tensor: ...
        def select(self, dim: int, indices) -> Tensor: ...
        def mask_where(self, mask: Tensor, values: Tensor) -> Tensor: ...
        def abs(self) -> Tensor: ...
        def sub(self, other: Tensor) -> Tensor: ...
        def mul(self, other: Tensor) -> Tensor: ...
        def greater(self, other: Tensor) -> Tensor: ...
        def lower(self, other: Tensor) -> Tensor: ...
        def mean_dim(self, dim: int) -> Tensor: ...
        def topk_with_indices(self, k: int, dim: int) -> tuple[Tensor, Tensor]: ...

    def _dim(self, dim: int, arg: str = "dim") -> int:
        """``dim`` normalised to ``0..rank``; TypeError for a non-int, IndexError out of range
        (see ``burn_torch.validate``; the message names the calling method)."""
        rank = self._data.dim()
        if dim.__class__ is int and -rank <= dim < rank:
            return dim + rank if dim < 0 else dim
        return validate.dim(_caller(), rank, dim, arg, self._data.shape)


def _caller() -> str:
    """The public method an argument error is raised for: the nearest caller that is not a
    private helper (slow path only: used when building an error message)."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None and frame.f_code.co_name[0] in "_<":
        frame = frame.f_back
    return frame.f_code.co_name if frame is not None else "tensor op"


def same_kind(op_name: str, a: TensorBase, b: TensorBase) -> None:
    ka, kb = kind_of(a._data.dtype), kind_of(b._data.dtype)
    if ka is not kb:
        raise TypeError(f"{op_name}: operands must have the same kind, got {ka} and {kb}; "
                        f"convert one with .float(), .int() or .bool()")


def not_a_tensor(what: str, value) -> TypeError:
    """The TypeError for a non-Tensor operand; for a numpy array or torch tensor it says how to
    convert it (``Tensor.from_data(x, device)``)."""
    module = type(value).__module__.split(".")[0]
    if module in ("numpy", "torch"):
        return TypeError(f"{what}: cannot combine a burn_torch Tensor with a {module}."
                         f"{type(value).__name__}; convert it first with "
                         f"Tensor.from_data(x, device) (or burn_torch.compat.from_torch(x, device) "
                         f"to share a torch tensor's storage)")
    return TypeError(f"{what}: expected a Tensor operand, got {validate.type_name(value)}")


def binary(op, a: TensorBase, b) -> "Tensor":
    if not isinstance(b, TensorBase):
        raise not_a_tensor(op.name, b)
    if a._data.dtype is not b._data.dtype:
        same_kind(op.name, a, b)
    return apply2(op, a, b)


def check_scalar(what: str, x: TensorBase, s) -> None:
    """TypeError unless ``s`` is a real Python scalar that fits ``x``'s kind (no float on Int/Bool)."""
    if not isinstance(s, Number) or isinstance(s, complex):
        raise TypeError(f"{what}: expected a real Python scalar, got {type(s).__name__}")
    if isinstance(s, float) and not x._data.is_floating_point():
        raise TypeError(f"{what}: a float scalar with a {x.kind} tensor; call .float() first")


def scalar(op, x: TensorBase, s) -> "Tensor":
    check_scalar(op.name, x, s)
    return apply1(op, x, (s,))


def require_float(x: TensorBase, what: str) -> None:
    if not x._data.is_floating_point():
        raise TypeError(f"{what} needs a Float tensor, got {x.kind}")


def float_unary(op, x: TensorBase) -> "Tensor":
    """A Float-only op (Burn defines it on Float tensors only): TypeError on Int/Bool."""
    if not x._data.is_floating_point():
        raise TypeError(f"{op.name} needs a Float tensor, got {x.kind}; call .float() first")
    return apply1(op, x)


def require_float_pair(what: str, a: TensorBase, b) -> None:
    """TypeError unless ``b`` is a Tensor and both ``a`` and ``b`` are Float tensors."""
    if not isinstance(b, TensorBase):
        raise not_a_tensor(what, b)
    if not (a._data.is_floating_point() and b._data.is_floating_point()):
        raise TypeError(f"{what} needs Float tensors, got {a.kind} and {b.kind}; "
                        f"call .float() first")


def float_binary(op, a: TensorBase, b, attrs=()) -> "Tensor":
    """A Float-only two-tensor op (Burn defines it on Float tensors only)."""
    require_float_pair(op.name, a, b)
    return apply2(op, a, b, attrs)


def operator(op, scalar_op, x: "Tensor", other):
    """Operator dispatch: a Tensor operand goes to ``op``, a Python number to ``scalar_op``.

    A numpy array or torch tensor, on either side, raises TypeError saying how to convert it
    (numpy defers to us as ``Tensor.__array_ufunc__`` is None; torch's operators return
    NotImplemented for a foreign operand, so Python asks ours). Other types get
    NotImplemented."""
    if isinstance(other, TensorBase):
        if op is None:
            return NotImplemented
        return binary(op, x, other)
    if isinstance(other, Number) and not isinstance(other, complex):
        return scalar(scalar_op, x, other.item() if hasattr(other, "item") else other)
    return foreign(f"operator {scalar_op.name.removesuffix('_scalar')}", other)


def foreign(what: str, other):
    """Raises ``not_a_tensor`` for a numpy or torch operand; NotImplemented otherwise."""
    if isinstance(other, (np.ndarray, torch.Tensor, np.generic)):
        raise not_a_tensor(what, other)
    return NotImplemented


def check_list(what: str, tensors) -> "list[Tensor]":
    tensors = list(tensors)
    if not tensors:
        raise ValueError(f"{what} needs at least one tensor")
    for t in tensors:
        if not isinstance(t, TensorBase):
            raise TypeError(f"{what}: expected Tensors, got {validate.type_name(t)}")
    first = tensors[0]
    for t in tensors[1:]:
        if t._data.dtype is not first._data.dtype:
            same_kind(what, first, t)
    return tensors
