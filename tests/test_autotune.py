"""Kernel autotuning (``burn_torch.autotune``, the op table's ``ops/tuning.py``) as a
specification: every candidate kernel of every tunable op computes the op (each forced in turn,
gradients against torch autograd), max pooling's candidates agree bit for bit, a choice is made
once per key and is the fastest (torch's default on a near tie), tuning runs nothing that a
capture recording or a user's torch mode can see, and the cache saves, loads and switches off."""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time

import pytest
import torch
import torch.nn.functional as tf
from torch.overrides import TorchFunctionMode

from burn_torch import Device, Tensor, autotune, module_ops
from burn_torch.capture import capture
from burn_torch.ops import conv, nn as nn_ops, pool, tuning

CPU = Device.cpu()
AD = CPU.autodiff()
CONV = module_ops.ConvOptions(stride=[1, 1], padding=[1, 1], dilation=[1, 1], groups=1)
STRIDED = module_ops.ConvOptions(stride=[2, 1], padding=[0, 2], dilation=[1, 1], groups=1)


@pytest.fixture
def fresh_cache():
    """Every tunable's cache saved, cleared for the test, restored after (tuning on)."""
    saved = {t.name: dict(t.cache) for t in tuning.TUNABLES.values()}
    was = autotune.enabled()
    autotune.clear()
    autotune.set_enabled(True)
    yield
    autotune.set_enabled(was)
    for t in tuning.TUNABLES.values():
        t.cache.clear()
        t.cache.update(saved[t.name])


@pytest.fixture
def make_tunable():
    """Builds throwaway tunables, removed from the registry after the test."""
    made = []

    def make(candidates):
        t = tuning.Tunable(f"test_tunable_{len(made)}", candidates)
        made.append(t)
        return t

    yield make
    for t in made:
        del tuning.TUNABLES[t.name]


class _Always(dict):
    """A cache that answers every key with one candidate."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index

    def get(self, key, default=None):
        return self.index


@contextlib.contextmanager
def pinned(choices: dict):
    """While the block runs, each tunable of ``choices`` (tunable → candidate index) runs that
    candidate for every key; their caches are restored after."""
    saved = {t: t.cache for t in choices}
    try:
        for t, index in choices.items():
            t.cache = _Always(index)
        yield
    finally:
        for t, cache in saved.items():
            t.cache = cache


def _assert_agrees(out, ref, grads, pairs) -> None:
    """Our output equals torch's ``ref`` and each (our leaf, torch leaf) pair's gradients agree,
    within float32 rounding."""
    torch.testing.assert_close(out.to_torch(), ref.detach(), rtol=1e-5, atol=1e-5)
    for ours, theirs in pairs:
        torch.testing.assert_close(ours.grad(grads).to_torch(), theirs.grad, rtol=1e-4, atol=1e-4)


def _conv_case(options, bias=True, seed=0):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(3, 4, 9, 8, generator=gen)
    w = torch.randn(5, 4, 3, 3, generator=gen) / 6
    b = torch.randn(5, generator=gen) if bias else None
    return x, w, b


@pytest.mark.parametrize("options", [CONV, STRIDED], ids=["padded", "strided"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
@pytest.mark.parametrize("forward", [0, 1], ids=["fwd_convolution", "fwd_slow_conv2d"])
@pytest.mark.parametrize("backward", [0, 1], ids=["bwd_convolution", "bwd_slow_conv2d"])
def test_every_conv2d_kernel_pair_gives_torchs_values_and_gradients(options, bias, forward,
                                                                   backward):
    x, w, b = _conv_case(options, bias)
    bx = Tensor.from_data(x, AD).require_grad()
    bw = Tensor.from_data(w, AD).require_grad()
    bb = None if b is None else Tensor.from_data(b, AD).require_grad()
    with pinned({conv.CONV_KERNELS: forward, conv.CONV_BACKWARD_KERNELS: backward}), \
            _Calls() as seen:
        out = module_ops.conv2d(bx, bw, bb, options)
        grads = (out * out).sum().backward()
    ran = {n for n in seen.names if "conv" in n}
    assert ran == {("convolution", "_slow_conv2d_forward.default")[forward],
                   ("convolution_backward.default", "_slow_conv2d_backward.output_mask")[backward]}
    tx, tw = x.clone().requires_grad_(), w.clone().requires_grad_()
    tb = None if b is None else b.clone().requires_grad_()
    ref = tf.conv2d(tx, tw, tb, stride=list(options.stride), padding=list(options.padding))
    (ref * ref).sum().backward()
    _assert_agrees(out, ref, grads, ((bx, tx), (bw, tw)) + (((bb, tb),) if bias else ()))


@pytest.mark.parametrize("forward", [0, 1], ids=["fwd_convolution", "fwd_slow_conv2d"])
@pytest.mark.parametrize("backward", [0, 1], ids=["bwd_convolution", "bwd_slow_conv2d"])
def test_every_conv2d_kernel_pair_takes_a_channels_last_input_with_asymmetric_padding(forward,
                                                                                      backward):
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 9, 7, generator=gen).contiguous(memory_format=torch.channels_last)
    w, b = torch.randn(4, 3, 3, 2, generator=gen), torch.randn(4, generator=gen)
    options = module_ops.PaddedConvOptions.asymmetric(stride=[2, 1], padding_start=[1, 0],
                                                      padding_end=[2, 1], dilation=[1, 1],
                                                      groups=1)
    bx, bw, bb = (Tensor.from_data(t, AD).require_grad() for t in (x, w, b))
    with pinned({conv.CONV_KERNELS: forward, conv.CONV_BACKWARD_KERNELS: backward}):
        out = module_ops.conv2d(bx, bw, bb, options)
        grads = (out * out).sum().backward()
    tx, tw, tb = (t.clone().requires_grad_() for t in (x, w, b))
    ref = tf.conv2d(tf.pad(tx, (0, 1, 1, 2)), tw, tb, stride=(2, 1))
    (ref * ref).sum().backward()
    _assert_agrees(out, ref, grads, ((bx, tx), (bw, tw), (bb, tb)))


@pytest.mark.parametrize("stride, padding", [(1, 1), (3, 0)], ids=["padded", "strided"])
@pytest.mark.parametrize("forward", [0, 1], ids=["fwd_convolution", "fwd_slow_conv2d"])
@pytest.mark.parametrize("backward", [0, 1], ids=["bwd_convolution", "bwd_slow_conv2d"])
def test_every_conv1d_kernel_pair_gives_torchs_values_and_gradients(stride, padding, forward,
                                                                   backward):
    gen = torch.Generator().manual_seed(1)
    x, w, b = (torch.randn(3, 4, 17, generator=gen), torch.randn(5, 4, 3, generator=gen) / 4,
               torch.randn(5, generator=gen))
    options = module_ops.ConvOptions(stride=[stride], padding=[padding], dilation=[1], groups=1)
    bx, bw, bb = (Tensor.from_data(t, AD).require_grad() for t in (x, w, b))
    with pinned({conv.CONV_KERNELS: forward, conv.CONV_BACKWARD_KERNELS: backward}):
        out = module_ops.conv1d(bx, bw, bb, options)
        grads = (out * out).sum().backward()
    tx, tw, tb = (t.clone().requires_grad_() for t in (x, w, b))
    ref = tf.conv1d(tx, tw, tb, stride=stride, padding=padding)
    (ref * ref).sum().backward()
    _assert_agrees(out, ref, grads, ((bx, tx), (bw, tw), (bb, tb)))


@pytest.mark.parametrize("index", [0, 1], ids=["linear", "contiguous"])
def test_both_linear_kernels_for_a_non_contiguous_input_give_torchs_values_and_gradients(index):
    gen = torch.Generator().manual_seed(6)
    x = torch.randn(7, 3, 5, generator=gen).transpose(0, 1)  # [3, 7, 5], batch-first view
    w, b = torch.randn(5, 4, generator=gen), torch.randn(4, generator=gen)
    bx, bw, bb = (Tensor.from_data(t, AD).require_grad() for t in (x, w, b))
    with pinned({nn_ops.LINEAR_STRIDED_KERNELS: index}), _Calls() as seen:
        out = module_ops.linear(bx, bw, bb)
    grads = (out * out).sum().backward()
    assert ("contiguous" in seen.names) == (index == 1)
    tx, tw, tb = (t.clone().requires_grad_() for t in (x, w, b))
    ref = tf.linear(tx, tw.t(), tb)
    (ref * ref).sum().backward()
    _assert_agrees(out, ref, grads, ((bx, tx), (bw, tw), (bb, tb)))


@pytest.mark.parametrize("mask", [(True, True, True), (False, True, True), (True, False, False),
                                  (False, True, False)])
def test_the_conv2d_backward_kernels_compute_the_same_gradients_for_every_output_mask(mask):
    x, w, _ = _conv_case(CONV)
    g = torch.randn(3, 5, 9, 8).transpose(2, 3).contiguous().transpose(2, 3)  # not contiguous
    bias_shape = [5] if mask[2] else None
    a = conv._conv_backward_default(g, x, w, bias_shape, (1, 1), (1, 1), list(mask))
    b = conv._conv_backward_slow(g, x, w, bias_shape, (1, 1), (1, 1), list(mask))
    for wanted, u, v in zip(mask, a, b):
        assert (u is not None) == wanted and (v is not None) == wanted
        if wanted:
            torch.testing.assert_close(u, v, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("window", [((2, 2), (2, 2), (0, 0), (1, 1), False),
                                    ((3, 3), (2, 2), (1, 1), (1, 1), True),
                                    ((2, 3), (1, 2), (1, 0), (2, 1), False)],
                         ids=["2x2", "3x3_padded_ceil", "dilated"])
def test_both_max_pool2d_kernels_give_identical_values_and_indices_with_ties_and_nans(window):
    x = torch.randint(0, 3, (2, 5, 9, 10)).float()  # many ties inside every window
    x[0, 1, 2, 3] = float("nan")
    x[1, 4, 0, 0] = float("-inf")
    out_a, idx_a = pool._max_pool2d(x, *window)
    out_b, idx_b = pool._max_pool2d_channels_last(x, *window)
    assert torch.equal(idx_a, idx_b)
    assert torch.equal(out_a.nan_to_num(7.0), out_b.nan_to_num(7.0))
    assert out_b.is_contiguous() and idx_b.is_contiguous()


@pytest.mark.parametrize("window", [((2, 2), (2, 2), (0, 0), False, True),
                                    ((3, 3), (2, 1), (1, 1), True, False),
                                    ((3, 2), (1, 2), (1, 0), False, True)],
                         ids=["2x2", "3x3_padded_ceil_no_pad_count", "rectangular"])
def test_both_avg_pool2d_kernels_give_identical_values_and_gradients(window):
    gen = torch.Generator().manual_seed(2)
    x = torch.randn(2, 5, 9, 10, generator=gen)
    out_a = pool._avg_pool2d(x, *window)
    out_b = pool._avg_pool2d_channels_last(x, *window)
    assert torch.equal(out_a, out_b) and out_b.is_contiguous()
    g = torch.randn(out_a.shape, generator=gen)
    grad_a = pool._avg_pool2d_backward(g, x, *window)
    grad_b = pool._avg_pool2d_backward_channels_last(g, x, *window)
    assert torch.equal(grad_a, grad_b) and grad_b.is_contiguous()


@pytest.mark.parametrize("index", [0, 1], ids=["default", "channels_last"])
def test_1d_pools_run_the_tuned_2d_kernels_with_torchs_values_and_gradients(index):
    tunables = (pool.MAX_POOL2D_KERNELS, pool.AVG_POOL2D_KERNELS, pool.AVG_POOL2D_BACKWARD_KERNELS)
    x = torch.randn(2, 3, 11, generator=torch.Generator().manual_seed(5))
    bx = Tensor.from_data(x, AD).require_grad()
    with pinned(dict.fromkeys(tunables, index)):
        out = (module_ops.max_pool1d(bx, 3, 2, 1, 1) * 2 + module_ops.avg_pool1d(bx, 3, 2, 1, True))
        grads = (out * out).sum().backward()
    tx = x.clone().requires_grad_()
    ref = tf.max_pool1d(tx, 3, 2, 1) * 2 + tf.avg_pool1d(tx, 3, 2, 1)
    (ref * ref).sum().backward()
    assert torch.equal(out.to_torch(), ref.detach())
    torch.testing.assert_close(bx.grad(grads).to_torch(), tx.grad, rtol=0, atol=1e-6)


def test_a_conv2d_whose_im2col_buffer_would_be_large_runs_torchs_default_untuned(fresh_cache,
                                                                                monkeypatch):
    x, w, b = _conv_case(CONV)  # im2col: 3 * 4 * 9 * 9 * 8 = 7776 elements
    args = (Tensor.from_data(x, CPU), Tensor.from_data(w, CPU), Tensor.from_data(b, CPU), CONV)
    monkeypatch.setattr(conv, "_MAX_COLUMNS", 7775)  # MAX_EXTRA_BYTES / 4
    module_ops.conv2d(*args)
    assert conv.CONV_KERNELS.cache == {}
    monkeypatch.setattr(conv, "_MAX_COLUMNS", 7776)
    module_ops.conv2d(*args)
    assert len(conv.CONV_KERNELS.cache) == 1


def test_a_pool_input_larger_than_the_memory_bound_runs_torchs_default_untuned(fresh_cache,
                                                                              monkeypatch):
    x = Tensor.from_data(torch.randn(2, 3, 8, 8), AD).require_grad()  # 1536 bytes
    monkeypatch.setattr(pool, "MAX_EXTRA_BYTES", 1535)
    out = module_ops.max_pool2d(x, [2, 2], [2, 2], [0, 0], [1, 1]) + module_ops.avg_pool2d(
        x, [2, 2], [2, 2], [0, 0], True)
    out.sum().backward()
    assert {k: v for k, v in autotune.choices().items() if "pool" in k} == {
        "max_pool2d": {}, "avg_pool2d": {}, "avg_pool2d_backward": {}}
    monkeypatch.setattr(pool, "MAX_EXTRA_BYTES", 1536)
    out = module_ops.max_pool2d(x, [2, 2], [2, 2], [0, 0], [1, 1]) + module_ops.avg_pool2d(
        x, [2, 2], [2, 2], [0, 0], True)
    out.sum().backward()
    assert all(len(autotune.choices()[k]) == 1
               for k in ("max_pool2d", "avg_pool2d", "avg_pool2d_backward"))


def test_similar_input_sizes_share_one_tuning(fresh_cache, monkeypatch):
    timed = []
    real = tuning._time
    monkeypatch.setattr(tuning, "_time", lambda k, a: timed.append(a[0].shape[-1]) or real(k, a))
    w = Tensor.from_data(torch.randn(5, 4, 3), CPU)
    options = module_ops.ConvOptions(stride=[1], padding=[1], dilation=[1], groups=1)
    for length in (100, 117, 128, 129, 200):  # 100..128 round up to 128, 129 and 200 to 256
        module_ops.conv1d(Tensor.from_data(torch.randn(2, 4, length), CPU), w, None, options)
    assert timed == [100, 129]
    assert tuning.anchored((1, 3, 5, 64, 65)) == (1, 4, 8, 64, 128)


def test_a_choice_is_made_once_per_key_and_reused(fresh_cache, make_tunable, monkeypatch):
    timed = []
    real = tuning._time
    monkeypatch.setattr(tuning, "_time", lambda k, a: timed.append(1) or real(k, a))
    t = make_tunable({"a": torch.neg, "b": torch.neg})
    x = torch.ones(3)
    for _ in range(3):
        t(("k1",), x)
    t(("k2",), x)
    assert len(timed) == 2 and set(t.cache) == {("k1",), ("k2",)}


def _sleeper(seconds):
    def kernel(x):
        time.sleep(seconds)
        return x + 1
    return kernel


def test_the_clearly_fastest_kernel_is_chosen(fresh_cache, make_tunable):
    t = make_tunable({"default": _sleeper(0.004), "fast": _sleeper(0.0)})
    assert torch.equal(t(("k",), torch.zeros(2)), torch.ones(2))
    assert autotune.choices()[t.name] == {("k",): "fast"}


def test_a_near_tie_keeps_torchs_default(fresh_cache, make_tunable):
    t = make_tunable({"default": _sleeper(0.004), "other": _sleeper(0.0038)})
    t(("k",), torch.zeros(2))
    assert autotune.choices()[t.name] == {("k",): "default"}


def test_a_candidate_that_raises_is_left_out_and_the_default_error_propagates(fresh_cache,
                                                                             make_tunable):
    def broken(x):
        raise RuntimeError("this kernel does not support it")

    t = make_tunable({"default": _sleeper(0.003), "broken": broken})
    t(("k",), torch.zeros(2))
    assert autotune.choices()[t.name] == {("k",): "default"}
    u = make_tunable({"default": broken, "fast": _sleeper(0.0)})
    with pytest.raises(RuntimeError, match="does not support"):
        u(("k",), torch.zeros(2))
    assert u.cache == {}


def test_a_chosen_kernel_that_cannot_run_falls_back_to_the_default_for_good(fresh_cache,
                                                                            make_tunable):
    calls = []

    def picky(x):
        calls.append("picky")
        if x.dim() == 2:
            raise RuntimeError("picky: 1-D only")
        return x + 1

    t = make_tunable({"default": lambda x: calls.append("default") or x + 1, "picky": picky})
    t.cache[("k",)] = 1  # as a loaded cache could say
    assert torch.equal(t(("k",), torch.zeros(2, 2)), torch.ones(2, 2))
    assert t(("k",), torch.zeros(2, 2)) is not None
    assert calls == ["picky", "default", "default"] and t.cache == {("k",): 0}


def test_switched_off_every_op_runs_torchs_default_and_keeps_the_cache(fresh_cache, make_tunable):
    t = make_tunable({"default": _sleeper(0.004), "fast": lambda x: x - 1})
    t(("k",), torch.zeros(1))
    autotune.set_enabled(False)
    assert t(("k",), torch.zeros(1)).item() == 1.0  # the default, though "fast" was chosen
    assert autotune.choices()[t.name] == {("k",): "fast"}


def test_set_enabled_rejects_a_non_bool():
    with pytest.raises(TypeError, match="bool"):
        autotune.set_enabled(1)


def test_the_environment_variable_switches_tuning_off_at_import():
    code = "import burn_torch; print(burn_torch.autotune.enabled())"
    env = {**os.environ, "BURN_TORCH_AUTOTUNE": "0"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_tensors_other_than_plain_cpu_ones_run_the_default_untuned(fresh_cache, make_tunable):
    t = make_tunable({"default": lambda x: x, "other": lambda x: x * 0})
    assert t(("k",), torch.ones(2, device="meta")).device.type == "meta"

    class Sub(torch.Tensor):
        pass

    assert t(("k",), torch.ones(2).as_subclass(Sub)).sum().item() == 2.0
    assert t.cache == {}


class _Calls(TorchFunctionMode):
    """Counts the torch calls made while it is active, by function name."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))


def test_tuning_runs_are_invisible_to_a_torch_function_mode(fresh_cache):
    x, w, b = _conv_case(CONV)
    with _Calls() as seen:
        module_ops.conv2d(Tensor.from_data(x, CPU), Tensor.from_data(w, CPU),
                          Tensor.from_data(b, CPU), CONV)
    kernels = [n for n in seen.names if "conv" in n]
    assert len(kernels) == 1, seen.names
    assert conv.CONV_KERNELS.cache  # the call was tuned


def test_a_step_captured_on_a_first_call_replays_bit_equal_to_eager(fresh_cache):
    x, w, b = _conv_case(CONV, seed=3)

    def step(x, w, b):
        h = module_ops.max_pool2d(module_ops.conv2d(x, w, b, CONV), [2, 2], [2, 2], [0, 0],
                                  [1, 1])
        grads = (h * h).sum().backward()
        return w.grad(grads), b.grad(grads)

    params = [Tensor.from_data(t, AD).require_grad() for t in (w, b)]
    bx = Tensor.from_data(x, AD)
    stepped = capture(step)
    recorded = stepped(bx, *params)  # tunes inside the recording
    replayed = stepped(bx, *params)
    eager = step(bx, *params)
    for r, p, e in zip(recorded, replayed, eager):
        assert torch.equal(r.to_torch(), e.to_torch()) and torch.equal(p.to_torch(), e.to_torch())


@pytest.fixture
def deterministic_off_after():
    """Restores torch's deterministic mode to off after the test."""
    yield
    torch.use_deterministic_algorithms(False)


def test_torchs_deterministic_mode_runs_the_default_kernel(fresh_cache, make_tunable,
                                                           deterministic_off_after):
    t = make_tunable({"default": _sleeper(0.004), "fast": lambda x: x - 1})
    t(("k",), torch.zeros(1))
    torch.use_deterministic_algorithms(True)
    assert t(("k",), torch.zeros(1)).item() == 1.0
    assert t(("k2",), torch.zeros(1)).item() == 1.0 and ("k2",) not in t.cache


@pytest.mark.parametrize("change", ["switch_off", "clear", "load", "deterministic"])
def test_changing_the_kernel_choices_makes_a_captured_step_record_again(fresh_cache, tmp_path,
                                                                        change,
                                                                        deterministic_off_after):
    x, w, b = _conv_case(CONV, seed=4)

    def step(x, w):
        return w.grad(module_ops.conv2d(x, w, None, CONV).sum().backward())

    bx, bw = Tensor.from_data(x, AD), Tensor.from_data(w, AD).require_grad()
    stepped = capture(step)
    stepped(bx, bw)
    stepped(bx, bw)
    assert (stepped.plans, stepped.replayed) == (1, 1)
    autotune.save(tmp_path / "choices.json")
    {"switch_off": lambda: autotune.set_enabled(False), "clear": autotune.clear,
     "load": lambda: autotune.load(tmp_path / "choices.json"),
     "deterministic": lambda: torch.use_deterministic_algorithms(True)}[change]()
    stepped(bx, bw)  # records under the new choices
    again = stepped(bx, bw)
    assert (stepped.plans, stepped.replayed) == (2, 2)
    assert torch.equal(again.to_torch(), step(bx, bw).to_torch())


def test_saved_choices_load_into_another_process_cache(fresh_cache, tmp_path):
    x, w, b = _conv_case(CONV)
    module_ops.conv2d(Tensor.from_data(x, CPU), Tensor.from_data(w, CPU), Tensor.from_data(b, CPU),
                      CONV)
    before = autotune.choices()
    path = tmp_path / "tuned.json"
    autotune.save(path)
    autotune.clear()
    assert autotune.choices()["conv"] == {}
    assert autotune.load(path) == sum(len(v) for v in before.values())
    assert autotune.choices() == before


def test_loading_a_file_that_is_not_a_cache_raises_naming_it_and_loads_nothing(fresh_cache,
                                                                              tmp_path):
    good = {"format": "burn_torch-autotune-1", "torch": "x", "entries": [
        {"op": "conv", "key": [[1, 2], {"dtype": "float32"}, True], "kernel": "slow_conv2d"}]}
    cases = {"garbage.json": b"\x00not json",
             "other.json": json.dumps({"format": "something else"}).encode(),
             "unknown_kernel.json": json.dumps({**good, "entries": good["entries"] + [
                 {"op": "conv", "key": [1], "kernel": "winograd"}]}).encode(),
             "bad_dtype.json": json.dumps({**good, "entries": [
                 {"op": "conv", "key": [{"dtype": "nonsense"}], "kernel": "slow_conv2d"}]}).encode()}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ValueError, match=name):
            autotune.load(tmp_path / name)
        assert autotune.choices()["conv"] == {}
    (tmp_path / "good.json").write_text(json.dumps(good))
    assert autotune.load(tmp_path / "good.json") == 1
    assert autotune.choices()["conv"] == {((1, 2), torch.float32, True): "slow_conv2d"}
