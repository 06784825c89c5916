"""Conversions between float dtypes and between devices; gradients flow back converted (the
engine casts a gradient to its input's dtype; ``to_device`` moves it back to the source)."""
from .table import MEMORY, PASS, defop, vjp

CAST = defop("cast", lambda x, dtype: x.to(dtype), MEMORY, attrs=("dtype",), vjp=(PASS,),
              exact=False)  # the engine casts the gradient back
TO_DEVICE = defop("to_device", lambda x, device, source: x.to(device), MEMORY,
                  attrs=("device", "source"), vjp=(vjp(lambda g, s: g.to(s.source)),))
