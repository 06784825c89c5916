"""Every op-table entry against its spec row (``tests/spec``): forward equal to torch's,
gradients of every leaf's shape equal to torch autograd's and to a float64 finite difference,
broadcast operands in every pattern, BALANCED bit-equal to DISABLED."""
import zlib

import pytest

from burn_torch.ops import OPS
from spec import all_rows, check

ROWS = all_rows()
CASES = [(row, case_id, args) for row in ROWS for case_id, args in row.cases()]


@pytest.mark.parametrize("row,case_id,args", CASES,
                         ids=[f"{row.id}-{case_id}" for row, case_id, _ in CASES])
def test_op_matches_its_spec_row(row, case_id, args):
    op = OPS[row.op]
    check(row, args, zlib.crc32(f"{row.id}-{case_id}".encode()), op.differentiable)


def test_every_op_table_entry_has_a_spec_row():
    missing = sorted(set(OPS) - {row.op for row in ROWS})
    assert not missing, f"{len(missing)} op-table entries have no spec row in tests/spec: {missing}"


def test_spec_rows_name_only_op_table_entries():
    unknown = sorted({row.op for row in ROWS} - set(OPS))
    assert not unknown, f"spec rows name ops that are not in burn_torch.ops.OPS: {unknown}"


def test_every_row_of_a_binary_elementwise_op_broadcasts():
    """Ops declared with two or three same-rank inputs must be checked with broadcast operands."""
    multi = {name for name, op in OPS.items() if len(op.inputs) >= 2 and not op.variadic}
    unchecked = sorted(name for name in multi
                       if not any(row.op == name and row.broadcast for row in ROWS)
                       and name not in NOT_BROADCASTING)
    assert not unchecked, f"multi-input ops without broadcast cases: {unchecked}"


# Multi-input ops whose operands do not broadcast by definition (shapes fixed by the op).
NOT_BROADCASTING = {"linear", "layer_norm", "rms_norm", "group_norm", "batch_norm",
                    "batch_norm_stats", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                    "conv_transpose2d", "conv_transpose3d",
                    "deform_conv2d", "attention", "mha_weights", "mse_loss", "huber_loss",
                    "cross_entropy", "cross_entropy_with_logits", "slice_assign", "cross", "prelu",
                    "matmul", "irfft", "embedding", "grid_sample_2d"}
# Indexed updates: ``values`` has the shape the indices address (select_assign: the tensor's with
# ``len(indices)`` along ``dim``; scatter: the indices' shape; scatter_nd: ``indices.shape[:-1] +
# x.shape[K:]``), checked exactly by the methods: neither operand broadcasts.
NOT_BROADCASTING |= {f"{family}_{op}" for family in ("select_assign", "scatter", "scatter_nd")
                     for op in ("add", "assign", "mul", "min", "max")}
