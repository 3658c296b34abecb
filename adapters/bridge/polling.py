"""engineio's long-polling POST (a client's packets), read as a stream.

python-engineio (4.x) refuses a POST body over ``max_http_buffer_size`` by ending the
connection (the client sees only "connection lost"), and reads the body with one
``read(length)``, which on aiohttp returns what has arrived so far: a large body is cut short
and its last packet ends up malformed. :func:`handle_post_request` reads the body as it
arrives, split into its packets (``\\x1e`` between them): a packet up to ``limit`` bytes is
handled whole; of a larger one only the first ``packets.KEEP`` bytes are kept, the rest
dropped unread, so the socket.io layer can still answer it (``payload_too_large``).
:func:`install` puts it on each new engine.io socket (:class:`~vttbridge.adapters.bridge.packets.
SocketServer` does, as a connection opens).
"""

from __future__ import annotations

import contextlib
import weakref
from functools import partial
from typing import Any

import engineio
from engineio.async_socket import AsyncSocket
from vttbridge.adapters.bridge.badinput import BadInput
from vttbridge.adapters.bridge.internals import close_transport, read_posts_with
from vttbridge.adapters.bridge.packets import KEEP, OversizedText
from vttbridge.adapters.bridge.websocket import decode

SEPARATOR = 0x1E


def install(sock: AsyncSocket, limit: int, bad_input: BadInput) -> None:
    """Read ``sock``'s long-polling POSTs with :func:`handle_post_request`."""
    # The reader is kept on the socket: through a weak reference it refers back to it without
    # a reference cycle, so a closed socket is freed at once, not by a collector's pass (which
    # never comes for a socket frozen out of the passes, see ``cli.py``).
    read_posts_with(sock, partial(_post_to, weakref.ref(sock), limit, bad_input))


async def _post_to(
    ref: weakref.ref[AsyncSocket], limit: int, bad_input: BadInput, environ: dict[str, Any]
) -> None:
    sock = ref()
    if sock is not None:
        await handle_post_request(sock, limit, bad_input, environ)


async def handle_post_request(
    sock: AsyncSocket, limit: int, bad_input: BadInput, environ: dict[str, Any]
) -> None:
    """engineio's ``AsyncSocket.handle_post_request``, streaming (see the module docstring)."""
    body = environ["wsgi.input"]  # aiohttp's request.content
    buf = bytearray()
    size = 0
    async for chunk in body.iter_any():
        start = 0
        while True:
            end = chunk.find(SEPARATOR, start)
            part = chunk[start:] if end < 0 else chunk[start:end]
            cap = KEEP if size + len(part) > limit else limit + 1
            if size + len(part) > limit and len(buf) > KEEP:
                del buf[KEEP:]
            if len(buf) < cap:
                buf += part[: cap - len(buf)]
            size += len(part)
            if end < 0:
                break
            if not await _receive(sock, buf, size, limit, bad_input):
                return
            buf, size = bytearray(), 0
            start = end + 1
    if size or buf:
        await _receive(sock, buf, size, limit, bad_input)


async def _receive(
    sock: AsyncSocket, buf: bytearray, size: int, limit: int, bad_input: BadInput
) -> bool:
    """Hand one packet to the socket; False if it ended the connection."""
    try:
        if size > limit:
            message: str = OversizedText(buf.decode("utf-8", "ignore"), size)
        else:
            message = buf.decode("utf-8")
        pkt = decode(message)
    except ValueError as e:  # UnicodeDecodeError included
        bad_input.warn("A client sent a malformed packet (%s); its connection is closed.", e)
        await close_transport(sock, reconnect=False)
        return False
    with contextlib.suppress(engineio.exceptions.UnknownPacketError):  # as engineio does
        await sock.receive(pkt)
    return not (sock.closed or sock.closing)
