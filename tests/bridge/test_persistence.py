"""Restarts rebuild every world from its last snapshot plus the log, without re-sending."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading

import pytest
from vttbridge.adapters.bridge.config import WorldConfig
from vttbridge.adapters.bridge.server import create_world
from vttbridge.adapters.bridge.storage import Lease, run_blocking
from vttbridge.adapters.bridge.storage.groupcommit import WorldLog
from vttbridge.adapters.bridge.storage.sqlite import SqliteDatabase, SqliteWriter
from vttbridge.adapters.bridge.worldhost import GatedClock
from vttbridge.sdk.clock import ManualClock

from tests.bridge.conftest import Server, TableClient, scene, start_server

PLAY = [
    ("tokenMoved", {"token": "kevin", "x": 300, "y": 100}),
    ("chat", {"text": "!stats kevin initiative=3 reflex=5", "role": "gm"}),
    ("chat", {"text": "!stats ally initiative=1", "role": "gm"}),
    ("chat", {"text": "!init kevin ally thug", "role": "gm"}),  # rolls dice
    ("tokenMoved", {"token": "thug", "x": 800, "y": 800}),
    ("chat", {"text": "!next", "role": "gm"}),
    ("tokenMoved", {"token": "ally", "x": 400, "y": 100}),
    ("chat", {"text": "!next", "role": "gm"}),
]


async def play(c: TableClient, prefix: str = "p") -> list[dict]:
    acks = [await c.send("snapshot", scene(id=f"{prefix}-snap"))]
    for i, (event, payload) in enumerate(PLAY):
        acks.append(await c.send(event, {"id": f"{prefix}-{i}", **payload}))
    assert all(a["ok"] for a in acks), acks
    return acks


async def played(db, key: str, snapshot_every: int) -> tuple[Server, TableClient, list[dict]]:
    """A server on ``db`` whose table1 a client played :data:`PLAY` on, every command of it
    arrived; the server, the client and the acks."""
    server = await start_server(db, world=WorldConfig(snapshot_every=snapshot_every))
    c = await TableClient().connect(server.url, "table1", key)
    acks = await play(c)
    await c.caught_up()
    return server, c, acks


def world_of(server, name: str = "table1") -> dict:
    return server.bridge.worlds[name].runtime.snapshot()


@pytest.fixture
def key(database) -> str:
    """The GM key of world table1, made in ``database`` (each backend in turn)."""
    return create_world(database, "table1")[0]


@pytest.mark.parametrize("clean", [True, False], ids=["clean-stop", "no-final-snapshot"])
async def test_restart_rebuilds_the_world_exactly(database, key, clean):
    db = database
    server, c, acks = await played(db, key, snapshot_every=3)
    before, seq = world_of(server), server.bridge.worlds["table1"].seq
    assert before["world"]["encounter"]["round"] >= 1
    await c.close()
    await server.stop(snapshot=clean)

    server = await start_server(db, world=WorldConfig(snapshot_every=3))
    try:
        host = server.bridge.worlds["table1"]
        assert host.replay_divergences == 0
        assert world_of(server) == before  # dice included: the RNG state is in the snapshot
        assert host.seq == seq
        # nothing is sent again to a client that saw everything
        back = await TableClient().connect(server.url, "table1", key, last_seq=c.last_seq)
        # acknowledged ids are still known; new events continue the sequence
        again = await back.send(PLAY[0][0], {"id": "p-0", **PLAY[0][1]})
        assert again == {"ok": True, "seq": acks[1]["seq"], "duplicate": True}
        new = await back.send("noop", {"id": "after"})
        assert new["seq"] == seq
        assert await back.caught_up() == []
        await back.close()
    finally:
        await server.stop()


async def test_a_quiet_world_is_snapshotted_while_serving(database, key):
    """A busy world snapshots every ``snapshot_every`` events; one that goes quiet is
    snapshotted soon after, so a crash right then replays nothing."""
    db = database
    server = await start_server(db, world=WorldConfig(snapshot_every=1000, snapshot_quiet=0.3))
    try:
        c = await TableClient().connect(server.url, "table1", key)
        await play(c)
        host = server.bridge.worlds["table1"]
        first = latest_snapshot_seq(db)
        assert first < host.seq  # only the world's first snapshot so far
        for _ in range(50):
            await asyncio.sleep(0.1)
            if latest_snapshot_seq(db) == host.seq:
                break
        assert latest_snapshot_seq(db) == host.seq
        assert host.events_since_snapshot == 0
        await c.close()
    finally:
        await server.stop(snapshot=False)
    server = await start_server(db)
    try:
        host = server.bridge.worlds["table1"]
        assert host.events_since_snapshot == 0  # nothing left to replay
    finally:
        await server.stop()


async def test_a_busy_world_snapshots_within_every_n_events_at_points_of_its_own(database, key):
    """Each world's next snapshot comes after ``snapshot_every`` events or up to an eighth
    fewer, drawn again each time: worlds played at one pace do not all snapshot at once, and
    a restart never replays more than ``snapshot_every``."""
    db, every = database, 40
    server = await start_server(
        db, world=WorldConfig(snapshot_every=every, snapshot_quiet=0), rate=0
    )
    try:
        c = await TableClient().connect(server.url, "table1", key)
        assert (await c.send("snapshot", scene(id="busy-snap")))["ok"]
        host = server.bridge.worlds["table1"]
        gaps, since = [], host.events_since_snapshot
        for i in range(12 * every):
            move = {"id": f"busy-{i}", "token": "kevin", "x": 100 * (i % 2), "y": 100}
            ack = await c.send("tokenMoved", move)
            assert ack["ok"], ack
            if host.events_since_snapshot == 0:  # this event's snapshot is saved with it
                gaps.append(since + 1)
                assert latest_snapshot_seq(db) == ack["seq"]
            since = host.events_since_snapshot
        assert len(gaps) >= 12 and all(every - every // 8 <= g <= every for g in gaps), gaps
        assert len(set(gaps)) > 1, gaps  # all alike: about one chance in 10 million
        await c.close()
    finally:
        await server.stop()


def latest_snapshot_seq(db) -> int:
    snap = run_blocking(db, lambda store: store.latest_snapshot("table1"))
    return snap[0] if snap else 0


async def test_replay_does_not_log_again(database, key):
    db = database
    server, c, _ = await played(db, key, snapshot_every=1000)
    await c.close()
    await server.stop(snapshot=False)

    def counts() -> list[tuple]:
        summaries = run_blocking(db, lambda store: store.summaries())
        return [(s.name, s.events, s.commands, s.last_seq) for s in summaries]

    before = counts()
    server = await start_server(db)
    await server.stop(snapshot=False)
    assert counts() == before


SCHEMA_1 = """
CREATE TABLE log (
    world TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('event', 'command')),
    event_id TEXT,
    name TEXT NOT NULL,
    body TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (world, seq)
) WITHOUT ROWID;
CREATE TABLE snapshots (
    world TEXT NOT NULL,
    seq INTEGER NOT NULL,
    data TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (world, seq)
) WITHOUT ROWID;
"""
LOG_1 = "world, seq, kind, event_id, name, body, at"
SNAPSHOTS_1 = "world, seq, data, at"


def to_schema_1(db) -> list[tuple]:
    """Rewrite ``db`` as vttbridge wrote it before schema 2 (the log clustered by world, no
    fences, leases, suspects, retention or archives); returns its log rows."""
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        rows = conn.execute(f"SELECT {LOG_1} FROM log ORDER BY world, seq").fetchall()
        snaps = conn.execute(f"SELECT {SNAPSHOTS_1} FROM snapshots").fetchall()
        conn.executescript(
            "BEGIN; DROP TABLE log; DROP TABLE snapshots; DROP TABLE leases;"
            " DROP TABLE suspects; DROP TABLE archives; ALTER TABLE worlds DROP COLUMN retention;"
            + SCHEMA_1
            + "UPDATE meta SET value='1' WHERE key='schema'; COMMIT;"
        )  # fmt: skip
        conn.executemany(f"INSERT INTO log ({LOG_1}) VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        conn.executemany(f"INSERT INTO snapshots ({SNAPSHOTS_1}) VALUES (?, ?, ?, ?)", snaps)
    finally:
        conn.close()
    return rows


async def test_a_schema_1_file_is_upgraded_and_replays(db, worlds):
    key = worlds["table1"][0]
    server, c, _ = await played(db, key, snapshot_every=3)
    before, seq = world_of(server), server.bridge.worlds["table1"].seq
    await c.close()
    await server.stop(snapshot=False)
    rows = to_schema_1(db)

    server = await start_server(db, world=WorldConfig(snapshot_every=3))
    try:
        host = server.bridge.worlds["table1"]
        assert world_of(server) == before and host.seq == seq
        assert host.replay_divergences == 0
        back = await TableClient().connect(server.url, "table1", key, last_seq=c.last_seq)
        again = await back.send(PLAY[0][0], {"id": "p-0", **PLAY[0][1]})
        assert again["duplicate"] is True  # the dedup memory came through the upgrade
        move = {"id": "after-upgrade", "token": "kevin", "x": 200, "y": 100}
        assert (await back.send("tokenMoved", move))["ok"]
        await back.close()
    finally:
        await server.stop()
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == ("4",)
        logged = conn.execute("SELECT * FROM log ORDER BY world, seq").fetchall()
        assert [r[:7] for r in logged[: len(rows)]] == rows
        assert {r[7] for r in logged[: len(rows)]} == {0}  # written before fences were kept
        assert {r[7] for r in logged[len(rows) :]} == {1}  # the lease of the second start
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name='log'").fetchone()[0]
        assert "WITHOUT ROWID" not in sql
        plan = conn.execute(
            "EXPLAIN QUERY PLAN SELECT * FROM log WHERE world='table1' AND seq>5"
        ).fetchall()
        assert "log_world_seq" in str(plan)
    finally:
        conn.close()


async def test_world_list_and_options_survive(database, key):
    create_world(database, "table2")
    create_world(database, "wasteland", {"system": "foe"})
    server = await start_server(database)
    try:
        assert set(server.bridge.worlds) == {"table1", "table2", "wasteland"}
        opts = server.bridge.worlds["wasteland"].runtime.world.encounter.options
        assert opts.system == "foe"
    finally:
        await server.stop()


@pytest.mark.parametrize("clean", [True, False], ids=["clean-stop", "no-final-snapshot"])
async def test_options_set_in_chat_survive_a_restart(database, clean):
    db = database
    key, _ = create_world(db, "wasteland", {"system": "foe"})
    server = await start_server(db)
    c = await TableClient().connect(server.url, "wasteland", key)
    assert (await c.send("snapshot", scene()))["ok"]
    ack = await c.send("chat", {"id": "set", "text": "!set tie_break gm", "role": "gm"})
    assert ack["ok"], ack
    await c.close()
    await server.stop(snapshot=clean)

    server = await start_server(db)
    try:
        opts = server.bridge.worlds["wasteland"].runtime.world.encounter.options
        assert (opts.system, opts.tie_break) == ("foe", "gm")
    finally:
        await server.stop()


def test_gated_clock_holds_timers_until_opened():
    inner = ManualClock()
    clock = GatedClock(inner)
    fired: list[str] = []
    clock.call_later(5.0, lambda: fired.append("due"))
    clock.call_later(20.0, lambda: fired.append("later"))
    cancelled = clock.call_later(0.0, lambda: fired.append("cancelled"))
    cancelled.cancel()
    inner.advance(10)  # time passes during the replay: nothing runs, nothing is armed
    assert fired == [] and inner.pending == 0
    clock.open()  # each with the time it has left: "due" is overdue, "later" 10 s away
    assert inner.advance(0) == 1 and fired == ["due"]
    inner.advance(10)
    assert fired == ["due", "later"]
    clock.call_later(1.0, lambda: fired.append("live"))  # open: straight to the clock
    assert inner.pending == 1
    inner.advance(1)
    assert fired == ["due", "later", "live"]


def world_log(writer: SqliteWriter, world: str = "w") -> WorldLog:
    """``world``'s rows, written as if this process held its lease with fence 1."""
    writer.fences[world] = 1
    return WorldLog(writer, Lease(world, "node", 1, 0.0))


@pytest.fixture
async def writer(tmp_path):
    """A writer on a new file holding one world, ``w``, committing on the event loop (these
    tests count the loop's turns a commit waits; the threaded commit is tested below)."""
    path = tmp_path / "w.sqlite3"
    SqliteDatabase(path).create_world("w", "h1", "h2")
    w = SqliteWriter(path, inline=True)
    w.log = world_log(w)
    yield w
    w.close()


def log_event(writer: SqliteWriter, seq: int) -> None:
    writer.log.event(seq, f"e{seq}", "noop", '{"event": {}}')


def logged_seqs(writer: SqliteWriter) -> list[int]:
    return [r.seq for r in SqliteDatabase(writer.db.path).log_after("w", 0)]


async def test_writer_batches_and_orders(writer):
    for seq in range(1, 201):
        log_event(writer, seq)
    await writer.barrier()
    assert logged_seqs(writer) == list(range(1, 201))
    assert writer.stats.batches < 200  # grouped into transactions


async def test_rows_of_the_next_turn_join_the_commit(writer):
    """Group commit: what the next turn of the loop queues (the handlers of events read
    meanwhile) goes into the same transaction, not one of its own."""
    log_event(writer, 1)
    first = writer.barrier()
    await asyncio.sleep(0)  # one turn later
    log_event(writer, 2)
    assert writer.barrier() is first  # one batch, one shared future
    await first
    assert writer.stats.batches == 1 and writer.stats.rows == 2
    assert logged_seqs(writer) == [1, 2]


async def turns_until(fut: asyncio.Future, limit: int = 100) -> int:
    for turn in range(1, limit):
        await asyncio.sleep(0)
        if fut.done():
            return turn
    raise AssertionError("never committed")


async def test_a_lone_row_is_committed_after_two_turns(writer):
    log_event(writer, 1)
    assert await turns_until(writer.barrier()) == 2


async def test_rows_in_every_turn_wait_at_most_max_turns(writer):
    """Under steady load a commit takes what the following turns queue, up to MAX_TURNS."""
    committed: list[int] = []
    for seq in range(1, 3 * writer.MAX_TURNS + 1):
        log_event(writer, seq)
        writer.after_commit(lambda err, seq=seq: committed.append(seq))
        await asyncio.sleep(0)
    await writer.barrier()
    assert writer.stats.batches == 3  # not one commit per turn, nor one for everything
    assert committed[: writer.MAX_TURNS] == list(range(1, writer.MAX_TURNS + 1))
    assert writer.stats.largest_batch == writer.MAX_TURNS


async def test_commit_now_ends_the_wait(writer):
    log_event(writer, 1)
    done = writer.barrier()
    writer.commit_now()
    assert await turns_until(done) == 1
    log_event(writer, 2)  # a new wait of its own
    assert await turns_until(writer.barrier()) == 2
    assert writer.stats.batches == 2


async def test_a_command_ack_rides_with_the_next_commit(writer):
    """A client's command ack is written with the next commit, not in one of its own: at a
    table's pace that is one commit a move, not two."""
    writer.log.acked(3)
    for _ in range(10):
        await asyncio.sleep(0)
    assert writer.stats.batches == 0 and writer.pending
    log_event(writer, 1)
    await writer.barrier()
    assert writer.stats.batches == 1 and writer.stats.rows == 2
    assert SqliteDatabase(writer.db.path).world("w").acked_seq == 3


async def test_a_lone_command_ack_is_saved_within_lazy_seconds(writer):
    writer.LAZY_SECONDS = 0.05
    writer.log.acked(4)
    writer.log.acked(6)
    await asyncio.sleep(0.3)
    assert writer.stats.batches == 1 and not writer.pending
    assert SqliteDatabase(writer.db.path).world("w").acked_seq == 6


def test_a_command_ack_is_saved_when_the_writer_closes(tmp_path):
    path = tmp_path / "w.sqlite3"
    SqliteDatabase(path).create_world("w", "h1", "h2")
    writer = SqliteWriter(path, inline=True)

    async def ack() -> None:
        world_log(writer).acked(5)

    asyncio.run(ack())
    writer.close()
    assert SqliteDatabase(path).world("w").acked_seq == 5


def test_the_wal_stays_bounded_under_steady_writes(tmp_path):
    """Commit after commit with no pause: the WAL is restarted now and then instead of
    growing with every commit (it grew by ~10 KB a commit, forever)."""
    path = tmp_path / "w.sqlite3"
    writer = SqliteWriter(path)
    logs = [world_log(writer, f"w{i}") for i in range(10)]
    writer.CHECKPOINT_EVERY, writer.WAL_LIMIT = 50, 256  # 1 MB of frames
    wal = tmp_path / "w.sqlite3-wal"
    body = json.dumps({"event": {}, "pad": "x" * 200})
    largest = 0
    try:
        for i in range(8000):  # no event loop: each write is its own commit
            logs[i % 10].event(i // 10 + 1, f"e{i}", "noop", body)
            if i % 100 == 0:
                largest = max(largest, wal.stat().st_size)
    finally:
        writer.close()
    # the limit is 1 MB of frames, checked every 50 commits (retried each commit while the
    # checkpoint thread is busy): 1.1-1.5 MB here, on a loaded machine too; unbounded, 78 MB
    assert largest < 8_000_000
    rows = SqliteDatabase(path).log_after("w3", 0)
    assert [r.seq for r in rows] == list(range(1, 801))


async def test_a_failing_database_refuses_acks(db, worlds, gm, server):
    """If the disk refuses writes, events are answered with an error, never acknowledged."""
    writer = server.bridge.store.writer
    writer.failed = OSError("disk full")
    ack = await gm.send("tokenMoved", {"id": "mv-fail", "token": "kevin", "x": 0, "y": 0})
    assert ack["ok"] is False and ack["error"]["code"] == "internal"
    assert "could not save" in ack["error"]["message"]
    writer.failed = None


async def test_with_an_fsync_the_commit_runs_off_the_event_loop(tmp_path):
    """durability="full": the event loop only queues, the writer's own thread commits (each
    commit waits for an fsync), and the barrier (what an ack waits for) resolves in the loop
    once the rows are in the file."""
    path = tmp_path / "w.sqlite3"
    SqliteDatabase(path).create_world("w", "h1", "h2")
    writer = SqliteWriter(path, durability="full")
    committed_in: list[int] = []
    writer.on_commit = lambda took, failed: committed_in.append(threading.get_ident())
    log = world_log(writer)
    try:
        for seq in range(1, 51):
            log.event(seq, f"e{seq}", "noop", '{"event": {}}')
        await log.barrier()
        assert [r.seq for r in SqliteDatabase(path).log_after("w", 0)] == list(range(1, 51))
    finally:
        writer.close()
    assert committed_in and threading.get_ident() not in committed_in


async def test_a_batch_of_many_worlds_is_written_whole(tmp_path):
    """A batch's rows go in a few statements of many rows each (log rows of 3 worlds, each
    world's acks, the highest kept, and the adapter that linked it last)."""
    path = tmp_path / "w.sqlite3"
    db = SqliteDatabase(path)
    for w in ("a", "b", "c"):
        db.create_world(w, "h1", "h2")
    writer = SqliteWriter(path)
    logs = {w: world_log(writer, w) for w in ("a", "b", "c")}
    try:
        for seq in range(1, 335):  # 334 rows a world: chunks of 256, 64, 4 and 1 of each size
            for w, log in logs.items():
                log.event(seq, f"{w}{seq}", "noop", '{"event": {}}')
        logs["a"].acked(7), logs["a"].acked(9), logs["a"].acked(8), logs["b"].acked(3)
        logs["c"].linked("roll20"), logs["c"].linked("foundry")
        await writer.barrier()
    finally:
        writer.close()
    for w in ("a", "b", "c"):
        assert [r.seq for r in db.log_after(w, 0)] == list(range(1, 335))
    assert [db.world(w).acked_seq for w in ("a", "b", "c")] == [9, 3, 0]
    assert db.world("c").adapter == "foundry"


async def test_the_wal_is_caught_up_while_the_loop_holds_its_batches(tmp_path):
    """On the event loop, a WAL past its limit is caught up by the checkpoint thread: copied
    beside the writer, then its tail while the next batches wait (the loop goes on); they
    are committed after, in order, and the WAL restarts instead of growing."""
    path = tmp_path / "w.sqlite3"
    writer = SqliteWriter(path)
    assert writer.inline
    logs = [world_log(writer, f"w{i}") for i in range(10)]
    writer.CHECKPOINT_EVERY, writer.WAL_LIMIT = 5, 64  # 256 kB of frames
    wal = tmp_path / "w.sqlite3-wal"
    body = json.dumps({"event": {}, "pad": "x" * 200})
    largest = 0
    try:
        for i in range(4000):
            logs[i % 10].event(i // 10 + 1, f"e{i}", "noop", body)
            if i % 10 == 9:
                await writer.barrier()
                largest = max(largest, wal.stat().st_size)
    finally:
        writer.close()
    db = SqliteDatabase(path)
    assert [r.seq for r in db.log_after("w3", 0)] == list(range(1, 401))
    # 256 kB of frames, caught up as soon as the thread can: unbounded, 25 MB
    assert largest < 3_000_000
