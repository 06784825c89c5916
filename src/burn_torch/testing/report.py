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


def equal_or_both_nan(got: torch.Tensor, want: torch.Tensor) -> bool:
    """Bit-level agreement of two results: same shape and dtype, equal values, NaN where the
    other has NaN (equal infinities are equal)."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    same = got == want
    if got.is_floating_point():
        same |= got.isnan() & want.isnan()
    return bool(same.all())


def elementwise_diff(got: torch.Tensor, want: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Flat float64 copies ``(g, w)`` and ``|g - w|`` with equal values (equal infinities
    included) and NaN against NaN at 0, a NaN against a number (or infinities of different
    sign) at infinity."""
    g = got.detach().to("cpu", torch.float64).flatten()
    w = want.detach().to("cpu", torch.float64).flatten()
    same = (g == w) | (g.isnan() & w.isnan())
    diff = (g - w).abs().masked_fill(same, 0.0).nan_to_num(nan=float("inf"))
    return g, w, diff


def index_of(flat: int, shape) -> list[int]:
    """The multi-index of flat position ``flat`` in ``shape``."""
    return _index(flat, shape)


def difference(what: str, got: torch.Tensor, want: torch.Tensor, rtol: float | None = None,
               atol: float | None = None, reference: str = "reference") -> str | None:
    """None when ``got`` matches ``want`` (same shape and dtype; floats within
    ``|got - want| <= atol + rtol * |want|``, equal infinities equal, NaN only where the other
    has NaN; others exactly); otherwise one line naming ``what`` with the number of mismatches,
    the worst absolute and the worst relative difference, the index where each occurs and both
    values (``want`` labelled ``reference``)."""
    if got.shape != want.shape:
        return f"{what}: shape {list(got.shape)} != {reference} {list(want.shape)}"
    if got.dtype != want.dtype:
        return f"{what}: dtype {got.dtype} != {reference} {want.dtype}"
    if torch.equal(got, want):  # the common case, and the cheapest test
        return None
    if not got.is_floating_point():
        if torch.equal(got, want):
            return None
        bad = (got != want).flatten().nonzero()
        first = int(bad[0])
        return (f"{what}: {bad.numel()} of {got.numel()} elements differ; first at "
                f"{_index(first, got.shape)} ({got.flatten()[first].item()} != {reference} "
                f"{want.flatten()[first].item()})")
    rtol, atol = tolerances(got.dtype, rtol, atol)
    g, w, diff = elementwise_diff(got, want)
    bad = diff > atol + rtol * w.abs().nan_to_num(nan=0.0, posinf=0.0)
    if not bad.any():
        return None
    rel = (diff / w.abs()).nan_to_num(nan=0.0, posinf=float("inf"))
    ia, ir = int(diff.argmax()), int(rel.argmax())
    nan_note = ""
    nans = int((g.isnan() != w.isnan()).sum())
    if nans:
        nan_note = f"; NaN positions differ at {nans} elements"
    return (f"{what} (shape {list(got.shape)}, {str(got.dtype).replace('torch.', '')}): "
            f"{int(bad.sum())} of {g.numel()} elements outside rtol={rtol:g}, atol={atol:g}; "
            f"worst abs diff {diff[ia].item():.3g} at {_index(ia, got.shape)} "
            f"(burn {g[ia].item():.6g}, {reference} {w[ia].item():.6g}); "
            f"worst rel diff {rel[ir].item():.3g} at {_index(ir, got.shape)} "
            f"(burn {g[ir].item():.6g}, {reference} {w[ir].item():.6g}){nan_note}")


def _scalar_error(x: torch.Tensor, truth: torch.Tensor) -> float:
    return float(elementwise_diff(x, truth)[2].max()) if x.numel() else 0.0


def truth_difference(what: str, got: torch.Tensor, ref: torch.Tensor, truth: torch.Tensor,
                     rtol: float | None = None, atol: float | None = None, slack: float = 1.0,
                     reference: str = "torch") -> str | None:
    """The float64-truth comparison of a low-precision result: None when ``got`` is within the
    dtype's tolerances of ``truth`` (a float64 run) element by element, or when its worst error
    ``max|got - truth|`` is at most ``slack`` times the reference's ``max|ref - truth|`` (burn_torch
    at least as close to the truth as torch); otherwise one line with the worst element's three
    values and both errors. Shapes must agree (otherwise the shape line of
    [`difference`][burn_torch.testing.report.difference])."""
    if got.shape != truth.shape or got.shape != ref.shape:
        return difference(what, got, ref, rtol, atol, reference)
    rtol, atol = tolerances(got.dtype, rtol, atol)
    g, t, diff = elementwise_diff(got, truth)
    bad = diff > atol + rtol * t.abs().nan_to_num(nan=0.0, posinf=0.0)
    if not bad.any():
        return None
    burn_err, ref_err = float(diff.max()), _scalar_error(ref, truth)
    if burn_err <= slack * ref_err:
        return None
    i = int(diff.argmax())
    r = ref.detach().to("cpu", torch.float64).flatten()[i].item()
    return (f"{what} (shape {list(got.shape)}, {str(got.dtype).replace('torch.', '')}): further "
            f"from the float64 truth than {reference} (worst error {burn_err:.3g} vs {reference}'s "
            f"{ref_err:.3g}, slack {slack:g}) and outside rtol={rtol:g}, atol={atol:g} at "
            f"{_index(i, got.shape)} (burn {g[i].item():.6g}, {reference} {r:.6g}, float64 "
            f"{t[i].item():.6g})")


def gradient_difference(what: str, burn, ref, like: torch.Tensor, truth, rtol=None, atol=None,
                        slack: float = 1.0) -> str | None:
    """Compares one gradient (``burn``: a burn_torch Tensor or torch tensor, ``ref``: torch's;
    either None when that side produced none). A gradient one side lacks is reported "missing"
    (not zeros), unless the other side's is all zeros; present on both sides,
    [`difference`][burn_torch.testing.report.difference], then
    [`truth_difference`][burn_torch.testing.report.truth_difference] against ``truth`` (float64,
    None for no truth check; None there means zeros of ``like``'s shape)."""
    as_torch = (lambda g: g.to_torch() if hasattr(g, "to_torch") else g)
    if burn is None and ref is None:
        return None
    if burn is None or ref is None:
        present = as_torch(ref if burn is None else burn)
        nonzero = (present != 0).flatten().nonzero()
        if nonzero.numel() == 0:
            return None
        side, other = ("burn_torch", "torch") if burn is None else ("torch", "burn_torch")
        i = int(nonzero[0])
        return (f"{what}: missing in {side} (no gradient, not zeros), {other} has "
                f"{nonzero.numel()} nonzero elements, first at {_index(i, present.shape)} "
                f"({present.flatten()[i].item():.6g})")
    b = as_torch(burn)
    line = difference(what, b, ref, rtol, atol, "torch")
    if line is None or truth is None or not b.is_floating_point():
        return line
    return truth_difference(what, b, ref, truth.double(), rtol, atol, slack)
