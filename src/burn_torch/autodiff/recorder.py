"""The recorder: runs an op-table entry's forward kernel and records a step when needed.

This is the per-op hot path. It combines the operands' autodiff contexts (an operand without
autodiff is a constant; two autodiff operands must share a checkpointing strategy), runs the torch
kernel with torch autograd off, splits off the op's named residuals, and, when at least one
operand is tracked and the op is differentiable, creates the result's node with the parents'
nodes and the saved record the rules of the tracked inputs need (``op.savers[mask]``).
Results with the BALANCED strategy are recorded by ``checkpoint.record`` instead (one identity
check per op here; see ``checkpoint``).
"""
from __future__ import annotations

import torch

from .strategy import GradientCheckpointingStrategy
from ..errors import StrategyMismatchError
from . import checkpoint as _checkpoint
from . import kernel as _kernel
from .graph import Node
from .kernel import kernel_error, run, wrap  # noqa: F401  (the package imports run and wrap from here)

NodeClass = Node  # the class of recorded nodes (debug mode swaps in one that keeps the source line)

_BALANCED = GradientCheckpointingStrategy.BALANCED

_grad_enabled = torch.is_grad_enabled
_set_grad = torch._C._set_grad_enabled

_Tensor = None  # the public Tensor class, bound by burn_torch.tensor at import


def bind_tensor_class(cls) -> None:
    """Lets the recorder build public tensors without importing the tensor module."""
    global _Tensor
    _Tensor = cls
    _kernel.bind_tensor_class(cls)


def mismatch(ca, cb) -> StrategyMismatchError:
    return StrategyMismatchError(
        f"cannot combine autodiff tensors with different gradient checkpointing strategies "
        f"({ca.name} and {cb.name}); create the other operand on moved.device() or align them "
        f"with Tensor.with_gradient_checkpointing_strategy(...)"
    )


def combine_ctx(ca, cb):
    """The autodiff context of a result of two operands; raises on a strategy mismatch."""
    if ca is cb or cb is None:
        return ca
    if ca is None:
        return cb
    raise mismatch(ca, cb)


def apply1(op, x, attrs=()):
    """Applies a one-input op to tensor ``x``; returns the result tensor."""
    if x._ctx is _BALANCED:
        return _checkpoint.record(op, (x,), attrs, _BALANCED, False)
    data = x._data
    prev = _grad_enabled()
    _set_grad(False)
    try:
        out = op.forward(data, *attrs)
    except RuntimeError as e:
        raise kernel_error(op, e, (data,)) from e
    finally:
        _set_grad(prev)
    res = None
    if op.residuals:
        res = out[1:]
        out = out[0]
    t = _Tensor.__new__(_Tensor)
    t._data = out
    t._ctx = x._ctx
    node = x._node
    if node is None or not op.differentiable:
        t._node = None
        return t
    save = op.savers[1]
    t._node = NodeClass(op, (node,), None if save is None else save((data,), out, res, attrs),
                        out.shape, out.dtype)
    return t


def apply1_each(op, x, kernel, attrs_seq):
    """``[apply1(op, x, attrs) for attrs in attrs_seq]``, with every output computed by one call
    ``kernel(storage of x)``, which must return exactly those outputs, in order (``torch.split``
    for a split's narrows): one kernel call instead of one per output, the same steps. BALANCED
    tensors take apply1 (their steps recompute through ``op.forward``)."""
    if x._ctx is _BALANCED:
        return [apply1(op, x, attrs) for attrs in attrs_seq]
    data = x._data
    prev = _grad_enabled()
    _set_grad(False)
    try:
        outs = kernel(data)
    except RuntimeError as e:
        raise kernel_error(op, e, (data,)) from e
    finally:
        _set_grad(prev)
    ctx = x._ctx
    node = x._node
    tracked = node is not None and op.differentiable
    save = op.savers[1] if tracked else None
    new = _Tensor.__new__
    tensors = []
    for out, attrs in zip(outs, attrs_seq):
        t = new(_Tensor)
        t._data = out
        t._ctx = ctx
        t._node = NodeClass(op, (node,), None if save is None else save((data,), out, None, attrs),
                            out.shape, out.dtype) if tracked else None
        tensors.append(t)
    return tensors


def apply2(op, a, b, attrs=()):
    """Applies a two-input op to tensors ``a`` and ``b``; returns the result tensor."""
    ca = a._ctx
    cb = b._ctx
    if ca is not cb:
        ca = combine_ctx(ca, cb)
    if ca is _BALANCED:
        return _checkpoint.record(op, (a, b), attrs, ca, False)
    da = a._data
    db = b._data
    prev = _grad_enabled()
    _set_grad(False)
    try:
        out = op.forward(da, db, *attrs)
    except RuntimeError as e:
        raise kernel_error(op, e, (da, db)) from e
    finally:
        _set_grad(prev)
    res = None
    if op.residuals:
        res = out[1:]
        out = out[0]
    t = _Tensor.__new__(_Tensor)
    t._data = out
    t._ctx = ca
    na = a._node
    nb = b._node
    if na is None:
        if nb is None or not op.differentiable:
            t._node = None
            return t
        save = op.savers[2]
    elif not op.differentiable:
        t._node = None
        return t
    else:
        save = op.savers[1 if nb is None else 3]
    t._node = NodeClass(op, (na, nb), None if save is None else save((da, db), out, res, attrs),
                        out.shape, out.dtype)
    return t


def apply3(op, a, b, c, attrs=()):
    """``applyn`` over exactly ``(a, b, c)`` (a linear or convolution with its bias, a
    normalisation with both parameters), without applyn's loop: the hot path of biased layers."""
    ctx = a._ctx
    if b._ctx is not ctx or c._ctx is not ctx:
        ctx = combine_ctx(combine_ctx(ctx, b._ctx), c._ctx)
    if ctx is _BALANCED:
        return _checkpoint.record(op, (a, b, c), attrs, ctx, True)
    na = a._node
    nb = b._node
    nc = c._node
    return _packed(op, (a._data, b._data, c._data), (na, nb, nc),
                   (na is not None) | (nb is not None) << 1 | (nc is not None) << 2, ctx, attrs)


def applyn(op, tensors, attrs=()):
    """Applies an op over a sequence of tensors (a variadic op, or one whose optional inputs
    may be absent, such as a bias); ``op.forward`` receives their storages as one tuple."""
    ctx = None
    datas = []
    parents = []
    mask = 0
    bit = 1
    for t in tensors:
        c = t._ctx
        if c is not None and c is not ctx:
            ctx = c if ctx is None else combine_ctx(ctx, c)
        datas.append(t._data)
        node = t._node
        parents.append(node)
        if node is not None:
            mask |= bit
        bit <<= 1
    if ctx is _BALANCED:
        return _checkpoint.record(op, tensors, attrs, ctx, True)
    return _packed(op, tuple(datas), tuple(parents), mask, ctx, attrs)


def _packed(op, datas: tuple, parents: tuple, mask: int, ctx, attrs):
    """The rest of ``applyn``: ``mask`` has bit i set when ``parents[i]`` is a node."""
    prev = _grad_enabled()
    _set_grad(False)
    try:
        out = op.forward(datas, *attrs)
    except RuntimeError as e:
        raise kernel_error(op, e, datas) from e
    finally:
        _set_grad(prev)
    res = None
    if op.residuals:
        res = out[1:]
        out = out[0]
    t = _Tensor.__new__(_Tensor)
    t._data = out
    t._ctx = ctx
    if not mask or not op.differentiable:
        t._node = None
        return t
    save = op.savers[1 if op.variadic else mask]
    t._node = NodeClass(op, parents, None if save is None else save(datas, out, res, attrs),
                        out.shape, out.dtype)
    return t
