"""Spec rows: losses computed by one torch kernel each way (``ops/loss.py``): CTC. The row feeds
a log-softmax of the leaf, so the gradient is the true derivative (torch's CTC backward gives
the gradient of the logits of ``log_probs``) and the finite difference holds."""
import torch
import torch.nn.functional as tf

from burn_torch import Tensor, activation, module_ops as mo, nn
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


def rnnt_reference(log_probs, targets, logit_lengths, target_lengths, blank=0):
    """The RNN-T loss per sample by Graves' alpha recursion, node by node (plain torch)."""
    losses = []
    for b in range(log_probs.shape[0]):
        t_len, u_len = int(logit_lengths[b]), int(target_lengths[b])
        lp = log_probs[b]
        alpha = {}
        for t in range(t_len):
            for u in range(u_len + 1):
                terms = []
                if t == 0 and u == 0:
                    terms.append(lp.new_zeros(()))
                if t > 0:
                    terms.append(alpha[t - 1, u] + lp[t - 1, u, blank])
                if u > 0:
                    terms.append(alpha[t, u - 1] + lp[t, u - 1, targets[b, u - 1]])
                alpha[t, u] = torch.logsumexp(torch.stack(terms), 0)
        losses.append(-(alpha[t_len - 1, u_len] + lp[t_len - 1, u_len, blank]))
    return torch.stack(losses)


RNNT_TARGETS = torch.tensor([[1, 2, 1], [2, 0, 0], [3, 3, 0]])
RNNT_LOGIT_LENGTHS = torch.tensor([4, 3, 2])
RNNT_TARGET_LENGTHS = torch.tensor([3, 1, 2])

ROWS.append(Row(
    "rnnt_loss",
    lambda x: nn.RNNTLossConfig().init().forward(x, _ints(RNNT_TARGETS), _ints(RNNT_LOGIT_LENGTHS),
                                                  _ints(RNNT_TARGET_LENGTHS)),
    lambda x: rnnt_reference(x.log_softmax(3), RNNT_TARGETS, RNNT_LOGIT_LENGTHS, RNNT_TARGET_LENGTHS),
    (F(3, 4, 4, 5),)))
