"""``GradientsAccumulator``: sums GradientsParams over several backward passes."""
from __future__ import annotations

from ..module import Module, ModuleVisitor
from .grads import GradientsParams


class _Accumulate(ModuleVisitor):
    def __init__(self, total: GradientsParams, new: GradientsParams) -> None:
        self.total = total._grads
        self.new = new._grads

    def visit_float(self, param) -> None:
        g = self.new.pop(param.id, None)
        if g is None:
            return
        acc = self.total.get(param.id)
        self.total[param.id] = g if acc is None else acc + g


class GradientsAccumulator:
    """Accumulates gradients: ``accumulate(module, grads)`` repeatedly, then ``grads()``.

    PyTorch accumulates by not calling ``zero_grad``; Burn's backward returns a fresh container
    each time, so the sum is explicit. ``grads()`` hands the sum over and empties the
    accumulator (PyTorch's ``zero_grad`` after ``step``).
    """

    def __init__(self) -> None:
        self._grads = GradientsParams()

    def accumulate(self, module: Module, grads: GradientsParams) -> None:
        """Adds ``grads``' entries for ``module``'s parameters (taking them out of ``grads``)."""
        if not isinstance(grads, GradientsParams):
            raise TypeError(f"expected GradientsParams, got {type(grads).__name__}")
        module.visit(_Accumulate(self._grads, grads))

    def grads(self) -> GradientsParams:
        """The accumulated gradients; the accumulator is empty afterwards."""
        out, self._grads = self._grads, GradientsParams()
        return out

    def __len__(self) -> int:
        return len(self._grads)
