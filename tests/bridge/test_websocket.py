"""The bridge's websocket loop (``adapters/bridge/websocket.py``) with real clients: the read
timeout, the size limit, packets that are not engine.io. (The upgrade from long-polling is in
``test_connect.py``.)"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import aiohttp
import pytest

from tests.bridge.conftest import Server, start_server


@pytest.fixture
async def quick(db, worlds) -> AsyncIterator[Server]:
    """A bridge pinging every 0.4 s: a silent websocket is cut after 1 s. (python-socketio's
    client itself gives up on shorter ping timeouts.)"""
    srv = await start_server(db, ping_interval=0.4, ping_timeout=0.6)
    yield srv
    await srv.stop()


async def raw_websocket(
    session: aiohttp.ClientSession, url: str
) -> aiohttp.ClientWebSocketResponse:
    """An engine.io websocket opened by hand (the open packet read), which answers nothing."""
    ws = await session.ws_connect(
        url.replace("http", "ws", 1) + "/socket.io/?EIO=4&transport=websocket", max_msg_size=0
    )
    assert (await ws.receive_str()).startswith("0")
    return ws


async def closed_by_server(ws: aiohttp.ClientWebSocketResponse, within: float) -> bool:
    """Whether the server closes ``ws`` within ``within`` seconds (engine.io packets it sends
    meanwhile, such as pings or its CLOSE packet, do not count)."""
    try:
        async with asyncio.timeout(within):
            while True:
                msg = await ws.receive()
                if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    return True
    except TimeoutError:
        return False


def sockets(server: Server) -> int:
    return len(server.bridge.sio.eio.sockets)


async def test_silent_websocket_is_closed_after_ping_interval_plus_timeout(quick):
    async with aiohttp.ClientSession() as session:
        ws = await raw_websocket(session, quick.url)
        assert sockets(quick) == 1
        assert await closed_by_server(ws, within=3)
    async with asyncio.timeout(2):
        while sockets(quick):
            await asyncio.sleep(0.02)


@pytest.mark.slow  # waits through several ping intervals
async def test_a_client_answering_pings_stays_connected(quick):
    """Only pongs from the client: each ping it answers is followed by the next, never by the
    close, across two and a half read timeouts (six pings 0.4 s apart; 1 s unanswered cuts)."""
    async with aiohttp.ClientSession() as session:
        ws = await raw_websocket(session, quick.url)
        for _ in range(6):
            msg = await asyncio.wait_for(ws.receive(), 3)
            assert (msg.type, msg.data) == (aiohttp.WSMsgType.TEXT, "2"), msg  # a ping
            await ws.send_str("3")
        assert sockets(quick) == 1
        await ws.send_str("40/minitable,")  # and it still speaks socket.io
        answer = await asyncio.wait_for(ws.receive(), 3)
        assert answer.data.startswith("44/minitable,"), answer  # refused: no auth


@pytest.mark.parametrize("message", ["x", "", "over the limit"])
async def test_bad_websocket_message_closes_that_connection_only(server, gm, message):
    if message == "over the limit":
        message = "4" + "a" * server.bridge.config.transport_limit
    async with aiohttp.ClientSession() as session:
        ws = await raw_websocket(session, server.url)
        await ws.send_str(message)
        assert await closed_by_server(ws, within=3)
    # the server and the other client go on
    assert gm.sio.connected
    assert (await gm.send("tokenMoved", {"id": "m1", "token": "kevin", "x": 100, "y": 0}))["ok"]
