"""Burn's ``module::linear``: ``x @ weight + bias`` with the weight stored ``[d_input, d_output]``."""
from __future__ import annotations

from ...ops import nn as nn_ops
from ...tensor import Tensor
from .checks import _bias, _biased, _float, _shape


# ================================================================================ linear ====
def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x @ weight + bias`` over the last dim: x ``[..., d_input]``, weight ``[d_input,
    d_output]`` (not transposed, unlike torch), bias ``[d_output]``; returns ``[..., d_output]``.
    Raises TypeError for non-Float tensors, ValueError naming the shapes when they disagree."""
    # one cheap check on the hot path; _linear_error explains a failure
    if not (isinstance(x, Tensor) and isinstance(weight, Tensor)
            and _linear_ok(x._data, weight._data, bias)):
        _linear_error(x, weight, bias)
    return _biased(nn_ops.LINEAR, x, weight, bias)


def _linear_ok(xd, wd, bias) -> bool:
    if not (xd.is_floating_point() and wd.is_floating_point() and wd.dim() == 2 and xd.dim()
            and xd.shape[-1] == wd.shape[0]):
        return False
    if bias is None:
        return True
    return (isinstance(bias, Tensor) and bias._data.is_floating_point()
            and bias._data.shape == wd.shape[1:])


def _linear_error(x, weight, bias):
    _float("linear", "x", x, None)
    _float("linear", "weight", weight, 2, " [d_input, d_output]")
    if x._data.dim() == 0 or x._data.shape[-1] != weight._data.shape[0]:
        raise ValueError(f"linear: x's last dim must equal weight's d_input, got x "
                         f"{_shape(x)} and weight {_shape(weight)}")
    _bias("linear", bias, weight._data.shape[1])
