"""Shape, layout and slicing methods of Tensor."""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..autodiff.record import apply1, applyn
from ..ops import shape as S
from .base import TensorBase, check_list

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


class ShapeMethods(TensorBase):
    __slots__ = ()

    # ============================================================================= shape ====
    def reshape(self, dims: Sequence[int]) -> "Tensor":
        """Same values in a new shape; one ``-1`` is inferred. ValueError if sizes don't match."""
        dims = [int(d) for d in dims]
        if dims.count(-1) > 1:
            raise ValueError(f"reshape: at most one -1 is allowed, got {dims}")
        return apply1(S.RESHAPE, self, (dims,))

    def flatten(self, start_dim: int, end_dim: int) -> "Tensor":
        """Merges dims ``start_dim..=end_dim`` (inclusive) into one."""
        return apply1(S.FLATTEN, self, (self._dim(start_dim), self._dim(end_dim)))

    def unsqueeze(self, rank: int | None = None) -> "Tensor":
        """Prepends size-1 dims up to ``rank`` (default: one more than now)."""
        cur = self._data.dim()
        rank = cur + 1 if rank is None else rank
        if rank < cur:
            raise ValueError(f"unsqueeze: target rank {rank} is lower than the current rank {cur}")
        return apply1(S.RESHAPE, self, ([1] * (rank - cur) + list(self._data.shape),))

    def unsqueeze_dim(self, dim: int) -> "Tensor":
        """Inserts a size-1 dim at ``dim``."""
        rank = self._data.dim() + 1
        if not -rank <= dim < rank:
            raise IndexError(f"unsqueeze_dim: dimension {dim} is out of range for rank {rank - 1}")
        return apply1(S.UNSQUEEZE_DIM, self, (dim % rank,))

    def squeeze_dim(self, dim: int) -> "Tensor":
        """Removes dim ``dim``, which must have size 1 (ValueError otherwise)."""
        d = self._dim(dim)
        if self._data.shape[d] != 1:
            raise ValueError(f"squeeze_dim: dimension {d} has size {self._data.shape[d]}, not 1 "
                             f"(shape {self.dims()})")
        return apply1(S.SQUEEZE_DIM, self, (d,))

    def swap_dims(self, dim1: int, dim2: int) -> "Tensor":
        return apply1(S.SWAP_DIMS, self, (self._dim(dim1), self._dim(dim2)))

    def transpose(self) -> "Tensor":
        """Swaps the last two dims."""
        if self._data.dim() < 2:
            return self
        return apply1(S.SWAP_DIMS, self, (self._data.dim() - 2, self._data.dim() - 1))

    def permute(self, dims: Sequence[int]) -> "Tensor":
        dims = [self._dim(d) for d in dims]
        if sorted(dims) != list(range(self._data.dim())):
            raise ValueError(f"permute: {dims} is not a permutation of the dims of shape {self.dims()}")
        return apply1(S.PERMUTE, self, (dims,))

    def expand(self, dims: Sequence[int]) -> "Tensor":
        """Broadcasts to ``dims`` (``-1`` keeps a dim); the gradient is summed back."""
        return apply1(S.EXPAND, self, ([int(d) for d in dims],))

    def slice(self, ranges) -> "Tensor":
        """The sub-tensor selected by ``ranges``: one Python slice (or int, range, (start, end))
        per leading dim. Negative indices count from the end; a negative step walks the range
        backwards from its end, as Burn's ``s![a..b;-k]``."""
        if isinstance(ranges, (slice, int, range)):
            ranges = [ranges]
        shape = self._data.shape
        if len(ranges) > len(shape):
            raise ValueError(f"slice: {len(ranges)} ranges for a tensor of rank {len(shape)}")
        index = []
        flips = []
        for d, r in enumerate(ranges):
            s, backwards = norm_slice(r, shape[d])
            index.append(s)
            if backwards:
                flips.append(d)
        return apply1(S.SLICE, self, (tuple(index), tuple(flips)))

    def slice_dim(self, dim: int, range_) -> "Tensor":
        """Slices one dim; see :meth:`slice`."""
        d = self._dim(dim)
        return self.slice([slice(None)] * d + [range_])

    @staticmethod
    def cat(tensors: Sequence["Tensor"], dim: int) -> "Tensor":
        """Concatenates along ``dim``; all tensors must have the same kind and rank."""
        tensors = check_list("cat", tensors)
        d = tensors[0]._dim(dim)
        sizes = [t._data.shape[d] for t in tensors]
        return applyn(S.CAT, tensors, (d, sizes))

    @staticmethod
    def stack(tensors: Sequence["Tensor"], dim: int) -> "Tensor":
        """Stacks along a new dim ``dim``; all tensors must have the same shape and kind."""
        tensors = check_list("stack", tensors)
        rank = tensors[0]._data.dim() + 1
        if not -rank <= dim < rank:
            raise IndexError(f"stack: dimension {dim} is out of range for rank {rank}")
        return applyn(S.STACK, tensors, (dim % rank,))
