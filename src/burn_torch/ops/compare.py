"""Comparisons, float predicates and Bool logic: non-differentiable, Bool results (never recorded)."""
import torch

from .table import defop

EQUAL = defop("equal", torch.eq)
NOT_EQUAL = defop("not_equal", torch.ne)
GREATER = defop("greater", torch.gt)
GREATER_EQUAL = defop("greater_equal", torch.ge)
LOWER = defop("lower", torch.lt)
LOWER_EQUAL = defop("lower_equal", torch.le)

IS_NAN = defop("is_nan", torch.isnan)
IS_INF = defop("is_inf", torch.isinf)
IS_FINITE = defop("is_finite", torch.isfinite)
IS_CLOSE = defop("is_close", lambda a, b, rtol, atol: torch.isclose(a, b, rtol, atol))
CONTAINS_NAN = defop("contains_nan", lambda x: torch.isnan(x).any().reshape(1))
BOOL_AND = defop("bool_and", torch.logical_and)
BOOL_OR = defop("bool_or", torch.logical_or)
BOOL_NOT = defop("bool_not", torch.logical_not)
BOOL_XOR = defop("bool_xor", torch.logical_xor)
