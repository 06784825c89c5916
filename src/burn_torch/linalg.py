"""Burn's ``tensor::linalg`` functions (``lp_norm``, ``cosine_similarity``, ``qr``): the public path of
[`burn_torch.functional.linalg`][burn_torch.functional.linalg], where they are defined.
"""
from .functional.linalg import *  # noqa: F401,F403
from .functional.linalg import __all__  # noqa: F401
