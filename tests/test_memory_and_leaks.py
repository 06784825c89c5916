"""Backward frees the graph; nothing leaks across steps.

These tests run with the cyclic garbage collector disabled, so anything kept alive only by a
reference cycle (node ↔ tensor, closure ↔ frame, ...) stays visible as a leak: objects must be
freed by reference counting alone, as soon as the last handle goes away.
"""
from __future__ import annotations

import gc
import weakref

import pytest
import torch

from burn_torch import Tensor
from burn_torch.activation import log_softmax, relu, sigmoid, softmax
from burn_torch.autodiff.graph import Node
from helpers import AD, CPU, randn_leaf

pytestmark = pytest.mark.usefixtures("no_gc")


def _torch_tensors(obj, out):
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, (tuple, list)):
        for o in obj:
            _torch_tensors(o, out)


def graph_nodes(root: Tensor) -> list[Node]:
    seen, nodes, stack = set(), [], [root._node]
    while stack:
        n = stack.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        nodes.append(n)
        if n.parents is not None:
            stack.extend(n.parents)
    return nodes


def saved_tensors(nodes) -> list[torch.Tensor]:
    out = []
    for n in nodes:
        _torch_tensors(n.saved, out)
    return out


def leaves_and_forward():
    g = torch.Generator().manual_seed(0)
    w1, b1, w2 = randn_leaf(g, 6, 16), randn_leaf(g, 16), randn_leaf(g, 16, 3)
    unused = randn_leaf(g, 3)  # not in the graph
    x = Tensor.from_data(torch.randn(8, 6, generator=g), AD)
    h1 = x @ w1 + b1.unsqueeze()
    h2 = relu(h1)
    h3 = sigmoid(h2) * h2
    h4 = Tensor.cat([h3.slice([slice(0, 4)]), h3.slice([slice(4, 8)]).exp()], 0)
    logits = h4 @ w2
    picked = log_softmax(logits, 1).gather(1, Tensor.from_ints([[i % 3] for i in range(8)], CPU))
    loss = -picked.mean() + softmax(logits, 1).square().sum() * 0.1
    leaves = [w1, b1, w2]
    mids = [h1, h2, h3, h4, logits, picked]
    return leaves, unused, x, mids, loss


def test_backward_frees_saved_tensors_and_intermediates():
    leaves, unused, x, mids, loss = leaves_and_forward()
    keep = {id(t._data) for t in leaves + [x, unused]}
    nodes = graph_nodes(loss)
    saved = [t for t in saved_tensors(nodes) if id(t) not in keep]
    assert len(saved) >= 8
    saved_refs = [weakref.ref(t) for t in saved]
    mid_refs = [weakref.ref(m._data) for m in mids + [loss]]
    tensor_refs = [weakref.ref(m) for m in mids + [loss]]
    del saved

    grads = loss.backward()

    # Right after backward, with the intermediates still alive, only what a live tensor holds as
    # its own storage may survive: every other saved tensor was released by its consumed step.
    live = {id(m._data) for m in mids + [loss]}
    for r in saved_refs:
        t = r()
        assert t is None or id(t) in live, f"a saved tensor of shape {list(t.shape)} outlived backward"
    for n in nodes:
        if n.op is not None:
            assert n.consumed and n.parents is None and n.saved is None

    # intermediate gradients are not kept: one entry per require_grad leaf reached
    assert len(grads) == len(leaves)
    assert unused.grad(grads) is None and x.grad(grads) is None
    for m in mids:
        assert m.grad(grads) is None

    del mids, loss, grads, nodes, m, n, t  # loop variables hold references too
    assert all(r() is None for r in saved_refs), "saved tensors kept alive after the graph died"
    assert all(r() is None for r in mid_refs), "intermediate storages kept alive"
    assert all(r() is None for r in tensor_refs), "intermediate Tensor objects kept alive"
    # the leaves are untouched and reusable
    for t in leaves:
        assert t.is_require_grad()
    _, _, _, _, loss2 = leaves_and_forward()
    assert len(loss2.backward()) == 3


def test_unconsumed_graph_is_freed_by_refcount():
    """A graph dropped without backward is freed too (no node/tensor cycles)."""
    leaves, unused, x, mids, loss = leaves_and_forward()
    nodes = graph_nodes(loss)
    steps = sum(1 for n in nodes if n.op is not None)
    saved_refs = [weakref.ref(t) for t in saved_tensors(nodes)
                  if id(t) not in {id(l._data) for l in leaves + [x]}]
    before = _live_nodes()
    del nodes, mids, loss
    assert _live_nodes() == before - steps  # every step node freed, the leaves' nodes kept
    assert all(r() is None for r in saved_refs)


def test_gradients_hold_only_leaf_gradients_and_their_own_memory():
    """A leaf gradient must not be a view keeping a larger intermediate gradient alive."""
    a = Tensor.ones([2, 3], AD).require_grad()
    b = Tensor.ones([1000, 3], AD).require_grad()
    w = Tensor.ones([1002, 3], AD)
    grads = (Tensor.cat([a, b.exp()], 0) * w).sum().backward()
    assert len(grads) == 2
    for leaf in (a, b):
        g = leaf.grad(grads).to_torch()
        assert g.untyped_storage().nbytes() == g.numel() * g.element_size(), \
            f"the gradient of a {leaf.dims()} leaf holds {g.untyped_storage().nbytes()} bytes"
    assert grads.nbytes() == (6 + 3000) * 4
    s = Tensor.stack([a, b.slice([slice(0, 2)])], 0)
    grads = (s * Tensor.ones([2, 2, 3], AD)).sum().backward()
    g = a.grad(grads).to_torch()
    assert g.untyped_storage().nbytes() == g.numel() * g.element_size()


def test_consumed_nodes_release_parents_and_saved():
    a = Tensor.from_floats([1.0, 2.0, 3.0], AD).require_grad()
    y = (a * a).exp()
    z = y.sum()
    ny, nz = y._node, z._node
    assert ny.parents is not None and ny.saved is not None
    z.backward()
    for n in (ny, nz, ny):
        assert n.consumed and n.parents is None and n.saved is None
    # leaves have no step: never consumed, reusable
    assert not a._node.consumed
    assert y.is_tracked() and z.is_tracked()  # is_tracked stays True after backward


def _live_nodes() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is Node)


def _census():
    tensors = nodes = nbytes = 0
    storages = set()
    for o in gc.get_objects():
        cls = type(o)  # not isinstance: it would poke lazy module proxies in gc's list
        if issubclass(cls, torch.Tensor):
            tensors += 1
            s = o.untyped_storage()
            if s.data_ptr() not in storages:
                storages.add(s.data_ptr())
                nbytes += s.nbytes()
        elif cls is Node or cls is Tensor:
            nodes += 1
    return tensors, nodes, nbytes


def test_mlp_training_loop_constant_memory():
    g = torch.Generator().manual_seed(0)
    xs = Tensor.from_data(torch.randn(16, 8, generator=g), CPU)
    ys = Tensor.from_data(torch.randn(16, 4, generator=g), CPU)
    params = [Tensor.from_data(torch.randn(8, 32, generator=g) * 0.3, AD).require_grad(),
              Tensor.from_data(torch.zeros(32), AD).require_grad(),
              Tensor.from_data(torch.randn(32, 4, generator=g) * 0.3, AD).require_grad(),
              Tensor.from_data(torch.zeros(4), AD).require_grad()]
    fixed = randn_leaf(g, 8, 32)  # never updated
    losses = []
    counts = {}
    for step in range(1, 1001):
        w1, b1, w2, b2 = params
        h = relu(xs @ w1 + b1.unsqueeze() + (xs @ fixed) * 0.0)
        out = h @ w2 + b2.unsqueeze()
        loss = (out - ys).square().mean()
        grads = loss.backward()
        assert len(grads) == 5
        params = [(p.without_autodiff() - p.grad_remove(grads) * 0.05).autodiff().require_grad()
                  for p in params]
        assert len(grads) == 1  # only `fixed`'s gradient is left
        if step in (1, 1000):
            losses.append(loss.into_scalar())
        del w1, b1, w2, b2, h, out, loss, grads
        if step in (100, 1000):
            counts[step] = _census()
    assert losses[1] < losses[0]
    assert counts[100] == counts[1000], f"live (tensors, nodes+Tensors, bytes): {counts}"
