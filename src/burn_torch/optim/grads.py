"""``GradientsParams``: a backward pass's gradients re-keyed by the modules' ParamIds."""
from __future__ import annotations

from typing import Iterable, Iterator

import torch

from .. import validate
from ..autodiff.gradients import Gradients
from ..autodiff.recorder import wrap
from ..device import Device
from ..module import Module, ModuleVisitor, Param, ParamId
from ..module.tying import tied_param_error
from ..tensor import Tensor


def check_gradient(what: str, name: str, pid: ParamId, param: torch.Tensor, grad: torch.Tensor) -> None:
    """Raises unless ``grad`` fits ``param`` (the storage of parameter ``pid``, called ``name``):
    TypeError for another dtype, ValueError for another shape or device."""
    where = f"(ParamId {pid}); nothing was updated"
    if grad.dtype is not param.dtype:
        raise TypeError(f"{what}: the gradient of {name} has dtype {grad.dtype}, the parameter "
                        f"{param.dtype} {where}; cast the gradient with .cast(...) first")
    if grad.shape != param.shape:
        raise ValueError(f"{what}: the gradient of {name} has shape {list(grad.shape)}, the "
                         f"parameter {list(param.shape)} {where}")
    if grad.device != param.device:
        raise ValueError(f"{what}: the gradient of {name} is on {grad.device}, the parameter on "
                         f"{param.device} {where}; move the gradient with .to_device(...) first")


class _Select(ModuleVisitor):
    """Collects the (selected) Float parameters, each id once, noting the first id met twice."""

    def __init__(self, only: set | None) -> None:
        self.only = only
        self.params: dict[ParamId, object] = {}
        self.tied: ParamId | None = None

    def visit_float(self, param) -> None:
        pid = param._id
        if self.only is not None and pid not in self.only:
            return
        if pid in self.params:
            self.tied = self.tied or pid
        else:
            self.params[pid] = param


class GradientsParams:
    """Gradients keyed by ``ParamId``, ready for an optimizer step.

    Entries are tensors without autodiff association. Build it with
    [`from_grads`][burn_torch.optim.grads.GradientsParams.from_grads] (all of a module's
    parameters), [`from_module`][burn_torch.optim.grads.GradientsParams.from_module] (a
    sub-module's) or [`from_params`][burn_torch.optim.grads.GradientsParams.from_params] (chosen
    ids); each *removes* the gradients it takes from the ``Gradients`` container, so a final
    ``from_grads`` catches the rest. Optimizer steps remove the entries they use.
    """

    __slots__ = ("_grads",)

    def __init__(self) -> None:
        self._grads: dict[ParamId, torch.Tensor] = {}

    @classmethod
    def from_grads(cls, grads: Gradients, module: Module) -> "GradientsParams":
        """Every gradient of ``module``'s parameters, removed from ``grads``.

        Raises TiedParamError (a ValueError), before removing anything, when one parameter is
        reachable at two paths of ``module`` (see ``burn_torch.module.tying``).
        """
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
        select = _Select(only)
        module.visit(select)
        if select.tied is not None:
            raise tied_param_error("GradientsParams.from_grads", module, select.tied)
        out = cls()
        kept = out._grads
        for pid, param in select.params.items():
            g = param._value.grad_remove(grads)
            if g is not None:
                kept[pid] = g._data
        return out

    def get(self, id: ParamId) -> Tensor | None:
        """The gradient of parameter ``id`` (no autodiff association), or None."""
        g = self._grads.get(id)
        return None if g is None else wrap(g, None)

    def remove(self, id: ParamId) -> Tensor | None:
        """Removes and returns the gradient of parameter ``id``, or None."""
        g = self._grads.pop(id, None)
        return None if g is None else wrap(g, None)

    def register(self, id: ParamId, grad: Tensor, param: "Param | Tensor | None" = None) -> None:
        """Sets the gradient of parameter ``id`` (replacing any); the association is dropped.

        Raises TypeError for another id type or a gradient that is not a Float Tensor. Given
        the parameter (a Param or its tensor), also checks the gradient against it: TypeError
        for another dtype, ValueError for another shape or device. Without it the optimizer
        step makes those checks (naming the parameter's path) before updating anything.
        """
        if not isinstance(id, ParamId):
            raise TypeError(f"register: expected a ParamId, got {type(id).__name__}")
        if not isinstance(grad, Tensor):
            raise TypeError(f"register: the gradient of {id} must be a Tensor, got {validate.type_name(grad)}")
        data = grad.to_torch()
        if not data.is_floating_point():
            raise TypeError(f"register: the gradient of {id} must be a Float tensor, got {grad.kind}")
        if param is not None:
            value = param.val() if isinstance(param, Param) else param
            if not isinstance(value, Tensor):
                raise TypeError(f"register: param must be a Param or a Tensor, got {type(param).__name__}")
            if isinstance(param, Param) and param.id != id:
                raise ValueError(f"register: the gradient is for {id}, the Param given is {param.id}")
            check_gradient("register", "the parameter", id, value.to_torch(), data)
        self._grads[id] = data

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
