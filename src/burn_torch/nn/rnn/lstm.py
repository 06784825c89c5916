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

from typing import TYPE_CHECKING, NamedTuple

from ... import validate
from ...device import Device
from ...module import Config, Module, module_fields
from ...ops import recurrent as recurrent_ops
from ...tensor import Tensor
from ..activation.activation_wrapper import ActivationConfig
from ..initializer import Initializer
from .base import (bi_output, BiLayer, check_input, check_state, ForwardAndField, fused_pass, is_sigmoid,
                   is_tanh, leading, split_bi_state, step_at, step_order, to_batch_first,
                   uniform_bias, zeros_state)
from .gate_controller import describe, GateController

if TYPE_CHECKING:
    from ..activation.activation_wrapper import Activation


class LstmState(NamedTuple):
    """The ``cell`` and ``hidden`` states, each ``[batch, d_hidden]``."""

    cell: Tensor
    hidden: Tensor


class LstmConfig(Config):
    """Configuration of [`Lstm`][burn_torch.nn.rnn.Lstm] (Burn's fields and defaults: Xavier-normal
    weights, batch-first input, sigmoid gates, tanh cell and hidden activations)."""

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


@module_fields
class Lstm(Module):
    """A unidirectional LSTM (see the module docstring for the equations and the layout)."""

    input_gate: GateController
    forget_gate: GateController
    output_gate: GateController
    cell_gate: GateController
    d_hidden: int
    batch_first: bool
    reverse: bool
    clip: float | None
    input_forget: bool
    gate_activation: Activation
    cell_activation: Activation
    hidden_activation: Activation

    def forward(self, batched_input: Tensor,
                state: LstmState | None = None) -> tuple[Tensor, LstmState]:
        """Runs the sequence; returns the hidden state of every step and the final state.

        ``batched_input`` is ``[batch, seq, d_input]`` (``[seq, batch, d_input]`` without
        ``batch_first``); ``state`` defaults to zeros. The output is ``[batch, seq, d_hidden]``
        (or seq-first), the hidden state of step ``t`` at position ``t`` also when ``reverse``
        processes the steps last to first. ValueError for another input rank.
        """
        check_input("Lstm", batched_input, self.input_dims()[0], self.batch_first)
        return self.run(batched_input, state, self.batch_first, self.reverse)

    def fusable(self) -> bool:
        """Whether the whole sequence runs as the ``lstm`` op (Burn's default cell)."""
        return (self.clip is None and not self.input_forget and is_sigmoid(self.gate_activation)
                and is_tanh(self.cell_activation) and is_tanh(self.hidden_activation)
                and uniform_bias(self.gates()))

    def gates(self) -> list[GateController]:
        """The gates in PyTorch's order (i, f, g, o)."""
        return [self.input_gate, self.forget_gate, self.cell_gate, self.output_gate]

    def run(self, x: Tensor, state: LstmState | None, batch_first: bool,
            reverse: bool) -> tuple[Tensor, LstmState]:
        """The pass over ``x`` in the given layout and step order (``BiLstm`` runs its reverse
        layer with ``reverse=True`` whatever that layer's own flag)."""
        shape = x._data.shape
        batch = shape[0 if batch_first else 1]
        if state is None:
            zeros = zeros_state(x, batch, self.d_hidden)
            state = LstmState(zeros, zeros)
        elif not isinstance(state, LstmState):
            raise TypeError(f"Lstm: state must be an LstmState(cell, hidden) of [batch, d_hidden] = "
                            f"[{batch}, {self.d_hidden}] tensors, got {validate.type_name(state)} "
                            f"(PyTorch's (h_0, c_0) is LstmState(cell=c_0[0], hidden=h_0[0]))")
        else:
            check_state("Lstm", "state.cell", state.cell, batch, self.d_hidden)
            check_state("Lstm", "state.hidden", state.hidden, batch, self.d_hidden)
        if self.fusable():
            seq_dim = 1 if batch_first else 0
            seq = shape[seq_dim]
            if seq == 0:
                raise ValueError("Lstm: the input sequence is empty")
            packed = fused_pass(recurrent_ops.LSTM, x, (state.hidden, state.cell), self.gates(),
                                batch_first, reverse)
            # packed: every step's hidden state, then the final cell state
            return leading(packed, seq_dim, seq), LstmState(
                step_at(packed, seq_dim, seq), step_at(packed, seq_dim, 0 if reverse else seq - 1))
        output, state = self._composed(to_batch_first(x, batch_first), state, reverse)
        return to_batch_first(output, batch_first), state

    def _composed(self, x: Tensor, state: LstmState, reverse: bool) -> tuple[Tensor, LstmState]:
        """Burn's per-step equations from tensor ops (any activation, clip, input_forget)."""
        batch, seq, _ = x.dims()
        gates = [self.input_gate, self.forget_gate, self.output_gate, self.cell_gate]
        # the input transforms of every step at once; the recurrence adds the hidden ones
        projected = [g.input_transform.forward(x) for g in gates]
        cell, hidden = state
        outputs: list[Tensor | None] = [None] * seq
        for t in step_order(seq, reverse):
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
        # every step's output is filled in by the loop
        return Tensor.stack(outputs, 1), LstmState(cell, hidden)  # type: ignore[arg-type]

    def input_dims(self) -> tuple[int, bool]:
        """``(d_input, bias)``."""
        return self.input_gate.input_dims()

    def __repr__(self) -> str:
        return describe("Lstm", self)


class BiLstmConfig(Config):
    """Configuration of [`BiLstm`][burn_torch.nn.rnn.BiLstm] (Burn's fields and defaults; no
    ``reverse``)."""

    d_input: int
    d_hidden: int
    bias: bool
    initializer: Initializer = Initializer.xavier_normal(1.0)
    batch_first: bool = True
    clip: float | None = None
    input_forget: bool = False
    gate_activation: ActivationConfig = ActivationConfig.sigmoid()
    cell_activation: ActivationConfig = ActivationConfig.tanh()
    hidden_activation: ActivationConfig = ActivationConfig.tanh()

    def init(self, device: Device) -> "BiLstm":
        base = (LstmConfig(self.d_input, self.d_hidden, self.bias)
                .with_initializer(self.initializer).with_batch_first(True).with_clip(self.clip)
                .with_input_forget(self.input_forget)
                .with_gate_activation(self.gate_activation)
                .with_cell_activation(self.cell_activation)
                .with_hidden_activation(self.hidden_activation))
        return BiLstm(base.init(device), base.init(device), self.d_hidden, self.batch_first)


class BiLstm(BiLayer):
    """Burn's bidirectional LSTM: ``forward`` runs the steps first to last, ``reverse`` last to
    first; the output puts both side by side (``[batch, seq, 2 * d_hidden]``, PyTorch's
    ``bidirectional=True`` layout). The forward-direction layer is ``forward_layer``."""

    def _bi_forward(self, batched_input: Tensor,
                state: LstmState | None = None) -> tuple[Tensor, LstmState]:
        """``(output, final state)``; the state's ``cell`` and ``hidden`` are
        ``[2, batch, d_hidden]`` (forward direction first), as is ``state`` (zeros when None).
        ValueError for another input rank or state shape."""
        check_input("BiLstm", batched_input, self.forward_layer.input_dims()[0],
                    self.batch_first)
        x = to_batch_first(batched_input, self.batch_first)
        cells = split_bi_state(None if state is None else state.cell, "BiLstm")
        hiddens = split_bi_state(None if state is None else state.hidden, "BiLstm")
        # split_bi_state gives None for both parts or for neither
        states = [None if c is None else LstmState(c, h)  # type: ignore[arg-type]
                  for c, h in zip(cells, hiddens)]
        out_f, state_f = self.forward_layer.run(x, states[0], True, False)
        out_r, state_r = self.reverse.run(x, states[1], True, True)
        return bi_output(out_f, out_r, self.batch_first), LstmState(
            Tensor.stack([state_f.cell, state_r.cell], 0),
            Tensor.stack([state_f.hidden, state_r.hidden], 0))

    forward = ForwardAndField(_bi_forward)

    if TYPE_CHECKING:  # the direction layers' type (see BiLayer)
        reverse: Lstm
        forward_layer: Lstm
