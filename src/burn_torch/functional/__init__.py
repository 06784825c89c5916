"""Burn's free tensor functions (``burn_tensor::{activation, loss, module, signal}``), each one
op-table entry applied through the recorder. Public as ``burn_torch.activation``,
``burn_torch.loss``, ``burn_torch.module_ops`` and ``burn_torch.signal``."""
from . import activation, loss, module_ops, signal

__all__ = ["activation", "loss", "module_ops", "signal"]
