"""Runaway scripts against a real ``vttbridge serve``: a listener stuck in ``while True: pass``
is stopped at its budget while the server keeps answering, and an event that hung the server
for good is quarantined after a restart instead of hanging the next server."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import urllib.request
from pathlib import Path

import pytest
from vttbridge.adapters.bridge.server import create_world
from vttbridge.adapters.bridge.storage import run_blocking

from tests.bridge.conftest import TableClient, logged, scene, start_serve

SPIN = """\
from vttbridge.sdk import Script, TokenMoved
script = Script("spin")
@script.on(TokenMoved)
def spin(event, ctx):
    if event.token == "thug":
        while True: pass
"""
STUCK = """\
import time
from vttbridge.sdk import Script, TokenMoved
script = Script("stuck")
@script.on(TokenMoved)
async def stuck(event, ctx):  # a step of an async callback runs on the server's loop
    if event.token != "thug":
        return
    while True:  # swallows every interrupt: only a restart ends this
        try:
            time.sleep(0.05)
        except BaseException:
            pass
"""


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM, and a clean exit; a server still hung is killed (and the test fails)."""
    proc.send_signal(signal.SIGTERM)
    try:
        assert proc.wait(15) == 0
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
        raise AssertionError("the server did not stop: it is hung") from None


def healthz(url: str) -> dict:
    with urllib.request.urlopen(f"{url}/healthz", timeout=10) as r:
        return json.loads(r.read())


def gm_lines(client: TableClient) -> list[str]:
    return [json.dumps(c["data"]) for c in client.commands]


async def linked(url: str, world: str, key: str, budget: float) -> TableClient:
    c = await TableClient().connect(url, world, key)
    assert (await c.send("snapshot", scene()))["ok"]
    ack = await c.send(
        "chat", {"id": "budget", "text": f"!set script_budget {budget}", "role": "gm"}
    )
    assert ack["ok"], ack
    return c


@pytest.mark.slow  # a callback run past its budget
async def test_a_busy_loop_is_stopped_and_the_server_keeps_answering(tmp_path: Path):
    db = tmp_path / "spin.sqlite3"
    script = tmp_path / "spin.py"
    script.write_text(SPIN)
    keys = {w: create_world(db, w)[0] for w in ("table1", "table2")}
    proc, url = await start_serve(db, "--script", str(script))
    clients: list[TableClient] = []
    try:
        gm = await linked(url, "table1", keys["table1"], 0.5)
        other = await linked(url, "table2", keys["table2"], 0.5)
        clients += [gm, other]
        stuck = asyncio.create_task(
            gm.send("tokenMoved", {"id": "m1", "token": "thug", "x": 0, "y": 0})
        )
        await asyncio.sleep(0.1)  # the loop has started (the server reads the event at once)
        # meanwhile (answered once the watchdog stopped the loop): health and another world
        health = await asyncio.to_thread(healthz, url)
        assert health["ok"]
        ack = await other.send("tokenMoved", {"id": "o1", "token": "kevin", "x": 0, "y": 0})
        assert ack["ok"], ack
        ack = await stuck
        assert ack["ok"], ack  # the event itself goes on: the listener was stopped
        async with asyncio.timeout(10):
            while "stopped" not in " ".join(gm_lines(gm)):
                await gm.wait_commands(len(gm.commands) + 1)
        said = " ".join(gm_lines(gm))
        assert "spin.py:6" in said and "stopped" in said, said
        assert (await gm.send("tokenMoved", {"id": "m2", "token": "kevin", "x": 0, "y": 0}))["ok"]
    finally:
        for c in clients:
            await c.close()
        stop(proc)


def suspects(db: Path | str) -> list[tuple]:
    found = run_blocking(db, lambda store: store.suspects("table1"))
    return [("table1", eid, name, where) for eid, (name, where, _) in found.items()]


@pytest.mark.slow  # a server hung, killed and restarted
async def test_an_event_that_hung_the_server_is_quarantined_after_a_restart(
    tmp_path: Path, database
):
    db = database
    script = tmp_path / "stuck.py"
    script.write_text(STUCK)
    key, _ = create_world(db, "table1")
    poison = {"id": "poison-1", "token": "thug", "x": 300, "y": 0}
    # restarted under the same name: it takes its worlds back without waiting for its lease
    serve = ("--script", str(script), "--node-id", "poison-test")
    proc, url = await start_serve(db, *serve)
    try:
        gm = await linked(url, "table1", key, 0.3)
        sent = asyncio.ensure_future(gm.send("tokenMoved", poison, timeout=30))
        async with asyncio.timeout(10):  # the watchdog marks it once past the budget
            while not suspects(db):
                await asyncio.sleep(0.05)
        assert suspects(db) == [("table1", "poison-1", "tokenMoved", "stuck.py:10")]
        assert not sent.done()  # past its budget and hung: no ack
        sent.cancel()
        await gm.close()
    finally:
        proc.send_signal(signal.SIGKILL)  # the GM's only way out of a hung server
        proc.wait(10)

    proc, url = await start_serve(db, *serve)
    try:
        back = await TableClient().connect(url, "table1", key)
        for _ in range(2):  # the client re-sends its unacknowledged event: never run
            ack = await back.send("tokenMoved", poison, timeout=5)
            assert ack["ok"] is False and ack["error"]["code"] == "quarantined", ack
        async with asyncio.timeout(10):  # after any command re-sent from before the kill
            while "poison-1" not in " ".join(gm_lines(back)):
                await back.wait_commands(len(back.commands) + 1)
        told = " ".join(gm_lines(back))
        assert "poison-1" in told and "stuck.py:10" in told, told
        assert "poison-1" not in logged(db)[0]
        assert (await back.send("tokenMoved", {"id": "fine", "token": "kevin", "x": 0, "y": 0}))[
            "ok"
        ]
        await back.close()
    finally:
        stop(proc)
