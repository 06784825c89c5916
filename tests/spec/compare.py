"""Spec rows: comparisons, float predicates and Bool logic (``ops/compare.py``): not
differentiable, so each checks the forward and that the result is untracked."""
import torch

from spec import F, M, Row

S = (2, 3)
TIES = lambda *s: F(*s, lo=0, hi=3)  # noqa: E731


def _ties(x, y):
    return x.round(), y.round()


def compare(op, method, ref):
    return Row(op, lambda x, y: getattr(x.round(), method)(y.round()),
               lambda x, y: ref(*_ties(x, y)), (TIES(*S), TIES(*S)), broadcast=(0, 1))


def elem(op, method, ref):
    return Row(op, lambda x: getattr(x.round(), method)(1.0), lambda x: ref(x.round(), 1.0),
               (TIES(*S),), variant="scalar")


ROWS = [
    compare("equal", "equal", torch.eq), elem("equal", "equal_elem", torch.eq),
    compare("not_equal", "not_equal", torch.ne), elem("not_equal", "not_equal_elem", torch.ne),
    compare("greater", "greater", torch.gt), elem("greater", "greater_elem", torch.gt),
    compare("greater_equal", "greater_equal", torch.ge),
    elem("greater_equal", "greater_equal_elem", torch.ge),
    compare("lower", "lower", torch.lt), elem("lower", "lower_elem", torch.lt),
    compare("lower_equal", "lower_equal", torch.le), elem("lower_equal", "lower_equal_elem", torch.le),
    Row("is_nan", lambda x: x.log().is_nan(), lambda x: x.log().isnan(), (F(*S),)),
    Row("is_inf", lambda x: x.recip().is_inf(), lambda x: x.reciprocal().isinf(), (F(*S),)),
    Row("is_finite", lambda x: x.log().is_finite(), lambda x: x.log().isfinite(), (F(*S),)),
    Row("contains_nan", lambda x: x.log().contains_nan(), lambda x: x.log().isnan().any().reshape(1),
        (F(*S),)),
    Row("is_close", lambda x, y: x.is_close(y, 0.1, 0.1), lambda x, y: torch.isclose(x, y, 0.1, 0.1),
        (F(*S), F(*S)), broadcast=(0, 1)),
    Row("bool_and", lambda a, b: a.bool_and(b), torch.logical_and, (M(*S), M(*S)), broadcast=(0, 1)),
    Row("bool_or", lambda a, b: a.bool_or(b), torch.logical_or, (M(*S), M(*S)), broadcast=(0, 1)),
    Row("bool_not", lambda a: a.bool_not(), torch.logical_not, (M(*S),)),
    Row("bool_xor", lambda a, b: a.bool_xor(b), torch.logical_xor, (M(*S), M(*S)), broadcast=(0, 1)),
]
