"""nn.GRU returns (output, h_n); Burn's Gru.forward returns the output only."""
import torch

from burn_torch import Device, nn
from burn_torch.compat import from_torch
from burn_torch.compat.entry import Raises

ID = "gru_forward_returns_output"
TITLE = "`Gru.forward` returns only the output (`torch.nn.GRU` returns `(output, h_n)`)"
CATEGORY = "modules"
SEVERITY = "loud"
DETECTORS = ("torch_gru_call",)
WHAT = "out, h = gru.forward(x) raises: Burn's Gru returns the hidden state of every step only"
WHY = """Burn's `Gru::forward(input, state)` returns the `[batch, seq, d_hidden]` hidden states of
every step, not a pair; the final state is the last step's. Burn's `Gru` is also always
batch-first (no `batch_first` field) and has no `reverse`; `BiGru` has `batch_first` and returns
`(output, state)` with the state `[2, batch, d_hidden]`. Its gate equations are PyTorch's by
default (`reset_after = true`); `reset_after = false` is the original GRU, which PyTorch lacks.
A multi-layer or seq-first `torch.nn.GRU` converts with `from_torch_module` into a `StackedGru`
that keeps PyTorch's layout and state-dict keys."""
RECIPE = "out = gru.forward(x); h = out.narrow(1, seq - 1, 1).squeeze_dim(1) (batch-first input)"


def torch_side():
    gru = torch.nn.GRU(2, 4, batch_first=True)
    out, h = gru(torch.randn(1, 3, 2))
    list(h.shape)                                  # [layers, batch, hidden]


def burn_literal():
    gru = nn.GruConfig(2, 4, True).init(Device.cpu())
    out, h = gru.forward(from_torch(torch.randn(1, 3, 2), Device.cpu()))


def burn_side():
    gru = nn.GruConfig(2, 4, True).init(Device.cpu())
    out = gru.forward(from_torch(torch.randn(1, 3, 2), Device.cpu()))
    h = out.narrow(1, 2, 1).squeeze_dim(1)
    h.dims()                                       # [batch, hidden]


TORCH = {"list(h.shape)": [1, 1, 4]}
LITERAL = Raises(TypeError, "cannot unpack non-iterable Tensor object")
BURN = {"h.dims()": [1, 4]}
