"""Data-parallel training with torchrun: every rank trains on its share of each batch

    torchrun --nproc-per-node=2 examples/ddp_train.py      # 2 processes on this machine
    .venv/bin/python examples/ddp_train.py                 # or a world of one process

A small MLP (2 → 32 → 32 → 3) learns three interleaved spirals with SGD and momentum, on
batches of 48 points. Each rank builds the model, takes rank 0's parameters
(`broadcast_module`: the same values and ParamIds everywhere) and marks them distributed
(`model.distributed()`). Each step a rank computes the mean loss on its share of the batch
(`shard`); `backward()` averages the marked parameters' gradients across ranks, each all-reduce
launched as soon as backward has finished that parameter's gradient, so the optimizer sees the
full batch's gradients on every rank.

At the end the script checks that every rank holds the same weights, and that they equal those
of a single-process run on the full batches (computed here, on every rank, for comparison).
Across machines, run the same command on each with `--nnodes=M --node-rank=I
--rdzv-endpoint=HOST:PORT` (gloo on CPU, NCCL when CUDA is available).
"""

import torch

from burn_torch import Device, Tensor, distributed as dist, nn
from burn_torch.module import Module
from burn_torch.optim import GradientsParams, MomentumConfig, SgdConfig

from _side_by_side import spirals

STEPS, BATCH, LR, EVERY = 60, 48, 0.1, 15
TOL = 1e-5


class Mlp(Module):
    def __init__(self, device: Device) -> None:
        super().__init__()
        self.fc1 = nn.LinearConfig(2, 32).init(device)
        self.fc2 = nn.LinearConfig(32, 32).init(device)
        self.fc3 = nn.LinearConfig(32, 3).init(device)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc3.forward(nn.relu(self.fc2.forward(nn.relu(self.fc1.forward(x)))))


def batches(x: torch.Tensor, y: torch.Tensor, steps: int):
    """The same sequence of full batches on every rank (a shuffled pass per epoch)."""
    gen = torch.Generator().manual_seed(1)
    order = torch.empty(0, dtype=torch.long)
    for _ in range(steps):
        if len(order) < BATCH:
            order = torch.randperm(len(x), generator=gen)
        idx, order = order[:BATCH], order[BATCH:]
        yield x[idx], y[idx]


def train(model: Mlp, device: Device, data, distributed: bool) -> tuple[Mlp, list[float]]:
    """SGD on every batch of `data`; with `distributed`, each rank on its share of each batch."""
    optim = SgdConfig(momentum=MomentumConfig()).init()
    loss_fn = nn.CrossEntropyLossConfig().init(device)
    losses = []
    for x, y in data:
        if distributed:
            x, y = dist.shard(x), dist.shard(y)
        loss = loss_fn.forward(model.forward(Tensor.from_data(x, device)), Tensor.from_data(y, device))
        grads = GradientsParams.from_grads(loss.backward(), model)
        model = optim.step(LR, model, grads)
        if distributed:
            model = model.distributed()  # the step returns new parameters: mark them again
        losses.append(loss.into_scalar())
    return model, losses


def flat_weights(model: Module) -> torch.Tensor:
    return torch.cat([p.val().to_torch().reshape(-1) for p in model.params()])


def main() -> None:
    device = dist.init().autodiff()  # torchrun's environment, or a world of one process
    rank, world = dist.rank(), dist.world_size()
    if BATCH % world:
        raise SystemExit(f"the batch of {BATCH} does not split into {world} equal shares")
    x, y = spirals(96)
    device.seed(0)
    model = dist.broadcast_module(Mlp(device).train())
    reference_start = model

    model, losses = train(model.distributed(), device, batches(x, y, STEPS), distributed=True)
    mean_losses = torch.tensor(losses)
    torch.distributed.all_reduce(mean_losses)  # each rank's loss is its share's: average them
    mean_losses /= world
    if rank == 0:
        print(f"{world} process(es), {BATCH // world} of {BATCH} points per rank and step")
        for step in range(0, STEPS, EVERY):
            print(f"step {step:3d}  loss {mean_losses[step]:.4f}")
        print(f"step {STEPS - 1:3d}  loss {mean_losses[-1]:.4f}")

    mine = flat_weights(model)
    spread = mine.clone()
    torch.distributed.all_reduce(spread, op=torch.distributed.ReduceOp.MAX)
    lowest = mine.clone().neg_()
    torch.distributed.all_reduce(lowest, op=torch.distributed.ReduceOp.MAX)
    assert torch.equal(spread, -lowest), "the ranks' weights differ"

    single, _ = train(reference_start, device, batches(x, y, STEPS), distributed=False)
    worst = (flat_weights(single) - mine).abs().max().item()
    assert worst < TOL, f"data-parallel and single-process weights differ by {worst}"
    assert mean_losses[-1] < 0.7 * mean_losses[0], "the model did not learn"
    if rank == 0:
        print(f"OK: all {world} ranks hold the same weights, within {worst:.1e} of a "
              "single-process run on the full batches")
    dist.shutdown()


if __name__ == "__main__":
    main()
