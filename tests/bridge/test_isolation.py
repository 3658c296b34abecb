"""A client of one world never sees or changes another world."""

from __future__ import annotations

from tests.bridge.conftest import scene


async def test_worlds_do_not_leak(server, worlds, client_factory):
    one = await client_factory().connect(server.url, "table1", worlds["table1"][0])
    two = await client_factory().connect(server.url, "table2", worlds["table2"][0])
    watcher_two = await client_factory().connect(server.url, "table2", worlds["table2"][1])
    # same token ids in both worlds, different places
    assert (await one.send("snapshot", scene({"kevin": (0, 0)})))["ok"]
    assert (await two.send("snapshot", scene({"kevin": (900, 900)})))["ok"]
    # the same event id in both worlds is two different events
    a1 = await one.send("tokenMoved", {"id": "same", "token": "kevin", "x": 100, "y": 0})
    a2 = await two.send("tokenMoved", {"id": "same", "token": "kevin", "x": 800, "y": 900})
    assert a1["ok"] and a2["ok"] and not a2.get("duplicate")
    for i in range(5):
        await one.send("chat", {"id": f"c{i}", "text": "!help", "role": "gm"})
    await one.wait_commands(5)
    assert server.bridge.worlds["table2"].seq == 2
    w1 = server.bridge.worlds["table1"].runtime.world
    w2 = server.bridge.worlds["table2"].runtime.world
    assert (w1.tokens["kevin"].cell.x, w2.tokens["kevin"].cell.x) == (1, 8)
    # the first command table2's clients get is one table2 sends them
    assert await watcher_two.caught_up(via=two) == []
    await two.wait_commands(1)
    assert two.commands == watcher_two.commands


async def test_each_world_keeps_its_own_sequence(server, worlds, client_factory):
    one = await client_factory().connect(server.url, "table1", worlds["table1"][0])
    two = await client_factory().connect(server.url, "table2", worlds["table2"][0])
    acks1 = [await one.send("snapshot", scene(id=f"s{i}")) for i in range(3)]
    acks2 = [await two.send("snapshot", scene(id=f"s{i}")) for i in range(2)]
    assert [a["seq"] for a in acks1] == [1, 2, 3]
    assert [a["seq"] for a in acks2] == [1, 2]
