"""Copying a module under new parameter identities (a target network beside its online one).

``Module.clone()``, ``copy.deepcopy`` and every transformation keep each parameter's
``ParamId``, as Burn's ``Module::clone`` does: a copy *is* the same parameters. A second
network kept inside the trained module (BYOL's and MoCo's target, a DQN target kept beside the
Q-network) must be other parameters, or gradient extraction and the optimizer refuse the module
(``TiedParamError``: one id at two paths). Burn has no built-in for this; the Burn way is a
``ModuleMapper`` whose ``map_float`` returns ``Param::initialized(ParamId::new(), tensor)``,
which is what [`NewParamIds`][burn_torch.module.new_ids.NewParamIds] is.
"""
from __future__ import annotations

from .param import Param, ParamId
from .visitor import ModuleMapper


class NewParamIds(ModuleMapper):
    """``module.map(NewParamIds())``: the module with a fresh ``ParamId`` for every parameter.

    Preserves: the values (shared storage), devices, autodiff associations, strategies and each
    parameter's configured trainability. Cuts: the identity, and the graph: a ``require_grad()``
    leaf becomes a new, separate leaf, so gradients of the copy never reach the original's
    slot (nor the other way round). Int and Bool parameters get new ids too. Never raises.
    """

    def map_float(self, param: Param) -> Param:
        return Param._make(ParamId.new(), param.val().detach(), param.is_trainable())

    map_int = map_bool = map_float
