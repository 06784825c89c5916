"""burn_torch's Tensor has (by name) at least 95% of Burn 0.21's public tensor methods, listed in
``tests/data/burn_tensor_methods.txt`` with the file of ``burn-tensor/src/tensor/api`` that
defines each."""
from __future__ import annotations

from pathlib import Path

from burn_torch import Tensor

LIST = Path(__file__).resolve().parent / "data" / "burn_tensor_methods.txt"


def burn_methods() -> dict[str, str]:
    """``{method name: defining file}`` from the data file (comments and blank lines skipped)."""
    out = {}
    for line in LIST.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, source = line.split()
            out[name] = source
    return out


def test_the_method_list_is_burns_api_and_nothing_else():
    methods = burn_methods()
    assert len(methods) > 200
    assert {"from_data", "matmul", "sum_dim", "bool_and", "fmod", "pad", "take"} <= set(methods)
    assert not {"into_primitive", "from_primitive", "inplace"} & set(methods)


def test_tensor_has_at_least_95_percent_of_burns_tensor_methods():
    methods = burn_methods()
    missing = sorted(f"{name} ({source})" for name, source in methods.items()
                     if not callable(getattr(Tensor, name, None)))
    covered = len(methods) - len(missing)
    assert covered >= 0.95 * len(methods), \
        f"{covered}/{len(methods)} of Burn's tensor methods exist; missing: {missing}"
