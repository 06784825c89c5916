"""The mutation test of the translator's mapping table: for each row with a deliberately wrong
translation (``Row.mutant``), the verification step catches it.

Each row's probe program exercises its idiom; translated with the real table it passes
``verify_port`` (forward, loss, every gradient; optimizer settings; or, for the loop rows, the
weights after three training steps side by side); translated with that one row replaced by its
mutant, it fails (or raises) there. A table row whose wrong translation went unnoticed would
mean the verification cannot protect a port from that row's mistakes.
"""
from __future__ import annotations

import dataclasses
import re

import pytest
import torch

from burn_torch.compat import verify_port
from burn_torch.compat.ported import verify_translation
from burn_torch.interop import load_torch_state_dict, to_torch_layout
from burn_torch_check.port import ROWS, translate_source
from port_probes import (LOSS_PROGRAM, OPTIMIZER_PROGRAM, TRAINING_LOOP, TRAINING_SETUP, _HEADER,
                         probe_program)

MUTATED = [r for r in ROWS if r.mutant is not None]
LOOP_MARK = "# <loop>"


pytestmark = pytest.mark.usefixtures("torch_default_kernels")  # the probes are tiny and run once


def _mutant(row):
    return {row.id: dataclasses.replace(row, burn=row.mutant)}


def _run(source: str) -> dict:
    namespace: dict = {"__name__": "probe"}
    exec(compile(source, "probe.py", "exec"), namespace)  # noqa: S102 - test programs
    return namespace


def _verified(row, table, tmp_path) -> bool:
    """Whether the probe of ``row``, translated with ``table``, passes verification (a failure
    to translate, load or run counts as caught)."""
    try:
        return _verify(row, table, tmp_path)
    except Exception:  # noqa: BLE001 - any failure of the port is the verification catching it
        return False


def _verify(row, table, tmp_path) -> bool:
    if row.probe == "loss":
        return _verify_loss(row, table)
    if row.probe == "optimizer":
        return _verify_optimizer(row, table)
    if row.probe == "training":
        return _verify_training(table)
    source, inputs = probe_program(row)
    original, port = tmp_path / "probe.py", tmp_path / "probe_port.py"
    original.write_text(source)
    port.write_text(translate_source(source, table).code)
    return verify_translation(original, port, "M()", inputs, "mse").passed


def _verify_loss(row, table) -> bool:
    source = _HEADER + LOSS_PROGRAM.replace("{example}", row.example)
    torch_ns, port_ns = _run(source), _run(translate_source(source, table).code)
    torch_model = torch_ns["M"]()
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(2, 4, generator=gen)
    t = torch.randint(0, 2, (2, 3), generator=gen) if row.id in ("mse_loss", "bce_loss") \
        else torch.randint(0, 3, (2,), generator=gen)
    return verify_port(torch_model, port_ns["M"](), (x, t), torch_ns["loss_fn"], port_ns["loss_fn"]).passed


def _verify_optimizer(row, table) -> bool:
    source = _HEADER + OPTIMIZER_PROGRAM.replace("{example}", row.example)
    port = translate_source(source, table).code
    torch_ns, port_ns = _run(source), _run(port)
    config = re.search(r"^optimizer = (.*)\.init\(\)$", port, re.M).group(1)
    gen = torch.Generator().manual_seed(3)
    batch = (torch.randn(3, 4, generator=gen), torch.randn(3, 2, generator=gen))
    report = verify_port(torch_ns["model"], port_ns["model"], batch, torch.nn.functional.mse_loss,
                         lambda out, t: ((out - t) * (out - t)).mean(), steps=2,
                         torch_optimizer=torch_ns["optimizer"], burn_optimizer=eval(config, port_ns))  # noqa: S307
    return report.passed


def _verify_training(table) -> bool:
    source = _HEADER + TRAINING_SETUP + LOOP_MARK + "\n" + TRAINING_LOOP
    setup_port, loop_port = translate_source(source, table).code.split(LOOP_MARK)
    gen = torch.Generator().manual_seed(3)
    loader = [(torch.randn(3, 4, generator=gen), torch.randn(3, 2, generator=gen)) for _ in range(3)]
    torch_ns = _run(_HEADER + TRAINING_SETUP)
    port_ns = _run(setup_port)
    port_ns["model"], _ = load_torch_state_dict(port_ns["model"], torch_ns["model"].state_dict())
    for ns, loop in ((torch_ns, TRAINING_LOOP), (port_ns, loop_port)):
        ns["train_loader"] = loader
        exec(compile(loop, "loop.py", "exec"), ns)  # noqa: S102
    trained = to_torch_layout(port_ns["model"], {n: p.val().to_torch() for n, p in port_ns["model"].named_params()})
    return all(torch.allclose(trained[n], p, atol=1e-6) for n, p in torch_ns["model"].named_parameters())


@pytest.mark.parametrize("row", MUTATED, ids=lambda r: r.id)
def test_the_verification_passes_the_rows_translation_and_catches_its_wrong_one(row, tmp_path):
    assert _verified(row, None, tmp_path), f"{row.id}: the correct translation must verify"
    assert not _verified(row, _mutant(row), tmp_path), f"{row.id}: the wrong translation went unnoticed"


def test_rows_without_a_mutant_are_those_whose_mistakes_verification_cannot_see():
    """Dropout is off in the compared (eval) mode, renames that keep the values have no wrong
    version a port could make silently, and statements such as zero_grad are checked by the
    training probe as a whole."""
    assert {r.id for r in ROWS if r.mutant is None and not r.left} == {
        "dropout", "identity", "module_dict", "own_module", "buffer", "contiguous", "item", "cast",
        "creation", "to_device", "zero_grad", "backward", "scheduler_step", "eval", "train",
        "module_to_device", "batch_from_torch", "device", "seed", "save", "load", "to_torch",
        "optional_param_value"}
