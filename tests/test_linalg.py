"""``burn_torch.linalg``: Burn's ``tensor::linalg`` functions composed of op-table entries
(norms, ``diag``, ``trace``, ``outer``, ``matvec``), each against a torch reference with the
op-spec checks (forward, gradients against torch autograd and a float64 finite difference,
BALANCED bit-equal to DISABLED), then Burn's own examples and argument checks. ``det`` and ``qr``
are op-table entries: their rows are in ``spec/linalg.py``."""
from __future__ import annotations

import math
import zlib

import pytest
import torch

from burn_torch import Tensor, linalg
from burn_torch.linalg import Norm
from helpers import AD
from spec import F, NZ, Row, check

S = (2, 3, 4)

COMPOSED = [
    Row("vector_norm", lambda x: linalg.vector_norm(x, Norm.L2, 1),
        lambda x: x.norm(2, 1, keepdim=True), (NZ(*S),)),
    Row("vector_norm", lambda x: linalg.vector_norm(x, 3, -1),
        lambda x: x.abs().pow(3).sum(-1, keepdim=True).pow(1 / 3), (NZ(*S),), variant="p = 3"),
    Row("vector_norm", lambda x: linalg.vector_norm(x, Norm.lp(4), 0),
        lambda x: x.pow(4).sum(0, keepdim=True).pow(0.25), (NZ(*S),), variant="p = 4"),
    Row("vector_norm", lambda x: linalg.vector_norm(x, Norm.LInf, 2),
        lambda x: x.abs().amax(2, keepdim=True), (NZ(*S),), variant="infinity"),
    Row("l1_norm", lambda x: linalg.l1_norm(x, 1), lambda x: x.abs().sum(1, keepdim=True),
        (NZ(*S),)),
    Row("l2_norm", lambda x: linalg.l2_norm(x, -1), lambda x: x.norm(2, -1, keepdim=True),
        (NZ(*S),)),
    Row("min_abs_norm", lambda x: linalg.min_abs_norm(x, 1),
        lambda x: x.abs().amin(1, keepdim=True), (NZ(*S),)),
    Row("vector_normalize", lambda x: linalg.vector_normalize(x, 2, 1, 1e-12),
        lambda x: x / x.norm(2, 1, keepdim=True), (NZ(*S),)),
    Row("diag", linalg.diag, lambda x: torch.diagonal(x, 0, -2, -1), (F(*S),)),
    Row("diag", linalg.diag, lambda x: torch.diagonal(x, 0, -2, -1), (F(5, 3),), variant="tall"),
    Row("trace", linalg.trace, lambda x: torch.diagonal(x, 0, -2, -1).sum(-1, keepdim=True),
        (F(2, 4, 4),)),
    Row("outer", linalg.outer, lambda a, b: a[..., :, None] * b[..., None, :], (F(2, 3), F(2, 4))),
    Row("outer_dim", lambda a, b: linalg.outer_dim(a, b, 0), lambda a, b: a[:, None] * b[None, :],
        (F(3, 2), F(4, 2))),
    Row("matvec", linalg.matvec, lambda m, v: (m @ v[..., None])[..., 0], (F(2, 3, 4), F(2, 4))),
    Row("matvec", linalg.matvec, lambda m, v: (m @ v[..., None])[..., 0], (F(2, 3, 4), F(1, 4)),
        variant="broadcast batch"),
]
CASES = [(row, case_id, args) for row in COMPOSED for case_id, args in row.cases()]


@pytest.mark.parametrize("row,case_id,args", CASES, ids=[f"{r.id}-{c}" for r, c, _ in CASES])
def test_linalg_function_matches_torch_in_value_and_gradient(row, case_id, args):
    check(row, args, zlib.crc32(f"{row.id}-{case_id}".encode()), True)


def floats(values):
    return Tensor.from_data(torch.tensor(values, dtype=torch.float64), AD)


# ================================================================== Burn's own expectations ====
def test_det_gives_burns_documented_examples():
    assert linalg.det(floats([[[4.0, 3.0], [6.0, 3.0]]])).to_data().to_list() == [-6.0]
    batch = floats([[[1.0, 2.0], [3.0, 4.0]], [[2.0, 0.0], [0.0, 3.0]], [[5.0, 6.0], [7.0, 8.0]]])
    assert linalg.det(batch).to_data().to_list() == [-2.0, 6.0, -2.0]  # closed forms: exact


def test_det_of_a_singular_matrix_has_the_adjugate_as_gradient():
    x = floats([[[1.0, 2.0], [2.0, 4.0]]]).require_grad()
    grads = linalg.det(x).sum().backward()
    assert x.grad(grads).to_data().to_list() == [[[4.0, -2.0], [-2.0, 1.0]]]


def test_det_needs_a_batch_of_square_float_matrices():
    with pytest.raises(ValueError, match="unsqueeze_dim"):
        linalg.det(floats([[1.0, 2.0], [3.0, 4.0]]))
    with pytest.raises(ValueError):
        linalg.det(floats([[[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]]))
    with pytest.raises(TypeError):
        linalg.det(Tensor.from_data([[[1, 2], [3, 4]]], AD))


def test_the_integer_norms_keep_the_int_kind():
    x = Tensor.from_data([[3, -4, 0]], AD)
    assert linalg.l0_norm(x, 1).to_data().to_list() == [[2]]
    assert linalg.l1_norm(x, 1).to_data().to_list() == [[7]]
    assert linalg.max_abs_norm(x, 1).to_data().to_list() == [[4]]
    assert linalg.min_abs_norm(x, 1).to_data().to_list() == [[0]]


def test_l0_norm_counts_non_zeros_and_has_no_gradient():
    x = floats([[0.0, 2.5, -1.0]]).require_grad()
    out = linalg.l0_norm(x, -1)
    assert out.to_data().to_list() == [[2.0]] and not out.is_tracked()


def test_a_norm_is_a_norm_or_its_exponent():
    x = floats([[3.0, -4.0]])
    assert linalg.vector_norm(x, Norm.L2, 1).to_data() == linalg.vector_norm(x, 2, 1).to_data()
    assert linalg.vector_norm(x, Norm.LNegInf, 1).to_data().to_list() == [[3.0]]
    assert Norm.LInf.to_exponent() == math.inf and Norm.lp(3).to_exponent() == 3.0
    with pytest.raises(TypeError):
        linalg.vector_norm(x, "l2", 1)
    with pytest.raises(TypeError):
        linalg.vector_norm(Tensor.from_data([[3, 4]], AD), 2, 1)


def test_diag_takes_every_kind_and_the_shorter_side():
    m = Tensor.from_data(torch.arange(12).reshape(2, 2, 3), AD)
    assert linalg.diag(m).to_data().to_list() == [[0, 4], [6, 10]]
    flags = Tensor.from_bools([[True, False], [False, False]], AD)
    assert linalg.diag(flags).to_data().to_list() == [True, False]
    with pytest.raises(ValueError):
        linalg.diag(floats([1.0, 2.0]))


def test_trace_keeps_the_summed_dim_as_burn():
    assert linalg.trace(floats([[1.0, 2.0], [3.0, 4.0]])).to_data().to_list() == [5.0]


def test_outer_and_matvec_on_int_tensors():
    a, b = Tensor.from_data([1, 2], AD), Tensor.from_data([3, 4, 5], AD)
    assert linalg.outer(a, b).to_data().to_list() == [[3, 4, 5], [6, 8, 10]]
    m = Tensor.from_data([[1, 2], [3, 4]], AD)
    assert linalg.matvec(m, a).to_data().to_list() == [5, 11]


def test_outer_and_matvec_check_ranks_and_sizes():
    with pytest.raises(ValueError, match="one rank"):
        linalg.outer(floats([1.0]), floats([[1.0]]))
    with pytest.raises(TypeError):
        linalg.outer(floats([1.0]), Tensor.from_data([1], AD))
    with pytest.raises(ValueError, match="rank one less"):
        linalg.matvec(floats([[1.0, 2.0]]), floats([[1.0, 2.0]]))
    with pytest.raises(ValueError, match="2 columns, the vector 3"):
        linalg.matvec(floats([[1.0, 2.0]]), floats([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="do not broadcast"):
        linalg.matvec(floats([[[1.0]], [[2.0]]]), floats([[1.0], [2.0], [3.0]]))
