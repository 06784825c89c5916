"""Device: a torch device plus the autodiff context that tensors created on it inherit."""
import pickle

import pytest
import torch

from burn_torch import (AutodiffDisabledError, AutodiffError, Device, DeviceUnavailableError,
                        Distribution, GradientCheckpointingStrategy, Tensor)
from helpers import BALANCED, DISABLED

_MPS = getattr(torch.backends, "mps", None)
HAS_CUDA = torch.cuda.is_available()
HAS_MPS = _MPS is not None and _MPS.is_available()


def needs_cuda(test):
    """Marks a test ``cuda`` (``scripts/gpu-check`` runs ``-m cuda``) and skips it without one."""
    return pytest.mark.cuda(pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")(test))


needs_mps = pytest.mark.skipif(not HAS_MPS, reason="needs an Apple MPS device")


# ------------------------------------------------------------------------------ constructors ----
def test_cpu_device_uses_torch_cpu_and_has_autodiff_off():
    d = Device.cpu()
    assert d.torch == torch.device("cpu")
    assert d.is_autodiff() is False


@pytest.mark.skipif(HAS_CUDA, reason="this torch has CUDA")
@pytest.mark.parametrize("make", [lambda: Device.cuda(0), lambda: Device.cuda(),
                                  lambda: Device(torch.device("cuda")), lambda: Device("cuda:1")],
                         ids=["cuda(0)", "cuda()", "Device(torch.device('cuda'))", "Device('cuda:1')"])
def test_a_cuda_device_on_a_torch_without_cuda_fails_at_creation(make):
    with pytest.raises(DeviceUnavailableError, match=r"has no CUDA .*use Device\.cpu\(\)"):
        make()


@pytest.mark.skipif(HAS_MPS, reason="this torch has MPS")
def test_an_mps_device_where_mps_is_not_available_fails_at_creation():
    with pytest.raises(DeviceUnavailableError, match="MPS is not available"):
        Device.mps()


def test_device_unavailable_error_is_a_runtime_error():
    assert issubclass(DeviceUnavailableError, RuntimeError)


@needs_cuda
def test_a_cuda_index_beyond_the_devices_fails_at_creation():
    with pytest.raises(DeviceUnavailableError, match=f"there are {torch.cuda.device_count()} CUDA devices"):
        Device.cuda(torch.cuda.device_count())


@needs_cuda
def test_cuda_device_names_the_requested_index_and_defaults_to_zero():
    assert Device.cuda(0).torch == torch.device("cuda", 0)
    assert Device.cuda(0).is_autodiff() is False
    assert Device.cuda() == Device.cuda(0)


@needs_mps
def test_mps_device_uses_torch_mps_with_autodiff_off():
    d = Device.mps()
    assert d.torch.type == "mps"
    assert d.is_autodiff() is False


def test_default_device_is_cuda_then_mps_then_cpu():
    if HAS_CUDA:
        expected = Device.cuda(0)
    elif HAS_MPS:
        expected = Device.mps()
    else:
        expected = Device.cpu()
    assert Device.default() == expected
    assert Device.default().is_autodiff() is False


def test_torch_property_is_a_torch_device():
    assert isinstance(Device.cpu().autodiff().torch, torch.device)
    assert Device.cpu().autodiff().torch == torch.device("cpu")


# ----------------------------------------------------------------------------- autodiff ----
def test_autodiff_turns_autodiff_on_with_disabled_strategy():
    ad = Device.cpu().autodiff()
    assert ad.is_autodiff() is True
    assert ad.gradient_checkpointing_strategy() is DISABLED


def test_autodiff_keeps_the_torch_device():
    assert Device.cpu().autodiff().torch == torch.device("cpu")
    if HAS_CUDA:
        assert Device.cuda(0).autodiff().torch == torch.device("cuda", 0)


def test_autodiff_is_idempotent():
    ad = Device.cpu().autodiff()
    assert ad.autodiff() == ad
    assert ad.autodiff().autodiff().gradient_checkpointing_strategy() is DISABLED


def test_autodiff_keeps_an_existing_balanced_strategy():
    ck = Device.cpu().autodiff().gradient_checkpointing()
    again = ck.autodiff()
    assert again.gradient_checkpointing_strategy() is BALANCED
    assert again == ck


def test_without_autodiff_returns_the_plain_device():
    ad = Device.cpu().autodiff().gradient_checkpointing()
    plain = ad.without_autodiff()
    assert plain.is_autodiff() is False
    assert plain == Device.cpu()
    assert plain.torch == torch.device("cpu")


def test_without_autodiff_is_idempotent():
    cpu = Device.cpu()
    assert cpu.without_autodiff() == cpu
    assert cpu.autodiff().without_autodiff().without_autodiff() == cpu


def test_inner_is_the_same_as_without_autodiff():
    ad = Device.cpu().autodiff()
    assert ad.inner() == ad.without_autodiff() == Device.cpu()
    assert Device.cpu().inner() == Device.cpu()


def test_autodiff_after_without_autodiff_starts_from_the_default_strategy():
    ck = Device.cpu().autodiff().gradient_checkpointing()
    assert ck.without_autodiff().autodiff().gradient_checkpointing_strategy() is DISABLED


def test_device_values_are_not_mutated_by_transitions():
    cpu = Device.cpu()
    ad = cpu.autodiff()
    ck = ad.gradient_checkpointing()
    ck.without_autodiff()
    assert cpu.is_autodiff() is False
    assert ad.gradient_checkpointing_strategy() is DISABLED
    assert ck.gradient_checkpointing_strategy() is BALANCED


# ---------------------------------------------------------------------- checkpointing ----
def test_gradient_checkpointing_gives_the_balanced_strategy():
    ck = Device.cpu().autodiff().gradient_checkpointing()
    assert ck.is_autodiff() is True
    assert ck.gradient_checkpointing_strategy() is BALANCED


def test_gradient_checkpointing_without_autodiff_raises_and_names_autodiff():
    with pytest.raises(AutodiffDisabledError, match=r"autodiff\(\)"):
        Device.cpu().gradient_checkpointing()


def test_gradient_checkpointing_strategy_without_autodiff_raises_and_names_autodiff():
    with pytest.raises(AutodiffDisabledError, match=r"autodiff\(\)"):
        Device.cpu().gradient_checkpointing_strategy()


def test_device_errors_are_autodiff_errors_and_runtime_errors():
    with pytest.raises(AutodiffError):
        Device.cpu().gradient_checkpointing()
    with pytest.raises(RuntimeError):
        Device.cpu().gradient_checkpointing_strategy()


def test_strategy_enum_has_disabled_and_balanced():
    assert {s.name for s in GradientCheckpointingStrategy} == {"DISABLED", "BALANCED"}


# ---------------------------------------------------------------- tensors inherit context ----
def test_tensor_created_on_a_device_carries_its_context():
    ck = Device.cpu().autodiff().gradient_checkpointing()
    t = Tensor.ones([2], ck)
    assert t.is_autodiff() is True
    assert t.gradient_checkpointing_strategy() is BALANCED
    assert t.device() == ck


def test_tensor_created_on_a_plain_device_has_no_context():
    t = Tensor.ones([2], Device.cpu())
    assert t.is_autodiff() is False
    assert t.gradient_checkpointing_strategy() is None
    assert t.device() == Device.cpu()


# --------------------------------------------------------------------------------- seed ----
def test_seed_makes_random_reproducible():
    d = Device.cpu()
    d.seed(42)
    a = Tensor.random([16], Distribution.default(), d).to_data().to_list()
    d.seed(42)
    b = Tensor.random([16], Distribution.default(), d).to_data().to_list()
    assert a == b


def test_different_seeds_give_different_samples():
    d = Device.cpu()
    d.seed(1)
    a = Tensor.random([16], Distribution.default(), d).to_data().to_list()
    d.seed(2)
    b = Tensor.random([16], Distribution.default(), d).to_data().to_list()
    assert a != b


def test_unseeded_consecutive_draws_differ():
    d = Device.cpu()
    d.seed(7)
    a = Tensor.random([16], Distribution.default(), d).to_data().to_list()
    b = Tensor.random([16], Distribution.default(), d).to_data().to_list()
    assert a != b


def test_seed_is_shared_by_autodiff_and_plain_devices_on_the_same_torch_device():
    Device.cpu().seed(3)
    a = Tensor.random([8], Distribution.normal(0.0, 1.0), Device.cpu()).to_data().to_list()
    Device.cpu().autodiff().seed(3)
    b = Tensor.random([8], Distribution.normal(0.0, 1.0), Device.cpu().autodiff()).to_data().to_list()
    assert a == b


# ------------------------------------------------------------------ equality and hashing ----
def test_devices_with_same_torch_device_and_context_are_equal():
    assert Device.cpu() == Device.cpu()
    assert Device.cpu().autodiff() == Device.cpu().autodiff()
    assert Device.cpu().autodiff().gradient_checkpointing() == Device.cpu().autodiff().gradient_checkpointing()


def test_devices_with_different_context_are_not_equal():
    cpu = Device.cpu()
    assert cpu != cpu.autodiff()
    assert cpu.autodiff() != cpu.autodiff().gradient_checkpointing()


def test_devices_with_different_torch_device_are_not_equal():
    meta = Device(torch.device("meta"))  # another torch device that needs no hardware
    assert Device.cpu() != meta
    assert meta.autodiff() != Device.cpu().autodiff()


def test_device_is_not_equal_to_a_torch_device():
    assert Device.cpu() != torch.device("cpu")


def test_equal_devices_hash_equal_and_work_as_dict_keys():
    table = {Device.cpu(): "plain", Device.cpu().autodiff(): "ad",
             Device.cpu().autodiff().gradient_checkpointing(): "ck"}
    assert len(table) == 3
    assert table[Device.cpu()] == "plain"
    assert table[Device.cpu().autodiff()] == "ad"
    assert table[Device.cpu().autodiff().gradient_checkpointing()] == "ck"
    assert hash(Device.cpu().autodiff()) == hash(Device.cpu().autodiff())


def test_device_pickles_with_its_context():
    ck = Device.cpu().autodiff().gradient_checkpointing()
    assert pickle.loads(pickle.dumps(ck)) == ck
    assert pickle.loads(pickle.dumps(Device.cpu())) == Device.cpu()


def test_repr_names_torch_device_and_strategy():
    assert "cpu" in repr(Device.cpu())
    assert "BALANCED" in repr(Device.cpu().autodiff().gradient_checkpointing())


# ----------------------------------------------------------------------- hardware-only ----
@needs_cuda
def test_tensor_on_cuda_device_lives_on_cuda_and_carries_context():
    ad = Device.cuda(0).autodiff()
    t = Tensor.ones([2], ad)
    assert t.to_torch().device.type == "cuda"
    assert t.device() == ad


@needs_cuda
def test_seed_makes_cuda_random_reproducible():
    d = Device.cuda(0)
    d.seed(5)
    a = Tensor.random([8], Distribution.default(), d).to_data().to_list()
    d.seed(5)
    b = Tensor.random([8], Distribution.default(), d).to_data().to_list()
    assert a == b


@needs_cuda
def test_gradient_flows_back_from_cuda_to_cpu_source():
    x = Tensor.from_data([1.0, 2.0], Device.cpu().autodiff()).require_grad()
    y = x.to_device(Device.cuda(0)) * 3.0
    grads = y.sum().backward()
    g = x.grad(grads)
    assert g.to_torch().device.type == "cpu"
    assert g.to_data().to_list() == [3.0, 3.0]


@needs_mps
def test_tensor_on_mps_device_lives_on_mps_and_carries_context():
    ad = Device.mps().autodiff()
    t = Tensor.ones([2], ad)
    assert t.to_torch().device.type == "mps"
    assert t.device() == ad
