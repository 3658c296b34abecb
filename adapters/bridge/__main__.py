"""``python -m adapters.bridge`` is ``vttbridge``."""

import sys

from adapters.bridge.cli import main

sys.exit(main())
