"""Waiting for the commands a bridge sends, without a quiet window that proves nothing."""

from __future__ import annotations

import asyncio
from typing import Any


async def commands_up_to(
    commands: list[dict[str, Any]], acked: int, latest: int, timeout: float = 10
) -> None:
    """Wait for the commands that followed the last acked event. ``acked`` is its ack's
    ``seq`` (its last log row), ``latest`` the world's latest row once the ack came: the rows
    after ``acked`` are the commands it caused, logged before the ack was sent, and they reach
    the client in order, so the one at ``latest`` comes last. ``commands`` is the list the
    client appends to as it receives them."""
    if latest <= acked:
        return  # it caused none
    async with asyncio.timeout(timeout):
        while not commands or commands[-1]["seq"] < latest:
            await asyncio.sleep(0.01)
