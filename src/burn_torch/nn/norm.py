"""Burn's normalization layers: ``LayerNorm``, ``BatchNorm`` and ``GroupNorm`` (LayerNorm,
GroupNorm and BatchNorm in training are one op each, with torch's fused kernels both ways).

As in Burn the learned scale and shift are called ``gamma`` and ``beta`` (PyTorch's ``weight``
and ``bias``; ``burn_torch.compat`` maps the names). Variances are population (biased)
variances, as Burn's and PyTorch's normalizations use.
"""
from __future__ import annotations

from .. import validate
from ..autodiff.recorder import apply3, wrap
from ..ops import norm as norm_ops
from ..device import Device
from ..functional.norm_ops import group_norm, layer_norm
from ..module import Config, Module, Param, TrainingFlag
from ..tensor import Tensor
from .initializer import Initializer


class LayerNormConfig(Config):
    """Configuration of :class:`LayerNorm` (Burn's fields and defaults)."""

    d_model: int
    epsilon: float = 1e-5
    bias: bool = True

    def init(self, device: Device) -> "LayerNorm":
        """``gamma`` ones and ``beta`` zeros (None without ``bias``) of shape ``[d_model]``."""
        validate.config_sizes(self, "d_model")
        beta = Initializer.zeros().init([self.d_model], device) if self.bias else None
        return LayerNorm(Initializer.ones().init([self.d_model], device), beta, self.epsilon)


class LayerNorm(Module):
    """Normalizes the last dim: ``(x - mean) / sqrt(var + epsilon) * gamma + beta``."""

    def __init__(self, gamma: Param, beta: Param | None, epsilon: float) -> None:
        super().__init__()
        self.gamma = gamma
        self.beta = beta
        self.epsilon = epsilon

    def forward(self, input: Tensor) -> Tensor:
        """``[..., d_model] -> [..., d_model]``; ValueError when the last dim is not d_model."""
        d_model = self.gamma.val().dims()[0]
        if input.rank() == 0 or input.dims()[-1] != d_model:
            raise ValueError(f"LayerNorm: expected input [..., {d_model}], got {input.dims()}")
        return layer_norm(input, self.gamma.val(), None if self.beta is None else self.beta.val(),
                          self.epsilon)

    def __repr__(self) -> str:
        return (f"LayerNorm {{d_model: {self.gamma.val().dims()[0]}, epsilon: {self.epsilon}, "
                f"bias: {self.beta is not None}, params: {self.num_params()}}}")


class BatchNormConfig(Config):
    """Configuration of :class:`BatchNorm` (Burn's fields and defaults)."""

    num_features: int
    epsilon: float = 1e-5
    momentum: float = 0.1

    def init(self, device: Device) -> "BatchNorm":
        """``gamma`` ones, ``beta`` zeros, running mean zeros and running variance ones (both
        frozen Params, so they are saved but never trained), training flag set."""
        validate.config_sizes(self, "num_features")
        n = self.num_features
        return BatchNorm(Initializer.ones().init([n], device), Initializer.zeros().init([n], device),
                         Param(Tensor.zeros([n], device), require_grad=False),
                         Param(Tensor.ones([n], device), require_grad=False),
                         self.momentum, self.epsilon)


class BatchNorm(Module):
    """Batch normalization of ``[batch, num_features, ...]`` inputs (any rank >= 2).

    Training behaviour (batch statistics over every dim but dim 1, gradients through them) runs
    when the input is an autodiff tensor *and* the ``training`` flag is set; otherwise the
    running statistics are used. ``valid()`` and ``no_grad()`` clear the flag, ``train()``
    restores it, as Burn's.

    Each training forward updates the running statistics of *this* module (they are not part of
    the autodiff graph): ``running = running * (1 - momentum) + batch * momentum``, where the
    batch variance is the population (biased) variance, as Burn's. PyTorch's BatchNorm uses the
    same momentum convention but the unbiased variance (``n / (n - 1)`` larger) for
    ``running_var``, so running variances differ from PyTorch's after training.
    """

    def __init__(self, gamma: Param, beta: Param, running_mean: Param, running_var: Param,
                 momentum: float, epsilon: float, training: TrainingFlag | None = None) -> None:
        super().__init__()
        self.gamma = gamma
        self.beta = beta
        self.running_mean = running_mean
        self.running_var = running_var
        self.momentum = momentum
        self.epsilon = epsilon
        self.training = TrainingFlag() if training is None else training

    def forward(self, input: Tensor) -> Tensor:
        """The normalized input, same shape; ValueError unless it is ``[_, num_features, ...]``."""
        n = self.gamma.val().dims()[0]
        dims = input.dims()
        if len(dims) < 2 or dims[1] != n:
            raise ValueError(f"BatchNorm: expected input [batch, {n}, ...], got {dims}")
        stat_shape = [1, n] + [1] * (len(dims) - 2)
        if input.is_autodiff() and self.training.is_training():
            data = input._data
            if (data.numel() > data.shape[1] and data.is_floating_point()
                    and data.dtype is self.gamma.val()._data.dtype is self.beta.val()._data.dtype):
                return self._train_step(input)
            flat = input.swap_dims(0, 1).reshape([n, -1])
            var, mean = flat.var_bias(1).reshape([n]), flat.mean_dim(1).reshape([n])
            self._update_running(mean.detach(), var.detach())
        else:
            mean, var = self.running_mean.val(), self.running_var.val()
        scale = self.gamma.val() / (var + self.epsilon).sqrt()
        centered = input - mean.reshape(stat_shape)
        return centered * scale.reshape(stat_shape) + self.beta.val().reshape(stat_shape)

    def _train_step(self, input: Tensor) -> Tensor:
        """The training forward as one ``batch_norm`` step (torch's kernels: Burn's formula up
        to float rounding), whose kernel also gives this batch's mean and variance for the
        running statistics (its unbiased variance rescaled to Burn's biased one)."""
        data = input._data
        count = data.numel() // data.shape[1]
        mean, var = data.new_zeros(data.shape[1]), data.new_zeros(data.shape[1])
        out = apply3(norm_ops.BATCH_NORM, input, self.gamma.val(), self.beta.val(),
                     (float(self.epsilon), (mean, var)))
        var.mul_((count - 1) / count)
        self._update_running(wrap(mean, input._ctx), wrap(var, input._ctx))
        return out

    def _update_running(self, mean: Tensor, var: Tensor) -> None:
        m = self.momentum
        for name, batch in (("running_mean", mean), ("running_var", var)):
            param = getattr(self, name)
            value = param.val() * (1.0 - m) + batch * m
            setattr(self, name, Param(value, param.id, require_grad=False))

    def __repr__(self) -> str:
        extra = "" if self.training.is_trainable() else ", training: disabled"
        return (f"BatchNorm {{num_features: {self.gamma.val().dims()[0]}, momentum: "
                f"{self.momentum}, epsilon: {self.epsilon}{extra}, params: {self.num_params()}}}")


class GroupNormConfig(Config):
    """Configuration of :class:`GroupNorm` (Burn's fields and defaults)."""

    num_groups: int
    num_channels: int
    epsilon: float = 1e-5
    affine: bool = True

    def init(self, device: Device) -> "GroupNorm":
        """ValueError unless ``num_channels`` is divisible by ``num_groups``; ``gamma``/``beta``
        (ones/zeros ``[num_channels]``) only when ``affine``."""
        validate.config_sizes(self, "num_groups", "num_channels")
        if self.num_channels % self.num_groups:
            raise ValueError(f"The number of channels must be divisible by the number of groups, "
                             f"got {self.num_channels} channels and {self.num_groups} groups")
        gamma = beta = None
        if self.affine:
            gamma = Initializer.ones().init([self.num_channels], device)
            beta = Initializer.zeros().init([self.num_channels], device)
        return GroupNorm(gamma, beta, self.num_groups, self.num_channels, self.epsilon,
                         self.affine)


class GroupNorm(Module):
    """Normalizes ``[batch, num_channels, ...]`` over each group of ``num_channels /
    num_groups`` channels (and all positions), then scales and shifts per channel."""

    def __init__(self, gamma: Param | None, beta: Param | None, num_groups: int,
                 num_channels: int, epsilon: float, affine: bool) -> None:
        super().__init__()
        self.gamma = gamma
        self.beta = beta
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.epsilon = epsilon
        self.affine = affine

    def forward(self, input: Tensor) -> Tensor:
        """Same shape as ``input``; ValueError unless it is ``[batch, num_channels, ...]``."""
        dims = input.dims()
        if len(dims) < 2 or dims[1] != self.num_channels:
            raise ValueError(f"GroupNorm: expected input [batch, {self.num_channels}, ...], "
                             f"got {dims}")
        if not self.affine:
            return group_norm(input, None, None, self.num_groups, self.epsilon)
        return group_norm(input, self.gamma.val(), self.beta.val(), self.num_groups, self.epsilon)
