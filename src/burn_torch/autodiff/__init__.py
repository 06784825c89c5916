"""The autodiff engine: graph nodes (``graph``), recording (``record``), backward (``engine``)
and the ``Gradients`` container (``gradients``)."""
