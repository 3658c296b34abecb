"""The bridge server: aiohttp + python-socketio, one namespace per adapter, one room per world.

Use :class:`Bridge` from code (tests, embedding)::

    bridge = Bridge(BridgeConfig(database="worlds.sqlite3"), adapters=[MyTable()])
    port = await bridge.listen("127.0.0.1", 0)  # started, on a free port
    ...
    await bridge.shutdown()                      # every world saved, the port closed

``bridge.serve()`` does the same until SIGINT/SIGTERM; ``bridge.start()`` alone returns the
aiohttp Application (with the socket attached) to serve some other way, ``stop()`` after it.

:class:`Bridge` only puts the parts together, each in a module of its own (the way of one
event through them: ``docs/architecture.md``):

- ``config.py``: :class:`BridgeConfig`, :class:`WorldConfig`;
- ``sockets.py``: the socket.io server with the packet codec (``packets.py``) and the
  transports (``websocket.py``, ``polling.py``); ``namespace.py``: one adapter's namespace;
- ``auth.py``: connect auth, key checks and their throttle (``attempts.py``), the key watch;
- ``session.py``: a VTT client's connection: admitted, its events screened (role, rate limits
  of ``ratelimit.py``, the payload model of ``inbound.py``); ``pump.py``: its commands;
- ``hosting.py``: the worlds in memory (load, wake, sleep); ``worldhost.py``: one world
  (dedup, arrival order, the journal); ``outbox.py``: its commands; ``storage/``: the
  database (SQLite or PostgreSQL) and the world leases;
- ``httpapi.py``: the HTTP endpoints; ``dashboard/``: the GM's page and its namespace;
- ``process.py``: listening, signals, memory; ``admin.py``: creating worlds.

All of that runs in one process. To serve more tables than one process can, run several
nodes on one PostgreSQL database with ``--redis`` (``cluster.py``: each world is owned by one
node, the others forward its events there).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from aiohttp import web
from vttbridge.adapters.base import AdapterRegistry, AdapterSource, Inbound
from vttbridge.adapters.bridge.admin import create_world
from vttbridge.adapters.bridge.auth import Admitted, Authenticator, Opened
from vttbridge.adapters.bridge.config import BridgeConfig, WorldConfig
from vttbridge.adapters.bridge.hosted import HostedWorld
from vttbridge.adapters.bridge.hosting import Hosting
from vttbridge.adapters.bridge.httpapi import KEY_HEADER, HttpApi
from vttbridge.adapters.bridge.metrics import Metrics
from vttbridge.adapters.bridge.namespace import AdapterNamespace
from vttbridge.adapters.bridge.process import announce, listen_app, stop_signal
from vttbridge.adapters.bridge.session import Sessions
from vttbridge.adapters.bridge.sockets import SioTransport, Transport, new_socket_server
from vttbridge.adapters.bridge.storage import LeaseKeeper, Storage
from vttbridge.adapters.bridge.worldhost import WorldHost

log = logging.getLogger("vttbridge")


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
        self.closing = False
        """Set once :meth:`stop` began: new events and connects are refused."""
        self.started_at = time.time()
        self.metrics = Metrics(self.config.metrics)
        """Prometheus metrics (``metrics.py``; off without prometheus_client)."""
        self.hosting = Hosting(self.config, self.registry, self.metrics)
        self.hosting.on_unloaded = self._unloaded
        self.auth = Authenticator(self.config.attempts, self.hosting, lambda: self.closing)
        self.sessions = Sessions(self)
        """The VTT clients' connections, by sid."""
        self.http = HttpApi(self)
        self.sio: Any = None
        self.transport: Transport | Any = None
        """How commands and views reach the sockets (:class:`SioTransport`)."""
        self.app: web.Application | None = None
        self.port: int | None = None
        self._key_watch: asyncio.Task | None = None
        self._runner: web.AppRunner | None = None
        from vttbridge.adapters.bridge.dashboard.feed import DashboardFeed  # it imports this module

        self.dashboards = DashboardFeed(self)
        """The dashboard pages' views and answers (``dashboard/``)."""
        self.metrics.watch(
            lambda: len(self.hosting.worlds),
            {"vtt": lambda: len(self.sessions), "dashboard": lambda: len(self.dashboards.viewers)},
        )

    @property
    def worlds(self) -> dict[str, WorldHost]:
        """The worlds in memory, by name."""
        return self.hosting.worlds

    @property
    def store(self) -> Storage | None:
        """The database (open between :meth:`open` and :meth:`stop`)."""
        return self.hosting.store

    @property
    def leases(self) -> LeaseKeeper | None:
        return self.hosting.leases

    async def authenticate(self, auth: Any, address: str = "") -> Admitted:
        """Check a connect's ``auth`` (see ``auth.py``); raises ``Refused``."""
        return await self.auth.authenticate(auth, address)

    # -- life cycle --------------------------------------------------------------------------
    async def open(self) -> None:
        """Open the database and rebuild every world (and join the cluster, with
        ``--redis``): all but the sockets."""
        await self.hosting.open()
        if self.hosting.cluster is not None:  # pages at other nodes watch worlds run here
            self.hosting.cluster.on_watch = self.dashboards.remote_watch
        if self.config.key_check_interval > 0:
            self._key_watch = asyncio.create_task(
                self.auth.watch_keys(
                    self.config.key_check_interval, self._opened, self._close_connection
                ),
                name="bridge:keys",
            )
        names = ", ".join(f"{a.name} ({a.ns})" for a in self.registry)
        log.info("Bridge ready: %d worlds, adapters %s.", len(self.worlds), names)

    async def start(self) -> web.Application:
        """Open the database, rebuild every world, and build the aiohttp app."""
        await self.open()
        self.sio = new_socket_server(self.config)
        self.transport = SioTransport(self.sio)
        for adapter in self.registry:
            self.sio.register_namespace(AdapterNamespace(self.sessions, adapter))
        self.sio.register_namespace(self.dashboards.namespace())
        app = web.Application()
        self.http.add_routes(app)
        self.sio.attach(app, socketio_path="socket.io")
        self.app = app
        return app

    async def stop(self, *, snapshot: bool = True) -> None:
        """Finish queued events, write final snapshots (unless ``snapshot=False``, which
        leaves the next start to replay the log, as after a crash), close the database."""
        if self.closing:
            return
        self.closing = True  # new events are refused with shutting_down from here on
        self.hosting.closing = True
        if self._key_watch is not None:
            self._key_watch.cancel()
        # Events already queued are processed and acknowledged while clients are still here.
        await self.hosting.drain()
        if self.transport is not None:
            await self.transport.flush(0.05)  # let the acks go out
        self.sessions.stop_pumps()
        await self.dashboards.close()
        if self.transport is not None:
            try:
                await self.transport.close()
            except Exception:
                log.debug("closing the client transports failed", exc_info=True)
        await self.hosting.close(snapshot=snapshot)
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

    async def serve(self, on_listening: Callable[[int], None] | None = None) -> None:
        """Start, listen on the configured host and port until SIGINT/SIGTERM, then stop.
        ``on_listening`` is called with the port once it listens (``vttbridge serve`` prints
        the GM's addresses then)."""
        stop = stop_signal()
        port = await self.listen()
        announce(self.config.host, port)
        if on_listening is not None:
            on_listening(port)
        try:
            await stop.wait()
        finally:
            log.info("Shutting down...")
            await self.shutdown()

    # -- the key watch's view of the connections -----------------------------------------------
    def _opened(self) -> list[Opened]:
        from vttbridge.adapters.bridge.dashboard.feed import NAMESPACE as DASHBOARD

        opened = [
            Opened(s.host.name, s.role, s.verifier, s.sid, s.adapter.ns)
            for s in self.sessions.values()
        ]
        opened += [
            Opened(v.world, v.role, v.verifier, v.sid, DASHBOARD)
            for v in self.dashboards.viewers.values()
        ]
        return opened

    async def _unloaded(self, host: HostedWorld) -> None:
        """Close the connections of a world this node lost (``Hosting.lost``)."""
        from vttbridge.adapters.bridge.dashboard.feed import NAMESPACE as DASHBOARD

        viewers = self.dashboards.viewers.values()
        gone = [(s.sid, s.adapter.ns) for s in self.sessions.values() if s.host is host]
        gone += [(v.sid, DASHBOARD) for v in viewers if v.world == host.name]
        for sid, ns in gone:  # their transports: the clients reconnect, with their last_seq
            try:
                await self.transport.drop(sid, ns)
            except Exception:
                log.debug("closing %s failed", sid, exc_info=True)

    async def _close_connection(self, sid: str, ns: str) -> None:
        await self.transport.disconnect(sid, ns)


__all__ = [
    "KEY_HEADER",
    "Bridge",
    "BridgeConfig",
    "Inbound",
    "WorldConfig",
    "create_world",
]
