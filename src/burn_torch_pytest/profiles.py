"""The testing kit's hypothesis profiles (imports hypothesis only; neither pytest nor torch)."""
from __future__ import annotations

#: The hypothesis profiles the kit provides.
PROFILES = ("burn_torch-ci", "burn_torch-dev")


def register_hypothesis_profiles() -> None:
    """Registers the ``burn_torch-ci`` and ``burn_torch-dev`` hypothesis profiles (imports
    hypothesis; raises ImportError without it)."""
    from hypothesis import HealthCheck, settings

    settings.register_profile("burn_torch-ci", max_examples=200, derandomize=True, deadline=None,
                              database=None, print_blob=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("burn_torch-dev", max_examples=25, deadline=None)
