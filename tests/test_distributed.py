"""Distributed backward on torch.distributed: marking, gradient sync, rejection, the launcher.

Marking and the rejections that need no process group run in this process. Everything else
runs in real process groups on loopback (gloo, 127.0.0.1, a fresh port per launch): this file
is also the worker script (``python tests/test_distributed.py SCENARIO OUT``, with torchrun's
environment variables set per rank), and the ``launches`` fixture starts every launch at once,
bounded by a timeout, killing whatever is left. Each worker saves what it observed to
``OUT/SCENARIO-RANK.pt``; the tests compare that with single-process runs computed here.
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from burn_torch import Device, DistributedError, Tensor, distributed as dist, nn
from burn_torch.autodiff.distributed_leaf import carry_mark
from burn_torch.module import Module, Param, ParamId
from burn_torch.optim import GradientsParams, MomentumConfig, SgdConfig

# launches several processes against a deadline: ./scripts/test runs it after the parallel pass,
# alone, so another pytest-xdist worker cannot starve its ranks
pytestmark = pytest.mark.serial

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = int(os.environ.get("BURN_TORCH_DIST_TIMEOUT", "90"))  # seconds for all launches together
GROUP_TIMEOUT = 20  # seconds a collective waits for a missing rank
BATCH = 12  # splits into 2 and 3 equal shares
STEPS = 20
DIES_AT = 3  # the training step before which rank 1 of the "dies" launch exits
DEAD_EXIT = 17

# ============================================================== shared by workers and tests ====
rng = np.random.default_rng(0)
X = rng.standard_normal((BATCH, 3)).astype(np.float32)
Y = rng.standard_normal((BATCH, 2)).astype(np.float32)
A0 = (0.5 * rng.standard_normal((3, 3))).astype(np.float32)
B0 = rng.standard_normal((2, 2)).astype(np.float32)
C0 = rng.standard_normal((2,)).astype(np.float32)
UNEVEN_X = rng.standard_normal((3, 2, 3)).astype(np.float32)  # one 2x3 input per rank (up to 3)


class Net(Module):
    def __init__(self, device: Device, seed: int) -> None:
        super().__init__()
        device.seed(seed)
        self.fc1 = nn.LinearConfig(3, 5).init(device)
        self.fc2 = nn.LinearConfig(5, 2).init(device)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc2.forward(nn.tanh(self.fc1.forward(x)))


def mse(model: Net, x, y, device: Device) -> Tensor:
    out = model.forward(Tensor.from_data(x, device))
    return (out - Tensor.from_data(y, device)).powf_scalar(2.0).mean()


def train(model: Net, device: Device, distributed: bool) -> Net:
    """STEPS steps of SGD with momentum; ``distributed``: each rank on its share of each batch."""
    optim = SgdConfig(momentum=MomentumConfig()).init()
    for step in range(STEPS):
        x, y = np.roll(X, step, 0), np.roll(Y, step, 0)  # a different batch order each step
        if distributed:
            x, y = dist.shard(x), dist.shard(y)
        grads = mse(model, x, y, device).backward()
        model = optim.step(0.05, model, GradientsParams.from_grads(grads, model))  # stays marked
    return model


def uneven_loss(rank: int, a: Tensor, b: Tensor) -> Tensor:
    """Rank ``rank`` uses ``a`` rank+1 times; only rank 0 uses ``b``."""
    out = Tensor.from_data(UNEVEN_X[rank], a.device())
    for _ in range(rank + 1):
        out = out.matmul(a).tanh()
    loss = out.sum()
    return loss + b.powf_scalar(2.0).sum() if rank == 0 else loss


def weights(model: Module) -> dict[str, torch.Tensor]:
    return {name: p.val().to_torch().clone() for name, p in model.named_params()}


# ========================================================================== worker side ====
class Collectives:
    """Counts the collectives issued (wrapping torch.distributed's functions) and, for each
    float all-reduce, how many steps of ``graph`` were still to run when it was launched."""

    NAMES = ("all_reduce", "broadcast", "all_gather", "reduce_scatter", "barrier")

    def __init__(self) -> None:
        self.count = 0
        self.graph: list = []
        self.pending: list[int] = []
        for name in self.NAMES:
            setattr(torch.distributed, name, self._counting(getattr(torch.distributed, name)))

    def _counting(self, fn):
        def wrapped(*args, **kwargs):
            self.count += 1
            if fn.__name__ == "all_reduce" and args[0].is_floating_point():
                self.pending.append(sum(n.parents is not None for n in self.graph))
            return fn(*args, **kwargs)
        return wrapped


def steps_of(loss: Tensor) -> list:
    """The recorded steps (non-leaf nodes) ``loss`` depends on."""
    seen, stack = set(), [loss._node]
    while stack:
        n = stack.pop()
        if n is not None and n not in seen and n.op is not None:
            seen.add(n)
            stack.extend(n.parents)
    return list(seen)


def scenario_gradients(device, rank, world, counter) -> dict:
    """One backward with one all-reduce per parameter (bucket cap 0), one with the default
    buckets (the whole small model in one bucket)."""
    model = dist.broadcast_module(Net(device, 0).train()).distributed()
    dist.set_bucket_cap_mb(0)
    loss = mse(model, dist.shard(X), dist.shard(Y), device)
    counter.graph = steps_of(loss)
    grads = loss.backward()
    counter.graph = []
    pending = counter.pending[:]
    dist.set_bucket_cap_mb(25)
    grads2 = mse(model, dist.shard(X), dist.shard(Y), device).backward()
    return {"grads": {name: p.val().grad(grads).to_torch() for name, p in model.named_params()},
            "pending": pending,
            "bucketed": {name: p.val().grad(grads2).to_torch() for name, p in model.named_params()},
            "bucketed_reduces": len(counter.pending) - len(pending)}


def scenario_uneven(device, rank, world) -> dict:
    a, b, c = (Tensor.from_data(v, device).require_grad().set_distributed(ParamId(i))
               for v, i in ((A0, 11), (B0, 12), (C0, 13)))
    grads = uneven_loss(rank, a, b).backward()
    return {"a": a.grad(grads).to_torch(), "b": b.grad(grads).to_torch(),
            "c_has_grad": c.grad(grads) is not None}


def scenario_disagree(device, rank, world) -> dict:
    w = Tensor.from_data(A0, device).require_grad().set_distributed(ParamId(100 + rank))
    try:
        (w * 2.0).sum().backward()
    except DistributedError as e:
        return {"error": str(e)}
    return {"error": None}


def scenario_mismatch(device, rank, world, counter) -> dict:
    w = Tensor.from_data(A0, device).require_grad().set_distributed(ParamId(7))
    loss = (w.to_device(Device("meta").autodiff()) * 2.0).sum()  # the loss on another backend
    before = counter.count
    try:
        loss.backward()
        error = None
    except DistributedError as e:
        error = str(e)
    issued = counter.count - before
    consumed = loss._node.consumed
    check = torch.tensor([float(rank + 1)])
    torch.distributed.all_reduce(check)  # the ranks' collectives still pair up
    return {"error": error, "issued": issued, "consumed": consumed, "check": check.item()}


def scenario_training(device, rank, world) -> dict:
    start = Net(device, rank).train()  # a different initialisation on every rank...
    model = dist.broadcast_module(start).distributed()  # ...replaced by rank 0's
    return {"weights": weights(train(model, device, distributed=True))}


def scenario_collectives(device, rank, world) -> dict:
    x = Tensor.from_floats([float(rank), 1.0], device)
    i = Tensor.from_ints([rank + 1], device)
    return {"sum": dist.all_reduce(x).to_data().to_list(),
            "mean": dist.all_reduce(x, "mean").to_data().to_list(),
            "max": dist.all_reduce(x, "max").to_data().to_list(),
            "int_sum": dist.all_reduce(i).to_data().to_list(),
            "gather": dist.all_gather(x).to_data().to_list(),
            "broadcast": dist.broadcast(x, src=world - 1).to_data().to_list(),
            "argument": x.to_data().to_list()}


def worker(scenario: str, out: Path) -> None:
    """One rank of a launch: runs ``scenario``, saves what it saw, exits without teardown."""
    torch.set_num_threads(1)
    device = dist.init(timeout=GROUP_TIMEOUT).autodiff()
    rank, world = dist.rank(), dist.world_size()
    result: dict = {}
    if scenario == "suite":
        counter = Collectives()
        result["gradients"] = scenario_gradients(device, rank, world, counter)
        result["uneven"] = scenario_uneven(device, rank, world)
        result["disagree"] = scenario_disagree(device, rank, world)
        result["mismatch"] = scenario_mismatch(device, rank, world, counter)
        result["training"] = scenario_training(device, rank, world)
        result["collectives"] = scenario_collectives(device, rank, world)
    elif scenario == "dies":
        model = dist.broadcast_module(Net(device, 0).train()).distributed()
        optim = SgdConfig().init()
        for step in range(STEPS):
            if rank == 1 and step == DIES_AT:
                os._exit(DEAD_EXIT)
            loss = mse(model, dist.shard(X), dist.shard(Y), device)
            start = time.monotonic()
            try:
                grads = loss.backward()
            except DistributedError as e:
                result = {"step": step, "error": str(e), "seconds": time.monotonic() - start}
                break
            model = optim.step(0.05, model, GradientsParams.from_grads(grads, model))
    torch.save(result, out / f"{scenario}-{rank}.pt")
    sys.stdout.flush()
    os._exit(0)


# ========================================================================== launch side ====
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def _start(args: list[str], world: int | None, out: Path) -> list[subprocess.Popen]:
    """Starts ``world`` ranks of ``args`` on a fresh loopback port (one process if None)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(_free_port()))
    env["PYTHONPATH"] = str(ROOT / "src")  # the ranks run this checkout's burn_torch
    ranks = [None] if world is None else range(world)
    procs = []
    for r in ranks:
        if r is not None:
            env = dict(env, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(world))
        procs.append(subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    return procs


@pytest.fixture(scope="module")
def launches(tmp_path_factory) -> dict:
    """Every launch, run at once: ``{name: {"codes": [...], "output": str, "results": {...}}}``."""
    out = tmp_path_factory.mktemp("ranks")
    me = [_python(), __file__]
    plan = {
        "suite-2": (me + ["suite", str(out / "2")], 2),
        "suite-3": (me + ["suite", str(out / "3")], 3),
        "dies-3": (me + ["dies", str(out / "dies")], 3),
        "torchrun": ([str(Path(_python()).parent / "torchrun"), "--nproc-per-node=2",
                      "--master-addr=127.0.0.1", f"--master-port={_free_port()}",
                      str(ROOT / "examples" / "ddp_train.py")], None),
    }
    for sub in ("2", "3", "dies"):
        (out / sub).mkdir()
    procs = {}
    try:
        for name, (args, world) in plan.items():
            procs[name] = _start(args, world, out)
        deadline = time.monotonic() + TIMEOUT
        for ps in procs.values():
            for p in ps:
                p.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        for ps in procs.values():
            for p in ps:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    found = {}
    for name, ps in procs.items():
        folder = out / {"suite-2": "2", "suite-3": "3", "dies-3": "dies"}.get(name, "")
        results = {int(f.stem.rsplit("-", 1)[1]): torch.load(f) for f in folder.glob("*-*.pt")}
        found[name] = {"codes": [p.returncode for p in ps],
                       "output": "".join(p.stdout.read() for p in ps), "results": results}
    return found


def _suite(launches, world: int) -> dict[int, dict]:
    run = launches[f"suite-{world}"]
    assert run["codes"] == [0] * world, run["output"]
    assert sorted(run["results"]) == list(range(world)), run["output"]
    return run["results"]


WORLDS = pytest.mark.parametrize("world", [2, 3])


def _cpu() -> Device:
    return Device.cpu().autodiff()


# ================================================================ multi-process behaviour ====
@WORLDS
def test_data_parallel_gradients_equal_the_full_batch_gradients(launches, world):
    device = _cpu()
    model = Net(device, 0).train()
    grads = mse(model, X, Y, device).backward()
    expected = {name: p.val().grad(grads).to_torch() for name, p in model.named_params()}
    for rank, res in _suite(launches, world).items():
        got = res["gradients"]["grads"]
        assert got.keys() == expected.keys()
        for name in expected:
            diff = (got[name] - expected[name]).abs().max().item()
            assert diff <= 1e-6, f"rank {rank}, {name}: off by {diff}"


@WORLDS
def test_bucketed_gradients_equal_per_parameter_ones_in_one_all_reduce(launches, world):
    for rank, res in _suite(launches, world).items():
        got = res["gradients"]
        assert got["bucketed_reduces"] == 1, f"rank {rank}: {got['bucketed_reduces']} all-reduces"
        for name, g in got["grads"].items():
            # gloo sums a long buffer in chunks: the order of the three ranks' terms may differ
            diff = (got["bucketed"][name] - g).abs().max().item()
            assert diff <= 1e-6, f"rank {rank}, {name}: off by {diff}"


def test_buckets_group_consecutive_parameters_up_to_the_cap_by_dtype():
    from burn_torch.distributed.sync import buckets

    class L:
        def __init__(self, n, dtype=torch.float32):
            self.shape, self.dtype = torch.Size([n]), dtype
    leaves = [L(10), L(10), L(30), L(5, torch.float64), L(5, torch.float64), L(100)]
    assert buckets(leaves, 80) == [[0, 1], [2], [3, 4], [5]]
    assert buckets(leaves, 0) == [[0], [1], [2], [3], [4], [5]]


def test_set_bucket_cap_mb_rejects_bad_values():
    with pytest.raises(TypeError):
        dist.set_bucket_cap_mb("25")
    with pytest.raises(ValueError):
        dist.set_bucket_cap_mb(-1)
    assert dist.bucket_cap_mb() == 25


@WORLDS
def test_each_all_reduce_starts_while_backward_is_still_running(launches, world):
    """With one all-reduce per parameter (bucket cap 0)."""
    for res in _suite(launches, world).values():
        pending = res["gradients"]["pending"]
        # fc2's weight and bias launch once fc2's step has run, while tanh and fc1 still have to
        assert pending == [2, 2, 0, 0]


@WORLDS
def test_parameters_reached_unevenly_across_ranks_sync_to_the_average(launches, world):
    device = _cpu()
    local = []
    for rank in range(world):
        a, b = (Tensor.from_data(v, device).require_grad() for v in (A0, B0))
        grads = uneven_loss(rank, a, b).backward()
        gb = b.grad(grads)
        local.append((a.grad(grads).to_torch(), torch.zeros(2, 2) if gb is None else gb.to_torch()))
    mean_a = sum(g for g, _ in local) / world
    mean_b = sum(g for _, g in local) / world
    for rank, res in _suite(launches, world).items():
        got = res["uneven"]
        assert (got["a"] - mean_a).abs().max().item() <= 1e-6, rank
        assert (got["b"] - mean_b).abs().max().item() <= 1e-6, rank


@WORLDS
def test_a_parameter_no_rank_reached_gets_no_gradient(launches, world):
    assert [res["uneven"]["c_has_grad"] for res in _suite(launches, world).values()] == [False] * world


@WORLDS
def test_ranks_marking_different_parameters_all_raise(launches, world):
    for res in _suite(launches, world).values():
        assert "the ranks disagree on the distributed parameters" in res["disagree"]["error"]


@WORLDS
def test_backend_mismatch_raises_on_every_rank_before_any_collective(launches, world):
    for rank, res in _suite(launches, world).items():
        got = res["mismatch"]
        assert got["error"] is not None, rank
        assert "is on the cpu backend but the loss is on the meta backend" in got["error"]
        assert got["issued"] == 0 and got["consumed"] is False
        assert got["check"] == world * (world + 1) / 2  # the group is still in step


@WORLDS
def test_training_ends_on_the_same_weights_everywhere_and_as_in_one_process(launches, world):
    device = _cpu()
    expected = weights(train(Net(device, 0).train(), device, distributed=False))
    results = _suite(launches, world)
    first = results[0]["training"]["weights"]
    for rank, res in results.items():
        got = res["training"]["weights"]
        assert all(torch.equal(got[n], first[n]) for n in first), f"rank {rank} differs from rank 0"
    for name in expected:
        diff = (first[name] - expected[name]).abs().max().item()
        assert diff <= 1e-5, f"{name}: off by {diff}"


def test_a_rank_that_dies_makes_the_others_fail_with_a_clear_error(launches):
    run = launches["dies-3"]
    assert run["codes"][1] == DEAD_EXIT and run["codes"][0] == run["codes"][2] == 0, run["output"]
    for rank in (0, 2):
        res = run["results"][rank]
        assert res["step"] == DIES_AT
        assert res["error"].startswith(f"rank {rank} failed while ")
        assert "Another rank probably crashed, stopped or timed out" in res["error"]
        assert res["seconds"] < GROUP_TIMEOUT + 5  # a dead peer is noticed, not waited for forever


def test_the_example_trains_under_torchrun(launches):
    run = launches["torchrun"]
    assert run["codes"] == [0], run["output"]
    assert "2 process(es), 24 of 48 points per rank and step" in run["output"]
    assert "OK: all 2 ranks hold the same weights" in run["output"]


# ============================================================== marking, in this process ====
def test_set_distributed_marks_a_new_handle_on_the_same_leaf():
    w = Tensor.ones([2], _cpu()).require_grad()
    marked = w.set_distributed(ParamId(5))
    assert marked.is_distributed() and not w.is_distributed()
    assert marked.is_require_grad() and marked._node.id == w._node.id
    assert marked.set_distributed(ParamId(5)) is marked


def test_set_distributed_accepts_an_int_id():
    w = Tensor.ones([2], _cpu()).require_grad().set_distributed(5)
    assert w._node.param_id == ParamId(5)


def test_set_distributed_is_a_no_op_without_autodiff_or_tracking():
    plain = Tensor.ones([2], Device.cpu())
    untracked = Tensor.ones([2], _cpu())
    assert plain.set_distributed(ParamId(1)) is plain and not plain.is_distributed()
    assert untracked.set_distributed(ParamId(1)) is untracked and not untracked.is_distributed()


def test_set_distributed_on_an_intermediate_raises():
    y = Tensor.ones([2], _cpu()).require_grad() * 2.0
    with pytest.raises(DistributedError, match="tracked intermediate"):
        y.set_distributed(ParamId(1))


def test_set_distributed_needs_a_float_tensor_and_a_param_id():
    with pytest.raises(TypeError, match="needs a Float tensor"):
        Tensor.from_ints([1], _cpu()).set_distributed(ParamId(1))
    with pytest.raises(TypeError, match="expects a ParamId"):
        Tensor.ones([2], _cpu()).require_grad().set_distributed("w")


def test_clone_keeps_the_mark_and_detach_drops_it():
    w = Tensor.ones([2], _cpu()).require_grad().set_distributed(ParamId(1))
    assert w.clone().is_distributed()
    assert not w.detach().is_distributed() and w.detach().is_require_grad()
    assert not w.set_require_grad(False).is_distributed()


def test_module_distributed_marks_each_trainable_parameter_under_its_own_id():
    model = Net(_cpu(), 0).train()
    model.fc1 = model.fc1.no_grad()
    marked = model.distributed()
    for (name, before), (_, after) in zip(model.named_params(), marked.named_params()):
        assert after.id == before.id
        assert after.is_distributed() == name.startswith("fc2"), name
        if after.is_distributed():
            assert after.val()._node.param_id == before.id and after.val()._node.name == name


def test_module_distributed_syncs_the_last_parameters_first():
    marked = Net(_cpu(), 0).train().distributed()
    orders = [p.val()._node.order for p in marked.params()]
    assert orders == sorted(orders, reverse=True)


def test_module_distributed_marks_a_shared_parameter_once():
    model = Net(_cpu(), 0).train()
    model.tied = [model.fc1.weight, model.fc1.weight]
    marked = model.distributed()
    assert marked.tied[0].val()._node is marked.tied[1].val()._node is marked.fc1.weight.val()._node


def test_param_distributed_marks_its_tensor_under_its_id():
    p = Param(Tensor.ones([2], _cpu()))
    assert p.distributed().is_distributed() and p.distributed().val()._node.param_id == p.id
    ints = Param(Tensor.from_ints([1], _cpu()))
    assert ints.distributed() is ints


def test_module_without_autodiff_is_left_unmarked():
    model = Net(Device.cpu(), 0)
    assert not any(p.is_distributed() for p in model.distributed().params())


def test_carry_mark_marks_a_replacement_as_the_original():
    marked = Net(_cpu(), 0).train().distributed().fc2.weight.val()
    fresh = Tensor.ones([5, 2], _cpu()).require_grad()
    node = carry_mark(marked, fresh)._node
    assert (node.param_id, node.order, node.name) == (marked._node.param_id, -2, "fc2.weight")
    assert carry_mark(marked, fresh, ParamId(9))._node.param_id == ParamId(9)
    assert carry_mark(fresh, marked) is marked


def test_broadcast_module_without_a_process_group_returns_the_module():
    model = Net(_cpu(), 0)
    assert dist.broadcast_module(model) is model


# ============================================================ rejection, in this process ====
def test_backward_without_a_process_group_raises_before_consuming_anything():
    w = Tensor.ones([2], _cpu()).require_grad().set_distributed(ParamId(3))
    loss = (w * 2.0).sum()
    with pytest.raises(DistributedError, match=r"parameter ParamId\(0000000000000003\) is marked "
                                               "distributed but no torch.distributed process group"):
        loss.backward()
    assert not loss._node.consumed


def test_backend_mismatch_names_the_parameter_and_both_backends():
    marked = Net(_cpu(), 0).train().distributed()
    loss = marked.fc1.forward(Tensor.ones([1, 3], _cpu())).to_device(Device("meta")).sum()
    with pytest.raises(DistributedError, match="parameter fc1.bias is on the cpu backend but the "
                                               "loss is on the meta backend"):
        loss.backward()
    assert not loss._node.consumed


def test_a_parameter_reached_through_marked_and_unmarked_handles_raises():
    w = Tensor.ones([2], _cpu()).require_grad()
    loss = (w * w.set_distributed(ParamId(4))).sum()
    with pytest.raises(DistributedError, match="through two different leaves"):
        loss.backward()


def test_a_graph_without_distributed_leaves_needs_no_process_group():
    marked = Tensor.ones([2], _cpu()).require_grad().set_distributed(ParamId(6))  # alive, unused
    x = Tensor.from_floats([1.0, 2.0], _cpu()).require_grad()
    assert x.grad((x * x).sum().backward()).to_data().to_list() == [2.0, 4.0]
    assert marked.is_distributed()


# ======================================================================= process helpers ====
def test_without_a_process_group_the_world_is_one_process():
    assert (dist.is_initialized(), dist.rank(), dist.world_size()) == (False, 0, 1)
    dist.barrier()  # returns at once


@WORLDS
def test_collectives_return_the_reduction_over_ranks_and_leave_the_argument(launches, world):
    ranks = range(world)
    for rank, res in _suite(launches, world).items():
        got = res["collectives"]
        assert got["sum"] == [float(sum(ranks)), float(world)]
        assert got["mean"] == [sum(ranks) / world, 1.0]
        assert got["max"] == [float(world - 1), 1.0]
        assert got["int_sum"] == [sum(r + 1 for r in ranks)]
        assert got["gather"] == [v for r in ranks for v in (float(r), 1.0)]
        assert got["broadcast"] == [float(world - 1), 1.0]
        assert got["argument"] == [float(rank), 1.0], "a collective changed its argument"


def test_collectives_without_a_process_group_return_a_copy():
    x = Tensor.from_floats([1.0, 2.0], _cpu()).require_grad()
    for out in (dist.all_reduce(x), dist.all_reduce(x, "mean"), dist.all_gather(x), dist.broadcast(x)):
        assert out.to_data().to_list() == [1.0, 2.0] and not out.is_tracked()
    with pytest.raises(ValueError, match="op must be one of sum, max, min, product, mean"):
        dist.all_reduce(x, "avg")
    with pytest.raises(TypeError, match="all_reduce expects a burn_torch Tensor, got torch.Tensor"):
        dist.all_reduce(torch.zeros(2))


def test_shard_takes_the_ranks_equal_contiguous_part():
    assert dist.shard(list(range(6)), rank=1, world_size=3) == [2, 3]
    assert dist.shard(np.arange(6), rank=2, world_size=3).tolist() == [4, 5]
    t = dist.shard(Tensor.from_floats([[1.0], [2.0], [3.0], [4.0]], Device.cpu()), rank=0, world_size=2)
    assert t.to_data().to_list() == [[1.0], [2.0]]
    with pytest.raises(ValueError, match="does not split into 4 equal shares"):
        dist.shard(list(range(6)), rank=0, world_size=4)


def test_shard_sampler_gives_disjoint_equal_shares_padded_to_cover_everything():
    shares = [list(dist.ShardSampler(10, seed=3, rank=r, world_size=3)) for r in range(3)]
    assert [len(s) for s in shares] == [4, 4, 4]
    flat = sum(shares, [])
    assert set(flat) == set(range(10)) and len(flat) == 12


def test_shard_sampler_drop_last_and_epochs():
    s = dist.ShardSampler(10, rank=0, world_size=3, drop_last=True)
    first = list(s)
    s.set_epoch(1)
    assert len(first) == len(s) == 3 and list(s) != first
    assert list(dist.ShardSampler(5, shuffle=False, rank=1, world_size=2)) == [1, 3, 0]


if __name__ == "__main__":
    worker(sys.argv[1], Path(sys.argv[2]))


def test_an_optimizer_step_keeps_each_parameter_distributed_under_its_id():
    plain = Net(_cpu(), 0).train()
    grads = mse(plain, X[:4], Y[:4], _cpu()).backward()  # no process group: back-propagate unmarked
    model = plain.distributed()
    stepped = SgdConfig().init().step(0.05, model, GradientsParams.from_grads(grads, model))
    for (name, before), (_, after) in zip(model.named_params(), stepped.named_params()):
        assert after.is_distributed(), name
        assert after.val()._node.param_id == before.val()._node.param_id
