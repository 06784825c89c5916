"""The autodiff engine: graph nodes (``graph``), recording (``recorder``), backward (``engine``)
and the ``Gradients`` container (``gradients``)."""
