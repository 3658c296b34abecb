"""A world's dedup memory: the ids of the events it accepted last, with each one's seq."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator


class RecentIds:
    """The last ``size`` accepted event ids and their seqs; the oldest is forgotten first.

    Kept in :attr:`PARTS` small dicts chosen by the id's hash rather than in one. A dict that
    keeps forgetting rebuilds its table every few thousand new keys (the forgotten ones leave
    holes), all in one call: for one dict of 4,096 ids that took 0.3-0.6 ms of an ack's way
    in the event loop, and a hundred worlds played at one pace rebuilt theirs in the same few
    turns (15-28 ms). A part rebuilds a sixteenth of that, each at its own moment."""

    PARTS = 16

    __slots__ = ("_order", "_parts", "size")

    def __init__(self, size: int, ids: Iterable[tuple[str, int]] = ()) -> None:
        self.size = size
        self._order: deque[str] = deque()  # oldest first
        self._parts: tuple[dict[str, int], ...] = tuple({} for _ in range(self.PARTS))
        for event_id, seq in ids:
            self.add(event_id, seq)

    def get(self, event_id: str) -> int | None:
        """The seq of an event accepted with this id, if it is remembered."""
        return self._parts[hash(event_id) % self.PARTS].get(event_id)

    def add(self, event_id: str, seq: int) -> None:
        """Remember an accepted event (one already remembered keeps its place)."""
        part = self._parts[hash(event_id) % self.PARTS]
        if event_id not in part:
            self._order.append(event_id)
        part[event_id] = seq
        while len(self._order) > self.size:
            old = self._order.popleft()
            del self._parts[hash(old) % self.PARTS][old]

    def __len__(self) -> int:
        return len(self._order)

    def __iter__(self) -> Iterator[str]:
        """The ids, oldest first."""
        return iter(self._order)
