"""Convert standard ``torch.nn`` layers and containers to burn_torch modules, weights included.

[`from_torch_module`][burn_torch.interop.torch_modules.from_torch_module] builds the burn_torch
counterpart of a torch layer from its hyperparameters (the Burn config with the same settings) and
loads its weights through the state-dict adapters (``burn_torch.interop.state_dict``), so the result
computes what the torch layer computes. Containers convert recursively: ``Sequential`` to
[`Sequential`][burn_torch.interop.torch_layers.Sequential], ``ModuleList`` to a list and
``ModuleDict`` to a dict of converted layers. A model with its own ``forward`` is ported by hand,
converting its children::

    class Net(Module):
        def __init__(self, torch_net, device):
            super().__init__()
            self.conv1 = from_torch_module(torch_net.conv1, device)
            self.fc = from_torch_module(torch_net.fc, device)

        def forward(self, x):                 # the only hand-written part
            return self.fc.forward(nn.relu(self.conv1.forward(x)).flatten(1, 3))

Each supported class has one converter in a registry:
[`register_converter`][burn_torch.interop.torch_modules.register_converter] adds one (for a layer of
your own, or one ``burn_torch.nn`` gains). A torch setting the burn_torch layer cannot reproduce
raises ValueError naming it, rather than converting to other numbers.
"""
from .converter_registry import from_torch_module, register_converter, supported_torch_modules
from . import torch_converters, torch_converters_layers, torch_spatial_modules  # noqa: F401  (register)

__all__ = ["from_torch_module", "register_converter", "supported_torch_modules"]
