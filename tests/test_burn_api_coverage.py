"""burn_torch's Tensor has (by name) at least 95% of Burn 0.21's public tensor methods, listed in
``tests/data/burn_tensor_methods.txt`` with the file of ``burn-tensor/src/tensor/api`` that
defines each; and every method Burn's newest sources add (``burn_tensor_methods_newest.txt``)
is either a Tensor method or listed under "Not added", with its reason, on the API reference's
tensor page."""
from __future__ import annotations

import re
from pathlib import Path

from burn_torch import Tensor

DATA = Path(__file__).resolve().parent / "data"
LIST = DATA / "burn_tensor_methods.txt"
NEWEST = DATA / "burn_tensor_methods_newest.txt"
TENSOR_PAGE = Path(__file__).resolve().parent.parent / "docs" / "api" / "tensor.md"


def burn_methods(path: Path = LIST) -> dict[str, str]:
    """``{method name: defining file}`` from a data file (comments and blank lines skipped)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, source = line.split()
            out[name] = source
    return out


def documented_as_not_added() -> set[str]:
    """The names in the bullets of the tensor page's "Not added" section: each bullet starts
    with the names it gives a reason for, in backticks, up to the colon."""
    page = TENSOR_PAGE.read_text(encoding="utf-8")
    section = page.split("### Not added", 1)[1].split("\n#", 1)[0]
    names = set()
    for bullet in re.findall(r"^- (.+?):", section, flags=re.MULTILINE):
        names.update(re.findall(r"`(\w+)`", bullet))
    return names


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


def test_the_newest_list_holds_only_methods_that_burn_0_21_lacks():
    newest, old = burn_methods(NEWEST), burn_methods()
    assert {"select_dim", "empty_like", "no_grad", "to_data_as", "try_to_vec_as"} <= set(newest)
    assert not set(newest) & set(old)


def test_every_newer_burn_method_is_on_tensor_or_documented_as_not_added():
    newest = burn_methods(NEWEST)
    absent = {name for name in newest if not callable(getattr(Tensor, name, None))}
    not_added = documented_as_not_added()
    assert absent <= not_added, f"missing without a documented reason: {sorted(absent - not_added)}"


def test_the_not_added_section_names_no_method_that_tensor_has():
    stale = {name for name in documented_as_not_added() if callable(getattr(Tensor, name, None))}
    assert not stale, f"documented as not added, yet Tensor has: {sorted(stale)}"
