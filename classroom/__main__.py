"""``python -m vizgrad.classroom``: the ``vizgrad`` command."""

import sys

from .cli import main

sys.exit(main())
