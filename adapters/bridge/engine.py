"""The world engine: a :class:`~adapters.bridge.server.Bridge` whose sockets are in another
process.

``vttbridge serve --processes 2`` runs as two processes (Linux; one is the default): the socket
process (``front.py``) speaks socket.io and HTTP, and this one holds the worlds: validation,
dedup, rules, scripts, the log and snapshots. One Python process runs on one core; split this
way the transport and the rules each get one. They talk over a :class:`~adapters.bridge.link.Link`:

- sockets -> engine: ``connect``, ``event``, ``disconnect``, ``acked`` (a command's ack),
  ``dashboard_connect``/``_disconnect``/``_answer`` (the dashboard's namespace),
  ``index``/``health``/``state`` (HTTP), ``start``, ``stop``;
- engine -> sockets: ``join`` (a world's room), ``wait_connected``, ``emit`` (a command),
  ``emit_event`` (an event with no ack: a dashboard's view), ``disconnect`` (one connection,
  whose key was reset), ``close_sockets``.

The engine is forked from the socket process once everything is imported, and ignores SIGINT
and SIGTERM: the socket process tells it to stop, after which it saves every world. If the
socket process dies (``kill -9``), the engine exits at once without writing anything more, as
if killed with it: what was acknowledged is committed, and the next start replays the log.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Callable
from typing import Any

import socketio

from adapters.bridge.link import Link
from adapters.bridge.server import Bridge
from adapters.bridge.storage import StoreError

log = logging.getLogger("vttbridge")


class LinkTransport:
    """The bridge's socket operations, carried out by the socket process."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self._acks: dict[str, dict[int, Callable[..., Any]]] = {}
        self._next = 0

    async def join(self, sid: str, ns: str, room: str) -> None:
        self.link.cast("join", sid, ns, room)

    async def wait_connected(self, sid: str, ns: str) -> None:
        await self.link.call("wait_connected", sid, ns)

    async def send_command(
        self, sid: str, ns: str, msg: dict[str, Any], on_ack: Callable[..., Any]
    ) -> None:
        self._next += 1
        self._acks.setdefault(sid, {})[self._next] = on_ack
        self.link.cast("emit", sid, ns, msg, self._next)

    async def emit(self, to: str, ns: str, event: str, data: Any) -> None:
        self.link.cast("emit_event", to, ns, event, data)

    def acked(self, sid: str, ack_id: int, args: tuple) -> None:
        on_ack = self._acks.get(sid, {}).pop(ack_id, None)
        if on_ack is not None:
            on_ack(*args)

    def forget(self, sid: str) -> None:
        self._acks.pop(sid, None)  # a gone connection never acks what it did not

    async def disconnect(self, sid: str, ns: str) -> None:
        self.link.cast("disconnect", sid, ns)

    async def close(self) -> None:
        await self.link.call("close_sockets")


def run_engine(bridge: Bridge, read_fd: int, write_fd: int) -> int:
    """The engine process's main: serve the socket process until it says stop or is gone."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    return asyncio.run(_serve(bridge, read_fd, write_fd))


async def _serve(bridge: Bridge, read_fd: int, write_fd: int) -> int:
    by_ns = {a.ns: a for a in bridge.registry}
    stopped = asyncio.Event()

    async def start() -> str | None:
        try:
            await bridge.open()
        except StoreError as e:
            stopped.set()  # nothing to save: exit quietly once the socket process hangs up
            return str(e)
        bridge.transport = transport
        return None

    async def connect(ns: str, sid: str, auth: Any, address: str = "") -> dict[str, Any] | None:
        try:
            await bridge._connect(by_ns[ns], sid, {"REMOTE_ADDR": address}, auth)
        except socketio.exceptions.ConnectionRefusedError as e:
            return e.error_args
        return None

    def event(reply: Callable[[Any], None], ns: str, sid: str, name: str, args: tuple) -> None:
        bridge.submit_event(by_ns[ns], sid, name, args, reply)

    def after_batch() -> None:
        # The events of one read from the pipe are committed together, at once, and their acks
        # leave in one write: the socket process gets them before the engine reads more (left
        # to the end of the loop's turn, the commit would wait for the next read's events).
        store = bridge.store
        if store is not None and store.pending:
            store.after_commit(lambda _error: link.flush())
            store.commit_now()

    async def stop(snapshot: bool) -> None:
        await bridge.stop(snapshot=snapshot)
        stopped.set()

    link = Link(
        {
            "start": start,
            "connect": connect,
            "event": event,
            "disconnect": bridge._disconnect,
            "acked": lambda sid, ack_id, args: transport.acked(sid, ack_id, args),
            "dashboard_connect": bridge.dashboards.connect,
            "dashboard_disconnect": bridge.dashboards.disconnect,
            "dashboard_answer": bridge.dashboards.answer,
            "index": bridge.index_text,
            "health": bridge.health,
            "state": bridge.state,
            "stop": stop,
        },
        "engine",
        replies_later={"event"},
        after_batch=after_batch,
    )
    transport = LinkTransport(link)
    await link.open(read_fd, write_fd)
    assert link.closed is not None
    await link.closed
    if stopped.is_set():
        return 0
    # The socket process is gone without a word: it was killed. Stop as if killed with it
    # (committing more now could race a new server already started on the same file).
    log.error(
        "The socket process is gone; the engine stops too, without writing anything more "
        "(the next start replays the log)."
    )
    for handler in logging.getLogger().handlers:
        handler.flush()
    os._exit(1)
