"""``python -m burn_torch_check PATH...``: see ``burn_torch_check.cli``."""
import sys

from .cli import main

sys.exit(main())
