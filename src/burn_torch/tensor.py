"""The public Tensor: an immutable value over a torch storage tensor, with Burn's autodiff API.

A tensor is three things: ``_data``, the torch storage (never ``requires_grad``, never with a
``grad_fn``); ``_ctx``, its autodiff context (``None`` when it has no autodiff association,
otherwise its ``GradientCheckpointingStrategy``); and ``_node``, its place in the recorded
graph (``None`` when it is not tracked). Its kind (Float, Int, Bool) follows from the storage
dtype. Every op goes through the op table (``burn_torch.ops``) and the recorder
(``burn_torch.autodiff.recorder``).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import torch

from . import validate
from .autodiff import recorder
from .autodiff.engine import run_backward
from .autodiff.gradients import Gradients
from .autodiff.graph import GRAD, new_leaf
from .autodiff.recorder import apply1, wrap
from .tensor_data import TensorData, as_torch
from .device import Device, GradientCheckpointingStrategy, generator
from .autodiff.distributed_leaf import DistributedLeaf
from .autodiff.distributed_leaf import mark as _mark_distributed
from .distribution import Distribution, as_distribution
from .dtype import Bool, DType, Float, Int, Kind, kind_of, resolve_dtype, resolve_kind
from .errors import (AutodiffDisabledError, GradientAutodiffError, NonLeafRequireGradError,
                     NotTrackedError, UnsupportedAutodiffFeatureError)
from .methods.aggregate import AggregateMethods
from .methods.arithmetic import ArithmeticMethods
from .methods.bitwise import BitwiseMethods
from .methods.creation import CreationMethods
from .methods.data import DataMethods
from .methods.rearrange import RearrangeMethods
from .methods.sampling import SamplingMethods
from .methods.base import require_float
from .methods.compare import CompareMethods
from .methods.index import IndexMethods
from .methods.reduce import ReduceMethods
from .methods.shape import ShapeMethods
from .ops import convert as convert_ops
from .tensor_shape import Shape
from . import torch_spellings


def _check_device(device) -> Device:
    if not isinstance(device, Device):
        raise TypeError(f"expected a burn_torch.Device, got {device!r}")
    return device


def _check_shape(op: str, shape) -> list[int]:
    """A creation shape: non-negative ints (TypeError for ``[2.5]``, ValueError for ``[-1]``)."""
    if isinstance(shape, Shape):
        return list(shape.dims)
    return validate.shape(op, shape)


def _check_grads(op: str, grads) -> None:
    if not isinstance(grads, Gradients):
        raise TypeError(f"Tensor.{op}: expected the Gradients container returned by backward() "
                        f"(grads = loss.backward(); x.{op}(grads)), got {type(grads).__name__}")


class Tensor(ArithmeticMethods, ReduceMethods, ShapeMethods, IndexMethods, CompareMethods,
             AggregateMethods, RearrangeMethods, BitwiseMethods, CreationMethods, SamplingMethods,
             DataMethods):
    """A Burn tensor over torch storage. Tensors are immutable values; ``clone()`` is cheap.

    Float tensors take part in autodiff: see [`is_autodiff`][burn_torch.tensor.Tensor.is_autodiff],
    [`is_tracked`][burn_torch.tensor.Tensor.is_tracked],
    [`is_require_grad`][burn_torch.tensor.Tensor.is_require_grad] and
    [`gradient_checkpointing_strategy`][burn_torch.tensor.Tensor.gradient_checkpointing_strategy]
    for the four properties, which always satisfy ``is_require_grad() ⇒ is_tracked() ⇒
    is_autodiff()`` and ``(gradient_checkpointing_strategy() is not None) == is_autodiff()``.
    """

    __slots__ = ("_data", "_ctx", "_node", "__weakref__")
    __array_priority__ = 1000  # numpy scalars on the left defer to our operators
    __array_ufunc__ = None  # numpy arrays on the left defer too (our operators then raise)

    def __init__(self, *args, **kwargs) -> None:
        raise TypeError("create tensors with Tensor.from_data, Tensor.zeros, Tensor.ones, ... "
                        "(see the API reference: docs/api/tensor.md)")

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
        kind = None if kind is None else resolve_kind(kind)
        copy_needed = isinstance(data, (torch.Tensor, np.ndarray, TensorData))
        target = None
        if dtype is not None:
            target = resolve_dtype(dtype, Float)
            if kind is not None and kind_of(target) is not kind:
                raise TypeError(f"dtype {dtype} does not belong to kind {kind}")
        t = as_torch(data, target)  # lists convert straight to the target: no f32 detour
        if target is None and kind is not None and kind_of(t.dtype) is not kind:
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
        """A tensor of ``shape`` filled with ``value``, carrying ``device``'s autodiff context.

        TypeError for a shape entry that is not an int or a value that is not a number,
        ValueError for a negative size."""
        return cls._filled("full", shape, validate.real("full", "value", value), device, kind, dtype)

    @classmethod
    def zeros(cls, shape: Sequence[int], device: Device, kind: Kind = Float,
              dtype: "DType | None" = None) -> "Tensor":
        """A tensor of zeros; see [`full`][burn_torch.tensor.Tensor.full]."""
        return cls._filled("zeros", shape, 0, device, kind, dtype)

    @classmethod
    def ones(cls, shape: Sequence[int], device: Device, kind: Kind = Float,
             dtype: "DType | None" = None) -> "Tensor":
        """A tensor of ones; see [`full`][burn_torch.tensor.Tensor.full]."""
        return cls._filled("ones", shape, 1, device, kind, dtype)

    @classmethod
    def _filled(cls, op: str, shape, value, device: Device, kind: Kind, dtype) -> "Tensor":
        device = _check_device(device)
        dims = _check_shape(op, shape)
        return cls._create(torch.full(dims, value, dtype=resolve_dtype(dtype, kind), device=device._torch),
                           device)

    @classmethod
    def arange(cls, start: int, end: int, device: Device, step: int = 1) -> "Tensor":
        """The Int tensor ``[start, start+step, ...)`` up to ``end`` (exclusive)."""
        device = _check_device(device)
        start, end = validate.integer("arange", "start", start), validate.integer("arange", "end", end)
        if validate.integer("arange", "step", step) == 0:
            raise ValueError("arange: step must not be 0")
        return cls._create(torch.arange(start, end, step, dtype=torch.int64, device=device._torch), device)

    @classmethod
    def random(cls, shape: Sequence[int], distribution: Distribution, device: Device,
               dtype: "DType | None" = None) -> "Tensor":
        """A Float tensor sampled from ``distribution`` with the device's generator (see Device.seed).
        TypeError (listing Burn's distributions) for anything but a Distribution or ``"default"``."""
        device = _check_device(device)
        dims = _check_shape("random", shape)
        distribution = as_distribution(distribution, "Tensor.random")
        t = distribution.sample(dims, resolve_dtype(dtype, Float), device._torch, generator(device._torch))
        return cls._create(t, device)

    def empty_like(self) -> "Tensor":
        """A tensor of this tensor's shape, dtype, device and autodiff context whose values are
        unspecified (uninitialised storage, as [`empty`][burn_torch.tensor.Tensor.empty]);
        untracked. Never raises. For defined values call
        [`zeros_like`][burn_torch.tensor.Tensor.zeros_like] or
        [`full_like`][burn_torch.tensor.Tensor.full_like]."""
        return wrap(torch.empty_like(self._data), self._ctx)

    def zeros_like(self) -> "Tensor":
        """Zeros of this tensor's shape, dtype, device and autodiff context; untracked."""
        return wrap(torch.zeros_like(self._data), self._ctx)

    def ones_like(self) -> "Tensor":
        """Ones of this tensor's shape, dtype, device and autodiff context; untracked."""
        return wrap(torch.ones_like(self._data), self._ctx)

    def full_like(self, value) -> "Tensor":
        """``value`` everywhere, with this tensor's shape, dtype, device and context; untracked."""
        return wrap(torch.full_like(self._data, validate.real("full_like", "value", value)), self._ctx)

    def random_like(self, distribution: Distribution) -> "Tensor":
        """Samples of this Float tensor's shape, dtype, device and context; untracked."""
        require_float(self, "random_like")
        distribution = as_distribution(distribution, "Tensor.random_like")
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
        """Whether this is a quantized float tensor (see
        [`quantize_dynamic`][burn_torch.tensor.Tensor.quantize_dynamic])."""
        return False

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

    # ============================================================ the torch boundary ====
    # Torch spellings name the burn_torch call (torch_spellings.py); no cost on the hot path.
    __torch_function__ = classmethod(torch_spellings.refuse_torch_function)

    def __setitem__(self, index, value) -> None:
        raise TypeError("'Tensor' object does not support item assignment: tensors are values; "
                        "write x = x.slice_assign(ranges, values) (one slice per leading dim: "
                        "x[0] = v is x.slice_assign([slice(0, 1)], v.unsqueeze_dim(0))), "
                        "x.slice_fill(ranges, value) or x.mask_fill(mask, value)")

    def __dir__(self) -> list[str]:
        return torch_spellings.public_dir(self)

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
        tensor require gradients (see [`require_grad`][burn_torch.tensor.Tensor.require_grad]).
        Never raises.
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

    def no_grad(self) -> "Tensor":
        """This tensor taken off autodiff, wherever it came from (Burn's ``no_grad``).

        Preserves: the values, dtype and device. Cuts: the autodiff association, the strategy
        and any graph reference, so later ops on the result are never recorded. A tensor without
        autodiff is returned as is. Never raises: unlike
        [`detach`][burn_torch.tensor.Tensor.detach], which keeps the tensor on autodiff (a new
        lineage), the result has no association at all; it is
        [`without_autodiff`][burn_torch.tensor.Tensor.without_autodiff] under the name Burn gives it
        for code (batchers, metrics) that must guarantee a tensor is off the tape.
        """
        return self.without_autodiff()

    def inner(self) -> "Tensor":
        """Same as [`without_autodiff`][burn_torch.tensor.Tensor.without_autodiff] (Burn's
        backend-decorator name)."""
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
        """``True``: same as [`require_grad`][burn_torch.tensor.Tensor.require_grad] (and raises as
        it does).

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
        return apply1(convert_ops.TO_DEVICE, self, (target, self._data.device))

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
        ``retain_graph`` nor ``create_graph``). An exception raised by a backward rule (a
        kernel's ``torch.OutOfMemoryError``, a custom rule's own error) reaches the caller as
        itself, of its own class, with a note naming the op, the step and the shapes; the graph
        is then consumed.
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
        seed = torch.ones_like(self._data)
        return Gradients(run_backward(node, seed))

    def grad(self, grads: Gradients) -> "Tensor | None":
        """This tensor's retained gradient in ``grads``, without autodiff association, or None.

        None when the tensor has no autodiff, does not retain gradients, or is absent from
        ``grads``. Repeated calls return handles to the same gradient. Raises TypeError when
        ``grads`` is not a Gradients container.
        """
        if grads.__class__ is not Gradients:
            _check_grads("grad", grads)
        node = self._node
        if node is None or node.requirement != GRAD:
            return None
        g = grads._grads.get(node.id)
        if g is None:
            return None
        t = Tensor.__new__(Tensor)
        t._data = g
        t._ctx = t._node = None
        return t

    def grad_remove(self, grads: Gradients) -> "Tensor | None":
        """Removes and returns this tensor's retained gradient from ``grads`` (None as in
        [`grad`][burn_torch.tensor.Tensor.grad])."""
        _check_grads("grad_remove", grads)
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
        _check_grads("grad_replace", grads)
        if self._ctx is None:
            raise AutodiffDisabledError(
                "Tensor.grad_replace requires a tensor with autodiff; call Tensor.autodiff() first")
        if not isinstance(grad, Tensor):
            raise TypeError(f"grad_replace expects a Tensor gradient, got {validate.type_name(grad)}")
        if grad._ctx is not None:
            raise GradientAutodiffError(
                "Tensor.grad_replace: the replacement gradient has an autodiff association; "
                "pass grad.without_autodiff()")
        require_float(self, "grad_replace")
        require_float(grad, "grad_replace")
        if grad._data.shape != self._data.shape:
            raise ValueError(f"grad_replace: gradient shape {grad.dims()} does not match tensor shape "
                             f"{self.dims()}")
        node = self._node
        if node is not None:
            grads._grads[node.id] = grad._data

    # ====================================================================== distributed ====
    def set_distributed(self, param_id) -> "Tensor":
        """Returns this tensor marked distributed under ``param_id`` (a ParamId or int), as Burn's.

        Backward then averages the gradient of this leaf across the ranks of the
        torch.distributed process group, launching the all-reduce as soon as the gradient is
        complete (see ``burn_torch.distributed``). Every rank must mark the same parameters
        under the same ids. The result is a handle on the same leaf (same gradient slot);
        ``clone()`` keeps the mark, ``detach()`` and ``set_require_grad(False)`` drop it. A no-op
        without autodiff and on an untracked tensor (no gradient to synchronise).

        Raises TypeError for a non-Float tensor or another id type, and DistributedError for a
        tracked intermediate.
        """
        return _mark_distributed(self, param_id)

    def is_distributed(self) -> bool:
        """Whether this tensor is a leaf marked with
        [`set_distributed`][burn_torch.tensor.Tensor.set_distributed]."""
        return self._node.__class__ is DistributedLeaf

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
            return apply1(convert_ops.CAST, self, (target,))
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
        return _quantizer(self, scheme)

    def quantize(self, scheme, qparams) -> "Tensor":
        """Quantizes this Float tensor with ``scheme`` and the given
        ``QuantizationParameters`` (its ``scales``), Burn's non-dynamic form."""
        return _quantizer_with_params(self, scheme, qparams)

    def dequantize(self) -> "Tensor":
        """This tensor as a plain float tensor (returns self when not quantized)."""
        return self


recorder.bind_tensor_class(Tensor)
torch_spellings.install(Tensor)

# Bound by bind_quantizer when burn_torch.quantization is imported (the package's __init__ does,
# before any Tensor exists): quantization.quantize and quantization.quantize_with_params.
_quantizer: Callable[..., Tensor]
_quantizer_with_params: Callable[..., Tensor]


def bind_quantizer(fn, with_params=None) -> None:
    """Lets ``Tensor.quantize_dynamic`` and ``Tensor.quantize`` reach the quantization module,
    which imports this one."""
    global _quantizer, _quantizer_with_params
    _quantizer = fn
    _quantizer_with_params = with_params
