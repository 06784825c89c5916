"""LstmState is (cell, hidden); torch's LSTM state is (h, c)."""
import torch

from burn_torch import Device, nn
from burn_torch.compat import from_torch

ID = "lstm_state_order"
TITLE = "An LSTM's state is `(cell, hidden)`, PyTorch's `(h, c)`"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("lstm_state_tuple",)
WHAT = "Lstm.forward returns LstmState(cell, hidden); unpacking it as torch's (h, c) swaps the two"
WHY = """Burn's `LstmState` holds the cell state first and the hidden state second; PyTorch's
`nn.LSTM` returns and takes `(h_n, c_n)`. Both are tuples of two tensors of the same shape, so
`out, (h, c) = lstm(x)` translated literally binds the cell state to `h` and the next step (or
the classifier on the last hidden state) silently uses the wrong one. PyTorch's states also have
a leading `num_layers` dimension; Burn's are `[batch, d_hidden]`."""
RECIPE = "out, state = lstm.forward(x, LstmState(c0, h0)); use state.hidden and state.cell by name"


def torch_side():
    lstm = torch.nn.LSTM(2, 3, batch_first=True)
    out, (h, c) = lstm(torch.randn(1, 4, 2))
    torch.equal(out[:, -1], h[0])                   # h is the last step's output


def burn_literal():
    lstm = nn.LstmConfig(2, 3, True).init(Device.cpu())
    out, (h, c) = lstm.forward(from_torch(torch.randn(1, 4, 2), Device.cpu()))
    out.narrow(1, 3, 1).reshape([1, 3]).equal(h).all().into_scalar()


def burn_side():
    lstm = nn.LstmConfig(2, 3, True).init(Device.cpu())
    out, state = lstm.forward(from_torch(torch.randn(1, 4, 2), Device.cpu()))
    out.narrow(1, 3, 1).reshape([1, 3]).equal(state.hidden).all().into_scalar()


TORCH = {"torch.equal(out[:, -1], h[0])": True}
LITERAL = {"out.narrow(1, 3, 1).reshape([1, 3]).equal(h).all().into_scalar()": False}
BURN = {"out.narrow(1, 3, 1).reshape([1, 3]).equal(state.hidden).all().into_scalar()": True}
