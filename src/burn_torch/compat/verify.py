"""Verify a port: the same weights, batch and loss through the torch model and its burn_torch port.

[`verify_port`][burn_torch.compat.verify.verify_port] loads the torch model's weights into the
burn_torch model (through the state-dict adapters), then compares, on one batch:

1. the forward outputs;
2. the loss;
3. every parameter's gradient, under the torch parameter's name and in its layout (so a
   transposed Linear weight or a fused LSTM gate is compared as PyTorch stores it);
4. optionally ``steps`` training steps side by side, the torch optimizer against a burn_torch
   optimizer config, after checking their hyperparameters match (Burn's defaults differ from
   PyTorch's: Adam's epsilon is 1e-5, SGD momentum's dampening 0.1, ...): the loss at every
   step and the parameters after the last.

A value passes when ``max|burn - torch| <= atol + rtol * max|torch|`` (a norm-wise bound, robust
to entries that are zero in one library and 1e-9 in the other). The returned
[`PortReport`][burn_torch.compat.verify.PortReport] has a text table (``str(report)``;
``report.print()`` uses ``rich`` when it is installed), ``passed``, the failing rows, the figures
(largest forward and gradient differences) and the loss curves (``report.plot_losses()`` draws them
with matplotlib).

By default both models run deterministically (``mode="eval"``): the torch model in ``eval()``
mode and the burn_torch model with its training flags cleared but autodiff kept, so dropout is
off on both sides and batch norm uses its running statistics on both. ``mode="train"`` runs
both in training mode. The torch model is left in the mode it ran in.

Stochastic layers compare exactly: ``device.seed(s)`` makes the device's generator draw what
``torch.manual_seed(s)`` makes torch's draw (normal and uniform noise, dropout masks: the same
kernels on the same generator algorithm), so [`verify_port`][burn_torch.compat.verify.verify_port]
seeds both generators with ``seed`` right before each side's forward (``seed + k`` for training step
``k``) and puts both back as they were afterwards. Seeding earlier does not do it: building a model
(``config.init(device)``) draws its initial weights from the device generator, so the masks that
follow are other masks.

``float64=True`` runs both sides in float64 (the torch model is converted in place with
``.double()``, the port's float parameters and the batch's float tensors are cast): for chaotic
models whose float32 runs drift apart within a few steps in either library, where only float64
shows whether the port is right.
"""
from __future__ import annotations

import contextlib
import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import torch

from ..device import Device, generator
from ..dtype import DType
from ..interop import from_torch, load_torch_state_dict, to_torch_layout
from ..module import Module, ModuleMapper, Param
from ..optim import (AdaGradConfig, AdamConfig, AdamWConfig, GradientsParams, RmsPropConfig,
                     SgdConfig)
from ..tensor import Tensor

__all__ = ["verify_port", "PortReport", "Check", "Setting", "optimizer_settings"]

TorchLoss = Callable[[Any, torch.Tensor], torch.Tensor]
BurnLoss = Callable[[Any, Tensor], Tensor]


@dataclass(frozen=True)
class Check:
    """One compared value: its stage (``forward``, ``loss``, ``gradient``, ``step``,
    ``parameter``, ``weights``), its name (a torch parameter name for gradients), its torch
    shape, the largest absolute difference, the bound it had to meet and whether it did."""

    stage: str
    name: str
    shape: tuple[int, ...]
    max_abs_diff: float
    bound: float
    passed: bool
    note: str = ""


@dataclass(frozen=True)
class Setting:
    """One optimizer hyperparameter on both sides (``None``: the side has no such setting)."""

    name: str
    torch_value: Any
    burn_value: Any

    @property
    def matches(self) -> bool:
        a, b = self.torch_value, self.burn_value
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) \
                and not isinstance(a, bool) and not isinstance(b, bool):
            return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)
        return a == b


@dataclass
class PortReport:
    """What [`verify_port`][burn_torch.compat.verify.verify_port] found. ``passed`` is True when
    every check passed and every optimizer setting matches; ``torch_losses`` / ``burn_losses`` hold
    the loss before each training step (and the first entry is the compared loss)."""

    checks: list[Check] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)
    torch_losses: list[float] = field(default_factory=list)
    burn_losses: list[float] = field(default_factory=list)
    rtol: float = 0.0
    atol: float = 0.0

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks) and all(s.matches for s in self.settings) \
            and bool(self.checks)

    def failures(self) -> list[Check]:
        """The checks that failed, in order."""
        return [c for c in self.checks if not c.passed]

    def mismatched_settings(self) -> list[Setting]:
        """The optimizer hyperparameters that differ between the two sides."""
        return [s for s in self.settings if not s.matches]

    def max_diff(self, stage: str) -> float:
        """The largest ``max_abs_diff`` of the checks of ``stage`` (0.0 when there are none)."""
        return max((c.max_abs_diff for c in self.checks if c.stage == stage), default=0.0)

    @property
    def max_forward_diff(self) -> float:
        return self.max_diff("forward")

    @property
    def max_grad_diff(self) -> float:
        return self.max_diff("gradient")

    def rows(self) -> list[tuple[str, ...]]:
        """The checks as table rows (strings): stage, name, shape, max |diff|, bound, result."""
        return [(c.stage, c.name, "x".join(map(str, c.shape)) or "scalar", f"{c.max_abs_diff:.3g}",
                 f"{c.bound:.3g}", ("ok" if c.passed else "FAIL") + (f" ({c.note})" if c.note else ""))
                for c in self.checks]

    def setting_rows(self) -> list[tuple[str, ...]]:
        """The optimizer settings as table rows: name, torch value, burn_torch value, result."""
        return [(s.name, repr(s.torch_value), repr(s.burn_value), "ok" if s.matches else "MISMATCH")
                for s in self.settings]

    def summary(self) -> str:
        """One line: PASS/FAIL with the counts and the largest forward and gradient differences."""
        n_fail, n_set = len(self.failures()), len(self.mismatched_settings())
        verdict = "PASS" if self.passed else "FAIL"
        return (f"{verdict}: {len(self.checks) - n_fail}/{len(self.checks)} checks passed"
                f"{f', {n_set} optimizer settings differ' if n_set else ''}; max forward diff "
                f"{self.max_forward_diff:.3g}, max gradient diff {self.max_grad_diff:.3g} "
                f"(rtol {self.rtol:g}, atol {self.atol:g})")

    def table(self) -> str:
        """The report as plain text: the checks, the optimizer settings (when compared), and
        the summary line."""
        parts = [_text_table(_CHECK_HEADER, self.rows())]
        if self.settings:
            parts.append(_text_table(_SETTING_HEADER, self.setting_rows()))
        return "\n\n".join(parts) + "\n" + self.summary()

    __str__ = table

    def print(self) -> None:
        """Prints the table, with ``rich`` when it is installed (plain text otherwise)."""
        try:
            from rich.console import Console
            from rich.table import Table
        except ImportError:
            print(self.table())
            return
        console = Console()
        for header, rows in ((_CHECK_HEADER, self.rows()), (_SETTING_HEADER, self.setting_rows())):
            if not rows:
                continue
            table = Table(*header)
            for row in rows:
                table.add_row(*row, style="red" if row[-1].startswith(("FAIL", "MISMATCH")) else None)
            console.print(table)
        console.print(self.summary(), style="bold green" if self.passed else "bold red")

    def plot_losses(self, ax=None):
        """Draws both loss curves (step on x) on ``ax`` (a new figure when None) and returns the
        axes. Needs matplotlib (the ``examples`` extra)."""
        if ax is None:
            import matplotlib.pyplot as plt
            _, ax = plt.subplots(figsize=(5, 3))
        ax.plot(range(len(self.torch_losses)), self.torch_losses, label="PyTorch", linewidth=3, alpha=0.6)
        ax.plot(range(len(self.burn_losses)), self.burn_losses, label="burn_torch", linestyle="--")
        ax.set_xlabel("step")
        ax.set_ylabel("loss")
        ax.set_title("PASS" if self.passed else "FAIL")
        ax.legend()
        return ax


_CHECK_HEADER = ("stage", "name", "shape", "max |diff|", "bound", "result")
_SETTING_HEADER = ("optimizer setting", "torch", "burn_torch", "result")


def _text_table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
             for row in (header, *rows)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


# ===================================================================== optimizer settings ====
def _penalty(config) -> float:
    decay = getattr(config, "weight_decay", None)
    return 0.0 if decay is None else decay if isinstance(decay, (int, float)) else decay.penalty


def optimizer_settings(torch_optimizer: torch.optim.Optimizer, burn_config) -> list[Setting]:
    """The hyperparameters of a torch optimizer and a burn_torch optimizer config, side by side.

    Supported pairs: Adam/AdamConfig, AdamW/AdamWConfig, SGD/SgdConfig, RMSprop/RmsPropConfig,
    Adagrad/AdaGradConfig. A different pair gives one ``optimizer`` setting that never matches;
    so does a torch optimizer with several parameter groups (one burn_torch optimizer takes one
    set of hyperparameters: see the ``parameter_groups`` catalog entry).
    """
    groups = torch_optimizer.param_groups
    kinds = [(torch.optim.AdamW, AdamWConfig), (torch.optim.Adam, AdamConfig),
             (torch.optim.SGD, SgdConfig), (torch.optim.RMSprop, RmsPropConfig),
             (torch.optim.Adagrad, AdaGradConfig)]
    pair = next(((t, b) for t, b in kinds if type(torch_optimizer) is t and isinstance(burn_config, b)), None)
    if pair is None:
        return [Setting("optimizer", type(torch_optimizer).__name__, type(burn_config).__name__)]
    if len(groups) != 1:
        return [Setting("param_groups", len(groups), 1)]
    g, c = groups[0], burn_config
    if pair[0] in (torch.optim.Adam, torch.optim.AdamW):
        settings = [Setting("beta_1", g["betas"][0], c.beta_1), Setting("beta_2", g["betas"][1], c.beta_2),
                    Setting("epsilon", g["eps"], c.epsilon),
                    Setting("weight_decay", g["weight_decay"], _penalty(c))]
        if pair[0] is torch.optim.Adam:
            settings.append(Setting("amsgrad", g["amsgrad"], c.amsgrad))
        elif g["amsgrad"]:
            settings.append(Setting("amsgrad", True, None))
        return settings
    if pair[0] is torch.optim.SGD:
        m = c.momentum
        settings = [Setting("momentum", g["momentum"], 0.0 if m is None else m.momentum),
                    Setting("weight_decay", g["weight_decay"], _penalty(c))]
        if g["momentum"] or m is not None:
            settings += [Setting("dampening", g["dampening"], 0.0 if m is None else m.dampening),
                         Setting("nesterov", g["nesterov"], False if m is None else m.nesterov)]
        return settings
    if pair[0] is torch.optim.RMSprop:
        return [Setting("alpha", g["alpha"], c.alpha), Setting("momentum", g["momentum"], c.momentum),
                Setting("epsilon", g["eps"], c.epsilon), Setting("centered", g["centered"], c.centered),
                Setting("weight_decay", g["weight_decay"], _penalty(c))]
    return [Setting("lr_decay", g["lr_decay"], c.lr_decay), Setting("epsilon", g["eps"], c.epsilon),
            Setting("weight_decay", g["weight_decay"], _penalty(c)),
            Setting("initial_accumulator_value", g["initial_accumulator_value"], 0.0)]


# ===================================================================== comparisons ===========
def _compare(stage: str, name: str, burn: torch.Tensor | None, reference: torch.Tensor | None,
             rtol: float, atol: float) -> Check:
    """A check of ``burn`` against ``reference`` (both torch tensors, or None when missing)."""
    if reference is None or burn is None:
        present = burn if reference is None else reference
        shape = () if present is None else tuple(present.shape)
        return Check(stage, name, shape, math.inf, 0.0, False,
                     f"no {'torch' if reference is None else 'burn_torch'} value")
    reference = reference.detach()
    shape = tuple(reference.shape)
    if tuple(burn.shape) != shape:
        return Check(stage, name, shape, math.inf, 0.0, False, f"burn_torch shape {list(burn.shape)}")
    a, b = burn.detach().to(torch.float64), reference.to(torch.float64)
    bound = atol + rtol * (float(b.abs().max()) if b.numel() else 0.0)
    diff = float((a - b).abs().max()) if b.numel() else 0.0
    if math.isnan(diff):
        nan_same = bool(torch.equal(a.isnan(), b.isnan()))
        finite = ~b.isnan()
        diff = float((a[finite] - b[finite]).abs().max()) if nan_same and finite.any() else (
            0.0 if nan_same else math.inf)
    return Check(stage, name, shape, diff, bound, diff <= bound)


def _first_tensor(output: Any) -> Any:
    """The output itself, or the first element of a tuple / list output."""
    return output[0] if isinstance(output, (tuple, list)) else output


def _as_torch(value: Any) -> torch.Tensor:
    if isinstance(value, Tensor):
        return value.to_torch()
    if isinstance(value, torch.Tensor):
        return value
    raise TypeError(f"verify_port: expected a tensor to compare, got {type(value).__name__}")


class _EvalFlags(ModuleMapper):
    """Clears every training flag (dropout off, batch norm on running statistics), keeping the
    parameters and their autodiff association."""

    def map_training(self, flag):
        return flag.valid()


class _Float64(ModuleMapper):
    """Casts every float parameter and constant to float64, keeping ids, autodiff associations,
    trainability and leaves (a ``require_grad()`` parameter becomes a float64 leaf)."""

    def map_float(self, param):
        return Param._make(param.id, self.map_constant(param.val()), param.is_trainable())

    def map_constant(self, tensor):
        if not tensor.to_torch().is_floating_point():
            return tensor
        cast = tensor.without_autodiff().cast(DType.F64)
        if tensor.is_autodiff():
            cast = cast.autodiff().with_gradient_checkpointing_strategy(
                tensor.gradient_checkpointing_strategy())
        return cast.require_grad() if tensor.is_require_grad() else cast


def _double_batch(batch: Sequence) -> list:
    return [t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in batch]


@contextlib.contextmanager
def _seeded(seed: int | None, device: Device, torch_devices: list[torch.device]):
    """Both generators seeded with ``seed`` for the block (torch's and ``device``'s), and both
    put back as they were after it; nothing when ``seed`` is None."""
    if seed is None:
        yield lambda k: None
        return
    gen = generator(device._torch)
    saved = gen.get_state()
    cuda = [d.index or 0 for d in torch_devices if d.type == "cuda"]
    with torch.random.fork_rng(devices=cuda):
        def reseed(k: int) -> None:
            torch.manual_seed(seed + k)
            gen.manual_seed(seed + k)
        try:
            yield reseed
        finally:
            gen.set_state(saved)


def _burn_batch(batch: Sequence[torch.Tensor], device: Device) -> list:
    return [from_torch(t, device) if isinstance(t, torch.Tensor) else t for t in batch]


def _torch_loss(model: torch.nn.Module, batch, loss_fn: TorchLoss):
    output = model(*batch[:-1])
    return output, loss_fn(output, batch[-1])


def _burn_loss(model: Module, batch, loss_fn: BurnLoss):
    output = model.forward(*batch[:-1])  # type: ignore[attr-defined]  # a model has forward (Module declares none)
    return output, loss_fn(output, batch[-1])


def _scalar(loss) -> float:
    return float(loss.item()) if isinstance(loss, torch.Tensor) else float(loss.into_scalar())


def verify_port(torch_model: torch.nn.Module, burn_model: Module, batch: Sequence[torch.Tensor],
                torch_loss: TorchLoss, burn_loss: BurnLoss, *, device: Device | None = None,
                load_weights: bool = True, strict: bool = True, mode: str = "eval", steps: int = 0,
                torch_optimizer: torch.optim.Optimizer | None = None, burn_optimizer=None,
                train_batches: Iterable[Sequence[torch.Tensor]] | None = None,
                output: Callable[[Any], Any] = _first_tensor, rtol: float = 1e-4,
                atol: float = 1e-5, seed: int | None = 0, float64: bool = False) -> PortReport:
    """Compares ``burn_model`` (a port of ``torch_model``) with it on ``batch``; returns a
    [`PortReport`][burn_torch.compat.verify.PortReport].

    ``batch`` is a tuple of torch tensors ``(input_1, ..., target)``: the models are called on
    the inputs (``torch_model(*inputs)``, ``burn_model.forward(*inputs)``, the inputs converted
    with ``from_torch`` on ``device``, default the burn model's first device with autodiff), and
    the losses on ``(output, target)``: ``torch_loss(output, target)`` must return a scalar torch
    tensor, ``burn_loss(output, target)`` a burn_torch tensor of one element. ``output`` picks the
    compared forward value from a model's output (default: the output, or its first element when
    it is a tuple or list). With ``load_weights`` (default) the torch model's state dict is loaded
    into ``burn_model`` first (``load_torch_state_dict``; ``strict=False`` ignores torch keys the
    port has no parameter for, such as the second name of a tied weight); otherwise the two must
    already hold the same weights.

    With ``steps > 0``, ``torch_optimizer`` (built on ``torch_model.parameters()``) and
    ``burn_optimizer`` (a burn_torch optimizer *config*: ``AdamConfig(...)``, ...) train copies
    of both models for ``steps`` steps on ``train_batches`` (default: ``batch`` each time), the
    burn_torch side with the torch optimizer's learning rate; their hyperparameters are compared
    first and each difference is listed (and fails the report). The torch model and optimizer are
    trained in place (pass copies to keep them).

    ``seed`` (default 0) seeds torch's and the device's generators before each side's forward
    (see the module docstring), so dropout masks and noise match; None leaves them alone (and
    warns in ``mode="train"``). ``float64`` compares in float64 (see the module docstring).

    Raises TypeError for a wrong argument type, ValueError for a bad ``mode``/``steps`` or an
    optimizer missing when ``steps > 0``, and RecordMismatchError (naming the torch keys) when
    the weights do not load.
    """
    if not isinstance(torch_model, torch.nn.Module):
        raise TypeError(f"verify_port: torch_model must be a torch.nn.Module, got {type(torch_model).__name__}")
    if not isinstance(burn_model, Module):
        raise TypeError(f"verify_port: burn_model must be a burn_torch Module, got {type(burn_model).__name__}")
    if not isinstance(batch, (tuple, list)) or len(batch) < 2:
        raise TypeError("verify_port: batch must be a tuple (input_1, ..., target) of at least two values")
    if mode not in ("eval", "train"):
        raise ValueError(f"verify_port: mode must be 'eval' or 'train', got {mode!r}")
    if steps < 0 or (steps and (torch_optimizer is None or burn_optimizer is None)):
        raise ValueError("verify_port: steps > 0 needs both torch_optimizer and burn_optimizer "
                         "(a burn_torch optimizer config such as AdamConfig())")
    if device is None:
        devices = burn_model.devices()
        device = (devices[0] if devices else Device.cpu()).autodiff()
    if seed is None and mode == "train":
        warnings.warn("verify_port(seed=None, mode='train'): dropout and noise draw from torch's "
                      "generator on one side and the device's on the other, unseeded here, so they "
                      "differ; pass a seed (verify_port seeds both right before each forward: "
                      "building a model draws its weights from the device generator, so seeding "
                      "before building does not align them)", stacklevel=2)
    if float64:
        torch_model.double()
        batch = _double_batch(batch)
        train_batches = None if train_batches is None else [_double_batch(b) for b in train_batches]
        burn_model = burn_model.map(_Float64())
    report = PortReport(rtol=rtol, atol=atol)
    if load_weights:
        burn_model, _ = load_torch_state_dict(burn_model, torch_model.state_dict(), strict)
    torch_model.train(mode == "train")
    burn_model = burn_model.train()
    if mode == "eval":
        burn_model = burn_model.map(_EvalFlags())
    if torch_optimizer is not None and burn_optimizer is not None:
        report.settings = optimizer_settings(torch_optimizer, burn_optimizer)

    names = dict(torch_model.named_parameters())
    burn_batch = _burn_batch(batch, device)
    for p in names.values():
        p.grad = None
    with _seeded(seed, device, [p.device for p in names.values()]) as reseed:
        reseed(0)
        t_out, t_loss = _torch_loss(torch_model, batch, torch_loss)
        reseed(0)
        b_out, b_loss = _burn_loss(burn_model, burn_batch, burn_loss)
        _compare_first_step(report, burn_model, names, t_out, t_loss, b_out, b_loss, output,
                            rtol, atol)
        if steps:
            _train_side_by_side(report, torch_model, burn_model, batch, train_batches, steps,
                                torch_optimizer, burn_optimizer, torch_loss, burn_loss, device,
                                rtol, atol, reseed)
        else:
            report.torch_losses, report.burn_losses = [_scalar(t_loss)], [_scalar(b_loss)]
    return report


def _compare_first_step(report: PortReport, burn_model, names, t_out, t_loss, b_out, b_loss, output,
                        rtol, atol) -> None:
    """Appends the forward, loss and gradient checks of the compared batch to ``report``."""
    report.checks.append(_compare("forward", "output", _as_torch(output(b_out)),
                                  _as_torch(output(t_out)), rtol, atol))
    report.checks.append(_compare("loss", "loss", _as_torch(b_loss).reshape(()),
                                  t_loss.reshape(()), rtol, atol))
    t_loss.backward()
    grads = b_loss.backward()
    burn_grads = {name: (None if (g := p.val().grad(grads)) is None else g.to_torch())
                  for name, p in burn_model.named_params() if p.is_require_grad()}
    in_torch_layout = to_torch_layout(burn_model, burn_grads)
    for name, p in names.items():
        if not p.requires_grad:
            continue
        report.checks.append(_compare("gradient", name, in_torch_layout.get(name), p.grad, rtol, atol))


def _train_side_by_side(report: PortReport, torch_model, burn_model, batch, train_batches, steps,
                        torch_optimizer, burn_config, torch_loss, burn_loss, device, rtol, atol,
                        reseed) -> None:
    """``steps`` optimizer steps on both sides (``reseed(k + 1)`` before each side's forward of
    step ``k``); appends the per-step loss checks and the final parameter checks to ``report``."""
    batches = iter(train_batches) if train_batches is not None else None
    optimizer = burn_config.init()
    for step in range(steps):
        current = next(batches) if batches is not None else batch
        torch_optimizer.zero_grad()
        reseed(step + 1)
        _, t_loss = _torch_loss(torch_model, current, torch_loss)
        t_loss.backward()
        torch_optimizer.step()
        reseed(step + 1)
        _, b_loss = _burn_loss(burn_model, _burn_batch(current, device), burn_loss)
        lr = torch_optimizer.param_groups[0]["lr"]
        burn_model = optimizer.step(lr, burn_model, GradientsParams.from_grads(b_loss.backward(), burn_model))
        report.torch_losses.append(_scalar(t_loss))
        report.burn_losses.append(_scalar(b_loss))
        report.checks.append(_compare("step", f"loss at step {step}", torch.tensor(report.burn_losses[-1]),
                                      torch.tensor(report.torch_losses[-1]), rtol, atol))
    values = {name: p.val().to_torch() for name, p in burn_model.named_params()}
    in_torch_layout = to_torch_layout(burn_model, values)
    for name, p in torch_model.named_parameters():
        report.checks.append(_compare("parameter", f"{name} after {steps} steps",
                                      in_torch_layout.get(name), p, rtol, atol))
