"""``python -m vttbridge`` is the ``vttbridge`` command."""

import sys

from vttbridge.adapters.bridge.launch import run

sys.exit(run())
