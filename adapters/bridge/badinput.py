"""The server log's account of bad client input: one warning line each, never a traceback,
and rate-limited, so a client that sends garbage on purpose cannot flood the log."""

from __future__ import annotations

import logging

from vttbridge.adapters.bridge.ratelimit import TokenBucket

log = logging.getLogger("vttbridge")


class BadInput:
    """``burst`` warnings at once, then ``per_minute``; the lines left out meanwhile are
    counted in the next line written."""

    def __init__(self, burst: int = 10, per_minute: float = 10.0) -> None:
        self.bucket = TokenBucket(per_minute / 60.0, burst)
        self.left_out = 0

    def warn(self, message: str, *args: object) -> None:
        if self.bucket.take():
            self.left_out += 1
            return
        if self.left_out:
            message += " (%d more warnings about bad client input were left out before this one)"
            args = (*args, self.left_out)
            self.left_out = 0
        log.warning(message, *args)
