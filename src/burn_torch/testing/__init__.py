"""burn_torch.testing: property-test burn_torch code against torch.

Two modes (see [`burn_torch.testing.reference`][burn_torch.testing.reference] for what each
catches):

* [`assert_matches_torch`][burn_torch.testing.reference.assert_matches_torch] /
  [`assert_module_matches_torch`][burn_torch.testing.reference.assert_module_matches_torch], the
  independent reference: a burn_torch function (module) against a torch function
  (``torch.nn.Module``) the user wrote, torch's side under real torch autograd, with a float64 truth
  for lower precisions;
* [`assert_grads_match_torch`][burn_torch.testing.grads.assert_grads_match_torch], the op-table
  oracle: the same function replayed through the same kernels under torch autograd, Burn's rules
  applied where they differ from torch's
  ([`burn_torch.testing.burn_rules`][burn_torch.testing.burn_rules]).

Both run every check under DISABLED and BALANCED checkpointing (bit-equal results required) and
against float64 finite differences ([`burn_torch.testing.numeric`][burn_torch.testing.numeric]);
reports name arguments and localise the first op whose rule disagrees
([`burn_torch.testing.localise`][burn_torch.testing.localise]).
[`check_grads_numerically`][burn_torch.testing.grads.check_grads_numerically] compares element by
element with finite differences. [`Const`][burn_torch.testing.inputs.Const] marks a float argument
as a constant; [`covers`][burn_torch.testing.coverage.covers] declares which op-table entries a test
property-tests; [`burn_torch.testing.strategies`][burn_torch.testing.strategies] (needs hypothesis)
draws shapes and arrays with edges; the pytest plugin is the torch-free module
[`burn_torch_pytest.plugin`][burn_torch_pytest.plugin] (its ``burn_check`` fixture returns a
[`Checker`][burn_torch.testing.checker.Checker]).

This package uses torch autograd on purpose (only on the torch side and inside
[`torch_oracle_mode`][burn_torch.testing.oracle.torch_oracle_mode]); the rest of burn_torch never
does.
"""
from .burn_rules import BURN_RULES, BurnRule, twins
from .coverage import covered_ops, covers
from .grads import GradCheck, assert_grads_match_torch, check_grads_numerically
from .inputs import Const
from .numeric import FiniteDifferences
from .oracle import torch_oracle_mode
from .reference import assert_matches_torch, assert_module_matches_torch
from .report import DEFAULT_TOLERANCES
from .runs import BOTH

__all__ = ["assert_matches_torch", "assert_module_matches_torch", "assert_grads_match_torch",
           "check_grads_numerically", "Const", "covers", "covered_ops", "torch_oracle_mode",
           "GradCheck", "DEFAULT_TOLERANCES", "FiniteDifferences", "BURN_RULES", "BurnRule",
           "twins", "BOTH"]
