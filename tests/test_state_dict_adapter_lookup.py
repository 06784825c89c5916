"""State-dict adapters are found through the class hierarchy, and a burn_torch.nn layer that
declares none raises instead of loading PyTorch weights in a guessed layout."""
import pytest
import torch

from burn_torch import Device, nn
from burn_torch.compat import load_torch_state_dict, to_torch_state_dict
from burn_torch.interop.state_dict import LayerAdapter, register_adapter
from burn_torch.module import Module, Param

CPU = Device.cpu()


class MyLinear(nn.Linear):
    pass


def _my_linear() -> MyLinear:
    base = nn.LinearConfig(4, 4).init(CPU)
    layer = MyLinear.__new__(MyLinear)
    layer.__dict__.update(base.__dict__)
    return layer


def test_a_subclass_of_linear_loads_the_torch_weight_transposed():
    reference = torch.nn.Linear(4, 4)
    loaded, _ = load_torch_state_dict(_my_linear(), reference.state_dict())
    assert torch.equal(loaded.weight.val().to_torch(), reference.weight.detach().T)


def test_a_subclass_of_linear_exports_in_torchs_layout():
    layer = _my_linear()
    assert torch.equal(to_torch_state_dict(layer)["weight"], layer.weight.val().to_torch().T)


def test_a_subclass_of_a_norm_layer_gets_its_renames():
    class MyNorm(nn.LayerNorm):
        pass

    base = nn.LayerNormConfig(3).init(CPU)
    layer = MyNorm.__new__(MyNorm)
    layer.__dict__.update(base.__dict__)
    assert sorted(to_torch_state_dict(layer)) == ["bias", "weight"]


def _undeclared_nn_layer():
    class Scale(Module):
        def __init__(self):
            self.factor = Param.from_data([[1.0, 2.0], [3.0, 4.0]], CPU)

    Scale.__module__ = "burn_torch.nn.scale"  # as a layer added to burn_torch.nn would be
    return Scale


def test_a_burn_torch_nn_layer_without_an_adapter_raises_naming_register_adapter():
    layer = _undeclared_nn_layer()()
    with pytest.raises(TypeError, match=r"no state-dict adapter for burn_torch\.nn\.scale\..*Scale.*"
                                        r"register_adapter\(Scale, LayerAdapter\(...\)\)"):
        load_torch_state_dict(layer, {"factor": torch.ones(2, 2)})


def test_registering_an_adapter_makes_that_layer_load():
    cls = _undeclared_nn_layer()
    register_adapter(cls, LayerAdapter(transposed=frozenset({"factor"})))
    loaded, _ = load_torch_state_dict(cls(), {"factor": torch.tensor([[1.0, 2.0], [3.0, 4.0]])})
    assert loaded.factor.val().to_data().to_list() == [[1.0, 3.0], [2.0, 4.0]]


def test_modules_of_your_own_keep_their_names_and_layouts():
    class Mine(Module):
        def __init__(self):
            self.w = Param.from_data([[1.0, 2.0]], CPU)

    loaded, _ = load_torch_state_dict(Mine(), {"w": torch.tensor([[5.0, 6.0]])})
    assert loaded.w.val().to_data().to_list() == [[5.0, 6.0]]
