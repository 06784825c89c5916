"""The burn_torch imports a port needs, read off the code the translator wrote.

``needed_imports`` scans the translated source for the names the mapping table's templates
use and returns the import lines, grouped by module; ``BURN_NAMES`` is every name the
translator may bind, so that a torch import with the same local name is renamed. Torch-free.
"""
from __future__ import annotations

import re

_SOURCES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("burn_torch", ("Device", "Distribution", "Tensor", "Int", "Bool", "module_ops", "nn")),
    ("burn_torch.module", ("Module", "Param")),
    ("burn_torch.optim", ("AdaGradConfig", "AdamConfig", "AdamWConfig", "GradientsParams", "MomentumConfig",
                          "RmsPropConfig", "SgdConfig", "WeightDecayConfig", "StepLrSchedulerConfig",
                          "ExponentialLrSchedulerConfig", "CosineAnnealingLrSchedulerConfig")),
    ("burn_torch.compat", ("from_torch", "ported")),
    ("burn_torch.interop.torch_layers", ("Flatten", "Identity", "Sequential", "StackedGru", "StackedLstm", "StackedRnn")),
)

BURN_NAMES = frozenset(n for _, names in _SOURCES for n in names) | {"DEVICE"}

#: The line defining the default device of a port (what layers and tensors are created on when
#: the program names no device).
DEVICE_LINE = "DEVICE = Device.default().autodiff()  # burn-torch-port: the port's default device"


def needed_imports(code: str) -> list[str]:
    """The ``from ... import ...`` lines for the burn_torch names ``code`` uses (``Device`` too
    when it uses ``DEVICE``), in a fixed order."""
    used = set(re.findall(r"(?<![\w.])([A-Za-z_]\w*)\b", code))
    if "DEVICE" in used:
        used.add("Device")
    lines = []
    for module, names in _SOURCES:
        wanted = [n for n in names if n in used]
        if wanted:
            lines.append(f"from {module} import {', '.join(wanted)}")
    return lines
