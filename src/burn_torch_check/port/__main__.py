"""``python -m burn_torch_check.port SRC.py``: see ``burn_torch_check.port.cli``."""
import sys

from .cli import main

sys.exit(main())
