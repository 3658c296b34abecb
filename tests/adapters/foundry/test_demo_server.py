"""``vttbridge demo`` against a running ``vttbridge serve``: it plays into the world whose GM key
it is given, over the real wire, ends its fight, may be played again, and refuses what would
spoil a game (a VTT linked right now, another scene, another system, an observer key)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import socketio
from vttbridge.adapters.foundry.demo import DEMO_TOKENS

from tests.bridge.conftest import StartedServe, started_serve

pytestmark = pytest.mark.slow


def state(served: StartedServe, world: str = "default") -> dict:
    req = urllib.request.Request(
        f"{served.url}/api/worlds/{world}/state", headers={"Authorization": f"Bearer {served.gm}"}
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def vttbridge(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vttbridge", *args],
        cwd=cwd, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.fixture
def served(tmp_path: Path) -> Iterator[StartedServe]:
    with started_serve(tmp_path) as started:
        yield started


def demo(
    served: StartedServe, *args: str, key: str | None = None
) -> subprocess.CompletedProcess[str]:
    return vttbridge(
        "demo", "--url", served.url, "--pace", "0", "--key", key or served.gm, *args,
        cwd=served.db.parent,
    )  # fmt: skip


def test_the_demo_plays_into_the_running_servers_world(served: StartedServe):
    before = state(served)
    assert before["tokens"] == {} and before["linked_vtt"] is None
    done = demo(served)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert f"Watch it on the dashboard: {served.url}/" in out
    assert re.search(r"Kevin holds back \(Reflex \d+ vs DC 15\)", out)
    assert "Combat ends." in out and "Done." in out
    after = state(served)
    assert set(after["tokens"]) == DEMO_TOKENS and after["clients"] == 0
    assert after["linked_vtt"] == "foundry" and not after["encounter"]["in_combat"]
    assert after["seq"] > 0  # the world's own log holds the fight
    # and again: the world holds only the demo's scene
    again = demo(served)
    assert again.returncode == 0, again.stdout + again.stderr


async def test_the_demo_refuses_what_would_spoil_a_game(served: StartedServe):
    # an observer key may only watch
    done = demo(served, key=served.observer)
    assert done.returncode == 1 and "observer key" in done.stderr, done.stderr
    # a wrong key, an unknown world: the server's own words
    done = demo(served, key="vtt_gm_wrong")
    assert done.returncode == 1 and "Wrong key" in done.stderr, done.stderr
    # a world of another system
    made = vttbridge("world", "create", "wasteland", "--system", "foe", "--db", str(served.db),
                     cwd=served.db.parent)  # fmt: skip
    foe_gm = re.search(r"GM key[^:]*:\s*(\S+)", made.stdout).group(1)  # type: ignore[union-attr]
    done = demo(served, "--world", "wasteland", key=foe_gm)
    assert done.returncode == 1 and "Spycraft 2.0 fight" in done.stderr, done.stderr
    # a VTT linked right now
    vtt = socketio.AsyncClient(reconnection=False)
    auth = {"world": "default", "key": served.gm, "client": {"name": "a-vtt", "version": "1"}}
    await vtt.connect(served.url, namespaces=["/foundry"], auth=auth, transports=["websocket"])
    try:
        done = await asyncio.to_thread(demo, served)
        assert done.returncode == 1 and "A VTT is linked" in done.stderr, done.stderr
    finally:
        await vtt.disconnect()
    assert state(served)["tokens"] == {}  # nothing was played


def test_without_a_server_the_demo_says_what_to_do(tmp_path: Path):
    done = vttbridge("demo", "--url", "http://127.0.0.1:9", "--key", "k", cwd=tmp_path)
    assert done.returncode == 1 and "vttbridge serve" in done.stderr and "--private" in done.stderr
    done = vttbridge("demo", "--url", "http://127.0.0.1:9", cwd=tmp_path)  # no key, no terminal
    assert done.returncode == 2 and "--key" in done.stderr
