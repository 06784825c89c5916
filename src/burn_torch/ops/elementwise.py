"""Elementwise arithmetic and float math: forward kernels and backward rules.

Binary ops broadcast; their rules reduce each gradient back to its input's shape (``fit``).
All of these are memory-bound.
"""
import math

import torch

from .fit import fit
from .table import MEMORY, defop, save_input, save_inputs, save_other_input, save_output

aten = torch.ops.aten
_TANH_BACKWARD = aten.tanh_backward.default
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


# -- tensor ⊕ tensor -----------------------------------------------------------------------------
def _add_rule(g, n):
    pa, pb = n.parents
    return (fit(g, pa) if pa is not None else None, fit(g, pb) if pb is not None else None)


def _sub_rule(g, n):
    pa, pb = n.parents
    return (fit(g, pa) if pa is not None else None, fit(-g, pb) if pb is not None else None)


def _mul_rule(g, n):
    pa, pb = n.parents
    a, b = n.saved
    return (fit(g * b, pa) if pa is not None else None, fit(g * a, pb) if pb is not None else None)


def _div_rule(g, n):
    pa, pb = n.parents
    a, b = n.saved
    ga = fit(g / b, pa) if pa is not None else None
    gb = fit(-g * a / (b * b), pb) if pb is not None else None
    return ga, gb


def _div_forward(a, b):
    if a.is_floating_point() or b.is_floating_point():
        return torch.div(a, b)
    return torch.div(a, b, rounding_mode="trunc")


def _powf_rule(g, n):
    pa, pb = n.parents
    a, b = n.saved
    ga = fit(g * (b * a.pow(b - 1)), pa) if pa is not None else None
    gb = None
    if pb is not None:
        gb = g * (a.pow(b) * a.log()).masked_fill_((a == 0) & (b >= 0), 0)
        gb = fit(gb, pb)
    return ga, gb


ADD = defop("add", torch.add, _add_rule, MEMORY)
SUB = defop("sub", torch.sub, _sub_rule, MEMORY)
MUL = defop("mul", torch.mul, _mul_rule, MEMORY, save_other_input)
DIV = defop("div", _div_forward, _div_rule, MEMORY, save_inputs)
REMAINDER = defop("remainder", torch.remainder,
                  lambda g, n: (fit(g, n.parents[0]) if n.parents[0] is not None else None,
                                fit(-g * torch.floor(n.saved[0] / n.saved[1]), n.parents[1])
                                if n.parents[1] is not None else None),
                  MEMORY, save_inputs)
POWF = defop("powf", torch.pow, _powf_rule, MEMORY, save_inputs)


# -- tensor ⊕ scalar -----------------------------------------------------------------------------
def _pass(g, n):
    return (g,)


def _div_scalar_forward(x, s):
    if x.is_floating_point() or isinstance(s, float):
        return x / s
    return torch.div(x, s, rounding_mode="trunc")


def _pow_scalar_rule(g, n):
    (s,) = n.attrs
    if s == 0:
        return (torch.zeros_like(g),)
    return (g * (n.saved.pow(s - 1) * s),)


ADD_SCALAR = defop("add_scalar", torch.add, _pass, MEMORY)
SUB_SCALAR = defop("sub_scalar", torch.sub, _pass, MEMORY)
RSUB_SCALAR = defop("rsub_scalar", lambda x, s: s - x, lambda g, n: (-g,), MEMORY)
MUL_SCALAR = defop("mul_scalar", torch.mul, lambda g, n: (g * n.attrs[0],), MEMORY)
DIV_SCALAR = defop("div_scalar", _div_scalar_forward, lambda g, n: (g / n.attrs[0],), MEMORY)


def _rdiv_scalar_forward(x, s):
    if x.is_floating_point() or isinstance(s, float):
        return s / x
    return torch.div(torch.full_like(x, s), x, rounding_mode="trunc")  # Int: truncates, as Rust


RDIV_SCALAR = defop("rdiv_scalar", _rdiv_scalar_forward,
                    lambda g, n: (-g * n.attrs[0] / (n.saved * n.saved),), MEMORY, save_input)
REMAINDER_SCALAR = defop("remainder_scalar", torch.remainder, _pass, MEMORY)
POWF_SCALAR = defop("powf_scalar", torch.pow, _pow_scalar_rule, MEMORY, save_input)
POWI_SCALAR = defop("powi_scalar", torch.pow, _pow_scalar_rule, MEMORY, save_input)


# -- unary float math ----------------------------------------------------------------------------
NEG = defop("neg", torch.neg, lambda g, n: (-g,), MEMORY)
EXP = defop("exp", torch.exp, lambda g, n: (g * n.saved,), MEMORY, save_output)
LOG = defop("log", torch.log, lambda g, n: (g / n.saved,), MEMORY, save_input)
LOG1P = defop("log1p", torch.log1p, lambda g, n: (g / (n.saved + 1),), MEMORY, save_input)
SQRT = defop("sqrt", torch.sqrt, lambda g, n: (g / (n.saved * 2),), MEMORY, save_output)
ABS = defop("abs", torch.abs, lambda g, n: (g * n.saved.sgn(),), MEMORY, save_input)
RECIP = defop("recip", torch.reciprocal, lambda g, n: (-g * (n.saved * n.saved),), MEMORY, save_output)
SQUARE = defop("square", torch.square, lambda g, n: (torch.add(n.saved, n.saved).mul_(g),), MEMORY,
               save_input)  # 2x is exact; scaling the fresh 2x in place saves a buffer
SIN = defop("sin", torch.sin, lambda g, n: (g * n.saved.cos(),), MEMORY, save_input)
COS = defop("cos", torch.cos, lambda g, n: (-g * n.saved.sin(),), MEMORY, save_input)
TANH = defop("tanh", torch.tanh, lambda g, n: (_TANH_BACKWARD(g, n.saved),), MEMORY, save_output)
ERF = defop("erf", torch.erf,
            lambda g, n: (g * (torch.exp(-n.saved.square()) * _TWO_OVER_SQRT_PI),), MEMORY, save_input)


def _clamp_rule(g, n):
    x = n.saved
    lo, hi = n.attrs
    keep = torch.ones_like(x, dtype=torch.bool)
    if lo is not None:
        keep &= x >= lo
    if hi is not None:
        keep &= x <= hi
    return (torch.where(keep, g, 0),)


CLAMP = defop("clamp", torch.clamp, _clamp_rule, MEMORY, save_input)


# -- trigonometric and hyperbolic float math -----------------------------------------------------
# Each rule builds its factor in one fresh buffer and scales it by ``g`` in place.
def _tan_rule(g, n):  # d tan = 1 + tan^2, from the output
    return (torch.square(n.saved).add_(1).mul_(g),)


def _asin_rule(g, n):  # 1 / sqrt(1 - x^2)
    return (torch.square(n.saved).neg_().add_(1).rsqrt_().mul_(g),)


def _acos_rule(g, n):  # -1 / sqrt(1 - x^2)
    return (torch.square(n.saved).neg_().add_(1).rsqrt_().mul_(g).neg_(),)


def _atan_rule(g, n):  # 1 / (1 + x^2)
    return (torch.div(g, torch.square(n.saved).add_(1)),)


def _asinh_rule(g, n):  # 1 / sqrt(x^2 + 1)
    return (torch.square(n.saved).add_(1).rsqrt_().mul_(g),)


def _acosh_rule(g, n):  # 1 / sqrt(x^2 - 1)
    return (torch.square(n.saved).sub_(1).rsqrt_().mul_(g),)


def _atanh_rule(g, n):  # 1 / (1 - x^2)
    return (torch.div(g, torch.square(n.saved).neg_().add_(1)),)


TAN = defop("tan", torch.tan, _tan_rule, MEMORY, save_output)
SINH = defop("sinh", torch.sinh, lambda g, n: (torch.cosh(n.saved).mul_(g),), MEMORY, save_input)
COSH = defop("cosh", torch.cosh, lambda g, n: (torch.sinh(n.saved).mul_(g),), MEMORY, save_input)
ASIN = defop("asin", torch.asin, _asin_rule, MEMORY, save_input)
ACOS = defop("acos", torch.acos, _acos_rule, MEMORY, save_input)
ATAN = defop("atan", torch.atan, _atan_rule, MEMORY, save_input)
ASINH = defop("asinh", torch.asinh, _asinh_rule, MEMORY, save_input)
ACOSH = defop("acosh", torch.acosh, _acosh_rule, MEMORY, save_input)
ATANH = defop("atanh", torch.atanh, _atanh_rule, MEMORY, save_input)

_DEG_TO_RAD = math.pi / 180.0
_RAD_TO_DEG = 180.0 / math.pi
DEG2RAD = defop("deg2rad", torch.deg2rad, lambda g, n: (g * _DEG_TO_RAD,), MEMORY)
RAD2DEG = defop("rad2deg", torch.rad2deg, lambda g, n: (g * _RAD_TO_DEG,), MEMORY)


# -- piecewise-constant ops: Burn records them and gives their input a zero gradient -------------
_broadcast_to = torch.broadcast_to


def _zero_rule(g, n):
    return (_broadcast_to(g.new_zeros(()), g.shape),)  # a view of one zero: no full buffer


FLOOR = defop("floor", torch.floor, _zero_rule, MEMORY)
CEIL = defop("ceil", torch.ceil, _zero_rule, MEMORY)
ROUND = defop("round", torch.round, _zero_rule, MEMORY)  # half to even, as Burn
SIGN = defop("sign", torch.sign, _zero_rule, MEMORY)


# -- binary float math ---------------------------------------------------------------------------
def _atan2_rule(g, n):
    pa, pb = n.parents
    a, b = n.saved
    scale = g / (a * a + b * b)
    return (fit(scale * b, pa) if pa is not None else None,
            fit(-scale * a, pb) if pb is not None else None)


def _save_hypot(datas, out, parents):
    """Each input's gradient needs that input and the output."""
    a, b = datas
    pa, pb = parents
    return (a if pa is not None else None, b if pb is not None else None, out)


def _hypot_rule(g, n):
    pa, pb = n.parents
    a, b, h = n.saved
    scale = g / h
    return (fit(scale * a, pa) if pa is not None else None,
            fit(scale * b, pb) if pb is not None else None)


def _cross_forward(a, b, dim):
    return torch.linalg.cross(a, b, dim=dim)


def _cross_rule(g, n):  # d(a x b) = da x b + a x db
    pa, pb = n.parents
    a, b = n.saved
    (dim,) = n.attrs
    return (fit(torch.linalg.cross(b, g, dim=dim), pa) if pa is not None else None,
            fit(torch.linalg.cross(g, a, dim=dim), pb) if pb is not None else None)


ATAN2 = defop("atan2", torch.atan2, _atan2_rule, MEMORY, save_inputs)
HYPOT = defop("hypot", torch.hypot, _hypot_rule, MEMORY, _save_hypot)
CROSS = defop("cross", _cross_forward, _cross_rule, MEMORY, save_other_input)
# Burn's Float ``powi(other)`` takes a Float exponent tensor and is ``powf`` (both differentiable);
# on Int tensors it is the integer power.
POWI = defop("powi", torch.pow, _powf_rule, MEMORY, save_inputs)
