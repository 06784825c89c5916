"""torch.roll(x, s, d) is x.roll_dim(-s, d): Burn rolls towards lower indices."""
import torch

from burn_torch import Device, Tensor

ID = "roll_direction"
TITLE = "`torch.roll(x, s, d)` is `x.roll_dim(-s, d)`: Burn rolls the other way"
CATEGORY = "tensors"
SEVERITY = "silent"
DETECTORS = ("roll_call",)
WHAT = "Burn's roll_dim(s, d) / roll([s], [d]) moves entries s places towards lower indices; torch.roll moves them up"
WHY = """Burn's `roll_dim(shift, dim)` is `cat([x[shift..], x[..shift]])`: the entry at index
`shift` comes first, so entries move towards *lower* indices (Burn's own tests: rolling
`[0, 1, 2]` by -1 gives `[2, 0, 1]`). PyTorch's `torch.roll(x, shift, dim)` moves them towards
higher indices. Translating the call literally negates every shift without any error; `roll`
also takes one shift per dim as two lists of the same length (PyTorch broadcasts an int)."""
RECIPE = "torch.roll(x, s, d) → x.roll_dim(-s, d); torch.roll(x, (a, b), (i, j)) → x.roll([-a, -b], [i, j])"


def torch_side():
    x = torch.tensor([0, 1, 2, 3])
    torch.roll(x, 1, 0).tolist()


def burn_literal():
    x = Tensor.from_ints([0, 1, 2, 3], Device.cpu())
    x.roll_dim(1, 0).to_data().to_list()


def burn_side():
    x = Tensor.from_ints([0, 1, 2, 3], Device.cpu())
    x.roll_dim(-1, 0).to_data().to_list()


TORCH = {"torch.roll(x, 1, 0).tolist()": [3, 0, 1, 2]}
LITERAL = {"x.roll_dim(1, 0).to_data().to_list()": [1, 2, 3, 0]}
BURN = {"x.roll_dim(-1, 0).to_data().to_list()": [3, 0, 1, 2]}
