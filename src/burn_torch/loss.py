"""Burn's ``tensor::loss`` functions (``cross_entropy_with_logits``): the public path of
[`burn_torch.functional.loss`][burn_torch.functional.loss], where they are defined.
"""
from .functional.loss import *  # noqa: F401,F403
from .functional.loss import __all__  # noqa: F401
