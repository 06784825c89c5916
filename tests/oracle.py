"""Torch-autograd oracle for burn_torch's gradients.

burn_torch never uses torch autograd; these tests do, as the reference. :func:`check` runs one
function twice, on burn_torch tensors (leaves created with ``Tensor.from_data(..., cpu.autodiff())
.require_grad()``, gradients from Burn's consuming ``loss.backward()``) and on torch tensors
(``requires_grad=True``, ``torch.autograd.grad``), and asserts that

* every output has the same shape, dtype and values;
* an output is tracked exactly when torch's output requires grad, and carries no torch graph;
* every tracked leaf gets a gradient of its own shape and dtype equal to torch's, without
  autodiff association; constant operands (untracked autodiff tensors, or plain-device tensors)
  get none, and the Gradients container holds exactly the tracked leaves' gradients.

Write the function once when it only uses operators (``lambda a, b: a * b + a``), or give two
lambdas (one per side). Inputs are float64 numpy arrays / torch tensors (tracked leaves),
:class:`Const` wrappers (constants) or non-float arrays (Int indices, Bool masks: constants).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from burn_torch import Device, Tensor

CPU = Device.cpu()
AD = CPU.autodiff()

RTOL = 1e-10
ATOL = 1e-12


@dataclass(frozen=True)
class Const:
    """An input that must get no gradient.

    ``mode="untracked"``: an autodiff tensor that is not tracked (``from_data(v, cpu.autodiff())``).
    ``mode="plain"``: a tensor without autodiff association (``from_data(v, cpu)``).
    """

    value: object
    mode: str = "untracked"

    def __post_init__(self):
        if self.mode not in ("untracked", "plain"):
            raise ValueError(f"Const mode must be 'untracked' or 'plain', got {self.mode!r}")


@dataclass
class Result:
    """What :func:`check` ran: burn inputs/outputs/gradients and the torch reference."""

    burn_inputs: list
    burn_outputs: list
    torch_outputs: list
    burn_grads: list = field(default_factory=list)   # per input: Tensor | None
    torch_grads: list = field(default_factory=list)  # per input: torch.Tensor | None


def _as_torch(v) -> torch.Tensor:
    if isinstance(v, torch.Tensor):
        return v.detach().clone()
    arr = np.asarray(v)
    return torch.from_numpy(arr.copy())


def _tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def assert_close(burn: Tensor, ref: torch.Tensor, what: str, rtol=RTOL, atol=ATOL) -> None:
    """Asserts a burn tensor equals a torch tensor in shape, dtype and values."""
    assert isinstance(burn, Tensor), f"{what}: expected a burn_torch Tensor, got {type(burn).__name__}"
    data = burn.to_torch()
    assert list(data.shape) == list(ref.shape), f"{what}: shape {list(data.shape)} != torch {list(ref.shape)}"
    assert data.dtype == ref.dtype, f"{what}: dtype {data.dtype} != torch {ref.dtype}"
    if data.dtype.is_floating_point:
        torch.testing.assert_close(data.detach(), ref.detach(), rtol=rtol, atol=atol, equal_nan=True,
                                   msg=lambda m: f"{what}: {m}")
    else:
        assert torch.equal(data, ref), f"{what}: {data.tolist()} != torch {ref.tolist()}"


def check(burn_fn, torch_fn, *inputs, loss: str = "weighted", seed: int = 0,
          rtol: float = RTOL, atol: float = ATOL, grad_rtol: float | None = None,
          grad_atol: float | None = None, device: Device = AD) -> Result:
    """Runs ``burn_fn`` on burn_torch tensors and ``torch_fn`` (or ``burn_fn`` when None) on torch
    tensors and asserts forward values and gradients agree (see the module docstring).

    ``loss``: ``"weighted"`` backpropagates ``sum_i (out_i * W_i).sum()`` with random float64
    weights ``W_i`` (plain-device constants), ``"sum"`` backpropagates ``sum_i out_i.sum()``, and
    ``"direct"`` calls ``out.backward()`` on the (single) output, whose seed is ones.
    ``device``: the autodiff device of the leaves and untracked constants (e.g.
    ``AD.gradient_checkpointing()`` to run backward under the BALANCED strategy).
    """
    if torch_fn is None:
        torch_fn = burn_fn
    if loss not in ("weighted", "sum", "direct"):
        raise ValueError(f"unknown loss {loss!r}")
    grad_rtol = rtol if grad_rtol is None else grad_rtol
    grad_atol = atol if grad_atol is None else grad_atol

    burn_in, torch_in, tracked = [], [], []
    for v in inputs:
        if isinstance(v, Const):
            t = _as_torch(v.value)
            burn_in.append(Tensor.from_data(t, device if v.mode == "untracked" else CPU))
            torch_in.append(t)
            tracked.append(False)
            continue
        t = _as_torch(v)
        if t.is_floating_point():
            burn_in.append(Tensor.from_data(t, device).require_grad())
            torch_in.append(t.requires_grad_(True))
            tracked.append(True)
        else:  # Int indices, Bool masks: constants on the autodiff device
            burn_in.append(Tensor.from_data(t, device))
            torch_in.append(t)
            tracked.append(False)

    # -- forward, burn side: torch autograd must stay out of it even when it is enabled --------
    with torch.enable_grad():
        burn_out = _tuple(burn_fn(*burn_in))
    torch_out = _tuple(torch_fn(*torch_in))
    assert len(burn_out) == len(torch_out), f"{len(burn_out)} outputs, torch has {len(torch_out)}"
    for i, (b, t) in enumerate(zip(burn_out, torch_out)):
        assert_close(b, t, f"output {i}", rtol, atol)
        data = b.to_torch()
        assert not data.requires_grad and data.grad_fn is None, f"output {i} carries a torch graph"
        assert b.is_tracked() == t.requires_grad, (
            f"output {i}: is_tracked() {b.is_tracked()}, torch requires_grad {t.requires_grad}")
        if b.is_tracked():  # is_tracked() => is_autodiff(), and the strategy is set
            assert b.is_autodiff() and b.gradient_checkpointing_strategy() is not None, (
                f"output {i} is tracked without an autodiff association")
        if b.is_require_grad():
            assert any(b is x for x in burn_in), f"output {i} is an intermediate but retains gradients"

    res = Result(burn_in, list(burn_out), list(torch_out))
    diff = [i for i, t in enumerate(torch_out) if t.requires_grad]
    if not diff:
        return res

    # -- backward, both sides ----------------------------------------------------------------
    rng = np.random.default_rng(seed)
    if loss == "direct":
        assert len(diff) == 1, "loss='direct' needs exactly one differentiable output"
        root_b = burn_out[diff[0]]
        root_t = torch_out[diff[0]].sum()
    else:
        root_b = root_t = None
        for i in diff:
            b, t = burn_out[i], torch_out[i]
            if loss == "weighted":
                w = torch.from_numpy(rng.standard_normal(tuple(t.shape))).to(t.dtype)
                term_b = (b * Tensor.from_data(w, CPU)).sum()
                term_t = (t * w).sum()
            else:
                term_b, term_t = b.sum(), t.sum()
            root_b = term_b if root_b is None else root_b + term_b
            root_t = term_t if root_t is None else root_t + term_t
        assert root_b.dims() == [1], f"sum() must have shape [1], got {root_b.dims()}"
    grads = root_b.backward()

    leaves = [t for t, tr in zip(torch_in, tracked) if tr]
    tg = iter(torch.autograd.grad(root_t, leaves, allow_unused=True)) if leaves else iter(())
    held = 0
    for i, (b, tr) in enumerate(zip(burn_in, tracked)):
        bg = b.grad(grads)
        if not tr:
            assert bg is None, f"input {i} is a constant but got a gradient"
            res.burn_grads.append(None)
            res.torch_grads.append(None)
            continue
        ref = next(tg)
        res.burn_grads.append(bg)
        res.torch_grads.append(ref)
        if ref is None:  # not reached from the output
            assert bg is None or not bg.to_torch().any(), f"input {i}: unreachable leaf got a gradient"
        else:
            assert bg is not None, f"input {i}: tracked leaf got no gradient"
            assert not bg.is_autodiff(), f"input {i}: gradient carries an autodiff association"
            assert_close(bg, ref, f"gradient of input {i}", grad_rtol, grad_atol)
        if bg is not None:
            held += 1
    assert len(grads) == held, f"Gradients holds {len(grads)} tensors, expected {held}"
    return res


# ---------------------------------------------------------------------------------------------
# Random inputs
# ---------------------------------------------------------------------------------------------
def normal(rng: np.random.Generator, shape, scale: float = 1.0) -> np.ndarray:
    """Standard-normal float64 values."""
    return rng.standard_normal(tuple(shape)) * scale


def positive(rng: np.random.Generator, shape, low: float = 0.5, high: float = 2.0) -> np.ndarray:
    """Values in [low, high) (for log, sqrt, powf bases)."""
    return rng.uniform(low, high, tuple(shape))


def away_from_zero(rng: np.random.Generator, shape, low: float = 0.5, high: float = 2.0) -> np.ndarray:
    """Values with |v| in [low, high) and a random sign (for divisors)."""
    shape = tuple(shape)
    return rng.uniform(low, high, shape) * rng.choice([-1.0, 1.0], shape)


def distinct(rng: np.random.Generator, shape) -> np.ndarray:
    """Pairwise distinct values, at least 0.1 apart (no ties for max/min)."""
    n = int(np.prod(shape)) if len(shape) else 1
    return (rng.permutation(n) * 0.37 + rng.uniform(0, 0.1, n) - n * 0.18).reshape(tuple(shape))
