"""from_torch_module: standard torch.nn layers and containers become burn_torch modules that
compute what the torch layer computes, with its weights under its state-dict names."""
from __future__ import annotations

import pytest
import torch

from burn_torch import Device, nn
from burn_torch.compat import from_torch, to_torch_state_dict
from burn_torch.interop import from_torch_module, register_converter, supported_torch_modules
from burn_torch.interop.torch_layers import Flatten, Sequential, StackedLstm
from burn_torch.module import Module

CPU = Device.cpu()


def _cases():
    g = torch.Generator().manual_seed(0)

    def randn(*shape):
        return torch.randn(*shape, generator=g)
    return [
        ("linear", torch.nn.Linear(4, 3), randn(2, 4)),
        ("linear_no_bias", torch.nn.Linear(4, 3, bias=False), randn(2, 4)),
        ("conv1d", torch.nn.Conv1d(2, 3, 3, padding=1, stride=2), randn(2, 2, 7)),
        ("conv2d", torch.nn.Conv2d(2, 4, 3, padding=(1, 2), groups=2), randn(2, 2, 6, 5)),
        ("conv2d_same", torch.nn.Conv2d(2, 2, 3, padding="same", bias=False), randn(1, 2, 5, 5)),
        ("batch_norm2d", torch.nn.BatchNorm2d(3), randn(2, 3, 4, 4)),
        ("batch_norm1d", torch.nn.BatchNorm1d(3), randn(5, 3)),
        ("layer_norm", torch.nn.LayerNorm(5, eps=1e-3), randn(2, 5)),
        ("group_norm", torch.nn.GroupNorm(2, 4), randn(2, 4, 3)),
        ("embedding", torch.nn.Embedding(10, 3), torch.tensor([[1, 2], [9, 0]])),
        ("gelu_tanh", torch.nn.GELU("tanh"), randn(3)),
        ("leaky_relu", torch.nn.LeakyReLU(0.2), randn(3)),
        ("prelu", torch.nn.PReLU(3), randn(2, 3)),
        ("max_pool", torch.nn.MaxPool2d(3, stride=2, padding=1), randn(1, 1, 5, 5)),
        ("avg_pool", torch.nn.AvgPool2d(2), randn(1, 1, 4, 4)),
        ("adaptive_avg_pool", torch.nn.AdaptiveAvgPool2d((2, 2)), randn(1, 1, 5, 5)),
        ("sequential", torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Dropout(0.5),
                                           torch.nn.Identity(), torch.nn.Tanh(), torch.nn.Sigmoid(),
                                           torch.nn.Flatten(0)), randn(2, 4)),
    ]


CASES = _cases()


@pytest.mark.parametrize("torch_layer,x", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_converted_layer_computes_what_the_torch_layer_computes(torch_layer, x):
    torch_layer.eval()
    with torch.no_grad():
        torch.nn.init.normal_(next(iter(torch_layer.parameters()), torch.empty(0)))
        expected = torch_layer(x)
    layer = from_torch_module(torch_layer, CPU, batch_norm_running_var="torch").valid()
    got = layer.forward(from_torch(x, CPU)).to_torch()
    assert got.shape == expected.shape
    torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("torch_layer", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_converted_weights_export_under_the_torch_names(torch_layer):
    exported = to_torch_state_dict(from_torch_module(torch_layer, CPU, batch_norm_running_var="burn"))
    expected = torch_layer.state_dict()
    assert sorted(exported) == sorted(expected)
    for key, value in expected.items():
        if key != "num_batches_tracked":
            assert torch.equal(exported[key], value), key


@pytest.mark.parametrize("batch_first,layers", [(False, 1), (True, 1), (False, 2), (True, 3)])
def test_lstm_converts_with_its_layout_and_layers(batch_first, layers):
    lstm = torch.nn.LSTM(3, 4, layers, batch_first=batch_first)
    x = torch.randn(2, 5, 3)
    expected, (h, c) = lstm(x)
    converted = from_torch_module(lstm, CPU)
    output, states = converted.forward(from_torch(x, CPU))
    torch.testing.assert_close(output.to_torch(), expected.detach(), rtol=1e-5, atol=1e-6)
    if layers == 1:
        assert isinstance(converted, nn.Lstm)
        states = [states]
    else:
        assert isinstance(converted, StackedLstm) and len(converted.layers) == layers
    for k, state in enumerate(states):
        torch.testing.assert_close(state.hidden.to_torch(), h[k].detach(), rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(state.cell.to_torch(), c[k].detach(), rtol=1e-5, atol=1e-6)
    assert sorted(to_torch_state_dict(converted)) == sorted(lstm.state_dict())


def test_multihead_attention_converts_with_the_fused_projection():
    mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
    x = torch.randn(2, 3, 8)
    expected, _ = mha(x, x, x)
    converted = from_torch_module(mha, CPU).valid()
    got = converted.forward(nn.MhaInput.self_attn(from_torch(x, CPU))).context
    torch.testing.assert_close(got.to_torch(), expected.detach(), rtol=1e-5, atol=1e-6)


def test_seq_first_multihead_attention_warns_about_the_layout():
    with pytest.warns(UserWarning, match=r"takes \[batch, seq, d_model\] inputs"):
        from_torch_module(torch.nn.MultiheadAttention(8, 2), CPU)


def test_containers_become_a_sequential_a_list_and_a_dict():
    seq = from_torch_module(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU()), CPU)
    assert isinstance(seq, Sequential) and isinstance(seq[0], nn.Linear) and isinstance(seq[1], nn.Relu)
    items = from_torch_module(torch.nn.ModuleList([torch.nn.Linear(2, 2), torch.nn.Flatten()]), CPU)
    assert isinstance(items, list) and isinstance(items[1], Flatten)
    named = from_torch_module(torch.nn.ModuleDict({"a": torch.nn.Tanh()}), CPU)
    assert list(named) == ["a"] and isinstance(named["a"], nn.Tanh)


def test_parameters_are_copies_and_trainable_on_an_autodiff_device():
    torch_layer = torch.nn.Linear(2, 1)
    layer = from_torch_module(torch_layer, CPU.autodiff())
    with torch.no_grad():
        torch_layer.weight.fill_(7.0)
    assert not torch.equal(layer.weight.val().to_torch().t(), torch_layer.weight)
    grads = layer.forward(from_torch(torch.ones(1, 2), CPU.autodiff())).sum().backward()
    assert layer.weight.val().grad(grads).dims() == [2, 1]


@pytest.mark.parametrize("torch_layer,setting", [
    (torch.nn.Conv2d(1, 1, 3, padding_mode="reflect"), "padding_mode='reflect'"),
    (torch.nn.LSTM(3, 2, proj_size=1), "proj_size > 0"),
    (torch.nn.Embedding(4, 2, padding_idx=0), "padding_idx"),
    (torch.nn.MaxPool2d(2, return_indices=True), "return_indices=True"),
])
def test_a_setting_without_counterpart_raises_naming_it(torch_layer, setting):
    with pytest.raises(ValueError, match=f"{type(torch_layer).__name__} with .*{setting[:12]}"):
        from_torch_module(torch_layer, CPU)


def test_a_model_with_its_own_forward_raises_with_what_to_do():
    class Net(torch.nn.Module):
        def forward(self, x):
            return x

    with pytest.raises(TypeError, match=r"no converter for .*Net: write its port .* and pass "
                                        r"classes=\{Net: PortNet\}"):
        from_torch_module(Net(), CPU)


def test_arguments_are_checked():
    with pytest.raises(TypeError, match="expects a torch.nn.Module, got Linear"):
        from_torch_module(nn.LinearConfig(1, 1).init(CPU), CPU)
    with pytest.raises(TypeError, match="expects a burn_torch Device, got str"):
        from_torch_module(torch.nn.ReLU(), "cpu")


def test_register_converter_adds_a_class():
    class Scale(torch.nn.Module):
        def forward(self, x):
            return 2 * x

    class BurnScale(Module):
        def forward(self, x):
            return x * 2.0

    register_converter(Scale, lambda module, device: BurnScale())
    assert "Scale" in supported_torch_modules()
    assert isinstance(from_torch_module(torch.nn.Sequential(Scale()), CPU)[0], BurnScale)
    with pytest.raises(TypeError, match="expects a torch.nn.Module subclass"):
        register_converter(int, lambda m, d: None)
