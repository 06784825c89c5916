"""burn_torch.testing: property-test burn_torch code against torch autograd.

* :func:`assert_grads_match_torch` runs a function written against the burn_torch Tensor API
  under Burn semantics and in torch-oracle mode (the same op table under real torch autograd)
  and compares outputs and every leaf gradient; for float64 inputs also with a central finite
  difference of the loss along a random direction (``numeric=False`` opts out).
* :func:`check_grads_numerically` compares the gradients element by element with float64 finite
  differences (:mod:`burn_torch.testing.numeric`).
* :class:`Const` marks a float argument as a constant.
* :func:`covers` declares which op-table entries a test property-tests.
* :mod:`burn_torch.testing.strategies` (needs hypothesis): shapes, arrays, indices, masks.

This package uses torch autograd on purpose (only inside :func:`torch_oracle_mode`); the rest of
burn_torch never does.
"""
from .coverage import covered_ops, covers
from .grads import GradCheck, assert_grads_match_torch, check_grads_numerically
from .inputs import Const
from .oracle import torch_oracle_mode
from .report import DEFAULT_TOLERANCES

__all__ = ["assert_grads_match_torch", "check_grads_numerically", "Const", "covers", "covered_ops",
           "torch_oracle_mode", "GradCheck", "DEFAULT_TOLERANCES"]
