"""Token buckets: the one rate limiter of the bridge (events per connection and per world,
the dashboard's answers, wrong key attempts, warnings about bad input)."""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], float]
"""Seconds on a clock that only goes forward (``time.monotonic``; tests pass their own)."""


class TokenBucket:
    """``burst`` at once, ``rate`` per second sustained (``rate`` 0 or less: no limit), on
    ``clock``."""

    __slots__ = ("burst", "clock", "rate", "t", "tokens")

    def __init__(self, rate: float, burst: float, clock: Clock = time.monotonic) -> None:
        self.rate = rate
        self.burst = float(max(1, burst))
        self.tokens = self.burst
        self.clock = clock
        self.t = clock()

    def level(self) -> float:
        """The tokens there are now (refilled for the time since the last look)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        return self.tokens

    def take(self) -> float:
        """Spend one token: 0 if there was one, else (nothing spent) the seconds until there
        will be."""
        if self.rate <= 0:
            return 0.0
        if self.level() >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate

    def wait(self) -> float:
        """Seconds until a token is there (0: now); spends nothing."""
        if self.rate <= 0:
            return 0.0
        tokens = self.level()
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    def drain(self) -> None:
        """Spend a token, or nothing if there is none: what happened counts even so (a
        wrong key given while already throttled)."""
        self.tokens = max(0.0, self.level() - 1)


class WorldBuckets:
    """The per-world limit: one bucket for all connections of a world."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self._buckets: dict[str, TokenBucket] = {}

    def of(self, world: str) -> TokenBucket | None:
        """The bucket ``world``'s connections share (None: no per-world limit)."""
        if self.rate <= 0:
            return None
        bucket = self._buckets.get(world)
        if bucket is None:
            bucket = self._buckets[world] = TokenBucket(self.rate, self.burst)
        return bucket
