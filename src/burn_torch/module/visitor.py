"""How a module tree is walked: [`ModuleVisitor`][burn_torch.module.visitor.ModuleVisitor] reads it,
[`ModuleMapper`][burn_torch.module.visitor.ModuleMapper] rewrites it,
[`PathTracker`][burn_torch.module.visitor.PathTracker] gives either the dotted path of the current
child. ``Module.visit`` / ``Module.map`` drive them; records, files and tying are built on them,
below ``Module``.
"""
from __future__ import annotations

from ..tensor import Tensor
from .param import Param, TrainingFlag


class ModuleVisitor:
    """Reads a module tree. Override the hooks you need; the defaults do nothing.

    ``enter_module(name, container_type)`` / ``exit_module(...)`` bracket every named child
    (attribute names, list indices, dict keys), so a visitor can track the dotted path of the
    parameter it visits. ``container_type`` is the parent's type name (``"Mlp"``, ``"list"``...).
    """

    def enter_module(self, name: str, container_type: str) -> None:
        pass

    def exit_module(self, name: str, container_type: str) -> None:
        pass

    def visit_float(self, param: Param) -> None:
        pass

    def visit_int(self, param: Param) -> None:
        pass

    def visit_bool(self, param: Param) -> None:
        pass

    def visit_training(self, flag: TrainingFlag) -> None:
        pass


class ModuleMapper:
    """Rewrites a module tree. Override the hooks you need; the defaults return their input.

    Each ``map_*`` hook receives a child and returns its replacement (a
    [`Param`][burn_torch.module.param.Param] keeps its id when built with ``param.map(...)`` /
    ``param.set_require_grad(...)``). ``map_constant`` receives bare Tensor attributes (constants,
    not parameters). Path hooks as in [`ModuleVisitor`][burn_torch.module.visitor.ModuleVisitor].
    """

    def enter_module(self, name: str, container_type: str) -> None:
        pass

    def exit_module(self, name: str, container_type: str) -> None:
        pass

    def map_float(self, param: Param) -> Param:
        return param

    def map_int(self, param: Param) -> Param:
        return param

    def map_bool(self, param: Param) -> Param:
        return param

    def map_training(self, flag: TrainingFlag) -> TrainingFlag:
        return flag

    def map_constant(self, tensor: Tensor) -> Tensor:
        return tensor


class PathTracker:
    """Mixin for visitors/mappers: ``self.path()`` is the dotted name of the current child."""

    def __init__(self) -> None:
        self._path: list[str] = []

    def enter_module(self, name: str, container_type: str) -> None:
        self._path.append(name)

    def exit_module(self, name: str, container_type: str) -> None:
        self._path.pop()

    def path(self) -> str:
        return ".".join(self._path)
