# %% [markdown]
# # Porting nanoGPT's GPT, verified with verify_port
#
# The PyTorch side is karpathy/nanoGPT's `model.py` (commit
# 3adf61e154c3fe3fca428ad6bc3818b27a3b8291, MIT), trimmed to what a training step uses (the
# flash-attention path, no generation or checkpoint loading) with a tiny configuration. Its
# `LayerNorm` and attention are custom modules, so the port writes each class with the same
# field names (the state-dict keys then match), using burn_torch layers; `verify_port` compares
# the forward output, the loss, every gradient under nanoGPT's parameter names, and a few AdamW
# steps.
#
# Three catalog entries shape the port. nanoGPT ties `lm_head.weight` to `transformer.wte.weight`;
# Burn's way is one Param used twice (`logits = x @ wte.weightᵀ`), so the port has no `lm_head`
# and the verification ignores the second torch name (`strict=False`). The causal mask of
# `module_ops.attention` is True where a position is masked out (`attention_mask_polarity`). And
# AdamW's defaults are Burn's (`optimizer_defaults`): epsilon and weight decay are set to
# PyTorch's.
#
# Why `bias=False` (a nanoGPT option): with biases, the key projection's bias cannot change the
# attention (softmax ignores a shift shared by a row), so its true gradient is zero and both
# libraries compute float32 noise around 1e-9 for it; Adam divides by the noise's own magnitude
# and turns it into full-size, different steps. The comparison would then measure noise.
#
# Run it with `.venv/bin/python examples/port_nanogpt.py`, or open `examples/port_nanogpt.ipynb`.

# %%
import math
from dataclasses import dataclass

import torch
import torch.nn as tnn
from torch.nn import functional as F

from _side_by_side import DISAGREE, output_path, show_image
from burn_torch import Device, Tensor, module_ops, nn
from burn_torch.compat import from_torch, verify_port
from burn_torch.module import Module
from burn_torch.optim import AdamWConfig

torch.manual_seed(0)
device = Device.cpu().autodiff()


# %%
# PyTorch: nanoGPT's model (model.py, trimmed)
class LayerNorm(tnn.Module):
    """ LayerNorm but with an optional bias. PyTorch doesn't support simply bias=False """

    def __init__(self, ndim, bias):
        super().__init__()
        self.weight = tnn.Parameter(torch.ones(ndim))
        self.bias = tnn.Parameter(torch.zeros(ndim)) if bias else None

    def forward(self, input):
        return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)


class CausalSelfAttention(tnn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        self.c_attn = tnn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)
        self.c_proj = tnn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.resid_dropout = tnn.Dropout(config.dropout)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.dropout = config.dropout

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = torch.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=None, dropout_p=self.dropout if self.training else 0, is_causal=True)
        y = y.transpose(1, 2).contiguous().view(B, T, C)
        y = self.resid_dropout(self.c_proj(y))
        return y


class MLP(tnn.Module):
    def __init__(self, config):
        super().__init__()
        self.c_fc = tnn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
        self.gelu = tnn.GELU()
        self.c_proj = tnn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
        self.dropout = tnn.Dropout(config.dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))


class Block(tnn.Module):
    def __init__(self, config):
        super().__init__()
        self.ln_1 = LayerNorm(config.n_embd, bias=config.bias)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = LayerNorm(config.n_embd, bias=config.bias)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x


@dataclass
class GPTConfig:
    block_size: int = 8
    vocab_size: int = 32
    n_layer: int = 2
    n_head: int = 2
    n_embd: int = 16
    dropout: float = 0.0
    bias: bool = False  # nanoGPT's option; see "Why bias=False" below


class GPT(tnn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.transformer = tnn.ModuleDict(dict(
            wte=tnn.Embedding(config.vocab_size, config.n_embd),
            wpe=tnn.Embedding(config.block_size, config.n_embd),
            drop=tnn.Dropout(config.dropout),
            h=tnn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=LayerNorm(config.n_embd, bias=config.bias),
        ))
        self.lm_head = tnn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith('c_proj.weight'):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    def _init_weights(self, module):
        if isinstance(module, tnn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, tnn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx):
        b, t = idx.size()
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))
        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)
        return self.lm_head(x)


config = GPTConfig()
torch_gpt = GPT(config)


# %%
# burn_torch: the same classes, the same field names
class BurnAttention(Module):
    def __init__(self, config, device):
        super().__init__()
        self.c_attn = nn.LinearConfig(config.n_embd, 3 * config.n_embd).with_bias(config.bias).init(device)
        self.c_proj = nn.LinearConfig(config.n_embd, config.n_embd).with_bias(config.bias).init(device)
        self.resid_dropout = nn.DropoutConfig(config.dropout).init()
        self.n_head = config.n_head
        self.n_embd = config.n_embd

    def forward(self, x):
        B, T, C = x.dims()
        q, k, v = self.c_attn.forward(x).split(self.n_embd, 2)
        q, k, v = (t.reshape([B, T, self.n_head, C // self.n_head]).swap_dims(1, 2) for t in (q, k, v))
        future = from_torch(torch.ones(1, 1, T, T, dtype=torch.bool).triu(1), x.device())  # True: masked
        y = module_ops.attention(q, k, v, mask=future)
        y = y.swap_dims(1, 2).reshape([B, T, C])
        return self.resid_dropout.forward(self.c_proj.forward(y))


class BurnMLP(Module):
    def __init__(self, config, device):
        super().__init__()
        self.c_fc = nn.LinearConfig(config.n_embd, 4 * config.n_embd).with_bias(config.bias).init(device)
        self.c_proj = nn.LinearConfig(4 * config.n_embd, config.n_embd).with_bias(config.bias).init(device)
        self.dropout = nn.DropoutConfig(config.dropout).init()

    def forward(self, x):
        return self.dropout.forward(self.c_proj.forward(nn.gelu(self.c_fc.forward(x))))


def layer_norm(config, device):
    return nn.LayerNormConfig(config.n_embd, epsilon=1e-5, bias=config.bias).init(device)


class BurnBlock(Module):
    def __init__(self, config, device):
        super().__init__()
        self.ln_1 = layer_norm(config, device)
        self.attn = BurnAttention(config, device)
        self.ln_2 = layer_norm(config, device)
        self.mlp = BurnMLP(config, device)

    def forward(self, x):
        x = x + self.attn.forward(self.ln_1.forward(x))
        return x + self.mlp.forward(self.ln_2.forward(x))


class BurnGPT(Module):
    def __init__(self, config, device):
        super().__init__()
        self.transformer = dict(
            wte=nn.EmbeddingConfig(config.vocab_size, config.n_embd).init(device),
            wpe=nn.EmbeddingConfig(config.block_size, config.n_embd).init(device),
            drop=nn.DropoutConfig(config.dropout).init(),
            h=[BurnBlock(config, device) for _ in range(config.n_layer)],
            ln_f=layer_norm(config, device),
        )

    def forward(self, idx):
        b, t = idx.dims()
        pos = Tensor.arange(0, t, idx.device()).reshape([1, t])
        wte, wpe = self.transformer["wte"], self.transformer["wpe"]
        x = self.transformer["drop"].forward(wte.forward(idx) + wpe.forward(pos))
        for block in self.transformer["h"]:
            x = block.forward(x)
        x = self.transformer["ln_f"].forward(x)
        return x.matmul(wte.weight.val().transpose())  # the tied lm_head: one Param, two uses


burn_gpt = BurnGPT(config, device)


# %%
# The loss: next-token cross entropy over every position
def torch_loss(logits, targets):
    return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))  # noqa: BT105 (the PyTorch side)


cross_entropy = nn.CrossEntropyLossConfig().init(device)


def burn_loss(logits, targets):
    return cross_entropy.forward(logits.reshape([-1, config.vocab_size]), targets.reshape([-1]))


gen = torch.Generator().manual_seed(1)
tokens = torch.randint(0, config.vocab_size, (3, config.block_size + 1), generator=gen)
batch = (tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous())

# %%
# Verify: forward, loss, every gradient (the tied one under nanoGPT's first name), 3 AdamW steps
report = verify_port(
    torch_gpt, burn_gpt, batch, torch_loss, burn_loss, strict=False, steps=3,
    torch_optimizer=torch.optim.AdamW(torch_gpt.parameters(), lr=1e-2, betas=(0.9, 0.95), weight_decay=0.1),
    burn_optimizer=AdamWConfig(beta_2=0.95, epsilon=1e-8, weight_decay=0.1))
report.print()

# %%
# The loss curves
ax = report.plot_losses()
plot = output_path("port_nanogpt/losses.png")
ax.figure.savefig(plot, dpi=80)
print(f"plot written to {plot}")
show_image(plot)

# %%
# Agreement
assert report.passed, f"{DISAGREE}: {report.summary()}"
print(f"OK: the nanoGPT port agrees with PyTorch (max forward diff {report.max_forward_diff:.2g}, "
      f"max gradient diff {report.max_grad_diff:.2g})")
