"""Burn's ``GateController``: the two Linear transforms (input and hidden) of one recurrent gate."""
from __future__ import annotations

from ...device import Device
from ...module import Module, module_fields
from ...tensor import Tensor
from ..initializer import Initializer
from ..linear import Linear, LinearConfig


@module_fields
class GateController(Module):
    """One LSTM gate: ``input_transform(x) + hidden_transform(h)``."""

    input_transform: Linear
    hidden_transform: Linear

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

    def input_dims(self) -> tuple[int, bool]:
        """``(d_input, bias)``: the input size of the gate's input transform, and whether it
        has a bias."""
        transform = self.input_transform
        return transform.weight.val().dims()[0], transform.bias is not None


def describe(name: str, layer, extra: str = "") -> str:
    """The repr of a recurrent layer: ``name {d_input, d_hidden, bias, <extra>params}``."""
    d_input, bias = layer.input_dims()
    return (f"{name} {{d_input: {d_input}, d_hidden: {layer.d_hidden}, bias: {bias}, "
            f"{extra}params: {layer.num_params()}}}")
