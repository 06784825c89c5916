"""Burn's ``Embedding``: a lookup table of ``n_embedding`` vectors of size ``d_model``."""
from __future__ import annotations

from .. import validate
from ..device import Device
from ..module import Config, Module, Param, module_fields
from ..functional.module_ops.embedding import embedding
from ..tensor import Tensor
from .initializer import Initializer


class EmbeddingConfig(Config):
    """Configuration of [`Embedding`][burn_torch.nn.embedding.Embedding] (Burn's default
    initializer: ``N(0, 1)``)."""

    n_embedding: int
    d_model: int
    initializer: Initializer = Initializer.normal(0.0, 1.0)

    def init(self, device: Device) -> "Embedding":
        validate.config_sizes(self, "n_embedding", "d_model")
        return Embedding(self.initializer.init([self.n_embedding, self.d_model], device))


@module_fields
class Embedding(Module):
    """Rows of ``weight`` (a Param ``[n_embedding, d_model]``, as ``torch.nn.Embedding``'s)."""

    weight: Param

    def forward(self, input: Tensor) -> Tensor:
        """Int indices ``[batch, seq]`` -> ``[batch, seq, d_model]``; the gradient accumulates
        into the rows picked (TypeError/ValueError for other kinds or ranks)."""
        return embedding(self.weight.val(), input)

    def __repr__(self) -> str:
        n, d = self.weight.val().dims()
        return f"Embedding {{n_embedding: {n}, d_model: {d}, params: {n * d}}}"
