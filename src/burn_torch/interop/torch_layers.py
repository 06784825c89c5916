"""burn_torch modules for ``torch.nn`` structures Burn has no layer for, so that
:func:`~burn_torch.interop.torch_modules.from_torch_module` can convert them: ``Sequential``
(a list of layers applied in order), ``Flatten``, ``Identity`` and ``StackedLstm`` (a
multi-layer ``torch.nn.LSTM``: Burn's ``Lstm`` is one layer).

They follow the ``burn_torch.nn`` conventions (modules are values, ``forward`` computes with
burn_torch ops), and register state-dict adapters so their weights keep PyTorch's names
(``0.weight`` in a Sequential, ``weight_ih_l{k}`` in a multi-layer LSTM).
"""
from __future__ import annotations

from typing import Any, Sequence

from ..module import Module
from ..nn.dropout import Dropout, DropoutConfig
from ..nn.lstm import Lstm, LstmState
from ..tensor import Tensor
from .state_dict import LayerAdapter, register_adapter


class Sequential(Module):
    """``torch.nn.Sequential``: ``forward(x)`` applies each layer's ``forward`` in order.

    ``layers`` is a list of modules whose ``forward`` takes one value and returns one value
    (an ``Lstm`` returns a pair, so it cannot be a step in the middle of a Sequential, as in
    PyTorch)."""

    def __init__(self, layers: Sequence[Module]) -> None:
        super().__init__()
        self.layers = list(layers)

    def forward(self, input: Any) -> Any:
        """The last layer's output."""
        x = input
        for layer in self.layers:
            x = layer.forward(x)
        return x

    def __len__(self) -> int:
        return len(self.layers)

    def __getitem__(self, index: int) -> Module:
        return self.layers[index]


class Flatten(Module):
    """``torch.nn.Flatten``: merges dims ``start_dim..end_dim`` (negative counts from the end)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        """The input with the dims merged (``Tensor.flatten``)."""
        rank = input.rank()
        return input.flatten(self.start_dim % rank, self.end_dim % rank)


class Identity(Module):
    """``torch.nn.Identity``: returns its input."""

    def forward(self, input: Any) -> Any:
        return input


class StackedLstm(Module):
    """A multi-layer LSTM as ``torch.nn.LSTM(num_layers=n, dropout=p)``: layer ``k`` (an
    :class:`~burn_torch.nn.Lstm`) reads layer ``k - 1``'s output, with dropout ``p`` on every
    layer's output but the last (in training, as ``burn_torch.nn.Dropout``)."""

    def __init__(self, layers: Sequence[Lstm], dropout: float = 0.0,
                 dropout_layer: Dropout | None = None) -> None:
        super().__init__()
        if not layers:
            raise ValueError("StackedLstm needs at least one layer")
        self.layers = list(layers)
        self.dropout = dropout_layer if dropout_layer is not None else DropoutConfig(dropout).init()

    def forward(self, input: Tensor,
                states: Sequence[LstmState] | None = None) -> tuple[Tensor, list[LstmState]]:
        """``(output of the last layer, [final LstmState of each layer])``; ``states`` (one
        per layer) default to zeros. Layouts as each layer's (``batch_first``); ValueError when
        the number of states differs from the number of layers."""
        if states is not None and len(states) != len(self.layers):
            raise ValueError(f"StackedLstm: expected {len(self.layers)} states, got {len(states)}")
        x, finals = input, []
        for k, layer in enumerate(self.layers):
            if k:
                x = self.dropout.forward(x)
            x, state = layer.forward(x, None if states is None else states[k])
            finals.append(state)
        return x, finals


def _stacked_lstm_adapter(module: StackedLstm) -> LayerAdapter:
    """Layer ``k``'s ``weight_ih_l0`` (etc.) is PyTorch's ``weight_ih_l{k}``."""
    return LayerAdapter(renames={
        f"layers.{k}.{kind}_{side}_l0": f"{kind}_{side}_l{k}"
        for k in range(len(module.layers)) for kind in ("weight", "bias") for side in ("ih", "hh")})


def _sequential_adapter(module: Sequential) -> LayerAdapter:
    """Layer ``k``'s parameters are PyTorch's ``{k}.…`` (no ``layers.`` prefix)."""
    return LayerAdapter(renames={f"layers.{k}": str(k) for k in range(len(module.layers))})


register_adapter(StackedLstm, _stacked_lstm_adapter)
register_adapter(Sequential, _sequential_adapter)
