"""Module, optimizer and parameter idioms (porting-checker sample; never run)."""
import numpy as np
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.out = nn.Linear(dim, vocab)
        self.out.weight = self.emb.weight


def fit(model, batches, scaler):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    plain = torch.optim.SGD(model.parameters(), lr=0.1)
    for param in model.parameters():
        param.requires_grad = False
    model.requires_grad_(False)
    for x, y in batches:
        loss = nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        optimizer.step(lambda: loss)
        print(f"loss {loss:.4f}")
    model.train(mode=False)
    torch._foreach_mul_(list(model.parameters()), 0.5)
    w = nn.Parameter(torch.zeros(3))
    frozen = w.detach()
    copy = w.clone()
    moved = w.to("cuda")
    a = np.zeros(3)
    t = torch.from_numpy(a)
    a[0] = 1.0
    sizes = torch.stack([x.sum(), y.sum()])
    return torch.save(model.state_dict(), "model.pt"), plain, frozen, copy, moved, t, sizes


def recurrent(params):
    gru = nn.GRU(4, 8)
    return gru, torch.optim.Muon(params)
