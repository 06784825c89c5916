"""Burn's normalisation functions of ``tensor::module`` (``layer_norm``, ``batch_norm``) and
their siblings ``rms_norm`` and ``group_norm``: each one op-table entry (``burn_torch.ops.norm``)
with one fused backward.
"""
from __future__ import annotations

from ...autodiff.recorder import apply3, applyn
from ...methods.base import require_float
from ...ops import norm as norm_ops
from ...tensor import Tensor


def _param(what: str, name: str, t, size: int) -> None:
    """TypeError unless ``t`` is a Float Tensor, ValueError unless its shape is ``[size]``."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}: {name} must be a Tensor, got {type(t).__name__}")
    require_float(t, what)
    if t.dims() != [size]:
        raise ValueError(f"{what}: {name} must have shape [{size}], got {t.dims()}")


def _input(what: str, x, min_rank: int) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor input, got {type(x).__name__}")
    require_float(x, what)
    if x.rank() < min_rank:
        raise ValueError(f"{what}: expected an input of rank >= {min_rank}, got {x.dims()}")


def _epsilon(what: str, epsilon) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or not epsilon >= 0:
        raise ValueError(f"{what}: epsilon must be a non-negative number, got {epsilon!r}")
    return float(epsilon)


def layer_norm(input: Tensor, gamma: Tensor, beta: Tensor | None, epsilon: float) -> Tensor:
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta`` over the last dim (biased variance),
    ``gamma``/``beta`` of shape ``[d_model]``; ``beta`` may be None. Every input is
    differentiable. Raises TypeError for a non-Float input, ValueError for a parameter whose
    shape is not ``[d_model]`` or a negative epsilon."""
    # one cheap check on the hot path; the per-argument checks explain a failure
    if beta is not None and _layer_norm_ok(input, gamma, beta, epsilon):
        return apply3(norm_ops.LAYER_NORM, input, gamma, beta, (float(epsilon),))
    _input("layer_norm", input, 1)
    d_model = input.dims()[-1]
    _param("layer_norm", "gamma", gamma, d_model)
    attrs = (_epsilon("layer_norm", epsilon),)
    if beta is None:
        return applyn(norm_ops.LAYER_NORM, (input, gamma), attrs)
    _param("layer_norm", "beta", beta, d_model)
    return apply3(norm_ops.LAYER_NORM, input, gamma, beta, attrs)


def _layer_norm_ok(x, gamma, beta, epsilon) -> bool:
    """Whether ``x`` is a Float tensor of rank >= 1, ``gamma`` and ``beta`` Float tensors of shape
    ``[d_model]`` and ``epsilon`` a non-negative float."""
    if not (isinstance(x, Tensor) and isinstance(gamma, Tensor) and isinstance(beta, Tensor)
            and epsilon.__class__ is float and epsilon >= 0):
        return False
    xd, gd, bd = x._data, gamma._data, beta._data
    xs = xd.shape
    return (len(xs) > 0 and gd.shape == bd.shape == xs[-1:] and xd.is_floating_point()
            and gd.is_floating_point() and bd.is_floating_point())


def rms_norm(input: Tensor, gamma: Tensor, epsilon: float) -> Tensor:
    """``x / sqrt(mean(x^2) + epsilon) * gamma`` over the last dim, ``gamma`` of shape
    ``[d_model]`` (Burn's ``RmsNorm``). Errors as
    [`layer_norm`][burn_torch.functional.module_ops.layer_norm]."""
    _input("rms_norm", input, 1)
    _param("rms_norm", "gamma", gamma, input.dims()[-1])
    return applyn(norm_ops.RMS_NORM, (input, gamma), (_epsilon("rms_norm", epsilon),))


def group_norm(input: Tensor, gamma: Tensor | None, beta: Tensor | None, num_groups: int,
               epsilon: float) -> Tensor:
    """Normalises ``[batch, channels, ...]`` over each group of ``channels / num_groups``
    channels and every position (biased variance), then ``* gamma + beta`` per channel when
    both are given (``[channels]`` each; both or neither). Raises ValueError when ``channels``
    is not divisible by ``num_groups``, for one of gamma/beta without the other, or as
    [`layer_norm`][burn_torch.functional.module_ops.layer_norm]."""
    _input("group_norm", input, 2)
    channels = input.dims()[1]
    if isinstance(num_groups, bool) or not isinstance(num_groups, int) or num_groups < 1 \
            or channels % num_groups:
        raise ValueError(f"group_norm: {channels} channels cannot be split in {num_groups!r} "
                         f"groups")
    if (gamma is None) != (beta is None):
        raise ValueError("group_norm: pass both gamma and beta, or neither")
    tensors: tuple[Tensor | None, ...] = (input,)
    if gamma is not None:
        _param("group_norm", "gamma", gamma, channels)
        _param("group_norm", "beta", beta, channels)
        tensors = (input, gamma, beta)
    return applyn(norm_ops.GROUP_NORM, tensors, (num_groups, _epsilon("group_norm", epsilon)))


def batch_norm(input: Tensor, gamma: Tensor, beta: Tensor, mean: Tensor, variance: Tensor,
               epsilon: float) -> Tensor:
    """Burn's ``module::batch_norm``: ``(x - mean) / sqrt(variance + epsilon) * gamma + beta``
    per channel of ``input`` (``[batch, channels, ...]``) with the statistics given (running
    ones for inference, or a training path's batch ones); nothing is computed or updated but
    the output. Every input is differentiable, the statistics included, as in Burn.

    Raises TypeError for a non-Float tensor or a dtype that differs from ``input``'s (cast with
    ``.cast(input.dtype())``), ValueError for an input of rank < 2, a ``gamma``, ``beta``,
    ``mean`` or ``variance`` whose shape is not ``[channels]``, or a negative epsilon."""
    _input("batch_norm", input, 2)
    channels = input.dims()[1]
    params = {"gamma": gamma, "beta": beta, "mean": mean, "variance": variance}
    for name, t in params.items():
        _param("batch_norm", name, t, channels)
        if t.dtype() is not input.dtype():
            raise TypeError(f"batch_norm: {name} is {t.dtype().name}, the input "
                            f"{input.dtype().name}; cast it with .cast(input.dtype())")
    return applyn(norm_ops.BATCH_NORM_STATS, (input, *params.values()),
                  (_epsilon("batch_norm", epsilon),))
