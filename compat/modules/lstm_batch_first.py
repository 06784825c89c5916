"""nn.LSTM is seq-first by default; LstmConfig is batch-first by default."""
import torch

from burn_torch import Device, nn
from burn_torch.compat import from_torch

ID = "lstm_batch_first"
TITLE = "`Lstm` is batch-first by default (`torch.nn.LSTM` is seq-first)"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("lstm_without_batch_first",)
WHAT = "LstmConfig's batch_first defaults to True; a [seq, batch, feat] input runs as [batch, seq, feat]"
WHY = """Burn's `LstmConfig` defaults `batch_first` to true, `torch.nn.LSTM` to false. Both accept
any rank-3 input, so a PyTorch sequence laid out `[seq, batch, features]` runs without an error
and is read as `seq` sequences of length `batch`: the outputs and the final state are other
numbers and, here, the state even has another batch size."""
RECIPE = "nn.LstmConfig(d_in, d_hidden, True).with_batch_first(False) for [seq, batch, feat] inputs (or swap_dims(0, 1))"


def torch_side():
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(2, 4)
    x = torch.randn(3, 1, 2)                      # [seq, batch, features]
    out, (h, c) = lstm(x)
    list(h.shape[1:])                               # [batch, hidden]


def burn_literal():
    lstm = nn.LstmConfig(2, 4, True).init(Device.cpu())
    x = from_torch(torch.randn(3, 1, 2), Device.cpu())
    out, state = lstm.forward(x)
    state.hidden.dims()


def burn_side():
    lstm = nn.LstmConfig(2, 4, True).with_batch_first(False).init(Device.cpu())
    x = from_torch(torch.randn(3, 1, 2), Device.cpu())
    out, state = lstm.forward(x)
    state.hidden.dims()


TORCH = {"list(h.shape[1:])": [1, 4]}
LITERAL = {"state.hidden.dims()": [3, 4]}
BURN = {"state.hidden.dims()": [1, 4]}
