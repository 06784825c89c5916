"""The container ``backward()`` returns."""
from __future__ import annotations

import torch


class Gradients:
    """The gradients one backward pass computed, keyed by the leaf's node.

    It holds only the gradients of leaves that retain them (``require_grad()``); intermediate
    gradients were freed during backward. Entries are plain torch tensors without any autodiff
    association, so the container pickles and can be read from another thread. Read it through
    ``Tensor.grad``, ``Tensor.grad_remove`` and ``Tensor.grad_replace``.
    """

    __slots__ = ("_grads",)

    def __init__(self, grads: "dict[int, torch.Tensor] | None" = None) -> None:
        self._grads = {} if grads is None else grads

    def __len__(self) -> int:
        return len(self._grads)

    def nbytes(self) -> int:
        """Bytes held by the gradients in this container."""
        return sum(g.numel() * g.element_size() for g in self._grads.values())

    def __getstate__(self):
        return {"grads": {k: v.cpu() if v.device.type != "cpu" else v for k, v in self._grads.items()},
                "devices": {k: str(v.device) for k, v in self._grads.items()}}

    def __setstate__(self, state):
        devices = state["devices"]
        self._grads = {k: v.to(devices[k]) if devices[k] != "cpu" else v for k, v in state["grads"].items()}

    def __repr__(self) -> str:
        n = len(self._grads)
        return f"Gradients({n} tensor{'' if n == 1 else 's'})"
