"""A client of one world never sees or changes another world."""

from __future__ import annotations

import asyncio

import pytest

from tests.bridge.conftest import TableClient, scene, start_server


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


NAP = """\
import time
from vttbridge.sdk import Script
script = Script("nap")
@script.command("nap", role="gm")
def nap(cmd, ctx):
    time.sleep(3)
    ctx.reply("woke up")
"""


@pytest.mark.slow  # a script that blocks for seconds
async def test_a_world_whose_script_blocks_holds_up_no_other_world(db, worlds, tmp_path):
    script = tmp_path / "nap.py"
    script.write_text(NAP)
    server = await start_server(db, scripts=[str(script)])
    one = await TableClient().connect(server.url, "table1", worlds["table1"][0])
    two = await TableClient().connect(server.url, "table2", worlds["table2"][0])
    try:
        for c in (one, two):
            assert (await c.send("snapshot", scene()))["ok"]
        napping = asyncio.ensure_future(
            one.send("chat", {"id": "nap", "text": "!nap", "role": "gm"}, timeout=30)
        )
        await asyncio.sleep(0.2)  # table1's callback sleeps in its thread now
        for i in range(3):  # table2 is answered meanwhile, each time
            ack = await two.send("tokenMoved", {"id": f"m{i}", "token": "kevin", "x": i, "y": 0})
            assert ack["ok"], ack
            assert not napping.done()  # still asleep
        ack = await napping  # stopped at its 2 s budget: the event itself goes on
        assert ack["ok"], ack
        await one.wait_commands(1)
        said = " ".join(str(c["data"]) for c in one.commands)
        assert "nap.py:6" in said and "stopped" in said and "woke up" not in said, said
        # and table1 goes on too, in a new thread
        assert (await one.send("tokenMoved", {"id": "after", "token": "kevin", "x": 5, "y": 0}))[
            "ok"
        ]
    finally:
        await one.close()
        await two.close()
        await server.stop()
