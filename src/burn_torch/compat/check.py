"""The porting checker, under its historical path.

The checker lives in the torch-free top-level package ``burn_torch_check`` (so that
``burn-torch-check`` starts without importing torch); ``python -m burn_torch.compat.check`` still
works, after importing burn_torch.
"""
import sys

from burn_torch_check.check import GUIDE, Finding, Selection, check_source, check_tree, detector_map
from burn_torch_check.cli import main, python_files
from burn_torch_check.report import summary

__all__ = ["GUIDE", "Finding", "Selection", "check_source", "check_tree", "detector_map", "main",
           "python_files", "summary"]

if __name__ == "__main__":
    sys.exit(main())
