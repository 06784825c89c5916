"""Conversions between float dtypes and between devices; gradients flow back converted."""
from .table import MEMORY, defop

CAST = defop("cast", lambda x, dtype: x.to(dtype), lambda g, n: (g.to(n.parents[0].dtype),), MEMORY)
TO_DEVICE = defop("to_device", lambda x, device, source: x.to(device),
                  lambda g, n: (g.to(n.attrs[1]),), MEMORY)
