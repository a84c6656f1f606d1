"""``python -m diffident``: the ``diffident`` command."""

import sys

from .cli import main

sys.exit(main())
