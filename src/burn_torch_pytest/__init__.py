"""The testing kit's pytest plugin (:mod:`burn_torch_pytest.plugin`) and hypothesis profiles
(:mod:`burn_torch_pytest.profiles`), outside the ``burn_torch`` package so that loading them
imports neither torch nor burn_torch."""
