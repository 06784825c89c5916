"""Stateful fuzzing of the public API: random sequences of tensor creation, ops, detach,
require_grad, backward, grad / grad_remove, module optimizer steps, save / load and deliberate
bad calls, with the API contract's invariants checked after every step:

- tensors are immutable values: every tensor keeps the values and autodiff properties it had
  when created, whatever happened since (failed calls included);
- ``is_require_grad() => is_tracked() => is_autodiff()``; torch autograd stays off;
- a failed call raises the documented type (TypeError / ValueError / IndexError /
  AutodiffError) and changes nothing: no tensor, gradient container, module, optimizer state
  or file;
- nothing leaks: once an optimizer step returns, its forward outputs, loss and the previous
  module's parameter storages are freed (by reference counting alone).
"""
from __future__ import annotations

import tempfile
import weakref
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (Bundle, RuleBasedStateMachine, consumes, initialize, invariant,
                                 precondition, rule)

from burn_torch import AutodiffError, Device, DType, Tensor, nn
from burn_torch.autodiff.gradients import Gradients
from burn_torch.optim import AdamConfig, GradientsParams

AD = Device.cpu().autodiff()
CPU = Device.cpu()

values = st.lists(st.floats(-3, 3, allow_nan=False, width=32), min_size=6, max_size=6)

BAD_CALLS = {
    "sum_dim(1.5)": (lambda t: t.sum_dim(1.5), TypeError),
    "sum_dim(None)": (lambda t: t.sum_dim(None), TypeError),
    "flip([2])": (lambda t: t.flip([2]), IndexError),
    "reshape([2.5, 2])": (lambda t: t.reshape([2.5, 2]), TypeError),
    "reshape([4, 4])": (lambda t: t.reshape([4, 4]), (ValueError, RuntimeError)),
    "powf_scalar('2')": (lambda t: t.powf_scalar("2"), TypeError),
    "+ numpy": (lambda t: t + np.ones((2, 3)), TypeError),
    "numpy +": (lambda t: np.ones((2, 3)) + t, TypeError),
    "* torch": (lambda t: torch.ones(2, 3) * t, TypeError),
    "select out of range": (lambda t: t.select(0, [0, 2]), IndexError),
    "grad(None)": (lambda t: t.grad(None), TypeError),
    "backward(retain_graph=True)": (lambda t: t.backward(retain_graph=True), AutodiffError),
    "matmul rank 1": (lambda t: t.matmul(t.sum()), ValueError),
}


class Snapshot:
    """What a tensor must keep forever: its values and autodiff properties."""

    __slots__ = ("data", "props")

    def __init__(self, t: Tensor) -> None:
        self.data = t.to_torch().clone()
        self.props = (t.is_autodiff(), t.is_tracked(), t.is_require_grad(), t.dims())

    def holds_for(self, t: Tensor) -> bool:
        return (torch.equal(t.to_torch(), self.data) and self.props ==
                (t.is_autodiff(), t.is_tracked(), t.is_require_grad(), t.dims()))


class ApiMachine(RuleBasedStateMachine):
    tensors = Bundle("tensors")

    @initialize()
    def setup(self):
        self.snapshots: list[tuple[Tensor, Snapshot]] = []
        self.step_storages: list[weakref.ref] = []
        self.grads: Gradients | None = None
        torch.manual_seed(0)
        self.model = nn.LinearConfig(3, 2).init(AD)
        self.optimizer = AdamConfig().init()
        self.folder = tempfile.TemporaryDirectory()
        self.saved: Path | None = None
        self.saved_bytes: bytes | None = None
        self.saved_model = None

    def teardown(self):
        self.folder.cleanup()

    def _keep(self, t: Tensor) -> Tensor:
        self.snapshots.append((t, Snapshot(t)))
        return t

    # -------------------------------------------------------------------------- creation ----
    @rule(target=tensors, data=values, leaf=st.booleans())
    def create(self, data, leaf):
        t = Tensor.from_data(np.array(data, dtype=np.float32).reshape(2, 3), AD)
        return self._keep(t.require_grad() if leaf else t)

    # ------------------------------------------------------------------------------- ops ----
    @rule(target=tensors, a=tensors, b=tensors, op=st.sampled_from(["add", "sub", "mul"]))
    def binary(self, a, b, op):
        return self._keep(getattr(a, op)(b))

    @rule(target=tensors, a=tensors, op=st.sampled_from(["tanh", "exp", "neg", "square"]))
    def unary(self, a, op):
        return self._keep(getattr(a, op)())

    @rule(target=tensors, a=tensors)
    def reduce_and_broadcast(self, a):
        return self._keep(a.sum_dim(1).mul_scalar(0.5) + a)

    @rule(target=tensors, a=tensors)
    def detach(self, a):
        d = a.detach()
        assert d.is_require_grad() == a.is_require_grad()
        return self._keep(d)

    @rule(target=tensors, a=tensors)
    def require_grad(self, a):
        try:
            return self._keep(a.require_grad())
        except AutodiffError:
            assert a.is_tracked() and not a.is_require_grad()
            return self._keep(a.detach().require_grad())

    # -------------------------------------------------------------------------- backward ----
    @rule(a=tensors)
    def backward(self, a):
        if not a.is_tracked():
            with pytest.raises(AutodiffError):
                a.sum().backward()
            return
        try:
            self.grads = a.sum().backward()
        except AutodiffError:  # a step it needs was consumed: nothing else is consumed
            return

    @precondition(lambda self: self.grads is not None)
    @rule(a=tensors, remove=st.booleans())
    def read_gradient(self, a, remove):
        before = a.grad(self.grads)
        got = a.grad_remove(self.grads) if remove else a.grad(self.grads)
        assert (got is None) == (before is None)
        if got is not None:
            assert torch.equal(got.to_torch(), before.to_torch()) and not got.is_autodiff()
            assert got.dims() == a.dims()
        if remove:
            assert a.grad(self.grads) is None

    # -------------------------------------------------------------------------- bad calls ----
    @rule(a=tensors, name=st.sampled_from(sorted(BAD_CALLS)))
    def bad_call(self, a, name):
        call, error = BAD_CALLS[name]
        grads_before = None if self.grads is None else dict(self.grads._grads)
        with pytest.raises(error):
            call(a)
        if grads_before is not None:
            assert self.grads._grads.keys() == grads_before.keys()

    # --------------------------------------------------------------------------- modules ----
    def _model_values(self):
        return {n: p.val().to_torch().clone() for n, p in self.model.named_params()}

    @rule(data=values, lr=st.sampled_from([0.0, 0.01, 0.1]))
    def optimizer_step(self, data, lr):
        old_values, old = self._model_values(), self.model
        x = Tensor.from_data(np.array(data, dtype=np.float32).reshape(2, 3), AD)
        loss = self.model.forward(x).square().mean()
        grads = GradientsParams.from_grads(loss.backward(), self.model)
        self.model = self.optimizer.step(lr, self.model, grads)
        assert all(torch.equal(p.val().to_torch(), old_values[n]) for n, p in old.named_params())
        assert [p.id for p in self.model.params()] == [p.id for p in old.params()]
        self.step_storages = [weakref.ref(t) for t in [loss.to_torch()] + [
            p.val().to_torch() for p in old.params()]]

    @rule()
    def failed_optimizer_step(self):
        record, values_before = self.optimizer.to_record(), self._model_values()
        grads = GradientsParams()
        grads.register(self.model.weight.id, Tensor.ones([3, 2], CPU, dtype=DType.F64))
        with pytest.raises(TypeError):
            self.optimizer.step(0.1, self.model, grads)
        after = self.optimizer.to_record()
        assert set(after) == set(record)
        for pid in record:
            assert all(torch.equal(record[pid][k], after[pid][k]) if isinstance(record[pid][k], torch.Tensor)
                       else record[pid][k] == after[pid][k] for k in record[pid])
        assert all(torch.equal(v, values_before[n]) for n, v in self._model_values().items())

    @rule()
    def save(self):
        self.saved = self.model.save_file(Path(self.folder.name) / "model")
        self.saved_bytes = self.saved.read_bytes()
        self.saved_model = [(p.id, p.val().to_torch().clone()) for p in self.model.params()]

    @precondition(lambda self: self.saved is not None)
    @rule()
    def load(self):
        loaded = nn.LinearConfig(3, 2).init(AD).load_file(self.saved)
        assert all(p.id == pid and torch.equal(p.val().to_torch(), data)
                   for p, (pid, data) in zip(loaded.params(), self.saved_model, strict=True))
        assert loaded.weight.is_require_grad()

    @precondition(lambda self: self.saved is not None)
    @rule(cut=st.integers(0, 200))
    def load_truncated(self, cut):
        bad = Path(self.folder.name) / "bad.safetensors"
        bad.write_bytes(self.saved_bytes[:cut])
        values_before = self._model_values()
        with pytest.raises(ValueError, match="bad.safetensors"):
            self.model.load_file(bad)
        assert all(torch.equal(v, values_before[n]) for n, v in self._model_values().items())
        assert self.saved.read_bytes() == self.saved_bytes

    # ------------------------------------------------------------------------ invariants ----
    @invariant()
    def a_finished_step_leaves_nothing_behind(self):
        alive = [r for r in getattr(self, "step_storages", ()) if r() is not None]
        assert not alive, f"{len(alive)} storages of the last optimizer step are still alive"

    @invariant()
    def tensors_are_immutable_values(self):
        for t, snap in getattr(self, "snapshots", ()):
            assert snap.holds_for(t)

    @invariant()
    def autodiff_properties_are_ordered_and_torch_autograd_is_off(self):
        for t, _ in getattr(self, "snapshots", ()):
            assert not t.is_require_grad() or t.is_tracked()
            assert not t.is_tracked() or t.is_autodiff()
            data = t.to_torch()
            assert not data.requires_grad and data.grad_fn is None


ApiMachine.TestCase.settings = settings(max_examples=15, stateful_step_count=20, deadline=None)
TestApiStateMachine = ApiMachine.TestCase
