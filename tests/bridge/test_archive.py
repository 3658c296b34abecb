"""Keeping the log: archiving a world's old rows into compressed files, which the storage
still reads; the space given back; ``vttbridge world log / retention / archive``."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys

import pytest
from vttbridge.adapters.bridge import logkeeping
from vttbridge.adapters.bridge.config import WorldConfig
from vttbridge.adapters.bridge.server import create_world
from vttbridge.adapters.bridge.storage import parse, run_blocking
from vttbridge.adapters.bridge.storage.archive import Retention, archive_upto
from vttbridge.adapters.bridge.storage.errors import StoreError

from tests.bridge.conftest import TableClient, scene, start_server

PAD = "a long note, as a chat line or a journal entry might be. " * 8


async def play_a_session(db, key: str, moves: int) -> tuple[dict, list]:
    """A server on ``db`` whose table1 a client played ``moves`` moves and chat lines on,
    stopped (its world snapshotted); the world's state and its whole log."""
    server = await start_server(db, world=WorldConfig(snapshot_every=100_000), rate=0)
    c = await TableClient().connect(server.url, "table1", key)
    try:
        assert (await c.send("snapshot", scene()))["ok"]
        for i in range(moves):
            ack = await c.send("tokenMoved", {"id": f"m{i}", "token": "kevin", "x": 100 * (i % 9),
                                              "y": 100})  # fmt: skip
            assert ack["ok"], ack
            ack = await c.send("chat", {"id": f"c{i}", "text": f"{i}: {PAD}", "role": "gm"})
            assert ack["ok"], ack
        await c.caught_up()
        state = server.bridge.worlds["table1"].runtime.snapshot()
    finally:
        await c.close()
        await server.stop()
    return state, run_blocking(db, lambda store: store.log_after("table1", 0))


def file_size(db) -> int:
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return db.stat().st_size


async def test_an_archived_world_still_wakes_and_reads_whole(database, tmp_path):
    key = create_world(database, "table1")[0]
    state, whole = await play_a_session(database, key, 150)
    sqlite = parse(database)[0] == "sqlite"
    before = file_size(database) if sqlite else 0

    folder = tmp_path / "archive"
    done = logkeeping.archive_now(database, ["table1"], folder, Retention(snapshots=1))
    files = done.files["table1"]
    assert files and all(f.path.endswith(".jsonl.gz") for f in files)
    archived = sum(f.rows for f in files)
    assert archived == len(whole) - 1  # all the latest snapshot holds, but the last row

    if sqlite:  # the file gave the archived rows' pages back to the disk
        assert file_size(database) < before * 0.6, (before, file_size(database))
        left = sqlite3.connect(database).execute("SELECT count(*) FROM log").fetchone()[0]
        assert left == 1

    # the log reads as before, archived rows and all (what a replay reads)
    again = run_blocking(database, lambda store: store.log_after("table1", 0))
    assert [(r.seq, r.kind, r.event_id, r.body) for r in again] == [
        (r.seq, r.kind, r.event_id, r.body) for r in whole
    ]
    commands = run_blocking(database, lambda store: store.log_after("table1", 10, "command", 5))
    assert [r.seq for r in commands] == [r.seq for r in whole if r.kind == "command"
                                         and r.seq > 10][:5]  # fmt: skip

    # and the world wakes as it was, and goes on where it stopped
    server = await start_server(database)
    try:
        host = server.bridge.worlds["table1"]
        assert host.runtime.snapshot() == state
        c = await TableClient().connect(server.url, "table1", key)
        ack = await c.send("tokenMoved", {"id": "after", "token": "kevin", "x": 0, "y": 0})
        assert ack["ok"] and ack["seq"] == whole[-1].seq + 1
        await c.close()
    finally:
        await server.stop()


async def test_retention_is_the_worlds_own_and_keep_archives_nothing(db, tmp_path):
    key = create_world(db, "table1")[0]
    create_world(db, "table2")
    await play_a_session(db, key, 20)
    assert logkeeping.archive_now(db, None).files == {"table1": [], "table2": []}
    logkeeping.set_retention(db, "table1", Retention(snapshots=1))
    done = logkeeping.archive_now(db, None)
    assert done.files["table1"] and done.files["table2"] == []
    # beside the file unless told
    assert done.files["table1"][0].path.startswith(str(db) + ".archive/table1/")
    # a second archive has nothing more to take: the rest is after the latest snapshot
    assert logkeeping.archive_now(db, None).files["table1"] == []
    with pytest.raises(StoreError, match="no world named"):
        logkeeping.set_retention(db, "nowhere", Retention(days=3))


def test_what_a_retention_lets_go():
    snaps = [900, 400]  # newest first
    assert archive_upto(Retention(), snaps, 800) == 0
    assert archive_upto(Retention(snapshots=1), snaps, None) == 900
    assert archive_upto(Retention(snapshots=2), snaps, None) == 400
    assert archive_upto(Retention(snapshots=2), [900], None) == 0
    assert archive_upto(Retention(days=30), snaps, 650) == 650
    assert archive_upto(Retention(days=30), snaps, 5000) == 900  # never past the snapshot
    assert archive_upto(Retention(days=30), [], 5000) == 0
    for text in ("keep", "days:30", "days:0.5", "snapshots:1", "snapshots:2"):
        assert str(Retention.parse(text)) == text
    for bad in ("days", "snapshots:3", "snapshots:0", "weeks:2", "days:-1"):
        with pytest.raises(StoreError):
            Retention.parse(bad)


@pytest.mark.slow  # four processes
def test_the_world_commands(db, tmp_path):
    """``vttbridge world retention``, ``log`` and ``archive`` from the command line."""

    def vttbridge(*args: str) -> str:
        out = subprocess.run(
            [sys.executable, "-m", "vttbridge", "world", *args, "--db", str(db)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        return out.stdout

    key = create_world(db, "table1")[0]
    asyncio.run(play_a_session(db, key, 10))
    assert "keep everything" in vttbridge("log")
    assert "archive what the latest snapshot holds" in vttbridge(
        "retention", "table1", "snapshots:1"
    )
    out = vttbridge("archive")
    assert "table1: " in out and " rows archived to 1 file(s)" in out and "MB ->" in out
    listing = vttbridge("log").splitlines()
    row = next(line for line in listing if line.startswith("table1"))
    assert row.split()[1] == "1"  # one row left in the database
    assert "The database file:" in listing[-1]


def test_an_older_file_is_made_to_shrink_by_vacuum(db):
    """A file made before incremental vacuum was set reuses freed pages but does not shrink;
    ``vacuum`` rewrites it so it does from then on, and refuses while a server holds it."""
    create_world(db, "table1")
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA auto_vacuum=NONE")
    conn.execute("VACUUM")  # as an older vttbridge made it
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 0
    conn.close()

    from vttbridge.adapters.bridge.storage import WriterLock
    from vttbridge.adapters.bridge.storage.sqlite import SqliteDatabase

    told = run_blocking(db, lambda store: store.reclaim())
    assert "does not shrink" in told and "vttbridge world vacuum" in told
    lock = WriterLock(db)
    lock.acquire()  # a server serving the file
    try:
        with pytest.raises(StoreError):
            logkeeping.vacuum(db)
    finally:
        lock.release()
    assert " MB -> " in logkeeping.vacuum(db)
    check = SqliteDatabase(db)
    assert check.conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental
    assert check.world("table1") is not None
    check.close()
