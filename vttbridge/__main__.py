"""``python -m vttbridge`` is the ``vttbridge`` command."""

import sys

from vttbridge.adapters.bridge.cli import main

sys.exit(main())
