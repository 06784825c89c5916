"""PyTorch autodiff idioms (porting-checker sample; never run)."""
import torch
from torch.utils.checkpoint import checkpoint

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.randn(2)
w.requires_grad_()
h = x * w
h.retain_grad()
h.register_hook(lambda g: g * 2)
y = checkpoint(torch.exp, h, use_reentrant=False)
y.backward(torch.ones(2), retain_graph=True)
y.sum().backward(create_graph=True)
(g,) = torch.autograd.grad(y.sum(), [x])
if x.grad is None:
    print("no gradient")
print(x.grad, h.requires_grad, h.is_leaf)
x.grad.clamp_(-1.0, 1.0)
x.grad = None
w.grad.zero_()
with torch.no_grad():
    w -= 0.1 * w.grad
w.data.add_(1.0)
c = h.detach()
v = h.detach().cpu()
w.requires_grad = False


@torch.inference_mode()
def predict(t):
    return (t * 2).add_(1)


x.grad = torch.zeros(2)
w.add_(w.grad, alpha=-0.1)
