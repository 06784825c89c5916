"""Spec rows: activations and the cross-entropy loss on probabilities (``ops/activation.py``)."""
import torch
import torch.nn.functional as tf

from burn_torch import activation, loss
from spec import F, NZ, Row

S = (2, 3, 4)
X = NZ(*S)  # away from the kinks at 0


def act(op, fn, ref, arg=F, variant=""):
    return Row(op, fn, ref, (arg(*S),), variant=variant)


def _quiet_softmax(x, dim):
    e = x.exp()
    return e / (1 + e.sum(dim, keepdim=True))


def _cross_entropy(logits, target):
    return -(target * logits.log_softmax(-1)).sum(-1).mean().reshape(1)


def _selu(x):
    alpha, gamma = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
    return torch.where(x >= 0, gamma * x, gamma * alpha * (x.exp() - 1))


def _shrink(lambd, bias):
    return lambda x: torch.where(x.abs() <= lambd, 0.0, x - x.sign() * bias)


def _glu(x, dim):
    a, b = x.chunk(2, dim)
    return a * b.sigmoid()


ROWS = [
    act("relu", activation.relu, torch.relu, NZ),
    act("sigmoid", activation.sigmoid, torch.sigmoid),
    act("gelu", activation.gelu, tf.gelu),
    act("softmax", lambda x: activation.softmax(x, 1), lambda x: x.softmax(1)),
    act("softmax", lambda x: activation.softmax(x, -1), lambda x: x.softmax(-1), variant="last dim"),
    act("log_softmax", lambda x: activation.log_softmax(x, 2), lambda x: x.log_softmax(2)),
    act("leaky_relu", lambda x: activation.leaky_relu(x, 0.1), lambda x: tf.leaky_relu(x, 0.1), NZ),
    act("hard_sigmoid", lambda x: activation.hard_sigmoid(x, 0.2, 0.5),
        lambda x: (0.2 * x + 0.5).clamp(0, 1),
        lambda *s: F(*s, lo=-4, hi=4, avoid=(-2.5, 2.5), margin=0.05)),
    Row("prelu", lambda x, a: activation.prelu(x, a),
        lambda x, a: torch.where(x < 0, x * a.view(1, 3, 1), x), (NZ(*S), F(3)), variant="per channel"),
    Row("prelu", lambda x, a: activation.prelu(x, a), lambda x, a: torch.where(x < 0, x * a, x),
        (NZ(*S), F(1)), variant="shared"),
    act("gelu_tanh", activation.gelu_tanh, lambda x: tf.gelu(x, approximate="tanh")),
    act("silu", activation.silu, tf.silu),
    act("mish", activation.mish, tf.mish),
    act("softplus", lambda x: activation.softplus(x, 2.0), lambda x: tf.softplus(x, 2.0)),
    act("log_sigmoid", activation.log_sigmoid, tf.logsigmoid),
    act("softmin", lambda x: activation.softmin(x, 1), lambda x: (-x).softmax(1)),
    act("quiet_softmax", lambda x: activation.quiet_softmax(x, 2), lambda x: _quiet_softmax(x, 2)),
    Row("cross_entropy_with_logits", loss.cross_entropy_with_logits, _cross_entropy,
        (F(*S), F(*S, lo=0.0, hi=1.0))),
    act("elu", lambda x: activation.elu(x, 0.7),
        lambda x: torch.where(x <= 0, 0.7 * (x.exp() - 1), x), NZ),
    act("celu", lambda x: activation.celu(x, 1.5),
        lambda x: torch.where(x <= 0, 1.5 * ((x / 1.5).exp() - 1), x), NZ),
    act("selu", activation.selu, _selu, NZ),
    act("softsign", activation.softsign, lambda x: x / (1 + x.abs()), NZ),
    act("tanhshrink", activation.tanhshrink, lambda x: x - x.tanh()),
    act("hard_swish", activation.hard_swish, lambda x: x * (x / 6 + 0.5).clamp(0, 1),
        lambda *s: F(*s, lo=-4, hi=4, avoid=(-3, 3), margin=0.05)),
    act("shrink", lambda x: activation.shrink(x, 0.5, 0.2), _shrink(0.5, 0.2),
        lambda *s: F(*s, avoid=(-0.5, 0.5), margin=0.05)),
    act("shrink", lambda x: activation.hard_shrink(x, 0.5), _shrink(0.5, 0.0),
        lambda *s: F(*s, avoid=(-0.5, 0.5), margin=0.05), variant="hard_shrink"),
    act("shrink", lambda x: activation.soft_shrink(x, 0.5), _shrink(0.5, 0.5),
        lambda *s: F(*s, avoid=(-0.5, 0.5), margin=0.05), variant="soft_shrink"),
    act("threshold", lambda x: activation.threshold(x, 0.3, -2.0),
        lambda x: torch.where(x <= 0.3, -2.0, x), lambda *s: F(*s, avoid=(0.3,), margin=0.05)),
    act("glu", lambda x: activation.glu(x, -1), lambda x: _glu(x, -1)),
    act("glu", lambda x: activation.glu(x, 0), lambda x: _glu(x, 0), variant="dim 0"),
]
