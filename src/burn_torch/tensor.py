"""The public Tensor: an immutable value over a torch storage tensor, with Burn's autodiff API.

A tensor is three things: ``_data``, the torch storage (never ``requires_grad``, never with a
``grad_fn``); ``_ctx``, its autodiff context (``None`` when it has no autodiff association,
otherwise its :class:`GradientCheckpointingStrategy`); and ``_node``, its place in the recorded
graph (``None`` when it is not tracked). Its kind (Float, Int, Bool) follows from the storage
dtype. Every op goes through the op table (``burn_torch.ops``) and the recorder
(``burn_torch.autodiff.record``).
"""
from __future__ import annotations

import math
import numbers
from typing import Sequence

import numpy as np
import torch

from .autodiff import record
from .autodiff.engine import run_backward
from .autodiff.gradients import Gradients
from .autodiff.graph import GRAD, new_leaf
from .autodiff.record import apply1, apply2, applyn, wrap
from .data import TensorData, as_torch
from .device import Device, GradientCheckpointingStrategy, generator
from .distribution import Distribution
from .dtype import Bool, DType, Float, Int, Kind, kind_of, resolve_dtype
from .errors import (AutodiffDisabledError, GradientAutodiffError, NonLeafRequireGradError,
                     NotTrackedError, UnsupportedAutodiffFeatureError)
from .ops import activation as A
from .ops import compare as C
from .ops import convert as V
from .ops import elementwise as E
from .ops import index as I
from .ops import linalg as L
from .ops import reduce as R
from .ops import shape as S
from .shape import Shape

_Number = numbers.Number
_ADD, _SUB, _MUL, _DIV, _MATMUL = E.ADD, E.SUB, E.MUL, E.DIV, L.MATMUL


def _check_device(device) -> Device:
    if not isinstance(device, Device):
        raise TypeError(f"expected a burn_torch.Device, got {device!r}")
    return device


def _same_kind(op_name: str, a: "Tensor", b: "Tensor") -> None:
    ka, kb = kind_of(a._data.dtype), kind_of(b._data.dtype)
    if ka is not kb:
        raise TypeError(f"{op_name}: operands must have the same kind, got {ka} and {kb}; "
                        f"convert one with .float(), .int() or .bool()")


def _binary(op, a: "Tensor", b) -> "Tensor":
    if not isinstance(b, Tensor):
        raise TypeError(f"{op.name}: expected a Tensor operand, got {type(b).__name__}")
    if a._data.dtype is not b._data.dtype:
        _same_kind(op.name, a, b)
    return apply2(op, a, b)


def _scalar(op, x: "Tensor", s) -> "Tensor":
    if not isinstance(s, _Number) or isinstance(s, complex):
        raise TypeError(f"{op.name}: expected a real Python scalar, got {type(s).__name__}")
    if isinstance(s, float) and not x._data.is_floating_point():
        raise TypeError(f"{op.name}: a float scalar with a {x.kind} tensor; call .float() first")
    return apply1(op, x, (s,))


def _require_float(x: "Tensor", what: str) -> None:
    if not x._data.is_floating_point():
        raise TypeError(f"{what} needs a Float tensor, got {x.kind}")


def _float_unary(op, x: "Tensor") -> "Tensor":
    """A Float-only op (Burn defines it on Float tensors only): TypeError on Int/Bool."""
    if not x._data.is_floating_point():
        raise TypeError(f"{op.name} needs a Float tensor, got {x.kind}; call .float() first")
    return apply1(op, x)


def _norm_slice(s, size: int):
    """Normalises one Burn range against a dim of ``size``: (positive-step slice, walks backwards)."""
    if isinstance(s, bool):
        raise TypeError("a slice range cannot be a bool")
    if isinstance(s, int):
        i = s + size if s < 0 else s
        if not 0 <= i < size:
            raise IndexError(f"index {s} is out of range for a dimension of size {size}")
        return slice(i, i + 1), False
    if isinstance(s, range):
        s = slice(s.start, s.stop, s.step)
    elif isinstance(s, (tuple, list)) and len(s) in (2, 3):
        s = slice(*s)
    elif not isinstance(s, slice):
        raise TypeError(f"expected a slice, range, int or (start, end) pair, got {s!r}")
    step = 1 if s.step is None else int(s.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    start, stop, _ = slice(s.start, s.stop).indices(size)
    length = max(0, stop - start)
    if step > 0:
        return slice(start, max(start, stop), step), False
    k = -step
    count = -(-length // k)
    if count == 0:
        return slice(start, start), False
    return slice(stop - 1 - (count - 1) * k, stop, k), True


def _as_index_tensor(indices, like: "Tensor", what: str) -> torch.Tensor:
    if isinstance(indices, Tensor):
        data = indices._data
    else:
        data = torch.as_tensor(indices, device=like._data.device)
    if data.dtype.is_floating_point or data.dtype is torch.bool:
        raise TypeError(f"{what}: indices must be an Int tensor, got {kind_of(data.dtype)}")
    return data if data.dtype is torch.int64 else data.long()


def _as_mask(mask, what: str) -> torch.Tensor:
    if not isinstance(mask, Tensor) or mask._data.dtype is not torch.bool:
        raise TypeError(f"{what}: the mask must be a Bool tensor")
    return mask._data


class Tensor:
    """A Burn tensor over torch storage. Tensors are immutable values; ``clone()`` is cheap.

    Float tensors take part in autodiff: see :meth:`is_autodiff`, :meth:`is_tracked`,
    :meth:`is_require_grad` and :meth:`gradient_checkpointing_strategy` for the four properties,
    which always satisfy ``is_require_grad() ⇒ is_tracked() ⇒ is_autodiff()`` and
    ``(gradient_checkpointing_strategy() is not None) == is_autodiff()``.
    """

    __slots__ = ("_data", "_ctx", "_node", "__weakref__")
    __array_priority__ = 1000  # numpy scalars on the left defer to our operators

    def __init__(self, *args, **kwargs) -> None:
        raise TypeError("create tensors with Tensor.from_data, Tensor.zeros, Tensor.ones, ... "
                        "(see burn_torch's API.md)")

    # ============================================================================ creation ====
    @classmethod
    def _create(cls, data: torch.Tensor, device: Device) -> "Tensor":
        return wrap(data, device._ctx)

    @classmethod
    def from_data(cls, data, device: Device, kind: Kind | None = None,
                  dtype: "DType | None" = None) -> "Tensor":
        """Creates a tensor from nested lists, a numpy array, a TensorData or a torch tensor.

        Without ``kind``/``dtype`` the kind is inferred (floats → Float f32 from lists, ints →
        Int, bools → Bool; numpy/torch dtypes are kept). The values are copied. The tensor
        carries ``device``'s autodiff context and is untracked. Raises ValueError for ragged
        data and TypeError for unsupported element types.
        """
        device = _check_device(device)
        copy_needed = isinstance(data, (torch.Tensor, np.ndarray, TensorData))
        t = as_torch(data)
        target = None
        if dtype is not None:
            target = resolve_dtype(dtype, Float)
            if kind is not None and kind_of(target) is not kind:
                raise TypeError(f"dtype {dtype} does not belong to kind {kind}")
        elif kind is not None and kind_of(t.dtype) is not kind:
            target = kind.default_dtype
        t = t.to(device=device._torch, dtype=target or t.dtype, copy=copy_needed)
        return cls._create(t, device)

    @classmethod
    def from_floats(cls, data, device: Device, dtype: "DType | None" = None) -> "Tensor":
        """A Float tensor (f32 unless ``dtype``) from nested numbers."""
        return cls.from_data(data, device, Float, dtype)

    @classmethod
    def from_ints(cls, data, device: Device, dtype: "DType | None" = None) -> "Tensor":
        """An Int tensor (i64 unless ``dtype``) from nested integers."""
        return cls.from_data(data, device, Int, dtype)

    @classmethod
    def from_bools(cls, data, device: Device) -> "Tensor":
        """A Bool tensor from nested bools."""
        return cls.from_data(data, device, Bool)

    @classmethod
    def full(cls, shape: Sequence[int], value, device: Device, kind: Kind = Float,
             dtype: "DType | None" = None) -> "Tensor":
        """A tensor of ``shape`` filled with ``value``, carrying ``device``'s autodiff context."""
        device = _check_device(device)
        dims = _check_shape(shape)
        return cls._create(torch.full(dims, value, dtype=resolve_dtype(dtype, kind), device=device._torch),
                           device)

    @classmethod
    def zeros(cls, shape: Sequence[int], device: Device, kind: Kind = Float,
              dtype: "DType | None" = None) -> "Tensor":
        """A tensor of zeros; see :meth:`full`."""
        return cls.full(shape, 0, device, kind, dtype)

    @classmethod
    def ones(cls, shape: Sequence[int], device: Device, kind: Kind = Float,
             dtype: "DType | None" = None) -> "Tensor":
        """A tensor of ones; see :meth:`full`."""
        return cls.full(shape, 1, device, kind, dtype)

    @classmethod
    def arange(cls, start: int, end: int, device: Device, step: int = 1) -> "Tensor":
        """The Int tensor ``[start, start+step, ...)`` up to ``end`` (exclusive)."""
        device = _check_device(device)
        return cls._create(torch.arange(start, end, step, dtype=torch.int64, device=device._torch), device)

    @classmethod
    def random(cls, shape: Sequence[int], distribution: Distribution, device: Device,
               dtype: "DType | None" = None) -> "Tensor":
        """A Float tensor sampled from ``distribution`` with the device's generator (see Device.seed)."""
        device = _check_device(device)
        dims = _check_shape(shape)
        t = distribution.sample(dims, resolve_dtype(dtype, Float), device._torch, generator(device._torch))
        return cls._create(t, device)

    def zeros_like(self) -> "Tensor":
        """Zeros of this tensor's shape, dtype, device and autodiff context; untracked."""
        return wrap(torch.zeros_like(self._data), self._ctx)

    def ones_like(self) -> "Tensor":
        """Ones of this tensor's shape, dtype, device and autodiff context; untracked."""
        return wrap(torch.ones_like(self._data), self._ctx)

    def full_like(self, value) -> "Tensor":
        """``value`` everywhere, with this tensor's shape, dtype, device and context; untracked."""
        return wrap(torch.full_like(self._data, value), self._ctx)

    def random_like(self, distribution: Distribution) -> "Tensor":
        """Samples of this Float tensor's shape, dtype, device and context; untracked."""
        _require_float(self, "random_like")
        d = self._data
        return wrap(distribution.sample(d.shape, d.dtype, d.device, generator(d.device)), self._ctx)

    # ======================================================================= inspection ====
    @property
    def kind(self) -> Kind:
        """``burn_torch.Float``, ``Int`` or ``Bool``."""
        return kind_of(self._data.dtype)

    def dims(self) -> list[int]:
        return list(self._data.shape)

    def shape(self) -> Shape:
        return Shape(self._data.shape)

    def rank(self) -> int:
        return self._data.dim()

    def num_elements(self) -> int:
        return self._data.numel()

    def dtype(self) -> DType:
        return DType.from_torch(self._data.dtype)

    def device(self) -> Device:
        """The tensor's device, carrying the tensor's own autodiff context."""
        return Device.of(self._data.device, self._ctx)

    def is_quantized(self) -> bool:
        """Whether this is a quantized float tensor (see :meth:`quantize_dynamic`)."""
        return False

    def to_data(self) -> TensorData:
        """The values as a CPU TensorData (a copy; no autodiff association)."""
        return TensorData._of(self._data.detach().to("cpu", copy=True))

    def into_scalar(self):
        """The single value of a one-element tensor as a Python number; ValueError otherwise."""
        if self._data.numel() != 1:
            raise ValueError(f"into_scalar needs a tensor with one element, got shape {self.dims()}")
        return self._data.item()

    def to_torch(self) -> torch.Tensor:
        """The storage tensor itself (zero-copy), with ``requires_grad=False`` and no grad_fn.

        Other burn_torch tensors and saved backward state may share this storage: treat it as
        read-only, or ``.clone()`` it before mutating.
        """
        return self._data

    def __repr__(self) -> str:
        d = self._data
        values = np.array2string(TensorData._of(d.detach().cpu()).to_numpy(), separator=", ",
                                 threshold=64, edgeitems=3, prefix="  data: ")
        strategy = self._ctx.name if self._ctx is not None else None
        return ("Tensor {\n"
                f"  data: {values},\n"
                f"  shape: {list(d.shape)},\n"
                f"  device: {d.device},\n"
                f"  kind: {self.kind}, dtype: {self.dtype().name},\n"
                f"  is_autodiff: {self._ctx is not None} (strategy {strategy}), "
                f"is_tracked: {self._node is not None}, is_require_grad: {self.is_require_grad()}\n"
                "}")

    def __bool__(self):
        raise TypeError("a Tensor has no truth value; use .into_scalar(), .any() or .all_close(...)")

    def __len__(self) -> int:
        return self._data.shape[0] if self._data.dim() else 0

    # ============================================================= autodiff properties ====
    def is_autodiff(self) -> bool:
        """Whether this tensor has an autodiff association (not whether it is tracked)."""
        return self._ctx is not None

    def is_tracked(self) -> bool:
        """Whether this tensor participates in a recorded graph.

        Stays True after backward consumed the graph: it is not a check that another backward
        will succeed. Always False on Int and Bool tensors.
        """
        return self._node is not None

    def is_require_grad(self) -> bool:
        """Whether this tensor retains its gradient after backward (a ``require_grad()`` leaf)."""
        node = self._node
        return node is not None and node.requirement == GRAD

    def gradient_checkpointing_strategy(self) -> GradientCheckpointingStrategy | None:
        """This tensor's checkpointing strategy, or None when it has no autodiff association."""
        return self._ctx

    # ============================================================== autodiff transitions ====
    def autodiff(self) -> "Tensor":
        """Returns this tensor with an autodiff association.

        Preserves: an existing association and its strategy (idempotent), the values and device.
        Adds: the association with the DISABLED strategy when there was none. Does not make the
        tensor require gradients (see :meth:`require_grad`). Never raises.
        """
        if self._ctx is not None:
            return self
        return wrap(self._data, GradientCheckpointingStrategy.DISABLED)

    @classmethod
    def from_inner(cls, inner: "Tensor") -> "Tensor":
        """Same as ``inner.autodiff()``."""
        return inner.autodiff()

    def without_autodiff(self) -> "Tensor":
        """Returns this tensor without its autodiff association.

        Preserves: the values and device. Cuts: the association, the strategy and any graph
        reference. Idempotent; never raises. Combined later with an autodiff tensor, the result
        is treated as a constant.
        """
        if self._ctx is None:
            return self
        return wrap(self._data, None)

    def inner(self) -> "Tensor":
        """Same as :meth:`without_autodiff` (Burn's backend-decorator name)."""
        return self.without_autodiff()

    def require_grad(self) -> "Tensor":
        """Returns this autodiff leaf tracked and retaining its gradient.

        Preserves: the association and strategy; an existing leaf (returned unchanged, same
        gradient slot). Adds: a fresh leaf node to an untracked autodiff Float tensor. Does not
        enable autodiff. Quantized tensors are returned unchanged.

        Raises AutodiffDisabledError on a tensor without autodiff (call ``.autodiff()`` first),
        NonLeafRequireGradError on a tracked intermediate, TypeError on Int/Bool tensors.
        """
        node = self._node
        if node is not None:
            if node.requirement == GRAD:
                return self
            raise NonLeafRequireGradError(
                "Tensor.require_grad on a tracked non-leaf tensor: retaining intermediate gradients "
                "while preserving their source graph is unsupported; call .detach().require_grad() "
                "for a new leaf (disconnected from the source graph), or read the source leaves' "
                "gradients instead")
        if not self._data.is_floating_point():
            raise TypeError(f"require_grad needs a Float tensor, got {self.kind}")
        if self._ctx is None:
            raise AutodiffDisabledError(
                "Tensor.require_grad requires autodiff; call Tensor.autodiff() first "
                "(or create the tensor on device.autodiff())")
        return wrap(self._data, self._ctx, new_leaf(self._data.shape, self._data.dtype))

    def set_require_grad(self, require_grad: bool) -> "Tensor":
        """``True``: same as :meth:`require_grad` (and raises as it does).

        ``False``: returns the tensor with a new untracked lineage, cutting any connection to
        upstream tensors while keeping the association and strategy. Harmless on a tensor without
        autodiff (returned unchanged). Quantized tensors are returned unchanged.
        """
        if require_grad:
            return self.require_grad()
        if self._ctx is None or self._node is None:
            return self
        return wrap(self._data, self._ctx)

    def detach(self) -> "Tensor":
        """Returns this tensor on a new graph lineage.

        Preserves: the autodiff association and strategy, and a leaf's gradient retention (a
        ``require_grad()`` leaf becomes a new, separate leaf). Cuts: the link to every earlier
        step; an intermediate becomes an untracked constant. Does not restore consumed steps.
        Never raises.
        """
        node = self._node
        if node is None:
            return self
        if node.requirement == GRAD:
            return wrap(self._data, self._ctx, new_leaf(node.shape, node.dtype))
        return wrap(self._data, self._ctx)

    def with_gradient_checkpointing_strategy(self, strategy: GradientCheckpointingStrategy) -> "Tensor":
        """Returns this tensor carrying ``strategy``; the graph node and values are kept.

        Raises AutodiffDisabledError when the tensor has no autodiff association (call
        ``.autodiff()`` first).
        """
        if not isinstance(strategy, GradientCheckpointingStrategy):
            raise TypeError(f"expected a GradientCheckpointingStrategy, got {strategy!r}")
        if self._ctx is None:
            raise AutodiffDisabledError(
                "Tensor.with_gradient_checkpointing_strategy requires autodiff; call Tensor.autodiff first")
        return wrap(self._data, strategy, self._node)

    def to_device(self, device: Device) -> "Tensor":
        """Moves the values to ``device``'s torch device.

        Preserves: this tensor's own autodiff association and strategy (the destination's
        autodiff configuration is ignored). For a tracked tensor it records a differentiable
        step, even to the same device: gradients flow back to the source, and the result, a
        tracked intermediate, cannot retain its own gradient. For a new destination leaf use
        ``t.to_device(d).detach().require_grad()``.
        """
        target = _check_device(device)._torch
        if self._node is None:
            return wrap(self._data.to(target), self._ctx)
        return apply1(V.TO_DEVICE, self, (target, self._data.device))

    # ========================================================================= backward ====
    def backward(self, *args, **kwargs) -> Gradients:
        """Backpropagates from this tensor; returns a new Gradients container.

        The seed is ones of this tensor's shape (a non-scalar output behaves as its ``sum()``).
        Consumes the recorded steps reachable from this tensor (clones share them); leaves stay
        reusable in fresh forwards. The container holds the gradients of the ``require_grad()``
        leaves reached; nothing is written onto any tensor.

        Raises NotTrackedError if the tensor is not tracked, GraphConsumedError if its step or
        any intermediate it needs was consumed (checked before anything is consumed), and
        UnsupportedAutodiffFeatureError for any argument (Burn has no ``gradient`` seed,
        ``retain_graph`` nor ``create_graph``).
        """
        if args or kwargs:
            raise UnsupportedAutodiffFeatureError(
                "Tensor.backward takes no arguments: Burn has no retain_graph or create_graph, and "
                "no external seed; for y.backward(v) write (y * v).sum().backward(), and combine "
                "losses that share intermediates into one loss before a single backward")
        node = self._node
        if node is None:
            raise NotTrackedError(
                "Tensor.backward requires a tracked autodiff tensor; call "
                "Tensor.autodiff().require_grad() on the source leaf before computing the output")
        seed = torch.ones(node.shape, dtype=node.dtype, device=self._data.device)
        return Gradients(run_backward(node, seed))

    def grad(self, grads: Gradients) -> "Tensor | None":
        """This tensor's retained gradient in ``grads``, without autodiff association, or None.

        None when the tensor has no autodiff, does not retain gradients, or is absent from
        ``grads``. Repeated calls return handles to the same gradient.
        """
        node = self._node
        if node is None or node.requirement != GRAD:
            return None
        g = grads._grads.get(node.id)
        return None if g is None else wrap(g, None)

    def grad_remove(self, grads: Gradients) -> "Tensor | None":
        """Removes and returns this tensor's retained gradient from ``grads`` (None as in :meth:`grad`)."""
        node = self._node
        if node is None or node.requirement != GRAD:
            return None
        g = grads._grads.pop(node.id, None)
        return None if g is None else wrap(g, None)

    def grad_replace(self, grads: Gradients, grad: "Tensor") -> None:
        """Replaces this tensor's entry in ``grads`` with ``grad``.

        Raises AutodiffDisabledError if this tensor has no autodiff association,
        GradientAutodiffError if ``grad`` has one (call ``grad.without_autodiff()``), ValueError
        if shapes differ and TypeError for non-Float tensors; ``grads`` is untouched then.
        An untracked tensor has no entry to replace, so ``grads`` stays as it was.
        """
        if self._ctx is None:
            raise AutodiffDisabledError(
                "Tensor.grad_replace requires a tensor with autodiff; call Tensor.autodiff() first")
        if not isinstance(grad, Tensor):
            raise TypeError(f"grad_replace expects a Tensor gradient, got {type(grad).__name__}")
        if grad._ctx is not None:
            raise GradientAutodiffError(
                "Tensor.grad_replace: the replacement gradient has an autodiff association; "
                "pass grad.without_autodiff()")
        _require_float(self, "grad_replace")
        _require_float(grad, "grad_replace")
        if grad._data.shape != self._data.shape:
            raise ValueError(f"grad_replace: gradient shape {grad.dims()} does not match tensor shape "
                             f"{self.dims()}")
        node = self._node
        if node is not None:
            grads._grads[node.id] = grad._data

    # ======================================================================= conversions ====
    def clone(self) -> "Tensor":
        """A handle to the same values and the same graph step (clones share steps)."""
        return wrap(self._data, self._ctx, self._node)

    def cast(self, dtype: DType) -> "Tensor":
        """Converts to ``dtype``. Float→float casts are differentiable; a kind change yields an
        untracked tensor of the new kind that keeps the autodiff association."""
        target = resolve_dtype(dtype, Float)
        if target is self._data.dtype:
            return self
        if target.is_floating_point and self._data.is_floating_point():
            return apply1(V.CAST, self, (target,))
        return wrap(self._data.to(target), self._ctx)

    def float(self) -> "Tensor":
        """As a Float (f32) tensor; an Int/Bool tensor with autodiff becomes an autodiff constant."""
        if self._data.is_floating_point():
            return self
        return wrap(self._data.to(torch.float32), self._ctx)

    def int(self) -> "Tensor":
        """As an Int (i64) tensor, truncating floats; untracked, keeps the autodiff association."""
        if self._data.dtype is torch.int64:
            return self
        return wrap(self._data.to(torch.int64), self._ctx)

    def bool(self) -> "Tensor":
        """As a Bool tensor (non-zero → True); untracked, keeps the autodiff association."""
        if self._data.dtype is torch.bool:
            return self
        return wrap(self._data != 0, self._ctx)

    def quantize_dynamic(self, scheme=None) -> "Tensor":
        """Quantizes this Float tensor with ``scheme`` (default: symmetric int8 per tensor)."""
        from .quantization import QuantScheme, quantize
        return quantize(self, scheme or QuantScheme.default())

    def dequantize(self) -> "Tensor":
        """This tensor as a plain float tensor (returns self when not quantized)."""
        return self

    # ======================================================================== arithmetic ====
    def add(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self + other`` with broadcasting."""
        return _binary(E.ADD, self, other)

    def sub(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self - other`` with broadcasting."""
        return _binary(E.SUB, self, other)

    def mul(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self * other`` with broadcasting."""
        return _binary(E.MUL, self, other)

    def div(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self / other``; integer (truncating) division for Int tensors."""
        return _binary(E.DIV, self, other)

    def remainder(self, other: "Tensor") -> "Tensor":
        """Elementwise remainder with the sign of the divisor (``torch.remainder``)."""
        return _binary(E.REMAINDER, self, other)

    def add_scalar(self, value) -> "Tensor":
        return _scalar(E.ADD_SCALAR, self, value)

    def sub_scalar(self, value) -> "Tensor":
        return _scalar(E.SUB_SCALAR, self, value)

    def mul_scalar(self, value) -> "Tensor":
        return _scalar(E.MUL_SCALAR, self, value)

    def div_scalar(self, value) -> "Tensor":
        """``self / value``; integer (truncating) division for Int tensors."""
        return _scalar(E.DIV_SCALAR, self, value)

    def remainder_scalar(self, value) -> "Tensor":
        return _scalar(E.REMAINDER_SCALAR, self, value)

    def neg(self) -> "Tensor":
        return apply1(E.NEG, self)

    def __add__(self, other):
        if other.__class__ is Tensor and self._data.dtype is other._data.dtype:
            return apply2(_ADD, self, other)
        return _operator(E.ADD, E.ADD_SCALAR, self, other)

    def __radd__(self, other):
        return _operator(E.ADD, E.ADD_SCALAR, self, other)

    def __sub__(self, other):
        if other.__class__ is Tensor and self._data.dtype is other._data.dtype:
            return apply2(_SUB, self, other)
        return _operator(E.SUB, E.SUB_SCALAR, self, other)

    def __rsub__(self, other):
        return _operator(None, E.RSUB_SCALAR, self, other)

    def __mul__(self, other):
        if other.__class__ is Tensor and self._data.dtype is other._data.dtype:
            return apply2(_MUL, self, other)
        return _operator(E.MUL, E.MUL_SCALAR, self, other)

    def __rmul__(self, other):
        return _operator(E.MUL, E.MUL_SCALAR, self, other)

    def __truediv__(self, other):
        if other.__class__ is Tensor and self._data.dtype is other._data.dtype:
            return apply2(_DIV, self, other)
        return _operator(E.DIV, E.DIV_SCALAR, self, other)

    def __rtruediv__(self, other):
        return _operator(None, E.RDIV_SCALAR, self, other)

    def __mod__(self, other):
        return _operator(E.REMAINDER, E.REMAINDER_SCALAR, self, other)

    def __neg__(self):
        return apply1(E.NEG, self)

    def __matmul__(self, other):
        if other.__class__ is Tensor and self._data.dtype is other._data.dtype \
                and self._data.dim() >= 2 and other._data.dim() >= 2:
            return apply2(_MATMUL, self, other)
        return self.matmul(other)

    # ======================================================================== float math ====
    def exp(self) -> "Tensor":
        return _float_unary(E.EXP, self)

    def log(self) -> "Tensor":
        return _float_unary(E.LOG, self)

    def log1p(self) -> "Tensor":
        return _float_unary(E.LOG1P, self)

    def sqrt(self) -> "Tensor":
        return _float_unary(E.SQRT, self)

    def abs(self) -> "Tensor":
        return apply1(E.ABS, self)

    def recip(self) -> "Tensor":
        return _float_unary(E.RECIP, self)

    def square(self) -> "Tensor":
        return apply1(E.SQUARE, self)

    def sin(self) -> "Tensor":
        return _float_unary(E.SIN, self)

    def cos(self) -> "Tensor":
        return _float_unary(E.COS, self)

    def tanh(self) -> "Tensor":
        return _float_unary(E.TANH, self)

    def erf(self) -> "Tensor":
        return _float_unary(E.ERF, self)

    def powf(self, other: "Tensor") -> "Tensor":
        """Elementwise ``self ** other`` for float tensors, differentiable in both."""
        return _binary(E.POWF, self, other)

    def powf_scalar(self, exponent: float) -> "Tensor":
        return apply1(E.POWF_SCALAR, self, (float(exponent),))

    def powi_scalar(self, exponent: int) -> "Tensor":
        if not isinstance(exponent, int) or isinstance(exponent, bool):
            raise TypeError(f"powi_scalar needs an int exponent, got {exponent!r}")
        return apply1(E.POWI_SCALAR, self, (exponent,))

    def clamp(self, min, max) -> "Tensor":
        """Elementwise clamp to [min, max]; the gradient passes only inside the range (inclusive)."""
        if min is not None and max is not None and min > max:
            raise ValueError(f"clamp: min {min} is greater than max {max}")
        return apply1(E.CLAMP, self, (min, max))

    def clamp_min(self, min) -> "Tensor":
        return apply1(E.CLAMP, self, (min, None))

    def clamp_max(self, max) -> "Tensor":
        return apply1(E.CLAMP, self, (None, max))

    def matmul(self, other: "Tensor") -> "Tensor":
        """Batched matrix product over the last two dims; leading dims broadcast."""
        if not isinstance(other, Tensor):
            raise TypeError(f"matmul: expected a Tensor, got {type(other).__name__}")
        if self._data.dim() < 2 or other._data.dim() < 2:
            raise ValueError(f"matmul needs tensors of rank >= 2, got shapes {self.dims()} and {other.dims()}")
        return _binary(L.MATMUL, self, other)

    # ======================================================================== reductions ====
    def sum(self) -> "Tensor":
        """Sum of all elements, shape ``[1]``."""
        return apply1(R.SUM, self)

    def mean(self) -> "Tensor":
        """Mean of all elements, shape ``[1]``."""
        return apply1(R.MEAN, self)

    def sum_dim(self, dim: int) -> "Tensor":
        """Sum along ``dim``, keeping it with size 1."""
        return apply1(R.SUM_DIM, self, (self._dim(dim),))

    def mean_dim(self, dim: int) -> "Tensor":
        """Mean along ``dim``, keeping it with size 1."""
        return apply1(R.MEAN_DIM, self, (self._dim(dim),))

    def argmax(self, dim: int) -> "Tensor":
        """Int indices of the maxima along ``dim`` (kept with size 1)."""
        return apply1(R.ARGMAX, self, (self._dim(dim),))

    def argmin(self, dim: int) -> "Tensor":
        """Int indices of the minima along ``dim`` (kept with size 1)."""
        return apply1(R.ARGMIN, self, (self._dim(dim),))

    def max_dim(self, dim: int) -> "Tensor":
        """Maxima along ``dim`` (kept); the gradient flows to the selected index only."""
        return self.max_dim_with_indices(dim)[0]

    def min_dim(self, dim: int) -> "Tensor":
        """Minima along ``dim`` (kept); the gradient flows to the selected index only."""
        return self.min_dim_with_indices(dim)[0]

    def max_dim_with_indices(self, dim: int) -> "tuple[Tensor, Tensor]":
        indices = self.argmax(dim)
        return self.gather(dim, indices), indices

    def min_dim_with_indices(self, dim: int) -> "tuple[Tensor, Tensor]":
        indices = self.argmin(dim)
        return self.gather(dim, indices), indices

    # ============================================================================= shape ====
    def _dim(self, dim: int) -> int:
        rank = self._data.dim()
        if not -rank <= dim < rank:
            raise IndexError(f"dimension {dim} is out of range for a tensor of rank {rank}")
        return dim + rank if dim < 0 else dim

    def reshape(self, dims: Sequence[int]) -> "Tensor":
        """Same values in a new shape; one ``-1`` is inferred. ValueError if sizes don't match."""
        dims = [int(d) for d in dims]
        if dims.count(-1) > 1:
            raise ValueError(f"reshape: at most one -1 is allowed, got {dims}")
        return apply1(S.RESHAPE, self, (dims,))

    def flatten(self, start_dim: int, end_dim: int) -> "Tensor":
        """Merges dims ``start_dim..=end_dim`` (inclusive) into one."""
        return apply1(S.FLATTEN, self, (self._dim(start_dim), self._dim(end_dim)))

    def unsqueeze(self, rank: int | None = None) -> "Tensor":
        """Prepends size-1 dims up to ``rank`` (default: one more than now)."""
        cur = self._data.dim()
        rank = cur + 1 if rank is None else rank
        if rank < cur:
            raise ValueError(f"unsqueeze: target rank {rank} is lower than the current rank {cur}")
        return apply1(S.RESHAPE, self, ([1] * (rank - cur) + list(self._data.shape),))

    def unsqueeze_dim(self, dim: int) -> "Tensor":
        """Inserts a size-1 dim at ``dim``."""
        rank = self._data.dim() + 1
        if not -rank <= dim < rank:
            raise IndexError(f"unsqueeze_dim: dimension {dim} is out of range for rank {rank - 1}")
        return apply1(S.UNSQUEEZE_DIM, self, (dim % rank,))

    def squeeze_dim(self, dim: int) -> "Tensor":
        """Removes dim ``dim``, which must have size 1 (ValueError otherwise)."""
        d = self._dim(dim)
        if self._data.shape[d] != 1:
            raise ValueError(f"squeeze_dim: dimension {d} has size {self._data.shape[d]}, not 1 "
                             f"(shape {self.dims()})")
        return apply1(S.SQUEEZE_DIM, self, (d,))

    def swap_dims(self, dim1: int, dim2: int) -> "Tensor":
        return apply1(S.SWAP_DIMS, self, (self._dim(dim1), self._dim(dim2)))

    def transpose(self) -> "Tensor":
        """Swaps the last two dims."""
        if self._data.dim() < 2:
            return self
        return apply1(S.SWAP_DIMS, self, (self._data.dim() - 2, self._data.dim() - 1))

    def permute(self, dims: Sequence[int]) -> "Tensor":
        dims = [self._dim(d) for d in dims]
        if sorted(dims) != list(range(self._data.dim())):
            raise ValueError(f"permute: {dims} is not a permutation of the dims of shape {self.dims()}")
        return apply1(S.PERMUTE, self, (dims,))

    def expand(self, dims: Sequence[int]) -> "Tensor":
        """Broadcasts to ``dims`` (``-1`` keeps a dim); the gradient is summed back."""
        return apply1(S.EXPAND, self, ([int(d) for d in dims],))

    def slice(self, ranges) -> "Tensor":
        """The sub-tensor selected by ``ranges``: one Python slice (or int, range, (start, end))
        per leading dim. Negative indices count from the end; a negative step walks the range
        backwards from its end, as Burn's ``s![a..b;-k]``."""
        if isinstance(ranges, (slice, int, range)):
            ranges = [ranges]
        shape = self._data.shape
        if len(ranges) > len(shape):
            raise ValueError(f"slice: {len(ranges)} ranges for a tensor of rank {len(shape)}")
        index = []
        flips = []
        for d, r in enumerate(ranges):
            s, backwards = _norm_slice(r, shape[d])
            index.append(s)
            if backwards:
                flips.append(d)
        return apply1(S.SLICE, self, (tuple(index), tuple(flips)))

    def slice_dim(self, dim: int, range_) -> "Tensor":
        """Slices one dim; see :meth:`slice`."""
        d = self._dim(dim)
        return self.slice([slice(None)] * d + [range_])

    @staticmethod
    def cat(tensors: Sequence["Tensor"], dim: int) -> "Tensor":
        """Concatenates along ``dim``; all tensors must have the same kind and rank."""
        tensors = _check_list("cat", tensors)
        d = tensors[0]._dim(dim)
        sizes = [t._data.shape[d] for t in tensors]
        return applyn(S.CAT, tensors, (d, sizes))

    @staticmethod
    def stack(tensors: Sequence["Tensor"], dim: int) -> "Tensor":
        """Stacks along a new dim ``dim``; all tensors must have the same shape and kind."""
        tensors = _check_list("stack", tensors)
        rank = tensors[0]._data.dim() + 1
        if not -rank <= dim < rank:
            raise IndexError(f"stack: dimension {dim} is out of range for rank {rank}")
        return applyn(S.STACK, tensors, (dim % rank,))

    # ========================================================================== indexing ====
    def select(self, dim: int, indices) -> "Tensor":
        """Entries at Int ``indices`` (rank 1) along ``dim``; repeated indices accumulate gradients."""
        idx = _as_index_tensor(indices, self, "select")
        if idx.dim() != 1:
            raise ValueError(f"select: indices must have rank 1, got shape {list(idx.shape)}")
        return apply1(I.SELECT, self, (self._dim(dim), idx))

    def gather(self, dim: int, indices) -> "Tensor":
        """``out[i][j] = self[indices[i][j]][j]`` (for dim 0); indices have this tensor's rank."""
        idx = _as_index_tensor(indices, self, "gather")
        if idx.dim() != self._data.dim():
            raise ValueError(f"gather: indices of shape {list(idx.shape)} must have the rank of "
                             f"the tensor, shape {self.dims()}")
        return apply1(I.GATHER, self, (self._dim(dim), idx))

    def mask_fill(self, mask: "Tensor", value) -> "Tensor":
        """``value`` where the Bool ``mask`` is set, else self; no gradient flows to filled entries."""
        return apply1(I.MASK_FILL, self, (_as_mask(mask, "mask_fill"), value))

    def mask_where(self, mask: "Tensor", values: "Tensor") -> "Tensor":
        """``values`` where the Bool ``mask`` is set, else self (note: torch.where's order differs)."""
        m = _as_mask(mask, "mask_where")
        if not isinstance(values, Tensor):
            raise TypeError("mask_where: values must be a Tensor")
        if values._data.dtype is not self._data.dtype:
            _same_kind("mask_where", self, values)
        return apply2(I.MASK_WHERE, self, values, (m,))

    # ======================================================================= comparisons ====
    def equal(self, other: "Tensor") -> "Tensor":
        return _binary(C.EQUAL, self, other)

    def not_equal(self, other: "Tensor") -> "Tensor":
        return _binary(C.NOT_EQUAL, self, other)

    def greater(self, other: "Tensor") -> "Tensor":
        return _binary(C.GREATER, self, other)

    def greater_equal(self, other: "Tensor") -> "Tensor":
        return _binary(C.GREATER_EQUAL, self, other)

    def lower(self, other: "Tensor") -> "Tensor":
        return _binary(C.LOWER, self, other)

    def lower_equal(self, other: "Tensor") -> "Tensor":
        return _binary(C.LOWER_EQUAL, self, other)

    def equal_elem(self, value) -> "Tensor":
        return apply1(C.EQUAL, self, (value,))

    def not_equal_elem(self, value) -> "Tensor":
        return apply1(C.NOT_EQUAL, self, (value,))

    def greater_elem(self, value) -> "Tensor":
        return apply1(C.GREATER, self, (value,))

    def greater_equal_elem(self, value) -> "Tensor":
        return apply1(C.GREATER_EQUAL, self, (value,))

    def lower_elem(self, value) -> "Tensor":
        return apply1(C.LOWER, self, (value,))

    def lower_equal_elem(self, value) -> "Tensor":
        return apply1(C.LOWER_EQUAL, self, (value,))

    def all_close(self, other: "Tensor", rtol: float = 1e-5, atol: float = 1e-8) -> bool:
        """Whether all values are close (``torch.allclose``), as a Python bool."""
        return bool(torch.allclose(self._data, other._data, rtol=rtol, atol=atol))


def _operator(op, scalar_op, x: Tensor, other):
    """Operator dispatch: a Tensor operand goes to ``op``, a Python number to ``scalar_op``."""
    if isinstance(other, Tensor):
        if op is None:
            return NotImplemented
        return _binary(op, x, other)
    if isinstance(other, _Number) and not isinstance(other, complex):
        return _scalar(scalar_op, x, other.item() if hasattr(other, "item") else other)
    return NotImplemented


def _check_shape(shape) -> list[int]:
    if isinstance(shape, Shape):
        return list(shape.dims)
    dims = [int(d) for d in shape]
    if any(d < 0 for d in dims):
        raise ValueError(f"shape dims must be non-negative, got {dims}")
    return dims


def _check_list(what: str, tensors) -> list[Tensor]:
    tensors = list(tensors)
    if not tensors:
        raise ValueError(f"{what} needs at least one tensor")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}: expected Tensors, got {type(t).__name__}")
    first = tensors[0]
    for t in tensors[1:]:
        if t._data.dtype is not first._data.dtype:
            _same_kind(what, first, t)
    return tensors


record.bind_tensor_class(Tensor)
