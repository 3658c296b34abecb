"""The bridge's sockets: the python-socketio server with the bridge's packet codec and
transports, and the :class:`Transport` the rest of the bridge sends through.

- Packets that are no usable event (bad JSON, no name, reserved names, binary, over
  ``max_payload``) are refused by ``packets.py`` before they reach a world; long-polling
  POSTs are read by ``polling.py``, websockets by ``websocket.py``.
- One connection's events are handled one at a time, in the order received, inside its
  reader (python-socketio's ``async_handlers=False``): no task per event, and the order needs
  no argument. A websocket's reader and writer are ``websocket.py``'s, which make no task or
  timer per message either. Connections interleave; a world's events from several
  connections are put in arrival order by the world's lock (``worldhost.py``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from functools import partial
from typing import Any, NoReturn, Protocol

import socketio
from vttbridge.adapters.bridge import polling, websocket
from vttbridge.adapters.bridge.config import BridgeConfig
from vttbridge.adapters.bridge.packets import SocketServer, packet_class
from vttbridge.adapters.bridge.protocol import Refused

log = logging.getLogger("vttbridge")


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


def client_address(environ: dict) -> str:
    """The address a socket connection comes from (its TCP peer)."""
    request = environ.get("aiohttp.request")
    if request is not None:
        return request.remote or ""
    return environ.get("REMOTE_ADDR", "")


def refuse_connect(refused: Refused) -> NoReturn:
    """Refuse a connect from a namespace's connect handler: the client gets ``{message,
    data}`` (:attr:`~vttbridge.adapters.bridge.protocol.Refused.refusal`) as its
    ``connect_error``."""
    raise socketio.exceptions.ConnectionRefusedError(refused.message, refused.data)


class Transport(Protocol):
    """What the bridge needs of the sockets (:class:`SioTransport`; tests may stand in)."""

    async def join(self, sid: str, ns: str, room: str) -> None: ...

    async def wait_connected(self, sid: str, ns: str) -> None: ...

    async def send_command(
        self, sid: str, ns: str, msg: dict[str, Any], on_ack: Callable[..., Any]
    ) -> None: ...

    async def emit(self, to: str, ns: str, event: str, data: Any) -> None: ...

    async def disconnect(self, sid: str, ns: str) -> None: ...

    async def drop(self, sid: str, ns: str) -> None: ...

    async def close(self) -> None: ...


class SioTransport:
    """The :class:`Transport` of a python-socketio server in this process."""

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

    async def disconnect(self, sid: str, ns: str) -> None:
        """Close one connection's namespace, as the server (the client is told)."""
        await self.sio.disconnect(sid, namespace=ns)

    async def drop(self, sid: str, ns: str) -> None:
        """Close one connection's transport: the client reconnects by itself (told "server
        disconnect", a socket.io client would not)."""
        eio = self.sio.eio
        eio_sid = self.sio.manager.eio_sid_from_sid(sid, ns)
        sock = eio.sockets.get(eio_sid) if eio_sid is not None else None
        if sock is None:
            return
        await _close_socket(eio, sock)

    async def close(self) -> None:
        await close_sockets(self.sio)


async def _close_socket(eio: Any, sock: Any) -> None:
    # close(wait=False): engineio's disconnect() waits for each socket's queue to drain,
    # which never happens for a client that left a moment ago. A websocket is closed without
    # engine.io's CLOSE packet (abort): python-engineio's client takes that packet for a
    # server that wants it gone and does not reconnect; a websocket that just closes, every
    # client reconnects (socket.io-client does either way). Long-polling has no other way to
    # tell the client than the packet.
    upgraded = getattr(sock, "upgraded", False)
    await sock.close(wait=False, abort=upgraded, reason=eio.reason.SERVER_DISCONNECT)
    if upgraded:
        # after the CLOSE packet, end the websocket's writer: it closes the socket instead
        # of waiting for the client to hang up
        sock.queue.put_nowait(None)


async def close_sockets(sio: socketio.AsyncServer) -> None:
    """Close every client's transport, then the server.

    The transports, not the namespaces: a client told "server disconnect" would not
    reconnect, one that loses its transport does, and finds us back. (It also ends
    long-polling requests, which would hold the web server open.)"""
    eio = sio.eio
    for sock in list(getattr(eio, "sockets", {}).values()):
        try:
            await _close_socket(eio, sock)
        except Exception:
            log.debug("closing a client transport failed", exc_info=True)
    await asyncio.sleep(0.05)  # let the transports' writers send the close
    await sio.shutdown()
