"""Burn's ``tensor::activation`` functions (``relu``, ``gelu``, ``softmax``, ...): the public path of
[`burn_torch.functional.activation`][burn_torch.functional.activation], where they are defined.
"""
from .functional.activation import *  # noqa: F401,F403
from .functional.activation import __all__  # noqa: F401
