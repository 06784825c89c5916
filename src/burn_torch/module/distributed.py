"""``Module.distributed()``: every trainable parameter marked for data-parallel gradient sync."""
from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from ..autodiff.distributed_leaf import mark
from .param import Param
from .visitor import ModuleMapper, PathTracker

if TYPE_CHECKING:  # annotations only: this layer sits below Module
    from .module import Module

_M = TypeVar("_M", bound="Module")  # what goes in comes out: the caller's module class


class _Distribute(PathTracker, ModuleMapper):
    """Marks each Float parameter under its own ParamId, named by its dotted path.

    Sync positions follow the reverse of the traversal order (a model's last layers usually get
    their gradients first in backward), the same on every rank for the same model; a Param
    shared by several attributes is marked once.
    """

    def __init__(self) -> None:
        super().__init__()
        self.marked: dict = {}

    def map_float(self, param: Param) -> Param:
        done = self.marked.get(param.id)
        if done is None:
            value = mark(param.val(), param.id, -len(self.marked), self.path())
            done = param if value is param.val() else Param._make(param.id, value, param.is_trainable())
            self.marked[param.id] = done
        return done


def distribute(module: _M) -> _M:
    """See ``Module.distributed``."""
    return module.map(_Distribute())
