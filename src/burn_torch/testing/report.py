"""Comparing a burn_torch result with a reference, and describing where they differ."""
from __future__ import annotations

import torch

# (rtol, atol) by dtype when the caller gives none.
DEFAULT_TOLERANCES = {
    torch.float64: (1e-10, 1e-12),
    torch.float32: (1e-5, 1e-6),
    torch.float16: (1e-3, 1e-3),
    torch.bfloat16: (1.6e-2, 1e-2),
}


def tolerances(dtype: torch.dtype, rtol: float | None, atol: float | None) -> tuple[float, float]:
    """The given tolerances, each defaulting to ``DEFAULT_TOLERANCES`` for ``dtype`` (float32's
    for dtypes not listed)."""
    drtol, datol = DEFAULT_TOLERANCES.get(dtype, DEFAULT_TOLERANCES[torch.float32])
    return (drtol if rtol is None else rtol, datol if atol is None else atol)


def _index(flat: int, shape) -> list[int]:
    idx = []
    for n in reversed(list(shape)):
        idx.append(flat % n)
        flat //= n
    return idx[::-1]


def difference(what: str, got: torch.Tensor, want: torch.Tensor, rtol: float | None = None,
               atol: float | None = None, reference: str = "reference") -> str | None:
    """None when ``got`` matches ``want`` (same shape and dtype; floats within
    ``|got - want| <= atol + rtol * |want|``, NaN matching NaN; others exactly); otherwise one
    line naming ``what`` with the number of mismatches, the worst absolute and the worst
    relative difference, the index where each occurs and both values (``want`` labelled
    ``reference``)."""
    if got.shape != want.shape:
        return f"{what}: shape {list(got.shape)} != {reference} {list(want.shape)}"
    if got.dtype != want.dtype:
        return f"{what}: dtype {got.dtype} != {reference} {want.dtype}"
    if not got.is_floating_point():
        if torch.equal(got, want):
            return None
        bad = (got != want).flatten().nonzero()
        first = int(bad[0])
        return (f"{what}: {bad.numel()} of {got.numel()} elements differ; first at "
                f"{_index(first, got.shape)} ({got.flatten()[first].item()} != {reference} "
                f"{want.flatten()[first].item()})")
    rtol, atol = tolerances(got.dtype, rtol, atol)
    g = got.detach().to("cpu", torch.float64).flatten()
    w = want.detach().to("cpu", torch.float64).flatten()
    both_nan = g.isnan() & w.isnan()
    diff = (g - w).abs().masked_fill(both_nan, 0.0).nan_to_num(nan=float("inf"))
    bad = diff > atol + rtol * w.abs().nan_to_num(nan=0.0)
    if not bad.any():
        return None
    rel = (diff / w.abs()).nan_to_num(nan=0.0, posinf=float("inf"))
    ia, ir = int(diff.argmax()), int(rel.argmax())
    return (f"{what} (shape {list(got.shape)}, {str(got.dtype).replace('torch.', '')}): "
            f"{int(bad.sum())} of {g.numel()} elements outside rtol={rtol:g}, atol={atol:g}; "
            f"worst abs diff {diff[ia].item():.3g} at {_index(ia, got.shape)} "
            f"(burn {g[ia].item():.6g}, {reference} {w[ia].item():.6g}); "
            f"worst rel diff {rel[ir].item():.3g} at {_index(ir, got.shape)} "
            f"(burn {g[ir].item():.6g}, {reference} {w[ir].item():.6g})")
