"""Connecting: keys, unknown worlds, protocol versions, observers, transports."""

from __future__ import annotations

import asyncio
import gc
import weakref

import pytest
import socketio
from vttbridge.adapters.bridge.server import create_world

from tests.bridge.conftest import CLIENT, TableClient, refused, scene, start_server


async def test_gm_key_connects_and_links(server, worlds, client_factory):
    c = await client_factory().connect(server.url, "table1", worlds["table1"][0])
    assert c.sio.connected
    ack = await c.send("snapshot", scene())
    assert ack == {"ok": True, "seq": 1}
    host = server.bridge.worlds["table1"]
    assert host.adapter is not None and host.adapter.name == "minitable"
    assert set(host.runtime.world.tokens) == {"kevin", "ally", "thug"}


@pytest.mark.parametrize(
    "transport", ["polling", ["polling", "websocket"]], ids=["long-polling", "upgraded"]
)
async def test_polling_transport_works_too(db, worlds, transport):
    # a short ping: python-socketio's *client* holds its disconnect until the open long-poll
    # returns, which the server answers after one ping interval
    server = await start_server(db, ping_interval=0.5, ping_timeout=1)
    c = TableClient()
    try:
        await c.connect(server.url, "table1", worlds["table1"][0], transport=transport)
        if "websocket" in transport:  # the upgrade: adapters/bridge/websocket.py takes over
            async with asyncio.timeout(5):
                while c.sio.transport() != "websocket":
                    await asyncio.sleep(0.02)
            (sock,) = server.bridge.sio.eio.sockets.values()
            assert sock.upgraded
        assert (await c.send("snapshot", scene()))["ok"]
        assert (await c.send("chat", {"id": "c1", "text": "!help", "role": "gm"}))["ok"]
        await c.wait_commands(1)
        assert c.commands[0]["op"] == "chat.post"
    finally:
        await server.stop()
        await c.close()


@pytest.mark.parametrize("transport", ["websocket", "polling"])
async def test_a_closed_connection_is_freed_without_the_collector(db, worlds, transport):
    """A connection refers back to itself nowhere, so it is freed as it closes: `serve`
    freezes what lives out of the collector's passes (as worlds wake), and a frozen cycle
    would stay until no world is loaded."""
    server = await start_server(db, ping_interval=0.5, ping_timeout=1)
    keep = await TableClient().connect(server.url, "table2", worlds["table2"][0])
    c = TableClient()
    gc.disable()  # a pass meanwhile would free cycles too
    try:
        await c.connect(server.url, "table1", worlds["table1"][0], transport=transport)
        assert (await c.send("snapshot", scene()))["ok"]
        eio = server.bridge.sio.eio
        (sid,) = [s for s in eio.sockets if s != keep.sio.eio.sid]
        ref = weakref.ref(eio.sockets[sid])
        await c.close()
        async with asyncio.timeout(5):
            while sid in eio.sockets or ref() is not None:
                await asyncio.sleep(0.02)
    finally:
        gc.enable()
        await keep.close()
        await server.stop()


@pytest.mark.parametrize(
    ("auth", "code", "says"),
    [
        (None, "bad_auth", "auth"),
        ({"world": "table1", "client": CLIENT}, "bad_auth", "key"),
        ({"world": "table1", "key": "vtt_gm_nope", "client": CLIENT}, "wrong_key", "Wrong key"),
        ({"world": "table1", "key": "", "client": CLIENT}, "bad_auth", "key"),
        ({"world": "atlantis", "key": "vtt_gm_x", "client": CLIENT}, "unknown_world", "atlantis"),
        (
            {"world": "table1", "key": "k", "client": CLIENT, "protocol": 2},
            "unsupported_protocol",
            "Protocol version 2",
        ),
        ({"world": "table1", "key": "vtt_gm_x"}, "bad_auth", "client"),
        (
            {"world": "table1", "key": "k", "client": CLIENT, "protocol": [1]},
            "unsupported_protocol",
            "[1]",
        ),
        ({"world": "table1", "key": "k", "client": CLIENT, "last_seq": -1}, "bad_auth", "last_seq"),
    ],
)
async def test_refused_connects_say_why(server, worlds, auth, code, says):
    message, data = await refused(server.url, auth)
    assert data.get("code") == code
    assert says in message


async def test_key_of_another_world_is_wrong(server, worlds):
    _, data = await refused(
        server.url, {"world": "table2", "key": worlds["table1"][0], "client": CLIENT}
    )
    assert data["code"] == "wrong_key"


async def test_world_created_while_running_can_link(server, db, client_factory):
    gm_key, _ = create_world(db, "latecomer")
    c = await client_factory().connect(server.url, "latecomer", gm_key)
    assert (await c.send("snapshot", scene()))["ok"]
    assert "latecomer" in server.bridge.worlds


async def test_observer_watches_but_cannot_send(server, worlds, gm, client_factory):
    watcher = await client_factory().connect(server.url, "table1", worlds["table1"][1])
    seq_before = server.bridge.worlds["table1"].seq
    ack = await watcher.send("tokenMoved", {"id": "obs-1", "token": "kevin", "x": 0, "y": 0})
    assert ack["ok"] is False and ack["error"]["code"] == "read_only"
    assert server.bridge.worlds["table1"].seq == seq_before
    # it does see what the table sees
    await gm.send("chat", {"id": "c1", "text": "!help", "role": "gm"})
    await watcher.wait_commands(1)
    await gm.wait_commands(1)
    assert watcher.commands == gm.commands


async def test_key_never_logged(server, worlds, client_factory, caplog):
    caplog.set_level("DEBUG")
    gm_key, obs_key = worlds["table1"]
    await client_factory().connect(server.url, "table1", gm_key)
    await refused(server.url, {"world": "table1", "key": gm_key + "x", "client": CLIENT})
    assert "linked world 'table1' as GM" in caplog.text
    assert "Wrong key" in caplog.text
    assert gm_key not in caplog.text and obs_key not in caplog.text


async def test_disconnect_and_reconnect_are_logged(server, worlds, client_factory, caplog):
    caplog.set_level("INFO")
    c = await client_factory().connect(server.url, "table1", worlds["table1"][0])
    await c.send("snapshot", scene())
    await c.send("chat", {"id": "c1", "text": "!help", "role": "gm"})
    await c.wait_commands(1)
    await c.close()
    again = TableClient()
    try:
        await again.connect(server.url, "table1", worlds["table1"][0], last_seq=0)
        await again.wait_commands(1)
    finally:
        await again.close()
    assert "left world 'table1'" in caplog.text
    assert "reconnected to world 'table1' as GM; 1 command re-sent" in caplog.text


async def test_a_world_links_to_one_vtt_at_a_time(db, worlds, caplog):
    from vttbridge.adapters.bridge.server import Bridge, BridgeConfig

    from tests.bridge.minitable import MiniTable

    class OtherTable(MiniTable):
        name = "othertable"

    caplog.set_level("INFO")
    bridge = Bridge(BridgeConfig(database=db, reload_scripts=False), [MiniTable(), OtherTable()])
    server = await start_server(db, bridge=bridge)
    key = worlds["table1"][0]
    auth = {"world": "table1", "key": key, "client": CLIENT}
    try:
        mini = await TableClient().connect(server.url, "table1", key)
        other = socketio.AsyncClient(reconnection=False, handle_sigint=False)
        errors: list = []
        other.on("connect_error", errors.append, namespace="/othertable")
        with pytest.raises(socketio.exceptions.ConnectionError):
            await other.connect(server.url, namespaces=["/othertable"], auth=auth, wait_timeout=5)
        assert errors[0]["data"]["code"] == "linked_elsewhere"
        assert "linked to minitable" in errors[0]["message"]
        await other.disconnect()
        await mini.close()
        await other.connect(server.url, namespaces=["/othertable"], auth=auth, wait_timeout=5)
        assert server.bridge.worlds["table1"].adapter.name == "othertable"
        assert "now linked to othertable (was minitable)" in caplog.text
        await other.disconnect()
    finally:
        await server.stop()


async def test_an_unreadable_world_does_not_take_the_others_down(db, worlds):
    import sqlite3

    server = await start_server(db)
    await server.stop()
    conn = sqlite3.connect(db)
    conn.execute("UPDATE snapshots SET data='{\"format\": 99}' WHERE world='table1'")
    conn.commit()
    conn.close()
    server = await start_server(db)
    try:
        message, data = await refused(
            server.url, {"world": "table1", "key": worlds["table1"][0], "client": CLIENT}
        )
        assert data["code"] == "world_unavailable" and "snapshot format" in message
        c = await TableClient().connect(server.url, "table2", worlds["table2"][0])
        assert (await c.send("snapshot", scene()))["ok"]
        await c.close()
    finally:
        await server.stop()
