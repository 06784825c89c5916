"""``burn-torch-port``: a source-to-source translator from PyTorch to burn_torch, on libcst and
torch-free like the checker.

``translate_source`` rewrites a program (modules, ``forward`` code, the training loop) row by
row of the mapping table (``.table``, keyed by the checker's catalog entries) and returns a
``Translation``; ``summarize`` counts its lines (translated, unchanged, left by reason);
``script`` writes the verification script run beside the port.
"""
from .summary import Summary, summarize
from .table import ROWS, Row, row
from .translate import Event, Translation, translate_source

__all__ = ["Event", "ROWS", "Row", "Summary", "Translation", "row", "summarize", "translate_source"]
