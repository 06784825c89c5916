"""burn_torch.compat state dicts: PyTorch names and layouts both ways, missing/unexpected keys."""
from __future__ import annotations

import pytest
import torch

from burn_torch import Tensor, nn
from burn_torch.compat import (BATCH_NORM, IncompatibleKeys, LayerAdapter, adapter_for,
                               load_torch_state_dict, register_adapter, to_torch_state_dict)
from burn_torch.module import Module, Param, RecordMismatchError, list_param_ids
from helpers import AD, CPU, Mlp, TorchMlp

X = torch.randn(5, 4, generator=torch.Generator().manual_seed(0))


def burn_out(model: Mlp) -> torch.Tensor:
    return model.forward(Tensor.from_data(X, CPU)).to_torch()


def test_exported_state_dict_has_torch_names_and_transposed_linear_weights():
    model = Mlp(CPU)
    sd = to_torch_state_dict(model)
    assert list(sd) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert list(sd["fc1.weight"].shape) == [8, 4]
    assert torch.equal(sd["fc1.weight"], model.fc1.weight.val().to_torch().t())
    assert sd["fc1.weight"].is_contiguous() and not sd["fc1.weight"].requires_grad


def test_exported_state_dict_loads_into_torch_and_computes_the_same_outputs():
    model = Mlp(AD)
    reference = TorchMlp()
    reference.load_state_dict(to_torch_state_dict(model))
    with torch.no_grad():
        torch.testing.assert_close(burn_out(model.valid()), reference(X), rtol=1e-6, atol=1e-6)


def test_exported_tensors_do_not_alias_the_module():
    model = Mlp(CPU)
    sd = to_torch_state_dict(model)
    sd["fc1.bias"].fill_(7.0)
    assert model.fc1.bias.val().to_data().to_list() != [7.0] * 8


def test_torch_state_dict_loads_with_transposition_and_keeps_ids_and_trainability():
    reference = TorchMlp()
    model = Mlp(AD)
    loaded, keys = load_torch_state_dict(model, reference.state_dict())
    assert keys == IncompatibleKeys([], [])
    assert list_param_ids(loaded) == list_param_ids(model)
    assert all(p.is_require_grad() for p in loaded.params())
    assert torch.equal(loaded.fc1.weight.val().to_torch(), reference.fc1.weight.detach().t())
    with torch.no_grad():
        torch.testing.assert_close(burn_out(loaded.valid()), reference(X), rtol=1e-6, atol=1e-6)


def test_loaded_values_are_copies_of_the_torch_tensors():
    reference = TorchMlp()
    loaded, _ = load_torch_state_dict(Mlp(CPU), reference.state_dict())
    with torch.no_grad():
        reference.fc1.bias.fill_(3.0)
    assert loaded.fc1.bias.val().to_data().to_list() != [3.0] * 8


def test_state_dict_round_trip_is_bit_exact():
    model = Mlp(CPU)
    back, _ = load_torch_state_dict(Mlp(CPU), to_torch_state_dict(model))
    for a, b in zip(model.params(), back.params()):
        assert torch.equal(a.val().to_torch(), b.val().to_torch())


def test_missing_and_unexpected_keys_raise_in_strict_mode_and_leave_the_module():
    model = Mlp(CPU)
    sd = TorchMlp().state_dict()
    del sd["fc2.bias"]
    sd["fc3.weight"] = torch.zeros(1)
    with pytest.raises(RecordMismatchError, match=r"missing: fc2.bias \| unexpected: fc3.weight") as err:
        load_torch_state_dict(model, sd)
    assert (err.value.missing, err.value.unexpected) == (["fc2.bias"], ["fc3.weight"])


def test_non_strict_load_reports_missing_and_unexpected_keys_like_torch():
    model = Mlp(CPU)
    sd = TorchMlp().state_dict()
    del sd["fc2.bias"]
    sd["fc3.weight"] = torch.zeros(1)
    loaded, keys = load_torch_state_dict(model, sd, strict=False)
    assert keys == IncompatibleKeys(["fc2.bias"], ["fc3.weight"])
    assert loaded.fc2.bias.val() is model.fc2.bias.val()
    assert torch.equal(loaded.fc2.weight.val().to_torch(), sd["fc2.weight"].t())


def test_a_shape_mismatch_names_the_torch_key_and_leaves_the_module():
    model = Mlp(CPU)
    before = model.fc1.weight.val()
    sd = TorchMlp().state_dict()
    sd["fc1.weight"] = sd["fc1.weight"].t()  # Burn's layout given where torch's is expected
    with pytest.raises(RecordMismatchError, match=r"fc1.weight: expected shape \[8, 4\], got \[4, 8\]"):
        load_torch_state_dict(model, sd, strict=False)
    assert model.fc1.weight.val() is before


class Norm(Module):
    """A stand-in for a Burn norm layer: gamma/beta plus running statistics."""

    def __init__(self) -> None:
        super().__init__()
        self.gamma = Param(Tensor.ones([3], CPU))
        self.beta = Param(Tensor.zeros([3], CPU))
        self.running_mean = Param(Tensor.zeros([3], CPU)).set_require_grad(False)
        self.running_var = Param(Tensor.ones([3], CPU)).set_require_grad(False)


class Net(Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.LinearConfig(2, 3).init(CPU)
        self.bn = Norm()


def test_batch_norm_adapter_renames_gamma_beta_and_handles_num_batches_tracked():
    register_adapter(Norm, BATCH_NORM)
    assert adapter_for(Norm()) is BATCH_NORM
    reference = torch.nn.BatchNorm1d(3)
    with torch.no_grad():
        reference.weight.copy_(torch.tensor([1.0, 2.0, 3.0]))
        reference.running_var.copy_(torch.tensor([4.0, 5.0, 6.0]))
    torch_sd = {f"bn.{k}": v for k, v in reference.state_dict().items()}
    torch_sd.update({f"fc.{k}": v for k, v in torch.nn.Linear(2, 3).state_dict().items()})
    loaded, keys = load_torch_state_dict(Net(), torch_sd)
    assert keys == IncompatibleKeys([], [])
    assert loaded.bn.gamma.val().to_data().to_list() == [1.0, 2.0, 3.0]
    assert loaded.bn.running_var.val().to_data().to_list() == [4.0, 5.0, 6.0]
    assert not loaded.bn.running_var.is_trainable()
    exported = to_torch_state_dict(loaded)
    assert list(exported) == ["fc.weight", "fc.bias", "bn.weight", "bn.bias", "bn.running_mean",
                              "bn.running_var", "bn.num_batches_tracked"]
    reference.load_state_dict({k[3:]: v for k, v in exported.items() if k.startswith("bn.")})


def test_custom_adapters_apply_to_subclasses():
    class Transposed(Module):
        def __init__(self):
            super().__init__()
            self.kernel = Param(Tensor.from_floats([[1.0, 2.0, 3.0]], CPU))

    class Child(Transposed):
        pass

    register_adapter(Transposed, LayerAdapter(renames={"kernel": "weight"}, transposed=frozenset({"kernel"})))
    sd = to_torch_state_dict(Child())
    assert list(sd) == ["weight"] and sd["weight"].tolist() == [[1.0], [2.0], [3.0]]


def test_register_adapter_needs_a_module_class():
    with pytest.raises(TypeError, match="Module subclass"):
        register_adapter(torch.nn.Linear, BATCH_NORM)
