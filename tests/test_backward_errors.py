"""Errors inside backward: a failing rule is reported with its op, step and shapes; the graph is
then consumed whole; a pass interrupted before its steps are claimed leaves the graph untouched;
debug mode names the source line that recorded a failing or non-finite step."""
import os
import subprocess
import sys

import pytest
import torch

from burn_torch import GraphConsumedError, Tensor, debug_mode
from burn_torch.autodiff import checkpoint, debug, graph, hooks, recorder
from burn_torch.ops import elementwise as elementwise_ops
from helpers import AD


def _leaf(values=(1.0, 2.0)):
    return Tensor.from_floats(list(values), AD).require_grad()


@pytest.fixture
def failing_exp(monkeypatch):
    def boom(g, s):
        raise RuntimeError("rule failed")

    monkeypatch.setattr(elementwise_ops.EXP, "rules", (boom,))


def test_a_failing_rule_is_reported_with_op_step_and_shapes(failing_exp):
    y = _leaf().exp().sum()
    with pytest.raises(RuntimeError) as err:
        y.backward()
    assert str(err.value) == "rule failed"  # the rule's own message, untouched
    [note] = err.value.__notes__
    assert note.startswith("in backward of exp (step #")
    assert note.endswith("output gradient [2] torch.float32; input shapes: [2]")


def test_after_a_failing_rule_the_graph_is_consumed_whole(failing_exp):
    x = _leaf()
    h = x.sin()
    y = h.exp().sum()
    with pytest.raises(RuntimeError):
        y.backward()
    with pytest.raises(GraphConsumedError):
        y.backward()
    with pytest.raises(GraphConsumedError):
        h.sum().backward()  # the sin step below the failure was consumed too
    assert x.grad((x * x).sum().backward()) is not None  # leaves stay usable


def test_the_error_type_of_a_failing_rule_is_kept(monkeypatch):
    def bad(g, s):
        raise ValueError("bad value")

    monkeypatch.setattr(elementwise_ops.EXP, "rules", (bad,))
    with pytest.raises(ValueError, match="bad value") as err:
        _leaf().exp().sum().backward()
    assert type(err.value) is ValueError


def test_an_out_of_memory_error_in_a_rule_is_caught_as_torch_out_of_memory_error(monkeypatch):
    def out_of_memory(g, s):
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

    monkeypatch.setattr(elementwise_ops.EXP, "rules", (out_of_memory,))
    y = _leaf().exp().sum()
    try:
        y.backward()
    except torch.OutOfMemoryError as e:  # what a training loop that halves its batch writes
        caught = e
    assert type(caught) is torch.OutOfMemoryError
    assert str(caught) == "CUDA out of memory. Tried to allocate 2.00 GiB"
    assert caught.__notes__[0].startswith("in backward of exp (step #")


class ShardLost(Exception):
    """A user's error class whose constructor takes other arguments than a message."""

    def __init__(self, shard: int, retries: int) -> None:
        super().__init__(f"shard {shard} lost after {retries} retries")
        self.shard, self.retries = shard, retries


def test_a_user_error_class_raised_by_a_fused_rule_keeps_its_class_and_attributes(monkeypatch):
    def lost(g, s, parents):
        raise ShardLost(3, retries=2)

    monkeypatch.setattr(elementwise_ops.MUL, "fused", lost)
    monkeypatch.setattr(elementwise_ops.MUL, "rules", None)
    x = _leaf()
    with pytest.raises(ShardLost) as err:
        (x * x).sum().backward()
    assert (err.value.shard, err.value.retries) == (3, 2)
    assert "in backward of mul (step #" in err.value.__notes__[0]


def test_an_interruption_before_the_claim_completes_leaves_the_graph_untouched():
    class Interrupting(hooks.BackwardHook):
        def check(self, nodes):
            raise KeyboardInterrupt

    x = _leaf()
    y = (x * x).sum()
    unregister = hooks.register(lambda root, seed: Interrupting())
    try:
        with pytest.raises(KeyboardInterrupt):
            y.backward()
    finally:
        unregister()
    assert x.grad(y.backward()).to_data().to_list() == [2.0, 4.0]


def test_an_interruption_while_steps_are_marked_unmarks_them(monkeypatch):
    x = _leaf()
    y = (x.sin() * x).sum()
    steps = _steps(y)
    marks = []

    def interrupt_at_second_mark(node, name, value):
        if name == "consumed" and value:  # a mark (any truthy value)
            marks.append(node)
            if len(marks) == 2:
                raise KeyboardInterrupt
        object.__setattr__(node, name, value)

    monkeypatch.setattr(graph.Node, "__setattr__", interrupt_at_second_mark, raising=False)
    with pytest.raises(KeyboardInterrupt):
        y.backward()
    monkeypatch.undo()
    assert len(marks) == 2 and not any(n.consumed for n in steps)
    assert x.grad(y.backward()) is not None


def _steps(t):
    """The recorded steps reachable from ``t``."""
    seen, stack, out = set(), [t._node], []
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        if n.op is not None:
            out.append(n)
        stack.extend(n.parents or ())
    return out


# ================================================================================ debug mode ====
def test_debug_mode_names_the_op_and_line_of_a_non_finite_gradient():
    with debug_mode():
        x = Tensor.from_floats([0.0, 4.0], AD).require_grad()
        y = x.sqrt().sum()  # d sqrt / dx is infinite at 0
        with pytest.raises(FloatingPointError) as err:
            y.backward()
    message = str(err.value)
    assert "backward of sqrt" in message and "an infinity" in message
    assert f"{os.path.basename(__file__)}:" in message and "y = x.sqrt().sum()" in message


def test_without_debug_mode_a_non_finite_gradient_is_returned():
    x = Tensor.from_floats([0.0, 4.0], AD).require_grad()
    g = x.grad(x.sqrt().sum().backward()).to_torch()
    assert torch.isinf(g[0]) and g[1] == 0.25


def test_debug_mode_names_the_line_that_recorded_a_failing_step(failing_exp):
    with debug_mode():
        y = _leaf().exp().sum()  # the recorded line
        with pytest.raises(RuntimeError, match=r"recorded at .*y = _leaf\(\)\.exp\(\)\.sum\(\)"):
            y.backward()


def test_debug_mode_costs_nothing_when_off():
    with debug_mode():
        assert recorder.NodeClass is debug.DebugNode and debug.is_enabled()
    assert recorder.NodeClass is graph.Node and checkpoint.NodeClass is graph.Node
    assert not debug.is_enabled() and debug._unregister is None


def test_debug_mode_is_turned_on_by_the_environment():
    code = "import burn_torch.autodiff.debug as d; print(d.is_enabled())"
    env = {**os.environ, "BURN_TORCH_DEBUG": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "True"
