"""nn.SyncBatchNorm: burn_torch has no synchronised batch norm."""
import torch

from burn_torch import Device, nn
from burn_torch.compat.entry import Raises

ID = "sync_batch_norm"
TITLE = "There is no `SyncBatchNorm`: each rank normalises with its own batch"
CATEGORY = "modules"
SEVERITY = "loud"
DETECTORS = ("sync_batch_norm_call",)
WHAT = "nn.SyncBatchNorm and convert_sync_batchnorm do not exist; BatchNorm's statistics are per rank"
WHY = """Under data parallelism PyTorch's `SyncBatchNorm` computes the batch mean and variance over
the whole global batch (an all-reduce in every forward), so every rank normalises alike and the
running statistics agree. Burn, and burn_torch, have no synchronised batch norm: a `BatchNorm`
layer normalises with the statistics of its rank's share of the batch, as PyTorch's own
`BatchNorm2d` does under DDP without the conversion. With large enough per-rank batches that is
usually what you want; to match `SyncBatchNorm` exactly, write the layer's forward with
`dist.all_reduce` of the per-channel sums (see distributed collectives)."""
RECIPE = "nn.BatchNormConfig(c).init(device) (per-rank statistics); exact: all_reduce the batch sums in forward"


def torch_side():
    net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
    net = torch.nn.SyncBatchNorm.convert_sync_batchnorm(net)
    type(net[1]).__name__


def burn_literal():
    nn.SyncBatchNorm(2)


def burn_side():
    bn = nn.BatchNormConfig(2).init(Device.cpu())
    type(bn).__name__


TORCH = {"type(net[1]).__name__": "SyncBatchNorm"}
LITERAL = Raises(AttributeError, "module 'burn_torch.nn' has no attribute 'SyncBatchNorm'")
BURN = {"type(bn).__name__": "BatchNorm"}
