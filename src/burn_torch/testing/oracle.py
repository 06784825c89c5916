"""Torch-oracle mode: burn_torch's own op table executed under real torch autograd.

burn_torch switches torch autograd off around every forward kernel (``recorder._set_grad``,
``kernel._set_grad``). Inside [`torch_oracle_mode`][burn_torch.testing.oracle.torch_oracle_mode]
that switch does nothing and torch autograd is on, so a function run on tensors whose storages
require grad builds a torch graph through exactly the kernels burn_torch runs;
``torch.autograd.grad`` on the output storages is then the reference for the op table's backward
rules. Where Burn cuts a graph without running a kernel (``detach``, ``without_autodiff``/``inner``,
``set_require_grad(False)``) the mode cuts the storage's torch graph too. Where Burn's gradient rule
differs from torch's ([`burn_torch.testing.burn_rules`][burn_torch.testing.burn_rules]) the mode
runs the row's twin instead of the entry's kernel (``burn_rules=False`` keeps the kernels, and
torch's rules there). The normal hot path is untouched: the mode patches module and class attributes
and restores them on exit, also when the body raises. It changes process-wide state: use it in
tests, not while other threads run burn_torch code.
"""
from __future__ import annotations

import contextlib
import functools
from typing import Callable, Iterator

import torch

from ..autodiff import kernel as autodiff_kernel, recorder
from ..ops import OPS
from ..autodiff.recorder import wrap
from ..tensor import Tensor
from .burn_rules import oracle_kernels


def _keep_grad_mode(enabled: bool) -> None:
    """Stands in for the recorder's grad-mode switch: leaves torch autograd as it is."""


def _cut_storage(t: Tensor) -> Tensor:
    data = t.to_torch()
    if data.requires_grad:
        return wrap(data.detach(), t.gradient_checkpointing_strategy(), t._node)
    return t


def _cutting(method: Callable, when: Callable[..., bool]) -> Callable:
    @functools.wraps(method)
    def cut(self, *args, **kwargs):
        out = method(self, *args, **kwargs)
        return _cut_storage(out) if when(*args, **kwargs) else out
    return cut


def _always(*args, **kwargs) -> bool:
    return True


def _not_requiring(require_grad: bool) -> bool:
    return not require_grad


_CUTS = {"detach": _always, "without_autodiff": _always, "set_require_grad": _not_requiring}


@contextlib.contextmanager
def torch_oracle_mode(burn_rules: bool = True) -> Iterator[None]:
    """Runs the body with burn_torch's forward kernels under torch autograd (module docstring);
    ``burn_rules``: the kernels of the entries in Burn's table are replaced by their twins.

    Restores the grad-mode switches of the recorder and of ``kernel.run``, the patched Tensor methods, the entries' kernels and torch's
    grad mode on exit, whether the body returns or raises. Nested use is allowed.
    """
    saved_switches = recorder._set_grad, autodiff_kernel._set_grad
    own = {name: Tensor.__dict__.get(name) for name in _CUTS}
    twins = oracle_kernels() if burn_rules else {}
    kernels = {name: OPS[name].forward for name in twins}
    recorder._set_grad = autodiff_kernel._set_grad = _keep_grad_mode
    for name, when in _CUTS.items():
        setattr(Tensor, name, _cutting(getattr(Tensor, name), when))
    for name, twin in twins.items():
        OPS[name].forward = twin
    try:
        with torch.enable_grad():
            yield
    finally:
        recorder._set_grad, autodiff_kernel._set_grad = saved_switches
        for name, kernel in kernels.items():
            OPS[name].forward = kernel
        for name, method in own.items():
            if method is None:
                delattr(Tensor, name)
            else:
                setattr(Tensor, name, method)
