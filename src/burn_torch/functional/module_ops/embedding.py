"""Burn's ``module::embedding``: rows of a weight table picked by Int indices."""
from __future__ import annotations

from ... import validate
from ...autodiff.recorder import apply1
from ...dtype import Int, kind_of
from ...ops import nn as nn_ops
from ...tensor import Tensor
from .checks import _describe, _float, _shape


def embedding(weights: Tensor, indices: Tensor) -> Tensor:
    """Rows of ``weights [n_embeddings, d_model]`` picked by Int ``indices [batch, seq]``;
    returns ``[batch, seq, d_model]``. The gradient accumulates into the picked rows."""
    _float("embedding", "weights", weights, 2, " [n_embeddings, d_model]")
    if not isinstance(indices, Tensor) or kind_of(indices._data.dtype) is not Int:
        raise TypeError(f"embedding: indices must be an Int Tensor, got {_describe(indices)}")
    if indices._data.dim() != 2:
        raise ValueError(f"embedding: indices must have rank 2 [batch, seq], got shape "
                         f"{_shape(indices)}")
    # torch's kernel checks the range itself (IndexError, with no host read of the indices on
    # the way in): only a failure pays for the check that names the bad index
    try:
        return apply1(nn_ops.EMBEDDING, weights, (indices._data,))
    except IndexError as err:
        error = err
    validate.indices_in_range("embedding", 0, indices._data, weights._data.shape[0],
                              weights._data.shape)
    raise error
