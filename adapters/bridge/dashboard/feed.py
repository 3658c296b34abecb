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
- page -> server ``timeline`` ``{token?, round?, cited?}`` (either key): the session's timeline,
  read from the world's log, acknowledged as ``{"ok": true, "timeline": TimelineView}``
  (:mod:`vttbridge.adapters.bridge.dashboard.timeline`). It changes nothing.

A watched world does not fall asleep. In a cluster (``cluster.py``) a page may sign in at any
node: at one that does not own the world, the feed asks the owner for its views (a ``watch``
note over Redis, again every :data:`REMOTE_WATCH_EVERY` seconds while a page is there) and
relays what the owner publishes; the page's answers are forwarded like any event. Each view
names the node running the world (``link.node``).
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
from vttbridge.adapters.bridge.dashboard.timeline import (
    TimelineFilter,
    TimelineView,
    build_timeline,
)
from vttbridge.adapters.bridge.dashboard.view import (
    ClientView,
    DashboardView,
    LinkView,
    LogLine,
    build_view,
    log_lines,
)
from vttbridge.adapters.bridge.hosted import HostedWorld
from vttbridge.adapters.bridge.inbound import read_payload
from vttbridge.adapters.bridge.protocol import Ack, ErrorCode, Refused, refusal_ack
from vttbridge.adapters.bridge.ratelimit import TokenBucket
from vttbridge.adapters.bridge.session import screen
from vttbridge.adapters.bridge.sockets import client_address, refuse_connect
from vttbridge.adapters.bridge.worldhost import WorldHost
from vttbridge.rules.refusal import Refusal
from vttbridge.sdk.effects import EFFECTS_ADAPTER, Effect
from vttbridge.sdk.events import Event, PromptAnswered
from vttbridge.sdk.world import WorldView

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
REMOTE_WATCH_EVERY = 2.0
"""Seconds between two ``watch`` notes of a node whose pages watch a world another node runs:
a new owner (after a failover) hears the next one and publishes views from then on."""
REMOTE_WATCH_TTL = 3 * REMOTE_WATCH_EVERY
"""Seconds an owner keeps publishing views after the last ``watch`` note."""
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

    def translate_in(self, event: str, payload: Inbound, world: WorldView) -> list[Event]:
        assert isinstance(payload, AnswerIn)
        return [PromptAnswered(prompt=payload.prompt, option=payload.option)]

    def translate_out(self, effect: Effect, world: WorldView) -> list[Command]:
        return []


CLIENT = DashboardClient()

SCHEMAS: dict[str, tuple[str, type[BaseModel]]] = {
    "in/answer.json": ("page -> server: answer (ack: protocol/ack-ok or ack-error)", AnswerIn),
    "out/welcome.json": ("server -> page: welcome, once after the connect", Welcome),
    "out/view.json": (
        "server -> page: view, on connect and after the world's events",
        DashboardView,
    ),
    "in/timeline.json": (
        "page -> server: timeline (ack: {ok: true, timeline: out/timeline.json} or ack-error)",
        TimelineFilter,
    ),
    "out/timeline.json": ("server -> page: the timeline, in the ack of timeline", TimelineView),
}
"""The namespace's payloads, for ``vttbridge schema`` (``dashboard/...``)."""


class Backend(Protocol):
    """What :class:`DashboardNamespace` needs: the feed itself, or (socket process) a proxy
    that asks the engine."""

    async def connect(self, sid: str, auth: Any, address: str) -> None:
        """Admit a page; raises :class:`Refused`."""
        ...

    async def disconnect(self, sid: str) -> None: ...

    async def answer(self, sid: str, payload: Any) -> Ack:
        """A page's answer to a prompt, and its ack; raises a
        :class:`~vttbridge.rules.refusal.Refusal` when it is refused."""
        ...

    async def timeline(self, sid: str, payload: Any) -> dict[str, Any]: ...


class DashboardNamespace(socketio.AsyncNamespace):
    def __init__(self, backend: Backend) -> None:
        super().__init__(NAMESPACE)
        self.backend = backend

    async def trigger_event(self, event: str, *args: Any) -> Any:
        if event == "connect":
            sid, environ, *rest = args
            auth, address = rest[0] if rest else None, client_address(environ)
            try:
                await self.backend.connect(sid, auth, address)
            except Refused as r:
                refuse_connect(r)
            return True
        if event == "disconnect":
            await self.backend.disconnect(args[0])
            return None
        try:  # refusals are answered here, once
            if event == "answer":
                return await self.backend.answer(args[0], args[1] if len(args) > 1 else None)
            if event == "timeline":
                return await self.backend.timeline(args[0], args[1] if len(args) > 1 else None)
            raise Refused(ErrorCode.UNKNOWN_EVENT, f"The dashboard has no event {event!r}.")
        except Refusal as r:
            return refusal_ack(r)


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
    remote_until: float = float("-inf")
    """Until when pages at other nodes watch (their node's last ``watch`` note, plus
    :data:`REMOTE_WATCH_TTL`)."""

    @property
    def room(self) -> str:
        return f"dashboard:{self.host.name}"


REMOTE = "watched from another node"
"""The watcher a world's host counts for the pages of other nodes (it keeps it awake)."""


@dataclass(eq=False)
class _Relayed:
    """A world another node runs, watched by pages here: its owner's views, relayed."""

    world: str
    sids: set[str] = field(default_factory=set)
    last: dict[str, Any] | None = None
    """The owner's latest view (a page that comes gets it at once)."""
    keepalive: asyncio.Task | None = None

    @property
    def room(self) -> str:
        return f"dashboard:{self.world}"


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
        self.relayed: dict[str, _Relayed] = {}
        """Worlds other nodes run that pages here watch, by name."""

    def namespace(self) -> DashboardNamespace:
        """The socket.io namespace that serves this feed (in this process)."""
        return DashboardNamespace(self)

    # -- connections ---------------------------------------------------------------------------
    async def connect(self, sid: str, auth: Any, address: str = "") -> None:
        """Admit a page from ``address``; raises :class:`Refused` (logged here)."""
        try:
            _, host, role, verifier = await self.bridge.authenticate(auth, address)
        except Refused as r:
            world = auth.get("world") if isinstance(auth, dict) else None
            log.warning(
                "Refused a dashboard%s: %s",
                f" for world {world!r}" if isinstance(world, str) else "",
                r.message,
            )
            raise
        cfg = self.bridge.config
        bucket = TokenBucket(cfg.rate, cfg.burst)
        self.viewers[sid] = _Viewer(sid, host.name, role, bucket, verifier)
        local = host.here
        if local is None:  # another node runs it
            await self._relay_to(sid, host.name, role)
            return
        host = local
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

    async def disconnect(self, sid: str) -> None:
        viewer = self.viewers.pop(sid, None)
        if viewer is None:
            return
        relayed = self.relayed.get(viewer.world)
        if relayed is not None and sid in relayed.sids:
            relayed.sids.discard(sid)
            if not relayed.sids:
                await self._stop_relay(relayed)
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
            node=self.bridge.hosting.node if self.bridge.hosting.cluster is not None else None,
        )
        log = w.log if full else [line for line in w.log if line.n > w.sent]
        return build_view(
            host.runtime.world, seq=host.seq, now=time.time(), log=log, link=link, log_full=full
        )

    def changed(self, host: HostedWorld) -> None:
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
        loop = asyncio.get_running_loop()
        remote = w.remote_until > loop.time()
        if not (w.sids or remote) or self.watched.get(w.host.name) is not w:
            return
        if w.host.runtime.lock.locked():  # an event is half processed (a script awaits)
            w.timer = loop.call_later(self.interval / 4, self._push, w)
            return
        w.last_push = loop.time()
        self.pushes += 1
        if remote:  # whole views: a page at another node may have come in between
            cluster = self.bridge.hosting.cluster
            if cluster is not None:
                cluster.publish_view(w.host.name, self.view(w).model_dump(mode="json"))
        if not w.sids:
            return
        view = self.view(w, full=False)
        if view.log:
            w.sent = view.log[-1].n
        data = view.model_dump(mode="json")
        self._spawn(self.bridge.transport.emit(w.room, NAMESPACE, "view", data))

    # -- in a cluster: pages at other nodes ----------------------------------------------------
    def remote_watch(self, host: WorldHost) -> None:
        """The owner's side: pages at another node watch ``host`` (a ``watch`` note)."""
        w = self.watched.get(host.name)
        if w is None or w.host is not host:
            w = self._watch(host)
        loop = asyncio.get_running_loop()
        w.remote_until = loop.time() + REMOTE_WATCH_TTL
        host.watchers.add(REMOTE)
        self._schedule(w)
        loop.call_later(REMOTE_WATCH_TTL + 0.1, self._remote_expired, w)

    def _remote_expired(self, w: _Watched) -> None:
        if w.remote_until > asyncio.get_running_loop().time():
            return  # watched again since
        w.host.watchers.discard(REMOTE)
        if not w.sids and self.watched.get(w.host.name) is w:
            self._unwatch(w)
            w.host.keep_awake()

    async def _relay_to(self, sid: str, name: str, role: str) -> None:
        """This node's side: a page for a world another node runs gets its owner's views."""
        relayed = self.relayed.get(name)
        cluster = self.bridge.hosting.cluster
        if relayed is None and cluster is not None:
            relayed = self.relayed[name] = _Relayed(name)
            await cluster.follow_views(name, lambda view: self._relayed_view(name, view))
            relayed.keepalive = asyncio.ensure_future(self._keep_watching(name))
        if relayed is None:
            return
        relayed.sids.add(sid)
        log.info(
            "A dashboard is watching world %r (%s), run by another node%s.",
            name,
            "GM" if role == "gm" else "observer, read-only",
            await self.bridge.hosting.served_by(name),
        )
        self._spawn(self._welcome_relayed(sid, relayed, role))

    async def _keep_watching(self, world: str) -> None:
        cluster = self.bridge.hosting.cluster
        assert cluster is not None
        while True:
            cluster.tell(world, "watch")
            await asyncio.sleep(REMOTE_WATCH_EVERY)

    def _relayed_view(self, world: str, view: dict[str, Any]) -> None:
        relayed = self.relayed.get(world)
        if relayed is None:
            return
        relayed.last = view
        self.pushes += 1
        self._spawn(self.bridge.transport.emit(relayed.room, NAMESPACE, "view", view))

    async def _welcome_relayed(self, sid: str, relayed: _Relayed, role: str) -> None:
        transport = self.bridge.transport
        await transport.wait_connected(sid, NAMESPACE)
        await transport.join(sid, NAMESPACE, relayed.room)
        welcome = Welcome(world=relayed.world, role="gm" if role == "gm" else "observer")
        await transport.emit(sid, NAMESPACE, "welcome", welcome.model_dump())
        if relayed.last is not None:
            await transport.emit(sid, NAMESPACE, "view", relayed.last)

    async def _stop_relay(self, relayed: _Relayed) -> None:
        if self.relayed.get(relayed.world) is relayed:
            del self.relayed[relayed.world]
        if relayed.keepalive is not None:
            relayed.keepalive.cancel()
        cluster = self.bridge.hosting.cluster
        if cluster is not None:
            await cluster.unfollow_views(relayed.world)

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
        """A page's answer to a prompt, and its ack; raises a
        :class:`~vttbridge.rules.refusal.Refusal` when it is refused."""
        viewer = self.viewers.get(sid)
        if viewer is None:
            raise Refused(ErrorCode.BAD_AUTH, "Not connected to a world.")
        screen(viewer.role, viewer.bucket, "This dashboard")
        if self.bridge.closing:
            raise Refused(ErrorCode.SHUTTING_DOWN, "The server is shutting down; resend later.")
        if not isinstance(payload, dict):  # the page sends an object (no JSON text)
            raise Refused(ErrorCode.BAD_PAYLOAD, "Send {id, prompt, option}.")
        data = read_payload(CLIENT, "answer", (payload,))
        w = self.watched.get(viewer.world)
        if w is None:
            remote = self.bridge.hosting.remote.get(viewer.world)
            if remote is not None:  # run by another node: forwarded there
                return await remote.receive(CLIENT, "answer", data, payload)
            raise Refused(ErrorCode.SHUTTING_DOWN, "The world is not loaded; try again.")
        return await w.host.receive(CLIENT, "dashboard.answer", data)

    # -- the session's timeline ----------------------------------------------------------------
    async def timeline(self, sid: str, payload: Any) -> dict[str, Any]:
        """The world's timeline from its log, as the page's filter asks (GM and observer)."""
        viewer = self.viewers.get(sid)
        if viewer is None:
            raise Refused(ErrorCode.BAD_AUTH, "Not connected to a world.")
        if wait := viewer.bucket.take():
            raise Refused(
                ErrorCode.RATE_LIMITED, f"Too many requests from this page; retry in {wait:.2f} s."
            )
        try:
            flt = TimelineFilter.model_validate(payload if payload is not None else {})
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            msg = f"{where}: {err['msg']}" if where else str(err["msg"])
            raise Refused(ErrorCode.BAD_PAYLOAD, msg) from None
        store = self.bridge.store
        if store is None:
            raise Refused(ErrorCode.SHUTTING_DOWN, "The server is shutting down.")
        w = self.watched.get(viewer.world)
        if w is not None:
            await w.host.log.barrier()  # every event processed so far is readable
        rows = await store.log_after(viewer.world, 0, kind="event")
        # a long log takes a while to read through: off the loop, so that no world waits
        view = await asyncio.to_thread(build_timeline, rows, flt)
        return {"ok": True, "timeline": view.model_dump(mode="json")}

    async def close(self) -> None:
        for relayed in list(self.relayed.values()):
            await self._stop_relay(relayed)
        for w in list(self.watched.values()):
            self._unwatch(w)
        for task in list(self._tasks):
            task.cancel()
