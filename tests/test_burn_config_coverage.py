"""burn_torch has (by name) at least 95% of Burn 0.21's public ``*Config`` structs of ``burn-nn``
and ``burn-optim``, listed in ``tests/data/burn_nn_optim_configs.txt`` with the file that defines
each; and every config it has is exercised by some test file (a cheap proxy for the equality test
each must have against torch or a float64 reference)."""
from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import burn_torch.nn
import burn_torch.optim

TESTS = Path(__file__).resolve().parent
LIST = TESTS / "data" / "burn_nn_optim_configs.txt"


def burn_configs() -> dict[str, str]:
    """``{config name: defining file}`` from the data file (comments and blank lines skipped)."""
    out = {}
    for line in LIST.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, source = line.split()
            out[name] = source
    return out


def public_modules(package: ModuleType) -> list[ModuleType]:
    """``package`` and its submodules whose dotted names have no ``_``-prefixed part."""
    found = [package]
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.append(importlib.import_module(info.name))
    return found


def our_configs() -> set[str]:
    """The public names ending in ``Config`` of burn_torch.nn, burn_torch.optim and their
    public submodules."""
    return {name for package in (burn_torch.nn, burn_torch.optim)
            for module in public_modules(package) for name in vars(module)
            if name.endswith("Config") and not name.startswith("_")}


def test_the_config_list_is_burns_nn_and_optim_configs():
    configs = burn_configs()
    assert len(configs) > 70
    assert {"LinearConfig", "Conv2dConfig", "AdamConfig", "SgdConfig",
            "CosineAnnealingLrSchedulerConfig"} <= set(configs)
    assert all(source.startswith(("burn-nn/src/", "burn-optim/src/"))
               for source in configs.values())


def test_at_least_95_percent_of_burns_nn_and_optim_configs_exist():
    configs, ours = burn_configs(), our_configs()
    missing = sorted(f"{name} ({source})" for name, source in configs.items() if name not in ours)
    covered = len(configs) - len(missing)
    assert covered >= 0.95 * len(configs), \
        f"{covered}/{len(configs)} of Burn's nn/optim configs exist; missing: {missing}"


def test_every_present_config_is_used_by_some_test_file():
    texts = [path.read_text(encoding="utf-8") for path in TESTS.rglob("*.py")
             if path.resolve() != Path(__file__).resolve()]
    present = set(burn_configs()) & our_configs()
    untested = sorted(name for name in present
                      if not any(re.search(rf"\b{name}\b", text) for text in texts))
    assert not untested, f"configs no test file uses: {untested}"
