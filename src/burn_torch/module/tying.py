"""Weight tying: one parameter reachable at two paths of a module.

In Burn a module is a tree: each ``Param`` lives at one path. PyTorch ties weights by assigning
one ``nn.Parameter`` to two attributes (``decoder.weight = embedding.weight``); done the same way
here, the optimizer would update the parameter at its first path only (its gradient is taken
there), and the two paths would drift apart silently. So gradient extraction
(``GradientsParams.from_grads``) and optimizer steps refuse such a module with
``TiedParamError``, a ``ValueError`` (the module's structure is a bad value, not an
autodiff misuse), naming both paths. The Burn way to tie is to keep the parameter at one path
and compute both uses from it (e.g. ``x.matmul(self.embedding.weight.val().transpose())`` for
the output projection).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .param import ParamId

if TYPE_CHECKING:  # annotations only: this layer sits below Module
    from .module import Module


class TiedParamError(ValueError):
    """A parameter is reachable at two paths of one module (``.paths`` lists them all)."""

    def __init__(self, message: str, paths: list[str]) -> None:
        super().__init__(message)
        self.paths = paths


def tied_param_error(what: str, module: Module, pid: ParamId | None) -> TiedParamError:
    """The error for parameter ``pid`` of ``module``, which ``what`` met at two paths."""
    paths = [name for name, p in module.named_params() if p.id == pid]
    return TiedParamError(
        f"{what}: parameter {pid} is reachable at {len(paths)} paths of the module "
        f"({', '.join(paths)}); Burn modules are trees and the optimizer would update it at "
        f"{paths[0]} only, leaving the other paths stale. Keep the Param at {paths[0]} alone "
        f"and compute both uses from it (e.g. x.matmul(param.val().transpose()) for a tied "
        f"output projection) instead of assigning it to a second attribute; if the second path "
        f"is a copy meant as other parameters (copy.deepcopy keeps ids: a target network), give "
        f"the copy new ids with copy = module.map(NewParamIds())", paths)
