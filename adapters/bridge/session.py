"""The VTT clients' connections: each admitted into a :class:`Session` (its key checked, the
world linked to its VTT, its command cursor set), its events screened (GM key, rate limits,
payload model) before a world receives them, and let go when it disconnects.

- A GM key may send events; an observer key may only watch (it receives commands too, so a
  spectator display can follow the table, and its events are refused with ``read_only``).
- A world is linked to one VTT at a time: the adapter of its GM client. A GM client of another
  adapter is refused while the linked one is connected, and relinks the world otherwise.
- Commands go to each connection from its own cursor (``last_seq``, else the world's last
  acknowledged command), so every connection gets every command once and in order, across
  reconnects (``pump.py``). Connections also join the world's room (``world:<name>``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from vttbridge.adapters.base import Adapter
from vttbridge.adapters.bridge.hosted import HostedWorld
from vttbridge.adapters.bridge.inbound import read_payload
from vttbridge.adapters.bridge.outbox import Subscriber
from vttbridge.adapters.bridge.protocol import Ack, ClientInfo, ErrorCode, Refused, refused_payload
from vttbridge.adapters.bridge.pump import pump
from vttbridge.adapters.bridge.ratelimit import TokenBucket, WorldBuckets
from vttbridge.adapters.companions import COMPANION_EVENT, NOTICE_EVENT, log_notice, notice

if TYPE_CHECKING:
    from vttbridge.adapters.bridge.server import Bridge

log = logging.getLogger("vttbridge")


@dataclass(eq=False)
class Session:
    """One VTT client's connection to one world."""

    sid: str
    adapter: Adapter
    host: HostedWorld
    role: str
    client: dict[str, Any]
    bucket: TokenBucket
    subscriber: Subscriber
    world_bucket: TokenBucket | None = None
    """The limit all connections of the world share (None: none)."""
    verifier: str = ""
    """The stored key hash this connection's key matched (a reset replaces it)."""
    pump: asyncio.Task | None = None
    connected_at: float = field(default_factory=time.time)

    @property
    def who(self) -> str:
        c = self.client
        what = c.get("vtt") or self.adapter.name
        return f"{what} client ({c.get('name', '?')} {c.get('version', '')})".replace(" )", ")")


def screen(role: str, bucket: TokenBucket, what: str) -> None:
    """Raise :class:`Refused` for an event of a connection with ``role`` and ``bucket`` (its
    rate limit) that may not be sent: an observer key may only watch, and a connection only
    so fast. ``what`` names the connection in the message (``"This connection"``)."""
    if role != "gm":
        raise Refused(ErrorCode.READ_ONLY, f"{what} uses the observer key: it may only watch.")
    if wait := bucket.take():
        raise Refused(
            ErrorCode.RATE_LIMITED,
            f"Too many events from {what.lower()} (over {bucket.rate:g}/s); retry in {wait:.2f} s.",
            retry_after=wait,
        )


class Sessions(Mapping[str, Session]):
    """The VTT clients connected to one bridge, by socket.io sid."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge
        self._by_sid: dict[str, Session] = {}
        self._telling: set[asyncio.Task[None]] = set()
        rate, burst = bridge.config.world_limits
        self._world_buckets = WorldBuckets(rate, burst)

    def __getitem__(self, sid: str) -> Session:
        return self._by_sid[sid]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_sid)

    def __len__(self) -> int:
        return len(self._by_sid)

    # -- connect -------------------------------------------------------------------------------
    async def connect(self, adapter: Adapter, sid: str, auth: Any, address: str = "") -> None:
        """Admit a client from ``address``: a new session, subscribed to its world's
        commands. Raises :class:`Refused` (logged here)."""
        bridge = self.bridge
        try:
            sess = await self._admit(adapter, sid, auth, address)
        except Refused as r:
            world = auth.get("world") if isinstance(auth, dict) else None
            log.warning(
                "Refused a %s connection%s: %s",
                adapter.name,
                f" to world {world!r}" if isinstance(world, str) else "",
                r.message,
            )
            raise
        self._by_sid[sid] = sess
        host = sess.host
        host.subscribe(sess.subscriber)
        await bridge.transport.join(sid, adapter.ns, f"world:{host.name}")
        missed = await host.outbox.count_after(sess.subscriber.cursor)
        returning = isinstance(auth, dict) and auth.get("last_seq") is not None
        if sess.role == "gm":
            resent = f"; {missed} command{'s' if missed != 1 else ''} re-sent" if missed else ""
            log.info(
                "%s %s world %r as GM%s.",
                sess.who[0].upper() + sess.who[1:],
                "reconnected to" if returning else "linked",
                host.name,
                resent,
            )
        else:
            log.info("An observer is watching world %r (%s).", host.name, sess.who)
        sess.pump = asyncio.create_task(
            pump(sess, bridge.transport, lambda: sid in self._by_sid and not bridge.closing),
            name=f"pump:{sid}",
        )
        self.meet(sess, sess.client.get("name", ""), sess.client.get("version", ""))
        bridge.dashboards.changed(host)

    def meet(self, sess: Session, name: str, version: str) -> dict[str, Any] | None:
        """Versions meet: a companion of a version the adapter does not support is told so in
        plain words (a ``notice`` event) and the GM's log says it. Returns the notice."""
        told = notice(sess.adapter.companions, name, version)
        if told is None:
            return None
        log_notice(sess.host.name, told)
        task = asyncio.create_task(self._tell(sess, told), name=f"notice:{sess.sid}")
        self._telling.add(task)
        task.add_done_callback(self._telling.discard)
        return told

    async def _tell(self, sess: Session, told: dict[str, Any]) -> None:
        transport = self.bridge.transport
        await transport.wait_connected(sess.sid, sess.adapter.ns)
        await transport.emit(sess.sid, sess.adapter.ns, NOTICE_EVENT, told)

    def companion(self, sid: str, args: tuple[Any, ...]) -> Ack:
        """The ``companion`` event: a part of the client it learnt the version of after its
        connect (the Roll20 Mod script, heard by the relay): ``{"name", "version"}``."""
        sess = self.session(sid)
        try:
            part = ClientInfo.model_validate(args[0] if args else None)
        except ValidationError as e:
            raise refused_payload(e) from None
        told = self.meet(sess, part.name, part.version)
        return {"ok": True, **({"notice": told} if told else {})}

    async def _admit(self, adapter: Adapter, sid: str, auth: Any, address: str) -> Session:
        a, host, role, verifier = await self.bridge.auth.authenticate(auth, address)
        box = host.outbox
        cursor: int
        if role == "gm":
            if host.adapter is not None and host.adapter is not adapter:
                other = [
                    s for s in self._by_sid.values()
                    if s.host is host and s.role == "gm" and s.adapter is not adapter
                ]  # fmt: skip
                if other:
                    raise Refused(
                        ErrorCode.LINKED_ELSEWHERE,
                        f"World {a.world!r} is linked to {host.adapter.name}, whose client is "
                        "connected; disconnect it first.",
                    )
                log.info(
                    "World %r is now linked to %s (was %s).",
                    host.name,
                    adapter.name,
                    host.adapter.name,
                )
                # The old VTT's unacknowledged commands mean nothing to the new one.
                a.last_seq = box.published
            if host.adapter is not adapter:
                host.adapter = adapter
                host.log.linked(adapter.name)
            cursor = a.last_seq if a.last_seq is not None else box.acked_seq
        else:
            cursor = a.last_seq if a.last_seq is not None else box.published
        if cursor > box.published:
            log.warning(
                "World %r: the client says it applied command %d, but the server's log ends "
                "at %d (was the database replaced?). Sending only new commands.",
                host.name,
                cursor,
                box.published,
            )
            cursor = box.published
        cfg = self.bridge.config
        return Session(
            sid=sid,
            adapter=adapter,
            host=host,
            role=role,
            client=a.client.model_dump(exclude_none=True),
            bucket=TokenBucket(cfg.rate, cfg.burst),
            subscriber=Subscriber(sid, role, cursor),
            world_bucket=self._world_buckets.of(host.name),
            verifier=verifier,
        )

    # -- events --------------------------------------------------------------------------------
    def session(self, sid: str) -> Session:
        """The session of connection ``sid``; raises :class:`Refused` (``bad_auth``)."""
        sess = self._by_sid.get(sid)
        if sess is None:
            raise Refused(ErrorCode.BAD_AUTH, "Not connected to a world.")
        return sess

    def receive(
        self, adapter: Adapter, sid: str, event: str, args: tuple[Any, ...]
    ) -> Ack | Coroutine[Any, Any, Ack]:
        """An inbound event: the coroutine in which its world receives it and which returns
        its ack (the ``companion`` event, the bridge's own, is answered at once). Raises a
        :class:`~vttbridge.rules.refusal.Refusal`, here or in the coroutine, when it is
        refused. Synchronous up to the world's lock (see ``namespace.py``)."""
        if event == COMPANION_EVENT:
            return self.companion(sid, args)
        host = self.screen(sid)
        payload = read_payload(adapter, event, args)
        return host.receive(adapter, event, payload, args[0])

    def screen(self, sid: str) -> HostedWorld:
        """The world an event of connection ``sid`` may go to; raises :class:`Refused`: not
        connected, the observer key, over a rate limit, shutting down."""
        sess = self.session(sid)
        screen(sess.role, sess.bucket, "This connection")
        if sess.world_bucket is not None and (wait := sess.world_bucket.take()):
            raise Refused(
                ErrorCode.RATE_LIMITED,
                f"Too many events for world {sess.host.name!r} from all its connections "
                f"(over {sess.world_bucket.rate:g}/s); retry in {wait:.2f} s.",
                retry_after=wait,
            )
        if self.bridge.closing:
            raise Refused(ErrorCode.SHUTTING_DOWN, "The server is shutting down; resend later.")
        return sess.host

    # -- disconnect ----------------------------------------------------------------------------
    async def disconnect(self, sid: str, reason: Any) -> None:
        sess = self._by_sid.pop(sid, None)
        if sess is None:
            return
        bridge = self.bridge
        sess.host.unsubscribe(sid)
        if sess.pump is not None:
            sess.pump.cancel()
        bridge.dashboards.changed(sess.host)
        if not bridge.closing:
            log.info(
                "%s left world %r (%s); commands will wait for its return.",
                sess.who[0].upper() + sess.who[1:],
                sess.host.name,
                reason or "disconnected",
            )

    def stop_pumps(self) -> None:
        for sess in self._by_sid.values():
            if sess.pump is not None:
                sess.pump.cancel()
