"""The bridge server: aiohttp + python-socketio, one namespace per adapter, one room per world.

Use :class:`Bridge` from code (tests, embedding)::

    bridge = Bridge(BridgeConfig(database="worlds.sqlite3"), adapters=[MyTable()])
    port = await bridge.listen("127.0.0.1", 0)  # started, on a free port
    ...
    await bridge.shutdown()                      # every world saved, the port closed

``bridge.serve()`` does the same until SIGINT/SIGTERM; ``bridge.start()`` alone returns the
aiohttp Application (with the socket attached) to serve some other way, ``stop()`` after it.
All of that runs in one process. ``vttbridge serve --processes 2`` runs the same bridge with
its worlds in a second process (``engine.py``) and its sockets in the first (``front.py``),
which reach each other through :class:`SioTransport`'s counterpart over a pipe (``link.py``).

Connection policy (wire protocol v1, ``shared/DESIGN.md``):

- The connect ``auth`` is checked in this order: protocol version, shape, the wrong-key
  throttle (``attempts.py``), world and key (read from the database each time, so a reset
  applies at once), and only then is a sleeping world woken. A refused connect carries
  ``{"message": <why, in words>, "data": {"code": <ErrorCode>, "retry_after"?: seconds}}``.
- Connections whose key was reset (``vttbridge world reset-key``, in any process) are closed
  within ``key_check_interval`` (2 s): the bridge compares the stored hashes with those the
  connections' keys matched (``_watch_keys``).
- Packets that are no usable event (bad JSON, no name, reserved names, binary, over
  ``max_payload``) are refused by ``packets.py`` before they reach a world.
- Events are rate-limited per connection (``rate``/``burst``) and per world, all its
  connections together (``world_rate``/``world_burst``).
- A GM key may send events; an observer key may only watch (it receives commands too, so a
  spectator display can follow the table, and its events are refused with ``read_only``).
- A world is linked to one VTT at a time: the adapter of its GM client. A GM client of another
  adapter is refused while the linked one is connected, and relinks the world otherwise.
- One connection's events are handled one at a time, in the order received, inside its
  reader (python-socketio's ``async_handlers=False``): no task per event, and the order needs
  no argument. A websocket's reader and writer are ``websocket.py``'s, which make no task or
  timer per message either. Connections interleave; a world's events from several
  connections are put in arrival order by the world's lock (``adapters/bridge/world.py``).
- The dashboard's namespace (``/dashboard``, ``adapters/bridge/dashboard/feed.py``) admits
  pages with the same checks (:meth:`Bridge.authenticate`); a page never links a world.
- Commands go to each connection from its own cursor (``last_seq``, else the world's last
  acknowledged command), so every connection gets every command once and in order, across
  reconnects. Connections also join the world's room (``world:<name>``) for broadcasts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import signal
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import socketio
from aiohttp import web
from pydantic import ValidationError

from adapters.base import Adapter, AdapterRegistry, AdapterSource, Inbound
from adapters.bridge import dashboard, install, keys, polling, websocket
from adapters.bridge.attempts import AttemptLimits, Attempts
from adapters.bridge.packets import REFUSED, PacketJson, SocketServer, json_error, packet_class
from adapters.bridge.protocol import (
    PROTOCOL_VERSION,
    SUPPORTED_PROTOCOLS,
    Auth,
    ErrorCode,
    ack_error,
    validation_ack,
)
from adapters.bridge.storage import (
    LeaseKeeper,
    Storage,
    StoreError,
    WorldRecord,
    default_node_id,
    open_storage,
    run_blocking,
)
from adapters.bridge.world import Ack, Subscriber, WorldConfig, WorldHost
from rules.options import Options
from sdk.loader import entry_point_sources

log = logging.getLogger("vttbridge")

KEY_HEADER = "X-World-Key"


@dataclass
class BridgeConfig:
    """Everything ``vttbridge serve`` can set. Defaults are the documented CLI defaults."""

    database: str | Path = "vttbridge.sqlite3"
    """A SQLite file, or a ``postgresql://`` URL (``adapters/bridge/storage``)."""
    node: str | None = None
    """This node's name among those sharing a database (None: the host name and port)."""
    lease_ttl: float = 15.0
    """Seconds a world's lease lasts unrenewed: how long the worlds of a node that died wait
    before another node may take them (renewed every third of it)."""
    host: str = "127.0.0.1"
    port: int = 8787
    scripts: list[str] = field(default_factory=list)
    max_payload: int = 512 * 1024
    """Bytes per inbound event (its JSON on the wire); larger ones get ``payload_too_large``."""
    rate: float = 100.0
    """Events per second per connection, sustained (0: no limit)."""
    burst: int = 200
    """Events a connection may send at once before ``rate`` applies."""
    world_rate: float | None = None
    """Events per second all connections of one world may send together, sustained (0: no
    limit; None: twice ``rate``)."""
    world_burst: int | None = None
    """Events one world's connections may send at once (None: twice ``burst``)."""
    attempts: AttemptLimits = field(default_factory=AttemptLimits)
    """How many wrong keys an address, or a world, is allowed (``attempts.py``)."""
    key_check_interval: float = 2.0
    """Seconds between two looks at the stored key hashes, to close the connections whose key
    was reset (``vttbridge world reset-key``, from any process); 0: never."""
    durability: str = "normal"
    """``normal``: a commit survives the process being killed; ``full``: also power loss."""
    cors: list[str] | str = "*"
    """Origins allowed to open a socket (the VTT page is another origin). Keys still guard
    every world."""
    world: WorldConfig = field(default_factory=WorldConfig)
    reload_scripts: bool = True
    entry_point_scripts: bool = True
    """Load the scripts installed packages register in the ``vttbridge.scripts`` group."""
    ping_interval: float = 25.0
    ping_timeout: float = 20.0

    @property
    def world_limits(self) -> tuple[float, int]:
        """(rate, burst) of the per-world limit."""
        rate = 2 * self.rate if self.world_rate is None else self.world_rate
        burst = 2 * self.burst if self.world_burst is None else self.world_burst
        return rate, burst

    @property
    def read_limit(self) -> int:
        """Bytes of a message read whole. Of a larger one the transports keep only its start,
        enough to answer it (``payload_too_large``); the rest is dropped as it arrives."""
        return self.max_payload + 64  # the engine.io and socket.io framing around an event

    @property
    def transport_limit(self) -> int:
        # What engineio advertises as its maxPayload (the largest POST a long-polling client
        # batches packets into), and the websocket's limit should aiohttp's frame parser not
        # be one the bridge can put its gate in front of (adapters/bridge/websocket.py).
        return max(4 * self.max_payload, 1_000_000)


class TokenBucket:
    """Per-connection rate limit: ``burst`` events at once, ``rate`` per second sustained."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(max(1, burst))
        self.tokens = self.burst
        self.t = time.monotonic()

    def take(self) -> float:
        """0 if allowed, else seconds until the next event would be."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


@dataclass(eq=False)
class Session:
    sid: str
    adapter: Adapter
    host: WorldHost
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


class WorldUnavailable(Exception):
    """A world that exists but cannot be loaded (an unreadable snapshot, a broken script)."""


class Refused(Exception):
    def __init__(self, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = None if retry_after is None else max(1, math.ceil(retry_after))

    @property
    def data(self) -> dict[str, Any]:
        """The ``data`` of the refused connect."""
        if self.retry_after is None:
            return {"code": self.code}
        return {"code": self.code, "retry_after": self.retry_after}


class AdapterNamespace(socketio.AsyncNamespace):
    """One adapter's namespace. Every event name is handled here (VTT event names such as
    ``change:graphic`` are not Python identifiers, so ``on_<event>`` methods cannot be used)."""

    def __init__(self, bridge: Bridge, adapter: Adapter) -> None:
        super().__init__(adapter.ns)
        self.bridge = bridge
        self.adapter = adapter

    async def trigger_event(self, event: str, *args: Any) -> Any:
        if event == "connect":
            sid, environ, *rest = args
            return await self.bridge._connect(self.adapter, sid, environ, rest[0] if rest else None)
        if event == "disconnect":
            return await self.bridge._disconnect(args[0], args[1] if len(args) > 1 else "")
        # No await before the world's lock is asked for, so events reach it in arrival order.
        result = self.bridge._event(self.adapter, args[0], event, args[1:])
        if asyncio.iscoroutine(result):
            return await result
        return result


class Bridge:
    """The server: worlds, sockets, HTTP. See the module docstring."""

    def __init__(
        self,
        config: BridgeConfig | None = None,
        adapters: AdapterRegistry | Iterable[AdapterSource] | None = None,
    ) -> None:
        self.config = config or BridgeConfig()
        if isinstance(adapters, AdapterRegistry):
            self.registry = adapters
        else:
            self.registry = AdapterRegistry(adapters or ())
        self.worlds: dict[str, WorldHost] = {}
        self.sessions: dict[str, Session] = {}
        self.sio: socketio.AsyncServer | None = None
        self.transport: SioTransport | Any = None
        """How commands reach the sockets: :class:`SioTransport`, or the link to the socket
        process (``adapters/bridge/engine.py``)."""
        self.app: web.Application | None = None
        self.store: Storage | None = None
        self.leases: LeaseKeeper | None = None
        """The leases of the worlds this node hosts (``adapters/bridge/storage/leases.py``)."""
        self.started_at = time.time()
        self._loading: dict[str, asyncio.Task] = {}
        self._sleeping: dict[str, asyncio.Task] = {}
        self._sweeper: asyncio.Task | None = None
        self._closing = False
        self._runner: web.AppRunner | None = None
        # entry point scripts, found once per start (not per world loaded or woken)
        self._plugins: list[tuple[str, Any]] = []
        self.attempts = Attempts(self.config.attempts)
        self._world_buckets: dict[str, TokenBucket] = {}
        self._rehashed: dict[str, str] = {}
        """Slow key hashes this server replaced -> their replacements (see ``_watch_keys``)."""
        self._key_watch: asyncio.Task | None = None
        self.key_checks = 0
        """Looks the key watch has taken at the stored hashes (see ``_watch_keys``)."""
        self.port: int | None = None
        from adapters.bridge.dashboard.feed import DashboardFeed  # it imports this module

        self.dashboards = DashboardFeed(self)
        """The dashboard pages' views and answers (``adapters/bridge/dashboard``)."""

    # -- life cycle --------------------------------------------------------------------------
    async def open(self) -> None:
        """Open the database and rebuild every world: all but the sockets (see
        ``adapters/bridge/engine.py`` for a bridge whose sockets live in another process)."""
        cfg = self.config
        self.store = await open_storage(cfg.database, durability=cfg.durability)
        self.store.on_lost = self._lost
        node = cfg.node or default_node_id(cfg.port)
        self.leases = LeaseKeeper(self.store, node, cfg.lease_ttl, self._lost)
        if cfg.entry_point_scripts:
            self._plugins = entry_point_sources()
        records = await self.store.worlds()
        for rec in records:
            try:
                await self._load_world(rec)
            except Exception as e:  # one unreadable world must not keep the others down
                log.error("World %r could not be loaded and is unavailable: %s", rec.name, e)
        _trim_memory()  # loading leaves parsed snapshots behind as freed but unreturned heap
        if cfg.world.sleep_after > 0 or cfg.world.snapshot_quiet > 0:
            self._sweeper = asyncio.create_task(self._sweep(), name="bridge:sweeper")
        if cfg.key_check_interval > 0:
            self._key_watch = asyncio.create_task(self._watch_keys(), name="bridge:keys")
        names = ", ".join(f"{a.name} ({a.ns})" for a in self.registry)
        log.info("Bridge ready: %d worlds, adapters %s.", len(self.worlds), names)

    async def start(self) -> web.Application:
        """Open the database, rebuild every world, and build the aiohttp app."""
        await self.open()
        cfg = self.config
        self.sio = new_socket_server(cfg)
        self.transport = SioTransport(self.sio)
        for adapter in self.registry:
            self.sio.register_namespace(AdapterNamespace(self, adapter))
        self.sio.register_namespace(self.dashboards.namespace())
        app = web.Application()
        add_pages(app.router)
        app.router.add_get("/status", self._http_index)
        app.router.add_get("/healthz", self._http_health)
        app.router.add_get("/api/worlds/{world}/state", self._http_state)
        self.sio.attach(app, socketio_path="socket.io")
        self.app = app
        return app

    async def stop(self, *, snapshot: bool = True) -> None:
        """Finish queued events, write final snapshots (unless ``snapshot=False``, which
        leaves the next start to replay the log, as after a crash), close the database."""
        if self._closing:
            return
        self._closing = True  # new events are refused with shutting_down from here on
        if self._sweeper is not None:
            self._sweeper.cancel()
        if self._key_watch is not None:
            self._key_watch.cancel()
        for task in list(self._sleeping.values()):
            with contextlib.suppress(Exception):
                await task
        # Events already queued are processed and acknowledged while clients are still here.
        for host in list(self.worlds.values()):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(host.drain(), 10)
        if self.store is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.store.barrier(), 10)
            await asyncio.sleep(0.05)  # let the acks go out
        for sess in list(self.sessions.values()):
            if sess.pump is not None:
                sess.pump.cancel()
        await self.dashboards.close()
        if self.transport is not None:
            try:
                await self.transport.close()
            except Exception:
                log.debug("closing the client transports failed", exc_info=True)
        for host in list(self.worlds.values()):
            try:
                await host.stop(snapshot=snapshot)
            except Exception:
                log.exception("World %r did not stop cleanly", host.name)
        if self.leases is not None:
            await self.leases.close()  # after the final snapshots are committed
        if self.store is not None:
            await self.store.close()
        log.info("Bridge stopped; every world is saved.")

    async def listen(self, host: str | None = None, port: int | None = None) -> int:
        """Start, then listen on ``host`` and ``port`` (the configured ones unless given;
        port 0: any free one). Returns the port bound; :meth:`shutdown` undoes both."""
        app = await self.start()
        self._runner, self.port = await listen_app(
            app,
            self.config.host if host is None else host,
            self.config.port if port is None else port,
        )
        return self.port

    async def shutdown(self, *, snapshot: bool = True) -> None:
        """:meth:`stop`, then stop listening."""
        await self.stop(snapshot=snapshot)
        if self._runner is not None:
            await self._runner.cleanup()

    async def serve(self) -> None:
        """Start, listen on the configured host and port until SIGINT/SIGTERM, then stop."""
        stop = stop_signal()
        port = await self.listen()
        announce(self.config.host, port)
        try:
            await until_signalled(stop)
        finally:
            log.info("Shutting down...")
            await self.shutdown()

    async def _load_world(self, rec: WorldRecord) -> WorldHost:
        assert self.store is not None and self.leases is not None
        kw: dict[str, Any] = {
            "scripts": list(self.config.scripts),
            "reload_interval": 1.0 if self.config.reload_scripts else None,
            "entry_points": self._plugins,
        }
        if rec.options:
            kw["options"] = Options.model_validate(rec.options)
        adapters = {a.name: a for a in self.registry}
        lease = await self.leases.acquire(rec.name)
        if lease is None:
            holder = await self.store.owner(rec.name)
            raise StoreError(
                f"world {rec.name!r} is served by another node"
                + (f" ({holder.node})" if holder is not None else "")
            )
        try:
            host = await WorldHost.load(
                rec.name,
                self.store,
                lease,
                adapters=adapters,
                config=self.config.world,
                runtime_kw=kw,
                acked_seq=rec.acked_seq,
                adapter_name=rec.adapter,
            )
        except BaseException:
            await self.leases.release(lease)
            raise
        self.worlds[rec.name] = host
        return host

    def _lost(self, name: str, fence: int, why: StoreError) -> None:
        """The database refused rows of world ``name`` written under ``fence`` (another node
        took it over, or the commit failed): what this node holds of it in memory is stale.
        Unload it without saving and close its connections; a client that reconnects gets
        it loaded again from the database (or refused, while another node owns it)."""
        host = self.worlds.get(name)
        if host is None or host.lease.fence != fence or self._closing:
            return
        del self.worlds[name]
        assert self.leases is not None
        if self.leases.held.get(name) == host.lease:
            del self.leases.held[name]
        log.warning("World %r is unloaded: %s. Its clients are disconnected.", name, why)
        from adapters.bridge.dashboard.feed import NAMESPACE as DASHBOARD

        gone = [(s.sid, s.adapter.ns) for s in self.sessions.values() if s.host is host]
        gone += [(v.sid, DASHBOARD) for v in self.dashboards.viewers.values() if v.world == name]

        async def unload() -> None:
            for sid, ns in gone:
                with contextlib.suppress(Exception):
                    await self.transport.disconnect(sid, ns)
            try:
                await host.stop(snapshot=False)
            except Exception:
                log.exception("World %r did not stop cleanly", name)

        self._sleeping[name] = task = asyncio.ensure_future(unload())
        task.add_done_callback(
            lambda t: self._sleeping.pop(name) if self._sleeping.get(name) is t else None
        )

    async def _world(self, name: str) -> WorldHost | None:
        """A hosted world, woken if it sleeps; one created (``vttbridge world create``) while
        we run is loaded on its first use. Restarts the world's idle clock."""
        host = self.worlds.get(name)
        if host is not None:
            host.keep_awake()
            return host
        assert self.store is not None
        sleeping = self._sleeping.get(name)
        if sleeping is not None:  # being saved: wake it from that snapshot, not before
            with contextlib.suppress(Exception):
                await asyncio.shield(sleeping)
        task = self._loading.get(name)
        if task is None:
            rec = await self.store.world(name)
            if rec is None:
                return None
            if name in self.worlds:
                return self.worlds[name]
            task = self._loading.setdefault(name, asyncio.ensure_future(self._load_world(rec)))
        try:
            return await asyncio.shield(task)
        except Exception as e:
            log.error("World %r could not be loaded: %s", name, e)
            raise WorldUnavailable(f"World {name!r} could not be loaded: {e}") from e
        finally:
            self._loading.pop(name, None)

    async def _sweep(self) -> None:
        """Snapshot worlds that went quiet; put worlds to sleep once they have been idle for
        ``sleep_after`` seconds."""
        after, quiet = self.config.world.sleep_after, self.config.world.snapshot_quiet
        interval = min(30.0, max(0.2, min(t for t in (after / 4, quiet / 2, 30.0) if t > 0)))
        while True:
            await asyncio.sleep(interval)
            if quiet > 0:
                for host in list(self.worlds.values()):
                    host.snapshot_if_quiet(quiet)
            if after <= 0:
                continue
            asleep = [h for h in list(self.worlds.values()) if h.can_sleep(after)]
            for host in asleep:
                self._put_to_sleep(host)
            if asleep:
                saving = [t for h in asleep if (t := self._sleeping.get(h.name)) is not None]
                await asyncio.gather(*saving, return_exceptions=True)
                _trim_memory()

    def _put_to_sleep(self, host: WorldHost) -> None:
        name = host.name
        if self.worlds.get(name) is not host:
            return
        del self.worlds[name]  # from now on a connect wakes it (after the save below)

        async def sleep() -> None:
            try:
                await host.stop(snapshot=True)
                await host.log.barrier()
                assert self.leases is not None
                await self.leases.release(host.lease)
                log.info(
                    "World %r saved and asleep (no client for %s); it wakes when a client "
                    "connects.",
                    name,
                    _duration(self.config.world.sleep_after),
                )
            except Exception:
                log.exception("World %r could not be put to sleep cleanly", name)
            finally:
                self._sleeping.pop(name, None)

        self._sleeping[name] = asyncio.ensure_future(sleep())

    async def _check_key(self, name: str, key: str, address: str) -> tuple[str, str]:
        """(role, the stored hash it matched) of ``key`` for world ``name``, or Refused:
        ``too_many_attempts`` (before anything is read), ``unknown_world``, ``wrong_key``.
        The hashes are read from the database each time, so a key reset (by the CLI, in
        another process) applies to the next attempt at once. A fast hash is checked here and
        now (a microsecond); an old scrypt one in a thread, and then replaced by a fast one."""
        wait, why = self.attempts.wait(address, name)
        if wait:
            if why == "world":
                text = (
                    f"Too many wrong keys for world {name!r} lately, from this address among others"
                )
            else:
                text = "Too many wrong keys or unknown worlds from this address lately"
            raise Refused(
                ErrorCode.TOO_MANY_ATTEMPTS,
                f"{text}; try again in {math.ceil(wait)} s.",
                retry_after=wait,
            )
        assert self.store is not None
        rec = await self.store.world(name)
        if rec is None:
            self.attempts.failed(address, None)
            raise Refused(
                ErrorCode.UNKNOWN_WORLD,
                f"There is no world {name!r} on this server (`vttbridge world list` shows them).",
            )
        order = [("observer", rec.observer_key_hash), ("gm", rec.gm_key_hash)]
        if not key.startswith("vtt_obs_"):
            order.reverse()
        for role, stored in order:
            if keys.needs_rehash(stored):
                ok = await asyncio.to_thread(keys.verify_key, key, stored)
            else:
                ok = keys.verify_key(key, stored)
            if ok:
                self.attempts.succeeded(address, name)
                if keys.needs_rehash(stored):
                    self._rehash(name, role, stored, key)
                return role, stored
        self.attempts.failed(address, name)
        raise Refused(ErrorCode.WRONG_KEY, f"Wrong key for world {name!r}.")

    def _rehash(self, name: str, role: str, stored: str, key: str) -> None:
        """Replace an old scrypt hash whose key was just verified by a fast one (in the
        writer's next transaction; only if the hash is still ``stored``)."""
        new = keys.hash_key(key)
        self._rehashed[stored] = new
        assert self.store is not None
        self.store.rehash(name, role, stored, new)
        log.info("World %r: its %s key hash was upgraded to the fast form.", name, role)

    async def _role(self, name: str, key: str, address: str = "") -> str | None:
        """``"gm"``, ``"observer"`` or None (see :meth:`_check_key`)."""
        try:
            return (await self._check_key(name, key, address))[0]
        except Refused:
            return None

    async def _watch_keys(self) -> None:
        """Close the connections whose key was reset, whatever process reset it: every
        ``key_check_interval`` seconds the stored hashes of the worlds with connections are
        compared with those their keys matched (one query of the worlds table). The client
        is told as by any server disconnect; the companions reconnect and are refused
        ``wrong_key``."""
        from adapters.bridge.dashboard.feed import NAMESPACE as DASHBOARD

        while True:
            await asyncio.sleep(self.config.key_check_interval)
            viewers = self.dashboards.viewers
            if not (self.sessions or viewers) or self.store is None:
                continue
            try:
                hashes = await self.store.key_hashes()
            except Exception as e:  # the next look will do
                log.warning("Could not read the world keys to check them: %s", e)
                continue
            self.key_checks += 1
            # (world, role, verifier, sid, namespace) of every connection opened with a key
            opened = [
                (s.host.name, s.role, s.verifier, s.sid, s.adapter.ns)
                for s in self.sessions.values()
            ]
            opened += [(v.world, v.role, v.verifier, v.sid, DASHBOARD) for v in viewers.values()]
            stale: dict[str, list[tuple[str, str]]] = {}
            for world, role, verifier, sid, ns in opened:
                pair = hashes.get(world)
                now = None if pair is None else pair[0 if role == "gm" else 1]
                if now != verifier and self._rehashed.get(verifier) != now:
                    stale.setdefault(world, []).append((sid, ns))
            for name, gone in stale.items():
                log.warning(
                    "World %r has new keys (`vttbridge world reset-key`): closing %d "
                    "connection%s opened with the old ones.",
                    name,
                    len(gone),
                    "s" if len(gone) != 1 else "",
                )
                for sid, ns in gone:
                    try:
                        await self.transport.disconnect(sid, ns)
                    except Exception:
                        log.debug("closing a connection failed", exc_info=True)

    # -- sockets -----------------------------------------------------------------------------
    async def _connect(self, adapter: Adapter, sid: str, environ: dict, auth: Any) -> bool:
        try:
            sess = await self._admit(adapter, sid, auth, client_address(environ))
        except Refused as r:
            world = auth.get("world") if isinstance(auth, dict) else None
            log.warning(
                "Refused a %s connection%s: %s",
                adapter.name,
                f" to world {world!r}" if isinstance(world, str) else "",
                r.message,
            )
            raise socketio.exceptions.ConnectionRefusedError(r.message, r.data) from None
        self.sessions[sid] = sess
        host = sess.host
        host.subscribe(sess.subscriber)
        await self.transport.join(sid, adapter.ns, f"world:{host.name}")
        missed = await host.count_commands_after(sess.subscriber.cursor)
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
        sess.pump = asyncio.create_task(self._pump(sess), name=f"pump:{sid}")
        self.dashboards.changed(host)
        return True

    async def authenticate(self, auth: Any, address: str = "") -> tuple[Auth, WorldHost, str, str]:
        """Check a connect's ``auth`` from ``address`` (protocol version, shape, throttle,
        world and key, in that order; see the module docstring). Returns the auth, the world
        (woken if it slept), the role (``"gm"`` or ``"observer"``) and the stored key hash
        the key matched (:attr:`Session.verifier`); raises :class:`Refused`."""
        if not isinstance(auth, dict):
            raise Refused(
                ErrorCode.BAD_AUTH,
                "Send the connect auth {world, key, client: {name, version}}.",
            )
        proto = auth.get("protocol", PROTOCOL_VERSION)
        if type(proto) is not int or proto not in SUPPORTED_PROTOCOLS:  # [1] is unhashable
            supported = ", ".join(str(p) for p in sorted(SUPPORTED_PROTOCOLS))
            raise Refused(
                ErrorCode.UNSUPPORTED_PROTOCOL,
                f"Protocol version {proto!r} is not supported; this server speaks {supported}. "
                "Update the companion module or the server.",
            )
        try:
            a = Auth.model_validate(auth)
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise Refused(ErrorCode.BAD_AUTH, f"Bad connect auth: {where}: {err['msg']}.") from None
        # the key first: a wrong one never wakes a sleeping world
        role, verifier = await self._check_key(a.world, a.key, address)
        try:
            host = await self._world(a.world)
        except WorldUnavailable as e:
            raise Refused(ErrorCode.WORLD_UNAVAILABLE, f"{e} (see the server log).") from None
        if host is None:
            raise Refused(ErrorCode.UNKNOWN_WORLD, f"World {a.world!r} was deleted.")
        if host.stopped:  # it fell asleep while the key was checked: wake it again
            try:
                host = await self._world(a.world)
            except WorldUnavailable as e:
                raise Refused(ErrorCode.WORLD_UNAVAILABLE, str(e)) from None
            if host is None:
                raise Refused(ErrorCode.UNKNOWN_WORLD, f"World {a.world!r} was deleted.")
        if self._closing:
            raise Refused(ErrorCode.SHUTTING_DOWN, "The server is shutting down.")
        return a, host, role, verifier

    async def _admit(self, adapter: Adapter, sid: str, auth: Any, address: str = "") -> Session:
        a, host, role, verifier = await self.authenticate(auth, address)
        cursor: int
        if role == "gm":
            if host.adapter is not None and host.adapter is not adapter:
                other = [
                    s for s in self.sessions.values()
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
                a.last_seq = host.published
            if host.adapter is not adapter:
                host.adapter = adapter
                host.log.linked(adapter.name)
            cursor = a.last_seq if a.last_seq is not None else host.acked_seq
        else:
            cursor = a.last_seq if a.last_seq is not None else host.published
        if cursor > host.published:
            log.warning(
                "World %r: the client says it applied command %d, but the server's log ends "
                "at %d (was the database replaced?). Sending only new commands.",
                host.name,
                cursor,
                host.published,
            )
            cursor = host.published
        return Session(
            sid=sid,
            adapter=adapter,
            host=host,
            role=role,
            client=a.client.model_dump(exclude_none=True),
            bucket=TokenBucket(self.config.rate, self.config.burst),
            subscriber=Subscriber(sid, role, cursor),
            world_bucket=self._world_bucket(host.name),
            verifier=verifier,
        )

    def _world_bucket(self, name: str) -> TokenBucket | None:
        rate, burst = self.config.world_limits
        if rate <= 0:
            return None
        bucket = self._world_buckets.get(name)
        if bucket is None:
            bucket = self._world_buckets[name] = TokenBucket(rate, burst)
        return bucket

    async def _disconnect(self, sid: str, reason: Any) -> None:
        sess = self.sessions.pop(sid, None)
        if sess is None:
            return
        sess.host.unsubscribe(sid)
        if self.transport is not None:
            self.transport.forget(sid)
        if sess.pump is not None:
            sess.pump.cancel()
        self.dashboards.changed(sess.host)
        if not self._closing:
            log.info(
                "%s left world %r (%s); commands will wait for its return.",
                sess.who[0].upper() + sess.who[1:],
                sess.host.name,
                reason or "disconnected",
            )

    async def _pump(self, sess: Session) -> None:
        """Send this connection every durable command after its cursor, in order, once."""
        transport, ns, sid = self.transport, sess.adapter.ns, sess.sid
        assert transport is not None
        # The connect handler runs before python-socketio sends CONNECT; wait for it so no
        # command overtakes the connect.
        await transport.wait_connected(sid, ns)
        sub, host = sess.subscriber, sess.host
        try:
            while sid in self.sessions:
                batch = await host.commands_after(sub.cursor)
                if not batch:
                    sub.wake.clear()
                    if host.published > sub.cursor or self._closing:
                        if self._closing:
                            return
                        continue
                    await sub.wake.wait()
                    continue
                for msg in batch:
                    await transport.send_command(
                        sid, ns, msg, _AckHandler(self, sess, msg["seq"], msg["op"])
                    )
                    sub.cursor = msg["seq"]
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("Sending commands to %s failed", sess.who)

    def _event(self, adapter: Adapter, sid: str, event: str, args: tuple) -> Any:
        """Validate one inbound event; returns the ack, or the coroutine that processes the
        event and returns it. Synchronous up to the world's lock (see
        :meth:`AdapterNamespace.trigger_event`)."""
        checked = self._check(adapter, sid, event, args)
        if isinstance(checked, dict):
            return checked
        host, data = checked
        return host.handle(adapter, event, data)

    def submit_event(
        self, adapter: Adapter, sid: str, event: str, args: tuple, reply: Callable[[Ack], None]
    ) -> None:
        """:meth:`_event` answering through ``reply`` (see :meth:`WorldHost.submit`)."""
        checked = self._check(adapter, sid, event, args)
        if isinstance(checked, dict):
            reply(checked)
            return
        host, data = checked
        host.submit(adapter, event, data, reply)

    def _check(
        self, adapter: Adapter, sid: str, event: str, args: tuple
    ) -> Ack | tuple[WorldHost, Inbound]:
        """The world and the validated payload of an inbound event, or the ack refusing it."""
        sess = self.sessions.get(sid)
        if sess is None:
            return ack_error(ErrorCode.BAD_AUTH, "Not connected to a world.")
        if sess.role != "gm":
            return ack_error(
                ErrorCode.READ_ONLY, "This connection uses the observer key: it may only watch."
            )
        wait = sess.bucket.take()
        if wait:
            return ack_error(
                ErrorCode.RATE_LIMITED,
                f"Too many events from this connection (over {self.config.rate:g}/s); "
                f"retry in {wait:.2f} s.",
            )
        if sess.world_bucket is not None and (wait := sess.world_bucket.take()):
            return ack_error(
                ErrorCode.RATE_LIMITED,
                f"Too many events for world {sess.host.name!r} from all its connections "
                f"(over {sess.world_bucket.rate:g}/s); retry in {wait:.2f} s.",
            )
        if self._closing:
            return ack_error(ErrorCode.SHUTTING_DOWN, "The server is shutting down; resend later.")
        payload = args[0] if args else None
        if event == REFUSED:  # by the packet layer: bad JSON, no name, too large...
            return payload.ack()
        if isinstance(payload, str):  # relays that send JSON text rather than an object
            try:
                payload = PacketJson.loads(payload)
            except ValueError as e:
                return ack_error(
                    ErrorCode.BAD_JSON, f"The payload is not valid JSON: {json_error(e)}."
                )
        model = adapter.inbound.get(event)
        if model is None:
            return ack_error(
                ErrorCode.UNKNOWN_EVENT,
                f"The {adapter.name} adapter does not know the event {event!r}.",
            )
        if not isinstance(payload, dict):
            return ack_error(
                ErrorCode.BAD_PAYLOAD,
                f"The payload of {event!r} must be an object {{id, ...}}, "
                f"not {_json_type(payload)}.",
            )
        try:
            data = model.model_validate(payload)
        except ValidationError as e:
            return validation_ack(e)
        return sess.host, data

    # -- HTTP ----------------------------------------------------------------------------------
    def index_text(self) -> str:
        lines = [
            "vttbridge is running.",
            f"Worlds: {len(self.worlds)}; connected clients: {len(self.sessions)}.",
            "Adapters: " + ", ".join(f"{a.name} at {a.ns}" for a in self.registry) + ".",
        ]
        return "\n".join(lines) + "\n"

    def health(self) -> tuple[int, dict[str, Any]]:
        failed = self.store.failed if self.store is not None else None
        body: dict[str, Any] = {
            "ok": failed is None and not self._closing,
            "protocol": PROTOCOL_VERSION,
            "worlds": len(self.worlds),
            "clients": len(self.sessions),
            "uptime": round(time.time() - self.started_at, 1),
        }
        if failed is not None:
            body["error"] = f"the database cannot be written: {failed}"
        return (200 if body["ok"] else 503), body

    async def state(self, name: str, key: str, address: str = "") -> tuple[int, dict[str, Any]]:
        """A world's state as ``GET /api/worlds/{world}/state`` answers it."""
        if not key:
            return _http_error(
                401,
                "missing_key",
                f"Send the world key in the Authorization: Bearer header (or {KEY_HEADER}).",
            )
        try:
            await self._check_key(name, key, address)
        except Refused as r:
            status = _HTTP_STATUS.get(r.code, 403)
            status, body = _http_error(status, r.code, r.message)
            if r.retry_after is not None:
                body["error"]["retry_after"] = r.retry_after
            return status, body
        try:
            host = await self._world(name)
        except WorldUnavailable as e:
            return _http_error(503, ErrorCode.WORLD_UNAVAILABLE, str(e))
        if host is None:
            return _http_error(404, ErrorCode.UNKNOWN_WORLD, f"There is no world {name!r}.")
        return 200, host.state()

    async def _http_index(self, request: web.Request) -> web.Response:
        return web.Response(text=self.index_text())

    async def _http_health(self, request: web.Request) -> web.Response:
        status, body = self.health()
        return web.json_response(body, status=status)

    async def _http_state(self, request: web.Request) -> web.Response:
        status, body = await self.state(
            request.match_info["world"], request_key(request), request.remote or ""
        )
        return state_response(status, body)


def state_response(status: int, body: dict[str, Any]) -> web.Response:
    """The HTTP response of :meth:`Bridge.state`'s answer."""
    retry = body.get("error", {}).get("retry_after") if status == 429 else None
    headers = {"Retry-After": str(retry)} if retry is not None else None
    return web.json_response(body, status=status, headers=headers)


def client_address(environ: dict) -> str:
    """The address a socket connection comes from (its TCP peer)."""
    request = environ.get("aiohttp.request")
    if request is not None:
        return request.remote or ""
    return environ.get("REMOTE_ADDR", "")


_HTTP_STATUS = {
    ErrorCode.TOO_MANY_ATTEMPTS: 429,
    ErrorCode.UNKNOWN_WORLD: 404,
    ErrorCode.WRONG_KEY: 403,
}


def request_key(request: web.Request) -> str:
    """The world key an HTTP request carries (``Authorization: Bearer`` or the header)."""
    key = request.headers.get(KEY_HEADER, "")
    auth = request.headers.get("Authorization", "")
    if not key and auth.lower().startswith("bearer "):
        key = auth[7:].strip()
    return key


def new_socket_server(cfg: BridgeConfig) -> socketio.AsyncServer:
    """The python-socketio server the bridge's sockets use (in whichever process holds them)."""
    sio = SocketServer(
        on_open=partial(polling.install, limit=cfg.read_limit),
        async_mode="aiohttp",
        serializer=packet_class(cfg.max_payload),
        cors_allowed_origins=cfg.cors,
        max_http_buffer_size=cfg.transport_limit,
        ping_interval=cfg.ping_interval,
        ping_timeout=cfg.ping_timeout,
        logger=False,
        engineio_logger=False,
        # One connection's events are handled one at a time, in the order received,
        # inside its reader: no task per event, and the order holds by construction.
        # Events of different connections still interleave (each has its own reader).
        async_handlers=False,
    )
    websocket.install(sio.eio, cfg.read_limit)
    return sio


class SioTransport:
    """What the bridge needs of the sockets, on a python-socketio server in this process."""

    def __init__(self, sio: socketio.AsyncServer) -> None:
        self.sio = sio

    async def join(self, sid: str, ns: str, room: str) -> None:
        await self.sio.enter_room(sid, room, namespace=ns)

    async def wait_connected(self, sid: str, ns: str) -> None:
        for _ in range(200):
            if self.sio.manager.is_connected(sid, ns):
                return
            await asyncio.sleep(0.005)

    async def send_command(
        self, sid: str, ns: str, msg: dict[str, Any], on_ack: Callable[..., Any]
    ) -> None:
        await self.sio.emit("command", msg, to=sid, namespace=ns, callback=on_ack)

    async def emit(self, to: str, ns: str, event: str, data: Any) -> None:
        """An event with no ack, to one connection or a room (the dashboards' views)."""
        await self.sio.emit(event, data, to=to, namespace=ns)

    def forget(self, sid: str) -> None:
        pass  # python-socketio drops a gone connection's ack callbacks itself

    async def disconnect(self, sid: str, ns: str) -> None:
        """Close one connection's namespace, as the server (the client is told)."""
        await self.sio.disconnect(sid, namespace=ns)

    async def close(self) -> None:
        await close_sockets(self.sio)


async def close_sockets(sio: socketio.AsyncServer) -> None:
    """Close every client's transport, then the server.

    The transports, not the namespaces: a client told "server disconnect" would not
    reconnect, one that loses its transport does, and finds us back. (It also ends
    long-polling requests, which would hold the web server open.)"""
    eio = sio.eio
    for sock in list(getattr(eio, "sockets", {}).values()):
        try:
            # close(wait=False): engineio's disconnect() waits for each socket's queue to
            # drain, which never happens for a client that left a moment ago.
            await sock.close(wait=False, reason=eio.reason.SERVER_DISCONNECT)
            if getattr(sock, "upgraded", False):
                # after the CLOSE packet, end the websocket's writer: it closes the socket
                # instead of waiting for the client to hang up
                sock.queue.put_nowait(None)
        except Exception:
            log.debug("closing a client transport failed", exc_info=True)
    await asyncio.sleep(0.05)  # let the transports' writers send the close
    await sio.shutdown()


async def listen_app(app: web.Application, host: str, port: int) -> tuple[web.AppRunner, int]:
    """Serve ``app`` on ``host``:``port`` (0: any free port); returns the runner and the port."""
    # A short shutdown timeout: open websockets would otherwise hold the exit for a minute,
    # and every world is saved by then anyway.
    runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=2.0)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    server = site._server  # aiohttp has no public accessor for the bound port (port 0)
    return runner, (server.sockets[0].getsockname()[1] if server and server.sockets else port)


def add_pages(router: web.UrlDispatcher) -> None:
    """The routes that need no world: the dashboard's page and the companions' downloads."""
    dashboard.add_routes(router)
    install.add_routes(router)


def announce(host: str, port: int) -> None:
    log.info(
        "Listening on http://%s:%d (companion clients connect here; state at "
        "/api/worlds/<world>/state).",
        host,
        port,
    )
    # what a GM opens or pastes: an address of this machine when listening on all of them
    shown = {"0.0.0.0": "127.0.0.1", "": "127.0.0.1", "::": "[::1]"}.get(host, host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    base = f"http://{shown}:{port}"
    log.info("Dashboard: %s/ (sign in with a world's name and key).", base)
    for line in install.urls(base):
        log.info("%s", line)


def stop_signal() -> asyncio.Event:
    """An event that SIGINT or SIGTERM sets from now on. Made before the server starts: a
    Ctrl+C while it loads the worlds, or just after it announced its port, then stops it
    cleanly once it is up, rather than killing it half-way."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
            loop.add_signal_handler(sig, stop.set)
    return stop


async def until_signalled(stop: asyncio.Event, *also: asyncio.Future) -> None:
    """Wait for ``stop`` (:func:`stop_signal`) to be set, or any of ``also`` to finish."""
    waiter = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait([waiter, *also], return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()


def _duration(seconds: float) -> str:
    if seconds >= 120:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


def _trim_memory() -> None:
    """Hand freed heap back to the OS (glibc keeps it otherwise, and RSS stays high)."""
    import ctypes
    import gc

    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to do
        ctypes.CDLL("libc.so.6").malloc_trim(0)


class _AckHandler:
    """A client's ack of one command."""

    __slots__ = ("bridge", "op", "seq", "sess")

    def __init__(self, bridge: Bridge, sess: Session, seq: int, op: str) -> None:
        self.bridge, self.sess, self.seq, self.op = bridge, sess, seq, op

    def __call__(self, *args: Any) -> None:
        ack = args[0] if args else None
        if isinstance(ack, dict) and ack.get("ok") is False:
            err = ack.get("error") or {}
            msg = err.get("message") if isinstance(err, dict) else str(err)
            log.warning(
                "World %r: the VTT could not apply command %d (%s): %s",
                self.sess.host.name,
                self.seq,
                self.op,
                msg or "no reason given",
            )
        if self.sess.role == "gm":
            # Refused or not, the client has dealt with it; re-sending would not help.
            self.sess.host.command_acked(self.seq)


def _json_type(value: Any) -> str:
    return {
        list: "an array",
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "a boolean",
        type(None): "null",
    }.get(type(value), type(value).__name__)


def _http_error(status: int, code: str, message: str) -> tuple[int, dict[str, Any]]:
    return status, {"ok": False, "error": {"code": code, "message": message}}


def create_world(database: str | Path, name: str, options: dict | None = None) -> tuple[str, str]:
    """Create a world in ``database``; returns its (GM key, observer key), which exist nowhere
    else afterwards."""
    check_world_name(name)
    if options:
        Options.model_validate(options)
    gm, obs = keys.new_key("gm"), keys.new_key("observer")
    gm_hash, obs_hash = keys.hash_key(gm), keys.hash_key(obs)
    run_blocking(database, lambda store: store.create_world(name, gm_hash, obs_hash, options))
    return gm, obs


def check_world_name(name: str) -> None:
    import re

    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", name or ""):
        raise StoreError(
            f"{name!r} is not a usable world name: use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit."
        )


__all__ = [
    "KEY_HEADER",
    "Bridge",
    "BridgeConfig",
    "Inbound",
    "create_world",
]
