"""``python -m burn_torch_check.port SRC.py``: see :mod:`burn_torch_check.port.cli`."""
import sys

from .cli import main

sys.exit(main())
