"""engineio's websocket transport on aiohttp, without a task per message.

python-engineio (4.x) reads each websocket message through a new task awaited with
``asyncio.wait_for``, and its writer waits for each outbound batch the same way: a task, a
timer and some three turns of the event loop per message. A bench move (the event, its ack,
the chat command and the client's ack of it) paid that four times: about 25 us of the bridge's
155 us of CPU (``bench/bench_bridge.py``). :class:`WebSocket` serves the same engine.io
protocol (the upgrade from long-polling, the read timeout of ping interval + ping timeout,
the size limit, the close), reading and writing in the connection's own two tasks, with one
timer per connection that is only rearmed when it fires.

It plugs in as the aiohttp driver's ``websocket`` class (:func:`install`); everything else
(handshake, long-polling, pings, socket.io) stays python-socketio's. ``tests/bridge/
test_websocket.py`` holds it to engineio's behaviour.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import engineio
from aiohttp import web
from engineio import packet
from engineio.async_drivers import aiohttp as eio_aiohttp
from engineio.async_socket import AsyncSocket

log = logging.getLogger(__name__)


class WebSocket(eio_aiohttp.WebSocket):
    """engineio's aiohttp websocket wrapper, running :func:`serve` for the socket it upgrades."""

    async def __call__(self, environ: dict[str, Any]) -> web.WebSocketResponse:
        sock = getattr(self.handler, "__self__", None)
        if not isinstance(sock, AsyncSocket):  # not the engineio we know: its own loop
            return await super().__call__(environ)
        self._sock = web.WebSocketResponse(max_msg_size=self.server.max_http_buffer_size)
        await self._sock.prepare(environ["aiohttp.request"])
        self.environ = environ
        await serve(sock, self._sock)
        return self._sock


def install(eio: engineio.AsyncServer) -> None:
    """Serve ``eio``'s websockets with :class:`WebSocket` (its aiohttp mode only)."""
    if eio.async_mode == "aiohttp":
        eio._async = {**eio._async, "websocket": WebSocket}


class _Closed(Exception):
    """The client is gone, or sent what ends the connection."""


class _Reader:
    """Reads one websocket's messages; ends it after ``timeout`` seconds of silence."""

    def __init__(self, ws: web.WebSocketResponse, timeout: float, limit: int) -> None:
        self.ws, self.timeout, self.limit = ws, timeout, limit
        self.loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        self.waiting_since: float | None = None
        self.timed_out = False
        self.timer = self.loop.call_later(timeout, self._check)

    def _check(self) -> None:
        since = self.waiting_since  # None while a message is being handled: not silence
        idle = 0.0 if since is None else self.loop.time() - since
        if idle < self.timeout:
            self.timer = self.loop.call_later(self.timeout - idle, self._check)
        elif self.task is not None:
            self.timed_out = True
            self.task.cancel()

    async def read(self) -> str | bytes:
        self.waiting_since = self.loop.time()
        try:
            msg = await self.ws.receive()
        except asyncio.CancelledError:
            if self.timed_out and self.task is not None and self.task.uncancel() == 0:
                raise _Closed("no message within the ping timeout") from None
            raise
        finally:
            self.waiting_since = None
        data = msg.data
        if not isinstance(data, str | bytes):
            raise _Closed(f"websocket {msg.type.name.lower()}")
        if len(data) > self.limit:
            raise _Closed("packet is too large")
        return data

    def close(self) -> None:
        self.timer.cancel()


async def serve(s: AsyncSocket, ws: web.WebSocketResponse) -> None:
    """engineio's ``AsyncSocket._websocket_handler`` (python-engineio 4.x), for one socket."""
    server = s.server
    reader = _Reader(ws, server.ping_interval + server.ping_timeout, server.max_http_buffer_size)
    writer: asyncio.Task | None = None
    try:
        if s.connected:  # on long-polling until now: the probe, then the upgrade
            s.upgrading = True  # holds the polling transport's sends meanwhile
            try:
                probe = packet.Packet(encoded_packet=await reader.read())
                if probe.packet_type != packet.PING or probe.data != "probe":
                    log.debug("%s: failed websocket upgrade, no probe", s.sid)
                    return
                await ws.send_str(packet.Packet(packet.PONG, data="probe").encode())
                await s.queue.put(packet.Packet(packet.NOOP))  # ends the open long-poll
                if packet.Packet(encoded_packet=await reader.read()).packet_type != packet.UPGRADE:
                    log.debug("%s: failed websocket upgrade, no UPGRADE packet", s.sid)
                    s.upgraded = False
                    return
            except (_Closed, ValueError):  # gone, or not engine.io: stays on long-polling
                return
            finally:
                s.upgrading = False
            s.upgraded = True
        else:
            s.connected = True
            s.upgraded = True

        writer = asyncio.create_task(_write(s, ws))
        while True:
            try:
                pkt = packet.Packet(encoded_packet=await reader.read())
            except _Closed as e:
                log.debug("%s: websocket ends: %s", s.sid, e)
                break
            except ValueError as e:  # not engine.io (engineio's own loop would crash here)
                log.info("A client sent a malformed packet (%s); its connection is closed.", e)
                break
            except asyncio.CancelledError:  # the server stops: close as engineio does
                break
            try:
                await s.receive(pkt)
            except engineio.exceptions.UnknownPacketError:
                pass
            except engineio.exceptions.SocketIsClosedError:
                break
            except Exception:  # one bad packet must not end the connection
                log.exception("%s: error handling a packet", s.sid)
    finally:
        reader.close()
        if writer is not None:  # however the loop ended
            await s.queue.put(None)  # the writer's end
            await writer
            await s.close(wait=False, abort=True, reason=server.reason.TRANSPORT_CLOSE)


async def _write(s: AsyncSocket, ws: web.WebSocketResponse) -> None:
    """Send the socket's queued packets until ``None``, then close the websocket."""
    queue = s.queue
    try:
        while (pkt := await queue.get()) is not None:
            queue.task_done()
            data = pkt.encode()
            await (ws.send_bytes(data) if isinstance(data, bytes) else ws.send_str(data))
        queue.task_done()
    except Exception:  # the client is gone mid-send
        log.debug("%s: websocket send failed", s.sid, exc_info=True)
    await ws.close()
