"""Burn's ``tensor::module`` functions (``linear``, ``conv2d``, ``max_pool2d``, ``attention``, ...) and
their option classes: the public path of
[`burn_torch.functional.module_ops`][burn_torch.functional.module_ops], where they are defined, one
file per family.
"""
from .functional.module_ops import *  # noqa: F401,F403
from .functional.module_ops import __all__  # noqa: F401
