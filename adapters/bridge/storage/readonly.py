"""The writer of a database opened read-only (``open_storage(..., read_only=True)``): it
refuses every write, so a tool that reads a served world (``vttbridge replay``) cannot change
it by mistake."""

from __future__ import annotations

from typing import Any

from vttbridge.adapters.bridge.storage.errors import StoreError
from vttbridge.adapters.bridge.storage.groupcommit import GroupCommit


class ReadOnlyWriter(GroupCommit):
    """Raises :class:`StoreError` at the first row queued."""

    def __init__(self, where: str) -> None:
        super().__init__()
        self.where = where

    def _add(self, item: Any) -> None:
        if isinstance(item, tuple):  # (op, row); a barrier passes
            raise StoreError(f"{self.where} is open read-only: no {item[0]} can be written")
        super()._add(item)

    def _send(self, buf: list[Any]) -> None:  # only barriers reach it: nothing to commit
        self._settle([it for it in buf if not isinstance(it, tuple)], None, {})
