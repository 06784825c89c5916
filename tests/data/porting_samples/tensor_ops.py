"""PyTorch tensor idioms (porting-checker sample; never run)."""
import numpy as np
import torch

a = np.array([[1.0, 2.0], [3.0, 4.0]])
t = torch.from_numpy(a)
total = t.sum()
rows = t.sum(dim=1)
kept = t.sum(1, keepdim=True)
centered = t - t.mean(1)
values, indices = t.max(dim=1)
biggest = torch.max(t, t * 2)
best = t.argmax()
col = torch.sum(t, 0)
u = t.unsqueeze(0)
s = t.transpose(0, 1) + t.T
m = torch.where(t > 2, t, torch.zeros_like(t))
n = t.shape[0] + t.size(1)
flat = t.view(-1).tolist()
copy = t.clone()
plain = np.sum(a)
z = t.to(torch.float64)
torch.testing.assert_close(t, z.float())
top = t.max()
shifted = torch.roll(t, 1, 0)
back = t.roll(-1, 1)
