"""nn.Linear(4, 128) builds a Linear whose fields are the ints 4 and 128."""
import torch

from burn_torch import Device, nn

ID = "module_constructor_arguments"
TITLE = "Layers are built from configs: `nn.LinearConfig(4, 128).init(device)`"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("layer_built_from_arguments",)
WHAT = "nn.Linear(4, 128) stores 4 and 128 as its weight and bias fields; only forward fails later"
WHY = """In Burn a layer's constructor takes its parts (`Linear(weight, bias)`); its
hyperparameters go into a config whose `init(device)` creates the parameters
(`LinearConfig::new(4, 128).init(&device)`). The PyTorch call `nn.Linear(4, 128)` therefore
builds a `Linear` holding the numbers 4 and 128 instead of parameters: it has no parameters, an
optimizer finds nothing to train, and the error comes only at the first `forward`."""
RECIPE = "nn.LinearConfig(4, 128).init(device) (likewise Conv2dConfig, EmbeddingConfig, LstmConfig, ...)"


def torch_side():
    lin = torch.nn.Linear(4, 128)
    sum([p.numel() for p in lin.parameters()])


def burn_literal():
    lin = nn.Linear(4, 128)
    lin.num_params()


def burn_side():
    lin = nn.LinearConfig(4, 128).init(Device.cpu())
    lin.num_params()


TORCH = {"sum([p.numel() for p in lin.parameters()])": 640}
LITERAL = {"lin.num_params()": 0}
BURN = {"lin.num_params()": 640}
