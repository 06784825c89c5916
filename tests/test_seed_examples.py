"""The worked examples of the seeds, reproduced output for output.

Seed 000 (Burn's autodiff chapter) gives one Rust example; seed 003 (a PyTorch-vs-Burn
experiment, PyTorch 2.x CPU and burn 0.22.1) prints the outputs of both sides. Each test below
runs the burn_torch translation of the Rust program and, where the seed shows PyTorch output,
the PyTorch program with real torch autograd, and compares the printed lines verbatim with the
seed. The burn side formats values as the seed's Rust helper ``v`` does (``Some([2.0, 4.0])``
or ``None``).

The seed's MLP gradient-accumulation experiment needs modules and optimizers; it is not covered
here.
"""
from __future__ import annotations

import warnings

import pytest
import torch

from burn_torch import (AutodiffError, Device, GradientCheckpointingStrategy, Gradients,
                        NotTrackedError, Tensor)


def v(t: "Tensor | None") -> str:
    """Formats an ``Option<Tensor>`` as the seed's Rust helper prints it."""
    if t is None:
        return "None"
    return f"Some({t.to_data().to_list()!r})"


def flags(label: str, t: Tensor) -> str:
    """The seed's ``flags`` helper: the three autodiff properties, Rust booleans."""
    def b(x: bool) -> str:
        return "true" if x else "false"
    return (f"{label:<10} is_autodiff={b(t.is_autodiff())} is_tracked={b(t.is_tracked())} "
            f"is_require_grad={b(t.is_require_grad())}")


@pytest.fixture
def ad() -> Device:
    return Device.cpu().autodiff()


# ================================================================================ seed 000 ====
def test_seed000_example(ad):
    tensor = Tensor.ones([2, 2], ad).require_grad()
    output = tensor.clone().powf_scalar(2.0).sum()
    gradients = output.backward()
    assert isinstance(gradients, Gradients)

    tensor_grad = tensor.grad(gradients)  # get
    assert tensor_grad is not None
    assert tensor_grad.dims() == [2, 2]
    assert tensor_grad.to_data().to_list() == [[2.0, 2.0], [2.0, 2.0]]
    assert not tensor_grad.is_autodiff()
    assert len(gradients) == 1

    tensor_grad = tensor.grad_remove(gradients)  # pop
    assert tensor_grad is not None
    assert tensor_grad.to_data().to_list() == [[2.0, 2.0], [2.0, 2.0]]
    assert len(gradients) == 0
    assert tensor.grad(gradients) is None
    assert tensor.grad_remove(gradients) is None


def test_seed000_property_chain(ad):
    """is_require_grad ⇒ is_tracked ⇒ is_autodiff, and strategy-is-some == is_autodiff."""
    plain = Tensor.ones([2, 2], Device.cpu())
    assert not plain.is_autodiff() and plain.gradient_checkpointing_strategy() is None
    with pytest.raises(AutodiffError, match=r"autodiff\(\)"):
        plain.require_grad()
    tensor = Tensor.ones([2, 2], ad).require_grad()
    out = tensor.powf_scalar(2.0).sum()
    for t in (plain, tensor, out, tensor.detach(), out.detach(), tensor.without_autodiff(),
              tensor.set_require_grad(False)):
        assert (not t.is_require_grad()) or t.is_tracked()
        assert (not t.is_tracked()) or t.is_autodiff()
        assert (t.gradient_checkpointing_strategy() is not None) == t.is_autodiff()
    assert tensor.gradient_checkpointing_strategy() is GradientCheckpointingStrategy.DISABLED
    assert tensor.detach().is_require_grad()  # detach keeps a leaf's retention setting
    assert not tensor.set_require_grad(False).is_tracked()


# ================================================================== seed 003: where grads go ====
def test_seed003_gradients_returned_not_accumulated_torch():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    lines = []
    for i in range(2):
        (x * x).sum().backward()
        lines.append(f"after backward {i}: x.grad = {x.grad}")
    assert lines == [
        "after backward 0: x.grad = tensor([2., 4.])",
        "after backward 1: x.grad = tensor([4., 8.])",
    ]


def test_seed003_gradients_returned_not_accumulated_burn(ad):
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    lines = []
    all_grads = []
    for i in range(2):
        grads = (x.clone() * x.clone()).sum().backward()
        lines.append(f"backward {i}: x.grad = {v(x.grad(grads))}")
        all_grads.append(grads)
    a, b = x.grad(all_grads[0]), x.grad(all_grads[1])
    total = None if a is None or b is None else a + b
    lines.append(f"summed by hand: {v(total)}")
    assert lines == [
        "backward 0: x.grad = Some([2.0, 4.0])",
        "backward 1: x.grad = Some([2.0, 4.0])",
        "summed by hand: Some([4.0, 8.0])",
    ]
    # nothing was written onto the leaf: two independent containers
    assert all_grads[0] is not all_grads[1]
    assert len(all_grads[0]) == len(all_grads[1]) == 1


def test_seed003_autograd_grad_torch():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    (gx,) = torch.autograd.grad((h * 3).sum(), [x])
    assert f"autograd.grad: {gx} | x.grad = {x.grad}" == \
        "autograd.grad: tensor([ 6., 12.]) | x.grad = None"


# ========================================================================== non-scalar ====
def test_seed003_non_scalar_output_torch():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    lines = []
    y = x * x
    try:
        y.backward()
    except RuntimeError as e:
        lines.append(f"non-scalar backward: {e}")
    y.backward(torch.ones_like(y))
    lines.append(f"y.backward(ones): x.grad = {x.grad}")
    x.grad = None
    y = x * x
    y.backward(torch.tensor([1.0, 10.0]))
    lines.append(f"y.backward([1, 10]): x.grad = {x.grad}")
    assert lines == [
        "non-scalar backward: grad can be implicitly created only for scalar outputs",
        "y.backward(ones): x.grad = tensor([2., 4.])",
        "y.backward([1, 10]): x.grad = tensor([ 2., 40.])",
    ]


def test_seed003_non_scalar_output_burn(ad):
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    lines = []
    y = x.clone() * x.clone()
    grads = y.backward()
    lines.append(f"y.backward() on [2]: x.grad = {v(x.grad(grads))}")
    y = x.clone() * x.clone()
    weights = Tensor.from_floats([1.0, 10.0], ad)
    grads = (y * weights).sum().backward()
    lines.append(f"(y * [1, 10]).sum(): x.grad = {v(x.grad(grads))}")
    assert lines == [
        "y.backward() on [2]: x.grad = Some([2.0, 4.0])",
        "(y * [1, 10]).sum(): x.grad = Some([2.0, 40.0])",
    ]
    # the weights are an autodiff constant: they get no gradient
    assert weights.grad(grads) is None and len(grads) == 1


def test_seed003_backward_takes_no_seed(ad):
    """PyTorch's y.backward(v) has no counterpart: burn's backward takes no arguments."""
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    y = x * x
    with pytest.raises(AutodiffError, match=r"\(y \* v\)\.sum\(\)\.backward\(\)"):
        y.backward(Tensor.from_floats([1.0, 10.0], ad))
    with pytest.raises(AutodiffError):
        y.backward(retain_graph=True)
    # the failed calls consumed nothing
    assert v(x.grad(y.backward())) == "Some([2.0, 4.0])"


# ============================================================== intermediate gradients ====
def test_seed003_intermediate_grad_torch():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    loss = (h * 3).sum()
    loss.backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = f"h.grad = {h.grad}"
    assert line == "h.grad = None"
    assert any("not a leaf Tensor" in str(w.message) and "retain_grad" in str(w.message)
               for w in caught)


def test_seed003_intermediate_grad_burn(ad):
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    h = x.clone() * x.clone()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # burn does not warn
        grads = (h.clone() * 3.0).sum().backward()
        line = f"h.grad = {v(h.grad(grads))} | x.grad = {v(x.grad(grads))}"
    assert line == "h.grad = None | x.grad = Some([6.0, 12.0])"
    assert len(grads) == 1  # only the retained leaf gradient is kept


# ===================================================================== second order ====
def test_seed003_second_order_torch():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((x ** 3).sum(), [x], create_graph=True)
    (g2,) = torch.autograd.grad(g.sum(), [x])
    lines = [f"dy/dx = {g} requires_grad = {g.requires_grad}", f"d2y/dx2 = {g2}"]
    assert lines == [
        "dy/dx = tensor([ 3., 12.], grad_fn=<MulBackward0>) requires_grad = True",
        "d2y/dx2 = tensor([ 6., 12.])",
    ]


def test_seed003_second_order_burn(ad):
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    grads = x.clone().powi_scalar(3).sum().backward()
    g = x.grad(grads)
    assert g is not None
    lines = [flags("x.grad", g), f"dy/dx = {v(g)}"]
    assert lines == [
        "x.grad     is_autodiff=false is_tracked=false is_require_grad=false",
        "dy/dx = Some([3.0, 12.0])",
    ]
    assert g.gradient_checkpointing_strategy() is None
    with pytest.raises(NotTrackedError) as info:
        g.sum().backward()
    assert str(info.value) == (
        "Tensor.backward requires a tracked autodiff tensor; call "
        "Tensor.autodiff().require_grad() on the source leaf before computing the output")
    assert isinstance(info.value, AutodiffError) and isinstance(info.value, RuntimeError)
    # the failure left the container alone
    assert v(x.grad(grads)) == "Some([3.0, 12.0])"


# ================================================================= changing gradients ====
def test_seed003_grad_replace_then_remove(ad):
    x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
    grads = (x.clone() * x.clone() * 10.0).sum().backward()
    assert v(x.grad(grads)) == "Some([20.0, 40.0])"
    g = x.grad(grads)
    clipped = None if g is None else g.clamp(-5.0, 5.0)
    if clipped is not None:
        x.grad_replace(grads, clipped)
    lines = [f"after grad_replace(clamp): {v(x.grad(grads))}"]
    lines.append(f"grad_remove: {v(x.grad_remove(grads))} then grad: {v(x.grad(grads))}")
    assert lines == [
        "after grad_replace(clamp): Some([5.0, 5.0])",
        "grad_remove: Some([5.0, 5.0]) then grad: None",
    ]
    assert len(grads) == 0


def test_seed003_torch_modifies_grad_in_place():
    """The PyTorch counterpart the seed describes: clamp .grad in place."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x * 10.0).sum().backward()
    x.grad.clamp_(-5, 5)
    assert f"{x.grad}" == "tensor([5., 5.])"
