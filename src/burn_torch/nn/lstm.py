"""Burn's ``Lstm``: a unidirectional LSTM whose four gates are ``GateController`` modules.

Gate layout as Burn's: fields ``input_gate``, ``forget_gate``, ``output_gate`` and
``cell_gate``, each holding two Linear layers, ``input_transform`` (``[d_input, d_hidden]``) and
``hidden_transform`` (``[d_hidden, d_hidden]``), both with a bias when ``bias`` is set. PyTorch
packs the same weights as ``weight_ih_l0 = [W_i; W_f; W_g; W_o]`` (``burn_torch.compat`` maps
the two layouts). Per time step::

    i = gate(x W_ii + h W_hi)   f = gate(x W_if + h W_hf)   (f = 1 - i with input_forget)
    o = gate(x W_io + h W_ho)   g = cell_act(x W_ig + h W_hg)
    c = f * c + i * g           (clamped to [-clip, clip] when clip is set)
    h = o * hidden_act(c)
"""
from __future__ import annotations

from typing import NamedTuple

from .. import validate
from ..device import Device
from ..module import Config, Module
from ..tensor import Tensor
from .activation_modules import ActivationConfig
from .initializer import Initializer
from .linear import Linear, LinearConfig


class GateController(Module):
    """One LSTM gate: ``input_transform(x) + hidden_transform(h)``."""

    def __init__(self, input_transform: Linear, hidden_transform: Linear) -> None:
        super().__init__()
        self.input_transform = input_transform
        self.hidden_transform = hidden_transform

    @classmethod
    def new(cls, d_input: int, d_output: int, bias: bool, initializer: Initializer,
            device: Device) -> "GateController":
        def linear(d_in: int) -> Linear:
            return (LinearConfig(d_in, d_output).with_bias(bias).with_initializer(initializer)
                    .init(device))
        return cls(linear(d_input), linear(d_output))

    def gate_product(self, input: Tensor, hidden: Tensor) -> Tensor:
        """``input @ W_x + hidden @ W_h + biases``."""
        return self.input_transform.forward(input) + self.hidden_transform.forward(hidden)


class LstmState(NamedTuple):
    """The ``cell`` and ``hidden`` states, each ``[batch, d_hidden]``."""

    cell: Tensor
    hidden: Tensor


class LstmConfig(Config):
    """Configuration of :class:`Lstm` (Burn's fields and defaults: Xavier-normal weights,
    batch-first input, sigmoid gates, tanh cell and hidden activations)."""

    d_input: int
    d_hidden: int
    bias: bool
    initializer: Initializer = Initializer.xavier_normal(1.0)
    batch_first: bool = True
    reverse: bool = False
    clip: float | None = None
    input_forget: bool = False
    gate_activation: ActivationConfig = ActivationConfig.sigmoid()
    cell_activation: ActivationConfig = ActivationConfig.tanh()
    hidden_activation: ActivationConfig = ActivationConfig.tanh()

    def init(self, device: Device) -> "Lstm":
        validate.config_sizes(self, "d_input", "d_hidden")
        def gate() -> GateController:
            return GateController.new(self.d_input, self.d_hidden, self.bias, self.initializer,
                                      device)
        return Lstm(gate(), gate(), gate(), gate(), self.d_hidden, self.batch_first,
                    self.reverse, self.clip, self.input_forget,
                    self.gate_activation.init(device), self.cell_activation.init(device),
                    self.hidden_activation.init(device))


class Lstm(Module):
    """A unidirectional LSTM (see the module docstring for the equations and the layout)."""

    def __init__(self, input_gate: GateController, forget_gate: GateController,
                 output_gate: GateController, cell_gate: GateController, d_hidden: int,
                 batch_first: bool, reverse: bool, clip: float | None, input_forget: bool,
                 gate_activation: Module, cell_activation: Module,
                 hidden_activation: Module) -> None:
        super().__init__()
        self.input_gate = input_gate
        self.forget_gate = forget_gate
        self.output_gate = output_gate
        self.cell_gate = cell_gate
        self.d_hidden = d_hidden
        self.batch_first = batch_first
        self.reverse = reverse
        self.clip = clip
        self.input_forget = input_forget
        self.gate_activation = gate_activation
        self.cell_activation = cell_activation
        self.hidden_activation = hidden_activation

    def forward(self, batched_input: Tensor,
                state: LstmState | None = None) -> tuple[Tensor, LstmState]:
        """Runs the sequence; returns the hidden state of every step and the final state.

        ``batched_input`` is ``[batch, seq, d_input]`` (``[seq, batch, d_input]`` without
        ``batch_first``); ``state`` defaults to zeros. The output is ``[batch, seq, d_hidden]``
        (or seq-first), the hidden state of step ``t`` at position ``t`` also when ``reverse``
        processes the steps last to first. ValueError for another input rank.
        """
        if batched_input.rank() != 3:
            raise ValueError(f"Lstm: expected a rank-3 input, got {batched_input.dims()}")
        x = batched_input if self.batch_first else batched_input.swap_dims(0, 1)
        batch, seq, _ = x.dims()
        if state is None:
            zeros = Tensor.zeros([batch, self.d_hidden], x.device(), dtype=x.dtype())
            state = LstmState(zeros, zeros)
        gates = [self.input_gate, self.forget_gate, self.output_gate, self.cell_gate]
        # the input transforms of every step at once; the recurrence adds the hidden ones
        projected = [g.input_transform.forward(x) for g in gates]
        cell, hidden = state
        outputs: list[Tensor | None] = [None] * seq
        for t in (reversed(range(seq)) if self.reverse else range(seq)):
            i, f, o, g = (p.narrow(1, t, 1).reshape([batch, self.d_hidden])
                          + gate.hidden_transform.forward(hidden)
                          for p, gate in zip(projected, gates))
            i = self.gate_activation.forward(i)
            f = 1.0 - i if self.input_forget else self.gate_activation.forward(f)
            cell = f * cell + i * self.cell_activation.forward(g)
            if self.clip is not None:
                cell = cell.clamp(-self.clip, self.clip)
            hidden = self.gate_activation.forward(o) * self.hidden_activation.forward(cell)
            outputs[t] = hidden
        output = Tensor.stack(outputs, 1)
        return (output if self.batch_first else output.swap_dims(0, 1)), LstmState(cell, hidden)

    def __repr__(self) -> str:
        d_input = self.input_gate.input_transform.weight.val().dims()[0]
        bias = self.input_gate.input_transform.bias is not None
        return (f"Lstm {{d_input: {d_input}, d_hidden: {self.d_hidden}, bias: {bias}, "
                f"params: {self.num_params()}}}")
