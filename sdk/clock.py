"""Time for prompt deadlines and ``wait_for`` timeouts, behind a small interface so tests can
drive it by hand (:class:`ManualClock`) instead of sleeping."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import time
from collections.abc import Callable
from typing import Protocol


class Handle(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        """Run ``callback`` (synchronously, on the event loop) after ``delay`` seconds."""
        ...


class SystemClock:
    """Wall-clock time and the event loop's timers. A timer armed from another thread (a
    world's script callback thread, :class:`vttbridge.sdk.watchdog.CallbackThread`) is armed by
    the loop the clock last ran on, its callback run there."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()

    def now(self) -> float:
        return time.time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            if self._loop is None:
                raise
            return _ArmedFromThread(self._loop, max(0.0, delay), callback)
        self._loop = loop
        return loop.call_later(max(0.0, delay), callback)


class _ArmedFromThread:
    """A timer asked for off the loop: the loop arms it (its timers are the loop's alone)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, delay: float, cb: Callable[[], None]):
        self._handle: asyncio.TimerHandle | None = None
        self._cancelled = False
        loop.call_soon_threadsafe(self._arm, loop, time.monotonic() + delay, cb)

    def _arm(self, loop: asyncio.AbstractEventLoop, due: float, cb: Callable[[], None]) -> None:
        if not self._cancelled:
            self._handle = loop.call_later(max(0.0, due - time.monotonic()), cb)

    def cancel(self) -> None:
        self._cancelled = True
        if self._handle is not None:
            self._handle.cancel()


class _ManualHandle:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that only moves when told: ``clock.advance(60)`` runs every timer due by then."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = start
        self._heap: list[tuple[float, int, _ManualHandle, Callable[[], None]]] = []
        self._seq = itertools.count()

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> Handle:
        h = _ManualHandle()
        heapq.heappush(self._heap, (self._now + max(0.0, delay), next(self._seq), h, callback))
        return h

    def advance(self, seconds: float) -> int:
        """Move time forward, running due timers in order; returns how many ran."""
        target = self._now + seconds
        ran = 0
        while self._heap and self._heap[0][0] <= target:
            when, _, h, cb = heapq.heappop(self._heap)
            self._now = max(self._now, when)
            if not h.cancelled:
                cb()
                ran += 1
        self._now = target
        return ran

    @property
    def pending(self) -> int:
        return sum(1 for *_, h, _cb in self._heap if not h.cancelled)
