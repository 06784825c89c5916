"""Elementwise arithmetic and float math: forward kernels and backward rules.

Binary ops broadcast; each rule returns its input's gradient in the broadcast output shape and
the engine reduces it to the input's shape and dtype. All of these are memory-bound.
"""
import math

import torch

from .table import MEMORY, PASS, defop, vjp
from .kernels import kernel

aten = torch.ops.aten
_TANH_BACKWARD = kernel(aten.tanh_backward.default)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_BINARY = ("lhs", "rhs")


# -- tensor ⊕ tensor -----------------------------------------------------------------------------
def _div_forward(a, b):
    if a.is_floating_point() or b.is_floating_point():
        return torch.div(a, b)
    return torch.div(a, b, rounding_mode="trunc")


def _div_rhs(g, s):  # -g a / b^2
    return -g * s.lhs / (s.rhs * s.rhs)


def _pow_base(g, s):  # g b a^(b - 1)
    return g * (s.rhs * s.lhs.pow(s.rhs - 1))


def _pow_exponent(g, s):  # g a^b ln a, 0 where a = 0 and b >= 0 (the limit)
    a, b = s.lhs, s.rhs
    return g * (a.pow(b) * a.log()).masked_fill_((a == 0) & (b >= 0), 0)


ADD = defop("add", torch.add, MEMORY, inputs=_BINARY, vjp=(PASS, PASS))
SUB = defop("sub", torch.sub, MEMORY, inputs=_BINARY,
            vjp=(PASS, vjp(lambda g, s: -g)))
MUL = defop("mul", torch.mul, MEMORY, inputs=_BINARY,
            vjp=(vjp(lambda g, s: g * s.rhs, "rhs"), vjp(lambda g, s: g * s.lhs, "lhs")))
DIV = defop("div", _div_forward, MEMORY, inputs=_BINARY,
            vjp=(vjp(lambda g, s: g / s.rhs, "rhs"), vjp(_div_rhs, "lhs", "rhs")))
REMAINDER = defop("remainder", torch.remainder, MEMORY, inputs=_BINARY,
                  vjp=(PASS, vjp(lambda g, s: -g * torch.floor(s.lhs / s.rhs), "lhs", "rhs")))
POWF = defop("powf", torch.pow, MEMORY, inputs=_BINARY,
             vjp=(vjp(_pow_base, "lhs", "rhs"), vjp(_pow_exponent, "lhs", "rhs")))


# -- tensor ⊕ scalar -----------------------------------------------------------------------------
def _div_scalar_forward(x, s):
    if x.is_floating_point() or isinstance(s, float):
        return x / s
    return torch.div(x, s, rounding_mode="trunc")


def _pow_scalar_rule(g, s):
    e = s.exponent
    if e == 0:
        return torch.zeros_like(g)
    return g * (s.x.pow(e - 1) * e)


def _rdiv_scalar_forward(x, s):
    if x.is_floating_point() or isinstance(s, float):
        return s / x
    return torch.div(torch.full_like(x, s), x, rounding_mode="trunc")  # Int: truncates, as Rust


_SCALAR = ("scalar",)
ADD_SCALAR = defop("add_scalar", torch.add, MEMORY, attrs=_SCALAR, vjp=(PASS,))
SUB_SCALAR = defop("sub_scalar", torch.sub, MEMORY, attrs=_SCALAR, vjp=(PASS,))
RSUB_SCALAR = defop("rsub_scalar", lambda x, s: s - x, MEMORY, attrs=_SCALAR,
                    vjp=(vjp(lambda g, s: -g),))
MUL_SCALAR = defop("mul_scalar", torch.mul, MEMORY, attrs=_SCALAR,
                   vjp=(vjp(lambda g, s: g * s.scalar),))
DIV_SCALAR = defop("div_scalar", _div_scalar_forward, MEMORY, attrs=_SCALAR,
                   vjp=(vjp(lambda g, s: g / s.scalar),))
RDIV_SCALAR = defop("rdiv_scalar", _rdiv_scalar_forward, MEMORY, attrs=_SCALAR,
                    vjp=(vjp(lambda g, s: -g * s.scalar / (s.x * s.x), "x"),))
REMAINDER_SCALAR = defop("remainder_scalar", torch.remainder, MEMORY, attrs=_SCALAR, vjp=(PASS,))
POWF_SCALAR = defop("powf_scalar", torch.pow, MEMORY, attrs=("exponent",),
                    vjp=(vjp(_pow_scalar_rule, "x"),))
POWI_SCALAR = defop("powi_scalar", torch.pow, MEMORY, attrs=("exponent",),
                    vjp=(vjp(_pow_scalar_rule, "x"),))


# -- unary float math ----------------------------------------------------------------------------
def _unary(name, forward, rule, need):
    """A one-input float op whose rule reads its input (``need="x"``) or its output (``"out"``)."""
    return defop(name, forward, MEMORY, vjp=(vjp(rule, need),))


NEG = defop("neg", torch.neg, MEMORY, vjp=(vjp(lambda g, s: -g),))
EXP = _unary("exp", torch.exp, lambda g, s: g * s.out, "out")
LOG = _unary("log", torch.log, lambda g, s: g / s.x, "x")
LOG1P = _unary("log1p", torch.log1p, lambda g, s: g / (s.x + 1), "x")
SQRT = _unary("sqrt", torch.sqrt, lambda g, s: g / (s.out * 2), "out")
ABS = _unary("abs", torch.abs, lambda g, s: g * s.x.sgn(), "x")
RECIP = _unary("recip", torch.reciprocal, lambda g, s: -g * (s.out * s.out), "out")
# 2x is exact; scaling the fresh 2x in place saves a buffer
SQUARE = _unary("square", torch.square, lambda g, s: torch.add(s.x, s.x).mul_(g), "x")
SIN = _unary("sin", torch.sin, lambda g, s: g * s.x.cos(), "x")
COS = _unary("cos", torch.cos, lambda g, s: -g * s.x.sin(), "x")
TANH = _unary("tanh", torch.tanh, lambda g, s: _TANH_BACKWARD(g, s.out), "out")
ERF = _unary("erf", torch.erf, lambda g, s: g * (torch.exp(-s.x.square()) * _TWO_OVER_SQRT_PI), "x")


def _clamp_rule(g, s):
    """The gradient passes where ``min <= x <= max`` (bounds included, as Burn's mask)."""
    x = s.x
    keep = torch.ones_like(x, dtype=torch.bool)
    if s.min is not None:
        keep &= x >= s.min
    if s.max is not None:
        keep &= x <= s.max
    return torch.where(keep, g, 0)


CLAMP = defop("clamp", torch.clamp, MEMORY, attrs=("min", "max"), vjp=(vjp(_clamp_rule, "x"),))


# -- trigonometric and hyperbolic float math -----------------------------------------------------
# Each rule builds its factor in one fresh buffer and scales it by ``g`` in place.
TAN = _unary("tan", torch.tan, lambda g, s: torch.square(s.out).add_(1).mul_(g), "out")  # 1 + tan^2
SINH = _unary("sinh", torch.sinh, lambda g, s: torch.cosh(s.x).mul_(g), "x")
COSH = _unary("cosh", torch.cosh, lambda g, s: torch.sinh(s.x).mul_(g), "x")
ASIN = _unary("asin", torch.asin,  # 1 / sqrt(1 - x^2)
              lambda g, s: torch.square(s.x).neg_().add_(1).rsqrt_().mul_(g), "x")
ACOS = _unary("acos", torch.acos,  # -1 / sqrt(1 - x^2)
              lambda g, s: torch.square(s.x).neg_().add_(1).rsqrt_().mul_(g).neg_(), "x")
ATAN = _unary("atan", torch.atan, lambda g, s: torch.div(g, torch.square(s.x).add_(1)), "x")
ASINH = _unary("asinh", torch.asinh,  # 1 / sqrt(x^2 + 1)
               lambda g, s: torch.square(s.x).add_(1).rsqrt_().mul_(g), "x")
ACOSH = _unary("acosh", torch.acosh,  # 1 / sqrt(x^2 - 1)
               lambda g, s: torch.square(s.x).sub_(1).rsqrt_().mul_(g), "x")
ATANH = _unary("atanh", torch.atanh,  # 1 / (1 - x^2)
               lambda g, s: torch.div(g, torch.square(s.x).neg_().add_(1)), "x")

_DEG_TO_RAD = math.pi / 180.0
_RAD_TO_DEG = 180.0 / math.pi
DEG2RAD = defop("deg2rad", torch.deg2rad, MEMORY, vjp=(vjp(lambda g, s: g * _DEG_TO_RAD),))
RAD2DEG = defop("rad2deg", torch.rad2deg, MEMORY, vjp=(vjp(lambda g, s: g * _RAD_TO_DEG),))


# -- piecewise-constant ops: Burn records them and gives their input a zero gradient -------------
_broadcast_to = torch.broadcast_to


def _zero_rule(g, s):
    return _broadcast_to(g.new_zeros(()), g.shape)  # a view of one zero: no full buffer


ZERO = vjp(_zero_rule)
FLOOR = defop("floor", torch.floor, MEMORY, vjp=(ZERO,))
CEIL = defop("ceil", torch.ceil, MEMORY, vjp=(ZERO,))
ROUND = defop("round", torch.round, MEMORY, vjp=(ZERO,))  # half to even, as Burn
SIGN = defop("sign", torch.sign, MEMORY, vjp=(ZERO,))
TRUNC = defop("trunc", torch.trunc, MEMORY, vjp=(ZERO,))


# -- binary float math ---------------------------------------------------------------------------
def _atan2_lhs(g, s):  # b / (a^2 + b^2)
    a, b = s.lhs, s.rhs
    return g / (a * a + b * b) * b


def _atan2_rhs(g, s):  # -a / (a^2 + b^2)
    a, b = s.lhs, s.rhs
    return -g / (a * a + b * b) * a


def _cross_forward(a, b, dim):
    return torch.linalg.cross(a, b, dim=dim)


ATAN2 = defop("atan2", torch.atan2, MEMORY, inputs=_BINARY,
              vjp=(vjp(_atan2_lhs, "lhs", "rhs"), vjp(_atan2_rhs, "lhs", "rhs")))
HYPOT = defop("hypot", torch.hypot, MEMORY, inputs=_BINARY,
              vjp=(vjp(lambda g, s: g / s.out * s.lhs, "lhs", "out"),
                   vjp(lambda g, s: g / s.out * s.rhs, "rhs", "out")))
CROSS = defop("cross", _cross_forward, MEMORY, inputs=_BINARY, attrs=("dim",),  # d(a x b) = da x b + a x db
              vjp=(vjp(lambda g, s: torch.linalg.cross(s.rhs, g, dim=s.dim), "rhs"),
                   vjp(lambda g, s: torch.linalg.cross(g, s.lhs, dim=s.dim), "lhs")))
# Burn's Float ``powi(other)`` takes a Float exponent tensor and is ``powf`` (both differentiable);
# on Int tensors it is the integer power.
POWI = defop("powi", torch.pow, MEMORY, inputs=_BINARY,
             vjp=(vjp(_pow_base, "lhs", "rhs"), vjp(_pow_exponent, "lhs", "rhs")))
