"""Int / is an integer division (truncating); PyTorch's / is true division."""
import torch

from burn_torch import Device, Tensor

ID = "integer_division"
TITLE = "Dividing Int tensors is an integer division"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("integer_true_division",)
WHAT = "Int / Int (or / scalar) stays Int and truncates toward zero; PyTorch's / returns floats"
WHY = """Burn's tensor kinds do not promote: dividing an Int tensor is an integer operation that
keeps the Int kind, as in Burn (truncating toward zero). PyTorch's `/` is true division and
returns a float tensor, and its `//` floors (so -7 // 2 is -4, not -3)."""
RECIPE = "convert first for true division: t.float() / 2"


def torch_side():
    t = torch.tensor([-7, 7])
    (t / 2).tolist()


def burn_literal():
    t = Tensor.from_ints([-7, 7], Device.cpu())
    (t / 2).to_data().to_list()


def burn_side():
    t = Tensor.from_ints([-7, 7], Device.cpu())
    (t.float() / 2).to_data().to_list()


TORCH = {"(t / 2).tolist()": [-3.5, 3.5]}
LITERAL = {"(t / 2).to_data().to_list()": [-3, 3]}
BURN = {"(t.float() / 2).to_data().to_list()": [-3.5, 3.5]}
