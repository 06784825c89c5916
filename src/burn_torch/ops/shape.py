"""Shape and layout ops: views, slicing, concatenation. All memory-bound."""
import torch

from .fit import fit
from .table import MEMORY, defop


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


def _slice_forward(x, index, flips):
    out = x[index]
    return out.flip(flips) if flips else out


def _slice_rule(g, n):
    index, flips = n.attrs
    z = g.new_zeros(n.parents[0].shape)
    z[index] = g.flip(flips) if flips else g
    return (z,)


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
SLICE = defop("slice", _slice_forward, _slice_rule, MEMORY)
CAT = defop("cat", lambda datas, dim, sizes: torch.cat(datas, dim), _cat_rule, MEMORY)
STACK = defop("stack", torch.stack, _stack_rule, MEMORY)
