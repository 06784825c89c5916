"""Running an op-table entry's torch kernel and wrapping storage as a public tensor: what the
recorder (every op) and BALANCED checkpointing (recording and recomputation) both call.
"""
from __future__ import annotations

import torch

_grad_enabled = torch.is_grad_enabled
_set_grad = torch._C._set_grad_enabled

_Tensor = None  # the public Tensor class, bound through recorder.bind_tensor_class


def bind_tensor_class(cls) -> None:
    """Lets :func:`wrap` build public tensors without importing the tensor module."""
    global _Tensor
    _Tensor = cls


def kernel_error(op, err: RuntimeError, datas) -> Exception:
    """Turns torch's shape/dtype complaints into ValueError naming the op and the input shapes."""
    if type(err) is not RuntimeError:
        return err
    flat = [t for d in datas for t in (d if isinstance(d, tuple) else (d,))]
    shapes = ", ".join(str(list(t.shape)) for t in flat)
    return ValueError(f"{op.name}: {err} (input shapes: {shapes})")


def run(op, datas, *attrs):
    """Runs ``op.forward(*datas, *attrs)`` with torch autograd off; returns what the forward
    returns (``(out, *residuals)`` for an op with residuals)."""
    prev = _grad_enabled()
    _set_grad(False)
    try:
        return op.forward(*datas, *attrs)
    except RuntimeError as e:
        raise kernel_error(op, e, datas) from e
    finally:
        _set_grad(prev)


def wrap(data, ctx, node=None):
    """Builds a public tensor from storage, an autodiff context and an optional node."""
    t = _Tensor.__new__(_Tensor)
    t._data = data
    t._ctx = ctx
    t._node = node
    return t
