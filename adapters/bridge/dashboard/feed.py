"""The dashboard's socket: namespace ``/dashboard`` on the bridge's socket.io server.

A page connects with the same ``auth`` as a companion client (``{world, key, client}``, checked
by :meth:`Bridge.authenticate`, in the same order and with the same refusals). Then:

- server -> page ``welcome`` ``{world, role}`` once, then ``view`` (a
  :class:`~vttbridge.adapters.bridge.dashboard.view.DashboardView`) at once and again after the
  world's
  events, at most one every :data:`PUSH_INTERVAL` seconds: a burst of moves sends one view, not
  one per move. The first view carries the recent chat lines (``log_full``), later ones only
  the lines since the view before. A world nobody watches costs nothing: the feed listens to a
  world's journal only while a page watches it.
- page -> server ``answer`` ``{id, prompt, option}`` (GM key only; an observer gets
  ``read_only``): the GM answers a question. It becomes a ``PromptAnswered`` processed like any
  event (dedup by ``id``, logged, replayed after a restart, its commands sent to the VTT), and
  is acknowledged like one (``{"ok": true, "seq"}`` or an error).

A watched world does not fall asleep. In a cluster (``cluster.py``) a dashboard is served by
the node that owns its world; another node refuses it with ``world_unavailable``, naming the
owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

import socketio
from pydantic import BaseModel, Field, ValidationError
from vttbridge.adapters.base import Adapter, Command, Inbound
from vttbridge.adapters.bridge.auth import Refused
from vttbridge.adapters.bridge.cluster import RemoteWorld
from vttbridge.adapters.bridge.dashboard.view import (
    ClientView,
    DashboardView,
    LinkView,
    LogLine,
    build_view,
    log_lines,
)
from vttbridge.adapters.bridge.inbound import read_payload
from vttbridge.adapters.bridge.protocol import Ack, ErrorCode, ack_error
from vttbridge.adapters.bridge.ratelimit import TokenBucket
from vttbridge.adapters.bridge.session import screen
from vttbridge.adapters.bridge.sockets import client_address, connect_answer
from vttbridge.adapters.bridge.worldhost import WorldHost
from vttbridge.sdk.effects import EFFECTS_ADAPTER
from vttbridge.sdk.events import PromptAnswered

if TYPE_CHECKING:
    from vttbridge.adapters.bridge.server import Bridge

log = logging.getLogger("vttbridge")

NAMESPACE = "/dashboard"
PUSH_INTERVAL = 0.25
"""Seconds between two views of one world, at least."""
LOG_LINES = 100
"""Chat lines a view carries (the newest)."""
CHAT_EFFECTS = ('"type":"post_chat"', '"type":"ask_player"')
"""How a log row with a chat line reads (its effects as the journal writes them)."""
BACKFILL_ROWS = 5000
"""Event rows of the log searched for the chat lines a page sees first (the world's history
before it came); only those with a chat line or a question are read."""


class Welcome(BaseModel):
    """``welcome``: sent once, right after the connect."""

    world: str
    role: Literal["gm", "observer"]


class AnswerIn(Inbound):
    """``answer``: the GM's answer to a pending question."""

    prompt: str = Field(min_length=1, max_length=64)
    option: str = Field(min_length=1, max_length=200)


class DashboardClient(Adapter):
    """The page as a client of the world: its one event, an answer, becomes the domain event
    any VTT's answer becomes. It shows nothing of the effects (the linked VTT does)."""

    name = "dashboard"
    inbound = {"answer": AnswerIn}

    def translate_in(self, event: str, payload: Inbound, world: Any) -> list:
        assert isinstance(payload, AnswerIn)
        return [PromptAnswered(prompt=payload.prompt, option=payload.option)]

    def translate_out(self, effect: Any, world: Any) -> list[Command]:
        return []


CLIENT = DashboardClient()

SCHEMAS: dict[str, tuple[str, type[BaseModel]]] = {
    "in/answer.json": ("page -> server: answer (ack: protocol/ack-ok or ack-error)", AnswerIn),
    "out/welcome.json": ("server -> page: welcome, once after the connect", Welcome),
    "out/view.json": (
        "server -> page: view, on connect and after the world's events",
        DashboardView,
    ),
}
"""The namespace's payloads, for ``vttbridge schema`` (``dashboard/...``)."""


class Backend(Protocol):
    """What :class:`DashboardNamespace` needs: the feed itself, or (socket process) a proxy
    that asks the engine."""

    async def connect(self, sid: str, auth: Any, address: str) -> dict[str, Any] | None: ...

    async def disconnect(self, sid: str) -> None: ...

    async def answer(self, sid: str, payload: Any) -> Ack: ...


class DashboardNamespace(socketio.AsyncNamespace):
    def __init__(self, backend: Backend) -> None:
        super().__init__(NAMESPACE)
        self.backend = backend

    async def trigger_event(self, event: str, *args: Any) -> Any:
        if event == "connect":
            sid, environ, *rest = args
            auth, address = rest[0] if rest else None, client_address(environ)
            return connect_answer(await self.backend.connect(sid, auth, address))
        if event == "disconnect":
            await self.backend.disconnect(args[0])
            return None
        if event == "answer":
            return await self.backend.answer(args[0], args[1] if len(args) > 1 else None)
        return ack_error(ErrorCode.UNKNOWN_EVENT, f"The dashboard has no event {event!r}.")


@dataclass(eq=False)
class _Viewer:
    sid: str
    world: str
    role: str
    bucket: TokenBucket
    verifier: str = ""
    """The stored key hash the page's key matched (a key reset closes the page)."""


@dataclass(eq=False)
class _Watched:
    """A world one or more pages watch."""

    host: WorldHost
    sids: set[str] = field(default_factory=set)
    log: deque[LogLine] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    next_line: int = 0
    """The next live line's number (the lines from the log before watching began are
    numbered below 0)."""
    sent: int = -1
    """The number of the last line broadcast."""
    since: int = 0
    """The world's seq when watching began: older lines come from the log (backfill)."""
    backfill: asyncio.Future | None = None
    unsubscribe: Callable[[], None] | None = None
    timer: asyncio.TimerHandle | None = None
    last_push: float = float("-inf")

    @property
    def room(self) -> str:
        return f"dashboard:{self.host.name}"


class DashboardFeed:
    """The views of watched worlds and the pages' answers, for one :class:`Bridge`."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge
        self.viewers: dict[str, _Viewer] = {}
        self.watched: dict[str, _Watched] = {}
        self.interval = PUSH_INTERVAL
        """Seconds between two views of one world, at least."""
        self.pushes = 0
        """Views broadcast so far (the tests count them)."""
        self._tasks: set[asyncio.Task] = set()

    def namespace(self) -> DashboardNamespace:
        """The socket.io namespace that serves this feed (in this process)."""
        return DashboardNamespace(self)

    # -- connections ---------------------------------------------------------------------------
    async def connect(self, sid: str, auth: Any, address: str = "") -> dict[str, Any] | None:
        """Admit a page from ``address``; returns None, or the refusal ``{message, data}``."""
        try:
            _, host, role, verifier = await self.bridge.authenticate(auth, address)
            if isinstance(host, RemoteWorld):
                raise Refused(
                    ErrorCode.WORLD_UNAVAILABLE,
                    f"World {host.name!r} is served by another node of this cluster; open "
                    "its dashboard there.",
                )
        except Refused as r:
            world = auth.get("world") if isinstance(auth, dict) else None
            log.warning(
                "Refused a dashboard%s: %s",
                f" for world {world!r}" if isinstance(world, str) else "",
                r.message,
            )
            return r.refusal
        cfg = self.bridge.config
        bucket = TokenBucket(cfg.rate, cfg.burst)
        self.viewers[sid] = _Viewer(sid, host.name, role, bucket, verifier)
        w = self.watched.get(host.name)
        if w is None or w.host is not host:
            w = self._watch(host)
        w.sids.add(sid)
        host.watchers.add(sid)
        log.info(
            "A dashboard is watching world %r (%s).",
            host.name,
            "GM" if role == "gm" else "observer, read-only",
        )
        self._spawn(self._welcome(sid, w, role))
        return None

    async def disconnect(self, sid: str) -> None:
        viewer = self.viewers.pop(sid, None)
        if viewer is None:
            return
        w = self.watched.get(viewer.world)
        if w is None:
            return
        w.sids.discard(sid)
        w.host.watchers.discard(sid)
        if not w.sids:
            self._unwatch(w)
            w.host.keep_awake()  # its idle clock starts now

    def _watch(self, host: WorldHost) -> _Watched:
        w = _Watched(host=host, since=host.seq)
        w.unsubscribe = host.runtime.add_journal(lambda ev, effects: self._journaled(w, effects))
        w.backfill = asyncio.ensure_future(self._backfill(w))
        self.watched[host.name] = w
        return w

    def _unwatch(self, w: _Watched) -> None:
        if self.watched.get(w.host.name) is w:
            del self.watched[w.host.name]
        if w.unsubscribe is not None:
            w.unsubscribe()
        if w.timer is not None:
            w.timer.cancel()
        if w.backfill is not None:
            w.backfill.cancel()

    async def _welcome(self, sid: str, w: _Watched, role: str) -> None:
        transport = self.bridge.transport
        # python-socketio sends CONNECT after the connect handler: nothing may overtake it
        await transport.wait_connected(sid, NAMESPACE)
        await transport.join(sid, NAMESPACE, w.room)
        if w.backfill is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(w.backfill)
        if sid not in w.sids:
            return
        welcome = Welcome(world=w.host.name, role="gm" if role == "gm" else "observer")
        await transport.emit(sid, NAMESPACE, "welcome", welcome.model_dump())
        await transport.emit(sid, NAMESPACE, "view", self.view(w).model_dump(mode="json"))

    async def _backfill(self, w: _Watched) -> None:
        """The chat lines of the world's log before watching began, oldest first."""
        host, store = w.host, self.bridge.store
        assert store is not None
        await host.log.barrier()  # every row up to w.since is committed, so readable
        rows = await store.recent_events(
            host.name, LOG_LINES, within=BACKFILL_ROWS, containing=CHAT_EFFECTS
        )
        world = host.runtime.world
        older: list[LogLine] = []
        for row in rows:
            if row.seq > w.since:
                continue  # the journal saw it
            try:
                effects = EFFECTS_ADAPTER.validate_python(row.body.get("effects", []))
            except ValidationError:
                continue
            older.extend(log_lines(world, effects, first=0, at=row.at))
        older = older[-LOG_LINES:]
        for i, line in enumerate(older):
            line.n = i - len(older)
        live = list(w.log)
        w.log.clear()
        w.log.extend(older)
        w.log.extend(live)

    # -- views ---------------------------------------------------------------------------------
    def view(self, w: _Watched, *, full: bool = True) -> DashboardView:
        """The world's view; ``full=False``: with only the chat lines not broadcast yet."""
        host = w.host
        sessions = [s for s in self.bridge.sessions.values() if s.host is host]
        link = LinkView(
            vtt=host.adapter.name if host.adapter is not None else None,
            connected=any(s.role == "gm" and s.adapter is host.adapter for s in sessions),
            clients=[
                ClientView(
                    who=s.who, role="gm" if s.role == "gm" else "observer", since=s.connected_at
                )
                for s in sessions
            ],
        )
        log = w.log if full else [line for line in w.log if line.n > w.sent]
        return build_view(
            host.runtime.world, seq=host.seq, now=time.time(), log=log, link=link, log_full=full
        )

    def changed(self, host: WorldHost) -> None:
        """Something a view shows changed outside the world's events (a VTT client came or
        left): push a view if a page watches."""
        w = self.watched.get(host.name)
        if w is not None and w.host is host:
            self._schedule(w)

    def _journaled(self, w: _Watched, effects: list) -> None:
        """After each event of a watched world (in the journal, between events)."""
        if effects:
            lines = log_lines(w.host.runtime.world, effects, first=w.next_line, at=time.time())
            if lines:
                w.log.extend(lines)
                w.next_line += len(lines)
        if w.timer is None:
            self._schedule(w)

    def _schedule(self, w: _Watched) -> None:
        if w.timer is not None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, w.last_push + self.interval - loop.time())
        w.timer = loop.call_later(delay, self._push, w)

    def _push(self, w: _Watched) -> None:
        w.timer = None
        if not w.sids or self.watched.get(w.host.name) is not w:
            return
        loop = asyncio.get_running_loop()
        if w.host.runtime.lock.locked():  # an event is half processed (a script awaits)
            w.timer = loop.call_later(self.interval / 4, self._push, w)
            return
        w.last_push = loop.time()
        self.pushes += 1
        view = self.view(w, full=False)
        if view.log:
            w.sent = view.log[-1].n
        data = view.model_dump(mode="json")
        self._spawn(self.bridge.transport.emit(w.room, NAMESPACE, "view", data))

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (e := task.exception()) is not None:
            log.error("Sending a dashboard view failed", exc_info=e)

    # -- answers -------------------------------------------------------------------------------
    async def answer(self, sid: str, payload: Any) -> Ack:
        viewer = self.viewers.get(sid)
        if viewer is None:
            return ack_error(ErrorCode.BAD_AUTH, "Not connected to a world.")
        refused = screen(viewer.role, viewer.bucket, "This dashboard")
        if refused is not None:
            return refused
        if self.bridge.closing:
            return ack_error(ErrorCode.SHUTTING_DOWN, "The server is shutting down; resend later.")
        if not isinstance(payload, dict):  # the page sends an object (no JSON text)
            return ack_error(ErrorCode.BAD_PAYLOAD, "Send {id, prompt, option}.")
        data = read_payload(CLIENT, "answer", (payload,))
        if isinstance(data, dict):
            return data
        w = self.watched.get(viewer.world)
        if w is None:
            return ack_error(ErrorCode.SHUTTING_DOWN, "The world is not loaded; try again.")
        return await w.host.receive(CLIENT, "dashboard.answer", data)

    async def close(self) -> None:
        for w in list(self.watched.values()):
            self._unwatch(w)
        for task in list(self._tasks):
            task.cancel()
