"""What Burn's recurrent layers (``Lstm``, ``Gru``, ``Rnn`` and their ``Bi`` forms) share: the
fused whole-sequence pass through the op table, the step order, states and the ``Bi`` wrapper.

A layer runs its whole sequence as ONE op-table entry (``ops.recurrent``: ``lstm``, ``gru``,
``rnn``) when its configuration is the cell those ops compute (Burn's default activations, no
``clip``, no ``input_forget``, the GRU's ``reset_after``, biases on both transforms or on
neither); otherwise it composes the same equations from tensor ops, step by step, as Burn does.
Both give the same values and gradients.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Sequence

from ...autodiff.recorder import apply1, applyn, wrap
from ..checks import expect_input
from ...module import Module
from ...ops.shape import NARROW, SLICE
from ... import validate
from ...tensor import Tensor
from ..activation.sigmoid import Sigmoid
from ..activation.tanh import Tanh

if TYPE_CHECKING:
    from .gate_controller import GateController


_ALL = slice(None)


def is_kind(activation: Module, kind: type) -> bool:
    """Whether ``activation`` is exactly the activation layer ``kind`` (no subclass)."""
    return type(activation) is kind


def is_sigmoid(activation: Module) -> bool:
    return is_kind(activation, Sigmoid)


def is_tanh(activation: Module) -> bool:
    return is_kind(activation, Tanh)


def uniform_bias(gates: Sequence[GateController]) -> bool:
    """Whether every transform of ``gates`` has a bias, or none has (what the fused ops take)."""
    biased = gates[0].input_transform.bias is not None
    for g in gates:
        if ((g.input_transform.bias is not None) is not biased
                or (g.hidden_transform.bias is not None) is not biased):
            return False
    return True


def recurrent_sequence(op, x: Tensor, states: Sequence[Tensor], weights_ih: Sequence[Tensor],
                       weights_hh: Sequence[Tensor], biases_ih: Sequence[Tensor] = (),
                       biases_hh: Sequence[Tensor] = (), batch_first: bool = True,
                       reverse: bool = False) -> Tensor:
    """Applies the recurrent op-table entry ``op`` (``ops.recurrent.LSTM``, ``GRU``, ``RNN``) to
    ``x`` with the initial ``states`` and one weight (and, optionally, one bias) per gate, in
    the op's gate order; returns the op's packed output (see ``ops.recurrent``)."""
    return applyn(op, [x, *states, *weights_ih, *weights_hh, *biases_ih, *biases_hh],
                  (batch_first, reverse))


def fused_pass(op, x: Tensor, states: Sequence[Tensor], gates: Sequence[GateController],
               batch_first: bool, reverse: bool) -> Tensor:
    """``recurrent_sequence`` with ``gates``' (GateController) weights and biases."""
    ins = [g.input_transform for g in gates]
    hid = [g.hidden_transform for g in gates]
    tensors = [x, *states]
    tensors.extend([lin.weight.val() for lin in ins])
    tensors.extend([lin.weight.val() for lin in hid])
    if ins[0].bias is not None:
        # every transform has a bias when the first has (the fused ops need uniform_bias)
        tensors.extend([lin.bias.val() for lin in ins])  # type: ignore[union-attr]
        tensors.extend([lin.bias.val() for lin in hid])  # type: ignore[union-attr]
    return applyn(op, tensors, (batch_first, reverse))


def check_input(layer: str, batched_input: Tensor, d_input: int, batch_first: bool) -> None:
    """ValueError unless the input is ``[batch, seq, d_input]`` (``[seq, batch, d_input]``
    without ``batch_first``), naming the layer and both shapes."""
    layout = "[batch, seq" if batch_first else "[seq, batch"
    expect_input(layer, batched_input, f"{layout}, {d_input}] (d_input {d_input})", 3, {2: d_input})


def check_state(layer: str, name: str, state, batch: int, d_hidden: int) -> None:
    """TypeError unless ``state`` is a Tensor, ValueError unless it is ``[batch, d_hidden]``;
    both name the expected shape (PyTorch's states carry a leading ``num_layers`` dim)."""
    expected = f"[batch, d_hidden] = [{batch}, {d_hidden}]"
    if not isinstance(state, Tensor):
        raise TypeError(f"{layer}: {name} must be a Tensor {expected}, got {validate.type_name(state)}")
    if state.dims() != [batch, d_hidden]:
        raise ValueError(f"{layer}: {name} must be {expected}, got {state.dims()} (PyTorch's "
                         f"recurrent states are [num_layers, batch, hidden]: pass one layer's, "
                         f"h_0[0])")


def zeros_state(x: Tensor, batch: int, d_hidden: int) -> Tensor:
    """An untracked ``[batch, d_hidden]`` zero state of ``x``'s dtype, device and context."""
    return wrap(x._data.new_zeros(batch, d_hidden), x._ctx)


def step_order(seq: int, reverse: bool) -> range:
    return range(seq - 1, -1, -1) if reverse else range(seq)


def last_step(output: Tensor, seq_dim: int, reverse: bool) -> Tensor:
    """The state written by the last step processed (position 0 when ``reverse``).
    ValueError for an empty sequence."""
    seq = output._data.shape[seq_dim]
    if seq == 0:
        raise ValueError("a recurrent pass over an empty sequence has no last step")
    return step_at(output, seq_dim, 0 if reverse else seq - 1)


def step_at(seq: Tensor, seq_dim: int, t: int) -> Tensor:
    """Position ``t`` (``0 <= t < size``) of ``seq_dim``, that dim dropped: one slice step
    (``narrow`` and ``squeeze_dim`` in one)."""
    return apply1(SLICE, seq, ((_ALL, t) if seq_dim else (t,), ()))


def leading(seq: Tensor, seq_dim: int, length: int) -> Tensor:
    """The first ``length`` positions of ``seq_dim`` (``length`` within the dim)."""
    return apply1(NARROW, seq, (seq_dim, 0, length))


def split_bi_state(state: Tensor | None, layer: str) -> tuple[Tensor | None, Tensor | None]:
    """A ``[2, batch, d_hidden]`` state as its forward and reverse halves (None, None for None).
    ValueError for another leading size or rank."""
    if state is None:
        return None, None
    if state.rank() != 3 or state.dims()[0] != 2:
        raise ValueError(f"{layer}: expected a [2, batch, d_hidden] state, got {state.dims()}")
    return state.narrow(0, 0, 1).squeeze_dim(0), state.narrow(0, 1, 1).squeeze_dim(0)


def bi_output(forward: Tensor, reverse: Tensor, batch_first: bool) -> Tensor:
    """Both directions' batch-first outputs side by side (``[.., 2 * d_hidden]``) in the
    layer's layout."""
    out = Tensor.cat([forward, reverse], 2)
    return out if batch_first else out.swap_dims(0, 1)


def to_batch_first(batched_input: Tensor, batch_first: bool) -> Tensor:
    return batched_input if batch_first else batched_input.swap_dims(0, 1)


class ForwardAndField:
    """Lets a ``Bi`` layer keep Burn's record field ``forward`` (its forward-direction layer)
    and its ``forward(...)`` method under one name.

    A data descriptor wrapping the class's pass: ``layer.forward(x)`` is the method, while
    ``layer.forward = sub_layer`` stores the sub-layer in the instance's ``__dict__``, where the
    module traversal (records, state dicts, optimizers) finds it as ``forward``. Read the
    sub-layer as ``layer.forward_layer``.
    """

    def __init__(self, method) -> None:
        self.method = method
        self.__doc__ = method.__doc__

    def __get__(self, obj, cls=None):
        return self.method if obj is None else self.method.__get__(obj, cls)

    def __set__(self, obj, value) -> None:
        obj.__dict__["forward"] = value


class _Directional(Protocol):
    """What ``BiLayer`` reads of its direction layers (``Lstm``, ``Gru``, ``Rnn``)."""

    def input_dims(self) -> tuple[int, bool]: ...


class BiLayer(Module):
    """Base of the ``Bi`` layers: ``forward`` / ``reverse`` sub-layers, ``d_hidden``,
    ``batch_first`` (Burn's record fields)."""

    def __init__(self, forward: Module, reverse: Module, d_hidden: int, batch_first: bool) -> None:
        super().__init__()
        self.forward = forward
        self.reverse = reverse
        self.d_hidden = d_hidden
        self.batch_first = batch_first

    @property
    def forward_layer(self) -> _Directional:
        """The forward-direction layer (record field ``forward``)."""
        return self.__dict__["forward"]

    def __repr__(self) -> str:
        inner = self.forward_layer.input_dims()
        return (f"{type(self).__name__} {{d_input: {inner[0]}, d_hidden: {self.d_hidden}, "
                f"bias: {inner[1]}, params: {self.num_params()}}}")
