"""Parameters: identified values a module owns (Burn's ``Param``, ``ParamId`` and ``TrainingFlag``).

A [`Param`][burn_torch.module.param.Param] pairs a stable ``ParamId`` with a tensor and with its
*configured* trainability. The configuration is kept apart from the tensor's effective state so that
``valid()`` (which drops autodiff) and ``train()`` (which restores it) round-trip: a frozen
parameter stays frozen and a trainable one becomes a ``require_grad()`` leaf again. Params are
immutable values; every transformation returns a new Param with the same id.
"""
from __future__ import annotations

from typing import Callable

from ..device import Device
from ..dtype import Float
from ..param_id import ParamId
from ..tensor import Tensor


class Param:
    """A module parameter: a stable ``ParamId``, a tensor and a configured trainability.

    ``Param(value)`` (or [`from_tensor`][burn_torch.module.param.Param.from_tensor]) is trainable:
    on an autodiff tensor the value becomes a ``require_grad()`` leaf; on a plain tensor the setting
    is kept and takes effect at ``Module.train()``. Int and Bool parameters are never trainable.
    Unknown attributes are looked up on the tensor (Burn's ``Deref``), so ``param.dims()`` works.
    """

    __slots__ = ("_id", "_value", "_active")

    def __init__(self, value: Tensor, id: ParamId | None = None, require_grad: bool = True) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"a Param holds a burn_torch Tensor, got {type(value).__name__}")
        if id is not None and not isinstance(id, ParamId):
            raise TypeError(f"id must be a ParamId, got {type(id).__name__}")
        active = bool(require_grad) and value.kind is Float
        self._id = ParamId.new() if id is None else id
        self._value = _effective(value, active)
        self._active = active

    # -- constructors ---------------------------------------------------------------------------
    @classmethod
    def from_tensor(cls, value: Tensor) -> "Param":
        """A new trainable parameter holding ``value`` (see the class docstring)."""
        return cls(value)

    @classmethod
    def from_data(cls, data, device: Device) -> "Param":
        """A new trainable Float parameter from data (nested lists, numpy, TensorData, torch)."""
        return cls(Tensor.from_data(data, device))

    @classmethod
    def initialized(cls, id: ParamId, value: Tensor) -> "Param":
        """A parameter with ``id`` whose trainability is the tensor's ``is_require_grad()``."""
        return cls(value, id, value.is_require_grad())

    @classmethod
    def _make(cls, id: ParamId, value: Tensor, active: bool) -> "Param":
        p = object.__new__(cls)
        p._id = id
        p._value = value
        p._active = active
        return p

    # -- access ---------------------------------------------------------------------------------
    @property
    def id(self) -> ParamId:
        """The parameter's identity, kept by every module and optimizer transformation."""
        return self._id

    def val(self) -> Tensor:
        """The parameter's tensor (a handle to the same values and graph leaf)."""
        return self._value

    def into_value(self) -> Tensor:
        """Same as [`val`][burn_torch.module.param.Param.val] (Burn consumes the Param)."""
        return self._value

    def consume(self) -> tuple[ParamId, Tensor]:
        """``(id, tensor)``."""
        return self._id, self._value

    def is_trainable(self) -> bool:
        """The configured trainability ``train()`` restores (not the tensor's current state)."""
        return self._active

    def is_require_grad(self) -> bool:
        """Whether the tensor currently retains its gradient (its effective state)."""
        return self._value.is_require_grad()

    # -- transformations ------------------------------------------------------------------------
    def set_require_grad(self, require_grad: bool) -> "Param":
        """Returns this parameter (same id) configured as trainable or frozen.

        ``True`` makes an autodiff Float tensor a ``require_grad()`` leaf (a plain tensor keeps
        the setting for ``train()``); ``False`` gives the tensor a new untracked lineage.
        Int/Bool parameters are returned unchanged.
        """
        if self._value.kind is not Float:
            return self
        active = bool(require_grad)
        return Param._make(self._id, _effective(self._value, active), active)

    def map(self, func: Callable[[Tensor], Tensor]) -> "Param":
        """Returns a parameter with the same id and configured trainability holding ``func(val())``."""
        value = func(self._value)
        if not isinstance(value, Tensor):
            raise TypeError(f"Param.map: the function must return a Tensor, got {type(value).__name__}")
        return Param._make(self._id, value, self._active and value.kind is Float)

    def clone(self) -> "Param":
        """A handle to the same parameter (Params are immutable values)."""
        return self

    def distributed(self) -> "Param":
        """This parameter with its tensor marked distributed under its own id (see
        ``Tensor.set_distributed``); Int and Bool parameters are returned unchanged."""
        if self._value.kind is not Float:
            return self
        return Param._make(self._id, self._value.set_distributed(self._id), self._active)

    # -- display / delegation -------------------------------------------------------------------
    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._value, name)

    def __repr__(self) -> str:
        v = self._value
        return (f"Param(id={self._id}, shape={v.dims()}, kind={v.kind}, dtype={v.dtype().name}, "
                f"trainable={self._active}, require_grad={v.is_require_grad()})")

    def __reduce__(self):
        return (Param._make, (self._id, self._value, self._active))


def _effective(value: Tensor, active: bool) -> Tensor:
    """The tensor state a parameter with trainability ``active`` holds now."""
    if value.kind is not Float:
        return value
    if not active:
        return value.set_require_grad(False)
    if value.is_autodiff() and not value.is_require_grad():
        return value.require_grad()
    return value


class TrainingFlag:
    """Whether the layer holding it behaves as during training (dropout, noise, ...).

    Layers without parameters read ``is_training()``. ``trainable`` is what the caller asked for
    (``no_grad()`` clears it); ``training`` is what the layer reads now: ``valid()`` clears it and
    ``train()`` restores it from ``trainable``. It has an id so module traversals can name it, and
    it is not part of records. Immutable.
    """

    __slots__ = ("_id", "_trainable", "_training")

    def __init__(self, training: bool = True, id: ParamId | None = None) -> None:
        self._id = ParamId.new() if id is None else id
        self._trainable = bool(training)
        self._training = bool(training)

    @classmethod
    def _make(cls, id: ParamId, trainable: bool, training: bool) -> "TrainingFlag":
        f = object.__new__(cls)
        f._id = id
        f._trainable = trainable
        f._training = training
        return f

    @property
    def id(self) -> ParamId:
        return self._id

    def is_training(self) -> bool:
        """Whether the layer should behave as during training right now."""
        return self._training

    def is_trainable(self) -> bool:
        """Whether the caller wants the layer trained (what ``train()`` restores)."""
        return self._trainable

    def with_value(self, training: bool) -> "TrainingFlag":
        """The same flag (same id) set to ``training`` now and after later ``train()`` calls."""
        return TrainingFlag._make(self._id, bool(training), bool(training))

    def valid(self) -> "TrainingFlag":
        """The flag of an inference module: not training, configuration kept."""
        return TrainingFlag._make(self._id, self._trainable, False)

    def train(self) -> "TrainingFlag":
        """The flag restored to its configuration."""
        return TrainingFlag._make(self._id, self._trainable, self._trainable)

    def __repr__(self) -> str:
        return f"TrainingFlag({'train' if self._training else 'eval'}, trainable={self._trainable})"

    def __reduce__(self):
        return (TrainingFlag._make, (self._id, self._trainable, self._training))
