"""Recording and backward from several threads.

Each thread builds and backpropagates its own graphs over shared parameter leaves; results must
equal the single-thread gradients. Two backward passes racing through the same recorded step:
exactly one runs it, the other raises GraphConsumedError and nothing is half-consumed. A
Gradients container produced in one thread is readable in another (seed 000: "the ability to
easily send gradients to other threads").
"""
from __future__ import annotations

import queue
import threading

import torch

from burn_torch import GraphConsumedError, Tensor
from burn_torch.activation import relu, softmax
from helpers import AD, CPU, randn_leaf


def _run_threads(n, target, *args):
    errors = []

    def wrapped(i):
        try:
            target(i, *args)
        except BaseException as e:  # noqa: BLE001 - reported in the main thread
            errors.append(e)

    threads = [threading.Thread(target=wrapped, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
        assert not t.is_alive(), "a worker thread hung"
    if errors:
        raise errors[0]


def _race_backward(*losses):
    """Calls ``backward()`` on each of ``losses`` from its own thread, the threads released
    together; returns each call's Gradients or the GraphConsumedError it raised, in order."""
    barrier = threading.Barrier(len(losses))
    outcomes = [None] * len(losses)

    def racer(i):
        barrier.wait()
        try:
            outcomes[i] = losses[i].backward()
        except GraphConsumedError as e:
            outcomes[i] = e

    _run_threads(len(losses), racer)
    return outcomes


def _shared_leaves():
    g = torch.Generator().manual_seed(3)
    return [randn_leaf(g, 5, 7), randn_leaf(g, 7), randn_leaf(g, 7, 2)]


def _inputs(k: int):
    g = torch.Generator().manual_seed(100 + k)
    return Tensor.from_data(torch.randn(4, 5, generator=g), CPU)


def _loss(leaves, x):
    w1, b1, w2 = leaves
    h = relu(x @ w1 + b1.unsqueeze())
    out = softmax(h @ w2, 1) * h.sum_dim(1)
    return Tensor.cat([out, h.slice([slice(0, 2), slice(0, 2)])], 0).square().mean()


def test_threads_record_and_backward_concurrently():
    leaves = _shared_leaves()
    inputs = [_inputs(k) for k in range(4)]
    expected = []
    for x in inputs:
        grads = _loss(leaves, x).backward()
        expected.append([p.grad(grads).to_torch().clone() for p in leaves])

    mismatches = []
    counts = [0] * 4

    def worker(i):
        x = inputs[i]
        for step in range(200):
            grads = _loss(leaves, x).backward()
            got = [p.grad(grads) for p in leaves]
            for g, e in zip(got, expected[i]):
                if g is None or not torch.equal(g.to_torch(), e):
                    mismatches.append((i, step))
                    return
            counts[i] += 1

    _run_threads(4, worker)
    assert mismatches == []
    assert counts == [200] * 4
    # the shared leaves are untouched by all that
    for p in leaves:
        assert p.is_require_grad() and not p._node.consumed


def test_race_on_same_output_exactly_one_wins():
    for trial in range(50):
        a = Tensor.from_floats([1.0, 2.0, 3.0], AD).require_grad()
        y = (a * a).exp().sum()
        outcomes = _race_backward(y, y)
        wins = [o for o in outcomes if not isinstance(o, Exception)]
        losses = [o for o in outcomes if isinstance(o, GraphConsumedError)]
        assert len(wins) == 1 and len(losses) == 1, (trial, outcomes)
        g = a.grad(wins[0]).to_torch()
        x = torch.tensor([1.0, 2.0, 3.0])
        torch.testing.assert_close(g, 2 * x * torch.exp(x * x))


def test_race_through_shared_intermediate_is_all_or_nothing():
    """Two different outputs sharing a step: one backward runs, the other consumes nothing."""
    for trial in range(50):
        a = Tensor.from_floats([1.0, 2.0], AD).require_grad()
        b = Tensor.from_floats([3.0, 4.0], AD).require_grad()
        shared = a * b
        l1 = shared.sum()
        l2 = (shared * 2.0).sum() + (b * 3.0).sum()
        outcomes = _race_backward(l1, l2)
        winners = [i for i, o in enumerate(outcomes) if not isinstance(o, Exception)]
        assert len(winners) == 1, (trial, outcomes)
        grads = outcomes[winners[0]]
        if winners[0] == 0:
            assert a.grad(grads).to_data().to_list() == [3.0, 4.0]
            assert b.grad(grads).to_data().to_list() == [1.0, 2.0]
            assert not l2._node.consumed  # the loser's own steps were left as they were
        else:
            assert a.grad(grads).to_data().to_list() == [6.0, 8.0]
            assert b.grad(grads).to_data().to_list() == [5.0, 7.0]
            assert not l1._node.consumed


def test_gradients_handed_to_another_thread():
    leaves = _shared_leaves()
    x = _inputs(0)
    handoff: "queue.Queue" = queue.Queue()
    done = threading.Event()

    def producer():
        handoff.put(_loss(leaves, x).backward())
        done.set()

    t = threading.Thread(target=producer)
    t.start()
    t.join(timeout=30)
    assert done.is_set()
    grads = handoff.get_nowait()
    assert len(grads) == 3

    read = {}

    def consumer():
        read["grad"] = [p.grad(grads).to_torch().clone() for p in leaves]
        read["removed"] = leaves[0].grad_remove(grads)
        read["len"] = len(grads)

    t = threading.Thread(target=consumer)
    t.start()
    t.join(timeout=30)
    ref = _loss(leaves, x).backward()
    for got, p in zip(read["grad"], leaves):
        assert torch.equal(got, p.grad(ref).to_torch())
    assert read["len"] == 2
    assert torch.equal(read["removed"].to_torch(), leaves[0].grad(ref).to_torch())
    assert leaves[0].grad(grads) is None  # removed in the other thread, seen here
