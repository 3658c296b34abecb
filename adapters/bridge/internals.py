"""Every use the bridge makes of what aiohttp, python-engineio and python-socketio do not
document: the one module to read when one of them is upgraded.

The rest of the bridge uses their documented API: aiohttp's ``web`` (the app, the runner and
its ``addresses``, ``WebSocketResponse``), python-socketio's ``AsyncServer`` and
``AsyncNamespace`` with a ``serializer`` packet class (documented: "a subclass of the Packet
class with custom implementations of the encode() and decode() methods"), engineio's packets.
What they do not offer, and why the bridge needs it anyway:

- **A packet layer that answers every packet** (``packets.py``): python-socketio decodes a
  message and dispatches it in private methods with no hook; a bad packet there ends in a
  traceback or a silent drop. :class:`HookedServer` takes those methods' place.
- **Long-polling bodies read as they arrive** (``polling.py``): engineio reads a POST with one
  ``read(length)``, which on aiohttp returns what has arrived so far, and refuses a large body
  by closing the connection. :func:`read_posts_with` replaces the socket's reader.
- **Speed** (``websocket.py``): engineio's websocket loop makes a task and a timer per message
  (some 25 us of the bridge's 155 us of CPU per move, ``bench/bench_bridge.py``). The bridge
  runs its own loop as engineio's websocket class (:func:`use_websocket_class`,
  :class:`EngineWebSocket`), and puts its size gate in front of aiohttp's frame parser
  (:class:`ParserWrappingResponse`): aiohttp's own limit closes the connection before the ack
  id of a large message is read.
- **Closing one transport** (``sockets.py``, ``packets.py``): engineio's ``disconnect``
  waits for the socket's queue to drain, forever for a client that is gone
  (:func:`close_transport`).

:data:`USES` names each of these, and the undocumented names the other transport modules read
(the engine.io socket's state); ``tests/bridge/test_internals.py`` checks every one still
exists with the shape assumed, naming the library and the attribute when one does not. The
dependency pins in ``pyproject.toml`` are the minor versions that test passed on.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import engineio
import socketio
from aiohttp import web
from engineio.async_drivers import aiohttp as eio_aiohttp
from engineio.async_socket import AsyncSocket


@dataclass(frozen=True)
class PrivateUse:
    """One undocumented name of a library the bridge relies on."""

    library: str
    """The distribution (what ``pip`` installs): ``aiohttp``, ``python-engineio``..."""
    owner: str
    """Where the name lives: a class or module, dotted."""
    name: str
    kind: str
    """``method``, ``attribute`` (of an instance), ``class attribute``, ``slot`` (of the
    class's ``__slots__``), ``key`` (of the dict attribute ``owner.name``)."""
    used_by: str
    """The bridge's modules that use it."""
    why: str
    shape: tuple[str, ...] = ()
    """A method's first parameters; an attribute's type (its class name); a key's name."""


_SIO = "socketio.AsyncServer"
_SOCK = "engineio.async_socket.AsyncSocket"
_ANSWER = "answers every packet (packets.py)"

USES: tuple[PrivateUse, ...] = (
    # -- python-socketio: the packet layer ------------------------------------------------------
    PrivateUse("python-socketio", _SIO, "_handle_eio_message", "method", "packets.py",
               "where a message becomes a packet and is dispatched: the bridge " + _ANSWER,
               ("self", "eio_sid", "data")),
    PrivateUse("python-socketio", _SIO, "_handle_event", "method", "packets.py",
               "an event on a namespace the client is not connected to is answered bad_auth "
               "(python-socketio drops it; the client would wait for an ack forever)",
               ("self", "eio_sid", "namespace", "id", "data")),
    PrivateUse("python-socketio", _SIO, "_handle_event_internal", "method", "packets.py",
               "runs a connected client's event and sends its ack (called by _handle_event)",
               ("self", "server", "sid", "eio_sid", "data", "namespace", "id")),
    PrivateUse("python-socketio", _SIO, "_handle_ack", "method", "packets.py",
               "dispatches a client's ack of a command", ("self", "eio_sid", "namespace", "id",
                                                          "data")),
    PrivateUse("python-socketio", _SIO, "_handle_connect", "method", "packets.py",
               "dispatches a namespace connect", ("self", "eio_sid", "namespace", "data")),
    PrivateUse("python-socketio", _SIO, "_handle_disconnect", "method", "packets.py",
               "dispatches a namespace disconnect", ("self", "eio_sid", "namespace", "reason")),
    PrivateUse("python-socketio", _SIO, "_send_packet", "method", "packets.py, internals.py",
               "sends the bad_auth ack of an event on a namespace not connected, and each "
               "command", ("self", "eio_sid", "pkt")),
    PrivateUse("python-socketio", _SIO, "_handle_eio_connect", "method", "packets.py",
               "a new engine.io socket, before any POST: the long-polling reader is put on it",
               ("self", "eio_sid", "environ")),
    PrivateUse("python-socketio", _SIO, "_handle_eio_disconnect", "method", "packets.py",
               "forgets the binary attachments a closed connection still announced",
               ("self", "eio_sid", "reason")),
    PrivateUse("python-socketio", "socketio.packet.Packet", "uses_binary_events",
               "class attribute", "packets.py",
               "speed: no packet carries bytes, so none is searched for them (a walk of every "
               "outbound payload)"),
    PrivateUse("python-socketio", "socketio.packet.Packet", "json", "class attribute",
               "packets.py", "pydantic-core's JSON for the bridge's packets only (AsyncServer's "
               "json= would set it for every Packet of the process)"),
    PrivateUse("python-socketio", "socketio.base_manager.BaseManager", "sid_from_eio_sid",
               "method", "packets.py", "the socket.io sid of an engine.io connection",
               ("self", "eio_sid", "namespace")),
    PrivateUse("python-socketio", "socketio.base_manager.BaseManager", "eio_sid_from_sid",
               "method", "sockets.py, internals.py", "the engine.io connection of a socket.io "
               "sid (to drop its transport, to send it a command)", ("self", "sid", "namespace")),
    PrivateUse("python-socketio", "socketio.base_manager.BaseManager", "_generate_ack_id",
               "method", "internals.py", "a command's ack id, its callback kept where the "
               "client's ack finds it (emit's own way, without its task per recipient: speed)",
               ("self", "sid", "callback")),
    PrivateUse("python-socketio", "socketio.base_manager.BaseManager", "is_connected",
               "method", "packets.py, sockets.py", "whether a sid is connected to a namespace",
               ("self", "sid", "namespace")),
    # -- python-engineio: the transports --------------------------------------------------------
    PrivateUse("python-engineio", "engineio.AsyncServer", "_async", "key", "websocket.py",
               "the websocket class of the aiohttp driver: the bridge's own loop (speed)",
               ("websocket",)),
    PrivateUse("python-engineio", "engineio.AsyncServer", "handlers", "attribute",
               "websocket.py", "socket.io's message handler (handlers['message']), which the "
               "bridge's loop calls for each message (engineio's receive would make a "
               "coroutine around each call, and inspect the handler first: speed)", ("dict",)),
    PrivateUse("python-engineio", "engineio.AsyncServer", "sockets", "attribute",
               "packets.py, sockets.py", "the engine.io socket of a connection, to close it",
               ("dict",)),
    PrivateUse("python-engineio", "engineio.async_drivers.aiohttp.WebSocket", "__init__",
               "method", "websocket.py", "the websocket class engineio makes per upgrade",
               ("self", "handler", "server")),
    PrivateUse("python-engineio", "engineio.async_drivers.aiohttp.WebSocket", "_sock",
               "attribute", "websocket.py", "the aiohttp response engineio's close() closes",
               ("NoneType",)),
    PrivateUse("python-engineio", _SOCK, "_websocket_handler", "method", "websocket.py",
               "the handler engineio gives its websocket class: bound to the socket the "
               "bridge's loop then serves", ("self", "ws")),
    PrivateUse("python-engineio", _SOCK, "handle_post_request", "method", "polling.py",
               "replaced per socket: the long-poll body read in pieces", ("self", "environ")),
    PrivateUse("python-engineio", _SOCK, "receive", "method", "polling.py, websocket.py",
               "hands the socket a packet the bridge read", ("self", "pkt")),
    PrivateUse("python-engineio", "asyncio.Queue", "join", "method", "internals.py",
               "the socket's queue is an asyncio.Queue whose every packet its transport marks "
               "done (task_done): sent() waits on it", ("self",)),
    PrivateUse("python-engineio", _SOCK, "close", "method", "websocket.py, internals.py",
               "closes the socket without waiting for its queue",
               ("self", "wait", "abort", "reason")),
    *(
        PrivateUse("python-engineio", _SOCK, name, "attribute", "websocket.py, internals.py",
                   why, (kind,))
        for name, kind, why in (
            ("queue", "Queue", "the packets to send: the bridge's writer takes them (None: "
             "the end)"),
            ("connected", "bool", "whether the socket is on long-polling already"),
            ("upgrading", "bool", "holds the long-polling sends during the upgrade"),
            ("upgraded", "bool", "the socket is on the websocket"),
            ("closing", "bool", "a close has begun"),
            ("closed", "bool", "the socket is closed"),
        )
    ),
    # -- aiohttp: the websocket's frame parser --------------------------------------------------
    PrivateUse("aiohttp", "aiohttp.web_ws.WebSocketResponse", "_post_start", "method",
               "websocket.py", "where the response sets its frame parser on the connection: "
               "the size gate goes in front of it", ("self", "request", "protocol", "writer")),
    PrivateUse("aiohttp", "aiohttp.web_protocol.RequestHandler", "_payload_parser", "slot",
               "websocket.py", "the connection's frame parser, replaced by the gate"),
    PrivateUse("aiohttp", "aiohttp.web_protocol.RequestHandler", "_message_tail", "slot",
               "websocket.py", "bytes that came with the upgrade request: they go through the "
               "gate too"),
    PrivateUse("aiohttp", "aiohttp.http_websocket.WebSocketReader", "feed_data", "method",
               "websocket.py", "the gate hands the frames on to aiohttp's parser",
               ("self", "data")),
)  # fmt: skip
"""What the bridge assumes of its libraries beyond their documentation."""


# -- python-socketio -------------------------------------------------------------------------


class HookedServer(socketio.AsyncServer):
    """python-socketio's server with its message dispatch in the subclass's hands: a subclass
    defines :meth:`on_message` (each engine.io message), :meth:`on_open` and
    :meth:`on_close` (each engine.io connection) and :meth:`not_connected` (an event on a
    namespace the client has not connected to), and dispatches with the methods below."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # the subclass's own method, without a frame of its own per message (speed)
        cls._handle_eio_message = cls.on_message

    async def on_message(self, eio_sid: str, data: Any) -> None:
        raise NotImplementedError

    def on_open(self, eio_sid: str) -> None:
        """A new engine.io connection, before any of its messages."""

    def on_close(self, eio_sid: str) -> None:
        """An engine.io connection closed."""

    async def not_connected(self, eio_sid: str, namespace: str, id: int | None) -> None:
        """An event on ``namespace``, which ``eio_sid`` has not connected to."""

    dispatch_event: Callable[..., Awaitable[None]]
    """``(eio_sid, namespace, id, data)``: an event, to its handler (its ack sent back)."""
    dispatch_ack = socketio.AsyncServer._handle_ack
    """``(eio_sid, namespace, id, data)``: a client's ack, to its callback."""
    dispatch_connect = socketio.AsyncServer._handle_connect
    """``(eio_sid, namespace, data)``: a namespace connect."""
    send_packet = socketio.AsyncServer._send_packet
    """``(eio_sid, packet)``: one socket.io packet to the connection."""

    async def emit_to_one(
        self, sid: str, namespace: str, event: str, data: Any, callback: Callable[..., Any]
    ) -> None:
        """``emit(event, data, to=sid, namespace=namespace, callback=callback)`` for one
        connection: the same packet and ack id, sent from the caller's task. ``emit`` makes a
        task per recipient and waits for them, which cost a command about a tenth of its
        server time (``bench/bench_bridge.py``). A connection that is gone is sent nothing."""
        eio_sid = self.manager.eio_sid_from_sid(sid, namespace)
        if eio_sid is None:
            return
        ack_id = self.manager._generate_ack_id(sid, callback)
        pkt = self.packet_class(socketio.packet.EVENT, namespace=namespace, data=[event, data],
                                id=ack_id)  # fmt: skip
        await self.send_packet(eio_sid, pkt)

    async def dispatch_disconnect(self, eio_sid: str, namespace: str | None) -> None:
        """The client left ``namespace``."""
        await self._handle_disconnect(eio_sid, namespace, self.reason.CLIENT_DISCONNECT)

    async def _handle_event(self, eio_sid: str, namespace: str | None, id: Any, data: Any) -> None:
        namespace = namespace or "/"
        sid = self.manager.sid_from_eio_sid(eio_sid, namespace)
        if not self.manager.is_connected(sid, namespace):
            await self.not_connected(eio_sid, namespace, id)
            return
        # async_handlers=False: run in the connection's reader (sockets.py)
        await self._handle_event_internal(self, sid, eio_sid, data, namespace, id)

    async def _handle_eio_connect(self, eio_sid: str, environ: dict) -> Any:
        self.on_open(eio_sid)
        return await super()._handle_eio_connect(eio_sid, environ)

    async def _handle_eio_disconnect(self, eio_sid: str, reason: Any) -> None:
        self.on_close(eio_sid)
        await super()._handle_eio_disconnect(eio_sid, reason)


HookedServer.dispatch_event = HookedServer._handle_event


# -- python-engineio -------------------------------------------------------------------------


def engine_socket(eio: engineio.AsyncServer, eio_sid: str | None) -> AsyncSocket | None:
    """The engine.io socket of a connection (None: gone)."""
    return eio.sockets.get(eio_sid) if eio_sid is not None else None


async def close_transport(sock: AsyncSocket, *, reconnect: bool) -> None:
    """End one engine.io connection as the server, without waiting for its queue to drain
    (engineio's ``disconnect`` does, which never ends for a client that is gone).

    ``reconnect``: the client is to come back (a restart, a dropped transport), so a websocket
    just closes, which every client takes for a lost connection. Otherwise, and always on
    long-polling (it has no other way to tell the client), engine.io's CLOSE packet goes first:
    python-engineio's client takes it for a server that wants it gone and does not reconnect
    (socket.io-client reconnects either way)."""
    if sock.closed or sock.closing:
        return
    upgraded = sock.upgraded
    await sock.close(
        wait=False, abort=upgraded and reconnect, reason=sock.server.reason.SERVER_DISCONNECT
    )
    if upgraded:
        # after the CLOSE packet, end the websocket's writer: it closes the socket instead
        # of waiting for the client to hang up
        sock.queue.put_nowait(None)


async def sent(eio: engineio.AsyncServer, timeout: float) -> None:
    """Wait until the packets queued for every connection have been taken by its transport
    (a websocket's writer, a long-poll), at most ``timeout`` seconds (a client that is gone
    never takes them)."""
    joins = [sock.queue.join() for sock in list(eio.sockets.values())]
    if joins:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await asyncio.gather(*joins)


def read_posts_with(sock: AsyncSocket, reader: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
    """Read ``sock``'s long-polling POSTs with ``reader(environ)`` (``environ["wsgi.input"]``
    is aiohttp's request body) instead of engineio's one ``read(length)``."""
    sock.handle_post_request = reader


Serve = Callable[[AsyncSocket, web.WebSocketResponse], Awaitable[None]]


def use_websocket_class(
    eio: engineio.AsyncServer,
    serve: Serve,
    response: Callable[[engineio.AsyncServer], web.WebSocketResponse],
) -> None:
    """Serve ``eio``'s websockets (its aiohttp mode only) with ``serve(socket, response)``
    instead of engineio's loop, on the aiohttp response ``response(eio)`` makes."""
    if eio.async_mode != "aiohttp":
        return

    class WebSocket(EngineWebSocket):
        pass

    WebSocket.serve = staticmethod(serve)
    WebSocket.response = staticmethod(response)
    eio._async = {**eio._async, "websocket": WebSocket}


class EngineWebSocket(eio_aiohttp.WebSocket):
    """engineio's aiohttp websocket class, running :attr:`serve` for the socket it upgrades
    (made by :func:`use_websocket_class`)."""

    serve: Serve
    response: Callable[[engineio.AsyncServer], web.WebSocketResponse]

    async def __call__(self, environ: dict[str, Any]) -> web.WebSocketResponse:
        sock = getattr(self.handler, "__self__", None)  # _websocket_handler's socket
        if not isinstance(sock, AsyncSocket):  # not the engineio we know: its own loop
            return await super().__call__(environ)
        ws = self._sock = self.response(self.server)
        await ws.prepare(environ["aiohttp.request"])
        self.environ = environ
        await self.serve(sock, ws)
        return ws


# -- aiohttp ---------------------------------------------------------------------------------


class ParserWrappingResponse(web.WebSocketResponse):
    """aiohttp's websocket response with ``wrap(parser)`` in front of its frame parser: what
    the connection reads goes to the wrapper's ``feed_data``, which hands frames on to the
    parser's. ``wrap`` None: aiohttp's as it is."""

    def __init__(self, *, wrap: Callable[[Any], Any] | None, **kw: Any) -> None:
        super().__init__(**kw)
        self.wrap = wrap
        self.wrapper: Any = None

    def _post_start(self, request: Any, protocol: Any, writer: Any) -> None:
        proto = request.protocol
        tail = b""
        if self.wrap is not None and hasattr(proto, "_message_tail"):
            # bytes that came with the upgrade request, which aiohttp would feed its parser
            # at once: they go through the wrapper too
            tail, proto._message_tail = proto._message_tail, b""
        super()._post_start(request, protocol, writer)
        parser = getattr(proto, "_payload_parser", None)
        if self.wrap is not None and parser is not None:
            self.wrapper = self.wrap(parser)
            proto._payload_parser = self.wrapper
        if tail and parser is not None:
            (self.wrapper or parser).feed_data(tail)
