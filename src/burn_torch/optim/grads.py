"""``GradientsParams``: a backward pass's gradients re-keyed by the modules' ParamIds."""
from __future__ import annotations

from typing import Iterable, Iterator

import torch

from ..autodiff.gradients import Gradients
from ..autodiff.recorder import wrap
from ..device import Device
from ..module import Module, ModuleVisitor, ParamId
from ..tensor import Tensor


class _Extract(ModuleVisitor):
    """Moves each (selected) Float parameter's gradient from a Gradients container."""

    def __init__(self, grads: Gradients, out: "GradientsParams", only: set | None) -> None:
        self.grads = grads
        self.out = out
        self.only = only

    def visit_float(self, param) -> None:
        if self.only is not None and param.id not in self.only:
            return
        g = param.val().grad_remove(self.grads)
        if g is not None:
            self.out._grads[param.id] = g.to_torch()


class GradientsParams:
    """Gradients keyed by :class:`ParamId`, ready for an optimizer step.

    Entries are tensors without autodiff association. Build it with :meth:`from_grads` (all of a
    module's parameters), :meth:`from_module` (a sub-module's) or :meth:`from_params` (chosen
    ids); each *removes* the gradients it takes from the ``Gradients`` container, so a final
    ``from_grads`` catches the rest. Optimizer steps remove the entries they use.
    """

    __slots__ = ("_grads",)

    def __init__(self) -> None:
        self._grads: dict[ParamId, torch.Tensor] = {}

    @classmethod
    def from_grads(cls, grads: Gradients, module: Module) -> "GradientsParams":
        """Every gradient of ``module``'s parameters, removed from ``grads``."""
        return cls.from_module(grads, module)

    @classmethod
    def from_module(cls, grads: Gradients, module: Module) -> "GradientsParams":
        """The gradients of ``module``'s parameters (any sub-module works), removed from ``grads``."""
        return cls._extract(grads, module, None)

    @classmethod
    def from_params(cls, grads: Gradients, module: Module, ids: Iterable[ParamId]) -> "GradientsParams":
        """The gradients of the parameters of ``module`` whose ids are in ``ids``, removed from ``grads``."""
        return cls._extract(grads, module, set(ids))

    @classmethod
    def _extract(cls, grads, module, only) -> "GradientsParams":
        if not isinstance(grads, Gradients):
            raise TypeError(f"expected the Gradients returned by backward(), got {type(grads).__name__}")
        if not isinstance(module, Module):
            raise TypeError(f"expected a Module, got {type(module).__name__}")
        out = cls()
        module.visit(_Extract(grads, out, only))
        return out

    def get(self, id: ParamId) -> Tensor | None:
        """The gradient of parameter ``id`` (no autodiff association), or None."""
        g = self._grads.get(id)
        return None if g is None else wrap(g, None)

    def remove(self, id: ParamId) -> Tensor | None:
        """Removes and returns the gradient of parameter ``id``, or None."""
        g = self._grads.pop(id, None)
        return None if g is None else wrap(g, None)

    def register(self, id: ParamId, grad: Tensor) -> None:
        """Sets the gradient of parameter ``id`` (replacing any); the association is dropped."""
        if not isinstance(id, ParamId):
            raise TypeError(f"expected a ParamId, got {type(id).__name__}")
        if not isinstance(grad, Tensor):
            raise TypeError(f"expected a Tensor gradient, got {type(grad).__name__}")
        self._grads[id] = grad.to_torch()

    def ids(self) -> list[ParamId]:
        return list(self._grads)

    def __contains__(self, id: object) -> bool:
        return id in self._grads

    def __iter__(self) -> Iterator[ParamId]:
        return iter(self._grads)

    def __len__(self) -> int:
        return len(self._grads)

    def is_empty(self) -> bool:
        return not self._grads

    def to_device(self, device: Device, module: Module) -> "GradientsParams":
        """Moves the gradients of ``module``'s parameters to ``device`` (in place); returns self."""
        target = device.torch
        for p in module.params():
            g = self._grads.get(p.id)
            if g is not None:
                self._grads[p.id] = g.to(target)
        return self

    def __repr__(self) -> str:
        return f"GradientsParams({len(self._grads)} tensors)"
