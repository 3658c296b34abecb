"""The Roll20 JavaScript, driven from pytest with node's built-in test runner.

- ``mod.test.mjs``: the Mod script, unmodified, against a stand-in of the Roll20 sandbox.
- ``e2e.test.mjs``: the Mod script, the *built* relay userscript in a page-shaped Roll20 tab
  (jsdom) with the real socket.io-client, and a real ``vttbridge serve`` subprocess on a free
  port with a temporary SQLite file; plays a Fallout: Equestria ambush.
- ``e2e-ready.test.mjs``: the same stack, Spycraft 2.0: a Ready on a move's attempt, the move
  held by the Mod and completed by the bridge.
- ``e2e-sheets.test.mjs``: the same stack, Spycraft 2.0: what the rules change (a spent action
  die, stress, a crack strike's wound points) reaches the sheets' attributes and the tokens'
  bars and stays across a re-sent snapshot, a sheet edit and a restart; a stand off shows as
  status markers; the GM's own sheet edit is followed.

Needs Node.js 20+ and npm. ``npm ci`` runs here when ``node_modules`` is missing (CI may run it
beforehand), and the relay is always rebuilt so the bundle under test is the current source.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

log = logging.getLogger(__name__)

RELAY = ROOT / "adapters" / "roll20" / "relay"
NODE = shutil.which("node")
NPM = shutil.which("npm")

pytestmark = [  # Node runs the companions against a real server
    pytest.mark.skipif(
        NODE is None or NPM is None, reason="Node.js and npm are needed for the Roll20 JS tests"
    ),
    pytest.mark.slow,
]


def _run(cmd: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="session")
def relay_built() -> Path:
    """``npm ci`` if needed, then ``npm run build``; returns the relay folder."""
    assert NPM is not None
    if not (RELAY / "node_modules" / "socket.io-client").is_dir():
        res = _run([NPM, "ci", "--no-audit", "--no-fund"], RELAY, 600)
        assert res.returncode == 0, f"npm ci failed:\n{res.stdout}\n{res.stderr}"
    res = _run([NPM, "run", "build"], RELAY, 120)
    assert res.returncode == 0, f"the relay build failed:\n{res.stdout}\n{res.stderr}"
    assert (RELAY / "dist" / "vttbridge-relay.user.js").is_file()
    return RELAY


def _node_test(relay: Path, name: str) -> None:
    assert NODE is not None
    env = dict(os.environ, VTTBRIDGE_CMD=json.dumps([sys.executable, "-m", "vttbridge"]))
    res = subprocess.run(
        [NODE, "--test", "--test-reporter=spec", f"test/{name}"],
        cwd=relay,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    log.info("node --test %s:\n%s", name, res.stdout)
    assert res.returncode == 0, f"node --test {name} failed:\n{res.stdout}\n{res.stderr}"


def test_mod_script_in_the_sandbox_stand_in(relay_built: Path) -> None:
    _node_test(relay_built, "mod.test.mjs")


def test_relay_unit(relay_built: Path) -> None:
    _node_test(relay_built, "relay.test.mjs")


def test_end_to_end_foe_ambush(relay_built: Path) -> None:
    _node_test(relay_built, "e2e.test.mjs")


def test_end_to_end_ready_on_a_held_move(relay_built: Path) -> None:
    _node_test(relay_built, "e2e-ready.test.mjs")


def test_end_to_end_the_rules_changes_reach_sheets_and_tokens(relay_built: Path) -> None:
    _node_test(relay_built, "e2e-sheets.test.mjs")


def test_the_mod_among_other_scripts(relay_built: Path) -> None:
    """TokenMod's moves and bar changes reach the Mod through TokenMod's observer; another
    script registered with VTTBridge.ObserveTokenChange hears the Mod's writes."""
    _node_test(relay_built, "neighbours.test.mjs")


def test_end_to_end_a_tokenmod_move_and_a_put_back_others_hear(relay_built: Path) -> None:
    """A TokenMod move reaches the rules; a refused drag's put-back reaches another script."""
    _node_test(relay_built, "e2e-neighbours.test.mjs")


def test_end_to_end_a_mod_the_bridge_does_not_support_is_told(relay_built: Path) -> None:
    """Versions meet: the relay's box and a whisper to the GM say the Mod needs an update."""
    _node_test(relay_built, "e2e-versions.test.mjs")
