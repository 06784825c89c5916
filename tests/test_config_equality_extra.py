"""Equality tests against torch for the Burn configs no other test file covers.

``PositionWiseFeedForwardConfig``: Burn's fields and defaults, and the block it builds computes
``linear_outer(dropout(gelu(linear_inner(x))))`` with the values and gradients of the same
torch block holding the same weights."""
from __future__ import annotations

import math

import torch

from burn_torch import Tensor, nn
from burn_torch.compat import load_torch_state_dict
from helpers import AD


class TorchPwff(torch.nn.Module):
    """The PyTorch twin of Burn's block, under Burn's field names."""

    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        self.linear_inner = torch.nn.Linear(d_model, d_ff)
        self.linear_outer = torch.nn.Linear(d_ff, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear_outer(torch.nn.functional.gelu(self.linear_inner(x)))


def test_position_wise_feed_forward_config_has_burns_defaults():
    config = nn.PositionWiseFeedForwardConfig(8, 16)
    assert (config.d_model, config.d_ff, config.dropout) == (8, 16, 0.1)
    assert config.activation == nn.ActivationConfig.gelu()
    assert config.initializer == nn.Initializer.kaiming_uniform(1.0 / math.sqrt(3.0), False)


def test_position_wise_feed_forward_output_and_gradients_equal_torch():
    torch.manual_seed(0)
    reference = TorchPwff(4, 6)
    block = nn.PositionWiseFeedForwardConfig(4, 6).with_dropout(0.0).init(AD)
    block, keys = load_torch_state_dict(block, reference.state_dict())
    assert (keys.missing_keys, keys.unexpected_keys) == ([], [])
    x = torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(1))
    x_t = x.clone().requires_grad_(True)
    x_b = Tensor.from_data(x, AD).require_grad()
    out_t = reference(x_t)
    out_b = block.train().forward(x_b)
    torch.testing.assert_close(out_b.to_torch(), out_t.detach(), rtol=1e-5, atol=1e-5)
    (out_t * out_t).sum().backward()
    grads = (out_b * out_b).sum().backward()
    torch.testing.assert_close(x_b.grad(grads).to_torch(), x_t.grad, rtol=1e-5, atol=1e-5)
    inner_weight = block.linear_inner.weight.val().grad(grads).to_torch()
    torch.testing.assert_close(inner_weight, reference.linear_inner.weight.grad.T,
                               rtol=1e-5, atol=1e-5)
