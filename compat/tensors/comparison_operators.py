"""== is not elementwise: use equal(); < raises."""
import torch

from burn_torch import Device, Tensor

ID = "comparison_operators"
TITLE = "`==` compares objects, not elements: use `equal()`, `lower()`, ..."
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("tensor_comparison",)
WHAT = "a == b is Python object identity (a bool); <, <=, >, >= raise; comparisons are methods"
WHY = """burn_torch follows Burn, where comparisons are named methods returning Bool tensors:
`equal`, `not_equal`, `greater`, `greater_equal`, `lower`, `lower_equal`, and `_elem` forms for
scalars (`x.greater_elem(0.0)`). The operators are not overloaded: `a == b` is Python's identity
comparison, a plain False for two different tensors with equal values, and `a < b` raises."""
RECIPE = "a.equal(b), a.greater_elem(0.0), ...; a.all_close(b) for a Python bool"


def torch_side():
    a = torch.tensor([1.0, 2.0])
    b = torch.tensor([1.0, 3.0])
    (a == b).tolist()


def burn_literal():
    a = Tensor.from_floats([1.0, 2.0], Device.cpu())
    b = Tensor.from_floats([1.0, 3.0], Device.cpu())
    a == b


def burn_side():
    a = Tensor.from_floats([1.0, 2.0], Device.cpu())
    b = Tensor.from_floats([1.0, 3.0], Device.cpu())
    a.equal(b).to_data().to_list()


TORCH = {"(a == b).tolist()": [True, False]}
LITERAL = {"a == b": False}
BURN = {"a.equal(b).to_data().to_list()": [True, False]}
