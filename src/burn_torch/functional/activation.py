"""Burn's ``tensor::activation`` functions. Each is one op-table entry (``burn_torch.ops``)."""
from __future__ import annotations

from ..autodiff.recorder import apply1, apply2
from ..methods.base import require_float, require_float_pair
from ..ops import activation as activation_ops
from ..ops import elementwise as elementwise_ops
from ..tensor import Tensor


def relu(x: Tensor) -> Tensor:
    """``max(x, 0)``; the gradient is 0 where the output is 0."""
    return apply1(activation_ops.RELU, x)


def sigmoid(x: Tensor) -> Tensor:
    return apply1(activation_ops.SIGMOID, x)


def tanh(x: Tensor) -> Tensor:
    return apply1(elementwise_ops.TANH, x)


def gelu(x: Tensor) -> Tensor:
    """Exact GELU (erf form)."""
    return apply1(activation_ops.GELU, x)


def softmax(x: Tensor, dim: int) -> Tensor:
    return apply1(activation_ops.SOFTMAX, x, (x._dim(dim),))


def log_softmax(x: Tensor, dim: int) -> Tensor:
    return apply1(activation_ops.LOG_SOFTMAX, x, (x._dim(dim),))


def leaky_relu(x: Tensor, slope: float) -> Tensor:
    """``x`` from 0 up, ``slope * x`` below 0; the gradient is 1 at exactly 0 (as Burn)."""
    return apply1(activation_ops.LEAKY_RELU, _float_input(x, "leaky_relu"), (float(slope),))


def gelu_tanh(x: Tensor) -> Tensor:
    """GELU's tanh approximation ``x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))``."""
    return apply1(activation_ops.GELU_TANH, _float_input(x, "gelu_tanh"))


def silu(x: Tensor) -> Tensor:
    """``x * sigmoid(x)``."""
    return apply1(activation_ops.SILU, _float_input(x, "silu"))


def mish(x: Tensor) -> Tensor:
    """``x * tanh(softplus(x, 1))``."""
    return apply1(activation_ops.MISH, _float_input(x, "mish"))


def softplus(x: Tensor, beta: float) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``."""
    return apply1(activation_ops.SOFTPLUS, _float_input(x, "softplus"), (float(beta),))


def log_sigmoid(x: Tensor) -> Tensor:
    """``log(sigmoid(x))``, computed without overflow."""
    return apply1(activation_ops.LOG_SIGMOID, _float_input(x, "log_sigmoid"))


def hard_sigmoid(x: Tensor, alpha: float, beta: float) -> Tensor:
    """``clamp(alpha * x + beta, 0, 1)`` (Burn's signature; ``hard_swish`` uses alpha=1/6,
    beta=0.5). The gradient passes where the clamp's bounds are not exceeded, bounds included."""
    return apply1(activation_ops.HARD_SIGMOID, _float_input(x, "hard_sigmoid"), (float(alpha), float(beta)))


def prelu(x: Tensor, alpha: Tensor) -> Tensor:
    """``x`` from 0 up, ``alpha * x`` below 0, with ``alpha`` of shape ``[1]`` (one weight) or
    ``[channels]`` (one per entry of dim 1 of ``x``); both are differentiable.

    Raises TypeError unless both are Float tensors, ValueError naming the shapes when ``alpha``
    is not rank 1 or its size is neither 1 nor the channel count.
    """
    require_float_pair("prelu", x, alpha)
    a = alpha.dims()
    if len(a) != 1 or (a[0] != 1 and (x.rank() < 2 or x.dims()[1] != a[0])):
        raise ValueError(f"prelu: alpha must have shape [1] or [channels] with channels the size "
                         f"of dim 1 of the input, got input {x.dims()} and alpha {a}")
    return apply2(activation_ops.PRELU, x, alpha)


def softmin(x: Tensor, dim: int) -> Tensor:
    """``softmax(-x, dim)``."""
    return apply1(activation_ops.SOFTMIN, _float_input(x, "softmin"), (x._dim(dim),))


def quiet_softmax(x: Tensor, dim: int) -> Tensor:
    """``exp(x_i) / (1 + sum_j exp(x_j))`` along ``dim`` (softmax with an implicit extra zero
    logit, so a row can select nothing); computed without overflow."""
    return apply1(activation_ops.QUIET_SOFTMAX, _float_input(x, "quiet_softmax"), (x._dim(dim),))


def gelu_approximate(x: Tensor) -> Tensor:
    """Burn's name for [`gelu_tanh`][burn_torch.functional.activation.gelu_tanh] (GELU's tanh
    approximation)."""
    return gelu_tanh(x)


def hardtanh(x: Tensor, min_val: float, max_val: float) -> Tensor:
    """``clamp(x, min_val, max_val)`` (Burn's definition: its gradient passes where
    ``min_val <= x <= max_val``, bounds included, where torch's ``hardtanh`` stops at them)."""
    return _float_input(x, "hardtanh").clamp(float(min_val), float(max_val))


def relu6(x: Tensor) -> Tensor:
    """``clamp(x, 0, 6)`` (as [`hardtanh`][burn_torch.functional.activation.hardtanh])."""
    return hardtanh(x, 0.0, 6.0)


def elu(x: Tensor, alpha: float) -> Tensor:
    """``x`` above 0, ``alpha * (exp(x) - 1)`` where ``x <= 0``."""
    return apply1(activation_ops.ELU, _float_input(x, "elu"), (float(alpha),))


def celu(x: Tensor, alpha: float) -> Tensor:
    """``x`` above 0, ``alpha * (exp(x / alpha) - 1)`` where ``x <= 0``; ValueError for alpha 0."""
    if float(alpha) == 0.0:
        raise ValueError("celu: alpha must not be 0")
    return apply1(activation_ops.CELU, _float_input(x, "celu"), (float(alpha),))


def selu(x: Tensor) -> Tensor:
    """``gamma * x`` from 0 up, ``gamma * alpha * (exp(x) - 1)`` below, with the constants of
    the SELU paper (alpha ~ 1.6733, gamma ~ 1.0507); the gradient at 0 is ``gamma``."""
    return apply1(activation_ops.SELU, _float_input(x, "selu"))


def softsign(x: Tensor) -> Tensor:
    """``x / (1 + |x|)``."""
    return apply1(activation_ops.SOFTSIGN, _float_input(x, "softsign"))


def tanhshrink(x: Tensor) -> Tensor:
    """``x - tanh(x)``."""
    return apply1(activation_ops.TANHSHRINK, _float_input(x, "tanhshrink"))


def hard_swish(x: Tensor) -> Tensor:
    """``x * hard_sigmoid(x, 1/6, 0.5)``."""
    return apply1(activation_ops.HARD_SWISH, _float_input(x, "hard_swish"))


def shrink(x: Tensor, lambda_: float, bias: float) -> Tensor:
    """0 where ``|x| <= lambda_``, ``x - sign(x) * bias`` elsewhere (Burn's ``lambda``; the
    gradient is 1 where ``|x| > lambda_``)."""
    return apply1(activation_ops.SHRINK, _float_input(x, "shrink"), (float(lambda_), float(bias)))


def hard_shrink(x: Tensor, lambda_: float) -> Tensor:
    """``x`` where ``|x| > lambda_``, 0 elsewhere: ``shrink(x, lambda_, 0)``."""
    return shrink(x, lambda_, 0.0)


def soft_shrink(x: Tensor, lambda_: float) -> Tensor:
    """``x - sign(x) * lambda_`` where ``|x| > lambda_``, 0 elsewhere: ``shrink(x, lambda_, lambda_)``."""
    return shrink(x, lambda_, lambda_)


def threshold(x: Tensor, threshold: float, value: float) -> Tensor:
    """``x`` where ``x > threshold``, ``value`` elsewhere (the gradient is 0 there)."""
    return apply1(activation_ops.THRESHOLD, _float_input(x, "threshold"),
                  (float(threshold), float(value)))


def thresholded_relu(x: Tensor, alpha: float) -> Tensor:
    """``x`` where ``x > alpha``, 0 elsewhere: ``threshold(x, alpha, 0)``."""
    return threshold(x, alpha, 0.0)


def glu(x: Tensor, dim: int) -> Tensor:
    """``a * sigmoid(b)`` where ``a`` and ``b`` are the first and second halves of ``x`` along
    ``dim`` (negative counts from the end); the result has half the size along ``dim``.

    Raises IndexError for a dim out of range, ValueError when the size along ``dim`` is odd.
    """
    d = _float_input(x, "glu")._dim(dim)
    if x.dims()[d] % 2:
        raise ValueError(f"glu: the size along dim {d} must be even, got shape {x.dims()}")
    return apply1(activation_ops.GLU, x, (d,))


def _float_input(x, what: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(x).__name__}")
    require_float(x, what)
    return x


__all__ = ["relu", "leaky_relu", "gelu", "gelu_tanh", "gelu_approximate", "silu", "mish",
           "softplus", "sigmoid", "log_sigmoid", "hard_sigmoid", "tanh", "prelu", "softmax",
           "log_softmax", "softmin", "quiet_softmax", "hardtanh", "relu6", "elu", "celu", "selu",
           "softsign", "tanhshrink", "hard_swish", "shrink", "hard_shrink", "soft_shrink",
           "threshold", "thresholded_relu", "glu"]
