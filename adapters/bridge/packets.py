"""socket.io packets as the bridge reads them, and what it does with the ones it cannot use.

python-socketio's server, with its packet class (:func:`packet_class`) and
:class:`SocketServer`, so that every packet a client sends is either answered or ends the
connection cleanly, with one rate-limited warning line and never a traceback:

- An event packet the bridge refuses before any handler runs becomes the event
  :data:`REFUSED` whose one argument, a ``protocol.Refused``, says why; the namespace answers it
  like any other refused event (``{"ok": false, "error": {code, message}}``), after the checks
  every event goes through (connected, GM key, rate). That is: JSON that does not parse
  (``bad_json``; nested more than 200 levels deep included), no name (``[]``, ``{}``,
  ``true``, a number as the name: ``bad_event``), a reserved name (``connect``,
  ``disconnect``... which python-socketio would run as the real handler:
  ``reserved_event``), binary data (``binary_not_supported``) and a packet over
  ``--max-payload`` (``payload_too_large``, whose JSON is not even parsed).
- Binary packets are never buffered: the attachments they announce are dropped unread as they
  arrive. The wire protocol is JSON only.
- An event on a namespace the client is not connected to is answered ``bad_auth``.
- What cannot be answered: an ack of a command whose JSON does not parse is dropped with a
  warning (an event without an ack id is refused as any other, only without an answer, as
  its sender asked); what is not socket.io at all (an unknown packet type, binary data
  nobody announced, a binary event that wants no answer, an empty message) ends the
  connection, with a warning.

A message too large to be read whole reaches this layer as :class:`OversizedText`: its first
bytes and its size (``websocket.py`` and ``polling.py`` never read more of it).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from typing import Any

import pydantic_core
from engineio.async_socket import AsyncSocket
from socketio import packet as sio_packet
from vttbridge.adapters.bridge.badinput import BadInput
from vttbridge.adapters.bridge.internals import HookedServer, close_transport, engine_socket
from vttbridge.adapters.bridge.protocol import ErrorCode, Refused, ack_error

REFUSED = "\x00refused"
"""The name an event refused by the packet layer is handled under (no VTT names one so)."""

RESERVED_EVENTS = frozenset(
    {"connect", "connect_error", "disconnect", "disconnecting", "newListener", "removeListener"}
)
"""Event names socket.io keeps for itself (its JavaScript client refuses to emit them)."""

KEEP = 1024
"""Bytes kept of a message too large to be read: enough for its namespace, ack id and name."""

JSON_DEPTH = 200
"""Levels of arrays and objects pydantic-core parses (deeper JSON is refused)."""


class OversizedText(str):
    """The first bytes (decoded) of a text message of ``size`` bytes, too large to read."""

    size: int

    def __new__(cls, text: str, size: int) -> OversizedText:
        obj = super().__new__(cls, text)
        obj.size = size
        return obj


class PacketJson:
    """The ``json`` of the bridge's socket.io packets: pydantic-core's parser and encoder,
    about 7x faster than the standard library's (some 5 us less per event and its ack).
    Stricter in one way: a lone UTF-16 surrogate escape is malformed JSON."""

    @staticmethod
    def loads(text: str | bytes, **_: Any) -> Any:
        return pydantic_core.from_json(text)

    @staticmethod
    def dumps(obj: Any, **_: Any) -> str:  # always compact, as python-socketio asks for
        return pydantic_core.to_json(obj).decode()


def json_error(e: ValueError) -> str:
    """pydantic-core's parse error in words."""
    text = str(e)
    if text.startswith("recursion limit exceeded"):
        where = text.removeprefix("recursion limit exceeded").strip()
        return f"it is nested more than {JSON_DEPTH} levels deep ({where})"
    return text


_NAME = re.compile(r'\[\s*"((?:[^"\\]|\\.){0,200})"')
_ATTACHMENTS = re.compile(r"\d(\d{1,10})-")
_LONG_COUNT = re.compile(r"5\d+-")


def _name_in(head: str) -> str | None:
    m = _NAME.search(head)
    if m is None:
        return None
    try:
        name = PacketJson.loads(f'"{m.group(1)}"')
    except ValueError:
        return None
    return name if isinstance(name, str) else None


def packet_class(max_payload: int) -> type[sio_packet.Packet]:
    """python-socketio's packet, refusing inbound events as the module docstring says.
    ``max_payload``: bytes of an event packet on the wire; larger ones are not parsed."""

    def refuse(pkt: BridgePacket, code: str, message: str) -> int:
        pkt.packet_type = sio_packet.EVENT
        pkt.data = [REFUSED, Refused(code, message)]
        return 0

    class BridgePacket(sio_packet.Packet):
        json = PacketJson  # (internals.USES names these two)
        # The wire protocol is JSON: no packet carries bytes, so none is searched for them
        # (a walk of every outbound payload).
        uses_binary_events = False
        refused_attachments = 0
        """Binary attachments this packet announced, to be dropped as they arrive."""
        unreadable: str | None = None
        """Why a packet that is not an event could not be read."""
        packet_type: int | None  # python-socketio's, set by its decode
        data: Any

        def decode(self, encoded_packet: Any) -> int:
            if type(encoded_packet) is not str or 4 * len(encoded_packet) > max_payload:
                # possibly over the limit: measured in bytes (a cut message knows its size)
                size = getattr(encoded_packet, "size", None)
                if size is None and isinstance(encoded_packet, str):
                    size = len(encoded_packet)
                    if size <= max_payload and not encoded_packet.isascii():
                        size = len(encoded_packet.encode())
                if size is not None and size > max_payload:
                    return self._decode_oversized(encoded_packet, size)
            try:
                n = super().decode(encoded_packet)
            except (ValueError, TypeError) as e:
                return self._unreadable(encoded_packet, e)
            kind = self.packet_type
            if kind == sio_packet.EVENT:
                data = self.data
                if type(data) is not list or not data or type(data[0]) is not str:
                    return refuse(
                        self,
                        ErrorCode.BAD_EVENT,
                        "An event packet is [name, payload]; this one has no name "
                        f"(it is {_shape(data)}).",
                    )
                if data[0] in RESERVED_EVENTS:
                    return refuse(
                        self,
                        ErrorCode.RESERVED_EVENT,
                        f"{data[0]!r} is a name socket.io reserves; no event is called so.",
                    )
                return 0
            elif kind == sio_packet.BINARY_EVENT:
                self.refused_attachments = n
                return refuse(self, ErrorCode.BINARY_NOT_SUPPORTED, _BINARY)
            elif kind == sio_packet.BINARY_ACK:
                self.refused_attachments = n
                self.packet_type = sio_packet.ACK
                return 0
            return n

        def _unreadable(self, encoded_packet: Any, e: Exception) -> int:
            head = encoded_packet[:1] if isinstance(encoded_packet, str) else ""
            kind = self.packet_type = int(head) if head.isascii() and head.isdigit() else None
            if kind == sio_packet.BINARY_EVENT and (m := _LONG_COUNT.match(encoded_packet)):
                # an attachment count too long to be one: the namespace and id after it
                with contextlib.suppress(ValueError, TypeError):
                    super().decode("2" + encoded_packet[m.end() :])
                return refuse(self, ErrorCode.BINARY_NOT_SUPPORTED, _BINARY)
            if kind in (sio_packet.EVENT, sio_packet.BINARY_EVENT):
                # The id and namespace were read before the JSON, so the ack can still go out.
                why = json_error(e) if isinstance(e, ValueError) else str(e)
                return refuse(self, ErrorCode.BAD_JSON, f"The event is not valid JSON: {why}.")
            if kind in (sio_packet.CONNECT, sio_packet.DISCONNECT):
                self.data = None  # a connect without auth is refused (bad_auth) as such
                return 0
            self.unreadable = str(e)
            return 0

        def _decode_oversized(self, text: str, size: int) -> int:
            head = str(text[:KEEP])
            self.packet_type = None
            with contextlib.suppress(ValueError, TypeError):  # its JSON is cut: the
                super().decode(head)  # namespace and ack id before it are what is wanted
            kind = self.packet_type
            if kind in (sio_packet.EVENT, sio_packet.BINARY_EVENT):
                if kind == sio_packet.BINARY_EVENT and (m := _ATTACHMENTS.match(head)):
                    self.refused_attachments = int(m.group(1))
                name = _name_in(head)
                what = f"Event {name!r}" if name else "The event"
                return refuse(
                    self,
                    ErrorCode.PAYLOAD_TOO_LARGE,
                    f"{what} is {size} bytes; the limit is {max_payload} bytes.",
                )
            if kind == sio_packet.CONNECT:
                self.data = None
                return 0
            self.packet_type = kind if kind in (sio_packet.ACK, sio_packet.DISCONNECT) else None
            self.unreadable = f"{size} bytes, over the limit of {max_payload}"
            return 0

    return BridgePacket


_BINARY = (
    "Binary data is not part of the protocol: send the event's payload as JSON "
    "(its attachments are dropped unread)."
)


def _shape(value: Any) -> str:
    if isinstance(value, list):
        return "an empty array" if not value else f"an array starting with {_shape(value[0])}"
    return {
        dict: "an object",
        str: "a string",
        int: "a number",
        float: "a number",
        bool: "a boolean",
        type(None): "nothing",
    }.get(type(value), type(value).__name__)


class SocketServer(HookedServer):
    """python-socketio's server, reading packets as the module docstring says. Handlers run
    in the connection's reader (``async_handlers=False``), which this class assumes."""

    def __init__(
        self,
        *args: Any,
        on_open: Callable[[AsyncSocket], None] | None = None,
        bad_input: BadInput | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.open_hook = on_open
        """Called with each new engine.io socket (``polling.install``)."""
        self.bad_input = bad_input or BadInput()
        self.attachments: dict[str, int] = {}
        """Binary attachments still expected per connection, to be dropped (a count only)."""

    async def drop(self, eio_sid: str, why: str, *args: Any) -> None:
        """Warn (rate-limited) and close the connection, telling the client."""
        self.bad_input.warn(why + "; its connection is closed.", *args)
        sock = engine_socket(self.eio, eio_sid)
        if sock is not None:
            await close_transport(sock, reconnect=False)

    async def on_message(self, eio_sid: str, data: Any) -> None:
        if not isinstance(data, str):
            left = self.attachments.get(eio_sid, 0)
            if left > 1:
                self.attachments[eio_sid] = left - 1
            elif left == 1:
                del self.attachments[eio_sid]
            else:
                await self.drop(eio_sid, "A client sent binary data nothing announced")
            return
        if not data:  # python-socketio would take it for an event without a name or an id
            await self.drop(eio_sid, "A client sent an empty message")
            return
        pkt = self.packet_class(encoded_packet=data)
        kind = pkt.packet_type
        if pkt.refused_attachments:
            self.attachments[eio_sid] = self.attachments.get(eio_sid, 0) + pkt.refused_attachments
        if kind == sio_packet.EVENT:
            if pkt.id is None and pkt.refused_attachments:
                await self.drop(eio_sid, "A client sent a binary event without an ack id")
                return
            await self.dispatch_event(eio_sid, pkt.namespace, pkt.id, pkt.data)
        elif kind == sio_packet.ACK:
            if pkt.unreadable is not None:
                self.bad_input.warn(
                    "A client's ack of a command could not be read (%s); it is ignored, and "
                    "the command is sent again when the client reconnects.",
                    pkt.unreadable,
                )
                return
            await self.dispatch_ack(eio_sid, pkt.namespace, pkt.id, pkt.data)
        elif kind == sio_packet.CONNECT:
            await self.dispatch_connect(eio_sid, pkt.namespace, pkt.data)
        elif kind == sio_packet.DISCONNECT:
            await self.dispatch_disconnect(eio_sid, pkt.namespace)
        else:
            why = pkt.unreadable or f"packet type {kind}"
            await self.drop(eio_sid, "A client sent what is no socket.io packet (%s)", why)

    async def not_connected(self, eio_sid: str, namespace: str, id: int | None) -> None:
        if id is not None:
            refusal = ack_error(
                ErrorCode.BAD_AUTH, f"Not connected to {namespace}: connect to it first."
            )
            await self.send_packet(
                eio_sid,
                self.packet_class(sio_packet.ACK, namespace=namespace, id=id, data=[refusal]),
            )

    def on_open(self, eio_sid: str) -> None:
        if self.open_hook is not None and (sock := engine_socket(self.eio, eio_sid)) is not None:
            self.open_hook(sock)

    def on_close(self, eio_sid: str) -> None:
        self.attachments.pop(eio_sid, None)
