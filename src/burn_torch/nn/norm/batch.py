"""Burn's ``BatchNorm`` (one op in training, running statistics as non-trainable Params) and
its config.
"""
from __future__ import annotations

from ... import validate
from ...autodiff.recorder import apply3, wrap
from ...device import Device
from ...module import Config, Module, Param, TrainingFlag
from ...ops import norm as norm_ops
from ...tensor import Tensor
from ..initializer import Initializer


class BatchNormConfig(Config):
    """Configuration of [`BatchNorm`][burn_torch.nn.norm.BatchNorm] (Burn's fields and defaults)."""

    num_features: int
    epsilon: float = 1e-5
    momentum: float = 0.1
    # burn_torch's option, not Burn's: update running_var with the unbiased batch variance, as
    # PyTorch does (Burn 0.21 uses the biased one); see docs/differences-from-burn.md
    unbiased_running_var: bool = False

    def init(self, device: Device) -> "BatchNorm":
        """``gamma`` ones, ``beta`` zeros, running mean zeros and running variance ones (both
        frozen Params, so they are saved but never trained), training flag set."""
        validate.config_sizes(self, "num_features")
        n = self.num_features
        return BatchNorm(Initializer.ones().init([n], device), Initializer.zeros().init([n], device),
                         Param(Tensor.zeros([n], device), require_grad=False),
                         Param(Tensor.ones([n], device), require_grad=False),
                         self.momentum, self.epsilon,
                         unbiased_running_var=bool(self.unbiased_running_var))


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
    ``unbiased_running_var=True`` (``BatchNormConfig.with_unbiased_running_var(True)``, a
    burn_torch option) updates it with the unbiased variance, as PyTorch does, and then raises
    ValueError for a training batch of one value per channel, as PyTorch does. The output is
    normalized with the biased batch variance either way, in both libraries.
    """

    def __init__(self, gamma: Param, beta: Param, running_mean: Param, running_var: Param,
                 momentum: float, epsilon: float, training: TrainingFlag | None = None,
                 unbiased_running_var: bool = False) -> None:
        super().__init__()
        self.gamma = gamma
        self.beta = beta
        self.running_mean = running_mean
        self.running_var = running_var
        self.momentum = momentum
        self.epsilon = epsilon
        self.training = TrainingFlag() if training is None else training
        self.unbiased_running_var = unbiased_running_var

    def forward(self, input: Tensor) -> Tensor:
        """The normalized input, same shape; ValueError unless it is ``[_, num_features, ...]``."""
        n = self.gamma.val().dims()[0]
        dims = input.dims()
        if len(dims) < 2 or dims[1] != n:
            raise ValueError(f"BatchNorm: expected input [batch, {n}, ...], got {dims}")
        stat_shape = [1, n] + [1] * (len(dims) - 2)
        if input.is_autodiff() and self.training.is_training():
            data = input._data
            if self.unbiased_running_var and data.numel() <= data.shape[1]:
                raise ValueError(f"BatchNorm with unbiased_running_var: expected more than 1 value "
                                 f"per channel when training (as PyTorch), got input {dims}")
            if (data.numel() > data.shape[1] and data.is_floating_point()
                    and data.dtype is self.gamma.val()._data.dtype is self.beta.val()._data.dtype):
                return self._train_step(input)
            flat = input.swap_dims(0, 1).reshape([n, -1])
            var, mean = flat.var_bias(1).reshape([n]), flat.mean_dim(1).reshape([n])
            running_var = flat.var(1).reshape([n]) if self.unbiased_running_var else var
            self._update_running(mean.detach(), running_var.detach())
        else:
            mean, var = self.running_mean.val(), self.running_var.val()
        scale = self.gamma.val() / (var + self.epsilon).sqrt()
        centered = input - mean.reshape(stat_shape)
        return centered * scale.reshape(stat_shape) + self.beta.val().reshape(stat_shape)

    def _train_step(self, input: Tensor) -> Tensor:
        """The training forward as one ``batch_norm`` step (torch's kernels: Burn's formula up
        to float rounding), whose kernel also gives this batch's mean and variance for the
        running statistics (its unbiased variance rescaled to Burn's biased one, unless
        ``unbiased_running_var``)."""
        data = input._data
        count = data.numel() // data.shape[1]
        mean, var = data.new_zeros(data.shape[1]), data.new_zeros(data.shape[1])
        out = apply3(norm_ops.BATCH_NORM, input, self.gamma.val(), self.beta.val(),
                     (float(self.epsilon), (mean, var)))
        if not self.unbiased_running_var:
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
        if self.unbiased_running_var:
            extra += ", running_var: unbiased (PyTorch's)"
        return (f"BatchNorm {{num_features: {self.gamma.val().dims()[0]}, momentum: "
                f"{self.momentum}, epsilon: {self.epsilon}{extra}, params: {self.num_params()}}}")
