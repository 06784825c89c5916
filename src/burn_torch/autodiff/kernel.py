"""Running an op-table entry's torch kernel and wrapping storage as a public tensor: what the
recorder (every op) and BALANCED checkpointing (recording and recomputation) both call.
"""
from __future__ import annotations

import torch

_grad_enabled = torch.is_grad_enabled
_set_grad = torch._C._set_grad_enabled

_Tensor = None  # the public Tensor class, bound through recorder.bind_tensor_class


def bind_tensor_class(cls) -> None:
    """Lets ``wrap`` build public tensors without importing the tensor module."""
    global _Tensor
    _Tensor = cls


_BURN_FLOATS = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16",
                torch.bfloat16: "BF16"}


def kernel_error(op, err: RuntimeError, datas) -> Exception:
    """Turns torch's shape/dtype complaints into ValueError naming the op and the input shapes;
    float inputs of different dtypes (a float64 input to a float32 layer) are named with their
    dtypes and the cast that makes them agree."""
    if type(err) is not RuntimeError:
        return err
    flat = [t for d in datas for t in (d if isinstance(d, tuple) else (d,))]
    floats = [t.dtype for t in flat if t.is_floating_point()]
    if len(set(floats)) > 1:
        names = op.inputs if len(op.inputs) == len(flat) else [f"input {i}" for i in range(len(flat))]
        listed = ", ".join(f"{n} {str(t.dtype).removeprefix('torch.')}" for n, t in zip(names, flat))
        first, want = flat[0].dtype, next(d for d in floats if d is not flat[0].dtype)
        cast = f".cast(DType.{_BURN_FLOATS.get(want, want)})"
        return ValueError(
            f"{op.name}: its inputs have different float dtypes ({listed}); burn_torch does not "
            f"promote (Burn does not): cast {names[0]} with {cast}, or the others (a layer's "
            f"parameters) to {str(first).removeprefix('torch.')}")
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
