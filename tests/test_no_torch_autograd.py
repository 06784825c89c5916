"""burn_torch never engages torch autograd.

Every storage tensor the library creates or keeps (results, leaf storages, tensors saved in graph
nodes, attributes such as gather indices, gradients) must have ``requires_grad=False`` and no
``grad_fn``, whatever torch's grad mode is in user code; torch's saved-tensor hooks must never
fire; and torch's grad mode must be left exactly as the caller had it, also when an op raises.
"""
from __future__ import annotations

import contextlib

import pytest
import torch

from burn_torch.autodiff.checkpoint import Checkpoint
from burn_torch import DType, GraphConsumedError, Tensor
from burn_torch.activation import gelu, log_softmax, relu, sigmoid, softmax, tanh
from helpers import AD, CPU, randn_leaf


def _torch_tensors(obj, out: list) -> None:
    """Collects every torch tensor inside ``obj`` (tensors, tuples, lists, dicts, BALANCED
    checkpoints)."""
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, Checkpoint):
        for part in (obj.saved, obj.inputs, obj.attrs):
            _torch_tensors(part, out)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            _torch_tensors(o, out)
    elif isinstance(obj, dict):
        for o in obj.values():
            _torch_tensors(o, out)


def graph_storages(root: Tensor) -> tuple[list[torch.Tensor], int]:
    """Every torch tensor saved or kept as an attribute in the nodes reachable from ``root``."""
    found: list[torch.Tensor] = []
    seen = set()
    stack = [root._node]
    nodes = 0
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        nodes += 1
        _torch_tensors(n.saved, found)
        if n.parents is not None:
            stack.extend(n.parents)
    return found, nodes


def assert_plain(t: torch.Tensor, what: str) -> None:
    assert isinstance(t, torch.Tensor), what
    assert t.requires_grad is False, f"{what} requires grad"
    assert t.grad_fn is None, f"{what} has grad_fn {t.grad_fn}"
    assert t.grad is None, f"{what} has a .grad"


def make_leaves():
    g = torch.Generator().manual_seed(0)
    w1, b1, w2 = randn_leaf(g, 6, 8), randn_leaf(g, 8), randn_leaf(g, 8, 4)
    x = Tensor.from_data(torch.randn(5, 6, generator=g), AD)  # autodiff constant
    xs = Tensor.from_data(torch.randn(5, 6, generator=g), CPU)  # no autodiff at all
    return w1, b1, w2, x, xs


def varied_forward(w1, b1, w2, x, xs):
    """A forward pass that uses many op families; returns (loss, intermediates)."""
    mids = []
    h = x @ w1 + b1.unsqueeze()                      # matmul, broadcast add, reshape
    mids.append(h)
    h = relu(h) + sigmoid(h) * 0.5 - tanh(h) / 3.0   # activations, scalar ops
    mids.append(h)
    h = gelu(h).to_device(CPU)                       # to_device records a step
    mids.append(h)
    left = h.slice([slice(0, 3)])                    # slice
    right = h.slice([slice(3, 5)]).exp().log1p()     # exp, log1p
    h = Tensor.cat([left, right], 0)                 # cat
    mids.append(h)
    o = h @ w2                                       # [5, 4]
    idx = Tensor.from_ints([[0], [1], [2], [3], [0]], CPU)
    picked = o.gather(1, idx)                        # gather (indices are an attribute)
    sel = o.select(0, Tensor.from_ints([0, 0, 4], CPU))
    mx = o.max_dim(1)                                # argmax + gather
    sm = softmax(o, 1).sum_dim(1)                    # softmax + sum_dim
    ls = log_softmax(o, 1).mean_dim(0)               # log_softmax + mean_dim
    sq = (o.swap_dims(0, 1).reshape([-1]) * xs.reshape([-1]).slice([slice(0, 20)])).square()
    mask = o.greater_elem(0.0)
    mf = o.mask_fill(mask, 0.0).abs().sqrt().clamp(0.0, 3.0)
    st = Tensor.stack([o, o.powf_scalar(2.0)], 0).mean()
    c64 = o.cast(DType.F64).sum().cast(DType.F32)
    mids += [o, picked, sel, mx, sm, ls, sq, mf, st, c64]
    loss = (picked.sum() + sel.mean() + mx.sum() + sm.sum() + ls.sum() + sq.mean()
            + mf.sum() * 0.1 + st + c64 * 0.01)
    return loss, mids


def _check_everything(mode_ctx):
    w1, b1, w2, x, xs = make_leaves()
    leaves = [w1, b1, w2]
    with mode_ctx():
        loss, mids = varied_forward(w1, b1, w2, x, xs)
        saved, nodes = graph_storages(loss)
        assert nodes > 30 and len(saved) > 10
        for i, t in enumerate(saved):
            assert_plain(t, f"saved tensor #{i}")
        for i, m in enumerate(mids + [loss]):
            assert_plain(m._data, f"result #{i}")
            assert_plain(m.to_torch(), f"to_torch of result #{i}")
        for t in leaves + [x, xs]:
            assert_plain(t._data, "leaf storage")
        grads = loss.backward()
        assert len(grads) == 3
        for t in leaves:
            g = t.grad(grads)
            assert g is not None and g.dims() == t.dims()
            assert_plain(g._data, "gradient")
            assert torch.isfinite(g._data).all()
        for g in grads._grads.values():
            assert_plain(g, "stored gradient")
        for t in leaves + [x, xs]:
            assert_plain(t._data, "leaf storage after backward")
    return grads


@pytest.mark.parametrize("mode", ["default", "enable_grad", "no_grad", "inference_mode"])
def test_no_storage_requires_grad(mode):
    ctx = {"default": contextlib.nullcontext, "enable_grad": torch.enable_grad,
           "no_grad": torch.no_grad, "inference_mode": torch.inference_mode}[mode]
    before = torch.is_grad_enabled()
    _check_everything(ctx)
    assert torch.is_grad_enabled() == before


def test_gradients_identical_across_grad_modes():
    ref = _check_everything(contextlib.nullcontext)
    other = _check_everything(torch.enable_grad)
    assert sorted(map(tuple, (g.shape for g in ref._grads.values()))) == \
        sorted(map(tuple, (g.shape for g in other._grads.values())))
    for a, b in zip(sorted(ref._grads.items()), sorted(other._grads.items())):
        assert torch.equal(a[1], b[1])


def test_torch_saved_tensor_hooks_never_fire():
    """If torch autograd recorded anything, its saved-tensor pack hook would be called."""
    calls = []

    def pack(t):
        calls.append(t.shape)
        return t

    with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        w1, b1, w2, x, xs = make_leaves()
        loss, _ = varied_forward(w1, b1, w2, x, xs)
        grads = loss.backward()
        assert len(grads) == 3
    assert calls == []


def test_from_data_drops_requires_grad():
    src = torch.randn(3, 4, requires_grad=True)
    derived = src * 2  # has a grad_fn
    with torch.enable_grad():
        for data in (src, derived):
            t = Tensor.from_data(data, AD)
            assert_plain(t._data, "from_data storage")
            assert_plain(t.to_torch(), "to_torch")
            leaf = t.require_grad()
            out = (leaf * leaf).sum()
            assert_plain(out._data, "result of a leaf built from a requires_grad tensor")
            grads = out.backward()
            g = leaf.grad(grads)
            assert_plain(g._data, "gradient")
            torch.testing.assert_close(g.to_torch(), 2 * data.detach())
            t2 = Tensor.from_data(data, CPU)
            assert_plain(t2.to_torch(), "to_torch without autodiff")
    # the user's tensor is untouched: still requires grad, no .grad written by us
    assert src.requires_grad and src.grad is None
    # values are copied: mutating the source does not change the burn tensor
    t = Tensor.from_data(src, AD)
    with torch.no_grad():
        src.add_(1.0)
    assert not torch.equal(t.to_torch(), src.detach())


def test_to_torch_of_leaf_and_gradient_is_plain():
    with torch.enable_grad():
        leaf = Tensor.from_floats([[1.0, 2.0], [3.0, 4.0]], AD).require_grad()
        assert leaf.to_torch().requires_grad is False
        grads = (leaf.exp() @ leaf).sum().backward()
        g = leaf.grad(grads)
        assert g.to_torch().requires_grad is False and g.to_torch().grad_fn is None
        removed = leaf.grad_remove(grads)
        assert removed.to_torch().requires_grad is False


@pytest.mark.parametrize("outer", [True, False])
def test_grad_mode_restored_after_ops_and_errors(outer):
    with torch.set_grad_enabled(outer):
        a = Tensor.from_floats([[1.0, 2.0, 3.0]], AD).require_grad()
        b = Tensor.from_floats([[1.0], [2.0]], AD).require_grad()
        y = (a * 2.0).exp().sum()
        assert torch.is_grad_enabled() is outer
        # a kernel error (shape mismatch) inside a recorded op
        with pytest.raises(ValueError):
            a @ a
        assert torch.is_grad_enabled() is outer
        with pytest.raises(ValueError):
            Tensor.cat([a, b], 0)
        assert torch.is_grad_enabled() is outer
        with pytest.raises(ValueError):
            a.reshape([4])
        assert torch.is_grad_enabled() is outer
        with pytest.raises(TypeError):
            a + Tensor.from_ints([1, 2, 3], AD)
        assert torch.is_grad_enabled() is outer
        # backward, then a failing second backward
        y.backward()
        assert torch.is_grad_enabled() is outer
        with pytest.raises(GraphConsumedError):
            y.backward()
        assert torch.is_grad_enabled() is outer
    assert torch.is_grad_enabled() is True


def test_grad_mode_restored_after_backward_rule_raises(monkeypatch):
    """If a backward rule itself raises, torch's grad mode is still restored."""
    from burn_torch.ops import elementwise as elementwise_ops

    def boom(g, s):
        raise RuntimeError("rule failed")

    monkeypatch.setattr(elementwise_ops.EXP, "rules", (boom,))
    with torch.enable_grad():
        a = Tensor.from_floats([1.0, 2.0], AD).require_grad()
        y = a.exp().sum()
        with pytest.raises(RuntimeError, match="rule failed"):
            y.backward()
        assert torch.is_grad_enabled() is True
    with torch.no_grad():
        a = Tensor.from_floats([1.0, 2.0], AD).require_grad()
        y = a.exp().sum()
        with pytest.raises(RuntimeError, match="rule failed"):
            y.backward()
        assert torch.is_grad_enabled() is False
