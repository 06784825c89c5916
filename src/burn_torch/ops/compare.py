"""Comparisons: non-differentiable, Bool results (never recorded)."""
import torch

from .table import MEMORY, defop

EQUAL = defop("equal", torch.eq, None, MEMORY)
NOT_EQUAL = defop("not_equal", torch.ne, None, MEMORY)
GREATER = defop("greater", torch.gt, None, MEMORY)
GREATER_EQUAL = defop("greater_equal", torch.ge, None, MEMORY)
LOWER = defop("lower", torch.lt, None, MEMORY)
LOWER_EQUAL = defop("lower_equal", torch.le, None, MEMORY)
