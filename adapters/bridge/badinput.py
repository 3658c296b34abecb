"""The server log's account of bad client input: one warning line each, never a traceback,
and rate-limited, so a client that sends garbage on purpose cannot flood the log."""

from __future__ import annotations

import logging
import time

log = logging.getLogger("vttbridge")


class BadInput:
    """``burst`` warnings at once, then ``per_minute``; the lines left out meanwhile are
    counted in the next line written."""

    def __init__(self, burst: int = 10, per_minute: float = 10.0) -> None:
        self.burst = float(burst)
        self.rate = per_minute / 60.0
        self.tokens = self.burst
        self.t = time.monotonic()
        self.left_out = 0

    def warn(self, message: str, *args: object) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        if self.tokens < 1:
            self.left_out += 1
            return
        self.tokens -= 1
        if self.left_out:
            message += " (%d more warnings about bad client input were left out before this one)"
            args = (*args, self.left_out)
            self.left_out = 0
        log.warning(message, *args)
