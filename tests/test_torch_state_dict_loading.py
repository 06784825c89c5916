"""``load_torch_state_dict`` takes any dense torch tensor (non-contiguous, another real dtype:
cast to the parameter's dtype) and refuses meta, sparse, nested, quantized and complex ones
with a ValueError naming the key, leaving the module unchanged."""
from __future__ import annotations

import pytest
import torch

from burn_torch import Device, nn
from burn_torch.compat import load_torch_state_dict
from burn_torch.module import RecordMismatchError

CPU = Device.cpu()


def torch_linear() -> torch.nn.Linear:
    torch.manual_seed(0)
    return torch.nn.Linear(3, 2)


def burn_linear():
    return nn.LinearConfig(3, 2).init(CPU)


def expected_weight(sd) -> torch.Tensor:
    return sd["weight"].detach().to(torch.float32).t()


def test_a_non_contiguous_weight_loads():
    sd = torch_linear().state_dict()
    sd["weight"] = sd["weight"].t().contiguous().t()  # same values, transposed strides
    assert not sd["weight"].is_contiguous()
    model, _ = load_torch_state_dict(burn_linear(), sd)
    assert torch.equal(model.weight.val().to_torch(), expected_weight(sd))


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.bfloat16, torch.int32])
def test_another_real_dtype_is_cast_to_the_parameter_dtype(dtype):
    sd = {k: v.to(dtype) for k, v in torch_linear().state_dict().items()}
    model, _ = load_torch_state_dict(burn_linear(), sd)
    weight = model.weight.val().to_torch()
    assert weight.dtype == torch.float32
    assert torch.equal(weight, expected_weight(sd))


def test_a_float_value_for_an_int_parameter_is_refused_naming_the_key():
    from burn_torch import Tensor
    from burn_torch.module import Module, Param

    class Counter(Module):
        def __init__(self) -> None:
            super().__init__()
            self.count = Param(Tensor.from_ints([1, 2], CPU))

    with pytest.raises(RecordMismatchError, match="count: a torch.float32 tensor cannot be cast"):
        load_torch_state_dict(Counter(), {"count": torch.tensor([1.5, 2.0])})


def _sparse(t):
    return t.to_sparse()


def _sparse_csr(t):
    return t.to_sparse_csr()


def _meta(t):
    return t.to("meta")


def _quantized(t):
    return torch.quantize_per_tensor(t.float(), 0.1, 0, torch.qint8)


def _complex(t):
    return t.to(torch.complex64)


UNUSABLE = {"meta": (_meta, "meta tensor"), "sparse COO": (_sparse, "t.to_dense()"),
            "sparse CSR": (_sparse_csr, "t.to_dense()"),
            "quantized": (_quantized, "t.dequantize()"), "complex": (_complex, "complex dtype")}


@pytest.mark.parametrize("case", sorted(UNUSABLE))
def test_an_unusable_tensor_is_refused_with_a_value_error_naming_the_key(case):
    make, hint = UNUSABLE[case]
    model = burn_linear()
    before = model.weight.val().to_torch().clone()
    sd = torch_linear().state_dict()
    sd["weight"] = make(sd["weight"])
    with pytest.raises(ValueError, match=r"'weight'") as info:
        load_torch_state_dict(model, sd)
    assert hint in str(info.value)
    assert torch.equal(model.weight.val().to_torch(), before)


def test_a_non_tensor_entry_is_a_type_error():
    sd = dict(torch_linear().state_dict(), bias=[0.0, 0.0])
    with pytest.raises(TypeError, match="'bias' must be a torch.Tensor, got list"):
        load_torch_state_dict(burn_linear(), sd)


def test_a_tensor_requiring_grad_loads_without_torch_autograd_state():
    lin = torch_linear()
    sd = {"weight": lin.weight * 1.0, "bias": lin.bias}  # grad_fn and requires_grad
    model, _ = load_torch_state_dict(burn_linear(), sd)
    w = model.weight.val().to_torch()
    assert not w.requires_grad and w.grad_fn is None
