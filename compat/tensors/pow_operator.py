"""x ** 2 vs powf_scalar."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "pow_operator"
TITLE = "No `**` operator: `powf_scalar`, `powf`, `powi` or `square`"
CATEGORY = "tensors"
SEVERITY = "loud"
DETECTORS = ("pow_operator",)
WHAT = "tensors do not implement ** (nor pow); Burn names the power by its exponent's kind"
WHY = """Burn has no `Pow` operator overload: the power is a method named after the exponent,
`powf_scalar(2.0)` (a float exponent), `powi_scalar(2)` (an integer one), `powf(t)` / `powi(t)`
(a tensor exponent), plus `square()`, `sqrt()` and `recip()`. Their gradients are PyTorch's."""
RECIPE = "x.powf_scalar(2.0) (or x.square()); x.powf(y) for a tensor exponent"


def torch_side():
    x = torch.tensor([1.0, 2.0, 3.0])
    (x ** 2).tolist()


def burn_literal():
    x = Tensor.from_floats([1.0, 2.0, 3.0], Device.cpu())
    x ** 2


def burn_side():
    x = Tensor.from_floats([1.0, 2.0, 3.0], Device.cpu())
    x.powf_scalar(2.0).to_data().to_list()


TORCH = {"(x ** 2).tolist()": [1.0, 4.0, 9.0]}
LITERAL = Raises(TypeError, "unsupported operand type(s) for ** or pow(): 'Tensor' and 'int'")
BURN = {"x.powf_scalar(2.0).to_data().to_list()": [1.0, 4.0, 9.0]}
