"""Several ``vttbridge serve`` nodes on one PostgreSQL database and one Redis: a client may
connect to any node; each world is run by one node at a time, its owner.

- Ownership is the world's lease (``storage/leases.py``): the node that loads a world holds
  it, and the fence in every commit refuses the rows of an owner that lost it (paused, cut
  off), so two nodes never both append to a world's log.
- An event a client sends to another node is forwarded to the owner over Redis (a request on
  the world's channel, which only its owner subscribes to) and the owner's ack is sent back
  (on the asking node's reply channel). The owner runs it like an event of its own clients:
  arrival order, dedup, the ack once committed.
- Commands reach a client from its own node: every node's connections keep their own cursor
  (``pump.py``), and a node reads the commands of a world it does not own from the shared log,
  told of each commit by the owner (a note on the world's ``published`` channel carrying the
  new commands, so that a node that heard every note reads nothing). A note missed (Redis
  restarted, a new owner) costs one read of the log; nothing is lost or doubled, because the
  log, not the note, is what a cursor follows.
- When a forwarded event finds no owner (it died: Redis dropped its subscription) or gets no
  answer in time (it hangs), the asking node tries to take the world itself (the lease lets
  it once the dead owner's lease has expired) and the event waits, sent again until some node
  owns the world (``RemoteWorld.receive``). A node that takes over a world closes its
  own connections' transports, which reconnect with their ``last_seq`` and get each missed
  command once; connections on other nodes stay, and their events reach the new owner.

Redis is only a messenger here: what a world holds lives in PostgreSQL. Requests and notes
are JSON, published in order through one pipeline (redis-py's asyncio client).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vttbridge.adapters.base import Adapter, Inbound
from vttbridge.adapters.bridge.inbound import read_payload
from vttbridge.adapters.bridge.outbox import Message, Outbox, Subscriber
from vttbridge.adapters.bridge.protocol import Ack, ErrorCode, Refused, ack_error, refusal_ack
from vttbridge.adapters.bridge.storage import StoreError, hide_password
from vttbridge.rules.refusal import Refusal

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.asyncio.client import PubSub
    from vttbridge.adapters.bridge.hosting import Hosting
    from vttbridge.adapters.bridge.storage import Storage, WorldRecord
    from vttbridge.adapters.bridge.worldhost import WorldHost

log = logging.getLogger("vttbridge")

PREFIX = "vttbridge"


def requests_channel(world: str) -> str:
    return f"{PREFIX}:world:{world}"


def published_channel(world: str) -> str:
    return f"{PREFIX}:published:{world}"


def views_channel(world: str) -> str:
    return f"{PREFIX}:views:{world}"


OWNER_CHECK = 0.5
"""Seconds between two looks, while a forwarded event waits, at whether its owner still
listens."""


class NoOwner(Exception):
    """No node serves the world now (or none answered in time)."""


@dataclass
class _Asked:
    future: asyncio.Future
    expected: int | None = None
    """How many nodes got the request (set once the publish returns)."""
    answers: list[Ack] = field(default_factory=list)

    def settle(self) -> None:
        if self.future.done():
            return
        ok = next((a for a in self.answers if a.get("ok")), None)
        if ok is not None:
            self.future.set_result(ok)
        elif self.expected is not None and len(self.answers) >= self.expected:
            self.future.set_result(self.answers[0])


class Cluster:
    """This node's link to the others, over the Redis at ``url``."""

    def __init__(self, url: str, hosting: Hosting, adapters: dict[str, Adapter], timeout: float):
        self.url = url
        self.hosting = hosting
        self.adapters = adapters
        self.timeout = timeout
        """Seconds a forwarded event waits for the owner's ack."""
        self.reply_channel = f"{PREFIX}:reply:{secrets.token_hex(8)}"
        self.redis: Redis | None = None
        self._pubsub: PubSub | None = None
        self._listener: asyncio.Task | None = None
        self._sender: asyncio.Task | None = None
        self._queue: list[tuple[str, str, asyncio.Future | None]] = []
        self._wake = asyncio.Event()
        self._asked: dict[str, _Asked] = {}
        self._ids = 0
        self._followed: dict[str, RemoteWorld] = {}
        self._views: dict[str, Callable[[dict[str, Any]], None]] = {}
        self._tasks: set[asyncio.Task] = set()
        self.on_watch: Callable[[WorldHost], None] | None = None
        """Called on the owner when a dashboard at another node watches a world
        (``dashboard/feed.py``: its views are then published for that node)."""

    # -- life cycle --------------------------------------------------------------------------
    async def start(self) -> None:
        from redis.asyncio import Redis

        self.redis = Redis.from_url(self.url)
        try:
            await self.redis.ping()
        except Exception as e:
            raise StoreError(f"cannot reach the Redis at {hide_password(self.url)}: {e}") from e
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self.reply_channel)
        self._listener = asyncio.create_task(self._listen(), name="cluster:listen")
        self._sender = asyncio.create_task(self._send(), name="cluster:send")
        log.info("Joined the cluster at %s.", hide_password(self.url))

    async def close(self) -> None:
        for task in (self._listener, self._sender, *self._tasks):
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        if self.redis is not None:
            with contextlib.suppress(Exception):
                await self.redis.aclose()

    # -- sending, in order -------------------------------------------------------------------
    def _publish(self, channel: str, data: Any, *, counted: bool = False) -> asyncio.Future | None:
        """Queue a message; with ``counted``, a future of how many nodes got it."""
        fut = asyncio.get_running_loop().create_future() if counted else None
        self._queue.append((channel, json.dumps(data, separators=(",", ":")), fut))
        self._wake.set()
        return fut

    async def _send(self) -> None:
        assert self.redis is not None
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._queue = self._queue, []
            if not batch:
                continue
            pipe = self.redis.pipeline(transaction=False)
            for channel, text, _ in batch:
                pipe.publish(channel, text)
            try:
                counts = await pipe.execute()
            except Exception as e:
                log.warning("Could not reach Redis: %s", e)
                counts = [0] * len(batch)
            for (_, _, fut), n in zip(batch, counts, strict=True):
                if fut is not None and not fut.done():
                    fut.set_result(int(n))

    # -- receiving ---------------------------------------------------------------------------
    async def _listen(self) -> None:
        assert self._pubsub is not None
        while True:
            try:
                msg = await self._pubsub.get_message(timeout=None)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # Redis went away: try again shortly
                log.warning("Lost the cluster's Redis connection: %s", e)
                await asyncio.sleep(0.5)
                continue
            if msg is None or msg.get("type") != "message":
                continue
            channel = msg["channel"].decode()
            try:
                data = json.loads(msg["data"])
                if channel == self.reply_channel:
                    self._answered(data)
                elif channel.startswith(f"{PREFIX}:world:"):
                    self._requested(channel.rsplit(":", 1)[1], data)
                elif channel.startswith(f"{PREFIX}:published:"):
                    remote = self._followed.get(channel.rsplit(":", 1)[1])
                    if remote is not None:
                        remote.outbox.noted(data["after"], data["upto"], data["msgs"])
                elif channel.startswith(f"{PREFIX}:views:"):
                    relay = self._views.get(channel.rsplit(":", 1)[1])
                    if relay is not None:
                        relay(data)
            except Exception:
                log.exception("A cluster message on %s could not be handled", channel)

    # -- the owner's side --------------------------------------------------------------------
    async def serve(self, host: WorldHost) -> None:
        """This node owns ``host`` now: take its requests, tell the others of its commands."""
        assert self._pubsub is not None
        name = host.name
        channel = published_channel(name)
        host.outbox.on_published = lambda after, upto, msgs: self._publish(
            channel, {"after": after, "upto": upto, "msgs": msgs}
        )
        await self._pubsub.subscribe(requests_channel(name))

    async def unserve(self, name: str) -> None:
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(requests_channel(name))

    def _requested(self, world: str, req: dict[str, Any]) -> None:
        host = self.hosting.worlds.get(world)
        op, reply = req.get("op"), str(req.get("reply") or "")
        if host is None or host.stopped:
            if reply:
                self._reply(reply, req["id"], _not_here(world))
            return
        host.keep_awake()
        if op == "watch":
            if self.on_watch is not None:
                self.on_watch(host)
            return
        if op == "acked":
            host.outbox.acked(int(req["seq"]))
            return
        adapter = self.adapters.get(req.get("adapter", ""))
        if op == "link":
            if adapter is not None and host.adapter is not adapter:
                host.adapter = adapter
                host.log.linked(adapter.name)
            return
        if op != "event":
            return
        if adapter is None:  # nodes that differ in their --adapter lists
            self._reply(reply, req["id"], _no_adapter(req.get("adapter")))
            return
        try:
            payload = read_payload(adapter, req["event"], (req["payload"],))
        except Refused as r:
            self._reply(reply, req["id"], refusal_ack(r))
            return
        # Started in the order received: each runs up to the world's lock, which keeps it.
        task = asyncio.ensure_future(host.receive(adapter, req["event"], payload, req["payload"]))
        self._tasks.add(task)
        task.add_done_callback(lambda t: self._receipt(t, reply, req["id"]))

    def _receipt(self, task: asyncio.Task[Ack], reply: str, rid: str) -> None:
        """The owner's answer to a forwarded event: its ack, or its refusal as the ack."""
        self._tasks.discard(task)
        if task.cancelled():
            return
        exc = task.exception()
        if exc is None:
            ack = task.result()
        elif isinstance(exc, Refusal):
            ack = refusal_ack(exc)
        else:
            ack = refusal_ack(Refused(ErrorCode.INTERNAL, f"Server error: {exc}"))
        self._reply(reply, rid, ack)

    def _reply(self, channel: str, rid: str, ack: Ack) -> None:
        self._publish(channel, {"id": rid, "ack": ack})

    # -- the asking side ---------------------------------------------------------------------
    def _answered(self, data: dict[str, Any]) -> None:
        asked = self._asked.get(data.get("id", ""))
        if asked is not None:
            asked.answers.append(data["ack"])
            asked.settle()

    async def forward(self, world: str, adapter: Adapter, event: str, payload: Any) -> Ack:
        """Send an event to the owner of ``world``; its ack. Raises :class:`NoOwner`."""
        self._ids += 1
        rid = f"{self._ids}"
        asked = self._asked[rid] = _Asked(asyncio.get_running_loop().create_future())
        req = {
            "op": "event",
            "id": rid,
            "reply": self.reply_channel,
            "adapter": adapter.name,
            "event": event,
            "payload": payload,
        }
        try:
            counted = self._publish(requests_channel(world), req, counted=True)
            assert counted is not None
            asked.expected = await counted
            if asked.expected == 0:
                raise NoOwner(f"no node serves world {world!r}")
            asked.settle()
            ack = await self._answer(world, asked)
        finally:
            del self._asked[rid]
        if ack.get("error", {}).get("code") == "not_here":
            raise NoOwner(f"no node serves world {world!r}")
        return ack

    async def _answer(self, world: str, asked: _Asked) -> Ack:
        """The owner's ack, waited for up to :attr:`timeout`; :class:`NoOwner` sooner if the
        owner leaves the world's channel meanwhile (it died just after the request went out:
        Redis drops a dead client's subscriptions), looked at every :data:`OWNER_CHECK` s."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise NoOwner(f"the node serving world {world!r} did not answer")
            done, _ = await asyncio.wait({asked.future}, timeout=min(left, OWNER_CHECK))
            if done:
                return asked.future.result()
            assert self.redis is not None
            try:
                listening = await self.redis.pubsub_numsub(requests_channel(world))
            except Exception:
                continue  # Redis itself is away: the timeout decides
            if not any(n for _, n in listening):
                raise NoOwner(f"the node serving world {world!r} is gone")

    def tell(self, world: str, op: str, **body: Any) -> None:
        """A note to the owner of ``world`` that needs no answer (an ack, a link)."""
        self._publish(requests_channel(world), {"op": op, "id": "", **body})

    def publish_view(self, world: str, view: dict[str, Any]) -> None:
        """The owner's view of ``world`` for the dashboards watching it at other nodes."""
        self._publish(views_channel(world), view)

    async def follow_views(self, world: str, relay: Callable[[dict[str, Any]], None]) -> None:
        """Call ``relay(view)`` with each view the owner of ``world`` publishes."""
        assert self._pubsub is not None
        self._views[world] = relay
        await self._pubsub.subscribe(views_channel(world))

    async def unfollow_views(self, world: str) -> None:
        if self._views.pop(world, None) is not None and self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(views_channel(world))

    async def follow(self, remote: RemoteWorld) -> None:
        assert self._pubsub is not None
        self._followed[remote.name] = remote
        await self._pubsub.subscribe(published_channel(remote.name))

    async def unfollow(self, remote: RemoteWorld) -> None:
        if self._followed.get(remote.name) is remote:
            del self._followed[remote.name]
            if self._pubsub is not None:
                with contextlib.suppress(Exception):
                    await self._pubsub.unsubscribe(published_channel(remote.name))


def _no_adapter(name: Any) -> Ack:
    return ack_error(
        ErrorCode.INTERNAL,
        f"The node serving this world has no adapter {name!r}: give every "
        "node the same --adapter options.",
    )


def _not_here(world: str) -> Ack:
    return ack_error("not_here", f"World {world!r} is not served by this node.")


class RemoteOutbox(Outbox):
    """The commands of a world another node owns, as this node's connections get them: from
    the owner's notes while they follow each other, else from the log."""

    def __init__(self, remote: RemoteWorld, store: Storage, *, seq: int, acked_seq: int, keep: int):
        super().__init__(
            remote.name, store, None, remote.subscribers, seq=seq, acked_seq=acked_seq, keep=keep
        )
        self.remote = remote

    def noted(self, after: int, upto: int, msgs: list[Message]) -> None:
        """The owner committed the commands ``msgs``, its commands up to ``upto`` (its last
        note said up to ``after``)."""
        if upto <= self.published:
            return
        if after == self.published:
            self.remember([m for m in msgs if m["seq"] > after])
        else:  # a note was missed: what came before ``upto`` is read from the log
            self.forget(upto)
        self.published = upto
        self.wake_all()

    def acked(self, seq: int) -> None:
        if seq > self.acked_seq:
            self.acked_seq = seq
            self.remote.cluster.tell(self.name, "acked", seq=seq)


class _Linker:
    """``host.log.linked`` of a remote world: the owner is told."""

    def __init__(self, remote: RemoteWorld) -> None:
        self.remote = remote

    def linked(self, adapter: str) -> None:
        self.remote.cluster.tell(self.remote.name, "link", adapter=adapter)


class RemoteWorld:
    """A world another node owns, as this node's VTT connections use it: their events are
    forwarded to the owner, their commands read here (:class:`RemoteOutbox`). A
    :class:`~vttbridge.adapters.bridge.hosted.HostedWorld`, as a local world's host is."""

    def __init__(
        self,
        rec: WorldRecord,
        cluster: Cluster,
        store: Storage,
        *,
        seq: int,
        keep: int,
        on_orphaned: Callable[[RemoteWorld], None],
        local: Callable[[], WorldHost | None] = lambda: None,
        patience: float = 0.0,
    ) -> None:
        self.name = rec.name
        self.cluster = cluster
        self.adapter: Adapter | None = cluster.adapters.get(rec.adapter or "")
        self.subscribers: dict[str, Subscriber] = {}
        self.watchers: set[str] = set()
        self.stopped = False
        self.orphaned = False
        """The last forwarded event found no owner: the next connect tries to take it."""
        self.log = _Linker(self)
        self.outbox = RemoteOutbox(
            self, store, seq=seq, acked_seq=min(rec.acked_seq, seq), keep=keep
        )
        self._on_orphaned = on_orphaned
        self._local = local
        self.patience = patience
        """Seconds an event waits for a new owner (the lease time and two forwards)."""

    def subscribe(self, sub: Subscriber) -> None:
        self.subscribers[sub.sid] = sub

    def unsubscribe(self, sid: str) -> None:
        self.subscribers.pop(sid, None)

    def keep_awake(self) -> None:
        pass

    @property
    def here(self) -> None:
        """Another node runs this world (see :class:`~vttbridge.adapters.bridge.hosted.
        HostedWorld`)."""
        return None

    async def receive(self, adapter: Adapter, event: str, payload: Inbound, sent: Any) -> Ack:
        """Forward an event: ``sent``, its payload as the client sent it (``payload``, as this
        node read it, only screened it: the owner reads it itself). Raises the owner's
        refusal (:class:`Refused`) when it refuses it.

        While the world has no owner (it died, it hangs) the event waits here, and is sent
        again until a node takes the world over (this one, if its lease allows: then it is
        run here), for up to ``patience`` seconds: the companions send an event again when
        its ack is lost, not when it is refused. The connection's later events wait behind
        it, in order."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.patience
        why = "no node serves it now"
        while True:
            if self.stopped:  # taken over by this node: run it here
                host = self._local()
                if host is not None:
                    return await host.receive(adapter, event, payload, sent)
            else:
                try:
                    ack = await self.cluster.forward(self.name, adapter, event, sent)
                except NoOwner as e:
                    self.orphaned = True
                    self._on_orphaned(self)
                    why = str(e)
                else:
                    self.orphaned = False
                    if ack.get("ok") is False:
                        raise Refused.from_error(ack.get("error") or {})
                    return ack
            if loop.time() >= deadline:
                raise Refused(
                    ErrorCode.WORLD_UNAVAILABLE,
                    f"World {self.name!r} is changing server ({why}); send it again in a moment.",
                )
            await asyncio.sleep(0.1)
