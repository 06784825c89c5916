"""burn_torch modules for ``torch.nn`` structures Burn has no layer for, so that
[`from_torch_module`][burn_torch.interop.torch_modules.from_torch_module] can convert them:
``Sequential`` (a list of layers applied in order), ``Flatten``, ``Identity`` and ``StackedLstm``,
``StackedGru``, ``StackedRnn`` (multi-layer ``torch.nn.LSTM``/``GRU``/``RNN``: Burn's recurrent
layers are one layer each).

They follow the ``burn_torch.nn`` conventions (modules are values, ``forward`` computes with
burn_torch ops), and register state-dict adapters so their weights keep PyTorch's names
(``0.weight`` in a Sequential, ``weight_ih_l{k}`` in a multi-layer LSTM).
"""
from __future__ import annotations

from typing import Any, Sequence

from ..module import Module
from ..nn.dropout import Dropout, DropoutConfig
from ..nn.rnn.gru import Gru
from ..tensor import Tensor
from .state_dict import RECURRENT_KEYS, LayerAdapter, register_adapter


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
            x = layer.forward(x)  # type: ignore[attr-defined]  # every layer has one (Module has none)
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


class StackedRecurrent(Module):
    """A multi-layer recurrent network as ``torch.nn.LSTM/GRU/RNN(num_layers=n, dropout=p)``:
    layer ``k`` (a Burn ``Lstm``/``Gru``/``Rnn`` or its ``Bi`` form) reads layer ``k - 1``'s
    output, with dropout ``p`` on every layer's output but the last (in training, as
    ``burn_torch.nn.Dropout``). Its state-dict keys are PyTorch's: layer ``k``'s ``*_l0`` is
    ``*_l{k}`` (and ``*_l0_reverse`` is ``*_l{k}_reverse``)."""

    def __init__(self, layers: Sequence[Module], dropout: float = 0.0,
                 dropout_layer: Dropout | None = None, batch_first: bool = True) -> None:
        super().__init__()
        if not layers:
            raise ValueError(f"{type(self).__name__} needs at least one layer")
        self.layers = list(layers)
        self.dropout = dropout_layer if dropout_layer is not None else DropoutConfig(dropout).init()
        self.batch_first = batch_first

    def forward(self, input: Tensor, states: Sequence | None = None) -> tuple[Tensor, list]:
        """``(output of the last layer, [final state of each layer])``; ``states`` (one per
        layer, each as that layer's ``forward`` takes it) default to zeros. Layouts as each
        layer's (``batch_first``; a ``Gru``, batch-first in Burn, follows this module's
        ``batch_first``). ValueError when the number of states differs from the layers'."""
        if states is not None and len(states) != len(self.layers):
            raise ValueError(f"{type(self).__name__}: expected {len(self.layers)} states, "
                             f"got {len(states)}")
        x, finals = input, []
        for k, layer in enumerate(self.layers):
            if k:
                x = self.dropout.forward(x)
            state = None if states is None else states[k]
            if isinstance(layer, Gru):
                x, state = layer.run(x, state, self.batch_first, False)
            else:
                x, state = layer.forward(x, state)  # type: ignore[attr-defined]  # an Lstm or Rnn
            finals.append(state)
        return x, finals


class StackedLstm(StackedRecurrent):
    """A multi-layer ``torch.nn.LSTM``: a
    [`StackedRecurrent`][burn_torch.interop.torch_layers.StackedRecurrent] of ``Lstm`` (or
    ``BiLstm``) layers; each final state is an ``LstmState``."""


class StackedGru(StackedRecurrent):
    """A multi-layer ``torch.nn.GRU``: a
    [`StackedRecurrent`][burn_torch.interop.torch_layers.StackedRecurrent] of ``Gru`` (or ``BiGru``)
    layers; each final state is a ``[batch, d_hidden]`` tensor (``[2, ...]`` for ``BiGru``)."""


class StackedRnn(StackedRecurrent):
    """A multi-layer ``torch.nn.RNN``: a
    [`StackedRecurrent`][burn_torch.interop.torch_layers.StackedRecurrent] of ``Rnn`` (or ``BiRnn``)
    layers; each final state is an ``RnnState``."""


def _stacked_adapter(module: StackedRecurrent) -> LayerAdapter:
    """Layer ``k``'s ``weight_ih_l0`` (etc.) is PyTorch's ``weight_ih_l{k}``."""
    return LayerAdapter(renames={
        f"layers.{k}.{key}{suffix}": f"{key[:-1]}{k}{suffix}"
        for k in range(len(module.layers)) for key in RECURRENT_KEYS for suffix in ("", "_reverse")})


def _sequential_adapter(module: Sequential) -> LayerAdapter:
    """Layer ``k``'s parameters are PyTorch's ``{k}.…`` (no ``layers.`` prefix)."""
    return LayerAdapter(renames={f"layers.{k}": str(k) for k in range(len(module.layers))})


register_adapter(StackedRecurrent, _stacked_adapter)
register_adapter(Sequential, _sequential_adapter)
