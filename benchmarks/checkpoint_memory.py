"""Gradient checkpointing: time and memory of one training step, burn_torch vs torch.

Models: L blocks over a [B, H] batch, each ``f(h) = 0.5 * gelu(layer_norm(h) @ W + b)`` with a
layer norm written with mean/var/sqrt/div and a learned scale and shift, then a mean-squared
loss; ``residual`` stacks ``h + f(h)``, ``plain`` stacks ``f(h)``. Variants: burn_torch DISABLED,
burn_torch BALANCED, torch autograd, and torch with ``torch.utils.checkpoint`` (non-reentrant)
around each block. Every measurement is taken for both models.

BALANCED recomputes memory-bound outputs from the nearest kept (compute-bound) ones. In
``residual`` the stream ``h`` is made of memory-bound adds only, so the first recomputation runs
down the whole stream and each block's ``h`` stays cached until that block's backward: the peak
during backward is well above what BALANCED holds when backward starts (Burn behaves the same).

1. Time per step: interleaved pairs timed with benchmarks/_harness.time_interleaved (torch
   autograd | DISABLED, DISABLED | BALANCED, torch checkpoint | BALANCED); targets use the ratio
   within a pair, the per-variant column averages a variant's pair medians.
2. Bytes held for backward when it starts: burn_torch's ``memory.graph_bytes``; torch autograd's
   saved tensors through ``torch.autograd.graph.saved_tensors_hooks``, each storage counted once
   (torch.utils.checkpoint saves through its own hooks, so it has no entry). Also burn_torch's
   peak during backward (``memory.track``).
3. Peak resident memory: each variant runs in its own subprocess on a larger model; after one
   warm-up step the kernel's high-water mark is reset (/proc/self/clear_refs) and one step's
   growth above the resident size before it is reported. glibc is told to serve large blocks
   with mmap so that freed memory leaves the resident set. Linux only (else marked n/a).
4. With CUDA, the same subprocesses also report ``torch.cuda.max_memory_allocated`` growth of one
   step on the GPU; without CUDA the column says so.

Usage: python benchmarks/checkpoint_memory.py [--quick] [--threads N]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

from burn_torch import Device, Tensor, memory
from burn_torch.activation import gelu

from _harness import max_abs_diff, time_interleaved

EPS = 1e-5
TIME_SIZE = (512, 512, 16)  # B, H, L for timing and bytes held
PEAK_SIZE = (1024, 512, 16)  # B, H, L for the resident/CUDA peaks
MODELS = {"residual": True, "plain": False}
VARIANTS = ("burn DISABLED", "burn BALANCED", "torch autograd", "torch checkpoint")
MiB = 2.0 ** 20


# ================================================================================= model ====
def make_data(B: int, H: int, L: int, seed: int = 0):
    """Per block (gamma, beta, W, b), then the input x and target y, as torch tensors."""
    gen = torch.Generator().manual_seed(seed)
    params = []
    for _ in range(L):
        params += [1 + 0.1 * torch.randn(H, generator=gen), 0.1 * torch.randn(H, generator=gen),
                   torch.randn(H, H, generator=gen) / H ** 0.5, 0.1 * torch.randn(H, generator=gen)]
    return params, torch.randn(B, H, generator=gen), torch.randn(B, H, generator=gen)


def torch_block(residual, h, gamma, beta, w, b):
    c = h - h.mean(1, keepdim=True)
    n = c / (h.var(1, keepdim=True, unbiased=False) + EPS).sqrt() * gamma + beta
    f = F.gelu(n @ w + b) * 0.5
    return h + f if residual else f


def burn_block(residual, h, gamma, beta, w, b):
    c = h - h.mean_dim(1)
    n = c / (h.var_bias(1) + EPS).sqrt() * gamma + beta
    f = gelu(n @ w + b).mul_scalar(0.5)
    return h + f if residual else f


def torch_loss(x, y, params, residual: bool, use_checkpoint: bool):
    h = x
    for i in range(0, len(params), 4):
        if use_checkpoint:
            h = checkpoint(torch_block, residual, h, *params[i:i + 4], use_reentrant=False)
        else:
            h = torch_block(residual, h, *params[i:i + 4])
    return (h - y).square().mean()


def burn_loss(x, y, params, residual: bool):
    h = x
    for i in range(0, len(params), 4):
        h = burn_block(residual, h, *params[i:i + 4])
    return (h - y).square().mean()


class Variant:
    """One variant's inputs and parameters on a torch device, and its training step."""

    def __init__(self, name: str, residual: bool, data, device: str) -> None:
        params, x, y = data
        self.name = name
        self.residual = residual
        self.sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
        if name.startswith("torch"):
            self.params = [p.to(device).requires_grad_() for p in params]
            self.x, self.y = x.to(device), y.to(device)
        else:
            plain = Device.cuda() if device == "cuda" else Device.cpu()
            ad = plain.autodiff()
            if name == "burn BALANCED":
                ad = ad.gradient_checkpointing()
            self.params = [Tensor.from_data(p, ad).require_grad() for p in params]
            self.x, self.y = Tensor.from_data(x, plain), Tensor.from_data(y, plain)

    def loss(self):
        if self.name.startswith("torch"):
            return torch_loss(self.x, self.y, self.params, self.residual,
                              self.name == "torch checkpoint")
        return burn_loss(self.x, self.y, self.params, self.residual)

    def step(self) -> list[torch.Tensor]:
        """One training step; returns the parameters' gradients as torch tensors."""
        loss = self.loss()
        if self.name.startswith("torch"):
            grads = list(torch.autograd.grad(loss, self.params))
        else:
            container = loss.backward()
            grads = [p.grad(container).to_torch() for p in self.params]
        self.sync()
        return grads


# ============================================================================ measuring ====
def torch_saved_bytes(variant: Variant) -> int:
    """Bytes torch autograd saves for backward in one forward, each storage once."""
    storages = {}

    def pack(t):
        s = t.untyped_storage()
        storages[(t.device, s.data_ptr())] = s.nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        variant.loss()
    return sum(storages.values())


def burn_bytes(variant: Variant) -> tuple[int, int]:
    """(bytes the graph holds when backward starts, peak bytes during backward)."""
    loss = variant.loss()
    held = memory.graph_bytes(loss)
    with memory.track() as trace:
        loss.backward()
    return held, trace.peak_bytes


def _status_bytes(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def resident_peak(variant: Variant) -> int | None:
    """Growth of the resident set during one step above its size before; None off Linux."""
    variant.step()  # warm-up: kernels, thread pools, allocator caches
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current resident size
        before = _status_bytes("VmRSS")
    except OSError:
        return None
    variant.step()
    return _status_bytes("VmHWM") - before


def cuda_peak(name: str, residual: bool, data) -> int:
    """Growth of torch.cuda.max_memory_allocated during one step on the GPU."""
    variant = Variant(name, residual, data, "cuda")
    variant.step()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    before = torch.cuda.memory_allocated()
    variant.step()
    return torch.cuda.max_memory_allocated() - before


def measure_peaks(name: str, model: str, size) -> dict:
    """Runs in the subprocess: the resident (and CUDA) peaks of one variant."""
    data = make_data(*size)
    residual = MODELS[model]
    result = {"rss": resident_peak(Variant(name, residual, data, "cpu")), "cuda": None}
    if torch.cuda.is_available():
        result["cuda"] = cuda_peak(name, residual, data)
    return result


def peaks_in_subprocesses(model: str, size, threads: int | None) -> dict:
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536")
    out = {}
    for name in VARIANTS:
        cmd = [sys.executable, __file__, "--peak-of", name, "--model", model,
               "--size", ",".join(map(str, size))]
        if threads:
            cmd += ["--threads", str(threads)]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
        out[name] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


# ============================================================================== report ====
def _mib(n) -> str:
    return "n/a" if n is None else f"{n / MiB:8.1f}"


def _target(ok: bool, text: str) -> str:
    return f"{'PASS' if ok else 'FAIL'}  {text}"


def report(model: str, rounds: int, inner: int, threads: int | None) -> None:
    """Measures one model and prints its table, pair timings and targets."""
    residual = MODELS[model]
    data = make_data(*TIME_SIZE)
    v = {name: Variant(name, residual, data, "cpu") for name in VARIANTS}

    grads = {name: v[name].step() for name in VARIANTS}
    exact = all(torch.equal(a, b) for a, b in zip(grads["burn DISABLED"], grads["burn BALANCED"]))
    vs_torch = max_abs_diff(grads["torch autograd"], grads["burn DISABLED"])
    vs_ckpt = max_abs_diff(grads["torch autograd"], grads["torch checkpoint"])
    assert vs_torch < 1e-4 and vs_ckpt < 1e-4, f"gradients disagree ({vs_torch}, {vs_ckpt})"

    pairs = [("torch autograd", "burn DISABLED"), ("burn DISABLED", "burn BALANCED"),
             ("torch checkpoint", "burn BALANCED")]
    timed = {(a, b): time_interleaved(v[a].step, v[b].step, rounds, inner) for a, b in pairs}
    step_s = {}
    for name in VARIANTS:
        ts = [t[i] for pair, t in timed.items() for i in (0, 1) if pair[i] == name]
        step_s[name] = sum(ts) / len(ts)

    held, peak_bw = {}, {}
    for name in ("burn DISABLED", "burn BALANCED"):
        held[name], peak_bw[name] = burn_bytes(v[name])
    held["torch autograd"] = torch_saved_bytes(v["torch autograd"])
    del v
    peaks = peaks_in_subprocesses(model, PEAK_SIZE, threads)

    cuda = torch.cuda.is_available()
    print(f"\n== model: {model}")
    print(f"{'variant':>17} | {'step ms':>8} | {'held for bw MiB':>15} | {'peak in bw MiB':>14} | "
          f"{'peak RSS MiB':>12} | {'CUDA peak MiB':>13}")
    for name in VARIANTS:
        cuda_col = _mib(peaks[name]["cuda"]) if cuda else "no CUDA"
        print(f"{name:>17} | {step_s[name] * 1e3:8.1f} | {_mib(held.get(name)):>15} | "
              f"{_mib(peak_bw.get(name)):>14} | {_mib(peaks[name]['rss']):>12} | {cuda_col:>13}")
    print("pairs (interleaved medians, ms): " + "; ".join(
        f"{a} {ta * 1e3:.1f} | {b} {tb * 1e3:.1f} (x{tb / ta:.2f})" for (a, b), (ta, tb) in timed.items()))
    print(f"BALANCED gradients equal DISABLED bit for bit: {exact}; "
          f"max |DISABLED - torch| {vs_torch:.1e}")

    bytes_ratio = held["burn BALANCED"] / held["burn DISABLED"]
    t_dis, t_bal = timed[("burn DISABLED", "burn BALANCED")]
    t_ck, t_bal2 = timed[("torch checkpoint", "burn BALANCED")]
    mem_kind = "CUDA peak" if cuda else "peak RSS"
    mem_of = {name: peaks[name]["cuda" if cuda else "rss"] for name in VARIANTS}
    mem_known = None not in (mem_of["burn BALANCED"], mem_of["torch checkpoint"])
    print(_target(held["burn DISABLED"] <= held["torch autograd"],
                  f"DISABLED holds no more bytes than torch autograd "
                  f"({_mib(held['burn DISABLED']).strip()} vs {_mib(held['torch autograd']).strip()} MiB)"))
    print(_target(bytes_ratio <= 0.6 and t_bal / t_dis <= 1.3,
                  f"BALANCED holds <= 0.6x DISABLED bytes (x{bytes_ratio:.2f}) at <= 1.3x its step "
                  f"time (x{t_bal / t_dis:.2f})"))
    print(_target(t_bal2 < t_ck and mem_known and mem_of["burn BALANCED"] <= mem_of["torch checkpoint"],
                  f"BALANCED beats torch.utils.checkpoint on time (x{t_bal2 / t_ck:.2f}) at equal or "
                  f"lower {mem_kind} ({_mib(mem_of['burn BALANCED']).strip()} vs "
                  f"{_mib(mem_of['torch checkpoint']).strip()} MiB)"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    ap.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    ap.add_argument("--peak-of", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--model", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--size", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.peak_of:
        size = tuple(int(s) for s in args.size.split(","))
        print(json.dumps(measure_peaks(args.peak_of, args.model, size)))
        return
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; timing and bytes held "
          f"at B,H,L = {TIME_SIZE}, peaks at {PEAK_SIZE}; targets marked PASS/FAIL per model")
    rounds, inner = (3, 1) if args.quick else (5, 2)
    for model in MODELS:
        report(model, rounds, inner, args.threads)


if __name__ == "__main__":
    main()
