"""module.map(NewParamIds()): a copy of a module that is other parameters (a target network)."""
import copy

import pytest

from burn_torch import Device, Tensor, nn
from burn_torch.module import Module, NewParamIds, TiedParamError
from burn_torch.nn import Initializer
from burn_torch.optim import GradientsParams

AD = Device.cpu().autodiff()


class Pair(Module):
    def __init__(self, online, target):
        self.online, self.target = online, target


def _linear():
    return nn.LinearConfig(2, 1).with_initializer(Initializer.ones()).init(AD)


def test_every_parameter_gets_a_fresh_id():
    model = _linear()
    copied = model.map(NewParamIds())
    old, new = {p.id for p in model.params()}, {p.id for p in copied.params()}
    assert len(new) == 2 and old.isdisjoint(new)


def test_values_and_trainability_are_kept():
    model = _linear().no_grad().train()
    copied = model.map(NewParamIds())
    assert copied.weight.val().to_data().to_list() == model.weight.val().to_data().to_list()
    assert [p.is_trainable() for p in copied.params()] == [False, False]


def test_the_copy_is_a_separate_leaf_with_its_own_gradient():
    online = _linear()
    model = Pair(online, online.map(NewParamIds()))
    x = Tensor.from_floats([[1.0, 2.0]], AD)
    loss = (model.online.forward(x) * model.target.forward(x).powf_scalar(2.0)).sum()
    grads = GradientsParams.from_grads(loss.backward(), model)
    # y = w·x + b = 4 on both sides: d(y_o * y_t²)/dw_o = x * 16, d/dw_t = x * 2 * 4 * 4
    assert grads.get(model.online.weight.id).to_data().to_list() == [[16.0], [32.0]]
    assert grads.get(model.target.weight.id).to_data().to_list() == [[32.0], [64.0]]


def test_a_deep_copy_inside_the_module_is_refused_naming_the_way_out():
    online = _linear()
    model = Pair(online, copy.deepcopy(online))
    x = Tensor.ones([1, 2], AD)
    grads = (model.online.forward(x) * model.target.forward(x)).sum().backward()
    with pytest.raises(TiedParamError, match=r"copy = module.map\(NewParamIds\(\)\)"):
        GradientsParams.from_grads(grads, model)
