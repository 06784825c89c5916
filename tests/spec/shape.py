"""Spec rows: shape, layout and slicing ops (``ops/shape.py``). References state Burn's result
shapes explicitly; a Burn slice with a negative step walks its range backwards from its end
(``s![0..4;-2]`` selects 3, 1), written here as explicit index lists."""
import torch

from burn_torch import Tensor
from spec import F, K, Row

S = (2, 3, 4)


def _rev(x, dim):
    """``x`` reversed along ``dim`` (without torch.flip)."""
    return x.index_select(dim, torch.arange(x.shape[dim] - 1, -1, -1))


def _band(x, keep):
    """``x`` with the entries (i, j) of the last two dims where ``keep(j - i)`` is false zeroed."""
    i = torch.arange(x.shape[-2]).unsqueeze(-1)
    j = torch.arange(x.shape[-1])
    return torch.where(keep(j - i), x, torch.zeros(()).double())


def _windows(x, dim, size, step):
    """Burn's unfold: dim ``dim`` becomes the count of complete windows, each window a new last dim."""
    dim = dim % x.dim()
    count = (x.shape[dim] - size) // step + 1 if size <= x.shape[dim] else 0
    if count == 0:
        shape = list(x.shape)
        shape[dim] = 0
        return x.sum() * torch.zeros(shape + [size]).double()
    return torch.stack([x.narrow(dim, k * step, size).movedim(dim, -1) for k in range(count)], dim)


def _assigned(x, index, v):
    out = x.clone()
    out[index] = v
    return out


ALL = slice(None)

ROWS = [
    # reshape (also what unsqueeze, squeeze and squeeze_dims apply)
    Row("reshape", lambda x: x.reshape([4, 6]), lambda x: x.reshape(4, 6), (F(*S),)),
    Row("reshape", lambda x: x.reshape([0, -1]), lambda x: x.reshape(2, 12), (F(*S),),
        variant="0 keeps, -1 infers"),
    Row("reshape", lambda x: x.unsqueeze(), lambda x: x.reshape(1, 2, 3, 4), (F(*S),),
        variant="unsqueeze"),
    Row("reshape", lambda x: x.unsqueeze(5), lambda x: x.reshape(1, 1, 2, 3, 4), (F(*S),),
        variant="unsqueeze to rank"),
    Row("reshape", lambda x: x.squeeze(), lambda x: x.reshape(2, 4), (F(2, 1, 4, 1),),
        variant="squeeze"),
    Row("reshape", lambda x: x.squeeze_dims([-1]), lambda x: x.reshape(2, 1, 4), (F(2, 1, 4, 1),),
        variant="squeeze_dims"),
    Row("flatten", lambda x: x.flatten(1, 2), lambda x: x.reshape(2, 12), (F(*S),)),
    Row("flatten", lambda x: x.flatten(0, -1), lambda x: x.reshape(24), (F(*S),), variant="all dims"),
    Row("flatten", lambda x: x.flatten(0, 1), lambda x: x.reshape(6, 4), (F(*S),), variant="leading"),
    Row("unsqueeze_dim", lambda x: x.unsqueeze_dim(1), lambda x: x.reshape(2, 1, 3, 4), (F(*S),)),
    Row("unsqueeze_dim", lambda x: x.unsqueeze_dim(-1), lambda x: x.reshape(2, 3, 4, 1), (F(*S),),
        variant="negative dim"),
    Row("squeeze_dim", lambda x: x.squeeze_dim(1), lambda x: x[:, 0], (F(2, 1, 4),)),
    Row("squeeze_dim", lambda x: x.squeeze_dim(-1), lambda x: x[..., 0], (F(2, 3, 1),),
        variant="negative dim"),
    Row("swap_dims", lambda x: x.swap_dims(0, 2), lambda x: x.permute(2, 1, 0), (F(*S),)),
    Row("swap_dims", lambda x: x.swap_dims(-1, 1), lambda x: x.permute(0, 2, 1), (F(*S),),
        variant="negative dim"),
    Row("swap_dims", lambda x: x.transpose(), lambda x: x.permute(0, 2, 1), (F(*S),),
        variant="transpose"),
    Row("permute", lambda x: x.permute([2, 0, 1]), lambda x: x.transpose(0, 2).transpose(1, 2),
        (F(*S),)),
    Row("permute", lambda x: x.permute([-1, -3, 1]), lambda x: x.transpose(0, 2).transpose(1, 2),
        (F(*S),), variant="negative dims"),
    Row("expand", lambda x: x.expand([2, 3, 4]), lambda x: x.expand(2, 3, 4), (F(3, 1),)),
    Row("expand", lambda x: x.expand([2, -1, 4]), lambda x: x * torch.ones(2, 3, 4).double(),
        (F(1, 3, 1),), variant="-1 keeps"),
    Row("expand", lambda x: x.expand([2, 3, 4]), lambda x: x * torch.ones(2, 3, 4).double(),
        (F(4),), variant="new leading dims"),
    Row("slice", lambda x: x.slice([slice(0, 1), slice(1, 3)]), lambda x: x[0:1, 1:3], (F(*S),)),
    Row("slice", lambda x: x.slice([-1, (-3, -1)]), lambda x: x[1:2, 0:2], (F(*S),),
        variant="int and negative indices"),
    Row("slice", lambda x: x.slice([slice(0, 10), ALL, slice(-10, 3, 2)]), lambda x: x[:, :, [0, 2]],
        (F(*S),), variant="clamped, positive step"),
    Row("slice", lambda x: x.slice([ALL, slice(None, None, -1)]), lambda x: _rev(x, 1), (F(*S),),
        variant="step -1"),
    Row("slice", lambda x: x.slice([ALL, ALL, slice(None, None, -2)]), lambda x: x[:, :, [3, 1]],
        (F(*S),), variant="step -2"),
    # a range (or slice) with a negative step is Burn's s![0..3;-2]: 2, 0 (not Python's empty range)
    Row("slice", lambda x: x.slice_dim(-1, range(0, 3, -2)), lambda x: x[:, :, [2, 0]], (F(*S),),
        variant="slice_dim, range step -2"),
    Row("slice", lambda x: x.slice([slice(None, None, -1), slice(0, 3, -2), slice(1, 4)]),
        lambda x: x[[1, 0]][:, [2, 0], 1:4], (F(*S),), variant="two reversed dims"),
    Row("cat", lambda a, b, c: Tensor.cat([a, b, c], 1), lambda a, b, c: torch.cat([a, b, c], 1),
        (F(2, 3, 4), F(2, 1, 4), F(2, 2, 4))),
    Row("cat", lambda a, b: Tensor.cat([a, b], -1), lambda a, b: torch.cat([a, b], 2),
        (F(2, 3, 4), F(2, 3, 2)), variant="negative dim"),
    Row("stack", lambda a, b, c: Tensor.stack([a, b, c], 0),
        lambda a, b, c: torch.cat([a[None], b[None], c[None]], 0), (F(*S), F(*S), F(*S))),
    Row("stack", lambda a, b: Tensor.stack([a, b], -1),
        lambda a, b: torch.cat([a[..., None], b[..., None]], -1), (F(*S), F(*S)),
        variant="new last dim"),
    Row("narrow", lambda x: x.narrow(1, 1, 2), lambda x: x[:, 1:3], (F(*S),)),
    Row("narrow", lambda x: x.narrow(-1, 3, 1), lambda x: x[:, :, 3:4], (F(*S),),
        variant="negative dim"),
    Row("select_dim", lambda x: x.select_dim(1, 2), lambda x: x[:, 2], (F(*S),)),
    Row("select_dim", lambda x: x.select_dim(-1, -4), lambda x: x[..., 0], (F(*S),),
        variant="negative dim and index"),
    Row("select_dim", lambda x: Tensor.stack([x.select_dim(0, 1), x.select_dim(0, 1)], 0),
        lambda x: torch.stack([x[1], x[1]], 0), (F(*S),), variant="one entry twice"),
    Row("select_dim", lambda x: x.select_dim(0, 3), lambda x: x[3], (F(5, 1),),
        variant="rank 2 to rank 1"),
    Row("flip", lambda x: x.flip([0, -1]), lambda x: _rev(_rev(x, 0), 2), (F(*S),)),
    Row("flip", lambda x: x.flip([1]), lambda x: _rev(x, 1), (F(*S),), variant="one dim"),
    Row("movedim", lambda x: x.movedim(0, 2), lambda x: x.permute(1, 2, 0), (F(*S),)),
    Row("movedim", lambda x: x.movedim([0, -1], [2, 0]), lambda x: x.permute(2, 1, 0), (F(*S),),
        variant="several, negative"),
    Row("repeat", lambda x: x.repeat([2, 1, 3]), lambda x: torch.tile(x, (2, 1, 3)), (F(*S),)),
    Row("repeat", lambda x: x.repeat([2]), lambda x: torch.cat([x, x], 0), (F(*S),),
        variant="fewer sizes"),
    Row("repeat_dim", lambda x: x.repeat_dim(-1, 3), lambda x: torch.cat([x, x, x], 2), (F(*S),)),
    Row("repeat_dim", lambda x: x.repeat_dim(0, 2), lambda x: torch.cat([x, x], 0), (F(*S),),
        variant="dim 0"),
    Row("tril", lambda x: x.tril(0), lambda x: _band(x, lambda d: d <= 0), (F(*S),)),
    Row("tril", lambda x: x.tril(-1), lambda x: _band(x, lambda d: d <= -1), (F(*S),),
        variant="below"),
    Row("tril", lambda x: x.tril(2), lambda x: _band(x, lambda d: d <= 2), (F(*S),), variant="above"),
    Row("triu", lambda x: x.triu(0), lambda x: _band(x, lambda d: d >= 0), (F(*S),)),
    Row("triu", lambda x: x.triu(1), lambda x: _band(x, lambda d: d >= 1), (F(*S),), variant="above"),
    Row("triu", lambda x: x.triu(-2), lambda x: _band(x, lambda d: d >= -2), (F(*S),),
        variant="below"),
    Row("unfold", lambda x: x.unfold(2, 2, 1), lambda x: _windows(x, 2, 2, 1), (F(*S),)),
    Row("unfold", lambda x: x.unfold(-1, 2, 2), lambda x: _windows(x, -1, 2, 2), (F(2, 3, 5),),
        variant="step 2, remainder dropped"),
    Row("unfold", lambda x: x.unfold(0, 2, 1), lambda x: _windows(x, 0, 2, 1), (F(*S),),
        variant="dim 0"),
    Row("unfold", lambda x: x.unfold(1, 5, 1), lambda x: _windows(x, 1, 5, 1), (F(*S),),
        variant="no complete window"),
    Row("slice_assign", lambda x, v: x.slice_assign([slice(0, 1), slice(1, 3)], v),
        lambda x, v: _assigned(x, (slice(0, 1), slice(1, 3)), v), (F(*S), F(1, 2, 4))),
    Row("slice_assign", lambda x, v: x.slice_assign([ALL, slice(None, None, -2)], v),
        lambda x, v: _assigned(x, (slice(None), [2, 0]), v), (F(*S), F(2, 2, 4)),
        variant="step -2: values walk backwards"),
    Row("slice_assign", lambda x, v: x.slice_assign([-1, ALL, slice(-1, None)], v),
        lambda x, v: _assigned(x, (slice(1, 2), slice(None), slice(3, 4)), v), (F(*S), F(1, 3, 1)),
        variant="int and negative indices"),
    Row("slice_fill", lambda x: x.slice_fill([ALL, slice(1, 3)], -1.5),
        lambda x: _assigned(x, (slice(None), slice(1, 3)), -1.5), (F(*S),)),
    Row("slice_fill", lambda x: x.slice_fill([-1, ALL, slice(None, None, -2)], 0.25),
        lambda x: _assigned(x, (1, slice(None), [3, 1]), 0.25), (F(*S),),
        variant="int, step -2"),
    # untracked operands and empty results
    Row("slice", lambda x: x.slice([slice(2, 1)]), lambda x: x[2:1], (F(*S),),
        variant="empty range"),
    Row("slice_assign", lambda x, v: x.slice_assign([ALL, slice(1, 3)], v),
        lambda x, v: _assigned(x, (slice(None), slice(1, 3)), v), (K(*S), F(2, 2, 4)),
        variant="constant tensor"),
    Row("slice_assign", lambda x, v: x.slice_assign([ALL, slice(1, 3)], v),
        lambda x, v: _assigned(x, (slice(None), slice(1, 3)), v), (F(*S), K(2, 2, 4)),
        variant="constant values"),
    Row("cat", lambda a, b: Tensor.cat([a, b], 0), lambda a, b: torch.cat([a, b], 0),
        (K(1, 3, 4), F(*S)), variant="one constant"),
    Row("stack", lambda a, b: Tensor.stack([a, b], 1), lambda a, b: torch.cat([a[:, None], b[:, None]], 1),
        (F(*S), K(*S)), variant="one constant"),
    Row("repeat_dim", lambda x: x.repeat_dim(1, 0), lambda x: x[:, 3:], (F(*S),), variant="0 times"),
]
