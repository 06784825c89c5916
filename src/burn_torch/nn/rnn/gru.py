"""Burn's ``Gru`` and ``BiGru``: gated recurrent units whose three gates are ``GateController``s.

Fields as Burn's: ``update_gate`` (z), ``reset_gate`` (r), ``new_gate`` (n), each with an
``input_transform`` ``[d_input, d_hidden]`` and a ``hidden_transform`` ``[d_hidden, d_hidden]``.
PyTorch packs them as ``weight_ih_l0 = [W_r; W_z; W_n]`` (``burn_torch.interop`` maps the
layouts). Per time step (Burn's equations)::

    z = gate(x W_iz + b_iz + h W_hz + b_hz)      r = gate(x W_ir + b_ir + h W_hr + b_hr)
    n = act(x W_in + b_in + r * (h W_hn + b_hn))  (reset_after, the default: PyTorch's GRU)
    n = act(x W_in + b_in + (r * h) W_hn + b_hn)  (reset_after=False: the original GRU)
    h = (1 - z) * n + z * h                       (clamped to [-clip, clip] when clip is set)

Burn's ``Gru`` is batch-first, has no ``reverse`` and returns only the hidden states of every
step; ``BiGru`` has ``batch_first`` and returns ``(output, final states)``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ... import validate
from ...device import Device
from ...module import Config, Module, module_fields
from ...ops import recurrent as recurrent_ops
from ...tensor import Tensor
from ..activation.activation_wrapper import ActivationConfig
from ..initializer import Initializer
from .base import (bi_output, BiLayer, check_input, check_state, ForwardAndField, fused_pass, is_sigmoid,
                   is_tanh, last_step, split_bi_state, step_order, to_batch_first, uniform_bias,
                   zeros_state)
from .gate_controller import describe, GateController

if TYPE_CHECKING:
    from ..activation.activation_wrapper import Activation


class GruConfig(Config):
    """Configuration of [`Gru`][burn_torch.nn.rnn.Gru] (Burn's fields and defaults: ``reset_after``
    on, Xavier-normal weights, sigmoid gates, tanh candidate, no clip)."""

    d_input: int
    d_hidden: int
    bias: bool
    reset_after: bool = True
    initializer: Initializer = Initializer.xavier_normal(1.0)
    gate_activation: ActivationConfig = ActivationConfig.sigmoid()
    hidden_activation: ActivationConfig = ActivationConfig.tanh()
    clip: float | None = None

    def init(self, device: Device) -> "Gru":
        validate.config_sizes(self, "d_input", "d_hidden")

        def gate() -> GateController:
            return GateController.new(self.d_input, self.d_hidden, self.bias, self.initializer,
                                      device)
        return Gru(gate(), gate(), gate(), self.d_hidden, self.reset_after,
                   self.gate_activation.init(device), self.hidden_activation.init(device),
                   self.clip)


@module_fields
class Gru(Module):
    """A GRU layer (see the module docstring for the equations and the layout)."""

    update_gate: GateController
    reset_gate: GateController
    new_gate: GateController
    d_hidden: int
    reset_after: bool
    gate_activation: Activation
    hidden_activation: Activation
    clip: float | None

    def forward(self, batched_input: Tensor, state: Tensor | None = None) -> Tensor:
        """The hidden state of every step, ``[batch, seq, d_hidden]``, for a
        ``[batch, seq, d_input]`` input; ``state`` (``[batch, d_hidden]``) defaults to zeros.
        ValueError for another input rank."""
        check_input("Gru", batched_input, self.input_dims()[0], True)  # Burn's Gru is batch-first
        return self.run(batched_input, state, True, False)[0]

    def gates(self) -> list[GateController]:
        """The gates in PyTorch's order (r, z, n)."""
        return [self.reset_gate, self.update_gate, self.new_gate]

    def fusable(self) -> bool:
        """Whether the whole sequence runs as the ``gru`` op (PyTorch's cell: Burn's default)."""
        return (self.clip is None and self.reset_after and is_sigmoid(self.gate_activation)
                and is_tanh(self.hidden_activation) and uniform_bias(self.gates()))

    def run(self, x: Tensor, state: Tensor | None, batch_first: bool,
            reverse: bool) -> tuple[Tensor, Tensor]:
        """``(every step's hidden state, final hidden state)`` for ``x`` in the given layout
        and step order."""
        batch = x.dims()[0 if batch_first else 1]
        if state is None:
            state = zeros_state(x, batch, self.d_hidden)
        else:
            check_state("Gru", "state", state, batch, self.d_hidden)
        if self.fusable():
            output = fused_pass(recurrent_ops.GRU, x, (state,), self.gates(), batch_first, reverse)
            return output, last_step(output, 1 if batch_first else 0, reverse)
        output, hidden = self._composed(to_batch_first(x, batch_first), state, reverse)
        return to_batch_first(output, batch_first), hidden

    def _composed(self, x: Tensor, hidden: Tensor, reverse: bool) -> tuple[Tensor, Tensor]:
        batch, seq, _ = x.dims()
        projected = [g.input_transform.forward(x) for g in self.gates()]
        outputs: list[Tensor | None] = [None] * seq
        for t in step_order(seq, reverse):
            xr, xz, xn = (p.narrow(1, t, 1).reshape([batch, self.d_hidden]) for p in projected)
            r = self.gate_activation.forward(xr + self.reset_gate.hidden_transform.forward(hidden))
            z = self.gate_activation.forward(xz + self.update_gate.hidden_transform.forward(hidden))
            if self.reset_after:
                n = xn + r * self.new_gate.hidden_transform.forward(hidden)
            else:
                n = xn + self.new_gate.hidden_transform.forward(r * hidden)
            candidate = self.hidden_activation.forward(n)
            hidden = candidate * (1.0 - z) + z * hidden
            if self.clip is not None:
                hidden = hidden.clamp(-self.clip, self.clip)
            outputs[t] = hidden
        # every step's output is filled in by the loop
        return Tensor.stack(outputs, 1), hidden  # type: ignore[arg-type]

    def input_dims(self) -> tuple[int, bool]:
        """``(d_input, bias)``."""
        return self.update_gate.input_dims()

    def __repr__(self) -> str:
        return describe("Gru", self, f"reset_after: {self.reset_after}, ")


class BiGruConfig(Config):
    """Configuration of [`BiGru`][burn_torch.nn.rnn.BiGru] (Burn's fields and defaults)."""

    d_input: int
    d_hidden: int
    bias: bool
    reset_after: bool = True
    initializer: Initializer = Initializer.xavier_normal(1.0)
    batch_first: bool = True
    gate_activation: ActivationConfig = ActivationConfig.sigmoid()
    hidden_activation: ActivationConfig = ActivationConfig.tanh()
    clip: float | None = None

    def init(self, device: Device) -> "BiGru":
        base = (GruConfig(self.d_input, self.d_hidden, self.bias)
                .with_initializer(self.initializer).with_reset_after(self.reset_after)
                .with_gate_activation(self.gate_activation)
                .with_hidden_activation(self.hidden_activation).with_clip(self.clip))
        return BiGru(base.init(device), base.init(device), self.d_hidden, self.batch_first)


class BiGru(BiLayer):
    """Burn's bidirectional GRU (fields ``forward``, ``reverse``, ``d_hidden``,
    ``batch_first``; the forward-direction layer is ``forward_layer``)."""

    def _bi_forward(self, batched_input: Tensor,
                    state: Tensor | None = None) -> tuple[Tensor, Tensor]:
        """``(output [batch, seq, 2 * d_hidden] (or seq-first), final states [2, batch,
        d_hidden])``; ``state`` is ``[2, batch, d_hidden]`` (forward direction first), zeros
        when None. ValueError for another input rank or state shape."""
        check_input("BiGru", batched_input, self.forward_layer.input_dims()[0],
                    self.batch_first)
        x = to_batch_first(batched_input, self.batch_first)
        state_f, state_r = split_bi_state(state, "BiGru")
        out_f, final_f = self.forward_layer.run(x, state_f, True, False)
        out_r, final_r = self.reverse.run(x, state_r, True, True)
        return bi_output(out_f, out_r, self.batch_first), Tensor.stack([final_f, final_r], 0)

    forward = ForwardAndField(_bi_forward)

    if TYPE_CHECKING:  # the direction layers' type (see BiLayer)
        reverse: Gru
        forward_layer: Gru
