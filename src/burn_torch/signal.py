"""Burn's ``tensor::signal`` functions: the public path of
[`burn_torch.functional.signal`][burn_torch.functional.signal], where they are defined.
"""
from .functional.signal import *  # noqa: F401,F403
from .functional.signal import __all__  # noqa: F401
