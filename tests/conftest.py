"""Fixtures shared by several test modules (plain constants and classes are in ``helpers.py``)."""
from __future__ import annotations

import gc

import pytest


@pytest.fixture
def no_gc():
    """Disables the cyclic garbage collector for the test, so anything kept alive only by a
    reference cycle stays alive: a value is freed by reference counting alone, the moment its
    last handle is dropped. Use it in a module with ``pytestmark = pytest.mark.usefixtures("no_gc")``."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@pytest.fixture
def torch_default_kernels():
    """Switches ``burn_torch.autotune`` off for the test (every op runs torch's default kernel, no
    kernel timing) and back to what it was after. Use it in a module with
    ``pytestmark = pytest.mark.usefixtures("torch_default_kernels")``."""
    from burn_torch import autotune
    before = autotune.enabled()
    autotune.set_enabled(False)
    yield
    autotune.set_enabled(before)


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: needs a CUDA device (scripts/gpu-check runs these)")
    config.addinivalue_line("markers", "serial: not run beside other tests (./scripts/test runs "
                                       "these after the parallel pass, in one process)")
