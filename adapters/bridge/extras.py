"""The optional parts of the bridge and the extra that installs each.

``pip install vttbridge`` brings what one server with its SQLite file needs. PostgreSQL and the
cluster need drivers that most GMs never use; they come with extras, and using either without it
stops with the command that installs it rather than an ImportError.
"""

from __future__ import annotations

import importlib

from vttbridge.adapters.bridge.storage.errors import StoreError

POSTGRES = ("asyncpg", "postgres", "PostgreSQL databases (--db postgresql://...)")
CLUSTER = ("redis", "cluster", "A cluster (--redis redis://...)")


class MissingExtra(StoreError):
    """An optional part is used but its extra is not installed."""

    def __init__(self, module: str, extra: str, feature: str) -> None:
        self.module, self.extra = module, extra
        super().__init__(
            f"{feature} need the {module} package, which is not installed. Install it with: "
            f"pip install 'vttbridge[{extra}]'"
        )


def require(part: tuple[str, str, str]) -> None:
    """Raise :class:`MissingExtra` unless ``part`` (:data:`POSTGRES`, :data:`CLUSTER`) can be
    imported."""
    module, extra, feature = part
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name != module:  # installed, but broken: its own error says more
            raise
        raise MissingExtra(module, extra, feature) from None
