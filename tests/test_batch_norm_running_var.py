"""BatchNorm's running variance: Burn's biased estimate by default, PyTorch's unbiased one on
request, and never a silent choice when a torch BatchNorm is converted.

Burn 0.21 (``burn-nn/src/modules/norm/batch.rs``, ``forward_train``) and Burn's newest sources
update ``running_var`` with the mean of squared deviations (biased); torch with the unbiased
estimate. Compared here over a real ``torch.nn.BatchNorm2d`` training sequence."""
import pytest
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.interop import from_torch_module

AD = Device.cpu().autodiff()
STEPS = 8


def _batches():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(4, 3, 5, 5, generator=g) * (1.0 + k) + k for k in range(STEPS)]


def _train(layer, batches):
    for x in batches:
        layer.forward(Tensor.from_data(x, AD))
    return layer


def _torch_trained():
    reference = torch.nn.BatchNorm2d(3).train()
    with torch.no_grad():
        for x in _batches():
            reference(x)
    return reference


def test_burns_running_var_is_the_biased_batch_variance():
    layer = _train(nn.BatchNormConfig(3).init(AD), _batches())
    expected = torch.ones(3, dtype=torch.float64)
    for x in _batches():
        expected = expected * 0.9 + x.double().transpose(0, 1).reshape(3, -1).var(1, unbiased=False) * 0.1
    torch.testing.assert_close(layer.running_var.val().to_torch().double(), expected, rtol=1e-5, atol=1e-6)


def test_burns_running_var_differs_from_torchs_after_training():
    layer = _train(nn.BatchNormConfig(3).init(AD), _batches())
    gap = (layer.running_var.val().to_torch() / _torch_trained().running_var - 1).abs().max().item()
    assert gap > 0.005  # n / (n - 1) = 100 / 99 on each batch's contribution


def test_unbiased_running_var_keeps_torchs_numbers():
    layer = _train(nn.BatchNormConfig(3).with_unbiased_running_var(True).init(AD), _batches())
    reference = _torch_trained()
    torch.testing.assert_close(layer.running_var.val().to_torch(), reference.running_var, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(layer.running_mean.val().to_torch(), reference.running_mean, rtol=1e-5, atol=1e-6)


def test_unbiased_running_var_refuses_one_value_per_channel_as_torch_does():
    layer = nn.BatchNormConfig(3).with_unbiased_running_var(True).init(AD)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        layer.forward(Tensor.ones([1, 3], AD))


def test_converting_a_torch_batch_norm_without_a_choice_raises_naming_both():
    with pytest.raises(ValueError, match='BatchNorm2d\\(3\\) would change numbers once trained.*'
                                         'batch_norm_running_var="torch".*batch_norm_running_var="burn"'):
        from_torch_module(torch.nn.BatchNorm2d(3), AD)


def test_a_batch_norm_inside_a_container_is_refused_too():
    with pytest.raises(ValueError, match="would change numbers once trained"):
        from_torch_module(torch.nn.Sequential(torch.nn.Conv2d(3, 3, 1), torch.nn.BatchNorm2d(3)), AD)


@pytest.mark.parametrize("choice, matches_torch", [("torch", True), ("burn", False)])
def test_the_converted_layer_trains_as_chosen(choice, matches_torch):
    layer = _train(from_torch_module(torch.nn.BatchNorm2d(3), AD, batch_norm_running_var=choice), _batches())
    same = torch.allclose(layer.running_var.val().to_torch(), _torch_trained().running_var, rtol=1e-5, atol=1e-6)
    assert same is matches_torch


def test_another_choice_is_refused():
    with pytest.raises(ValueError, match="batch_norm_running_var is 'torch' or 'burn', got 'unbiased'"):
        from_torch_module(torch.nn.BatchNorm2d(3), AD, batch_norm_running_var="unbiased")
