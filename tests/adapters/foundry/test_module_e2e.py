"""The companion module end to end: its own JavaScript, unmodified, against a stand-in of the
Foundry globals and the real socket.io-client, connected to a real ``vttbridge serve``
subprocess (temp SQLite file, free port). Under Node (the source) and in headless Chromium (the
built bundle), on the stand-in as Foundry v12 (held moves: preUpdateToken) and v13 (held moves
paused and resumed, the Token Ruler coloured by the rules' movement budget, paths and jump
waypoints measured by the rules). Skipped only when ``node`` is missing; the Chromium runs are
skipped when Debian's chromium is missing, except under CI (``CI=true``) where that is a
failure.

The Node tests install the module's npm packages (``npm ci``) when they are missing.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import ROOT

MODULE = ROOT / "adapters" / "foundry" / "module"
NODE = shutil.which("node")
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")

# Node and Chromium run the companion against a real server
pytestmark = [pytest.mark.skipif(NODE is None, reason="node is not installed"), pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cli(*args: str, **kw: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "vttbridge", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=60, check=True, **kw,
    )  # fmt: skip


class Served:
    def __init__(self, url: str, db: Path) -> None:
        self.url, self.db = url, db
        self.count = 0

    def world(self, system: str = "spycraft") -> tuple[str, str]:
        """A fresh world on the running server: (name, GM key)."""
        self.count += 1
        name = f"warehouse{self.count}"
        out = _cli("world", "create", name, "--system", system, "--db", str(self.db)).stdout
        key = re.search(r"GM key[^:]*:\s*(\S+)", out)
        assert key, out
        return name, key.group(1)


@contextlib.contextmanager
def serving(
    tmp: Path, adapter: str = "vttbridge.adapters.foundry:FoundryAdapter"
) -> Iterator[Served]:
    """A ``vttbridge serve`` subprocess serving ``adapter`` on a free port, with a SQLite file
    in ``tmp``; its log is ``tmp / "serve.log"``."""
    db = tmp / "bridge.sqlite3"
    port = _free_port()
    log = (tmp / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "vttbridge", "serve", "--db", str(db), "--port", str(port),
         "--adapter", adapter, "--no-default-world", "--log-level", "info"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError):
                urllib.request.urlopen(url + "/healthz", timeout=1).read()
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("vttbridge serve did not start:\n" + (tmp / "serve.log").read_text())
            time.sleep(0.1)
        yield Served(url, db)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serving(tmp_path_factory.mktemp("bridge")) as served:
        yield served


def _node_test(test_file: str, env: dict[str, str], timeout: float = 180) -> str:
    res = subprocess.run(
        [NODE, "--test", "--test-reporter=tap", *test_file.split()],
        cwd=MODULE, env={**os.environ, **env}, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip
    out = res.stdout + res.stderr
    assert res.returncode == 0, out
    assert re.search(r"^# pass [1-9]", out, re.M), out
    assert re.search(r"^# fail 0", out, re.M), out
    return out


def _env(bridge: Served, system: str = "spycraft") -> dict[str, str]:
    world, key = bridge.world(system)
    return {"VTTBRIDGE_URL": bridge.url, "VTTBRIDGE_WORLD": world, "VTTBRIDGE_KEY": key}


def _state(bridge: Served, env: dict[str, str]) -> dict:
    req = urllib.request.Request(
        f"{bridge.url}/api/worlds/{env['VTTBRIDGE_WORLD']}/state",
        headers={"Authorization": f"Bearer {env['VTTBRIDGE_KEY']}"},
    )
    return json.loads(urllib.request.urlopen(req, timeout=5).read())


@pytest.mark.parametrize(
    "test_file", ["test/e2e.test.mjs", "test/e2e-v13.test.mjs", "test/e2e-v14.test.mjs"]
)
def test_module_under_node(npm_installed: None, bridge: Served, test_file: str) -> None:
    """Kevin's corner on Foundry v12 (held by preUpdateToken), v13 (paused, resumed) and v14
    (paused by the hold region, resumed; questions as User#query dialogs)."""
    env = _env(bridge)
    out = _node_test(test_file, env)
    assert "# skipped 0" in out
    assert "Kevin holds back (Reflex" in out
    assert "Kevin takes his readied action: shoot (before the task" in out
    assert re.search(r"Stand off \S+ ends: everyone re-enters combat", out)
    # the bridge's view agrees with Foundry's: the Thug's move completed, Kevin's IC fell
    state = _state(bridge, env)
    cells = {tid: tuple(t["cell"]) for tid, t in state["tokens"].items()}
    assert cells == {
        "tKevin0000000001": (8, 5),
        "tGary00000000002": (10, 5),
        "tThug00000000003": (11, 5),
    }  # both held moves completed
    ics = {row["token"]: row["ic"] for row in state["initiative"]}
    assert ics == {"tGary00000000002": 14, "tThug00000000003": 10, "tKevin0000000001": 5}
    readies = state["systems"].get("spycraft", {}).get("readies", {})
    assert readies == {} and state["encounter"]["round"] == 2


def test_rules_changes_reach_sheets_and_tokens(npm_installed: None, bridge: Served) -> None:
    """A spent action die, stress and a crack strike's wound points go to the sheets (the
    actor, an unlinked token's delta) and stay across a re-sent scene; the stand off shows as
    status effects; a GM's edit on the sheet is followed."""
    env = _env(bridge)
    out = _node_test("test/sheets.test.mjs", env)
    assert "# skipped 0" in out
    req = urllib.request.Request(
        f"{bridge.url}/api/worlds/{env['VTTBRIDGE_WORLD']}/state",
        headers={"Authorization": f"Bearer {env['VTTBRIDGE_KEY']}"},
    )
    state = json.loads(urllib.request.urlopen(req, timeout=5).read())
    (standoff,) = state["systems"]["spycraft"]["standoffs"]
    assert standoff["active"] is False and standoff["end_reason"] == "damage"


def test_foe_turn_on_v13_ruler_budget_paths_and_jumps(npm_installed: None, bridge: Served) -> None:
    """Foundry v13, Fallout: Equestria: the Token Ruler's colours follow the budget the bridge
    writes on the token (walk, run, sneak, beyond); an L-shaped drag along waypoints counts
    25 ft (its path, not the 20 ft straight line); a jump waypoint goes to the jump rule."""
    env = _env(bridge, "foe")
    out = _node_test("test/e2e-foe-v13.test.mjs", env)
    assert "# skipped 0" in out
    assert "Move refused: Mint can jump 12.5 ft; that jump is 15 ft." in out
    state = _state(bridge, env)
    assert tuple(state["tokens"]["tMint00000000001"]["cell"]) == (5, 2)
    assert state["encounter"]["round"] == 2


def test_v14_levels_regions_queries_and_effects(npm_installed: None, bridge: Served) -> None:
    """Foundry v14: a token on another level crosses the watched corner and sets nothing off;
    on the corner's level its movement is paused by the module's hold region and resumed; the
    rules' question is a User#query dialog that times out to its default (fire); the Ready's
    condition is an Active Effect with the rules' duration, ended once (by the module when the
    Ready fires, by Foundry's expiry when it runs out)."""
    env = _env(bridge)
    out = _node_test("test/e2e-levels-v14.test.mjs", env)
    assert "# skipped 0" in out
    state = _state(bridge, env)
    assert tuple(state["tokens"]["tThug00000000003"]["cell"]) == (9, 6)
    assert tuple(state["tokens"]["tGary00000000002"]["cell"]) == (9, 5)


def test_module_unit_tests(npm_installed: None) -> None:
    """The module's pieces without a bridge: commands fixture, holds, the player relay (v12 and
    v13), the budget ruler, the link's bookkeeping (last_seq, events re-sent, retries)."""
    files = "test/unit.test.mjs test/relay.test.mjs test/unit-v13.test.mjs test/relay-v13.test.mjs"
    out = _node_test(files, {})
    assert re.search(r"^# pass 32$", out, re.M), out


@pytest.mark.parametrize(
    ("scenario", "system", "said"),
    [
        ("corner12", "spycraft", "Kevin holds back (Reflex"),
        ("corner13", "spycraft", "Kevin holds back (Reflex"),
        ("corner14", "spycraft", "Kevin holds back (Reflex"),
        ("foe13", "foe", "Move refused: Mint can jump 12.5 ft"),
    ],
)
def test_bundle_in_chromium(
    npm_installed: None, bridge: Served, scenario: str, system: str, said: str
) -> None:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"Chromium is missing at {CHROMIUM}: apt-get install chromium")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    env = {**_env(bridge, system), "VTTBRIDGE_SCENARIO": scenario}
    out = _node_test("test/browser.test.mjs", env, timeout=240)
    assert "# skipped 0" in out
    assert said in out
    assert (MODULE / "dist" / "vttbridge.js").is_file()
