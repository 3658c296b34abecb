"""engineio's websocket transport on aiohttp, without a task per message.

python-engineio (4.x) reads each websocket message through a new task awaited with
``asyncio.wait_for``, and its writer waits for each outbound batch the same way: a task, a
timer and some three turns of the event loop per message. A bench move (the event, its ack,
the chat command and the client's ack of it) paid that four times: about 25 us of the bridge's
155 us of CPU (``bench/bench_bridge.py``). :func:`serve` serves the same engine.io
protocol (the upgrade from long-polling, the read timeout of ping interval + ping timeout,
the size limit, the close), reading and writing in the connection's own two tasks, with one
timer per connection that is only rearmed when it fires, and hands each message straight to
socket.io's handler (4-5 % of the instructions of a bench move, ``bench/
bench_instructions.py``).

It plugs in as the aiohttp driver's ``websocket`` class (:func:`install`, through
``internals.py``, which names what that takes of engineio and aiohttp); everything else
(handshake, long-polling, pings, socket.io) stays python-socketio's. ``tests/bridge/
test_websocket.py`` holds it to engineio's behaviour.

Messages too large to read whole: :class:`_Gate` sits in front of aiohttp's frame parser. A
message up to ``limit`` bytes reaches aiohttp as sent; of a larger one only the first
``packets.KEEP`` bytes are kept, the rest dropped as it arrives, so the socket.io layer can
still answer it (``payload_too_large``) and the connection goes on. aiohttp itself would close
the connection at its ``max_msg_size``, before the ack id is read. (The gate takes the place
of the parser aiohttp sets on the connection: ``internals.ParserWrappingResponse``; without
it, aiohttp's own limit, ``transport_limit``, applies, and test_packets.py fails.)
Compression (permessage-deflate) is not offered: the gate reads frames as sent, and the
bridge's messages are small JSON, for which deflating costs more CPU than it saves.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections import deque
from functools import partial
from typing import Any

import engineio
from aiohttp import web
from engineio import packet
from engineio.async_socket import AsyncSocket
from vttbridge.adapters.bridge.badinput import BadInput
from vttbridge.adapters.bridge.internals import ParserWrappingResponse, use_websocket_class
from vttbridge.adapters.bridge.packets import KEEP, OversizedText

log = logging.getLogger(__name__)


def install(
    eio: engineio.AsyncServer, read_limit: int | None = None, bad_input: BadInput | None = None
) -> None:
    """Serve ``eio``'s websockets with :func:`serve` (its aiohttp mode only). Messages over
    ``read_limit`` bytes are not read whole (None: ``max_http_buffer_size`` closes); bad
    input is told through ``bad_input``."""

    def response(server: engineio.AsyncServer) -> web.WebSocketResponse:
        gate = None if read_limit is None else partial(_Gate, limit=read_limit)
        return ParserWrappingResponse(
            wrap=gate, max_msg_size=server.max_http_buffer_size, compress=False
        )

    use_websocket_class(eio, partial(serve, bad_input=bad_input or BadInput()), response)


_TEXT, _BINARY, _CONTINUATION = 1, 2, 0


class _Gate:
    """Between the connection and aiohttp's websocket frame parser (``inner``): frames of a
    message up to ``limit`` bytes go on as they are; a larger message goes on as its first
    ``KEEP`` bytes, in one unmasked frame, and ``cut`` notes its number and size. Fragmented
    messages are put together here (up to ``limit`` bytes) and go on as one frame."""

    def __init__(self, inner: Any, limit: int) -> None:
        self.inner = inner
        self.limit = limit
        self.messages = 0
        """Data messages passed on so far."""
        self.cut: deque[tuple[int, int]] = deque()
        """(message number, size in bytes) of the messages passed on cut."""
        self._head = b""  # a frame header split across reads
        self._pass = 0  # bytes of the current frame still to pass on as they are
        self._take = 0  # bytes of the current frame still to read here
        self._mask = b""
        self._frame = bytearray()  # what is kept of the current frame, still masked
        self._fin = False
        self._msg: bytearray | None = None  # the message being put together here
        self._opcode = 0
        self._size = 0  # its size so far
        self._cap = 0  # bytes of it kept at most

    def feed_eof(self) -> None:
        self.inner.feed_eof()

    def feed_data(self, data: bytes) -> tuple[bool, bytes]:
        if type(data) is not bytes:
            data = bytes(data)
        if not (self._pass or self._take or self._head) and self._msg is None and len(data) > 1:
            # the usual read: one whole message in one frame (a text or binary frame, the last
            # of its message, no reserved bits), whatever its mask: passed on untouched
            b0, b1 = data[0], data[1]
            length, head = b1 & 0x7F, 2
            if length == 126 and len(data) > 3:
                length, head = (data[2] << 8) | data[3], 4
            if (
                (b0 == 0x81 or b0 == 0x82)
                and length < 65536
                and len(data) == head + length + (4 if b1 & 0x80 else 0)
                and length <= self.limit
            ):
                self.messages += 1
                return self.inner.feed_data(data)
        if self._head:
            data, self._head = self._head + data, b""
        out: list[bytes] = []
        n = len(data)
        pos = start = 0  # data[start:pos] is passed on as it is
        while pos < n:
            if self._pass:
                step = min(self._pass, n - pos)
                self._pass -= step
                pos += step
                continue
            if self._take:
                step = min(self._take, n - pos)
                room = self._cap - len(self._frame) - len(self._msg or b"")
                if room > 0:
                    self._frame += data[pos : pos + min(step, room)]
                self._take -= step
                self._size += step
                pos += step
                start = pos
                if not self._take:
                    self._end_frame(out)
                continue
            # a frame header
            if n - pos < 2:
                break
            b0, b1 = data[pos], data[pos + 1]
            length = b1 & 0x7F
            size = 2 + (2 if length == 126 else 8 if length == 127 else 0) + (4 if b1 & 0x80 else 0)
            if n - pos < size:
                break
            if length == 126:
                length = int.from_bytes(data[pos + 2 : pos + 4], "big")
            elif length == 127:
                length = int.from_bytes(data[pos + 2 : pos + 10], "big")
            opcode = b0 & 0x0F
            if b0 & 0x70 or opcode > _BINARY or (opcode == _CONTINUATION and self._msg is None):
                # control frames, and what aiohttp refuses (reserved bits, unknown opcodes,
                # a continuation of nothing): as they are
                self._pass = length
                pos += size
                continue
            if self._msg is None and b0 & 0x80 and length <= self.limit:
                self.messages += 1  # a whole message in one frame: the usual case
                self._pass = length
                pos += size
                continue
            out.append(data[start:pos])
            if opcode != _CONTINUATION:
                if self._msg is not None:
                    # a new message inside a fragmented one: what aiohttp would refuse
                    out.append(b"\x80\x00")  # a lone continuation frame, which it does
                    self._msg = None
                self._msg = bytearray()
                self._opcode = opcode
                self._size = 0
            assert self._msg is not None
            if self._size + length > self.limit:
                del self._msg[KEEP:]
                self._cap = KEEP
            else:
                self._cap = self.limit + 1
            self._fin = bool(b0 & 0x80)
            self._mask = data[pos + size - 4 : pos + size] if b1 & 0x80 else b""
            self._frame = bytearray()
            self._take = length
            pos += size
            start = pos
            if not length:
                self._end_frame(out)
        if self._pass or not self._take:
            out.append(data[start:pos])
        if pos < n and not self._pass and not self._take:
            self._head = data[pos:]
        if len(out) == 1:
            return self.inner.feed_data(out[0]) if out[0] else (False, b"")
        joined = b"".join(out)
        return self.inner.feed_data(joined) if joined else (False, b"")

    def _end_frame(self, out: list[bytes]) -> None:
        frame = self._frame
        if self._mask:
            frame = bytearray(_unmask(self._mask, frame))
        msg = self._msg
        assert msg is not None
        msg += frame[: max(0, self._cap - len(msg))]
        self._frame = bytearray()
        if not self._fin:
            return
        self._msg = None
        payload = bytes(msg)
        self.messages += 1
        if self._size > self.limit:
            if self._opcode == _TEXT:  # cut where a character ends
                payload = payload.decode("utf-8", "ignore").encode()
            self.cut.append((self.messages, self._size))
        n = len(payload)
        if n < 126:
            head = bytes((0x80 | self._opcode, n))
        elif n < 65536:
            head = bytes((0x80 | self._opcode, 126)) + n.to_bytes(2, "big")
        else:
            head = bytes((0x80 | self._opcode, 127)) + n.to_bytes(8, "big")
        out.append(head + payload)


def _unmask(mask: bytes, data: bytearray) -> bytes:
    n = len(data)
    if not n:
        return b""
    key = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")


class _Closed(Exception):
    """The client is gone, or sent what ends the connection."""


class _Reader:
    """Reads one websocket's messages; ends it after ``timeout`` seconds of silence. A message
    the gate cut is read as :class:`~vttbridge.adapters.bridge.packets.OversizedText` (text) or
    ``b""`` (binary)."""

    def __init__(self, ws: web.WebSocketResponse, timeout: float, limit: int) -> None:
        self.ws, self.timeout, self.limit = ws, timeout, limit
        wrapper = getattr(ws, "wrapper", None)
        self.gate: _Gate | None = wrapper if isinstance(wrapper, _Gate) else None
        self.seen = 0  # data messages read
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
        gate = self.gate
        if gate is not None:
            self.seen += 1
            if gate.cut and gate.cut[0][0] == self.seen:
                size = gate.cut.popleft()[1]
                return OversizedText(data, size) if isinstance(data, str) else b""
        elif len(data) > self.limit:
            raise _Closed("packet is too large")
        return data

    def close(self) -> None:
        self.timer.cancel()


async def serve(s: AsyncSocket, ws: web.WebSocketResponse, bad_input: BadInput) -> None:
    """engineio's websocket loop (python-engineio 4.x), for one socket."""
    server = s.server
    reader = _Reader(ws, server.ping_interval + server.ping_timeout, server.max_http_buffer_size)
    writer: asyncio.Task | None = None
    try:
        if s.connected:  # on long-polling until now: the probe, then the upgrade
            s.upgrading = True  # holds the polling transport's sends meanwhile
            try:
                probe = decode(await reader.read())
                if probe.packet_type != packet.PING or probe.data != "probe":
                    log.debug("%s: failed websocket upgrade, no probe", s.sid)
                    return
                await ws.send_str(packet.Packet(packet.PONG, data="probe").encode())
                await s.queue.put(packet.Packet(packet.NOOP))  # ends the open long-poll
                if decode(await reader.read()).packet_type != packet.UPGRADE:
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
        # socket.io's handler, called here for each message: engineio's receive would make
        # a coroutine around each call and look at the handler with inspect first. A message
        # the gate cut (OversizedText, a str subclass) goes through decode, which keeps its size.
        on_message = server.handlers.get("message")
        while True:
            try:
                message = await reader.read()
                is_message = on_message is not None and type(message) is str and message[:1] == "4"
                pkt = None if is_message else decode(message)
            except _Closed as e:
                log.debug("%s: websocket ends: %s", s.sid, e)
                break
            except ValueError as e:  # not engine.io (engineio's own loop would crash here)
                bad_input.warn(
                    "A client sent a malformed packet (%s); its connection is closed.", e
                )
                break
            except asyncio.CancelledError:  # the server stops: close as engineio does
                break
            try:
                if pkt is None:
                    await on_message(s.sid, message[1:])
                else:
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


def decode(message: str | bytes) -> packet.Packet:
    """The engine.io packet a client's message is; ValueError if it is none. (engineio's own
    decoder tries the text of every message as JSON: work for nothing, and a RecursionError
    for text nested a few thousand levels deep.)"""
    if isinstance(message, bytes):
        return packet.Packet(packet.MESSAGE, data=message)
    kind = message[:1]
    if kind == "4":
        data = message[1:]
        if isinstance(message, OversizedText):
            data = OversizedText(data, message.size - 1)  # the socket.io packet's size
        return packet.Packet(packet.MESSAGE, data=data)
    if isinstance(message, OversizedText):
        raise ValueError(f"{message.size} bytes of engine.io packet type {kind!r}")
    if kind == "b":  # binary data in base64 (long-polling)
        return packet.Packet(packet.MESSAGE, data=base64.b64decode(message[1:], validate=True))
    if kind in _CONTROL:
        return packet.Packet(int(kind), data=message[1:])
    raise ValueError(f"no engine.io packet type {kind!r}" if kind else "an empty message")


_CONTROL = frozenset("12356")  # the packet types a client sends besides MESSAGE


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
