"""``vttbridge replay`` and ``vttbridge export-test`` on a session played over the real wire.

The session (``game_night.py``): a real ``vttbridge serve`` (SQLite file or PostgreSQL), a
MiniTable GM client over python-socketio, both game systems, a Ready, a Stand Off, a surprise
round, a charge, refused moves and a table script, the server's own random dice. The replay
runs beside the server still serving those worlds, as a GM runs it: the command, in a process
of its own. It must find no difference, change no row, and find the first divergence when an
option or the script changes.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from vttbridge.adapters.bridge.replay import ReplayError, replay_report
from vttbridge.adapters.bridge.server import create_world
from vttbridge.adapters.bridge.storage import open_storage, parse

from tests.bridge import game_night
from tests.bridge.conftest import ROOT, start_serve, started_serve
from tests.bridge.storage.conftest import query
from tests.fresh import fresh_venv

MINITABLE = "tests.bridge.minitable:MiniTable"


@dataclass
class Played:
    db: Any
    script: Path
    url: str
    said: dict[str, str]


async def dump(db: Any) -> dict[str, list[tuple]]:
    """Every row of every table of the database (whatever tables it has), but the leases'
    expiries."""
    if parse(db)[0] == "sqlite":
        names = await query(db, "SELECT name FROM sqlite_master WHERE type = 'table'")
    else:
        names = await query(
            db, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        )
    out = {}
    for (name,) in sorted(names):
        # a lease's expiry moves as the serving node renews it; who holds it, and its fence
        # (one more for every lease taken), must not
        columns = "world, node, fence" if name == "leases" else "*"
        rows = await query(db, f"SELECT {columns} FROM {name}")
        out[name] = sorted(tuple(map(str, r)) for r in rows)
    return out


async def settled(db: Any, worlds: list[str], timeout: float = 20) -> None:
    """Wait until the server's last snapshot of each world is at its last seq (it snapshots a
    world gone quiet): the replay then compares the state at the end too."""
    store = await open_storage(db, read_only=True)
    try:
        async with asyncio.timeout(timeout):
            for world in worlds:
                while True:
                    last = await store.last_seq(world)
                    snaps = await store.snapshots(world)
                    if snaps and snaps[-1][0] >= last:
                        break
                    await asyncio.sleep(0.1)
    finally:
        await store.close()


async def play_served(db: Any, folder: Path) -> tuple[subprocess.Popen, Played]:
    """Serve two worlds with the table script, play the session into them, wait until the
    server saved them; the server keeps running."""
    script = folder / "table_script.py"
    script.write_text(game_night.SCRIPT)
    keys = {w: create_world(db, w, {"system": s})[0] for w, s in game_night.WORLDS.items()}
    proc, url = await start_serve(
        db, "--script", str(script), "--snapshot-every", "10", "--snapshot-quiet", "0.2"
    )
    try:
        said = await game_night.play(url, keys)
        await settled(db, list(keys))
    except BaseException:
        stop(proc)
        raise
    return proc, Played(db, script, url, said)


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=30)


@pytest.fixture
async def played(database: Any, tmp_path: Path) -> AsyncIterator[Played]:
    proc, out = await play_served(database, tmp_path)
    yield out
    stop(proc)


def vttbridge(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vttbridge", *args],
        cwd=cwd, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def replay(p: Played, world: str, *extra: str, script: Path | None = None) -> Any:
    return vttbridge(
        "replay", world, "--db", str(p.db), "--script", str(script or p.script),
        "--adapter", MINITABLE, *extra,
    )  # fmt: skip


@pytest.mark.slow
async def test_a_session_over_the_wire_replays_with_no_difference_and_finds_changes(
    played: Played, tmp_path: Path
) -> None:
    spy, foe = played.said["spy"], played.said["foe"]
    for told in (
        "Kevin readies: shoot",
        "(Ready triggered)",
        "Gary spends 1 action die to stand off",
        "Stand off so1, round 2: opposed Resolve checks",
        "Kevin shoots thug.",
        "Kevin has no actions left this turn",
    ):
        assert told in spy, told
    for told in (
        "Surprise! Raider attack.",
        "Move refused: Guard is surprised",
        "Trader shoots raider.",
        "Move refused: Mint can move 90 ft more this round",
        "Mint charges",
        "Whom does Mint attack at the end of the charge?",
    ):
        assert told in foe, told
    before = await dump(played.db)

    for world in ("spy", "foe"):  # while the server serves them
        ran = replay(played, world)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert "No differences: the replay did what the table saw (and the state at seq" in (
            ran.stdout
        ), ran.stdout
        ran = replay(played, world, "--json")
        assert ran.returncode == 0, ran.stderr
        report = json.loads(ran.stdout)
        assert report["identical"] and report["total"] == 0
        assert report["events"] == report["compared"] > 10
        assert report["started_from_snapshot"] == 0  # the world's first: its dice seed
        assert len(report["state_compared_at"]) >= 2  # a snapshot mid-session, the last one

    # a changed world option: the surprise round's announcement already cites it, then round
    # 2's initiative after the surprise round differs
    ran = replay(played, "foe", "--set", "surprise_after=insert")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    out = ran.stdout
    assert "Options changed for the replay: surprise_after = insert." in out
    first = out[out.index("First divergence at seq") :]
    assert "> seq" in first and "chat by u-gm as raider: !surprise" in first
    assert "option: surprise_after = insert" in first
    assert "initiative and turns" in first and "world state" in first
    report = json.loads(replay(played, "foe", "--set", "surprise_after=insert", "--json").stdout)
    assert not report["identical"] and report["differences"]["initiative"] > 0
    assert report["first"]["kind"] == "chat"
    assert "option: surprise_after = insert" in report["first"]["text"]

    # an edited script: the first divergence is the event that ran it, and nothing else
    edited = tmp_path / "edited" / "table_script.py"
    edited.parent.mkdir()
    edited.write_text(game_night.SCRIPT.replace("shoots", "fires at"))
    ran = replay(played, "spy", script=edited)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "> seq" in ran.stdout and "!shoot thug" in ran.stdout
    assert 'chat: was "Kevin shoots thug."; now "Kevin fires at thug."' in ran.stdout
    counts = json.loads(replay(played, "spy", "--json", script=edited).stdout)["differences"]
    assert {k: v for k, v in counts.items() if v} == {"chat": 1, "commands": 1}

    assert await dump(played.db) == before  # the replays changed no row


@pytest.mark.slow
async def test_a_selection_replays_the_rest_and_compares_only_it(played: Played) -> None:
    ran = replay(played, "spy", "--from", "20", "--to", "40", "--json")
    report = json.loads(ran.stdout)
    assert report["identical"], (
        ran.stdout,
        replay(played, "spy", "--from", "20", "--to", "40").stdout,
    )
    assert report["first_seq"] >= 20 and report["last_seq"] <= 40
    assert report["events"] > report["compared"] > 0  # those before 20 set the scene
    ran = replay(played, "nobody")
    assert ran.returncode == 2 and "no world named 'nobody'" in ran.stderr
    ran = replay(played, "spy", "--set", "diagonal=alternating")
    assert ran.returncode == 2 and "did you mean diagonal_metric" in ran.stderr


@pytest.mark.slow
def test_a_foundry_world_replays_its_commands_too(tmp_path: Path) -> None:
    """``vttbridge demo`` (a simulated Foundry client: a Ready and a Stand Off) into a GM's
    ``vttbridge serve``, then ``vttbridge replay default`` in the same folder, as the GM types
    them: the Foundry adapter's commands are compared too, and all is as the table saw."""
    with started_serve(tmp_path) as served:
        ran = vttbridge(
            "demo", "--url", served.url, "--pace", "0", "--key", served.gm, cwd=tmp_path
        )
        assert ran.returncode == 0, ran.stdout + ran.stderr
        ran = vttbridge("replay", "default", "--json", cwd=tmp_path)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        report = json.loads(ran.stdout)
        assert report["identical"] and report["events"] > 10
        assert not [n for n in report["notes"] if "Commands not compared" in n]
        rows = asyncio.run(query(served.db, "SELECT count(*) FROM log WHERE kind = 'command'"))
        assert rows[0][0] > 10  # there were commands to compare
        # the same log through a Foundry adapter that words its commands otherwise: the
        # effects are the same, the commands are not
        (tmp_path / "loud_foundry.py").write_text(LOUD_FOUNDRY)
        ran = vttbridge(
            "replay", "default", "--json", "--adapter", "loud_foundry:LoudFoundry", cwd=tmp_path
        )
        assert ran.returncode == 1, ran.stdout + ran.stderr
        counts = json.loads(ran.stdout)["differences"]
        assert counts["commands"] > 0 and sum(counts.values()) == counts["commands"]


LOUD_FOUNDRY = """
from vttbridge.adapters.foundry import FoundryAdapter


class LoudFoundry(FoundryAdapter):
    def translate_out(self, effect, world):
        return [
            c.model_copy(update={"data": {**c.data, "loud": True}})
            for c in super().translate_out(effect, world)
        ]
"""


# -- in-process, fast -----------------------------------------------------------------------------


async def stand_off_world(tmp_path: Path, *, time_out: bool) -> Path:
    """A Spycraft world where the thug attacks Gary, who is offered a Stand Off: he takes it
    (both are then in two conditions), or the offer times out at the table (its default
    taken). A snapshot every 4 events; the database's path."""
    from vttbridge.adapters.bridge.config import WorldConfig

    from tests.bridge.conftest import TableClient, start_server

    db = tmp_path / "t.sqlite3"
    key = create_world(db, "spy", {"system": "spycraft"})[0]
    srv = await start_server(db, world=WorldConfig(snapshot_every=4), rate=0)
    client = await TableClient().connect(srv.url, "spy", key)
    try:
        t = game_night.Table(client, "spy")
        await t.send("snapshot", t.snapshot(game_night.SPY_TOKENS))
        start = {"thug": 20, "gary": 10}
        await t.send("combatStart", {"tokens": list(start), "initiative": start})
        await t.chat("!set prompt_timeout 0.2")
        await t.move("thug", 100, 300)  # within 30 ft of Gary
        assert "Stand off?" in await t.chat("!attack gary", "thug")
        if time_out:
            async with asyncio.timeout(5):
                while not any(
                    "takes the attack" in c["data"].get("text", "") for c in client.commands
                ):
                    await asyncio.sleep(0.05)
        else:
            assert "Stand off so1" in await t.answer("Stand off?", "stand_off", "u-q")
        await t.chat("!next")
    finally:
        await client.close()
        await srv.stop()
    return db


async def test_timeouts_and_a_pruned_first_snapshot_replay_too(tmp_path: Path) -> None:
    """A question the table let time out is in the log as the runtime's own event, replayed in
    its place (timers never fire in a replay); a world saved before the first snapshot was
    kept replays from its oldest one, and says so."""
    db = await stand_off_world(tmp_path, time_out=True)
    report = await replay_report(str(db), "spy")
    assert report.total == 0, report.text()
    assert report.start_seq == 0
    rows = await query(db, "SELECT seq FROM snapshots WHERE world = 'spy' ORDER BY seq")
    assert rows[0] == (0,) and len(rows) == 3

    await query(db, "DELETE FROM snapshots WHERE seq = 0")  # as an older vttbridge pruned it
    report = await replay_report(str(db), "spy")
    assert report.total == 0 and report.start_seq == rows[1][0]
    assert "the replay starts there" in report.text()


async def test_the_state_compares_sets_as_sets(tmp_path: Path) -> None:
    """A character's conditions are a set: the snapshot's JSON lists them in the order the
    writing process happened to hold them, which another process need not share."""
    db = await stand_off_world(tmp_path, time_out=False)
    ((seq, data),) = await query(
        db, "SELECT seq, data FROM snapshots WHERE world = 'spy' ORDER BY seq DESC LIMIT 1"
    )
    snap = json.loads(data)
    conditions = snap["world"]["encounter"]["characters"]["gary"]["conditions"]
    assert sorted(conditions) == ["standoff", "vulnerable"]
    conditions.reverse()
    await query(db, "UPDATE snapshots SET data = ? WHERE seq = ?", json.dumps(snap), seq)
    report = await replay_report(str(db), "spy")
    assert report.total == 0 and seq in report.state_seqs, report.text()
    conditions.remove("vulnerable")  # a real difference is still one
    await query(db, "UPDATE snapshots SET data = ? WHERE seq = ?", json.dumps(snap), seq)
    report = await replay_report(str(db), "spy")
    assert report.counts == {"state": 1}, report.text()
    assert report.differences[0].text == (
        'world.encounter.characters.gary.conditions: was ["standoff"]; now ["standoff", '
        '"vulnerable"]'
    )


@pytest.mark.slow
async def test_an_exported_slice_starts_from_the_world_as_it_was(tmp_path: Path) -> None:
    """``--from``: the file holds the world before the slice and starts the harness from it;
    the timed-out question is sent as the runtime's own event. It passes as written."""
    db = await stand_off_world(tmp_path, time_out=True)
    out = tmp_path / "tests" / "test_slice.py"
    ran = vttbridge("export-test", "spy", "--db", str(db), "--from", "8", "--out", str(out))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    text = out.read_text()
    assert "state=START" in text and "START = {" in text
    assert '"timed_out": True' in text and '"source": "runtime"' in text
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr


async def test_an_event_this_version_cannot_read_is_reported_not_fatal(tmp_path: Path) -> None:
    db = await stand_off_world(tmp_path, time_out=True)
    rows = await query(db, "SELECT seq, body FROM log WHERE kind = 'event' ORDER BY seq")
    seq, body = next((s, b) for s, b in rows if '"!next"' in b)  # the last event
    gone = body.replace('"type":"chat_message"', '"type":"no_longer_known"')
    assert gone != body
    await query(db, "UPDATE log SET body = ? WHERE seq = ?", gone, seq)
    report = await replay_report(str(db), "spy")
    assert report.counts.get("refused") == 1 and report.differences[0].seq == seq
    assert "unreadable" in report.differences[0].text
    assert f"> seq {seq:<6} unreadable" in report.text()


async def test_bad_requests_are_told(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    create_world(db, "spy")
    with pytest.raises(ReplayError, match=r"no world named 'sp'.*did you mean spy"):
        await replay_report(str(db), "sp")
    with pytest.raises(ReplayError, match=r"tie_break='sometimes'"):
        await replay_report(str(db), "spy", changes={"tie_break": "sometimes"})
    missing = tmp_path / "missing.sqlite3"
    from vttbridge.adapters.bridge.storage import StoreError

    with pytest.raises(StoreError, match="cannot open"):
        await replay_report(str(missing), "spy")
    assert not missing.exists()  # never created


# -- export-test ----------------------------------------------------------------------------------

PATCH_RULES = '''
import pytest


@pytest.fixture(autouse=True)
def house_rules(monkeypatch):
    """A rule changed: a run is 4x speed, a stand off costs 4 Initiative."""
    from vttbridge.systems.foe.rules import movement
    from vttbridge.systems.spycraft.rules import standoff

    monkeypatch.setattr(movement, "RUN_MULTIPLIER", 4)
    monkeypatch.setattr(standoff, "IC_COST", 4)
'''


@pytest.mark.slow
async def test_export_test_writes_tests_that_pass_alone_and_fail_on_a_changed_rule(
    tmp_path: Path,
) -> None:
    """Each world of the session becomes a test file; in an empty folder of a fresh virtual
    environment with only vttbridge[testing] installed they pass as written, and fail when a
    rule they exercised changes or when their world's option is edited."""
    db = tmp_path / "served.sqlite3"
    proc, played = await play_served(db, tmp_path)
    project = tmp_path / "my-table"
    (project / "tests").mkdir(parents=True)
    shutil.copy(played.script, project / "table_script.py")
    try:
        for world in ("spy", "foe"):
            ran = vttbridge(
                "export-test", world, "--db", str(db), "--script", str(project / "table_script.py"),
                "--adapter", MINITABLE, "--out", str(project / "tests" / f"test_{world}.py"),
            )  # fmt: skip
            assert ran.returncode == 0, ran.stdout + ran.stderr
            assert f"Wrote {project / 'tests' / f'test_{world}.py'}:" in ran.stdout
    finally:
        stop(proc)
    foe_test = (project / "tests" / "test_foe.py").read_text()
    assert 'SCRIPTS = [HERE / "../table_script.py"]' in foe_test
    assert 'out = await w.chat("!charge raider", token="mint", player="u-q")' in foe_test
    # as a formatter leaves it, at its default line length and at this repository's
    for width in ("88", "100"):
        ran = subprocess.run(
            [sys.executable, "-m", "ruff", "format", "--check", "--line-length", width, "."],
            cwd=project / "tests", capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "assert questions(out) == [" in foe_test and "assert moved(out) == [" in foe_test
    assert "state=START" not in foe_test  # the whole log: a new world, no snapshot inside

    python = fresh_venv(tmp_path)

    def pytest_in(folder: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [python, "-m", "pytest", "-p", "no:cacheprovider", "-q"],
            cwd=folder, capture_output=True, text=True, timeout=300,
        )  # fmt: skip

    ran = pytest_in(project)
    assert ran.returncode == 0 and "2 passed" in ran.stdout, ran.stdout + ran.stderr

    (project / "tests" / "conftest.py").write_text(PATCH_RULES)
    ran = pytest_in(project)
    assert ran.returncode == 1 and "2 failed" in ran.stdout, ran.stdout + ran.stderr
    assert "running: 4 x 30 ft" in ran.stdout or "AssertionError" in ran.stdout
    (project / "tests" / "conftest.py").unlink()

    edited = foe_test.replace(
        'OPTIONS = {"system": "foe"}', 'OPTIONS = {"system": "foe", "surprise_after": "insert"}'
    )
    assert edited != foe_test
    (project / "tests" / "test_foe.py").write_text(edited)
    ran = pytest_in(project)
    assert ran.returncode == 1 and "1 failed, 1 passed" in ran.stdout, ran.stdout + ran.stderr
