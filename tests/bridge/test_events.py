"""Inbound events: order under concurrency, acks and seqs, dedup of re-sent ids."""

from __future__ import annotations

import asyncio
import json
import sqlite3

from tests.bridge.conftest import moves_in_parallel, scene


def log_rows(db, world: str, kind: str = "event") -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute(
            "SELECT seq, event_id, name, body FROM log WHERE world=? AND kind=? ORDER BY seq",
            (world, kind),
        ).fetchall()
    finally:
        conn.close()


async def test_events_keep_their_order_under_concurrency(server, gm, db):
    n = 60
    await moves_in_parallel(gm, n)
    world = server.bridge.worlds["table1"].runtime.world
    assert (world.tokens["kevin"].cell.x, world.tokens["kevin"].cell.y) == (n - 1, 0)
    ids = [r[1] for r in log_rows(db, "table1") if r[1] and r[1].startswith("mv-")]
    assert ids == [f"mv-{i}" for i in range(n)]


async def test_commands_arrive_in_seq_order(server, gm):
    acks = await asyncio.gather(
        *(gm.send("chat", {"id": f"c{i}", "text": "!help", "role": "gm"}) for i in range(20))
    )
    assert all(a["ok"] for a in acks)
    await gm.wait_commands(20)
    seqs = [c["seq"] for c in gm.commands]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    # every command comes after the event that caused it
    assert seqs[0] > acks[0]["seq"]


async def test_text_beyond_ascii_round_trips(server, gm, db):
    text = '!zoë 🦄 "quoted"'
    ack = await gm.send("chat", {"id": "u1", "text": text, "role": "gm"})
    assert ack["ok"], ack
    (cmd,) = await gm.wait_commands(1)
    assert cmd["data"]["text"].startswith("Unknown command !zoë."), cmd
    (row,) = [r for r in log_rows(db, "table1") if r[1] == "u1"]
    assert json.loads(row[3])["event"]["text"] == text


async def test_resent_event_is_acknowledged_again_not_applied_twice(server, gm, db):
    move = {"id": "mv-dup", "token": "kevin", "x": 700, "y": 700}
    first = await gm.send("tokenMoved", move)
    second = await gm.send("tokenMoved", move)
    assert first["ok"] and second["ok"]
    assert second["seq"] == first["seq"] and second["duplicate"] is True
    assert [r[1] for r in log_rows(db, "table1")].count("mv-dup") == 1


async def test_concurrent_duplicates_apply_once(server, gm, db):
    chat = {"id": "c-dup", "text": "!help", "role": "gm"}
    acks = await asyncio.gather(*(gm.send("chat", chat) for _ in range(5)))
    assert {a["seq"] for a in acks} == {acks[0]["seq"]}
    assert sum(1 for a in acks if a.get("duplicate")) == 4
    assert [r[1] for r in log_rows(db, "table1")].count("c-dup") == 1
    assert len(await gm.caught_up()) == 1


async def test_a_refused_event_is_not_remembered(server, gm):
    bad = {"id": "mv-x", "token": "nobody", "x": 0, "y": 0}
    assert (await gm.send("tokenMoved", bad))["error"]["code"] == "unknown_token"
    ack = await gm.send("tokenCreated", {"id": "tc-1", "token": {"id": "nobody", "x": 0, "y": 0}})
    assert ack["ok"], ack
    assert (await gm.send("tokenMoved", bad))["ok"]  # same id, now valid: applied


async def test_event_with_no_domain_event_is_acknowledged(server, gm):
    before = server.bridge.worlds["table1"].seq
    ack = await gm.send("noop", {"id": "n1"})
    assert ack == {"ok": True, "seq": before}
    assert (await gm.send("noop", {"id": "n1"}))["duplicate"] is True


async def test_rule_rejection_keeps_world(server, gm):
    """The runtime's own refusals (EventRejected) come back with their code."""
    host = server.bridge.worlds["table1"]
    before = host.runtime.snapshot()
    ack = await gm.send("combatStart", {"id": "cs1", "tokens": ["kevin", "ghost"]})
    assert ack["ok"] is False and ack["error"]["code"] == "unknown_token"
    assert ack["error"]["path"] == "tokens.1"
    assert host.runtime.snapshot() == before


async def test_ack_is_sent_only_after_the_log_is_written(server, gm, db):
    ack = await gm.send("tokenMoved", {"id": "mv-d", "token": "ally", "x": 0, "y": 0})
    # read with a separate connection, as a restarted server would
    assert any(r[0] == ack["seq"] and r[1] == "mv-d" for r in log_rows(db, "table1"))


async def test_snapshot_resets_the_scene(server, gm):
    ack = await gm.send("snapshot", scene({"kevin": (0, 0)}, id="snap-2"))
    assert ack["ok"]
    assert set(server.bridge.worlds["table1"].runtime.world.tokens) == {"kevin"}
