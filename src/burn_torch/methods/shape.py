"""Shape, layout and slicing methods of Tensor."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .. import validate
from ..autodiff.recorder import apply1, apply1_each, apply2, applyn
from ..ops import shape as shape_ops
from .base import TensorBase, check_list, check_scalar, same_kind

if TYPE_CHECKING:
    from ..tensor import Tensor



def norm_slice(s, size: int):
    """Normalises one Burn range against a dim of ``size``: (positive-step slice, walks backwards)."""
    if isinstance(s, bool):
        raise TypeError("a slice range cannot be a bool")
    if isinstance(s, int):
        i = s + size if s < 0 else s
        if not 0 <= i < size:
            raise IndexError(f"index {s} is out of range for a dimension of size {size}")
        return slice(i, i + 1), False
    if isinstance(s, range):
        s = slice(s.start, s.stop, s.step)
    elif isinstance(s, (tuple, list)) and len(s) in (2, 3):
        s = slice(*s)
    elif not isinstance(s, slice):
        raise TypeError(f"expected a slice, range, int or (start, end) pair, got {s!r}")
    step = 1 if s.step is None else int(s.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    start, stop, _ = slice(s.start, s.stop).indices(size)
    length = max(0, stop - start)
    if step > 0:
        return slice(start, max(start, stop), step), False
    k = -step
    count = -(-length // k)
    if count == 0:
        return slice(start, start), False
    return slice(stop - 1 - (count - 1) * k, stop, k), True


def pieces(t, d: int, sizes: list) -> "list[Tensor]":
    """Consecutive pieces of ``sizes[i]`` entries (each at least 1, summing to the dim's size)
    along dim ``d`` of ``t``, each recorded as a ``narrow`` step (no re-check: they lie inside
    the dim by construction), all made by one kernel call: the C method ``split_with_sizes``
    (``Tensor.split``'s Python wrapper costs as much again)."""
    attrs = []
    start = 0
    for size in sizes:
        attrs.append((d, start, size))
        start += size
    return apply1_each(shape_ops.NARROW, t, lambda data: data.split_with_sizes(sizes, d), attrs)


class ShapeMethods(TensorBase):
    __slots__ = ()

    # ============================================================================= shape ====
    def reshape(self, dims: Sequence[int]) -> "Tensor":
        """Same values in a new shape, with Burn's signed arguments: one ``-1`` is inferred, a
        ``0`` keeps the size of the dim at the same position. TypeError for a non-int entry,
        ValueError for an entry below -1, a second -1, or sizes that don't match."""
        dims = validate.reshape_dims("reshape", dims, self._data.shape)
        return apply1(shape_ops.RESHAPE, self, (dims,))

    def flatten(self, start_dim: int, end_dim: int) -> "Tensor":
        """Merges dims ``start_dim..=end_dim`` (inclusive) into one."""
        return apply1(shape_ops.FLATTEN, self, (self._dim(start_dim), self._dim(end_dim)))

    def unsqueeze(self, rank: int | None = None) -> "Tensor":
        """Prepends size-1 dims up to ``rank`` (default: one more than now)."""
        cur = self._data.dim()
        rank = cur + 1 if rank is None else validate.integer("unsqueeze", "rank", rank)
        if rank < cur:
            raise ValueError(f"unsqueeze: target rank {rank} is lower than the current rank {cur}")
        return apply1(shape_ops.RESHAPE, self, ([1] * (rank - cur) + list(self._data.shape),))

    def unsqueeze_dim(self, dim: int) -> "Tensor":
        """Inserts a size-1 dim at ``dim``."""
        d = validate.dim("unsqueeze_dim", self._data.dim() + 1, dim)
        return apply1(shape_ops.UNSQUEEZE_DIM, self, (d,))

    def squeeze_dim(self, dim: int) -> "Tensor":
        """Removes dim ``dim``, which must have size 1 (ValueError otherwise)."""
        d = self._dim(dim)
        if self._data.shape[d] != 1:
            raise ValueError(f"squeeze_dim: dimension {d} has size {self._data.shape[d]}, not 1 "
                             f"(shape {self.dims()})")
        return apply1(shape_ops.SQUEEZE_DIM, self, (d,))

    def squeeze_dims(self, dims: Sequence[int]) -> "Tensor":
        """Removes ``dims`` (negative allowed, repeats ignored), which must all have size 1; an
        empty ``dims`` removes every size-1 dim, as Burn's ``squeeze_dims``. ValueError for a dim
        whose size is not 1, or when no dim would remain."""
        shape = self.dims()
        if dims:
            drop = {self._dim(d, "dims") for d in dims}
            for d in sorted(drop):
                if shape[d] != 1:
                    raise ValueError(f"squeeze_dims: dimension {d} has size {shape[d]}, not 1 "
                                     f"(shape {shape})")
        else:
            drop = {d for d, size in enumerate(shape) if size == 1}
        return self._squeeze_out(drop, "squeeze_dims")

    def squeeze(self) -> "Tensor":
        """Removes every size-1 dim (Burn's ``squeeze``); ValueError when no dim would remain."""
        return self._squeeze_out({d for d, size in enumerate(self.dims()) if size == 1}, "squeeze")

    def _squeeze_out(self, drop: "set[int]", what: str) -> "Tensor":
        shape = self.dims()
        if len(drop) >= len(shape):
            raise ValueError(f"{what}: removing dims {sorted(drop)} would leave no dim (shape {shape})")
        return apply1(shape_ops.RESHAPE, self, ([size for d, size in enumerate(shape) if d not in drop],))

    def swap_dims(self, dim1: int, dim2: int) -> "Tensor":
        return apply1(shape_ops.SWAP_DIMS, self, (self._dim(dim1), self._dim(dim2)))

    def transpose(self) -> "Tensor":
        """Swaps the last two dims."""
        if self._data.dim() < 2:
            return self  # type: ignore[return-value]  # self is a Tensor: see TensorBase
        return apply1(shape_ops.SWAP_DIMS, self, (self._data.dim() - 2, self._data.dim() - 1))

    def permute(self, dims: Sequence[int]) -> "Tensor":
        dims = [self._dim(d) for d in dims]
        if sorted(dims) != list(range(self._data.dim())):
            raise ValueError(f"permute: {dims} is not a permutation of the dims of shape {self.dims()}")
        return apply1(shape_ops.PERMUTE, self, (dims,))

    def expand(self, dims: Sequence[int]) -> "Tensor":
        """Broadcasts to ``dims`` (``-1`` keeps a dim); the gradient is summed back."""
        return apply1(shape_ops.EXPAND, self, (validate.shape("expand", dims, "dims", minimum=-1),))

    def _slice_index(self, ranges, what: str):
        """Normalises Burn ranges (one per leading dim) to a torch index and the dims to flip."""
        if isinstance(ranges, (slice, int, range)):
            ranges = [ranges]
        shape = self._data.shape
        if len(ranges) > len(shape):
            raise ValueError(f"{what}: {len(ranges)} ranges for a tensor of rank {len(shape)} "
                             f"(shape {list(shape)})")
        index = []
        flips = []
        for d, r in enumerate(ranges):
            s, backwards = norm_slice(r, shape[d])
            index.append(s)
            if backwards:
                flips.append(d)
        return tuple(index), tuple(flips)

    def slice(self, ranges) -> "Tensor":
        """The sub-tensor selected by ``ranges``: one Python slice (or int, range, (start, end))
        per leading dim. Negative indices count from the end; ranges are clamped to the dims
        (an empty or reversed range selects nothing), as Burn's; a negative step walks the range
        backwards from its end, as Burn's ``s![a..b;-k]``. IndexError for an int index out of
        range, ValueError for a zero step or more ranges than dims."""
        return apply1(shape_ops.SLICE, self, self._slice_index(ranges, "slice"))

    def slice_assign(self, ranges, values: "Tensor") -> "Tensor":
        """A copy with the region selected by ``ranges`` (see
        [`slice`][burn_torch.tensor.Tensor.slice]) replaced by ``values``, which must have the
        region's shape and this tensor's kind (ValueError / TypeError otherwise). Gradients: the
        overwritten entries get none, ``values`` gets the region's. An empty region returns this
        tensor unchanged, as Burn does."""
        if not isinstance(values, TensorBase):
            raise TypeError(f"slice_assign: values must be a Tensor, got {validate.type_name(values)}")
        index, flips = self._slice_index(ranges, "slice_assign")
        region = list(self._data[index].shape)
        if values.dims() != region:
            raise ValueError(f"slice_assign: values of shape {values.dims()} for a region of shape "
                             f"{region} (tensor shape {self.dims()})")
        if values._data.dtype is not self._data.dtype:
            same_kind("slice_assign", self, values)
        if 0 in region:
            return self  # type: ignore[return-value]  # self is a Tensor: see TensorBase
        return apply2(shape_ops.SLICE_ASSIGN, self, values, (index, flips))

    def slice_fill(self, ranges, value) -> "Tensor":
        """A copy with the region selected by ``ranges`` (see
        [`slice`][burn_torch.tensor.Tensor.slice]) set to the scalar ``value``; the filled entries
        get no gradient. TypeError for a float value on an Int tensor."""
        index, _ = self._slice_index(ranges, "slice_fill")
        check_scalar("slice_fill", self, value)
        return apply1(shape_ops.SLICE_FILL, self, (index, value))

    def slice_dim(self, dim: int, range_) -> "Tensor":
        """Slices one dim; see [`slice`][burn_torch.tensor.Tensor.slice]."""
        d = self._dim(dim)
        return self.slice([slice(None)] * d + [range_])

    def select_dim(self, dim: int, index: int) -> "Tensor":
        """Entry ``index`` of ``dim``, with ``dim`` removed (rank one lower): Burn's
        ``slice_dim(dim, index).squeeze_dim(dim)``, recorded as one step. ``dim`` and ``index``
        may be negative (counted from the end). Any kind; differentiable on Float tensors (the
        gradient is the output's, placed at ``index`` with zeros elsewhere). TypeError for a
        non-int ``dim`` or ``index``, IndexError for either out of range, ValueError on a rank-1
        tensor (Burn has no rank-0 tensors: read the entry with ``slice_dim(0, index)`` and
        ``into_scalar()``). For a range of entries that keeps the dim, call
        [`slice_dim`][burn_torch.tensor.Tensor.slice_dim] or
        [`narrow`][burn_torch.tensor.Tensor.narrow]."""
        d = self._dim(dim)
        size = self._data.shape[d]
        i = validate.integer("select_dim", "index", index)
        if self._data.dim() == 1:
            raise ValueError(f"select_dim on a rank-1 tensor (shape {self.dims()}) would leave no "
                             f"dim; call slice_dim({dim}, {i}) to keep it (and into_scalar() to "
                             f"read the value)")
        if not -size <= i < size:
            raise IndexError(f"select_dim: index {i} is out of range for dim {d} of size {size} "
                             f"(shape {self.dims()}); valid indices are {-size}..{size - 1}")
        return apply1(shape_ops.SELECT_DIM, self, (d, i + size if i < 0 else i))

    def narrow(self, dim: int, start: int, length: int) -> "Tensor":
        """Entries ``start..start+length`` of ``dim``. As in Burn, ``length`` must be at least 1
        and the range must lie inside the dim (ValueError otherwise)."""
        d = self._dim(dim)
        size = self._data.shape[d]
        start = validate.integer("narrow", "start", start)
        length = validate.integer("narrow", "length", length)
        if length < 1 or start < 0 or start + length > size:
            raise ValueError(f"narrow: range {start}..{start + length} (length {length}) is not a "
                             f"non-empty range inside dim {d} of shape {self.dims()}")
        return apply1(shape_ops.NARROW, self, (d, start, length))

    def split(self, size: int, dim: int) -> "list[Tensor]":
        """Consecutive pieces of ``size`` entries along ``dim`` (the last may be smaller); an empty
        dim gives an empty list. ValueError for ``size`` < 1 on a non-empty dim."""
        d = self._dim(dim)
        total = self._data.shape[d]
        size = validate.integer("split", "size", size)
        if total and size < 1:
            raise ValueError(f"split: size must be at least 1, got {size} (shape {self.dims()})")
        if not total:
            return []
        return pieces(self, d, [min(size, total - start) for start in range(0, total, size)])

    def chunk(self, n: int, dim: int) -> "list[Tensor]":
        """At most ``n`` pieces along ``dim``, all of ``ceil(size / n)`` entries but the last, as
        Burn's ``chunk`` (fewer than ``n`` when the size does not allow ``n`` non-empty pieces).
        ValueError for ``n`` < 1."""
        n = validate.size("chunk", "n", n, minimum=1)
        d = self._dim(dim)
        return self.split(-(-self._data.shape[d] // n), d)

    def flip(self, dims: Sequence[int]) -> "Tensor":
        """Reverses the order of the entries along each of ``dims`` (distinct, negative allowed)."""
        axes = self._distinct_dims(dims, "flip")
        return apply1(shape_ops.FLIP, self, (axes,))

    def movedim(self, src, dst) -> "Tensor":
        """Moves dim(s) ``src`` to position(s) ``dst`` (ints or equal-length sequences of distinct
        dims, negative allowed); the other dims keep their order."""
        src = self._distinct_dims([src] if isinstance(src, int) else src, "movedim")
        dst = self._distinct_dims([dst] if isinstance(dst, int) else dst, "movedim")
        if len(src) != len(dst):
            raise ValueError(f"movedim: {len(src)} source dims but {len(dst)} destination dims")
        return apply1(shape_ops.MOVEDIM, self, (src, dst))

    def repeat_dim(self, dim: int, times: int) -> "Tensor":
        """The tensor repeated ``times`` times along ``dim`` (0 gives an empty dim)."""
        d = self._dim(dim)
        sizes = [1] * self._data.dim()
        sizes[d] = validate.integer("repeat_dim", "times", times)
        return self._repeat(shape_ops.REPEAT_DIM, sizes)

    def repeat(self, sizes: Sequence[int]) -> "Tensor":
        """Repeats dim ``i`` ``sizes[i]`` times (0 gives an empty dim); dims past ``len(sizes)``
        are kept. ValueError for more sizes than dims."""
        sizes = validate.shape("repeat", sizes, "sizes", minimum=-2 ** 63)
        rank = self._data.dim()
        if len(sizes) > rank:
            raise ValueError(f"repeat: {len(sizes)} sizes for a tensor of rank {rank} "
                             f"(shape {self.dims()})")
        return self._repeat(shape_ops.REPEAT, sizes + [1] * (rank - len(sizes)))

    def _repeat(self, op, sizes: "list[int]") -> "Tensor":
        if any(t < 0 for t in sizes):
            raise ValueError(f"{op.name}: repetition counts must be non-negative, got {sizes}")
        return apply1(op, self, (sizes,))

    def tril(self, diagonal: int) -> "Tensor":
        """Keeps the entries on and below ``diagonal`` of the last two dims, zeroes the others."""
        return apply1(shape_ops.TRIL, self, (self._triangle_diagonal(diagonal, "tril"),))

    def triu(self, diagonal: int) -> "Tensor":
        """Keeps the entries on and above ``diagonal`` of the last two dims, zeroes the others."""
        return apply1(shape_ops.TRIU, self, (self._triangle_diagonal(diagonal, "triu"),))

    def _triangle_diagonal(self, diagonal: int, what: str) -> int:
        if self._data.dim() < 2:
            raise ValueError(f"{what} needs a tensor of rank >= 2, got shape {self.dims()}")
        if not isinstance(diagonal, int) or isinstance(diagonal, bool):
            raise TypeError(f"{what}: diagonal must be an int, got {diagonal!r}")
        return diagonal

    def unfold(self, dim: int, size: int, step: int) -> "Tensor":
        """All complete windows of ``size`` entries along ``dim``, starting every ``step``: ``dim``
        becomes the window count and the windows are appended as a new last dim of ``size``
        (no complete window gives a count of 0, as Burn). ValueError for ``step`` < 1 or
        ``size`` < 0."""
        d = self._dim(dim)
        size = validate.integer("unfold", "size", size)
        step = validate.integer("unfold", "step", step)
        if step < 1 or size < 0:
            raise ValueError(f"unfold: needs step >= 1 and size >= 0, got size {size}, step {step}")
        return apply1(shape_ops.UNFOLD, self, (d, size, step))

    def _distinct_dims(self, dims, what: str) -> "list[int]":
        if not hasattr(dims, "__iter__"):
            raise TypeError(f"{what}: dims must be a sequence of ints, got {type(dims).__name__}")
        out = [self._dim(d, "dims") for d in dims]
        if len(set(out)) != len(out):
            raise ValueError(f"{what}: dims {list(dims)} are not distinct (shape {self.dims()})")
        return out

    @staticmethod
    def cat(tensors: Sequence["Tensor"], dim: int) -> "Tensor":
        """Concatenates along ``dim``; all tensors must have the same kind and rank."""
        tensors = check_list("cat", tensors)
        d = tensors[0]._dim(dim)
        sizes = [t._data.shape[d] for t in tensors]
        return applyn(shape_ops.CAT, tensors, (d, sizes))

    @staticmethod
    def stack(tensors: Sequence["Tensor"], dim: int) -> "Tensor":
        """Stacks along a new dim ``dim``; all tensors must have the same shape and kind."""
        tensors = check_list("stack", tensors)
        d = validate.dim("stack", tensors[0]._data.dim() + 1, dim)
        return applyn(shape_ops.STACK, tensors, (d,))
