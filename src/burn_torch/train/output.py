"""What steps return, and how metrics read it (Burn's outputs and ``Adaptor``).

A train step returns [`TrainOutput`][burn_torch.train.output.TrainOutput] (the gradients and an
item); the item, and an inference step's output, is e.g. a
[`ClassificationOutput`][burn_torch.train.output.ClassificationOutput]. Each metric declares the
input it reads (``LossInput``, ``AccuracyInput``, ...); an output provides it through
``adapt(input_type)`` (Burn's ``Adaptor`` trait) or a function registered with
[`register_adaptor`][burn_torch.train.output.register_adaptor] for output types you do not own.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from ..autodiff.gradients import Gradients
from ..module import Module
from ..optim import GradientsParams
from ..tensor import Tensor


class LossInput(NamedTuple):
    """What ``LossMetric`` reads (Burn's ``LossInput``): the loss tensor."""

    loss: Tensor


class AccuracyInput(NamedTuple):
    """What ``AccuracyMetric`` reads (Burn's ``AccuracyInput``): logits
    ``[batch, classes]`` and Int targets ``[batch]``."""

    outputs: Tensor   # [batch, classes]
    targets: Tensor   # [batch] Int


class TopKAccuracyInput(NamedTuple):
    """What ``TopKAccuracyMetric`` reads: logits ``[batch, classes]`` and Int
    targets ``[batch]``."""

    outputs: Tensor
    targets: Tensor


_ADAPTORS: dict[tuple[type, type], Callable[[Any], Any]] = {}
_RESOLVED: dict[tuple[type, type], Callable[[Any], Any]] = {}   # per (output type, input type)


def register_adaptor(output_type: type, input_type: type, adapt: Callable[[Any], Any]) -> None:
    """Lets metrics reading ``input_type`` use outputs of ``output_type``: ``adapt(output)``."""
    _ADAPTORS[(output_type, input_type)] = adapt
    _RESOLVED.clear()


def _resolve(output_type: type, input_type: type) -> Callable[[Any], Any]:
    for cls in output_type.__mro__:
        fn = _ADAPTORS.get((cls, input_type))
        if fn is not None:
            return fn
    return lambda output: _adapt_method(output, input_type)


def _adapt_method(output: Any, input_type: type) -> Any:
    method = getattr(output, "adapt", None)
    if method is not None:
        value = method(input_type)
        if value is not NotImplemented:
            return value
    raise TypeError(f"{type(output).__name__} cannot feed a metric reading {input_type.__name__}: "
                    f"give it adapt(input_type) or register_adaptor({type(output).__name__}, "
                    f"{input_type.__name__}, fn)")


def adapt(output: Any, input_type: type) -> Any:
    """``output`` as ``input_type``: through a registered adaptor (for ``output``'s class or a
    base class) or ``output.adapt(input_type)``. Raises TypeError naming both types when
    neither exists."""
    key = (type(output), input_type)
    fn = _RESOLVED.get(key)
    if fn is None:
        fn = _RESOLVED[key] = _resolve(*key)
    return fn(output)


class ClassificationOutput:
    """Loss ``[1]``, logits ``[batch, classes]`` and Int targets ``[batch]`` (Burn's
    ``ClassificationOutput``); feeds LossMetric, AccuracyMetric, TopKAccuracyMetric."""

    __slots__ = ("loss", "output", "targets")
    _capture_record = True   # a captured step may take or return one (burn_torch.capture)

    def __init__(self, loss: Tensor, output: Tensor, targets: Tensor) -> None:
        self.loss, self.output, self.targets = loss, output, targets

    def adapt(self, input_type: type):
        if input_type is LossInput:
            return LossInput(self.loss)
        if input_type in (AccuracyInput, TopKAccuracyInput):
            return input_type(self.output, self.targets)
        return NotImplemented


class RegressionOutput:
    """Loss, outputs and targets of a regression (Burn's ``RegressionOutput``); feeds LossMetric."""

    __slots__ = ("loss", "output", "targets")
    _capture_record = True   # a captured step may take or return one (burn_torch.capture)

    def __init__(self, loss: Tensor, output: Tensor, targets: Tensor) -> None:
        self.loss, self.output, self.targets = loss, output, targets

    def adapt(self, input_type: type):
        return LossInput(self.loss) if input_type is LossInput else NotImplemented


class TrainOutput:
    """A train step's result (Burn's ``TrainOutput::new(model, grads, item)``): the backward
    pass's gradients linked to ``model``'s parameters, and the item metrics read."""

    __slots__ = ("grads", "item")

    def __init__(self, model: Module, grads: Gradients, item: Any) -> None:
        if not isinstance(grads, Gradients):
            raise TypeError(f"TrainOutput takes the Gradients of loss.backward(), got {type(grads).__name__}")
        self.grads = GradientsParams.from_grads(grads, model)
        self.item = item


class TrainStep:
    """Burn's ``TrainStep``: ``train_step(batch) -> TrainOutput`` on the autodiff model.

    Rust's ``TrainStep::step`` and ``InferenceStep::step`` share a name; here they are
    ``train_step`` and ``inference_step`` so one class can have both.
    """

    def train_step(self, batch: Any) -> TrainOutput:
        raise NotImplementedError


class InferenceStep:
    """Burn's ``InferenceStep``: ``inference_step(batch) -> output`` on the model without
    autodiff (``model.valid()``), used for validation."""

    def inference_step(self, batch: Any) -> Any:
        raise NotImplementedError
