"""How the testing kit turns the arguments of a checked function into burn_torch tensors, and
its result into a list of output tensors.

Float numpy arrays, float torch tensors and nested lists of floats become tracked leaves
(``Tensor.from_data(x, Device.cpu().autodiff()).require_grad()``); Int and Bool values become
constants on that autodiff device; [`Const`][burn_torch.testing.inputs.Const] marks a float
constant; burn_torch Tensors are taken as they are (a ``require_grad()`` leaf is a leaf, an
untracked tensor a constant).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..autodiff.recorder import wrap
from ..device import Device
from ..tensor import Tensor

AUTODIFF_CPU = Device.cpu().autodiff()


@dataclass(frozen=True)
class Const:
    """Marks a float input as a constant: an untracked tensor on ``Device.cpu().autodiff()``
    that must get no gradient. ``value`` is a numpy array, a torch tensor or nested lists."""

    value: object

    def __post_init__(self) -> None:
        if isinstance(self.value, Tensor):
            raise TypeError("Const wraps raw values; pass a burn_torch Tensor as it is "
                            "(an untracked tensor is already a constant)")


@dataclass(frozen=True)
class Input:
    """One prepared argument: ``tensor`` as the Burn run uses it; ``leaf`` tells whether its
    gradient is checked."""

    tensor: Tensor
    leaf: bool

    @property
    def storage(self) -> torch.Tensor:
        return self.tensor.to_torch()


def as_storage(value) -> torch.Tensor:
    """A fresh torch copy of an array, a torch tensor or nested lists (dtype kept)."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    return torch.from_numpy(np.array(value))


def prepare(value, float64: bool = False) -> Input:
    """Turns one argument into an [`Input`][burn_torch.testing.inputs.Input] (see the module
    docstring).

    ``float64``: float values (also the values of a given leaf) are converted to float64, as a
    new leaf on the given tensor's device. Raises ValueError for a tracked intermediate tensor
    (its graph would be consumed) and TypeError for a Const of non-float values.
    """
    if isinstance(value, Tensor):
        if value.is_require_grad():
            if float64 and value.to_torch().dtype is not torch.float64:
                return Input(Tensor.from_data(value.to_torch().double(), value.device()).require_grad(), True)
            return Input(value, True)
        if value.is_tracked():
            raise ValueError("a tracked intermediate tensor cannot be a checked input (its graph "
                             "would be consumed); pass a require_grad() leaf or a constant")
        return Input(value, False)
    if isinstance(value, Const):
        data = as_storage(value.value)
        if not data.is_floating_point():
            raise TypeError(f"Const marks a float constant, got dtype {data.dtype}; Int and Bool "
                            "values are constants already")
        return Input(Tensor.from_data(data.double() if float64 else data, AUTODIFF_CPU), False)
    data = as_storage(value)
    if not data.is_floating_point():
        return Input(Tensor.from_data(data, AUTODIFF_CPU), False)
    if float64:
        data = data.double()
    return Input(Tensor.from_data(data, AUTODIFF_CPU).require_grad(), True)


def prepare_all(values, float64: bool = False) -> list[Input]:
    """[`prepare`][burn_torch.testing.inputs.prepare] for every argument."""
    return [prepare(v, float64) for v in values]


def widened(inputs: list[Input]) -> list[Input]:
    """The arguments in float64: each distinct float leaf a new float64 leaf on its device, each
    float constant a float64 constant with its autodiff context; others as they are."""
    copies: dict[int, Tensor] = {}
    out = []
    for inp in inputs:
        t = inp.tensor
        data = t.to_torch()
        if not data.is_floating_point() or data.dtype is torch.float64:
            out.append(inp)
            continue
        if id(t) not in copies:
            copies[id(t)] = (Tensor.from_data(data.double(), t.device()).require_grad() if inp.leaf
                             else wrap(data.double(), t._ctx))
        out.append(Input(copies[id(t)], inp.leaf))
    return out


def oracle_copies(inputs: list[Input]) -> list[Tensor]:
    """The arguments of the torch-oracle run: each leaf becomes a new burn_torch leaf whose storage
    is a ``requires_grad=True`` copy (one per distinct leaf); constants are shared as they are."""
    copies: dict[int, Tensor] = {}
    out = []
    for inp in inputs:
        if not inp.leaf:
            out.append(inp.tensor)
            continue
        key = id(inp.tensor)
        if key not in copies:
            data = inp.storage.detach().clone().requires_grad_(True)
            copies[key] = wrap(data, inp.tensor.gradient_checkpointing_strategy()).require_grad()
        out.append(copies[key])
    return out


def untracked_copies(inputs: list[Input], values: dict[int, torch.Tensor]) -> list[Tensor]:
    """The arguments with each leaf replaced by an untracked tensor over ``values[id(leaf)]`` (or
    the leaf's own values when absent), as the finite-difference runs need them."""
    out = []
    for inp in inputs:
        if inp.leaf:
            data = values.get(id(inp.tensor), inp.storage)
            out.append(wrap(data, inp.tensor.gradient_checkpointing_strategy()))
        else:
            out.append(inp.tensor)
    return out


def outputs_of(result) -> list[Tensor]:
    """The checked function's result as a list of outputs (a Tensor, or a tuple or list of them).
    Raises TypeError naming the first output that is not a burn_torch Tensor."""
    outs = list(result) if isinstance(result, (tuple, list)) else [result]
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            raise TypeError(f"the checked function must return burn_torch Tensors (or a tuple of "
                            f"them); output {i} is {type(o).__name__}")
    return outs


def argument_names(fn, count: int, given=None) -> list[str]:
    """How reports name each of ``count`` arguments: ``"<name> (input i)"`` with ``name`` from
    ``given`` (a sequence of names) or ``fn``'s positional parameters (``args[k]`` past a
    ``*args``), ``"input i"`` where neither says. Raises ValueError when ``given`` has the
    wrong length."""
    if given is not None:
        given = list(given)
        if len(given) != count:
            raise ValueError(f"names: {len(given)} names for {count} inputs")
        return [f"{n} (input {i})" for i, n in enumerate(given)]
    code = getattr(fn, "__code__", None)
    if code is not None and not hasattr(fn, "__wrapped__"):
        return list(_names_of_code(code, fn, count))
    return _names_of(fn, count)


_NAME_CACHE: dict = {}


def _names_of_code(code, fn, count: int) -> tuple:
    key = (code, count)
    if key not in _NAME_CACHE:
        if len(_NAME_CACHE) > 1024:
            _NAME_CACHE.clear()
        _NAME_CACHE[key] = tuple(_names_of(fn, count))
    return _NAME_CACHE[key]


def _names_of(fn, count: int) -> list[str]:
    import inspect

    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    out = []
    for i in range(count):
        name = None
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if i < len(positional):
            name = positional[i].name
        elif any(p.kind is p.VAR_POSITIONAL for p in params):
            star = next(p for p in params if p.kind is p.VAR_POSITIONAL)
            name = f"{star.name}[{i - len(positional)}]"
        out.append(f"{name} (input {i})" if name else f"input {i}")
    return out
