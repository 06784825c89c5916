"""Spec rows: losses computed by one torch kernel each way (``ops/loss.py``): CTC. The row feeds
a log-softmax of the leaf, so the gradient is the true derivative (torch's CTC backward gives
the gradient of the logits of ``log_probs``) and the finite difference holds."""
import torch
import torch.nn.functional as tf

from burn_torch import Tensor, activation, module_ops as mo
from spec import CPU, F, Row

TARGETS = torch.tensor([[1, 2, 2], [3, 1, 0], [2, 0, 0]])
INPUT_LENGTHS = torch.tensor([6, 5, 4])
TARGET_LENGTHS = torch.tensor([3, 2, 1])


def _ints(t):
    return Tensor.from_data(t, CPU)


ROWS = [
    Row("ctc_loss",
        lambda x: mo.ctc_loss(activation.log_softmax(x, 2), _ints(TARGETS), _ints(INPUT_LENGTHS),
                              _ints(TARGET_LENGTHS), 0),
        lambda x: tf.ctc_loss(x.log_softmax(2), TARGETS, INPUT_LENGTHS, TARGET_LENGTHS, 0,
                              reduction="none"),
        (F(6, 3, 4),)),
]
