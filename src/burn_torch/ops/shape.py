"""Shape and layout ops: views, slicing, concatenation, repetition, windows. All memory-bound."""
import torch

from .region import Region
from .table import MEMORY, PASS, defop, vjp
from .kernels import kernel

aten = torch.ops.aten
# torch's functions, not the Tensor methods: a method given its sizes or dims as one sequence
# (``g.reshape(size)``, ``g.permute(dims)``, ``g.expand(shape)``) parses it 1-2.5 µs slower
_reshape = torch.reshape
_permute = torch.permute
_flip = torch.flip
_UNFOLD_BACKWARD = kernel(aten.unfold_backward.default)


def _reshape_back(g, s):
    return _reshape(g, s.x_shape)


def _permute_rule(g, s):
    inverse = [0] * len(s.dims)
    for i, d in enumerate(s.dims):
        inverse[d] = i
    return _permute(g, inverse)


def _region(t, index, flips):
    """``t[index]``, walked backwards along ``flips``: the entries a Burn slice selects, in order."""
    part = t[index]
    return _flip(part, flips) if flips else part


def _slice_rule(g, s):
    return Region(_flip(g, s.flips) if s.flips else g, s.x_shape, s.index)


def _cleared(g, index):
    """A copy of ``g`` with the sliced region zeroed (its entries were overwritten)."""
    out = g.clone()
    out[index] = 0
    return out


def _slice_assign_forward(x, values, index, flips):
    out = x.clone()
    out[index] = values.flip(flips) if flips else values
    return out


def _slice_fill_forward(x, index, value):
    out = x.clone()
    out[index] = value
    return out


def _narrow_rule(g, s):
    """``g`` as the region ``start..start+length`` of ``dim`` (see ``ops.region``)."""
    return Region(g, s.x_shape, None, s.dim, s.start)


def _select_dim_rule(g, s):
    """``g`` with the removed dim restored, as the length-1 region ``index`` of ``dim``: a loop
    over ``x.select_dim(1, t)`` concatenates its gradients once, as a loop of ``narrow``s."""
    return Region(g.unsqueeze(s.dim), s.x_shape, None, s.dim, s.index)


def _repeat_rule(g, s):
    """Sums the gradient over the copies: dim ``i`` of size ``times * size`` is viewed as
    ``[times, size]`` and the ``times`` axes are reduced."""
    split = [d for pair in zip(s.times, s.x_shape) for d in pair]
    return g.reshape(split).sum(tuple(range(0, len(split), 2)))


def _unfold_forward(x, dim, size, step):
    if size > x.shape[dim]:  # no complete window: Burn returns zero windows (torch would raise)
        shape = list(x.shape)
        shape[dim] = 0
        return x.narrow(dim, 0, 0).unsqueeze(-1).expand(shape + [size])
    return x.unfold(dim, size, step)


def _unfold_rule(g, s):
    if g.numel() == 0:
        return g.new_zeros(s.x_shape)
    return _UNFOLD_BACKWARD(g, s.x_shape, s.dim, s.size, s.step)


def _cat_rule(g, s, parents):
    """Splits the gradient into the inputs' parts (the engine casts each to its input's dtype:
    torch.cat/stack promote mixed float dtypes)."""
    return g.split_with_sizes(s.sizes, s.dim)  # torch.split's Python wrappers cost more


def _stack_rule(g, s, parents):
    return g.unbind(s.dim)


RESHAPE_BACK = vjp(_reshape_back, "x_shape")
RESHAPE = defop("reshape", torch.reshape, MEMORY, attrs=("shape",), vjp=(RESHAPE_BACK,))
FLATTEN = defop("flatten", torch.flatten, MEMORY, attrs=("start_dim", "end_dim"), vjp=(RESHAPE_BACK,))
UNSQUEEZE_DIM = defop("unsqueeze_dim", torch.unsqueeze, MEMORY, attrs=("dim",), vjp=(RESHAPE_BACK,))
SQUEEZE_DIM = defop("squeeze_dim", torch.squeeze, MEMORY, attrs=("dim",), vjp=(RESHAPE_BACK,))
SWAP_DIMS = defop("swap_dims", torch.transpose, MEMORY, attrs=("dim1", "dim2"),
                  vjp=(vjp(lambda g, s: g.transpose(s.dim1, s.dim2)),))
PERMUTE = defop("permute", torch.permute, MEMORY, attrs=("dims",), vjp=(vjp(_permute_rule),))
# the gradient is the output's, summed back over the expanded dims by the engine
EXPAND = defop("expand", torch.broadcast_to, MEMORY, attrs=("shape",), vjp=(PASS,),
               exact=False)
SLICE = defop("slice", _region, MEMORY, attrs=("index", "flips"), vjp=(vjp(_slice_rule, "x_shape"),))
# cat and stack promote mixed float dtypes: the engine casts each part back to its input's dtype
CAT = defop("cat", lambda datas, dim, sizes: torch.cat(datas, dim), MEMORY, inputs=("*tensors",),
            attrs=("dim", "sizes"), fused=_cat_rule, exact=False)
STACK = defop("stack", torch.stack, MEMORY, inputs=("*tensors",), attrs=("dim",), fused=_stack_rule,
              exact=False)
NARROW = defop("narrow", torch.narrow, MEMORY, attrs=("dim", "start", "length"),
               vjp=(vjp(_narrow_rule, "x_shape"),))
# Burn's select_dim(dim, index): slice_dim(dim, index).squeeze_dim(dim) as one view
SELECT_DIM = defop("select_dim", torch.select, MEMORY, attrs=("dim", "index"),
                   vjp=(vjp(_select_dim_rule, "x_shape"),))
FLIP = defop("flip", torch.flip, MEMORY, attrs=("dims",), vjp=(vjp(lambda g, s: _flip(g, s.dims)),))
MOVEDIM = defop("movedim", torch.movedim, MEMORY, attrs=("source", "destination"),
                vjp=(vjp(lambda g, s: g.movedim(s.destination, s.source)),))
REPEAT = defop("repeat", torch.Tensor.repeat, MEMORY, attrs=("times",),
               vjp=(vjp(_repeat_rule, "x_shape"),))
REPEAT_DIM = defop("repeat_dim", torch.Tensor.repeat, MEMORY, attrs=("times",),
                   vjp=(vjp(_repeat_rule, "x_shape"),))
TRIL = defop("tril", torch.tril, MEMORY, attrs=("diagonal",),
             vjp=(vjp(lambda g, s: g.tril(s.diagonal)),))
TRIU = defop("triu", torch.triu, MEMORY, attrs=("diagonal",),
             vjp=(vjp(lambda g, s: g.triu(s.diagonal)),))
UNFOLD = defop("unfold", _unfold_forward, MEMORY, attrs=("dim", "size", "step"),
               vjp=(vjp(_unfold_rule, "x_shape"),))
SLICE_ASSIGN = defop("slice_assign", _slice_assign_forward, MEMORY, inputs=("x", "values"),
                     attrs=("index", "flips"),
                     vjp=(vjp(lambda g, s: _cleared(g, s.index)),
                          vjp(lambda g, s: _region(g, s.index, s.flips))))
SLICE_FILL = defop("slice_fill", _slice_fill_forward, MEMORY, attrs=("index", "value"),
                   vjp=(vjp(lambda g, s: _cleared(g, s.index)),))
