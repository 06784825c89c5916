"""Comparisons, float predicates and Bool logic: non-differentiable, Bool results (never recorded)."""
import torch

from .table import MEMORY, defop

EQUAL = defop("equal", torch.eq, None, MEMORY)
NOT_EQUAL = defop("not_equal", torch.ne, None, MEMORY)
GREATER = defop("greater", torch.gt, None, MEMORY)
GREATER_EQUAL = defop("greater_equal", torch.ge, None, MEMORY)
LOWER = defop("lower", torch.lt, None, MEMORY)
LOWER_EQUAL = defop("lower_equal", torch.le, None, MEMORY)

IS_NAN = defop("is_nan", torch.isnan, None, MEMORY)
IS_INF = defop("is_inf", torch.isinf, None, MEMORY)
IS_FINITE = defop("is_finite", torch.isfinite, None, MEMORY)
IS_CLOSE = defop("is_close", lambda a, b, rtol, atol: torch.isclose(a, b, rtol, atol), None, MEMORY)
CONTAINS_NAN = defop("contains_nan", lambda x: torch.isnan(x).any().reshape(1), None, MEMORY)
BOOL_AND = defop("bool_and", torch.logical_and, None, MEMORY)
BOOL_OR = defop("bool_or", torch.logical_or, None, MEMORY)
BOOL_NOT = defop("bool_not", torch.logical_not, None, MEMORY)
