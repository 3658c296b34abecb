"""The dedup memory: a re-sent event within the window is answered, not applied again; one
older than the window is processed again; the window comes back after a restart."""

from __future__ import annotations

from vttbridge.adapters.bridge.config import WorldConfig
from vttbridge.adapters.bridge.dedup import RecentIds

from tests.bridge.conftest import TableClient, scene, start_server

WINDOW = 16


def test_the_oldest_id_is_forgotten_first():
    ids = RecentIds(3)
    for i in range(5):
        ids.add(f"e{i}", 10 + i)
    assert list(ids) == ["e2", "e3", "e4"] and len(ids) == 3
    assert [ids.get(f"e{i}") for i in range(5)] == [None, None, 12, 13, 14]
    assert "e1" not in ids and "e4" in ids


def test_an_id_added_again_keeps_its_place():
    ids = RecentIds(3, [("a", 1), ("b", 2), ("c", 3)])
    ids.add("a", 4)
    ids.add("d", 5)  # "a" is still the oldest
    assert list(ids) == ["b", "c", "d"] and ids.get("a") is None


def test_many_ids_stay_within_the_window():
    ids = RecentIds(100)
    for i in range(10_000):
        ids.add(f"id-{i}", i)
        assert ids.get(f"id-{i}") == i
    assert len(ids) == 100 and list(ids) == [f"id-{i}" for i in range(9_900, 10_000)]
    assert all(ids.get(f"id-{i}") is None for i in range(9_900))


def _move(i: int) -> dict:
    return {"id": f"mv-{i}", "token": "kevin", "x": 100 * (i % 5), "y": 100}


async def test_the_window_over_the_wire_and_after_a_restart(db, worlds):
    key = worlds["table1"][0]
    config = WorldConfig(dedup_window=WINDOW)
    server = await start_server(db, world=config)
    try:
        c = await TableClient().connect(server.url, "table1", key)
        assert (await c.send("snapshot", scene()))["ok"]
        acks = [await c.send("tokenMoved", _move(i)) for i in range(WINDOW + 4)]
        assert all(a["ok"] for a in acks), acks
        # the last WINDOW ids (the scene's is older now) are answered with their seqs
        again = await c.send("tokenMoved", _move(4))
        assert again == {**acks[4], "duplicate": True}
        await c.close()
    finally:
        await server.stop()

    server = await start_server(db, world=config)
    try:
        c = await TableClient().connect(server.url, "table1", key)
        again = await c.send("tokenMoved", _move(WINDOW + 3))
        assert again == {**acks[WINDOW + 3], "duplicate": True}
        seq = server.bridge.worlds["table1"].seq
        # older than the window: processed again, as a new event
        old = await c.send("tokenMoved", _move(3))
        assert old["ok"] and not old.get("duplicate") and old["seq"] == seq + 1, old
        await c.close()
    finally:
        await server.stop()
