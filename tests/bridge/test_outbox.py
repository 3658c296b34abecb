"""A websocket's outbox (``adapters/bridge/websocket.py``, ``Outbox``) over a real aiohttp
connection: packets sent while nothing waits are written at once, a client that does not read
holds up the writer and never the tasks that send, and the client gets every packet in the
order it was sent, whichever way each went."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import aiohttp
from aiohttp import web
from engineio import packet
from vttbridge.adapters.bridge.internals import ParserWrappingResponse
from vttbridge.adapters.bridge.websocket import Outbox

PACKETS = 3000
BIG = "x" * 2000  # 6 MB in all: more than the connection's buffers hold unread


async def received(
    serve: Callable[[Outbox], Awaitable[None]], *, read_after: asyncio.Event | None = None
) -> list[str]:
    """Run ``serve(outbox)`` on a websocket of a real aiohttp server, the outbox's writer
    running, then end it; the first word of each packet the client got. The client reads
    once ``read_after`` is set (None: at once)."""

    async def handler(request: web.Request) -> web.WebSocketResponse:
        ws = ParserWrappingResponse(wrap=None, compress=False)
        await ws.prepare(request)
        outbox = Outbox(ws)
        writer = asyncio.create_task(outbox.run("test"))
        await asyncio.sleep(0)  # the writer waits for a packet
        await serve(outbox)
        await outbox.put(None)
        await writer
        return ws

    app = web.Application()
    app.router.add_get("/ws", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    got = []
    try:
        async with asyncio.timeout(30), aiohttp.ClientSession() as session:
            ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws", max_msg_size=0)
            if read_after is not None:
                await read_after.wait()
            async for msg in ws:
                assert msg.data.startswith("4"), msg
                got.append(msg.data[1:].split(" ", 1)[0])
    finally:
        await runner.cleanup()
    return got


def message(label: str, body: str = "") -> packet.Packet:
    return packet.Packet(packet.MESSAGE, data=f"{label} {body}")


async def test_a_client_that_does_not_read_holds_up_the_writer_not_the_senders() -> None:
    sent: list[str] = []  # in the order the puts were made
    queued_after: list[int] = []  # the outbox's length after each put
    all_put = asyncio.Event()

    async def serve(outbox: Outbox) -> None:
        async def sender(name: str) -> None:
            for i in range(PACKETS // 2):
                sent.append(f"{name}{i}")
                await outbox.put(message(f"{name}{i}", BIG))
                queued_after.append(outbox.qsize())
                await asyncio.sleep(0)  # the two senders take turns

        # the client reads nothing until every put has returned: a put that waited for it
        # would never return (the timeout fails the test)
        await asyncio.gather(sender("a"), sender("b"))
        all_put.set()

    got = await received(serve, read_after=all_put)
    assert got == sent  # every packet, in the order sent
    assert queued_after[0] == 0  # the first went at once
    assert max(queued_after) > 0  # later ones waited for the writer: the client was not reading


async def test_a_packet_sent_while_one_is_queued_goes_after_it() -> None:
    """A frame too large to write at once queues for the writer; a small one sent before the
    writer has taken it queues behind it, though the connection has room for it."""

    async def serve(outbox: Outbox) -> None:
        await outbox.put(message("first", "y" * (Outbox.DIRECT_MAX + 1)))
        assert outbox.qsize() == 1
        await outbox.put(message("second"))  # no turn of the loop between the two
        assert outbox.qsize() == 2
        await asyncio.sleep(0.1)
        await outbox.put(message("third"))  # the writer waits again: at once
        assert outbox.qsize() == 0

    assert await received(serve) == ["first", "second", "third"]
