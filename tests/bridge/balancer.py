"""A TCP load balancer for the cluster tests, as a host puts one in front of the nodes: each
connection goes to the first node in :attr:`Balancer.nodes` that accepts it (a dead node's
port refuses), and the bytes are copied both ways until either side closes."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit


class Balancer:
    def __init__(self, urls: list[str]) -> None:
        self.nodes = [urlsplit(u).port or 80 for u in urls]
        """The nodes' ports, in order of preference (change it to steer new connections)."""
        self.url = ""
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.Task] = set()

    async def start(self) -> Balancer:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for port in list(self.nodes):
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                continue
            for src, dst in ((reader, up_writer), (up_reader, writer)):
                task = asyncio.ensure_future(_copy(src, dst))
                self._pipes.add(task)
                task.add_done_callback(self._pipes.discard)
            return
        writer.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._pipes):
            task.cancel()


async def _copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    try:
        while data := await src.read(65536):
            dst.write(data)
            await dst.drain()
    except (OSError, asyncio.CancelledError):
        pass
    finally:
        with contextlib.suppress(Exception):
            dst.close()
