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
from vttbridge.adapters.bridge.badinput import BadInput
from vttbridge.adapters.bridge.config import BridgeConfig
from vttbridge.adapters.bridge.internals import HookedServer, close_transport, engine_socket, sent
from vttbridge.adapters.bridge.packets import SocketServer, packet_class
from vttbridge.adapters.bridge.protocol import Refused

log = logging.getLogger("vttbridge")


def new_socket_server(cfg: BridgeConfig) -> SocketServer:
    """The python-socketio server the bridge's sockets use (in whichever process holds them)."""
    bad_input = BadInput()  # one rate limit for the warnings of every layer
    sio = SocketServer(
        on_open=partial(polling.install, limit=cfg.read_limit, bad_input=bad_input),
        bad_input=bad_input,
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
    websocket.install(sio.eio, cfg.read_limit, bad_input)
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

    async def flush(self, timeout: float) -> None: ...

    async def close(self) -> None: ...


class SioTransport:
    """The :class:`Transport` of a python-socketio server in this process."""

    def __init__(self, sio: HookedServer) -> None:
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
        await self.sio.emit_to_one(sid, ns, "command", msg, on_ack)

    async def emit(self, to: str, ns: str, event: str, data: Any) -> None:
        """An event with no ack, to one connection or a room (the dashboards' views)."""
        await self.sio.emit(event, data, to=to, namespace=ns)

    async def disconnect(self, sid: str, ns: str) -> None:
        """Close one connection's namespace, as the server (the client is told)."""
        await self.sio.disconnect(sid, namespace=ns)

    async def drop(self, sid: str, ns: str) -> None:
        """Close one connection's transport: the client reconnects by itself (told "server
        disconnect", a socket.io client would not)."""
        sock = engine_socket(self.sio.eio, self.sio.manager.eio_sid_from_sid(sid, ns))
        if sock is not None:
            await close_transport(sock, reconnect=True)

    async def flush(self, timeout: float) -> None:
        """Wait until what was sent has gone out to the clients, at most ``timeout`` s."""
        await sent(self.sio.eio, timeout)

    async def close(self) -> None:
        await close_sockets(self.sio)


async def close_sockets(sio: socketio.AsyncServer) -> None:
    """Close every client's transport, then the server.

    The transports, not the namespaces: a client told "server disconnect" would not
    reconnect, one that loses its transport does, and finds us back. (It also ends
    long-polling requests, which would hold the web server open.)"""
    for sock in list(sio.eio.sockets.values()):
        try:
            await close_transport(sock, reconnect=True)
        except Exception:
            log.debug("closing a client transport failed", exc_info=True)
    await sent(sio.eio, 0.05)  # let the transports' writers send the close
    await sio.shutdown()
