"""LstmConfig(8, 16, 2) is bias=2, not num_layers=2."""
import torch

from burn_torch import Device, nn

ID = "lstm_config_bias_argument"
TITLE = "`LstmConfig`'s third argument is `bias`, not `num_layers`"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("lstm_num_layers",)
WHAT = "LstmConfig(8, 16, 2) is a one-layer LSTM with bias=2; torch.nn.LSTM(8, 16, 2) has two layers"
WHY = """Burn's `LstmConfig::new(d_input, d_hidden, bias)` takes the bias flag third, where
`torch.nn.LSTM(input_size, hidden_size, num_layers)` takes the number of layers. A truthy `2` is
accepted as `bias`, so the translation builds a single layer with a third of the parameters and
no error. Burn's `Lstm` is one layer: stack layers yourself (each layer after the first takes
`d_hidden` inputs) and feed each layer's output to the next."""
RECIPE = "layers = [nn.LstmConfig(d_in if i == 0 else d_hidden, d_hidden, True).init(device) for i in range(n)]"


def torch_side():
    lstm = torch.nn.LSTM(8, 16, 2)
    sum([p.numel() for p in lstm.parameters()])


def burn_literal():
    lstm = nn.LstmConfig(8, 16, 2).init(Device.cpu())
    lstm.num_params()


def burn_side():
    layers = [nn.LstmConfig(8 if i == 0 else 16, 16, True).init(Device.cpu()) for i in range(2)]
    sum([layer.num_params() for layer in layers])


TORCH = {"sum([p.numel() for p in lstm.parameters()])": 3840}
LITERAL = {"lstm.num_params()": 1664}
BURN = {"sum([layer.num_params() for layer in layers])": 3840}
