"""Distributed marking: a parameter leaf whose gradient backward averages across ranks.

``Tensor.set_distributed(param_id)`` (Burn's ``set_distributed``) replaces a ``require_grad()``
leaf's node by a [`DistributedLeaf`][burn_torch.autodiff.distributed_leaf.DistributedLeaf]: the same
node id (so the same gradient slot), plus the parameter's identity, its place in the order every
rank synchronises in and its device. Tensors are values, so the marked tensor is a new handle; other
handles keep the unmarked leaf.

``registry`` maps each marked ParamId to its latest leaf, weakly: it is how a rank knows the
distributed parameters it did *not* reach in a backward (see ``sync``), and an entry disappears
with the last tensor holding its leaf.
"""
from __future__ import annotations

import weakref

import torch

from ..errors import DistributedError
from ..param_id import ParamId
from .graph import Node
from .recorder import wrap

registry: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()  # ParamId -> DistributedLeaf


class DistributedLeaf(Node):
    """A ``require_grad()`` leaf whose gradient is averaged across ranks by backward.

    ``param_id``: the ParamId every rank knows the parameter by; ``order``: the sync position
    (syncs run by ``(order, param_id)``, the same on every rank); ``name``: what messages call
    it; ``device``: the torch device of its values.
    """

    __slots__ = ("param_id", "order", "name", "device", "__weakref__")

    def __init__(self, leaf: Node, param_id, order: int, name: str, device: torch.device) -> None:
        super().__init__(None, None, None, leaf.shape, leaf.dtype)
        self.requirement = leaf.requirement
        self.id = leaf.id
        self.param_id = param_id
        self.order = order
        self.name = name
        self.device = device

    def __repr__(self) -> str:
        return f"DistributedLeaf(#{self.id} {self.name})"


def mark(tensor, param_id, order: int = 0, name: str | None = None):
    """Returns ``tensor`` marked distributed under ``param_id`` (see ``Tensor.set_distributed``).

    A tensor without autodiff, or an untracked one, has no gradient to synchronise: it is
    returned unchanged. Raises TypeError for a non-Float tensor or a ``param_id`` that is not a
    ParamId (or int), and DistributedError for a tracked intermediate.
    """
    if isinstance(param_id, int) and not isinstance(param_id, bool):
        param_id = ParamId(param_id)
    if not isinstance(param_id, ParamId):
        raise TypeError(f"set_distributed expects a ParamId, got {type(param_id).__name__}")
    data = tensor._data
    if not data.is_floating_point():
        raise TypeError(f"set_distributed needs a Float tensor, got {tensor.kind}")
    node = tensor._node
    if tensor._ctx is None or node is None:
        return tensor
    if node.op is not None:
        raise DistributedError(
            f"set_distributed on a tracked intermediate ({node.op.name}): only parameter leaves "
            "have gradients to synchronise; mark the require_grad() leaf before the forward pass")
    name = name or repr(param_id)
    if (node.__class__ is DistributedLeaf and node.param_id == param_id and node.order == order
            and node.name == name):
        return tensor
    leaf = DistributedLeaf(node, param_id, order, name, data.device)
    registry[param_id] = leaf
    return wrap(data, tensor._ctx, leaf)


def carry_mark(old, new, param_id=None):
    """``new`` marked as ``old`` is: under ``old``'s ParamId (or ``param_id``), sync position and
    name; ``new`` itself when ``old`` is not marked. For what replaces a marked parameter's
    values with a fresh leaf: a broadcast, an optimizer step."""
    node = old._node
    if node.__class__ is not DistributedLeaf:
        return new
    return mark(new, node.param_id if param_id is None else param_id, node.order, node.name)
