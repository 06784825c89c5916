# %% [markdown]
# # Porting pytorch/examples' LSTM language model, verified with verify_port
#
# The PyTorch side is `RNNModel` from pytorch/examples `word_language_model/model.py` (commit
# 77f55b912142e11fcfdf5b530231fb9c52f181e8, BSD-3-Clause) with `rnn_type="LSTM"` (the GRU and
# plain-RNN branches and weight tying are left out), at a tiny size: 20 tokens, 8 features, two
# layers. `from_torch_module` converts the embedding, the two-layer LSTM (a `StackedLstm` of
# Burn `Lstm` layers, seq-first as the original) and the decoder; `forward` is ported by hand.
#
# Catalog entries met on the way: `torch.nn.LSTM` is seq-first while Burn's `LstmConfig` is
# batch-first by default (`lstm_batch_first`; the converter keeps the torch layout); the state is
# `(cell, hidden)` per layer, not `(h, c)` stacked over layers (`lstm_state_order`); the model
# returns `log_softmax` and trains with `F.nll_loss` (`nll_loss`); its dropout is off on both
# sides for the comparison (eval mode). The original trains with a hand-written SGD step and
# `clip_grad_norm_`; the verification uses plain SGD with the same learning rate (Burn clips
# per parameter: `gradient_clipping_per_parameter`).
#
# Run it with `.venv/bin/python examples/port_word_language_model.py`, or open
# `examples/port_word_language_model.ipynb`.

# %%
import torch
import torch.nn as tnn
import torch.nn.functional as F

from _side_by_side import DISAGREE, output_path, show_image
from burn_torch import Device, nn
from burn_torch.compat import from_torch_module, verify_port
from burn_torch.module import Module
from burn_torch.optim import SgdConfig

torch.manual_seed(0)
device = Device.cpu().autodiff()


# %%
# PyTorch: RNNModel (word_language_model/model.py), the LSTM branch
class RNNModel(tnn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.5):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = tnn.Dropout(dropout)
        self.encoder = tnn.Embedding(ntoken, ninp)
        self.rnn = tnn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = tnn.Linear(nhid, ntoken)
        self.init_weights()
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        tnn.init.uniform_(self.encoder.weight, -initrange, initrange)
        tnn.init.zeros_(self.decoder.bias)
        tnn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


ntokens, bptt, batch_size = 20, 6, 4
torch_model = RNNModel(ntokens, ninp=8, nhid=8, nlayers=2, dropout=0.2)


# %%
# burn_torch: the layers converted, forward ported line by line
class BurnRNNModel(Module):
    def __init__(self, model: RNNModel, device: Device):
        super().__init__()
        self.ntoken = model.ntoken
        self.drop = from_torch_module(model.drop, device)
        self.encoder = from_torch_module(model.encoder, device)
        self.rnn = from_torch_module(model.rnn, device)        # StackedLstm, seq-first
        self.decoder = from_torch_module(model.decoder, device)

    def forward(self, input, states=None):
        """``input [seq, batch]``; ``states``: one LstmState(cell, hidden) per layer, or None."""
        emb = self.drop.forward(self.encoder.forward(input))
        output, states = self.rnn.forward(emb, states)
        output = self.drop.forward(output)
        decoded = self.decoder.forward(output)
        decoded = decoded.reshape([-1, self.ntoken])
        return nn.log_softmax(decoded, 1), states


burn_model = BurnRNNModel(torch_model, device)
nll = nn.CrossEntropyLossConfig().init(device)   # on log-probabilities: the same as F.nll_loss

# %%
# One synthetic bptt batch, laid out [seq, batch] as the original's get_batch
gen = torch.Generator().manual_seed(1)
stream = torch.randint(0, ntokens, (bptt + 1, batch_size), generator=gen)
data, targets = stream[:-1], stream[1:].reshape(-1)
# The initial state: None is zeros on both sides (the original's init_hidden(batch_size)).
# Both models return (log-probabilities, states): the losses read the first element.


def torch_loss(output, targets):
    return F.nll_loss(output[0], targets)


def burn_loss(output, targets):
    return nll.forward(output[0], targets)


# %%
# Verify: forward, loss, every gradient, then 3 SGD steps
report = verify_port(
    torch_model, burn_model, (data, None, targets), torch_loss, burn_loss, steps=3,
    torch_optimizer=torch.optim.SGD(torch_model.parameters(), lr=1.0),
    burn_optimizer=SgdConfig())
report.print()

# %%
# The loss curves
ax = report.plot_losses()
plot = output_path("port_word_language_model/losses.png")
ax.figure.savefig(plot, dpi=80)
print(f"plot written to {plot}")
show_image(plot)

# %%
# Agreement
assert report.passed, f"{DISAGREE}: {report.summary()}"
print(f"OK: the LSTM language model port agrees with PyTorch (max forward diff "
      f"{report.max_forward_diff:.2g}, max gradient diff {report.max_grad_diff:.2g})")
