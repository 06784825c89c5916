"""Burn's ``Rnn`` and ``BiRnn`` (Burn's ``rnn/basic.rs``): an Elman RNN whose one gate is a
``GateController`` (field ``gate``: ``input_transform`` ``[d_input, d_hidden]``,
``hidden_transform`` ``[d_hidden, d_hidden]``; PyTorch's ``weight_ih_l0`` / ``weight_hh_l0``,
transposed). Per time step::

    h = act(x W_ih + b_ih + h W_hh + b_hh)   (tanh by default; clamped when clip is set)
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
from .base import (bi_output, BiLayer, check_input, check_state, ForwardAndField, fused_pass, is_tanh, last_step,
                   split_bi_state, step_order, to_batch_first, uniform_bias, zeros_state)
from .gate_controller import describe, GateController

if TYPE_CHECKING:
    from ..activation.activation_wrapper import Activation


class RnnState(NamedTuple):
    """The ``hidden`` state: ``[batch, d_hidden]`` (``[2, batch, d_hidden]`` for ``BiRnn``)."""

    hidden: Tensor


class RnnConfig(Config):
    """Configuration of [`Rnn`][burn_torch.nn.rnn.Rnn] (Burn's fields and defaults)."""

    d_input: int
    d_hidden: int
    bias: bool
    initializer: Initializer = Initializer.xavier_normal(1.0)
    batch_first: bool = True
    reverse: bool = False
    clip: float | None = None
    hidden_activation: ActivationConfig = ActivationConfig.tanh()

    def init(self, device: Device) -> "Rnn":
        validate.config_sizes(self, "d_input", "d_hidden")
        gate = GateController.new(self.d_input, self.d_hidden, self.bias, self.initializer, device)
        return Rnn(gate, self.d_hidden, self.batch_first, self.reverse, self.clip,
                   self.hidden_activation.init(device))


@module_fields
class Rnn(Module):
    """An Elman RNN layer (see the module docstring)."""

    gate: GateController
    d_hidden: int
    batch_first: bool
    reverse: bool
    clip: float | None
    hidden_activation: Activation

    def forward(self, batched_input: Tensor,
                state: RnnState | None = None) -> tuple[Tensor, RnnState]:
        """``(every step's hidden state, final RnnState)``; layouts as ``batch_first``, steps
        last to first when ``reverse`` (step ``t``'s state still at position ``t``); ``state``
        defaults to zeros. ValueError for another input rank."""
        check_input("Rnn", batched_input, self.input_dims()[0], self.batch_first)
        return self.run(batched_input, state, self.batch_first, self.reverse)

    def fusable(self) -> bool:
        """Whether the whole sequence runs as the ``rnn`` op (tanh, no clip)."""
        return self.clip is None and is_tanh(self.hidden_activation) and uniform_bias([self.gate])

    def run(self, x: Tensor, state: RnnState | None, batch_first: bool,
            reverse: bool) -> tuple[Tensor, RnnState]:
        batch = x.dims()[0 if batch_first else 1]
        hidden = zeros_state(x, batch, self.d_hidden) if state is None else state.hidden
        if state is not None:
            check_state("Rnn", "state.hidden", hidden, batch, self.d_hidden)
        if self.fusable():
            output = fused_pass(recurrent_ops.RNN, x, (hidden,), [self.gate], batch_first, reverse)
            return output, RnnState(last_step(output, 1 if batch_first else 0, reverse))
        x = to_batch_first(x, batch_first)
        batch, seq, _ = x.dims()
        projected = self.gate.input_transform.forward(x)
        outputs: list[Tensor | None] = [None] * seq
        for t in step_order(seq, reverse):
            pre = (projected.narrow(1, t, 1).reshape([batch, self.d_hidden])
                   + self.gate.hidden_transform.forward(hidden))
            hidden = self.hidden_activation.forward(pre)
            if self.clip is not None:
                hidden = hidden.clamp(-self.clip, self.clip)
            outputs[t] = hidden
        # every step's output is filled in by the loop
        return to_batch_first(Tensor.stack(outputs, 1), batch_first), RnnState(hidden)  # type: ignore[arg-type]

    def input_dims(self) -> tuple[int, bool]:
        """``(d_input, bias)``."""
        return self.gate.input_dims()

    def __repr__(self) -> str:
        return describe("Rnn", self)


class BiRnnConfig(Config):
    """Configuration of [`BiRnn`][burn_torch.nn.rnn.BiRnn] (Burn's fields and defaults)."""

    d_input: int
    d_hidden: int
    bias: bool
    initializer: Initializer = Initializer.xavier_normal(1.0)
    batch_first: bool = True
    clip: float | None = None
    hidden_activation: ActivationConfig = ActivationConfig.tanh()

    def init(self, device: Device) -> "BiRnn":
        base = (RnnConfig(self.d_input, self.d_hidden, self.bias)
                .with_initializer(self.initializer).with_batch_first(True).with_clip(self.clip)
                .with_hidden_activation(self.hidden_activation))
        return BiRnn(base.init(device), base.init(device), self.d_hidden, self.batch_first)


class BiRnn(BiLayer):
    """Burn's bidirectional RNN (fields ``forward``, ``reverse``, ``d_hidden``,
    ``batch_first``; the forward-direction layer is ``forward_layer``)."""

    def _bi_forward(self, batched_input: Tensor,
                    state: RnnState | None = None) -> tuple[Tensor, RnnState]:
        """``(output [batch, seq, 2 * d_hidden] (or seq-first), RnnState([2, batch,
        d_hidden]))``; ``state`` as the returned one, zeros when None."""
        check_input("BiRnn", batched_input, self.forward_layer.input_dims()[0],
                    self.batch_first)
        x = to_batch_first(batched_input, self.batch_first)
        state_f, state_r = split_bi_state(None if state is None else state.hidden, "BiRnn")
        out_f, final_f = self.forward_layer.run(
            x, None if state_f is None else RnnState(state_f), True, False)
        out_r, final_r = self.reverse.run(
            x, None if state_r is None else RnnState(state_r), True, True)
        return bi_output(out_f, out_r, self.batch_first), RnnState(
            Tensor.stack([final_f.hidden, final_r.hidden], 0))

    forward = ForwardAndField(_bi_forward)

    if TYPE_CHECKING:  # the direction layers' type (see BiLayer)
        reverse: Rnn
        forward_layer: Rnn
