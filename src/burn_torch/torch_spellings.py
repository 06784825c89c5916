"""What burn_torch says when PyTorch spellings reach its values: each error names what to write.

Two doors, both on the public [`Tensor`][burn_torch.tensor.Tensor]:

* a torch function given a burn_torch Tensor (``torch.cat([x, y], 1)``, ``F.softmax(x, 1)``,
  ``t.add(x)``) reaches ``Tensor.__torch_function__`` (``refuse_torch_function``), which
  raises a TypeError naming the burn_torch call: torch's own message ("expected Tensor ... but
  got Tensor") names neither library;
* a torch-only attribute on a Tensor (``x.view(...)``, ``x.item()``, ``x.requires_grad``,
  ``x.add_(y)``) reaches a ``TorchOnly`` descriptor, which raises the usual
  ``AttributeError: 'Tensor' object has no attribute 'view'`` followed by the Burn spelling.

Neither costs the hot path anything. burn_torch's kernels run on storage tensors, never on the
public Tensor, so ``__torch_function__`` only runs when user code hands a Tensor to torch. The
descriptors sit under their own (torch-only) names, so the class keeps Python's generic
attribute lookup: a ``__getattr__`` fallback would not, and on Python 3.11 a type with one loses
the interpreter's attribute specialisations (measured: 4% more instructions per MLP training
step, ``benchmarks/boundary_errors.py``). ``hasattr(x, "view")`` stays False and the names stay
out of ``dir(x)``.
"""
from __future__ import annotations

import torch
from torch.overrides import resolve_name

# torch.Tensor method or attribute name → the burn_torch spelling (``x`` is the tensor).
TENSOR_METHODS: dict[str, str] = {
    "item": "x.into_scalar()", "tolist": "x.to_data().to_list()", "numpy": "x.to_data().to_numpy()",
    "view": "x.reshape(dims)", "view_as": "x.reshape(other.dims())", "reshape_as": "x.reshape(other.dims())",
    "unflatten": "x.reshape(dims)", "ravel": "x.flatten(0, x.rank() - 1)",
    "size": "x.dims() (a list: x.dims()[d] for one size)", "ndim": "x.rank()", "dim": "x.rank()",
    "ndimension": "x.rank()", "numel": "x.num_elements()", "nelement": "x.num_elements()",
    "pow": "x.powf_scalar(e) for a number exponent, x.powf(e) for a Float tensor one, x.powi(e) for an Int one",
    "float_power": "x.cast(DType.F64).powf_scalar(e)",
    "softmax": "activation.softmax(x, dim)", "log_softmax": "activation.log_softmax(x, dim)",
    "relu": "activation.relu(x)", "sigmoid": "activation.sigmoid(x)", "prelu": "activation.prelu(x, alpha)",
    "hardshrink": "activation.hard_shrink(x, lambda_)",
    "masked_fill": "x.mask_fill(mask, value)", "masked_select": "x.mask_select(mask)",
    "where": "other.mask_where(condition, x) (x where condition holds, other elsewhere)",
    "index_select": "x.select(dim, indices)", "take_along_dim": "x.gather(dim, indices)",
    "scatter_add": "x.scatter(dim, indices, values, IndexingUpdateOp.ADD)",
    "index_add": "x.select_assign(dim, indices, values, IndexingUpdateOp.ADD)",
    "long": "x.int()", "double": "x.cast(DType.F64)", "half": "x.cast(DType.F16)",
    "bfloat16": "x.cast(DType.BF16)", "type_as": "x.cast(other.dtype())", "type": "x.dtype() / x.cast(dtype)",
    "to": "x.to_device(device) or x.cast(dtype)", "cpu": "x.to_device(Device.cpu())",
    "cuda": "x.to_device(Device.cuda(0))", "get_device": "x.device()", "is_cuda": "x.device()",
    "mm": "x.matmul(other)", "bmm": "x.matmul(other)", "mv": "x.matmul(v.unsqueeze_dim(1)).squeeze_dim(1)",
    "eq": "x.equal(other)", "ne": "x.not_equal(other)", "gt": "x.greater(other)", "lt": "x.lower(other)",
    "ge": "x.greater_equal(other)", "le": "x.lower_equal(other)", "less": "x.lower(other)",
    "less_equal": "x.lower_equal(other)", "greater_equal": "x.greater_equal(other)",
    "logical_and": "x.bool_and(other)", "logical_or": "x.bool_or(other)",
    "logical_xor": "x.bool_xor(other)", "logical_not": "x.bool_not()",
    "maximum": "x.max_pair(other)", "minimum": "x.min_pair(other)", "amax": "x.max_dim(dim)",
    "amin": "x.min_dim(dim)", "clip": "x.clamp(min, max)", "reciprocal": "x.recip()",
    "negative": "x.neg()", "subtract": "x.sub(other)", "multiply": "x.mul(other)",
    "divide": "x.div(other)", "true_divide": "x.div(other)", "sgn": "x.sign()",
    "rsqrt": "x.sqrt().recip()", "std": "x.var(dim).sqrt()",
    "isnan": "x.is_nan()", "isinf": "x.is_inf()", "isfinite": "x.is_finite()",
    "isclose": "x.is_close(other)", "allclose": "x.all_close(other)",
    "swapaxes": "x.swap_dims(dim1, dim2)", "swapdims": "x.swap_dims(dim1, dim2)",
    "moveaxis": "x.movedim(source, destination)", "tile": "x.repeat(sizes)",
    "expand_as": "x.expand(other.dims())", "unbind": "x.iter_dim(dim) (each slice keeps the dim)",
    "contiguous": "nothing: drop .contiguous() (the storage layout is torch's concern)",
    "T": "x.permute(reversed dims) (x.transpose() swaps the last two)", "mT": "x.transpose()",
    "new_zeros": "Tensor.zeros(shape, x.device())", "new_ones": "Tensor.ones(shape, x.device())",
    "new_full": "Tensor.full(shape, value, x.device())", "new_tensor": "Tensor.from_data(data, x.device())",
    "new_empty": "Tensor.empty(shape, x.device())",
    "requires_grad": "x.is_require_grad() to read it; x = x.require_grad() for a new leaf",
    "requires_grad_": "x = x.require_grad() (or x.set_require_grad(False))",
    "is_leaf": "x.is_require_grad() (Burn keeps gradients of require_grad() leaves only)",
    "grad_fn": "x.is_tracked()", "retains_grad": "x.is_require_grad()",
    "retain_grad": "x = x.detach().require_grad() and feed it forward (only leaves keep gradients)",
    "register_hook": "read or edit the gradient in the container backward() returns",
    "data": "x.detach() for the values without the graph, x.to_data() for host values",
    "detach_": "x = x.detach()", "zero_": "x = x.zeros_like()", "fill_": "x = x.full_like(value)",
    "copy_": "x = other (tensors are values: bind the name to the new value)",
}


def _in_place_hint(name: str) -> str | None:
    """``x.add_(y)``'s hint: tensors are values, so the in-place form binds the out-of-place one."""
    if not name.endswith("_") or name.endswith("__"):
        return None
    base = name[:-1]
    spelling = TENSOR_METHODS.get(base)
    if spelling is None and not _tensor_has(base):
        return None
    call = spelling if spelling is not None else f"x.{base}(...)"
    return f"burn_torch tensors are immutable values: write x = {call}"


_TENSOR_CLASS: type | None = None  # the public Tensor, bound by install()


def _tensor_has(name: str) -> bool:
    return _TENSOR_CLASS is not None and hasattr(_TENSOR_CLASS, name)


def attribute_hint(name: str) -> str:
    """What to write instead of the torch-only attribute ``name`` on a burn_torch Tensor."""
    spelling = TENSOR_METHODS.get(name)
    if spelling is not None:
        return f"write {spelling}"
    in_place = _in_place_hint(name)
    if in_place is not None:
        return in_place
    return (f"torch.Tensor.{name} has no burn_torch method of that name (the API reference "
            "lists Burn's names; x.to_torch() leaves burn_torch, without its autodiff)")


class TorchOnly:
    """A torch-only attribute name on the Tensor class: reading, setting or deleting it raises
    AttributeError ("'Tensor' object has no attribute 'view': write x.reshape(dims)"), on the
    class as on instances, so ``hasattr`` and ``getattr(x, name, default)`` behave as for any
    missing attribute."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def _error(self, owner: type) -> AttributeError:
        return AttributeError(f"'{owner.__name__}' object has no attribute '{self.name}': "
                              f"{attribute_hint(self.name)}", name=self.name)

    def __get__(self, instance, owner=None):
        raise self._error(owner if owner is not None else type(instance))

    def __set__(self, instance, value) -> None:
        raise self._error(type(instance))

    def __delete__(self, instance) -> None:
        raise self._error(type(instance))


def torch_only_names(tensor_class: type) -> list[str]:
    """The public attributes of ``torch.Tensor`` that ``tensor_class`` does not define."""
    own: set[str] = set()
    for klass in tensor_class.__mro__:
        own.update(k for k, v in vars(klass).items() if not isinstance(v, TorchOnly))
    return sorted(n for n in dir(torch.Tensor) if not n.startswith("_") and n not in own)


def install(tensor_class: type) -> None:
    """Puts a ``TorchOnly`` descriptor on ``tensor_class`` under each torch-only name."""
    global _TENSOR_CLASS
    _TENSOR_CLASS = tensor_class
    for name in torch_only_names(tensor_class):
        setattr(tensor_class, name, TorchOnly(name))


def public_dir(obj) -> list[str]:
    """``dir(obj)`` without the ``TorchOnly`` names (what completion should offer)."""
    cls = type(obj)
    return [n for n in object.__dir__(obj) if not isinstance(_class_entry(cls, n), TorchOnly)]


def _class_entry(cls: type, name: str):
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


# torch function (as torch.overrides.resolve_name spells it) → the burn_torch spelling, where
# the name alone does not find it (see function_hint).
TORCH_FUNCTIONS: dict[str, str] = {
    "torch.cat": "Tensor.cat([x, y], dim)", "torch.concat": "Tensor.cat([x, y], dim)",
    "torch.concatenate": "Tensor.cat([x, y], dim)", "torch.stack": "Tensor.stack([x, y], dim)",
    "torch.where": "y.mask_where(condition, x) (x where condition holds, y elsewhere)",
    "torch.matmul": "x.matmul(y)", "torch.mm": "x.matmul(y)", "torch.bmm": "x.matmul(y)",
    "torch.nn.functional.linear": "nn.Linear's forward, or x.matmul(weight) + bias (weight [d_in, d_out])",
    "torch.nn.functional.cross_entropy": "nn.CrossEntropyLossConfig().init(device).forward(logits, targets)",
    "torch.nn.functional.mse_loss": "nn.MseLoss().forward(x, y, nn.Reduction.MEAN)",
    "torch.nn.functional.dropout": "nn.DropoutConfig(p).init().forward(x)",
    "torch.nn.functional.interpolate": "module_ops.interpolate(x, size, options)",
    "torch.zeros_like": "x.zeros_like()", "torch.ones_like": "x.ones_like()",
    "torch.full_like": "x.full_like(value)",
    "torch.randn_like": "x.random_like(Distribution.normal(0.0, 1.0))",
    "torch.rand_like": "x.random_like(Distribution.uniform(0.0, 1.0))",
    "torch.broadcast_tensors": "x.expand(dims) (burn_torch's operators broadcast by themselves)",
    "torch.functional.broadcast_tensors": "x.expand(dims) (burn_torch's operators broadcast by themselves)",
    "torch.autograd.grad": "grads = loss.backward(); then x.grad(grads) for each input",
    "torch.autograd.backward": "grads = loss.backward(); then x.grad(grads) for each input",
    "torch.testing.assert_close": "x.all_close(y) or burn_torch.testing's comparisons",
    "torch.distributed.distributed_c10d.all_reduce": "x = burn_torch.distributed.all_reduce(x) (returns the result)",
    "torch.distributed.distributed_c10d.all_gather": "x = burn_torch.distributed.all_gather(x, dim) (returns the ranks' tensors joined along dim)",
    "torch.distributed.distributed_c10d.broadcast": "x = burn_torch.distributed.broadcast(x, src) (returns the result)",
}


def _module_function(module_name: str, name: str) -> bool:
    import importlib
    module = importlib.import_module(f"burn_torch.{module_name}")
    return callable(getattr(module, name, None))


def function_hint(qualname: str) -> str:
    """What to write instead of the torch function ``qualname`` called on a burn_torch Tensor."""
    spelling = TORCH_FUNCTIONS.get(qualname)
    if spelling is not None:
        return f"write {spelling}"
    name = qualname.rpartition(".")[2]
    if qualname.startswith("torch.Tensor."):
        return ("torch tensors and burn_torch tensors do not mix: wrap the torch tensor with "
                "burn_torch.compat.from_torch(t, device) (zero-copy) and use burn_torch's ops")
    if qualname.startswith("torch.nn.functional.") and _module_function("activation", name):
        return f"write activation.{name}(x, ...)"
    if name in TENSOR_METHODS:
        return f"write {TENSOR_METHODS[name]}"
    if _tensor_has(name):
        return f"write x.{name}(...) (burn_torch's method; see its signature in the API reference)"
    return ("burn_torch has no function of that name: the API reference lists Burn's names "
            "(x.to_torch() hands the values to torch, without burn_torch's autodiff)")


def _qualname(func) -> str:
    """``module.qualname`` of a torch callable ``resolve_name`` does not know (``torch.autograd.grad``)."""
    module, name = getattr(func, "__module__", None), getattr(func, "__qualname__", None)
    return f"{module}.{name}" if module and name else repr(func)


def refuse_torch_function(cls, func, types, args=(), kwargs=None):
    """``Tensor.__torch_function__``: raises TypeError naming the burn_torch spelling of ``func``.

    Torch turns the TypeError of an operator (``torch_tensor + x``) into NotImplemented, so
    Python then tries the burn_torch operator, which says how to convert."""
    qualname = resolve_name(func) or _qualname(func)
    raise TypeError(f"{qualname}() got a burn_torch Tensor, which is not a torch.Tensor: "
                    f"{function_hint(qualname)}")
