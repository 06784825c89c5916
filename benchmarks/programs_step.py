"""Whole training iterations of real programs, ported as a user would, burn_torch vs torch.

Each program's iteration is what its training loop runs per batch, optimizer included:

* ``mnist``: pytorch/examples' ``mnist/main.py`` ``Net`` (conv 3x3 → relu → conv 3x3 → relu →
  max-pool 2 → flatten → fc → relu → fc → log_softmax, ``nll_loss``), widths shrunk as in
  ``mnist_cnn_step.py``; dropout off (the two libraries draw different masks) and Adam instead
  of Adadelta (burn_torch has none).
* ``nanogpt``: karpathy/nanoGPT's ``train.py`` iteration: ``gradient_accumulation_steps``
  micro-batches (each loss divided by their count), global-norm gradient clipping, AdamW with
  nanoGPT's two parameter groups (weight decay on the 2-D weights, none on biases and norms),
  betas (0.9, 0.95), a cosine learning rate. burn_torch: a ``GradientsAccumulator``, the
  accumulated ``GradientsParams`` split into the two groups (one ``AdamW`` each, Burn's way,
  see the migration guide's "parameter groups") and per-parameter norm clipping configured on
  both optimizers (Burn's clipping: the bound is set where neither side's clipping engages, so
  both compute their norms and reach the same weights).
* ``lstm_lm``: pytorch/examples' ``word_language_model`` (``RNNModel('LSTM')``, no dropout):
  embedding, a 2-layer ``nn.LSTM`` (burn_torch: two stacked one-layer ``Lstm`` modules, as
  Burn's LSTM has one layer), a linear decoder; the hidden state carried from batch to batch
  and detached (``repackage_hidden``), ``clip_grad_norm_`` and the plain SGD update
  ``p.data.add_(p.grad, alpha=-lr)`` (burn_torch: ``Sgd`` with norm clipping, bound as above).
* ``seq2seq``: the PyTorch tutorial "Translation with a Sequence to Sequence Network and
  Attention": a GRU encoder, then a Python loop over the target positions of a GRU decoder
  with Bahdanau attention (teacher forcing: each step reads the target token), ``log_softmax``
  and ``NLLLoss`` over the decoder's outputs, one Adam per network.

Correctness guard: both sides train ``--steps`` iterations from the same weights and must end
on the same weights (max abs difference below a tolerance) before anything is timed. Timing
alternates blocks of iterations of each side (``_harness.time_sides``: the minimum over rounds)
and prints iterations per second and the ratio burn_torch / torch (target: <= 1.0).

Usage: python benchmarks/programs_step.py [--quick] [--threads N] [--steps N] [--only NAME]
"""
from __future__ import annotations

import argparse
import math

import torch
import torch.nn.functional as F

from burn_torch import Device, Int, Tensor, activation, nn, optim
from burn_torch.compat import from_torch_module, load_torch_state_dict, to_torch_state_dict
from burn_torch.module import Module

from _harness import max_abs_diff, time_sides
from train_step import BurnGpt, TorchGpt

AD = Device.cpu().autodiff()
CPU = Device.cpu()
TOLERANCE = 1e-4


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _weights_diff(pairs) -> float:
    """The largest difference between each torch layer's state and its burn_torch port's."""
    worst = 0.0
    for theirs, ours in pairs:
        a, b = theirs.state_dict(), to_torch_state_dict(ours)
        worst = max(worst, max_abs_diff([a[k] for k in b], list(b.values())))
    return worst


# ------------------------------------------------------------------------------------ mnist ----
class TorchMnist(torch.nn.Module):
    def __init__(self, c1: int, c2: int, hidden: int) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, c1, 3, 1)
        self.conv2 = torch.nn.Conv2d(c1, c2, 3, 1)
        self.fc1 = torch.nn.Linear(c2 * 12 * 12, hidden)
        self.fc2 = torch.nn.Linear(hidden, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(torch.flatten(x, 1)))
        return F.log_softmax(self.fc2(x), dim=1)


class BurnMnist(Module):
    def __init__(self, ref: TorchMnist) -> None:
        super().__init__()
        self.conv1, self.conv2, self.fc1, self.fc2 = (from_torch_module(m, AD) for m in (
            ref.conv1, ref.conv2, ref.fc1, ref.fc2))
        self.pool = nn.MaxPool2dConfig([2, 2]).init()

    def forward(self, x: Tensor) -> Tensor:
        x = activation.relu(self.conv1.forward(x))
        x = self.pool.forward(activation.relu(self.conv2.forward(x)))
        x = activation.relu(self.fc1.forward(x.flatten(1, 3)))
        return activation.log_softmax(self.fc2.forward(x), 1)


class Mnist:
    """pytorch/examples' MNIST iteration (see the module docstring)."""

    def __init__(self, batch: int, c1: int, c2: int, hidden: int) -> None:
        gen = _gen(0)
        torch.manual_seed(0)
        self.ref = TorchMnist(c1, c2, hidden)
        self.model = BurnMnist(self.ref)
        self.x = torch.randn(batch, 1, 28, 28, generator=gen)
        self.y = torch.randint(0, 10, (batch,), generator=gen)
        self.bx = Tensor.from_data(self.x, CPU)
        self.by = Tensor.from_data(self.y.unsqueeze(1), CPU, Int)
        self.t_opt = torch.optim.Adam(self.ref.parameters(), lr=1e-3, eps=1e-5)
        self.b_opt = optim.AdamConfig().init()

    def torch_step(self) -> None:
        self.t_opt.zero_grad()
        F.nll_loss(self.ref(self.x), self.y).backward()
        self.t_opt.step()

    def burn_step(self) -> None:
        logp = self.model.forward(self.bx)
        loss = logp.gather(1, self.by).mean().neg()
        grads = optim.GradientsParams.from_grads(loss.backward(), self.model)
        self.model = self.b_opt.step(1e-3, self.model, grads)

    def weights_diff(self) -> float:
        m, r = self.model, self.ref
        return _weights_diff([(r.conv1, m.conv1), (r.conv2, m.conv2), (r.fc1, m.fc1),
                              (r.fc2, m.fc2)])


# ---------------------------------------------------------------------------------- nanogpt ----
def _cosine_lr(it: int, max_lr: float = 6e-4, warmup: int = 4, decay_iters: int = 400) -> float:
    """nanoGPT's ``get_lr``: linear warm-up, then cosine decay to a tenth."""
    if it < warmup:
        return max_lr * (it + 1) / (warmup + 1)
    ratio = min(1.0, (it - warmup) / (decay_iters - warmup))
    return max_lr / 10 + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (max_lr - max_lr / 10)


class NanoGpt:
    """nanoGPT's training iteration (see the module docstring)."""

    ACCUMULATION = 2
    CLIP = 100.0  # nanoGPT's 1.0 would engage here, where Burn's per-parameter clipping differs

    def __init__(self, batch: int, block: int, width: int, heads: int, vocab: int) -> None:
        gen = _gen(0)
        torch.manual_seed(0)
        self.ref = TorchGpt(vocab, block, width, heads, 2)
        self.model, _ = load_torch_state_dict(BurnGpt(vocab, block, width, heads, 2, AD),
                                              self.ref.state_dict())
        self.model = self.model.train()
        n = self.ACCUMULATION
        self.xs = [torch.randint(0, vocab, (batch, block), generator=gen) for _ in range(n)]
        self.ys = [torch.randint(0, vocab, (batch * block,), generator=gen) for _ in range(n)]
        self.bxs = [Tensor.from_data(x, AD, Int) for x in self.xs]
        self.bys = [Tensor.from_data(y, AD, Int) for y in self.ys]
        decay = [p for p in self.ref.parameters() if p.dim() >= 2]
        no_decay = [p for p in self.ref.parameters() if p.dim() < 2]
        self.t_opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                                        {"params": no_decay, "weight_decay": 0.0}],
                                       lr=6e-4, betas=(0.9, 0.95), eps=1e-5)
        self.decay_ids = {p.id for p in self.model.params() if len(p.val().dims()) >= 2}
        clip = optim.GradientClippingConfig.norm(self.CLIP)
        self.b_decay = optim.AdamWConfig(beta_2=0.95, weight_decay=0.1, grad_clipping=clip).init()
        self.b_no_decay = optim.AdamWConfig(beta_2=0.95, weight_decay=0.0,
                                            grad_clipping=clip).init()
        self.loss = nn.CrossEntropyLossConfig().init(AD)
        self.t_it = self.b_it = 0

    def torch_step(self) -> None:
        lr = _cosine_lr(self.t_it)
        self.t_it += 1
        for group in self.t_opt.param_groups:
            group["lr"] = lr
        for x, y in zip(self.xs, self.ys):
            loss = F.cross_entropy(self.ref(x), y) / self.ACCUMULATION
            loss.backward()
        torch.nn.utils.clip_grad_norm_(self.ref.parameters(), self.CLIP)
        self.t_opt.step()
        self.t_opt.zero_grad(set_to_none=True)

    def burn_step(self) -> None:
        lr = _cosine_lr(self.b_it)
        self.b_it += 1
        acc = optim.GradientsAccumulator()
        for x, y in zip(self.bxs, self.bys):
            loss = self.loss.forward(self.model.forward(x), y).div_scalar(self.ACCUMULATION)
            acc.accumulate(self.model, optim.GradientsParams.from_grads(loss.backward(),
                                                                         self.model))
        grads = acc.grads()
        no_decay = optim.GradientsParams()
        for pid in grads.ids():
            if pid not in self.decay_ids:
                no_decay.register(pid, grads.remove(pid))
        self.model = self.b_decay.step(lr, self.model, grads)
        self.model = self.b_no_decay.step(lr, self.model, no_decay)

    def weights_diff(self) -> float:
        theirs, ours = self.ref.state_dict(), to_torch_state_dict(self.model)
        return max_abs_diff([theirs[k] for k in ours], list(ours.values()))


# ---------------------------------------------------------------------------------- lstm_lm ----
class TorchLstmLm(torch.nn.Module):
    """word_language_model's ``RNNModel('LSTM', ntoken, ninp, nhid, nlayers)``, no dropout."""

    def __init__(self, vocab: int, width: int, layers: int) -> None:
        super().__init__()
        self.encoder = torch.nn.Embedding(vocab, width)
        self.rnn = torch.nn.LSTM(width, width, layers)
        self.decoder = torch.nn.Linear(width, vocab)

    def forward(self, tokens, hidden):
        output, hidden = self.rnn(self.encoder(tokens), hidden)
        return self.decoder(output).view(-1, self.decoder.out_features), hidden


class BurnLstmLm(Module):
    """The port: Burn's ``Lstm`` has one layer, so the layers are stacked by hand."""

    def __init__(self, ref: TorchLstmLm) -> None:
        super().__init__()
        self.encoder = from_torch_module(ref.encoder, AD)
        self.layers = []
        for k in range(ref.rnn.num_layers):
            one = torch.nn.LSTM(ref.rnn.hidden_size, ref.rnn.hidden_size, 1)
            one.load_state_dict({name.replace(f"_l{k}", "_l0"): t
                                 for name, t in ref.rnn.state_dict().items() if f"_l{k}" in name})
            self.layers.append(from_torch_module(one, AD))
        self.decoder = from_torch_module(ref.decoder, AD)

    def forward(self, tokens: Tensor, states: list) -> tuple[Tensor, list]:
        x = self.encoder.forward(tokens)
        new_states = []
        for layer, state in zip(self.layers, states):
            x, state = layer.forward(x, state)
            new_states.append(state)
        logits = self.decoder.forward(x)
        return logits.reshape([-1, logits.dims()[-1]]), new_states


class LstmLm:
    """word_language_model's training iteration (see the module docstring)."""

    LR = 20.0 / 1000  # the example's lr=20 on its loss scale would diverge on random data
    CLIP = 100.0

    def __init__(self, batch: int, bptt: int, width: int, vocab: int) -> None:
        gen = _gen(0)
        torch.manual_seed(0)
        self.ref = TorchLstmLm(vocab, width, 2)
        self.model = BurnLstmLm(self.ref)
        # seq-first, as the example batches its corpus: [bptt, batch]
        self.x = torch.randint(0, vocab, (bptt, batch), generator=gen)
        self.y = torch.randint(0, vocab, (bptt * batch,), generator=gen)
        self.bx = Tensor.from_data(self.x, AD, Int)
        self.by = Tensor.from_data(self.y, AD, Int)
        zeros = torch.zeros(2, batch, width)
        self.hidden = (zeros, zeros)
        bzero = Tensor.zeros([batch, width], AD)
        self.states = [nn.LstmState(bzero, bzero) for _ in range(2)]
        self.loss = nn.CrossEntropyLossConfig().init(AD)
        self.b_opt = optim.SgdConfig(
            gradient_clipping=optim.GradientClippingConfig.norm(self.CLIP)).init()

    def torch_step(self) -> None:
        hidden = tuple(h.detach() for h in self.hidden)  # repackage_hidden
        self.ref.zero_grad()
        output, self.hidden = self.ref(self.x, hidden)
        F.cross_entropy(output, self.y).backward()
        torch.nn.utils.clip_grad_norm_(self.ref.parameters(), self.CLIP)
        for p in self.ref.parameters():
            p.data.add_(p.grad, alpha=-self.LR)

    def burn_step(self) -> None:
        states = [nn.LstmState(s.cell.detach(), s.hidden.detach()) for s in self.states]
        output, self.states = self.model.forward(self.bx, states)
        grads = optim.GradientsParams.from_grads(self.loss.forward(output, self.by).backward(),
                                                 self.model)
        self.model = self.b_opt.step(self.LR, self.model, grads)

    def weights_diff(self) -> float:
        ref, model = self.ref, self.model
        pairs = [(ref.encoder, model.encoder), (ref.decoder, model.decoder)]
        worst = _weights_diff(pairs)
        for k, layer in enumerate(model.layers):
            theirs = {n: t for n, t in ref.rnn.state_dict().items() if n.endswith(f"_l{k}")}
            ours = to_torch_state_dict(layer)
            worst = max(worst, max_abs_diff([theirs[n.replace("_l0", f"_l{k}")] for n in ours],
                                            list(ours.values())))
        return worst


# ---------------------------------------------------------------------------------- seq2seq ----
class TorchEncoder(torch.nn.Module):
    def __init__(self, vocab: int, hidden: int) -> None:
        super().__init__()
        self.embedding = torch.nn.Embedding(vocab, hidden)
        self.gru = torch.nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, tokens):
        return self.gru(self.embedding(tokens))


class TorchAttnDecoder(torch.nn.Module):
    """The tutorial's ``AttnDecoderRNN`` with ``BahdanauAttention``, teacher forced."""

    def __init__(self, hidden: int, vocab: int) -> None:
        super().__init__()
        self.embedding = torch.nn.Embedding(vocab, hidden)
        self.Wa = torch.nn.Linear(hidden, hidden)
        self.Ua = torch.nn.Linear(hidden, hidden)
        self.Va = torch.nn.Linear(hidden, 1)
        self.gru = torch.nn.GRU(2 * hidden, hidden, batch_first=True)
        self.out = torch.nn.Linear(hidden, vocab)

    def forward_step(self, token, hidden, keys):
        embedded = self.embedding(token)
        query = hidden.permute(1, 0, 2)
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys))).squeeze(2).unsqueeze(1)
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)
        output, hidden = self.gru(torch.cat((embedded, context), dim=2), hidden)
        return self.out(output), hidden

    def forward(self, encoder_outputs, encoder_hidden, target):
        batch = encoder_outputs.size(0)
        token = torch.zeros(batch, 1, dtype=torch.long)  # SOS
        hidden = encoder_hidden
        outputs = []
        for i in range(target.size(1)):
            output, hidden = self.forward_step(token, hidden, encoder_outputs)
            outputs.append(output)
            token = target[:, i].unsqueeze(1)  # teacher forcing
        return F.log_softmax(torch.cat(outputs, dim=1), dim=-1)


class BurnEncoder(Module):
    def __init__(self, ref: TorchEncoder) -> None:
        super().__init__()
        self.embedding = from_torch_module(ref.embedding, AD)
        self.gru = from_torch_module(ref.gru, AD)

    def forward(self, tokens: Tensor) -> Tensor:
        return self.gru.forward(self.embedding.forward(tokens))


class BurnAttnDecoder(Module):
    def __init__(self, ref: TorchAttnDecoder) -> None:
        super().__init__()
        for name in ("embedding", "Wa", "Ua", "Va", "gru", "out"):
            setattr(self, name, from_torch_module(getattr(ref, name), AD))

    def forward_step(self, token: Tensor, hidden: Tensor, keys: Tensor) -> tuple[Tensor, Tensor]:
        embedded = self.embedding.forward(token)
        query = hidden.unsqueeze_dim(1)
        scores = self.Va.forward(activation.tanh(self.Wa.forward(query) + self.Ua.forward(keys)))
        weights = activation.softmax(scores.swap_dims(1, 2), 2)
        context = weights.matmul(keys)
        output = self.gru.forward(Tensor.cat([embedded, context], 2), hidden)
        return self.out.forward(output), output.squeeze_dim(1)

    def forward(self, encoder_outputs: Tensor, target: Tensor) -> Tensor:
        batch, length = target.dims()
        token = Tensor.zeros([batch, 1], encoder_outputs.device(), Int)
        hidden = encoder_outputs.narrow(1, encoder_outputs.dims()[1] - 1, 1).squeeze_dim(1)
        outputs = []
        for i in range(length):
            output, hidden = self.forward_step(token, hidden, encoder_outputs)
            outputs.append(output)
            token = target.narrow(1, i, 1)
        return activation.log_softmax(Tensor.cat(outputs, 1), 2)


class Seq2Seq:
    """The tutorial's training iteration (see the module docstring)."""

    def __init__(self, batch: int, length: int, hidden: int, vocab: int) -> None:
        gen = _gen(0)
        torch.manual_seed(0)
        self.t_enc, self.t_dec = TorchEncoder(vocab, hidden), TorchAttnDecoder(hidden, vocab)
        self.b_enc, self.b_dec = BurnEncoder(self.t_enc), BurnAttnDecoder(self.t_dec)
        self.x = torch.randint(1, vocab, (batch, length), generator=gen)
        self.y = torch.randint(1, vocab, (batch, length), generator=gen)
        self.bx = Tensor.from_data(self.x, AD, Int)
        self.by = Tensor.from_data(self.y, AD, Int)
        self.by_flat = Tensor.from_data(self.y.reshape(-1, 1), AD, Int)
        self.t_opts = [torch.optim.Adam(m.parameters(), lr=1e-3, eps=1e-5)
                       for m in (self.t_enc, self.t_dec)]
        self.b_enc_opt, self.b_dec_opt = optim.AdamConfig().init(), optim.AdamConfig().init()

    def torch_step(self) -> None:
        for o in self.t_opts:
            o.zero_grad()
        outputs, hidden = self.t_enc(self.x)
        logp = self.t_dec(outputs, hidden, self.y)
        F.nll_loss(logp.view(-1, logp.size(-1)), self.y.view(-1)).backward()
        for o in self.t_opts:
            o.step()

    def burn_step(self) -> None:
        outputs = self.b_enc.forward(self.bx)
        logp = self.b_dec.forward(outputs, self.by)
        loss = logp.reshape([-1, logp.dims()[-1]]).gather(1, self.by_flat).mean().neg()
        grads = loss.backward()
        enc_grads = optim.GradientsParams.from_grads(grads, self.b_enc)
        dec_grads = optim.GradientsParams.from_grads(grads, self.b_dec)
        self.b_enc = self.b_enc_opt.step(1e-3, self.b_enc, enc_grads)
        self.b_dec = self.b_dec_opt.step(1e-3, self.b_dec, dec_grads)

    def weights_diff(self) -> float:
        pairs = [(getattr(self.t_enc, n), getattr(self.b_enc, n)) for n in ("embedding", "gru")]
        pairs += [(getattr(self.t_dec, n), getattr(self.b_dec, n))
                  for n in ("embedding", "Wa", "Ua", "Va", "gru", "out")]
        return _weights_diff(pairs)


# ------------------------------------------------------------------------------------ cases ----
PROGRAMS = {
    "mnist": (Mnist, "B,c1,c2,hidden", [(4, 8, 16, 32), (16, 16, 32, 64)]),
    "nanogpt": (NanoGpt, "B,T,D,H,V", [(2, 16, 32, 2, 64), (4, 32, 64, 4, 128)]),
    "lstm_lm": (LstmLm, "B,T,D,V", [(8, 16, 32, 100), (20, 35, 200, 1000)]),
    "seq2seq": (Seq2Seq, "B,T,H,V", [(4, 8, 32, 64), (16, 10, 128, 512)]),
}


def measure(name: str, size: tuple, steps: int, rounds: int, inner: int) -> tuple:
    """``(torch s, burn_torch s, weight diff)`` per iteration of program ``name`` at ``size``,
    after the correctness guard (AssertionError when the weights differ after ``steps``)."""
    cls = PROGRAMS[name][0]
    program = cls(*size)
    for _ in range(steps):
        program.torch_step()
        program.burn_step()
    worst = program.weights_diff()
    assert worst < TOLERANCE, f"{name} {size}: weights differ by {worst} after {steps} steps"
    tt, tb = time_sides((program.torch_step, program.burn_step), rounds, inner)
    return tt, tb, worst


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    ap.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    ap.add_argument("--steps", type=int, default=8, help="iterations of the correctness guard")
    ap.add_argument("--only", choices=sorted(PROGRAMS), help="one program")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    rounds, inner = (3, 3) if args.quick else (11, 10)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, guard: {args.steps} "
          "iterations")
    print(f"{'program':>28} | {'torch it/s':>10} | {'burn_torch it/s':>15} | {'ratio':>6} | "
          "max|weight diff|")
    for name, (_, label, sizes) in PROGRAMS.items():
        if args.only and name != args.only:
            continue
        for size in sizes:
            tt, tb, worst = measure(name, size, args.steps, rounds, inner)
            row = f"{name} {','.join(map(str, size))}"
            print(f"{row:>28} | {1 / tt:10.1f} | {1 / tb:15.1f} | {tb / tt:6.3f} | {worst:.1e}",
                  flush=True)


if __name__ == "__main__":
    main()
