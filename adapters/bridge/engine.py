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

An event reaches a world here as in one process (``Sessions.screen``, then the host's
``accept`` and ``settle``), but with no task of its own: :func:`receive_eagerly` runs it at
once when the world is free and answers through the link inside the commit that makes it
durable, so the ack leaves before the next events are read. Only the two-process server needs
that; everything it needs is in ``engine.py``, ``front.py`` and ``link.py``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Callable, Coroutine, Generator
from typing import Any

from adapters.base import Adapter
from adapters.bridge.link import Link
from adapters.bridge.protocol import Ack, ErrorCode, ack_error
from adapters.bridge.server import Bridge
from adapters.bridge.storage import StoreError
from adapters.bridge.worldhost import Job

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
        return await bridge.sessions.connect(by_ns[ns], sid, auth, address)

    def event(reply: Callable[[Ack], None], ns: str, sid: str, name: str, args: tuple) -> None:
        receive_eagerly(bridge, by_ns[ns], sid, name, args, reply)

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
            "disconnect": bridge.sessions.disconnect,
            "acked": lambda sid, ack_id, args: transport.acked(sid, ack_id, args),
            "dashboard_connect": bridge.dashboards.connect,
            "dashboard_disconnect": bridge.dashboards.disconnect,
            "dashboard_answer": bridge.dashboards.answer,
            "index": bridge.http.index_text,
            "health": bridge.http.health,
            "state": bridge.http.state,
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


def receive_eagerly(
    bridge: Bridge,
    adapter: Adapter,
    sid: str,
    event: str,
    args: tuple,
    reply: Callable[[Ack], None],
) -> None:
    """``Sessions.receive`` answering through ``reply``: the event is run right away when the
    world is free (no task), and ``reply`` runs inside the commit that makes it durable."""
    screened = bridge.sessions.screen(adapter, sid, event, args)
    if isinstance(screened, dict):
        reply(screened)
        return
    host, payload = screened

    def accepted(result: Ack | tuple[Job, Ack]) -> None:
        if isinstance(result, dict):
            reply(result)
            return
        job, ack = result

        def committed(error: BaseException | None) -> None:
            if error is not None and not isinstance(error, StoreError):
                error = StoreError(f"the database cannot be written: {error}")
            reply(host.settle(job, ack, error))

        host.log.after_commit(committed)

    run_eagerly(host.accept(adapter, event, payload), accepted, f"World {host.name!r}")


def run_eagerly(coro: Coroutine[Any, Any, Any], done: Callable[[Any], None], what: str) -> None:
    """Run ``coro`` now, up to where it first waits, and the rest in a task; then
    ``done(result)``. What Python 3.12's eager tasks do: an event that never waits (the world
    is free, no script awaits) costs no task and no turn of the loop."""
    try:
        waiting_on = coro.send(None)
    except StopIteration as stop:
        done(stop.value)
        return
    except Exception as e:
        log.exception("%s: an event failed", what)
        done(ack_error(ErrorCode.INTERNAL, f"Server error: {e}"))
        return

    def finished(task: asyncio.Task) -> None:
        if task.cancelled():
            done(ack_error(ErrorCode.SHUTTING_DOWN, "The event was cancelled; send it again."))
        elif (e := task.exception()) is not None:
            log.error("%s: an event failed", what, exc_info=e)
            done(ack_error(ErrorCode.INTERNAL, f"Server error: {e}"))
        else:
            done(task.result())

    task = asyncio.ensure_future(_Resumed(coro, waiting_on).run())
    task.add_done_callback(finished)


class _Resumed:
    """A coroutine started by hand, continued by a task: the task waits on what the coroutine
    waited on, then resumes it."""

    def __init__(self, coro: Coroutine[Any, Any, Any], waiting_on: Any) -> None:
        self.coro, self.waiting_on = coro, waiting_on

    async def run(self) -> Any:
        return await self

    def __await__(self) -> Generator[Any, None, Any]:
        waiting_on = self.waiting_on
        while True:
            try:
                yield waiting_on
            except BaseException as e:  # thrown in by the task (cancelled)
                try:
                    waiting_on = self.coro.throw(e)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    waiting_on = self.coro.send(None)
                except StopIteration as stop:
                    return stop.value
