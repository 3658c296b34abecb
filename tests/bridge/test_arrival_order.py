"""Arrival order: an event asks for its world's lock before anything is awaited on its way,
from the namespace that received it through the sessions to the world host, so the lock (first
come, first served) runs a world's events in the order they arrived, from all its connections.

The events here are started by hand, each run synchronously up to its first suspension, while
the test holds the world's lock: that suspension must be the wait for the lock. One ``await``
added anywhere on the way (a ``sleep(0)`` in ``namespace.py``, ``session.py`` or
``worldhost.py``) suspends the event before it queued at the lock, and this fails.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from vttbridge.adapters.bridge.namespace import AdapterNamespace

from tests.bridge.conftest import NS


def started(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run ``coro`` synchronously up to its first suspension; what it waits for there."""
    return coro.send(None)


async def finish(coro: Coroutine[Any, Any, Any], waiting_for: Any) -> Any:
    """Drive a coroutine :func:`started` began to its end in this task, as a task would."""
    while True:
        if waiting_for is None:  # a bare yield: another turn of the loop
            await asyncio.sleep(0)
        else:
            await asyncio.wait({waiting_for})
        try:
            waiting_for = coro.send(None)
        except StopIteration as done:
            return done.value


async def test_an_event_queues_at_its_worlds_lock_before_anything_is_awaited(
    server, worlds, gm, client_factory
):
    other = await client_factory().connect(server.url, "table1", worlds["table1"][0])
    bridge = server.bridge
    host = bridge.worlds["table1"]
    first, second = [s for s in bridge.sessions.values() if s.host is host]
    assert {first.sid, second.sid} == {gm.sio.get_sid(NS), other.sio.get_sid(NS)}
    ns = AdapterNamespace(bridge.sessions, first.adapter)  # the namespace the server serves
    lock = host.runtime.lock

    a = ns.trigger_event("tokenMoved", first.sid, {"id": "a", "token": "kevin", "x": 300, "y": 0})
    b = ns.trigger_event("tokenMoved", second.sid, {"id": "b", "token": "kevin", "x": 500, "y": 0})
    await lock.acquire()  # the world is busy: both events must queue at its lock
    try:
        a_waits = started(a)
        assert host.waiting == 1, "the first event was suspended before it asked for the lock"
        b_waits = started(b)
        assert host.waiting == 2, "the second event was suspended before it asked for the lock"
    finally:
        lock.release()
    try:
        # the lock hands itself to its first waiter at once: that must be the first event
        assert a_waits is not None and a_waits.done(), "the first event is not its first waiter"
        assert b_waits is not None and not b_waits.done()
        ack_a = await finish(a, a_waits)
        assert b_waits.done(), "the second event was not waiting for the lock the first released"
        ack_b = await finish(b, b_waits)
    finally:
        a.close()
        b.close()

    assert ack_a["ok"] and ack_b["ok"], (ack_a, ack_b)
    assert ack_a["seq"] < ack_b["seq"]
    assert host.runtime.world.tokens["kevin"].cell.x == 5  # the later move is where it stands
