"""The testing kit's pytest plugin ([`burn_torch_pytest.plugin`][burn_torch_pytest.plugin]) and
hypothesis profiles ([`burn_torch_pytest.profiles`][burn_torch_pytest.profiles]), outside the
``burn_torch`` package so that loading them imports neither torch nor burn_torch."""
