"""Spec rows: the recurrent ops (``ops/recurrent.py``: a whole LSTM, GRU or Elman-RNN pass as one
entry), called through ``burn_torch.nn.rnn.base.recurrent_sequence``, against the cells'
equations written step by step in plain torch.

Inputs: ``x``, the initial states, one ``[d_input, d_hidden]`` input weight and one
``[d_hidden, d_hidden]`` hidden weight per gate (PyTorch's gate order), then optional biases.
"""
import torch

from burn_torch.nn.rnn.base import recurrent_sequence
from burn_torch.ops import recurrent as ops
from spec import F, Row

B, T, D, H = 2, 3, 3, 2


def _steps(T, reverse):
    return range(T - 1, -1, -1) if reverse else range(T)


def _ref(cell, n_states, n_gates, batch_first, reverse):
    """The reference pass: ``cell(x_t, states, W_ih, W_hh, b_ih, b_hh) -> (states, out_t)``."""
    def ref(x, *rest):
        states = list(rest[:n_states])
        w = rest[n_states:]
        k = n_gates
        w_ih, w_hh = torch.cat(w[:k], 1), torch.cat(w[k:2 * k], 1)
        b_ih = torch.cat(w[2 * k:3 * k]) if len(w) > 2 * k else 0
        b_hh = torch.cat(w[3 * k:]) if len(w) > 2 * k else 0
        xs = x.transpose(0, 1) if batch_first else x
        outs = [None] * xs.shape[0]
        for t in _steps(xs.shape[0], reverse):
            states, outs[t] = cell(xs[t], states, w_ih, w_hh, b_ih, b_hh)
        if n_states == 2:  # the LSTM appends its final cell state
            outs.append(states[1])
        out = torch.stack(outs)
        return out.transpose(0, 1) if batch_first else out
    return ref


def _lstm_cell(x, states, w_ih, w_hh, b_ih, b_hh):
    h, c = states
    i, f, g, o = (x @ w_ih + b_ih + h @ w_hh + b_hh).chunk(4, 1)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    h = torch.sigmoid(o) * torch.tanh(c)
    return [h, c], h


def _gru_cell(x, states, w_ih, w_hh, b_ih, b_hh):
    (h,) = states
    xr, xz, xn = (x @ w_ih + b_ih).chunk(3, 1)
    hr, hz, hn = (h @ w_hh + b_hh).chunk(3, 1)
    r, z = torch.sigmoid(xr + hr), torch.sigmoid(xz + hz)
    n = torch.tanh(xn + r * hn)
    h = (1 - z) * n + z * h
    return [h], h


def _rnn_cell(x, states, w_ih, w_hh, b_ih, b_hh):
    h = torch.tanh(x @ w_ih + b_ih + states[0] @ w_hh + b_hh)
    return [h], h


def _row(op, cell, n_states, n_gates, batch_first, reverse, bias, variant):
    x = F(B, T, D) if batch_first else F(T, B, D)
    weights = [F(D, H)] * n_gates + [F(H, H)] * n_gates + ([F(H)] * 2 * n_gates if bias else [])
    args = (x, *[F(B, H)] * n_states, *weights)

    def fn(x, *rest):
        states, w = rest[:n_states], rest[n_states:]
        k = n_gates
        return recurrent_sequence(op, x, states, w[:k], w[k:2 * k], w[2 * k:3 * k],
                                  w[3 * k:], batch_first, reverse)
    return Row(op.name, fn, _ref(cell, n_states, n_gates, batch_first, reverse), args,
               variant=variant)


ROWS = [
    _row(ops.LSTM, _lstm_cell, 2, 4, True, False, True, "batch-first, bias"),
    _row(ops.LSTM, _lstm_cell, 2, 4, False, True, False, "seq-first, reverse, no bias"),
    _row(ops.GRU, _gru_cell, 1, 3, True, False, True, "batch-first, bias"),
    _row(ops.GRU, _gru_cell, 1, 3, False, True, False, "seq-first, reverse, no bias"),
    _row(ops.RNN, _rnn_cell, 1, 1, True, False, True, "batch-first, bias"),
    _row(ops.RNN, _rnn_cell, 1, 1, False, True, False, "seq-first, reverse, no bias"),
]
