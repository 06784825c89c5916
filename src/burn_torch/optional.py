"""Optional dependencies: each feature that needs a package outside the core names the extra
that installs it.

The core (tensors, autodiff, modules, optimizers, record files) needs torch, numpy,
safetensors, msgpack and cbor2. Extras (``pip install 'burn-torch[NAME]'``):

* ``train``: ``rich`` (the terminal dashboard of the Learner) and ``psutil`` (the ``CpuUse``
  and ``CpuMemory`` metrics);
* ``testing``: ``hypothesis`` ([`burn_torch.testing.strategies`][burn_torch.testing.strategies]).
"""
from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

#: The extra that installs each optional top-level package.
EXTRAS = {"rich": "train", "psutil": "train", "hypothesis": "testing"}


def available(package: str) -> bool:
    """Whether the top-level ``package`` can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(package) is not None
    except ValueError:  # a module set to None in sys.modules (tests simulate an absent package)
        return False


def missing(package: str, feature: str) -> ImportError:
    """The ImportError for ``feature`` without ``package``, naming the extra to install."""
    return ImportError(f"{feature} needs {package}, which is in burn_torch's "
                       f"'{EXTRAS[package]}' extra: pip install 'burn-torch[{EXTRAS[package]}]'")


def require(module: str, feature: str) -> ModuleType:
    """Imports ``module`` (``"rich.console"``); raises ``missing``'s ImportError for its
    top-level package when it is not installed."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise missing(module.split(".")[0], feature) from e
