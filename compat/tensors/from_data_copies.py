"""torch.from_numpy shares memory; Tensor.from_data copies."""
import numpy as np
import torch

from burn_torch import Device, Tensor

ID = "from_data_copies"
TITLE = "`Tensor.from_data` copies; `compat.from_torch` shares"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("from_numpy_call",)
WHAT = "Tensor.from_data(array) copies the values; torch.from_numpy / as_tensor share the array's memory"
WHY = """`Tensor.from_data` always copies what it is given (lists, numpy arrays, TensorData, torch
tensors), so later writes to the source are not seen, and tensors stay immutable values.
`burn_torch.compat.from_torch(t, device)` wraps a torch tensor's storage without a copy when
sharing is intended (and torch.from_numpy shares the numpy array's)."""
RECIPE = "from_torch(torch.from_numpy(a), device) to share; otherwise expect a copy"


def torch_side():
    a = np.array([1.0, 2.0])
    t = torch.from_numpy(a)
    a[0] = 10.0
    t.tolist()


def burn_literal():
    a = np.array([1.0, 2.0])
    t = Tensor.from_data(a, Device.cpu())
    a[0] = 10.0
    t.to_data().to_list()


def burn_side():
    from burn_torch.compat import from_torch
    a = np.array([1.0, 2.0])
    t = from_torch(torch.from_numpy(a), Device.cpu())
    a[0] = 10.0
    t.to_data().to_list()


TORCH = {"t.tolist()": [10.0, 2.0]}
LITERAL = {"t.to_data().to_list()": [1.0, 2.0]}
BURN = {"t.to_data().to_list()": [10.0, 2.0]}
