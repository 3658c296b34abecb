"""Spycraft 2.0 rules. Importing the package registers their round and turn hooks."""

from rules.spycraft import (
    ready,  # noqa: F401  (registers the Ready round/turn hooks)
    standoff,  # noqa: F401  (registers the Stand Off round hook)
)
