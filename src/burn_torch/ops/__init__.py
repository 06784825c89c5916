"""The op table (``table.OPS``) and the modules that declare its entries, grouped by family."""
from . import activation, compare, convert, elementwise, index, linalg, reduce, shape  # noqa: F401  (declare ops)
from . import conv, nn, pool  # noqa: F401  (declare module ops)
from . import loss, norm, signal  # noqa: F401  (declare ops)
from . import bitwise  # noqa: F401  (declares ops)
from .table import COMPUTE, MEMORY, OPS, Bound, OpDef

__all__ = ["OPS", "OpDef", "Bound", "MEMORY", "COMPUTE"]
