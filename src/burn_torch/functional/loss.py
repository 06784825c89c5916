"""Burn's ``tensor::loss`` functions. Each is one op-table entry (``burn_torch.ops``)."""
from __future__ import annotations

from ..autodiff.recorder import apply2
from ..methods.base import require_float_pair
from ..ops import activation as activation_ops
from ..tensor import Tensor


def cross_entropy_with_logits(logits: Tensor, target_probs: Tensor) -> Tensor:
    """``-mean(sum(target_probs * log_softmax(logits, -1), -1))``, shape ``[1]``: the mean over
    all leading positions of the cross entropy along the last dim. Both are differentiable.

    Raises TypeError unless both are Float tensors, ValueError naming the shapes when they differ.
    """
    require_float_pair("cross_entropy_with_logits", logits, target_probs)
    if logits.dims() != target_probs.dims():
        raise ValueError(f"cross_entropy_with_logits: logits and target_probs must have the same "
                         f"shape, got {logits.dims()} and {target_probs.dims()}")
    return apply2(activation_ops.CROSS_ENTROPY_WITH_LOGITS, logits, target_probs)


__all__ = ["cross_entropy_with_logits"]
