"""What a database refuses, for the bridge to act on."""

from __future__ import annotations


class StoreError(Exception):
    """The database cannot be used (wrong schema version, unreachable server, unwritable
    file...)."""


class NotOwner(StoreError):
    """A write of a world whose lease this node no longer holds: another node took the world
    over (its fence is newer), or the lease was released. The rows were not written; the
    world's state in this node's memory is stale and must be dropped."""

    def __init__(self, world: str, fence: int, current: int | None) -> None:
        self.world, self.fence, self.current = world, fence, current
        now = "it has no owner now" if current is None else f"its fence is now {current}"
        super().__init__(
            f"world {world!r} is no longer owned by this node (written with fence {fence}; {now})"
        )
