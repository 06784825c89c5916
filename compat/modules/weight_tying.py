"""Tied weights: one nn.Parameter at two attributes vs one Param used twice."""
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.compat.entry import Raises
from burn_torch.module import Module, TiedParamError
from burn_torch.optim import GradientsParams, SgdConfig

ID = "weight_tying"
TITLE = "Tie weights by using one `Param` twice, not by assigning it to two attributes"
CATEGORY = "modules"
SEVERITY = "loud"
DETECTORS = ("weight_tie_assign",)
WHAT = "a Param reachable at two paths of a module makes from_grads and optimizer steps raise"
WHY = """PyTorch ties weights by assigning one `nn.Parameter` to two attributes
(`head.weight = embedding.weight`); `parameters()` lists it once and the optimizer updates the
one tensor both attributes hold. Burn modules are trees: each `Param` lives at one path, and an
optimizer step rebuilds the module path by path, so a Param at two paths would be updated at
the first only and the copies would drift apart silently. burn_torch refuses such a module:
`GradientsParams.from_grads` and `optimizer.step` raise `TiedParamError` (a `ValueError`) naming
both paths, before anything is consumed. Keep the Param at one path and compute both uses from
it (for a tied output projection, `h.matmul(self.embedding.weight.val().transpose())`)."""
RECIPE = "keep one Param and use it twice in forward: h.matmul(self.embedding.weight.val().transpose())"


def torch_side():
    embedding = torch.nn.Embedding(4, 2)
    head = torch.nn.Linear(2, 4, bias=False)
    head.weight = embedding.weight
    model = torch.nn.ModuleDict({"embedding": embedding, "head": head})
    head(embedding(torch.tensor([[1, 2]]))).sum().backward()
    torch.optim.SGD(model.parameters(), lr=0.1).step()
    len(list(model.parameters()))
    head.weight is embedding.weight


def burn_literal():
    class TiedLm(Module):
        def __init__(self, device):
            super().__init__()
            self.embedding = nn.EmbeddingConfig(4, 2).init(device)
            self.output = self.embedding.weight  # the PyTorch way: the same Param at a second path

    ad = Device.cpu().autodiff()
    model = TiedLm(ad)
    h = model.embedding.forward(Tensor.from_ints([[1, 2]], ad))
    grads = h.matmul(model.output.val().transpose()).sum().backward()
    GradientsParams.from_grads(grads, model)


def burn_side():
    class SharedLm(Module):
        def __init__(self, device):
            super().__init__()
            self.embedding = nn.EmbeddingConfig(4, 2).init(device)  # the one path of the weight

    ad = Device.cpu().autodiff()
    model = SharedLm(ad)
    h = model.embedding.forward(Tensor.from_ints([[1, 2]], ad))
    grads = h.matmul(model.embedding.weight.val().transpose()).sum().backward()  # used twice
    model = SgdConfig().init().step(0.1, model, GradientsParams.from_grads(grads, model))
    len(model.params())
    [name for name, _ in model.named_params()]


TORCH = {"len(list(model.parameters()))": 1, "head.weight is embedding.weight": True}
LITERAL = Raises(TiedParamError, "reachable at 2 paths of the module (embedding.weight, output)")
BURN = {"len(model.params())": 1, "[name for name, _ in model.named_params()]": ["embedding.weight"]}
