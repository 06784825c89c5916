# %% [markdown]
# # Training an MNIST CNN with Burn's Learner, and the same run as a PyTorch loop
#
# The Burn way of training: a `Dataset`, a `Batcher` and a `DataLoaderBuilder` feed a
# `SupervisedTraining` (metrics, a file checkpointer, an artifact directory) that runs a
# `Learner` (model, optimizer, learning rate). The run shows the live dashboard (a rich panel on
# a terminal, a progress display in a notebook, log lines elsewhere), is stopped after epoch 1
# and resumed from its checkpoint, and ends with a plot of every metric (`metrics.png`). On the
# left, the same training written as a plain PyTorch loop: same initial weights, same batches in
# the same order, Adam with Burn's epsilon. At the end the validation accuracies and the weights
# are compared, and the resumed run is checked against an uninterrupted one, bit for bit.
#
# Both sides train in float64, so that the weight comparison measures the two libraries and not
# float32 rounding. In float32 the two sides' gradients agree to rounding (about 1e-7 relative:
# PyTorch's `Linear` multiplies by a transposed [out, in] weight, Burn's by an [in, out] one, so
# the matrix products sum in another order), then Adam's first step turns the rounding left in
# gradients that cancel to almost zero into weight differences of about 5e-8 (its update is
# `g / (|g| + eps)`, a gain of lr / eps = 200 for such a gradient). During the run one ReLU input
# of `conv2` lies within 2e-8 of zero: a 5e-8 weight difference puts it on the other side of the
# kink on one side only, the gradients then differ by 1e-3 (relative), and Adam integrates that
# into weight differences near 1e-3 after two epochs, a figure that depends on the CPU's kernels
# rather than on the libraries. In float64 the rounding is 1e-16, eight orders of magnitude below
# the closest ReLU input, and the weights agree to about 1e-16 on any machine.
#
# The digits are MNIST-like 28x28 images generated at run time (`burn_torch.data.mnist_like`),
# so nothing is downloaded. Run it with `.venv/bin/python examples/train_mnist_learner.py`, or
# open `examples/train_mnist_learner.ipynb`.

# %%
import shutil

import numpy as np
import torch

from burn_torch import Device, DType, Tensor, nn
from burn_torch.compat import load_torch_state_dict, to_torch_state_dict
from burn_torch.data import Batcher, DataLoaderBuilder, PartialDataset, mnist_like
from burn_torch.module import Module, ModuleMapper
from burn_torch.optim import AdamConfig
from burn_torch.record import DoublePrecisionSettings, NamedMpkFileRecorder
from burn_torch.train import (AccuracyMetric, ClassificationOutput, CpuUse, InferenceStep, Learner,
                              LearningRateMetric, LossMetric, SupervisedTraining, TrainOutput,
                              TrainStep, wait_for_plots)

from _side_by_side import Agreement, compare_table, heading, output_path, show_image

EPOCHS, BATCH, LR, SEED = 2, 32, 2e-3, 42
TOL = 1e-10  # float64 weights after two epochs (see the docstring): they agree to about 1e-16
torch.set_num_threads(1)

# %% [markdown]
# ## Data: Burn's dataset, batcher and loader
# `mnist_like(n)` is an `InMemDataset` of `MnistItem(image, label)`; `PartialDataset` splits
# it. The batcher turns a list of items into tensors on the loader's device; the Learner moves
# the training loader to the model's autodiff device and the validation loader to the inner
# one. `shuffle(SEED)` fixes the order of every epoch, so the PyTorch loop below can replay it.

# %%
digits = mnist_like(640, seed=0)
train_set, valid_set = PartialDataset(digits, 0, 512), PartialDataset(digits, 512, 640)


def stack(items):
    """Items → normalised float64 images [n, 1, 28, 28] and labels [n] (torch tensors)."""
    images = torch.from_numpy(np.stack([item.image for item in items]))[:, None] / 255.0
    return ((images - 0.1307) / 0.3081).double(), torch.tensor([item.label for item in items])


class MnistBatch:
    def __init__(self, images: Tensor, targets: Tensor) -> None:
        self.images, self.targets = images, targets


class MnistBatcher(Batcher):
    def batch(self, items, device):
        images, labels = stack(items)
        return MnistBatch(Tensor.from_data(images, device), Tensor.from_data(labels, device))


loader = DataLoaderBuilder(MnistBatcher()).batch_size(BATCH)
loader_train = loader.shuffle(SEED).build(train_set)
loader_valid = loader.build(valid_set)
print(f"{train_set.len()} training and {valid_set.len()} validation digits, "
      f"{len(loader_train)} batches of {BATCH} per epoch")

# %% [markdown]
# ## The model on both sides
# Burn's MNIST guide model without its dropout (dropout masks come from each library's own
# random generator, so with dropout the two sides could not agree to the last digits), in
# float64 on both sides: `.double()` in PyTorch, a `ModuleMapper` casting every float parameter
# in burn_torch (the parameters keep their ids).

# %%
# PyTorch
class TorchCnn(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 8, 3)
        self.conv2 = torch.nn.Conv2d(8, 16, 3)
        self.pool = torch.nn.AdaptiveAvgPool2d((8, 8))
        self.linear1 = torch.nn.Linear(16 * 8 * 8, 32)
        self.linear2 = torch.nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(torch.relu(self.conv2(torch.relu(self.conv1(x)))))
        return self.linear2(torch.relu(self.linear1(x.flatten(1))))


torch.manual_seed(0)
torch_model = TorchCnn().double()
initial_state = {k: v.clone() for k, v in torch_model.state_dict().items()}

# %%
# burn_torch
class Cnn(Module, TrainStep, InferenceStep):
    def __init__(self, device: Device) -> None:
        super().__init__()
        self.conv1 = nn.Conv2dConfig([1, 8], [3, 3]).init(device)
        self.conv2 = nn.Conv2dConfig([8, 16], [3, 3]).init(device)
        self.pool = nn.AdaptiveAvgPool2dConfig([8, 8]).init()
        self.linear1 = nn.LinearConfig(16 * 8 * 8, 32).init(device)
        self.linear2 = nn.LinearConfig(32, 10).init(device)
        self.loss = nn.CrossEntropyLossConfig().init(device)

    def forward(self, x: Tensor) -> Tensor:
        x = self.pool.forward(nn.relu(self.conv2.forward(nn.relu(self.conv1.forward(x)))))
        return self.linear2.forward(nn.relu(self.linear1.forward(x.flatten(1, 3))))

    def forward_classification(self, batch: MnistBatch) -> ClassificationOutput:
        output = self.forward(batch.images)
        return ClassificationOutput(self.loss.forward(output, batch.targets), output, batch.targets)

    def train_step(self, batch: MnistBatch) -> TrainOutput:       # Burn's TrainStep::step
        item = self.forward_classification(batch)
        return TrainOutput(self, item.loss.backward(), item)

    def inference_step(self, batch: MnistBatch) -> ClassificationOutput:  # InferenceStep::step
        return self.forward_classification(batch)


class Float64(ModuleMapper):
    def map_float(self, param):
        return param.map(lambda value: value.cast(DType.F64))


model, _ = load_torch_state_dict(Cnn(Device.cpu()).map(Float64()), initial_state)  # same weights

# %% [markdown]
# ## Training
# PyTorch: the loop by hand, over the very batches the Learner will see (`batch_indices`).
# burn_torch: `SupervisedTraining` stopped after epoch 1, then resumed from `checkpoint(1)`.

# %%
# PyTorch
torch_optimizer = torch.optim.Adam(torch_model.parameters(), lr=LR, eps=1e-5)  # Burn's epsilon
for epoch in range(EPOCHS):
    for indices in loader_train.batch_indices(epoch):
        images, labels = stack([train_set.get(i) for i in indices])
        torch_optimizer.zero_grad()
        torch.nn.functional.cross_entropy(torch_model(images), labels).backward()
        torch_optimizer.step()
with torch.no_grad():  # noqa: BT502 (the PyTorch side)
    images, labels = stack(list(valid_set))
    torch_accuracy = 100.0 * (torch_model(images).argmax(1) == labels).float().mean().item()
print(f"PyTorch: validation accuracy {torch_accuracy:.2f} % after {EPOCHS} epochs")

# %%
# burn_torch
artifacts = output_path("mnist_learner")


def training(directory):
    return (SupervisedTraining.new(directory, loader_train, loader_valid)
            .metrics(AccuracyMetric(), LossMetric())
            .metric_train_numeric(LearningRateMetric())
            .metric_train_numeric(CpuUse())
            # float64 records (DefaultRecorder stores float32): the resume is exact to the bit
            .with_file_checkpointer(NamedMpkFileRecorder(DoublePrecisionSettings()))
            .seed(SEED))


shutil.rmtree(artifacts, ignore_errors=True)               # a fresh run each time
optimizer = AdamConfig().init()
first = training(artifacts).num_epochs(1).launch(Learner.new(model, optimizer, LR))
print(f"stopped after epoch {first.epoch}; resuming from {artifacts / 'checkpoint'}")
result = training(artifacts).num_epochs(EPOCHS).checkpoint(1).launch(
    Learner.new(model, AdamConfig().init(), LR))
trained = result.model                                     # no autodiff: ready for inference

# %% [markdown]
# ## The artifact directory, the plot, and resume equality
# Burn's layout: `experiment.log`, `checkpoint/{model,optim,scheduler}-N.mpk`,
# `train|valid/epoch-N/<Metric>.log`, and the plot of every numeric metric. An uninterrupted
# run from the same start must end with exactly the weights of the stopped-and-resumed one.

# %%
heading("artifact directory")
for path in sorted(artifacts.rglob("*")):
    print(("  " * (len(path.relative_to(artifacts).parts) - 1)) + path.name + ("/" if path.is_dir() else ""))
wait_for_plots()                                           # drawn off the training thread
plot = artifacts / "metrics.png"
print(f"plot written to {plot}")
show_image(plot)
shutil.rmtree(output_path("mnist_learner_uninterrupted"), ignore_errors=True)
straight = training(output_path("mnist_learner_uninterrupted")).num_epochs(EPOCHS).plot(False).launch(
    Learner.new(model, AdamConfig().init(), LR))
resumed_equal = all(torch.equal(a.val().to_torch(), b.val().to_torch())
                    for (_, a), (_, b) in zip(trained.named_params(), straight.model.named_params()))
print(f"resumed run == uninterrupted run, bit for bit: {resumed_equal}")
assert resumed_equal, "the resumed run differs from the uninterrupted one"

# %% [markdown]
# ## Agreement: accuracy and weights
# burn_torch's trained weights exported in PyTorch's layout, compared parameter by parameter.

# %%
valid_batch = MnistBatcher().batch(list(valid_set), Device.cpu())
predicted = trained.forward(valid_batch.images).argmax(1).squeeze_dim(1)
burn_accuracy = 100.0 * predicted.equal(valid_batch.targets).float().mean().into_scalar()
print(f"validation accuracy: PyTorch {torch_accuracy:.2f} %, burn_torch Learner {burn_accuracy:.2f} %")
heading(f"final weights after {EPOCHS} epochs")
largest = compare_table("PyTorch", {k: v.detach() for k, v in torch_model.state_dict().items()},
                        "burn_torch", to_torch_state_dict(trained), TOL)
agreement = Agreement(TOL)
agreement.add("weights (largest difference)", largest)
agreement.check("validation accuracy (%)", torch_accuracy, burn_accuracy)
agreement.report(f"the Learner trained the PyTorch loop's model: largest weight difference {largest:.1e}")
