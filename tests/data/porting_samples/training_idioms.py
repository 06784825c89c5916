"""Training, module and tensor idioms of real programs (porting-checker sample; never run)."""
import copy

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 16, 2)
        self.register_buffer("mean", torch.zeros(8))
        self.norm = nn.SyncBatchNorm(16)

    def forward(self, x, h0, c0):
        out, (h, c) = self.rnn(x, (h0, c0))
        return out


class Clamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clamp(0, 1)


model = Encoder()
target = copy.deepcopy(model)
model.apply(print)
ddp = DDP(model)
fast = torch.compile(model)
opt = torch.optim.LBFGS(model.parameters())
sched = torch.optim.lr_scheduler.StepLR(opt, 10)
scaler = torch.cuda.amp.GradScaler()
state = opt.state_dict()
for group in opt.param_groups:
    group["lr"] = 0.1
torch.backends.cudnn.deterministic = True

w = torch.zeros(4, requires_grad=True)
v = w.detach().cpu()
x = torch.randn(4, 6)
labels = torch.randint(0, 3, (4,))
legacy = torch.FloatTensor(2, 3)
for row in x:
    print(row[0], x.device)
y = x.reshape(2, -1) ** 2
z = x.flatten(1)
s = x.squeeze(1)
values, indices = x.topk(2)
ratio = labels / 2
average = labels.mean()
half = labels * 0.5


def scale(t):
    t *= 2
    return t


scaled = scale(x)

q = torch.quantize_per_tensor(x, 0.1, 0, torch.qint8)
q.requires_grad_()
counts = torch.tensor([1, 2], requires_grad=True)
h = x * 2
h.requires_grad_(False)
attended = F.scaled_dot_product_attention(x, x, x, attn_mask=labels > 0)
nll = F.nll_loss(x, labels)
bce = F.binary_cross_entropy(torch.sigmoid(x), torch.rand(4, 6))
per_item = F.mse_loss(x, x, reduction="none")
per_item.backward()
dist.all_reduce(x)
normal = torch.distributions.Normal(x, 1.0)
for i in range(10):
    loss = (w * 2).sum()
    loss.backward()
    if i % 4 == 0:
        opt.step()
        sched.step()
