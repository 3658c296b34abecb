"""The socket process: socket.io and HTTP for a bridge whose worlds run in the engine process
(``engine.py``). Every connect, event and HTTP request is passed to the engine as it arrives;
every command the engine sends is emitted here.

:func:`serve_split` is what ``vttbridge serve`` runs on Linux: it forks the engine, waits for
it to load the worlds, then listens.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import time
from collections import deque
from typing import Any

import socketio
from aiohttp import web

from adapters.base import Adapter
from adapters.bridge.auth import Refused
from adapters.bridge.config import BridgeConfig
from adapters.bridge.dashboard.feed import DashboardNamespace
from adapters.bridge.httpapi import add_pages, request_key, state_response
from adapters.bridge.link import Link, LinkClosed, RemoteError
from adapters.bridge.process import announce, listen_app, stop_signal, until_signalled
from adapters.bridge.protocol import ErrorCode, ack_error
from adapters.bridge.server import Bridge
from adapters.bridge.sockets import SioTransport, client_address, connect_answer, new_socket_server
from adapters.bridge.storage import StoreError

log = logging.getLogger("vttbridge")


class EngineNamespace(socketio.AsyncNamespace):
    """One adapter's namespace; its connects, events and disconnects go to the engine."""

    def __init__(self, front: Front, adapter: Adapter) -> None:
        super().__init__(adapter.ns)
        self.link = front.link

    async def trigger_event(self, event: str, *args: Any) -> Any:
        ns, link = self.namespace, self.link
        if event == "connect":
            sid, environ, *rest = args
            auth, address = rest[0] if rest else None, client_address(environ)
            return connect_answer(await _connect(link, "connect", ns, sid, auth, address))
        if event == "disconnect":
            link.cast("disconnect", args[0], str(args[1]) if len(args) > 1 and args[1] else "")
            return None
        return await _ack(link, "event", ns, args[0], event, args[1:])


class Front:
    """socket.io + HTTP, with the worlds behind :attr:`link`."""

    def __init__(self, config: BridgeConfig, adapters: list[Adapter]) -> None:
        self.config = config
        self.adapters = adapters
        self.sio = new_socket_server(config)
        self.local = SioTransport(self.sio)
        self.link = Link(
            {
                "join": self.local.join,
                "wait_connected": self.local.wait_connected,
                "emit": self._emit,
                "emit_event": self._emit_event,
                "close_sockets": self.local.close,
                "disconnect": self.local.disconnect,
            },
            "sockets",
        )
        self._emits: deque[tuple[str, str, str, Any, int | None]] = deque()
        self._emitter: asyncio.Task | None = None
        for adapter in adapters:
            self.sio.register_namespace(EngineNamespace(self, adapter))
        self.sio.register_namespace(DashboardNamespace(EngineDashboards(self.link)))

    def app(self) -> web.Application:
        app = web.Application()
        add_pages(app.router)
        app.router.add_get("/status", self._http_index)
        app.router.add_get("/healthz", self._http_health)
        app.router.add_get("/api/worlds/{world}/state", self._http_state)
        self.sio.attach(app, socketio_path="socket.io")
        return app

    # -- commands ------------------------------------------------------------------------------
    def _emit(self, sid: str, ns: str, msg: dict[str, Any], ack_id: int) -> None:
        self._queue((sid, ns, "command", msg, ack_id))

    def _emit_event(self, to: str, ns: str, event: str, data: Any) -> None:
        self._queue((to, ns, event, data, None))

    def _queue(self, item: tuple[str, str, str, Any, int | None]) -> None:
        # One task sends them all, one after the other: commands and views keep their order.
        self._emits.append(item)
        if self._emitter is None or self._emitter.done():
            self._emitter = asyncio.ensure_future(self._send_emits())

    async def _send_emits(self) -> None:
        while self._emits:
            to, ns, event, data, ack_id = self._emits.popleft()
            try:
                if ack_id is None:
                    await self.local.emit(to, ns, event, data)
                else:
                    await self.local.send_command(to, ns, data, _Acked(self.link, to, ack_id))
            except Exception:
                log.exception("Sending %s to %s failed", event, to)

    # -- HTTP ----------------------------------------------------------------------------------
    async def _http_index(self, request: web.Request) -> web.Response:
        try:
            return web.Response(text=await self.link.call("index"))
        except (LinkClosed, RemoteError) as e:
            return _unavailable(e)

    async def _http_health(self, request: web.Request) -> web.Response:
        try:
            status, body = await self.link.call("health")
        except (LinkClosed, RemoteError) as e:
            return _unavailable(e)
        return web.json_response(body, status=status)

    async def _http_state(self, request: web.Request) -> web.Response:
        try:
            status, body = await self.link.call(
                "state", request.match_info["world"], request_key(request), request.remote or ""
            )
        except (LinkClosed, RemoteError) as e:
            return _unavailable(e)
        return state_response(status, body)

    # -- life cycle ----------------------------------------------------------------------------
    async def serve(self, read_fd: int, write_fd: int) -> int:
        """Wait for the engine to load the worlds, listen until SIGINT/SIGTERM (or until the
        engine dies), then have the engine save every world. Returns the exit code."""
        stop = stop_signal()
        link = self.link
        await link.open(read_fd, write_fd)
        assert link.closed is not None
        try:
            error = await link.call("start")
        except (LinkClosed, RemoteError) as e:
            raise StoreError(f"the world engine did not start: {e}") from None
        if error is not None:
            await link.aclose()
            raise StoreError(error)
        try:
            runner, port = await listen_app(self.app(), self.config.host, self.config.port)
        except BaseException:
            with contextlib.suppress(LinkClosed, RemoteError):
                await link.call("stop", True)
            await link.aclose()
            raise
        announce(self.config.host, port)
        await until_signalled(stop, link.closed)
        code = 0
        if link.closed.done():
            log.error("The world engine stopped unexpectedly; the server stops too.")
            code = 1
        else:
            log.info("Shutting down...")
            try:
                await link.call("stop", True)
            except (LinkClosed, RemoteError) as e:
                log.error("The world engine did not stop cleanly: %s", e)
                code = 1
        await runner.cleanup()
        await link.aclose()
        return code


class EngineDashboards:
    """The dashboard namespace's backend in the socket process: the engine's feed, asked over
    the link."""

    def __init__(self, link: Link) -> None:
        self.link = link

    async def connect(self, sid: str, auth: Any, address: str) -> dict[str, Any] | None:
        return await _connect(self.link, "dashboard_connect", sid, auth, address)

    async def disconnect(self, sid: str) -> None:
        self.link.cast("dashboard_disconnect", sid)

    async def answer(self, sid: str, payload: Any) -> dict[str, Any]:
        return await _ack(self.link, "dashboard_answer", sid, payload)


async def _connect(link: Link, method: str, *args: Any) -> dict[str, Any] | None:
    """A connect the engine admits (None) or refuses (``{message, data}``), over the link."""
    try:
        return await link.call(method, *args)
    except LinkClosed:
        return Refused(ErrorCode.SHUTTING_DOWN, "The server is shutting down; try again.").refusal
    except RemoteError as e:  # logged by the engine
        return Refused(ErrorCode.INTERNAL, f"Server error: {e}").refusal


async def _ack(link: Link, method: str, *args: Any) -> dict[str, Any]:
    """The engine's ack of an event, over the link."""
    try:
        return await link.call(method, *args)
    except LinkClosed:
        return ack_error(ErrorCode.SHUTTING_DOWN, "The server is shutting down; resend later.")
    except RemoteError as e:  # logged by the engine
        return ack_error(ErrorCode.INTERNAL, f"Server error: {e}")


class _Acked:
    """A client's ack of one command, passed to the engine."""

    __slots__ = ("ack_id", "link", "sid")

    def __init__(self, link: Link, sid: str, ack_id: int) -> None:
        self.link, self.sid, self.ack_id = link, sid, ack_id

    def __call__(self, *args: Any) -> None:
        self.link.cast("acked", self.sid, self.ack_id, args)


def _unavailable(e: Exception) -> web.Response:
    return web.json_response(
        {"ok": False, "error": {"code": ErrorCode.SHUTTING_DOWN, "message": str(e)}}, status=503
    )


def can_split() -> bool:
    """Two processes need ``fork()`` (Linux; macOS forks badly once frameworks are loaded)."""
    return hasattr(os, "fork") and sys.platform.startswith("linux")


def serve_split(bridge: Bridge) -> int:
    """Serve ``bridge`` as two processes, the engine forked from this one. Call it with no
    event loop running and no threads started (``fork()``); returns the exit code."""
    to_engine = os.pipe()
    to_front = os.pipe()
    pid = os.fork()
    if pid == 0:  # the engine
        code = 1
        try:
            os.close(to_engine[1])
            os.close(to_front[0])
            from adapters.bridge.engine import run_engine

            code = run_engine(bridge, to_engine[0], to_front[1])
        except BaseException:
            log.exception("The world engine failed")
        finally:
            for handler in logging.getLogger().handlers:
                handler.flush()
            os._exit(code)
    os.close(to_engine[0])
    os.close(to_front[1])
    front = Front(bridge.config, list(bridge.registry))
    try:
        return asyncio.run(front.serve(to_front[0], to_engine[1]))
    finally:
        _reap(pid)


def _reap(pid: int, timeout: float = 30.0) -> None:
    """Wait for the engine to exit (it does once its pipe closes); kill it if it hangs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return
        time.sleep(0.02)
    log.error("The world engine did not exit; killing it.")
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
