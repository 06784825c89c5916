"""Burn's normalisation layers against their torch.nn twins (same weights through the state-dict
adapters): outputs and gradients of the input and every parameter equal within 1e-5 in float32
and 1e-10 in float64. LayerNorm, GroupNorm, InstanceNorm and RmsNorm are each one recorded op;
LocalResponseNorm keeps Burn's window for an even size."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from burn_torch import Device, Tensor, nn
from burn_torch.compat import load_torch_state_dict, to_torch_state_dict
from test_nn_activations import Fn
from test_nn_layers import BURN_DTYPE, DTYPES, Case, close, randn, run_both

CPU = Device.cpu()
AD = CPU.autodiff()


def burn_lrn(size, alpha, beta, k):
    """Burn's LocalResponseNorm written with torch: channels padded (size - 1) // 2 below and
    size // 2 above, the mean of the squares over the window."""
    def fn(x):
        sq = F.pad(x.square().unsqueeze(1), (0, 0) * (x.dim() - 2) + ((size - 1) // 2, size // 2))
        windows = torch.stack([sq[:, 0, i:i + x.shape[1]] for i in range(size)]).mean(0)
        return x / (windows * alpha + k).pow(beta)
    return fn


CASES = {
    "instance_norm_2d": Case(lambda: nn.InstanceNormConfig(4).init(CPU),
                             lambda: torch.nn.InstanceNorm2d(4, affine=True),
                             lambda dt: [randn(2, 4, 3, 5, dtype=dt)]),
    "instance_norm_1d_no_affine": Case(lambda: nn.InstanceNormConfig(3).with_affine(False)
                                       .with_epsilon(1e-3).init(CPU),
                                       lambda: torch.nn.InstanceNorm1d(3, eps=1e-3),
                                       lambda dt: [randn(2, 3, 7, dtype=dt)]),
    "rms_norm": Case(lambda: nn.RmsNormConfig(6).init(CPU), lambda: torch.nn.RMSNorm(6, eps=1e-5),
                     lambda dt: [randn(3, 4, 6, dtype=dt)]),
    "rms_norm_eps": Case(lambda: nn.RmsNormConfig(5).with_epsilon(0.1).init(CPU),
                         lambda: torch.nn.RMSNorm(5, eps=0.1), lambda dt: [randn(4, 5, dtype=dt)]),
    "local_response_norm_odd": Case(lambda: nn.LocalResponseNormConfig(3).with_alpha(0.5).init(),
                                    lambda: torch.nn.LocalResponseNorm(3, alpha=0.5),
                                    lambda dt: [randn(2, 5, 3, 4, dtype=dt)]),
    "local_response_norm_1d": Case(
        lambda: nn.LocalResponseNormConfig(5).with_alpha(0.3).with_beta(0.6).with_k(2.0).init(),
        lambda: torch.nn.LocalResponseNorm(5, alpha=0.3, beta=0.6, k=2.0),
        lambda dt: [randn(2, 4, 6, dtype=dt)]),
    "local_response_norm_even": Case(lambda: nn.LocalResponseNormConfig(4).with_alpha(0.5).init(),
                                     lambda: Fn(burn_lrn(4, 0.5, 0.75, 1.0)),
                                     lambda dt: [randn(2, 5, 3, dtype=dt)]),
    "local_response_norm_wider_than_channels": Case(
        lambda: nn.LocalResponseNormConfig(6).with_alpha(0.5).init(),
        lambda: Fn(burn_lrn(6, 0.5, 0.75, 1.0)), lambda dt: [randn(2, 3, 4, dtype=dt)]),
}


@pytest.mark.parametrize("dtype, tol", DTYPES)
@pytest.mark.parametrize("name", list(CASES))
def test_norm_output_and_gradients_equal_torch(name, dtype, tol):
    outs_t, outs_b, grads_t, grads_b, inputs = run_both(CASES[name], dtype)
    for o_t, o_b in zip(outs_t, outs_b):
        assert o_b.dtype() == BURN_DTYPE[dtype]
        close(o_b.to_torch(), o_t.detach(), tol)
    for g_t, g_b in inputs:
        close(g_b.to_torch(), g_t, tol)
    assert set(grads_t) == set(grads_b)
    for key, g_t in grads_t.items():
        close(grads_b[key], g_t, tol)


def test_local_response_norm_with_an_even_size_differs_from_torch_as_burn():
    x = randn(2, 5, 3, dtype=torch.float64)
    out = nn.LocalResponseNormConfig(2).with_alpha(1.0).init().forward(Tensor.from_data(x, CPU))
    assert not torch.allclose(out.to_torch(), torch.nn.LocalResponseNorm(2, alpha=1.0)(x))
    close(out.to_torch(), burn_lrn(2, 1.0, 0.75, 1.0)(x), 1e-12)


@pytest.mark.parametrize("make, op", [
    (lambda: nn.LayerNormConfig(6).init(AD), "layer_norm"),
    (lambda: nn.GroupNormConfig(2, 6).init(AD), "group_norm"),
    (lambda: nn.InstanceNormConfig(6).init(AD), "group_norm"),
    (lambda: nn.RmsNormConfig(6).init(AD), "rms_norm"),
], ids=["layer_norm", "group_norm", "instance_norm", "rms_norm"])
def test_norm_layer_records_one_op(make, op):
    layer = make()
    x = Tensor.from_data(randn(2, 6, 6), AD).require_grad()
    out = layer.forward(x)
    assert out._node.op.name == op
    assert out._node.parents[0] is x._node


def test_configs_have_burns_fields_and_defaults():
    inst = nn.InstanceNormConfig(3)
    assert (inst.epsilon, inst.affine) == (1e-5, True)
    assert nn.RmsNormConfig(4).epsilon == 1e-5
    lrn = nn.LocalResponseNormConfig(3)
    assert (lrn.alpha, lrn.beta, lrn.k) == (0.0001, 0.75, 1.0)


def test_record_fields_are_burns():
    assert sorted(n for n, _ in nn.InstanceNormConfig(3).init(CPU).named_params()) == ["beta", "gamma"]
    assert [n for n, _ in nn.InstanceNormConfig(3).with_affine(False).init(CPU).named_params()] == []
    assert [n for n, _ in nn.RmsNormConfig(4).init(CPU).named_params()] == ["gamma"]


@pytest.mark.parametrize("make, reference", [
    (lambda: nn.InstanceNormConfig(4).init(CPU), lambda: torch.nn.InstanceNorm2d(4, affine=True)),
    (lambda: nn.RmsNormConfig(6).init(CPU), lambda: torch.nn.RMSNorm(6)),
], ids=["instance_norm", "rms_norm"])
def test_state_dict_round_trip_keeps_torch_names(make, reference):
    ref = reference()
    torch.nn.init.normal_(ref.weight)
    loaded, _ = load_torch_state_dict(make(), ref.state_dict())
    exported = to_torch_state_dict(loaded)
    assert sorted(exported) == sorted(ref.state_dict())
    for key, value in ref.state_dict().items():
        assert torch.equal(exported[key], value)


def test_rms_norm_config_rejects_a_non_positive_epsilon():
    with pytest.raises(ValueError, match="epsilon"):
        nn.RmsNormConfig(4).with_epsilon(0.0).init(CPU)


def test_local_response_norm_rejects_rank_below_3():
    with pytest.raises(ValueError, match="rank >= 3"):
        nn.LocalResponseNormConfig(3).init().forward(Tensor.from_data(torch.zeros(2, 3), CPU))


def test_instance_norm_rejects_wrong_channel_count():
    with pytest.raises(ValueError, match="num_channels|4"):
        nn.InstanceNormConfig(4).init(CPU).forward(Tensor.from_data(torch.zeros(2, 3, 5), CPU))


@pytest.mark.parametrize("config, layer, features", [
    (nn.NormalizationConfig.identity(), nn.Identity, 0),
    (nn.NormalizationConfig.batch(nn.BatchNormConfig(0)), nn.BatchNorm, 6),
    (nn.NormalizationConfig.group(nn.GroupNormConfig(2, 0)), nn.GroupNorm, 6),
    (nn.NormalizationConfig.instance(nn.InstanceNormConfig(0)), nn.InstanceNorm, 6),
    (nn.NormalizationConfig.layer(nn.LayerNormConfig(0)), nn.LayerNorm, 6),
    (nn.NormalizationConfig.rms(nn.RmsNormConfig(0)), nn.RmsNorm, 6),
], ids=lambda v: getattr(v, "kind", ""))
def test_normalization_config_resizes_and_builds_each_layer(config, layer, features):
    sized = config.with_num_features(6)
    assert sized.num_features() == features
    assert isinstance(sized.init(CPU), layer)
    if features:
        assert [p.val().dims() for _, p in sized.init(CPU).named_params()][0] == [6]


def test_normalization_config_refuses_another_kinds_config():
    with pytest.raises(TypeError, match="LayerNormConfig"):
        nn.NormalizationConfig.layer(nn.RmsNormConfig(4))
