"""Burn's free tensor functions (``burn_tensor::{activation, linalg, loss, module, signal}``),
each one op-table entry applied through the recorder. Public as ``burn_torch.activation``,
``burn_torch.linalg``, ``burn_torch.loss``, ``burn_torch.module_ops`` and ``burn_torch.signal``."""
from . import activation, linalg, loss, module_ops, signal

__all__ = ["activation", "linalg", "loss", "module_ops", "signal"]
