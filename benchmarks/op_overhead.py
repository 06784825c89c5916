"""What one op costs burn_torch beyond torch autograd, op by op, interleaved in one process.

Each op runs on small tensors, where its kernel is cheap and the bookkeeping around it shows:
torch on inputs that require grad, burn_torch on ``require_grad()`` leaves. Two timings per op
and side: one forward call (burn_torch: argument checks, the kernel under ``no_grad``, a Tensor,
a Node and the values its rule saves; torch: its C++ graph node), and one forward + backward
(the output summed, ``backward()``, every input's gradient read), less the same for the input
alone (``x.sum().backward()``: the fixed cost of a backward call, larger in torch, whose engine
starts per call), which leaves the op's own backward: the engine's visit and the rule's kernels.
Prints µs per call on each side and burn_torch's extra µs, and the Python function calls
burn_torch makes for the op in forward and in backward (frames entered, counted once with
``sys.setprofile``: each costs roughly 0.05-0.3 µs, more in a real model's colder code; torch's
bookkeeping makes none; a split's step also holds the ops joining its pieces' sums). These
extras are what the step benchmarks' smallest sizes add up, op by op; ``burn_torch.capture``
removes them (its replay builds no Tensor, no Node and checks no argument per op). Gradients are
checked to agree with torch's before anything is timed.

Usage: python benchmarks/op_overhead.py [--quick] [--threads N]
"""
from __future__ import annotations

import argparse
import sys

import torch
import torch.nn.functional as F

from burn_torch import Device, Int, Tensor, activation, module_ops, nn

from _harness import max_abs_diff, time_sides

B, T, D, H = 2, 16, 32, 2
CPU = Device.cpu()
AD = CPU.autodiff()
CE = nn.CrossEntropyLossConfig().init(CPU)
CAUSAL = module_ops.AttentionModuleOptions(is_causal=True)
CONV = module_ops.ConvOptions(stride=[1, 1], padding=[1, 1], dilation=[1, 1], groups=1)


def _randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _labels(n, classes):
    return torch.randint(0, classes, (n,), generator=torch.Generator().manual_seed(9))


# name -> (differentiable inputs (torch tensors, torch's layout), constants, torch's forward,
#          burn_torch's forward, per input: whether burn_torch takes it transposed)
IDX = torch.randint(0, 64, (B, T), generator=torch.Generator().manual_seed(3))
TARGETS = _labels(B * T, 64)
B_IDX, B_TARGETS = Tensor.from_data(IDX, CPU, Int), Tensor.from_data(TARGETS, CPU, Int)
OPS = {
    "linear (3-D x)": ([_randn(B, T, D), _randn(3 * D, D, seed=1), _randn(3 * D, seed=2)],
                       lambda x, w, b: F.linear(x, w, b),
                       lambda x, w, b: module_ops.linear(x, w, b), (False, True, False)),
    "matmul (2-D)": ([_randn(B * T, D), _randn(D, D, seed=1)], torch.matmul,
                     lambda a, b: a.matmul(b), (False, False)),
    "add": ([_randn(B, T, D), _randn(B, T, D, seed=1)], torch.add, lambda a, b: a + b,
            (False, False)),
    "mul (broadcast)": ([_randn(B, T, D), _randn(D, seed=1)], torch.mul, lambda a, b: a * b,
                        (False, False)),
    "reshape": ([_randn(B, T, D)], lambda x: x.reshape(B, T, H, D // H),
                lambda x: x.reshape([B, T, H, D // H]), (False,)),
    "swap_dims": ([_randn(B, T, D)], lambda x: x.transpose(1, 2), lambda x: x.swap_dims(1, 2),
                  (False,)),
    "narrow": ([_randn(B, T, D)], lambda x: x.narrow(1, 3, 4), lambda x: x.narrow(1, 3, 4),
               (False,)),
    "split (3 pieces)": ([_randn(B, T, 3 * D)], lambda x: x.split(D, 2), lambda x: x.split(D, 2),
                         (False,)),
    "sum_dim": ([_randn(B, T, D)], lambda x: x.sum(2, keepdim=True), lambda x: x.sum_dim(2),
                (False,)),
    "gelu": ([_randn(B, T, D)], F.gelu, activation.gelu, (False,)),
    "softmax": ([_randn(B, T, D)], lambda x: torch.softmax(x, 2),
                lambda x: activation.softmax(x, 2), (False,)),
    "layer_norm": ([_randn(B, T, D), 1 + _randn(D, seed=1) / 10, _randn(D, seed=2)],
                   lambda x, g, b: F.layer_norm(x, (D,), g, b, 1e-5),
                   lambda x, g, b: module_ops.layer_norm(x, g, b, 1e-5), (False, False, False)),
    "attention (causal)": ([_randn(B, H, T, D // H, seed=s) for s in range(3)],
                           lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                           lambda q, k, v: module_ops.attention(q, k, v, options=CAUSAL),
                           (False, False, False)),
    "embedding": ([_randn(64, D)], lambda w: F.embedding(IDX, w),
                  lambda w: module_ops.embedding(w, B_IDX), (False,)),
    "cross_entropy": ([_randn(B * T, 64)], lambda x: F.cross_entropy(x, TARGETS),
                      lambda x: CE.forward(x, B_TARGETS), (False,)),
    "conv2d": ([_randn(B, 3, 8, 8), _randn(4, 3, 3, 3, seed=1) / 3, _randn(4, seed=2)],
               lambda x, w, b: F.conv2d(x, w, b, padding=1),
               lambda x, w, b: module_ops.conv2d(x, w, b, CONV), (False, False, False)),
}


def _total(out):
    """The sum of an op's output (of all its pieces, for a split)."""
    if isinstance(out, (tuple, list)):
        total = out[0].sum()
        for piece in out[1:]:
            total = total + piece.sum()
        return total
    return out.sum()


def python_calls(fn) -> int:
    """Python function calls (frames entered) during one ``fn()``, not counting ``fn``'s own
    frame."""
    count = -1

    def profile(frame, event, arg):
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def sides(inputs, torch_fn, burn_fn, transposed):
    """The four timed calls (torch forward, burn forward, torch step, burn step) and a check
    that the two steps' gradients agree."""
    t_in = [t.clone().requires_grad_(True) for t in inputs]
    b_in = [Tensor.from_data(t.t().contiguous() if tr else t, AD).require_grad()
            for t, tr in zip(inputs, transposed)]

    def torch_step():
        _total(torch_fn(*t_in)).backward()
        grads = [t.grad for t in t_in]
        for t in t_in:
            t.grad = None
        return grads

    def burn_step():
        grads = _total(burn_fn(*b_in)).backward()
        return [b.grad(grads) for b in b_in]

    def check():
        burn = [g.to_torch().t() if tr else g.to_torch() for g, tr in zip(burn_step(), transposed)]
        worst = max_abs_diff(torch_step(), burn)
        assert worst < 1e-4, f"gradients disagree by {worst}"

    return (lambda: torch_fn(*t_in), lambda: burn_fn(*b_in), torch_step, burn_step), check


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds (a smoke run)")
    ap.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    rounds, inner = (5, 50) if args.quick else (21, 200)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; µs per call, "
          f"min over {rounds} interleaved rounds of {inner}")
    print(f"{'op':>20} | {'forward: torch':>14} | {'burn_torch':>10} | {'extra':>6} | "
          f"{'fwd+bwd: torch':>14} | {'burn_torch':>10} | {'extra':>6} | py calls fwd, bwd")
    base, _ = sides([_randn(B, T, D)], lambda x: x, lambda x: x, (False,))
    t_base, b_base = (s * 1e6 for s in time_sides(base[2:], rounds, inner))
    base_calls = python_calls(base[3])
    print(f"{'(x.sum().backward())':>20} | {'':>14} | {'':>10} | {'':>6} | {t_base:>14.1f} | "
          f"{b_base:>10.1f} | {b_base - t_base:>+6.1f} | {base_calls:>8}   <- subtracted below")
    for name, (inputs, torch_fn, burn_fn, transposed) in OPS.items():
        calls, check = sides(inputs, torch_fn, burn_fn, transposed)
        check()
        tf, bf, ts, bs = (s * 1e6 for s in time_sides(calls, rounds, inner))
        ts, bs = ts - t_base, bs - b_base
        fwd = python_calls(calls[1]) - 1  # less the op's lambda in OPS
        bwd = python_calls(calls[3]) - base_calls - fwd
        print(f"{name:>20} | {tf:>14.1f} | {bf:>10.1f} | {bf - tf:>+6.1f} | {ts:>14.1f} | "
              f"{bs:>10.1f} | {bs - ts:>+6.1f} | {fwd:>8}, {bwd}")


if __name__ == "__main__":
    main()
