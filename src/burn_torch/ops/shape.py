"""Shape and layout ops: views, slicing, concatenation, repetition, windows. All memory-bound."""
import torch

from .fit import fit
from .table import MEMORY, defop

aten = torch.ops.aten
_SLICE_BACKWARD = aten.slice_backward.default
_UNFOLD_BACKWARD = aten.unfold_backward.default


def _reshape_back(g, n):
    return (g.reshape(n.parents[0].shape),)


def _swap_rule(g, n):
    a, b = n.attrs
    return (g.transpose(a, b),)


def _permute_rule(g, n):
    (dims,) = n.attrs
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d] = i
    return (g.permute(inverse),)


def _region(t, index, flips):
    """``t[index]``, walked backwards along ``flips``: the entries a Burn slice selects, in order."""
    part = t[index]
    return part.flip(flips) if flips else part


def _slice_rule(g, n):
    index, flips = n.attrs
    z = g.new_zeros(n.parents[0].shape)
    z[index] = g.flip(flips) if flips else g
    return (z,)


def _cleared(g, index):
    """A copy of ``g`` with the sliced region zeroed (its entries were overwritten)."""
    out = g.clone()
    out[index] = 0
    return out


def _slice_assign_forward(x, values, index, flips):
    out = x.clone()
    out[index] = values.flip(flips) if flips else values
    return out


def _slice_assign_rule(g, n):
    index, flips = n.attrs
    px, pv = n.parents
    return (_cleared(g, index) if px is not None else None,
            fit(_region(g, index, flips), pv) if pv is not None else None)


def _slice_fill_forward(x, index, value):
    out = x.clone()
    out[index] = value
    return out


def _narrow_rule(g, n):
    dim, start, length = n.attrs
    return (_SLICE_BACKWARD(g, n.parents[0].shape, dim, start, start + length, 1),)


def _repeat_rule(g, n):
    """Sums the gradient over the copies: dim ``i`` of size ``times * size`` is viewed as
    ``[times, size]`` and the ``times`` axes are reduced."""
    (times,) = n.attrs
    shape = n.parents[0].shape
    split = [d for pair in zip(times, shape) for d in pair]
    return (g.reshape(split).sum(tuple(range(0, len(split), 2))),)


def _unfold_forward(x, dim, size, step):
    if size > x.shape[dim]:  # no complete window: Burn returns zero windows (torch would raise)
        shape = list(x.shape)
        shape[dim] = 0
        return x.narrow(dim, 0, 0).unsqueeze(-1).expand(shape + [size])
    return x.unfold(dim, size, step)


def _unfold_rule(g, n):
    dim, size, step = n.attrs
    shape = n.parents[0].shape
    if g.numel() == 0:
        return (g.new_zeros(shape),)
    return (_UNFOLD_BACKWARD(g, shape, dim, size, step),)


def _cat_rule(g, n):
    dim, sizes = n.attrs
    parts = torch.split(g, sizes, dim)
    # fit: torch.cat/stack promote mixed float dtypes; each gradient goes back in its input's dtype
    return tuple(fit(part, p) if p is not None else None for part, p in zip(parts, n.parents))


def _stack_rule(g, n):
    (dim,) = n.attrs
    return tuple(fit(part, p) if p is not None else None for part, p in zip(g.unbind(dim), n.parents))


RESHAPE = defop("reshape", torch.reshape, _reshape_back, MEMORY)
FLATTEN = defop("flatten", torch.flatten, _reshape_back, MEMORY)
UNSQUEEZE_DIM = defop("unsqueeze_dim", torch.unsqueeze, _reshape_back, MEMORY)
SQUEEZE_DIM = defop("squeeze_dim", torch.squeeze, _reshape_back, MEMORY)
SWAP_DIMS = defop("swap_dims", torch.transpose, _swap_rule, MEMORY)
PERMUTE = defop("permute", torch.permute, _permute_rule, MEMORY)
EXPAND = defop("expand", lambda x, shape: x.expand(shape), lambda g, n: (fit(g, n.parents[0]),), MEMORY)
SLICE = defop("slice", _region, _slice_rule, MEMORY)
CAT = defop("cat", lambda datas, dim, sizes: torch.cat(datas, dim), _cat_rule, MEMORY)
STACK = defop("stack", torch.stack, _stack_rule, MEMORY)
NARROW = defop("narrow", torch.narrow, _narrow_rule, MEMORY)
FLIP = defop("flip", torch.flip, lambda g, n: (g.flip(n.attrs[0]),), MEMORY)
MOVEDIM = defop("movedim", torch.movedim, lambda g, n: (g.movedim(n.attrs[1], n.attrs[0]),), MEMORY)
REPEAT = defop("repeat", torch.Tensor.repeat, _repeat_rule, MEMORY)
REPEAT_DIM = defop("repeat_dim", torch.Tensor.repeat, _repeat_rule, MEMORY)
TRIL = defop("tril", torch.tril, lambda g, n: (g.tril(n.attrs[0]),), MEMORY)
TRIU = defop("triu", torch.triu, lambda g, n: (g.triu(n.attrs[0]),), MEMORY)
UNFOLD = defop("unfold", _unfold_forward, _unfold_rule, MEMORY)
SLICE_ASSIGN = defop("slice_assign", _slice_assign_forward, _slice_assign_rule, MEMORY)
SLICE_FILL = defop("slice_fill", _slice_fill_forward,
                   lambda g, n: (_cleared(g, n.attrs[0]),), MEMORY)
