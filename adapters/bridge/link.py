"""A two-way call link between the socket process and the world engine over a pair of pipes.

Each side can ``call`` (a request answered by the other side's handler) and ``cast`` (a
one-way message). Messages queued in one turn of the event loop go out as one frame: a
``u32`` length and a pickle of the list. Both ends are the same program started from one
``fork()``, so pickle carries the protocol's payloads and markers as they are.

A handler returns a value, or an awaitable; a call is answered when it resolves. A handler
named in ``replies_later`` is given a ``reply`` callable first instead, and answers through it
whenever it likes. Messages are handled in the order they arrive, and a handler runs
synchronously up to its first await, so the order events reach a world's lock is the order
they were read from the sockets.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import pickle
import struct
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any

log = logging.getLogger(__name__)

HEADER = struct.Struct("<I")
_CALL, _CAST, _REPLY, _FAIL = range(4)


class LinkClosed(ConnectionError):
    """The other process is gone (or the link was closed)."""


class RemoteError(Exception):
    """A handler on the other side raised; ``str()`` is its message."""


class Link(asyncio.Protocol):
    """One end. ``handlers`` maps a method name to the callable that serves it."""

    def __init__(
        self,
        handlers: dict[str, Callable[..., Any]],
        name: str,
        *,
        replies_later: Iterable[str] = (),
        after_batch: Callable[[], None] | None = None,
    ) -> None:
        self.handlers = handlers
        self.name = name
        self.replies_later = frozenset(replies_later)
        self.after_batch = after_batch
        """Called once the messages of one read from the pipe are handled."""
        self.closed: asyncio.Future[None] | None = None
        self._out: list[tuple] = []
        self._writer: asyncio.WriteTransport | None = None
        self._reader: asyncio.ReadTransport | None = None
        self._buf = bytearray()
        self._calls: dict[int, asyncio.Future] = {}
        self._next = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task] = set()

    async def open(self, read_fd: int, write_fd: int) -> None:
        loop = self._loop = asyncio.get_running_loop()
        self.closed = loop.create_future()
        self._reader, _ = await loop.connect_read_pipe(lambda: self, os.fdopen(read_fd, "rb", 0))
        self._writer, _ = await loop.connect_write_pipe(
            asyncio.Protocol, os.fdopen(write_fd, "wb", 0)
        )

    # -- sending -------------------------------------------------------------------------------
    def call(self, method: str, *args: Any) -> asyncio.Future:
        """Ask the other side; the future resolves to its handler's value."""
        assert self._loop is not None
        fut = self._loop.create_future()
        if self.closed is None or self.closed.done():
            fut.set_exception(LinkClosed(f"{self.name}: the link is closed"))
            return fut
        self._next += 1
        self._calls[self._next] = fut
        self._send((_CALL, self._next, method, args))
        return fut

    def cast(self, method: str, *args: Any) -> None:
        """Tell the other side; nothing comes back."""
        if self.closed is not None and not self.closed.done():
            self._send((_CAST, method, args))

    def _send(self, msg: tuple) -> None:
        if not self._out:
            assert self._loop is not None
            self._loop.call_soon(self.flush)
        self._out.append(msg)

    def _reply(self, rid: int, value: Any) -> None:
        self._send((_REPLY, rid, value))

    def flush(self) -> None:
        """Write what is queued now (it is written at the end of the turn anyway)."""
        out, self._out = self._out, []
        if not out or self._writer is None or self._writer.is_closing():
            return
        data = pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)
        self._writer.write(HEADER.pack(len(data)) + data)

    # -- receiving -----------------------------------------------------------------------------
    def data_received(self, data: bytes) -> None:
        buf = self._buf
        buf += data
        pos, end = 0, len(buf)
        frames = []
        while end - pos >= HEADER.size:
            (n,) = HEADER.unpack_from(buf, pos)
            if end - pos - HEADER.size < n:
                break
            frames.append(bytes(buf[pos + HEADER.size : pos + HEADER.size + n]))
            pos += HEADER.size + n
        del buf[:pos]
        if not frames:
            return
        for frame in frames:
            for msg in pickle.loads(frame):
                self._dispatch(msg)
        if self.after_batch is not None:
            self.after_batch()

    def _dispatch(self, msg: tuple) -> None:
        kind = msg[0]
        if kind in (_REPLY, _FAIL):
            fut = self._calls.pop(msg[1], None)
            if fut is not None and not fut.done():
                if kind == _REPLY:
                    fut.set_result(msg[2])
                else:
                    fut.set_exception(RemoteError(msg[2]))
            return
        rid, method, args = (msg[1], msg[2], msg[3]) if kind == _CALL else (None, msg[1], msg[2])
        try:
            if rid is not None and method in self.replies_later:
                self.handlers[method](partial(self._reply, rid), *args)
                return
            result = self.handlers[method](*args)
        except Exception as e:
            self._answer_error(rid, method, e)
            return
        if inspect.isawaitable(result):
            task = asyncio.ensure_future(self._finish(rid, method, result))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif rid is not None:
            self._reply(rid, result)

    async def _finish(self, rid: int | None, method: str, result: Any) -> None:
        try:
            value = await result
        except Exception as e:
            self._answer_error(rid, method, e)
        else:
            if rid is not None:
                self._reply(rid, value)

    def _answer_error(self, rid: int | None, method: str, e: Exception) -> None:
        log.error("%s: %s failed: %s", self.name, method, e, exc_info=e)
        if rid is not None:
            self._send((_FAIL, rid, f"{type(e).__name__}: {e}"))

    # -- closing -------------------------------------------------------------------------------
    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        for fut in self._calls.values():
            if not fut.done():
                fut.set_exception(LinkClosed(f"{self.name}: the other process is gone"))
        self._calls.clear()
        if self.closed is not None and not self.closed.done():
            self.closed.set_result(None)

    async def aclose(self) -> None:
        """Send what is queued, then close both pipes."""
        self.flush()
        if self._writer is not None:
            self._writer.close()
        if self._reader is not None:
            self._reader.close()
        if self.closed is not None and not self.closed.done():
            self.closed.set_result(None)
