"""BatchNorm's running variance: Burn updates it with the biased batch variance, torch unbiased."""
import torch

from burn_torch import Device, Tensor, nn

ID = "batch_norm_running_var"
TITLE = "BatchNorm's `running_var` follows the biased batch variance"
CATEGORY = "modules"
SEVERITY = "silent"
DETECTORS = ("batch_norm_running_stats",)
WHAT = "training updates running_var with the biased batch variance (torch: unbiased), so eval outputs drift apart"
WHY = """Both libraries normalise a training batch with its biased variance and update the running
mean the same way, but `running_var` takes Burn's biased estimate (the mean of squared
deviations, `burn-nn`'s `BatchNorm::forward_train` in Burn 0.21 and in Burn's newest sources)
where torch takes the unbiased one, `n / (n - 1)` larger: `n` is the batch size times the spatial
size, so the gap is largest for small batches and late, small feature maps (eight ResNet-18 steps:
running variances 7.8% apart, eval logits 8.9%). Training outputs are the same; eval outputs
after training are not. `BatchNormConfig(c).with_unbiased_running_var(True)` (a burn_torch
option, listed on the "differences from Burn" page) keeps torch's numbers, and
`from_torch_module` refuses a BatchNorm until `batch_norm_running_var="torch"` (or `"burn"`)
says which you want."""
RECIPE = 'BatchNormConfig(c).with_unbiased_running_var(True); from_torch_module(m, d, batch_norm_running_var="torch")'


def torch_side():
    bn = torch.nn.BatchNorm1d(1, momentum=0.5)
    bn(torch.tensor([[0.0], [4.0]]))
    bn.running_var.tolist()


def burn_literal():
    device = Device.cpu().autodiff()
    bn = nn.BatchNormConfig(1, momentum=0.5).init(device)
    bn.forward(Tensor.from_floats([[0.0], [4.0]], device))
    bn.running_var.val().to_data().to_list()


def burn_side():
    device = Device.cpu().autodiff()
    bn = nn.BatchNormConfig(1, momentum=0.5).with_unbiased_running_var(True).init(device)
    bn.forward(Tensor.from_floats([[0.0], [4.0]], device))
    bn.running_var.val().to_data().to_list()


TORCH = {"bn.running_var.tolist()": [4.5]}
LITERAL = {"bn.running_var.val().to_data().to_list()": [2.5]}
BURN = {"bn.running_var.val().to_data().to_list()": [4.5]}
