"""Bitwise ops on Int tensors: non-differentiable, Int results of the operands' dtype.

Each binary entry takes a tensor or a Python int as its second operand (Burn's ``bitwise_*`` and
``bitwise_*_scalar``); shifts are arithmetic on signed ints, as Rust's ``>>`` on ``i64``.
"""
import torch

from .table import defop

BITWISE_AND = defop("bitwise_and", torch.bitwise_and)
BITWISE_OR = defop("bitwise_or", torch.bitwise_or)
BITWISE_XOR = defop("bitwise_xor", torch.bitwise_xor)
BITWISE_NOT = defop("bitwise_not", torch.bitwise_not)
BITWISE_LEFT_SHIFT = defop("bitwise_left_shift", torch.bitwise_left_shift)
BITWISE_RIGHT_SHIFT = defop("bitwise_right_shift", torch.bitwise_right_shift)
