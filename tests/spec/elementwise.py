"""Spec rows: elementwise arithmetic and float math (``ops/elementwise.py``)."""
import torch

from spec import NZ, P, F, I, Row

S = (2, 3, 4)


def binary(op, method, ref, b=F, **kw):
    return Row(op, lambda x, y: getattr(x, method)(y), ref, (F(*S), b(*S)), broadcast=(0, 1), **kw)


def unary(op, ref, arg=F, method=None, **kw):
    return Row(op, lambda x: getattr(x, method or op)(), ref, (arg(*S),), **kw)


def scalar(op, method, value, ref, arg=F, **kw):
    return Row(op, lambda x: getattr(x, method)(value), ref, (arg(*S),), **kw)


ROWS = [
    binary("add", "add", torch.add),
    binary("sub", "sub", torch.sub),
    binary("mul", "mul", torch.mul),
    binary("div", "div", torch.div, b=NZ),
    Row("remainder", lambda x, y: x.remainder(y), torch.remainder,
        (F(*S, lo=-4, hi=4), F(*S, lo=0.7, hi=2.0)), broadcast=(0, 1), numeric=False),
    Row("powf", lambda x, y: x.powf(y), torch.pow, (P(*S), F(*S)), broadcast=(0, 1)),
    Row("powi", lambda x, y: x.powi(y), torch.pow, (P(*S), F(*S)), broadcast=(0, 1)),
    binary("atan2", "atan2", torch.atan2, b=NZ),
    binary("hypot", "hypot", torch.hypot, b=NZ),
    Row("cross", lambda x, y: x.cross(y, 1), lambda x, y: torch.linalg.cross(x, y, dim=1),
        (F(2, 3, 4), F(2, 3, 4))),
    scalar("add_scalar", "add_scalar", 1.5, lambda x: x + 1.5),
    scalar("sub_scalar", "sub_scalar", 1.5, lambda x: x - 1.5),
    Row("rsub_scalar", lambda x: 1.5 - x, lambda x: 1.5 - x, (F(*S),)),
    scalar("mul_scalar", "mul_scalar", -2.5, lambda x: x * -2.5),
    scalar("div_scalar", "div_scalar", -2.5, lambda x: x / -2.5),
    Row("rdiv_scalar", lambda x: 2.0 / x, lambda x: 2.0 / x, (NZ(*S),)),
    scalar("remainder_scalar", "remainder_scalar", 0.75, lambda x: torch.remainder(x, 0.75),
           numeric=False),
    scalar("powf_scalar", "powf_scalar", 2.5, lambda x: x ** 2.5, arg=P),
    scalar("powi_scalar", "powi_scalar", 3, lambda x: x ** 3),
    unary("neg", torch.neg),
    unary("exp", torch.exp),
    unary("log", torch.log, arg=P),
    unary("log1p", torch.log1p, arg=P),
    unary("sqrt", torch.sqrt, arg=P),
    unary("abs", torch.abs, arg=NZ),
    unary("recip", torch.reciprocal, arg=NZ),
    unary("square", torch.square),
    unary("sin", torch.sin),
    unary("cos", torch.cos),
    unary("tanh", torch.tanh),
    unary("erf", torch.erf),
    Row("clamp", lambda x: x.clamp(-0.5, 0.8), lambda x: x.clamp(-0.5, 0.8),
        (F(*S, avoid=(-0.5, 0.8), margin=0.05),)),
    Row("clamp", lambda x: x.clamp_min(-0.5), lambda x: x.clamp(min=-0.5),
        (F(*S, avoid=(-0.5,), margin=0.05),), variant="min only"),
    unary("tan", torch.tan, arg=lambda *s: F(*s, lo=-1.2, hi=1.2)),
    unary("sinh", torch.sinh),
    unary("cosh", torch.cosh),
    unary("asin", torch.asin, arg=lambda *s: F(*s, lo=-0.9, hi=0.9)),
    unary("acos", torch.acos, arg=lambda *s: F(*s, lo=-0.9, hi=0.9)),
    unary("atan", torch.atan),
    unary("asinh", torch.asinh),
    unary("acosh", torch.acosh, arg=lambda *s: F(*s, lo=1.2, hi=3.0)),
    unary("atanh", torch.atanh, arg=lambda *s: F(*s, lo=-0.9, hi=0.9)),
    unary("deg2rad", torch.deg2rad),
    unary("rad2deg", torch.rad2deg),
    unary("floor", torch.floor, numeric=False),
    unary("ceil", torch.ceil, numeric=False),
    unary("round", torch.round, numeric=False),
    unary("sign", torch.sign, arg=NZ, numeric=False),
    unary("trunc", torch.trunc, arg=lambda *s: F(*s, lo=-3, hi=3, avoid=(-2, -1, 0, 1, 2), margin=0.05),
          numeric=False),
]


def _bits(op, method, ref, scalar=None):
    if scalar is None:
        return Row(op, lambda a, b: getattr(a, method)(b), ref, (I(2, 3, lo=-9, hi=9), I(2, 3, lo=0, hi=5)),
                   broadcast=(0, 1))
    return Row(op, lambda a: getattr(a, method)(scalar), lambda a: ref(a, scalar), (I(2, 3, lo=-9, hi=9),),
               variant="scalar")


ROWS += [
    _bits("bitwise_and", "bitwise_and", torch.bitwise_and),
    _bits("bitwise_and", "bitwise_and_scalar", torch.bitwise_and, 6),
    _bits("bitwise_or", "bitwise_or", torch.bitwise_or),
    _bits("bitwise_or", "bitwise_or_scalar", torch.bitwise_or, 6),
    _bits("bitwise_xor", "bitwise_xor", torch.bitwise_xor),
    _bits("bitwise_xor", "bitwise_xor_scalar", torch.bitwise_xor, 6),
    _bits("bitwise_left_shift", "bitwise_left_shift", torch.bitwise_left_shift),
    _bits("bitwise_left_shift", "bitwise_left_shift_scalar", torch.bitwise_left_shift, 2),
    _bits("bitwise_right_shift", "bitwise_right_shift", torch.bitwise_right_shift),
    _bits("bitwise_right_shift", "bitwise_right_shift_scalar", torch.bitwise_right_shift, 2),
    Row("bitwise_not", lambda a: a.bitwise_not(), torch.bitwise_not, (I(2, 3, lo=-9, hi=9),)),
]
