"""socket.io clients written by hand, for packets no well-behaved client library sends:

- :class:`RawSocket`: engine.io + socket.io over one aiohttp websocket; sends any text or
  bytes as a message and reads the server's answers.
- :class:`RawFrames`: a websocket opened by hand over a TCP socket, sending frames built here
  (fragmented messages, control frames between the fragments).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
from typing import Any

import aiohttp

from tests.bridge.conftest import CLIENT, NS


class Closed(Exception):
    """The server closed the connection."""


class RawSocket:
    """One websocket speaking engine.io v4 / socket.io v5 by hand."""

    def __init__(self) -> None:
        self.session: aiohttp.ClientSession | None = None
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.next_id = 1000

    async def open(self, url: str, world: str | None = None, key: str | None = None) -> RawSocket:
        """Open the websocket and, given a world and key, connect the namespace with them."""
        self.session = aiohttp.ClientSession()
        self.ws = await self.session.ws_connect(
            url.replace("http", "ws", 1) + "/socket.io/?EIO=4&transport=websocket",
            max_msg_size=0,
        )
        assert (await self.ws.receive_str()).startswith("0")
        if world is not None:
            auth = {"world": world, "key": key, "client": CLIENT}
            await self.send(f"40{NS}," + json.dumps(auth))
            answer = await self.receive()
            assert answer.startswith(f"40{NS},"), answer
        return self

    async def send(self, message: str | bytes) -> None:
        assert self.ws is not None
        await (
            self.ws.send_bytes(message) if isinstance(message, bytes) else self.ws.send_str(message)
        )

    async def receive(self, timeout: float = 5) -> str:
        """The next engine.io message (pings answered on the way)."""
        assert self.ws is not None
        async with asyncio.timeout(timeout):
            while True:
                msg = await self.ws.receive()
                if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    raise Closed
                if msg.type is aiohttp.WSMsgType.ERROR:
                    raise Closed from msg.data
                if msg.data == "2":
                    await self.ws.send_str("3")
                    continue
                if msg.data == "1":  # engine.io CLOSE
                    raise Closed
                return msg.data

    async def event(self, text: str, timeout: float = 5) -> Any:
        """Send an EVENT packet whose text after the ack id is ``text``; its ack's first value."""
        self.next_id += 1
        await self.send(f"42{NS},{self.next_id}{text}")
        return await self.ack(self.next_id, timeout)

    async def ack(self, ack_id: int, timeout: float = 5, namespace: str = NS) -> Any:
        """The first value of the ack of ``ack_id`` on ``namespace``."""
        prefix = f"43{namespace},{ack_id}"
        while True:
            msg = await self.receive(timeout)
            if msg.startswith(prefix) and not msg[len(prefix) : len(prefix) + 1].isdigit():
                return json.loads(msg[len(prefix) :])[0]

    async def alive(self) -> bool:
        """Whether a well-formed event still gets its ack (the connection is not wedged)."""
        ack = await self.event(json.dumps(["noop", {"id": f"alive-{os.urandom(4).hex()}"}]))
        return ack.get("ok") is True

    async def closed_by_server(self, within: float = 5) -> bool:
        try:
            async with asyncio.timeout(within):
                while True:
                    await self.receive(within)
        except Closed:
            return True
        except TimeoutError:
            return False

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.session is not None:
            await self.session.close()


class RawFrames:
    """A websocket over a plain TCP socket, its frames built by hand (masked, as a client's)."""

    def __init__(self) -> None:
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self, url: str) -> RawFrames:
        host, port = url.removeprefix("http://").split(":")
        self.reader, self.writer = await asyncio.open_connection(host, int(port))
        key = base64.b64encode(os.urandom(16)).decode()
        self.writer.write(
            (
                "GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\n"
                f"Host: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = await self.reader.readuntil(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head
        assert (await self.message()).startswith("0")
        return self

    def frame(self, opcode: int, payload: bytes, *, fin: bool = True) -> bytes:
        n = len(payload)
        head = bytes([(0x80 if fin else 0) | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
        else:
            head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
        mask = os.urandom(4)
        return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

    async def write(self, *frames: bytes, chunk: int | None = None) -> None:
        """Send frames, in pieces of ``chunk`` bytes if given (a header split across reads)."""
        assert self.writer is not None
        data = b"".join(frames)
        step = chunk or len(data) or 1
        for i in range(0, len(data), step):
            self.writer.write(data[i : i + step])
            await self.writer.drain()

    async def message(self, timeout: float = 5) -> str:
        """The next text message from the server (pings answered)."""
        assert self.reader is not None and self.writer is not None
        async with asyncio.timeout(timeout):
            while True:
                b0, b1 = await self.reader.readexactly(2)
                n = b1 & 0x7F
                if n == 126:
                    n = int.from_bytes(await self.reader.readexactly(2), "big")
                elif n == 127:
                    n = int.from_bytes(await self.reader.readexactly(8), "big")
                payload = await self.reader.readexactly(n)
                if b0 & 0x0F == 8:
                    raise Closed
                if b0 & 0x0F == 1:
                    text = payload.decode()
                    if text == "2":
                        await self.write(self.frame(1, b"3"))
                        continue
                    return text

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
