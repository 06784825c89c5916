"""Full training steps with Adam, burn_torch vs torch, side by side in one process.

The same small MLP (Linear+ReLU layers, cross entropy), small CNN (two Conv2d+ReLU+MaxPool2d
blocks and a Linear classifier, cross entropy) and word-level LSTM language model
(pytorch/examples' word_language_model without dropout: embedding, 2-layer LSTM, linear decoder,
cross entropy over every position; Burn's LSTM has a weight and bias per gate, 16 parameters per
layer where torch's has 4, so its optimizer updates 35 tensors where torch's updates 11) and
2-layer nanoGPT (causal self-attention, GELU MLP, lm head tied to the token embedding) are
trained on a fixed batch: burn_torch with ``burn_torch.nn`` layers, ``CrossEntropyLoss``,
``GradientsParams.from_grads`` and ``AdamConfig().init().step`` (Burn's loop: no zero_grad, the
optimizer returns the model), eagerly and with the whole iteration — forward, backward,
``GradientsParams.from_grads`` and the optimizer step — through ``burn_torch.capture`` (the model
and the optimizer are arguments: each iteration replays one plan on the model the last one
returned and rebinds the optimizer's new state); torch with ``torch.nn``,
``torch.optim.Adam`` (eps=1e-5, Burn's default) and the usual hand-written
``zero_grad / backward / step`` loop. All start from the same weights.

Correctness guard: the sides train N steps from the same weights and must end on the same
weights (max abs difference below a tolerance; the captured side bit-equal to the eager one,
its optimizer state too, and replaying from the fourth step on) before anything is timed. Timing alternates blocks of steps of each side
(``_harness.time_sides``) and prints steps/second and the ratio burn_torch time / torch time
(target: <= 1.0), eager and captured.

Usage: python benchmarks/train_step.py [--quick] [--threads N] [--steps N] [--no-autotune]
"""
from __future__ import annotations

import argparse

import torch
import torch.nn.functional as F

from burn_torch import Device, Tensor, autotune, module_ops, nn, optim
from burn_torch.activation import gelu
from burn_torch.capture import capture
from burn_torch.compat import from_torch_module, load_torch_state_dict, to_torch_state_dict
from burn_torch.module import Module

from _harness import max_abs_diff, time_sides

LR = 1e-3
CAUSAL = module_ops.AttentionModuleOptions(is_causal=True)
TOLERANCE = 1e-4


# ----------------------------------------------------------------------------------- models ----
class BurnMlp(Module):
    def __init__(self, sizes: list[int], device: Device) -> None:
        super().__init__()
        self.layers = [nn.LinearConfig(a, b).init(device) for a, b in zip(sizes, sizes[1:])]

    def forward(self, x: Tensor) -> Tensor:
        for layer in self.layers[:-1]:
            x = nn.relu(layer.forward(x))
        return self.layers[-1].forward(x)


class TorchMlp(torch.nn.Module):
    def __init__(self, sizes: list[int]) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = torch.relu(layer(x))
        return self.layers[-1](x)


class BurnCnn(Module):
    def __init__(self, channels: int, side: int, width: int, device: Device) -> None:
        super().__init__()
        same = nn.PaddingConfig2d.explicit(1, 1)
        self.conv1 = nn.Conv2dConfig([channels, width], [3, 3]).with_padding(same).init(device)
        self.conv2 = nn.Conv2dConfig([width, 2 * width], [3, 3]).with_padding(same).init(device)
        self.pool = nn.MaxPool2dConfig([2, 2]).init()
        self.fc = nn.LinearConfig(2 * width * (side // 4) ** 2, 10).init(device)

    def forward(self, x: Tensor) -> Tensor:
        x = self.pool.forward(nn.relu(self.conv1.forward(x)))
        x = self.pool.forward(nn.relu(self.conv2.forward(x)))
        return self.fc.forward(x.flatten(1, 3))


class TorchCnn(torch.nn.Module):
    def __init__(self, channels: int, side: int, width: int) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(channels, width, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(width, 2 * width, 3, padding=1)
        self.fc = torch.nn.Linear(2 * width * (side // 4) ** 2, 10)

    def forward(self, x):
        x = torch.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


class TorchLstmLm(torch.nn.Module):
    def __init__(self, vocab: int, width: int) -> None:
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, width)
        self.rnn = torch.nn.LSTM(width, width, 2, batch_first=True)
        self.dec = torch.nn.Linear(width, vocab)

    def forward(self, tokens):
        out, _ = self.rnn(self.emb(tokens))
        return self.dec(out).reshape(-1, self.dec.out_features)


class BurnLstmLm(Module):
    """:class:`TorchLstmLm`'s port: its layers converted with ``from_torch_module``."""

    def __init__(self, vocab: int, width: int, device: Device) -> None:
        super().__init__()
        torch_model = TorchLstmLm(vocab, width)
        self.emb, self.rnn, self.dec = (from_torch_module(layer, device) for layer in
                                        (torch_model.emb, torch_model.rnn, torch_model.dec))

    def forward(self, tokens: Tensor) -> Tensor:
        out, _ = self.rnn.forward(self.emb.forward(tokens))
        logits = self.dec.forward(out)
        return logits.reshape([-1, logits.dims()[-1]])


class TorchGpt(torch.nn.Module):
    """nanoGPT (Karpathy) without dropout: token and position embeddings, pre-norm blocks of
    causal self-attention (one ``c_attn`` projection split into q/k/v) and a GELU MLP, a final
    layer norm and an lm head tied to the token embedding."""

    def __init__(self, vocab: int, block: int, width: int, heads: int, layers: int) -> None:
        super().__init__()
        self.heads = heads
        self.wte = torch.nn.Embedding(vocab, width)
        self.wpe = torch.nn.Embedding(block, width)
        self.h = torch.nn.ModuleList(torch.nn.ModuleDict(dict(
            ln_1=torch.nn.LayerNorm(width), c_attn=torch.nn.Linear(width, 3 * width),
            c_proj=torch.nn.Linear(width, width), ln_2=torch.nn.LayerNorm(width),
            c_fc=torch.nn.Linear(width, 4 * width), c_out=torch.nn.Linear(4 * width, width)))
            for _ in range(layers))
        self.ln_f = torch.nn.LayerNorm(width)

    def forward(self, idx):
        B, T = idx.shape
        x = self.wte(idx) + self.wpe(torch.arange(T))
        D, H = x.shape[-1], self.heads
        for b in self.h:
            q, k, v = (t.view(B, T, H, D // H).transpose(1, 2)
                       for t in b["c_attn"](b["ln_1"](x)).split(D, dim=2))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + b["c_proj"](y.transpose(1, 2).reshape(B, T, D))
            x = x + b["c_out"](F.gelu(b["c_fc"](b["ln_2"](x))))
        return F.linear(self.ln_f(x), self.wte.weight).view(B * T, -1)


class BurnGpt(Module):
    """:class:`TorchGpt`'s port with ``burn_torch.nn`` layers (the same names, so
    ``load_torch_state_dict`` fills it) and ``module_ops.attention``."""

    def __init__(self, vocab: int, block: int, width: int, heads: int, layers: int,
                 device: Device) -> None:
        super().__init__()
        self.heads = heads
        self.wte = nn.EmbeddingConfig(vocab, width).init(device)
        self.wpe = nn.EmbeddingConfig(block, width).init(device)
        self.h = [dict(ln_1=nn.LayerNormConfig(width).init(device),
                       c_attn=nn.LinearConfig(width, 3 * width).init(device),
                       c_proj=nn.LinearConfig(width, width).init(device),
                       ln_2=nn.LayerNormConfig(width).init(device),
                       c_fc=nn.LinearConfig(width, 4 * width).init(device),
                       c_out=nn.LinearConfig(4 * width, width).init(device))
                  for _ in range(layers)]
        self.ln_f = nn.LayerNormConfig(width).init(device)

    def forward(self, idx: Tensor) -> Tensor:
        B, T = idx.dims()
        positions = Tensor.arange(0, T, idx.device()).unsqueeze()
        x = self.wte.forward(idx) + self.wpe.forward(positions)
        D, H = x.dims()[-1], self.heads
        for b in self.h:
            q, k, v = (t.reshape([B, T, H, D // H]).swap_dims(1, 2)
                       for t in b["c_attn"].forward(b["ln_1"].forward(x)).split(D, 2))
            y = module_ops.attention(q, k, v, options=CAUSAL)
            x = x + b["c_proj"].forward(y.swap_dims(1, 2).reshape([B, T, D]))
            x = x + b["c_out"].forward(gelu(b["c_fc"].forward(b["ln_2"].forward(x))))
        head = self.wte.weight.val().transpose()
        return module_ops.linear(self.ln_f.forward(x), head).reshape([B * T, -1])


# ---------------------------------------------------------------------------------- trainers ----
class BurnTrainer:
    """Burn's loop: forward, loss, backward, GradientsParams, ``model = optim.step(...)``."""

    def __init__(self, model: Module, x: torch.Tensor, y: torch.Tensor) -> None:
        device = Device.cpu().autodiff()
        self.model = model.train()
        self.x = Tensor.from_data(x, device)
        self.y = Tensor.from_data(y, device)
        self.loss = nn.CrossEntropyLossConfig().init(device)
        self.optim = optim.AdamConfig().init()
        self.param_grads = self.loss_param_grads

    def loss_param_grads(self, model: Module, x: Tensor, y: Tensor) -> optim.GradientsParams:
        """The forward, the loss, its backward and the gradients keyed by ParamId."""
        return optim.GradientsParams.from_grads(self.loss.forward(model.forward(x), y).backward(),
                                                model)

    def step(self) -> None:
        self.model = self.optim.step(LR, self.model, self.param_grads(self.model, self.x, self.y))


class CapturedBurnTrainer(BurnTrainer):
    """Burn's loop, each whole iteration through ``burn_torch.capture``: the forward, the
    backward, ``GradientsParams`` and the optimizer step (the model and the optimizer are
    arguments: each iteration replays the recorded kernels on the model the last one returned,
    and the optimizer's new state is rebound)."""

    def __init__(self, model: Module, x: torch.Tensor, y: torch.Tensor) -> None:
        super().__init__(model, x, y)
        self.iteration = capture(self.whole_iteration)

    def whole_iteration(self, model: Module, optimizer: optim.ModuleOptimizer, x: Tensor,
                        y: Tensor) -> Module:
        return optimizer.step(LR, model, self.loss_param_grads(model, x, y))

    def step(self) -> None:
        self.model = self.iteration(self.model, self.optim, self.x, self.y)


class TorchTrainer:
    """PyTorch's loop: zero_grad, forward, loss, backward, step."""

    def __init__(self, model: torch.nn.Module, x: torch.Tensor, y: torch.Tensor) -> None:
        self.model, self.x, self.y = model, x, y
        self.optim = torch.optim.Adam(model.parameters(), LR, eps=1e-5)

    def step(self) -> None:
        self.optim.zero_grad()
        torch.nn.functional.cross_entropy(self.model(self.x), self.y).backward()
        self.optim.step()


def trainers(make_burn, make_torch, x, y) -> tuple[BurnTrainer, CapturedBurnTrainer, TorchTrainer]:
    """Trainers for the three sides (eager, captured, torch), starting from the same
    (torch-initialised) weights."""
    reference = make_torch()
    model, _ = load_torch_state_dict(make_burn(), reference.state_dict())
    return BurnTrainer(model, x, y), CapturedBurnTrainer(model, x, y), TorchTrainer(reference, x, y)


def _same_state(a: optim.ModuleOptimizer, b: optim.ModuleOptimizer) -> bool:
    """Whether two optimizers hold the same states (ParamIds, numbers, tensor bits)."""
    ra, rb = a.to_record(), b.to_record()
    return set(ra) == set(rb) and all(
        set(ra[p]) == set(rb[p]) and all(
            torch.equal(v, rb[p][k]) if isinstance(v, torch.Tensor) else v == rb[p][k]
            for k, v in ra[p].items()) for p in ra)


def final_weight_diff(make_burn, make_torch, x, y, steps: int) -> float:
    """Trains the three sides ``steps`` steps from the same weights; the largest weight
    difference from torch's. Raises AssertionError when the captured side's weights or
    optimizer state are not bit-equal to eager's, or when it did not replay from the fourth
    step on (the first steps record: the optimizer's state is created, then kept flat)."""
    burn, captured, ref = trainers(make_burn, make_torch, x, y)
    for _ in range(steps):
        burn.step()
        captured.step()
        ref.step()
    ours, replayed = to_torch_state_dict(burn.model), to_torch_state_dict(captured.model)
    assert all(torch.equal(ours[k], replayed[k]) for k in ours), "captured training drifted"
    assert _same_state(burn.optim, captured.optim), "captured optimizer state drifted"
    recorder = captured.iteration
    assert recorder.eager_reason is None and recorder.replayed >= steps - 3, recorder.eager_reason
    theirs = ref.model.state_dict()
    return max_abs_diff([theirs[k] for k in ours], list(ours.values()))


# ------------------------------------------------------------------------------------ cases ----
def cases():
    """(name, burn model factory, torch model factory, inputs, labels)."""
    gen = torch.Generator().manual_seed(0)
    for batch, sizes in ((64, [32, 64, 64, 10]), (256, [128, 256, 256, 10])):
        x = torch.randn(batch, sizes[0], generator=gen)
        y = torch.randint(0, 10, (batch,), generator=gen)
        yield (f"mlp {batch}x{'-'.join(map(str, sizes))}",
               lambda s=sizes: BurnMlp(s, Device.cpu()), lambda s=sizes: TorchMlp(s), x, y)
    for batch, side, width in ((16, 16, 8), (32, 32, 16)):
        x = torch.randn(batch, 3, side, side, generator=gen)
        y = torch.randint(0, 10, (batch,), generator=gen)
        yield (f"cnn {batch}x3x{side}x{side} w{width}",
               lambda s=side, w=width: BurnCnn(3, s, w, Device.cpu()),
               lambda s=side, w=width: TorchCnn(3, s, w), x, y)
    for batch, steps, width, vocab in ((8, 16, 32, 100), (20, 35, 200, 1000)):
        x = torch.randint(0, vocab, (batch, steps), generator=gen)
        y = torch.randint(0, vocab, (batch * steps,), generator=gen)
        yield (f"lstm LM {batch}x{steps} w{width} v{vocab}",
               lambda v=vocab, w=width: BurnLstmLm(v, w, Device.cpu()),
               lambda v=vocab, w=width: TorchLstmLm(v, w), x, y)
    for batch, block, width, heads, vocab in ((4, 32, 64, 4, 128), (8, 64, 128, 4, 256)):
        x = torch.randint(0, vocab, (batch, block), generator=gen)
        y = torch.randint(0, vocab, (batch * block,), generator=gen)
        size = (vocab, block, width, heads, 2)
        yield (f"gpt {batch}x{block} w{width} v{vocab}",
               lambda z=size: BurnGpt(*z, Device.cpu()), lambda z=size: TorchGpt(*z), x, y)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    ap.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    ap.add_argument("--steps", type=int, default=20, help="steps of the correctness guard")
    ap.add_argument("--no-autotune", action="store_true",
                    help="burn_torch runs torch's default kernels (the same kernels as torch)")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.no_autotune:
        autotune.set_enabled(False)
    torch.manual_seed(0)
    rounds, inner = (3, 5) if args.quick else (11, 20)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, Adam lr={LR}, "
          f"guard: {args.steps} steps, autotune {'off' if args.no_autotune else 'on'}")
    print(f"{'model':>28} | {'torch steps/s':>13} | {'burn_torch steps/s':>18} | {'ratio':>6} | "
          f"{'captured':>8} | {'ratio':>6} | max|weight diff|")
    for name, make_burn, make_torch, x, y in cases():
        worst = final_weight_diff(make_burn, make_torch, x, y, args.steps)
        assert worst < TOLERANCE, f"{name}: final weights differ by {worst} (tolerance {TOLERANCE})"
        burn, captured, ref = trainers(make_burn, make_torch, x, y)
        tt, tb, tc = time_sides((ref.step, burn.step, captured.step), rounds, inner)
        print(f"{name:>28} | {1 / tt:13.1f} | {1 / tb:18.1f} | {tb / tt:6.3f} | {1 / tc:8.1f} | "
              f"{tc / tt:6.3f} | {worst:.1e}", flush=True)


if __name__ == "__main__":
    main()
